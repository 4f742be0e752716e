//! The run's counters, folded from the engine's events in one place for every consumer: the
//! headless runner's lines, `rejudge`'s, and the terminal UI's header. Each round's state as
//! last stored is kept in a few numbers (its status, what it used, what in it waits for
//! review), with the calls under way, the schedule's shape and the rounds this run has
//! finished, all derived from the events so that it agrees with the store. It keeps no round
//! itself, so its memory grows by a few hundred bytes per round however long the rounds'
//! texts are, and the counts and totals a status line asks for after every event are kept up
//! to date as rounds are stored rather than summed afresh.

use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

use crate::domain::{PhaseType, Round, RoundStatus};

use super::events::{EngineEvent, is_stored_call};
use super::review::{Waiting, waiting};
use super::tally::UsageTotals;

/// What an event changed that a printer may want to say.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// The run began with these rounds, `finished` of them not to be run again.
    Started {
        /// Rounds in the schedule.
        rounds: usize,
        /// Rounds read from their files.
        stored: usize,
        /// Rounds this run will not run (finished before).
        finished: usize,
        /// Items already waiting for a person.
        waiting: usize,
    },
    /// An item of a round started to wait for a person.
    NowWaiting {
        /// The round.
        round_id: String,
        /// The item.
        item: Waiting,
    },
    /// This run stopped working on a round, as stored.
    RoundFinished(FinishedRound),
    /// An adaptive design chose a wave of `added` rounds, or stopped (saying why).
    Design {
        /// The waves chosen so far.
        wave: u32,
        /// Rounds this wave added to the schedule.
        added: usize,
        /// Rounds of the full schedule not chosen.
        not_chosen: usize,
        /// What stopped it, once it stopped.
        stopped: Option<String>,
    },
}

/// A round this run stopped working on, as last stored: what a printer says of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinishedRound {
    /// The round's id.
    pub id: String,
    /// Its status.
    pub status: RoundStatus,
    /// Its answers cut at the token limit.
    pub truncated: u64,
}

/// Rounds by state, for a status line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RoundCounts {
    /// Complete.
    pub complete: usize,
    /// Waiting for a person.
    pub needs_review: usize,
    /// Started, not finished.
    pub incomplete: usize,
    /// Nothing stored yet.
    pub not_started: usize,
}

impl RoundCounts {
    /// Counts one more round (`by` 1) or one fewer (`by` −1) in `state`.
    fn count(&mut self, state: RoundState, by: isize) {
        let n = match state {
            RoundState::Complete => &mut self.complete,
            RoundState::NeedsReview => &mut self.needs_review,
            RoundState::Incomplete => &mut self.incomplete,
            RoundState::NotStarted => &mut self.not_started,
        };
        *n = n.saturating_add_signed(by);
    }
}

/// Where a round stands, as the status line counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RoundState {
    Complete,
    NeedsReview,
    Incomplete,
    NotStarted,
}

impl RoundState {
    fn of(round: &Round) -> Self {
        match round.status {
            RoundStatus::Complete => Self::Complete,
            RoundStatus::NeedsReview => Self::NeedsReview,
            RoundStatus::Incomplete if round.phases.is_empty() && round.error.is_none() => {
                Self::NotStarted
            }
            RoundStatus::Incomplete => Self::Incomplete,
        }
    }
}

/// Rounds in the words every consumer uses (the UI's header and round header, the headless
/// status line, the end summary): done, needs review, running, queued, failed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Standings {
    /// Complete.
    pub done: usize,
    /// A judgment or reply waits for a person.
    pub needs_review: usize,
    /// Begun by this run and not finished: a call under way, waiting to retry, or between
    /// two calls.
    pub running: usize,
    /// Waiting for their turn: not begun, or stopped part-way with no error.
    pub queued: usize,
    /// Stopped by an error.
    pub failed: usize,
}

/// What is kept of one round: its last stored state in a few numbers.
#[derive(Debug, Clone)]
struct Kept {
    status: RoundStatus,
    /// Stopped by an error.
    failed: bool,
    state: RoundState,
    usage: UsageTotals,
    /// The keys of its items waiting for a person.
    waiting: Vec<String>,
}

/// The schedule at the run's outset.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Outset {
    /// Rounds in the schedule.
    pub rounds: usize,
    /// Rounds read from their files.
    pub stored: usize,
    /// Rounds this run runs (not finished before).
    pub to_run: usize,
}

/// The run so far, as events told it.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    rounds: HashMap<String, Kept>,
    /// Over every kept round, kept up to date as rounds are stored.
    counts: RoundCounts,
    totals: UsageTotals,
    waiting: usize,
    /// The calls under way of each round, with the attempts each has failed so far.
    under_way: HashMap<String, HashMap<(PhaseType, String), u32>>,
    outset: Outset,
    /// Rounds this run has finished working on.
    finished: usize,
    /// Models whose answered calls have no cost (no price configured); only grows.
    unpriced: BTreeSet<String>,
    /// Items that began to wait in rounds this run is working on: said once the round
    /// finishes, if they still wait (a judge's correction turn may have read them whole).
    held: HashMap<String, Vec<Waiting>>,
}

impl Progress {
    /// Takes one event; says what it changed.
    pub fn apply(&mut self, event: &EngineEvent) -> Vec<Change> {
        match event {
            EngineEvent::Started { rounds, .. } => {
                // A new schedule: nothing of an earlier one counts.
                *self = Self::default();
                for s in rounds {
                    self.store(&s.round);
                }
                let to_run = rounds.iter().filter(|s| s.to_run).count();
                self.outset = Outset {
                    rounds: rounds.len(),
                    stored: rounds.iter().filter(|s| s.stored).count(),
                    to_run,
                };
                vec![Change::Started {
                    rounds: rounds.len(),
                    stored: self.outset.stored,
                    finished: rounds.len() - to_run,
                    waiting: self.waiting(),
                }]
            }
            EngineEvent::Design {
                wave,
                rounds,
                not_chosen,
                stopped,
            } => {
                for s in rounds {
                    self.store(&s.round);
                }
                self.outset.rounds += rounds.len();
                self.outset.to_run += rounds.iter().filter(|s| s.to_run).count();
                vec![Change::Design {
                    wave: *wave,
                    added: rounds.len(),
                    not_chosen: not_chosen.len(),
                    stopped: stopped.clone(),
                }]
            }
            EngineEvent::PhaseStarted {
                round_id,
                phase_type,
                model,
            } => {
                self.call(round_id, *phase_type, model);
                Vec::new()
            }
            EngineEvent::RetryScheduled {
                round_id,
                phase_type,
                model,
                ..
            } => {
                *self.call(round_id, *phase_type, model) += 1;
                Vec::new()
            }
            EngineEvent::PhaseFailed {
                round_id,
                phase_type,
                model,
                ..
            } => {
                if let Some(calls) = self.under_way.get_mut(round_id) {
                    calls.remove(&(*phase_type, model.clone()));
                }
                Vec::new()
            }
            EngineEvent::RoundStored { round } => {
                if let Some(calls) = self.under_way.get_mut(&round.id) {
                    calls.retain(|(p, who), _| !is_stored_call(round, *p, who));
                }
                let items = self.store(round);
                if self.under_way.contains_key(&round.id) {
                    self.held.entry(round.id.clone()).or_default().extend(items);
                    return Vec::new();
                }
                items
                    .into_iter()
                    .map(|item| Change::NowWaiting {
                        round_id: round.id.clone(),
                        item,
                    })
                    .collect()
            }
            EngineEvent::RoundFinished { round_id } => {
                self.under_way.remove(round_id);
                let held = self.held.remove(round_id).unwrap_or_default();
                let Some(r) = self.rounds.get(round_id) else {
                    return Vec::new();
                };
                self.finished += 1;
                let mut changes: Vec<Change> = held
                    .into_iter()
                    .filter(|item| r.waiting.contains(&item.key))
                    .map(|item| Change::NowWaiting {
                        round_id: round_id.clone(),
                        item,
                    })
                    .collect();
                changes.push(Change::RoundFinished(FinishedRound {
                    id: round_id.clone(),
                    status: r.status,
                    truncated: r.usage.truncated,
                }));
                changes
            }
            _ => Vec::new(),
        }
    }

    /// The call under way for this phase and model (as the events name it), begun when
    /// missing: its failed attempts so far.
    fn call(&mut self, round_id: &str, phase_type: PhaseType, model: &str) -> &mut u32 {
        self.under_way
            .entry(round_id.to_string())
            .or_default()
            .entry((phase_type, model.to_string()))
            .or_default()
    }

    /// Keeps a round's newest state in a few numbers, in place of the one before; returns
    /// its items that did not wait before.
    fn store(&mut self, round: &Round) -> Vec<Waiting> {
        let items = waiting(round);
        let kept = Kept {
            status: round.status,
            failed: round.error.is_some(),
            state: RoundState::of(round),
            usage: UsageTotals::of(round),
            waiting: items.iter().map(|i| i.key.clone()).collect(),
        };
        self.unpriced.extend(
            round
                .phases
                .iter()
                .filter(|p| p.error.is_none() && p.cost_usd.is_none())
                .map(|p| p.model_id.clone()),
        );
        self.counts.count(kept.state, 1);
        self.totals += kept.usage;
        self.waiting += kept.waiting.len();
        let before = match self.rounds.get_mut(&round.id) {
            Some(slot) => std::mem::replace(slot, kept),
            None => {
                self.rounds.insert(round.id.clone(), kept);
                return items;
            }
        };
        self.counts.count(before.state, -1);
        self.totals -= before.usage;
        self.waiting -= before.waiting.len();
        items
            .into_iter()
            .filter(|i| !before.waiting.contains(&i.key))
            .collect()
    }

    /// Items waiting for a person, over every round.
    pub fn waiting(&self) -> usize {
        self.waiting
    }

    /// Calls under way.
    pub fn under_way(&self) -> usize {
        self.under_way.values().map(HashMap::len).sum()
    }

    /// Failed attempts of the calls under way (tried again, or waiting to be).
    pub fn retries_under_way(&self) -> u64 {
        self.under_way
            .values()
            .flat_map(HashMap::values)
            .map(|n| u64::from(*n))
            .sum()
    }

    /// Rounds by state as last stored: how the status line counts them.
    pub fn counts(&self) -> RoundCounts {
        self.counts
    }

    /// What every round's stored phases used.
    pub fn totals(&self) -> UsageTotals {
        let mut t = self.totals;
        // Taking a round's old cost out of the sum can leave a rounding error below zero.
        t.cost_usd = t.cost_usd.max(0.0);
        t
    }

    /// The models whose answered calls have no cost (no price configured): a cost shown
    /// leaves them out.
    pub fn unpriced(&self) -> &BTreeSet<String> {
        &self.unpriced
    }

    /// The schedule at the run's outset.
    pub fn outset(&self) -> Outset {
        self.outset
    }

    /// Rounds this run has finished working on.
    pub fn finished_this_run(&self) -> usize {
        self.finished
    }

    /// Rounds in the one vocabulary (see [`Standings`]).
    pub fn standings(&self) -> Standings {
        let mut s = Standings::default();
        for (id, r) in &self.rounds {
            let n = match r.status {
                RoundStatus::Complete => &mut s.done,
                RoundStatus::NeedsReview => &mut s.needs_review,
                RoundStatus::Incomplete if self.under_way.contains_key(id) => &mut s.running,
                RoundStatus::Incomplete if r.failed => &mut s.failed,
                RoundStatus::Incomplete => &mut s.queued,
            };
            *n += 1;
        }
        s
    }

    /// Rounds done, those finished before this run included.
    pub fn done(&self) -> usize {
        self.outset.rounds - self.outset.to_run + self.finished
    }

    /// Rounds this run has still to finish.
    pub fn left(&self) -> usize {
        self.outset.to_run.saturating_sub(self.finished)
    }

    /// The time left at the pace of the rounds this run has finished in `elapsed`; none
    /// before one has finished.
    pub fn eta(&self, elapsed: Duration) -> Option<Duration> {
        (self.finished > 0).then(|| elapsed.mul_f64(self.left() as f64 / self.finished as f64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Judgment, ParseStatus, Phase, Reading, ScheduledRound, Scores};
    use crate::engine::events::ScheduledState;
    use std::sync::Arc;

    fn blank(id: &str) -> Round {
        crate::protocols::example_round(&ScheduledRound::example(id, "d"))
    }

    fn stored(round: &Round) -> EngineEvent {
        EngineEvent::RoundStored {
            round: Arc::new(round.clone()),
        }
    }

    #[test]
    fn counts_and_totals_follow_each_rounds_newest_state() {
        let mut progress = Progress::default();
        let rounds: Vec<ScheduledState> = ["r1", "r2", "r3"]
            .into_iter()
            .map(|id| ScheduledState {
                round: Arc::new(blank(id)),
                stored: false,
                to_run: true,
                text_dropped: false,
            })
            .collect();
        progress.apply(&EngineEvent::Started {
            tournament_id: "t".into(),
            rounds,
        });
        assert_eq!(progress.counts().not_started, 3);

        let mut r1 = blank("r1");
        r1.phases.push(Phase {
            input_tokens: Some(100),
            output_tokens: Some(10),
            cost_usd: Some(0.1),
            ..Phase::new(crate::domain::PhaseType::Presentation, "a", "x")
        });
        progress.apply(&stored(&r1));
        r1.phases.push(Phase {
            input_tokens: Some(200),
            output_tokens: Some(20),
            cost_usd: Some(0.2),
            truncated: true,
            ..Phase::new(crate::domain::PhaseType::Response, "b", "y")
        });
        let mut judgment = Judgment::new(
            "j",
            Reading::Rubric {
                team_a: Scores::uniform(5.0),
                team_b: Scores::uniform(5.0),
            },
        );
        judgment.parse_status = ParseStatus::Partial;
        r1.put_judgment(judgment);
        r1.status = RoundStatus::NeedsReview;
        let changes = progress.apply(&stored(&r1));
        assert!(
            matches!(&changes[..], [Change::NowWaiting { round_id, item }] if round_id == "r1" && item.key == "j"),
            "{changes:?}"
        );
        // Stored again as it is: nothing new waits, nothing is counted twice.
        assert!(progress.apply(&stored(&r1)).is_empty());
        assert_eq!(progress.waiting(), 1);
        assert_eq!(
            progress.counts(),
            RoundCounts {
                complete: 0,
                needs_review: 1,
                incomplete: 0,
                not_started: 2
            }
        );
        let (totals, expected) = (progress.totals(), UsageTotals::of(&r1));
        assert!((totals.cost_usd - expected.cost_usd).abs() < 1e-12);
        assert_eq!(
            UsageTotals {
                cost_usd: 0.0,
                ..totals
            },
            UsageTotals {
                cost_usd: 0.0,
                ..expected
            },
            "the newest state only"
        );
        assert_eq!(
            progress.apply(&EngineEvent::RoundFinished {
                round_id: "r1".into()
            }),
            [Change::RoundFinished(FinishedRound {
                id: "r1".into(),
                status: RoundStatus::NeedsReview,
                truncated: 1
            })]
        );
    }

    #[test]
    fn the_schedule_calls_under_way_and_this_runs_pace_are_counted() {
        let mut progress = Progress::default();
        let mut r1 = blank("r1");
        r1.phases
            .push(Phase::new(PhaseType::Presentation, "unpriced", "x"));
        let rounds = [
            (r1, true, false),
            (blank("r2"), false, true),
            (blank("r3"), false, true),
        ]
        .into_iter()
        .map(|(round, stored, to_run)| ScheduledState {
            round: Arc::new(round),
            stored,
            to_run,
            text_dropped: false,
        })
        .collect();
        progress.apply(&EngineEvent::Started {
            tournament_id: "t".into(),
            rounds,
        });
        assert_eq!(
            progress.outset(),
            Outset {
                rounds: 3,
                stored: 1,
                to_run: 2
            }
        );
        assert!(progress.unpriced().contains("unpriced"));
        let call = |e: fn(String, PhaseType, String) -> EngineEvent| {
            e("r2".into(), PhaseType::Presentation, "a".into())
        };
        progress.apply(&call(|round_id, phase_type, model| {
            EngineEvent::PhaseStarted {
                round_id,
                phase_type,
                model,
            }
        }));
        progress.apply(&call(|round_id, phase_type, model| {
            EngineEvent::RetryScheduled {
                round_id,
                phase_type,
                model,
                attempt: 1,
                wait: Duration::from_secs(1),
                error: "HTTP 503".into(),
            }
        }));
        assert_eq!((progress.under_way(), progress.retries_under_way()), (1, 1));
        assert_eq!(
            progress.eta(Duration::from_secs(30)),
            None,
            "nothing finished yet"
        );
        progress.apply(&EngineEvent::RoundFinished {
            round_id: "r2".into(),
        });
        assert_eq!((progress.under_way(), progress.retries_under_way()), (0, 0));
        assert_eq!(
            (
                progress.finished_this_run(),
                progress.done(),
                progress.left()
            ),
            (1, 2, 1)
        );
        assert_eq!(
            progress.eta(Duration::from_secs(30)),
            Some(Duration::from_secs(30)),
            "one of two in 30 s: the round finished before does not count"
        );
    }

    fn partial(round: &mut Round, status: ParseStatus) {
        let mut judgment = Judgment::new(
            "j",
            Reading::Rubric {
                team_a: Scores::uniform(5.0),
                team_b: Scores::uniform(5.0),
            },
        );
        judgment.parse_status = status;
        round.put_judgment(judgment);
        round.status = if status == ParseStatus::Parsed {
            RoundStatus::Complete
        } else {
            RoundStatus::NeedsReview
        };
    }

    #[test]
    fn a_judgment_the_correction_turn_fixed_is_never_said_to_wait_and_rounds_use_one_vocabulary() {
        let mut progress = Progress::default();
        let rounds: Vec<ScheduledState> = ["r1", "r2", "r3", "r4"]
            .into_iter()
            .map(|id| ScheduledState {
                round: Arc::new(blank(id)),
                stored: false,
                to_run: true,
                text_dropped: false,
            })
            .collect();
        progress.apply(&EngineEvent::Started {
            tournament_id: "t".into(),
            rounds,
        });
        let start = |progress: &mut Progress, id: &str| {
            progress.apply(&EngineEvent::PhaseStarted {
                round_id: id.into(),
                phase_type: crate::domain::PhaseType::Judgment,
                model: "j".into(),
            })
        };
        let finish = |progress: &mut Progress, id: &str| {
            progress.apply(&EngineEvent::RoundFinished {
                round_id: id.into(),
            })
        };
        // r1: read in part, then read whole by the correction turn: nothing to review.
        start(&mut progress, "r1");
        let mut r1 = blank("r1");
        partial(&mut r1, ParseStatus::Partial);
        assert!(
            progress.apply(&stored(&r1)).is_empty(),
            "held while it runs"
        );
        partial(&mut r1, ParseStatus::Parsed);
        progress.apply(&stored(&r1));
        let changes = finish(&mut progress, "r1");
        assert!(
            matches!(&changes[..], [Change::RoundFinished(_)]),
            "{changes:?}"
        );
        // r2: still partial when the round ends: said once, then.
        start(&mut progress, "r2");
        let mut r2 = blank("r2");
        partial(&mut r2, ParseStatus::Partial);
        progress.apply(&stored(&r2));
        let changes = finish(&mut progress, "r2");
        assert!(
            matches!(&changes[..], [Change::NowWaiting { round_id, .. }, Change::RoundFinished(_)] if round_id == "r2"),
            "{changes:?}"
        );
        // r3 running, r4 failed: a round in flight is running, not incomplete.
        start(&mut progress, "r3");
        let mut r4 = blank("r4");
        r4.error = Some(crate::domain::RoundError {
            phase_type: crate::domain::PhaseType::Presentation,
            model_id: "a".into(),
            message: "HTTP 500".into(),
            timestamp: String::new(),
            attempts: Vec::new(),
        });
        progress.apply(&stored(&r4));
        assert_eq!(
            progress.standings(),
            Standings {
                done: 1,
                needs_review: 1,
                running: 1,
                queued: 0,
                failed: 1
            }
        );
    }
}
