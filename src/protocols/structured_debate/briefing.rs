//! The decision briefing of a judged round: the topic, the side totals read through the
//! bands (evenly matched, ahead, clearly ahead), the judge's key insight and recommendation,
//! the open questions, the trace of every argument with the legend of its standings, and the
//! caution that the judge is a model too, as Markdown. Every text from the judge, the
//! debaters or the topic goes through [`crate::markdown_escape`]: the judge's paragraphs
//! quoted, everything else inline, so none of it makes a heading, a table cell or live HTML.

use std::fmt::Write as _;

use crate::domain::{Band, Judgment, Margin, Round, Side, Standing, StructuredVerdict};
use crate::markdown_escape::{block, inline, quoted};

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
    let _ = writeln!(
        s,
        "# Decision briefing: {}\n",
        inline(&setup.topic.proposition)
    );
    if let Some(c) = &setup.topic.context {
        let _ = writeln!(s, "{}\n", block(c).join("\n"));
    }
    let total = |v: Option<f64>| v.map_or("–".into(), |v| format!("{v:.2}"));
    let _ = writeln!(
        s,
        "Pro: {} · Con: {} · judge: {}\n",
        inline(&round.team_a_model),
        inline(&round.team_b_model),
        inline(&judgment.judge_model)
    );
    let _ = writeln!(
        s,
        "Side totals (mean weighted score of each side's arguments: evidence {}, logic {}, responsiveness {}, \
         honesty {}): Pro {}, Con {}. {}\n",
        setup.weights.evidence,
        setup.weights.logic,
        setup.weights.responsiveness,
        setup.weights.honesty,
        total(verdict.pro_total),
        total(verdict.con_total),
        reading(verdict)
    );
    let _ = writeln!(s, "## Key insight\n\n{}", quoted(&verdict.key_insight));
    let _ = writeln!(
        s,
        "## Recommendation\n\n{}",
        quoted(&verdict.recommendation)
    );
    if !verdict.unresolved_questions.is_empty() {
        let _ = writeln!(s, "## Unresolved questions\n");
        let _ = writeln!(s, "What the decision-maker must still check:\n");
        for q in &verdict.unresolved_questions {
            let _ = writeln!(s, "- {}", inline(q));
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
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                inline(&argument.id),
                inline(&argument.claim),
                score(a.and_then(|a| a.logic)),
                score(a.and_then(|a| a.evidence)),
                score(a.and_then(|a| a.responsiveness)),
                score(a.and_then(|a| a.honesty)),
                fallacies.join(", "),
                standing_label(a.and_then(|a| a.standing)),
                inline(a.map_or("", |a| a.reason.as_str()))
            );
        }
    }
    let _ = writeln!(s, "\nWhat a standing means for the decision:\n");
    for st in Standing::ALL {
        let _ = writeln!(s, "- {}: {}.", standing_label(Some(st)), st.meaning());
    }
    for side in Side::BOTH {
        let r = setup.side(side);
        if !r.violations.is_empty() {
            let _ = writeln!(
                s,
                "\n{} broke these rules: {}.",
                side.as_str().to_uppercase(),
                inline(&r.violations.join("; "))
            );
        }
    }
    let _ = writeln!(
        s,
        "\n> The judge is a language model too: its scores, standings and recommendation are aids to the \
         decision, not a verdict on it."
    );
    Some(s)
}

/// The totals read through the verdict's bands, in a sentence.
fn reading(verdict: &StructuredVerdict) -> String {
    let scale = verdict.bands.describe();
    let side = |s: Side| match s {
        Side::Pro => "Pro",
        Side::Con => "Con",
    };
    match verdict.margin() {
        None => format!("Without both totals the debate has no reading ({scale})."),
        Some(Margin {
            leader: Some(l),
            gap,
            band: Band::ClearlyAhead,
        }) => format!(
            "{} is clearly ahead by {gap:.2} points, a significant difference ({scale}).",
            side(l)
        ),
        Some(Margin {
            leader: Some(l),
            gap,
            band: Band::Ahead,
        }) => format!(
            "{} is ahead by {gap:.2} points, not a significant difference ({scale}).",
            side(l)
        ),
        Some(Margin { gap, .. }) => format!(
            "The sides are evenly matched ({gap:.2} points apart): a draw, with no winner ({scale})."
        ),
    }
}
