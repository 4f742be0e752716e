//! `ethics-bowl rounds DIR [filters] [--json]`: the stored rounds that match.

use std::path::Path;

use ethics_bowl::analysis::round_markdown::round_markdown;
use ethics_bowl::domain::{ProtocolKind, Round, RoundRecord, RoundStatus, Scores, Team};
use ethics_bowl::sanitize::sanitize;
use ethics_bowl::store::{FilterValues, Role, RoundFilter, Store};

use crate::cli::{RoleArg, StatusArg};

/// The filter as given on the command line.
pub struct Args<'a> {
    pub model: Option<&'a str>,
    pub role: Option<RoleArg>,
    pub dilemma: Option<&'a str>,
    pub judge: Option<&'a str>,
    pub status: Option<StatusArg>,
    pub json: bool,
    /// One round by its id.
    pub round: Option<&'a str>,
    /// Each round as Markdown.
    pub markdown: bool,
}

/// Lists the matching rounds.
pub fn run(dir: &Path, args: Args<'_>) -> anyhow::Result<()> {
    let store = Store::open(dir).map_err(|e| super::UsageError(e.to_string()))?;
    super::remember_keys(&store);
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
    if let Some(id) = args.round {
        return one_round(&store, dir, id, args.json);
    }
    let (rounds, errors) = store
        .load_rounds(&filter)
        .map_err(|e| super::UsageError(e.to_string()))?;
    for e in &errors {
        eprintln!("warning: {e}");
    }
    super::mention_set_aside(&store);
    if rounds.is_empty() && filter != RoundFilter::default() {
        let (all, _) = store
            .load_rounds(&RoundFilter::default())
            .map_err(|e| super::UsageError(e.to_string()))?;
        let values = FilterValues::of(&all);
        let unknown = values.unknown(&filter);
        if !unknown.is_empty() {
            let named: Vec<String> = unknown
                .iter()
                .map(|(flag, value)| format!("{flag} {value}"))
                .collect();
            return Err(super::UsageError(format!(
                "no round in {} has {}; the folder holds\n{}",
                dir.display(),
                named.join(" or "),
                values.describe()
            ))
            .into());
        }
        eprintln!(
            "no round matches these filters together ({} rounds in the folder); it holds\n{}",
            all.len(),
            values.describe()
        );
    }
    if args.json {
        // The round files as stored, each with its `schema_version`.
        return super::json::print(&rounds);
    }
    if args.markdown {
        for r in &rounds {
            println!("{}", round_markdown(r));
        }
        return Ok(());
    }
    // The columns are the tournament's protocol's; a folder without a tournament record is
    // the Python predecessor's, which played the Ethics Bowl.
    let kind = store
        .load_tournament()
        .ok()
        .flatten()
        .map_or(ProtocolKind::EthicsBowl, |t| t.protocol);
    let (a, b) = match kind {
        ProtocolKind::EthicsBowl => ("A", "B"),
        ProtocolKind::QaDebate => ("chose", "judge"),
        ProtocolKind::StructuredDebate => ("Pro", "Con"),
    };
    println!("{:<56} {:<13} {:>6} {:>6}  judges", "round", "status", a, b);
    for r in &rounds {
        let (a, b) = columns(r);
        println!(
            "{:<56} {:<13} {:>6} {:>6}  {}",
            r.id,
            r.status.as_str(),
            a,
            b,
            r.judge_models.join(", ")
        );
        if let (RoundStatus::Incomplete, Some(e)) = (r.status, &r.error) {
            println!(
                "    stopped: model {}, phase {}: {}",
                sanitize(&e.model_id),
                e.phase_type.as_str(),
                sanitize(&e.message)
            );
        }
    }
    println!(
        "{} round{}",
        rounds.len(),
        if rounds.len() == 1 { "" } else { "s" }
    );
    Ok(())
}

/// Prints one round (Markdown unless `json`); an unknown id is a usage error naming the
/// closest ids the folder holds.
fn one_round(store: &Store, dir: &Path, id: &str, json: bool) -> anyhow::Result<()> {
    // A round file is named by its id (one file to read), except in the predecessor's
    // folders, which are searched.
    let named = match store.load_round(id) {
        Ok(round) => round,
        Err(ethics_bowl::store::StoreError::BadId(_)) => None,
        Err(e) => return Err(super::UsageError(e.to_string()).into()),
    };
    let (all, _) = match named {
        Some(_) => (Vec::new(), Vec::new()),
        None => store
            .load_rounds(&RoundFilter::default())
            .map_err(|e| super::UsageError(e.to_string()))?,
    };
    let round = named.or_else(|| all.iter().find(|r| r.id == id).cloned());
    let Some(round) = round else {
        let mut near: Vec<(f64, &str)> = all
            .iter()
            .map(|r| (strsim::jaro_winkler(id, &r.id), r.id.as_str()))
            .collect();
        near.sort_by(|a, b| b.0.total_cmp(&a.0));
        let names: Vec<&str> = near.iter().take(3).map(|(_, id)| *id).collect();
        return Err(super::UsageError(format!(
            "no round \"{}\" in {}; the closest: {} (`ethics-bowl rounds {}` lists them all)",
            sanitize(id),
            dir.display(),
            names.join(", "),
            dir.display()
        ))
        .into());
    };
    if json {
        super::json::print(&round)?;
    } else {
        print!("{}", round_markdown(&round));
    }
    Ok(())
}

/// A round's two result columns: Team A's and Team B's totals (Ethics Bowl), Pro's and
/// Con's (structured debate), or the side chosen and whether it was right (question-answer).
fn columns(r: &Round) -> (String, String) {
    let show =
        |t: Option<f64>, digits: usize| t.map_or("-".to_string(), |t| format!("{t:.digits$}"));
    match &r.record {
        RoundRecord::EthicsBowl => {
            let total = |team| {
                r.scores
                    .as_ref()
                    .and_then(|j| j.scores(team))
                    .and_then(Scores::total)
            };
            (show(total(Team::A), 1), show(total(Team::B), 1))
        }
        RoundRecord::StructuredDebate(_) => {
            let v = r.judgments.iter().find_map(|j| j.verdict());
            (
                show(v.and_then(|v| v.pro_total), 2),
                show(v.and_then(|v| v.con_total), 2),
            )
        }
        RoundRecord::QaDebate(setup) => {
            let choice = r
                .judgments
                .iter()
                .find_map(|j| j.choice().copied().filter(|_| j.is_usable()));
            let verdict = match (choice, setup.assignment.correct_side) {
                (Some(c), Some(correct)) if c.side == correct => "right",
                (Some(_), Some(_)) => "wrong",
                (Some(_), None) => "n/a",
                (None, _) => "-",
            };
            (
                choice.map_or("-".to_string(), |c| format!("{:?}", c.side)),
                verdict.to_string(),
            )
        }
    }
}
