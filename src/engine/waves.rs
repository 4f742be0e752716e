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
    /// What each round played so far cost, by round id, and whether every call of it was
    /// paid for (none answered from the response cache).
    paid: HashMap<String, (f64, bool)>,
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
        // A round partly answered from the response cache cost less than a round costs, and
        // would make the next rounds look cheaper than they are: its cost counts as spent,
        // but only wholly paid rounds set the price of a round.
        let cost = round.cost_usd();
        let reused = round.phases.iter().any(|p| p.reused_from_cache.is_some());
        if cost > 0.0 {
            self.paid.insert(round.id.clone(), (cost, !reused));
        } else {
            self.paid.remove(&round.id);
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
                self.paid.values().map(|(cost, _)| cost).sum()
            },
            rounds_paid: self.paid.values().filter(|(_, whole)| *whole).count(),
            rounds_paid_usd: self
                .paid
                .values()
                .filter(|(_, whole)| *whole)
                .map(|(cost, _)| cost)
                .sum(),
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

    /// The run's warnings about the schedule, and the design's statement. Once the design
    /// has stopped: the judge confounds of the rounds it chose (the full schedule's balance
    /// does not hold for a part of it). Before that, the rounds chosen so far are a
    /// wave or a few, whose balance says nothing of the run's: only the full schedule's own
    /// confounds, which every part of it keeps (a pairing only one judge can score is
    /// scored by that judge whatever the design picks), and that the rest is checked when
    /// the design stops.
    pub(crate) fn warnings(&self, config: &TournamentConfig) -> Vec<String> {
        let mut out = if self.record.stopped.is_some() {
            crate::protocols::schedule::confounds(config, &self.chosen())
        } else {
            let mut out: Vec<String> =
                crate::protocols::schedule::confounds(config, &self.candidates)
                    .into_iter()
                    .map(|w| {
                        format!(
                            "{w} (this holds for the full schedule, and so for whatever part \
                             of it the adaptive design chooses)"
                        )
                    })
                    .collect();
            out.push(format!(
                "judge balance: checked when the adaptive design stops, over the rounds it \
                 chose ({} so far); until then its fit estimates each deciding judge's side \
                 preference, and it balances sides and judges within each pair as it chooses",
                self.record.chosen().count()
            ));
            out
        };
        out.push(self.record.statement());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(judges: &str) -> TournamentConfig {
        TournamentConfig::parse(
            &format!(
                "name = \"t\"\ndilemma_file = \"d.md\"\nmodels = [\"a\", \"b\", \"c\", \"d\"]\n\
                 judges = [{judges}]\npairings = \"adaptive\"\nwave_size = 4\nmax_rounds = 8\n"
            ),
            std::path::Path::new("t.toml"),
        )
        .unwrap()
    }

    fn waves(config: &TournamentConfig) -> Waves {
        let items: Vec<String> = (0..3).map(|d| format!("d{d}")).collect();
        let candidates = crate::protocols::schedule::build(config, &items)
            .unwrap()
            .rounds;
        Waves::new(config, &candidates, None)
    }

    #[test]
    fn judge_balance_is_checked_once_the_design_stops() {
        let config = config("\"j0\", \"j1\", \"j2\"");
        let mut w = waves(&config);
        assert_eq!(w.next(false).len(), 4);
        // One wave of four rounds: three judges cannot have scored every model, and the
        // run does not say they never will.
        let early = w.warnings(&config);
        assert!(
            !early.iter().any(|x| x.starts_with("judge confound")),
            "{early:?}"
        );
        assert!(
            early[0].starts_with("judge balance: checked when the adaptive design stops"),
            "{early:?}"
        );
        assert!(early[1].starts_with("adaptive design: 4 of"), "{early:?}");
        w.next(false);
        assert!(w.next(false).is_empty() && w.stopped().is_some());
        // Stopped: the rounds it chose are checked as they are.
        let end = w.warnings(&config);
        assert_eq!(
            end[..end.len() - 1],
            crate::protocols::schedule::confounds(&config, &w.chosen())[..]
        );
        assert!(!end.iter().any(|x| x.starts_with("judge balance: checked")));
    }

    #[test]
    fn a_confound_of_the_full_schedule_is_said_from_the_start() {
        let config = config("\"j0\"");
        let mut w = waves(&config);
        w.next(false);
        let early = w.warnings(&config);
        assert!(
            early[0].starts_with("judge confound: j0 is the only judge")
                && early[0].ends_with("whatever part of it the adaptive design chooses)"),
            "{early:?}"
        );
    }
}
