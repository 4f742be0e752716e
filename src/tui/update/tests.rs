use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers};
use ratatui_textarea::TextArea;

use super::*;
use crate::domain::{
    Attempt, Criterion, Judgment, ParseStatus, Phase, PhaseType, ProtocolKind, Reading,
    ReplyFallback, Round, RoundError, RoundRecord, RoundStatus, ScheduledRound, Scores,
    StructuredSetup, Topic,
};
use crate::engine::{Correction, ScheduledState};
use crate::tui::app::Screen;
use crate::tui::mirror::Mode;
use crate::tui::msg::AnalysisTarget;
use crate::tui::screens::analysis::analysis_targets;
use crate::tui::screens::editor::ReviewKind;

fn blank(id: &str, a: &str, b: &str, d: &str) -> Round {
    let s = ScheduledRound {
        team_a: a.into(),
        team_b: b.into(),
        ..ScheduledRound::example(id, d)
    };
    crate::protocols::blank_round(&s, RoundRecord::EthicsBowl)
}

fn schedule(rounds: Vec<(Round, bool)>) -> EngineEvent {
    EngineEvent::Started {
        tournament_id: "t".into(),
        rounds: rounds
            .into_iter()
            .map(|(round, stored)| ScheduledState {
                to_run: round.status == RoundStatus::Incomplete,
                round: Arc::new(round),
                stored,
                text_dropped: false,
            })
            .collect(),
    }
}

fn four() -> Vec<Round> {
    vec![
        blank("r1", "a", "b", "d1"),
        blank("r2", "a", "b", "d2"),
        blank("r3", "b", "a", "d1"),
        blank("r4", "b", "a", "d2"),
    ]
}

fn app() -> App {
    let mut app = App::new("t", Mode::Live, Instant::now());
    update(
        &mut app,
        Msg::Engine(schedule(four().into_iter().map(|r| (r, false)).collect())),
    );
    app
}

fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    update(app, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn ctrl_s(app: &mut App) -> Vec<Effect> {
    update(
        app,
        Msg::Key(KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL)),
    )
}

fn event(app: &mut App, e: EngineEvent) {
    update(app, Msg::Engine(e));
}

fn started(app: &mut App, round: &str, phase_type: PhaseType) {
    event(
        app,
        EngineEvent::PhaseStarted {
            round_id: round.into(),
            phase_type,
            model: "a".into(),
        },
    );
}

fn delta(app: &mut App, round: &str, text: &str) {
    event(
        app,
        EngineEvent::TextDelta {
            round_id: round.into(),
            phase_type: PhaseType::Presentation,
            model: "a".into(),
            text: text.into(),
        },
    );
}

fn stored(app: &mut App, round: Round) {
    event(
        app,
        EngineEvent::RoundStored {
            round: Arc::new(round),
        },
    );
}

fn judgment(judge: &str, status: ParseStatus, a: f64, b: f64) -> Judgment {
    let reading = if status == ParseStatus::Failed {
        Reading::empty(ProtocolKind::EthicsBowl)
    } else {
        Reading::Rubric {
            team_a: Scores::uniform(a),
            team_b: Scores::uniform(b),
        }
    };
    Judgment {
        parse_status: status,
        problems: if status == ParseStatus::Parsed {
            Vec::new()
        } else {
            vec!["Team A missing: consistency".into()]
        },
        raw_response: "Team A did well.".into(),
        ..Judgment::new(judge, reading)
    }
}

fn attempt(number: u32, error: Option<&str>) -> Attempt {
    Attempt {
        number,
        latency_ms: 10,
        error: error.map(str::to_string),
        error_kind: None,
        wait_ms: None,
        discarded_chars: 0,
    }
}

/// A finished round with its phases' usage and one judgment.
fn finished(mut round: Round, j: Judgment) -> Round {
    for p in [PhaseType::Presentation, PhaseType::Judgment] {
        round.phases.push(Phase {
            input_tokens: Some(1000),
            output_tokens: Some(200),
            cost_usd: Some(0.01),
            attempts: vec![attempt(1, Some("HTTP 503")), attempt(2, None)],
            ..Phase::new(p, "a", "text")
        });
    }
    round.put_judgment(j);
    round.status = round.settled_status();
    round
}

#[test]
fn the_schedule_becomes_a_matrix() {
    let app = app();
    assert_eq!(
        app.mirror.rows,
        vec![
            ("a".to_string(), "b".to_string()),
            ("b".to_string(), "a".to_string())
        ]
    );
    assert_eq!(app.mirror.columns.len(), 2);
    assert_eq!(app.mirror.cells[&(1, 1)], 3);
    assert_eq!(
        app.mirror.resume(),
        crate::tui::mirror::Resume {
            stored: 0,
            finished: 0,
            to_run: 4
        }
    );
}

#[test]
fn the_cursor_moves_and_stops_at_the_edges() {
    let mut app = app();
    key(&mut app, KeyCode::Right);
    key(&mut app, KeyCode::Char('l'));
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Down);
    assert_eq!(app.screens.matrix.cursor, (1, 1));
    key(&mut app, KeyCode::Up);
    key(&mut app, KeyCode::Char('h'));
    key(&mut app, KeyCode::Left);
    assert_eq!(app.screens.matrix.cursor, (0, 0));
    let release = KeyEvent {
        code: KeyCode::Down,
        modifiers: KeyModifiers::NONE,
        kind: KeyEventKind::Release,
        state: KeyEventState::NONE,
    };
    update(&mut app, Msg::Key(release));
    assert_eq!(
        app.screens.matrix.cursor,
        (0, 0),
        "key releases are ignored"
    );
}

#[test]
fn enter_opens_the_round_and_scrolling_up_stops_following() {
    let mut app = app();
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.screen(), Screen::Round { scores: false });
    assert!(app.screens.round.follow);
    key(&mut app, KeyCode::PageDown);
    assert!(app.screens.round.follow, "scrolling down keeps following");
    key(&mut app, KeyCode::Up);
    assert!(!app.screens.round.follow);
    key(&mut app, KeyCode::End);
    assert!(app.screens.round.follow);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.screen(), Screen::Round { scores: true });
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.screen(), Screen::Matrix);
}

#[test]
fn streamed_text_is_sanitised_even_when_a_sequence_is_split() {
    let mut app = app();
    started(&mut app, "r1", PhaseType::Presentation);
    delta(&mut app, "r1", "safe \u{1b}]0;pw");
    delta(&mut app, "r1", "ned\u{7}\u{1b}[2Jtext\u{202e}");
    let p = &app.mirror.rounds[0].live[0];
    assert_eq!(p.text, "safe text");
    assert_eq!(app.mirror.in_flight(), 1);
}

#[test]
fn a_retry_voids_the_streamed_text_and_shows_its_wait() {
    let mut app = app();
    started(&mut app, "r1", PhaseType::Presentation);
    delta(&mut app, "r1", "half an answer");
    event(
        &mut app,
        EngineEvent::RetryScheduled {
            round_id: "r1".into(),
            phase_type: PhaseType::Presentation,
            model: "a".into(),
            attempt: 1,
            wait: Duration::from_secs(5),
            error: "HTTP 503".into(),
        },
    );
    assert_eq!(app.mirror.rounds[0].live[0].text, "");
    assert_eq!(app.mirror.retries_waiting().0, 1);
    assert_eq!(
        app.mirror.retries(),
        1,
        "a call under way counts its retries"
    );
    assert!(app.mirror.log.last().unwrap().text.contains("HTTP 503"));
    let later = app.mirror.now + Duration::from_secs(6);
    update(&mut app, Msg::Tick(later));
    assert_eq!(app.mirror.retries_waiting().0, 0);
}

#[test]
fn a_stored_round_replaces_the_stream_with_the_stored_text() {
    let mut app = app();
    started(&mut app, "r1", PhaseType::Presentation);
    started(&mut app, "r1", PhaseType::ConsistencyTest);
    delta(&mut app, "r1", "partial");
    let mut round = blank("r1", "a", "b", "d1");
    round.phases.push(Phase {
        prompt: "the prompt".into(),
        latency_ms: Some(1200),
        ..Phase::new(PhaseType::Presentation, "a", "the whole \u{1b}[31manswer")
    });
    stored(&mut app, round);
    let r = &app.mirror.rounds[0];
    let transcript: Vec<_> = r.transcript().collect();
    assert_eq!(
        transcript.len(),
        2,
        "the stored phase, then the call under way"
    );
    assert_eq!(
        (
            transcript[0].text,
            transcript[0].done,
            transcript[0].latency_ms
        ),
        ("the whole answer", true, Some(1200))
    );
    assert_eq!(
        (transcript[1].phase_type, transcript[1].done),
        (PhaseType::ConsistencyTest, false)
    );
    assert_eq!(app.mirror.in_flight(), 1);
    assert!(r.on_disk);
}

#[test]
fn pause_retry_and_quit_produce_the_right_commands() {
    let mut app = app();
    assert_eq!(
        key(&mut app, KeyCode::Char('p')),
        vec![Effect::Command(EngineCommand::Pause)]
    );
    event(&mut app, EngineEvent::Paused);
    assert_eq!(
        key(&mut app, KeyCode::Char('p')),
        vec![Effect::Command(EngineCommand::Resume)]
    );
    let mut round = blank("r1", "a", "b", "d1");
    round.error = Some(RoundError {
        phase_type: PhaseType::Presentation,
        model_id: "a".into(),
        message: "HTTP 500".into(),
        timestamp: String::new(),
        attempts: Vec::new(),
    });
    stored(&mut app, round);
    event(
        &mut app,
        EngineEvent::RoundFinished {
            round_id: "r1".into(),
        },
    );
    assert_eq!(
        key(&mut app, KeyCode::Char('r')),
        vec![Effect::Command(EngineCommand::RetryRound("r1".into()))]
    );
    started(&mut app, "r2", PhaseType::Presentation);
    assert!(
        key(&mut app, KeyCode::Char('q')).is_empty(),
        "asks first while calls are in flight"
    );
    assert!(app.confirm_quit);
    assert!(
        key(&mut app, KeyCode::Char('x')).is_empty(),
        "any other key stays"
    );
    key(&mut app, KeyCode::Char('q'));
    assert_eq!(
        key(&mut app, KeyCode::Char('q')),
        vec![Effect::Command(EngineCommand::Cancel), Effect::Quit]
    );
    // A stop signal asks nothing, even with calls in flight or the editor open.
    app.confirm_quit = false;
    assert_eq!(
        update(&mut app, Msg::Stop),
        vec![Effect::Command(EngineCommand::Cancel), Effect::Quit]
    );
}

#[test]
fn the_review_queue_fills_edits_saves_and_empties() {
    let mut app = app();
    let flagged = |id, status| {
        let mut r = blank(id, "a", "b", "d1");
        r.put_judgment(judgment("j", status, 6.0, 6.0));
        r
    };
    stored(&mut app, flagged("r1", ParseStatus::Failed));
    stored(&mut app, flagged("r2", ParseStatus::Partial));
    assert_eq!(
        app.shown()
            .review_items()
            .map(|r| r.round_id.as_str())
            .collect::<Vec<_>>(),
        ["r1", "r2"],
        "in schedule order"
    );
    key(&mut app, KeyCode::Char('v'));
    key(&mut app, KeyCode::Enter);
    assert!(app.screens.editor.is_some());
    // Saving text that still lacks scores is refused in place.
    assert!(ctrl_s(&mut app).is_empty());
    assert!(
        app.screens
            .editor
            .as_ref()
            .unwrap()
            .message
            .as_deref()
            .unwrap()
            .starts_with("not saved")
    );
    // Esc with edits asks first; q is text in the editor, not quit.
    key(&mut app, KeyCode::Char('q'));
    assert!(app.screens.editor.as_ref().unwrap().text().contains('q'));
    key(&mut app, KeyCode::Esc);
    assert!(app.screens.editor.as_ref().unwrap().confirm_discard);
    key(&mut app, KeyCode::Char('x'));
    assert!(app.screens.editor.is_some() && !app.screens.editor.as_ref().unwrap().confirm_discard);
    // Replace the text with a complete judgment and save.
    let editor = app.screens.editor.as_mut().unwrap();
    let lines: Vec<String> = Criterion::ALL
        .iter()
        .map(|c| format!("\"{}\": 6", c.key()))
        .collect();
    let json = format!(
        "{{\"team_a_scores\": {{{0}}}, \"team_b_scores\": {{{0}}}}}",
        lines.join(", ")
    );
    editor.textarea = TextArea::new(vec![json.clone()]);
    assert_eq!(
        ctrl_s(&mut app),
        vec![Effect::Command(EngineCommand::ApplyCorrection {
            round_id: "r1".into(),
            judge: "j".into(),
            correction: Box::new(Correction::Text(json))
        })]
    );
    // The engine stores it and sends the round: the item leaves the queue, the editor closes.
    stored(&mut app, flagged("r1", ParseStatus::CorrectedByHand));
    assert_eq!(app.shown().review_len(), 1);
    assert!(app.screens.editor.is_none());
    assert!(
        app.mirror
            .log
            .last()
            .unwrap()
            .text
            .starts_with("corrected r1")
    );
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Esc);
    assert!(app.screens.editor.is_none(), "no edits: one Esc leaves");
}

#[test]
fn the_fourteen_fields_can_be_typed_directly() {
    let mut app = app();
    let mut r = blank("r1", "a", "b", "d1");
    r.put_judgment(judgment("j", ParseStatus::Failed, 0.0, 0.0));
    stored(&mut app, r);
    key(&mut app, KeyCode::Char('v'));
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Tab);
    assert!(app.screens.editor.as_ref().unwrap().fields.is_some());
    for _ in 0..7 {
        key(&mut app, KeyCode::Char('8'));
        key(&mut app, KeyCode::Right);
        key(&mut app, KeyCode::Char('9'));
        key(&mut app, KeyCode::Left);
        key(&mut app, KeyCode::Down);
    }
    let fields = app.screens.editor.as_ref().unwrap().fields.clone().unwrap();
    assert_eq!(fields.values[6], ["8".to_string(), "9".to_string()]);
    let effects = ctrl_s(&mut app);
    let Some(Effect::Command(EngineCommand::ApplyCorrection { correction, .. })) = effects.first()
    else {
        panic!("{effects:?}")
    };
    let Correction::Scores { team_a, team_b } = correction.as_ref() else {
        panic!("scores")
    };
    assert_eq!((team_a.total(), team_b.total()), (Some(56.0), Some(63.0)));
    // An empty or out-of-range field is refused and the cursor goes to it.
    app.screens
        .editor
        .as_mut()
        .unwrap()
        .fields
        .as_mut()
        .unwrap()
        .values[2][1] = "11".into();
    assert!(ctrl_s(&mut app).is_empty());
    assert_eq!(
        app.screens
            .editor
            .as_ref()
            .unwrap()
            .fields
            .as_ref()
            .unwrap()
            .cursor,
        (2, 1)
    );
}

#[test]
fn help_opens_and_any_key_closes_it() {
    let mut app = app();
    key(&mut app, KeyCode::Char('?'));
    assert!(app.screens.help.open);
    key(&mut app, KeyCode::Down);
    assert!(!app.screens.help.open);
    assert_eq!(
        app.screens.matrix.cursor,
        (0, 0),
        "the closing key does nothing else"
    );
}

fn structured_setup() -> StructuredSetup {
    StructuredSetup {
        topic: Topic {
            id: "t".into(),
            proposition: "p".into(),
            context: None,
        },
        closing_word_limit: 200,
        weights: Default::default(),
        bands: Default::default(),
        pro: Default::default(),
        con: Default::default(),
        fallbacks: Vec::new(),
    }
}

#[test]
fn an_unreadable_reply_joins_the_queue_and_a_stored_correction_clears_it() {
    let mut app = app();
    let mut round = blank("r2", "a", "b", "d2");
    let mut setup = structured_setup();
    setup.fallbacks.push(ReplyFallback {
        key: "pro.opening".into(),
        error: "not the JSON asked for".into(),
        raw: "prose \u{1b}[31mred".into(),
        corrected_text: None,
    });
    round.record = RoundRecord::StructuredDebate(Box::new(setup.clone()));
    stored(&mut app, round.clone());
    let items: Vec<_> = app.shown().review_items().collect();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].raw, "prose red", "model text is sanitised");
    key(&mut app, KeyCode::Char('v'));
    key(&mut app, KeyCode::Enter);
    let editor = app.screens.editor.as_mut().unwrap();
    assert_eq!(editor.kind, ReviewKind::Other);
    editor.textarea = TextArea::new(vec!["{\"arguments\": []}".into()]);
    assert_eq!(
        ctrl_s(&mut app),
        vec![Effect::Command(EngineCommand::ApplyCorrection {
            round_id: "r2".into(),
            judge: "pro.opening".into(),
            correction: Box::new(Correction::Text("{\"arguments\": []}".into()))
        })],
        "the engine, which knows the round, checks it"
    );
    setup.fallbacks[0].corrected_text = Some("{\"arguments\": []}".into());
    round.record = RoundRecord::StructuredDebate(Box::new(setup));
    stored(&mut app, round);
    assert!(app.shown().review_len() == 0 && app.screens.editor.is_none());
}

/// A resumed run: two rounds finished in an earlier session (one with a judgment to review),
/// one stopped part-way, one new.
fn resumed() -> App {
    let [r1, r2, r3, r4] = <[Round; 4]>::try_from(four()).unwrap();
    let r1 = finished(r1, judgment("j", ParseStatus::Parsed, 8.0, 6.0));
    let r2 = finished(r2, judgment("j", ParseStatus::Partial, 7.0, 7.0));
    let mut r3 = r3;
    r3.phases.push(Phase {
        input_tokens: Some(500),
        output_tokens: Some(100),
        ..Phase::new(PhaseType::Presentation, "b", "stored before the stop")
    });
    let mut app = App::new("t", Mode::Live, Instant::now());
    update(
        &mut app,
        Msg::Engine(schedule(vec![
            (r1, true),
            (r2, true),
            (r3, true),
            (r4, false),
        ])),
    );
    app
}

#[test]
fn a_resumed_run_starts_from_what_is_stored() {
    let mut app = resumed();
    assert_eq!(
        app.mirror.resume(),
        crate::tui::mirror::Resume {
            stored: 3,
            finished: 2,
            to_run: 2
        }
    );
    // Margins, judgments and transcripts of earlier sessions.
    assert_eq!(app.mirror.rounds[0].margin(), Some(14.0));
    assert_eq!(app.mirror.rounds[0].status(), RoundStatus::Complete);
    assert_eq!(app.mirror.rounds[0].transcript().count(), 2);
    assert_eq!(
        app.mirror.rounds[2].transcript().next().unwrap().text,
        "stored before the stop"
    );
    // The review queue holds what was flagged before.
    let queue: Vec<_> = app
        .shown()
        .review_items()
        .map(|i| (i.round_id.as_str(), i.judge.as_str()))
        .collect();
    assert_eq!(queue, [("r2", "j")]);
    // The totals cover the stored phases: two rounds of two phases, and r3's one.
    assert_eq!(
        (
            app.mirror.totals().input_tokens,
            app.mirror.totals().calls,
            app.mirror.totals().retries
        ),
        (4500, 5, 4)
    );
    assert!((app.mirror.totals().cost_usd - 0.04).abs() < 1e-9);
    // Analysis reads only what is on disk: r4 has no file yet.
    assert_eq!(app.mirror.stored_rounds().len(), 3);
    key(&mut app, KeyCode::Char('a'));
    assert_eq!(
        app.screens.analysis.view.as_ref().unwrap().analysis.rounds,
        3
    );
    // The run goes on: r3 finishes; totals follow the store, not this session's calls.
    let r3 = finished(
        blank("r3", "b", "a", "d1"),
        judgment("j", ParseStatus::Parsed, 5.0, 7.0),
    );
    stored(&mut app, r3);
    event(
        &mut app,
        EngineEvent::RoundFinished {
            round_id: "r3".into(),
        },
    );
    assert_eq!(app.mirror.rounds[2].margin(), Some(-14.0));
    assert_eq!(app.mirror.totals().calls, 6);
    assert!(app.screens.analysis.view.as_ref().unwrap().stale);
    assert_eq!(app.mirror.progress.finished_this_run(), 1);
}

#[test]
fn the_clock_stops_and_the_remaining_time_is_this_runs_pace() {
    let mut app = resumed();
    let t0 = app.mirror.now;
    update(&mut app, Msg::Tick(t0 + Duration::from_secs(10)));
    assert_eq!(app.mirror.eta(), None, "nothing finished in this run yet");
    event(
        &mut app,
        EngineEvent::RoundFinished {
            round_id: "r3".into(),
        },
    );
    assert_eq!(
        app.mirror.eta(),
        Some(Duration::from_secs(10)),
        "one of two done in 10 s: the stored rounds do not count"
    );
    event(
        &mut app,
        EngineEvent::Finished {
            status: crate::store::TournamentStatus::Finished,
        },
    );
    update(&mut app, Msg::Tick(t0 + Duration::from_secs(60)));
    assert_eq!(app.mirror.elapsed(), Duration::from_secs(10));
    assert_eq!(app.mirror.eta(), None);
}

#[test]
fn browsing_builds_the_same_state_as_a_run_starts_from() {
    let live = resumed();
    let rounds = live.mirror.stored_rounds();
    let browsed = crate::tui::browse("t", &rounds, Instant::now());
    assert_eq!(browsed.mirror.rounds.len(), 3);
    for (b, l) in browsed.mirror.rounds.iter().zip(&live.mirror.rounds) {
        assert_eq!(b.stored, l.stored);
        assert_eq!(b.review, l.review);
        assert_eq!(b.margin(), l.margin());
    }
    assert_eq!(browsed.shown().review_len(), live.shown().review_len());
}

/// Every string in a value (through its serde form).
fn strings(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                out.push(k.clone());
                strings(v, out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_string_of_a_stored_round_is_sanitised_as_it_enters() {
    use crate::domain::{
        ArgumentAssessment, DebateArgument, Evaluation, PanelRecord, PanelRound, PanelSeat,
        PanelState, SeatOutcome, SeatResult, Standing, StructuredVerdict,
    };
    let hostile = |s: &str| format!("{s}\u{1b}]0;pwned\u{7}\u{1b}[2J\u{202e}\u{2066}!");
    let mut round = blank("r1", "a", "b", "d1");
    let mut setup = structured_setup();
    setup.pro.arguments.push(DebateArgument {
        id: "PRO-1".into(),
        claim: hostile("claim"),
        reasoning: hostile("reasoning"),
        evidence: hostile("evidence"),
    });
    round.record = RoundRecord::StructuredDebate(Box::new(setup));
    round.phases.push(Phase::new(
        PhaseType::Opening,
        "a",
        &hostile("{\"arguments\": []}"),
    ));
    let verdict = StructuredVerdict {
        assessments: vec![ArgumentAssessment {
            arg_id: "PRO-1".into(),
            logic: Some(7.0),
            evidence: Some(7.0),
            responsiveness: Some(7.0),
            honesty: Some(7.0),
            fallacies: Vec::new(),
            standing: Some(Standing::Upheld),
            reason: hostile("reason"),
        }],
        key_insight: hostile("insight"),
        unresolved_questions: vec![hostile("question")],
        recommendation: hostile("recommendation"),
        pro_total: Some(7.0),
        con_total: Some(5.0),
        bands: Default::default(),
    };
    round.put_judgment(Judgment {
        raw_response: hostile("judge text"),
        overall_analysis: hostile("analysis"),
        problems: vec![hostile("problem")],
        ..Judgment::new("j", Reading::Verdict(Some(Box::new(verdict))))
    });
    let mut scores = std::collections::BTreeMap::new();
    scores.insert(hostile("team_a.logic"), 7.0);
    round.panel = Some(PanelRecord {
        judges: vec![PanelSeat {
            persona_id: "x".into(),
            model: "j".into(),
            weight: 1.0,
        }],
        max_deliberation_rounds: 1,
        convergence_threshold: 0.8,
        dimension_disagreement_threshold: 2.0,
        min_evaluations_for_debate: 2,
        deliberation_timeout_s: None,
        summary: None,
        rounds: vec![PanelRound {
            number: 0,
            evaluations: vec![SeatResult {
                persona_id: "x".into(),
                outcome: SeatOutcome::Evaluated,
                evaluation: Some(Evaluation {
                    scores,
                    verdict: Some("pro".into()),
                    confidence: Some(0.8),
                    findings: Vec::new(),
                    rationale: hostile("rationale"),
                    labels: std::iter::once((hostile("PRO-1.standing"), hostile("UPHELD")))
                        .collect(),
                }),
                problems: Vec::new(),
            }],
            agreement: None,
            disagreements: Vec::new(),
        }],
        state: PanelState::Converged,
        verdict: None,
        converged: true,
        initial_agreement: None,
        final_agreement: None,
        aggregate: None,
    });
    let mut app = app();
    stored(&mut app, round.clone());
    let shown = serde_json::to_value(&*app.mirror.rounds[0].stored).unwrap();
    let mut all = Vec::new();
    strings(&shown, &mut all);
    assert!(all.iter().any(|s| s == "rationale!"), "{all:?}");
    for s in &all {
        assert_eq!(*s, crate::sanitize::sanitize(s), "not sanitised: {s:?}");
    }
    let verdict = app.mirror.rounds[0].stored.judgments[0].verdict().unwrap();
    assert_eq!(verdict.key_insight, "insight!");
    assert_eq!(
        app.mirror.rounds[0]
            .stored
            .structured()
            .unwrap()
            .pro
            .arguments[0]
            .claim,
        "claim!"
    );
    // The review queue and the start of a run take the same path.
    let mut started = App::new("t", Mode::Live, Instant::now());
    event(&mut started, schedule(vec![(round, true)]));
    assert_eq!(started.mirror.rounds[0].stored, app.mirror.rounds[0].stored);
}

/// The four rounds of [`four`], stored and judged, as a structured debate.
fn structured_app() -> App {
    let mut app = App::new("t", Mode::Live, Instant::now());
    let rounds = four()
        .into_iter()
        .map(|mut r| {
            r.record = RoundRecord::StructuredDebate(Box::new(structured_setup()));
            (r, true)
        })
        .collect();
    update(&mut app, Msg::Engine(schedule(rounds)));
    app
}

#[test]
fn the_analysis_screen_opens_with_the_runs_warnings() {
    let mut app = structured_app();
    app.mirror
        .note_warnings(&["judge confound: j is the only judge".to_string()]);
    key(&mut app, KeyCode::Char('a'));
    let view = app.screens.analysis.view.clone().unwrap();
    assert_eq!(
        view.analysis.warnings,
        ["judge confound: j is the only judge"]
    );
    assert_eq!(view.sections[0].title, "Warnings from the run");
    assert_eq!(view.tab, 0);
}

#[test]
fn analysis_sections_are_the_reports_and_wrap_both_ways() {
    for mut app in [app(), structured_app()] {
        key(&mut app, KeyCode::Char('a'));
        let view = |app: &App| app.screens.analysis.view.clone().unwrap();
        let sections: Vec<String> = view(&app)
            .sections
            .iter()
            .map(|s| s.title.clone())
            .collect();
        let report = crate::analysis::figures::sections(&view(&app).analysis);
        assert_eq!(
            sections,
            report.iter().map(|s| s.title.clone()).collect::<Vec<_>>(),
            "the report's sections, in its order"
        );
        if sections.is_empty() {
            // No round has figures yet: the screen says so, and Tab stays put.
            key(&mut app, KeyCode::Tab);
            assert_eq!(view(&app).tab, 0);
            continue;
        }
        key(&mut app, KeyCode::BackTab);
        assert_eq!(view(&app).tab, sections.len() - 1, "wraps back to the last");
        key(&mut app, KeyCode::Tab);
        assert_eq!(view(&app).tab, 0, "and forward to the first");
    }
    let mut sd = structured_app();
    key(&mut sd, KeyCode::Char('a'));
    assert!(
        !sd.screens
            .analysis
            .view
            .as_ref()
            .unwrap()
            .sections
            .is_empty()
    );
    let titles: Vec<String> = sd
        .screens
        .analysis
        .view
        .as_ref()
        .unwrap()
        .sections
        .iter()
        .map(|s| s.title.clone())
        .collect();
    assert!(
        titles.iter().any(|t| t.starts_with("Structured debate")),
        "the protocol's own sections: {titles:?}"
    );
}

#[test]
fn rows_are_stepped_within_the_section_columns_scroll_and_a_new_section_starts_at_the_top() {
    let mut sd = structured_app();
    key(&mut sd, KeyCode::Char('a'));
    // The first section with rows.
    while analysis_targets(&sd.mirror, sd.screens.analysis.view.as_ref().unwrap()).is_empty() {
        key(&mut sd, KeyCode::Tab);
    }
    let rows = analysis_targets(&sd.mirror, sd.screens.analysis.view.as_ref().unwrap()).len();
    for _ in 0..rows + 10 {
        key(&mut sd, KeyCode::Down);
    }
    assert_eq!(
        sd.screens.analysis.view.as_ref().unwrap().selected,
        rows - 1,
        "stops at the last"
    );
    key(&mut sd, KeyCode::Right);
    key(&mut sd, KeyCode::Right);
    key(&mut sd, KeyCode::Left);
    assert_eq!(sd.screens.analysis.view.as_ref().unwrap().column, 1);
    key(&mut sd, KeyCode::Tab);
    let view = sd.screens.analysis.view.as_ref().unwrap();
    assert_eq!((view.selected, view.column), (0, 0));
}

#[test]
fn esc_from_a_round_opened_in_analysis_returns_to_analysis() {
    let mut app = app();
    let r1 = finished(
        blank("r1", "a", "b", "d1"),
        judgment("j", ParseStatus::Parsed, 7.0, 5.0),
    );
    stored(&mut app, r1);
    key(&mut app, KeyCode::Char('a'));
    // Models tab: its first line opens a round of that model.
    key(&mut app, KeyCode::Enter);
    assert!(matches!(app.screen(), Screen::Round { .. }));
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.screen(), Screen::Analysis);
    // From the matrix, Esc goes back to the matrix.
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.screen(), Screen::Matrix);
}

#[test]
fn no_remaining_time_is_shown_while_paused() {
    let mut app = resumed();
    let t0 = app.mirror.now;
    update(&mut app, Msg::Tick(t0 + Duration::from_secs(10)));
    event(
        &mut app,
        EngineEvent::RoundFinished {
            round_id: "r3".into(),
        },
    );
    assert!(app.mirror.eta().is_some());
    event(&mut app, EngineEvent::Paused);
    update(&mut app, Msg::Tick(t0 + Duration::from_secs(100)));
    assert_eq!(app.mirror.eta(), None, "a paused run's pace says nothing");
    event(&mut app, EngineEvent::Resumed);
    assert!(app.mirror.eta().is_some());
}

/// The app with `r1`, `r2` and `r3` finished in that order, two finished rounds keeping
/// their text.
fn three_finished_keeping_two() -> (App, Vec<Round>) {
    let mut app = app();
    app.mirror.text_kept.capacity = 2;
    let rounds: Vec<Round> = four()
        .into_iter()
        .take(3)
        .map(|r| finished(r, judgment("j", ParseStatus::Parsed, 8.0, 6.0)))
        .collect();
    for r in &rounds {
        stored(&mut app, r.clone());
        event(
            &mut app,
            EngineEvent::RoundFinished {
                round_id: r.id.clone(),
            },
        );
    }
    (app, rounds)
}

#[test]
fn finished_rounds_beyond_the_few_kept_leave_their_text_in_the_store() {
    let (mut app, rounds) = three_finished_keeping_two();
    // r1, the least recent, keeps its numbers and verdict only.
    let dropped: Vec<bool> = app.mirror.rounds.iter().map(|r| r.text_dropped).collect();
    assert_eq!(dropped, [true, false, false, false]);
    assert!(
        app.mirror.rounds[0]
            .stored
            .phases
            .iter()
            .all(|p| p.response.is_empty())
    );
    assert_eq!(app.mirror.rounds[0].margin(), Some(14.0));
    assert_eq!(app.mirror.totals().calls, 6);
    // Opening it asks the driver for the round, once.
    app.screens.matrix.cursor = (0, 0);
    let effects = key(&mut app, KeyCode::Enter);
    assert_eq!(
        effects,
        [Effect::LoadRound {
            round_id: "r1".into()
        }]
    );
    let now = app.mirror.now;
    assert!(update(&mut app, Msg::Tick(now)).is_empty());
    // The answer brings the text back; the least recent other round (r2) gives up its own,
    // and the open round is never the one dropped.
    update(
        &mut app,
        Msg::RoundLoaded {
            round_id: "r1".into(),
            result: Ok(Arc::new(rounds[0].clone())),
        },
    );
    let dropped: Vec<bool> = app.mirror.rounds.iter().map(|r| r.text_dropped).collect();
    assert_eq!(dropped, [false, true, false, false]);
    assert_eq!(
        app.mirror.rounds[0].transcript().next().unwrap().text,
        "text"
    );
    assert_eq!(*app.mirror.rounds[0].stored, rounds[0]);
}

#[test]
fn the_analysis_of_rounds_whose_text_is_in_the_store_is_computed_from_the_store() {
    let (mut app, rounds) = three_finished_keeping_two();
    let effects = key(&mut app, KeyCode::Char('a'));
    assert_eq!(effects, [Effect::Analyse]);
    assert!(app.screens.analysis.analysing.is_some());
    // No second analysis while one is under way.
    app.screens.analysis.view = None;
    assert_eq!(app.screens.analysis.refresh(&app.mirror), None);
    let analysis = crate::analysis::analyse(&rounds, &Default::default());
    let t0 = app.mirror.now;
    update(&mut app, Msg::Tick(t0 + Duration::from_secs(2)));
    update(&mut app, Msg::Analysed(Ok(Box::new(analysis.clone()))));
    assert!(app.screens.analysis.analysing.is_none());
    let view = app.screens.analysis.view.as_ref().unwrap();
    assert_eq!(
        (view.analysis.rounds, view.took),
        (3, Duration::from_secs(2))
    );
    // A round stored since: the next pass waits four times the last one's length.
    stored(&mut app, rounds[1].clone());
    assert!(app.screens.analysis.view.as_ref().unwrap().stale);
    assert!(update(&mut app, Msg::Tick(t0 + Duration::from_secs(5))).is_empty());
    assert_eq!(
        update(&mut app, Msg::Tick(t0 + Duration::from_secs(10))),
        [Effect::Analyse]
    );
    // A round stored while the pass runs leaves its answer stale.
    stored(&mut app, rounds[2].clone());
    update(&mut app, Msg::Analysed(Ok(Box::new(analysis))));
    assert!(app.screens.analysis.view.as_ref().unwrap().stale);
}

#[test]
fn a_round_that_cannot_be_read_back_says_why_and_is_not_asked_for_again() {
    let (mut app, rounds) = three_finished_keeping_two();
    app.screens.matrix.cursor = (0, 0);
    key(&mut app, KeyCode::Enter);
    let effects = update(
        &mut app,
        Msg::RoundLoaded {
            round_id: "r1".into(),
            result: Err("permission denied \u{1b}[31m".into()),
        },
    );
    assert!(effects.is_empty(), "{effects:?}");
    let (id, why) = app.mirror.text_kept.failed.clone().unwrap();
    assert_eq!(id, "r1");
    assert!(!why.contains('\u{1b}'), "sanitised: {why:?}");
    assert!(
        app.mirror
            .log
            .last()
            .unwrap()
            .text
            .contains("could not be read back")
    );
    let now = app.mirror.now;
    assert!(update(&mut app, Msg::Tick(now)).is_empty());
    // Stored anew (a correction), it has its text again.
    stored(&mut app, rounds[0].clone());
    assert!(!app.mirror.rounds[0].text_dropped);
    assert_eq!(app.mirror.text_kept.failed, None);
}

#[test]
fn a_resumed_runs_finished_rounds_arrive_without_text_and_are_read_back_when_opened() {
    let full = finished(
        blank("r1", "a", "b", "d1"),
        judgment("j", ParseStatus::Parsed, 8.0, 6.0),
    );
    let mut app = App::new("t", Mode::Live, Instant::now());
    update(
        &mut app,
        Msg::Engine(EngineEvent::Started {
            tournament_id: "t".into(),
            rounds: vec![ScheduledState {
                round: Arc::new(full.clone().without_text()),
                stored: true,
                to_run: false,
                text_dropped: true,
            }],
        }),
    );
    assert!(app.mirror.rounds[0].text_dropped);
    assert_eq!(app.mirror.rounds[0].margin(), Some(14.0));
    let effects = key(&mut app, KeyCode::Enter);
    assert_eq!(
        effects,
        [Effect::LoadRound {
            round_id: "r1".into()
        }]
    );
}

/// Presses `:`, types `id` and Enter: the jump to a round by its id.
fn jump(app: &mut App, id: &str) {
    key(app, KeyCode::Char(':'));
    for c in id.chars() {
        key(app, KeyCode::Char(c));
    }
    key(app, KeyCode::Enter);
}

/// The round the round screen shows, while it shows.
fn round_showing(app: &App) -> Option<&str> {
    matches!(app.screen(), Screen::Round { .. })
        .then(|| app.screens.round.id.as_deref())
        .flatten()
}

#[test]
fn a_round_opens_by_id_from_every_screen_even_one_filtered_off_the_matrix() {
    let mut app = app();
    // r2 waits for review, r3 is judged; B, the folder compared with, judged every round.
    let mut r2 = blank("r2", "a", "b", "d2");
    r2.put_judgment(judgment("j", ParseStatus::Failed, 0.0, 0.0));
    stored(&mut app, r2);
    let r3 = finished(
        blank("r3", "b", "a", "d1"),
        judgment("j", ParseStatus::Parsed, 7.0, 5.0),
    );
    stored(&mut app, r3);
    let b = four()
        .into_iter()
        .map(|r| finished(r, judgment("j", ParseStatus::Parsed, 6.0, 6.0)))
        .collect();
    app.mirror.set_compare("a", "b", b);
    // The filter keeps d2's rounds: r1 and r3 are off the matrix.
    key(&mut app, KeyCode::Char('f'));
    for c in "dilemma=d2".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    let off = |app: &App, id: &str| !app.shown().passes(app.mirror.round(id).unwrap());
    assert!(off(&app, "r1") && off(&app, "r3") && !off(&app, "r2"));
    let cursor = app.screens.matrix.cursor;

    // From each screen, reached from the matrix by its key, `:` and the id open the round,
    // and Esc goes back to that screen.
    let screens: [(Option<KeyCode>, Screen); 7] = [
        (None, Screen::Matrix),
        (Some(KeyCode::Enter), Screen::Round { scores: false }),
        (Some(KeyCode::Char('v')), Screen::Review),
        (Some(KeyCode::Char('a')), Screen::Analysis),
        (Some(KeyCode::Char('s')), Screen::Leaderboard),
        (Some(KeyCode::Char('g')), Screen::Log),
        (Some(KeyCode::Char('c')), Screen::Compare { summary: true }),
    ];
    for (to, screen) in screens {
        if let Some(code) = to {
            key(&mut app, code);
        }
        assert_eq!(app.screen(), screen);
        jump(&mut app, "r1");
        assert_eq!(round_showing(&app), Some("r1"), "from {screen:?}");
        assert_eq!(app.screen(), Screen::Round { scores: false });
        assert_eq!(
            app.screens.matrix.cursor, cursor,
            "the matrix cursor stays on a round the filter shows"
        );
        key(&mut app, KeyCode::Esc);
        // A round opened from a round takes its place: back is where that one was opened.
        let back = if to == Some(KeyCode::Enter) {
            Screen::Matrix
        } else {
            screen
        };
        assert_eq!(app.screen(), back, "back where {screen:?} opened it");
        key(&mut app, KeyCode::Esc);
        assert_eq!(app.screen(), Screen::Matrix);
    }
    // Over the help: the key that closes it does nothing else, then the jump works.
    key(&mut app, KeyCode::Char('?'));
    key(&mut app, KeyCode::Char(':'));
    assert!(!app.screens.help.open && app.screens.search.prompt.is_none());
    jump(&mut app, "r1");
    assert_eq!(round_showing(&app), Some("r1"));
    key(&mut app, KeyCode::Esc);

    // The screens' own ways to a round open it the same way: a search hit, a line of the
    // Analysis screen, a review item, the round compared.
    key(&mut app, KeyCode::Char('/'));
    key(&mut app, KeyCode::Char('x'));
    key(&mut app, KeyCode::Enter);
    let hit = crate::store::SearchHit {
        round_id: "r3".into(),
        place: crate::store::HitPlace::Phase {
            index: 0,
            phase_type: PhaseType::Presentation,
            speaker: "b".into(),
            prompt: false,
        },
        count: 1,
        snippet: Default::default(),
    };
    update(
        &mut app,
        Msg::SearchResults {
            query: "x".into(),
            hits: Ok(vec![hit]),
        },
    );
    key(&mut app, KeyCode::Enter);
    assert_eq!(round_showing(&app), Some("r3"), "a search hit");
    key(&mut app, KeyCode::Esc);

    key(&mut app, KeyCode::Char('a'));
    let view = app.screens.analysis.view.as_ref().unwrap();
    let Some(AnalysisTarget::Round { id, scores }) =
        analysis_targets(&app.mirror, view).first().cloned()
    else {
        panic!("the Models tab's first line leads to a round")
    };
    key(&mut app, KeyCode::Enter);
    assert_eq!(round_showing(&app), Some(id.as_str()), "an Analysis line");
    assert_eq!(app.screen(), Screen::Round { scores });
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Esc);

    key(&mut app, KeyCode::Char('v'));
    key(&mut app, KeyCode::Char('o'));
    assert_eq!(round_showing(&app), Some("r2"), "a review item");
    assert_eq!(app.screen(), Screen::Round { scores: true });
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.screen(), Screen::Review);
    key(&mut app, KeyCode::Esc);

    jump(&mut app, "r3");
    key(&mut app, KeyCode::Char('v'));
    assert_eq!(app.screen(), Screen::Compare { summary: false });
    key(&mut app, KeyCode::Char('o'));
    assert_eq!(round_showing(&app), Some("r3"), "the round compared");
    assert_eq!(app.screen(), Screen::Round { scores: true });

    // An id the tournament does not hold opens nothing and says so.
    key(&mut app, KeyCode::Esc);
    jump(&mut app, "r9");
    assert_eq!(app.screen(), Screen::Matrix);
    assert!(app.notice.as_deref().is_some_and(|n| n.contains("r9")));
}

#[test]
fn a_round_the_matrix_has_no_cell_for_opens_by_id_too() {
    // Two rounds of one pairing, dilemma and repetition: the matrix shows the later one.
    let mut app = App::new("t", Mode::Live, Instant::now());
    let rounds = vec![
        (blank("r1", "a", "b", "d1"), false),
        (blank("r1-again", "a", "b", "d1"), false),
    ];
    update(&mut app, Msg::Engine(schedule(rounds)));
    assert_eq!(app.mirror.cell_of(0), None);
    jump(&mut app, "r1");
    assert_eq!(round_showing(&app), Some("r1"));
    assert_eq!(app.selected().map(|r| r.id()), Some("r1-again"));
}

fn failed(id: &str, dilemma: &str) -> Round {
    let mut round = blank(id, "a", "b", dilemma);
    round.error = Some(RoundError {
        phase_type: PhaseType::Presentation,
        model_id: "a".into(),
        message: "HTTP 500".into(),
        timestamp: String::new(),
        attempts: Vec::new(),
    });
    round
}

fn footer(app: &App) -> String {
    app.keys.footer(
        app.screens.bindings(app.showing()),
        true,
        &crate::tui::views::hidden_keys(app),
    )
}

#[test]
fn quitting_with_q_is_the_users_choice_and_ctrl_c_is_forced() {
    let mut app = app();
    started(&mut app, "r1", PhaseType::Presentation);
    assert!(key(&mut app, KeyCode::Char('q')).is_empty());
    assert_eq!(
        key(&mut app, KeyCode::Char('q')),
        vec![Effect::Command(EngineCommand::Cancel), Effect::Quit]
    );
    assert!(!app.forced_quit, "q confirmed: exit 0 with a plain line");
    let mut app = App::new("t", Mode::Live, Instant::now());
    let effects = update(
        &mut app,
        Msg::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
    );
    assert!(effects.contains(&Effect::Quit));
    assert!(app.forced_quit, "Ctrl-C: exit 130");
}

#[test]
fn after_the_run_r_retries_and_the_cell_shows_queued_then_running() {
    let mut app = app();
    stored(&mut app, failed("r1", "d1"));
    event(
        &mut app,
        EngineEvent::RoundFinished {
            round_id: "r1".into(),
        },
    );
    event(
        &mut app,
        EngineEvent::Finished {
            status: crate::store::TournamentStatus::Finished,
        },
    );
    let after = footer(&app);
    assert!(!after.contains("p pause"), "nothing to pause: {after}");
    assert!(
        after.contains("r retry") && after.contains("R retry all"),
        "{after}"
    );
    assert_eq!(
        key(&mut app, KeyCode::Char('r')),
        vec![Effect::Command(EngineCommand::RetryRound("r1".into()))]
    );
    // The engine accepts it: the cell says queued at once, and the run can be paused.
    event(
        &mut app,
        EngineEvent::Queued {
            round_ids: vec!["r1".into()],
        },
    );
    let r1 = app.mirror.round("r1").expect("r1");
    assert!(r1.queued);
    assert_eq!(
        crate::tui::mirror::standing(r1, app.mirror.now),
        crate::tui::mirror::Standing::Queued
    );
    let queued = footer(&app);
    assert!(queued.contains("p pause"), "{queued}");
    assert!(!queued.contains("r retry"), "already queued: {queued}");
    assert!(
        key(&mut app, KeyCode::Char('r')).is_empty(),
        "a queued round is not sent twice"
    );
    started(&mut app, "r1", PhaseType::Presentation);
    let r1 = app.mirror.round("r1").expect("r1");
    assert!(!r1.queued && r1.is_running());
}

#[test]
fn browsing_offers_retry_only_where_a_round_can_run_again() {
    let mut done = blank("r1", "a", "b", "d1");
    done.status = RoundStatus::Complete;
    let mut app = crate::tui::browse("t", &[done, failed("r2", "d2")], Instant::now());
    let f = footer(&app);
    assert!(
        !f.contains("p pause") && !f.contains("r retry"),
        "a done round: {f}"
    );
    assert!(f.contains("R retry all"), "{f}");
    key(&mut app, KeyCode::Right);
    let f = footer(&app);
    assert!(f.contains("r retry"), "the failed round: {f}");
    assert_eq!(
        key(&mut app, KeyCode::Char('R')),
        vec![Effect::Command(EngineCommand::RetryIncomplete)]
    );
    event(
        &mut app,
        EngineEvent::Queued {
            round_ids: vec!["r2".into()],
        },
    );
    assert!(app.mirror.engine_running, "q now stops the rounds retried");
    started(&mut app, "r2", PhaseType::Presentation);
    assert!(key(&mut app, KeyCode::Char('q')).is_empty(), "asks first");
}

/// The screen as drawn at 120×30, as text.
fn drawn(app: &App) -> String {
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 30)).expect("terminal");
    terminal
        .draw(|f| crate::tui::views::render(f, app, &crate::tui::theme::Theme::no_color()))
        .expect("draws");
    terminal.backend().to_string()
}

#[test]
fn r_on_the_round_screen_retries_the_round_showing_only_when_it_is_incomplete() {
    let mut done = blank("r1", "a", "b", "d1");
    done.status = RoundStatus::Complete;
    let mut app = crate::tui::browse("t", &[done, failed("r2", "d2")], Instant::now());
    // A complete round: nothing to retry, and the footer does not offer it.
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.screen(), Screen::Round { scores: false });
    assert!(!footer(&app).contains("r retry"), "{}", footer(&app));
    assert!(key(&mut app, KeyCode::Char('r')).is_empty());
    assert!(
        app.notice
            .as_deref()
            .is_some_and(|n| n.contains("nothing to retry here"))
    );
    // The failed round, opened by id whatever the matrix cursor is on.
    key(&mut app, KeyCode::Esc);
    app.screens.matrix.cursor = (0, 0);
    app.notice = None;
    crate::tui::nav::go(
        &mut app,
        crate::tui::msg::Destination::Round(crate::tui::msg::RoundAt {
            id: "r2".into(),
            scores: false,
            opening: crate::tui::msg::Opening::Top,
        }),
    );
    assert_eq!(app.screens.round.id.as_deref(), Some("r2"));
    assert!(footer(&app).contains("r retry"), "{}", footer(&app));
    assert_eq!(
        key(&mut app, KeyCode::Char('r')),
        vec![Effect::Command(EngineCommand::RetryRound("r2".into()))]
    );
    event(
        &mut app,
        EngineEvent::Queued {
            round_ids: vec!["r2".into()],
        },
    );
    assert!(!footer(&app).contains("r retry"), "already queued");
    assert!(key(&mut app, KeyCode::Char('r')).is_empty());
}

#[test]
fn while_rounds_retried_in_open_run_the_header_says_so_not_browsing() {
    let mut app = crate::tui::browse(
        "t",
        &[failed("r1", "d1"), failed("r2", "d2")],
        Instant::now(),
    );
    assert!(drawn(&app).contains("browsing stored results"));
    event(
        &mut app,
        EngineEvent::Queued {
            round_ids: vec!["r1".into(), "r2".into()],
        },
    );
    let queued = drawn(&app);
    assert!(
        queued.contains("retrying 2 rounds (0 running, 2 queued)") && !queued.contains("browsing"),
        "{queued}"
    );
    started(&mut app, "r1", PhaseType::Presentation);
    let running = drawn(&app);
    assert!(
        running.contains("retrying 2 rounds (1 running, 1 queued)"),
        "{running}"
    );
    event(&mut app, EngineEvent::Paused);
    assert!(drawn(&app).contains("(1 running, 1 queued) · PAUSED"));
    event(
        &mut app,
        EngineEvent::Finished {
            status: crate::store::TournamentStatus::Finished,
        },
    );
    assert!(drawn(&app).contains("browsing stored results"));
}

#[test]
fn a_rebound_key_does_its_action_and_the_footer_and_help_show_it() {
    let mut app = app();
    app.keys = crate::tui::user_keys::parse(
        "retry = \"x\"\nhelp = \"f1\"\n",
        std::path::Path::new("keys.toml"),
    )
    .unwrap();
    stored(&mut app, failed("r1", "d1"));
    event(
        &mut app,
        EngineEvent::RoundFinished {
            round_id: "r1".into(),
        },
    );
    event(
        &mut app,
        EngineEvent::Finished {
            status: crate::store::TournamentStatus::Finished,
        },
    );
    let shown = footer(&app);
    assert!(
        shown.contains("x retry") && shown.contains("F1 help"),
        "{shown}"
    );
    assert!(
        !shown.contains("r retry") && !shown.contains("? help"),
        "{shown}"
    );
    assert!(
        key(&mut app, KeyCode::Char('r')).is_empty(),
        "r does nothing now"
    );
    assert_eq!(
        key(&mut app, KeyCode::Char('x')),
        vec![Effect::Command(EngineCommand::RetryRound("r1".into()))]
    );
    assert!(key(&mut app, KeyCode::Char('?')).is_empty());
    assert!(!app.screens.help.open);
    key(&mut app, KeyCode::F(1));
    assert!(app.screens.help.open);
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(100, 40)).unwrap();
    terminal
        .draw(|f| crate::tui::views::render(f, &app, &crate::tui::theme::Theme::no_color()))
        .unwrap();
    let screen: String = terminal
        .backend()
        .buffer()
        .content()
        .iter()
        .map(|c| c.symbol())
        .collect();
    assert!(
        screen.contains("x                    retry an incomplete round"),
        "{screen}"
    );
    assert!(
        screen.contains("F1                   this help"),
        "{screen}"
    );
}

/// An Ethics Bowl round whose debaters name themselves and each other in their text, its
/// judge's scores stored.
fn named_round(id: &str) -> Round {
    let s = ScheduledRound {
        team_a: "gpt-secret".into(),
        team_b: "claude-hidden".into(),
        judges: vec!["judge-model".into()],
        ..ScheduledRound::example(id, "d1")
    };
    let mut round = crate::protocols::blank_round(&s, RoundRecord::EthicsBowl);
    round.phases.push(Phase::new(
        PhaseType::Presentation,
        "gpt-secret",
        "As GPT-Secret I hold that claude-hidden misreads the case.",
    ));
    round.phases.push(Phase::new(
        PhaseType::Response,
        "claude-hidden",
        "Claude-Hidden replies: the duty is clear.",
    ));
    round.phases.push(Phase::new(
        PhaseType::Judgment,
        "judge-model",
        "Team A: 9.5 everywhere; Team B: 3.5 everywhere.",
    ));
    round.put_judgment(judgment("judge-model", ParseStatus::Parsed, 9.5, 3.5));
    round.status = round.settled_status();
    round
}

fn judging(ids: &[&str], done: Vec<bool>, standalone: bool) -> App {
    let rounds: Vec<Round> = ids.iter().map(|id| named_round(id)).collect();
    let mut app = crate::tui::browse("t", &rounds, Instant::now());
    update(
        &mut app,
        Msg::AnnotateReady(Ok(crate::tui::msg::AnnotateStart {
            annotator: "ann".into(),
            round_ids: ids.iter().map(|s| s.to_string()).collect(),
            done,
            stored: Vec::new(),
            blind: true,
            standalone,
        })),
    );
    app
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
}

#[test]
fn judging_blind_shows_no_model_name_round_id_or_judge_score() {
    let id = "d1__gpt-secret__vs__claude-hidden__r1";
    let app = judging(&[id], vec![false], true);
    assert_eq!(app.screen(), Screen::Annotate);
    let screen = drawn(&app);
    let lower = screen.to_lowercase();
    for hidden in [
        "gpt-secret",
        "claude-hidden",
        "judge-model",
        id,
        "9.5",
        "3.5",
    ] {
        assert!(!lower.contains(hidden), "{hidden} shows:\n{screen}");
    }
    assert!(screen.contains("round 1 of 1"), "{screen}");
    assert!(
        screen.contains("As Team A I hold that Team B misreads"),
        "names inside the text are replaced:\n{screen}"
    );
    assert!(screen.contains("Team B replies"), "{screen}");
    assert!(
        screen.contains("Presentation · Team A") && screen.contains("Response · Team B"),
        "each phase under its own team:\n{screen}"
    );
    assert!(!screen.contains("Judgment"), "no judge's phase:\n{screen}");
}

#[test]
fn ctrl_s_asks_to_save_what_was_typed_and_its_answer_moves_on() {
    let mut app = judging(&["r1", "r2"], vec![false, false], true);
    assert!(ctrl_s(&mut app).is_empty(), "nothing typed: nothing saved");
    let session = app.screens.annotate.session.as_ref().unwrap();
    assert!(session.message.as_deref().unwrap().starts_with("not saved"));
    // Each score and Enter, the review editor's habit: the cursor moves on by itself after
    // a whole score, and the Enter after it does not move it again (a `1` waits for a `0`,
    // and its Enter moves on).
    for score in [
        "7", "6", "5", "4", "3", "2", "1", "10", "9", "8", "7", "6", "5", "4",
    ] {
        type_text(&mut app, score);
        key(&mut app, KeyCode::Enter);
    }
    // A reason for the score under the cursor (Team B, the last criterion).
    key(&mut app, KeyCode::Tab);
    type_text(&mut app, "q and ? are text here");
    key(&mut app, KeyCode::Tab);
    let effects = ctrl_s(&mut app);
    let [Effect::SaveAnnotation(annotation)] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    let saved = annotation.clone();
    assert!(annotation.blind && annotation.via == crate::annotations::Via::Tui);
    assert_eq!(annotation.round_id, "r1");
    assert_eq!(annotation.annotator, "ann");
    let crate::annotations::HumanJudgment::EthicsBowl {
        team_a,
        team_b,
        justifications,
    } = &annotation.judgment
    else {
        panic!("{annotation:?}");
    };
    assert_eq!(team_a.get(Criterion::PrincipleArticulation), Some(7.0));
    assert_eq!(team_a.get(Criterion::ConstructiveEngagement), Some(1.0));
    assert_eq!(team_b.get(Criterion::PrincipleArticulation), Some(10.0));
    assert_eq!(team_b.get(Criterion::ConstructiveEngagement), Some(4.0));
    assert_eq!(justifications.len(), 1);
    assert_eq!(justifications[0].text, "q and ? are text here");
    assert_eq!(
        justifications[0].criterion,
        Criterion::ConstructiveEngagement
    );
    // Stored: on to the next round, and people's readings reach the mirror.
    let people = crate::tui::msg::PeopleReadings {
        readings: Vec::new(),
        blind: 1,
    };
    update(
        &mut app,
        Msg::AnnotationSaved {
            round_id: "r1".into(),
            result: Ok((saved, people.clone())),
        },
    );
    assert_eq!(app.mirror.people, people);
    let session = app.screens.annotate.session.as_ref().unwrap();
    assert_eq!((session.at, session.judged()), (Some(1), 1));
    assert!(drawn(&app).contains("round 2 of 2"));
    // A refused save stays on the round and says why.
    update(
        &mut app,
        Msg::AnnotationSaved {
            round_id: "r2".into(),
            result: Err("disk full".into()),
        },
    );
    let session = app.screens.annotate.session.as_ref().unwrap();
    assert_eq!(session.at, Some(1));
    assert!(session.message.as_deref().unwrap().contains("disk full"));
}

#[test]
fn a_session_resumes_at_the_first_round_not_judged_and_leaving_asks_first() {
    let mut app = judging(
        &["r1", "r2", "r3", "r4"],
        vec![true, true, false, false],
        true,
    );
    assert_eq!(app.screens.annotate.session.as_ref().unwrap().at, Some(2));
    assert!(drawn(&app).contains("round 3 of 4"));
    type_text(&mut app, "7");
    assert!(key(&mut app, KeyCode::Char('q')).is_empty(), "asks first");
    assert!(drawn(&app).contains("not saved"), "{}", drawn(&app));
    assert_eq!(key(&mut app, KeyCode::Char('q')), vec![Effect::Quit]);
    // Nothing typed: q leaves at once.
    let mut app = judging(&["r1"], vec![false], true);
    assert_eq!(key(&mut app, KeyCode::Char('q')), vec![Effect::Quit]);
}

#[test]
fn a_on_the_matrix_asks_the_annotators_name_and_esc_returns_to_the_matrix() {
    let rounds = [named_round("r1"), named_round("r2")];
    let mut app = crate::tui::browse("t", &rounds, Instant::now());
    assert!(footer(&app).contains("A annotate"), "{}", footer(&app));
    key(&mut app, KeyCode::Char('A'));
    type_text(&mut app, "../x");
    assert!(key(&mut app, KeyCode::Enter).is_empty(), "a bad name");
    assert!(app.notice.as_deref().unwrap().contains("annotator"));
    for _ in 0..4 {
        key(&mut app, KeyCode::Backspace);
    }
    type_text(&mut app, "ann");
    let effects = key(&mut app, KeyCode::Enter);
    let [Effect::StartAnnotating { annotator, rounds }] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    assert_eq!((annotator.as_str(), rounds.len()), ("ann", 2));
    update(
        &mut app,
        Msg::AnnotateReady(Ok(crate::tui::msg::AnnotateStart {
            annotator: "ann".into(),
            round_ids: vec!["r2".into(), "r1".into()],
            done: vec![false, false],
            stored: Vec::new(),
            blind: true,
            standalone: false,
        })),
    );
    assert_eq!(app.screen(), Screen::Annotate);
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.screen(), Screen::Matrix);
}

#[test]
fn the_analysis_screen_measures_the_judges_against_people_as_judgments_are_stored() {
    let rounds = [named_round("r1"), named_round("r2")];
    let mut app = crate::tui::browse("t", &rounds, Instant::now());
    key(&mut app, KeyCode::Char('a'));
    let titles = |app: &App| -> Vec<String> {
        let view = app.screens.analysis.view.as_ref().expect("analysed");
        view.sections.iter().map(|s| s.title.clone()).collect()
    };
    assert!(!titles(&app).contains(&"Judges against people".to_string()));
    let annotations: Vec<crate::annotations::Annotation> = ["r1", "r2"]
        .iter()
        .map(|id| crate::annotations::Annotation {
            schema_version: crate::annotations::ANNOTATION_SCHEMA_VERSION,
            annotator: "ann".into(),
            written_at: "2026-11-28T00:00:00Z".into(),
            first_written_at: None,
            blind: true,
            via: crate::annotations::Via::Tui,
            round_id: (*id).into(),
            judgment: crate::annotations::HumanJudgment::EthicsBowl {
                team_a: Scores::uniform(6.0),
                team_b: Scores::uniform(5.0),
                justifications: Vec::new(),
            },
            seconds_on_round: Some(240.0),
            words_shown: Some(1000),
        })
        .collect();
    let (readings, blind) = crate::analysis::human::PersonReading::of_annotations(&annotations);
    update(
        &mut app,
        Msg::AnnotationSaved {
            round_id: "r2".into(),
            result: Ok((
                Box::new(annotations[1].clone()),
                crate::tui::msg::PeopleReadings { readings, blind },
            )),
        },
    );
    let later = app.mirror.now + Duration::from_secs(2);
    update(&mut app, Msg::Tick(later));
    assert!(
        titles(&app).contains(&"Judges against people".to_string()),
        "{:?}",
        titles(&app)
    );
}

/// PgDn turns a page of the transcript as drawn (not a fixed ten rows) and stops at its
/// end, so PgUp comes back at once; a new round opens at its top.
#[test]
fn the_annotate_transcript_turns_pages_and_stops_at_its_end() {
    let mut app = judging(&["r1", "r2"], vec![false, false], true);
    drawn(&app);
    let (height, bottom) = app
        .screens
        .annotate
        .session
        .as_ref()
        .unwrap()
        .transcript
        .get()
        .unwrap();
    assert!(height > 10, "{height}");
    key(&mut app, KeyCode::PageDown);
    let scroll = app.screens.annotate.session.as_ref().unwrap().scroll;
    assert_eq!(scroll, (height - 2).min(bottom), "a page less two rows");
    for _ in 0..50 {
        key(&mut app, KeyCode::PageDown);
    }
    let session = app.screens.annotate.session.as_ref().unwrap();
    assert_eq!(session.scroll, bottom, "stops at the end");
    let screen = drawn(&app);
    assert!(screen.contains("Transcript ·"), "{screen}");
}

#[test]
fn an_adaptive_designs_cells_not_chosen_are_marked_and_the_legend_says_so() {
    let mut app = App::new("t", Mode::Live, Instant::now());
    update(
        &mut app,
        Msg::Engine(schedule(vec![(
            blank("d1__a__vs__b__r1", "a", "b", "d1"),
            false,
        )])),
    );
    let later = ScheduledRound {
        team_a: "a".into(),
        team_b: "b".into(),
        ..ScheduledRound::example("d2__a__vs__b__r1", "d2")
    };
    let design = |stopped: Option<&str>| {
        Msg::Engine(EngineEvent::Design {
            wave: 1,
            rounds: Vec::new(),
            not_chosen: vec![later.clone()],
            stopped: stopped.map(str::to_string),
        })
    };
    update(&mut app, design(None));
    let screen = drawn(&app);
    assert!(
        screen.contains("– not chosen yet by the adaptive design"),
        "{screen}"
    );
    update(&mut app, design(Some("max_rounds: 1 round chosen")));
    let screen = drawn(&app);
    assert!(
        screen.contains("skip not chosen by the adaptive design"),
        "{screen}"
    );
    assert!(screen.contains("skip "), "{screen}");
}

/// Time on task reaches the annotate screen through ticks: each key charges the time since
/// the screen's last event to the round showing, a stretch idle for more than five minutes
/// counts five, a round visited twice sums its visits, the time of a round looked at but
/// not judged stays out of the one saved, and a change saved later adds to what was stored.
#[test]
fn the_annotate_screen_records_time_on_task() {
    let mut app = judging(&["r1", "r2"], vec![false, false], true);
    let t0 = app.mirror.now;
    let at = |app: &mut App, seconds: u64| {
        update(app, Msg::Tick(t0 + Duration::from_secs(seconds)));
    };
    let scores = |app: &mut App| type_text(app, "55555555555555");
    let saved = |effects: Vec<Effect>| -> crate::annotations::Annotation {
        let [Effect::SaveAnnotation(a)] = effects.as_slice() else {
            panic!("{effects:?}");
        };
        (**a).clone()
    };
    let answer = |app: &mut App, a: &crate::annotations::Annotation| {
        let stored = crate::annotations::Annotation {
            written_at: "2026-11-28T09:00:00Z".into(),
            ..a.clone()
        };
        update(
            app,
            Msg::AnnotationSaved {
                round_id: a.round_id.clone(),
                result: Ok((Box::new(stored), Default::default())),
            },
        );
    };
    drawn(&app);
    at(&mut app, 60);
    key(&mut app, KeyCode::PageDown);
    at(&mut app, 90);
    key(&mut app, KeyCode::Char(']'));
    drawn(&app);
    // Twenty idle minutes on r2 count five.
    at(&mut app, 90 + 20 * 60);
    key(&mut app, KeyCode::Char('['));
    drawn(&app);
    at(&mut app, 1335);
    scores(&mut app);
    let r1 = saved(ctrl_s(&mut app));
    assert_eq!(r1.round_id, "r1");
    assert_eq!(r1.seconds_on_round, Some(135.0), "60 + 30 + 45, not r2's");
    let words = r1.words_shown.unwrap();
    // The setup, and both debaters' phases with their headings (at least 24 words).
    assert!(words >= 24, "{words}");
    at(&mut app, 1336);
    answer(&mut app, &r1);
    let session = app.screens.annotate.session.as_ref().unwrap();
    assert_eq!(session.at, Some(1), "on to r2");
    assert_eq!(
        session.unsaved_seconds,
        [1.0, 300.0],
        "r1: the second to the answer"
    );
    // r2's second visit adds to its first.
    at(&mut app, 1436);
    scores(&mut app);
    let r2 = saved(ctrl_s(&mut app));
    assert_eq!(r2.seconds_on_round, Some(400.0), "300 (capped) + 100");
    answer(&mut app, &r2);
    assert_eq!(app.screens.annotate.session.as_ref().unwrap().at, None);
    // Every round judged: no round shows, and no time is charged until one does again.
    at(&mut app, 2000);
    key(&mut app, KeyCode::Char('['));
    at(&mut app, 2030);
    key(&mut app, KeyCode::Char('6'));
    let changed = saved(ctrl_s(&mut app));
    assert_eq!(changed.round_id, "r2");
    assert_eq!(changed.seconds_on_round, Some(430.0), "400 stored + 30");
}

/// A change to a judgment stored without a time (a spreadsheet's) records none: its first
/// time is unknown, and the change's alone would read as a fast judgment.
#[test]
fn a_change_to_a_judgment_without_a_time_records_none() {
    let mut app = crate::tui::browse("t", &[named_round("r1")], Instant::now());
    update(
        &mut app,
        Msg::AnnotateReady(Ok(crate::tui::msg::AnnotateStart {
            annotator: "ann".into(),
            round_ids: vec!["r1".into()],
            done: vec![true],
            stored: vec![Some(stored_judgment("r1", None))],
            blind: true,
            standalone: true,
        })),
    );
    key(&mut app, KeyCode::Char('['));
    let later = app.mirror.now + Duration::from_secs(30);
    update(&mut app, Msg::Tick(later));
    key(&mut app, KeyCode::Char('6'));
    let effects = ctrl_s(&mut app);
    let [Effect::SaveAnnotation(a)] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    assert_eq!(a.seconds_on_round, None);
}

/// An annotator's stored Ethics Bowl judgment of `round` with `seconds` on it.
fn stored_judgment(round: &str, seconds: Option<f64>) -> crate::annotations::Annotation {
    crate::annotations::Annotation {
        schema_version: crate::annotations::ANNOTATION_SCHEMA_VERSION,
        annotator: "me".into(),
        written_at: "2026-11-28T00:00:00Z".into(),
        first_written_at: None,
        blind: true,
        via: if seconds.is_some() {
            crate::annotations::Via::Tui
        } else {
            crate::annotations::Via::Csv
        },
        round_id: round.into(),
        judgment: crate::annotations::HumanJudgment::EthicsBowl {
            team_a: Scores::uniform(6.0),
            team_b: Scores::uniform(5.0),
            justifications: Vec::new(),
        },
        seconds_on_round: seconds,
        words_shown: seconds.map(|_| 900),
    }
}

/// The screen's first two rows, `width` columns wide.
fn header_at(app: &App, width: u16) -> (String, String) {
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(width, 30)).expect("terminal");
    terminal
        .draw(|f| crate::tui::views::render(f, app, &crate::tui::theme::Theme::no_color()))
        .expect("draws");
    let buffer = terminal.backend().buffer().clone();
    let row = |y: u16| {
        (0..width)
            .map(|x| buffer[(x, y)].symbol().to_string())
            .collect::<String>()
            .trim_end()
            .to_string()
    };
    (row(0), row(1))
}

/// The header gives the annotator's pace once they have a judgment stored with its time
/// (three minutes a round, seventeen rounds left), in fewer words at 80 columns, and
/// before any, the round's words at 250 a minute, marked as an estimate; the second row
/// stays the blind mode's.
#[test]
fn the_annotate_header_gives_the_pace_at_80_and_120_columns() {
    let ids: Vec<String> = (1..=20).map(|i| format!("r{i}")).collect();
    let rounds: Vec<Round> = ids.iter().map(|id| named_round(id)).collect();
    let start = |stored: Vec<Option<crate::annotations::Annotation>>| {
        let mut app = crate::tui::browse("t", &rounds, Instant::now());
        update(
            &mut app,
            Msg::AnnotateReady(Ok(crate::tui::msg::AnnotateStart {
                annotator: "me".into(),
                round_ids: ids.clone(),
                done: (0..20)
                    .map(|i| stored.get(i).is_some_and(Option::is_some))
                    .collect(),
                stored,
                blind: true,
                standalone: true,
            })),
        );
        app
    };
    let timed = start(vec![
        Some(stored_judgment("r1", Some(150.0))),
        Some(stored_judgment("r2", Some(180.0))),
        Some(stored_judgment("r3", Some(400.0))),
    ]);
    let (wide, mode) = header_at(&timed, 120);
    assert_eq!(
        wide,
        "Judging as me · round 4 of 20 · 3 of 20 judged · 3 min a round · about 51 min left"
    );
    assert!(mode.starts_with("blind: "), "{mode}");
    let (narrow, mode) = header_at(&timed, 80);
    assert_eq!(
        narrow,
        "Judging as me · round 4 of 20 · 3 of 20 judged · 3 min/round · ~51 min left"
    );
    assert!(mode.starts_with("blind: "), "{mode}");
    // At the narrowest screen the pace gives way before the place does.
    let (least, mode) = header_at(&timed, crate::tui::views::MIN_WIDTH);
    assert_eq!(least, "Judging as me · round 4 of 20 · 3 of 20 judged");
    assert!(mode.starts_with("blind: "), "{mode}");
    // A spreadsheet's judgment has no time: the estimate stands.
    let fresh = start(vec![Some(stored_judgment("r1", None))]);
    let (wide, _) = header_at(&fresh, 120);
    let words = {
        let session = fresh.screens.annotate.session.as_ref().unwrap();
        session.words_here().unwrap()
    };
    let read = format!(
        "~{} s to read this round",
        (words as f64 * 60.0 / 250.0).round()
    );
    assert_eq!(
        wide,
        format!(
            "Judging as me · round 2 of 20 · 1 of 20 judged · {read} (estimate at 250 words a minute)"
        )
    );
    let (narrow, _) = header_at(&fresh, 80);
    assert_eq!(
        narrow,
        format!("Judging as me · round 2 of 20 · 1 of 20 judged · {read}")
    );
}
