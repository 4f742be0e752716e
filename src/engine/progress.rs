//! What a consumer that prints lines rather than draws a screen (the headless runner,
//! `rejudge`) keeps of a run: the last stored state of each round, what waits for review,
//! and the calls under way, all derived from the events so that it agrees with the store.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

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
    RoundFinished(Arc<Round>),
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

/// The run so far, as events told it.
#[derive(Debug, Default)]
pub struct Progress {
    rounds: HashMap<String, Arc<Round>>,
    waiting: HashMap<String, Vec<String>>,
    under_way: HashMap<String, HashSet<(PhaseType, String)>>,
}

impl Progress {
    /// Takes one event; says what it changed.
    pub fn apply(&mut self, event: &EngineEvent) -> Vec<Change> {
        match event {
            EngineEvent::Started { rounds, .. } => {
                for s in rounds {
                    self.store(Arc::clone(&s.round));
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
                self.store(Arc::clone(round))
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
                    .map(|r| Change::RoundFinished(Arc::clone(r)))
                    .into_iter()
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    /// Keeps a round's newest state; returns its items that did not wait before.
    fn store(&mut self, round: Arc<Round>) -> Vec<Waiting> {
        let items = waiting(&round);
        let before = self
            .waiting
            .insert(
                round.id.clone(),
                items.iter().map(|i| i.key.clone()).collect(),
            )
            .unwrap_or_default();
        self.rounds.insert(round.id.clone(), round);
        items
            .into_iter()
            .filter(|i| !before.contains(&i.key))
            .collect()
    }

    /// Items waiting for a person, over every round.
    pub fn waiting(&self) -> usize {
        self.waiting.values().map(Vec::len).sum()
    }

    /// Calls under way.
    pub fn under_way(&self) -> usize {
        self.under_way.values().map(HashSet::len).sum()
    }

    /// Rounds by state as last stored: how the status line counts them.
    pub fn counts(&self) -> RoundCounts {
        let mut c = RoundCounts::default();
        for r in self.rounds.values() {
            match r.status {
                RoundStatus::Complete => c.complete += 1,
                RoundStatus::NeedsReview => c.needs_review += 1,
                RoundStatus::Incomplete if r.phases.is_empty() && r.error.is_none() => {
                    c.not_started += 1
                }
                RoundStatus::Incomplete => c.incomplete += 1,
            }
        }
        c
    }

    /// What every round's stored phases used.
    pub fn totals(&self) -> UsageTotals {
        self.rounds.values().map(|r| UsageTotals::of(r)).sum()
    }
}
