//! The matrix at every terminal size from 80×24 up: every row and column reachable by the
//! cursor keys, the cursor's cell always drawn highlighted, `more ↑/↓/←/→` where rows or
//! columns are off-screen; a filter that matches nothing shows no cell; a round corrected by
//! hand is marked.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::sync::Arc;
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ethics_bowl::domain::{
    Criterion, Judgment, ParseStatus, Reading, Round, RoundRecord, ScheduledRound, Scores,
};
use ethics_bowl::engine::{EngineEvent, ScheduledState};
use ethics_bowl::tui::{App, Mode, Msg, Theme, update, views};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Modifier;

const MODELS: [&str; 6] = ["claude", "gpt", "gemini", "grok", "mistral", "llama"];
const DILEMMAS: [&str; 9] = [
    "borrowed_voice",
    "reversible_promise",
    "quiet_majority",
    "sympathetic_saboteur",
    "diminishing_mind",
    "lifeboat_algorithm",
    "inherited_debt",
    "open_door",
    "last_word",
];

fn blank(d: &str, a: &str, b: &str) -> Round {
    ethics_bowl::protocols::blank_round(
        &ScheduledRound {
            round_id: format!("{d}__{a}__vs__{b}__r1"),
            dilemma_id: d.into(),
            repetition: 1,
            team_a: a.into(),
            team_b: b.into(),
            judges: vec!["judge".into()],
            format: None,
            relation: None,
        },
        RoundRecord::EthicsBowl,
    )
}

fn uniform(v: f64) -> Scores {
    let mut s = Scores::default();
    for c in Criterion::ALL {
        s.set(c, Some(v));
    }
    s
}

fn send(app: &mut App, e: EngineEvent) {
    update(app, Msg::Engine(e));
}

/// Thirty pairings by nine dilemmas; the first dilemma's rounds finished, the first of them
/// corrected by hand.
fn tournament() -> App {
    let mut app = App::new("sizes", Mode::Live, Instant::now());
    let mut rounds = Vec::new();
    for d in DILEMMAS {
        for a in MODELS {
            for b in MODELS.iter().filter(|b| **b != a) {
                rounds.push(blank(d, a, b));
            }
        }
    }
    send(
        &mut app,
        EngineEvent::Started {
            tournament_id: "sizes".into(),
            rounds: rounds
                .iter()
                .map(|r| ScheduledState {
                    round: Arc::new(r.clone()),
                    stored: false,
                    to_run: true,
                    text_dropped: false,
                })
                .collect(),
        },
    );
    for (i, mut r) in rounds.into_iter().take(20).enumerate() {
        r.put_judgment(Judgment {
            parse_status: if i == 0 {
                ParseStatus::CorrectedByHand
            } else {
                ParseStatus::Parsed
            },
            ..Judgment::new(
                "judge",
                Reading::Rubric {
                    team_a: uniform(5.0 + (i % 4) as f64),
                    team_b: uniform(6.0),
                },
            )
        });
        r.status = r.settled_status();
        send(&mut app, EngineEvent::RoundStored { round: Arc::new(r) });
    }
    app
}

fn key(app: &mut App, code: KeyCode) {
    update(app, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn typed(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
}

fn draw(app: &App, width: u16, height: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|f| views::render(f, app, &Theme::no_color()))
        .unwrap();
    terminal
}

/// The text of the line holding the highlighted (reversed) cell, if one is drawn.
fn highlighted_line(t: &Terminal<TestBackend>) -> Option<String> {
    let buffer = t.backend().buffer();
    let width = buffer.area.width;
    (0..buffer.area.height).find_map(|y| {
        let reversed = (0..width).any(|x| {
            buffer[(x, y)].modifier.contains(Modifier::REVERSED)
                && buffer[(x, y)].symbol().trim() != ""
        });
        reversed.then(|| (0..width).map(|x| buffer[(x, y)].symbol()).collect())
    })
}

#[test]
fn every_row_and_column_is_reachable_with_the_cursor_drawn_at_every_size() {
    for (width, height) in [(80, 24), (100, 30), (120, 40), (160, 45)] {
        let mut app = tournament();
        let rows = app.mirror.rows.len();
        let columns = app.mirror.columns.len();
        assert_eq!((rows, columns), (30, 9));
        for r in 0..rows {
            for c in 0..columns {
                let t = draw(&app, width, height);
                let line = highlighted_line(&t)
                    .unwrap_or_else(|| panic!("{width}×{height} ({r}, {c}): no cursor drawn"));
                let (a, b) = &app.mirror.rows[r];
                assert!(
                    line.contains(&format!("{a} vs {b}")),
                    "{width}×{height} ({r}, {c}): the cursor's line is not its row's: {line}"
                );
                assert_eq!(app.screens.matrix.cursor, (r, c));
                let screen = t.backend().to_string();
                let round = app.selected().unwrap().id().to_string();
                assert!(screen.contains(&round), "{screen}");
                // Hidden rows and columns are marked on their side.
                let label = |r: usize| {
                    let (a, b) = &app.mirror.rows[r];
                    format!("{a} vs {b} ")
                };
                let heading =
                    |c: usize| app.mirror.columns[c].0.chars().take(6).collect::<String>();
                for (mark, hidden) in [
                    ("↑ more", !screen.contains(&label(0))),
                    ("more ↓", !screen.contains(&label(rows - 1))),
                    ("← more", !screen.contains(&heading(0))),
                    ("more →", !screen.contains(&heading(columns - 1))),
                ] {
                    assert_eq!(screen.contains(mark), hidden, "{mark}: {screen}");
                }
                if c + 1 < columns {
                    key(&mut app, KeyCode::Char('l'));
                }
            }
            for _ in 0..columns {
                key(&mut app, KeyCode::Char('h'));
            }
            if r + 1 < rows {
                key(&mut app, KeyCode::Char('j'));
            }
        }
    }
}

#[test]
fn the_matrix_scrolls_with_markers_at_100x30_and_80x24() {
    let mut app = tournament();
    let top = draw(&app, 100, 30).backend().to_string();
    assert!(top.contains("more ↓") && !top.contains("↑ more"), "{top}");
    for _ in 0..14 {
        key(&mut app, KeyCode::Char('j'));
    }
    let t = draw(&app, 100, 30);
    let middle = t.backend().to_string();
    assert!(highlighted_line(&t).is_some(), "{middle}");
    assert!(middle.contains("↑ more"), "{middle}");
    insta::assert_snapshot!("matrix_scrolled_100x30", middle);
    for _ in 0..30 {
        key(&mut app, KeyCode::Char('j'));
        key(&mut app, KeyCode::Char('l'));
    }
    let bottom = draw(&app, 80, 24).backend().to_string();
    assert!(
        bottom.contains("↑ more") && !bottom.contains("more ↓") && bottom.contains("← more"),
        "{bottom}"
    );
    insta::assert_snapshot!("matrix_bottom_right_80x24", bottom);
}

#[test]
fn a_filter_that_matches_nothing_shows_no_cell_and_enter_opens_nothing() {
    let mut app = tournament();
    key(&mut app, KeyCode::Char('f'));
    typed(&mut app, "status=failed");
    key(&mut app, KeyCode::Enter);
    let t = draw(&app, 100, 30);
    let screen = t.backend().to_string();
    assert!(screen.contains("0 of 270 rounds"), "{screen}");
    assert!(screen.contains("no round matches the filter"), "{screen}");
    assert!(
        !screen
            .lines()
            .any(|l| l.starts_with('│') && (l.contains('✓') || l.contains('·'))),
        "a cell remains: {screen}"
    );
    assert!(highlighted_line(&t).is_none(), "{screen}");
    insta::assert_snapshot!("matrix_filter_matches_nothing_100x30", screen);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.screen(), ethics_bowl::tui::Screen::Matrix);
}

#[test]
fn a_round_corrected_by_hand_is_marked_and_the_legend_says_so() {
    let app = tournament();
    let screen = draw(&app, 160, 45).backend().to_string();
    assert!(screen.contains("✎ corrected by hand"), "{screen}");
    let first = screen
        .lines()
        .find(|l| l.contains("claude vs gpt "))
        .unwrap();
    assert!(first.contains("✓-7✎"), "{first}");
    assert_eq!(
        screen.matches('✎').count(),
        2,
        "one cell and the legend: {screen}"
    );
}
