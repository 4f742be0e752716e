//! The other protocols' comparisons in people's terms, as [`super::calibrated`] gives the
//! Ethics Bowl's model means: a rate the model judges give on every round, corrected by how
//! people and the judges differed on the rounds people judged (prediction-powered
//! inference, power-tuned as [`crate::analysis::stats::ppi`], with a cluster-robust
//! interval).
//!
//! - the question-answer debate: the judges' accuracy per format (the share of rounds whose
//!   right answer is chosen), and each debater's win rate in debates (the share of rounds
//!   whose judge chose its answer); a round's items repeat across rounds, so the interval
//!   counts items, as the protocol's own figures do;
//! - the structured debate: each model's win rate (a win 1, a tie a half), counting rounds
//!   as the protocol's own figures do.
//!
//! In each round, the judges' value is the mean over its usable judgments and people's the
//! mean over the people who judged it.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::reading::{Reading, verdict};
use crate::analysis::stats::bootstrap::MIN_CLUSTERS;
use crate::analysis::stats::clustered::{ClusteredMean, clustered_mean};
use crate::analysis::stats::ppi::{PpiMean, ppi_mean};
use crate::domain::{Label, ProtocolKind, QaFormat, Round, Team};

/// The two-sided 95% normal quantile.
const Z: f64 = 1.959_963_984_540_054;

/// One rate in people's terms.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CalibratedRate {
    /// The protocol it belongs to.
    pub protocol: ProtocolKind,
    /// What is measured: `accuracy` (question-answer, per format) or `win rate` (per model).
    pub measure: &'static str,
    /// The format (`debate`, `consultancy`, …) or the model.
    pub subject: String,
    /// The unit of replication its intervals count: `items` or `rounds`.
    pub units: &'static str,
    /// The judges' rate over every round, with its interval (n: rounds, clusters: units).
    pub judges: ClusteredMean,
    /// The rate people would give, with its interval; `labelled` counts the units people
    /// judged a round of, `unlabelled` the units only the judges scored.
    pub people: PpiMean,
}

/// One round's value for one subject: the cluster it belongs to, the judges' mean, and
/// people's mean where people judged it.
#[derive(Debug, Clone, PartialEq)]
pub struct Unit {
    /// The cluster (an item, or the round itself), as an index.
    pub cluster: usize,
    /// The judges' value.
    pub judges: f64,
    /// People's value, when people judged the round.
    pub people: Option<f64>,
}

/// The prediction-powered mean of `units`, its interval cluster-robust: each cluster's
/// contribution to the labelled and the unlabelled means summed before squaring (with one
/// round per cluster this is [`ppi_mean`]'s interval). The tuning (lambda) is
/// [`ppi_mean`]'s. None with fewer than two labelled clusters.
pub fn clustered_ppi(units: &[Unit]) -> Option<PpiMean> {
    let labelled: Vec<(usize, f64, f64)> = units
        .iter()
        .filter_map(|u| Some((u.cluster, u.people?, u.judges)))
        .collect();
    let unlabelled: Vec<(usize, f64)> = units
        .iter()
        .filter(|u| u.people.is_none())
        .map(|u| (u.cluster, u.judges))
        .collect();
    let labelled_clusters: BTreeSet<usize> = labelled.iter().map(|l| l.0).collect();
    if labelled_clusters.len() < 2 {
        return None;
    }
    let pairs: Vec<(f64, f64)> = labelled.iter().map(|l| (l.1, l.2)).collect();
    let fs: Vec<f64> = unlabelled.iter().map(|u| u.1).collect();
    let lambda = ppi_mean(&pairs, &fs)?.lambda;
    let (n, big_n) = (labelled.len() as f64, unlabelled.len() as f64);
    let rect: Vec<f64> = labelled.iter().map(|l| l.1 - lambda * l.2).collect();
    let m_rect = rect.iter().sum::<f64>() / n;
    let m_f = if fs.is_empty() {
        0.0
    } else {
        fs.iter().sum::<f64>() / big_n
    };
    let estimate = lambda * m_f + m_rect;
    // Each cluster's share of the estimate's deviation.
    let mut share: BTreeMap<usize, f64> = BTreeMap::new();
    for (l, r) in labelled.iter().zip(&rect) {
        *share.entry(l.0).or_default() += (r - m_rect) / n;
    }
    for (c, f) in &unlabelled {
        *share.entry(*c).or_default() += lambda * (f - m_f) / big_n;
    }
    // The small-sample correction of a cluster-robust variance, G/(G − 1) over G clusters.
    let g = share.len() as f64;
    let se = (share.values().map(|s| s * s).sum::<f64>() * g / (g - 1.0)).sqrt();
    // Student's t over the labelled clusters, as a clustered mean's interval takes it.
    let q = t975(labelled_clusters.len() - 1).unwrap_or(Z);
    let interval = (labelled_clusters.len() >= MIN_CLUSTERS && se.is_finite())
        .then_some((estimate - q * se, estimate + q * se));
    let all_clusters: BTreeSet<usize> = units.iter().map(|u| u.cluster).collect();
    Some(PpiMean {
        estimate,
        low: interval.map(|i| i.0),
        high: interval.map(|i| i.1),
        labelled: labelled_clusters.len(),
        unlabelled: all_clusters.difference(&labelled_clusters).count(),
        lambda,
    })
}

/// The 97.5% quantile of Student's t with `df` degrees of freedom.
fn t975(df: usize) -> Option<f64> {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    let t = StudentsT::new(0.0, 1.0, df as f64).ok()?;
    Some(t.inverse_cdf(0.975)).filter(|q| q.is_finite())
}

/// What the people who judged a round said, by annotator.
pub type People<'a> = BTreeMap<&'a str, &'a Reading>;

/// The question-answer and structured-debate rates in people's terms, and for each rate
/// that cannot be given, why.
pub fn calibrated_rates(
    rounds: &[Round],
    people: &BTreeMap<&str, People<'_>>,
) -> (Vec<CalibratedRate>, Vec<String>) {
    // (protocol, measure, subject, units) → units' values.
    let mut gathered: BTreeMap<(ProtocolKind, &'static str, String, &'static str), Vec<Unit>> =
        BTreeMap::new();
    let mut clusters: BTreeMap<String, usize> = BTreeMap::new();
    let mut cluster_of = |name: &str| {
        let next = clusters.len();
        *clusters.entry(name.to_string()).or_insert(next)
    };
    for round in rounds {
        let judges: Vec<Reading> = round
            .judgments
            .iter()
            .filter_map(Reading::of_judgment)
            .collect();
        if judges.is_empty() {
            continue;
        }
        let here: Vec<&Reading> = people
            .get(round.id.as_str())
            .map(|m| m.values().copied().collect())
            .unwrap_or_default();
        let mean_of = |readings: &[&Reading], value: &dyn Fn(&Reading) -> Option<f64>| {
            let values: Vec<f64> = readings.iter().filter_map(|r| value(r)).collect();
            (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
        };
        let judge_refs: Vec<&Reading> = judges.iter().collect();
        let mut add = |key: (ProtocolKind, &'static str, String, &'static str),
                       cluster: usize,
                       value: &dyn Fn(&Reading) -> Option<f64>| {
            if let Some(j) = mean_of(&judge_refs, value) {
                gathered.entry(key).or_default().push(Unit {
                    cluster,
                    judges: j,
                    people: mean_of(&here, value),
                });
            }
        };
        if let Some(setup) = round.qa() {
            let cluster = cluster_of(&format!("item {}", setup.item_id));
            let format = setup.format;
            let correct = |r: &Reading| -> Option<f64> {
                let v = r.verdict?;
                let right = if v >= verdict::LABEL {
                    let at = usize::try_from(v - verdict::LABEL).ok()?;
                    *Label::ALL.get(at)? == setup.label
                } else {
                    let side = if v == verdict::A { Team::A } else { Team::B };
                    setup.assignment.correct_side? == side
                };
                Some(f64::from(u8::from(right)))
            };
            add(
                (
                    ProtocolKind::QaDebate,
                    "accuracy",
                    format.as_str().to_string(),
                    "items",
                ),
                cluster,
                &correct,
            );
            if format == QaFormat::Debate {
                for (team, model) in [
                    (Team::A, &round.team_a_model),
                    (Team::B, &round.team_b_model),
                ] {
                    let code = if team == Team::A {
                        verdict::A
                    } else {
                        verdict::B
                    };
                    let chose = move |r: &Reading| -> Option<f64> {
                        let v = r.verdict.filter(|v| *v < verdict::LABEL)?;
                        Some(f64::from(u8::from(v == code)))
                    };
                    add(
                        (ProtocolKind::QaDebate, "win rate", model.clone(), "items"),
                        cluster,
                        &chose,
                    );
                }
            }
        } else if round.structured().is_some() {
            let cluster = cluster_of(&format!("round {}", round.id));
            let mut sides = vec![(verdict::A, &round.team_a_model)];
            if round.team_b_model != round.team_a_model {
                sides.push((verdict::B, &round.team_b_model));
            }
            for (code, model) in sides {
                // A self-debate scores the model half a point whoever wins.
                let same = round.team_a_model == round.team_b_model;
                let points = move |r: &Reading| -> Option<f64> {
                    let v = r.verdict?;
                    Some(if same || v == verdict::TIE {
                        0.5
                    } else if v == code {
                        1.0
                    } else {
                        0.0
                    })
                };
                add(
                    (
                        ProtocolKind::StructuredDebate,
                        "win rate",
                        model.clone(),
                        "rounds",
                    ),
                    cluster,
                    &points,
                );
            }
        }
    }
    let mut rates = Vec::new();
    let mut why_not = Vec::new();
    for ((protocol, measure, subject, units), values) in gathered {
        let labelled: BTreeSet<usize> = values
            .iter()
            .filter(|u| u.people.is_some())
            .map(|u| u.cluster)
            .collect();
        if labelled.is_empty() {
            continue;
        }
        let Some(people) = clustered_ppi(&values) else {
            why_not.push(format!(
                "{protocol} {measure} of {subject}: people judged {} of its {units}; a \
                 calibrated estimate needs 2 (an interval {MIN_CLUSTERS})",
                labelled.len()
            ));
            continue;
        };
        let judges = clustered_mean(
            &values
                .iter()
                .map(|u| (u.cluster, u.judges))
                .collect::<Vec<_>>(),
        );
        rates.push(CalibratedRate {
            protocol,
            measure,
            subject,
            units,
            judges,
            people,
        });
    }
    (rates, why_not)
}

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::providers::simulated::truth::qa_right_probability;

    /// With one round per cluster, the estimate is `ppi_mean`'s, and so is the interval's
    /// standard error but for the small-sample corrections (G/(G − 1), and Student's t
    /// over the labelled clusters for the normal quantile).
    #[test]
    fn one_round_per_cluster_is_the_plain_prediction_powered_mean() {
        let units: Vec<Unit> = (0..40)
            .map(|i| Unit {
                cluster: i,
                judges: f64::from(u8::from(i % 3 != 0)),
                people: (i < 15).then(|| f64::from(u8::from(i % 4 != 0))),
            })
            .collect();
        let c = clustered_ppi(&units).unwrap();
        let pairs: Vec<(f64, f64)> = units
            .iter()
            .filter_map(|u| Some((u.people?, u.judges)))
            .collect();
        let rest: Vec<f64> = units
            .iter()
            .filter(|u| u.people.is_none())
            .map(|u| u.judges)
            .collect();
        let p = ppi_mean(&pairs, &rest).unwrap();
        assert!((c.estimate - p.estimate).abs() < 1e-12);
        let corrections = t975(14).unwrap() / Z * (40.0_f64 / 39.0).sqrt();
        let (half, plain) = (c.high.unwrap() - c.estimate, p.high.unwrap() - p.estimate);
        assert!(
            (half / plain - corrections).abs() < 1e-9,
            "{half} against {plain}"
        );
        assert_eq!((c.labelled, c.unlabelled), (15, 25));
        let one = &units[..1];
        assert_eq!(clustered_ppi(one), None);
    }

    /// Against an independent computation (`tests/stats_reference/make_clustered_ppi.py`):
    /// ppi_py's power-tuned lambda and estimate, statsmodels' cluster-robust covariance of
    /// the two means times G/(G − 1), Student's t over the labelled clusters less one.
    #[test]
    fn clustered_ppi_matches_ppi_py_and_statsmodels() {
        let mut units = Vec::new();
        for c in 0..12usize {
            for r in 0..=(c % 3) {
                let labelled = (c < 8 && r == 0) || (c % 2 == 0 && r == 1);
                units.push(Unit {
                    cluster: c,
                    judges: ((7 * c + 3 * r) % 5) as f64 / 4.0,
                    people: labelled.then(|| ((7 * c + 3 * r) % 5 + c % 2) as f64 / 5.0),
                });
            }
        }
        let p = clustered_ppi(&units).unwrap();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(close(p.lambda, 0.383696682464), "{p:?}");
        assert!(close(p.estimate, 0.428056872038), "{p:?}");
        assert!(close(p.low.unwrap(), 0.313837613401), "{p:?}");
        assert!(close(p.high.unwrap(), 0.542276130675), "{p:?}");
        assert_eq!((p.labelled, p.unlabelled), (10, 2));
    }

    /// 300 simulated question-answer tournaments with known truth: 30 items, 4 debate
    /// rounds each, the right debater of skill 0.6 against 0.4, each item easy or hard
    /// (a shift of ±0.8 every round of it shares). The judge leans to the debater read
    /// first (`position_bias` 1.5, the simulator's rule, [`qa_right_probability`]); people
    /// judge 40 of the 120 rounds without that lean. People's accuracy is the mean of
    /// `qa_right_probability(0.6, 0.4, ±0.8)`; the calibrated interval, counting items,
    /// covers it at about the nominal rate (92% here, as people's own clustered mean does
    /// on so few yes-or-no judgments).
    #[test]
    fn the_calibrated_accuracy_covers_the_truth() {
        let truth =
            (qa_right_probability(0.6, 0.4, 0.8) + qa_right_probability(0.6, 0.4, -0.8)) / 2.0;
        let (mut covered, runs) = (0, 400);
        for seed in 0..runs {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut units = Vec::new();
            let labelled: BTreeSet<usize> = {
                let mut all: Vec<usize> = (0..120).collect();
                for i in (1..all.len()).rev() {
                    all.swap(i, rng.random_range(0..=i));
                }
                all.into_iter().take(40).collect()
            };
            for item in 0..30 {
                // The item's own difficulty, shared by its rounds.
                let difficulty = if rng.random::<bool>() { 0.8 } else { -0.8 };
                for k in 0..4 {
                    let round = item * 4 + k;
                    let right_first = k % 2 == 0;
                    let shift = if right_first { 1.5 } else { -1.5 };
                    let judge =
                        rng.random::<f64>() < qa_right_probability(0.6, 0.4, shift + difficulty);
                    let person = labelled.contains(&round).then(|| {
                        let p = qa_right_probability(0.6, 0.4, difficulty);
                        f64::from(u8::from(rng.random::<f64>() < p))
                    });
                    units.push(Unit {
                        cluster: item,
                        judges: f64::from(u8::from(judge)),
                        people: person,
                    });
                }
            }
            let c = clustered_ppi(&units).unwrap();
            covered += usize::from(c.low.unwrap() <= truth && truth <= c.high.unwrap());
        }
        let coverage = covered as f64 / runs as f64;
        assert!((0.91..=0.99).contains(&coverage), "coverage {coverage}");
    }
}
