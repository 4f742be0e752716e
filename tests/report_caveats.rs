//! Answers cut at the token limit and usage the server did not report, as `summary.json`
//! and the report say them: counted by model, the same in both, and absent from the report
//! when there are none.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use ethics_bowl::analysis::{Format, analyse, summarize, write_report};
use ethics_bowl::domain::{Phase, PhaseType, Round};

fn round(id: &str, phases: Vec<Phase>) -> Round {
    let mut r: Round = serde_json::from_value(serde_json::json!({
        "id": id, "dilemma_id": "d", "team_a_model": "a", "team_b_model": "b",
        "status": "incomplete", "timestamp": "t"
    }))
    .expect("round");
    r.phases = phases;
    r
}

fn rounds() -> Vec<Round> {
    vec![
        round(
            "r1",
            vec![
                Phase {
                    truncated: true,
                    finish_reason: Some("length".into()),
                    ..Phase::new(PhaseType::Presentation, "a", "cut")
                },
                Phase {
                    usage_estimated: true,
                    input_tokens: Some(100),
                    output_tokens: Some(40),
                    ..Phase::new(PhaseType::Response, "b", "estimated")
                },
            ],
        ),
        round(
            "r2",
            vec![
                Phase::new(PhaseType::Presentation, "a", "fine"),
                Phase {
                    usage_estimated: true,
                    truncated: true,
                    finish_reason: Some("MAX_TOKENS".into()),
                    ..Phase::new(PhaseType::Response, "b", "both")
                },
            ],
        ),
    ]
}

#[test]
fn the_summary_and_the_report_count_cut_answers_and_estimated_usage_alike() {
    let rounds = rounds();
    let summary = serde_json::to_value(summarize(&rounds)).unwrap();
    assert_eq!(summary["truncated_phases"], 2);
    assert_eq!(summary["estimated_usage_phases"], 2);
    assert_eq!(summary["usage_estimated"], true);
    assert_eq!(summary["calls_by_model"]["a"]["truncated_phases"], 1);
    assert_eq!(summary["calls_by_model"]["a"]["usage_estimated"], false);
    assert_eq!(summary["calls_by_model"]["b"]["truncated_phases"], 1);
    assert_eq!(summary["calls_by_model"]["b"]["estimated_usage_phases"], 2);

    let analysis = analyse(&rounds, &Default::default());
    let out = tempfile::tempdir().unwrap();
    let written = write_report(
        &analysis,
        out.path(),
        &[Format::Markdown, Format::Csv, Format::Json],
    )
    .unwrap();
    assert!(written.iter().any(|p| p.ends_with("calls_by_model.csv")));
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(
        md.contains("## Answers cut short and estimated usage"),
        "{md}"
    );
    assert!(
        md.contains("2 of 4 answers ended at the output-token limit"),
        "{md}"
    );
    assert!(md.contains("(models: b)"), "{md}");
    assert!(md.contains("| a | 2 | **1** | no |"), "{md}");
    assert!(
        md.contains("| b | 2 | **1** | **yes** (2 answers) |"),
        "{md}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("analysis.json")).unwrap())
            .unwrap();
    assert_eq!(json["calls_by_model"], summary["calls_by_model"]);
}

#[test]
fn a_report_with_nothing_cut_or_estimated_has_no_such_section() {
    let rounds = vec![round(
        "r1",
        vec![Phase::new(PhaseType::Presentation, "a", "fine")],
    )];
    let summary = serde_json::to_value(summarize(&rounds)).unwrap();
    assert_eq!(summary["truncated_phases"], 0);
    assert_eq!(summary["usage_estimated"], false);
    assert_eq!(summary["calls_by_model"]["a"]["calls"], 1);
    let analysis = analyse(&rounds, &Default::default());
    let out = tempfile::tempdir().unwrap();
    write_report(
        &analysis,
        out.path(),
        &[Format::Markdown, Format::Csv, Format::Json],
    )
    .unwrap();
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(!md.contains("cut short"), "{md}");
    assert!(!out.path().join("calls_by_model.csv").exists());
    let json = std::fs::read_to_string(out.path().join("analysis.json")).unwrap();
    assert!(!json.contains("calls_by_model"), "{json}");
}
