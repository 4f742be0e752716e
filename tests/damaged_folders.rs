//! Results folders as real use leaves them: a round file cut short by a crash, folders that
//! are not results at all, filters that name nothing. Each is worked with or refused with a
//! message that says what to do, never stopped on silently.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::path::Path;
use std::process::{Command, Output};

use ethics_bowl::domain::RoundStatus;
use ethics_bowl::store::{RoundFilter, Store};
use support::tournament::{sim, write};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    // `run` logs to the default log file: keep it out of the user's data folder.
    c.env(
        "XDG_DATA_HOME",
        std::env::temp_dir().join("ethics-bowl-test-data"),
    );
    c
}

fn output(c: &mut Command) -> (Output, String, String) {
    let out = c.output().expect("runs");
    (
        out.clone(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const ONE_DILEMMA: &str = "models = [\"sim-alpha\", \"sim-beta\"]\njudges = [\"sim-gamma\"]\ndilemmas = [\"borrowed_voice\"]\nmax_concurrency = 4\n";

fn three_models() -> String {
    [
        sim("sim-alpha", 0.8, 5000.0, 0.0),
        sim("sim-beta", 0.6, 5000.0, 0.0),
        sim("sim-gamma", 0.7, 5000.0, 0.0),
    ]
    .concat()
}

#[test]
fn resume_sets_a_truncated_round_file_aside_and_plays_its_round_again() {
    let dir = tempfile::tempdir().unwrap();
    let config = write(dir.path(), &three_models(), ONE_DILEMMA);
    let results = dir.path().join("results/test");
    let (out, _, stderr) = output(bin().args(["run", "--headless"]).arg(&config));
    assert!(out.status.success(), "{stderr}");

    let victim = results.join("rounds/borrowed_voice__sim-alpha__vs__sim-beta__r1.json");
    let text = std::fs::read_to_string(&victim).unwrap();
    std::fs::write(&victim, &text[..text.len() / 2]).unwrap();

    let (out, _, stderr) = output(bin().args(["run", "--headless", "--resume"]).arg(&results));
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("borrowed_voice__sim-alpha__vs__sim-beta__r1.json could not be read"),
        "{stderr}"
    );
    assert!(stderr.contains(".unreadable"), "{stderr}");
    let kept = results.join("rounds/.unreadable/borrowed_voice__sim-alpha__vs__sim-beta__r1.json");
    assert_eq!(
        std::fs::read_to_string(&kept).unwrap(),
        text[..text.len() / 2]
    );
    let store = Store::open(&results).unwrap();
    let (rounds, errors) = store.load_rounds(&RoundFilter::default()).unwrap();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(rounds.len(), 2);
    assert!(rounds.iter().all(|r| r.status != RoundStatus::Incomplete));

    let (out, _, stderr) = output(bin().arg("rounds").arg(&results));
    assert!(out.status.success());
    assert!(
        stderr.contains("1 unreadable round file set aside") && stderr.contains(".unreadable"),
        "{stderr}"
    );
}

#[test]
fn a_folder_that_holds_no_results_is_refused_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    for command in ["rounds", "report"] {
        let (out, _, stderr) = output(bin().arg(command).arg(dir.path()));
        assert_eq!(out.status.code(), Some(2), "{command}: {stderr}");
        assert!(
            stderr.contains("not a results folder"),
            "{command}: {stderr}"
        );
    }
}

#[test]
fn a_filter_naming_nothing_in_the_folder_is_an_error_that_lists_what_is_there() {
    let results =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/stored-v0/ethics_bowl");
    let (out, stdout, stderr) = output(
        bin()
            .arg("rounds")
            .arg(&results)
            .args(["--judge", "no-such-judge"]),
    );
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    assert!(stderr.contains("--judge no-such-judge"), "{stderr}");
    assert!(
        stderr.contains("judges: sim-alpha, sim-beta, sim-gamma"),
        "{stderr}"
    );
    assert!(stderr.contains("statuses:"), "{stderr}");

    // Values that exist but match nothing together: an empty answer, said so.
    let (out, stdout, stderr) = output(bin().arg("rounds").arg(&results).args([
        "--model",
        "sim-gamma",
        "--dilemma",
        "borrowed_voice",
    ]));
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("no round matches these filters together"),
        "{stderr}"
    );
    assert!(stdout.contains("0 rounds"), "{stdout}");
}

#[test]
fn open_names_unreadable_round_files_in_the_header_and_the_log() {
    let results =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/stored-v0/ethics_bowl");
    let store = Store::open(&results).unwrap();
    let (rounds, _) = store.load_rounds(&RoundFilter::default()).unwrap();
    let mut app = ethics_bowl::tui::browse("eb", &rounds, std::time::Instant::now());
    app.mirror
        .note_unreadable(&["rounds/x.json: not a valid round file: EOF".to_string()]);
    let screen = support::draw(&app);
    let text: String = screen
        .backend()
        .buffer()
        .content()
        .iter()
        .map(|c| c.symbol())
        .collect();
    assert!(
        text.contains("1 unreadable round file") && text.contains("(log: g)"),
        "{text}"
    );
    assert!(
        app.mirror.log.iter().any(|l| l
            .text
            .contains("unreadable: rounds/x.json: not a valid round file")),
        "{:?}",
        app.mirror.log
    );
}

/// A round file named for one round but holding another is set aside, never written over
/// the round it holds (and never overwritten by the round its name says); a file whose id
/// has a path in it is the same damage. Both rounds are played or kept as they should be.
#[test]
fn a_round_file_holding_another_round_is_set_aside_and_both_rounds_stay_whole() {
    let dir = tempfile::tempdir().unwrap();
    let config = write(dir.path(), &three_models(), ONE_DILEMMA);
    let results = dir.path().join("results/test");
    let (out, _, stderr) = output(bin().args(["run", "--headless"]).arg(&config));
    assert!(out.status.success(), "{stderr}");
    let rounds = results.join("rounds");
    let a = rounds.join("borrowed_voice__sim-alpha__vs__sim-beta__r1.json");
    let b = rounds.join("borrowed_voice__sim-beta__vs__sim-alpha__r1.json");
    let whole_a = std::fs::read_to_string(&a).unwrap();
    // B's file now holds A's round; a stray file holds an id with a path in it.
    std::fs::write(&b, &whole_a).unwrap();
    let mut escaping: serde_json::Value = serde_json::from_str(&whole_a).unwrap();
    escaping["id"] = "../../escaped".into();
    std::fs::write(rounds.join("stray.json"), escaping.to_string()).unwrap();

    let (out, _, stderr) = output(bin().args(["run", "--headless", "--resume"]).arg(&results));
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("the round inside is \"borrowed_voice__sim-alpha__vs__sim-beta__r1\""),
        "{stderr}"
    );
    assert!(stderr.contains("stray.json"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&a).unwrap(),
        whole_a,
        "A's round untouched"
    );
    let replayed: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&b).unwrap()).unwrap();
    assert_eq!(
        replayed["id"],
        "borrowed_voice__sim-beta__vs__sim-alpha__r1"
    );
    assert!(!dir.path().join("escaped.json").exists() && !results.join("escaped.json").exists());
    assert!(rounds.join(".unreadable/stray.json").exists());
}

/// A round file from a newer ethics-bowl stops a run with exit 2 before anything is set
/// aside or paid for.
#[test]
fn a_round_file_from_a_newer_build_stops_the_run_with_exit_2_and_touches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let config = write(dir.path(), &three_models(), ONE_DILEMMA);
    let results = dir.path().join("results/test");
    let (out, _, stderr) = output(bin().args(["run", "--headless"]).arg(&config));
    assert!(out.status.success(), "{stderr}");
    let a = results.join("rounds/borrowed_voice__sim-alpha__vs__sim-beta__r1.json");
    let mut newer: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&a).unwrap()).unwrap();
    newer["schema_version"] = 99.into();
    newer["status"] = "incomplete".into();
    let text = newer.to_string();
    std::fs::write(&a, &text).unwrap();

    let (out, _, stderr) = output(bin().args(["run", "--headless", "--resume"]).arg(&results));
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("written by a newer ethics-bowl") && stderr.contains("upgrade"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&a).unwrap(), text, "left as it was");
    assert!(!results.join("rounds/.unreadable").exists());
}

/// A FIFO named like a round file is set aside by a run, never opened (which would wait
/// forever), and listed, not read, by the readers.
#[cfg(unix)]
#[test]
fn a_fifo_among_the_round_files_is_never_read() {
    let dir = tempfile::tempdir().unwrap();
    let config = write(dir.path(), &three_models(), ONE_DILEMMA);
    let results = dir.path().join("results/test");
    let (out, _, stderr) = output(bin().args(["run", "--headless"]).arg(&config));
    assert!(out.status.success(), "{stderr}");
    let fifo = results.join("rounds/pipe.json");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let (out, _, stderr) = output(bin().arg("rounds").arg(&results));
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("pipe.json") && stderr.contains("not a regular file"),
        "{stderr}"
    );
    let (out, _, stderr) = output(bin().args(["run", "--headless", "--resume"]).arg(&results));
    assert!(out.status.success(), "{stderr}");
    assert!(
        results.join("rounds/.unreadable/pipe.json").exists(),
        "{stderr}"
    );
}
