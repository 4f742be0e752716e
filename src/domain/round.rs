//! A round: one exchange between two teams on one dilemma, its phases and its judgments.

use serde::{Deserialize, Serialize};

use super::{
    Attempt, Judgment, PanelRecord, PhaseType, ProtocolKind, QaSetup, StructuredSetup, Turn,
};

/// One finished call of a round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Phase {
    /// Which step.
    pub phase_type: PhaseType,
    /// The model that answered.
    pub model_id: String,
    /// The user prompt sent.
    pub prompt: String,
    /// The answer.
    pub response: String,
    /// When it finished (RFC 3339, UTC).
    pub timestamp: String,
    /// The system prompt sent.
    #[serde(default)]
    pub system_prompt: String,
    /// From the first request to the end of the answer, retries included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
    /// Every attempt, with its error and wait.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attempts: Vec<Attempt>,
    /// Prompt tokens, when reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    /// Answer tokens, when reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// Of `input_tokens`, those read from the provider's prompt cache, when reported (every
    /// provider's count in one shape: see [`crate::providers::Usage`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input_tokens: Option<u64>,
    /// Of `input_tokens`, those written to the provider's prompt cache (Anthropic), when
    /// reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_tokens: Option<u64>,
    /// Estimated cost in dollars, when the model has prices (the cached part of the prompt
    /// at the cache prices).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// What the prompt cache saved on this call, in dollars: the cost with every prompt token
    /// at the full input price, less `cost_usd`. Kept only when the call read from or wrote
    /// to the cache and the model has prices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_saved_usd: Option<f64>,
    /// Why the model stopped, as the provider spelled it (`stop`, `length`, `end_turn`,
    /// `MAX_TOKENS`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// The answer ended at the output-token limit and may be cut short.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// The provider was made to answer in the request's JSON schema (structured output), so
    /// the answer is that JSON and nothing else: a judge's is read whole, none of it taken
    /// for a quotation (see `protocols::judging::own`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub constrained: bool,
    /// The server reported no usage: the token counts (and the cost from them) are
    /// estimates (see [`crate::providers::estimate`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub usage_estimated: bool,
    /// The sampling temperature sent with the call (the tournament's `[temperatures]` for
    /// its role, else the model's own); none: the provider's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// The provider's id of the batch that carried this call (batch mode): its cost is at
    /// the batch discount.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_id: Option<String>,
    /// 0 for a judge's first answer; 1 for its answer to a correction turn (the first answer
    /// was not a complete judgment). Debaters' corrections are on [`Phase::turn`].
    #[serde(default, skip_serializing_if = "is_zero")]
    pub correction: u32,
    /// The panel judge (persona id) who answered, for panel phases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_id: Option<String>,
    /// The deliberation round (0: the independent evaluation), for panel phases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deliberation_round: Option<u32>,
    /// The error after the last attempt, for a panel call that failed (the panel goes on
    /// without that judge; `response` is empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The debater and round of arguments, for question-answer arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<Turn>,
    /// The messages sent before `prompt`, when the request had more than one turn: user
    /// and assistant turns alternating from a user turn (a debater's opening exchange with
    /// its prefilled acknowledgement, or the answer a correction turn answers), so a round
    /// file holds the whole conversation a model was given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub earlier_turns: Vec<String>,
    /// The answer came from the response cache, not from a call (see
    /// docs/response-cache.md): nothing was sent or billed, `cost_usd` is 0 and the token
    /// counts are left empty; the original call's usage is kept here, apart, so no total
    /// counts it as spent again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reused_from_cache: Option<Reused>,
}

/// An answer reused from the response cache: when the call that produced it was stored,
/// and the tokens that call used (not spent again).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reused {
    /// When the original answer was stored (RFC 3339).
    pub stored_at: String,
    /// The original call's prompt tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    /// The original call's answer tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
}

impl Phase {
    /// A phase with its type, model and answer and nothing else (no prompt, timestamp,
    /// timing, usage, seat or turn): the base the engine and the UI fill in with struct
    /// update syntax.
    pub fn new(phase_type: PhaseType, model_id: &str, response: &str) -> Self {
        Self {
            phase_type,
            model_id: model_id.to_string(),
            prompt: String::new(),
            response: response.to_string(),
            timestamp: String::new(),
            system_prompt: String::new(),
            latency_ms: None,
            attempts: Vec::new(),
            input_tokens: None,
            output_tokens: None,
            cached_input_tokens: None,
            cache_write_tokens: None,
            cost_usd: None,
            cache_saved_usd: None,
            finish_reason: None,
            truncated: false,
            constrained: false,
            usage_estimated: false,
            temperature: None,
            batch_id: None,
            correction: 0,
            judge_id: None,
            deliberation_round: None,
            error: None,
            turn: None,
            earlier_turns: Vec::new(),
            reused_from_cache: None,
        }
    }

    /// What the provider's prompt cache did for the call, as a note after its input tokens:
    /// ` (800 cached, 200 written to the cache)`, or nothing when it reported nothing.
    pub fn cache_note(&self) -> String {
        let mut parts = Vec::new();
        if let Some(n) = self.cached_input_tokens.filter(|&n| n > 0) {
            parts.push(format!("{n} cached"));
        }
        if let Some(n) = self.cache_write_tokens.filter(|&n| n > 0) {
            parts.push(format!("{n} written to the cache"));
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!(" ({})", parts.join(", "))
        }
    }

    /// Who spoke, as shown to people: the model, or the panel judge with its model and
    /// deliberation round.
    pub fn speaker(&self) -> String {
        let who = speaker(
            &self.model_id,
            self.judge_id.as_deref(),
            self.deliberation_round,
            self.turn,
        );
        if self.correction > 0 {
            format!("{who} · correction")
        } else {
            who
        }
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The label of a speaker (see [`Phase::speaker`]); also used for calls not yet finished.
/// Debaters in a question-answer round are told apart by side, since in self-play both are
/// the same model.
pub fn speaker(
    model: &str,
    judge_id: Option<&str>,
    deliberation_round: Option<u32>,
    turn: Option<Turn>,
) -> String {
    match (judge_id, deliberation_round, turn) {
        (_, _, Some(t)) if t.attempt > 0 => format!(
            "{model} · debater {:?} · round {} · correction",
            t.side, t.round
        ),
        (_, _, Some(t)) => format!("{model} · debater {:?} · round {}", t.side, t.round),
        (Some(judge), Some(r), _) if r > 0 => format!("{judge} ({model}) · deliberation {r}"),
        (Some(judge), _, _) => format!("{judge} ({model})"),
        _ => model.to_string(),
    }
}

/// Where a round stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoundStatus {
    /// Not every phase has run yet (also: stopped by an error; see `error`).
    Incomplete,
    /// Every phase ran and every judgment parsed (or was corrected).
    Complete,
    /// Every phase ran, but a judgment needs a person.
    NeedsReview,
}

impl RoundStatus {
    /// The name used in files and filters.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Incomplete => "incomplete",
            Self::Complete => "complete",
            Self::NeedsReview => "needs_review",
        }
    }
}

/// What stopped an incomplete round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundError {
    /// The phase that failed.
    pub phase_type: PhaseType,
    /// The model that was called.
    pub model_id: String,
    /// The error after the last attempt.
    pub message: String,
    /// When.
    pub timestamp: String,
    /// Every attempt of the failed call, with its error and wait (empty when no call was
    /// made, e.g. a request that could not be built).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attempts: Vec<Attempt>,
}

/// What a round records that belongs to its protocol alone: one variant per protocol, so a
/// round cannot hold two protocols' records and every reader matches on all of them.
#[derive(Debug, Clone, PartialEq)]
pub enum RoundRecord {
    /// The Ethics Bowl keeps everything in the phases and judgments.
    EthicsBowl,
    /// The item, the answers handed out and the debaters' quote records (`dilemma_id` then
    /// holds the item's id).
    QaDebate(Box<QaSetup>),
    /// The topic and what each side's replies gave (`dilemma_id` then holds the topic's id;
    /// Team A argues Pro, Team B Con).
    StructuredDebate(Box<StructuredSetup>),
}

impl RoundRecord {
    /// The protocol this record belongs to.
    pub fn kind(&self) -> ProtocolKind {
        match self {
            Self::EthicsBowl => ProtocolKind::EthicsBowl,
            Self::QaDebate(_) => ProtocolKind::QaDebate,
            Self::StructuredDebate(_) => ProtocolKind::StructuredDebate,
        }
    }
}

/// One exchange: the spec's round file. Stored through [`super::round_file`], which keeps
/// the file's field names (`protocol`, `qa`, `structured` beside the spec's) and adds a
/// schema version.
#[derive(Debug, Clone, PartialEq)]
pub struct Round {
    /// Stable id, derived from the configuration (also the file name).
    pub id: String,
    /// The dilemma discussed (for question-answer rounds, the item's id; for structured
    /// debates, the topic's).
    pub dilemma_id: String,
    /// Which repetition of this pairing and dilemma (1-based).
    pub repetition: u32,
    /// The presenting model.
    pub team_a_model: String,
    /// The responding model.
    pub team_b_model: String,
    /// The first judge (the spec's single-judge shape).
    pub judge_model: String,
    /// Every judge of this exchange, in order.
    pub judge_models: Vec<String>,
    /// Finished calls, in the order they finished.
    pub phases: Vec<Phase>,
    /// The first judge's judgment, or the panel's aggregate (the spec's shape).
    pub scores: Option<Judgment>,
    /// One judgment per judge.
    pub judgments: Vec<Judgment>,
    /// Where it stands.
    pub status: RoundStatus,
    /// What stopped it, if it stopped.
    pub error: Option<RoundError>,
    /// What stopped it in earlier sessions, oldest first: a resumed run moves `error` here,
    /// so the attempts of a call that failed stay on record after the round goes on.
    pub earlier_errors: Vec<RoundError>,
    /// The judge panel's evaluations, deliberation and aggregate, when a panel judged.
    pub panel: Option<PanelRecord>,
    /// What the protocol records about the round.
    pub record: RoundRecord,
    /// When it was created (RFC 3339, UTC).
    pub timestamp: String,
}

impl Round {
    /// The protocol that ran it.
    pub fn kind(&self) -> ProtocolKind {
        self.record.kind()
    }

    /// Whether this judgment's judge is one of the round's debaters' models: a judge
    /// scoring its own model (and its opponent), which the main tables leave out and the
    /// self-preference check reports apart.
    pub fn judged_by_a_debater(&self, judgment: &super::Judgment) -> bool {
        judgment.judge_model == self.team_a_model || judgment.judge_model == self.team_b_model
    }

    /// The question-answer record, for question-answer rounds.
    pub fn qa(&self) -> Option<&QaSetup> {
        match &self.record {
            RoundRecord::QaDebate(setup) => Some(setup),
            RoundRecord::EthicsBowl | RoundRecord::StructuredDebate(_) => None,
        }
    }

    /// The question-answer record, to change.
    pub fn qa_mut(&mut self) -> Option<&mut QaSetup> {
        match &mut self.record {
            RoundRecord::QaDebate(setup) => Some(setup),
            RoundRecord::EthicsBowl | RoundRecord::StructuredDebate(_) => None,
        }
    }

    /// The structured-debate record, for structured-debate rounds.
    pub fn structured(&self) -> Option<&StructuredSetup> {
        match &self.record {
            RoundRecord::StructuredDebate(setup) => Some(setup),
            RoundRecord::EthicsBowl | RoundRecord::QaDebate(_) => None,
        }
    }

    /// The structured-debate record, to change.
    pub fn structured_mut(&mut self) -> Option<&mut StructuredSetup> {
        match &mut self.record {
            RoundRecord::StructuredDebate(setup) => Some(setup),
            RoundRecord::EthicsBowl | RoundRecord::QaDebate(_) => None,
        }
    }

    /// The round with its model text taken out: every call's prompts and answer, and every
    /// judge's texts (its reading, problems, scores and all the numbers stay). What a reader
    /// of many rounds keeps while only their numbers and verdicts matter (the UI's finished
    /// rounds, a resumed run's schedule, a summary); the store keeps the whole round, and the
    /// text is read back from it when it is wanted.
    pub fn without_text(mut self) -> Self {
        self.drop_text();
        self
    }

    /// Takes the model text out in place (see [`Round::without_text`]), and a
    /// question-answer item's game text (its facts, rules and preferences), the longest
    /// text such a round holds besides.
    pub fn drop_text(&mut self) {
        if let RoundRecord::QaDebate(setup) = &mut self.record {
            setup.facts = String::new();
            setup.rules = String::new();
            setup.preferences = String::new();
        }
        for p in &mut self.phases {
            p.prompt = String::new();
            p.system_prompt = String::new();
            p.response = String::new();
            p.earlier_turns = Vec::new();
        }
        self.phases.shrink_to_fit();
        let panel_verdict = self.panel.as_mut().and_then(|p| p.verdict.as_mut());
        for j in self
            .judgments
            .iter_mut()
            .chain(&mut self.scores)
            .chain(panel_verdict)
        {
            j.team_a_justification = String::new();
            j.team_b_justification = String::new();
            j.overall_analysis = String::new();
            j.raw_response = String::new();
            j.corrected_text = None;
        }
    }

    /// Whether Team A and Team B are the same model.
    pub fn is_self_debate(&self) -> bool {
        self.team_a_model == self.team_b_model
    }

    /// The finished phase of this type (for judgments, by this judge).
    pub fn phase(&self, phase_type: impl Into<PhaseType>, model: Option<&str>) -> Option<&Phase> {
        let phase_type = phase_type.into();
        self.phases
            .iter()
            .find(|p| p.phase_type == phase_type && model.is_none_or(|m| p.model_id == m))
    }

    /// The status the judgments imply once every phase has run.
    pub fn settled_status(&self) -> RoundStatus {
        let panel_clear = self.panel.as_ref().is_none_or(|p| !p.needs_review());
        let replies_clear = match &self.record {
            RoundRecord::StructuredDebate(setup) => !setup.needs_review(),
            RoundRecord::EthicsBowl | RoundRecord::QaDebate(_) => true,
        };
        if panel_clear && replies_clear && self.judgments.iter().all(Judgment::is_usable) {
            RoundStatus::Complete
        } else {
            RoundStatus::NeedsReview
        }
    }

    /// Records a judgment (replacing this judge's earlier one) and keeps `scores` and
    /// `judge_model` on the first judge, or on the panel's aggregate when a panel judged.
    pub fn put_judgment(&mut self, judgment: Judgment) {
        match self
            .judgments
            .iter_mut()
            .find(|j| j.judge_key() == judgment.judge_key())
        {
            Some(slot) => *slot = judgment,
            None => self.judgments.push(judgment),
        }
        let order: Vec<&str> = match &self.panel {
            Some(panel) => panel.judges.iter().map(|j| j.persona_id.as_str()).collect(),
            None => self.judge_models.iter().map(String::as_str).collect(),
        };
        let position = |j: &Judgment| {
            order
                .iter()
                .position(|k| *k == j.judge_key())
                .unwrap_or(usize::MAX)
        };
        let mut judgments = std::mem::take(&mut self.judgments);
        judgments.sort_by_key(position);
        self.judgments = judgments;
        self.refresh_scores();
    }

    /// Points `scores` and `judge_model` at the panel's aggregate when a panel judged, else
    /// at the first judge's judgment.
    pub fn refresh_scores(&mut self) {
        self.scores = match &self.panel {
            Some(panel) => panel.aggregate_judgment(),
            None => self.judgments.first().cloned(),
        };
        if let Some(first) = &self.scores {
            self.judge_model = first.judge_model.clone();
        }
    }

    /// Tokens used by every phase.
    pub fn tokens(&self) -> (u64, u64) {
        self.phases.iter().fold((0, 0), |(i, o), p| {
            (
                i + p.input_tokens.unwrap_or(0),
                o + p.output_tokens.unwrap_or(0),
            )
        })
    }

    /// Dollars spent on every phase with prices.
    pub fn cost_usd(&self) -> f64 {
        self.phases.iter().filter_map(|p| p.cost_usd).sum()
    }
}
