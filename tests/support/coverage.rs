//! A coverage study of the judge effects' intervals: seeded Ethics Bowl tournaments of
//! simulated models with a known truth (`skill`, `leniency`, `position_bias`, `noise_sd`,
//! and `performance_sd`: each debater's form varies from one exchange to the next, shared by
//! every judge of it), each analysed, counting how often the 95% intervals of the adjusted
//! model scores, the judge leniencies and the side effect contain the truth; beside the
//! same fit with intervals that resample judgments as if each were its own exchange. Shared
//! by `tests/coverage.rs` (a few tournaments) and `examples/bench_coverage.rs` (hundreds).

use std::collections::BTreeMap;
use std::path::Path;

use ethics_bowl::analysis::effects::{self, Adjusted, Estimate};
use ethics_bowl::engine;
use ethics_bowl::store::{RoundFilter, Store};
use tokio::sync::mpsc;

use super::tournament::write;

/// Intervals that held the truth, of those drawn.
#[derive(Debug, Default, Clone, Copy)]
pub struct Tally {
    pub covered: usize,
    pub drawn: usize,
}

impl Tally {
    fn add(&mut self, e: &Estimate, truth: f64) {
        if let (Some(l), Some(h)) = (e.low, e.high) {
            self.drawn += 1;
            self.covered += usize::from(l <= truth && truth <= h);
        }
    }

    /// The share covered.
    pub fn share(&self) -> f64 {
        self.covered as f64 / self.drawn.max(1) as f64
    }
}

/// Coverage of the models', judges' and side's intervals, by exchanges and by judgments.
#[derive(Debug, Default, Clone, Copy)]
pub struct Coverage {
    pub models: Tally,
    pub judges: Tally,
    pub side: Tally,
    pub models_by_judgment: Tally,
    pub judges_by_judgment: Tally,
    pub side_by_judgment: Tally,
}

impl Coverage {
    fn count(&mut self, fit: &Adjusted, naive: &Adjusted, truth: &Known) {
        for (by_exchange, by_judgment) in fit.models.iter().zip(&naive.models) {
            let t = truth.models[&by_exchange.model];
            self.models.add(&by_exchange.effect, t);
            self.models_by_judgment.add(&by_judgment.effect, t);
        }
        for (by_exchange, by_judgment) in fit.judges.iter().zip(&naive.judges) {
            let t = truth.judges[&by_exchange.judge];
            self.judges.add(&by_exchange.effect, t);
            self.judges_by_judgment.add(&by_judgment.effect, t);
        }
        if let (Some(a), Some(b)) = (&fit.side, &naive.side) {
            self.side.add(a, truth.side);
            self.side_by_judgment.add(b, truth.side);
        }
    }

    /// Adds another study's counts.
    pub fn merge(&mut self, o: &Coverage) {
        for (a, b) in [
            (&mut self.models, o.models),
            (&mut self.judges, o.judges),
            (&mut self.side, o.side),
            (&mut self.models_by_judgment, o.models_by_judgment),
            (&mut self.judges_by_judgment, o.judges_by_judgment),
            (&mut self.side_by_judgment, o.side_by_judgment),
        ] {
            a.covered += b.covered;
            a.drawn += b.drawn;
        }
    }
}

/// The truth, centred as the fit's effects are.
#[derive(Debug)]
struct Known {
    models: BTreeMap<String, f64>,
    judges: BTreeMap<String, f64>,
    side: f64,
}

const SKILLS: [f64; 3] = [0.35, 0.5, 0.65];
/// Each judge's leniency and position bias (points per criterion).
const JUDGES: [(f64, f64); 3] = [(-0.5, 0.25), (0.0, 0.25), (0.5, 0.25)];
const NOISE_SD: f64 = 1.0;

/// The expected score of one criterion, `clamp(round(μ + σZ), 1, 10)`: near the ends of the
/// scale the clamp pulls it in, which the plain `1 + 9·skill + …` does not know.
fn expected_score(mu: f64, sd: f64) -> f64 {
    use statrs::distribution::{ContinuousCDF, Normal};
    let z = Normal::new(0.0, 1.0).expect("the standard normal");
    let below = |x: f64| z.cdf((x - mu) / sd);
    (1..=10)
        .map(|k| {
            let k = f64::from(k);
            let low = if k == 1.0 { f64::NEG_INFINITY } else { k - 0.5 };
            let high = if k == 10.0 { f64::INFINITY } else { k + 0.5 };
            k * (below(high) - below(low))
        })
        .sum()
}

/// What the fit estimates in this design (every pairing, both sides, every judge: balanced,
/// so each effect is a margin of the cells' expected totals): the models' and judges'
/// centred effects and the side effect, in points of the 70-point total, from each cell's
/// expected clamped score (the debater's form and the judge's noise together have standard
/// deviation √(performance_sd² + noise_sd²) per criterion). The simulator's exported
/// `Truth` is the same without the clamp; `tests/engine.rs` checks it where nothing clamps.
fn truth(performance_sd: f64) -> Known {
    let sd = (performance_sd * performance_sd + NOISE_SD * NOISE_SD).sqrt();
    // cell[m][j][side]: 7 × the expected criterion score.
    let cell = |m: usize, j: usize, team_a: bool| {
        let (leniency, bias) = JUDGES[j];
        let mu = 1.0 + 9.0 * SKILLS[m] + leniency + if team_a { bias } else { 0.0 };
        7.0 * expected_score(mu, sd)
    };
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let all: Vec<f64> = (0..3)
        .flat_map(|m| (0..3).flat_map(move |j| [cell(m, j, true), cell(m, j, false)]))
        .collect();
    let grand = mean(&all);
    let models = (0..3)
        .map(|m| {
            let v: Vec<f64> = (0..3)
                .flat_map(|j| [cell(m, j, true), cell(m, j, false)])
                .collect();
            (format!("m{m}"), mean(&v) - grand)
        })
        .collect();
    let judges = (0..3)
        .map(|j| {
            let v: Vec<f64> = (0..3)
                .flat_map(|m| [cell(m, j, true), cell(m, j, false)])
                .collect();
            (format!("j{j}"), mean(&v) - grand)
        })
        .collect();
    let a: Vec<f64> = (0..3)
        .flat_map(|m| (0..3).map(move |j| cell(m, j, true)))
        .collect();
    let b: Vec<f64> = (0..3)
        .flat_map(|m| (0..3).map(move |j| cell(m, j, false)))
        .collect();
    Known {
        models,
        judges,
        side: mean(&a) - mean(&b),
    }
}

/// The models file: three debaters and three judges who do not debate, all seeded `seed`.
fn models(seed: u64, performance_sd: f64) -> String {
    let head = |name: &str| {
        format!(
            "[[models]]\nname = \"{name}\"\nprovider = \"simulated\"\nmodel = \"{name}\"\n\
             [models.simulated]\ntokens_per_second = 0.0\nmalformed_judgment_rate = 0.0\n\
             failure_rate = 0.0\nseed = {seed}\n"
        )
    };
    let mut out = String::new();
    for (i, skill) in SKILLS.iter().enumerate() {
        out += &format!(
            "{}skill = {skill}\nperformance_sd = {performance_sd}\n",
            head(&format!("m{i}"))
        );
    }
    for (i, (leniency, bias)) in JUDGES.iter().enumerate() {
        out += &format!(
            "{}leniency = {leniency}\nposition_bias = {bias}\nnoise_sd = {NOISE_SD}\n",
            head(&format!("j{i}"))
        );
    }
    out
}

/// One seeded tournament (every pairing on every sample dilemma, every judge on every
/// round), analysed both ways and counted against the truth.
pub async fn one(seed: u64, performance_sd: f64, dir: &Path) -> Coverage {
    let config = write(
        dir,
        &models(seed, performance_sd),
        "models = [\"m0\", \"m1\", \"m2\"]\njudges = [\"j0\", \"j1\", \"j2\"]\njudging = \"all\"\n",
    );
    let prepared = engine::prepare(&config, None).expect("prepares");
    let (tx, mut rx) = mpsc::unbounded_channel();
    let (_ctx, mut crx) = mpsc::unbounded_channel();
    let drain = tokio::spawn(async move { while rx.recv().await.is_some() {} });
    let report = engine::run(prepared, tx, &mut crx).await.expect("runs");
    drain.await.expect("drained");
    let (rounds, _) = Store::open(&report.dir)
        .expect("opens")
        .load_rounds(&RoundFilter::default())
        .expect("loads");
    let fit = effects::adjusted(&rounds);
    // The same observations, each judgment its own unit.
    let (mut obs, models, judges, own) = effects::observations(&rounds);
    for (i, o) in obs.iter_mut().enumerate() {
        o.exchange = i / 2;
    }
    let naive = effects::effects(&obs, &models, &judges, own);
    let known = truth(performance_sd);
    let mut c = Coverage::default();
    c.count(&fit, &naive, &known);
    c
}
