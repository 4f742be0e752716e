//! Judge panels on the question-answer and structured debates, end to end with simulated
//! judges: agreement that needs no deliberation, deliberation to convergence and to the
//! round limit, the weighted aggregate, a failed judge left out, resume in the middle of a
//! deliberation, and the report's panel section for each protocol.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::path::{Path, PathBuf};

use ethics_bowl::analysis::figures;
use ethics_bowl::analysis::panels::{ProtocolPanelFigures, panel_section};
use ethics_bowl::domain::{
    Evaluation, PanelRecord, PanelState, PhaseType, ProtocolKind, Round, RoundStatus, SeatOutcome,
    Standing,
};
use ethics_bowl::engine::{self, EngineEvent};
use ethics_bowl::store::{RoundFilter, Store};
use support::tournament::{manifest, run_collecting, sim, stored_rounds, write_tournament};

/// A simulated panel judge that always answers readably: `pull` is the share of the gap to
/// the others it closes when deliberating.
fn judge(name: &str, pull: f64, failure_rate: f64) -> String {
    format!(
        "[[models]]\nname = \"{name}\"\nprovider = \"simulated\"\nmodel = \"{name}\"\n\
         [models.simulated]\nquality = 0.6\ntokens_per_second = 0\nmalformed_judgment_rate = 0.0\n\
         failure_rate = {failure_rate}\ndeliberation_pull = {pull}\n"
    )
}

/// The `[panel]` table: (persona, model, weight) per judge.
fn panel(judges: &[(&str, &str, f64)], max_rounds: u32, threshold: f64) -> String {
    let mut s = format!(
        "[panel]\nmax_deliberation_rounds = {max_rounds}\nconvergence_threshold = {threshold}\n"
    );
    for (persona, model, weight) in judges {
        s.push_str(&format!(
            "[[panel.judges]]\npersona_id = \"{persona}\"\nmodel = \"{model}\"\npersona = \"The {persona}.\"\nweight = {weight}\n"
        ));
    }
    s
}

fn models(judges: &[String]) -> String {
    let debaters = [sim("a", 0.8, 0.0, 0.0), sim("b", 0.4, 0.0, 0.0)].concat();
    format!("{debaters}{}", judges.concat())
}

/// A question-answer tournament over six sample items: the naive baseline and one debate
/// each, judged by this panel.
fn qa(dir: &Path, judges: &[String], panel: &str) -> PathBuf {
    let body = format!(
        "protocol = \"qa_debate\"\nmodels = [\"a\", \"b\"]\npairings = [[\"a\", \"b\"]]\njudging = \"panel\"\n\
         [qa]\ndatasets = [{{ file = \"{}\", level = \"Sample\" }}]\nsample_per_level = 6\nseed = 3\n\
         debate_rounds = 2\nbaselines = [\"naive\"]\nrelations = [\"mixed\"]\n{panel}",
        manifest("sample-config/qa-sample.json").display()
    );
    write_tournament(dir, &models(judges), &body)
}

/// A structured tournament on two sample topics, each pair both ways, judged by this panel.
fn structured(dir: &Path, judges: &[String], panel: &str) -> PathBuf {
    let body = format!(
        "protocol = \"structured_debate\"\nmodels = [\"a\", \"b\"]\npairings = [[\"a\", \"b\"]]\njudging = \"panel\"\n\
         [structured]\ntopics_file = \"{}\"\ntopics = [\"microservices_day_one\", \"four_day_week\"]\n{panel}",
        manifest("sample-config/topics.toml").display()
    );
    write_tournament(dir, &models(judges), &body)
}

#[derive(Clone, Copy, Debug)]
enum Protocol {
    Qa,
    Structured,
}

const BOTH: [Protocol; 2] = [Protocol::Qa, Protocol::Structured];

impl Protocol {
    fn write(self, dir: &Path, judges: &[String], panel: &str) -> PathBuf {
        match self {
            Self::Qa => qa(dir, judges, panel),
            Self::Structured => structured(dir, judges, panel),
        }
    }

    fn kind(self) -> ProtocolKind {
        match self {
            Self::Qa => ProtocolKind::QaDebate,
            Self::Structured => ProtocolKind::StructuredDebate,
        }
    }
}

async fn run(config: &Path) -> (Vec<Round>, Vec<EngineEvent>) {
    let (report, events) = run_collecting(config, None).await;
    (stored_rounds(&report), events)
}

fn record(round: &Round) -> &PanelRecord {
    round.panel.as_ref().expect("a panel record")
}

/// A judge's evaluation in force after panel round `n`.
fn in_force(record: &PanelRecord, persona: &str, n: usize) -> Option<Evaluation> {
    record.rounds[..=n]
        .iter()
        .rev()
        .find_map(|r| r.evaluations.iter().find(|e| e.persona_id == persona))
        .and_then(|e| e.evaluation.clone())
}

#[tokio::test]
async fn judges_who_agree_need_no_deliberation() {
    for protocol in BOTH {
        let dir = tempfile::tempdir().unwrap();
        let judges = [judge("p", 0.5, 0.0), judge("q", 0.5, 0.0)];
        let config = protocol.write(
            dir.path(),
            &judges,
            &panel(&[("x", "p", 1.0), ("y", "q", 1.0)], 3, 0.6),
        );
        let (rounds, _) = run(&config).await;
        let mut agreed = 0;
        for round in &rounds {
            let r = record(round);
            assert_ne!(r.state, PanelState::Evaluating, "{protocol:?} {}", round.id);
            if r.initial_agreement.is_some_and(|a| a >= 0.6) {
                agreed += 1;
                assert_eq!(r.deliberation_rounds(), 0, "{protocol:?} {}", round.id);
                assert!(r.converged && r.final_agreement == r.initial_agreement);
                assert!(
                    r.rounds[0]
                        .evaluations
                        .iter()
                        .all(|e| e.outcome == SeatOutcome::Evaluated)
                );
            }
            assert_eq!(round.judge_model, "panel");
            assert_eq!(
                round.scores.as_ref().unwrap().reading.kind(),
                protocol.kind()
            );
        }
        assert!(agreed > 0, "{protocol:?}: no panel agreed at once");
    }
}

#[tokio::test]
async fn a_yielding_judge_brings_the_panel_to_convergence() {
    for protocol in BOTH {
        let dir = tempfile::tempdir().unwrap();
        let judges = [judge("yielding", 1.0, 0.0), judge("steady", 0.0, 0.0)];
        // A low dimension threshold, so that every score gap between them is disputed (the
        // default's three quarters of the range leaves most of them alone).
        let body = panel(&[("x", "yielding", 1.0), ("y", "steady", 1.0)], 3, 0.999).replace(
            "[panel]\n",
            "[panel]\ndimension_disagreement_threshold = 1.5\n",
        );
        let config = protocol.write(dir.path(), &judges, &body);
        let (rounds, events) = run(&config).await;
        let mut deliberated = 0;
        for round in &rounds {
            let r = record(round);
            assert_eq!(
                r.state,
                PanelState::Converged,
                "{protocol:?} {}: {r:?}",
                round.id
            );
            if r.deliberation_rounds() == 0 {
                continue;
            }
            deliberated += 1;
            // y never moves; x takes y's verdict and scores.
            let (x, y) = (in_force(r, "x", 1).unwrap(), in_force(r, "y", 1).unwrap());
            let y0 = in_force(r, "y", 0).unwrap();
            assert_eq!(
                (&y.scores, &y.verdict, &y.labels, y.confidence),
                (&y0.scores, &y0.verdict, &y0.labels, y0.confidence),
                "y never moves"
            );
            assert_eq!(x.verdict, y.verdict, "{protocol:?} {}", round.id);
            for (d, v) in &y.scores {
                assert!(
                    (x.scores[d] - v).abs() < 0.2,
                    "{protocol:?} {d}: {x:?} {y:?}"
                );
            }
            assert!(r.final_agreement > r.initial_agreement);
            // The deliberation prompt shows the other judge.
            let prompt = &round
                .phases
                .iter()
                .find(|p| {
                    p.phase_type == PhaseType::Deliberation && p.judge_id.as_deref() == Some("x")
                })
                .unwrap()
                .prompt;
            assert!(prompt.contains("#### y") && prompt.contains("Your evaluation so far"));
        }
        assert!(deliberated > 0, "{protocol:?}: no panel deliberated");
        // Panel records reach consumers as stored rounds (a backlog of snapshots is written
        // and announced once, so not every step), and the last one announced is the stored
        // record.
        for round in &rounds {
            let last = events
                .iter()
                .filter_map(|e| match e {
                    EngineEvent::RoundStored { round: r } if r.id == round.id => Some(r),
                    _ => None,
                })
                .next_back()
                .unwrap();
            assert_eq!(last.panel, round.panel, "{protocol:?} {}", round.id);
        }
        // Each judge's latest answer is its judgment, in the protocol's reading.
        for round in &rounds {
            let keys: Vec<&str> = round.judgments.iter().map(|j| j.judge_key()).collect();
            assert_eq!(keys, ["x", "y"]);
            assert!(
                round
                    .judgments
                    .iter()
                    .all(|j| j.reading.kind() == protocol.kind())
            );
        }
    }
}

#[tokio::test]
async fn stubborn_judges_hit_the_round_limit_and_the_report_says_so() {
    for protocol in BOTH {
        let dir = tempfile::tempdir().unwrap();
        let judges = [judge("p", 0.0, 0.0), judge("q", 0.0, 0.0)];
        let config = protocol.write(
            dir.path(),
            &judges,
            &panel(&[("x", "p", 1.0), ("y", "q", 1.0)], 2, 0.999),
        );
        let (rounds, _) = run(&config).await;
        let limited: Vec<&PanelRecord> = rounds
            .iter()
            .map(record)
            .filter(|r| r.state == PanelState::RoundLimit)
            .collect();
        assert!(!limited.is_empty(), "{protocol:?}");
        for r in &limited {
            assert_eq!(r.deliberation_rounds(), 2);
            assert!(!r.converged);
            assert_eq!(r.initial_agreement, r.final_agreement, "nobody moved");
        }
        let section = panel_section(&rounds, protocol.kind()).expect("a panel section");
        assert_eq!(section.figures.panels, rounds.len());
        assert_eq!(section.figures.round_limit, limited.len());
        assert_eq!(section.figures.rounds_needed.get(&2), Some(&limited.len()));
        assert!(
            section
                .figures
                .judges
                .iter()
                .all(|j| j.moved.mean == Some(0.0))
        );
        assert!(section.figures.alpha_initial.value.is_some());
        assert_eq!(section.figures.alpha_initial, section.figures.alpha_final);
        let markdown = figures::markdown(&[figures::judge_panels(&section)]);
        assert!(
            markdown.contains("## Judge panels") && markdown.contains("hit the deliberation limit")
        );
        match (&section.own, protocol) {
            (ProtocolPanelFigures::QaDebate(accuracy), Protocol::Qa) => {
                let judges: Vec<&str> = accuracy.rows.iter().map(|r| r.judge.as_str()).collect();
                assert!(
                    judges.contains(&"panel") && judges.contains(&"x") && judges.contains(&"y")
                );
                assert!(
                    accuracy
                        .rows
                        .iter()
                        .all(|r| r.before.n == r.after.n && r.after.n > 0)
                );
                assert!(markdown.contains("Accuracy of the panel and of each judge"));
            }
            (ProtocolPanelFigures::StructuredDebate(standings), Protocol::Structured) => {
                assert!(standings.arguments > 0);
                assert_eq!(standings.unanimous_before, standings.unanimous_after);
                assert!(markdown.contains("Argument standings"));
            }
            (own, _) => panic!("{protocol:?}: {own:?}"),
        }
        let files: Vec<String> = figures::judge_panels(&section)
            .tables()
            .filter_map(|t| t.tidy.as_ref().map(|t| t.file.clone()))
            .collect();
        assert!(
            files.iter().all(|f| f.ends_with(".csv")) && files.len() == 3,
            "{files:?}"
        );
        // Each panel's summary: its stop reason and its disputes by type, labels (argument
        // standings) apart from dimensions.
        let prefix = match protocol {
            Protocol::Qa => "qa_",
            Protocol::Structured => "structured_",
        };
        assert!(files.contains(&format!("{prefix}panel_summaries.csv")));
        assert!(markdown.contains("### Each panel's deliberation"));
        assert_eq!(section.figures.exchanges.len(), rounds.len());
        for round in &rounds {
            let r = record(round);
            let summary = r.summary.as_ref().unwrap();
            assert_eq!(summary.stop_reason, r.state);
            for (shown, panel_round) in summary.rounds.iter().zip(&r.rounds) {
                let labels = panel_round
                    .disagreements
                    .iter()
                    .filter(|d| d.subject.ends_with(".standing"))
                    .count();
                let counted = shown
                    .types
                    .get(&ethics_bowl::domain::DisagreementKind::Label)
                    .copied()
                    .unwrap_or(0);
                assert_eq!(counted, labels, "{protocol:?} {}", round.id);
            }
        }
        // The written report carries the section and its tables.
        let out = dir.path().join("report");
        let analysis = ethics_bowl::analysis::analyse(&rounds, &Default::default());
        ethics_bowl::analysis::write_report(
            &analysis,
            &out,
            &[
                ethics_bowl::analysis::Format::Markdown,
                ethics_bowl::analysis::Format::Csv,
            ],
        )
        .unwrap();
        let report = std::fs::read_to_string(out.join("report.md")).unwrap();
        assert!(report.contains(&markdown), "{protocol:?}: {report}");
        for f in &files {
            assert!(out.join(f).is_file(), "{protocol:?}: {f}");
        }
    }
}

#[tokio::test]
async fn the_panel_verdict_is_the_weighted_aggregate() {
    // A heavy and a light judge who never deliberate (no deliberation round allowed).
    let judges = [judge("p", 0.0, 0.0), judge("q", 0.0, 0.0)];
    let table = panel(&[("heavy", "p", 3.0), ("light", "q", 1.0)], 0, 0.999);

    let dir = tempfile::tempdir().unwrap();
    let (rounds, _) = run(&qa(dir.path(), &judges, &table)).await;
    let mut split = 0;
    for round in &rounds {
        let choice = |key: &str| {
            *round
                .judgments
                .iter()
                .find(|j| j.judge_key() == key)
                .and_then(|j| j.choice())
                .unwrap()
        };
        let (heavy, light) = (choice("heavy"), choice("light"));
        let panel = *round.scores.as_ref().unwrap().choice().unwrap();
        assert_eq!(panel.side, heavy.side, "the heavier judge carries the vote");
        let p = |c: ethics_bowl::domain::QaChoice| {
            let confidence = c.confidence.unwrap();
            if c.side == panel.side {
                confidence
            } else {
                100.0 - confidence
            }
        };
        let expected = (3.0 * p(heavy) + p(light)) / 4.0;
        assert!((panel.confidence.unwrap() - expected).abs() < 1e-9);
        split += usize::from(heavy.side != light.side);
    }
    assert!(split > 0, "no split vote to weigh");

    let dir = tempfile::tempdir().unwrap();
    let (rounds, _) = run(&structured(dir.path(), &judges, &table)).await;
    let mut split = 0;
    for round in &rounds {
        let r = record(round);
        let trace = round.scores.as_ref().unwrap().verdict().unwrap();
        let (heavy, light) = (
            in_force(r, "heavy", 0).unwrap(),
            in_force(r, "light", 0).unwrap(),
        );
        for a in &trace.assessments {
            let key = format!("{}.standing", a.arg_id);
            let call = heavy.labels.get(&key).unwrap();
            assert_eq!(a.standing.map(Standing::as_str), Some(call.as_str()));
            split += usize::from(light.labels.get(&key) != Some(call));
        }
        let verdict = |e: &Evaluation| e.verdict.clone();
        assert_eq!(r.aggregate.as_ref().unwrap().verdict, verdict(&heavy));
        // Each side's mean score is the weighted mean of the judges'.
        for (d, v) in &r.aggregate.as_ref().unwrap().scores {
            assert!((v - (3.0 * heavy.scores[d] + light.scores[d]) / 4.0).abs() < 1e-9);
        }
    }
    assert!(split > 0, "no split standing to weigh");
}

#[tokio::test]
async fn a_failed_judge_is_left_out_and_the_others_go_on() {
    for protocol in BOTH {
        let dir = tempfile::tempdir().unwrap();
        let judges = [
            judge("p", 1.0, 0.0),
            judge("q", 0.0, 0.0),
            judge("down", 0.5, 1.0),
        ];
        let config = protocol.write(
            dir.path(),
            &judges,
            &panel(
                &[("x", "p", 1.0), ("y", "q", 1.0), ("z", "down", 1.0)],
                3,
                0.999,
            ),
        );
        let (rounds, _) = run(&config).await;
        for round in &rounds {
            let r = record(round);
            let z = r.rounds[0]
                .evaluations
                .iter()
                .find(|e| e.persona_id == "z")
                .unwrap();
            assert_eq!(z.outcome, SeatOutcome::Failed);
            assert!(
                r.rounds[1..]
                    .iter()
                    .all(|n| n.evaluations.iter().all(|e| e.persona_id != "z"))
            );
            assert_eq!(r.aggregate.as_ref().unwrap().judges, 2);
            assert_eq!(r.rounds[0].agreement.unwrap().judges, 2);
            assert_ne!(
                round.status,
                RoundStatus::Incomplete,
                "{protocol:?} {}",
                round.id
            );
            assert!(round.judgments.iter().all(|j| j.judge_key() != "z"));
        }
    }
}

#[tokio::test]
async fn a_round_stopped_mid_deliberation_resumes_where_it_stopped() {
    for protocol in BOTH {
        let dir = tempfile::tempdir().unwrap();
        let judges = [judge("p", 0.3, 0.0), judge("q", 0.3, 0.0)];
        let config = protocol.write(
            dir.path(),
            &judges,
            &panel(&[("x", "p", 1.0), ("y", "q", 1.0)], 3, 0.999),
        );
        let (report, _) = run_collecting(&config, None).await;
        let rounds = stored_rounds(&report);
        let whole = rounds
            .iter()
            .find(|r| record(r).deliberation_rounds() >= 2)
            .unwrap_or_else(|| panic!("{protocol:?}: no panel deliberated twice"))
            .clone();
        // Stop it as if the run had been cut during deliberation round 1: y's answer in it
        // and everything after are missing.
        let store = Store::open(&report.dir).unwrap();
        let mut cut = whole.clone();
        cut.phases
            .retain(|p| match (p.judge_id.as_deref(), p.deliberation_round) {
                (Some("y"), Some(n)) => n < 1,
                (Some(_), Some(n)) => n <= 1,
                _ => true,
            });
        cut.judgments.clear();
        cut.panel = None;
        cut.scores = None;
        cut.status = RoundStatus::Incomplete;
        store.save_round(&cut).unwrap();

        let prepared = engine::prepare_resume(&report.dir).expect("resumes");
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        let (_commands, mut commands) = tokio::sync::mpsc::unbounded_channel();
        engine::run(prepared, tx, &mut commands)
            .await
            .expect("runs");

        let resumed = store.load_round(&whole.id).unwrap().unwrap();
        assert_eq!(
            resumed.panel, whole.panel,
            "{protocol:?}: the same deliberation"
        );
        assert_eq!(resumed.judgments, whole.judgments);
        assert_eq!(resumed.scores, whole.scores);
        assert_eq!(resumed.status, whole.status);
        assert_eq!(
            resumed.phases.len(),
            whole.phases.len(),
            "no answer asked for twice"
        );
        for kept in &cut.phases {
            assert!(
                resumed.phases.contains(kept),
                "a stored answer was replaced"
            );
        }
        let (others, _) = store.load_rounds(&RoundFilter::default()).unwrap();
        assert_eq!(others.len(), rounds.len());
    }
}

#[tokio::test]
async fn a_hand_correction_of_an_unreadable_judge_enters_the_panel() {
    for protocol in BOTH {
        let dir = tempfile::tempdir().unwrap();
        let unreadable = judge("garbled", 0.5, 0.0).replace(
            "malformed_judgment_rate = 0.0",
            "malformed_judgment_rate = 1.0",
        );
        let judges = [judge("p", 0.5, 0.0), judge("q", 0.5, 0.0), unreadable];
        let config = protocol.write(
            dir.path(),
            &judges,
            &panel(
                &[("x", "p", 1.0), ("y", "q", 1.0), ("z", "garbled", 1.0)],
                0,
                0.999,
            ),
        );
        let (report, _) = run_collecting(&config, None).await;
        // A round whose debaters' replies all read, so only the judge waits for review.
        let round = stored_rounds(&report)
            .into_iter()
            .find(|r| r.structured().is_none_or(|s| !s.needs_review()))
            .expect("a round with readable replies");
        assert_eq!(round.status, RoundStatus::NeedsReview, "{protocol:?}");
        assert!(record(&round).needs_review());
        assert_eq!(record(&round).aggregate.as_ref().unwrap().judges, 2);
        // A person writes z's answer (here: x's, which reads in full).
        let text = round
            .judgments
            .iter()
            .find(|j| j.judge_key() == "x")
            .unwrap()
            .raw_response
            .clone();
        let store = Store::open(&report.dir).unwrap();
        let (corrected, judgment) =
            engine::apply_correction(&store, &round.id, "z", &engine::Correction::Text(text))
                .expect("the correction reads");
        assert_eq!(judgment.reading.kind(), protocol.kind());
        let r = record(&corrected);
        assert!(!r.needs_review(), "{protocol:?}");
        assert_eq!(r.latest("z").unwrap().outcome, SeatOutcome::CorrectedByHand);
        assert_eq!(r.aggregate.as_ref().unwrap().judges, 3);
        assert_eq!(corrected.status, RoundStatus::Complete, "{protocol:?}");
        // Stored as shown (floats compared loosely: a JSON round trip may move the last digit).
        let stored = store.load_round(&round.id).unwrap().unwrap();
        assert_eq!(stored.judgments, corrected.judgments);
        assert_eq!(stored.status, corrected.status);
        assert_eq!(record(&stored).latest("z"), r.latest("z"));
    }
}
