//! `ethics-bowl judgment parse FILE [--json]`: what the parser reads from a judge's answer.
//! Exits 1 unless all fourteen scores were read, so a script can tell.

use std::path::Path;

use ethics_bowl::domain::{Criterion, ParseStatus, Scores};
use ethics_bowl::protocols::judging::parse_judgment;
use serde_json::{Map, Value, json};

/// The reading found fewer than all fourteen scores (exit code 1).
#[derive(Debug, thiserror::Error)]
#[error("not every score was read ({status}): {read} of 14 scores read")]
pub struct IncompleteReading {
    status: &'static str,
    read: usize,
}

/// Parses the file (or stdin for `-`), prints the result, and fails unless every score was
/// read.
pub fn parse(file: &Path, as_json: bool) -> anyhow::Result<()> {
    let text = super::read_input(file)?;
    let p = parse_judgment(&text);
    let status = match p.status() {
        ParseStatus::Parsed => "complete",
        ParseStatus::Partial => "partial",
        _ => "failed",
    };
    if as_json {
        let scores = |s: &Scores| -> Value {
            let m: Map<String, Value> = Criterion::ALL
                .iter()
                .map(|c| (c.key().to_string(), json!(s.get(*c))))
                .collect();
            Value::Object(m)
        };
        let out = json!({
            "status": status,
            "team_a_scores": scores(&p.team_a),
            "team_b_scores": scores(&p.team_b),
            "team_a_justification": p.team_a_justification,
            "team_b_justification": p.team_b_justification,
            "overall_analysis": p.overall_analysis,
            "problems": p.problems,
        });
        println!("{}", ethics_bowl::safe_json::to_string_pretty(&out)?);
        return verdict(status, &p.team_a, &p.team_b);
    }
    println!("status: {status}");
    println!("{:<26} {:>7} {:>7}", "criterion", "Team A", "Team B");
    let cell = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v}"));
    for c in Criterion::ALL {
        println!(
            "{:<26} {:>7} {:>7}",
            c.key(),
            cell(p.team_a.get(c)),
            cell(p.team_b.get(c))
        );
    }
    println!(
        "{:<26} {:>7} {:>7}",
        "total",
        cell(p.team_a.total()),
        cell(p.team_b.total())
    );
    for problem in &p.problems {
        println!("problem: {problem}");
    }
    verdict(status, &p.team_a, &p.team_b)
}

/// Success when all fourteen scores were read.
fn verdict(status: &'static str, team_a: &Scores, team_b: &Scores) -> anyhow::Result<()> {
    let read = Criterion::ALL
        .iter()
        .flat_map(|c| [team_a.get(*c), team_b.get(*c)])
        .filter(Option::is_some)
        .count();
    if read == 2 * Criterion::ALL.len() && status == "complete" {
        Ok(())
    } else {
        Err(IncompleteReading { status, read }.into())
    }
}
