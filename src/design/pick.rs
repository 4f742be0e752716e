//! The pick rule: which rounds the next wave plays, or which rule stops the design.
//!
//! Before each wave the ratings are fitted to every finished match, with Team A's advantage
//! and each deciding judge's own side preference ([`super::rating`]). Each pair of models
//! with rounds left to choose gets a priority, what its next round (the one that keeps the
//! design balanced, below) would do for the ranking ([`super::rating::Fit::gain`]): over every pair of
//! models, how unsure its order is, `2·(1 − P(order))` (1 for a coin's order, 0 for a
//! certain one), times the share of the variance of its difference the round would remove.
//! The wave takes the pair with the highest priority, updates the covariance as if that
//! round were played (so its later picks spread over other pairs), and repeats until it is
//! full. For the pair
//! chosen it plays the side the pair has played less (Team A and Team B each in turn), the
//! item (dilemma, topic) used least so far, then the item and judges this pair has seen
//! least, then the lowest repetition; the tournament's `seed` breaks what is still tied.
//! Rounds that are no match between two models (a question-answer baseline) are all chosen
//! in the first wave.

use std::collections::{BTreeMap, HashMap};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::config::TournamentConfig;
use crate::domain::ScheduledRound;

use super::rating::{ELO_PER_LOGIT, Match, Outcome, fit, state};
use super::record::{Choice, DesignRecord, StopRule, Stopped, WaveRecord};

/// The design's settings, from the tournament file.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// The seed of its tie-breaks.
    pub seed: u64,
    /// Rounds per wave.
    pub wave_size: usize,
    /// The most matches it chooses.
    pub max_rounds: usize,
    /// Stop once every adjacent order is this sure.
    pub stop_when_separated: Option<f64>,
}

impl Settings {
    /// The settings `config` asks for over a full schedule of `candidates` rounds.
    pub fn of(config: &TournamentConfig, candidates: usize) -> Self {
        Self {
            seed: config.seed.unwrap_or(0),
            wave_size: config
                .wave_size
                .map_or(config.models.len().max(1), |w| w as usize),
            max_rounds: config.max_rounds.map_or(candidates, |m| m as usize),
            stop_when_separated: config.stop_when_separated,
        }
    }
}

/// What the run has spent, for the budget rule.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Budget {
    /// The tournament's `budget_usd`.
    pub budget_usd: Option<f64>,
    /// Spent so far, in dollars (every run of the tournament).
    pub spent_usd: f64,
    /// Rounds played so far whose every call was paid for (none answered from the response
    /// cache): what a round costs is learnt from these alone.
    pub rounds_paid: usize,
    /// What those rounds cost together, in dollars.
    pub rounds_paid_usd: f64,
}

impl Budget {
    /// How many more rounds the budget pays for at the cost per round so far (unbounded
    /// without a budget or before anything was paid for).
    fn affordable(&self) -> Option<usize> {
        let budget = self.budget_usd?;
        let left = budget - self.spent_usd;
        if left <= 0.0 {
            return Some(0);
        }
        if self.rounds_paid == 0 || self.rounds_paid_usd <= 0.0 {
            return None;
        }
        let per_round = self.rounds_paid_usd / self.rounds_paid as f64;
        Some((left / per_round).floor() as usize)
    }
}

/// The next wave, or what stops the design.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// Play these rounds next.
    Wave(WaveRecord),
    /// Choose no more.
    Stop(Stopped),
}

/// Whether a scheduled round is a match between two of `models`, as model indices.
fn pair_of(models: &[String], r: &ScheduledRound) -> Option<(usize, usize)> {
    let a = models.iter().position(|m| *m == r.team_a)?;
    let b = models.iter().position(|m| *m == r.team_b)?;
    (a != b).then_some((a, b))
}

/// The seed of one wave's draws: the tournament's seed and the wave's number, so a resumed
/// run draws what an uninterrupted one would.
fn wave_rng(seed: u64, wave: u32) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed ^ u64::from(wave).wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// Counts of what the rounds chosen so far cover, for the balance of the next choices.
#[derive(Default)]
struct Coverage<'a> {
    sides: HashMap<(usize, usize), usize>,
    items: HashMap<&'a str, usize>,
    pair_items: HashMap<((usize, usize), &'a str), usize>,
    pair_judges: HashMap<((usize, usize), &'a str), usize>,
}

impl<'a> Coverage<'a> {
    fn add(&mut self, (a, b): (usize, usize), r: &'a ScheduledRound) {
        let key = (a.min(b), a.max(b));
        *self.sides.entry((a, b)).or_default() += 1;
        *self.items.entry(r.dilemma_id.as_str()).or_default() += 1;
        *self
            .pair_items
            .entry((key, r.dilemma_id.as_str()))
            .or_default() += 1;
        for j in &r.judges {
            *self.pair_judges.entry((key, j.as_str())).or_default() += 1;
        }
    }

    /// How a candidate ranks for its pair: side played less, item used less overall, then by
    /// this pair, judges this pair has seen less, lower repetition.
    fn rank(&self, pair: (usize, usize), r: &ScheduledRound) -> (usize, usize, usize, usize, u32) {
        let key = (pair.0.min(pair.1), pair.0.max(pair.1));
        let item = r.dilemma_id.as_str();
        (
            self.sides.get(&pair).copied().unwrap_or(0),
            self.items.get(item).copied().unwrap_or(0),
            self.pair_items.get(&(key, item)).copied().unwrap_or(0),
            r.judges
                .iter()
                .map(|j| {
                    self.pair_judges
                        .get(&(key, j.as_str()))
                        .copied()
                        .unwrap_or(0)
                })
                .sum(),
            r.repetition,
        )
    }
}

/// The next wave of a design over `candidates` (the full schedule), having chosen what
/// `record` holds and seen `results` (each finished match's outcome, by round id).
pub fn next_wave(
    settings: &Settings,
    models: &[String],
    candidates: &[ScheduledRound],
    record: &DesignRecord,
    results: &HashMap<String, Outcome>,
    budget: &Budget,
) -> Next {
    let by_id: HashMap<&str, usize> = candidates
        .iter()
        .enumerate()
        .map(|(i, r)| (r.round_id.as_str(), i))
        .collect();
    let mut taken = vec![false; candidates.len()];
    let mut coverage = Coverage::default();
    let mut matches: Vec<Match> = Vec::new();
    // The deciding judges, in the order the matches name them first.
    let mut judges: Vec<String> = Vec::new();
    let mut chosen_matches = 0;
    for id in record.chosen() {
        let Some(&i) = by_id.get(id) else { continue };
        taken[i] = true;
        let Some(pair) = pair_of(models, &candidates[i]) else {
            continue;
        };
        chosen_matches += 1;
        coverage.add(pair, &candidates[i]);
        if let Some(outcome) = results.get(id) {
            let judge = match judges.iter().position(|j| *j == outcome.judge) {
                Some(j) => j,
                None => {
                    judges.push(outcome.judge.clone());
                    judges.len() - 1
                }
            };
            matches.push(Match {
                team_a: pair.0,
                team_b: pair.1,
                score: outcome.score,
                judge: Some(judge),
            });
        }
    }
    let mut fitted = fit(models.len(), judges.len(), &matches);
    let seen = state(models, &judges, &fitted, matches.len());
    // The judge a candidate's result will most likely come from, for its information: the
    // first of its judges, when that judge has decided a match before (one that has not,
    // or a panel, adds no judge term to the plan; the fit takes it once it has a result).
    let judge_of = |r: &ScheduledRound| {
        let first = r.judges.first()?;
        judges.iter().position(|j| j == first)
    };
    if let Some(stopped) = &record.stopped {
        return Next::Stop(stopped.clone());
    }
    let stop = |rule, detail: String| {
        Next::Stop(Stopped {
            rule,
            detail,
            state: seen.clone(),
        })
    };
    // The pairs with rounds left, each with its candidates.
    let mut open: BTreeMap<(usize, usize), Vec<usize>> = BTreeMap::new();
    let mut fixed = Vec::new();
    for (i, r) in candidates.iter().enumerate().filter(|(i, _)| !taken[*i]) {
        match pair_of(models, r) {
            Some((a, b)) => open.entry((a.min(b), a.max(b))).or_default().push(i),
            None if record.waves.is_empty() => fixed.push(i),
            None => {}
        }
    }
    if chosen_matches >= settings.max_rounds {
        return stop(
            StopRule::MaxRounds,
            format!(
                "{chosen_matches} rounds chosen, max_rounds = {}",
                settings.max_rounds
            ),
        );
    }
    if open.is_empty() && fixed.is_empty() {
        return stop(
            StopRule::Exhausted,
            format!("all {} rounds were chosen", candidates.len()),
        );
    }
    let least = seen.least_separated();
    if let Some(threshold) = settings.stop_when_separated
        && !record.waves.is_empty()
        && least >= threshold
    {
        return stop(
            StopRule::Separated,
            format!(
                "every adjacent pair of the ranking is ordered with probability {least:.3} or more \
                 (stop_when_separated = {threshold}) after {} matches",
                matches.len()
            ),
        );
    }
    let affordable = budget.affordable();
    if affordable == Some(0) {
        return stop(
            StopRule::Budget,
            format!(
                "${:.4} of budget_usd = {} spent, which leaves too little for one more round at \
                 ${:.4} a round so far",
                budget.spent_usd,
                budget.budget_usd.unwrap_or(0.0),
                budget.spent_usd / budget.rounds_paid.max(1) as f64
            ),
        );
    }
    let wave = u32::try_from(record.waves.len() + 1).unwrap_or(u32::MAX);
    let mut rng = wave_rng(settings.seed, wave);
    let tiebreak: Vec<u64> = (0..candidates.len()).map(|_| rng.random()).collect();
    // The pairs in a seeded order, which breaks ties of priority.
    let mut keyed: Vec<(u64, (usize, usize))> =
        open.keys().map(|p| (rng.random::<u64>(), *p)).collect();
    keyed.sort_unstable();
    let pair_order: Vec<(usize, usize)> = keyed.into_iter().map(|(_, p)| p).collect();
    let mut rounds: Vec<Choice> = fixed
        .iter()
        .map(|&i| Choice {
            round_id: candidates[i].round_id.clone(),
            reason: "no match between two models: every such round is played in the first wave"
                .into(),
            p_order: None,
            priority: None,
        })
        .collect();
    let mut limit = settings.wave_size.min(settings.max_rounds - chosen_matches);
    if let Some(a) = affordable {
        limit = limit.min(a);
    }
    for _ in 0..limit {
        // For each pair its round (the one that keeps the design balanced), and the pair
        // whose round would do most for the ranking (the seeded order breaks ties).
        let mut best: Option<((usize, usize), usize, f64)> = None;
        for p in &pair_order {
            let Some(list) = open.get(p).filter(|l| !l.is_empty()) else {
                continue;
            };
            let Some(at) = (0..list.len()).min_by_key(|&k| {
                let c = list[k];
                let pair = pair_of(models, &candidates[c]).unwrap_or(*p);
                (coverage.rank(pair, &candidates[c]), tiebreak[c])
            }) else {
                continue;
            };
            let r = &candidates[list[at]];
            let (a, b) = pair_of(models, r).unwrap_or(*p);
            let priority = fitted.gain(a, b, judge_of(r));
            if best.is_none_or(|(_, _, b)| priority > b + 1e-12) {
                best = Some((*p, at, priority));
            }
        }
        let Some(((i, j), at, priority)) = best else {
            break;
        };
        let p_order = fitted.p_order(i, j);
        let Some(list) = open.get_mut(&(i, j)) else {
            break;
        };
        let c = list.swap_remove(at);
        let r = &candidates[c];
        let pair = pair_of(models, r).unwrap_or((i, j));
        let (hi, lo) = if fitted.strength[i] >= fitted.strength[j] {
            (i, j)
        } else {
            (j, i)
        };
        let before = coverage.rank(pair, r);
        rounds.push(Choice {
            round_id: r.round_id.clone(),
            reason: format!(
                "{} above {} with probability {p_order:.2} (sd of the difference {:.0} Elo); \
                 {} as Team A for the {} time; {} in {} rounds before",
                models[hi],
                models[lo],
                ELO_PER_LOGIT * fitted.variance(i, j).sqrt(),
                r.team_a,
                ordinal(before.0 + 1),
                r.dilemma_id,
                before.1
            ),
            p_order: Some(p_order),
            priority: Some(priority),
        });
        coverage.add(pair, r);
        fitted.add_round(pair.0, pair.1, judge_of(r));
    }
    if rounds.is_empty() {
        return stop(
            StopRule::Exhausted,
            format!("all {} rounds were chosen", candidates.len()),
        );
    }
    Next::Wave(WaveRecord {
        wave,
        state: seen,
        rounds,
    })
}

/// `1st`, `2nd`, `3rd`, `4th`, … `11th`, `21st`.
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(models: &[&str], items: usize) -> Vec<ScheduledRound> {
        let mut out = Vec::new();
        for d in 0..items {
            for a in models {
                for b in models.iter().filter(|b| *b != a) {
                    out.push(ScheduledRound {
                        round_id: format!("d{d}__{a}__vs__{b}__r1"),
                        dilemma_id: format!("d{d}"),
                        repetition: 1,
                        team_a: a.to_string(),
                        team_b: b.to_string(),
                        judges: vec!["j".into()],
                        format: None,
                        relation: None,
                    });
                }
            }
        }
        out
    }

    fn settings(wave_size: usize, max_rounds: usize, stop: Option<f64>) -> Settings {
        Settings {
            seed: 7,
            wave_size,
            max_rounds,
            stop_when_separated: stop,
        }
    }

    /// Plays a design to its end, the lower-indexed model always winning.
    fn play(s: &Settings, models: &[String], candidates: &[ScheduledRound]) -> DesignRecord {
        let mut record = DesignRecord::new(s.seed, candidates.len());
        let mut results = HashMap::new();
        loop {
            match next_wave(s, models, candidates, &record, &results, &Budget::default()) {
                Next::Wave(w) => {
                    for c in &w.rounds {
                        let r = candidates
                            .iter()
                            .find(|r| r.round_id == c.round_id)
                            .unwrap();
                        let (a, b) = pair_of(models, r).unwrap();
                        let outcome = Outcome {
                            score: if a < b { 1.0 } else { 0.0 },
                            judge: r.judges[0].clone(),
                        };
                        results.insert(c.round_id.clone(), outcome);
                    }
                    record.waves.push(w);
                }
                Next::Stop(s) => {
                    record.stopped = Some(s);
                    return record;
                }
            }
        }
    }

    #[test]
    fn a_first_wave_spreads_over_models_sides_and_items() {
        let names = ["a", "b", "c", "d"];
        let models: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        let candidates = square(&names, 3);
        let record = DesignRecord::new(7, candidates.len());
        let Next::Wave(w) = next_wave(
            &settings(4, 100, None),
            &models,
            &candidates,
            &record,
            &HashMap::new(),
            &Budget::default(),
        ) else {
            panic!("a wave")
        };
        assert_eq!(w.rounds.len(), 4);
        let mut plays: HashMap<&str, usize> = HashMap::new();
        for c in &w.rounds {
            let r = candidates
                .iter()
                .find(|r| r.round_id == c.round_id)
                .unwrap();
            *plays.entry(&r.team_a).or_default() += 1;
            *plays.entry(&r.team_b).or_default() += 1;
        }
        // Four rounds over four models: none sits out. (Not each exactly twice: a round also
        // tells about the common side term, which links every round to every other, so a
        // third round joining two pairs already played can tell more than a fourth model's
        // second round.)
        assert_eq!(plays.len(), 4, "{plays:?} {w:?}");
        assert!(plays.values().all(|n| *n <= 3), "{plays:?} {w:?}");
        // Eight models, a wave of four (the fewest that can reach them all) and of eight.
        let names = ["a", "b", "c", "d", "e", "f", "g", "h"];
        let models: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        let candidates = square(&names, 2);
        for size in [4, 8] {
            let Next::Wave(w) = next_wave(
                &settings(size, 100, None),
                &models,
                &candidates,
                &DesignRecord::new(7, candidates.len()),
                &HashMap::new(),
                &Budget::default(),
            ) else {
                panic!("a wave")
            };
            let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
            for c in &w.rounds {
                let r = candidates
                    .iter()
                    .find(|r| r.round_id == c.round_id)
                    .unwrap();
                seen.insert(&r.team_a);
                seen.insert(&r.team_b);
            }
            assert_eq!(seen.len(), 8, "a wave of {size}: {seen:?}");
        }
    }

    #[test]
    fn it_stops_by_each_rule_and_says_which() {
        let names = ["a", "b", "c", "d"];
        let models: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        let candidates = square(&names, 3);
        let r = play(&settings(4, 10, None), &models, &candidates);
        let stopped = r.stopped.as_ref().unwrap();
        assert_eq!(stopped.rule, StopRule::MaxRounds);
        assert_eq!(r.chosen().count(), 10);
        let r = play(&settings(4, 1000, None), &models, &candidates);
        assert_eq!(r.stopped.as_ref().unwrap().rule, StopRule::Exhausted);
        assert_eq!(r.chosen().count(), candidates.len());
        let r = play(&settings(4, 1000, Some(0.9)), &models, &candidates);
        let stopped = r.stopped.as_ref().unwrap();
        assert_eq!(stopped.rule, StopRule::Separated, "{stopped:?}");
        assert!(r.chosen().count() < candidates.len());
        assert_eq!(stopped.state.ranking[0].model, "a");
        assert!(stopped.state.least_separated() >= 0.9);
        // A budget half spent on 10 rounds pays for 10 more; a spent one for none.
        let record = DesignRecord::new(7, candidates.len());
        let half = Budget {
            budget_usd: Some(1.0),
            spent_usd: 0.5,
            rounds_paid: 10,
            rounds_paid_usd: 0.5,
        };
        let s = settings(40, 1000, None);
        let Next::Wave(w) = next_wave(&s, &models, &candidates, &record, &HashMap::new(), &half)
        else {
            panic!("a wave")
        };
        assert_eq!(w.rounds.len(), 10);
        let spent = Budget {
            spent_usd: 1.0,
            ..half
        };
        let Next::Stop(stop) =
            next_wave(&s, &models, &candidates, &record, &HashMap::new(), &spent)
        else {
            panic!("a stop")
        };
        assert_eq!(stop.rule, StopRule::Budget);
    }

    #[test]
    fn the_same_seed_and_results_choose_the_same_rounds() {
        let names = ["a", "b", "c", "d", "e"];
        let models: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        let candidates = square(&names, 2);
        let s = settings(5, 30, None);
        assert_eq!(
            play(&s, &models, &candidates),
            play(&s, &models, &candidates)
        );
        let other = Settings { seed: 8, ..s };
        assert_ne!(
            play(&s, &models, &candidates).waves[0],
            play(&other, &models, &candidates).waves[0]
        );
        assert_eq!(ordinal(1), "1st");
        assert_eq!(ordinal(12), "12th");
        assert_eq!(ordinal(23), "23rd");
    }

    #[test]
    fn a_rounds_price_is_learnt_from_wholly_paid_rounds_and_everything_spent_counts() {
        // Ten rounds paid in full at $0.05, and $0.10 more on rounds partly answered from
        // the response cache: $0.40 left pays for eight rounds at $0.05, not for more at
        // the lower mean a partly reused round would give.
        let b = Budget {
            budget_usd: Some(1.0),
            spent_usd: 0.6,
            rounds_paid: 10,
            rounds_paid_usd: 0.5,
        };
        assert_eq!(b.affordable(), Some(8));
        let nothing_whole = Budget {
            rounds_paid: 0,
            rounds_paid_usd: 0.0,
            ..b
        };
        assert_eq!(nothing_whole.affordable(), None, "no price learnt yet");
    }
}
