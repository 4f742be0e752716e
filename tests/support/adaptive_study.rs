//! Adaptive pairing measured against the square: seeded tournaments of eight simulated
//! models with known skills (the simulator's Ethics Bowl judge arithmetic: seven criteria
//! per team, each `clamp(round(1 + 9·(skill + form) + leniency + position_bias·[Team A] +
//! N(0, noise_sd²)), 1, 10)`, the form `performance_sd·Z/9` per debater and exchange), every
//! round of the full schedule (every ordered pair on the seven sample dilemmas, one rotating
//! judge of three) given its outcome in advance, so that the three designs see the same
//! results for the same round: the full round-robin, a uniform random subset of each size,
//! and the adaptive design's choices, made by the tool's own [`next_wave`] wave by wave.
//! Each design's ranking is the ratings' Bradley–Terry fit over the rounds it played,
//! scored by Kendall's τ with the true order and whether its top model is the true top.
//! Shared by `tests/adaptive_benchmark.rs` (a few tournaments) and
//! `examples/bench_adaptive.rs` (the curve in the docs).

use std::collections::HashMap;
use std::path::Path;

use ethics_bowl::analysis::ratings::strengths;
use ethics_bowl::config::TournamentConfig;
use ethics_bowl::design::{Budget, DesignRecord, Next, Settings, next_wave};
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
/// Each judge's leniency and position bias (points per criterion).
const JUDGES: [(f64, f64); 3] = [(-0.5, 0.3), (0.0, 0.3), (0.5, 0.3)];
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
    /// The full round-robin's score.
    pub full: Score,
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

fn score(rounds: &[(usize, usize, f64)], truth: &[f64]) -> Score {
    let matches: Vec<(usize, usize, f64, usize)> = rounds
        .iter()
        .enumerate()
        .map(|(u, &(a, b, s))| (a, b, s, u))
        .collect();
    let fitted = strengths(MODELS, &matches);
    let top = |v: &[f64]| {
        (0..v.len())
            .max_by(|a, b| v[*a].total_cmp(&v[*b]))
            .unwrap_or(0)
    };
    Score {
        tau: kendall_tau(&fitted, truth),
        top: top(&fitted) == top(truth),
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
    let judge = |name: &str| {
        JUDGES[name
            .trim_start_matches('j')
            .parse::<usize>()
            .expect("a judge")]
    };
    // Every round's result, drawn once.
    let results: Vec<(usize, usize, f64)> = candidates
        .iter()
        .map(|r| {
            let (a, b) = (index(&r.team_a), index(&r.team_b));
            let j = judge(r.judges.first().map_or("j0", String::as_str));
            (a, b, outcome([truth[a], truth[b]], j, &mut rng))
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
    let mut seen: HashMap<String, f64> = HashMap::new();
    while let Next::Wave(w) = next_wave(
        &settings,
        &config.models,
        &candidates,
        &record,
        &seen,
        &Budget::default(),
    ) {
        for c in &w.rounds {
            seen.insert(c.round_id.clone(), results[by_id[c.round_id.as_str()]].2);
        }
        record.waves.push(w);
    }
    let adaptive_order: Vec<usize> = record.chosen().map(|id| by_id[id]).collect();
    let mut uniform_order: Vec<usize> = (0..candidates.len()).collect();
    uniform_order.shuffle(&mut rng);
    let budgets = budgets(candidates.len(), step);
    let at = |order: &[usize], b: usize| -> Score {
        let played: Vec<(usize, usize, f64)> = order.iter().take(b).map(|&i| results[i]).collect();
        score(&played, &truth)
    };
    Tournament {
        adaptive: budgets.iter().map(|&b| at(&adaptive_order, b)).collect(),
        uniform: budgets.iter().map(|&b| at(&uniform_order, b)).collect(),
        full: score(&results, &truth),
        budgets,
    }
}

/// One budget's means: (rounds, adaptive τ, uniform τ, adaptive top right, uniform top
/// right).
pub type Row = (usize, f64, f64, f64, f64);

/// Means over tournaments, per budget, and the full round-robin's mean τ and top.
pub struct Curve {
    pub rows: Vec<Row>,
    pub full_tau: f64,
    pub full_top: f64,
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
    let rows = budgets
        .iter()
        .enumerate()
        .map(|(k, &b)| {
            (
                b,
                mean(&|t| t.adaptive[k].tau),
                mean(&|t| t.uniform[k].tau),
                mean(&|t| f64::from(u8::from(t.adaptive[k].top))),
                mean(&|t| f64::from(u8::from(t.uniform[k].top))),
            )
        })
        .collect();
    Curve {
        rows,
        full_tau: mean(&|t| t.full.tau),
        full_top: mean(&|t| f64::from(u8::from(t.full.top))),
        full_rounds: budgets.last().copied().unwrap_or(0),
    }
}
