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
