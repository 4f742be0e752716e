//! The round screen in live state (the events of simulated runs, or stored rounds, applied
//! through `update`): a panel's scores all reachable by keys at 160×45, a finished round
//! opening at its top with what it is about, and a judgment corrected by hand marked as
//! such.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use crossterm::event::KeyCode;
use ethics_bowl::domain::{
    Criterion, Judgment, ParseStatus, Phase, PhaseType, Reading, RoundRecord, ScheduledRound,
    Scores,
};
use ethics_bowl::engine::{EngineEvent, ScheduledState};
use ethics_bowl::tui::{App, Mode, Msg, Screen, Theme, update, views};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use support::press;
use support::tournament::{manifest, run_collecting, sim, write, write_tournament};

/// A simulated panel judge that always answers readably.
fn judge(name: &str) -> String {
    format!(
        "[[models]]\nname = \"{name}\"\nprovider = \"simulated\"\nmodel = \"{name}\"\n\
         [models.simulated]\nquality = 0.6\ntokens_per_second = 0\nmalformed_judgment_rate = 0.0\n\
         failure_rate = 0.0\ndeliberation_pull = 0.5\n"
    )
}

fn models() -> String {
    [
        sim("a", 0.8, 0.0, 0.0),
        sim("b", 0.4, 0.0, 0.0),
        judge("j1"),
        judge("j2"),
        judge("j3"),
    ]
    .concat()
}

/// One Ethics Bowl round judged by a panel of three, as `sample-config/panel.toml` has.
fn ethics_bowl_panel(dir: &Path) -> PathBuf {
    let mut body = "models = [\"a\", \"b\"]\ndilemmas = [\"borrowed_voice\"]\npairings = [[\"a\", \"b\"]]\n\
                    judging = \"panel\"\n[panel]\nmax_deliberation_rounds = 2\nconvergence_threshold = 0.9\n"
        .to_string();
    for (persona, model) in [("philosopher", "j1"), ("clinician", "j2"), ("coach", "j3")] {
        body.push_str(&format!(
            "[[panel.judges]]\npersona_id = \"{persona}\"\nmodel = \"{model}\"\npersona = \"The {persona}.\"\nweight = 1.0\n"
        ));
    }
    write(dir, &models(), &body)
}

/// A question-answer tournament over one sample item, judged by `j1`.
fn qa(dir: &Path) -> PathBuf {
    let body = format!(
        "protocol = \"qa_debate\"\nmodels = [\"a\", \"b\"]\npairings = [[\"a\", \"b\"]]\njudges = [\"j1\"]\n\
         max_concurrency = 1\n\
         [qa]\ndatasets = [{{ file = \"{}\", level = \"Sample\" }}]\nsample_per_level = 1\nseed = 3\n\
         debate_rounds = 1\nbaselines = []\nrelations = [\"mixed\"]\n",
        manifest("sample-config/qa-sample.json").display(),
    );
    write_tournament(dir, &models(), &body)
}

/// The UI state after every event of a run of `config`, applied through `update`.
async fn live(config: &Path) -> App {
    let (_, events) = run_collecting(config, None).await;
    let mut app = App::new("t", Mode::Live, Instant::now());
    for e in events {
        update(&mut app, Msg::Engine(e));
    }
    assert!(app.mirror.finished.is_some(), "the run ended");
    app
}

fn scores(v: f64) -> Scores {
    let mut s = Scores::default();
    for c in Criterion::ALL {
        s.set(c, Some(v));
    }
    s
}

fn screen(app: &App, width: u16, height: u16) -> String {
    let theme = Theme::no_color();
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("terminal");
    terminal
        .draw(|f| views::render(f, app, &theme))
        .expect("draw");
    terminal.backend().to_string()
}

#[tokio::test]
async fn every_panel_judges_scores_and_total_are_reachable_at_160_by_45() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = live(&ethics_bowl_panel(dir.path())).await;
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.screen(), Screen::Round { scores: true });
    let first = screen(&app, 160, 45);
    assert!(first.contains("more ↓"), "the rest is marked: {first}");
    insta::assert_snapshot!("panel_scores_160x45_top", first);
    // Page down until nothing is left below, keeping every screen seen.
    let mut seen = vec![first];
    for _ in 0..10 {
        press(&mut app, KeyCode::PageDown);
        let shown = screen(&app, 160, 45);
        let done = !shown.contains("more ↓");
        seen.push(shown);
        if done {
            break;
        }
    }
    let last = seen.last().cloned().unwrap_or_default();
    assert!(
        !last.contains("more ↓") && last.contains("more ↑"),
        "{last}"
    );
    insta::assert_snapshot!("panel_scores_160x45_bottom", last);
    for persona in ["philosopher", "clinician", "coach"] {
        let boxed = seen.iter().any(|s| {
            // The judge's box, its last criterion and its total on one screen.
            let Some(at) = s.find(&format!("┌ {persona} (")) else {
                return false;
            };
            let rest = &s[at..];
            rest.contains("Constructive engagement") && rest.contains("Total")
        });
        assert!(boxed, "{persona}'s whole table is reachable");
    }
    // Scrolling up stops at the top at once, however far down was pressed.
    press(&mut app, KeyCode::PageUp);
    let top = screen(&app, 160, 45);
    assert!(!top.contains("more ↑") || seen.len() > 3, "{top}");
}

#[tokio::test]
async fn a_finished_question_answer_round_opens_at_its_question_and_answers() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = live(&qa(dir.path())).await;
    let debate = app
        .mirror
        .rounds
        .iter()
        .position(|r| r.id().contains("debate"))
        .expect("a debate round");
    let cell = *app
        .mirror
        .cells
        .iter()
        .find(|(_, i)| **i == debate)
        .expect("its cell")
        .0;
    app.screens.matrix.cursor = cell;
    press(&mut app, KeyCode::Enter);
    assert!(
        !app.screens.round.follow,
        "a finished round opens at its top"
    );
    let top = screen(&app, 100, 30);
    let lines: Vec<&str> = top.lines().collect();
    let at = |needle: &str| lines.iter().position(|l| l.contains(needle));
    let question = at("Question:").expect("the question at the top");
    let answer_a = at("Answer A:").expect("answer A");
    let answer_b = at("Answer B:").expect("answer B");
    let first_phase = at("━━").expect("the first phase");
    assert!(question < answer_a && answer_a < answer_b && answer_b < first_phase);
    assert!(
        top.contains("Tab transcript/verdict"),
        "the footer names the Verdict tab: {top}"
    );
    insta::assert_snapshot!("qa_round_top_100x30", top);
}

#[test]
fn a_judgment_corrected_by_hand_is_marked_and_typed_scores_leave_no_empty_headings() {
    let mut app = App::new("t", Mode::Browse, Instant::now());
    let s = ScheduledRound {
        round_id: "r1".into(),
        dilemma_id: "borrowed_voice".into(),
        repetition: 1,
        team_a: "a".into(),
        team_b: "b".into(),
        judges: vec!["j".into()],
        format: None,
        relation: None,
    };
    let mut round = ethics_bowl::protocols::blank_round(&s, RoundRecord::EthicsBowl);
    for (p, model, text) in [
        (PhaseType::Presentation, "a", "We present."),
        (PhaseType::Judgment, "j", "Team A was better, I think."),
    ] {
        round.phases.push(Phase::new(p, model, text));
    }
    // Scores typed over a judgment that could not be read: no justification was read.
    round.put_judgment(Judgment {
        parse_status: ParseStatus::CorrectedByHand,
        raw_response: "Team A was better, I think.".into(),
        ..Judgment::new(
            "j",
            Reading::Rubric {
                team_a: scores(8.0),
                team_b: scores(6.0),
            },
        )
    });
    round.status = round.settled_status();
    update(
        &mut app,
        Msg::Engine(EngineEvent::Started {
            tournament_id: "t".into(),
            rounds: vec![ScheduledState {
                to_run: false,
                round: Arc::new(round),
                stored: true,
                text_dropped: false,
            }],
        }),
    );
    press(&mut app, KeyCode::Enter);
    let transcript = screen(&app, 120, 30);
    assert!(
        transcript.contains("✎ corrected by hand: its scores typed"),
        "{transcript}"
    );
    press(&mut app, KeyCode::Tab);
    let scores = screen(&app, 120, 30);
    assert!(scores.contains("· ✎ corrected by hand "), "{scores}");
    assert!(!scores.contains("correctedbyhand"), "{scores}");
    assert!(scores.contains("Scores typed by hand"), "{scores}");
    assert!(
        !scores.contains("│Team A ") && !scores.contains("│Overall "),
        "no empty headings: {scores}"
    );
    insta::assert_snapshot!("corrected_by_hand_scores_120x30", scores);
}

#[test]
fn an_answer_from_the_response_cache_is_marked_in_the_transcript() {
    let mut app = App::new("t", Mode::Browse, Instant::now());
    let s = ScheduledRound {
        round_id: "r1".into(),
        dilemma_id: "borrowed_voice".into(),
        repetition: 1,
        team_a: "a".into(),
        team_b: "b".into(),
        judges: vec!["j".into()],
        format: None,
        relation: None,
    };
    let mut round = ethics_bowl::protocols::blank_round(&s, RoundRecord::EthicsBowl);
    round
        .phases
        .push(Phase::new(PhaseType::Presentation, "a", "We present."));
    round.phases.push(Phase {
        reused_from_cache: Some(ethics_bowl::domain::Reused {
            stored_at: "2026-11-28T00:00:00Z".into(),
            input_tokens: Some(10),
            output_tokens: Some(5),
        }),
        ..Phase::new(PhaseType::Response, "b", "We respond.")
    });
    round.status = round.settled_status();
    update(
        &mut app,
        Msg::Engine(EngineEvent::Started {
            tournament_id: "t".into(),
            rounds: vec![ScheduledState {
                to_run: false,
                round: Arc::new(round),
                stored: true,
                text_dropped: false,
            }],
        }),
    );
    press(&mut app, KeyCode::Enter);
    let transcript = screen(&app, 140, 30);
    assert_eq!(
        transcript.matches("reused from the response cache").count(),
        1,
        "{transcript}"
    );
}
