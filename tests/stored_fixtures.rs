//! Results folders written before round files had a schema version (one per protocol, and
//! one judged by a panel; see `tests/fixtures/stored-v0/README.md`) still load, list, report,
//! open and resume exactly as the code that wrote them did.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use ethics_bowl::domain::{ProtocolKind, ROUND_SCHEMA_VERSION, Round, RoundStatus};
use ethics_bowl::store::{RoundFilter, Store};

const FOLDERS: [(&str, ProtocolKind); 4] = [
    ("ethics_bowl", ProtocolKind::EthicsBowl),
    ("panel", ProtocolKind::EthicsBowl),
    ("qa_debate", ProtocolKind::QaDebate),
    ("structured_debate", ProtocolKind::StructuredDebate),
];

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/stored-v0")
        .join(name)
}

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn run(c: &mut Command) -> String {
    let out = c.output().expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn expected(name: &str, file: &str) -> String {
    std::fs::read_to_string(fixture(name).join("expected").join(file)).expect("expected file")
}

/// Every round file, as stored text.
fn round_files(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut files: Vec<(PathBuf, String)> = std::fs::read_dir(dir.join("rounds"))
        .expect("rounds folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable");
            (p, text)
        })
        .collect();
    files.sort();
    files
}

/// Whether two JSON values are equal, numbers to 12 significant digits: a panel's agreement
/// is recomputed from its judges' stored answers, and the last binary digit of a sum may
/// differ from the one written before.
fn same_json(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    first_difference(a, b, "").is_empty()
}

/// Where two JSON values first differ (empty when they do not), for the message.
fn first_difference(a: &serde_json::Value, b: &serde_json::Value, at: &str) -> String {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            if (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1.0) {
                String::new()
            } else {
                format!("{at}: {x} against {y}")
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .map(|(i, (p, q))| first_difference(p, q, &format!("{at}[{i}]")))
            .find(|d| !d.is_empty())
            .unwrap_or_default(),
        (Value::Object(x), Value::Object(y)) if x.len() == y.len() => x
            .iter()
            .map(|(k, p)| match y.get(k) {
                Some(q) => first_difference(p, q, &format!("{at}/{k}")),
                None => format!("{at}/{k}: missing"),
            })
            .find(|d| !d.is_empty())
            .unwrap_or_default(),
        _ if a == b => String::new(),
        _ => format!("{at}: {a} against {b}"),
    }
}

fn without_schema_version(mut v: serde_json::Value) -> serde_json::Value {
    match &mut v {
        serde_json::Value::Object(map) => {
            map.remove("schema_version");
        }
        serde_json::Value::Array(items) => {
            for item in items {
                if let serde_json::Value::Object(map) = item {
                    map.remove("schema_version");
                }
            }
        }
        _ => {}
    }
    v
}

#[test]
fn every_round_file_reads_as_its_protocol_and_writes_back_the_same_fields() {
    for (name, kind) in FOLDERS {
        let files = round_files(&fixture(name));
        assert!(!files.is_empty(), "{name}");
        for (path, text) in files {
            let round: Round =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(round.kind(), kind, "{}", path.display());
            let written = serde_json::to_value(&round).unwrap();
            assert_eq!(written["schema_version"], ROUND_SCHEMA_VERSION);
            let original: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(
                without_schema_version(written),
                original,
                "{}: writing the round back changed it",
                path.display()
            );
        }
    }
}

#[test]
fn the_spec_field_names_stay_on_ethics_bowl_round_files() {
    let (_, text) = &round_files(&fixture("ethics_bowl"))[0];
    let round: Round = serde_json::from_str(text).unwrap();
    let written = serde_json::to_value(&round).unwrap();
    for key in [
        "id",
        "dilemma_id",
        "team_a_model",
        "team_b_model",
        "judge_model",
        "phases",
        "scores",
        "timestamp",
    ] {
        assert!(written.get(key).is_some(), "{key} missing");
    }
}

#[test]
fn an_unknown_protocol_or_a_record_of_another_protocol_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("eb");
    copy_folder(&fixture("ethics_bowl"), &copy);
    let (path, text) = round_files(&copy).remove(0);
    std::fs::write(&path, text.replacen("\"ethics_bowl\"", "\"chess\"", 1)).unwrap();
    let store = Store::open(&copy).unwrap();
    let (_, errors) = store.load_rounds(&RoundFilter::default()).unwrap();
    let message = errors.iter().map(|e| e.to_string()).collect::<String>();
    let file = path.file_name().unwrap().to_string_lossy().into_owned();
    assert!(message.contains("unknown protocol \"chess\""), "{message}");
    assert!(message.contains(&file), "{message}");

    let (path, text) = round_files(&fixture("qa_debate")).remove(0);
    let relabelled = text.replacen("\"qa_debate\"", "\"structured_debate\"", 1);
    let err = serde_json::from_str::<Round>(&relabelled).unwrap_err();
    assert!(
        err.to_string()
            .contains("must hold exactly a \"structured\" record"),
        "{}: {err}",
        path.display()
    );
}

#[test]
fn rounds_lists_them_as_before() {
    for (name, _) in FOLDERS {
        let listed = run(bin().arg("rounds").arg(fixture(name)));
        assert_eq!(listed, expected(name, "rounds.txt"), "{name}");
        let json: serde_json::Value =
            serde_json::from_str(&run(bin().args(["rounds", "--json"]).arg(fixture(name))))
                .unwrap();
        let before: serde_json::Value =
            serde_json::from_str(&expected(name, "rounds.json")).unwrap();
        let now = without_schema_version(json);
        assert!(
            same_json(&now, &before),
            "{name}: {}",
            first_difference(&now, &before, "")
        );
    }
}

#[test]
fn report_writes_the_same_tables_as_before() {
    for (name, _) in FOLDERS {
        let out = tempfile::tempdir().unwrap();
        let stdout = run(bin()
            .arg("report")
            .arg(fixture(name))
            .arg("--out")
            .arg(out.path()));
        let printed: String = stdout
            .lines()
            .filter(|l| !l.starts_with("wrote "))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(printed, expected(name, "report-stdout.txt"), "{name}");
        for file in ["report.md", "analysis.json"] {
            let now = std::fs::read_to_string(out.path().join(file)).unwrap();
            assert_eq!(now, expected(name, file), "{name}/{file}");
        }
    }
}

#[test]
fn open_shows_every_stored_round() {
    for (name, _) in FOLDERS {
        let store = Store::open(&fixture(name)).unwrap();
        let (rounds, errors) = store.load_rounds(&RoundFilter::default()).unwrap();
        assert!(errors.is_empty(), "{name}: {errors:?}");
        let app = ethics_bowl::tui::browse(name, &rounds, std::time::Instant::now());
        assert_eq!(app.mirror.rounds.len(), rounds.len(), "{name}");
        for (state, round) in app.mirror.rounds.iter().zip(&rounds) {
            assert_eq!(state.status(), round.status, "{name} {}", round.id);
            assert_eq!(
                state.stored.judgments.len(),
                round.judgments.len(),
                "{name} {}",
                round.id
            );
        }
        let screen = support::draw(&app);
        let text: String = screen
            .backend()
            .buffer()
            .content()
            .iter()
            .map(|c| c.symbol())
            .collect();
        assert!(text.contains("sim-"), "{name}: the matrix names no model");
    }
}

fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.join("rounds")).unwrap();
    std::fs::copy(from.join("tournament.json"), to.join("tournament.json")).unwrap();
    for (path, _) in round_files(from) {
        std::fs::copy(&path, to.join("rounds").join(path.file_name().unwrap())).unwrap();
    }
}

#[test]
fn resume_plays_the_missing_rounds_and_keeps_the_stored_ones() {
    for (name, config) in [
        ("structured_debate", "structured-debate.toml"),
        ("panel", "panel.toml"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let results = dir.path().join(name);
        copy_folder(&fixture(name), &results);
        // The manifest names the tournament file it was started from, on the machine that
        // wrote it: point it at this checkout's copy.
        let manifest = results.join("tournament.json");
        let mut record: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
        record["config_file"] = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("sample-config")
            .join(config)
            .to_string_lossy()
            .into_owned()
            .into();
        std::fs::write(&manifest, serde_json::to_string_pretty(&record).unwrap()).unwrap();
        let before = round_files(&results);

        run(bin().args(["run", "--headless", "--resume"]).arg(&results));

        let store = Store::open(&results).unwrap();
        let (rounds, errors) = store.load_rounds(&RoundFilter::default()).unwrap();
        assert!(errors.is_empty(), "{name}: {errors:?}");
        let scheduled = record["schedule"].as_array().unwrap().len();
        assert_eq!(rounds.len(), scheduled, "{name}");
        assert!(rounds.iter().all(|r| r.status != RoundStatus::Incomplete));
        for (path, text) in before {
            let old: Round = serde_json::from_str(&text).unwrap();
            let now = rounds.iter().find(|r| r.id == old.id).unwrap();
            assert_eq!(now.phases, old.phases, "{}", path.display());
            assert_eq!(now.judgments, old.judgments, "{}", path.display());
        }
    }
}
