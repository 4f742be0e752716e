//! The filter bar on a live run (engine events fed): the prompt as it is typed, a refused
//! word, the matrix narrowed (rows and columns with no round that passes hidden, the other
//! cells of the rows kept dimmed), the review queue and the leaderboard narrowed the same
//! way, and the bar on each.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::sync::Arc;
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ethics_bowl::domain::{
    Judgment, ParseStatus, PhaseType, Reading, Round, RoundError, RoundRecord, ScheduledRound,
    Scores,
};
use ethics_bowl::engine::{EngineEvent, ScheduledState};
use ethics_bowl::tui::{App, Mode, Msg, Screen, Theme, update, views};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const MODELS: [&str; 3] = ["claude-sonnet", "gpt-4o", "gemini-pro"];
const DILEMMAS: [&str; 4] = [
    "borrowed_voice",
    "quiet_majority",
    "lifeboat_algorithm",
    "inherited_debt",
];

fn blank(d: &str, a: &str, b: &str, judge: &str) -> Round {
    ethics_bowl::protocols::blank_round(
        &ScheduledRound {
            round_id: format!("{d}__{a}__vs__{b}__r1"),
            dilemma_id: d.into(),
            repetition: 1,
            team_a: a.into(),
            team_b: b.into(),
            judges: vec![judge.into()],
            format: None,
            relation: None,
        },
        RoundRecord::EthicsBowl,
    )
}

fn send(app: &mut App, e: EngineEvent) {
    update(app, Msg::Engine(e));
}

/// Twenty-four rounds (three models, four dilemmas, judged by judge-1 or judge-2): the first
/// two dilemmas stored (one needing review, one stopped by an error), one call under way.
fn live() -> App {
    let mut app = App::new("filtered", Mode::Live, Instant::now());
    let mut schedule = Vec::new();
    for (n, d) in DILEMMAS.iter().enumerate() {
        for a in MODELS {
            for b in MODELS.iter().filter(|b| **b != a) {
                let judge = if n % 2 == 0 { "judge-1" } else { "judge-2" };
                schedule.push(blank(d, a, b, judge));
            }
        }
    }
    let rounds = schedule
        .iter()
        .map(|r| ScheduledState {
            round: Arc::new(r.clone()),
            stored: false,
            to_run: true,
            text_dropped: false,
        })
        .collect();
    send(
        &mut app,
        EngineEvent::Started {
            tournament_id: "filtered".into(),
            rounds,
        },
    );
    for (i, mut r) in schedule.into_iter().take(12).enumerate() {
        let judge = r.judge_model.clone();
        if i == 4 {
            r.error = Some(RoundError {
                phase_type: PhaseType::Response,
                model_id: r.team_b_model.clone(),
                message: "HTTP 503 (after 3 attempts)".into(),
                timestamp: String::new(),
                attempts: Vec::new(),
            });
        } else {
            let failed = i == 7;
            r.put_judgment(Judgment {
                parse_status: if failed {
                    ParseStatus::Failed
                } else {
                    ParseStatus::Parsed
                },
                problems: if failed {
                    vec!["Team A missing: every criterion".into()]
                } else {
                    Vec::new()
                },
                raw_response: "Both teams were careful.".into(),
                ..Judgment::new(
                    &judge,
                    if failed {
                        Reading::empty(ethics_bowl::domain::ProtocolKind::EthicsBowl)
                    } else {
                        Reading::Rubric {
                            team_a: uniform(5.0 + (i % 4) as f64),
                            team_b: uniform(6.0),
                        }
                    },
                )
            });
            r.status = r.settled_status();
        }
        send(&mut app, EngineEvent::RoundStored { round: Arc::new(r) });
    }
    send(
        &mut app,
        EngineEvent::PhaseStarted {
            round_id: "lifeboat_algorithm__gpt-4o__vs__claude-sonnet__r1".into(),
            phase_type: PhaseType::Presentation,
            model: "gpt-4o".into(),
        },
    );
    app
}

/// Every criterion scored `v`.
fn uniform(v: f64) -> Scores {
    let mut s = Scores::default();
    for c in ethics_bowl::domain::Criterion::ALL {
        s.set(c, Some(v));
    }
    s
}

fn key(app: &mut App, code: KeyCode) {
    update(app, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn typed(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
}

fn draw(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|f| views::render(f, app, &Theme::no_color()))
        .unwrap();
    terminal.backend().to_string()
}

#[test]
fn the_prompt_then_a_filtered_matrix_review_queue_and_leaderboard() {
    let mut app = live();
    key(&mut app, KeyCode::Char('f'));
    typed(&mut app, "judge=nobody");
    key(&mut app, KeyCode::Enter);
    let refused = draw(&app, 120, 30);
    assert!(
        refused.contains("judge=nobody: no such value here"),
        "{refused}"
    );
    insta::assert_snapshot!("filter_refused_120x30", refused);
    for _ in "nobody".chars() {
        key(&mut app, KeyCode::Backspace);
    }
    typed(&mut app, "2 b=gpt");
    insta::assert_snapshot!("filter_typing_120x30", draw(&app, 120, 30));
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.screen(), Screen::Matrix);
    let matrix = draw(&app, 120, 30);
    assert!(
        matrix.contains("filter judge=judge-2 b=gpt-4o · 4 of 24 rounds"),
        "{matrix}"
    );
    insta::assert_snapshot!("filter_matrix_120x30", matrix);

    key(&mut app, KeyCode::Char('f'));
    for _ in 0..40 {
        key(&mut app, KeyCode::Backspace);
    }
    typed(&mut app, "status=review");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('v'));
    let queue = draw(&app, 120, 30);
    assert!(
        queue.contains("1 waiting in the filtered rounds"),
        "{queue}"
    );
    insta::assert_snapshot!("filter_review_queue_120x30", queue);

    key(&mut app, KeyCode::Char('f'));
    for _ in 0..40 {
        key(&mut app, KeyCode::Backspace);
    }
    typed(&mut app, "a=claude dilemma=borrowed");
    key(&mut app, KeyCode::Enter);
    let queue = draw(&app, 120, 30);
    assert!(
        queue.contains("Nothing to review in the rounds the filter"),
        "{queue}"
    );
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('s'));
    insta::assert_snapshot!("filter_leaderboard_120x30", draw(&app, 120, 30));
    key(&mut app, KeyCode::Char('F'));
    let cleared = draw(&app, 120, 30);
    assert!(!cleared.contains("filter a=claude"), "{cleared}");
}
