//! Ratings: every usable judgment is a match (the higher team total wins; a margin under
//! [`DRAW_MARGIN`] is a draw), Bradley–Terry strengths are fitted to the matches and shown on
//! the Elo scale, and a bootstrap over the exchanges (each round's debate with all its
//! judgments, resampled whole) gives 95% intervals, so a leaderboard says how sure it is. Also per role, with "model as presenter" and "model as responder" rated
//! as separate entrants.

use std::collections::BTreeMap;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use super::stats::bootstrap::{MIN_CLUSTERS, percentile};
use crate::domain::{Judgment, Round, Scores, Team};

/// Team totals closer than this (out of 70) make a draw.
pub const DRAW_MARGIN: f64 = 2.0;
/// Bootstrap resamples.
pub const RESAMPLES: usize = 1000;
/// Fixed, so a report is reproducible.
const SEED: u64 = 0x5eed_e7b1;

/// One match: entrant indices, the score of the first (1 win, 0.5 draw, 0 loss), and the
/// exchange it is a judgment of (the unit the bootstrap resamples).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Match {
    a: usize,
    b: usize,
    score_a: f64,
    exchange: usize,
}

/// One entrant's rating.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rating {
    /// The model (with its role, in role ratings).
    pub entrant: String,
    /// Elo-scaled Bradley–Terry rating (1500 is the field's geometric mean strength).
    pub rating: f64,
    /// 2.5th percentile of the bootstrap (interpolated, as every interval of the report is);
    /// none from fewer than [`MIN_CLUSTERS`] exchanges, too few for a bootstrap to mean
    /// anything (one exchange resampled gives a zero-width interval).
    pub low: Option<f64>,
    /// 97.5th percentile of the bootstrap; none when `low` is.
    pub high: Option<f64>,
    /// Matches it played.
    pub matches: usize,
}

impl Rating {
    /// The rating with its interval and matches, as the comparisons print it: `1612 [1540,
    /// 1688] (n=24)`, or without the interval when there is none.
    pub fn shown(&self) -> String {
        match (self.low, self.high) {
            (Some(low), Some(high)) => format!(
                "{:.0} [{low:.0}, {high:.0}] (n={})",
                self.rating, self.matches
            ),
            _ => format!(
                "{:.0} (n={}, no interval: <{MIN_CLUSTERS} exchanges)",
                self.rating, self.matches
            ),
        }
    }
}

/// Strengths by the minorisation–maximisation algorithm (Hunter 2004). Every pair that met
/// also gets one pseudo-draw, so an unbeaten entrant has a finite rating.
fn fit(n: usize, matches: &[Match]) -> Vec<f64> {
    let mut wins = vec![0.0; n];
    let mut games: BTreeMap<(usize, usize), f64> = BTreeMap::new();
    for m in matches {
        wins[m.a] += m.score_a;
        wins[m.b] += 1.0 - m.score_a;
        *games.entry((m.a.min(m.b), m.a.max(m.b))).or_default() += 1.0;
    }
    for ((i, j), g) in games.iter_mut() {
        wins[*i] += 0.5;
        wins[*j] += 0.5;
        *g += 1.0;
    }
    // Each entrant's pairs, in the pairs' order (so the sums below add up in the same
    // order as a scan of every pair would).
    let mut met: Vec<Vec<(usize, usize, f64)>> = vec![Vec::new(); n];
    for (&(a, b), &g) in &games {
        met[a].push((a, b, g));
        met[b].push((a, b, g));
    }
    let mut p = vec![1.0; n];
    for _ in 0..500 {
        let mut next = p.clone();
        for (i, slot) in next.iter_mut().enumerate() {
            let denom: f64 = met[i].iter().map(|(a, b, g)| g / (p[*a] + p[*b])).sum();
            if denom > 0.0 {
                *slot = wins[i] / denom;
            }
        }
        let log_mean = next
            .iter()
            .filter(|v| **v > 0.0)
            .map(|v| v.ln())
            .sum::<f64>()
            / n as f64;
        let scale = log_mean.exp();
        let change: f64 = next
            .iter()
            .zip(&p)
            .map(|(a, b)| (a / scale - b).abs())
            .sum();
        p = next.iter().map(|v| v / scale).collect();
        if change < 1e-10 {
            break;
        }
    }
    p.iter()
        .map(|v| 1500.0 + 400.0 * v.max(1e-12).log10())
        .collect()
}

fn rate(entrants: Vec<String>, matches: Vec<Match>) -> Vec<Rating> {
    if matches.is_empty() {
        return Vec::new();
    }
    let n = entrants.len();
    let point = fit(n, &matches);
    // The exchanges, each with its matches (the judges of one exchange): resampled whole,
    // so several judgments of one debate never count as independent matches.
    let mut by_exchange: BTreeMap<usize, Vec<Match>> = BTreeMap::new();
    for m in &matches {
        by_exchange.entry(m.exchange).or_default().push(*m);
    }
    let exchanges: Vec<Vec<Match>> = by_exchange.into_values().collect();
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(RESAMPLES); n];
    for _ in 0..RESAMPLES {
        let resample: Vec<Match> = (0..exchanges.len())
            .flat_map(|_| {
                exchanges[rng.random_range(0..exchanges.len())]
                    .iter()
                    .copied()
            })
            .collect();
        for (i, r) in fit(n, &resample).into_iter().enumerate() {
            samples[i].push(r);
        }
    }
    let enough = exchanges.len() >= MIN_CLUSTERS;
    let mut out: Vec<Rating> = entrants
        .into_iter()
        .enumerate()
        .map(|(i, entrant)| {
            let s = &mut samples[i];
            s.sort_by(f64::total_cmp);
            Rating {
                entrant,
                rating: point[i],
                low: enough.then(|| percentile(s, 0.025)),
                high: enough.then(|| percentile(s, 0.975)),
                matches: matches.iter().filter(|m| m.a == i || m.b == i).count(),
            }
        })
        .collect();
    out.sort_by(|a, b| b.rating.total_cmp(&a.rating));
    out
}

/// The Elo-scaled strengths alone of `entrants` entrants from matches `(first, second, score
/// of the first, unit)`, by the same fit as [`rate_pairs`]: for a bootstrap that refits them
/// on resampled units as part of a larger statistic.
pub fn strengths(entrants: usize, matches: &[(usize, usize, f64, usize)]) -> Vec<f64> {
    let matches: Vec<Match> = matches
        .iter()
        .map(|&(a, b, score_a, exchange)| Match {
            a,
            b,
            score_a,
            exchange,
        })
        .collect();
    fit(entrants, &matches)
}

/// Ratings for any entrants from matches `(first, second, score of the first, unit)`, with
/// the same fit and bootstrap as the tournament's ratings, the matches of one unit (the
/// question-answer debate's item, which rates debaters' persuasiveness with it) resampled
/// together.
pub fn rate_pairs(entrants: Vec<String>, matches: &[(usize, usize, f64, usize)]) -> Vec<Rating> {
    rate(
        entrants,
        matches
            .iter()
            .map(|&(a, b, score_a, exchange)| Match {
                a,
                b,
                score_a,
                exchange,
            })
            .collect(),
    )
}

/// Overall ratings and ratings by role.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ratings {
    /// One entrant per model.
    pub overall: Vec<Rating>,
    /// One entrant per model and role.
    pub by_role: Vec<Rating>,
    /// Matches (usable judgments).
    pub matches: usize,
    /// Draws among them.
    pub draws: usize,
    /// Exchanges the matches are judgments of: the unit the intervals resample.
    pub exchanges: usize,
}

/// A judgment as a match: Team A's score (1 a win, ½ a draw, 0 a loss) by the two teams'
/// totals, a margin under [`DRAW_MARGIN`] a draw; none for a judgment that is not usable or
/// lacks a total. Every rating of the report reads judgments this one way.
pub fn match_score(j: &Judgment) -> Option<f64> {
    if !j.is_usable() {
        return None;
    }
    let a = j.scores(Team::A).and_then(Scores::total)?;
    let b = j.scores(Team::B).and_then(Scores::total)?;
    Some(if (a - b).abs() < DRAW_MARGIN {
        0.5
    } else if a > b {
        1.0
    } else {
        0.0
    })
}

/// Ratings from rounds.
pub fn ratings(rounds: &[Round]) -> Ratings {
    let mut results: Vec<(String, String, f64, usize)> = Vec::new();
    for (exchange, r) in rounds.iter().enumerate() {
        for score in r.judgments.iter().filter_map(match_score) {
            results.push((
                r.team_a_model.clone(),
                r.team_b_model.clone(),
                score,
                exchange,
            ));
        }
    }
    let draws = results.iter().filter(|r| r.2 == 0.5).count();
    let exchanges = {
        let mut e: Vec<usize> = results.iter().map(|r| r.3).collect();
        e.dedup();
        e.len()
    };
    let build = |name_a: &dyn Fn(&str) -> String, name_b: &dyn Fn(&str) -> String| {
        let mut names: Vec<String> = Vec::new();
        let mut index = |s: String| {
            names.iter().position(|n| *n == s).unwrap_or_else(|| {
                names.push(s);
                names.len() - 1
            })
        };
        let matches: Vec<Match> = results
            .iter()
            .filter(|(a, b, _, _)| name_a(a) != name_b(b))
            .map(|(a, b, s, exchange)| Match {
                a: index(name_a(a)),
                b: index(name_b(b)),
                score_a: *s,
                exchange: *exchange,
            })
            .collect();
        rate(names, matches)
    };
    Ratings {
        overall: build(&|m| m.to_string(), &|m| m.to_string()),
        by_role: build(&|m| format!("{m} (presenting)"), &|m| {
            format!("{m} (responding)")
        }),
        matches: results.len(),
        draws,
        exchanges,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_ordering_is_recovered_with_intervals() {
        // x beats y 8 of 10, y beats z 8 of 10, x beats z 9 of 10.
        let mut m = Vec::new();
        for (a, b, wins, games) in [(0, 1, 8, 10), (1, 2, 8, 10), (0, 2, 9, 10)] {
            for g in 0..games {
                let exchange = m.len();
                m.push(Match {
                    a,
                    b,
                    score_a: if g < wins { 1.0 } else { 0.0 },
                    exchange,
                });
            }
        }
        // The same matches, each judged three times alike: the intervals are no narrower,
        // since the exchanges are resampled, not the judgments (resampling judgments would
        // narrow them by about √3).
        let thrice: Vec<Match> = m.iter().flat_map(|&x| [x, x, x]).collect();
        let names = || vec!["x".into(), "y".into(), "z".into()];
        for (once, three) in rate(names(), m.clone()).iter().zip(rate(names(), thrice)) {
            assert!(
                three.high.unwrap() - three.low.unwrap()
                    >= 0.9 * (once.high.unwrap() - once.low.unwrap()),
                "{once:?} {three:?}"
            );
        }
        let r = rate(names(), m);
        let names: Vec<&str> = r.iter().map(|r| r.entrant.as_str()).collect();
        assert_eq!(names, ["x", "y", "z"]);
        for e in &r {
            assert!(
                e.low.unwrap() <= e.rating && e.rating <= e.high.unwrap(),
                "{e:?}"
            );
            assert_eq!(e.matches, 20);
        }
        assert!(r[0].rating > 1500.0 && r[2].rating < 1500.0);
    }

    #[test]
    fn too_few_exchanges_give_no_interval() {
        let m: Vec<Match> = (0..MIN_CLUSTERS - 1)
            .map(|exchange| Match {
                a: 0,
                b: 1,
                score_a: if exchange % 3 == 0 { 0.0 } else { 1.0 },
                exchange,
            })
            .collect();
        let r = rate(vec!["x".into(), "y".into()], m);
        assert!(r.iter().all(|e| e.low.is_none() && e.high.is_none()));
        assert!(
            r[0].shown().contains("no interval: <10 exchanges"),
            "{}",
            r[0].shown()
        );
    }

    #[test]
    fn an_unbeaten_entrant_gets_a_finite_rating() {
        let m: Vec<Match> = (0..5)
            .map(|exchange| Match {
                a: 0,
                b: 1,
                score_a: 1.0,
                exchange,
            })
            .collect();
        let r = rate(vec!["x".into(), "y".into()], m);
        assert!(r[0].rating.is_finite() && r[0].rating > r[1].rating);
    }
}
