//! Judge effects: a linear model of each team's 70-point total with a term for the model,
//! one for the judge and one for the side (Team A or Team B), fitted by least squares. It
//! gives each model's score adjusted for the judges it happened to meet and the side it
//! played, each judge's leniency, and the side effect, under any schedule; a raw mean
//! absorbs whichever judges a schedule gave a model. Intervals resample exchanges (a round's
//! debate), so the several judgments of one exchange never count as independent.
//!
//! The model: `total = μ + model + judge + side·(+½ for Team A, −½ for Team B) + error`,
//! the model and judge terms each summing to zero, so a model's estimate is its points above
//! the average model, a judge's its points above the average judge, and the side effect is
//! Team A minus Team B. A judge scoring its own model is left out (self-preference is
//! reported apart, in the bias checks).

use std::collections::BTreeMap;

use serde::Serialize;

use super::stats::bootstrap::{REPLICATES, SEED, cluster_intervals};
use super::stats::least_squares::Normal;
use crate::domain::{Round, Team};

/// One judge's total for one team of one exchange.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Observation {
    /// The exchange (index into the rounds): the unit resampled.
    pub exchange: usize,
    /// The model playing the team (index into the models).
    pub model: usize,
    /// The judge (index into the judges).
    pub judge: usize,
    /// Whether the team is Team A.
    pub team_a: bool,
    /// The team's total.
    pub total: f64,
}

/// The point estimates of one fit, in points of the 70-point total.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    /// Each model's effect, summing to zero.
    pub models: Vec<f64>,
    /// Each judge's leniency, summing to zero (empty with one judge: there is no one to be
    /// lenient against).
    pub judges: Vec<f64>,
    /// Team A minus Team B.
    pub side: f64,
}

/// The columns of one observation: intercept, models but the last, judges but the last
/// (when there are two or more), side. The last level of a factor is minus the sum of the
/// others (deviation coding), so the factor's effects sum to zero.
fn row(o: &Observation, models: usize, judges: usize) -> Vec<f64> {
    let mut r = Vec::with_capacity(models + judges + 1);
    r.push(1.0);
    let coded = |level: usize, levels: usize, r: &mut Vec<f64>| {
        for k in 0..levels - 1 {
            r.push(if level == k {
                1.0
            } else if level == levels - 1 {
                -1.0
            } else {
                0.0
            });
        }
    };
    coded(o.model, models, &mut r);
    if judges >= 2 {
        coded(o.judge, judges, &mut r);
    }
    r.push(if o.team_a { 0.5 } else { -0.5 });
    r
}

/// Fits the model to these observations of `models` models and `judges` judges; none when
/// some model or judge has no observation or the data cannot separate the terms.
pub fn fit(obs: &[Observation], models: usize, judges: usize) -> Option<Fit> {
    if models < 2 || judges == 0 {
        return None;
    }
    let mut seen_m = vec![false; models];
    let mut seen_j = vec![false; judges];
    for o in obs {
        *seen_m.get_mut(o.model)? = true;
        *seen_j.get_mut(o.judge)? = true;
    }
    if seen_m.contains(&false) || seen_j.contains(&false) {
        return None;
    }
    let mut normal = Normal::new(columns(models, judges));
    for o in obs {
        normal.add_row(&row(o, models, judges), o.total);
    }
    solved(&normal, models, judges)
}

/// The columns of the model's design.
fn columns(models: usize, judges: usize) -> usize {
    1 + (models - 1) + judges.saturating_sub(1) + 1
}

/// The fit of solved normal equations: the coefficients expanded so that each factor's
/// effects sum to zero.
fn solved(normal: &Normal, models: usize, judges: usize) -> Option<Fit> {
    let b = normal.solve()?;
    let expand = |coefs: &[f64]| {
        let mut v = coefs.to_vec();
        v.push(-coefs.iter().sum::<f64>());
        v
    };
    let models_end = models;
    let judges_end = if judges >= 2 {
        models_end + judges - 1
    } else {
        models_end
    };
    Some(Fit {
        models: expand(&b[1..models_end]),
        judges: if judges >= 2 {
            expand(&b[models_end..judges_end])
        } else {
            Vec::new()
        },
        side: b[judges_end],
    })
}

/// An estimate with its 95% interval and the units behind it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    /// Points of the 70-point total.
    pub estimate: f64,
    /// Lower end of the 95% interval (exchanges resampled); none when it cannot be drawn.
    pub low: Option<f64>,
    /// Upper end.
    pub high: Option<f64>,
    /// Exchanges behind it: the unit of replication.
    pub n: usize,
    /// Judgments behind it (several judges of one exchange are several judgments).
    pub judgments: usize,
}

/// A model's adjusted score.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelEffect {
    /// The model.
    pub model: String,
    /// Its estimate.
    #[serde(flatten)]
    pub effect: Estimate,
    /// Its raw mean over the same judgments, as points above the mean of every team's total
    /// (on the estimate's scale): what the schedule's judges and sides leave in it. Its
    /// interval comes from the same resamples of exchanges as the estimate's.
    pub raw: Estimate,
}

/// A judge's leniency.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeEffect {
    /// The judge (its persona on a panel).
    pub judge: String,
    /// Its estimate.
    #[serde(flatten)]
    pub effect: Estimate,
}

/// What `analysis.json` holds under `adjusted`.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Adjusted {
    /// Each model's judge- and side-adjusted score, centred on zero.
    pub models: Vec<ModelEffect>,
    /// Each judge's leniency, centred on zero.
    pub judges: Vec<JudgeEffect>,
    /// Team A minus Team B.
    pub side: Option<Estimate>,
    /// Judgments left out because the judge scored its own model.
    pub self_judgments_left_out: usize,
    /// Why there is no fit, when there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_computed: Option<String>,
}

/// The observations of the Ethics Bowl's rounds: both teams' totals of every usable
/// judgment (Team A's, then Team B's), self-judgments left out; with the models' and judges'
/// names, and the number of self-judgments. Public for studies of the intervals (the
/// coverage benchmark refits them with each judgment as its own unit).
pub fn observations(rounds: &[Round]) -> (Vec<Observation>, Vec<String>, Vec<String>, usize) {
    let mut models: BTreeMap<&str, usize> = BTreeMap::new();
    let mut judges: BTreeMap<&str, usize> = BTreeMap::new();
    let mut raw = Vec::new();
    let mut own = 0;
    for (exchange, r) in rounds.iter().enumerate() {
        for j in &r.judgments {
            if !j.is_usable() {
                continue;
            }
            let (Some(a), Some(b)) = (
                j.scores(Team::A).and_then(|s| s.total()),
                j.scores(Team::B).and_then(|s| s.total()),
            ) else {
                continue;
            };
            if j.judge_model == r.team_a_model || j.judge_model == r.team_b_model {
                own += 1;
                continue;
            }
            models.insert(&r.team_a_model, 0);
            models.insert(&r.team_b_model, 0);
            judges.insert(j.judge_key(), 0);
            raw.push((
                exchange,
                r.team_a_model.as_str(),
                r.team_b_model.as_str(),
                j.judge_key(),
                a,
                b,
            ));
        }
    }
    for (i, v) in models.values_mut().enumerate() {
        *v = i;
    }
    for (i, v) in judges.values_mut().enumerate() {
        *v = i;
    }
    let mut obs = Vec::with_capacity(raw.len() * 2);
    for (exchange, ma, mb, judge, a, b) in raw {
        let judge = judges[judge];
        obs.push(Observation {
            exchange,
            model: models[ma],
            judge,
            team_a: true,
            total: a,
        });
        obs.push(Observation {
            exchange,
            model: models[mb],
            judge,
            team_a: false,
            total: b,
        });
    }
    (
        obs,
        models.keys().map(|m| m.to_string()).collect(),
        judges.keys().map(|j| j.to_string()).collect(),
        own,
    )
}

/// One exchange's part of the fit, summed once: a resample adds it up as often as it drew
/// the exchange.
struct ExchangeSums {
    /// Its observations' normal equations.
    normal: Normal,
    /// Each observation's model, judge and total, in order.
    models: Vec<usize>,
    judges: Vec<usize>,
    totals: Vec<f64>,
}

/// The judge effects of Ethics Bowl rounds, with intervals from resampling exchanges.
pub fn adjusted(rounds: &[Round]) -> Adjusted {
    let (obs, models, judges, own) = observations(rounds);
    effects(&obs, &models, &judges, own)
}

/// The judge effects of these observations (their models and judges indices into `models`
/// and `judges`), with intervals from resampling their exchanges; `own` self-judgments were
/// left out before.
pub fn effects(obs: &[Observation], models: &[String], judges: &[String], own: usize) -> Adjusted {
    let not = |why: &str| Adjusted {
        self_judgments_left_out: own,
        not_computed: Some(why.into()),
        ..Adjusted::default()
    };
    if models.len() < 2 {
        return not("needs judged rounds of two models or more");
    }
    let Some(point) = fit(obs, models.len(), judges.len()) else {
        return not(
            "the judged rounds cannot tell the models, the judges and the sides apart (a model met only \
             judges no other model met, or always played the same side); judge with more judges or \
             `judging = \"all\"`, and let every model play both sides",
        );
    };
    // Each exchange's normal equations and the models and judges in it, summed once: a
    // resample adds them up as often as it drew the exchange.
    let mut by_exchange: BTreeMap<usize, Vec<Observation>> = BTreeMap::new();
    for o in obs {
        by_exchange.entry(o.exchange).or_default().push(*o);
    }
    let p = columns(models.len(), judges.len());
    let clusters: Vec<ExchangeSums> = by_exchange
        .into_values()
        .map(|cluster| {
            let mut normal = Normal::new(p);
            for o in &cluster {
                normal.add_row(&row(o, models.len(), judges.len()), o.total);
            }
            ExchangeSums {
                normal,
                models: cluster.iter().map(|o| o.model).collect(),
                judges: cluster.iter().map(|o| o.judge).collect(),
                totals: cluster.iter().map(|o| o.total).collect(),
            }
        })
        .collect();
    let flat = |f: &Fit| {
        let mut v = f.models.clone();
        v.extend(&f.judges);
        v.push(f.side);
        v
    };
    let intervals = cluster_intervals(clusters.len(), REPLICATES, SEED, |draw| {
        let mut times = vec![0usize; clusters.len()];
        for &c in draw {
            times[c] += 1;
        }
        let (mut seen_m, mut seen_j) = (vec![false; models.len()], vec![false; judges.len()]);
        let mut normal = Normal::new(p);
        // Each model's raw total and count in this resample, for its raw mean's interval.
        let mut sums = vec![(0.0, 0usize); models.len()];
        for (cluster, &t) in clusters.iter().zip(&times) {
            if t > 0 {
                normal.add(&cluster.normal, t);
                cluster.models.iter().for_each(|&m| seen_m[m] = true);
                cluster.judges.iter().for_each(|&j| seen_j[j] = true);
                for (&m, total) in cluster.models.iter().zip(&cluster.totals) {
                    sums[m].0 += total * t as f64;
                    sums[m].1 += t;
                }
            }
        }
        if seen_m.contains(&false) || seen_j.contains(&false) {
            return None;
        }
        let means: Vec<f64> = sums.iter().map(|(s, c)| s / *c as f64).collect();
        let grand = means.iter().sum::<f64>() / means.len() as f64;
        solved(&normal, models.len(), judges.len()).map(|f| {
            let mut v = flat(&f);
            v.extend(means.iter().map(|m| m - grand));
            v
        })
    });
    let interval = |i: usize| intervals.as_ref().and_then(|v| v.get(i).copied().flatten());
    let units = |keep: &dyn Fn(&Observation) -> bool| {
        let mut ex: Vec<usize> = obs.iter().filter(|o| keep(o)).map(|o| o.exchange).collect();
        let judgments = ex.len();
        ex.sort_unstable();
        ex.dedup();
        (ex.len(), judgments)
    };
    let estimate = |value: f64, i: usize, keep: &dyn Fn(&Observation) -> bool, per: usize| {
        let (n, observations) = units(keep);
        let ci = interval(i);
        Estimate {
            estimate: value,
            low: ci.map(|c| c.0),
            high: ci.map(|c| c.1),
            n,
            judgments: observations / per,
        }
    };
    let raw_mean = |keep: &dyn Fn(&Observation) -> bool| {
        let totals: Vec<f64> = obs.iter().filter(|o| keep(o)).map(|o| o.total).collect();
        totals.iter().sum::<f64>() / totals.len().max(1) as f64
    };
    // The estimates are centred on the average model, each model weighing the same: so is
    // the raw mean's baseline (a mean over observations would weigh the models that played
    // more).
    let grand = (0..models.len())
        .map(|i| raw_mean(&|o| o.model == i))
        .sum::<f64>()
        / models.len() as f64;
    // The raw means' statistics follow the fit's in each resample.
    let raw_at = models.len() + point.judges.len() + 1;
    Adjusted {
        models: models
            .iter()
            .enumerate()
            .map(|(i, m)| ModelEffect {
                model: m.clone(),
                effect: estimate(point.models[i], i, &|o| o.model == i, 1),
                raw: estimate(
                    raw_mean(&|o| o.model == i) - grand,
                    raw_at + i,
                    &|o| o.model == i,
                    1,
                ),
            })
            .collect(),
        judges: point
            .judges
            .iter()
            .enumerate()
            .map(|(i, v)| JudgeEffect {
                judge: judges[i].clone(),
                effect: estimate(*v, models.len() + i, &|o| o.judge == i, 2),
            })
            .collect(),
        side: Some(estimate(
            point.side,
            models.len() + point.judges.len(),
            &|_| true,
            2,
        )),
        self_judgments_left_out: own,
        not_computed: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Totals made exactly by the model: the fit recovers the terms.
    #[test]
    fn the_fit_recovers_known_effects() {
        let model = [3.0, -1.0, -2.0];
        let judge = [1.5, -1.5];
        let side = 2.0;
        let mut obs = Vec::new();
        let mut exchange = 0;
        for a in 0..3 {
            for b in 0..3 {
                if a == b {
                    continue;
                }
                for (j, lenient) in judge.iter().enumerate() {
                    for (m, team_a) in [(a, true), (b, false)] {
                        let s = if team_a { 0.5 } else { -0.5 };
                        obs.push(Observation {
                            exchange,
                            model: m,
                            judge: j,
                            team_a,
                            total: 50.0 + model[m] + lenient + side * s,
                        });
                    }
                    exchange += 1;
                }
            }
        }
        let f = fit(&obs, 3, 2).unwrap();
        for (got, want) in f.models.iter().zip(model) {
            assert!((got - want).abs() < 1e-9, "{f:?}");
        }
        for (got, want) in f.judges.iter().zip(judge) {
            assert!((got - want).abs() < 1e-9, "{f:?}");
        }
        assert!((f.side - side).abs() < 1e-9);
        assert_eq!(fit(&obs, 4, 2), None, "a model never observed");
    }
}
