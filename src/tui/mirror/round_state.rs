//! One round as the UI holds it: the round as last stored, its model text sanitised, and the
//! calls under way, streaming. Every view reads what is stored (phases, judgments, the
//! panel's record, the protocol's records such as quote counts and the argument trace) from
//! the stored round, so a round finished in an earlier session shows exactly as one
//! finished a moment ago; only text not yet stored comes from the live calls.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;

use crate::domain::{
    Attempt, Judgment, PanelRecord, PhaseType, QaChoice, Round, RoundError, RoundStatus, Team, Turn,
};
use crate::engine::{UsageTotals, WaitingKind, is_stored_call, waiting};
use crate::sanitize::{Sanitizer, sanitize};

/// A call under way: what it has streamed so far.
#[derive(Debug, Clone)]
pub struct LivePhase {
    /// Which phase.
    pub phase_type: PhaseType,
    /// Who is called (see [`crate::domain::speaker`]), sanitised as the stored phase's is.
    pub speaker: String,
    /// Who is called, as the engine's events name it.
    key: String,
    /// Its text so far (sanitised).
    pub text: String,
    /// Attempts that failed so far.
    pub retries: u32,
    /// The call waits in its provider's batch (batch mode).
    pub batched: bool,
    /// Filters the stream, which may split an escape sequence between two pieces.
    pub(crate) filter: Sanitizer,
}

/// An item of the review queue: something in a stored round that waits for a person.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewItem {
    /// The round.
    pub round_id: String,
    /// The judge, or the reply (`pro.opening`): what a correction names.
    pub judge: String,
    /// A judgment read this far, or a debater's reply.
    pub kind: WaitingKind,
    /// What could not be read (sanitised).
    pub problems: Vec<String>,
    /// The model's own text (sanitised).
    pub raw: String,
}

/// One phase of the transcript, stored or streaming.
#[derive(Debug, Clone)]
pub struct Entry<'a> {
    /// Which phase.
    pub phase_type: PhaseType,
    /// Who answered (see [`crate::domain::speaker`]).
    pub speaker: Cow<'a, str>,
    /// The answer, or the text so far.
    pub text: &'a str,
    /// The prompt, once stored.
    pub prompt: Option<&'a str>,
    /// How long it took, once stored.
    pub latency_ms: Option<u64>,
    /// Whether it is stored (not streaming).
    pub done: bool,
    /// The debater and round, for debate turns (once stored).
    pub turn: Option<Turn>,
    /// Why it failed, for a panel judge's call that failed.
    pub error: Option<&'a str>,
    /// Every attempt of the call, once stored (a failed call's say why each failed).
    pub attempts: &'a [Attempt],
    /// Prompt and answer tokens, once stored and when known.
    pub tokens: Option<(u64, u64)>,
    /// The server reported no usage: `tokens` are estimates.
    pub usage_estimated: bool,
    /// The answer ended at the output-token limit.
    pub truncated: bool,
    /// Why the model stopped, as the provider spelled it (sanitised), once stored.
    pub finish_reason: Option<&'a str>,
    /// The provider's batch that carried the call (batch mode), once stored.
    pub batch_id: Option<&'a str>,
    /// The call waits in a provider's batch (batch mode), while under way.
    pub batched: bool,
    /// The answer came from the response cache, not a call (once stored).
    pub reused: bool,
    /// The judgment read from this answer, for a stored judging call whose answer is its
    /// judge's judgment (what the judge saw is shown under it).
    pub judgment: Option<&'a Judgment>,
}

impl Entry<'_> {
    /// The debater (A or B) of a debate turn: from its turn once stored, from its speaker
    /// label (see [`crate::domain::speaker`]) while it streams.
    pub fn team(&self) -> Option<Team> {
        self.turn.map(|t| t.side).or_else(|| {
            if self.speaker.contains("· debater A") {
                Some(Team::A)
            } else if self.speaker.contains("· debater B") {
                Some(Team::B)
            } else {
                None
            }
        })
    }
}

/// One round of the matrix.
#[derive(Debug, Clone)]
pub struct RoundState {
    /// The round as last stored (as set up, for a round with no file yet), model text
    /// sanitised.
    pub stored: Arc<Round>,
    /// Whether `stored` is on disk (a round not yet begun has no file).
    pub on_disk: bool,
    /// Calls under way, in the order they started.
    pub live: Vec<LivePhase>,
    /// What waits for a person in the stored round.
    pub review: Vec<ReviewItem>,
    /// What the stored phases used.
    pub usage: UsageTotals,
    /// When a retry is due, while one is waiting.
    pub retry_until: Option<Instant>,
    /// `stored` is [`Round::without_text`]: a finished round the UI has not shown lately
    /// keeps its numbers and verdicts only, and its text is read back from the store when
    /// it is opened (see `round_text`).
    pub text_dropped: bool,
    /// The engine accepted it to run again and it has not started yet (a retry).
    pub queued: bool,
}

impl RoundState {
    /// A round as stored (or set up), its text already sanitised.
    pub(crate) fn new(stored: Arc<Round>, on_disk: bool) -> Self {
        Self {
            review: review_items(&stored),
            usage: UsageTotals::of(&stored),
            stored,
            on_disk,
            live: Vec::new(),
            retry_until: None,
            text_dropped: false,
            queued: false,
        }
    }

    /// Whether the round is at rest: on disk, no call under way, and finished (or stopped
    /// by an error), so its text may wait in the store.
    pub(crate) fn at_rest(&self) -> bool {
        self.on_disk
            && self.live.is_empty()
            && (self.stored.status != RoundStatus::Incomplete || self.stored.error.is_some())
    }

    /// Keeps the round's numbers and verdicts only (its review items, usage and costs were
    /// taken from the whole round and stay).
    pub(crate) fn drop_text(&mut self) {
        if self.text_dropped {
            return;
        }
        // In place when the UI holds the only copy (the engine has let its copy go).
        Arc::make_mut(&mut self.stored).drop_text();
        self.text_dropped = true;
    }

    /// Takes the round as newly stored, or read back whole from the store (sanitised):
    /// calls it holds are no longer under way, and the review items and usage follow it.
    pub(crate) fn store(&mut self, round: Arc<Round>) {
        self.live
            .retain(|p| !is_stored_call(&round, p.phase_type, &p.speaker));
        self.review = review_items(&round);
        self.usage = UsageTotals::of(&round);
        self.stored = round;
        self.text_dropped = false;
    }

    /// The round's id.
    pub fn id(&self) -> &str {
        &self.stored.id
    }

    /// Where it stands on disk.
    pub fn status(&self) -> RoundStatus {
        self.stored.status
    }

    /// What stopped it, if it stopped.
    pub fn error(&self) -> Option<&str> {
        self.stored.error.as_ref().map(|e| e.message.as_str())
    }

    /// The failure that stopped it, with its call's attempts, if it stopped.
    pub fn failure(&self) -> Option<&RoundError> {
        self.stored.error.as_ref()
    }

    /// Its judges, in order.
    pub fn judges(&self) -> Cow<'_, [String]> {
        if self.stored.judge_models.is_empty() {
            Cow::Owned(vec![self.stored.judge_model.clone()])
        } else {
            Cow::Borrowed(&self.stored.judge_models)
        }
    }

    /// The judge panel's record, when a panel judges.
    pub fn panel(&self) -> Option<&PanelRecord> {
        self.stored.panel.as_ref()
    }

    /// Whether a person corrected one of the round's judgments by hand in the review
    /// editor (the round view marks it; the matrix may too).
    pub fn corrected_by_hand(&self) -> bool {
        self.stored
            .judgments
            .iter()
            .any(|j| j.parse_status == crate::domain::ParseStatus::CorrectedByHand)
    }

    /// Whether a call of the round is under way.
    pub fn is_running(&self) -> bool {
        !self.live.is_empty()
    }

    /// Whether `r` can run it again now: incomplete and stored, at rest (no call under way
    /// or waiting to retry, not queued), and, while the engine plays rounds, stopped by an
    /// error (one stopped without is still in the run's queue).
    pub fn can_retry(&self, engine_running: bool) -> bool {
        self.status() == RoundStatus::Incomplete
            && self.on_disk
            && !self.is_running()
            && !self.queued
            && self.retry_until.is_none()
            && (!engine_running || self.error().is_some())
    }

    /// Team A's total minus Team B's (Pro's minus Con's), from the panel's aggregate or the
    /// first usable judgment.
    pub fn margin(&self) -> Option<f64> {
        let aggregate = self.panel().and_then(PanelRecord::aggregate_judgment);
        let j = aggregate
            .as_ref()
            .or_else(|| self.stored.judgments.iter().find(|j| j.is_usable()))?;
        j.margin()
    }

    /// The judgment that decides the round: the panel's verdict when a panel judged and
    /// finished, else the first usable judgment (what leaderboards count).
    pub fn deciding_judgment(&self) -> Option<&Judgment> {
        match self.panel().and_then(|p| p.verdict.as_ref()) {
            Some(panel) => Some(panel),
            None => self.stored.judgments.iter().find(|j| j.is_usable()),
        }
    }

    /// The answer chosen in a question-answer round: the panel's (when a panel judged and
    /// finished) or the first judge's.
    pub fn qa_choice(&self) -> Option<&QaChoice> {
        match self.panel().and_then(|p| p.verdict.as_ref()) {
            Some(panel) => panel.choice(),
            None => self.stored.judgments.iter().find_map(Judgment::choice),
        }
    }

    /// Whether the round's answer was correct (question-answer rounds with a usable judgment
    /// and one correct answer): the panel's verdict when a panel judged, not a single
    /// judge's.
    pub fn qa_correct(&self) -> Option<bool> {
        let setup = self.stored.qa()?;
        match self.panel().and_then(|p| p.verdict.as_ref()) {
            Some(panel) => crate::protocols::qa_debate::judge_correct(setup, panel),
            None => self
                .stored
                .judgments
                .iter()
                .find_map(|j| crate::protocols::qa_debate::judge_correct(setup, j)),
        }
    }

    /// The transcript: stored phases in the order they finished, then the calls under way.
    pub fn transcript(&self) -> impl Iterator<Item = Entry<'_>> {
        let stored = self.stored.phases.iter().map(|p| Entry {
            phase_type: p.phase_type,
            speaker: Cow::Owned(p.speaker()),
            text: &p.response,
            prompt: Some(&p.prompt),
            latency_ms: p.latency_ms,
            done: true,
            turn: p.turn,
            error: p.error.as_deref(),
            attempts: &p.attempts,
            tokens: match (p.input_tokens, p.output_tokens) {
                (None, None) => None,
                (i, o) => Some((i.unwrap_or(0), o.unwrap_or(0))),
            },
            usage_estimated: p.usage_estimated,
            truncated: p.truncated,
            finish_reason: p.finish_reason.as_deref(),
            batch_id: p.batch_id.as_deref(),
            batched: false,
            reused: p.reused_from_cache.is_some(),
            judgment: p
                .phase_type
                .is_judging()
                .then(|| {
                    let judge = p.judge_id.as_deref().unwrap_or(&p.model_id);
                    self.stored.judgments.iter().find(|j| {
                        j.judge_key() == judge
                            && !j.raw_response.is_empty()
                            && j.raw_response == p.response
                    })
                })
                .flatten(),
        });
        let live = self.live.iter().map(|p| Entry {
            phase_type: p.phase_type,
            speaker: Cow::Borrowed(&p.speaker),
            text: &p.text,
            prompt: None,
            latency_ms: None,
            done: false,
            turn: None,
            error: None,
            attempts: &[],
            tokens: None,
            usage_estimated: false,
            truncated: false,
            finish_reason: None,
            batch_id: None,
            batched: p.batched,
            reused: false,
            judgment: None,
        });
        stored.chain(live)
    }

    /// The call under way for this phase and speaker (as the engine names it), begun when
    /// missing.
    pub(crate) fn live_mut(&mut self, phase_type: PhaseType, speaker: &str) -> &mut LivePhase {
        let at = match self
            .live
            .iter()
            .position(|p| p.phase_type == phase_type && p.key == speaker)
        {
            Some(at) => at,
            None => {
                self.live.push(LivePhase {
                    phase_type,
                    speaker: sanitize(speaker),
                    key: speaker.to_string(),
                    text: String::new(),
                    retries: 0,
                    batched: false,
                    filter: Sanitizer::new(),
                });
                self.live.len() - 1
            }
        };
        &mut self.live[at]
    }

    /// Ends a call under way (it failed after its retries).
    pub(crate) fn end_call(&mut self, phase_type: PhaseType, speaker: &str) {
        self.live
            .retain(|p| p.phase_type != phase_type || p.key != speaker);
    }
}

/// The review items of a stored round (its text already sanitised).
fn review_items(round: &Round) -> Vec<ReviewItem> {
    waiting(round)
        .into_iter()
        .map(|w| ReviewItem {
            round_id: round.id.clone(),
            judge: w.key,
            kind: w.kind,
            problems: w.problems,
            raw: w.raw,
        })
        .collect()
}
