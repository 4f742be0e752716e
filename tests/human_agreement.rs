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

use ethics_bowl::annotations::{
    Annotation, ArgumentStanding, HumanJudgment, Via, Winner, save_all,
};
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
    // Two people who score exactly as the fair judge does, one of them blind; she judged at
    // the terminal (four minutes a round of 1,000 words, the first in twenty seconds), he
    // in a spreadsheet.
    let mut people = Vec::new();
    for (i, r) in rounds.iter().enumerate() {
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
                via: if blind { Via::Tui } else { Via::Csv },
                round_id: r.id.clone(),
                judgment: HumanJudgment::EthicsBowl {
                    team_a: *fair.scores(Team::A).unwrap(),
                    team_b: *fair.scores(Team::B).unwrap(),
                    justifications: Vec::new(),
                },
                seconds_on_round: blind.then_some(if i == 0 { 20.0 } else { 240.0 }),
                words_shown: blind.then_some(1000),
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
    // Time on task: hers with n and the fast round flagged (and still counted above: every
    // agreement figure's n is every round), his not recorded.
    let n = rounds.len();
    assert!(md.contains("### Time on task"), "{md}");
    assert!(
        md.contains(&format!(
            "ann: saved faster than 1,000 words a minute: {}.",
            rounds[0].id
        )),
        "{md}"
    );
    let pace = json["human"]["pace"].as_array().unwrap();
    assert_eq!(pace[0]["annotator"], "ann");
    assert_eq!(pace[0]["timed"], n);
    assert_eq!(pace[0]["minutes"]["value"], 4.0);
    assert_eq!(pace[0]["minutes"]["n"], n);
    assert!(pace[0]["minutes"]["low"].is_number(), "{}", pace[0]);
    assert_eq!(pace[0]["words_a_minute"]["value"], 250.0);
    assert_eq!(pace[0]["too_fast"], serde_json::json!([rounds[0].id]));
    assert_eq!(
        (pace[1]["annotator"].as_str(), pace[1]["timed"].as_u64()),
        (Some("bea"), Some(0))
    );
    assert!(pace[1]["minutes"]["value"].is_null(), "{}", pace[1]);
    let csv = std::fs::read_to_string(out.join("human_pace.csv")).unwrap();
    assert!(
        csv.starts_with("annotator,judgments,at_terminal,timed_rounds,"),
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

/// A structured debate with known truth: three debaters of different skill, a fair judge
/// and one leaning two points to Pro; one person who reads every debate as the fair judge
/// did, winner and every argument's standing. The report compares standings argument by
/// argument (n counting arguments, 24 debates resampled), and gives each model's win rate
/// in people's terms: with every round judged by people, exactly the fair judge's.
#[tokio::test]
async fn structured_standings_and_win_rates_in_peoples_terms() {
    let tmp = tempfile::tempdir().unwrap();
    let truth = |name: &str, keys: &str| format!("{}{keys}\n", sim(name, 0.5, 0.0, 0.0));
    let models = [
        truth("low", "skill = 0.2"),
        truth("mid", "skill = 0.5"),
        truth("high", "skill = 0.8"),
        truth("fair", "noise_sd = 0.0"),
        truth("proside", "position_bias = 2.0"),
    ]
    .concat();
    let body = format!(
        "protocol = \"structured_debate\"\nmodels = [\"low\", \"mid\", \"high\"]\n\
         judges = [\"fair\", \"proside\"]\njudging = \"all\"\npairings = \"all\"\n\
         [structured]\ntopics_file = \"{}\"\ntopics = \"all\"\n",
        support::tournament::manifest("sample-config/topics.toml").display()
    );
    let config = support::tournament::write_tournament(tmp.path(), &models, &body);
    let (run, _) = run_collecting(&config, None).await;
    let dir = run.dir.clone();
    let (rounds, _) = Store::open(&dir)
        .unwrap()
        .load_rounds(&RoundFilter::default())
        .unwrap();
    assert_eq!(rounds.len(), 24, "six ordered pairs × four topics");
    let mut people = Vec::new();
    let mut arguments = 0;
    // Each model's win points by the fair judge.
    let mut fair_points: std::collections::BTreeMap<String, (f64, f64)> = Default::default();
    for r in &rounds {
        let fair = r
            .judgments
            .iter()
            .find(|j| j.judge_model == "fair")
            .and_then(|j| j.verdict())
            .unwrap();
        let winner = match fair.winner() {
            Some(ethics_bowl::domain::Side::Pro) => Winner::Pro,
            Some(ethics_bowl::domain::Side::Con) => Winner::Con,
            None => Winner::Tie,
        };
        for (model, side) in [
            (&r.team_a_model, Winner::Pro),
            (&r.team_b_model, Winner::Con),
        ] {
            let p = fair_points.entry(model.clone()).or_default();
            p.0 += match winner {
                Winner::Tie => 0.5,
                w if w == side => 1.0,
                _ => 0.0,
            };
            p.1 += 1.0;
        }
        let standings: Vec<ArgumentStanding> = fair
            .assessments
            .iter()
            .filter_map(|a| {
                Some(ArgumentStanding {
                    arg_id: a.arg_id.clone(),
                    standing: a.standing?,
                    reason: None,
                })
            })
            .collect();
        arguments += standings.len();
        people.push(Annotation {
            schema_version: ethics_bowl::annotations::ANNOTATION_SCHEMA_VERSION,
            annotator: "ann".into(),
            written_at: "2026-11-28T00:00:00Z".into(),
            first_written_at: None,
            blind: true,
            via: Via::Tui,
            round_id: r.id.clone(),
            judgment: HumanJudgment::StructuredDebate {
                winner,
                standings,
                justification: None,
            },
            seconds_on_round: None,
            words_shown: None,
        });
    }
    assert!(arguments >= 24 * 4, "{arguments} arguments");
    save_all(&dir, &people, false).unwrap();

    let out = tmp.path().join("report");
    let done = report(&dir, &out);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("analysis.json")).unwrap()).unwrap();
    let rows = json["human_agreement"].as_array().unwrap();
    let fair = rows.iter().find(|r| r["judge"] == "fair").unwrap();
    assert_eq!(fair["verdict_agreement"]["estimate"], 1.0);
    let standings = &fair["standings"];
    assert_eq!(standings["same"]["estimate"], 1.0, "{standings}");
    assert_eq!(standings["same"]["n"], arguments, "n counts arguments");
    assert_eq!(standings["rounds"], 24, "clustered by debate");
    assert!(standings["same"]["low"].is_number(), "{standings}");
    let proside = rows.iter().find(|r| r["judge"] == "proside").unwrap();
    assert!(
        proside["verdict_agreement"]["estimate"].as_f64().unwrap() < 1.0,
        "the Pro-leaning judge differs: {proside}"
    );
    let rates = json["human"]["calibrated_rates"].as_array().unwrap();
    assert_eq!(rates.len(), 3, "{rates:?}");
    for rate in rates {
        let model = rate["subject"].as_str().unwrap();
        let (points, n) = fair_points[model];
        let people = &rate["people"];
        assert!(
            (people["estimate"].as_f64().unwrap() - points / n).abs() < 1e-9,
            "{model}: {rate}"
        );
        assert_eq!(people["labelled"], 16, "n counts rounds: {rate}");
        assert!(people["low"].as_f64().unwrap() <= people["estimate"].as_f64().unwrap());
        assert_eq!(rate["units"], "rounds");
    }
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("| judge | against | same standing |"), "{md}");
    assert!(md.contains("Rates in people's terms"), "{md}");
    assert!(out.join("human_standings.csv").exists());
    assert!(out.join("human_calibrated_rates.csv").exists());
}
