//! Length, the bias judges are best known for: how a team's text length goes with its
//! score within each role, and a length-controlled rating beside the raw one. The control
//! follows AlpacaEval's length-controlled win rate (Dubois et al. 2024): the match outcome
//! is modelled with a term for the length difference as well as the two entrants, and the
//! rating is read with that difference set to zero. Lengths are standardised within each
//! role first, since the presenting team writes three phases and the responding team two:
//! a raw difference would stand for the side, not the verbosity.

use std::collections::BTreeMap;

use serde::Serialize;

use super::ratings::DRAW_MARGIN;
use super::stats::least_squares::Normal;
use super::stats::statistic::Statistic;
use super::stats::{mean, pearson, std_dev};
use crate::domain::{PhaseType, Round, Scores, Team};

/// How a team's length goes with its total in one role.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoleLength {
    /// `presenting` (Team A) or `responding` (Team B).
    pub role: &'static str,
    /// Pearson's r between the team's text length and its total over every usable
    /// judgment, its interval resampling exchanges (n counts them).
    pub correlation: Statistic,
    /// Judgments behind it.
    pub judgments: usize,
}

/// One model's length-controlled rating.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ControlledRating {
    /// The model.
    pub model: String,
    /// The rating on the Elo scale (1500 is the field's average), read at equal length;
    /// its interval resamples exchanges.
    pub rating: Statistic,
}

/// The length figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LengthFigures {
    /// Within each role.
    pub by_role: Vec<RoleLength>,
    /// Each model's rating with the length difference controlled, in the order of the
    /// estimate (highest first); empty when it cannot be fitted.
    pub controlled: Vec<ControlledRating>,
    /// The odds ratio of winning for a team whose length exceeds its opponent's by one
    /// standard deviation of the difference of role-standardised lengths, against equal
    /// length: above 1, judges reward length.
    pub length_odds: Statistic,
}

/// Characters a team wrote in a round: its own phases.
pub fn team_length(r: &Round, team: Team) -> usize {
    let phases: &[PhaseType] = match team {
        Team::A => &[
            PhaseType::Presentation,
            PhaseType::Rebuttal,
            PhaseType::ConsistencyTest,
        ],
        Team::B => &[PhaseType::Response, PhaseType::ConsistencyTestB],
    };
    r.phases
        .iter()
        .filter(|p| phases.contains(&p.phase_type))
        .map(|p| p.response.chars().count())
        .sum()
}

/// One usable judgment of an exchange with both teams' totals.
#[derive(Debug, Clone, Copy)]
struct Judged {
    a: usize,
    b: usize,
    total_a: f64,
    total_b: f64,
}

/// One exchange: its teams' lengths and its judgments.
#[derive(Debug, Clone)]
struct Exchange {
    length_a: f64,
    length_b: f64,
    judged: Vec<Judged>,
}

/// The length figures of Ethics Bowl rounds.
pub fn length_figures(rounds: &[Round]) -> LengthFigures {
    let mut models: Vec<String> = Vec::new();
    let mut index = |m: &str| {
        models.iter().position(|x| x == m).unwrap_or_else(|| {
            models.push(m.to_string());
            models.len() - 1
        })
    };
    let mut exchanges = Vec::new();
    for r in rounds {
        let totals: Vec<(f64, f64)> = r
            .judgments
            .iter()
            .filter(|j| j.is_usable())
            .filter_map(|j| {
                Some((
                    j.scores(Team::A).and_then(Scores::total)?,
                    j.scores(Team::B).and_then(Scores::total)?,
                ))
            })
            .collect();
        if totals.is_empty() {
            // A model is indexed only once it has a judged round: one with none would be a
            // column of zeros the fit cannot solve.
            continue;
        }
        let (a, b) = (index(&r.team_a_model), index(&r.team_b_model));
        let judged: Vec<Judged> = totals
            .into_iter()
            .map(|(total_a, total_b)| Judged {
                a,
                b,
                total_a,
                total_b,
            })
            .collect();
        {
            exchanges.push(Exchange {
                length_a: team_length(r, Team::A) as f64,
                length_b: team_length(r, Team::B) as f64,
                judged,
            });
        }
    }
    let by_role = [("presenting", Team::A), ("responding", Team::B)]
        .into_iter()
        .map(|(role, team)| role_length(&exchanges, role, team))
        .collect();
    let (controlled, length_odds) = controlled(&exchanges, &models);
    LengthFigures {
        by_role,
        controlled,
        length_odds,
    }
}

fn role_length(exchanges: &[Exchange], role: &'static str, team: Team) -> RoleLength {
    let pairs = |e: &Exchange| -> Vec<(f64, f64)> {
        e.judged
            .iter()
            .map(|j| match team {
                Team::A => (e.length_a, j.total_a),
                Team::B => (e.length_b, j.total_b),
            })
            .collect()
    };
    let correlation = Statistic::bootstrap(exchanges.len(), |draw| {
        let (x, y): (Vec<f64>, Vec<f64>) = draw.iter().flat_map(|&e| pairs(&exchanges[e])).unzip();
        pearson(&x, &y)
    });
    RoleLength {
        role,
        correlation,
        judgments: exchanges.iter().map(|e| e.judged.len()).sum(),
    }
}

/// The length covariate of each exchange: the teams' lengths standardised within their
/// roles, their difference scaled by its standard deviation and bounded by tanh (as
/// AlpacaEval bounds it, so a few very long texts cannot dominate the fit). None when the
/// lengths do not vary.
fn covariates(exchanges: &[Exchange]) -> Option<Vec<f64>> {
    let standard = |v: Vec<f64>| -> Option<Vec<f64>> {
        let (m, sd) = (mean(&v)?, std_dev(&v)?);
        (sd > 0.0).then(|| v.iter().map(|x| (x - m) / sd).collect())
    };
    let za = standard(exchanges.iter().map(|e| e.length_a).collect())?;
    let zb = standard(exchanges.iter().map(|e| e.length_b).collect())?;
    let diff: Vec<f64> = za.iter().zip(&zb).map(|(a, b)| a - b).collect();
    let sd = std_dev(&diff).filter(|sd| *sd > 0.0)?;
    Some(diff.iter().map(|d| (d / sd).tanh()).collect())
}

/// One exchange as the fit sees it: its entrants, how many judgments, their summed outcome
/// for the first team (a draw is half a win) and the length covariate. The judgments of one
/// exchange share everything but the outcome, so they enter the fit as one weighted row.
type Row = (usize, usize, f64, f64, f64);

/// The length-controlled ratings and the length term's odds, their intervals resampling
/// exchanges.
fn controlled(exchanges: &[Exchange], models: &[String]) -> (Vec<ControlledRating>, Statistic) {
    let none = (
        Vec::new(),
        Statistic::without_interval(None, exchanges.len()),
    );
    let Some(x) = covariates(exchanges) else {
        return none;
    };
    let m = models.len();
    if m < 2 {
        return none;
    }
    let rows: Vec<Option<Row>> = exchanges
        .iter()
        .zip(&x)
        .map(|(e, &x)| {
            let played: Vec<&Judged> = e.judged.iter().filter(|j| j.a != j.b).collect();
            let first = played.first()?;
            let wins: f64 = played.iter().map(|j| outcome(j.total_a - j.total_b)).sum();
            Some((first.a, first.b, played.len() as f64, wins, x))
        })
        .collect();
    let rows_of = |draw: &[usize]| -> Vec<Row> { draw.iter().filter_map(|&e| rows[e]).collect() };
    // Each resample starts from the estimate on the data, so it converges in a few steps.
    let all: Vec<usize> = (0..exchanges.len()).collect();
    let Some(start) = fit(m, &rows_of(&all), None) else {
        return none;
    };
    let fit_draw = |draw: &[usize]| -> Option<Vec<f64>> {
        let params = fit(m, &rows_of(draw), Some(&start))?;
        let (theta, beta) = (&params[..m - 1], params[m - 1]);
        // Elo scale, centred on the field's average (the last entrant's θ is 0); the odds
        // for one standard deviation of length difference (tanh(1) on the covariate's
        // scale).
        let centre = theta.iter().sum::<f64>() / m as f64;
        let mut out: Vec<f64> = theta
            .iter()
            .chain([&0.0])
            .map(|t| 1500.0 + 400.0 * (t - centre) / std::f64::consts::LN_10)
            .collect();
        out.push((beta * 1f64.tanh()).exp());
        Some(out)
    };
    let mut stats = Statistic::bootstrap_many(exchanges.len(), m + 1, fit_draw);
    let Some(odds) = stats.pop() else {
        return none;
    };
    let mut controlled: Vec<ControlledRating> = models
        .iter()
        .cloned()
        .zip(stats)
        .filter(|(_, s)| s.value.is_some())
        .map(|(model, rating)| ControlledRating { model, rating })
        .collect();
    controlled.sort_by(|a, b| {
        let v = |c: &ControlledRating| c.rating.value.unwrap_or(f64::NEG_INFINITY);
        v(b).total_cmp(&v(a))
    });
    (controlled, odds)
}

/// A match's outcome for the first team, as the ratings score it: 1 a win, ½ a draw.
fn outcome(margin: f64) -> f64 {
    if margin.abs() < DRAW_MARGIN {
        0.5
    } else if margin > 0.0 {
        1.0
    } else {
        0.0
    }
}

/// Bradley–Terry with a length term, `logit P(first wins) = θₐ − θ_b + β·x`, fitted by
/// Newton's method to rows `(first, second, judgments, summed outcome, x)`, the last
/// entrant's θ fixed at 0: the parameters θ₀ … θ_{m−2}, then β. Like the raw ratings, every
/// pair that met gets one pseudo-draw at equal length, so an unbeaten model has a finite
/// rating. None when the fit does not converge or the design cannot separate the terms.
fn fit(m: usize, rows: &[Row], start: Option<&[f64]>) -> Option<Vec<f64>> {
    let mut met: BTreeMap<(usize, usize), ()> = BTreeMap::new();
    for &(a, b, ..) in rows {
        met.insert((a.min(b), a.max(b)), ());
    }
    let pseudo: Vec<Row> = met.keys().map(|&(a, b)| (a, b, 1.0, 0.5, 0.0)).collect();
    let p = m;
    let mut params = start.map_or_else(|| vec![0.0; p], <[f64]>::to_vec);
    let design = |a: usize, b: usize, x: f64| {
        let mut r = vec![0.0; p];
        if a + 1 < m {
            r[a] += 1.0;
        }
        if b + 1 < m {
            r[b] -= 1.0;
        }
        r[p - 1] = x;
        r
    };
    for _ in 0..100 {
        // Newton's step solves (XᵀWX) δ = Xᵀ(y − k·p): the normal equations of rows scaled
        // by √w with responses (y − k·p)/√w.
        let mut normal = Normal::new(p);
        for &(a, b, k, wins, x) in rows.iter().chain(&pseudo) {
            let r = design(a, b, x);
            let eta: f64 = r.iter().zip(&params).map(|(u, v)| u * v).sum();
            let prob = 1.0 / (1.0 + (-eta).exp());
            let w = (k * prob * (1.0 - prob)).max(1e-12);
            let root = w.sqrt();
            let scaled: Vec<f64> = r.iter().map(|v| v * root).collect();
            normal.add_row(&scaled, (wins - k * prob) / root);
        }
        let step = normal.solve()?;
        let size = step.iter().fold(0.0f64, |acc, v| acc.max(v.abs()));
        if !size.is_finite() {
            return None;
        }
        for (v, d) in params.iter_mut().zip(&step) {
            *v += d;
        }
        if size < 1e-9 {
            return Some(params);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fit_recovers_strengths_and_a_length_effect() {
        // Three entrants, strengths 0.8, 0, −0.8 in log-odds, and a length effect of 1.2:
        // expected outcomes given as fractional scores (the likelihood's fixed point is
        // exact there), many matches so the pseudo-draws hardly shrink the estimates.
        let truth = [0.8, 0.0, -0.8];
        let beta = 1.2;
        let mut rows = Vec::new();
        for (a, b) in [(0, 1), (1, 2), (0, 2), (1, 0), (2, 1), (2, 0)] {
            for x in [-0.9, -0.3, 0.0, 0.3, 0.9] {
                let eta: f64 = truth[a] - truth[b] + beta * x;
                let y = 1.0 / (1.0 + (-eta).exp());
                rows.push((a, b, 200.0, 200.0 * y, x));
            }
        }
        let params = fit(3, &rows, None).unwrap();
        assert!((params[2] - beta).abs() < 0.02, "{params:?}");
        // θ₂ is fixed at 0: θ₀ and θ₁ are differences from it.
        for i in 0..2 {
            assert!(
                (params[i] - (truth[i] - truth[2])).abs() < 0.02,
                "{params:?}"
            );
        }
        let again = fit(3, &rows, Some(&params)).unwrap();
        assert!(params.iter().zip(&again).all(|(a, b)| (a - b).abs() < 1e-6));
        assert_eq!(fit(3, &[], None), None, "no match: nothing to fit");
    }

    #[test]
    fn a_model_with_no_judged_round_does_not_blank_the_others() {
        use crate::analysis::tables::fixtures::{judgment, phase, round};
        use crate::domain::Scores;
        // Twelve judged rounds of x against y in both orders, lengths and scores varying,
        // and one round of x against z that no judge has scored yet.
        // The waiting round comes first, so that z would be indexed before y and its
        // column, all zeros, would make the fit singular.
        let mut rounds = vec![round("waiting", "d", "x", "z", vec![])];
        for i in 0..12u32 {
            let (a, b) = if i % 2 == 0 { ("x", "y") } else { ("y", "x") };
            let (sa, sb) = (5.0 + f64::from(i % 4), 6.0 + f64::from(i % 3));
            let mut r = round(
                &format!("r{i}"),
                "d",
                a,
                b,
                vec![judgment("j", Scores::uniform(sa), Scores::uniform(sb))],
            );
            r.phases.push(phase(
                PhaseType::Presentation,
                a,
                &"word ".repeat(50 + 10 * i as usize),
            ));
            r.phases.push(phase(
                PhaseType::Response,
                b,
                &"word ".repeat(80 - 3 * i as usize),
            ));
            rounds.push(r);
        }
        let f = length_figures(&rounds);
        let models: Vec<&str> = f.controlled.iter().map(|c| c.model.as_str()).collect();
        assert_eq!(models.len(), 2, "{models:?}");
        assert!(!models.contains(&"z"));
        assert!(f.length_odds.value.is_some());
        assert_eq!(f.by_role[0].correlation.n, 12);
    }
}
