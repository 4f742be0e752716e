//! The Ethics Bowl's tables and charts: model comparison, dilemma difficulty, consistency,
//! framework usage, ratings, bias checks, judge agreement, and its judge panels.

use std::collections::BTreeMap;

use super::super::doc::{Doc, Table};
use super::{judge, model};
use crate::analysis::Analysis;
use crate::analysis::bias::Difference;
use crate::analysis::charts;
use crate::analysis::panels::{PanelSection, ProtocolPanelFigures};
use crate::analysis::ratings::DRAW_MARGIN;
use crate::analysis::show::{cell, opt};
use crate::analysis::tables::{Cell, FRAMEWORKS, JudgePair, LOW_CONSISTENCY, RepeatedAgreement};
use crate::domain::{Criterion, ProtocolKind};

/// Appends the section.
pub(super) fn section(doc: &mut Doc, a: &Analysis) {
    comparison(doc, a);
    difficulty(doc, a);
    consistency(doc, a);
    frameworks(doc, a);
    ratings(doc, a);
    bias(doc, a);
    agreement(doc, a);
    if let Some(p) = &a.panels {
        super::panels::section(
            doc,
            &PanelSection {
                protocol: ProtocolKind::EthicsBowl,
                figures: p.clone(),
                own: ProtocolPanelFigures::EthicsBowl,
            },
        );
    }
}

fn comparison(doc: &mut Doc, a: &Analysis) {
    doc.h2("Model comparison by role");
    let mut head = vec!["model".to_string(), "role".to_string()];
    head.extend(Criterion::ALL.iter().map(|c| c.label().to_string()));
    head.push("total /70".into());
    let mut t = Table::new(head);
    for m in &a.model_comparison {
        let mut cells = vec![m.model.clone(), m.role.to_string()];
        cells.extend(Criterion::ALL.iter().map(|c| cell(&m.criteria[c.key()])));
        cells.push(cell(&m.total));
        let team = if m.role == "presenting" { "a" } else { "b" };
        t.row(
            cells,
            Some(vec![("model", m.model.clone()), ("role", team.into())]),
        );
    }
    doc.table(&t);
    doc.chart(&charts::profile_chart(&a.model_comparison));
}

fn difficulty(doc: &mut Doc, a: &Analysis) {
    doc.h2("Dilemma difficulty (hardest first)");
    let mut t = Table::new([
        "dilemma",
        "mean total /70",
        "spread between models (sd of model means)",
        "models",
        "separates models",
    ]);
    for d in &a.dilemma_difficulty {
        t.row(
            vec![
                d.dilemma_id.clone(),
                cell(&d.mean_total),
                opt(d.spread),
                d.models.to_string(),
                if d.separates_models { "yes" } else { "" }.into(),
            ],
            Some(vec![("dilemma", d.dilemma_id.clone())]),
        );
    }
    doc.table(&t);
    doc.chart(&charts::difficulty_chart(&a.dilemma_difficulty));
}

fn consistency(doc: &mut Doc, a: &Analysis) {
    doc.h2("Consistency");
    let flagged: Vec<_> = a
        .consistency
        .iter()
        .filter(|c| c.flagged_inconsistent)
        .collect();
    doc.p(&format!(
        "{} consistency tests; {} acknowledged an inconsistency or drew a distinction. Failed to maintain \
         consistency (a judges' consistency score of {LOW_CONSISTENCY} or less): {}; failed to acknowledge the \
         inconsistency: {}.",
        a.consistency.len(),
        a.consistency.iter().filter(|c| c.acknowledged).count(),
        flagged.len(),
        flagged.iter().filter(|c| c.flagged_unacknowledged).count()
    ));
    if !a.consistency_by_model.is_empty() {
        let mut t = Table::new([
            "model",
            "tests",
            "mean consistency score",
            "failed to maintain consistency",
            "failed to acknowledge",
            "acknowledged",
        ]);
        for m in &a.consistency_by_model {
            t.row(
                vec![
                    m.model.clone(),
                    m.tests.to_string(),
                    cell(&m.mean_score),
                    m.flagged_inconsistent.to_string(),
                    m.flagged_unacknowledged.to_string(),
                    m.acknowledged.to_string(),
                ],
                model(&m.model),
            );
        }
        doc.table(&t);
    }
    if !flagged.is_empty() {
        let mut t = Table::new([
            "round",
            "model",
            "team",
            "stated principle",
            "consistency score",
            "acknowledged",
        ]);
        for c in flagged {
            t.row(
                vec![
                    c.round_id.clone(),
                    c.model.clone(),
                    format!("{:?}", c.team),
                    c.principle
                        .clone()
                        .unwrap_or_else(|| "(not labelled)".into()),
                    opt(c.consistency_score),
                    if c.acknowledged { "yes" } else { "no" }.into(),
                ],
                Some(vec![("round", c.round_id.clone())]),
            );
        }
        doc.table(&t);
    }
}

fn frameworks(doc: &mut Doc, a: &Analysis) {
    doc.h2("Framework usage");
    let names: Vec<&str> = FRAMEWORKS.iter().map(|(n, _)| *n).collect();
    let mut head = vec!["model"];
    head.extend(&names);
    head.extend(["dominant", "n (keyword hits)"]);
    let mut t = Table::new(head);
    for f in &a.framework_usage {
        let mut cells = vec![f.model.clone()];
        cells.extend(
            names
                .iter()
                .map(|n| format!("{:.0}%", f.share.get(n).copied().unwrap_or(0.0) * 100.0)),
        );
        cells.push(f.dominant.unwrap_or("–").into());
        let hits: usize = f.hits.values().chain(f.judges_named.values()).sum();
        cells.push(hits.to_string());
        t.row(cells, model(&f.model));
    }
    doc.table(&t);
}

fn ratings(doc: &mut Doc, a: &Analysis) {
    doc.h2("Ratings (Bradley–Terry, Elo scale, 95% bootstrap intervals)");
    doc.p(&format!(
        "{} matches (one per usable judgment; a margin under {DRAW_MARGIN} points is a draw), {} draws.",
        a.ratings.matches, a.ratings.draws
    ));
    for (title, list, linked) in [
        ("overall", &a.ratings.overall, true),
        ("by role", &a.ratings.by_role, false),
    ] {
        let mut t = Table::new([title, "rating", "95% interval", "matches"]);
        for r in list {
            t.row(
                vec![
                    r.entrant.clone(),
                    format!("{:.0}", r.rating),
                    format!("{:.0} – {:.0}", r.low, r.high),
                    r.matches.to_string(),
                ],
                // A role entrant names its model and role in one string: searched for.
                if linked {
                    model(&r.entrant)
                } else {
                    Some(vec![("q", r.entrant.clone())])
                },
            );
        }
        doc.table(&t);
    }
    doc.chart(&charts::ratings_chart(
        &a.ratings.overall,
        "Ratings (Bradley–Terry, Elo scale) with 95% intervals",
    ));
}

fn difference(d: &Difference) -> String {
    match (d.mean, d.low, d.high) {
        (Some(m), Some(l), Some(h)) => format!("{m:+.2} (95% {l:+.2} to {h:+.2}, n={})", d.n),
        (Some(m), _, _) => format!("{m:+.2} (n={})", d.n),
        _ => "–".into(),
    }
}

fn bias(doc: &mut Doc, a: &Analysis) {
    let b = &a.bias;
    doc.h2("Bias checks");
    let mut items = vec![
        format!(
            "Position: Team A total minus Team B total: {}.",
            difference(&b.position)
        ),
        format!(
            "Length: correlation between a team's text length and its total: {} (n={}).",
            opt(b.length_correlation),
            b.length_n
        ),
    ];
    if b.self_preference.is_empty() {
        items.push(
            "Self-preference: no judge scored its own model or its provider's (rotating judges never do)."
                .into(),
        );
    }
    items.extend(b.self_preference.iter().map(|p| {
        format!(
            "Self-preference: {} on its {}: {} against the other judges.",
            p.judge,
            p.relation,
            cell(&p.difference)
        )
    }));
    doc.list(&items);
    let ceiling: Vec<String> = b
        .distributions
        .iter()
        .filter(|d| d.ceiling_warning)
        .map(|d| {
            format!(
                "{} on {}: {:.0}% at 9–10",
                d.judge,
                d.criterion,
                d.ceiling_share * 100.0
            )
        })
        .collect();
    if !ceiling.is_empty() {
        doc.p(&format!(
            "Ceiling warning: for {} judge–criterion pairs, half the scores or more are 9–10, so the rubric \
             cannot separate models there:",
            ceiling.len()
        ));
        doc.list(&ceiling);
    }
}

fn pairs(doc: &mut Doc, what: &str, pairs: &[JudgePair], offsets: &BTreeMap<String, Cell>) {
    let mut t = Table::new(["judges", what, "Pearson", "Spearman", "Pearson on totals"]);
    for p in pairs {
        t.row(
            vec![
                format!("{} – {}", p.a, p.b),
                p.shared_exchanges.to_string(),
                opt(p.pearson),
                opt(p.spearman),
                opt(p.pearson_totals),
            ],
            judge(&p.a),
        );
    }
    doc.table(&t);
    let mut t = Table::new(["judge", "mean offset from the others (+ generous, − harsh)"]);
    for (j, c) in offsets {
        t.row(vec![j.clone(), cell(c)], judge(j));
    }
    doc.table(&t);
}

fn agreement(doc: &mut Doc, a: &Analysis) {
    let ag = &a.judge_agreement;
    doc.h2("Judge agreement");
    if ag.shared_exchanges == 0 {
        doc.p(
            "No exchange was scored by two judges or more (use judging = \"all\"), so agreement on the same \
             exchange cannot be measured.",
        );
    } else {
        doc.p(&format!(
            "{} exchanges scored by several judges; Krippendorff's alpha (interval): {}.",
            ag.shared_exchanges,
            opt(ag.alpha)
        ));
        pairs(doc, "shared exchanges", &ag.pairs, &ag.offsets);
        doc.chart(&charts::agreement_chart(ag));
    }
    repetitions(doc, &ag.across_repetitions);
}

fn repetitions(doc: &mut Doc, r: &RepeatedAgreement) {
    doc.h3("Across repetitions");
    if r.configurations == 0 {
        doc.p(
            "No configuration (dilemma, Team A, Team B) was judged by different judges in different rounds; \
             with judging = \"rotate\", set repetitions above 1 and give more judges than a round excludes.",
        );
        return;
    }
    doc.p(&format!(
        "{} configurations (dilemma, Team A, Team B) were judged by different judges in different rounds. \
         Krippendorff's alpha (interval): {}.",
        r.configurations,
        opt(r.alpha)
    ));
    pairs(doc, "shared configurations", &r.pairs, &r.offsets);
}
