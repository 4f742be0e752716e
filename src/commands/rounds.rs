//! `ethics-bowl rounds DIR [filters] [--json]`: the stored rounds that match.

use std::path::Path;

use ethics_bowl::domain::RoundStatus;
use ethics_bowl::store::{Role, RoundFilter, Store};

use crate::cli::{RoleArg, StatusArg};

/// The filter as given on the command line.
pub struct Args<'a> {
    pub model: Option<&'a str>,
    pub role: Option<RoleArg>,
    pub dilemma: Option<&'a str>,
    pub judge: Option<&'a str>,
    pub status: Option<StatusArg>,
    pub json: bool,
}

/// Lists the matching rounds.
pub fn run(dir: &Path, args: Args<'_>) -> anyhow::Result<()> {
    let store = Store::open(dir).map_err(|e| super::UsageError(e.to_string()))?;
    let filter = RoundFilter {
        model: args.model.map(str::to_string),
        role: args.role.map(|r| match r {
            RoleArg::Presenting => Role::Presenting,
            RoleArg::Responding => Role::Responding,
        }),
        dilemma: args.dilemma.map(str::to_string),
        judge: args.judge.map(str::to_string),
        status: args.status.map(|s| match s {
            StatusArg::Complete => RoundStatus::Complete,
            StatusArg::Incomplete => RoundStatus::Incomplete,
            StatusArg::NeedsReview => RoundStatus::NeedsReview,
        }),
    };
    let (rounds, errors) = store
        .load_rounds(&filter)
        .map_err(|e| super::UsageError(e.to_string()))?;
    for e in &errors {
        eprintln!("warning: {e}");
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rounds)?);
        return Ok(());
    }
    let qa = rounds.iter().any(|r| r.qa.is_some());
    let structured = rounds.iter().any(|r| r.structured.is_some());
    let (a, b) = if qa {
        ("chose", "judge")
    } else if structured {
        ("Pro", "Con")
    } else {
        ("A", "B")
    };
    println!("{:<56} {:<13} {:>6} {:>6}  judges", "round", "status", a, b);
    for r in &rounds {
        if let Some(setup) = &r.qa {
            // A question-answer round: the side chosen, and whether it was the correct one.
            let choice = r
                .judgments
                .iter()
                .find_map(|j| j.choice.filter(|_| j.is_usable()));
            let verdict = match (choice, setup.assignment.correct_side) {
                (Some(c), Some(correct)) if c.side == correct => "right",
                (Some(_), Some(_)) => "wrong",
                (Some(_), None) => "n/a",
                (None, _) => "-",
            };
            println!(
                "{:<56} {:<13} {:>6} {:>6}  {}",
                r.id,
                r.status.as_str(),
                choice.map_or("-".to_string(), |c| format!("{:?}", c.side)),
                verdict,
                r.judge_models.join(", ")
            );
            continue;
        }
        if r.structured.is_some() {
            // A structured debate: Pro's and Con's totals (each 1–10).
            let v = r.judgments.iter().find_map(|j| j.structured.as_deref());
            let show = |t: Option<f64>| t.map_or("-".to_string(), |t| format!("{t:.2}"));
            println!(
                "{:<56} {:<13} {:>6} {:>6}  {}",
                r.id,
                r.status.as_str(),
                show(v.and_then(|v| v.pro_total)),
                show(v.and_then(|v| v.con_total)),
                r.judge_models.join(", ")
            );
            continue;
        }
        let total = |f: fn(&ethics_bowl::domain::Judgment) -> Option<f64>| {
            r.scores
                .as_ref()
                .and_then(f)
                .map_or("-".to_string(), |t| format!("{t:.1}"))
        };
        println!(
            "{:<56} {:<13} {:>6} {:>6}  {}",
            r.id,
            r.status.as_str(),
            total(|j| j.team_a_scores.total()),
            total(|j| j.team_b_scores.total()),
            r.judge_models.join(", ")
        );
    }
    println!(
        "{} round{}",
        rounds.len(),
        if rounds.len() == 1 { "" } else { "s" }
    );
    Ok(())
}
