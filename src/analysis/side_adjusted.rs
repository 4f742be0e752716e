//! The ratings with the side terms a pairwise outcome does not cancel: Bradley–Terry with
//! Team A's advantage and each judge's own side preference, `P(Team A wins) = σ(θ_a − θ_b +
//! h + h_judge)`, as a reviewer of paired comparisons expects (FastChat's Arena analysis
//! fits a home-side term; see `STATISTICS.md`). The raw ratings ([`super::ratings`]) have
//! no side term: in a schedule where every pairing is played in both orders before the same
//! judges the side cancels, but in a subset (an adaptive design, a failed round, a judge
//! rotation that gives one judge one order) it falls on whichever model played Team A more
//! often before the judges who favour Team A.
//!
//! The fit is the adaptive design's ([`crate::design::rating::fit`], checked against scipy
//! in `tests/design_fit_reference.rs`), with one match per usable judgment, as the raw
//! ratings count them; its intervals resample exchanges, so the judges of one debate count
//! once. Its priors shape what is shown: the strengths' (sd 400 Elo points) shrinks a
//! rating toward 1500 where the raw one has only its pseudo-draws, so with few exchanges
//! the two columns differ by more than the side; and the common term and a judge's offset
//! are not identified apart (only their sum is), so each judge is shown by its whole
//! preference, `h + h_judge`, and Team A's advantage as those preferences' mean weighted
//! by the judgments, both of which the data pin down.

use serde::Serialize;

use super::ratings::match_score;
use super::stats::statistic::Statistic;
use crate::design::rating::{ELO_PER_LOGIT, Match, fit, fit_from};
use crate::domain::Round;

/// One model's side-adjusted rating.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideAdjustedRating {
    /// The model.
    pub model: String,
    /// The rating on the Elo scale (1500 the field's mean strength) with the side terms
    /// fitted; its interval resamples exchanges.
    pub rating: Statistic,
}

/// One judge's side preference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeSide {
    /// The judge (its persona's id when it has one).
    pub judge: String,
    /// Its whole preference for Team A, `h + h_judge`, in Elo points; n counts the
    /// exchanges it judged (the interval resamples every exchange).
    pub preference: Statistic,
    /// Usable judgments it gave.
    pub judgments: usize,
}

/// The side-adjusted figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideFigures {
    /// Each model's rating, highest estimate first; empty when nothing can be fitted.
    pub ratings: Vec<SideAdjustedRating>,
    /// Team A's advantage in Elo points (above 0: the presenting team wins more than the
    /// strengths alone say): the judges' preferences' mean weighted by their judgments, or
    /// the common term with a single judge.
    pub team_a_advantage: Statistic,
    /// Each judge's preference; empty with a single judge, whose preference is Team A's
    /// advantage itself.
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
        for j in &r.judgments {
            let Some(score) = match_score(j) else {
                continue;
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
    // centre theirs), Team A's advantage, then each judge's whole preference.
    // Each resample starts from the whole data's fit, which it is close to.
    let whole = {
        let f = fit(m, k, &exchanges.concat());
        let mut terms = f.strength;
        terms.push(f.side);
        terms.extend(f.judge_side);
        terms
    };
    let terms = |draw: &[usize]| -> Option<Vec<f64>> {
        let matches: Vec<Match> = draw
            .iter()
            .flat_map(|&e| exchanges[e].iter().copied())
            .collect();
        let f = fit_from(m, k, &matches, Some(&whole));
        let mean = f.strength.iter().sum::<f64>() / m as f64;
        let mut out: Vec<f64> = f
            .strength
            .iter()
            .map(|s| 1500.0 + ELO_PER_LOGIT * (s - mean))
            .collect();
        let preferences: Vec<f64> = f
            .judge_side
            .iter()
            .map(|o| ELO_PER_LOGIT * (f.side + o))
            .collect();
        let judged: usize = f.judge_matches.iter().sum();
        out.push(if judged == 0 {
            ELO_PER_LOGIT * f.side
        } else {
            preferences
                .iter()
                .zip(&f.judge_matches)
                .map(|(p, n)| p * *n as f64)
                .sum::<f64>()
                / judged as f64
        });
        out.extend(preferences);
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
    let judges = judges
        .into_iter()
        .zip(stats)
        .enumerate()
        .map(|(i, (judge, preference))| {
            let theirs = |x: &Match| x.judge == Some(i);
            JudgeSide {
                judge,
                preference: Statistic {
                    n: exchanges.iter().filter(|e| e.iter().any(theirs)).count(),
                    ..preference
                },
                judgments: exchanges.iter().flatten().filter(|x| theirs(x)).count(),
            }
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
    use crate::domain::Scores;

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
        let raw_of = |name: &str| {
            let found = raw.overall.iter().find(|r| r.entrant == name);
            found.unwrap().rating
        };
        let (raw_x, raw_y) = (raw_of("x"), raw_of("y"));
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
    fn each_judges_preference_is_its_whole_and_the_advantage_their_mean() {
        // Equal models in both orders; "keen" gives Team A four rounds of five, "fair" one
        // in two, each as often with either model as Team A; "keen" judges three rounds for
        // each of "fair"'s.
        let mut rounds = Vec::new();
        for i in 0..80 {
            let (a, b) = if i % 2 == 0 { ("x", "y") } else { ("y", "x") };
            let (judge, a_wins) = if i < 60 {
                ("keen", i % 10 != 0 && i % 10 != 5)
            } else {
                ("fair", i % 4 < 2)
            };
            rounds.push(round(i, a, b, judge, a_wins));
        }
        let s = side_figures(&rounds);
        let judge = |name: &str| s.judges.iter().find(|j| j.judge == name).unwrap();
        let (keen, fair) = (judge("keen"), judge("fair"));
        assert_eq!((keen.judgments, keen.preference.n), (60, 60));
        assert_eq!((fair.judgments, fair.preference.n), (20, 20));
        let (keen, fair) = (
            keen.preference.value.unwrap(),
            fair.preference.value.unwrap(),
        );
        // Four in five is 241 Elo points, one in two none: shrunk toward each other by the
        // offsets' prior, but far apart, and the advantage is their judgments' mean.
        assert!(keen > 150.0 && fair.abs() < 100.0, "{keen} {fair}");
        let advantage = s.team_a_advantage.value.unwrap();
        assert!(
            (advantage - (3.0 * keen + fair) / 4.0).abs() < 1e-9,
            "{advantage}"
        );
        assert_eq!(s.team_a_advantage.n, 80);
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
