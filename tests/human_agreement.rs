//! Judges measured against people, end to end: a simulated tournament with known truth
//! (debaters' `skill`, a fair judge and one a point a criterion too lenient), people's
//! judgments stored as annotations, and `ethics-bowl report`: the section, the CSV and
//! `analysis.json`'s `human_agreement` say the fair judge agrees with people and the lenient
//! one sits seven points a team above them, with intervals; the model means in people's
//! terms recover the truth; a damaged annotation stops the report, naming the file.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::path::Path;
use std::process::Command;

use ethics_bowl::annotations::{Annotation, HumanJudgment, Via, save_all};
use ethics_bowl::domain::Team;
use ethics_bowl::store::{RoundFilter, Store};
use support::tournament::{run_collecting, sim, write};

fn report(dir: &Path, out: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ethics-bowl"))
        .arg("report")
        .arg(dir)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

#[tokio::test]
async fn judges_are_measured_against_people() {
    let tmp = tempfile::tempdir().unwrap();
    let truth = |name: &str, keys: &str| format!("{}{keys}\n", sim(name, 0.5, 0.0, 0.0));
    let models = [
        truth("low", &format!("skill = {}", 3.0 / 9.0)),
        truth("high", &format!("skill = {}", 6.0 / 9.0)),
        truth("fair", "noise_sd = 0.0"),
        truth("lenient", "leniency = 1.0"),
    ]
    .concat();
    let tournament =
        "models = [\"low\", \"high\"]\njudges = [\"fair\", \"lenient\"]\njudging = \"all\"\n";
    let (run, _) = run_collecting(&write(tmp.path(), &models, tournament), None).await;
    let dir = run.dir.clone();
    let (rounds, _) = Store::open(&dir)
        .unwrap()
        .load_rounds(&RoundFilter::default())
        .unwrap();
    assert!(rounds.len() >= 10, "{} rounds", rounds.len());
    // Two people who score exactly as the fair judge does, one of them blind.
    let mut people = Vec::new();
    for r in &rounds {
        let fair = r
            .judgments
            .iter()
            .find(|j| j.judge_model == "fair")
            .unwrap();
        for (annotator, blind) in [("ann", true), ("bea", false)] {
            people.push(Annotation {
                schema_version: ethics_bowl::annotations::ANNOTATION_SCHEMA_VERSION,
                annotator: annotator.into(),
                written_at: "2026-11-28T00:00:00Z".into(),
                first_written_at: None,
                blind,
                via: Via::Csv,
                round_id: r.id.clone(),
                judgment: HumanJudgment::EthicsBowl {
                    team_a: *fair.scores(Team::A).unwrap(),
                    team_b: *fair.scores(Team::B).unwrap(),
                    justifications: Vec::new(),
                },
            });
        }
    }
    save_all(&dir, &people, false).unwrap();

    let out = tmp.path().join("report");
    let done = report(&dir, &out);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("## Judges against people"), "{md}");
    assert!(md.contains("2 people (ann, bea) judged"), "{md}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("analysis.json")).unwrap()).unwrap();
    let rows = json["human_agreement"].as_array().unwrap();
    assert_eq!(rows.len(), 6, "two judges × (two people + consensus)");
    let row = |judge: &str, annotator: &str| {
        rows.iter()
            .find(|r| r["judge"] == judge && r["annotator"] == annotator)
            .unwrap()
    };
    for key in [
        "alpha",
        "kappa",
        "spearman",
        "mean_difference",
        "verdict_agreement",
    ] {
        let f = &row("lenient", "consensus")[key];
        for field in ["estimate", "low", "high", "n"] {
            assert!(f.get(field).is_some(), "{key}.{field} in {f}");
        }
        assert_eq!(f["n"], rounds.len(), "{key}: n counts exchanges");
    }
    let fair = row("fair", "ann");
    assert_eq!(fair["alpha"]["estimate"], 1.0);
    assert_eq!(fair["mean_difference"]["estimate"], 0.0);
    let lenient = &row("lenient", "consensus")["mean_difference"];
    let (low, high) = (
        lenient["low"].as_f64().unwrap(),
        lenient["high"].as_f64().unwrap(),
    );
    assert!(
        low <= 7.0 && 7.0 <= high + 1e-9,
        "seven points a team: {lenient}"
    );
    assert!(lenient["estimate"].as_f64().unwrap() > 5.0, "{lenient}");
    assert_eq!(json["human"]["blind"], rounds.len());
    // In people's terms each model's mean is the fair judge's: the lenient judge's seven
    // points are taken out.
    for c in json["human"]["calibrated"].as_array().unwrap() {
        let (judges, people) = (
            c["judges"]["mean"].as_f64().unwrap(),
            c["people"]["estimate"].as_f64().unwrap(),
        );
        assert!((judges - people - 3.5).abs() < 0.5, "{c}");
    }
    let csv = std::fs::read_to_string(out.join("human_agreement.csv")).unwrap();
    assert!(
        csv.starts_with("judge,annotator,statistic,estimate,low,high,exchanges\n"),
        "{csv}"
    );

    // A damaged annotation stops the report and names its file.
    let damaged = dir
        .join("annotations/ann")
        .join(format!("{}.json", rounds[0].id));
    std::fs::write(&damaged, "{ not json").unwrap();
    let refused = report(&dir, &tmp.path().join("again"));
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains(&rounds[0].id), "{err}");
}
