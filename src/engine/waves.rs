//! An adaptive design's waves within a run (`pairings = "adaptive"`): the design's record
//! carried over from an earlier run, the result and cost of every chosen round seen so far,
//! and the next wave asked of [`crate::design`] once a wave's rounds have all ended. The
//! record goes into `tournament.json` before the engine announces a wave, so a run killed at
//! any point resumes with the same choices, and picks the same next wave.

use std::collections::HashMap;

use crate::config::TournamentConfig;
use crate::design::{Budget, DesignRecord, Next, Outcome, Settings, next_wave};
use crate::domain::{Round, ScheduledRound};

/// The design of one tournament as a run sees it.
#[derive(Debug, Clone)]
pub(crate) struct Waves {
    settings: Settings,
    models: Vec<String>,
    budget_usd: Option<f64>,
    /// The full schedule the design chooses from.
    candidates: Vec<ScheduledRound>,
    /// The choices so far, as `tournament.json` keeps them.
    pub(crate) record: DesignRecord,
    /// Each finished match's outcome, by round id.
    results: HashMap<String, Outcome>,
    /// What each round played so far cost, by round id.
    paid: HashMap<String, f64>,
}

impl Waves {
    /// The design over `candidates`, continuing `previous` (an earlier run's record) when
    /// there is one.
    pub(crate) fn new(
        config: &TournamentConfig,
        candidates: &[ScheduledRound],
        previous: Option<DesignRecord>,
    ) -> Self {
        let settings = Settings::of(config, candidates.len());
        let mut record =
            previous.unwrap_or_else(|| DesignRecord::new(settings.seed, candidates.len()));
        record.stopped = None;
        Self {
            settings,
            models: config.models.clone(),
            budget_usd: config.budget_usd,
            candidates: candidates.to_vec(),
            record,
            results: HashMap::new(),
            paid: HashMap::new(),
        }
    }

    /// Makes the design choose again (a run, or a resume, not a retry of some rounds): a
    /// stop it recorded is looked at afresh, since the tournament file may now allow more
    /// (a larger budget, more rounds), and an unchanged one stops the same way.
    pub(crate) fn reopen(&mut self) {
        self.record.stopped = None;
    }

    /// The rounds chosen so far, in the order chosen.
    pub(crate) fn chosen(&self) -> Vec<ScheduledRound> {
        let by_id: HashMap<&str, &ScheduledRound> = self
            .candidates
            .iter()
            .map(|r| (r.round_id.as_str(), r))
            .collect();
        self.record
            .chosen()
            .filter_map(|id| by_id.get(id).map(|r| (*r).clone()))
            .collect()
    }

    /// The rounds of the full schedule not chosen so far.
    pub(crate) fn not_chosen(&self) -> Vec<ScheduledRound> {
        let chosen: std::collections::HashSet<&str> = self.record.chosen().collect();
        self.candidates
            .iter()
            .filter(|r| !chosen.contains(r.round_id.as_str()))
            .cloned()
            .collect()
    }

    /// Takes a round as it stands (stored, or as a task returned it): its result when it
    /// is a finished match, and its cost.
    pub(crate) fn see(&mut self, round: &Round) {
        match crate::protocols::match_outcome(round) {
            Some(outcome) => self.results.insert(round.id.clone(), outcome),
            None => self.results.remove(&round.id),
        };
        let cost = round.cost_usd();
        if cost > 0.0 {
            self.paid.insert(round.id.clone(), cost);
        }
    }

    /// Chooses the next wave, or stops, and keeps it in the record: the rounds it chose
    /// (none when it stopped). `budget_hit` says the run's budget stopped calls.
    pub(crate) fn next(&mut self, budget_hit: bool) -> Vec<ScheduledRound> {
        let budget = Budget {
            budget_usd: self.budget_usd,
            spent_usd: if budget_hit {
                self.budget_usd.unwrap_or(0.0)
            } else {
                self.paid.values().sum()
            },
            rounds_paid: self.paid.len(),
        };
        match next_wave(
            &self.settings,
            &self.models,
            &self.candidates,
            &self.record,
            &self.results,
            &budget,
        ) {
            Next::Wave(wave) => {
                let ids: std::collections::HashSet<&str> =
                    wave.rounds.iter().map(|c| c.round_id.as_str()).collect();
                let rounds = self
                    .candidates
                    .iter()
                    .filter(|r| ids.contains(r.round_id.as_str()))
                    .cloned()
                    .collect();
                self.record.waves.push(wave);
                rounds
            }
            Next::Stop(stopped) => {
                self.record.stopped = Some(stopped);
                Vec::new()
            }
        }
    }

    /// Whether the design has stopped.
    pub(crate) fn stopped(&self) -> Option<String> {
        self.record
            .stopped
            .as_ref()
            .map(|s| format!("{}: {}", s.rule.as_str(), s.detail))
    }

    /// The run's warnings about the schedule: the judge confounds of the rounds chosen so
    /// far (the full schedule's balance does not hold for a subset of it), and the design's
    /// statement.
    pub(crate) fn warnings(&self, config: &TournamentConfig) -> Vec<String> {
        let mut out = crate::protocols::schedule::confounds(config, &self.chosen());
        out.push(self.record.statement());
        out
    }
}
