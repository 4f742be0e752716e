//! A disk that refuses the round files. The refusal is made real by putting a plain file where
//! the `rounds` folder was, so every write of a round fails as on a full disk (with the
//! system's own error), and "space returns" by putting the folder back. The first refused
//! write stops new calls and names the file; calls under way finish and are stored once the
//! disk takes writes again, or are counted as lost; and a disk with less free space than
//! `min_free_space_mb` starts no call at all.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use ethics_bowl::domain::Round;
use ethics_bowl::engine::{self, EngineError, EngineEvent};
use support::tournament::{sim, write};
use tokio::sync::mpsc;

/// Two rounds of one pairing, both in flight at once, calls taking tens of milliseconds.
fn tournament(dir: &Path, extra: &str) -> PathBuf {
    let models = [
        sim("m-a", 0.8, 400.0, 0.0),
        sim("m-b", 0.5, 400.0, 0.0),
        sim("judge", 0.7, 400.0, 0.0),
    ]
    .concat();
    write(
        dir,
        &models,
        &format!(
            "models = [\"m-a\", \"m-b\"]\njudges = [\"judge\"]\npairings = [[\"m-a\", \"m-b\"]]\n\
             dilemmas = [\"borrowed_voice\", \"quiet_majority\"]\nmax_concurrency = 2\n{extra}"
        ),
    )
}

/// The disk refuses round files from now on: a file stands where the folder was.
fn refuse(rounds: &Path) {
    std::fs::rename(rounds, rounds.with_extension("away")).unwrap();
    std::fs::write(rounds, "not a folder").unwrap();
}

/// The disk takes round files again.
fn take_again(rounds: &Path) {
    std::fs::remove_file(rounds).unwrap();
    std::fs::rename(rounds.with_extension("away"), rounds).unwrap();
}

/// Runs the tournament, refusing round files after the first round snapshot is stored and,
/// with `space_returns`, taking them again once the refusal is announced; returns how the
/// run ended and every event.
async fn run_refusing(
    config: &Path,
    rounds: PathBuf,
    space_returns: bool,
) -> (Result<engine::RunReport, EngineError>, Vec<EngineEvent>) {
    let prepared = engine::prepare(config, None).unwrap();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let (_commands, mut commands_rx) = mpsc::unbounded_channel();
    let run = tokio::spawn(async move { engine::run(prepared, tx, &mut commands_rx).await });
    let mut events = Vec::new();
    let mut refused = false;
    while let Some(event) = rx.recv().await {
        if !refused && matches!(event, EngineEvent::RoundStored { .. }) {
            refuse(&rounds);
            refused = true;
        }
        if space_returns && matches!(event, EngineEvent::StoreFailed { .. }) {
            take_again(&rounds);
        }
        events.push(event);
    }
    (run.await.unwrap(), events)
}

/// Every round file in `rounds`.
fn stored(rounds: &Path) -> Vec<Round> {
    std::fs::read_dir(rounds)
        .unwrap()
        .filter_map(|e| {
            let path = e.unwrap().path();
            (path.extension().is_some_and(|x| x == "json"))
                .then(|| serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap())
        })
        .collect()
}

fn calls_started(events: &[EngineEvent]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, EngineEvent::PhaseStarted { .. }))
        .count()
}

/// Where the refusal was announced, and its message.
fn refusal(events: &[EngineEvent]) -> (usize, String) {
    events
        .iter()
        .enumerate()
        .find_map(|(i, e)| match e {
            EngineEvent::StoreFailed { message } => Some((i, message.clone())),
            _ => None,
        })
        .expect("the refusal is announced")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_write_stops_new_calls_names_the_file_and_answers_in_flight_are_stored_once_space_returns()
 {
    let dir = tempfile::tempdir().unwrap();
    let config = tournament(dir.path(), "");
    let rounds = dir.path().join("results/test/rounds");
    let (result, events) = run_refusing(&config, rounds.clone(), true).await;

    let (at, message) = refusal(&events);
    assert!(
        message.contains("rounds/") && message.contains(".json"),
        "names the round file: {message}"
    );
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, EngineEvent::StoreFailed { .. }))
            .count(),
        1,
        "announced once"
    );
    // A call's start is announced behind its round's last snapshot, so calls under way when
    // the disk refused (at most two a round: the consistency tests) may be announced after
    // it; no other starts (the engine's check is tested in `engine::control`).
    assert!(
        calls_started(&events[at..]) <= 4,
        "only calls under way at the refusal"
    );
    let e = result.expect_err("the run says the store stopped it");
    assert!(matches!(e, EngineError::StoreStopped { .. }), "{e}");
    let said = e.to_string();
    assert!(said.contains("no call was started after it"), "{said}");
    assert!(said.contains("every answer received was stored"), "{said}");
    // Every call that started was answered and is on disk.
    let phases: usize = stored(&rounds).iter().map(|r| r.phases.len()).sum();
    assert_eq!(phases, calls_started(&events));
    assert!(phases < 14, "the run stopped part-way ({phases} answers)");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_that_can_never_be_stored_are_counted_as_lost() {
    let dir = tempfile::tempdir().unwrap();
    let config = tournament(dir.path(), "");
    let rounds = dir.path().join("results/test/rounds");
    let (result, events) = run_refusing(&config, rounds.clone(), false).await;
    let (at, _) = refusal(&events);
    assert!(calls_started(&events[at..]) <= 4);
    let said = result.expect_err("stopped").to_string();
    assert!(said.contains("could not be stored and are lost"), "{said}");
    take_again(&rounds);
    let on_disk: usize = stored(&rounds).iter().map(|r| r.phases.len()).sum();
    let lost: usize = said
        .split(" answer(s) received")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("a count of answers lost");
    assert_eq!(on_disk + lost, calls_started(&events), "{said}");
}

#[test]
fn a_disk_with_too_little_free_space_starts_no_call() {
    let dir = tempfile::tempdir().unwrap();
    // More MiB than any disk has.
    let config = tournament(dir.path(), "min_free_space_mb = 1000000000000\n");
    let out = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"))
        .args(["run", "--headless"])
        .arg(&config)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("MiB free on the disk holding"), "{stderr}");
    assert!(
        stderr.contains("min_free_space_mb = 1000000000000"),
        "{stderr}"
    );
    assert!(
        stderr.contains("resume with: ethics-bowl run --resume"),
        "{stderr}"
    );
    let rounds = dir.path().join("results/test/rounds");
    let files = std::fs::read_dir(&rounds).map_or(0, |d| d.count());
    assert_eq!(files, 0, "nothing was played");
}
