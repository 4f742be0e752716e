//! Judge panels end to end with simulated judges: deliberation that moves scores toward the
//! others, a judge whose provider fails, the round limit, the stored record, the events, the
//! report, and config errors.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use ethics_bowl::domain::{PanelState, PhaseType, RoundStatus, SeatOutcome};
use ethics_bowl::engine::{self, EngineEvent};
use ethics_bowl::store::{RoundFilter, Store};
use support::tournament::{sim, write};
use tokio::sync::mpsc;

/// A simulated panel judge: `pull` is the share of the gap to the others it closes.
fn judge(name: &str, pull: f64, failure_rate: f64) -> String {
    format!(
        "[[models]]\nname = \"{name}\"\nprovider = \"simulated\"\nmodel = \"{name}\"\n\
         [models.simulated]\nquality = 0.5\ntokens_per_second = 0\nmalformed_judgment_rate = 0.0\n\
         failure_rate = {failure_rate}\ndeliberation_pull = {pull}\n"
    )
}

fn panel(judges: &[(&str, &str)], max_rounds: u32, threshold: f64) -> String {
    let mut s = format!(
        "models = [\"a\", \"b\"]\ndilemmas = [\"borrowed_voice\"]\npairings = [[\"a\", \"b\"]]\njudging = \"panel\"\n\
         [panel]\nmax_deliberation_rounds = {max_rounds}\nconvergence_threshold = {threshold}\n"
    );
    for (persona, model) in judges {
        s.push_str(&format!(
            "[[panel.judges]]\npersona_id = \"{persona}\"\nmodel = \"{model}\"\npersona = \"The {persona}.\"\nweight = 1.0\n"
        ));
    }
    s
}

async fn run(config: &std::path::Path) -> (Store, Vec<EngineEvent>) {
    let prepared = engine::prepare(config, None).expect("prepares");
    let dir = prepared.dir.clone();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let (_ctx, mut crx) = mpsc::unbounded_channel();
    engine::run(prepared, tx, &mut crx).await.expect("runs");
    let mut events = Vec::new();
    while let Ok(e) = rx.try_recv() {
        events.push(e);
    }
    (Store::open(&dir).expect("store"), events)
}

/// Three judges: x closes the whole gap, y never moves, z's provider always fails.
fn yielding_steady_and_down(dir: &std::path::Path) -> std::path::PathBuf {
    let models = [
        debaters(),
        judge("yielding", 1.0, 0.0),
        judge("steady", 0.0, 0.0),
        judge("down", 0.5, 1.0),
    ]
    .concat();
    write(
        dir,
        &models,
        &panel(
            &[("x", "yielding"), ("y", "steady"), ("z", "down")],
            3,
            0.999,
        ),
    )
}

fn debaters() -> String {
    [sim("a", 0.8, 0.0, 0.0), sim("b", 0.4, 0.0, 0.0)].concat()
}

#[tokio::test]
async fn judges_deliberate_toward_each_other_and_a_failing_judge_is_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let config = yielding_steady_and_down(dir.path());
    let (store, events) = run(&config).await;
    let (rounds, _) = store.load_rounds(&RoundFilter::default()).unwrap();
    let round = &rounds[0];
    let record = round.panel.as_ref().expect("a panel record");
    // z's provider fails every attempt: it is left out, the other two go on.
    assert_eq!(record.rounds[0].evaluations[2].outcome, SeatOutcome::Failed);
    assert_eq!(record.rounds[0].agreement.unwrap().judges, 2);
    assert!(
        record.rounds.len() >= 2,
        "the panel deliberated: {record:?}"
    );
    assert!(
        record.rounds[1]
            .evaluations
            .iter()
            .all(|e| e.persona_id != "z")
    );
    // x closes the whole gap: its scores after deliberation 1 are y's scores before it.
    let scores = |round: usize, who: &str| {
        record.rounds[round]
            .evaluations
            .iter()
            .find(|e| e.persona_id == who)
            .and_then(|e| e.evaluation.clone())
            .unwrap()
            .scores
    };
    assert_eq!(scores(1, "x"), scores(0, "y"));
    assert_eq!(scores(1, "y"), scores(0, "y"), "y never moves");
    assert_eq!(record.state, PanelState::Converged);
    assert_eq!(record.aggregate.as_ref().unwrap().judges, 2);
    assert_eq!(round.status, RoundStatus::Complete);
    assert_eq!(round.judge_model, "panel");
    // Every prompt and reply is kept: the deliberation prompt shows the other judge.
    let deliberation = round
        .phases
        .iter()
        .find(|p| p.phase_type == PhaseType::Deliberation && p.judge_id.as_deref() == Some("x"))
        .unwrap();
    assert!(
        deliberation.prompt.contains("#### y") && deliberation.system_prompt.contains("The x.")
    );
    // The panel's record reaches consumers with the stored round, the last as stored.
    let announced: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::RoundStored { round: r } if r.id == round.id => r.panel.as_ref(),
            _ => None,
        })
        .collect();
    assert_eq!(
        announced.last(),
        Some(&record),
        "{} announced",
        announced.len()
    );
}

#[tokio::test]
async fn stubborn_judges_hit_the_round_limit_and_the_report_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let models = [debaters(), judge("p", 0.0, 0.0), judge("q", 0.0, 0.0)].concat();
    let config = write(
        dir.path(),
        &models,
        &panel(&[("x", "p"), ("y", "q")], 2, 0.999),
    );
    let (store, _) = run(&config).await;
    let (rounds, _) = store.load_rounds(&RoundFilter::default()).unwrap();
    let record = rounds[0].panel.as_ref().unwrap();
    assert_eq!(record.state, PanelState::RoundLimit);
    assert_eq!(record.deliberation_rounds(), 2);
    assert!(!record.converged);
    assert_eq!(record.initial_agreement, record.final_agreement);
    let analysis = ethics_bowl::analysis::analyse(&rounds, &Default::default());
    let figures = analysis.panels.expect("panel figures");
    assert_eq!(
        (figures.panels, figures.converged, figures.round_limit),
        (1, 0, 1)
    );
    assert_eq!(figures.rounds_needed.get(&2), Some(&1));
    assert!(figures.judges.iter().all(|j| j.moved.mean == Some(0.0)));
}

#[test]
fn panel_config_errors_name_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let models = [debaters(), judge("p", 0.5, 0.0)].concat();
    for (body, key) in [
        (
            "models = [\"a\", \"b\"]\njudging = \"panel\"\n".to_string(),
            "key \"judging\"",
        ),
        (
            panel(&[("x", "p"), ("x", "p")], 3, 0.8),
            "key \"panel.judges[1].persona_id\"",
        ),
        (panel(&[("x", "nobody")], 3, 0.8), "key \"panel.judges\""),
        (
            panel(&[("x", "p")], 3, 1.5),
            "key \"panel.convergence_threshold\"",
        ),
    ] {
        let config = write(dir.path(), &models, &body);
        let e = engine::prepare(&config, None).unwrap_err().to_string();
        assert!(e.contains(key), "{key}: {e}");
    }
}

#[tokio::test]
async fn the_score_view_shows_each_judge_per_round_and_the_matrix_shows_deliberation() {
    use ethics_bowl::tui::views::{self, cell};
    use ethics_bowl::tui::{App, Msg, Theme, browse, update};
    use ratatui::{Terminal, backend::TestBackend};

    let dir = tempfile::tempdir().unwrap();
    let config = yielding_steady_and_down(dir.path());
    let (store, _) = run(&config).await;
    let (rounds, _) = store.load_rounds(&RoundFilter::default()).unwrap();
    let now = std::time::Instant::now();
    let mut app: App = browse("test", &rounds, now);
    let theme = Theme::no_color();
    let press = |app: &mut App, code| {
        update(
            app,
            Msg::Key(crossterm::event::KeyEvent::new(
                code,
                crossterm::event::KeyModifiers::NONE,
            )),
        );
    };
    press(&mut app, crossterm::event::KeyCode::Enter);
    press(&mut app, crossterm::event::KeyCode::Tab);
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
    terminal.draw(|f| views::render(f, &app, &theme)).unwrap();
    let text = terminal.backend().to_string();
    assert!(
        text.contains("Panel · converged after 1 deliberation round(s)"),
        "{text}"
    );
    insta::assert_snapshot!("panel_scores_120x40", terminal.backend());
    // A judge deliberating shows in the matrix cell.
    update(
        &mut app,
        Msg::Engine(EngineEvent::PhaseStarted {
            round_id: rounds[0].id.clone(),
            phase_type: PhaseType::Deliberation,
            model: "x (yielding) · deliberation 1".into(),
        }),
    );
    assert_eq!(cell(&app.mirror.rounds[0], &app, &theme).0, "▶D1");
}

#[tokio::test]
async fn rejudging_adds_a_panel_beside_the_original_judge_and_resumes_without_repeating() {
    let dir = tempfile::tempdir().unwrap();
    let models = [
        debaters(),
        sim("j", 0.5, 0.0, 0.0),
        judge("p", 0.5, 0.0),
        judge("q", 0.5, 0.0),
    ]
    .concat();
    let config = write(
        dir.path(),
        &models,
        "models = [\"a\", \"b\"]\njudges = [\"j\"]\ndilemmas = [\"borrowed_voice\", \"quiet_majority\"]\npairings = [[\"a\", \"b\"]]\n",
    );
    let (original, _) = run(&config).await;
    let judging = dir.path().join("judging.toml");
    std::fs::write(
        &judging,
        "models_file = \"models.toml\"\njudging = \"panel\"\n[panel]\n\
         [[panel.judges]]\npersona_id = \"x\"\nmodel = \"p\"\npersona = \"The x.\"\n\
         [[panel.judges]]\npersona_id = \"y\"\nmodel = \"q\"\npersona = \"The y.\"\n",
    )
    .unwrap();
    let out = dir.path().join("rejudged");
    // A judging file's [panel] is checked as a tournament's is.
    let bad = dir.path().join("bad-judging.toml");
    let text = std::fs::read_to_string(&judging).unwrap();
    std::fs::write(
        &bad,
        text.replace("[panel]\n", "[panel]\nmin_evaluations_for_debate = 5\n"),
    )
    .unwrap();
    let e = engine::prepare_rejudge(original.dir(), &bad, Some(&out), false)
        .err()
        .expect("refused")
        .to_string();
    assert!(e.contains("panel.min_evaluations_for_debate"), "{e}");
    let rejudge = || async {
        let plan =
            engine::prepare_rejudge(original.dir(), &judging, Some(&out), false).expect("plan");
        let (tx, _rx) = mpsc::unbounded_channel();
        engine::rejudge(plan, tx, &mut tokio::sync::mpsc::unbounded_channel().1)
            .await
            .expect("rejudges")
    };
    let report = rejudge().await;
    assert_eq!(report.rounds, 2);
    let copy = Store::open(&out).unwrap();
    let (rounds, _) = copy.load_rounds(&RoundFilter::default()).unwrap();
    let calls: usize = rounds.iter().map(|r| r.phases.len()).sum();
    for r in &rounds {
        let keys: Vec<&str> = r.judgments.iter().map(|j| j.judge_key()).collect();
        assert!(
            keys.contains(&"j") && keys.contains(&"x") && keys.contains(&"y"),
            "{keys:?}"
        );
        assert!(r.panel.is_some());
        assert_eq!(
            r.phases
                .iter()
                .filter(|p| p.phase_type == PhaseType::Presentation)
                .count(),
            1,
            "the debaters were not called again"
        );
    }
    // The original folder is untouched.
    let (before, _) = original.load_rounds(&RoundFilter::default()).unwrap();
    assert!(before.iter().all(|r| r.panel.is_none()));
    // Again: nothing on disk is asked for again.
    rejudge().await;
    let (again, _) = copy.load_rounds(&RoundFilter::default()).unwrap();
    assert_eq!(again.iter().map(|r| r.phases.len()).sum::<usize>(), calls);
}

/// A panel judge whose answers are never readable is sent back once per panel round (the
/// answer kept beside the first), and then left for a person; with `judge_corrections = 0`
/// it is not sent back at all.
#[tokio::test]
async fn an_unreadable_panel_answer_gets_one_correction_turn() {
    for (corrections, expected) in [(None, vec![0, 1]), (Some(0), vec![0])] {
        let dir = tempfile::tempdir().unwrap();
        let garbled = judge("garbled", 0.5, 0.0).replace(
            "malformed_judgment_rate = 0.0",
            "malformed_judgment_rate = 1.0",
        );
        let models = [debaters(), judge("steady", 0.0, 0.0), garbled].concat();
        let mut body = panel(&[("s", "steady"), ("g", "garbled")], 0, 0.99);
        if let Some(n) = corrections {
            body = format!("judge_corrections = {n}\n{body}");
        }
        let (store, _) = run(&write(dir.path(), &models, &body)).await;
        let (rounds, _) = store.load_rounds(&RoundFilter::default()).unwrap();
        let round = &rounds[0];
        let answers: Vec<u32> = round
            .phases
            .iter()
            .filter(|p| p.judge_id.as_deref() == Some("g"))
            .map(|p| p.correction)
            .collect();
        assert_eq!(answers, expected, "judge_corrections = {corrections:?}");
        let steady: Vec<u32> = round
            .phases
            .iter()
            .filter(|p| p.judge_id.as_deref() == Some("s"))
            .map(|p| p.correction)
            .collect();
        assert_eq!(steady, vec![0], "a readable judge is not sent back");
        assert_eq!(round.status, RoundStatus::NeedsReview);
    }
}

/// A simulated panel judge that never moves and streams at `tokens_per_second` (0: at once).
fn timed_judge(name: &str, tokens_per_second: f64) -> String {
    judge(name, 0.0, 0.0).replace(
        "tokens_per_second = 0",
        &format!("tokens_per_second = {tokens_per_second}"),
    )
}

/// A deliberation round that runs past `deliberation_timeout_s` ends the deliberation: the
/// quick judge's answer counts, the slow one's previous evaluation stands, and the stored
/// phase says the time ran out (on tokio's paused clock, so the test does not wait).
#[tokio::test(start_paused = true)]
async fn a_deliberation_round_past_its_time_limit_ends_the_deliberation() {
    let dir = tempfile::tempdir().unwrap();
    let models = [
        debaters(),
        timed_judge("quick", 0.0),
        timed_judge("slow", 1.0),
    ]
    .concat();
    // A low dimension threshold, so that the judges' score gaps are disputed and they
    // deliberate (the default's three quarters of the range rarely disputes one).
    let body = panel(&[("x", "quick"), ("y", "slow")], 3, 0.999).replace(
        "[panel]\n",
        "[panel]\ndeliberation_timeout_s = 30\ndimension_disagreement_threshold = 1.5\n",
    );
    let (store, _) = run(&write(dir.path(), &models, &body)).await;
    let (rounds, _) = store.load_rounds(&RoundFilter::default()).unwrap();
    let round = &rounds[0];
    let record = round.panel.as_ref().unwrap();
    assert_eq!(record.state, PanelState::TimedOut, "{record:?}");
    assert!(!record.converged);
    assert_eq!(
        record.deliberation_rounds(),
        1,
        "no round after the timeout"
    );
    assert_eq!(record.deliberation_timeout_s, Some(30.0));
    let seat = |who: &str, n: usize| {
        record.rounds[n]
            .evaluations
            .iter()
            .find(|e| e.persona_id == who)
            .unwrap()
    };
    assert_eq!(seat("x", 1).outcome, SeatOutcome::Evaluated);
    assert_eq!(seat("y", 1).outcome, SeatOutcome::TimedOut);
    assert_eq!(
        seat("y", 1).evaluation,
        seat("y", 0).evaluation,
        "the late judge's evaluation before the round stands"
    );
    // The independent evaluations are not timed: the slow judge's first answer took longer.
    let late = round
        .phases
        .iter()
        .find(|p| p.judge_id.as_deref() == Some("y") && p.deliberation_round == Some(1))
        .unwrap();
    let error = late.error.as_deref().unwrap();
    assert!(
        ethics_bowl::protocols::panel::is_time_up(error) && error.contains("30 s"),
        "{error}"
    );
    // At 1 token a second, the slow judge streams 4 words every 16/3 s: an answer of more
    // than 24 words took longer than the limit, and was not cut.
    let first = round
        .phases
        .iter()
        .find(|p| p.judge_id.as_deref() == Some("y") && p.deliberation_round == Some(0))
        .unwrap();
    assert!(first.error.is_none());
    assert!(first.response.split_inclusive(' ').count() > 24);
    let summary = record.summary.as_ref().unwrap();
    assert_eq!(summary.stop_reason, PanelState::TimedOut);
    assert_eq!(round.status, RoundStatus::Complete);
}

/// With `min_evaluations_for_debate = 3`, a panel left with two evaluations (the third
/// judge's provider fails) does not deliberate; with the default 2 it does.
#[tokio::test]
async fn too_few_evaluations_for_the_minimum_means_no_deliberation() {
    for (minimum, deliberates) in [(3, false), (2, true)] {
        let dir = tempfile::tempdir().unwrap();
        let models = [
            debaters(),
            judge("p", 0.0, 0.0),
            judge("q", 0.0, 0.0),
            judge("down", 0.5, 1.0),
        ]
        .concat();
        let body = panel(&[("x", "p"), ("y", "q"), ("z", "down")], 1, 0.999).replace(
            "[panel]\n",
            &format!("[panel]\nmin_evaluations_for_debate = {minimum}\n"),
        );
        let (store, _) = run(&write(dir.path(), &models, &body)).await;
        let (rounds, _) = store.load_rounds(&RoundFilter::default()).unwrap();
        let record = rounds[0].panel.as_ref().unwrap();
        assert_eq!(record.min_evaluations_for_debate, minimum);
        assert_eq!(record.rounds[0].agreement.unwrap().judges, 2);
        if deliberates {
            assert_eq!(record.state, PanelState::RoundLimit);
            assert_eq!(record.deliberation_rounds(), 1);
        } else {
            assert_eq!(record.state, PanelState::TooFewJudges);
            assert_eq!(record.deliberation_rounds(), 0);
            assert_eq!(record.aggregate.as_ref().unwrap().judges, 2);
        }
    }
}

#[test]
fn min_evaluations_and_the_timeout_are_checked_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let models = [debaters(), judge("p", 0.5, 0.0), judge("q", 0.5, 0.0)].concat();
    let judges = panel(&[("x", "p"), ("y", "q")], 3, 0.8);
    for (setting, key, problem) in [
        (
            "min_evaluations_for_debate = 1",
            "panel.min_evaluations_for_debate",
            "below 2",
        ),
        (
            "min_evaluations_for_debate = 3",
            "panel.min_evaluations_for_debate",
            "more than the panel's 2 judge(s)",
        ),
        (
            "deliberation_timeout_s = -5",
            "panel.deliberation_timeout_s",
            "not a positive number of seconds",
        ),
    ] {
        let body = judges.replace("[panel]\n", &format!("[panel]\n{setting}\n"));
        let config = write(dir.path(), &models, &body);
        let e = engine::prepare(&config, None).unwrap_err().to_string();
        assert!(e.contains(key) && e.contains(problem), "{setting}: {e}");
    }
}

/// The proof for #19's panels: the sample panel tournament, run with its simulated models,
/// stores on each round the source's summary (deliberation rounds, initial and final
/// agreement, improvement, convergence as final agreement at the threshold or above, each
/// round's disagreements by count and type, final verdicts with confidence), and report.md
/// lists it per exchange.
#[tokio::test]
async fn the_sample_panel_stores_the_deliberation_summary_and_the_report_shows_it() {
    use ethics_bowl::domain::DisagreementKind;
    let dir = tempfile::tempdir().unwrap();
    let config = support::tournament::manifest("sample-config/panel.toml");
    let (report, _) = support::tournament::run_collecting(&config, Some(dir.path())).await;
    let rounds = support::tournament::stored_rounds(&report);
    assert!(!rounds.is_empty());
    let mut deliberated = 0;
    for round in &rounds {
        // Read from the round file as stored, not from memory.
        let path = report.dir.join("rounds").join(format!("{}.json", round.id));
        let stored: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let panel = &stored["panel"];
        let summary = &panel["summary"];
        let record = round.panel.as_ref().unwrap();
        let n = record.rounds.len();
        assert_eq!(
            summary["deliberation_rounds"],
            (n - 1) as u64,
            "{}",
            round.id
        );
        deliberated += usize::from(n > 1);
        let (initial, last) = (
            summary["initial_agreement"].as_f64().unwrap(),
            summary["final_agreement"].as_f64().unwrap(),
        );
        assert_eq!(Some(initial), record.rounds[0].agreement.map(|a| a.overall));
        assert_eq!(
            Some(last),
            record.rounds[n - 1].agreement.map(|a| a.overall)
        );
        assert!((summary["improvement"].as_f64().unwrap() - (last - initial)).abs() < 1e-12);
        let threshold = panel["convergence_threshold"].as_f64().unwrap();
        assert_eq!(summary["converged"], last >= threshold, "{}", round.id);
        assert_eq!(panel["converged"], last >= threshold, "{}", round.id);
        assert_eq!(summary["stop_reason"], panel["state"]);
        let per_round = summary["rounds"].as_array().unwrap();
        assert_eq!(per_round.len(), n);
        for (shown, r) in per_round.iter().zip(&record.rounds) {
            assert_eq!(shown["disagreements"], r.disagreements.len() as u64);
            let verdicts = r
                .disagreements
                .iter()
                .filter(|d| d.subject == "verdict")
                .count();
            let by_type = |kind: &str| shown["types"][kind].as_u64().unwrap_or(0) as usize;
            assert_eq!(by_type("verdict"), verdicts);
            assert_eq!(by_type("dimension"), r.disagreements.len() - verdicts);
        }
        let finals = summary["final_verdicts"].as_array().unwrap();
        assert_eq!(finals.len(), record.judges.len());
        for (f, seat) in finals.iter().zip(&record.judges) {
            let e = record
                .latest(&seat.persona_id)
                .unwrap()
                .evaluation
                .as_ref()
                .unwrap();
            assert_eq!(f["persona_id"], seat.persona_id.as_str());
            assert_eq!(f["verdict"].as_str(), e.verdict.as_deref());
            assert_eq!(f["confidence"].as_f64(), e.confidence);
            assert!(
                e.confidence.is_some(),
                "a final verdict with its confidence"
            );
        }
        let kinds = &record.summary.as_ref().unwrap().rounds[0].types;
        assert!(
            !kinds.contains_key(&DisagreementKind::Label),
            "no labels here"
        );
    }
    assert!(deliberated > 0, "no sample panel deliberated");
    let analysis = ethics_bowl::analysis::analyse(&rounds, &Default::default());
    let out = dir.path().join("report");
    ethics_bowl::analysis::write_report(
        &analysis,
        &out,
        &[ethics_bowl::analysis::Format::Markdown],
    )
    .unwrap();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("### Each panel's deliberation"), "{md}");
    for round in &rounds {
        assert!(
            md.lines()
                .any(|l| l.starts_with(&format!("| {} | ", round.id))),
            "{} missing from the panel summaries",
            round.id
        );
    }
}
