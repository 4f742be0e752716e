//! Each protocol's own screens, in live state (the events of simulated runs applied through
//! `update`, as a live run feeds the UI): the question-answer and structured Analysis
//! screens as tables with their own tabs, stepped through line by line, and a panel round's
//! verdict tab for each of the two debates.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::path::{Path, PathBuf};
use std::time::Instant;

use crossterm::event::KeyCode;
use ethics_bowl::tui::{App, Mode, Msg, Screen, update};
use support::tournament::{manifest, run_collecting, sim, write_tournament};
use support::{draw, press};

/// A simulated panel judge that always answers readably.
fn judge(name: &str, pull: f64) -> String {
    format!(
        "[[models]]\nname = \"{name}\"\nprovider = \"simulated\"\nmodel = \"{name}\"\n\
         [models.simulated]\nquality = 0.6\ntokens_per_second = 0\nmalformed_judgment_rate = 0.0\n\
         failure_rate = 0.0\ndeliberation_pull = {pull}\n"
    )
}

/// Three panel judges, the first weighing double.
const PANEL: &str = "[panel]\nmax_deliberation_rounds = 2\nconvergence_threshold = 0.9\n\
    [[panel.judges]]\npersona_id = \"ethicist\"\nmodel = \"j1\"\npersona = \"The ethicist.\"\nweight = 2\n\
    [[panel.judges]]\npersona_id = \"engineer\"\nmodel = \"j2\"\npersona = \"The engineer.\"\nweight = 1\n\
    [[panel.judges]]\npersona_id = \"skeptic\"\nmodel = \"j3\"\npersona = \"The skeptic.\"\nweight = 1\n";

fn models() -> String {
    [
        sim("a", 0.8, 0.0, 0.0),
        sim("b", 0.4, 0.0, 0.0),
        judge("j1", 0.5),
        judge("j2", 0.5),
        judge("j3", 0.0),
    ]
    .concat()
}

/// A question-answer tournament over the sample items, one call at a time: debates, the
/// naive and expert baselines over `items` items; judged by `j1`, or by the panel.
fn qa(dir: &Path, panel: bool, items: usize) -> PathBuf {
    let (judging, table) = if panel {
        ("judging = \"panel\"\n", PANEL)
    } else {
        ("", "")
    };
    let body = format!(
        "protocol = \"qa_debate\"\nmodels = [\"a\", \"b\"]\npairings = [[\"a\", \"b\"]]\njudges = [\"j1\"]\n\
         max_concurrency = 1\n{judging}\
         [qa]\ndatasets = [{{ file = \"{}\", level = \"Sample\" }}]\nsample_per_level = {}\nseed = 3\n\
         debate_rounds = 2\nbaselines = [\"naive\", \"expert\"]\nrelations = [\"mixed\"]\n{table}",
        manifest("sample-config/qa-sample.json").display(),
        items
    );
    write_tournament(dir, &models(), &body)
}

/// A structured tournament on sample topics, one call at a time; judged by `j1`, or by the
/// panel.
fn structured(dir: &Path, panel: bool) -> PathBuf {
    let (judging, table, topics) = if panel {
        ("judging = \"panel\"\n", PANEL, "\"microservices_day_one\"")
    } else {
        ("", "", "\"microservices_day_one\", \"four_day_week\"")
    };
    let body = format!(
        "protocol = \"structured_debate\"\nmodels = [\"a\", \"b\"]\npairings = [[\"a\", \"b\"]]\njudges = [\"j1\"]\n\
         max_concurrency = 1\n{judging}\
         [structured]\ntopics_file = \"{}\"\ntopics = [{topics}]\n{table}",
        manifest("sample-config/topics.toml").display()
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

/// Steps through every Analysis section, snapshotting each, and checks they are the
/// report's sections (`titles` among them, no Ethics Bowl section).
fn analysis_tabs(app: &mut App, prefix: &str, titles: &[&str]) {
    press(app, KeyCode::Char('a'));
    assert_eq!(app.screen(), Screen::Analysis);
    let sections: Vec<String> = app
        .screens
        .analysis
        .view
        .as_ref()
        .expect("analysis")
        .sections
        .iter()
        .map(|s| s.title.clone())
        .collect();
    for title in titles {
        assert!(
            sections.iter().any(|s| s.starts_with(title)),
            "section {title}: {sections:?}"
        );
    }
    let text = draw(app).backend().to_string();
    assert!(
        !text.contains("Dilemma difficulty"),
        "no Ethics Bowl section:\n{text}"
    );
    for (i, _) in sections.iter().enumerate() {
        assert_eq!(app.screens.analysis.view.as_ref().expect("analysis").tab, i);
        insta::assert_snapshot!(
            format!("{prefix}_analysis_section_{i}_120x40"),
            draw(app).backend()
        );
        press(app, KeyCode::Tab);
    }
    assert_eq!(
        app.screens.analysis.view.as_ref().expect("analysis").tab,
        0,
        "wraps"
    );
}

#[tokio::test]
async fn the_question_answer_analysis_is_tables_with_its_own_tabs() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = live(&qa(dir.path(), false, 6)).await;
    analysis_tabs(
        &mut app,
        "qa",
        &["Cost, tokens", "Question-answer debate: judge accuracy"],
    );
    // The protocol's section: Down selects the next row, Enter opens a round its judge
    // judged, on its verdict.
    while !app
        .screens
        .analysis
        .view
        .as_ref()
        .expect("analysis")
        .sections[app.screens.analysis.view.as_ref().expect("analysis").tab]
        .title
        .starts_with("Question-answer")
    {
        press(&mut app, KeyCode::Tab);
    }
    let view = app.screens.analysis.view.as_ref().expect("analysis");
    let lines = view
        .analysis
        .qa
        .as_ref()
        .expect("figures")
        .configurations
        .len();
    assert!(lines >= 3, "debate, naive and expert: {lines}");
    press(&mut app, KeyCode::Down);
    assert_eq!(
        app.screens
            .analysis
            .view
            .as_ref()
            .expect("analysis")
            .selected,
        1
    );
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.screen(), Screen::Round { scores: true });
    // Esc from a round opened in Analysis goes back to Analysis.
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.screen(), Screen::Analysis);
}

#[tokio::test]
async fn the_structured_analysis_is_tables_with_its_own_tabs() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = live(&structured(dir.path(), false)).await;
    analysis_tabs(&mut app, "structured", &["Structured debate"]);
    while !app
        .screens
        .analysis
        .view
        .as_ref()
        .expect("analysis")
        .sections[app.screens.analysis.view.as_ref().expect("analysis").tab]
        .title
        .starts_with("Structured")
    {
        press(&mut app, KeyCode::Tab);
    }
    let text = draw(&app).backend().to_string();
    assert!(text.contains("win rate"), "{text}");
    // The columns past the edge scroll into sight, the model's column staying.
    for _ in 0..8 {
        press(&mut app, KeyCode::Right);
    }
    let text = draw(&app).backend().to_string();
    assert!(
        text.contains("concedes") && text.contains("← more"),
        "{text}"
    );
}

/// Opens the verdict tab of the first round a panel judged.
fn panel_verdict(app: &mut App) -> String {
    let judged = app
        .mirror
        .rounds
        .iter()
        .position(|r| r.panel().is_some_and(|p| p.verdict.is_some()))
        .expect("a round the panel judged");
    let cell = *app
        .mirror
        .cells
        .iter()
        .find(|(_, i)| **i == judged)
        .expect("its cell")
        .0;
    app.screens.matrix.cursor = cell;
    press(app, KeyCode::Enter);
    press(app, KeyCode::Tab);
    assert_eq!(app.screen(), Screen::Round { scores: true });
    draw(app).backend().to_string()
}

#[tokio::test]
async fn a_question_answer_panel_round_shows_each_judges_choice_and_the_panels_answer() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = live(&qa(dir.path(), true, 1)).await;
    let text = panel_verdict(&mut app);
    assert!(text.contains("Panel · "), "{text}");
    assert!(
        text.contains("chose A") || text.contains("chose B"),
        "{text}"
    );
    assert!(!text.contains("–– ?"), "no Ethics Bowl totals: {text}");
    // The round is right or wrong by the panel's answer, not its first judge's.
    let round = app.selected().expect("the round");
    let setup = round.stored.qa().expect("a question-answer round");
    let panel = round
        .panel()
        .and_then(|p| p.verdict.as_ref())
        .expect("the panel's verdict");
    assert_eq!(
        round.qa_correct(),
        ethics_bowl::protocols::qa_debate::judge_correct(setup, panel)
    );
    // Leaderboards count the same deciding judgment: the panel's verdict.
    assert_eq!(round.deciding_judgment(), Some(panel));
    // Each judge's choice is marked by itself: the panel's judges may differ.
    for j in &round.stored.judgments {
        let (Some(choice), Some(right)) = (
            j.choice(),
            ethics_bowl::protocols::qa_debate::judge_correct(setup, j),
        ) else {
            continue;
        };
        let word = if right { "correct" } else { "wrong" };
        let line = format!("Judge {}: chose {:?}", j.judge_model, choice.side);
        assert!(
            text.lines()
                .any(|l| l.contains(&line) && l.contains(&format!(": {word}"))),
            "{line} … {word}:\n{text}"
        );
    }
    insta::assert_snapshot!("qa_panel_verdict_120x40", draw(&app).backend());
}

#[tokio::test]
async fn a_structured_panel_round_shows_each_judges_verdict_and_the_panels_totals() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = live(&structured(dir.path(), true)).await;
    let text = panel_verdict(&mut app);
    assert!(text.contains("Panel · "), "{text}");
    assert!(
        text.contains("pro ") || text.contains("con ") || text.contains("tie "),
        "{text}"
    );
    assert!(
        text.contains("judge panel"),
        "the trace is the panel's: {text}"
    );
    assert!(text.contains("U upheld"), "the cells' key: {text}");
    insta::assert_snapshot!("structured_panel_verdict_120x40", draw(&app).backend());
}

/// The screen at `width`×`height` in the no-colour theme.
fn draw_at(app: &App, width: u16, height: u16) -> ratatui::Terminal<ratatui::backend::TestBackend> {
    let theme = ethics_bowl::tui::Theme::no_color();
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(width, height))
        .expect("terminal");
    terminal
        .draw(|f| ethics_bowl::tui::views::render(f, app, &theme))
        .expect("draws");
    terminal
}

#[tokio::test]
async fn at_80_by_24_nothing_is_cut_and_hidden_columns_are_marked() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = live(&qa(dir.path(), false, 12)).await;
    let matrix = draw_at(&app, 80, 24);
    let text = matrix.backend().to_string();
    // Status line (compact below 100 columns) and key hints wrap rather than being cut.
    assert!(text.contains("│ tok "), "{text}");
    assert!(
        text.contains("? help") || text.contains("?  help") || text.contains("help"),
        "{text}"
    );
    assert!(text.contains("q quit"), "{text}");
    // Twelve items, not all in sight: the rest are marked.
    assert!(text.contains("more →"), "{text}");
    assert!(
        text.contains("… queued (part-way)"),
        "the legend names …: {text}"
    );
    insta::assert_snapshot!("qa_matrix_80x24", matrix.backend());

    // A round's header wraps rather than ending at "judge: s".
    press(&mut app, KeyCode::Enter);
    let text = draw_at(&app, 80, 24).backend().to_string();
    assert!(text.contains("status: done"), "{text}");

    // The help popup wraps its lines.
    press(&mut app, KeyCode::Char('?'));
    let text = draw_at(&app, 80, 24).backend().to_string();
    let flat: String = text
        .lines()
        .map(|l| l.trim_matches(|c| c == '"' || c == '│' || c == ' '))
        .collect::<Vec<_>>()
        .join(" ");
    assert!(flat.contains("any key closes this"), "{text}");

    // Browsing stored results offers no pause or retry.
    let rounds = app.mirror.stored_rounds();
    let browsing = ethics_bowl::tui::browse("t", &rounds, Instant::now());
    let text = draw_at(&browsing, 120, 40).backend().to_string();
    assert!(
        !text.contains("p pause") && !text.contains("r retry"),
        "{text}"
    );
    assert!(!draw_at(&app, 120, 40).backend().to_string().is_empty());
}

/// Every screen but the round view shows the same from rounds without their text as from
/// the whole rounds (the stored fixtures of every protocol, a panel's included): what the
/// UI keeps of a finished round is enough for the matrix, the leaderboard, the header and
/// the review queue.
#[test]
fn screens_read_the_same_from_rounds_whose_text_waits_in_the_store() {
    use ethics_bowl::domain::RoundStatus;
    use ethics_bowl::engine::{EngineEvent, ScheduledState};
    use ethics_bowl::store::{RoundFilter, Store};
    use std::sync::Arc;
    for protocol in ["ethics_bowl", "panel", "qa_debate", "structured_debate"] {
        let dir = manifest("tests/fixtures/stored-v0").join(protocol);
        let (rounds, _) = Store::open(&dir)
            .unwrap()
            .load_rounds(&RoundFilter::default())
            .unwrap();
        // `drop_text`: finished rounds come without their text, as a resumed run's do;
        // `keep`: how many rounds at rest the UI keeps whole.
        let start = |drop_text: bool, keep: usize| {
            let mut app = App::new("t", Mode::Browse, Instant::now());
            app.mirror.text_kept.capacity = keep;
            let schedule = rounds
                .iter()
                .map(|r| {
                    let dropped = drop_text && r.status == RoundStatus::Complete;
                    ScheduledState {
                        round: Arc::new(if dropped {
                            r.clone().without_text()
                        } else {
                            r.clone()
                        }),
                        stored: true,
                        to_run: false,
                        text_dropped: dropped,
                    }
                })
                .collect();
            update(
                &mut app,
                Msg::Engine(EngineEvent::Started {
                    tournament_id: "t".into(),
                    rounds: schedule,
                }),
            );
            app
        };
        let mut whole = start(false, usize::MAX);
        let mut resumed = start(true, usize::MAX);
        let mut evicted = start(false, 0);
        assert!(whole.mirror.rounds.iter().all(|r| !r.text_dropped));
        assert!(
            evicted.mirror.rounds.iter().all(|r| r.text_dropped),
            "{protocol}: every round at rest gave its text up"
        );
        for key in [None, Some(KeyCode::Char('s')), Some(KeyCode::Char('v'))] {
            for app in [&mut whole, &mut resumed, &mut evicted] {
                if let Some(key) = key {
                    press(app, KeyCode::Esc);
                    press(app, key);
                }
            }
            let expected = draw(&whole).backend().to_string();
            assert_eq!(
                draw(&resumed).backend().to_string(),
                expected,
                "{protocol}, {key:?}"
            );
            assert_eq!(
                draw(&evicted).backend().to_string(),
                expected,
                "{protocol}, {key:?}"
            );
        }
    }
}
