//! `ethics-bowl export --format csv|jsonl`: each protocol's stored fixture as the three long
//! tables. Their columns are the ones `docs/using-results-elsewhere.md` lists, in its order
//! and of its types (the docs' tables are parsed here), and their rows are what the round
//! files hold: one per call, one per round, one per judge, side and criterion.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const FIXTURES: [&str; 4] = ["ethics_bowl", "panel", "qa_debate", "structured_debate"];
const TABLES: [&str; 3] = ["judgments", "phases", "rounds"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn fixture(name: &str) -> PathBuf {
    root().join("tests/fixtures/stored-v0").join(name)
}

fn export(dir: &Path, format: &str, out: &Path) -> (Option<i32>, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"))
        .current_dir(root())
        .arg("export")
        .arg(dir)
        .args(["--format", format, "--out"])
        .arg(out)
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The docs' table of `table`'s columns: each column's name and type, in order.
fn documented(table: &str) -> Vec<(String, String)> {
    let docs = std::fs::read_to_string(root().join("docs/using-results-elsewhere.md")).unwrap();
    let heading = format!("### {table}\n");
    let start = docs
        .find(&heading)
        .unwrap_or_else(|| panic!("no {heading:?} in the docs"));
    let mut columns = Vec::new();
    for line in docs[start + heading.len()..].lines() {
        if line.starts_with("### ") {
            break;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() > 3 && cells[1].starts_with('`') {
            columns.push((cells[1].trim_matches('`').to_string(), cells[2].to_string()));
        }
    }
    assert!(!columns.is_empty(), "no columns for {table} in the docs");
    columns
}

/// Whether a CSV cell holds a value of the documented type (empty is missing).
fn csv_cell_fits(cell: &str, kind: &str) -> bool {
    cell.is_empty()
        || match kind {
            "integer" => cell.parse::<i64>().is_ok(),
            "number" => cell.parse::<f64>().is_ok_and(f64::is_finite),
            "boolean" => cell == "true" || cell == "false",
            "string" => true,
            other => panic!("the docs name an unknown type {other}"),
        }
}

/// Whether a JSON value holds a value of the documented type (null is missing).
fn json_fits(v: &Value, kind: &str) -> bool {
    v.is_null()
        || match kind {
            "integer" => v.is_u64() || v.is_i64(),
            "number" => v.is_number(),
            "boolean" => v.is_boolean(),
            "string" => v.is_string(),
            other => panic!("the docs name an unknown type {other}"),
        }
}

fn rounds(dir: &Path) -> Vec<Value> {
    std::fs::read_dir(dir.join("rounds"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap())
        .collect()
}

/// Rows each judgment gives: the Ethics Bowl's 14 criteria, 2 totals and a verdict; a
/// question-answer choice, confidence and correctness; a structured debate's two totals
/// and verdict.
fn rows_per_judgment(protocol: &str) -> usize {
    match protocol {
        "ethics_bowl" => 17,
        "qa_debate" | "structured_debate" => 3,
        other => panic!("protocol {other}"),
    }
}

#[test]
fn the_csv_tables_have_the_documented_columns_and_a_row_per_observation() {
    let out = tempfile::tempdir().unwrap();
    for name in FIXTURES {
        let dir = fixture(name);
        let target = out.path().join(name);
        let (code, stdout, stderr) = export(&dir, "csv", &target);
        assert_eq!(code, Some(0), "{stderr}");
        let stored = rounds(&dir);
        for table in TABLES {
            let path = target.join(format!("{table}.csv"));
            assert!(stdout.contains(&path.display().to_string()), "{stdout}");
            let mut reader = csv::Reader::from_path(&path).unwrap();
            let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
            let docs = documented(table);
            let names: Vec<&String> = docs.iter().map(|(n, _)| n).collect();
            assert_eq!(header.iter().collect::<Vec<_>>(), names, "{name}/{table}");
            let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
            for r in &records {
                for ((column, kind), cell) in docs.iter().zip(r.iter()) {
                    assert!(
                        csv_cell_fits(cell, kind),
                        "{name}/{table}.{column}: {cell:?} is not {kind}"
                    );
                }
            }
            let expected = match table {
                "rounds" => stored.len(),
                "phases" => stored
                    .iter()
                    .map(|r| r["phases"].as_array().unwrap().len())
                    .sum(),
                _ => stored
                    .iter()
                    .map(|r| {
                        let judges = r["judgments"].as_array().unwrap().len()
                            + usize::from(!r["panel"].is_null() && !r["scores"].is_null());
                        judges * rows_per_judgment(r["protocol"].as_str().unwrap())
                    })
                    .sum(),
            };
            assert_eq!(records.len(), expected, "{name}/{table}");
        }
    }
}

#[test]
fn a_read_judgments_total_is_its_scores_sum_and_an_unread_one_has_no_score() {
    let out = tempfile::tempdir().unwrap();
    let dir = fixture("ethics_bowl");
    let (code, _, stderr) = export(&dir, "csv", out.path());
    assert_eq!(code, Some(0), "{stderr}");
    let mut reader = csv::Reader::from_path(out.path().join("judgments.csv")).unwrap();
    let header = reader.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let (mut read, mut unread) = (0, 0);
    for r in rounds(&dir) {
        for j in r["judgments"].as_array().unwrap() {
            let judge = j["judge_model"].as_str().unwrap();
            let total_a = records
                .iter()
                .find(|rec| {
                    rec[col("round_id")] == *r["id"].as_str().unwrap()
                        && rec[col("judge")] == *judge
                        && &rec[col("criterion")] == "total"
                        && &rec[col("side")] == "A"
                })
                .unwrap();
            assert_eq!(
                &total_a[col("side_model")],
                r["team_a_model"].as_str().unwrap()
            );
            assert_eq!(&total_a[col("side_name")], "presenting");
            if j["parse_status"] == "parsed" {
                let sum: f64 = j["team_a_scores"]
                    .as_object()
                    .unwrap()
                    .values()
                    .map(|v| v.as_f64().unwrap())
                    .sum();
                assert_eq!(total_a[col("score")].parse::<f64>().unwrap(), sum);
                read += 1;
            } else {
                assert_eq!(&total_a[col("score")], "", "{total_a:?}");
                assert_eq!(
                    &total_a[col("parse_status")],
                    j["parse_status"].as_str().unwrap()
                );
                unread += 1;
            }
        }
    }
    // The fixture has both, so both branches ran.
    assert!(read > 0 && unread > 0, "{read} read, {unread} unread");
}

#[test]
fn the_json_lines_tables_have_the_documented_fields_and_types() {
    let out = tempfile::tempdir().unwrap();
    for name in FIXTURES {
        let target = out.path().join(name);
        let (code, _, stderr) = export(&fixture(name), "jsonl", &target);
        assert_eq!(code, Some(0), "{stderr}");
        for table in TABLES {
            let docs = documented(table);
            let text = std::fs::read_to_string(target.join(format!("{table}.jsonl"))).unwrap();
            assert!(!text.is_empty(), "{name}/{table}");
            for line in text.lines() {
                let row: serde_json::Map<String, Value> = serde_json::from_str(line).unwrap();
                let keys: Vec<&String> = row.keys().collect();
                let names: Vec<&String> = docs.iter().map(|(n, _)| n).collect();
                assert_eq!(keys, names, "{name}/{table}");
                for (column, kind) in &docs {
                    assert!(
                        json_fits(&row[column], kind),
                        "{name}/{table}.{column}: {} is not {kind}",
                        row[column]
                    );
                }
            }
        }
    }
}

#[test]
fn an_empty_folder_and_a_file_for_a_folder_are_refused_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("rounds")).unwrap();
    std::fs::copy(
        fixture("qa_debate").join("tournament.json"),
        dir.path().join("tournament.json"),
    )
    .unwrap();
    let (code, _, stderr) = export(dir.path(), "csv", &dir.path().join("out"));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("no rounds to export"), "{stderr}");

    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let (code, _, stderr) = export(&fixture("qa_debate"), "csv", &file);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("is a file"), "{stderr}");
}
