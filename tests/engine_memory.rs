//! Memory at scale: what the headless path (the engine, and the [`Progress`] that prints
//! its lines) holds of a round once the round is finished. Every stored round reaches
//! consumers as an `Arc<Round>`; a weak reference to each shows whether anyone still holds
//! it. Finished rounds must be let go: memory grows with rounds in flight, not with rounds
//! finished.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::collections::HashMap;
use std::sync::{Arc, Weak};

use ethics_bowl::domain::Round;
use ethics_bowl::engine::{self, Change, EngineEvent, Progress};
use support::tournament::{sim, write};
use tokio::sync::mpsc;

#[tokio::test]
async fn no_finished_round_is_held_while_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let models = [
        sim("a", 0.8, 0.0, 0.2),
        sim("b", 0.5, 0.0, 0.2),
        sim("c", 0.4, 0.0, 0.2),
    ]
    .concat();
    // 3 ordered pairs × 7 dilemmas = 42 rounds, two at a time.
    let config = write(
        dir.path(),
        &models,
        "models = [\"a\", \"b\", \"c\"]\njudges = [\"a\", \"b\", \"c\"]\njudging = \"rotate\"\npairings = [[\"a\", \"b\"], [\"b\", \"c\"], [\"c\", \"a\"]]\nmax_concurrency = 2\njudge_corrections = 0\n",
    );
    let prepared = engine::prepare(&config, None).expect("prepares");
    let rounds = prepared.schedule.rounds.len();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let (_commands, mut commands_rx) = mpsc::unbounded_channel();
    let engine = tokio::spawn(async move { engine::run(prepared, tx, &mut commands_rx).await });

    let mut progress = Progress::default();
    // Every round value sent so far, by round id.
    let mut sent: HashMap<String, Vec<Weak<Round>>> = HashMap::new();
    let mut finished = Vec::new();
    let mut checked = 0;
    while let Some(event) = rx.recv().await {
        match &event {
            EngineEvent::Started { rounds, .. } => {
                for s in rounds {
                    sent.entry(s.round.id.clone())
                        .or_default()
                        .push(Arc::downgrade(&s.round));
                }
            }
            EngineEvent::RoundStored { round } => sent
                .entry(round.id.clone())
                .or_default()
                .push(Arc::downgrade(round)),
            _ => {}
        }
        for change in progress.apply(&event) {
            if let Change::RoundFinished(round) = change {
                finished.push(round.id.clone());
            }
        }
        drop(event);
        // Every round this run has finished with: no one holds any state of it any more.
        for id in &finished {
            let alive = sent[id].iter().filter(|w| w.strong_count() > 0).count();
            assert_eq!(alive, 0, "round {id} is still held after it finished");
            checked += 1;
        }
    }
    let report = engine.await.unwrap().expect("runs");
    assert_eq!(finished.len(), rounds, "every round finished");
    assert!(checked > rounds, "rounds were checked while others ran");
    // What the printer kept of them agrees with the store's summary.
    let counts = progress.counts();
    assert_eq!(
        (
            counts.complete,
            counts.needs_review,
            counts.incomplete,
            counts.not_started
        ),
        (
            report.summary.complete,
            report.summary.needs_review,
            report.summary.incomplete,
            report.summary.not_started
        )
    );
    assert!(counts.needs_review > 0, "some judgments wait for review");
    assert_eq!(progress.totals().calls as usize, calls_stored(&report));
}

/// Answered calls stored over every round of the run.
fn calls_stored(report: &engine::RunReport) -> usize {
    support::tournament::stored_rounds(report)
        .iter()
        .flat_map(|r| &r.phases)
        .filter(|p| p.error.is_none())
        .count()
}
