//! Batch mode in the live UI: a round whose calls wait in a provider's batch is marked `⧗`
//! in the matrix, the header shows each model's open batches (answered and failed out of
//! sent, age, next poll, both moving on the UI's clock), and quitting asks whether to cancel
//! the open batches at the provider or leave them for a resumed run.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ethics_bowl::domain::{PhaseType, RoundRecord, ScheduledRound};
use ethics_bowl::engine::{EngineCommand, EngineEvent, ScheduledState};
use ethics_bowl::providers::BatchView;
use ethics_bowl::tui::{App, Effect, Mode, Msg, Theme, update, views};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn scheduled(dilemma: &str) -> ScheduledState {
    let round = ethics_bowl::protocols::blank_round(
        &ScheduledRound {
            round_id: format!("{dilemma}__claude__vs__gpt__r1"),
            dilemma_id: dilemma.into(),
            repetition: 1,
            team_a: "claude".into(),
            team_b: "gpt".into(),
            judges: vec!["judge".into()],
            format: None,
            relation: None,
        },
        RoundRecord::EthicsBowl,
    );
    ScheduledState {
        round: Arc::new(round),
        stored: false,
        to_run: true,
        text_dropped: false,
    }
}

fn key(app: &mut App, c: char) -> Vec<Effect> {
    update(
        app,
        Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)),
    )
}

/// A live run: one round waiting in claude's batch, one streaming from gpt.
fn live_app() -> (App, Instant) {
    let t0 = Instant::now();
    let mut app = App::new("batched", Mode::Live, t0);
    update(
        &mut app,
        Msg::Engine(EngineEvent::Started {
            tournament_id: "batched".into(),
            rounds: vec![scheduled("borrowed_voice"), scheduled("quiet_majority")],
        }),
    );
    let started = |round: &str, model: &str| EngineEvent::PhaseStarted {
        round_id: format!("{round}__claude__vs__gpt__r1"),
        phase_type: PhaseType::Presentation,
        model: model.into(),
    };
    update(&mut app, Msg::Engine(started("borrowed_voice", "claude")));
    update(
        &mut app,
        Msg::Engine(EngineEvent::PhaseBatched {
            round_id: "borrowed_voice__claude__vs__gpt__r1".into(),
            phase_type: PhaseType::Presentation,
            model: "claude".into(),
        }),
    );
    update(&mut app, Msg::Engine(started("quiet_majority", "gpt")));
    update(
        &mut app,
        Msg::Engine(EngineEvent::Batches {
            open: vec![BatchView {
                model: "claude".into(),
                provider: "anthropic",
                remote: "msgbatch_01".into(),
                requests: 200,
                succeeded: 120,
                failed: 3,
                state: "in_progress".into(),
                age: Duration::from_secs(170),
                next_poll_in: Some(Duration::from_secs(45)),
            }],
        }),
    );
    update(&mut app, Msg::Tick(t0 + Duration::from_secs(10)));
    (app, t0)
}

#[test]
fn a_batched_round_and_the_open_batches_show_in_the_matrix_and_header() {
    let (app, _) = live_app();
    let mut terminal = Terminal::new(TestBackend::new(120, 30)).expect("terminal");
    terminal
        .draw(|f| views::render(f, &app, &Theme::no_color()))
        .expect("draw");
    let text = terminal.backend().to_string();
    assert!(text.contains("⧗P"), "the batched round's cell:\n{text}");
    assert!(text.contains("▶P"), "the streaming round's cell:\n{text}");
    let header: String = text
        .lines()
        .take(3)
        .map(|l| l.trim_matches('"').trim_end())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        header.contains(
            "batches claude (anthropic) 1 (120/200 done, 3 failed, open 3 min, next poll 35 s)"
        ),
        "ten seconds on by the UI's clock:\n{header}"
    );
    insta::assert_snapshot!("batches_live_120x30", terminal.backend());
    assert!(
        app.mirror.log.iter().any(|l| l
            .text
            .contains("batch opened: claude (anthropic) msgbatch_01: 200 requests")),
        "the log names the new batch"
    );
}

#[test]
fn quitting_with_open_batches_asks_whether_to_cancel_them() {
    let (mut app, _) = live_app();
    assert!(key(&mut app, 'q').is_empty(), "asks first");
    let footer = {
        let mut t = Terminal::new(TestBackend::new(200, 30)).unwrap();
        t.draw(|f| views::render(f, &app, &Theme::no_color()))
            .unwrap();
        t.backend().to_string()
    };
    assert!(
        footer.contains("1 batch is open at the provider") && footer.contains("c cancels it"),
        "{footer}"
    );
    assert_eq!(
        key(&mut app, 'c'),
        vec![
            Effect::Command(EngineCommand::CancelBatches),
            Effect::Command(EngineCommand::Cancel),
            Effect::Quit
        ]
    );
    let (mut app, _) = live_app();
    key(&mut app, 'q');
    assert_eq!(
        key(&mut app, 'q'),
        vec![Effect::Command(EngineCommand::Cancel), Effect::Quit],
        "q leaves the batches open for a resumed run"
    );
}

#[test]
fn a_call_waiting_in_a_batch_says_so_in_the_transcript() {
    let (mut app, _) = live_app();
    update(
        &mut app,
        Msg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)),
    );
    let mut terminal = Terminal::new(TestBackend::new(120, 30)).expect("terminal");
    terminal
        .draw(|f| views::render(f, &app, &Theme::no_color()))
        .expect("draw");
    let text = terminal.backend().to_string();
    assert!(text.contains("waiting in a batch…"), "{text}");
}

#[test]
fn y_copies_the_round_as_markdown_and_says_so() {
    let (mut app, _) = live_app();
    update(
        &mut app,
        Msg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)),
    );
    let effects = key(&mut app, 'y');
    let [Effect::Copy(text)] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    assert!(
        text.starts_with("# Round borrowed_voice__claude__vs__gpt__r1"),
        "{text}"
    );
    let notice = app.notice.clone().unwrap_or_default();
    assert!(
        notice.contains("OSC 52") && notice.contains("--markdown"),
        "{notice}"
    );
    key(&mut app, 'j');
    assert!(app.notice.is_none(), "the notice goes with the next key");
}
