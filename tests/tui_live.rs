//! The terminal UI fed the events of real (simulated) runs through `update`, as a live run
//! feeds it: the structured debate's verdict tab with its argument trace while the run goes
//! on and after it, the live Analysis equal to the report's, and a resumed run that starts
//! from what the first run stored.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::path::{Path, PathBuf};
use std::time::Instant;

use crossterm::event::KeyCode;
use ethics_bowl::analysis::analyse;
use ethics_bowl::domain::RoundStatus;
use ethics_bowl::engine::{self, EngineCommand, EngineEvent};
use ethics_bowl::store::{RoundFilter, Store};
use ethics_bowl::tui::{App, Mode, Msg, Screen, update};
use support::tournament::{manifest, run_collecting, sim, stored_rounds, write, write_tournament};
use support::{draw, press};
use tokio::sync::mpsc;

/// A structured debate over one sample topic, one round at a time (so the events, and the
/// screens drawn from them, are the same on every run).
fn structured(dir: &Path) -> PathBuf {
    let model = |name: &str| {
        format!(
            "[[models]]\nname = \"{name}\"\nprovider = \"simulated\"\nmodel = \"{name}\"\n[models.simulated]\nquality = 0.7\n\
             tokens_per_second = 0\nmalformed_judgment_rate = 0\nbroken_json_rate = 0\nskip_argument_rate = 0\noverlong_rate = 0\n"
        )
    };
    let body = format!(
        "protocol = \"structured_debate\"\nmodels = [\"a\", \"b\"]\njudges = [\"j\"]\nmax_concurrency = 1\n\
         [structured]\ntopics_file = \"{}\"\ntopics = [\"microservices_day_one\"]\n",
        manifest("sample-config/topics.toml").display()
    );
    write_tournament(dir, &[model("a"), model("b"), model("j")].concat(), &body)
}

fn apply(app: &mut App, events: impl IntoIterator<Item = EngineEvent>) {
    for e in events {
        update(app, Msg::Engine(e));
    }
}

#[tokio::test]
async fn the_structured_verdict_tab_shows_its_argument_trace_live() {
    let dir = tempfile::tempdir().unwrap();
    let config = structured(dir.path());
    let (report, events) = run_collecting(&config, None).await;
    // The first round is stored with its verdict while the second has yet to run.
    let verdict_at = events
        .iter()
        .position(|e| {
            matches!(e, EngineEvent::RoundStored { round }
                if round.judgments.iter().any(|j| j.is_usable() && j.verdict().is_some()))
        })
        .expect("a verdict is stored");
    let mut app = App::new("sd", Mode::Live, Instant::now());
    let mut events = events.into_iter();
    apply(&mut app, events.by_ref().take(verdict_at + 1));
    assert!(app.mirror.finished.is_none(), "the run goes on");
    let judged = app
        .mirror
        .rounds
        .iter()
        .position(|r| r.stored.judgments.iter().any(|j| j.verdict().is_some()))
        .expect("the judged round");
    let cell = *app
        .mirror
        .cells
        .iter()
        .find(|(_, i)| **i == judged)
        .expect("its cell")
        .0;
    app.screens.matrix.cursor = cell;
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.screen(), Screen::Round { scores: true });
    let during = draw(&app);
    let text = during.backend().to_string();
    let setup = app.mirror.rounds[judged]
        .stored
        .structured()
        .expect("a structured round");
    assert!(!setup.pro.arguments.is_empty() && !setup.con.arguments.is_empty());
    for argument in setup.pro.arguments.iter().chain(&setup.con.arguments) {
        assert!(
            text.lines()
                .any(|l| l.trim_start_matches('"').starts_with(&argument.id)),
            "the trace lists {}:\n{text}",
            argument.id
        );
    }
    assert!(text.contains(" · live · "), "{text}");
    insta::assert_snapshot!("structured_live_verdict_during_120x40", during.backend());

    // The rest of the run: the same round, the same trace; the run has finished.
    apply(&mut app, events);
    let after = draw(&app);
    let text = after.backend().to_string();
    assert!(text.contains(" · finished · "), "{text}");
    insta::assert_snapshot!("structured_live_verdict_after_120x40", after.backend());

    // What the UI holds is what is stored, and its Analysis is the report's.
    let stored = stored_rounds(&report);
    for r in &stored {
        let i = app.mirror.index[&r.id];
        assert_eq!(*app.mirror.rounds[i].stored, *r, "{}", r.id);
    }
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('a'));
    let live = serde_json::to_value(
        &app.screens
            .analysis
            .view
            .as_ref()
            .expect("analysis")
            .analysis,
    )
    .unwrap();
    let report = serde_json::to_value(analyse(&stored, &Default::default())).unwrap();
    assert_eq!(live, report);
    assert!(live["structured"].is_object(), "{live}");
}

#[tokio::test]
async fn a_resumed_run_starts_from_what_the_first_run_stored() {
    let dir = tempfile::tempdir().unwrap();
    let models = [
        sim("a", 0.8, 300.0, 0.5),
        sim("b", 0.5, 300.0, 0.5),
        sim("c", 0.5, 300.0, 0.5),
    ]
    .concat();
    let tournament = "models = [\"a\", \"b\", \"c\"]\njudges = [\"a\", \"b\", \"c\"]\nmax_concurrency = 2\ndilemmas = [\"borrowed_voice\", \"quiet_majority\"]\n";
    let config = write(dir.path(), &models, tournament);
    // The first session stops after two rounds.
    let prepared = engine::prepare(&config, None).unwrap();
    let store = Store::create(&prepared.dir).unwrap();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let (commands, mut crx) = mpsc::unbounded_channel();
    let first = tokio::spawn(async move { engine::run(prepared, tx, &mut crx).await });
    let mut finished = 0;
    while let Some(e) = rx.recv().await {
        if matches!(e, EngineEvent::RoundFinished { .. }) {
            finished += 1;
            if finished == 2 {
                commands.send(EngineCommand::Cancel).unwrap();
            }
        }
    }
    first.await.unwrap().unwrap();
    let (before, _) = store.load_rounds(&RoundFilter::default()).unwrap();
    let at_rest: Vec<_> = before
        .iter()
        .filter(|r| r.status != RoundStatus::Incomplete)
        .collect();
    assert!(at_rest.len() >= 2);

    // The second session: the state it starts from is the store's.
    let fast = [
        sim("a", 0.8, 0.0, 0.5),
        sim("b", 0.5, 0.0, 0.5),
        sim("c", 0.5, 0.0, 0.5),
    ]
    .concat();
    write(dir.path(), &fast, tournament);
    let (report, events) = run_collecting(&config, None).await;
    let mut app = App::new("test", Mode::Live, Instant::now());
    let mut events = events.into_iter();
    apply(&mut app, events.next());
    assert_eq!(app.mirror.resume().stored, before.len());
    assert_eq!(
        app.mirror.resume().to_run,
        app.mirror.rounds.len() - at_rest.len()
    );
    let header = draw(&app).backend().to_string();
    assert!(
        header.contains(&format!(
            "resumed: {} finished, {} to run",
            at_rest.len(),
            app.mirror.resume().to_run
        )),
        "{header}"
    );
    for r in &at_rest {
        let state = &app.mirror.rounds[app.mirror.index[&r.id]];
        assert_eq!(
            state.margin(),
            r.judgments
                .iter()
                .find(|j| j.is_usable())
                .and_then(|j| j.margin())
        );
        // A finished round comes without its text (the store has it, and the round view
        // reads it back); one waiting for a person keeps it for the review queue.
        assert_eq!(state.text_dropped, r.status == RoundStatus::Complete);
        let expected = if state.text_dropped {
            (*r).clone().without_text()
        } else {
            (*r).clone()
        };
        assert_eq!(state.stored.judgments, expected.judgments);
        assert!(state.transcript().count() == r.phases.len() && !r.phases.is_empty());
    }
    let flagged = |rounds: &[ethics_bowl::domain::Round]| -> usize {
        rounds.iter().map(|r| engine::waiting(r).len()).sum()
    };
    assert_eq!(app.shown().review_len(), flagged(&before));
    let tokens: u64 = before.iter().map(|r| r.tokens().0).sum();
    assert_eq!(app.mirror.totals().input_tokens, tokens);

    // After the run: everything stored, in both sessions, and nothing more.
    apply(&mut app, events);
    let after = stored_rounds(&report);
    assert_eq!(app.shown().review_len(), flagged(&after));
    let tokens: u64 = after.iter().map(|r| r.tokens().0).sum();
    assert_eq!(app.mirror.totals().input_tokens, tokens);
    assert!(!draw(&app).backend().to_string().contains("resumed:"));
}
