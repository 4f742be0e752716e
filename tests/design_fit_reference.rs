//! The adaptive design's rating fit ([`ethics_bowl::design::rating::fit`]) against an
//! independent implementation: the same penalised likelihood, written from its definition
//! and maximised by scipy, on small fixed datasets (ties, a judge with a strong side
//! preference, a model that never loses and one that never wins, rounds with no deciding
//! judge, a judge that decided nothing, unbalanced judge use, no matches at all), recorded in
//! `tests/design_fit_reference/` by `make_reference.py` beside them.
//!
//! Tolerances: scipy's mode has a gradient below 1e-12 and the log posterior's curvature is
//! at least the strengths' prior precision, 1 / ln(10)² ≈ 0.19, so it is within 1e-11 of the
//! true mode; the fit's Newton iterations stop when a step moves no term by more than 1e-10,
//! after quadratic convergence, so it is within about 1e-10. Every estimate and probability
//! must agree within 1e-8 (a hundred times what either can be off by), and every covariance
//! (the inverse of the curvature, whose terms are at most ln(10)² ≈ 5.3 and change smoothly
//! with the mode) within 1e-8 too. Any prior's standard deviation off by 1% moves some of
//! them by 5e-5 or more.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::collections::BTreeMap;

use ethics_bowl::design::rating::{Fit, Match, fit};

/// Estimates and probabilities: the two modes agree to about 1e-11.
const ESTIMATE_TOLERANCE: f64 = 1e-8;
/// Covariances: the inverse curvature at modes that agree to about 1e-11.
const COVARIANCE_TOLERANCE: f64 = 1e-8;

fn file(name: &str) -> csv::Reader<std::fs::File> {
    let path = format!(
        "{}/tests/design_fit_reference/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    csv::Reader::from_path(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn index(s: &str) -> Option<usize> {
    (!s.is_empty()).then(|| s.parse().expect("an index"))
}

/// Each dataset's fit by the design's own code: (models, judges, matches) → fit.
fn fits() -> BTreeMap<String, Fit> {
    let mut sizes = BTreeMap::new();
    for row in file("datasets.csv").records() {
        let row = row.expect("row");
        let (models, judges) = (
            index(&row[1]).expect("models"),
            index(&row[2]).expect("judges"),
        );
        sizes.insert(row[0].to_string(), (models, judges, Vec::new()));
    }
    for row in file("matches.csv").records() {
        let row = row.expect("row");
        let (_, _, matches) = sizes.get_mut(&row[0]).expect("a dataset of datasets.csv");
        matches.push(Match {
            team_a: index(&row[1]).expect("team_a"),
            team_b: index(&row[2]).expect("team_b"),
            judge: index(&row[3]),
            score: row[4].parse().expect("score"),
        });
    }
    sizes
        .into_iter()
        .map(|(name, (models, judges, matches))| (name, fit(models, judges, &matches)))
        .collect()
}

#[test]
fn the_design_fit_matches_scipy() {
    let fits = fits();
    assert_eq!(fits.len(), 7, "{:?}", fits.keys());
    let mut checked: BTreeMap<&str, usize> = BTreeMap::new();
    let mut worst: BTreeMap<&str, f64> = BTreeMap::new();
    for row in file("reference.csv").records() {
        let row = row.expect("row");
        let (name, quantity) = (&row[0], &row[1]);
        let (i, j, judge) = (index(&row[2]), index(&row[3]), index(&row[4]));
        let expected: f64 = row[5].parse().expect("value");
        let f = &fits[name];
        let (got, tolerance) = match quantity {
            "strength" => (f.strength[i.expect("i")], ESTIMATE_TOLERANCE),
            "side" => (f.side, ESTIMATE_TOLERANCE),
            "judge_side" => (f.judge_side[i.expect("i")], ESTIMATE_TOLERANCE),
            "judge_matches" => (f.judge_matches[i.expect("i")] as f64, 0.0),
            "covariance" => (
                f.covariance[i.expect("i")][j.expect("j")],
                COVARIANCE_TOLERANCE,
            ),
            "p_team_a" => (
                f.p_team_a(i.expect("team_a"), j.expect("team_b"), judge),
                ESTIMATE_TOLERANCE,
            ),
            other => panic!("unknown quantity {other}"),
        };
        let off = (got - expected).abs();
        assert!(
            off <= tolerance,
            "{name} {quantity} {:?}: the fit gives {got}, scipy {expected} (off by {off:e})",
            (i, j, judge)
        );
        let quantity = if quantity == "covariance" {
            "covariance"
        } else {
            "estimate"
        };
        *checked.entry(quantity).or_default() += 1;
        let w = worst.entry(quantity).or_default();
        *w = w.max(off);
    }
    eprintln!("largest differences: {worst:?}");
    // Every row was read: 68 estimates and counts, 110 probabilities, 395 covariances.
    assert_eq!(checked["covariance"], 395, "{checked:?}");
    assert_eq!(checked["estimate"], 178, "{checked:?}");
}

/// The fixture's datasets are those the reference was written for: a dataset dropped from
/// `matches.csv` would otherwise be fitted with no matches and still be compared.
#[test]
fn every_dataset_has_its_matches() {
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for row in file("matches.csv").records() {
        *count.entry(row.expect("row")[0].to_string()).or_default() += 1;
    }
    let expected = [
        ("all_team_a", 12),
        ("mixed", 70),
        ("no_judge", 8),
        ("side_judge", 22),
        ("ties", 10),
        ("unbeaten", 12),
    ];
    assert_eq!(
        count.into_iter().collect::<Vec<_>>(),
        expected.map(|(n, c)| (n.to_string(), c))
    );
}
