//! How far a panel agrees, what it disagrees on, and its weighted aggregate.
//!
//! Agreement is 0.6 × verdict agreement (the share of judges on the most common verdict)
//! plus 0.4 × dimension agreement (per dimension, 1 − range ÷ the scale's range, floored at
//! 0, averaged over the dimensions at least two judges scored). The scale's range comes
//! from the rubric (1–10 gives 9), never a constant. Labels (calls made by name, such as an
//! argument's standing) do not enter the agreement: they are listed as disputes, so judges
//! deliberate on them, and the aggregate settles each by weighted majority.

use std::collections::BTreeMap;

use crate::domain::{Aggregate, Agreement, Disagreement, Evaluation, PanelSeat};

use super::{Rubric, show_score};

const VERDICT_WEIGHT: f64 = 0.6;
const DIMENSION_WEIGHT: f64 = 0.4;

/// One judge's evaluation, named.
pub type Position<'a> = (&'a str, &'a Evaluation);

/// The values given for one call (the verdict, or a label), with how many judges gave each,
/// most common first (ties by name).
fn counts(
    positions: &[Position<'_>],
    value: impl Fn(&Evaluation) -> Option<&String>,
) -> Vec<(String, usize)> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, e) in positions {
        if let Some(v) = value(e) {
            *counts.entry(v).or_default() += 1;
        }
    }
    let mut out: Vec<(String, usize)> = counts
        .into_iter()
        .map(|(v, n)| (v.to_string(), n))
        .collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

fn verdict_counts(positions: &[Position<'_>]) -> Vec<(String, usize)> {
    counts(positions, |e| e.verdict.as_ref())
}

/// A split over named values: severity is the share off the majority ÷ the largest share
/// possible; none when everyone who answered agrees.
fn split(
    subject: &str,
    positions: &[Position<'_>],
    value: impl Fn(&Evaluation) -> Option<&String> + Copy,
) -> Option<Disagreement> {
    let counts = counts(positions, value);
    if counts.len() < 2 {
        return None;
    }
    let n: usize = counts.iter().map(|c| c.1).sum();
    let off = 1.0 - counts[0].1 as f64 / n as f64;
    let max_off = 1.0 - 1.0 / n as f64;
    Some(Disagreement {
        subject: subject.to_string(),
        severity: (off / max_off).min(1.0),
        positions: positions
            .iter()
            .filter_map(|(who, e)| value(e).map(|v| (who.to_string(), v.clone())))
            .collect(),
    })
}

/// Each dimension scored by at least two judges, with the scores given.
fn shared_dimensions<'a>(
    positions: &[Position<'a>],
    rubric: &'a Rubric,
) -> Vec<(&'a str, Vec<(&'a str, f64)>)> {
    rubric
        .dimensions
        .iter()
        .filter_map(|d| {
            let scores: Vec<(&str, f64)> = positions
                .iter()
                .filter_map(|(who, e)| e.scores.get(d).map(|v| (*who, *v)))
                .collect();
            (scores.len() >= 2).then_some((d.as_str(), scores))
        })
        .collect()
}

fn range(scores: &[(&str, f64)]) -> f64 {
    let max = scores.iter().map(|s| s.1).fold(f64::MIN, f64::max);
    let min = scores.iter().map(|s| s.1).fold(f64::MAX, f64::min);
    max - min
}

/// The panel's agreement over these evaluations; `None` with no evaluation at all.
pub fn agreement(positions: &[Position<'_>], rubric: &Rubric) -> Option<Agreement> {
    if positions.is_empty() {
        return None;
    }
    let counts = verdict_counts(positions);
    let with_verdict: usize = counts.iter().map(|c| c.1).sum();
    let verdict = match counts.first() {
        Some((_, top)) => *top as f64 / with_verdict as f64,
        None => 1.0,
    };
    let span = rubric.scale_span();
    let dims = shared_dimensions(positions, rubric);
    let dimension = if dims.is_empty() {
        1.0
    } else {
        dims.iter()
            .map(|(_, s)| (1.0 - range(s) / span).max(0.0))
            .sum::<f64>()
            / dims.len() as f64
    };
    Some(Agreement {
        overall: VERDICT_WEIGHT * verdict + DIMENSION_WEIGHT * dimension,
        verdict,
        dimension,
        judges: positions.len(),
    })
}

/// What the judges disagree on, most severe first: a verdict split and each label split
/// (severity: the share off the majority ÷ the largest such share possible) and each
/// dimension whose gap reaches `gap_threshold` (severity: gap ÷ the scale's range).
pub fn disagreements(
    positions: &[Position<'_>],
    rubric: &Rubric,
    gap_threshold: f64,
) -> Vec<Disagreement> {
    let mut out = Vec::new();
    out.extend(split("verdict", positions, |e| e.verdict.as_ref()));
    let span = rubric.scale_span();
    for (dimension, scores) in shared_dimensions(positions, rubric) {
        let gap = range(&scores);
        if gap >= gap_threshold {
            out.push(Disagreement {
                subject: dimension.to_string(),
                severity: (gap / span).min(1.0),
                positions: scores
                    .iter()
                    .map(|(who, v)| (who.to_string(), show_score(*v)))
                    .collect(),
            });
        }
    }
    for label in &rubric.labels {
        out.extend(split(label, positions, |e| e.labels.get(label)));
    }
    // Stable: equal severities keep the rubric's order, the verdict first.
    out.sort_by(|a, b| b.severity.total_cmp(&a.severity));
    out
}

/// The value with the largest total weight; a level vote gives `level` when there is one,
/// else the value with the larger weighted confidence, else none.
fn weighted_vote(votes: &[(&str, f64, f64)], level: Option<&str>) -> Option<String> {
    let mut weights: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
    for (value, weight, confidence) in votes {
        let slot = weights.entry(value).or_default();
        slot.0 += weight;
        slot.1 += weight * confidence;
    }
    let mut ranked: Vec<(&str, (f64, f64))> = weights.into_iter().collect();
    ranked.sort_by(|a, b| b.1.0.total_cmp(&a.1.0));
    match ranked.as_slice() {
        [] => None,
        [(v, _)] => Some(v.to_string()),
        [(v, (w, c)), (v2, (w2, c2)), ..] => {
            if (w - w2).abs() >= 1e-9 {
                Some(v.to_string())
            } else if let Some(level) = level {
                Some(level.to_string())
            } else if (c - c2).abs() >= 1e-9 {
                Some(if c > c2 { v } else { v2 }.to_string())
            } else {
                None
            }
        }
    }
}

/// Each judge's value for one call, with its weight and confidence.
fn votes<'a>(
    positions: &[(&PanelSeat, &'a Evaluation)],
    value: impl Fn(&'a Evaluation) -> Option<&'a String>,
) -> Vec<(&'a str, f64, f64)> {
    positions
        .iter()
        .filter_map(|(seat, e)| {
            value(e).map(|v| (v.as_str(), seat.weight, e.confidence.unwrap_or(0.0)))
        })
        .collect()
}

/// The weighted aggregate of these evaluations, weights normalised over the judges given:
/// weighted mean scores, the verdict and each label by weighted vote (see
/// [`Rubric::level_verdict`] for a level verdict vote; a level label vote leaves the label
/// out), and the weighted mean confidence.
pub fn aggregate(positions: &[(&PanelSeat, &Evaluation)], rubric: &Rubric) -> Option<Aggregate> {
    if positions.is_empty() {
        return None;
    }
    let mut sums: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    let (mut confidence, mut confidence_weight) = (0.0, 0.0);
    for (seat, e) in positions {
        for (d, v) in &e.scores {
            let slot = sums.entry(d.clone()).or_default();
            slot.0 += seat.weight * v;
            slot.1 += seat.weight;
        }
        if let Some(c) = e.confidence {
            confidence += seat.weight * c;
            confidence_weight += seat.weight;
        }
    }
    let verdict = weighted_vote(
        &votes(positions, |e| e.verdict.as_ref()),
        rubric.level_verdict.as_deref(),
    );
    let labels = rubric
        .labels
        .iter()
        .filter_map(|label| {
            let value = weighted_vote(&votes(positions, |e| e.labels.get(label)), None)?;
            Some((label.clone(), value))
        })
        .collect();
    Some(Aggregate {
        scores: sums
            .into_iter()
            .map(|(d, (sum, weight))| (d, sum / weight))
            .collect(),
        verdict,
        labels,
        confidence: (confidence_weight > 0.0).then(|| confidence / confidence_weight),
        judges: positions.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rubric() -> Rubric {
        Rubric {
            dimensions: vec!["a".into(), "b".into()],
            scale: (1.0, 10.0),
            verdicts: vec!["team_a".into(), "team_b".into(), "tie".into()],
            level_verdict: Some("tie".into()),
            labels: vec!["x.standing".into()],
            criteria: String::new(),
            instructions: String::new(),
            answer_fields: Vec::new(),
            shared: true,
        }
    }

    fn eval(verdict: &str, a: f64, b: f64) -> Evaluation {
        Evaluation {
            scores: [("a".to_string(), a), ("b".to_string(), b)].into(),
            verdict: Some(verdict.into()),
            confidence: Some(0.5),
            ..Default::default()
        }
    }

    fn close(x: f64, y: f64) -> bool {
        (x - y).abs() < 1e-9
    }

    #[test]
    fn full_agreement_is_one() {
        let (e1, e2, e3) = (
            eval("team_a", 7.0, 5.0),
            eval("team_a", 7.0, 5.0),
            eval("team_a", 7.0, 5.0),
        );
        let a = agreement(&[("x", &e1), ("y", &e2), ("z", &e3)], &rubric()).unwrap();
        assert!(close(a.overall, 1.0));
        assert!(disagreements(&[("x", &e1), ("y", &e2)], &rubric(), 1.5).is_empty());
    }

    #[test]
    fn a_two_one_verdict_split_with_identical_scores() {
        let (e1, e2, e3) = (
            eval("team_a", 7.0, 5.0),
            eval("team_a", 7.0, 5.0),
            eval("team_b", 7.0, 5.0),
        );
        let a = agreement(&[("x", &e1), ("y", &e2), ("z", &e3)], &rubric()).unwrap();
        assert!(close(a.overall, 0.6 * 2.0 / 3.0 + 0.4), "{a:?}");
        let d = disagreements(&[("x", &e1), ("y", &e2), ("z", &e3)], &rubric(), 1.5);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].subject, "verdict");
        assert!(close(d[0].severity, 0.5), "{d:?}");
    }

    #[test]
    fn a_full_range_gap_gives_zero_for_that_dimension() {
        let (e1, e2) = (eval("team_a", 1.0, 5.0), eval("team_a", 10.0, 5.0));
        let a = agreement(&[("x", &e1), ("y", &e2)], &rubric()).unwrap();
        // Dimension a: 1 − 9/9 = 0; dimension b: 1.
        assert!(close(a.dimension, 0.5));
        assert!(close(a.overall, 0.6 + 0.4 * 0.5));
    }

    #[test]
    fn the_scale_comes_from_the_rubric() {
        let mut r = rubric();
        r.scale = (0.0, 100.0);
        let (e1, e2) = (eval("team_a", 0.0, 50.0), eval("team_a", 50.0, 50.0));
        let a = agreement(&[("x", &e1), ("y", &e2)], &r).unwrap();
        assert!(close(a.dimension, (0.5 + 1.0) / 2.0));
    }

    #[test]
    fn disagreements_most_severe_first_at_the_threshold() {
        let (e1, e2) = (eval("team_a", 2.0, 5.0), eval("team_b", 8.0, 6.5));
        let d = disagreements(&[("x", &e1), ("y", &e2)], &rubric(), 1.5);
        let subjects: Vec<&str> = d.iter().map(|d| d.subject.as_str()).collect();
        // Verdict split 1–1 (severity 1), a: gap 6 (6/9), b: gap 1.5 (at the threshold).
        assert_eq!(subjects, ["verdict", "a", "b"]);
        assert!(close(d[1].severity, 6.0 / 9.0));
        assert_eq!(
            d[2].positions,
            vec![
                ("x".to_string(), "5".to_string()),
                ("y".into(), "6.5".into())
            ]
        );
        assert!(disagreements(&[("x", &e1), ("y", &e2)], &rubric(), 1.6).len() == 2);
    }

    #[test]
    fn weighted_aggregate_over_those_who_answered() {
        let seat = |w| PanelSeat {
            persona_id: "p".into(),
            model: "m".into(),
            weight: w,
        };
        let (s1, s2) = (seat(1.0), seat(3.0));
        let (e1, e2) = (eval("team_a", 4.0, 8.0), eval("team_b", 8.0, 4.0));
        let a = aggregate(&[(&s1, &e1), (&s2, &e2)], &rubric()).unwrap();
        assert!(close(a.scores["a"], 7.0) && close(a.scores["b"], 5.0));
        assert_eq!(a.verdict.as_deref(), Some("team_b"));
        assert_eq!(a.judges, 2);
        let level = aggregate(&[(&s1, &e1), (&s1, &e2)], &rubric()).unwrap();
        assert_eq!(level.verdict.as_deref(), Some("tie"));
        assert!(aggregate(&[], &rubric()).is_none());
    }

    #[test]
    fn without_a_tie_verdict_confidence_breaks_a_level_vote() {
        let r = Rubric {
            verdicts: vec!["A".into(), "B".into()],
            level_verdict: None,
            ..rubric()
        };
        let seat = PanelSeat {
            persona_id: "p".into(),
            model: "m".into(),
            weight: 1.0,
        };
        let sure = Evaluation {
            confidence: Some(0.9),
            ..eval("B", 5.0, 5.0)
        };
        let a = aggregate(&[(&seat, &eval("A", 5.0, 5.0)), (&seat, &sure)], &r).unwrap();
        assert_eq!(a.verdict.as_deref(), Some("B"));
        let even = aggregate(
            &[(&seat, &eval("A", 5.0, 5.0)), (&seat, &eval("B", 5.0, 5.0))],
            &r,
        );
        assert_eq!(
            even.unwrap().verdict,
            None,
            "a level vote at level confidence"
        );
    }

    #[test]
    fn labels_are_disputed_and_settled_by_weighted_majority() {
        let labelled = |v: &str, standing: &str| Evaluation {
            labels: [("x.standing".to_string(), standing.to_string())].into(),
            ..eval(v, 5.0, 5.0)
        };
        let (e1, e2, e3) = (
            labelled("team_a", "UPHELD"),
            labelled("team_a", "REFUTED"),
            labelled("team_a", "REFUTED"),
        );
        let d = disagreements(&[("x", &e1), ("y", &e2), ("z", &e3)], &rubric(), 1.5);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].subject, "x.standing");
        assert!(close(d[0].severity, 0.5));
        let agreement = agreement(&[("x", &e1), ("y", &e2)], &rubric()).unwrap();
        assert!(
            close(agreement.overall, 1.0),
            "labels stay out of the agreement"
        );
        let heavy = PanelSeat {
            persona_id: "p".into(),
            model: "m".into(),
            weight: 3.0,
        };
        let light = PanelSeat {
            weight: 1.0,
            ..heavy.clone()
        };
        let a = aggregate(&[(&heavy, &e1), (&light, &e2), (&light, &e3)], &rubric()).unwrap();
        assert_eq!(a.labels["x.standing"], "UPHELD");
        let level = aggregate(&[(&light, &e1), (&light, &e2)], &rubric()).unwrap();
        assert!(
            level.labels.is_empty(),
            "a level label vote settles nothing"
        );
    }
}
