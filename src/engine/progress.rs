//! What a consumer that prints lines rather than draws a screen (the headless runner,
//! `rejudge`) keeps of a run: each round's state as last stored, in a few numbers (its
//! status, what it used, what in it waits for review), and the calls under way, all derived
//! from the events so that it agrees with the store. It keeps no round itself, so its memory
//! grows by a few hundred bytes per round however long the rounds' texts are, and the
//! counts and totals a status line asks for after every event are kept up to date as rounds
//! are stored rather than summed afresh.

use std::collections::{HashMap, HashSet};

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

/// What is kept of one round: its last stored state in a few numbers.
#[derive(Debug, Clone)]
struct Kept {
    status: RoundStatus,
    state: RoundState,
    usage: UsageTotals,
    /// The keys of its items waiting for a person.
    waiting: Vec<String>,
}

/// The run so far, as events told it.
#[derive(Debug, Default)]
pub struct Progress {
    rounds: HashMap<String, Kept>,
    /// Over every kept round, kept up to date as rounds are stored.
    counts: RoundCounts,
    totals: UsageTotals,
    waiting: usize,
    under_way: HashMap<String, HashSet<(PhaseType, String)>>,
}

impl Progress {
    /// Takes one event; says what it changed.
    pub fn apply(&mut self, event: &EngineEvent) -> Vec<Change> {
        match event {
            EngineEvent::Started { rounds, .. } => {
                for s in rounds {
                    self.store(&s.round);
                }
                vec![Change::Started {
                    rounds: rounds.len(),
                    stored: rounds.iter().filter(|s| s.stored).count(),
                    finished: rounds.iter().filter(|s| !s.to_run).count(),
                    waiting: self.waiting(),
                }]
            }
            EngineEvent::PhaseStarted {
                round_id,
                phase_type,
                model,
            } => {
                self.under_way
                    .entry(round_id.clone())
                    .or_default()
                    .insert((*phase_type, model.clone()));
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
                    calls.retain(|(p, who)| !is_stored_call(round, *p, who));
                }
                self.store(round)
                    .into_iter()
                    .map(|item| Change::NowWaiting {
                        round_id: round.id.clone(),
                        item,
                    })
                    .collect()
            }
            EngineEvent::RoundFinished { round_id } => {
                self.under_way.remove(round_id);
                self.rounds
                    .get(round_id)
                    .map(|r| {
                        Change::RoundFinished(FinishedRound {
                            id: round_id.clone(),
                            status: r.status,
                            truncated: r.usage.truncated,
                        })
                    })
                    .into_iter()
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    /// Keeps a round's newest state in a few numbers, in place of the one before; returns
    /// its items that did not wait before.
    fn store(&mut self, round: &Round) -> Vec<Waiting> {
        let items = waiting(round);
        let kept = Kept {
            status: round.status,
            state: RoundState::of(round),
            usage: UsageTotals::of(round),
            waiting: items.iter().map(|i| i.key.clone()).collect(),
        };
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
        self.under_way.values().map(HashSet::len).sum()
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
}
