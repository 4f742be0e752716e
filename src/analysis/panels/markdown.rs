//! A protocol's panel section as the report writes it: Markdown (the shared figures, then
//! the protocol's own) and tidy CSV tables.

use std::fmt::Write as _;

use serde::Serialize;

use crate::analysis::qa::Proportion;
use crate::analysis::show::{cell, num, opt, share as qa_share};
use crate::domain::{DisagreementKind, PanelSummary, ProtocolKind};

use super::qa::QaPanelAccuracy;
use super::structured::StandingFigures;
use super::{PanelExchange, PanelFigures, PanelSection, ProtocolPanelFigures};

/// A CSV table: its file name in the report folder, header and rows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Table {
    /// `panel_judges.csv`, `qa_panel_accuracy.csv`, …
    pub file: String,
    /// Column names.
    pub header: Vec<String>,
    /// Rows, as text.
    pub rows: Vec<Vec<String>>,
}

fn file_prefix(protocol: ProtocolKind) -> &'static str {
    match protocol {
        ProtocolKind::EthicsBowl => "",
        ProtocolKind::QaDebate => "qa_",
        ProtocolKind::StructuredDebate => "structured_",
    }
}

/// The figures every panel has.
fn shared_markdown(s: &mut String, p: &PanelFigures) {
    let _ = writeln!(s, "\n## Judge panels\n");
    let needed: Vec<String> = p
        .rounds_needed
        .iter()
        .map(|(rounds, n)| format!("{n} after {rounds}"))
        .collect();
    // Stop reasons beyond the first two are named only when they occurred.
    let others: String = [
        (
            p.nothing_disputed,
            "stopped below the threshold with nothing disputed",
        ),
        (
            p.too_few_judges,
            "had too few judges' evaluations to deliberate",
        ),
        (p.timed_out, "ran past the deliberation time limit"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!(", {n} {what}"))
    .collect();
    let _ = writeln!(
        s,
        "{} panels: {} converged, {} hit the deliberation limit{others}; deliberation rounds held: {}.\n",
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

/// The disagreements after each panel round: `0: 3 (verdict 1, dimension 2) → 1: 0`.
fn disputes_by_round(summary: &PanelSummary) -> String {
    summary
        .rounds
        .iter()
        .map(|r| {
            let types: Vec<String> = r
                .types
                .iter()
                .map(|(kind, n)| format!("{} {n}", kind_name(*kind)))
                .collect();
            if types.is_empty() {
                format!("{}: {}", r.number, r.disagreements)
            } else {
                format!("{}: {} ({})", r.number, r.disagreements, types.join(", "))
            }
        })
        .collect::<Vec<_>>()
        .join(" → ")
}

fn kind_name(kind: DisagreementKind) -> &'static str {
    match kind {
        DisagreementKind::Verdict => "verdict",
        DisagreementKind::Dimension => "dimension",
        DisagreementKind::Label => "label",
    }
}

/// Each judge's final verdict with its confidence: `x team_a (0.80); y team_b`.
fn final_verdicts(summary: &PanelSummary) -> String {
    summary
        .final_verdicts
        .iter()
        .map(|v| {
            let verdict = v.verdict.as_deref().unwrap_or("no verdict");
            match v.confidence {
                Some(c) => format!("{} {verdict} ({c:.2})", v.persona_id),
                None => format!("{} {verdict}", v.persona_id),
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Each panel's own summary, one row per exchange.
fn exchanges_markdown(s: &mut String, exchanges: &[PanelExchange]) {
    if exchanges.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "\n### Each panel's deliberation\n\nPer exchange: deliberation rounds held, agreement \
         after the independent evaluations and after the last round, the improvement, why the \
         panel stopped, the disagreements left after each round (0: the independent \
         evaluations) by type, and each judge's final verdict with its confidence.\n"
    );
    let _ = writeln!(
        s,
        "| round | deliberation rounds | initial | final | improvement | stopped | disagreements after each round | final verdicts |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|");
    for e in exchanges {
        let x = &e.summary;
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            e.round_id,
            x.deliberation_rounds,
            opt(x.initial_agreement),
            opt(x.final_agreement),
            opt(x.improvement),
            x.stop_reason.as_str(),
            disputes_by_round(x),
            final_verdicts(x)
        );
    }
}

fn accuracy_markdown(s: &mut String, a: &QaPanelAccuracy) {
    if a.rows.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "\n### Accuracy of the panel and of each judge\n\nBefore deliberation: each judge's \
         independent answer, and the weighted vote of them all; after: each judge's last answer, \
         and the panel's (items with a correct answer; 95% Wilson intervals).\n"
    );
    let _ = writeln!(s, "| format | level | judge | model | before | after |");
    let _ = writeln!(s, "|---|---|---|---|---|---|");
    for r in &a.rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            r.format.as_str(),
            r.level,
            r.judge,
            r.model,
            qa_share(&r.before),
            qa_share(&r.after)
        );
    }
}

fn standings_markdown(s: &mut String, f: &StandingFigures) {
    if f.arguments == 0 {
        return;
    }
    let _ = writeln!(
        s,
        "\n### Argument standings\n\n{} arguments called by two judges or more; every judge \
         gave the same standing to {} before deliberation and {} after.\n",
        f.arguments,
        qa_share(&f.unanimous_before),
        qa_share(&f.unanimous_after)
    );
    let _ = writeln!(
        s,
        "| judge | model | with the panel's standing, before | after |"
    );
    let _ = writeln!(s, "|---|---|---|---|");
    for j in &f.judges {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} |",
            j.persona_id,
            j.model,
            qa_share(&j.with_panel_before),
            qa_share(&j.with_panel_after)
        );
    }
}

fn share_columns(p: &Proportion) -> [String; 4] {
    [p.hits.to_string(), p.n.to_string(), num(p.low), num(p.high)]
}

impl PanelSection {
    /// The section in Markdown: `## Judge panels` and the protocol's own tables.
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        shared_markdown(&mut s, &self.figures);
        exchanges_markdown(&mut s, &self.figures.exchanges);
        match &self.own {
            ProtocolPanelFigures::EthicsBowl => {}
            ProtocolPanelFigures::QaDebate(a) => accuracy_markdown(&mut s, a),
            ProtocolPanelFigures::StructuredDebate(f) => standings_markdown(&mut s, f),
        }
        s
    }

    /// The section's CSV tables (`panel_judges.csv` for the Ethics Bowl, as before, and
    /// `panel_summaries.csv` when panels stored their summaries, with the same prefixes;
    /// `qa_panel_judges.csv` and `qa_panel_accuracy.csv`; `structured_panel_judges.csv` and
    /// `structured_panel_standings.csv`).
    pub fn tables(&self) -> Vec<Table> {
        let prefix = file_prefix(self.protocol);
        let strings = |h: &[&str]| h.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let mut tables = vec![Table {
            file: format!("{prefix}panel_judges.csv"),
            header: strings(&[
                "persona_id",
                "model",
                "deliberations",
                "toward_others",
                "moved",
                "verdict_changes",
            ]),
            rows: self
                .figures
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
                .collect(),
        }];
        if !self.figures.exchanges.is_empty() {
            tables.push(Table {
                file: format!("{prefix}panel_summaries.csv"),
                header: strings(&[
                    "round_id",
                    "deliberation_rounds",
                    "initial_agreement",
                    "final_agreement",
                    "improvement",
                    "converged",
                    "stop_reason",
                    "disagreements_by_round",
                    "final_verdicts",
                ]),
                rows: self
                    .figures
                    .exchanges
                    .iter()
                    .map(|e| {
                        let x = &e.summary;
                        vec![
                            e.round_id.clone(),
                            x.deliberation_rounds.to_string(),
                            num(x.initial_agreement),
                            num(x.final_agreement),
                            num(x.improvement),
                            x.converged.to_string(),
                            x.stop_reason.as_str().to_string(),
                            disputes_by_round(x),
                            final_verdicts(x),
                        ]
                    })
                    .collect(),
            });
        }
        match &self.own {
            ProtocolPanelFigures::EthicsBowl => {}
            ProtocolPanelFigures::QaDebate(a) => tables.push(Table {
                file: "qa_panel_accuracy.csv".into(),
                header: strings(&[
                    "format",
                    "level",
                    "judge",
                    "model",
                    "before_hits",
                    "before_n",
                    "before_low",
                    "before_high",
                    "after_hits",
                    "after_n",
                    "after_low",
                    "after_high",
                ]),
                rows: a
                    .rows
                    .iter()
                    .map(|r| {
                        let mut row = vec![
                            r.format.as_str().to_string(),
                            r.level.clone(),
                            r.judge.clone(),
                            r.model.clone(),
                        ];
                        row.extend(share_columns(&r.before));
                        row.extend(share_columns(&r.after));
                        row
                    })
                    .collect(),
            }),
            ProtocolPanelFigures::StructuredDebate(f) => tables.push(Table {
                file: "structured_panel_standings.csv".into(),
                header: strings(&[
                    "persona_id",
                    "model",
                    "before_hits",
                    "before_n",
                    "before_low",
                    "before_high",
                    "after_hits",
                    "after_n",
                    "after_low",
                    "after_high",
                ]),
                rows: f
                    .judges
                    .iter()
                    .map(|j| {
                        let mut row = vec![j.persona_id.clone(), j.model.clone()];
                        row.extend(share_columns(&j.with_panel_before));
                        row.extend(share_columns(&j.with_panel_after));
                        row
                    })
                    .collect(),
            }),
        }
        tables
    }
}
