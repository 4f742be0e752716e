//! Adaptive pairing measured against the square: seeded tournaments of eight simulated
//! models with known skills (the simulator's Ethics Bowl judge arithmetic: seven criteria
//! per team, each `clamp(round(1 + 9·(skill + form) + leniency + position_bias·[Team A] +
//! N(0, noise_sd²)), 1, 10)`, the form `performance_sd·Z/9` per debater and exchange), every
//! round of the full schedule (every ordered pair on the seven sample dilemmas, one rotating
//! judge of three, whose position biases differ) given its outcome in advance, so that the
//! designs see the same results for the same round: the full round-robin, a uniform random
//! subset of each size, a balanced subset (every pair the same number of rounds, sides
//! alternating), the adaptive design's choices, made by the tool's own [`next_wave`] wave by
//! wave, and an oracle that knows the true skills and spends each round where it most
//! lowers the expected number of misordered pairs. Each design's ranking is the design's
//! own Bradley–Terry fit with side and judge terms ([`rating::fit`]) over the rounds it
//! played, scored by Kendall's τ with the true order and whether its top model is the true
//! top.
//! Shared by `tests/adaptive_benchmark.rs` (a few tournaments) and
//! `examples/bench_adaptive.rs` (the curve in the docs).

use std::collections::HashMap;
use std::path::Path;

use ethics_bowl::analysis::ratings::strengths;
use ethics_bowl::config::TournamentConfig;
use ethics_bowl::design::rating::{self, Fit, Match};
use ethics_bowl::design::{Budget, DesignRecord, Next, Outcome, Settings, next_wave};
use ethics_bowl::domain::ScheduledRound;
use ethics_bowl::providers::simulated::truth::{
    JudgeBiases, RUBRIC_CRITERIA, criterion_score, standard_normal,
};
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The models of every tournament.
pub const MODELS: usize = 8;
/// The dilemmas (the sample document's seven).
pub const ITEMS: usize = 7;
/// Each judge's leniency and position bias (points per criterion, to Team A): none, the
/// 0.3 of the earlier study, and a strong one (0.8 a criterion, 5.6 points of 70: Team A
/// wins an even round about 69% of the time before this judge).
pub const JUDGES: [(f64, f64); 3] = [(-0.5, 0.0), (0.0, 0.3), (0.5, 0.8)];
/// Each criterion's noise (points).
const NOISE_SD: f64 = 1.5;
/// Each debater's form from one exchange to the next (points per criterion).
const PERFORMANCE_SD: f64 = 1.0;
/// The skills' spread of the closer field (the docs' second curve, and the test): evenly
/// spaced this far apart (skill is on
/// the 0–1 scale of `1 + 9·skill` points per criterion), then jittered by up to a third of it.
pub const SKILL_STEP: f64 = 0.035;

/// One design's ranking after so many rounds.
#[derive(Debug, Clone, Copy, Default)]
pub struct Score {
    /// Kendall's τ of the fitted order with the true order.
    pub tau: f64,
    /// Whether the fitted top model is the true top.
    pub top: bool,
}

/// One tournament: each budget's scores for the adaptive design and the uniform subset, and
/// the full round-robin's.
#[derive(Debug, Clone)]
pub struct Tournament {
    /// The budgets (rounds), ascending; the last is the full schedule.
    pub budgets: Vec<usize>,
    /// The adaptive design's score at each budget.
    pub adaptive: Vec<Score>,
    /// The uniform subset's score at each budget.
    pub uniform: Vec<Score>,
    /// The balanced subset's score at each budget.
    pub balanced: Vec<Score>,
    /// The oracle allocation's score at each budget (knows the skills, fixed in advance).
    pub oracle: Vec<Score>,
    /// The seeing oracle's score at each budget (knows the skills, sees the results).
    pub seeing: Vec<Score>,
    /// The full round-robin's score.
    pub full: Score,
    /// The full round-robin's score by the report's fit, which has no side or judge term.
    pub full_plain: Score,
}

/// The tournament file of the study (its schedule and the design's settings come from it,
/// as a run's do).
fn config() -> TournamentConfig {
    let models: Vec<String> = (0..MODELS).map(|m| format!("\"m{m}\"")).collect();
    let judges: Vec<String> = (0..JUDGES.len()).map(|j| format!("\"j{j}\"")).collect();
    TournamentConfig::parse(
        &format!(
            "name = \"study\"\ndilemma_file = \"d.md\"\nmodels = [{}]\njudges = [{}]\n\
             pairings = \"adaptive\"\n",
            models.join(", "),
            judges.join(", ")
        ),
        Path::new("study.toml"),
    )
    .expect("the study's tournament file")
}

/// Kendall's τ between `fitted` strengths and the `truth`, a tie counting as neither.
pub fn kendall_tau(fitted: &[f64], truth: &[f64]) -> f64 {
    let n = fitted.len();
    let mut sum = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            let a = (fitted[i] - fitted[j]).signum() * f64::from(u8::from(fitted[i] != fitted[j]));
            let b = (truth[i] - truth[j]).signum();
            sum += a * b;
        }
    }
    sum / (n * (n - 1) / 2) as f64
}

/// One round's result: Team A's model, Team B's, Team A's score, the judge.
type Played = (usize, usize, f64, usize);

/// The design's fit, with side and judge terms, over `rounds`.
fn fitted(rounds: &[Played]) -> Vec<f64> {
    let matches: Vec<Match> = rounds
        .iter()
        .map(|&(team_a, team_b, score, judge)| Match {
            team_a,
            team_b,
            score,
            judge: Some(judge),
        })
        .collect();
    rating::fit(MODELS, JUDGES.len(), &matches).strength
}

/// The report's fit, with no side or judge term, over `rounds`.
fn fitted_plain(rounds: &[Played]) -> Vec<f64> {
    let matches: Vec<(usize, usize, f64, usize)> = rounds
        .iter()
        .enumerate()
        .map(|(u, &(a, b, s, _))| (a, b, s, u))
        .collect();
    strengths(MODELS, &matches)
}

fn score(fitted: &[f64], truth: &[f64]) -> Score {
    let top = |v: &[f64]| {
        (0..v.len())
            .max_by(|a, b| v[*a].total_cmp(&v[*b]))
            .unwrap_or(0)
    };
    Score {
        tau: kendall_tau(fitted, truth),
        top: top(fitted) == top(truth),
    }
}

/// Team A's score in one round: the rubric's totals compared, as the spec reads a margin.
fn outcome(skill: [f64; 2], judge: (f64, f64), rng: &mut ChaCha8Rng) -> f64 {
    let biases = JudgeBiases {
        leniency: judge.0,
        position_bias: judge.1,
        self_preference: 0.0,
        noise_sd: NOISE_SD,
    };
    let mut total = [0u32; 2];
    for (team, t) in total.iter_mut().enumerate() {
        let form = PERFORMANCE_SD * standard_normal(rng) / 9.0;
        for _ in 0..RUBRIC_CRITERIA {
            *t += u32::from(criterion_score(
                skill[team] + form,
                &biases,
                team == 0,
                false,
                rng,
            ));
        }
    }
    match total[0].cmp(&total[1]) {
        std::cmp::Ordering::Greater => 1.0,
        std::cmp::Ordering::Less => 0.0,
        std::cmp::Ordering::Equal => 0.5,
    }
}

/// The budgets a study scores: every `step` rounds up to the full schedule.
pub fn budgets(full: usize, step: usize) -> Vec<usize> {
    let mut b: Vec<usize> = (1..).map(|k| k * step).take_while(|b| *b < full).collect();
    b.push(full);
    b
}

/// The spread of a round's margin (Team A's total less Team B's) in points: each team's form
/// (`performance_sd` on all seven criteria alike), each criterion's noise, and its rounding.
fn margin_sd() -> f64 {
    let k = RUBRIC_CRITERIA as f64;
    (2.0 * (k * PERFORMANCE_SD).powi(2) + 2.0 * k * (NOISE_SD.powi(2) + 1.0 / 12.0)).sqrt()
}

/// The true strengths on the logistic scale, as the oracle knows them: a skill difference Δ
/// moves the margin by `9·7·Δ` points, so Team A wins with probability about
/// `Φ(63·Δ / margin_sd)`, which is `σ(1.702·63·Δ / margin_sd)` on the logistic scale.
fn true_logits(truth: &[f64]) -> Vec<f64> {
    let per_skill = 1.702 * 9.0 * RUBRIC_CRITERIA as f64 / margin_sd();
    truth.iter().map(|s| per_skill * s).collect()
}

/// The oracle's order of rounds: it knows the true strengths and, round after round, plays
/// the pair whose next round most lowers the expected number of misordered pairs,
/// `Σ P(the fitted order of k and l is wrong)`, taken from the information the rounds so far
/// give at the true strengths (with the side term unknown, as the fit has it); each pair's
/// rounds alternate sides, their items in a seeded order.
fn oracle_order(truth: &[f64], pairs: &[(usize, usize)], rng: &mut ChaCha8Rng) -> Vec<usize> {
    let n = truth.len();
    let mut fit = Fit {
        strength: true_logits(truth),
        side: 0.0,
        judge_side: Vec::new(),
        judge_matches: Vec::new(),
        covariance: (0..=n)
            .map(|i| {
                (0..=n)
                    .map(|j| match (i == j, i == n) {
                        (false, _) => 0.0,
                        (true, false) => std::f64::consts::LN_10.powi(2),
                        (true, true) => 1.0,
                    })
                    .collect()
            })
            .collect(),
    };
    let mut open: Vec<((usize, usize), Vec<usize>)> = Vec::new();
    for (c, &(a, b)) in pairs.iter().enumerate() {
        let key = (a.min(b), a.max(b));
        match open.iter_mut().find(|(k, _)| *k == key) {
            Some((_, list)) => list.push(c),
            None => open.push((key, vec![c])),
        }
    }
    for (_, list) in open.iter_mut() {
        list.shuffle(rng);
    }
    let mut sides: HashMap<(usize, usize), usize> = HashMap::new();
    let misordered = |f: &Fit| -> f64 {
        let mut e = 0.0;
        for k in 0..n {
            for l in k + 1..n {
                e += 1.0 - f.p_order(k, l);
            }
        }
        e
    };
    let mut order = Vec::with_capacity(pairs.len());
    while order.len() < pairs.len() {
        let mut best: Option<(usize, usize, f64)> = None;
        for (p, (_, list)) in open.iter().enumerate() {
            // The pair's next round: the side it has played less.
            let Some(at) = (0..list.len()).min_by_key(|&k| sides.get(&pairs[list[k]]).copied())
            else {
                continue;
            };
            let (a, b) = pairs[list[at]];
            let mut next = fit.clone();
            next.add_round(a, b, None);
            let e = misordered(&next);
            if best.is_none_or(|(_, _, be)| e < be - 1e-12) {
                best = Some((p, at, e));
            }
        }
        let Some((p, at, _)) = best else { break };
        let c = open[p].1.remove(at);
        let (a, b) = pairs[c];
        *sides.entry((a, b)).or_default() += 1;
        fit.add_round(a, b, None);
        order.push(c);
    }
    order
}

/// The probability that Team A wins a round before judge `j`, as the oracle knows it: the
/// margin's mean is `63·Δ` plus the judge's position bias on seven criteria.
fn true_p_team_a(truth: &[f64], a: usize, b: usize, j: usize) -> f64 {
    let k = RUBRIC_CRITERIA as f64;
    let mean = 9.0 * k * (truth[a] - truth[b]) + k * JUDGES[j].1;
    let z = mean / margin_sd();
    1.0 / (1.0 + (-1.702 * z).exp())
}

/// The expected number of pairs whose fitted order is wrong, given the truth: over every
/// pair, the posterior probability of the wrong order, `Φ(−(fitted difference in the true
/// order's direction) / its sd)`.
fn wrong_orders(strength: &[f64], covariance: &[Vec<f64>], truth: &[f64]) -> f64 {
    let n = truth.len();
    let mut e = 0.0;
    for k in 0..n {
        for l in k + 1..n {
            let v = (covariance[k][k] + covariance[l][l] - 2.0 * covariance[k][l]).max(1e-12);
            let d = (strength[k] - strength[l]) * (truth[k] - truth[l]).signum();
            e +=
                1.0 - statrs::function::erf::erfc(-d / (v.sqrt() * std::f64::consts::SQRT_2)) / 2.0;
        }
    }
    e
}

/// The fit after one more round (a one-step Newton update: the rank-one update of the
/// covariance, and the strengths moved by it times the round's residual).
fn one_step(fit: &Fit, a: usize, b: usize, j: usize, score: f64) -> (Vec<f64>, Vec<Vec<f64>>) {
    let n = fit.strength.len();
    let x = [(a, 1.0), (b, -1.0), (n, 1.0), (n + 1 + j, 1.0)];
    let sx: Vec<f64> = fit
        .covariance
        .iter()
        .map(|row| x.iter().map(|&(k, c)| c * row[k]).sum())
        .collect();
    let xsx: f64 = x.iter().map(|&(k, c)| c * sx[k]).sum();
    let p = fit.p_team_a(a, b, Some(j));
    let w = p * (1.0 - p);
    let denom = 1.0 + w * xsx;
    let covariance: Vec<Vec<f64>> = fit
        .covariance
        .iter()
        .enumerate()
        .map(|(r, row)| {
            row.iter()
                .enumerate()
                .map(|(c, v)| v - w * sx[r] * sx[c] / denom)
                .collect()
        })
        .collect();
    // Σ' x = Σ x / (1 + w xᵀΣx).
    let strength = (0..n)
        .map(|k| fit.strength[k] + sx[k] / denom * (score - p))
        .collect();
    (strength, covariance)
}

/// The oracle that sees the outcomes: it knows the true skills and the judges' biases, sees
/// each round's result as it comes, and plays next the round (each pair's next, sides
/// alternating, items in a seeded order) whose result is expected to lower most the
/// expected number of pairs the fit orders wrongly given the truth (one step ahead, the two
/// results weighted by their true probabilities). It refits every eight rounds, as a wave.
fn seeing_oracle_order(truth: &[f64], results: &[Played], rng: &mut ChaCha8Rng) -> Vec<usize> {
    let n = truth.len();
    let mut open: Vec<((usize, usize), Vec<usize>)> = Vec::new();
    for (c, &(a, b, _, _)) in results.iter().enumerate() {
        let key = (a.min(b), a.max(b));
        match open.iter_mut().find(|(k, _)| *k == key) {
            Some((_, list)) => list.push(c),
            None => open.push((key, vec![c])),
        }
    }
    for (_, list) in open.iter_mut() {
        list.shuffle(rng);
    }
    let mut sides: HashMap<(usize, usize), usize> = HashMap::new();
    let mut order: Vec<usize> = Vec::with_capacity(results.len());
    let mut fit = rating::fit(n, JUDGES.len(), &[]);
    while order.len() < results.len() {
        if order.len().is_multiple_of(8) {
            let played: Vec<Played> = order.iter().map(|&i| results[i]).collect();
            let matches: Vec<Match> = played
                .iter()
                .map(|&(team_a, team_b, score, judge)| Match {
                    team_a,
                    team_b,
                    score,
                    judge: Some(judge),
                })
                .collect();
            fit = rating::fit(n, JUDGES.len(), &matches);
        }
        let mut best: Option<(usize, usize, f64)> = None;
        for (p, (_, list)) in open.iter().enumerate() {
            let Some(at) = (0..list.len()).min_by_key(|&k| {
                let (a, b, _, _) = results[list[k]];
                sides.get(&(a, b)).copied()
            }) else {
                continue;
            };
            let (a, b, _, j) = results[list[at]];
            let q = true_p_team_a(truth, a, b, j);
            let expected: f64 = [(1.0, q), (0.0, 1.0 - q)]
                .iter()
                .map(|&(score, prob)| {
                    let (st, cov) = one_step(&fit, a, b, j, score);
                    prob * wrong_orders(&st, &cov, truth)
                })
                .sum();
            if best.is_none_or(|(_, _, e)| expected < e - 1e-12) {
                best = Some((p, at, expected));
            }
        }
        let Some((p, at, _)) = best else { break };
        let c = open[p].1.remove(at);
        let (a, b, score, j) = results[c];
        *sides.entry((a, b)).or_default() += 1;
        let (strength, covariance) = one_step(&fit, a, b, j, score);
        fit.strength = strength;
        fit.covariance = covariance;
        order.push(c);
    }
    order
}

/// A balanced order of rounds: every pair's first round before any pair's second, and so
/// on, each pair's rounds alternating sides, pairs and items in a seeded order (the full
/// round-robin's own allocation, cut short).
fn balanced_order(pairs: &[(usize, usize)], rng: &mut ChaCha8Rng) -> Vec<usize> {
    // Each pair's rounds with its lower-indexed model as Team A, and the others.
    type Sides = ((usize, usize), Vec<usize>, Vec<usize>);
    let mut by_pair: Vec<Sides> = Vec::new();
    for (c, &(a, b)) in pairs.iter().enumerate() {
        let key = (a.min(b), a.max(b));
        let i = match by_pair.iter().position(|(k, _, _)| *k == key) {
            Some(i) => i,
            None => {
                by_pair.push((key, Vec::new(), Vec::new()));
                by_pair.len() - 1
            }
        };
        if a == key.0 {
            by_pair[i].1.push(c);
        } else {
            by_pair[i].2.push(c);
        }
    }
    let mut lists: Vec<Vec<usize>> = by_pair
        .into_iter()
        .map(|(_, mut one, mut other)| {
            one.shuffle(rng);
            other.shuffle(rng);
            if rng.random::<bool>() {
                std::mem::swap(&mut one, &mut other);
            }
            let mut list = Vec::new();
            for k in 0..one.len().max(other.len()) {
                list.extend(one.get(k));
                list.extend(other.get(k));
            }
            list
        })
        .collect();
    lists.shuffle(rng);
    let longest = lists.iter().map(Vec::len).max().unwrap_or(0);
    (0..longest)
        .flat_map(|k| lists.iter().filter_map(move |l| l.get(k).copied()))
        .collect()
}

/// One seeded tournament whose skills are `skill_step` apart, scored at every `step` rounds.
pub fn one(seed: u64, step: usize, skill_step: f64) -> Tournament {
    let config = config();
    let items: Vec<String> = (0..ITEMS).map(|d| format!("d{d}")).collect();
    let candidates: Vec<ScheduledRound> = ethics_bowl::protocols::schedule::build(&config, &items)
        .expect("a schedule")
        .rounds;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // Evenly spaced skills, jittered, in a shuffled order of names.
    let mut truth: Vec<f64> = (0..MODELS)
        .map(|k| {
            0.5 + skill_step * (k as f64 - (MODELS as f64 - 1.0) / 2.0)
                + skill_step / 3.0 * (2.0 * rng.random::<f64>() - 1.0)
        })
        .collect();
    truth.shuffle(&mut rng);
    let index = |name: &str| {
        config
            .models
            .iter()
            .position(|m| m == name)
            .expect("a model")
    };
    let judge_of = |r: &ScheduledRound| -> usize {
        r.judges
            .first()
            .map_or("j0", String::as_str)
            .trim_start_matches('j')
            .parse()
            .expect("a judge")
    };
    // Every round's result, drawn once.
    let results: Vec<Played> = candidates
        .iter()
        .map(|r| {
            let (a, b, j) = (index(&r.team_a), index(&r.team_b), judge_of(r));
            (a, b, outcome([truth[a], truth[b]], JUDGES[j], &mut rng), j)
        })
        .collect();
    let by_id: HashMap<&str, usize> = candidates
        .iter()
        .enumerate()
        .map(|(i, r)| (r.round_id.as_str(), i))
        .collect();
    // The adaptive design, played to the full schedule: its first `b` choices are what it
    // plays with max_rounds = b (the waves are the same; the last is cut).
    let settings = Settings {
        seed,
        ..Settings::of(&config, candidates.len())
    };
    let mut record = DesignRecord::new(seed, candidates.len());
    let mut seen: HashMap<String, Outcome> = HashMap::new();
    while let Next::Wave(w) = next_wave(
        &settings,
        &config.models,
        &candidates,
        &record,
        &seen,
        &Budget::default(),
    ) {
        for c in &w.rounds {
            let (_, _, score, judge) = results[by_id[c.round_id.as_str()]];
            let judge = format!("j{judge}");
            seen.insert(c.round_id.clone(), Outcome { score, judge });
        }
        record.waves.push(w);
    }
    let adaptive_order: Vec<usize> = record.chosen().map(|id| by_id[id]).collect();
    let mut uniform_order: Vec<usize> = (0..candidates.len()).collect();
    uniform_order.shuffle(&mut rng);
    let pairs: Vec<(usize, usize)> = results.iter().map(|&(a, b, _, _)| (a, b)).collect();
    let balanced = balanced_order(&pairs, &mut rng);
    let oracle = oracle_order(&truth, &pairs, &mut rng);
    let seeing = seeing_oracle_order(&truth, &results, &mut rng);
    let budgets = budgets(candidates.len(), step);
    let at = |order: &[usize], b: usize| -> Score {
        let played: Vec<Played> = order.iter().take(b).map(|&i| results[i]).collect();
        score(&fitted(&played), &truth)
    };
    let along = |order: &[usize]| budgets.iter().map(|&b| at(order, b)).collect();
    Tournament {
        adaptive: along(&adaptive_order),
        uniform: along(&uniform_order),
        balanced: along(&balanced),
        oracle: along(&oracle),
        seeing: along(&seeing),
        full: score(&fitted(&results), &truth),
        full_plain: score(&fitted_plain(&results), &truth),
        budgets,
    }
}

/// One budget's means over tournaments.
#[derive(Debug, Clone, Copy)]
pub struct Row {
    /// Rounds played.
    pub rounds: usize,
    /// Mean τ of the adaptive design, the uniform subset, the balanced subset, the oracle.
    pub adaptive: f64,
    pub uniform: f64,
    pub balanced: f64,
    pub oracle: f64,
    pub seeing: f64,
    /// The share of tournaments whose top model is right, the same four.
    pub adaptive_top: f64,
    pub uniform_top: f64,
    pub balanced_top: f64,
    pub oracle_top: f64,
    pub seeing_top: f64,
}

/// Means over tournaments, per budget, and the full round-robin's mean τ and top.
pub struct Curve {
    pub rows: Vec<Row>,
    pub full_tau: f64,
    pub full_top: f64,
    /// The full round-robin's mean τ by the report's fit (no side or judge term).
    pub full_plain_tau: f64,
    pub full_rounds: usize,
}

/// The mean curve of `tournaments` (all with the same budgets).
pub fn curve(tournaments: &[Tournament]) -> Curve {
    let n = tournaments.len().max(1) as f64;
    let budgets = tournaments
        .first()
        .map(|t| t.budgets.clone())
        .unwrap_or_default();
    let mean = |f: &dyn Fn(&Tournament) -> f64| tournaments.iter().map(f).sum::<f64>() / n;
    let top = |s: &Score| f64::from(u8::from(s.top));
    let rows = budgets
        .iter()
        .enumerate()
        .map(|(k, &rounds)| Row {
            rounds,
            adaptive: mean(&|t| t.adaptive[k].tau),
            uniform: mean(&|t| t.uniform[k].tau),
            balanced: mean(&|t| t.balanced[k].tau),
            oracle: mean(&|t| t.oracle[k].tau),
            seeing: mean(&|t| t.seeing[k].tau),
            adaptive_top: mean(&|t| top(&t.adaptive[k])),
            uniform_top: mean(&|t| top(&t.uniform[k])),
            balanced_top: mean(&|t| top(&t.balanced[k])),
            oracle_top: mean(&|t| top(&t.oracle[k])),
            seeing_top: mean(&|t| top(&t.seeing[k])),
        })
        .collect();
    Curve {
        rows,
        full_tau: mean(&|t| t.full.tau),
        full_top: mean(&|t| top(&t.full)),
        full_plain_tau: mean(&|t| t.full_plain.tau),
        full_rounds: budgets.last().copied().unwrap_or(0),
    }
}

/// A 95% percentile bootstrap interval of the mean of `values` (one per tournament, the unit
/// of replication), from 2,000 seeded resamples of the tournaments.
pub fn bootstrap_mean(values: &[f64]) -> [f64; 2] {
    let n = values.len();
    if n == 0 {
        return [f64::NAN, f64::NAN];
    }
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let mut means: Vec<f64> = (0..2000)
        .map(|_| (0..n).map(|_| values[rng.random_range(0..n)]).sum::<f64>() / n as f64)
        .collect();
    means.sort_by(f64::total_cmp);
    [means[49], means[1949]]
}
