//! `ethics-bowl export --format inspect`: each protocol's stored fixture (and one with a
//! failed round and a person's judgment) as an Inspect evaluation log, checked here from the
//! JSON and, with `ETHICS_BOWL_INSPECT_PYTHON` set to a Python with inspect-ai 0.3.285
//! (`.ci/run` makes one), by Inspect's own `read_eval_log` (`tests/export_inspect_read.py`).
//! Without the variable that check says how to run it and passes, except under CI
//! (`CI=true`), where it must be set.
//!
//! What is expected is read from the round files themselves, not from the export's code:
//! one sample per round, one score per usable judgment (and the panel's aggregate), none for
//! a failed round, each model's tokens summed over its calls.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

/// People's judgments added to a folder: the annotator and the round.
type People<'a> = &'a [(&'a str, &'a str)];

const FIXTURES: [&str; 4] = ["ethics_bowl", "panel", "qa_debate", "structured_debate"];

/// How to run the check by inspect-ai, printed when the variable is unset.
const HOW: &str = "make a venv with `python3 -m venv /tmp/insp && /tmp/insp/bin/pip install \
inspect-ai==0.3.285`, then run `ETHICS_BOWL_INSPECT_PYTHON=/tmp/insp/bin/python cargo test \
--test export_inspect`";

/// The Python with inspect-ai, or `None` after saying how to run the check; under CI an
/// unset variable fails the test, since CI must run it.
fn inspect_python() -> Option<String> {
    match std::env::var("ETHICS_BOWL_INSPECT_PYTHON") {
        Ok(p) if !p.trim().is_empty() => Some(p.trim().to_string()),
        _ => {
            let ci = matches!(std::env::var("CI").as_deref(), Ok("true" | "1"));
            assert!(
                !ci,
                "ETHICS_BOWL_INSPECT_PYTHON is not set under CI: .ci/run makes the venv; {HOW}"
            );
            eprintln!("SKIPPED: ETHICS_BOWL_INSPECT_PYTHON is not set; to run this check, {HOW}");
            None
        }
    }
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/stored-v0")
        .join(name)
}

/// Exports `dir` as an Inspect log into `out`; the log as JSON.
fn export(dir: &Path, out: &Path) -> Value {
    let o = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["export"])
        .arg(dir)
        .args(["--format", "inspect", "--out"])
        .arg(out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("wrote"),
        "{stderr}"
    );
    serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap()
}

fn rounds(dir: &Path) -> Vec<Value> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("rounds"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap())
        .collect()
}

fn usable(j: &Value) -> bool {
    matches!(
        j["parse_status"].as_str(),
        None | Some("parsed" | "corrected_by_hand")
    )
}

/// A few values each usable judgment's score must hold, from the round file.
fn values_of(j: &Value) -> Value {
    if let Some(a) = j["team_a_scores"].as_object() {
        let total = |s: &serde_json::Map<String, Value>| {
            s.values().map(|v| v.as_f64().unwrap()).sum::<f64>()
        };
        let b = j["team_b_scores"].as_object().unwrap();
        return json!({"team_a.total": total(a), "team_b.total": total(b)});
    }
    if let Some(side) = j["choice"]["side"].as_str() {
        return json!({ "choice": side });
    }
    if let Some(label) = j["label"].as_str() {
        return json!({ "label": label });
    }
    if let Some(pro) = j["structured"]["pro_total"].as_f64() {
        return json!({ "team_a.total": pro, "team_b.total": j["structured"]["con_total"] });
    }
    json!({})
}

/// What the log must hold, from the round files (and the people's judgments given).
fn expected(dir: &Path, people: &[(&str, &str)]) -> Value {
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("tournament.json")).unwrap())
            .unwrap();
    let mut all: BTreeMap<String, [u64; 2]> = BTreeMap::new();
    let mut by_round = serde_json::Map::new();
    for r in rounds(dir) {
        let failed = !r["error"].is_null();
        let mut scores = serde_json::Map::new();
        if !failed {
            for j in r["judgments"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|j| usable(j))
            {
                let name = j["persona_id"]
                    .as_str()
                    .or(j["judge_model"].as_str())
                    .unwrap();
                scores.insert(name.to_string(), values_of(j));
            }
            if !r["panel"].is_null() && !r["scores"].is_null() {
                scores.insert("panel".into(), values_of(&r["scores"]));
            }
            for (annotator, round) in people {
                if *round == r["id"].as_str().unwrap() {
                    scores.insert(format!("human:{annotator}"), json!({}));
                }
            }
        }
        let mut usage: BTreeMap<String, [u64; 2]> = BTreeMap::new();
        let phases = r["phases"].as_array().unwrap();
        for p in phases.iter().filter(|p| p["error"].is_null()) {
            let tokens = [
                p["input_tokens"].as_u64().unwrap_or(0),
                p["output_tokens"].as_u64().unwrap_or(0),
            ];
            for u in [&mut usage, &mut all] {
                let e = u
                    .entry(p["model_id"].as_str().unwrap().to_string())
                    .or_default();
                e[0] += tokens[0];
                e[1] += tokens[1];
            }
        }
        by_round.insert(
            r["id"].as_str().unwrap().to_string(),
            json!({
                "epoch": r["repetition"],
                "scores": scores,
                "failed": failed,
                "usage": usage,
                "calls": phases.len(),
            }),
        );
    }
    json!({
        "task": format!("{}/{}", record["protocol"].as_str().unwrap(), record["config"]["name"].as_str().unwrap()),
        "rounds": by_round,
        "usage": all,
    })
}

/// The Ethics Bowl fixture with one round stopped by a failed call, and a person's
/// judgment of another round.
fn with_failure_and_person(into: &Path) -> [(&'static str, &'static str); 1] {
    let from = fixture("ethics_bowl");
    std::fs::create_dir_all(into.join("rounds")).unwrap();
    std::fs::copy(from.join("tournament.json"), into.join("tournament.json")).unwrap();
    for r in rounds(&from) {
        let mut r = r;
        let id = r["id"].as_str().unwrap().to_string();
        if id == "reversible_promise__sim-beta__vs__sim-gamma__r1" {
            let phases: Vec<Value> = r["phases"].as_array().unwrap()[..2].to_vec();
            r["phases"] = Value::Array(phases);
            r["judgments"] = json!([]);
            r["scores"] = Value::Null;
            r["status"] = json!("incomplete");
            r["error"] = json!({
                "phase_type": "consistency_test",
                "model_id": "sim-beta",
                "message": "HTTP 503: the server is overloaded",
                "timestamp": "2026-11-22T23:01:30Z",
                "attempts": [{"number": 1, "latency_ms": 120, "error": "HTTP 503", "error_kind": "http"}]
            });
        }
        std::fs::write(
            into.join("rounds").join(format!("{id}.json")),
            serde_json::to_string_pretty(&r).unwrap(),
        )
        .unwrap();
    }
    let round = "borrowed_voice__sim-alpha__vs__sim-beta__r1";
    let scores = |v: f64| {
        json!({
            "principle_articulation": v, "consistency": v, "stakeholder_recognition": v,
            "uncertainty_integration": v, "framework_awareness": v, "intellectual_honesty": v,
            "constructive_engagement": v
        })
    };
    let annotation = json!({
        "schema_version": 1,
        "annotator": "ada",
        "written_at": "2026-11-23T10:00:00Z",
        "blind": true,
        "via": "tui",
        "round_id": round,
        "judgment": {"protocol": "ethics_bowl", "team_a": scores(8.0), "team_b": scores(6.0)}
    });
    std::fs::create_dir_all(into.join("annotations/ada")).unwrap();
    std::fs::write(
        into.join("annotations/ada").join(format!("{round}.json")),
        serde_json::to_string_pretty(&annotation).unwrap(),
    )
    .unwrap();
    [("ada", round)]
}

#[test]
fn each_protocols_log_has_a_sample_per_round_and_a_score_per_usable_judgment() {
    let out = tempfile::tempdir().unwrap();
    for name in FIXTURES {
        let dir = fixture(name);
        let log = export(&dir, &out.path().join(format!("{name}.json")));
        let want = expected(&dir, &[]);
        assert_eq!(log["version"], 2);
        assert_eq!(log["eval"]["task"], want["task"]);
        let samples = log["samples"].as_array().unwrap();
        let rounds = want["rounds"].as_object().unwrap();
        assert_eq!(samples.len(), rounds.len(), "{name}");
        for s in samples {
            let w = &rounds[s["id"].as_str().unwrap()];
            let names: BTreeSet<&String> = s["scores"]
                .as_object()
                .map(|m| m.keys().collect())
                .unwrap_or_default();
            let wanted: BTreeSet<&String> = w["scores"].as_object().unwrap().keys().collect();
            assert_eq!(names, wanted, "{name}: {}", s["id"]);
            for (judge, values) in w["scores"].as_object().unwrap() {
                for (key, v) in values.as_object().unwrap() {
                    assert_eq!(
                        &s["scores"][judge]["value"][key], v,
                        "{name}: {judge} {key}"
                    );
                }
            }
            // The input, then one message per call, each naming its model and role.
            let messages = s["messages"].as_array().unwrap();
            assert_eq!(messages[0]["role"], "user");
            assert_eq!(messages.len(), w["calls"].as_u64().unwrap() as usize + 1);
            for m in &messages[1..] {
                assert_eq!(m["role"], "assistant");
                assert_eq!(m["model"], m["metadata"]["model"]);
                assert!(m["metadata"]["role"].is_string(), "{m}");
            }
        }
        let usage: BTreeMap<String, [u64; 2]> = log["stats"]["model_usage"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(m, u)| {
                (
                    m.clone(),
                    [
                        u["input_tokens"].as_u64().unwrap(),
                        u["output_tokens"].as_u64().unwrap(),
                    ],
                )
            })
            .collect();
        assert_eq!(
            serde_json::to_value(&usage).unwrap(),
            want["usage"],
            "{name}"
        );
        // Every headline figure has its rows with their interval and n; a row that cannot
        // be computed is named instead.
        let figures = log["results"]["scores"].as_array().unwrap();
        for f in figures {
            let metrics = f["metrics"].as_object().unwrap();
            assert!(!metrics.is_empty(), "{name}: {f}");
            for m in metrics.values() {
                assert!(m["value"].is_number(), "{name}: {m}");
                assert!(m["metadata"]["n"].is_u64(), "{name}: {m}");
                assert!(m["metadata"].get("low").is_some(), "{name}: {m}");
            }
        }
        assert!(
            !figures.is_empty() || log["results"]["metadata"]["not_computed"].is_array(),
            "{name}: {}",
            log["results"]
        );
    }
}

#[test]
fn a_failed_round_is_a_sample_with_an_error_and_a_persons_judgment_is_a_score() {
    let dir = tempfile::tempdir().unwrap();
    with_failure_and_person(dir.path());
    let log = export(dir.path(), &dir.path().join("log.json"));
    let samples = log["samples"].as_array().unwrap();
    let failed = samples
        .iter()
        .find(|s| s["id"] == "reversible_promise__sim-beta__vs__sim-gamma__r1")
        .unwrap();
    assert!(
        failed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("HTTP 503"),
        "{failed}"
    );
    assert!(failed.get("scores").is_none(), "{failed}");
    assert_eq!(failed["metadata"]["status"], "incomplete");
    assert_eq!(log["results"]["completed_samples"], 3);
    let person = &samples
        .iter()
        .find(|s| s["id"] == "borrowed_voice__sim-alpha__vs__sim-beta__r1")
        .unwrap()["scores"]["human:ada"];
    assert_eq!(person["value"]["team_a.total"], 56.0);
    assert_eq!(person["value"]["verdict"], "A");
    assert_eq!(person["metadata"]["judge_kind"], "human");
    assert_eq!(person["metadata"]["names_shown"], false);
}

#[test]
fn inspect_reads_the_log_of_each_protocol() {
    let Some(python) = inspect_python() else {
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/export_inspect_read.py");
    let work = tempfile::tempdir().unwrap();
    let altered = work.path().join("ethics_bowl_failed");
    let people = with_failure_and_person(&altered);
    let mut folders: Vec<(String, PathBuf, People)> = FIXTURES
        .iter()
        .map(|n| (n.to_string(), fixture(n), &[][..]))
        .collect();
    folders.push(("ethics_bowl_failed".into(), altered.clone(), &people[..]));
    let mut args = Vec::new();
    for (name, dir, people) in folders {
        let log = work.path().join(format!("{name}.json"));
        export(&dir, &log);
        let want = work.path().join(format!("{name}-expected.json"));
        std::fs::write(&want, expected(&dir, people).to_string()).unwrap();
        args.extend([log, want]);
    }
    let o = Command::new(&python)
        .arg(&script)
        .args(&args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "inspect-ai's reader disagrees:\n{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(stdout.lines().count(), args.len() / 2, "{stdout}");
}

/// The Ethics Bowl fixture copied into `into`, its record saying it was run from
/// `config_file`.
fn copied_with_config_file(into: &Path, config_file: &Path) -> Value {
    let from = fixture("ethics_bowl");
    std::fs::create_dir_all(into.join("rounds")).unwrap();
    for r in rounds(&from) {
        std::fs::write(
            into.join("rounds")
                .join(format!("{}.json", r["id"].as_str().unwrap())),
            serde_json::to_string_pretty(&r).unwrap(),
        )
        .unwrap();
    }
    let mut record: Value =
        serde_json::from_str(&std::fs::read_to_string(from.join("tournament.json")).unwrap())
            .unwrap();
    record["config_file"] = json!(config_file);
    record
}

#[test]
fn the_input_is_the_dilemma_from_its_document_else_the_first_prompt_which_quotes_it() {
    let dir = tempfile::tempdir().unwrap();
    let sample_config = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-config/tournament.toml");
    let found = dir.path().join("found");
    let record = copied_with_config_file(&found, &sample_config);
    std::fs::write(found.join("tournament.json"), record.to_string()).unwrap();
    let log = export(&found, &dir.path().join("found.json"));
    let input = log["samples"][0]["input"].as_str().unwrap();
    assert!(input.starts_with("# The Borrowed Voice\n\n"), "{input}");
    assert!(input.contains("## Parallel case"), "{input}");

    let missing = dir.path().join("missing");
    let record = copied_with_config_file(&missing, &dir.path().join("gone/tournament.toml"));
    std::fs::write(missing.join("tournament.json"), record.to_string()).unwrap();
    let out = dir.path().join("missing.json");
    let o = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"))
        .arg("export")
        .arg(&missing)
        .args(["--format", "inspect", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.contains("the dilemma document could not be read"),
        "{stderr}"
    );
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let input = log["samples"][0]["input"].as_str().unwrap();
    assert!(
        input.starts_with("## Your role: presenting team"),
        "{input}"
    );
    assert!(input.contains("The Borrowed Voice"), "{input}");
}

#[test]
fn a_key_in_a_stored_round_is_in_no_export() {
    const KEY: &str = "sk-export-test-0123456789abcdefghijklmnop";
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let mut record = copied_with_config_file(&results, Path::new("/nowhere/tournament.toml"));
    record["models"][0]["api_key_env"] = json!("ETHICS_BOWL_EXPORT_TEST_KEY");
    std::fs::write(results.join("tournament.json"), record.to_string()).unwrap();
    // An older build's file with the key in an answer, a judge's analysis and an error.
    let path = results
        .join("rounds")
        .join("borrowed_voice__sim-alpha__vs__sim-beta__r1.json");
    let mut round: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    round["phases"][0]["response"] = json!(format!("my key is {KEY}"));
    round["judgments"][0]["overall_analysis"] = json!(format!("judged with {KEY}"));
    round["phases"][1]["finish_reason"] = json!(format!("stop {KEY}"));
    std::fs::write(&path, round.to_string()).unwrap();
    let mut written = Vec::new();
    for (format, out) in [
        ("inspect", dir.path().join("log.json")),
        ("csv", dir.path().join("csv")),
        ("jsonl", dir.path().join("jsonl")),
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"))
            .env("ETHICS_BOWL_EXPORT_TEST_KEY", KEY)
            .arg("export")
            .arg(&results)
            .args(["--format", format, "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        written.push(out);
    }
    let mut files = vec![written[0].clone()];
    for d in &written[1..] {
        files.extend(std::fs::read_dir(d).unwrap().map(|e| e.unwrap().path()));
    }
    assert_eq!(files.len(), 7);
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        assert!(!text.contains(KEY), "{} holds the key", f.display());
        assert!(
            !text.contains("0123456789abcdefghijklmnop"),
            "{}",
            f.display()
        );
    }
    // The answer is there, the key in it replaced.
    let log = std::fs::read_to_string(&written[0]).unwrap();
    assert!(log.contains("my key is "), "the answer is missing");
}
