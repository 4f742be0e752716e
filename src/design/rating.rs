//! The rating state a wave is chosen from: Bradley–Terry strengths fitted to the matches
//! finished so far with the side terms a pairwise outcome does not cancel, Team A's
//! advantage and each judge's own side preference, `P(Team A wins) = σ(θ_a − θ_b + h +
//! h_judge)` (a judge's leniency falls on both teams alike and cancels). The fit is the
//! posterior mode by Newton's method, and the covariance of every term the inverse of its
//! Fisher information there; the ranking's covariance is the strengths' block of it, so
//! what is unsure about the side terms widens the ranking's spread. From it, for each pair,
//! the probability that the current order of the two is right.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal};

/// Elo points per unit of the logistic scale (`400 / ln 10`).
pub const ELO_PER_LOGIT: f64 = 400.0 / std::f64::consts::LN_10;

/// The strengths' prior precision on the logistic scale: a standard deviation of 400 Elo
/// points (ten to one odds), which only models with no finished match come close to.
const PRIOR_PRECISION: f64 = 1.0 / (std::f64::consts::LN_10 * std::f64::consts::LN_10);

/// The common side term's prior: a standard deviation of 1 on the logistic scale (Team A
/// winning an even match 73% of the time), wider than any side advantage judges show, so
/// that every match counts and only a run whose every match went to one side is held back.
const SIDE_PRIOR_PRECISION: f64 = 1.0;

/// Each judge's side offset's ridge prior: a standard deviation of 0.5 on the logistic
/// scale (a judge whose own preference turns an even match into 62 to 38). A ridge, not a
/// flat prior, for two reasons: the offsets and the common term are not identified apart
/// (adding a constant to every offset and taking it from `h` fits the same), and the ridge
/// gives the common part to `h`; and a judge has only its share of the rounds, often a few
/// of one pair's, whose offset a flat prior would fit to their noise (a judge that happened
/// to see the stronger model as Team A twice would be read as preferring Team A). Shrunk
/// to the common term, an offset grows only as far as that judge's rounds across pairs show.
const JUDGE_PRIOR_PRECISION: f64 = 4.0;

/// One finished match as the fit reads it: one per round, decided by one judgment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Match {
    /// Team A's model (an index into the models).
    pub team_a: usize,
    /// Team B's model.
    pub team_b: usize,
    /// Team A's score: 1 a win, ½ a draw, 0 a loss.
    pub score: f64,
    /// The judge that decided it (an index into the fit's judges), when known.
    pub judge: Option<usize>,
}

/// A finished round as the design reads it: Team A's score by the round's deciding
/// judgment and who gave it (the judge, or `panel` when a panel's verdict decided).
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Team A's score: 1 a win, ½ a draw, 0 a loss.
    pub score: f64,
    /// The deciding judge (`panel` for a panel's verdict).
    pub judge: String,
}

/// The judge key of a panel's verdict: the panel decides as one unit.
pub const PANEL: &str = "panel";

/// The fitted state: strengths and side terms on the logistic scale and their covariance.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    /// Each model's strength (natural log of its Bradley–Terry strength).
    pub strength: Vec<f64>,
    /// Team A's advantage common to every judge.
    pub side: f64,
    /// Each judge's side preference beyond the common one.
    pub judge_side: Vec<f64>,
    /// Matches each judge decided.
    pub judge_matches: Vec<usize>,
    /// The covariance of every term: the strengths first, then the common side term, then
    /// the judges' offsets.
    pub covariance: Vec<Vec<f64>>,
}

impl Fit {
    /// The index of the common side term in [`Fit::covariance`].
    fn side_at(&self) -> usize {
        self.strength.len()
    }

    /// The variance of the difference of models `i` and `j`'s strengths.
    pub fn variance(&self, i: usize, j: usize) -> f64 {
        (self.covariance[i][i] + self.covariance[j][j] - 2.0 * self.covariance[i][j]).max(1e-12)
    }

    /// The probability that the order of `i` and `j` by their strengths is right.
    pub fn p_order(&self, i: usize, j: usize) -> f64 {
        let z = (self.strength[i] - self.strength[j]).abs() / self.variance(i, j).sqrt();
        phi(z)
    }

    /// Models by strength, strongest first (ties by index).
    pub fn ranking(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.strength.len()).collect();
        order.sort_by(|a, b| {
            self.strength[*b]
                .total_cmp(&self.strength[*a])
                .then(a.cmp(b))
        });
        order
    }

    /// The terms a round with `team_a` against `team_b`, decided by `judge`, bears on:
    /// (index, coefficient) of its linear predictor.
    fn row(&self, team_a: usize, team_b: usize, judge: Option<usize>) -> Vec<(usize, f64)> {
        let mut x = vec![(team_a, 1.0), (team_b, -1.0), (self.side_at(), 1.0)];
        if let Some(j) = judge.filter(|j| *j < self.judge_side.len()) {
            x.push((self.side_at() + 1 + j, 1.0));
        }
        x
    }

    /// The probability that Team A wins such a round at the current terms.
    pub fn p_team_a(&self, team_a: usize, team_b: usize, judge: Option<usize>) -> f64 {
        let offset = judge
            .and_then(|j| self.judge_side.get(j))
            .copied()
            .unwrap_or(0.0);
        sigmoid(self.strength[team_a] - self.strength[team_b] + self.side + offset)
    }

    /// The covariance times the round's row, and the round's weight `p(1 − p)`.
    fn spread(&self, team_a: usize, team_b: usize, judge: Option<usize>) -> (Vec<f64>, f64, f64) {
        let x = self.row(team_a, team_b, judge);
        let sx: Vec<f64> = self
            .covariance
            .iter()
            .map(|row| x.iter().map(|&(k, c)| c * row[k]).sum())
            .collect();
        let xsx: f64 = x.iter().map(|&(k, c)| c * sx[k]).sum();
        let p = self.p_team_a(team_a, team_b, judge);
        (sx, p * (1.0 - p), xsx)
    }

    /// What one more round, `team_a` against `team_b` decided by `judge`, would do for the
    /// ranking: over every pair of models `k`, `l`, the share of the variance of their
    /// difference the round would remove (a rank-one update of the information: a round
    /// between two models narrows their own difference most, and those of every pair it is
    /// linked to a little; what it tells about the side terms counts as far as they are
    /// entangled with the strengths), weighted by how unsure that pair's order is,
    /// `2·(1 − P(order))`.
    pub fn gain(&self, team_a: usize, team_b: usize, judge: Option<usize>) -> f64 {
        let (sx, w, xsx) = self.spread(team_a, team_b, judge);
        let denom = 1.0 + w * xsx;
        let n = self.strength.len();
        let mut total = 0.0;
        for k in 0..n {
            for l in k + 1..n {
                let narrowed = w * (sx[k] - sx[l]).powi(2) / denom;
                total += 2.0 * (1.0 - self.p_order(k, l)) * narrowed / self.variance(k, l);
            }
        }
        total
    }

    /// The covariance as it would be after one more such round (a rank-one update of the
    /// information), so a wave's later picks see its earlier ones.
    pub fn add_round(&mut self, team_a: usize, team_b: usize, judge: Option<usize>) {
        let (sx, w, xsx) = self.spread(team_a, team_b, judge);
        let denom = 1.0 + w * xsx;
        for (a, row) in self.covariance.iter_mut().enumerate() {
            for (b, cell) in row.iter_mut().enumerate() {
                *cell -= w * sx[a] * sx[b] / denom;
            }
        }
    }
}

/// The standard normal distribution function.
fn phi(x: f64) -> f64 {
    Normal::new(0.0, 1.0).map_or_else(|_| 1.0 / (1.0 + (-1.702 * x).exp()), |n| n.cdf(x))
}

/// The logistic function.
fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// `ln(1 + eˣ)` without overflow.
fn softplus(x: f64) -> f64 {
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

/// One observation of the likelihood: its row, and Team A's score.
/// One kind of match as the likelihood reads it: the terms of its linear predictor, Team A's
/// summed score and how many matches of the kind there are. Matches of one kind (the same
/// teams in the same order before the same judge) add `S·η − n·softplus(η)` together,
/// exactly what they add one by one, so a fit over many judgments costs what one over their
/// few kinds does.
struct Row {
    x: Vec<(usize, f64)>,
    score: f64,
    count: f64,
}

/// The log posterior at `beta` (up to a constant).
fn log_posterior(rows: &[Row], precision: &[f64], beta: &[f64]) -> f64 {
    let data: f64 = rows
        .iter()
        .map(|r| {
            let eta: f64 = r.x.iter().map(|&(k, c)| c * beta[k]).sum();
            r.score * eta - r.count * softplus(eta)
        })
        .sum();
    let prior: f64 = precision.iter().zip(beta).map(|(p, b)| p * b * b).sum();
    data - 0.5 * prior
}

/// The information (negative Hessian of the log posterior) at `beta`, and its gradient.
fn curvature(rows: &[Row], precision: &[f64], beta: &[f64]) -> (Vec<Vec<f64>>, Vec<f64>) {
    let size = beta.len();
    let mut info = vec![vec![0.0; size]; size];
    let mut grad: Vec<f64> = precision.iter().zip(beta).map(|(p, b)| -p * b).collect();
    for r in rows {
        let eta: f64 = r.x.iter().map(|&(k, c)| c * beta[k]).sum();
        let p = sigmoid(eta);
        let w = r.count * p * (1.0 - p);
        for &(a, ca) in &r.x {
            grad[a] += (r.score - r.count * p) * ca;
            for &(b, cb) in &r.x {
                info[a][b] += w * ca * cb;
            }
        }
    }
    for (k, p) in precision.iter().enumerate() {
        info[k][k] += p;
    }
    (info, grad)
}

/// Fits `models` models and `judges` judges' side offsets to `matches`.
///
/// Besides the matches, one pseudo-draw for each pair that met (with no side term), as the
/// report's ratings add ([`crate::analysis::ratings`]), so that a pair with one result is
/// not read as infinitely apart.
pub fn fit(models: usize, judges: usize, matches: &[Match]) -> Fit {
    fit_from(models, judges, matches, None)
}

/// [`fit`] starting Newton's method at `start` (every term, in [`Fit::covariance`]'s order:
/// a fit of similar matches, as a bootstrap's resamples are of the whole) rather than at
/// zero; the posterior is concave, so the mode is the same, reached in fewer steps. A start
/// of the wrong length is ignored.
pub fn fit_from(models: usize, judges: usize, matches: &[Match], start: Option<&[f64]>) -> Fit {
    let side_at = models;
    let size = models + 1 + judges;
    let mut precision = vec![PRIOR_PRECISION; models];
    precision.push(SIDE_PRIOR_PRECISION);
    precision.extend(std::iter::repeat_n(JUDGE_PRIOR_PRECISION, judges));
    // Each kind of match (Team A, Team B, the judge) with its summed score and count.
    let mut kinds: std::collections::BTreeMap<(usize, usize, Option<usize>), (f64, f64)> =
        std::collections::BTreeMap::new();
    let mut met = std::collections::BTreeSet::new();
    let mut judge_matches = vec![0; judges];
    for m in matches {
        if m.team_a == m.team_b || m.team_a >= models || m.team_b >= models {
            continue;
        }
        let judge = m.judge.filter(|j| *j < judges);
        if let Some(j) = judge {
            judge_matches[j] += 1;
        }
        let kind = kinds.entry((m.team_a, m.team_b, judge)).or_default();
        kind.0 += m.score.clamp(0.0, 1.0);
        kind.1 += 1.0;
        met.insert((m.team_a.min(m.team_b), m.team_a.max(m.team_b)));
    }
    let mut rows: Vec<Row> = kinds
        .into_iter()
        .map(|((a, b, judge), (score, count))| {
            let mut x = vec![(a, 1.0), (b, -1.0), (side_at, 1.0)];
            if let Some(j) = judge {
                x.push((side_at + 1 + j, 1.0));
            }
            Row { x, score, count }
        })
        .collect();
    for (a, b) in met {
        rows.push(Row {
            x: vec![(a, 1.0), (b, -1.0)],
            score: 0.5,
            count: 1.0,
        });
    }
    // Newton's method from zero, halving a step that would lower the posterior (it is
    // concave, so this converges).
    let mut beta = start
        .filter(|s| s.len() == size && s.iter().all(|v| v.is_finite()))
        .map_or_else(|| vec![0.0; size], <[f64]>::to_vec);
    let mut value = log_posterior(&rows, &precision, &beta);
    for _ in 0..100 {
        let (info, grad) = curvature(&rows, &precision, &beta);
        let inv = inverse(info);
        let step: Vec<f64> = inv
            .iter()
            .map(|row| row.iter().zip(&grad).map(|(a, g)| a * g).sum())
            .collect();
        let mut t = 1.0;
        let mut moved = false;
        while t > 1e-6 {
            let next: Vec<f64> = beta.iter().zip(&step).map(|(b, s)| b + t * s).collect();
            let v = log_posterior(&rows, &precision, &next);
            if v >= value - 1e-12 {
                moved = step.iter().any(|s| (t * s).abs() > 1e-10);
                beta = next;
                value = v;
                break;
            }
            t /= 2.0;
        }
        if !moved {
            break;
        }
    }
    let (info, _) = curvature(&rows, &precision, &beta);
    Fit {
        covariance: inverse(info),
        side: beta[side_at],
        judge_side: beta[side_at + 1..].to_vec(),
        judge_matches,
        strength: beta[..models].to_vec(),
    }
}

/// The inverse of a symmetric positive-definite matrix, by Gauss–Jordan elimination (the
/// prior keeps the information positive definite).
fn inverse(mut m: Vec<Vec<f64>>) -> Vec<Vec<f64>> {
    let n = m.len();
    let mut inv: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| f64::from(u8::from(i == j))).collect())
        .collect();
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|a, b| m[*a][col].abs().total_cmp(&m[*b][col].abs()))
            .unwrap_or(col);
        m.swap(col, pivot);
        inv.swap(col, pivot);
        let d = m[col][col];
        if d.abs() < 1e-300 {
            continue;
        }
        for k in 0..n {
            m[col][k] /= d;
            inv[col][k] /= d;
        }
        for r in 0..n {
            if r != col {
                let f = m[r][col];
                if f != 0.0 {
                    for k in 0..n {
                        m[r][k] -= f * m[col][k];
                        inv[r][k] -= f * inv[col][k];
                    }
                }
            }
        }
    }
    inv
}

/// One model in the state a wave saw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rated {
    /// The model.
    pub model: String,
    /// Its Elo-scaled Bradley–Terry rating (1500 the field's geometric mean).
    pub rating: f64,
    /// The rating's standard deviation from the fit's curvature, in Elo points.
    pub sd: f64,
}

/// Two models next to each other in the ranking a wave saw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Adjacent {
    /// The one ranked higher.
    pub higher: String,
    /// The one ranked next below it.
    pub lower: String,
    /// The probability that this order is right.
    pub p_order: f64,
}

/// One side term of the fit, in Elo points: how far Team A's chances move.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideTerm {
    /// Whose: `all judges` for the common term, else the judge (`panel` for a panel's
    /// verdict), whose offset adds to the common term.
    pub judge: String,
    /// The term, in Elo points for Team A (positive: Team A favoured).
    pub elo: f64,
    /// Its standard deviation from the fit's curvature.
    pub sd: f64,
    /// Its 95% interval (± 1.96 standard deviations).
    pub interval: [f64; 2],
    /// The matches it rests on (one per round).
    pub matches: usize,
}

impl SideTerm {
    fn new(judge: &str, logit: f64, variance: f64, matches: usize) -> Self {
        let (elo, sd) = (
            ELO_PER_LOGIT * logit,
            ELO_PER_LOGIT * variance.max(0.0).sqrt(),
        );
        Self {
            judge: judge.to_string(),
            elo,
            sd,
            interval: [elo - 1.96 * sd, elo + 1.96 * sd],
            matches,
        }
    }
}

/// The label of the common side term.
pub const ALL_JUDGES: &str = "all judges";

/// The rating state a wave was chosen from, as `tournament.json` records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatingState {
    /// Finished matches the fit used (one per round: its deciding judgment).
    pub matches: usize,
    /// The models, strongest first.
    pub ranking: Vec<Rated>,
    /// Each adjacent pair of the ranking, with how sure its order is.
    pub adjacent: Vec<Adjacent>,
    /// The fit's side terms: Team A's advantage common to every judge first, then each
    /// judge's own offset (empty in records written before the fit had them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sides: Vec<SideTerm>,
}

impl RatingState {
    /// The least certain adjacent order (1 with fewer than two models).
    pub fn least_separated(&self) -> f64 {
        self.adjacent.iter().map(|a| a.p_order).fold(1.0, f64::min)
    }
}

/// The state of `fit` for `models` and `judges` (named in the fit's order), after
/// `matches` matches.
pub fn state(models: &[String], judges: &[String], fit: &Fit, matches: usize) -> RatingState {
    let order = fit.ranking();
    let ranking = order
        .iter()
        .map(|&i| Rated {
            model: models[i].clone(),
            rating: 1500.0 + ELO_PER_LOGIT * fit.strength[i],
            sd: ELO_PER_LOGIT * fit.covariance[i][i].max(0.0).sqrt(),
        })
        .collect();
    let adjacent = order
        .windows(2)
        .map(|w| Adjacent {
            higher: models[w[0]].clone(),
            lower: models[w[1]].clone(),
            p_order: fit.p_order(w[0], w[1]),
        })
        .collect();
    let h = fit.side_at();
    let mut sides = vec![SideTerm::new(
        ALL_JUDGES,
        fit.side,
        fit.covariance[h][h],
        matches,
    )];
    for (j, name) in judges.iter().enumerate().take(fit.judge_side.len()) {
        sides.push(SideTerm::new(
            name,
            fit.judge_side[j],
            fit.covariance[h + 1 + j][h + 1 + j],
            fit.judge_matches[j],
        ));
    }
    RatingState {
        matches,
        ranking,
        adjacent,
        sides,
    }
}

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;

    fn m(team_a: usize, team_b: usize, score: f64) -> Match {
        Match {
            team_a,
            team_b,
            score,
            judge: None,
        }
    }

    /// Matches drawn from known terms: `rounds` of (Team A, Team B, judge), each drawn once.
    fn simulate(
        strength: &[f64],
        side: f64,
        judge_side: &[f64],
        rounds: &[(usize, usize, usize)],
        seed: u64,
    ) -> Vec<Match> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rounds
            .iter()
            .map(|&(a, b, j)| {
                let p = sigmoid(strength[a] - strength[b] + side + judge_side[j]);
                Match {
                    team_a: a,
                    team_b: b,
                    score: f64::from(u8::from(rng.random::<f64>() < p)),
                    judge: Some(j),
                }
            })
            .collect()
    }

    #[test]
    fn a_warm_start_reaches_the_same_fit() {
        let rounds: Vec<(usize, usize, usize)> =
            (0..60).map(|i| (i % 3, (i + 1) % 3, i % 2)).collect();
        let matches = simulate(&[0.5, 0.0, -0.5], 0.3, &[0.4, -0.2], &rounds, 7);
        let cold = fit(3, 2, &matches);
        let near: Vec<f64> = [0.4, 0.1, -0.6, 0.2, 0.3, -0.1].to_vec();
        let warm = fit_from(3, 2, &matches, Some(&near));
        for (a, b) in cold
            .strength
            .iter()
            .chain([&cold.side])
            .chain(&cold.judge_side)
            .zip(
                warm.strength
                    .iter()
                    .chain([&warm.side])
                    .chain(&warm.judge_side),
            )
        {
            assert!((a - b).abs() < 1e-9, "{a} {b}");
        }
        // A start of the wrong length is ignored.
        assert_eq!(fit_from(3, 2, &matches, Some(&[1.0])), cold);
    }

    #[test]
    fn more_matches_separate_a_clear_order_and_narrow_it() {
        let mut few = Vec::new();
        for _ in 0..3 {
            few.extend([m(0, 1, 1.0), m(1, 2, 1.0), m(1, 0, 0.0), m(2, 1, 0.0)]);
        }
        few.push(m(0, 1, 0.0));
        let many: Vec<Match> = few.iter().cycle().take(few.len() * 8).copied().collect();
        let names: Vec<String> = ["x", "y", "z"].iter().map(|s| s.to_string()).collect();
        let (f, g) = (fit(3, 0, &few), fit(3, 0, &many));
        assert_eq!(f.ranking(), [0, 1, 2]);
        assert!(g.p_order(0, 1) > f.p_order(0, 1));
        let s = state(&names, &[], &g, many.len());
        assert_eq!(s.ranking[0].model, "x");
        assert!(s.least_separated() > 0.95, "{s:?}");
        assert!(state(&names, &[], &f, few.len()).ranking[0].sd > s.ranking[0].sd);
        // The strengths are centred: 1500 is the field's geometric mean.
        let mean: f64 = s.ranking.iter().map(|r| r.rating).sum::<f64>() / 3.0;
        assert!((mean - 1500.0).abs() < 1e-6, "{mean}");
        // Nothing finished: every order is a coin's.
        let none = fit(3, 2, &[]);
        assert!((none.p_order(0, 1) - 0.5).abs() < 1e-9);
        assert_eq!(none.covariance.len(), 3 + 1 + 2);
    }

    #[test]
    fn a_round_added_narrows_its_pair_most() {
        let mut f = fit(3, 0, &[m(0, 1, 1.0), m(1, 2, 1.0)]);
        let (before01, before12) = (f.variance(0, 1), f.variance(1, 2));
        f.add_round(0, 1, None);
        assert!(f.variance(0, 1) < before01);
        assert!(before01 - f.variance(0, 1) > before12 - f.variance(1, 2));
        // An unsure pair gains more from a round than a settled one.
        let g = fit(
            3,
            0,
            &[
                m(0, 1, 1.0),
                m(1, 0, 1.0),
                m(1, 2, 1.0),
                m(1, 2, 1.0),
                m(1, 2, 1.0),
                m(2, 1, 0.0),
            ],
        );
        assert!(
            g.gain(0, 1, None) > g.gain(1, 2, None),
            "{} {}",
            g.gain(0, 1, None),
            g.gain(1, 2, None)
        );
        let inv = inverse(vec![vec![2.0, 1.0], vec![1.0, 2.0]]);
        assert!((inv[0][0] - 2.0 / 3.0).abs() < 1e-12 && (inv[0][1] + 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn it_recovers_a_known_side_effect_and_judge_offsets() {
        let strength = [1.0, 0.5, 0.0, -0.5, -1.0];
        let (side, judge_side) = (0.4, [0.6, 0.0, -0.6]);
        // Every ordered pair before every judge, 50 times: 3,000 matches.
        let mut rounds = Vec::new();
        for _ in 0..50 {
            for a in 0..5 {
                for b in (0..5).filter(|b| *b != a) {
                    for j in 0..3 {
                        rounds.push((a, b, j));
                    }
                }
            }
        }
        let matches = simulate(&strength, side, &judge_side, &rounds, 11);
        let f = fit(5, 3, &matches);
        assert!((f.side - side).abs() < 0.15, "{}", f.side);
        for (j, truth) in judge_side.iter().enumerate() {
            assert!(
                (f.judge_side[j] - truth).abs() < 0.2,
                "judge {j}: {} for {truth}",
                f.judge_side[j]
            );
        }
        assert_eq!(f.ranking(), [0, 1, 2, 3, 4]);
        // The record states them in Elo points, with n and intervals that cover the truth.
        let judges: Vec<String> = ["j0", "j1", "j2"].iter().map(|s| s.to_string()).collect();
        let models: Vec<String> = ["a", "b", "c", "d", "e"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let s = state(&models, &judges, &f, matches.len());
        assert_eq!(s.sides.len(), 4);
        assert_eq!(
            (s.sides[0].judge.as_str(), s.sides[0].matches),
            (ALL_JUDGES, 3000)
        );
        assert_eq!(
            (s.sides[1].judge.as_str(), s.sides[1].matches),
            ("j0", 1000)
        );
        let covers = |t: &SideTerm, logit: f64| {
            let elo = ELO_PER_LOGIT * logit;
            t.interval[0] - 0.5 * t.sd <= elo && elo <= t.interval[1] + 0.5 * t.sd
        };
        assert!(covers(&s.sides[0], side), "{:?}", s.sides[0]);
        assert!(covers(&s.sides[1], judge_side[0]), "{:?}", s.sides[1]);
    }

    #[test]
    fn a_judge_preferring_team_a_does_not_distort_the_strengths_when_its_rounds_are_unbalanced() {
        // Models 0 and 1 are equal. A fair judge (0) sees every ordered pair of four models
        // both ways; a judge with a strong Team A preference (1) sees the other pairs both
        // ways too, and 1 against 0 only with 1 as Team A, 120 times.
        let strength = [0.0, 0.0, 0.6, -0.6];
        let judge_side = [0.0, 1.5];
        let mut rounds = Vec::new();
        for _ in 0..30 {
            for a in 0..4 {
                for b in (0..4).filter(|b| *b != a) {
                    rounds.push((a, b, 0));
                    if (a.min(b), a.max(b)) != (0, 1) {
                        rounds.push((a, b, 1));
                    }
                }
            }
        }
        rounds.extend(std::iter::repeat_n((1, 0, 1), 120));
        // Over eight seeded tournaments, 1's strength less 0's: with the side terms, and by
        // the report's fit, which has none.
        let (mut with_sides, mut without) = (0.0, 0.0);
        for seed in 0..8 {
            let matches = simulate(&strength, 0.0, &judge_side, &rounds, seed);
            let f = fit(4, 2, &matches);
            with_sides += (f.strength[1] - f.strength[0]) / 8.0;
            // The biased judge's Team A advantage is found, beyond the fair one's.
            assert!(
                f.judge_side[1] - f.judge_side[0] > 1.0,
                "{:?}",
                f.judge_side
            );
            let plain: Vec<(usize, usize, f64, usize)> = matches
                .iter()
                .enumerate()
                .map(|(u, m)| (m.team_a, m.team_b, m.score, u))
                .collect();
            let plain = crate::analysis::ratings::strengths(4, &plain);
            without += (plain[1] - plain[0]) / ELO_PER_LOGIT / 8.0;
        }
        assert!(with_sides.abs() < 0.1, "{with_sides}");
        // Without side terms the judge's preference is read as 1's strength.
        assert!(without > 0.4, "{without}");
    }
}
