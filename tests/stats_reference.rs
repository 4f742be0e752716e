//! The analysis statistics against an independent implementation: values computed once by
//! scipy (Pearson, Spearman) and the `krippendorff` package (alpha, interval), recorded in
//! `tests/stats_reference/reference.csv` by the script beside it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use ethics_bowl::analysis::stats::{krippendorff_interval, pearson, spearman};

fn numbers(s: &str, sep: char) -> Vec<f64> {
    s.split(sep).map(|v| v.parse().expect("a number")).collect()
}

#[test]
fn statistics_match_scipy_and_krippendorff() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/stats_reference/reference.csv"
    );
    let mut reader = csv::Reader::from_path(path).expect("reference file");
    let mut checked = 0;
    for row in reader.records() {
        let row = row.expect("row");
        let (case, statistic, data, expected) = (
            &row[0],
            &row[1],
            &row[2],
            row[3].parse::<f64>().expect("expected value"),
        );
        let got = match statistic {
            "pearson" | "spearman" => {
                let (x, y) = data.split_once('/').expect("x/y");
                let (x, y) = (numbers(x, ';'), numbers(y, ';'));
                if statistic == "pearson" {
                    pearson(&x, &y)
                } else {
                    spearman(&x, &y)
                }
            }
            "krippendorff_interval" => {
                krippendorff_interval(&data.split('|').map(|u| numbers(u, ',')).collect::<Vec<_>>())
            }
            other => panic!("unknown statistic {other}"),
        };
        let got = got.unwrap_or_else(|| panic!("{case} {statistic}: no value"));
        assert!(
            (got - expected).abs() < 1e-9,
            "{case} {statistic}: {got} against {expected}"
        );
        checked += 1;
    }
    assert_eq!(checked, 14);
}

/// The index of a level named like `m2` or `j0`.
fn level(s: &str) -> usize {
    s[1..].parse::<usize>().expect("a level like m2")
}

/// The team totals of a reference file (exchange, model, judge, team_a, total).
fn observations(file: &str) -> Vec<ethics_bowl::analysis::effects::Observation> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/stats_reference/");
    let mut data = csv::Reader::from_path(format!("{dir}{file}")).expect("data");
    data.records()
        .map(|r| {
            let r = r.expect("row");
            ethics_bowl::analysis::effects::Observation {
                exchange: r[0].parse().expect("exchange"),
                model: level(&r[1]),
                judge: level(&r[2]),
                team_a: &r[3] == "1",
                total: r[4].parse().expect("total"),
            }
        })
        .collect()
}

/// The judge-effects fit against statsmodels' least squares with sum-to-zero coding, on an
/// unbalanced schedule (`tests/stats_reference/make_effects.py`).
#[test]
fn judge_effects_match_statsmodels() {
    use ethics_bowl::analysis::effects::fit;
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/stats_reference/");
    let obs = observations("effects_data.csv");
    let got = fit(&obs, 4, 3).expect("a fit");
    let mut expected =
        csv::Reader::from_path(format!("{dir}effects_expected.csv")).expect("expected");
    let mut checked = 0;
    for r in expected.records() {
        let r = r.expect("row");
        let want: f64 = r[2].parse().expect("estimate");
        let value = match &r[0] {
            "model" => got.models[level(&r[1])],
            "judge" => got.judges[level(&r[1])],
            _ => got.side,
        };
        assert!(
            (value - want).abs() < 1e-9,
            "{} {}: {value} against {want}",
            &r[0],
            &r[1]
        );
        checked += 1;
    }
    assert_eq!(checked, 8);
}

/// The intervals of the judge effects resample exchanges: on a schedule where three judges
/// score every exchange and each team's text varies from exchange to exchange
/// (`tests/stats_reference/make_effects.py`), each 95% interval's half-width is close to
/// 1.96 of statsmodels' standard error clustered by exchange, and far from the naive one
/// that counts every judgment as independent (about twice too narrow for the models here,
/// and many times too wide for the judges, whom every exchange compares directly).
#[test]
fn judge_effect_intervals_match_standard_errors_clustered_by_exchange() {
    use ethics_bowl::analysis::effects::effects;
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/stats_reference/");
    let obs = observations("effects_clustered_data.csv");
    let names = |p: &str, n: usize| (0..n).map(|i| format!("{p}{i}")).collect::<Vec<_>>();
    let got = effects(&obs, &names("m", 4), &names("j", 3), 0);
    let mut expected =
        csv::Reader::from_path(format!("{dir}effects_clustered_expected.csv")).expect("expected");
    let mut checked = 0;
    for r in expected.records() {
        let r = r.expect("row");
        let (want, se_cluster, se_naive): (f64, f64, f64) = (
            r[2].parse().expect("estimate"),
            r[3].parse().expect("se"),
            r[4].parse().expect("se"),
        );
        let e = match &r[0] {
            "model" => &got.models[level(&r[1])].effect,
            "judge" => &got.judges[level(&r[1])].effect,
            _ => got.side.as_ref().expect("a side effect"),
        };
        let what = format!("{} {}", &r[0], &r[1]);
        assert!(
            (e.estimate - want).abs() < 1e-9,
            "{what}: {e:?} against {want}"
        );
        // n counts exchanges: a model plays in half of them, a judge judges all.
        let exchanges = if &r[0] == "model" { 18 } else { 36 };
        assert_eq!(e.n, exchanges, "{what}: n counts exchanges");
        let half = (e.high.expect("high") - e.low.expect("low")) / 2.0;
        let ratio = half / (1.96 * se_cluster);
        assert!(
            (0.7..1.3).contains(&ratio),
            "{what}: half-width {half:.3} against 1.96 × {se_cluster:.3} clustered"
        );
        let naive = half / (1.96 * se_naive);
        assert!(
            !(0.7..1.3).contains(&naive),
            "{what}: the data should tell clustered from naive ({naive:.2})"
        );
        checked += 1;
    }
    assert_eq!(checked, 8);
}

/// The raw means beside the adjusted scores (each model's mean total minus the average
/// model's) carry intervals from the same resamples of exchanges: on the schedule where
/// three judges score every exchange, each half-width is close to 1.96 of statsmodels'
/// standard error clustered by exchange and far from the naive one
/// (`tests/stats_reference/make_raw_means.py`).
#[test]
fn raw_mean_intervals_match_standard_errors_clustered_by_exchange() {
    use ethics_bowl::analysis::effects::effects;
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/stats_reference/");
    let obs = observations("effects_clustered_data.csv");
    let names = |p: &str, n: usize| (0..n).map(|i| format!("{p}{i}")).collect::<Vec<_>>();
    let got = effects(&obs, &names("m", 4), &names("j", 3), 0);
    let mut expected =
        csv::Reader::from_path(format!("{dir}effects_raw_expected.csv")).expect("expected");
    let mut checked = 0;
    for r in expected.records() {
        let r = r.expect("row");
        let (want, se_cluster, se_naive): (f64, f64, f64) = (
            r[1].parse().expect("estimate"),
            r[2].parse().expect("se"),
            r[3].parse().expect("se"),
        );
        let raw = &got.models[level(&r[0])].raw;
        assert!((raw.estimate - want).abs() < 1e-9, "{}: {raw:?}", &r[0]);
        assert_eq!(raw.n, 18, "{}: n counts exchanges", &r[0]);
        let half = (raw.high.expect("high") - raw.low.expect("low")) / 2.0;
        let ratio = half / (1.96 * se_cluster);
        assert!(
            (0.7..1.3).contains(&ratio),
            "{}: half-width {half:.3} against 1.96 × {se_cluster:.3} clustered",
            &r[0]
        );
        assert!(
            !(0.7..1.3).contains(&(half / (1.96 * se_naive))),
            "{}: the data should tell clustered from naive",
            &r[0]
        );
        checked += 1;
    }
    assert_eq!(checked, 4);
}

/// Nominal alpha, quadratic-weighted kappa and the prediction-powered mean against
/// krippendorff, scikit-learn and ppi_py (`tests/stats_reference/make_agreement.py`).
#[test]
fn agreement_with_people_matches_krippendorff_sklearn_and_ppi_py() {
    use ethics_bowl::analysis::stats::Moments;
    use ethics_bowl::analysis::stats::nominal::krippendorff_nominal;
    use ethics_bowl::analysis::stats::ppi::ppi_mean;
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/stats_reference/agreement_reference.csv"
    );
    let numbers = |s: &str| -> Vec<f64> {
        s.split(';')
            .filter(|v| !v.is_empty())
            .map(|v| v.parse().expect("a number"))
            .collect()
    };
    let mut checked = 0;
    for r in csv::Reader::from_path(path).expect("reference").records() {
        let r = r.expect("row");
        let (case, statistic, data) = (&r[0], &r[1], &r[2]);
        let want: f64 = r[3].parse().expect("expected");
        let got = match statistic {
            "krippendorff_nominal" => {
                let units: Vec<Vec<u32>> = data
                    .split('|')
                    .map(|u| u.split(',').map(|v| v.parse().expect("code")).collect())
                    .collect();
                krippendorff_nominal(&units)
            }
            "quadratic_kappa" => {
                let (x, y) = data.split_once('/').expect("x/y");
                let mut m = Moments::default();
                for (a, b) in numbers(x).into_iter().zip(numbers(y)) {
                    m.push(a, b);
                }
                m.quadratic_kappa()
            }
            _ => {
                let parts: Vec<Vec<f64>> = data.split('/').map(numbers).collect();
                let labelled: Vec<(f64, f64)> = parts[0]
                    .iter()
                    .copied()
                    .zip(parts[1].iter().copied())
                    .collect();
                let p = ppi_mean(&labelled, &parts[2]).expect("an estimate");
                match statistic {
                    "ppi_estimate" => Some(p.estimate),
                    "ppi_low" => p.low,
                    _ => p.high,
                }
            }
        };
        let got = got.unwrap_or(f64::NAN);
        assert!(
            (got - want).abs() < 1e-9,
            "{case} {statistic}: {got} against {want}"
        );
        checked += 1;
    }
    assert_eq!(checked, 15);
}
