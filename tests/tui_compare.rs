//! `open A --compare B`: two stored runs built from the stored fixtures of each protocol,
//! B with known differences (a verdict flipped, a total changed, a judgment corrected by
//! hand), saved to and loaded from results folders as `open` does, then drawn: the matrix's
//! marks, a round's two judgments side by side for every protocol, and the summary. And the
//! command refuses two folders of different protocols with exit code 2, naming both.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ethics_bowl::domain::{
    Criterion, Judgment, ParseStatus, QaChoice, Reading, Round, Scores, StructuredVerdict, Team,
};
use ethics_bowl::store::{RoundFilter, Store};
use ethics_bowl::tui::mirror::Mark;
use ethics_bowl::tui::{App, Msg, Screen, Theme, browse, update, views};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn fixture(protocol: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/stored-v0")
        .join(protocol)
}

fn fixture_rounds(protocol: &str) -> Vec<Round> {
    let store = Store::open(&fixture(protocol)).unwrap();
    let (rounds, errors) = store.load_rounds(&RoundFilter::default()).unwrap();
    assert!(errors.is_empty(), "{errors:?}");
    rounds
}

/// Saves rounds as a results folder and reads them back, as `open` reads a folder.
fn stored(dir: &Path, rounds: &[Round]) -> Vec<Round> {
    let store = Store::create(dir).unwrap();
    for r in rounds {
        store.save_round(r).unwrap();
    }
    let (rounds, errors) = Store::open(dir)
        .unwrap()
        .load_rounds(&RoundFilter::default())
        .unwrap();
    assert!(errors.is_empty(), "{errors:?}");
    rounds
}

/// A usable judgment by `judge` reading as `reading`, with its own text.
fn judged(round: &mut Round, judge: &str, reading: Reading, text: &str) {
    round.judgments.clear();
    round.put_judgment(Judgment {
        raw_response: text.into(),
        ..Judgment::new(judge, reading)
    });
    round.status = round.settled_status();
}

fn rubric(a: f64, b: f64) -> Reading {
    Reading::Rubric {
        team_a: uniform(a),
        team_b: uniform(b),
    }
}

/// A (rounds as stored) and B (the same with known differences) opened side by side.
fn compared(protocol: &str, a: Vec<Round>, b: Vec<Round>) -> App {
    let tmp = tempfile::tempdir().unwrap();
    let a = stored(&tmp.path().join("a"), &a);
    let b = stored(&tmp.path().join("b"), &b);
    let mut app = browse(protocol, &a, Instant::now());
    // Two folders that end alike: the runs are told apart by their parents.
    app.mirror
        .set_compare("runs/exp1/sample", "runs/exp2/sample", b);
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

/// Puts the matrix cursor on a round.
fn select(app: &mut App, id: &str) {
    let i = app.mirror.index[id];
    app.screens.matrix.cursor = *app
        .mirror
        .cells
        .iter()
        .find(|(_, at)| **at == i)
        .map(|(cell, _)| cell)
        .unwrap();
}

fn draw(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|f| views::render(f, app, &Theme::no_color()))
        .unwrap();
    terminal.backend().to_string()
}

/// Every criterion of the Ethics Bowl's rubric shows on one line for both runs (the two
/// columns line up), never on a line of its own.
fn assert_criteria_line_up(screen: &str) {
    for c in Criterion::ALL {
        for line in screen.lines().filter(|l| l.contains(c.label())) {
            assert_eq!(
                line.matches(c.label()).count(),
                2,
                "{} is not beside its match:\n{screen}",
                c.label()
            );
        }
    }
}

/// Opens a round and its comparison.
fn side_by_side(app: &mut App, id: &str) -> String {
    select(app, id);
    key(app, KeyCode::Enter);
    key(app, KeyCode::Char('v'));
    assert_eq!(app.screen(), Screen::Compare { summary: false });
    draw(app, 120, 40)
}

const FLIPPED: &str = "borrowed_voice__sim-beta__vs__sim-alpha__r1";
const CHANGED: &str = "inherited_debt__sim-gamma__vs__sim-alpha__r1";
const CORRECTED: &str = "borrowed_voice__sim-alpha__vs__sim-beta__r1";

/// The Ethics Bowl: one verdict flipped, one total changed by a criterion, one judgment
/// unreadable in A and corrected by hand in B, one round the same.
fn ethics_bowl() -> App {
    let mut a = fixture_rounds("ethics_bowl");
    for r in &mut a {
        match r.id.as_str() {
            FLIPPED => judged(r, "sim-gamma", rubric(7.0, 6.0), "Team A was clearer."),
            CHANGED => judged(r, "sim-beta", rubric(6.0, 5.0), "Team A, narrowly."),
            _ if r.id.starts_with("reversible") => {
                judged(r, "sim-alpha", rubric(5.0, 5.0), "Even.")
            }
            _ => {}
        }
    }
    let mut b = a.clone();
    for r in &mut b {
        match r.id.as_str() {
            FLIPPED => judged(
                r,
                "sim-gamma",
                rubric(6.0, 7.5),
                "Team B answered the hard case.",
            ),
            CHANGED => {
                let mut scores = uniform(6.0);
                scores.set(Criterion::ALL[0], Some(9.0));
                let reading = Reading::Rubric {
                    team_a: scores,
                    team_b: uniform(5.0),
                };
                judged(
                    r,
                    "sim-beta",
                    reading,
                    "Team A, and its first criterion stood out.",
                );
            }
            CORRECTED => {
                let j = &mut r.judgments[0];
                j.reading = rubric(8.0, 6.0);
                j.parse_status = ParseStatus::CorrectedByHand;
                j.corrected_text = Some("Team A: 8 on every criterion. Team B: 6.".into());
                r.status = r.settled_status();
            }
            _ => {}
        }
    }
    compared("ethics_bowl", a, b)
}

#[test]
fn the_matrix_marks_what_changed_and_the_header_says_what_is_compared() {
    let app = ethics_bowl();
    let c = app.mirror.compare.as_ref().unwrap();
    assert_eq!(c.mark(FLIPPED), Some(Mark::Flipped));
    assert_eq!(c.mark(CHANGED), Some(Mark::Changed));
    assert_eq!(c.mark(CORRECTED), None);
    let screen = draw(&app, 120, 24);
    assert!(
        screen.contains("exp1/sample with exp2/sample")
            && screen.contains("(3 judgments in both, 1 flipped)"),
        "{screen}"
    );
    insta::assert_snapshot!("compare_matrix_120x24", screen);
}

#[test]
fn ethics_bowl_judgments_side_by_side_and_the_summary() {
    let mut app = ethics_bowl();
    let flipped = side_by_side(&mut app, FLIPPED);
    assert!(
        flipped.contains("verdict flipped: Team A → Team B"),
        "{flipped}"
    );
    insta::assert_snapshot!("compare_ethics_bowl_flipped_120x40", flipped);
    assert!(
        flipped.contains("exp1/sample") && flipped.contains("exp2/sample"),
        "the columns are titled with the runs' names: {flipped}"
    );
    assert_criteria_line_up(&flipped);
    // Both sides scroll together, the columns' titles and the heading first.
    for _ in 0..3 {
        key(&mut app, KeyCode::Down);
    }
    let scrolled = draw(&app, 120, 40);
    assert!(
        !scrolled.contains("verdict flipped")
            && !scrolled.contains("Team A 49.0/70")
            && scrolled.contains("│  Principle articulation    7.0 |  6.0                       Principle articulation    6.0 |  7.5"),
        "{scrolled}"
    );
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Esc);
    let changed = side_by_side(&mut app, CHANGED);
    assert!(changed.contains("margin changed by +3.0"), "{changed}");
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Esc);
    let corrected = side_by_side(&mut app, CORRECTED);
    assert!(
        corrected.contains("not comparable: the judgment in exp1/sample is not usable")
            && corrected.contains("corrected by hand"),
        "{corrected}"
    );
    // The note on either side (not usable, corrected by hand) takes as many lines on both:
    // the criteria stay side by side.
    assert_criteria_line_up(&corrected);
    insta::assert_snapshot!("compare_ethics_bowl_corrected_120x40", corrected);
    key(&mut app, KeyCode::Tab);
    let summary = draw(&app, 120, 40);
    assert!(
        summary.contains("verdicts that flipped     1 of 3 (33%)"),
        "{summary}"
    );
    insta::assert_snapshot!("compare_summary_120x40", summary);
}

#[test]
fn the_list_of_flipped_verdicts_opens_with_enter_and_esc_returns_to_it() {
    let mut app = ethics_bowl();
    key(&mut app, KeyCode::Char('c'));
    assert_eq!(app.screen(), Screen::Compare { summary: true });
    let list = draw(&app, 120, 40);
    assert!(
        list.contains(&format!(
            "▶ {FLIPPED} · sim-gamma: Team A → Team B (margin +7.0 → -10.5)"
        )),
        "{list}"
    );
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.screen(), Screen::Compare { summary: false });
    let opened = draw(&app, 120, 40);
    assert!(
        opened.contains(FLIPPED) && opened.contains("verdict flipped: Team A → Team B"),
        "{opened}"
    );
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.screen(), Screen::Compare { summary: true });
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.screen(), Screen::Matrix);
}

/// A narrow terminal: long run names are cut in the middle, and the criteria still line up.
#[test]
fn long_run_names_are_cut_in_the_middle_when_space_is_short() {
    let mut app = ethics_bowl();
    let b = app.mirror.compare.take().unwrap();
    let rounds: Vec<Round> = app
        .mirror
        .rounds
        .iter()
        .filter_map(|r| b.b_round(r.id()).cloned())
        .collect();
    app.mirror.set_compare(
        "runs/a-first-experiment-with-a-long-name/sample",
        "runs/a-second-experiment-with-a-long-name/sample",
        rounds,
    );
    select(&mut app, FLIPPED);
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('v'));
    let screen = draw(&app, 100, 30);
    assert!(screen.contains('…'), "{screen}");
    assert_criteria_line_up(&screen);
    insta::assert_snapshot!("compare_long_names_100x30", screen);
}

#[test]
fn question_answer_choice_and_confidence_side_by_side() {
    let a = fixture_rounds("qa_debate");
    let id = "qa-sample-0__debate__sim-alpha__vs__sim-beta__judge__sim-gamma__r1";
    let mut b = a.clone();
    let r = b.iter_mut().find(|r| r.id == id).unwrap();
    let j = &mut r.judgments[0];
    let side = match j.choice().map(|c| c.side) {
        Some(Team::A) => Team::B,
        _ => Team::A,
    };
    j.reading = Reading::Choice(Some(QaChoice {
        side,
        confidence: Some(55.0),
    }));
    j.raw_response = "On reflection the other answer holds. Confidence: 55".into();
    let mut app = compared("qa_debate", a, b);
    // The cell: right and confident in the first run, wrong and less sure in the second
    // (narrow: the arrow gives way, the flip mark stays).
    let matrix = draw(&app, 120, 24);
    assert!(matrix.contains("✓95✗55⇄"), "{matrix}");
    let screen = side_by_side(&mut app, id);
    assert!(
        screen.contains("verdict flipped") && screen.contains("confidence 55"),
        "{screen}"
    );
    insta::assert_snapshot!("compare_qa_debate_120x40", screen);
}

#[test]
fn structured_winner_and_band_side_by_side() {
    let verdict = |pro: f64, con: f64| {
        Reading::Verdict(Some(Box::new(StructuredVerdict {
            assessments: Vec::new(),
            key_insight: String::new(),
            unresolved_questions: Vec::new(),
            recommendation: String::new(),
            pro_total: Some(pro),
            con_total: Some(con),
            bands: Default::default(),
        })))
    };
    let id = "rewrite_in_rust__sim-alpha__vs__sim-beta__r1";
    let mut a = fixture_rounds("structured_debate");
    let r = a.iter_mut().find(|r| r.id == id).unwrap();
    judged(
        r,
        "sim-gamma",
        verdict(7.5, 4.0),
        "Pro carried the migration argument.",
    );
    let mut b = a.clone();
    let r = b.iter_mut().find(|r| r.id == id).unwrap();
    judged(
        r,
        "sim-gamma",
        verdict(5.0, 5.5),
        "Con's cost argument was never answered.",
    );
    let mut app = compared("structured_debate", a, b);
    let screen = side_by_side(&mut app, id);
    assert!(
        screen.contains("winner Pro") && screen.contains("verdict flipped: Pro → "),
        "{screen}"
    );
    insta::assert_snapshot!("compare_structured_debate_120x40", screen);
}

#[test]
fn open_refuses_folders_of_two_protocols_naming_both() {
    let out = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"))
        .arg("open")
        .arg(fixture("ethics_bowl"))
        .arg("--compare")
        .arg(fixture("qa_debate"))
        .env(
            "XDG_DATA_HOME",
            std::env::temp_dir().join("ethics-bowl-test-data"),
        )
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("ethics_bowl rounds")
            && stderr.contains("holds qa_debate")
            && stderr.contains("one protocol"),
        "{stderr}"
    );
    // Folders of one protocol pass that check and only then meet the terminal's.
    let out = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"))
        .arg("open")
        .arg(fixture("ethics_bowl"))
        .arg("--compare")
        .arg(fixture("ethics_bowl"))
        .env(
            "XDG_DATA_HOME",
            std::env::temp_dir().join("ethics-bowl-test-data"),
        )
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("needs a terminal"), "{stderr}");
}

#[test]
fn a_panel_round_pairs_each_persona_and_the_panels_verdict() {
    let a = fixture_rounds("panel");
    let id = "borrowed_voice__sim-alpha__vs__sim-beta__r1";
    let mut b = a.clone();
    let r = b.iter_mut().find(|r| r.id == id).unwrap();
    let coach = r
        .judgments
        .iter_mut()
        .find(|j| j.persona_id.as_deref() == Some("coach"))
        .unwrap();
    let (ta, tb) = match &coach.reading {
        Reading::Rubric { team_a, team_b } => (*team_a, *team_b),
        other => panic!("{other:?}"),
    };
    coach.reading = Reading::Rubric {
        team_a: tb,
        team_b: ta,
    };
    let mut app = compared("panel", a, b);
    let round = app.mirror.rounds[app.mirror.index[id]].stored.clone();
    let c = app.mirror.compare.as_ref().unwrap();
    let judges: Vec<&str> = c.judge_rows(&round).iter().map(|r| r.judge).collect();
    assert_eq!(
        judges,
        [
            "philosopher",
            "clinician",
            "coach",
            ethics_bowl::tui::mirror::PANEL
        ]
    );
    let mut screens = vec![side_by_side(&mut app, id)];
    assert!(
        screens[0].contains("philosopher — ≡ same"),
        "{}",
        screens[0]
    );
    for _ in 0..8 {
        key(&mut app, KeyCode::PageDown);
        screens.push(draw(&app, 120, 40));
    }
    assert!(
        screens
            .iter()
            .any(|s| s.contains("coach — ⇄ verdict flipped: Team A → Team B"))
    );
    assert!(screens.iter().any(|s| s.contains("panel verdict — margin")));
}
