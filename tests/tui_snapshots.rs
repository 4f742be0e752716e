//! Snapshots of every screen, drawn into ratatui's TestBackend: a 12 × 7 matrix part-way
//! through a tournament at 120×40 and at the minimum size, in the default and the
//! no-colour theme; a transcript (with a hostile answer rendered harmless), a score table,
//! the help overlay, and the too-small message.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::sync::Arc;

use ethics_bowl::domain::{
    Attempt, Criterion, Judgment, ParseStatus, Phase, PhaseType, ProtocolKind, Reading, Round,
    RoundError, RoundRecord, ScheduledRound, Scores,
};
use ethics_bowl::engine::{EngineEvent, ScheduledState};
use ethics_bowl::tui::{App, Mode, Msg, Theme, update, views};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const MODELS: [&str; 4] = ["claude", "gpt", "gemini", "grok"];
const DILEMMAS: [&str; 7] = [
    "borrowed_voice",
    "reversible_promise",
    "quiet_majority",
    "sympathetic_saboteur",
    "diminishing_mind",
    "lifeboat_algorithm",
    "inherited_debt",
];

fn id(d: &str, a: &str, b: &str) -> String {
    format!("{d}__{a}__vs__{b}__r1")
}

fn scores(v: f64) -> Scores {
    let mut s = Scores::default();
    for c in Criterion::ALL {
        s.set(c, Some(v));
    }
    s
}

fn judgment(a: f64, b: f64, status: ParseStatus) -> Judgment {
    Judgment {
        judge_model: "judge".into(),
        persona_id: None,
        reading: if status == ParseStatus::Failed {
            Reading::empty(ProtocolKind::EthicsBowl)
        } else {
            Reading::Rubric {
                team_a: scores(a),
                team_b: scores(b),
            }
        },
        team_a_justification: "Clear principle, honest concessions.".into(),
        team_b_justification: "Constructive, found the missing stakeholder.".into(),
        overall_analysis: "A close and careful exchange.".into(),
        parse_status: status,
        problems: if status == ParseStatus::Failed {
            vec!["Team A missing: every criterion".into()]
        } else {
            vec![]
        },
        raw_response: if status == ParseStatus::Failed {
            "Both teams did well; Team A was a little stronger.".into()
        } else {
            // The judge's reading of each consistency test: a team scored 5 or less on
            // consistency failed it without saying so.
            let reading = |v: f64| {
                if v <= 5.0 {
                    "inconsistent"
                } else {
                    "consistent"
                }
            };
            format!(
                "{{\"consistency_tests\": {{\"team_a\": \"{}\", \"team_b\": \"{}\"}}}}",
                reading(a),
                reading(b)
            )
        },
        corrected_text: None,
        view: Some(ethics_bowl::domain::JudgeView {
            judge_sees_model_names: true,
            temperature: Some(0.2),
            prompt_version: "ethics_bowl-judge-1".into(),
            sides_swapped: false,
        }),
    }
}

fn phase(p: PhaseType, model: &str, text: &str) -> Phase {
    Phase {
        prompt: "Analyse the following dilemma.".into(),
        latency_ms: Some(2400),
        ..Phase::new(p, model, text)
    }
}

fn blank(d: &str, a: &str, b: &str) -> Round {
    ethics_bowl::protocols::blank_round(
        &ScheduledRound {
            round_id: id(d, a, b),
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

/// The five exchange phases and the judge's, as stored with their usage (one retried).
fn exchange(round: &mut Round) {
    for (n, p) in [
        PhaseType::Presentation,
        PhaseType::Response,
        PhaseType::Rebuttal,
        PhaseType::ConsistencyTest,
        PhaseType::ConsistencyTestB,
        PhaseType::Judgment,
    ]
    .into_iter()
    .enumerate()
    {
        let model = match p {
            PhaseType::Response | PhaseType::ConsistencyTestB => round.team_b_model.clone(),
            PhaseType::Judgment => "judge".to_string(),
            _ => round.team_a_model.clone(),
        };
        let attempts = if n == 1 {
            vec![attempt(1, Some("HTTP 429")), attempt(2, None)]
        } else {
            Vec::new()
        };
        round.phases.push(Phase {
            input_tokens: Some(2763),
            output_tokens: Some(776),
            cost_usd: Some(0.0123),
            attempts,
            ..phase(p, &model, "…")
        });
    }
}

fn attempt(number: u32, error: Option<&str>) -> Attempt {
    Attempt {
        number,
        latency_ms: 900,
        error: error.map(str::to_string),
        error_kind: None,
        wait_ms: None,
        discarded_chars: 0,
    }
}

fn send(app: &mut App, e: EngineEvent) {
    update(app, Msg::Engine(e));
}

fn store(app: &mut App, round: Round) {
    send(
        app,
        EngineEvent::RoundStored {
            round: Arc::new(round),
        },
    );
}

/// A tournament part-way through, with every kind of cell.
fn mid_tournament() -> App {
    let t0 = Instant::now();
    let mut app = App::new("sample", Mode::Live, t0);
    let mut rounds = Vec::new();
    for d in DILEMMAS {
        for a in MODELS {
            for b in MODELS.iter().filter(|b| **b != a) {
                rounds.push(ScheduledState {
                    round: Arc::new(blank(d, a, b)),
                    stored: false,
                    to_run: true,
                    text_dropped: false,
                });
            }
        }
    }
    send(
        &mut app,
        EngineEvent::Started {
            tournament_id: "sample".into(),
            rounds,
        },
    );
    // The first dilemma finished: margins, one needing review, one stopped by an error.
    for (i, a) in MODELS.iter().enumerate() {
        for (k, b) in MODELS.iter().filter(|b| *b != a).enumerate() {
            let mut round = blank(DILEMMAS[0], a, b);
            if (i, k) == (3, 2) {
                round.phases.push(phase(PhaseType::Presentation, a, "…"));
                round.error = Some(RoundError {
                    phase_type: PhaseType::Response,
                    model_id: (*b).into(),
                    message: "model \"grok\": HTTP 503 (after 3 attempts)".into(),
                    timestamp: String::new(),
                    attempts: Vec::new(),
                });
            } else {
                let parse = if (i, k) == (1, 1) {
                    ParseStatus::Failed
                } else {
                    ParseStatus::Parsed
                };
                exchange(&mut round);
                round.put_judgment(judgment(6.0 + i as f64, 5.0 + k as f64, parse));
                round.status = round.settled_status();
            }
            let round_id = round.id.clone();
            store(&mut app, round);
            send(&mut app, EngineEvent::RoundFinished { round_id });
        }
    }
    update(&mut app, Msg::Tick(t0 + Duration::from_secs(95)));
    // The second dilemma under way: phases running, one waiting to retry.
    for (n, (a, b)) in [("claude", "gpt"), ("gpt", "gemini"), ("gemini", "grok")]
        .iter()
        .enumerate()
    {
        let rid = id(DILEMMAS[1], a, b);
        send(
            &mut app,
            EngineEvent::PhaseStarted {
                round_id: rid.clone(),
                phase_type: PhaseType::Presentation,
                model: (*a).into(),
            },
        );
        if n == 1 {
            let mut round = blank(DILEMMAS[1], a, b);
            round.phases.push(phase(
                PhaseType::Presentation,
                a,
                "The central tension is consent.",
            ));
            store(&mut app, round);
            send(
                &mut app,
                EngineEvent::PhaseStarted {
                    round_id: rid.clone(),
                    phase_type: PhaseType::Response,
                    model: (*b).into(),
                },
            );
            send(
                &mut app,
                EngineEvent::PhaseStarted {
                    round_id: rid.clone(),
                    phase_type: PhaseType::ConsistencyTest,
                    model: (*a).into(),
                },
            );
        }
        if n == 2 {
            send(
                &mut app,
                EngineEvent::RetryScheduled {
                    round_id: rid,
                    phase_type: PhaseType::Presentation,
                    model: (*a).into(),
                    attempt: 1,
                    wait: Duration::from_secs(12),
                    error: "HTTP 429 (rate_limit_error): slow down".into(),
                },
            );
        }
    }
    update(&mut app, Msg::Tick(t0 + Duration::from_secs(97)));
    app
}

fn draw(app: &App, theme: &Theme, width: u16, height: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("terminal");
    terminal
        .draw(|f| views::render(f, app, theme))
        .expect("draw");
    terminal
}

fn key(app: &mut App, code: KeyCode) {
    update(app, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn themes() -> [(&'static str, Theme); 2] {
    [
        (
            "default",
            Theme::load("default", None, false).expect("theme"),
        ),
        ("no_color", Theme::no_color()),
    ]
}

#[test]
fn matrix_12_pairings_by_7_dilemmas_mid_tournament() {
    for (name, theme) in themes() {
        let app = mid_tournament();
        let t = draw(&app, &theme, 120, 40);
        insta::assert_snapshot!(format!("matrix_120x40_{name}"), t.backend());
        insta::assert_debug_snapshot!(format!("matrix_120x40_{name}_styles"), t.backend().buffer());
        let t = draw(&app, &theme, views::MIN_WIDTH, views::MIN_HEIGHT);
        insta::assert_snapshot!(format!("matrix_min_{name}"), t.backend());
    }
}

#[test]
fn too_small_shows_a_message() {
    let app = mid_tournament();
    insta::assert_snapshot!(draw(&app, &Theme::no_color(), 40, 10).backend());
}

#[test]
fn transcript_with_a_hostile_answer_renders_harmless_text() {
    let mut app = mid_tournament();
    let rid = id(DILEMMAS[0], "claude", "gpt");
    // The round under the cursor, stored with a hostile presentation as its only phase.
    let mut round = Round::clone(&app.mirror.rounds[app.mirror.index[&rid]].stored);
    round.phases = vec![phase(
        PhaseType::Presentation,
        "claude",
        "Before \u{1b}]0;pwned\u{7}\u{1b}[2J after.\nGuiding principle: consent matters.",
    )];
    store(&mut app, round);
    update(
        &mut app,
        Msg::Engine(EngineEvent::PhaseStarted {
            round_id: rid.clone(),
            phase_type: PhaseType::Response,
            model: "gpt".into(),
        }),
    );
    update(
        &mut app,
        Msg::Engine(EngineEvent::TextDelta {
            round_id: rid,
            phase_type: PhaseType::Response,
            model: "gpt".into(),
            text: "We agree, and \u{1b}[31mred\u{1b}[0m is gone.".into(),
        }),
    );
    key(&mut app, KeyCode::Enter);
    for (name, theme) in themes() {
        let t = draw(&app, &theme, 120, 40);
        let text = t.backend().to_string();
        assert!(
            !text.contains('\u{1b}') && !text.contains("pwned\u{7}"),
            "{text}"
        );
        assert!(text.contains("Before  after."));
        insta::assert_snapshot!(format!("transcript_120x40_{name}"), t.backend());
        insta::assert_snapshot!(
            format!("transcript_min_{name}"),
            draw(&app, &theme, views::MIN_WIDTH, views::MIN_HEIGHT).backend()
        );
    }
}

#[test]
fn scores_help_log_and_leaderboard() {
    let mut app = mid_tournament();
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Tab);
    insta::assert_snapshot!(
        "scores_120x40",
        draw(&app, &Theme::no_color(), 120, 40).backend()
    );
    key(&mut app, KeyCode::Char('?'));
    insta::assert_snapshot!(
        "help_120x40",
        draw(&app, &Theme::no_color(), 120, 40).backend()
    );
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('s'));
    insta::assert_snapshot!(
        "leaderboard_120x40",
        draw(&app, &Theme::no_color(), 120, 40).backend()
    );
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('g'));
    insta::assert_snapshot!(
        "log_120x40",
        draw(&app, &Theme::no_color(), 120, 40).backend()
    );
}

#[test]
fn review_queue_and_an_item_being_edited() {
    let mut app = mid_tournament();
    key(&mut app, KeyCode::Char('v'));
    insta::assert_snapshot!(
        "review_queue_120x40",
        draw(&app, &Theme::no_color(), 120, 40).backend()
    );
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::End);
    for ch in "\nTeam A\nConsistency: 8".chars() {
        key(
            &mut app,
            if ch == '\n' {
                KeyCode::Enter
            } else {
                KeyCode::Char(ch)
            },
        );
    }
    for (name, theme) in themes() {
        insta::assert_snapshot!(
            format!("review_editing_120x40_{name}"),
            draw(&app, &theme, 120, 40).backend()
        );
        insta::assert_snapshot!(
            format!("review_editing_min_{name}"),
            draw(&app, &theme, views::MIN_WIDTH, views::MIN_HEIGHT).backend()
        );
    }
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Char('9'));
    insta::assert_snapshot!(
        "review_fields_120x40",
        draw(&app, &Theme::no_color(), 120, 40).backend()
    );
}

/// Steps the Analysis screen to the section whose title starts with `title`.
fn section(app: &mut App, title: &str) {
    for _ in 0..32 {
        let view = app.screens.analysis.view.as_ref().expect("analysis");
        if view.section().is_some_and(|s| s.title.starts_with(title)) {
            return;
        }
        key(app, KeyCode::Tab);
    }
    panic!("no section {title}");
}

#[test]
fn analysis_screen_tables() {
    let mut app = mid_tournament();
    key(&mut app, KeyCode::Char('a'));
    assert_eq!(app.screen(), ethics_bowl::tui::Screen::Analysis);
    for (name, title) in [
        ("models", "Model comparison"),
        ("ratings", "Ratings"),
        ("dilemmas", "Dilemma difficulty"),
        ("judges", "Judge agreement"),
        ("consistency", "Consistency"),
    ] {
        section(&mut app, title);
        insta::assert_snapshot!(
            format!("analysis_{name}_120x40"),
            draw(&app, &Theme::no_color(), 120, 40).backend()
        );
    }
    // The dilemmas: Enter takes the matrix cursor to that dilemma's column.
    section(&mut app, "Dilemma difficulty");
    let view = app.screens.analysis.view.as_ref().expect("analysis");
    let Some(ethics_bowl::tui::AnalysisTarget::Dilemma(first)) =
        ethics_bowl::tui::analysis_targets(&app.mirror, view)
            .first()
            .cloned()
    else {
        panic!("the dilemma tab lists dilemmas")
    };
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.screen(), ethics_bowl::tui::Screen::Matrix);
    assert_eq!(app.mirror.columns[app.screens.matrix.cursor.1].0, first);
    // The models: Enter opens a round the selected model played in that role.
    key(&mut app, KeyCode::Char('a'));
    section(&mut app, "Model comparison");
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        app.screen(),
        ethics_bowl::tui::Screen::Round { scores: false }
    );
    let model = &app
        .screens
        .analysis
        .view
        .as_ref()
        .expect("analysis")
        .analysis
        .model_comparison[1];
    let round = app.selected().expect("a round");
    assert_eq!(
        if model.role == "presenting" {
            &round.stored.team_a_model
        } else {
            &round.stored.team_b_model
        },
        &model.model
    );
}

#[test]
fn analysis_judge_matrix_with_three_judges() {
    let mut rounds = Vec::new();
    for (i, (a, b)) in [(6.0, 7.0), (8.0, 5.0), (7.0, 7.0), (9.0, 6.0)]
        .iter()
        .enumerate()
    {
        let mut r: ethics_bowl::domain::Round = serde_json::from_value(serde_json::json!({
            "id": format!("r{i}"), "dilemma_id": DILEMMAS[i], "team_a_model": "claude", "team_b_model": "gpt",
            "status": "complete", "timestamp": "t"
        }))
        .expect("round");
        r.judge_models = vec!["j1".into(), "j2".into(), "j3".into()];
        for (judge, shift) in [("j1", 0.0), ("j2", 0.0), ("j3", 1.0)] {
            let mut j = judgment(a + shift, b + shift, ParseStatus::Parsed);
            j.judge_model = judge.into();
            r.put_judgment(j);
        }
        rounds.push(r);
    }
    let mut app = ethics_bowl::tui::browse("panel", &rounds, Instant::now());
    key(&mut app, KeyCode::Char('a'));
    section(&mut app, "Judge agreement");
    insta::assert_snapshot!(draw(&app, &Theme::no_color(), 120, 20).backend());
}

/// Three models with long names over four dilemmas with long ids, the first dilemma judged.
fn long_labels() -> App {
    const LONG_MODELS: [&str; 3] = [
        "claude-sonnet-4-5-20250929",
        "gpt-5-mini-2025-08-07",
        "gemini-2.5-flash-lite",
    ];
    const LONG_DILEMMAS: [&str; 4] = [
        "sympathetic_saboteur",
        "reversible_promise",
        "lifeboat_algorithm",
        "diminishing_mind",
    ];
    let mut app = App::new("long-labels", Mode::Live, Instant::now());
    let rounds = LONG_DILEMMAS
        .iter()
        .flat_map(|d| {
            LONG_MODELS.iter().flat_map(move |a| {
                LONG_MODELS
                    .iter()
                    .filter(move |b| *b != a)
                    .map(move |b| ScheduledState {
                        round: Arc::new(blank(d, a, b)),
                        stored: false,
                        to_run: true,
                        text_dropped: false,
                    })
            })
        })
        .collect();
    send(
        &mut app,
        EngineEvent::Started {
            tournament_id: "long-labels".into(),
            rounds,
        },
    );
    for a in LONG_MODELS {
        for b in LONG_MODELS.iter().filter(|b| **b != a) {
            let mut round = blank(LONG_DILEMMAS[0], a, b);
            exchange(&mut round);
            round.put_judgment(judgment(7.5, 6.5, ParseStatus::Parsed));
            round.status = round.settled_status();
            let round_id = round.id.clone();
            store(&mut app, round);
            send(&mut app, EngineEvent::RoundFinished { round_id });
        }
    }
    app
}

/// Labels are cut only when the terminal has no room for them: the matrix's column
/// headings share the width the cells leave, and the leaderboards' model names are whole.
#[test]
fn long_labels_are_whole_where_they_fit() {
    for (w, h) in [(80, 24), (160, 45)] {
        let mut app = long_labels();
        let matrix = draw(&app, &Theme::no_color(), w, h);
        insta::assert_snapshot!(format!("long_labels_matrix_{w}x{h}"), matrix.backend());
        key(&mut app, KeyCode::Char('s'));
        let board = draw(&app, &Theme::no_color(), w, h);
        insta::assert_snapshot!(format!("long_labels_leaderboard_{w}x{h}"), board.backend());
        let text = format!("{:?}", board.backend());
        for model in ["claude-sonnet-4-5-20250929", "gpt-5-mini-2025-08-07"] {
            assert!(text.contains(model), "{model} is cut at {w}x{h}:\n{text}");
        }
    }
    let app = long_labels();
    let text = format!("{:?}", draw(&app, &Theme::no_color(), 160, 45).backend());
    for d in [
        "sympathetic_saboteur",
        "reversible_promise",
        "lifeboat_algorithm",
    ] {
        assert!(text.contains(d), "{d} is cut at 160x45:\n{text}");
    }
}
