//! What a run's record says beyond the answers, made visible in the terminal UI: an answer
//! cut at the token limit (a warning in the transcript, a mark in the matrix, a count in the
//! header), usage the server did not report (estimated tokens in the header and beside the
//! phase), every attempt of the call that stopped a round, and a judge's correction turn
//! after its first answer. Rounds are set up directly, as the engine would store them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ethics_bowl::domain::{
    Attempt, Criterion, ErrorKind, Judgment, ParseStatus, Phase, PhaseType, Reading, Round,
    RoundError, RoundRecord, ScheduledRound, Scores,
};
use ethics_bowl::engine::{EngineEvent, ScheduledState};
use ethics_bowl::tui::{App, Mode, Msg, Screen, Theme, update, views};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn blank(dilemma: &str) -> Round {
    ethics_bowl::protocols::blank_round(
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
    )
}

fn scores(v: f64) -> Scores {
    let mut s = Scores::default();
    for c in Criterion::ALL {
        s.set(c, Some(v));
    }
    s
}

fn phase(p: PhaseType, model: &str, text: &str) -> Phase {
    Phase {
        prompt: "Analyse the following dilemma.".into(),
        latency_ms: Some(2400),
        input_tokens: Some(1200),
        output_tokens: Some(300),
        cost_usd: Some(0.01),
        finish_reason: Some("stop".into()),
        ..Phase::new(p, model, text)
    }
}

fn attempt(number: u32, error: &str, wait_ms: Option<u64>) -> Attempt {
    Attempt {
        number,
        latency_ms: 800 + u64::from(number) * 100,
        error: Some(error.into()),
        error_kind: Some(ErrorKind::Http),
        wait_ms,
        discarded_chars: 0,
    }
}

/// A round whose Response was cut at the token limit (its finish reason hostile), whose
/// Rebuttal's usage was estimated, and whose judge answered a correction turn: complete,
/// Team A ahead by 7.
fn cut_round() -> Round {
    let mut round = blank("borrowed_voice");
    round.phases = vec![
        phase(
            PhaseType::Presentation,
            "claude",
            "Consent is the crux here.",
        ),
        Phase {
            truncated: true,
            finish_reason: Some("len\u{1b}[31mgth".into()),
            ..phase(
                PhaseType::Response,
                "gpt",
                "We agree in part, but the second stakeholder",
            )
        },
        Phase {
            usage_estimated: true,
            ..phase(
                PhaseType::Rebuttal,
                "claude",
                "The stakeholder was considered.",
            )
        },
        phase(
            PhaseType::Judgment,
            "judge",
            "Team A was clearer; scores to follow.",
        ),
        Phase {
            correction: 1,
            ..phase(
                PhaseType::Judgment,
                "judge",
                "Team A\nClarity: 8\nTeam B\nClarity: 7",
            )
        },
    ];
    round.put_judgment(Judgment {
        judge_model: "judge".into(),
        persona_id: None,
        reading: Reading::Rubric {
            team_a: scores(8.0),
            team_b: scores(7.0),
        },
        team_a_justification: String::new(),
        team_b_justification: String::new(),
        overall_analysis: String::new(),
        parse_status: ParseStatus::Parsed,
        problems: vec![],
        raw_response: String::new(),
        corrected_text: None,
        view: None,
    });
    round.status = round.settled_status();
    round
}

/// A round stopped by a Response that failed three times (its messages hostile).
fn failed_round() -> Round {
    let mut round = blank("quiet_majority");
    round.phases = vec![phase(
        PhaseType::Presentation,
        "claude",
        "The majority is quiet, not absent.",
    )];
    round.error = Some(RoundError {
        phase_type: PhaseType::Response,
        model_id: "gpt".into(),
        message: "model \"gpt\": HTTP 503: overloaded (after 3 attempts)".into(),
        timestamp: String::new(),
        attempts: vec![
            attempt(1, "HTTP 503: \u{1b}]0;pwned\u{7}overloaded", Some(1500)),
            attempt(2, "HTTP 503: overloaded\nretry later", Some(3000)),
            attempt(3, "HTTP 503: overloaded", None),
        ],
    });
    round
}

fn send(app: &mut App, e: EngineEvent) {
    update(app, Msg::Engine(e));
}

fn key(app: &mut App, code: KeyCode) {
    update(app, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

/// A live run with both rounds stored (a third queued).
fn app() -> App {
    let t0 = Instant::now();
    let mut app = App::new("visible", Mode::Live, t0);
    let rounds = ["borrowed_voice", "quiet_majority", "inherited_debt"]
        .into_iter()
        .map(|d| ScheduledState {
            round: Arc::new(blank(d)),
            stored: false,
            to_run: true,
            text_dropped: false,
        })
        .collect();
    send(
        &mut app,
        EngineEvent::Started {
            tournament_id: "visible".into(),
            rounds,
        },
    );
    for round in [cut_round(), failed_round()] {
        let round_id = round.id.clone();
        send(
            &mut app,
            EngineEvent::RoundStored {
                round: Arc::new(round),
            },
        );
        send(&mut app, EngineEvent::RoundFinished { round_id });
    }
    update(&mut app, Msg::Tick(t0 + Duration::from_secs(30)));
    app
}

fn draw(app: &App, theme: &Theme) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("terminal");
    terminal
        .draw(|f| views::render(f, app, theme))
        .expect("draw");
    terminal
}

fn harmless(text: &str) {
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "control characters reached the screen:\n{text}"
    );
}

#[test]
fn the_matrix_and_header_mark_cut_answers_and_estimated_usage() {
    let app = app();
    assert_eq!(
        (app.mirror.totals().truncated, app.mirror.totals().estimated),
        (1, 1)
    );
    let t = draw(&app, &Theme::no_color());
    let text = t.backend().to_string();
    assert!(
        text.contains("✓+7✂"),
        "the cut round's cell is marked:\n{text}"
    );
    assert!(text.contains("✂ answer cut at token limit"), "{text}");
    assert!(text.contains("│ ✂1 cut"), "{text}");
    // The header wraps at this width: its lines read as one.
    let header: String = text
        .lines()
        .take(3)
        .map(|l| l.trim_matches('"').trim_end())
        .collect::<Vec<_>>()
        .join(" ");
    // Compact at this width (the header's full lines do not fit): still marked.
    assert!(header.contains("tok ~7.2k/~1.8k (1 est.)"), "{header}");
    assert!(text.contains("cost ~$0.0600 (incl. est.)"), "{text}");
    insta::assert_snapshot!("visibility_matrix_120x40", t.backend());
}

#[test]
fn a_cut_answer_estimated_tokens_and_a_correction_show_in_the_transcript() {
    let mut app = app();
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.screen(), Screen::Round { scores: false });
    assert_eq!(
        app.selected().expect("a round").stored.dilemma_id,
        "borrowed_voice"
    );
    let t = draw(&app, &Theme::no_color());
    let text = t.backend().to_string();
    harmless(&text);
    assert!(
        text.contains("✂ cut at the token limit (finish: length): the answer may end mid-thought"),
        "{text}"
    );
    assert!(
        text.contains("· 2.4 s · 1200 in/300 out tokens (estimated)"),
        "{text}"
    );
    // The correction comes after the judge's first answer, labelled as such.
    let first = text
        .find("━━ Judgment · judge (Judge)")
        .expect("first answer");
    let correction = text
        .find("━━ Judgment · judge · correction (Judge)")
        .expect("correction");
    assert!(first < correction, "{text}");
    insta::assert_snapshot!("visibility_transcript_120x40", t.backend());

    // In colour, the warning stands out in the theme's warning colour.
    let theme = Theme::load("default", None, false).expect("theme");
    let t = draw(&app, &theme);
    let buffer = t.backend().buffer();
    let row = (0..buffer.area.height)
        .find(|&y| buffer[(0, y)].symbol() == "✂")
        .expect("the warning line");
    assert_eq!(buffer[(0, row)].fg, theme.review);
}

#[test]
fn a_round_stopped_by_an_error_lists_every_attempt() {
    let mut app = app();
    key(&mut app, KeyCode::Right);
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        app.selected().expect("a round").stored.dilemma_id,
        "quiet_majority"
    );
    let t = draw(&app, &Theme::no_color());
    let text = t.backend().to_string();
    harmless(&text);
    for line in [
        "stopped: model \"gpt\": HTTP 503: overloaded (after 3 attempts)",
        "  attempt 1 · 0.9 s · HTTP 503: overloaded · waited 1.5 s before the next",
        "  attempt 2 · 1.0 s · HTTP 503: overloaded retry later · waited 3.0 s before the next",
        "  attempt 3 · 1.1 s · HTTP 503: overloaded",
    ] {
        assert!(text.contains(line), "{line:?} missing:\n{text}");
    }
    insta::assert_snapshot!("visibility_failed_round_120x40", t.backend());
    // The scores tab shows the same.
    key(&mut app, KeyCode::Tab);
    let text = draw(&app, &Theme::no_color()).backend().to_string();
    assert!(
        text.contains("  attempt 3 · 1.1 s · HTTP 503: overloaded"),
        "{text}"
    );
}

#[test]
fn the_header_shows_each_adaptive_models_window_and_quota() {
    let mut app = app();
    send(
        &mut app,
        EngineEvent::RateLimits {
            quota: "gpt".into(),
            snapshot: ethics_bowl::providers::RateSnapshot {
                adaptive: true,
                window: 3,
                max_concurrency: 8,
                in_flight: 3,
                remaining_requests: Some(1200),
                limit_requests: Some(5000),
                remaining_tokens: None,
                limit_tokens: None,
                held_for: Some(Duration::from_secs(12)),
                rate_limited: 1,
            },
        },
    );
    let text = draw(&app, &Theme::no_color()).backend().to_string();
    let header: String = text
        .lines()
        .take(3)
        .map(|l| l.trim_matches('"').trim_end())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        header.contains("concurrency gpt 3/8 (1.2k req left, held 12 s)"),
        "{header}"
    );
}

#[test]
fn a_store_that_refuses_a_round_is_said_in_the_footer_naming_the_file() {
    let mut app = app();
    send(
        &mut app,
        EngineEvent::StoreFailed {
            message: "cannot store round r1: results/x/rounds/r1.json: No space left on device"
                .into(),
        },
    );
    let text = draw(&app, &Theme::no_color()).backend().to_string();
    assert!(
        text.contains("cannot store: cannot store round r1"),
        "{text}"
    );
    assert!(text.contains("rounds/r1.json"), "{text}");
}
