//! The rating state a wave is chosen from: Bradley–Terry strengths fitted to the matches
//! finished so far (the report's fit, [`crate::analysis::ratings::strengths`]), their
//! covariance from the fit's curvature (the inverse of the Fisher information, with a weak
//! prior so that models not yet connected have a finite, wide spread), and for each pair the
//! probability that the current order of the two is right.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal};

use crate::analysis::ratings::strengths;

/// Elo points per unit of the logistic scale (`400 / ln 10`).
pub const ELO_PER_LOGIT: f64 = 400.0 / std::f64::consts::LN_10;

/// The prior's precision on the logistic scale: a standard deviation of 400 Elo points
/// (ten to one odds), which only models with no finished match come close to.
const PRIOR_PRECISION: f64 = 1.0 / (std::f64::consts::LN_10 * std::f64::consts::LN_10);

/// One finished match: the indices of Team A's and Team B's models and Team A's score.
pub type Match = (usize, usize, f64);

/// The fitted state: strengths on the logistic scale and their covariance.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    /// Each model's strength (natural log of its Bradley–Terry strength).
    pub strength: Vec<f64>,
    /// Their covariance.
    pub covariance: Vec<Vec<f64>>,
}

impl Fit {
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

    /// What one more round between `i` and `j` adds to the information on their
    /// difference: `p(1 − p)` at the current strengths.
    pub fn weight(&self, i: usize, j: usize) -> f64 {
        let p = 1.0 / (1.0 + (self.strength[j] - self.strength[i]).exp());
        p * (1.0 - p)
    }

    /// What one more round between `i` and `j` would do for the ranking: over every pair
    /// of models `k`, `l`, the share of the variance of their difference the round would
    /// remove (a rank-one update of the information: a round between `i` and `j` narrows
    /// their own difference most, and those of every pair it is linked to a little),
    /// weighted by how unsure that pair's order is, `2·(1 − P(order))`.
    pub fn gain(&self, i: usize, j: usize) -> f64 {
        let w = self.weight(i, j);
        let n = self.strength.len();
        let sx: Vec<f64> = (0..n)
            .map(|k| self.covariance[k][i] - self.covariance[k][j])
            .collect();
        let denom = 1.0 + w * (sx[i] - sx[j]);
        let mut total = 0.0;
        for k in 0..n {
            for l in k + 1..n {
                let narrowed = w * (sx[k] - sx[l]).powi(2) / denom;
                total += 2.0 * (1.0 - self.p_order(k, l)) * narrowed / self.variance(k, l);
            }
        }
        total
    }

    /// The covariance as it would be after one more round between `i` and `j` (a rank-one
    /// update of the information), so a wave's later picks see its earlier ones.
    pub fn add_round(&mut self, i: usize, j: usize) {
        let w = self.weight(i, j);
        let n = self.strength.len();
        let sx: Vec<f64> = (0..n)
            .map(|k| self.covariance[k][i] - self.covariance[k][j])
            .collect();
        let denom = 1.0 + w * (sx[i] - sx[j]);
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

/// Fits `models` models to `matches`.
pub fn fit(models: usize, matches: &[Match]) -> Fit {
    let units: Vec<(usize, usize, f64, usize)> = matches
        .iter()
        .enumerate()
        .map(|(unit, &(a, b, s))| (a, b, s, unit))
        .collect();
    let strength: Vec<f64> = if matches.is_empty() {
        vec![0.0; models]
    } else {
        strengths(models, &units)
            .into_iter()
            .map(|elo| (elo - 1500.0) / ELO_PER_LOGIT)
            .collect()
    };
    // The information: each match, and the one pseudo-draw per pair that met which the fit
    // adds, at the fitted strengths; the prior on the diagonal.
    let mut info = vec![vec![0.0; models]; models];
    let mut met = std::collections::BTreeSet::new();
    let add = |info: &mut Vec<Vec<f64>>, a: usize, b: usize| {
        let p = 1.0 / (1.0 + (strength[b] - strength[a]).exp());
        let w = p * (1.0 - p);
        info[a][a] += w;
        info[b][b] += w;
        info[a][b] -= w;
        info[b][a] -= w;
    };
    for &(a, b, _) in matches {
        if a != b && a < models && b < models {
            add(&mut info, a, b);
            met.insert((a.min(b), a.max(b)));
        }
    }
    for (a, b) in met {
        add(&mut info, a, b);
    }
    for (k, row) in info.iter_mut().enumerate() {
        row[k] += PRIOR_PRECISION;
    }
    Fit {
        covariance: inverse(info),
        strength,
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

/// The rating state a wave was chosen from, as `tournament.json` records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatingState {
    /// Finished matches the fit used (one per round: its deciding judgment).
    pub matches: usize,
    /// The models, strongest first.
    pub ranking: Vec<Rated>,
    /// Each adjacent pair of the ranking, with how sure its order is.
    pub adjacent: Vec<Adjacent>,
}

impl RatingState {
    /// The least certain adjacent order (1 with fewer than two models).
    pub fn least_separated(&self) -> f64 {
        self.adjacent.iter().map(|a| a.p_order).fold(1.0, f64::min)
    }
}

/// The state of `fit` for `models`, after `matches` matches.
pub fn state(models: &[String], fit: &Fit, matches: usize) -> RatingState {
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
    RatingState {
        matches,
        ranking,
        adjacent,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_matches_separate_a_clear_order_and_narrow_it() {
        let mut few = Vec::new();
        for _ in 0..3 {
            few.extend([(0, 1, 1.0), (1, 2, 1.0), (1, 0, 0.0), (2, 1, 0.0)]);
        }
        few.push((0, 1, 0.0));
        let many: Vec<Match> = few.iter().cycle().take(few.len() * 8).copied().collect();
        let names: Vec<String> = ["x", "y", "z"].iter().map(|s| s.to_string()).collect();
        let (f, m) = (fit(3, &few), fit(3, &many));
        assert_eq!(f.ranking(), [0, 1, 2]);
        assert!(m.p_order(0, 1) > f.p_order(0, 1));
        let s = state(&names, &m, many.len());
        assert_eq!(s.ranking[0].model, "x");
        assert!(s.least_separated() > 0.95, "{s:?}");
        assert!(state(&names, &f, few.len()).ranking[0].sd > s.ranking[0].sd);
        // Nothing finished: every order is a coin's.
        let none = fit(3, &[]);
        assert!((none.p_order(0, 1) - 0.5).abs() < 1e-9);
    }

    #[test]
    fn a_round_added_narrows_its_pair_most() {
        let mut f = fit(3, &[(0, 1, 1.0), (1, 2, 1.0)]);
        let (before01, before12) = (f.variance(0, 1), f.variance(1, 2));
        f.add_round(0, 1);
        assert!(f.variance(0, 1) < before01);
        assert!(before01 - f.variance(0, 1) > before12 - f.variance(1, 2));
        // An unsure pair gains more from a round than a settled one.
        let g = fit(
            3,
            &[
                (0, 1, 1.0),
                (1, 0, 1.0),
                (1, 2, 1.0),
                (1, 2, 1.0),
                (1, 2, 1.0),
            ],
        );
        assert!(
            g.gain(0, 1) > g.gain(1, 2),
            "{} {}",
            g.gain(0, 1),
            g.gain(1, 2)
        );
        let inv = inverse(vec![vec![2.0, 1.0], vec![1.0, 2.0]]);
        assert!((inv[0][0] - 2.0 / 3.0).abs() < 1e-12 && (inv[0][1] + 1.0 / 3.0).abs() < 1e-12);
    }
}
