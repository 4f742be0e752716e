//! `rejudge --swap-sides` on stored rounds of every protocol (copies of
//! `tests/fixtures/stored-v0`): the judge's prompt shows the sides exchanged, the judgments
//! are stored mapped back to the sides as played, in a folder of their own, and the report
//! of that folder has its "Position flips" section. A simulated judge with a known
//! `position_bias` shows the mapping back and the position effect recovered.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use ethics_bowl::analysis::flip::{FlipRate, flip_rates, flips_of};
use ethics_bowl::domain::{PhaseType, ProtocolKind, Round};
use ethics_bowl::engine::{self, RejudgeReport, Sides};
use ethics_bowl::store::{RoundFilter, Store};
use support::tournament::manifest;

fn fixture(name: &str) -> PathBuf {
    manifest("tests/fixtures/stored-v0").join(name)
}

fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.join("rounds")).unwrap();
    std::fs::copy(from.join("tournament.json"), to.join("tournament.json")).unwrap();
    for entry in std::fs::read_dir(from.join("rounds")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, to.join("rounds").join(path.file_name().unwrap())).unwrap();
    }
}

/// A judging file in `dir` whose single judge `j` is simulated with `judge_knobs`, beside
/// the debaters `models` (name and `[models.simulated]` lines).
fn judging_file(dir: &Path, judge_knobs: &str, models: &[(&str, &str)]) -> PathBuf {
    let mut text = format!(
        "[[models]]\nname = \"j\"\nprovider = \"simulated\"\nmodel = \"j\"\n\
         [models.simulated]\ntokens_per_second = 0\nmalformed_judgment_rate = 0.0\n\
         failure_rate = 0.0\n{judge_knobs}"
    );
    for (name, knobs) in models {
        text.push_str(&format!(
            "[[models]]\nname = \"{name}\"\nprovider = \"simulated\"\nmodel = \"{name}\"\n\
             [models.simulated]\ntokens_per_second = 0\n{knobs}"
        ));
    }
    std::fs::write(dir.join("models.toml"), text).unwrap();
    let path = dir.join("judging.toml");
    std::fs::write(
        &path,
        format!(
            "models_file = \"models.toml\"\ndilemma_file = \"{}\"\njudging = \"all\"\njudges = [\"j\"]\n",
            manifest("sample-config/dilemmas.docx").display()
        ),
    )
    .unwrap();
    path
}

async fn rejudge(
    dir: &Path,
    judging: &Path,
    out: Option<&Path>,
    sides: Sides,
) -> (RejudgeReport, Vec<(String, String)>) {
    let plan = engine::prepare_rejudge_sides(dir, judging, out, false, sides).expect("plans");
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

/// The prompt the judge `j` answered in a round.
fn judge_prompt(round: &Round) -> &str {
    &round
        .phase(PhaseType::Judgment, Some("j"))
        .unwrap_or_else(|| panic!("{}: no judgment call by j", round.id))
        .prompt
}

/// What the swapped judge must have read, protocol by protocol, in a round as played.
fn check_prompt(kind: ProtocolKind, played: &Round, prompt: &str) {
    match kind {
        ProtocolKind::EthicsBowl => {
            // The presenting team's turns are headed Team B, under its own model's name.
            let a = &played.team_a_model;
            let b = &played.team_b_model;
            for heading in [
                format!("=== TEAM B ({a}) PRESENTATION ==="),
                format!("=== TEAM A ({b}) RESPONSE ==="),
                format!("=== TEAM B ({a}) REBUTTAL ==="),
                format!("=== TEAM B ({a}) CONSISTENCY TEST ==="),
                format!("=== TEAM A ({b}) CONSISTENCY TEST ==="),
            ] {
                assert!(prompt.contains(&heading), "{}: {heading}", played.id);
            }
            assert!(!prompt.contains(&format!("=== TEAM A ({a}) PRESENTATION")));
        }
        ProtocolKind::QaDebate => {
            let setup = played.qa().unwrap();
            let answers = format!(
                "Answer A: {}\nAnswer B: {}",
                setup.assignment.answer_b.answer(),
                setup.assignment.answer_a.answer()
            );
            assert!(prompt.contains(&answers), "{}: {prompt}", played.id);
        }
        ProtocolKind::StructuredDebate => {
            let con = prompt.find("## CON: opening arguments").unwrap();
            let pro = prompt.find("## PRO: opening arguments").unwrap();
            assert!(con < pro, "{}: Con is read first", played.id);
        }
    }
}

#[tokio::test]
async fn every_protocol_is_judged_swapped_mapped_back_and_reported() {
    for (name, kind) in [
        ("ethics_bowl", ProtocolKind::EthicsBowl),
        ("qa_debate", ProtocolKind::QaDebate),
        ("structured_debate", ProtocolKind::StructuredDebate),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("source");
        copy_folder(&fixture(name), &source);
        let judging = judging_file(dir.path(), "quality = 0.6\n", &[]);
        // The same judge, as played, then swapped from that folder.
        let played_dir = dir.path().join("played");
        rejudge(&source, &judging, Some(&played_dir), Sides::AsPlayed).await;
        let (report, skipped) = rejudge(&played_dir, &judging, None, Sides::Swapped).await;
        let swapped_dir = engine::swapped_folder(&played_dir);
        assert_eq!(swapped_dir, dir.path().join("played-swapped"));

        let played = rounds(&played_dir);
        let swapped = rounds(&swapped_dir);
        assert_eq!(swapped.len(), played.len(), "{name}: every round copied");
        // Only the question-answer baselines and consultancy have no two sides.
        for (id, why) in &skipped {
            assert_eq!(kind, ProtocolKind::QaDebate, "{name}: {id}: {why}");
            assert!(why.contains("no two debaters"), "{why}");
        }
        assert_eq!(report.rounds + skipped.len(), played.len());
        assert!(report.rounds > 0, "{name}");
        for round in &swapped {
            let before = played.iter().find(|r| r.id == round.id).unwrap();
            if skipped.iter().any(|(id, _)| *id == round.id) {
                assert!(round.judgments.is_empty(), "{}: judged", round.id);
                continue;
            }
            // The copy holds the swapped judgment alone, its debate unchanged.
            assert_eq!(round.judgments.len(), 1, "{}", round.id);
            let j = &round.judgments[0];
            assert_eq!(j.judge_model, "j");
            assert!(j.is_usable(), "{}: {:?}", round.id, j.problems);
            assert!(j.view.as_ref().unwrap().sides_swapped);
            let debate = |r: &Round| {
                r.phases
                    .iter()
                    .filter(|p| !p.phase_type.is_judging())
                    .map(|p| p.response.clone())
                    .collect::<Vec<_>>()
            };
            assert_eq!(debate(round), debate(before), "{}", round.id);
            check_prompt(kind, before, judge_prompt(round));
            // The judgment as played has no swap mark.
            let original = before
                .judgments
                .iter()
                .find(|j| j.judge_model == "j")
                .unwrap();
            assert!(!original.view.as_ref().unwrap().sides_swapped);
        }
        // The swapped folder names the folder judged as played; its report shows the flips.
        let store = Store::open(&swapped_dir).unwrap();
        let flips = flips_of(&store, &swapped);
        assert_eq!(flips.len(), 1, "{name}: {flips:?}");
        assert_eq!(flips[0].judge, "j");
        assert_eq!(flips[0].protocol, kind);
        assert_eq!(flips[0].exchanges, report.rounds, "{name}");
        assert_eq!(
            flips[0].position_effect.is_some(),
            kind != ProtocolKind::QaDebate
        );
        let analysis = ethics_bowl::analysis::analyse_store(&store).unwrap();
        assert_eq!(analysis.position_flips, flips);
        let titles: Vec<String> = ethics_bowl::analysis::figures::sections(&analysis)
            .into_iter()
            .map(|s| s.title)
            .collect();
        assert!(titles.iter().any(|t| t == "Position flips"), "{titles:?}");
    }
}

#[tokio::test]
async fn a_judges_position_bias_is_mapped_back_and_recovered() {
    // Forty exchanges of one stored Ethics Bowl round, between two simulated debaters of
    // known skill, each order twenty times; the judge adds 0.5 to every criterion of the
    // team shown as Team A, so Team A's margin as played gains 7 × 0.5 = 3.5 points.
    let dir = tempfile::tempdir().unwrap();
    let template = rounds(&fixture("ethics_bowl")).remove(0);
    let source = dir.path().join("source");
    let store = Store::open_for_writing(&source).unwrap();
    for i in 0..40 {
        let (a, b) = if i % 2 == 0 {
            ("s1", "s2")
        } else {
            ("s2", "s1")
        };
        let mut round = template.clone();
        round.id = format!("{}__{a}__vs__{b}__r{i}", template.dilemma_id);
        for phase in round.phases.iter_mut() {
            if phase.model_id == template.team_a_model {
                phase.model_id = a.into();
            } else if phase.model_id == template.team_b_model {
                phase.model_id = b.into();
            }
        }
        round.team_a_model = a.into();
        round.team_b_model = b.into();
        store.save_round(&round).unwrap();
    }
    drop(store);
    let judging = judging_file(
        dir.path(),
        "position_bias = 0.5\nnoise_sd = 1.0\n",
        &[("s1", "skill = 0.6\n"), ("s2", "skill = 0.4\n")],
    );
    let played_dir = dir.path().join("played");
    let (report, skipped) = rejudge(&source, &judging, Some(&played_dir), Sides::AsPlayed).await;
    assert_eq!(report.rounds, 40, "{skipped:?}");
    let swapped_dir = dir.path().join("swapped");
    let (report, _) = rejudge(&played_dir, &judging, Some(&swapped_dir), Sides::Swapped).await;
    assert_eq!(report.rounds, 40);

    let played = rounds(&played_dir);
    let swapped = rounds(&swapped_dir);
    let margin = |r: &Round| {
        r.judgments
            .iter()
            .find(|j| j.judge_model == "j")
            .and_then(|j| j.rubric_margin())
            .unwrap()
    };
    // Mapped back, the team shown as Team B as played is the one the judge favoured when
    // swapped: Team A's mean margin falls by about 7 points.
    let mean = |rs: &[Round]| rs.iter().map(margin).sum::<f64>() / rs.len() as f64;
    let drop = mean(&played) - mean(&swapped);
    assert!((4.0..10.0).contains(&drop), "{drop}");
    // s1 is the stronger debater whichever side it played.
    let s1_ahead = swapped
        .iter()
        .filter(|r| {
            let m = margin(r);
            if r.team_a_model == "s1" {
                m > 0.0
            } else {
                m < 0.0
            }
        })
        .count();
    assert!(s1_ahead > 25, "{s1_ahead}");

    let rates: Vec<FlipRate> = flip_rates(&played, &swapped);
    assert_eq!(rates.len(), 1);
    let effect = rates[0].position_effect.unwrap();
    assert_eq!(effect.n, 40);
    let (low, high) = (effect.low.unwrap(), effect.high.unwrap());
    assert!(low <= 3.5 && 3.5 <= high, "{effect:?}");
    assert!(low > 0.0, "{effect:?}");
    assert!(rates[0].flips.hits > 0);
    assert_eq!(
        rates[0].round_ids.len(),
        40,
        "every exchange judged both ways"
    );
}

#[test]
fn the_command_swaps_into_its_own_folder_and_the_report_has_the_section() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("source");
    copy_folder(&fixture("structured_debate"), &source);
    let judging = judging_file(dir.path(), "quality = 0.6\n", &[]);
    let bin = env!("CARGO_BIN_EXE_ethics-bowl");
    let played = dir.path().join("played");
    let run = |args: &[&std::ffi::OsStr]| {
        let output = Command::new(bin).args(args).output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    run(&[
        "rejudge".as_ref(),
        source.as_os_str(),
        "--config".as_ref(),
        judging.as_os_str(),
        "--out".as_ref(),
        played.as_os_str(),
    ]);
    let stdout = run(&[
        "rejudge".as_ref(),
        played.as_os_str(),
        "--config".as_ref(),
        judging.as_os_str(),
        "--swap-sides".as_ref(),
    ]);
    assert!(stdout.contains("sides were swapped"), "{stdout}");
    let swapped = dir.path().join("played-swapped");
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(swapped.join("tournament.json")).unwrap())
            .unwrap();
    let last = record["rejudgings"].as_array().unwrap().last().unwrap();
    assert_eq!(last["swap_sides"], true);
    let stdout = run(&["report".as_ref(), swapped.as_os_str()]);
    assert!(stdout.contains("position flips: j ("), "{stdout}");
    let md = std::fs::read_to_string(swapped.join("report/report.md")).unwrap();
    assert!(md.contains("Position flips"), "{md}");
    assert!(swapped.join("report/position_flips.csv").exists());
    let json = std::fs::read_to_string(swapped.join("report/analysis.json")).unwrap();
    assert!(json.contains("\"position_flips\""));
    // The folder as played finds the swapped folder beside it: the same flips, in its
    // section and its judge's report card.
    run(&["report".as_ref(), played.as_os_str()]);
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(played.join("report/analysis.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(json["position_flips"][0]["judge"], "j", "{json}");
    let card = json["judge_cards"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["judge"] == "j")
        .unwrap();
    assert!(card["position_flips"]["n"].as_u64().unwrap() > 0, "{card}");
}
