//! The judge panels' section of the report: convergence, rounds needed, agreement before and
//! after deliberation, and each judge's movement toward the others, in Markdown and as
//! `panel_judges.csv`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::files::{ReportError, num, write_csv};
use super::markdown::{cell, opt};
use crate::analysis::panels::PanelFigures;

/// Appends the section to a report.
pub(super) fn markdown(s: &mut String, p: &PanelFigures) {
    let _ = writeln!(s, "\n## Judge panels\n");
    let needed: Vec<String> = p
        .rounds_needed
        .iter()
        .map(|(rounds, n)| format!("{n} after {rounds}"))
        .collect();
    let _ = writeln!(
        s,
        "{} panels: {} converged, {} hit the deliberation limit; deliberation rounds held: {}.\n",
        p.panels,
        p.converged,
        p.round_limit,
        needed.join(", ")
    );
    let _ = writeln!(s, "| agreement | mean |");
    let _ = writeln!(s, "|---|---|");
    let _ = writeln!(
        s,
        "| after independent evaluation | {} |",
        cell(&p.initial_agreement)
    );
    let _ = writeln!(s, "| after the last round | {} |", cell(&p.final_agreement));
    let _ = writeln!(
        s,
        "| rise, panels that deliberated | {} |",
        cell(&p.agreement_rise)
    );
    let _ = writeln!(
        s,
        "\nKrippendorff's alpha (interval) over the panel judges' scores: {} before deliberation, {} after \
         (compare the judge-agreement alpha above, which is computed over final judgments).\n",
        opt(p.alpha_initial),
        opt(p.alpha_final)
    );
    if !p.judges.is_empty() {
        let _ = writeln!(
            s,
            "| judge | model | deliberations | toward the others (points) | moved (points) | verdict changes |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|");
        for j in &p.judges {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} |",
                j.persona_id,
                j.model,
                j.deliberations,
                cell(&j.toward_others),
                cell(&j.moved),
                j.verdict_changes
            );
        }
    }
}

/// `panel_judges.csv`: one row per panel judge.
pub(super) fn judges_csv(p: &PanelFigures, out: &Path) -> Result<PathBuf, ReportError> {
    let rows = p
        .judges
        .iter()
        .map(|j| {
            vec![
                j.persona_id.clone(),
                j.model.clone(),
                j.deliberations.to_string(),
                num(j.toward_others.mean),
                num(j.moved.mean),
                j.verdict_changes.to_string(),
            ]
        })
        .collect();
    write_csv(
        out.join("panel_judges.csv"),
        &[
            "persona_id",
            "model",
            "deliberations",
            "toward_others",
            "moved",
            "verdict_changes",
        ],
        rows,
    )
}
