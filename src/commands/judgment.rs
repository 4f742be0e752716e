//! `ethics-bowl judgment parse FILE [--json]`: what the parser reads from a judge's answer.
//! Exits 1 unless all fourteen scores were read, so a script can tell.

use std::collections::BTreeMap;
use std::path::Path;

use ethics_bowl::domain::{Criterion, ParseStatus, Scores};
use ethics_bowl::protocols::judging::parse_judgment;
use serde::Serialize;

/// The reading found fewer than all fourteen scores (exit code 1).
#[derive(Debug, thiserror::Error)]
#[error("not every score was read ({status}): {read} of 14 scores read")]
pub struct IncompleteReading {
    status: &'static str,
    read: usize,
}

/// `judgment parse --json`: what was read, each criterion's score by its key (null when
/// not read).
#[derive(Serialize)]
struct ParsedJson<'a> {
    /// `complete`, `partial` or `failed`.
    status: &'static str,
    team_a_scores: BTreeMap<&'static str, Option<f64>>,
    team_b_scores: BTreeMap<&'static str, Option<f64>>,
    team_a_justification: &'a str,
    team_b_justification: &'a str,
    overall_analysis: &'a str,
    problems: &'a [String],
}

/// Every criterion's score by its key.
fn by_key(s: &Scores) -> BTreeMap<&'static str, Option<f64>> {
    Criterion::ALL
        .iter()
        .map(|c| (c.key(), s.get(*c)))
        .collect()
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
        super::json::print_versioned(ParsedJson {
            status,
            team_a_scores: by_key(&p.team_a),
            team_b_scores: by_key(&p.team_b),
            team_a_justification: &p.team_a_justification,
            team_b_justification: &p.team_b_justification,
            overall_analysis: &p.overall_analysis,
            problems: &p.problems,
        })?;
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
