//! Every protocol's judge-panel section: convergence, rounds needed, agreement before and
//! after deliberation, each judge's movement, each panel's deliberation, and the protocol's
//! own figures (the question-answer panels' accuracy, the structured panels' standings),
//! with their CSV files (`panel_judges.csv` for the Ethics Bowl, `qa_panel_judges.csv`,
//! `structured_panel_judges.csv`, the same prefixes for `panel_summaries.csv`, and
//! `qa_panel_accuracy.csv`, `structured_panel_standings.csv`).

use super::{Link, LinkKey, Section, Style, Table, Value};
use crate::analysis::panels::qa::QaPanelAccuracy;
use crate::analysis::panels::structured::StandingFigures;
use crate::analysis::panels::{PanelExchange, PanelFigures, PanelSection, ProtocolPanelFigures};
use crate::analysis::qa::Proportion;
use crate::domain::{DisagreementKind, PanelSummary, ProtocolKind};

/// A protocol's panel section.
pub fn section(s: &PanelSection) -> Section {
    build(s.protocol, &s.figures, &s.own)
}

/// The Ethics Bowl's panel section: the shared figures alone.
pub(super) fn ethics_bowl(figures: &PanelFigures) -> Section {
    build(
        ProtocolKind::EthicsBowl,
        figures,
        &ProtocolPanelFigures::EthicsBowl,
    )
}

fn build(protocol: ProtocolKind, p: &PanelFigures, own: &ProtocolPanelFigures) -> Section {
    let mut s = Section::new("Judge panels");
    let name = protocol.as_str();
    let prefix = match protocol {
        ProtocolKind::EthicsBowl => "",
        ProtocolKind::QaDebate => "qa_",
        ProtocolKind::StructuredDebate => "structured_",
    };
    shared(&mut s, p, name, prefix);
    exchanges(&mut s, &p.exchanges, name, prefix);
    match own {
        ProtocolPanelFigures::EthicsBowl => {}
        ProtocolPanelFigures::QaDebate(a) => accuracy(&mut s, a),
        ProtocolPanelFigures::StructuredDebate(f) => standings(&mut s, f),
    }
    s
}

/// The figures every panel has.
fn shared(s: &mut Section, p: &PanelFigures, name: &str, prefix: &str) {
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
    s.plain(format!(
        "{} panels: {} converged, {} hit the deliberation limit{others}; deliberation rounds held: {}.",
        p.panels,
        p.converged,
        p.round_limit,
        needed.join(", ")
    ));
    // Means over every panel round of the protocol: each row links to them all.
    let mut t = Table::new(format!("Panel agreement ({name})"), ["agreement", "mean"]);
    for (what, c) in [
        ("after independent evaluation", p.initial_agreement),
        ("after the last round", p.final_agreement),
        ("rise, panels that deliberated", p.agreement_rise),
    ] {
        t.row(
            vec![Value::text(what), Value::Mean(c)],
            Link::protocol(name),
        );
    }
    s.table(t);
    s.plain(format!(
        "Krippendorff's alpha (interval) over the panel judges' scores: {} before deliberation, {} after \
         (compare the judge-agreement alpha above, which is computed over final judgments).",
        Value::Statistic(p.alpha_initial, Style::Decimals(3)).shown(),
        Value::Statistic(p.alpha_final, Style::Decimals(3)).shown()
    ));
    // The CSV is written even without judges.
    let mut t = Table::new(
        format!("Panel judges ({name})"),
        [
            "judge",
            "model",
            "deliberations",
            "toward the others (points)",
            "moved (points)",
            "verdict changes",
        ],
    );
    let mut tidy = Vec::new();
    for j in &p.judges {
        let cells = vec![
            Value::text(&j.persona_id),
            Value::text(&j.model),
            Value::Count(j.deliberations),
            Value::Mean(j.toward_others),
            Value::Mean(j.moved),
            Value::Count(j.verdict_changes),
        ];
        tidy.push(cells.clone());
        t.row(
            cells,
            Link::judge(&j.persona_id).map(|l| l.and(LinkKey::Protocol, name)),
        );
    }
    s.table(t.with_tidy(
        format!("{prefix}panel_judges.csv"),
        [
            "persona_id",
            "model",
            "deliberations",
            "toward_others",
            "moved",
            "verdict_changes",
        ],
        tidy,
    ));
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

/// Each panel's own summary, one row per exchange, with `panel_summaries.csv`.
fn exchanges(s: &mut Section, exchanges: &[PanelExchange], name: &str, prefix: &str) {
    if exchanges.is_empty() {
        return;
    }
    s.heading("Each panel's deliberation");
    s.plain(
        "Per exchange: deliberation rounds held, agreement after the independent evaluations and after the last \
         round, the improvement, why the panel stopped, the disagreements left after each round (0: the \
         independent evaluations) by type, and each judge's final verdict with its confidence.",
    );
    let mut t = Table::new(
        format!("Panel deliberations ({name})"),
        [
            "round",
            "deliberation rounds",
            "initial",
            "final",
            "improvement",
            "stopped",
            "disagreements after each round",
            "final verdicts",
        ],
    );
    let mut tidy = Vec::new();
    for e in exchanges {
        let x = &e.summary;
        let rounds = Value::Count(x.deliberation_rounds as usize);
        let agreement = [
            Value::number(x.initial_agreement, 3),
            Value::number(x.final_agreement, 3),
            Value::number(x.improvement, 3),
        ];
        let (stop, disputes, verdicts) = (
            Value::text(x.stop_reason.as_str()),
            Value::text(disputes_by_round(x)),
            Value::text(final_verdicts(x)),
        );
        let mut row = vec![Value::text(&e.round_id), rounds.clone()];
        row.extend(agreement.clone());
        row.extend([stop.clone(), disputes.clone(), verdicts.clone()]);
        t.row(row, Link::round(&e.round_id));
        let mut row = vec![Value::text(&e.round_id), rounds];
        row.extend(agreement);
        row.extend([Value::Flag(x.converged), stop, disputes, verdicts]);
        tidy.push(row);
    }
    s.table(t.with_tidy(
        format!("{prefix}panel_summaries.csv"),
        [
            "round_id",
            "deliberation_rounds",
            "initial_agreement",
            "final_agreement",
            "improvement",
            "converged",
            "stop_reason",
            "disagreements_by_round",
            "final_verdicts",
        ],
        tidy,
    ));
}

/// A share's CSV fields: hits, n, Wilson low and high.
fn share_fields(p: &Proportion) -> [Value; 4] {
    [
        Value::Count(p.hits),
        Value::Count(p.n),
        Value::number(p.low, 3),
        Value::number(p.high, 3),
    ]
}

/// The question-answer panels' accuracy; `qa_panel_accuracy.csv` is written even without rows.
fn accuracy(s: &mut Section, a: &QaPanelAccuracy) {
    if !a.rows.is_empty() {
        s.heading("Accuracy of the panel and of each judge");
        s.plain(
            "Before deliberation: each judge's independent answer, and the weighted vote of them all; after: each \
             judge's last answer, and the panel's (items with a correct answer; 95% Wilson intervals).",
        );
    }
    let mut t = Table::new(
        "Panel accuracy (qa_debate)",
        ["format", "level", "judge", "model", "before", "after"],
    );
    let mut tidy = Vec::new();
    for r in &a.rows {
        let head = [
            Value::text(r.format.as_str()),
            Value::text(&r.level),
            Value::text(&r.judge),
            Value::text(&r.model),
        ];
        let mut cells = head.to_vec();
        cells.extend([Value::Share(r.before), Value::Share(r.after)]);
        // A row names the panel (all its rounds of the format and level) or a judge's persona.
        let mut link = Link(vec![
            (LinkKey::Format, r.format.as_str().into()),
            (LinkKey::Level, r.level.clone()),
        ]);
        if r.judge != "panel" {
            link = link.and(LinkKey::Judge, &r.judge);
        }
        t.row(cells, Some(link));
        let mut row = head.to_vec();
        row.extend(share_fields(&r.before));
        row.extend(share_fields(&r.after));
        tidy.push(row);
    }
    s.table(t.with_tidy(
        "qa_panel_accuracy.csv",
        [
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
        ],
        tidy,
    ));
}

/// The structured panels' argument standings; `structured_panel_standings.csv` is written
/// even when no argument was called by two judges (and then the table is not shown).
fn standings(s: &mut Section, f: &StandingFigures) {
    let shown = f.arguments > 0;
    if shown {
        s.heading("Argument standings");
        s.plain(format!(
            "{} arguments called by two judges or more; every judge gave the same standing to {} before \
             deliberation and {} after.",
            f.arguments,
            Value::Share(f.unanimous_before).shown(),
            Value::Share(f.unanimous_after).shown()
        ));
    }
    let mut t = Table::new(
        "Panel standings (structured_debate)",
        [
            "judge",
            "model",
            "with the panel's standing, before",
            "after",
        ],
    );
    let mut tidy = Vec::new();
    for j in &f.judges {
        if shown {
            t.row(
                vec![
                    Value::text(&j.persona_id),
                    Value::text(&j.model),
                    Value::Share(j.with_panel_before),
                    Value::Share(j.with_panel_after),
                ],
                Link::judge(&j.persona_id).map(|l| l.and(LinkKey::Protocol, "structured_debate")),
            );
        }
        let mut row = vec![Value::text(&j.persona_id), Value::text(&j.model)];
        row.extend(share_fields(&j.with_panel_before));
        row.extend(share_fields(&j.with_panel_after));
        tidy.push(row);
    }
    s.table(t.with_tidy(
        "structured_panel_standings.csv",
        [
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
        ],
        tidy,
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::panels::JudgeMovement;
    use crate::analysis::panels::structured::StandingJudge;
    use crate::analysis::stats::statistic::Statistic;
    use crate::analysis::tables::Cell;

    fn figures() -> PanelFigures {
        PanelFigures {
            panels: 2,
            converged: 1,
            round_limit: 0,
            nothing_disputed: 0,
            too_few_judges: 1,
            timed_out: 0,
            rounds_needed: [(0, 1), (2, 1)].into_iter().collect(),
            initial_agreement: Cell::of(&[0.5, 0.7]),
            final_agreement: Cell::of(&[0.9, 0.7]),
            agreement_rise: Cell::of(&[0.4]),
            alpha_initial: Statistic::without_interval(Some(0.25), 4),
            alpha_final: Statistic::default(),
            judges: vec![JudgeMovement {
                persona_id: "logician".into(),
                model: "m".into(),
                deliberations: 1,
                toward_others: Cell::of(&[0.5]),
                moved: Cell::of(&[1.0]),
                verdict_changes: 0,
            }],
            exchanges: Vec::new(),
        }
    }

    #[test]
    fn rows_link_to_their_rounds_and_standings_keep_their_csv_when_not_shown() {
        let own = ProtocolPanelFigures::StructuredDebate(StandingFigures {
            arguments: 0,
            unanimous_before: Proportion::default(),
            unanimous_after: Proportion::default(),
            judges: vec![StandingJudge {
                persona_id: "logician".into(),
                model: "m".into(),
                with_panel_before: Proportion::default(),
                with_panel_after: Proportion::default(),
            }],
        });
        let s = build(ProtocolKind::StructuredDebate, &figures(), &own);
        let md = super::super::markdown(std::slice::from_ref(&s));
        assert!(
            md.contains(
                "2 panels: 1 converged, 0 hit the deliberation limit, 1 had too few judges' evaluations to \
                 deliberate; deliberation rounds held: 1 after 0, 1 after 2."
            ),
            "{md}"
        );
        assert!(
            md.contains("0.250 (n=4, too few for an interval) before deliberation, – after"),
            "{md}"
        );
        assert!(
            md.contains("| logician | m | 1 | 0.50 (n=1, too few) |"),
            "{md}"
        );
        assert!(!md.contains("Argument standings"), "{md}");
        let tables: Vec<&Table> = s.tables().collect();
        assert_eq!(tables[0].rows[0].link, Link::protocol("structured_debate"));
        assert_eq!(
            tables[1].rows[0].link,
            Link::judge("logician").map(|l| l.and(LinkKey::Protocol, "structured_debate"))
        );
        let files: Vec<&str> = tables
            .iter()
            .filter_map(|t| t.tidy.as_ref().map(|t| t.file.as_str()))
            .collect();
        assert_eq!(
            files,
            [
                "structured_panel_judges.csv",
                "structured_panel_standings.csv"
            ]
        );
        let standings = tables.last().unwrap();
        assert!(standings.rows.is_empty());
        let row: Vec<String> = standings.tidy.as_ref().unwrap().rows[0]
            .iter()
            .map(Value::csv)
            .collect();
        assert_eq!(row, ["logician", "m", "0", "0", "", "", "0", "0", "", ""]);

        let eb = ethics_bowl(&figures());
        assert_eq!(
            eb.tables()
                .filter_map(|t| t.tidy.as_ref())
                .map(|t| t.file.as_str())
                .collect::<Vec<_>>(),
            ["panel_judges.csv"]
        );
    }
}
