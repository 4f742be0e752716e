//! A protocol's judge panels: convergence, agreement before and after deliberation, and
//! the section's tables (each judge's movement, disputes by round, the protocol's own).

use super::super::doc::{Doc, Table};
use crate::analysis::panels::PanelSection;
use crate::analysis::show::{cell, opt};

/// Appends the section.
pub(super) fn section(doc: &mut Doc, s: &PanelSection) {
    let p = &s.figures;
    doc.h2(&format!("Judge panels ({})", s.protocol.as_str()));
    let needed: Vec<String> = p
        .rounds_needed
        .iter()
        .map(|(rounds, n)| format!("{n} after {rounds}"))
        .collect();
    doc.p(&format!(
        "{} panels: {} converged, {} hit the deliberation limit, {} stopped with nothing disputed, {} had too few \
         judges' evaluations, {} ran past the time limit; deliberation rounds held: {}. Krippendorff's alpha \
         over the panel judges' scores: {} before deliberation, {} after.",
        p.panels,
        p.converged,
        p.round_limit,
        p.nothing_disputed,
        p.too_few_judges,
        p.timed_out,
        needed.join(", "),
        opt(p.alpha_initial),
        opt(p.alpha_final)
    ));
    // Means over every panel round: each row links to them all.
    let mut t = Table::new(["agreement", "mean"]);
    t.row(
        vec![
            "after independent evaluation".into(),
            cell(&p.initial_agreement),
        ],
        Some(Vec::new()),
    );
    t.row(
        vec!["after the last round".into(), cell(&p.final_agreement)],
        Some(Vec::new()),
    );
    t.row(
        vec![
            "rise, panels that deliberated".into(),
            cell(&p.agreement_rise),
        ],
        Some(Vec::new()),
    );
    doc.table(&t);
    for table in s.tables() {
        doc.h3(table.file.trim_end_matches(".csv"));
        // The column that names a round, a judge's persona or a model links to its rounds.
        let key = table
            .header
            .iter()
            .position(|h| matches!(h.as_str(), "round_id" | "model" | "persona_id" | "judge"));
        let mut t = Table::new(&table.header);
        for row in &table.rows {
            // A row about no one round, model or judge is a figure over every panel
            // round: it links to them all.
            let filter = key
                .and_then(|k| {
                    let value = row.get(k)?.clone();
                    Some(match table.header[k].as_str() {
                        "round_id" => vec![("round", value)],
                        "model" => vec![("model", value)],
                        _ => vec![("q", value)],
                    })
                })
                .or(Some(Vec::new()));
            t.row(row.clone(), filter);
        }
        doc.table(&t);
    }
}
