//! Snapshots of the annotate screen, one per protocol, at 100×30: a stored round of each
//! (`tests/fixtures/stored-v0`) being judged blind, part of its rubric typed (the Ethics
//! Bowl's scores by their digits alone, the cursor moving on by itself; the structured
//! debate's arguments' standings, one key each). No model's
//! name, no round id and nothing of the model judges may show.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::Path;
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ethics_bowl::store::{RoundFilter, Store};
use ethics_bowl::tui::msg::AnnotateStart;
use ethics_bowl::tui::{App, Msg, Theme, update, views};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// The fixture folder's rounds in the UI, judging `round` blind.
fn judging(protocol: &str, round: &str) -> App {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/stored-v0")
        .join(protocol);
    let (rounds, errors) = Store::open(&dir)
        .unwrap()
        .load_rounds(&RoundFilter::default())
        .unwrap();
    assert!(errors.is_empty());
    let mut app = ethics_bowl::tui::browse(protocol, &rounds, Instant::now());
    update(
        &mut app,
        Msg::AnnotateReady(Ok(AnnotateStart {
            annotator: "ann".into(),
            round_ids: vec![round.into(), "other".into()],
            done: vec![false, false],
            stored: Vec::new(),
            blind: true,
            standalone: true,
        })),
    );
    app
}

fn keys(app: &mut App, typed: &[KeyCode]) {
    for code in typed {
        update(app, Msg::Key(KeyEvent::new(*code, KeyModifiers::NONE)));
    }
}

fn drawn(app: &App) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    terminal
        .draw(|f| views::render(f, app, &Theme::no_color()))
        .unwrap();
    let text = terminal.backend().to_string();
    for hidden in ["sim-", "__"] {
        assert!(!text.contains(hidden), "{hidden} shows:\n{text}");
    }
    terminal
}

#[test]
fn annotate_ethics_bowl() {
    let mut app = judging("ethics_bowl", "borrowed_voice__sim-alpha__vs__sim-beta__r1");
    keys(
        &mut app,
        &[KeyCode::Char('7'), KeyCode::Char('1'), KeyCode::Char('0')],
    );
    insta::assert_snapshot!("annotate_ethics_bowl_100x30", drawn(&app).backend());
}

/// A person reads the Ethics Bowl's phases in the order its judges read them, whatever order
/// they finished in (the fixture stored the consistency tests before the rebuttal).
#[test]
fn an_ethics_bowl_round_reads_in_the_judges_order() {
    let app = judging("ethics_bowl", "borrowed_voice__sim-alpha__vs__sim-beta__r1");
    let mut terminal = Terminal::new(TestBackend::new(100, 400)).unwrap();
    terminal
        .draw(|f| views::render(f, &app, &Theme::no_color()))
        .unwrap();
    let text = terminal.backend().to_string();
    let at = |heading: &str| {
        text.find(heading)
            .unwrap_or_else(|| panic!("{heading} missing:\n{text}"))
    };
    let order = [
        at("━━ Presentation · Team A"),
        at("━━ Response · Team B"),
        at("━━ Rebuttal · Team A"),
        at("━━ Consistency test (Team A)"),
        at("━━ Consistency test (Team B)"),
    ];
    assert!(order.is_sorted(), "{order:?}\n{text}");
    assert!(at("Parallel case: ") < order[0]);
}

#[test]
fn annotate_qa_debate() {
    let mut app = judging(
        "qa_debate",
        "qa-sample-0__debate__sim-alpha__vs__sim-beta__judge__sim-gamma__r1",
    );
    keys(
        &mut app,
        &[KeyCode::Char('b'), KeyCode::Char('8'), KeyCode::Char('0')],
    );
    insta::assert_snapshot!("annotate_qa_debate_100x30", drawn(&app).backend());
}

#[test]
fn annotate_structured_debate() {
    let mut app = judging(
        "structured_debate",
        "four_day_week__sim-beta__vs__sim-alpha__r1",
    );
    // Two arguments' standings (partly upheld, upheld): the cursor on the third.
    keys(&mut app, &[KeyCode::Char('p'), KeyCode::Char('u')]);
    insta::assert_snapshot!("annotate_structured_debate_100x30", drawn(&app).backend());
}
