//! The decision briefing of a judged round: the topic, the judge's key insight and
//! recommendation, the open questions, and the trace of every argument, as Markdown.

use std::fmt::Write as _;

use crate::domain::{Judgment, Round, Side, Standing};

fn score(v: Option<f64>) -> String {
    v.map_or("–".into(), |v| format!("{v}"))
}

/// A trace table cell for a standing, readable without colour.
pub fn standing_label(s: Option<Standing>) -> &'static str {
    match s {
        Some(Standing::Upheld) => "UPHELD",
        Some(Standing::PartiallyUpheld) => "PARTIALLY UPHELD",
        Some(Standing::Refuted) => "REFUTED",
        Some(Standing::Uncertain) => "UNCERTAIN",
        None => "–",
    }
}

/// The judgment a round's briefing is written from: the panel's trace when a panel judged,
/// else the first usable judgment.
pub fn briefing_judgment(round: &Round) -> Option<&Judgment> {
    match &round.panel {
        Some(_) => round.scores.as_ref(),
        None => round.judgments.iter().find(|j| j.is_usable()),
    }
}

/// The briefing from one judge's verdict, when the round and the judgment have what it needs.
pub fn briefing(round: &Round, judgment: &Judgment) -> Option<String> {
    let setup = round.structured()?;
    let verdict = judgment.verdict()?;
    let mut s = String::new();
    let _ = writeln!(s, "# Decision briefing: {}\n", setup.topic.proposition);
    if let Some(c) = &setup.topic.context {
        let _ = writeln!(s, "{}\n", c.trim());
    }
    let total = |v: Option<f64>| v.map_or("–".into(), |v| format!("{v:.2}"));
    let _ = writeln!(
        s,
        "Pro: {} · Con: {} · judge: {}\n",
        round.team_a_model, round.team_b_model, judgment.judge_model
    );
    let winner = match verdict.winner() {
        Some(Side::Pro) => "Pro",
        Some(Side::Con) => "Con",
        None => "neither (a tie)",
    };
    let _ = writeln!(
        s,
        "Side totals (mean weighted score of each side's arguments: evidence {}, logic {}, responsiveness {}, \
         honesty {}): Pro {}, Con {}; stronger case: {winner}.\n",
        setup.weights.evidence,
        setup.weights.logic,
        setup.weights.responsiveness,
        setup.weights.honesty,
        total(verdict.pro_total),
        total(verdict.con_total)
    );
    let _ = writeln!(s, "## Key insight\n\n{}\n", verdict.key_insight);
    let _ = writeln!(s, "## Recommendation\n\n{}\n", verdict.recommendation);
    if !verdict.unresolved_questions.is_empty() {
        let _ = writeln!(s, "## Unresolved questions\n");
        for q in &verdict.unresolved_questions {
            let _ = writeln!(s, "- {q}");
        }
        let _ = writeln!(s);
    }
    let _ = writeln!(s, "## Argument trace\n");
    let _ = writeln!(
        s,
        "| argument | claim | logic | evidence | responsiveness | honesty | fallacies | standing | reason |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|");
    for side in Side::BOTH {
        for argument in &setup.side(side).arguments {
            let a = verdict.assessments.iter().find(|a| a.arg_id == argument.id);
            let fallacies: Vec<&str> = a
                .map(|a| a.fallacies.iter().map(|f| f.as_str()).collect())
                .unwrap_or_default();
            let cell = |t: &str| t.replace('|', "\\|").replace('\n', " ");
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                argument.id,
                cell(&argument.claim),
                score(a.and_then(|a| a.logic)),
                score(a.and_then(|a| a.evidence)),
                score(a.and_then(|a| a.responsiveness)),
                score(a.and_then(|a| a.honesty)),
                fallacies.join(", "),
                standing_label(a.and_then(|a| a.standing)),
                cell(a.map_or("", |a| a.reason.as_str()))
            );
        }
    }
    for side in Side::BOTH {
        let r = setup.side(side);
        if !r.violations.is_empty() {
            let _ = writeln!(
                s,
                "\n{} broke these rules: {}.",
                side.as_str().to_uppercase(),
                r.violations.join("; ")
            );
        }
    }
    Some(s)
}
