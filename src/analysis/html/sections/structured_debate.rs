//! The structured debate's tables: side advantage, each model's results, standings and
//! concessions, and the fallacies found in its arguments.

use super::super::doc::{Doc, Table};
use super::model;
use crate::analysis::show::share;
use crate::analysis::structured::{Mean, StructuredFigures};
use crate::domain::{Fallacy, Standing};

fn mean(m: &Mean) -> String {
    m.mean.map_or("–".into(), |v| format!("{v:.2} (n={})", m.n))
}

fn pct(part: usize, whole: usize) -> String {
    if whole == 0 {
        "–".into()
    } else {
        format!("{:.0}%", part as f64 * 100.0 / whole as f64)
    }
}

/// Appends the section.
pub(super) fn section(doc: &mut Doc, f: &StructuredFigures) {
    doc.h2("Structured debate");
    doc.p(&format!(
        "{} rounds; {} judgments await review and are not counted; {} replies needed the correction prompt, {} \
         were kept as free text; {} rule violations were recorded. A side's total is the mean weighted score of \
         its arguments; evenly matched is a draw, and a draw is not a win.",
        f.rounds, f.awaiting_review, f.corrected_replies, f.fallback_replies, f.violations
    ));
    let a = &f.side;
    doc.p(&format!(
        "Side advantage: over {} judgments Pro won {} ({} clearly), Con {} ({} clearly), {} evenly matched; \
         Pro's share of the decided ones {}; mean Pro total minus mean Con total {}.",
        a.judgments,
        a.pro_wins,
        a.pro_clear_wins,
        a.con_wins,
        a.con_clear_wins,
        a.ties,
        share(&a.pro_share),
        a.mean_margin.map_or("–".into(), |m| format!("{m:+.2}"))
    ));
    let mut t = Table::new([
        "model",
        "judgments",
        "wins (clearly)",
        "draws",
        "win rate",
        "total as Pro",
        "total as Con",
        "arguments",
        "upheld",
        "partly upheld",
        "refuted",
        "uncertain",
        "concedes in cross-examination",
    ]);
    for m in &f.models {
        let standing = |st: Standing| {
            pct(
                m.standings.get(&st).copied().unwrap_or(0),
                m.assessed_arguments,
            )
        };
        t.row(
            vec![
                m.model.clone(),
                m.judgments.to_string(),
                format!("{} ({})", m.wins, m.clear_wins),
                m.draws.to_string(),
                m.win_rate
                    .map_or("–".into(), |w| format!("{:.0}%", w * 100.0)),
                mean(&m.pro_total),
                mean(&m.con_total),
                m.assessed_arguments.to_string(),
                standing(Standing::Upheld),
                standing(Standing::PartiallyUpheld),
                standing(Standing::Refuted),
                standing(Standing::Uncertain),
                share(&m.concessions),
            ],
            model(&m.model),
        );
    }
    doc.table(&t);
    doc.h3("Fallacies found in each model's arguments");
    let mut head = vec!["model"];
    head.extend(Fallacy::ALL.iter().map(|x| x.as_str()));
    let mut t = Table::new(head);
    for m in &f.models {
        let mut cells = vec![m.model.clone()];
        cells.extend(
            Fallacy::ALL
                .iter()
                .map(|x| m.fallacies.get(x).copied().unwrap_or(0).to_string()),
        );
        t.row(cells, model(&m.model));
    }
    doc.table(&t);
    doc.p(
        "Each judged round's argument trace (standings, scores, fallacies) is in its round below.",
    );
}
