//! `rejudge` on stored rounds of every protocol, from the fixture folders written before
//! round files had a schema version (`tests/fixtures/stored-v0`): single judges and a panel
//! add their judgments beside the original ones without calling the debaters again, a
//! second run asks for nothing already on disk, and the folders judged are copies (`--out`),
//! so the fixtures are never written.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use ethics_bowl::domain::{PanelState, PhaseType, ProtocolKind, Round};
use ethics_bowl::engine::{self, RejudgeReport};
use ethics_bowl::store::{RoundFilter, Store};
use support::tournament::manifest;

const FIXTURES: [(&str, ProtocolKind); 3] = [
    ("ethics_bowl", ProtocolKind::EthicsBowl),
    ("qa_debate", ProtocolKind::QaDebate),
    ("structured_debate", ProtocolKind::StructuredDebate),
];

fn fixture(name: &str) -> PathBuf {
    manifest("tests/fixtures/stored-v0").join(name)
}

/// Every file of a results folder, with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = vec![(
        dir.join("tournament.json"),
        std::fs::read(dir.join("tournament.json")).unwrap(),
    )];
    for entry in std::fs::read_dir(dir.join("rounds")).unwrap() {
        let path = entry.unwrap().path();
        files.push((path.clone(), std::fs::read(&path).unwrap()));
    }
    files.sort();
    files
}

fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.join("rounds")).unwrap();
    for (path, bytes) in snapshot(from) {
        let relative = path.strip_prefix(from).unwrap();
        std::fs::write(to.join(relative), bytes).unwrap();
    }
}

/// A judging file (and its models file) in `dir`: simulated judges `j1`, `j2`, `p`, `q`
/// that always answer readably, and `body`.
fn judging_file(dir: &Path, body: &str) -> PathBuf {
    let mut models = String::new();
    for (name, pull) in [("j1", 0.5), ("j2", 0.5), ("p", 1.0), ("q", 0.0)] {
        models.push_str(&format!(
            "[[models]]\nname = \"{name}\"\nprovider = \"simulated\"\nmodel = \"{name}\"\n\
             [models.simulated]\nquality = 0.6\ntokens_per_second = 0\nmalformed_judgment_rate = 0.0\n\
             failure_rate = 0.0\ndeliberation_pull = {pull}\n"
        ));
    }
    std::fs::write(dir.join("models.toml"), models).unwrap();
    let path = dir.join("judging.toml");
    std::fs::write(
        &path,
        format!(
            "models_file = \"models.toml\"\ndilemma_file = \"{}\"\n{body}",
            manifest("sample-config/dilemmas.docx").display()
        ),
    )
    .unwrap();
    path
}

const SINGLE: &str = "judging = \"all\"\njudges = [\"j1\", \"j2\"]\n";
const PANEL: &str = "judging = \"panel\"\n[panel]\nconvergence_threshold = 0.95\n\
    [[panel.judges]]\npersona_id = \"x\"\nmodel = \"p\"\npersona = \"The x.\"\n\
    [[panel.judges]]\npersona_id = \"y\"\nmodel = \"q\"\npersona = \"The y.\"\n";

async fn rejudge(dir: &Path, judging: &Path, out: &Path) -> (RejudgeReport, Vec<(String, String)>) {
    let plan = engine::prepare_rejudge(dir, judging, Some(out), false).expect("plans");
    let skipped = plan.skipped.clone();
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    (
        engine::rejudge(plan, tx, &mut tokio::sync::mpsc::unbounded_channel().1)
            .await
            .expect("rejudges"),
        skipped,
    )
}

fn rounds(dir: &Path) -> Vec<Round> {
    let (rounds, errors) = Store::open(dir)
        .unwrap()
        .load_rounds(&RoundFilter::default())
        .unwrap();
    assert!(errors.is_empty(), "{errors:?}");
    rounds
}

/// Debaters' calls in a round.
fn debater_calls(round: &Round) -> usize {
    round
        .phases
        .iter()
        .filter(|p| !p.phase_type.is_judging())
        .count()
}

/// Re-judges a copy of each fixture into another copy with `body`, checks what every round
/// gained with `check`, reruns, and checks that nothing was written to the fixture or the
/// first copy and nothing was asked for twice.
async fn rejudge_fixtures(body: &str, check: impl Fn(ProtocolKind, &Round, &Round)) {
    for (name, kind) in FIXTURES {
        let dir = tempfile::tempdir().unwrap();
        let before_fixture = snapshot(&fixture(name));
        let source = dir.path().join("source");
        copy_folder(&fixture(name), &source);
        let before_source = snapshot(&source);
        let judging = judging_file(dir.path(), body);
        let out = dir.path().join("out");

        let (report, skipped) = rejudge(&source, &judging, &out).await;
        assert!(skipped.is_empty(), "{name}: {skipped:?}");
        let original = rounds(&source);
        let judged = rounds(&out);
        assert_eq!(report.rounds, original.len(), "{name}");
        assert_eq!(judged.len(), original.len());
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap())
                .unwrap();
        let complete = judged
            .iter()
            .filter(|r| r.status == ethics_bowl::domain::RoundStatus::Complete)
            .count();
        assert_eq!(
            summary["complete"], complete,
            "{name}: summary.json follows"
        );
        assert_eq!(report.summary.complete, complete);
        for old in &original {
            let new = judged.iter().find(|r| r.id == old.id).unwrap();
            assert_eq!(new.kind(), kind);
            assert_eq!(
                debater_calls(new),
                debater_calls(old),
                "{name}: debaters called"
            );
            for j in &old.judgments {
                assert!(new.judgments.contains(j), "{name}: {} lost", j.judge_key());
            }
            check(kind, old, new);
        }

        let calls: usize = judged.iter().map(|r| r.phases.len()).sum();
        rejudge(&source, &judging, &out).await;
        let again: usize = rounds(&out).iter().map(|r| r.phases.len()).sum();
        assert_eq!(again, calls, "{name}: asked again");
        assert_eq!(
            snapshot(&source),
            before_source,
            "{name}: the source was written"
        );
        assert_eq!(
            snapshot(&fixture(name)),
            before_fixture,
            "{name}: the fixture was written"
        );
    }
}

#[tokio::test]
async fn single_judges_rejudge_stored_rounds_of_every_protocol() {
    rejudge_fixtures(SINGLE, |kind, old, new| {
        for judge in ["j1", "j2"] {
            let j = new
                .judgments
                .iter()
                .find(|j| j.judge_key() == judge)
                .unwrap_or_else(|| panic!("{}: no judgment by {judge}", new.id));
            assert_eq!(j.reading.kind(), kind);
            assert!(j.is_usable(), "{}: {judge}: {:?}", new.id, j.problems);
            assert!(new.phase(PhaseType::Judgment, Some(judge)).is_some());
        }
        assert_eq!(new.judgments.len(), old.judgments.len() + 2);
        // The first judge's judgment still stands for the round.
        assert_eq!(new.scores, old.scores);
    })
    .await;
}

#[tokio::test]
async fn a_panel_rejudges_stored_rounds_of_every_protocol() {
    rejudge_fixtures(PANEL, |kind, old, new| {
        let panel = new.panel.as_ref().expect("a panel record");
        assert_ne!(panel.state, PanelState::Evaluating, "{}", new.id);
        assert_eq!(panel.aggregate.as_ref().unwrap().judges, 2);
        let verdict = new.scores.as_ref().expect("the panel's verdict");
        assert_eq!(verdict.judge_model, "panel");
        assert_eq!(verdict.reading.kind(), kind);
        assert_eq!(new.judge_model, "panel");
        let keys: Vec<&str> = new.judgments.iter().map(|j| j.judge_key()).collect();
        assert!(keys.contains(&"x") && keys.contains(&"y"), "{keys:?}");
        assert_eq!(new.judgments.len(), old.judgments.len() + 2);
    })
    .await;
}

#[tokio::test]
async fn a_round_judged_by_another_panel_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("source");
    copy_folder(&fixture("panel"), &source);
    let judging = judging_file(dir.path(), PANEL);
    let out = dir.path().join("out");
    let (report, skipped) = rejudge(&source, &judging, &out).await;
    assert_eq!(report.rounds, 0);
    assert!(!skipped.is_empty());
    assert!(
        skipped
            .iter()
            .all(|(_, why)| why == "already judged by another panel")
    );
    // Single judges may still be added beside that panel.
    let single = judging_file(dir.path(), SINGLE);
    let (report, skipped) = rejudge(&source, &single, &out).await;
    assert!(skipped.is_empty());
    for round in rounds(&out) {
        assert_eq!(
            round.judge_model, "panel",
            "the panel's verdict still stands"
        );
        assert!(round.judgments.iter().any(|j| j.judge_key() == "j1"));
    }
    assert_eq!(report.rounds, rounds(&source).len());
}

#[test]
fn the_command_rejudges_a_copy_and_says_what_it_did() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("source");
    copy_folder(&fixture("qa_debate"), &source);
    let before = snapshot(&source);
    let judging = judging_file(dir.path(), PANEL);
    let out = dir.path().join("out");
    let output = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"))
        .arg("rejudge")
        .arg(&source)
        .arg("--config")
        .arg(&judging)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("judged 7 exchange(s)"), "{stdout}");
    assert_eq!(snapshot(&source), before);
    assert!(rounds(&out).iter().all(|r| r.panel.is_some()));
}

/// A judge whose call panics (a bug) leaves its round incomplete with the message, through the
/// run's own scheduler, and the other rounds are judged.
#[tokio::test]
async fn a_judge_whose_call_panics_is_kept_as_the_rounds_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("models.toml"),
        "[[models]]\nname = \"bug\"\nprovider = \"simulated\"\nmodel = \"bug\"\n\
         [models.simulated]\ntokens_per_second = 0\npanic_rate = 1.0\n",
    )
    .unwrap();
    let judging = dir.path().join("judging.toml");
    std::fs::write(
        &judging,
        format!(
            "models_file = \"models.toml\"\ndilemma_file = \"{}\"\njudging = \"all\"\njudges = [\"bug\"]\n",
            manifest("sample-config/dilemmas.docx").display()
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    let (report, _) = rejudge(&fixture("ethics_bowl"), &judging, &out).await;
    assert_eq!(
        report.need_attention, report.rounds,
        "every round kept, none lost"
    );
    assert!(!report.cancelled);
    let (rounds, _) = Store::open(&out)
        .unwrap()
        .load_rounds(&RoundFilter::default())
        .unwrap();
    let kept = rounds
        .iter()
        .filter(|r| {
            r.error
                .as_ref()
                .is_some_and(|e| e.message.contains("internal error in round"))
        })
        .count();
    assert!(kept > 0, "the panic is the round's error");
}

/// A cancel sent while re-judging stops it: no new calls, the report says it was stopped.
#[tokio::test]
async fn rejudging_can_be_stopped_like_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let judging = judging_file(dir.path(), SINGLE);
    let out = dir.path().join("out");
    let plan =
        engine::prepare_rejudge(&fixture("ethics_bowl"), &judging, Some(&out), false).unwrap();
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let (commands, mut commands_rx) = tokio::sync::mpsc::unbounded_channel();
    commands.send(engine::EngineCommand::Cancel).unwrap();
    let report = engine::rejudge(plan, tx, &mut commands_rx).await.unwrap();
    assert!(report.cancelled);
}
