//! Human judgments through the command line (`annotations template`, `import`, `export`) on
//! stored results folders of each protocol: the spreadsheet round trip, every malformed
//! sheet refused with its line and column and nothing written, unsafe annotator names
//! refused, and the model's round files untouched.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ethics_bowl::annotations::{HumanJudgment, load_all};
use ethics_bowl::domain::Criterion;

/// A copy of a stored fixture folder (`tests/fixtures/stored-v0/<name>`), without the
/// expected outputs.
fn results(name: &str) -> tempfile::TempDir {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/stored-v0")
        .join(name);
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        from.join("tournament.json"),
        dir.path().join("tournament.json"),
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("rounds")).unwrap();
    for entry in std::fs::read_dir(from.join("rounds")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(
            &path,
            dir.path().join("rounds").join(path.file_name().unwrap()),
        )
        .unwrap();
    }
    dir
}

/// Every file under a folder, with its bytes.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                files.insert(path.strip_prefix(dir).unwrap().to_path_buf(), bytes);
            }
        }
    }
    files
}

/// The model's files: the tournament and its rounds.
fn model_files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    tree(dir)
        .into_iter()
        .filter(|(p, _)| p.starts_with("rounds") || p == Path::new("tournament.json"))
        .collect()
}

fn bin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ethics-bowl"))
        .args(args)
        .output()
        .expect("runs")
}

fn ok(args: &[&str]) -> String {
    let out = bin(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs a command that must be refused with exit code 2; its stderr.
fn refused(args: &[&str]) -> String {
    let out = bin(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    stderr
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The round ids of a folder, as stored.
fn round_ids(dir: &Path) -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(dir.join("rounds"))
        .unwrap()
        .map(|e| {
            let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            v["id"].as_str().unwrap().to_string()
        })
        .collect();
    ids.sort();
    ids
}

/// A template's rows filled in: score `(line % 10) + 1`, a justification on every third.
fn fill(template: &str) -> String {
    let mut out = String::new();
    for (i, line) in template.lines().enumerate() {
        if i == 0 {
            out.push_str(line);
        } else {
            let body = line.strip_suffix(",,").unwrap();
            let note = if i % 3 == 0 { "\"clear, fair\"" } else { "" };
            out.push_str(&format!("{body},{},{note}", i % 10 + 1));
        }
        out.push('\n');
    }
    out
}

#[test]
fn an_ethics_bowl_sample_goes_out_as_a_sheet_and_comes_back_as_judgments() {
    let dir = results("ethics_bowl");
    let work = tempfile::tempdir().unwrap();
    let sheet = work.path().join("sheet.csv");
    let before = model_files(dir.path());

    let args = [
        "annotations",
        "template",
        s(dir.path()),
        "--sample",
        "3",
        "--strata",
        "dilemma",
        "--out",
        s(&sheet),
    ];
    ok(&args);
    let template = std::fs::read_to_string(&sheet).unwrap();
    assert_eq!(template.lines().count(), 1 + 3 * 14);
    let sample: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("annotations/sample.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(sample["seed"], 34);
    assert_eq!(sample["strata"], "dilemma");
    let ids: Vec<String> = sample["round_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 3);
    // Three dilemmas, three rounds: one of each.
    let mut dilemmas: Vec<&str> = ids
        .iter()
        .map(|id| id.split("__").next().unwrap())
        .collect();
    dilemmas.sort();
    assert_eq!(
        dilemmas,
        ["borrowed_voice", "inherited_debt", "reversible_promise"]
    );
    // The sheet lists the sample's rounds in its order.
    let sheet_order: Vec<&str> = template
        .lines()
        .skip(1)
        .step_by(14)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(sheet_order, ids);
    // Drawn again, the same sample: the sheet is the same and sample.json is untouched.
    let sample_bytes = std::fs::read(dir.path().join("annotations/sample.json")).unwrap();
    ok(&args);
    assert_eq!(std::fs::read_to_string(&sheet).unwrap(), template);
    assert_eq!(
        std::fs::read(dir.path().join("annotations/sample.json")).unwrap(),
        sample_bytes
    );
    // Another seed is another sample, refused while one is recorded.
    let other = [
        "annotations",
        "template",
        s(dir.path()),
        "--sample",
        "2",
        "--seed",
        "9",
    ];
    assert!(refused(&other).contains("--replace"));

    let filled = fill(&template);
    std::fs::write(&sheet, &filled).unwrap();
    ok(&[
        "annotations",
        "import",
        s(dir.path()),
        s(&sheet),
        "--annotator",
        "alice",
    ]);
    assert_eq!(
        model_files(dir.path()),
        before,
        "the model's files are byte-identical"
    );
    let stored = load_all(dir.path()).unwrap();
    assert_eq!(stored.len(), 3);
    for a in &stored {
        assert_eq!(a.annotator, "alice");
        assert!(!a.blind);
        assert!(
            dir.path()
                .join("annotations/alice")
                .join(format!("{}.json", a.round_id))
                .is_file()
        );
        let HumanJudgment::EthicsBowl { team_a, team_b, .. } = &a.judgment else {
            panic!("{:?}", a.judgment)
        };
        assert_eq!((team_a.count(), team_b.count()), (7, 7));
    }

    // Exported: the sheet's rows, an annotator column first, by round.
    let exported = ok(&["annotations", "export", s(dir.path())]);
    let mut expected: Vec<String> = filled
        .lines()
        .skip(1)
        .map(|l| format!("alice,{l}"))
        .collect();
    let mut got: Vec<String> = exported.lines().skip(1).map(str::to_string).collect();
    expected.sort();
    got.sort();
    assert_eq!(got, expected);
    assert_eq!(
        exported.lines().next().unwrap(),
        "annotator,round_id,team,criterion,score,justification"
    );

    // The export imports into another copy as the same judgments, and exports the same.
    let copy = results("ethics_bowl");
    let export_file = work.path().join("export.csv");
    std::fs::write(&export_file, &exported).unwrap();
    ok(&["annotations", "import", s(copy.path()), s(&export_file)]);
    let again = ok(&["annotations", "export", s(copy.path())]);
    assert_eq!(again, exported);
    let (a, b) = (
        load_all(dir.path()).unwrap(),
        load_all(copy.path()).unwrap(),
    );
    assert_eq!(
        a.iter()
            .map(|x| (&x.annotator, &x.round_id, &x.judgment))
            .collect::<Vec<_>>(),
        b.iter()
            .map(|x| (&x.annotator, &x.round_id, &x.judgment))
            .collect::<Vec<_>>()
    );

    // A second import over the same judgments is refused unless --replace; nothing written.
    let stored_before = tree(&dir.path().join("annotations"));
    let err = refused(&[
        "annotations",
        "import",
        s(dir.path()),
        s(&sheet),
        "--annotator",
        "alice",
    ]);
    assert!(
        err.contains("already stored") && err.contains("--replace"),
        "{err}"
    );
    assert_eq!(tree(&dir.path().join("annotations")), stored_before);
    ok(&[
        "annotations",
        "import",
        s(dir.path()),
        s(&sheet),
        "--annotator",
        "alice",
        "--replace",
        "--blind",
    ]);
    assert!(load_all(dir.path()).unwrap().iter().all(|a| a.blind));
    // Another annotator's judgments of the same rounds sit beside alice's.
    ok(&[
        "annotations",
        "import",
        s(dir.path()),
        s(&sheet),
        "--annotator",
        "bob",
    ]);
    assert_eq!(load_all(dir.path()).unwrap().len(), 6);
    assert_eq!(model_files(dir.path()), before);
}

/// A complete Ethics Bowl sheet for one round, with `edit` applied to its text.
fn ethics_bowl_sheet(round: &str) -> String {
    let mut text = String::from("round_id,team,criterion,score\n");
    for team in ["A", "B"] {
        for c in Criterion::ALL {
            text.push_str(&format!("{round},{team},{},6\n", c.key()));
        }
    }
    text
}

#[test]
fn a_malformed_sheet_is_refused_with_line_and_column_and_nothing_is_written() {
    let dir = results("ethics_bowl");
    let work = tempfile::tempdir().unwrap();
    let round = round_ids(dir.path()).remove(0);
    let good = ethics_bowl_sheet(&round);
    let cases = [
        (
            "missing-criterion",
            good.replace(&format!("{round},B,consistency,6\n"), ""),
            "missing-criterion.csv:2:2:",
            "team B consistency",
        ),
        (
            "score-11",
            good.replace(
                &format!("{round},A,consistency,6"),
                &format!("{round},A,consistency,11"),
            ),
            "score-11.csv:3:4:",
            "score 11 is out of range 1–10",
        ),
        (
            "unknown-round",
            format!("{good}no_such_round,A,consistency,6\n"),
            "unknown-round.csv:16:1:",
            "unknown round id \"no_such_round\"",
        ),
        (
            "empty-cell",
            good.replace(
                &format!("{round},A,framework_awareness,6"),
                &format!("{round},A,,6"),
            ),
            "empty-cell.csv:6:3:",
            "criterion is empty",
        ),
    ];
    let before = tree(dir.path());
    for (name, text, place, message) in cases {
        let file = work.path().join(format!("{name}.csv"));
        std::fs::write(&file, text).unwrap();
        let err = refused(&[
            "annotations",
            "import",
            s(dir.path()),
            s(&file),
            "--annotator",
            "alice",
        ]);
        let line = err
            .lines()
            .find(|l| l.contains(place))
            .unwrap_or_else(|| panic!("{name}: no {place} in {err}"));
        assert!(line.contains(message), "{name}: {line}");
        assert!(err.contains("nothing was written"), "{err}");
        assert_eq!(tree(dir.path()), before, "{name}: nothing written");
    }
    // The good sheet goes in.
    let file = work.path().join("good.csv");
    std::fs::write(&file, &good).unwrap();
    ok(&[
        "annotations",
        "import",
        s(dir.path()),
        s(&file),
        "--annotator",
        "alice",
    ]);
}

#[test]
fn an_annotator_name_that_is_not_a_plain_folder_name_is_refused() {
    let dir = results("structured_debate");
    let work = tempfile::tempdir().unwrap();
    let round = round_ids(dir.path()).remove(0);
    let file = work.path().join("s.csv");
    std::fs::write(&file, format!("round_id,winner\n{round},pro\n")).unwrap();
    let before = tree(dir.path());
    for name in ["../evil", "..", "a/b", "", ".hidden", "tab\tname"] {
        let err = refused(&[
            "annotations",
            "import",
            s(dir.path()),
            s(&file),
            "--annotator",
            name,
        ]);
        assert!(
            err.contains("cannot be an annotator's name"),
            "{name:?}: {err}"
        );
        assert_eq!(tree(dir.path()), before, "{name:?}");
    }
    assert!(!dir.path().parent().unwrap().join("evil").exists());
    // Nor in an annotator column.
    std::fs::write(
        &file,
        format!("annotator,round_id,winner\n../evil,{round},pro\n"),
    )
    .unwrap();
    let err = refused(&["annotations", "import", s(dir.path()), s(&file)]);
    assert!(err.contains("s.csv:2:1:"), "{err}");
    assert_eq!(tree(dir.path()), before);
}

#[test]
fn question_answer_and_structured_sheets_round_trip() {
    for (fixture, header) in [
        ("qa_debate", "round_id,answer,confidence"),
        ("structured_debate", "round_id,winner,argument,standing"),
    ] {
        let dir = results(fixture);
        let work = tempfile::tempdir().unwrap();
        let template = ok(&["annotations", "template", s(dir.path()), "--sample", "2"]);
        assert_eq!(
            template.lines().next().unwrap(),
            format!("{header},justification")
        );
        let mut ids: Vec<&str> = template
            .lines()
            .skip(1)
            .map(|l| l.split(',').next().unwrap())
            .collect();
        ids.dedup();
        assert_eq!(ids.len(), 2, "{template}");
        // Every row of the blank sheet filled in: a structured debate's winner row and one
        // row per argument (its standing).
        let mut sheet = format!("{header},justification\n");
        let mut arguments = 0;
        for line in template.lines().skip(1) {
            let cells: Vec<&str> = line.split(',').collect();
            let filled = match (fixture, cells.get(2).copied()) {
                ("qa_debate", _) => format!("{},A,75,\"because, well\"", cells[0]),
                (_, Some("")) => format!("{},con,,,\"because, well\"", cells[0]),
                (_, Some(arg)) => {
                    arguments += 1;
                    format!("{},,{arg},partially_upheld,", cells[0])
                }
                _ => panic!("{line}"),
            };
            sheet.push_str(&filled);
            sheet.push('\n');
        }
        if fixture == "structured_debate" {
            assert!(
                arguments >= 4,
                "each debate's arguments are rows: {template}"
            );
        }
        let file = work.path().join("sheet.csv");
        std::fs::write(&file, &sheet).unwrap();
        let before = model_files(dir.path());
        ok(&[
            "annotations",
            "import",
            s(dir.path()),
            s(&file),
            "--annotator",
            "carol",
        ]);
        assert_eq!(model_files(dir.path()), before);
        let exported = ok(&["annotations", "export", s(dir.path())]);
        let mut expected: Vec<String> = sheet
            .lines()
            .skip(1)
            .map(|l| format!("carol,{l}"))
            .collect();
        expected.sort();
        let mut got: Vec<String> = exported.lines().skip(1).map(str::to_string).collect();
        got.sort();
        assert_eq!(got, expected, "{fixture}");
        // A row judging a round of another protocol's shape is refused.
        let wrong = work.path().join("wrong.csv");
        std::fs::write(
            &wrong,
            format!(
                "round_id,team,criterion,score\n{},A,consistency,5\n",
                ids[0]
            ),
        )
        .unwrap();
        let err = refused(&[
            "annotations",
            "import",
            s(dir.path()),
            s(&wrong),
            "--annotator",
            "carol",
        ]);
        assert!(err.contains("wrong.csv:2:1:"), "{err}");
    }
}

/// A structured sheet naming an argument the round does not have, or leaving one out, is
/// refused with its line and column, and nothing is written.
#[test]
fn a_structured_sheet_with_a_wrong_argument_is_refused() {
    let dir = results("structured_debate");
    let work = tempfile::tempdir().unwrap();
    let template = ok(&["annotations", "template", s(dir.path()), "--sample", "1"]);
    let id = template.lines().nth(1).unwrap().split(',').next().unwrap();
    let sheet = format!(
        "round_id,winner,argument,standing\n{id},pro,,\n{id},,PRO-1,upheld\n{id},,PRO-99,refuted\n"
    );
    let file = work.path().join("s.csv");
    std::fs::write(&file, sheet).unwrap();
    let before = tree(dir.path());
    let err = refused(&[
        "annotations",
        "import",
        s(dir.path()),
        s(&file),
        "--annotator",
        "erin",
    ]);
    assert!(
        err.contains("s.csv:2:3: ") && err.contains("missing the standing of"),
        "{err}"
    );
    assert!(
        err.contains("s.csv:4:3: ") && err.contains("no argument \"PRO-99\""),
        "{err}"
    );
    assert_eq!(tree(dir.path()), before, "nothing written");
}

#[test]
fn a_damaged_annotation_file_stops_export_with_its_name() {
    let dir = results("structured_debate");
    let folder = dir.path().join("annotations/dave");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("x.json"), "{ broken").unwrap();
    let err = refused(&["annotations", "export", s(dir.path())]);
    assert!(err.contains("dave/x.json"), "{err}");
}
