//! The ratings with the side terms a pairwise outcome does not cancel: Bradley–Terry with
//! Team A's advantage and each judge's own side preference, `P(Team A wins) = σ(θ_a − θ_b +
//! h + h_judge)`, as a reviewer of paired comparisons expects (FastChat's Arena analysis
//! fits a home-side term; see `STATISTICS.md`). The raw ratings ([`super::ratings`]) have
//! no side term: in a schedule where every pairing is played in both orders before the same
//! judges the side cancels, but in a subset (an adaptive design, a failed round, a judge
//! rotation that gives one judge one order) it falls on whichever model played Team A more
//! often before the judges who favour Team A. Beside the raw ratings, this says how far that
//! moved them.
//!
//! The fit is the adaptive design's ([`crate::design::rating::fit`], checked against scipy
//! in `tests/design_fit_reference.rs`), with one match per usable judgment, as the raw
//! ratings count them; its intervals resample exchanges, so the judges of one debate count
//! once.

use serde::Serialize;

use super::ratings::DRAW_MARGIN;
use super::stats::statistic::Statistic;
use crate::design::rating::{ELO_PER_LOGIT, Match, fit};
use crate::domain::{Round, Scores, Team};

/// One model's side-adjusted rating.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideAdjustedRating {
    /// The model.
    pub model: String,
    /// The rating on the Elo scale (1500 the field's mean strength) with the side terms
    /// fitted; its interval resamples exchanges.
    pub rating: Statistic,
}

/// One judge's own side preference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeSide {
    /// The judge (its persona's id when it has one).
    pub judge: String,
    /// Its preference for Team A beyond the common one, in Elo points (shrunk toward the
    /// common one by the fit's prior, so a judge with few judgments shows little).
    pub offset: Statistic,
    /// Usable judgments it gave.
    pub judgments: usize,
}

/// The side-adjusted figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideFigures {
    /// Each model's rating, highest estimate first; empty when nothing can be fitted.
    pub ratings: Vec<SideAdjustedRating>,
    /// Team A's advantage common to every judge, in Elo points (above 0: the presenting
    /// team wins more than the strengths alone say).
    pub team_a_advantage: Statistic,
    /// Each judge's own side preference; empty with a single judge, whose preference is
    /// the common one.
    pub judges: Vec<JudgeSide>,
}

/// One exchange's matches: one per usable judgment (model and judge indices).
type Exchange = Vec<Match>;

/// The side-adjusted ratings of the Ethics Bowl rounds `rounds`: self-play rounds and
/// judgments without both totals are left out, as the raw ratings leave them out.
pub fn side_figures(rounds: &[Round]) -> SideFigures {
    let mut models: Vec<String> = Vec::new();
    let mut judges: Vec<String> = Vec::new();
    let index = |names: &mut Vec<String>, name: &str| {
        names.iter().position(|x| x == name).unwrap_or_else(|| {
            names.push(name.to_string());
            names.len() - 1
        })
    };
    let mut exchanges: Vec<Exchange> = Vec::new();
    for r in rounds.iter().filter(|r| r.team_a_model != r.team_b_model) {
        let mut exchange = Vec::new();
        for j in r.judgments.iter().filter(|j| j.is_usable()) {
            let (Some(a), Some(b)) = (
                j.scores(Team::A).and_then(Scores::total),
                j.scores(Team::B).and_then(Scores::total),
            ) else {
                continue;
            };
            let score = if (a - b).abs() < DRAW_MARGIN {
                0.5
            } else if a > b {
                1.0
            } else {
                0.0
            };
            exchange.push(Match {
                team_a: index(&mut models, &r.team_a_model),
                team_b: index(&mut models, &r.team_b_model),
                score,
                judge: Some(index(&mut judges, j.judge_key())),
            });
        }
        if !exchange.is_empty() {
            exchanges.push(exchange);
        }
    }
    // One judge's own preference is the common one: with no other judge to set it against,
    // the split between the two would be the priors', not the data's.
    if judges.len() < 2 {
        judges.clear();
        for x in exchanges.iter_mut().flatten() {
            x.judge = None;
        }
    }
    let (m, k) = (models.len(), judges.len());
    if exchanges.is_empty() {
        return SideFigures {
            ratings: Vec::new(),
            team_a_advantage: Statistic::without_interval(None, 0),
            judges: Vec::new(),
        };
    }
    // Every term on the Elo scale: the strengths centred on their mean (as the raw ratings
    // centre theirs), then the common side term, then each judge's offset.
    let terms = |draw: &[usize]| -> Option<Vec<f64>> {
        let matches: Vec<Match> = draw
            .iter()
            .flat_map(|&e| exchanges[e].iter().copied())
            .collect();
        let f = fit(m, k, &matches);
        let mean = f.strength.iter().sum::<f64>() / m as f64;
        let mut out: Vec<f64> = f
            .strength
            .iter()
            .map(|s| 1500.0 + ELO_PER_LOGIT * (s - mean))
            .collect();
        out.push(ELO_PER_LOGIT * f.side);
        out.extend(f.judge_side.iter().map(|o| ELO_PER_LOGIT * o));
        out.iter().all(|v| v.is_finite()).then_some(out)
    };
    let mut stats = Statistic::bootstrap_many(exchanges.len(), m + 1 + k, terms).into_iter();
    let mut ratings: Vec<SideAdjustedRating> = models
        .into_iter()
        .zip(stats.by_ref())
        .map(|(model, rating)| SideAdjustedRating { model, rating })
        .collect();
    ratings.sort_by(|a, b| {
        b.rating
            .value
            .unwrap_or(f64::NEG_INFINITY)
            .total_cmp(&a.rating.value.unwrap_or(f64::NEG_INFINITY))
    });
    let team_a_advantage = stats
        .next()
        .unwrap_or_else(|| Statistic::without_interval(None, exchanges.len()));
    let judgments = |judge: usize| {
        exchanges
            .iter()
            .flatten()
            .filter(|x| x.judge == Some(judge))
            .count()
    };
    let judges = judges
        .into_iter()
        .zip(stats)
        .enumerate()
        .map(|(i, (judge, offset))| JudgeSide {
            judge,
            offset,
            judgments: judgments(i),
        })
        .collect();
    SideFigures {
        ratings,
        team_a_advantage,
        judges,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tables::fixtures::{judgment, round as judged};

    /// A round of `a` against `b` that `judge` gives to Team A (or to Team B).
    fn round(id: usize, a: &str, b: &str, judge: &str, a_wins: bool) -> Round {
        let (ta, tb) = if a_wins { (8.0, 5.0) } else { (5.0, 8.0) };
        judged(
            &format!("r{id}"),
            "d1",
            a,
            b,
            vec![judgment(judge, Scores::uniform(ta), Scores::uniform(tb))],
        )
    }

    #[test]
    fn a_side_bias_in_an_unbalanced_schedule_moves_the_raw_ratings_not_these() {
        // Equal models; judge "j" gives Team A four rounds of five. "x" presents 20 times
        // and "y" 10: the raw ratings put x ahead (it wins 18 of 30), the side terms take
        // the difference.
        let mut rounds = Vec::new();
        for i in 0..30 {
            let (a, b) = if i < 20 { ("x", "y") } else { ("y", "x") };
            rounds.push(round(i, a, b, "j", i % 5 != 4));
        }
        let raw = crate::analysis::ratings::ratings(&rounds);
        let raw_x = raw
            .overall
            .iter()
            .find(|r| r.entrant == "x")
            .unwrap()
            .rating;
        let raw_y = raw
            .overall
            .iter()
            .find(|r| r.entrant == "y")
            .unwrap()
            .rating;
        assert!(raw_x - raw_y > 50.0, "{raw_x} {raw_y}");
        let s = side_figures(&rounds);
        let x = s.ratings.iter().find(|r| r.model == "x").unwrap();
        let y = s.ratings.iter().find(|r| r.model == "y").unwrap();
        let gap = x.rating.value.unwrap() - y.rating.value.unwrap();
        assert!(gap.abs() < (raw_x - raw_y) / 5.0, "{gap} {raw_x} {raw_y}");
        let advantage = s.team_a_advantage.value.unwrap();
        assert!(advantage > 150.0, "{advantage}");
        assert_eq!(s.team_a_advantage.n, 30);
        assert!(s.team_a_advantage.low.unwrap() <= advantage);
        assert!(
            s.judges.is_empty(),
            "one judge's preference is the common one"
        );
    }

    #[test]
    fn each_judges_own_preference_beyond_the_common_one() {
        // Equal models in both orders; "keen" gives Team A every round, "fair" one in two.
        let mut rounds = Vec::new();
        for i in 0..40 {
            let (a, b) = if i % 2 == 0 { ("x", "y") } else { ("y", "x") };
            let (judge, a_wins) = if i < 20 {
                ("keen", true)
            } else {
                ("fair", i % 4 < 2)
            };
            rounds.push(round(i, a, b, judge, a_wins));
        }
        let s = side_figures(&rounds);
        let offset = |name: &str| {
            let j = s.judges.iter().find(|j| j.judge == name).unwrap();
            assert_eq!(j.judgments, 20);
            j.offset.value.unwrap()
        };
        assert!(offset("keen") > offset("fair") + 100.0, "{s:?}");
        let gap = s.ratings[0].rating.value.unwrap() - s.ratings[1].rating.value.unwrap();
        assert!(gap.abs() < 5.0, "{gap}");
    }

    #[test]
    fn nothing_to_fit_says_so() {
        let s = side_figures(&[]);
        assert!(s.ratings.is_empty());
        assert_eq!(s.team_a_advantage.value, None);
    }
}
