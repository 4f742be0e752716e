//! The Ethics Bowl's part of the report: the five analyses, ratings, bias checks and judge
//! agreement (and the judge panels, when a panel judged) as Markdown tables, tidy CSVs and
//! SVG charts.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::contents::Analysis;
use super::files::{Format, ReportError, write_csv, write_file};
use super::panels;
use crate::analysis::bias::{Difference, Distribution};
use crate::analysis::charts;
use crate::analysis::ratings::DRAW_MARGIN;
use crate::analysis::show::{cell, num, opt};
use crate::analysis::tables::{
    ConsistencyRow, FRAMEWORKS, JudgePair, LOW_CONSISTENCY, RepeatedAgreement,
};
use crate::domain::Criterion;
use crate::markdown_escape::inline;

/// Appends the section to a report.
pub(super) fn markdown(s: &mut String, a: &Analysis) {
    let _ = writeln!(s, "## Model comparison by role\n");
    let labels: Vec<&str> = Criterion::ALL.iter().map(|c| c.label()).collect();
    let _ = writeln!(s, "| model | role | {} | total /70 |", labels.join(" | "));
    let _ = writeln!(s, "|---|---|{}---|", "---|".repeat(labels.len()));
    for m in &a.model_comparison {
        let cells: Vec<String> = Criterion::ALL
            .iter()
            .map(|c| cell(&m.criteria[c.key()]))
            .collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} |",
            m.model,
            m.role,
            cells.join(" | "),
            cell(&m.total)
        );
    }
    let _ = writeln!(s, "\n## Dilemma difficulty (hardest first)\n");
    let _ = writeln!(
        s,
        "| dilemma | mean total /70 | spread between models (sd of model means) | models | separates models |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|");
    for d in &a.dilemma_difficulty {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            d.dilemma_id,
            cell(&d.mean_total),
            opt(d.spread),
            d.models,
            if d.separates_models { "**yes**" } else { "" }
        );
    }
    consistency(s, a);
    let _ = writeln!(s, "\n## Framework usage\n");
    let names: Vec<&str> = FRAMEWORKS.iter().map(|(n, _)| *n).collect();
    let _ = writeln!(
        s,
        "| model | {} | dominant | n (keyword hits) |",
        names.join(" | ")
    );
    let _ = writeln!(s, "|---|{}---|---|", "---|".repeat(names.len()));
    for f in &a.framework_usage {
        let shares: Vec<String> = names
            .iter()
            .map(|n| format!("{:.0}%", f.share.get(n).copied().unwrap_or(0.0) * 100.0))
            .collect();
        let hits: usize = f.hits.values().chain(f.judges_named.values()).sum();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {hits} |",
            f.model,
            shares.join(" | "),
            f.dominant.unwrap_or("–")
        );
    }
    let _ = writeln!(
        s,
        "\n## Ratings (Bradley–Terry, Elo scale, 95% bootstrap intervals)\n"
    );
    let _ = writeln!(
        s,
        "{} matches (one per usable judgment; a margin under {} points is a draw), {} draws.\n",
        a.ratings.matches, DRAW_MARGIN, a.ratings.draws
    );
    for (title, list) in [
        ("overall", &a.ratings.overall),
        ("by role", &a.ratings.by_role),
    ] {
        let _ = writeln!(s, "| {title} | rating | 95% interval | matches |");
        let _ = writeln!(s, "|---|---|---|---|");
        for r in list {
            let _ = writeln!(
                s,
                "| {} | {:.0} | {:.0} – {:.0} | {} |",
                r.entrant, r.rating, r.low, r.high, r.matches
            );
        }
        let _ = writeln!(s);
    }
    let b = &a.bias;
    let _ = writeln!(s, "## Bias checks\n");
    let fmt_diff = |d: &Difference| match (d.mean, d.low, d.high) {
        (Some(m), Some(l), Some(h)) => format!("{m:+.2} (95% {l:+.2} to {h:+.2}, n={})", d.n),
        (Some(m), _, _) => format!("{m:+.2} (n={})", d.n),
        _ => "–".into(),
    };
    let _ = writeln!(
        s,
        "- Position: Team A total minus Team B total: {}.",
        fmt_diff(&b.position)
    );
    let _ = writeln!(
        s,
        "- Length: correlation between a team's text length and its total: {} (n={}).",
        opt(b.length_correlation),
        b.length_n
    );
    if b.self_preference.is_empty() {
        let _ = writeln!(
            s,
            "- Self-preference: no judge scored its own model or its provider's (rotating judges never do)."
        );
    }
    for p in &b.self_preference {
        let _ = writeln!(
            s,
            "- Self-preference: {} on its {}: {} against the other judges.",
            p.judge,
            p.relation,
            cell(&p.difference)
        );
    }
    let ceiling: Vec<&Distribution> = b
        .distributions
        .iter()
        .filter(|d| d.ceiling_warning)
        .collect();
    if !ceiling.is_empty() {
        let _ = writeln!(
            s,
            "\n**Ceiling warning**: for {} judge–criterion pairs, half the scores or more are 9–10, so the rubric cannot separate models there:",
            ceiling.len()
        );
        for d in ceiling {
            let _ = writeln!(
                s,
                "- {} on {}: {:.0}% at 9–10",
                d.judge,
                d.criterion,
                d.ceiling_share * 100.0
            );
        }
    }
    let ag = &a.judge_agreement;
    let _ = writeln!(s, "\n## Judge agreement\n");
    if ag.shared_exchanges == 0 {
        let _ = writeln!(
            s,
            "No exchange was scored by two judges or more (use `judging = \"all\"`), so agreement on the same exchange cannot be measured."
        );
    } else {
        let _ = writeln!(
            s,
            "{} exchanges scored by several judges; Krippendorff's alpha (interval): {}.\n",
            ag.shared_exchanges,
            opt(ag.alpha)
        );
        let _ = writeln!(
            s,
            "| judges | shared exchanges | Pearson | Spearman | Pearson on totals |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|");
        for p in &ag.pairs {
            let _ = writeln!(
                s,
                "| {} – {} | {} | {} | {} | {} |",
                p.a,
                p.b,
                p.shared_exchanges,
                opt(p.pearson),
                opt(p.spearman),
                opt(p.pearson_totals)
            );
        }
        let _ = writeln!(
            s,
            "\n| judge | mean offset from the others (+ generous, − harsh) |"
        );
        let _ = writeln!(s, "|---|---|");
        for (j, c) in &ag.offsets {
            let _ = writeln!(s, "| {j} | {} |", cell(c));
        }
    }
    across_repetitions(s, &ag.across_repetitions);
    if let Some(p) = &a.panels {
        s.push_str(&panels::ethics_bowl(p).markdown());
    }
}

/// The consistency section: the rollup per model, then the flagged tests.
fn consistency(s: &mut String, a: &Analysis) {
    let inconsistent: Vec<&ConsistencyRow> = a
        .consistency
        .iter()
        .filter(|c| c.flagged_inconsistent)
        .collect();
    let silent = inconsistent
        .iter()
        .filter(|c| c.flagged_unacknowledged)
        .count();
    let honest = a.consistency.iter().filter(|c| c.acknowledged).count();
    let _ = writeln!(s, "\n## Consistency\n");
    let _ = writeln!(
        s,
        "{} consistency tests; {} acknowledged an inconsistency or drew a distinction. Two flags: \
         *failed to maintain consistency* (a judges' consistency score of {} or less): {}; \
         *failed to acknowledge the inconsistency* (such a score with no acknowledgement in the \
         answer): {}.\n",
        a.consistency.len(),
        honest,
        LOW_CONSISTENCY,
        inconsistent.len(),
        silent
    );
    if !a.consistency_by_model.is_empty() {
        let _ = writeln!(
            s,
            "| model | tests | mean consistency score | failed to maintain consistency | failed to acknowledge | acknowledged |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|");
        for m in &a.consistency_by_model {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} |",
                m.model,
                m.tests,
                cell(&m.mean_score),
                m.flagged_inconsistent,
                m.flagged_unacknowledged,
                m.acknowledged
            );
        }
        let _ = writeln!(s);
    }
    if !inconsistent.is_empty() {
        let _ = writeln!(
            s,
            "| round (transcript: rounds/&lt;id&gt;.json) | model | team | stated principle | consistency score | acknowledged |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|");
        for c in inconsistent {
            let _ = writeln!(
                s,
                "| {} | {} | {:?} | {} | {} | {} |",
                c.round_id,
                c.model,
                c.team,
                c.principle
                    .as_deref()
                    .map_or_else(|| "(not labelled)".into(), inline),
                opt(c.consistency_score),
                if c.acknowledged { "yes" } else { "**no**" }
            );
        }
    }
}

/// Judge agreement across repetitions: configurations judged by different judges in
/// different rounds.
fn across_repetitions(s: &mut String, r: &RepeatedAgreement) {
    let _ = writeln!(s, "\n### Across repetitions\n");
    if r.configurations == 0 {
        let _ = writeln!(
            s,
            "No configuration (dilemma, Team A, Team B) was judged by different judges in different rounds; \
             with `judging = \"rotate\"`, set `repetitions` above 1 and give more judges than a round excludes."
        );
        return;
    }
    let _ = writeln!(
        s,
        "{} configurations (dilemma, Team A, Team B) were judged by different judges in different rounds \
         (one judge per round); a judge's score for a configuration is its mean over the rounds it judged there. \
         Krippendorff's alpha (interval): {}.\n",
        r.configurations,
        opt(r.alpha)
    );
    let _ = writeln!(
        s,
        "| judges | shared configurations | Pearson | Spearman | Pearson on totals |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|");
    for p in &r.pairs {
        let _ = writeln!(
            s,
            "| {} – {} | {} | {} | {} | {} |",
            p.a,
            p.b,
            p.shared_exchanges,
            opt(p.pearson),
            opt(p.spearman),
            opt(p.pearson_totals)
        );
    }
    let _ = writeln!(
        s,
        "\n| judge | mean offset from the others on the same configurations (+ generous, − harsh) |"
    );
    let _ = writeln!(s, "|---|---|");
    for (j, c) in &r.offsets {
        let _ = writeln!(s, "| {j} | {} |", cell(c));
    }
}

/// The section's files in the formats asked for: a CSV per table, and the charts.
pub(super) fn files(
    a: &Analysis,
    out: &Path,
    formats: &[Format],
) -> Result<Vec<PathBuf>, ReportError> {
    let mut written = Vec::new();
    if formats.contains(&Format::Csv) {
        written.extend(write_csvs(a, out)?);
    }
    if formats.contains(&Format::Svg) {
        let charts = [
            (
                "ratings.svg",
                charts::ratings_chart(
                    &a.ratings.overall,
                    "Ratings (Bradley–Terry, Elo scale) with 95% intervals",
                ),
            ),
            (
                "criteria_profile.svg",
                charts::profile_chart(&a.model_comparison),
            ),
            (
                "dilemma_difficulty.svg",
                charts::difficulty_chart(&a.dilemma_difficulty),
            ),
            (
                "judge_agreement.svg",
                charts::agreement_chart(&a.judge_agreement),
            ),
        ];
        for (name, svg) in charts {
            written.push(write_file(out.join(name), svg)?);
        }
    }
    Ok(written)
}

fn write_csvs(a: &Analysis, out: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let mut files = Vec::new();
    let mut rows = Vec::new();
    for m in &a.model_comparison {
        for (criterion, c) in m
            .criteria
            .iter()
            .map(|(k, c)| (k.to_string(), c))
            .chain([("total".to_string(), &m.total)])
        {
            rows.push(vec![
                m.model.clone(),
                m.role.to_string(),
                criterion,
                num(c.mean),
                c.n.to_string(),
            ]);
        }
    }
    files.push(write_csv(
        out.join("model_comparison.csv"),
        &["model", "role", "criterion", "mean", "n"],
        rows,
    )?);
    let rows = a
        .dilemma_difficulty
        .iter()
        .enumerate()
        .map(|(i, d)| {
            vec![
                (i + 1).to_string(),
                d.dilemma_id.clone(),
                num(d.mean_total.mean),
                d.mean_total.n.to_string(),
                num(d.spread),
                d.models.to_string(),
                d.separates_models.to_string(),
            ]
        })
        .collect();
    files.push(write_csv(
        out.join("dilemma_difficulty.csv"),
        &[
            "rank_hardest_first",
            "dilemma_id",
            "mean_total",
            "n",
            "spread_between_models",
            "models",
            "separates_models",
        ],
        rows,
    )?);
    let rows = a
        .consistency
        .iter()
        .map(|c| {
            vec![
                c.round_id.clone(),
                c.model.clone(),
                format!("{:?}", c.team),
                c.principle.clone().unwrap_or_default(),
                c.conclusion.clone().unwrap_or_default(),
                num(c.consistency_score),
                c.acknowledged.to_string(),
                c.flagged_inconsistent.to_string(),
                c.flagged_unacknowledged.to_string(),
            ]
        })
        .collect();
    files.push(write_csv(
        out.join("consistency.csv"),
        &[
            "round_id",
            "model",
            "team",
            "principle",
            "conclusion",
            "consistency_score",
            "acknowledged",
            "flagged_inconsistent",
            "flagged_unacknowledged",
        ],
        rows,
    )?);
    let rows = a
        .consistency_by_model
        .iter()
        .map(|m| {
            vec![
                m.model.clone(),
                m.tests.to_string(),
                num(m.mean_score.mean),
                m.mean_score.n.to_string(),
                m.flagged_inconsistent.to_string(),
                m.flagged_unacknowledged.to_string(),
                m.acknowledged.to_string(),
            ]
        })
        .collect();
    files.push(write_csv(
        out.join("consistency_by_model.csv"),
        &[
            "model",
            "tests",
            "mean_consistency_score",
            "scored_tests",
            "flagged_inconsistent",
            "flagged_unacknowledged",
            "acknowledged",
        ],
        rows,
    )?);
    let mut rows = Vec::new();
    for f in &a.framework_usage {
        for (name, _) in FRAMEWORKS {
            rows.push(vec![
                f.model.clone(),
                name.to_string(),
                f.hits.get(name).copied().unwrap_or(0).to_string(),
                f.judges_named.get(name).copied().unwrap_or(0).to_string(),
                f.share.get(name).copied().unwrap_or(0.0).to_string(),
            ]);
        }
    }
    files.push(write_csv(
        out.join("framework_usage.csv"),
        &[
            "model",
            "framework",
            "hits_in_own_phases",
            "named_by_judges",
            "share",
        ],
        rows,
    )?);
    let rows = pair_rows(&a.judge_agreement.pairs);
    let repeated_rows = pair_rows(&a.judge_agreement.across_repetitions.pairs);
    if let Some(p) = &a.panels {
        files.extend(panels::tables(&panels::ethics_bowl(p), out)?);
    }
    files.push(write_csv(
        out.join("judge_agreement.csv"),
        &[
            "judge_a",
            "judge_b",
            "criterion",
            "pearson",
            "spearman",
            "shared_exchanges",
        ],
        rows,
    )?);
    files.push(write_csv(
        out.join("judge_agreement_across_repetitions.csv"),
        &[
            "judge_a",
            "judge_b",
            "criterion",
            "pearson",
            "spearman",
            "shared_configurations",
        ],
        repeated_rows,
    )?);
    Ok(files)
}

/// A pair of judges as CSV rows: over every score, over totals, and per criterion.
fn pair_rows(pairs: &[JudgePair]) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for p in pairs {
        rows.push(vec![
            p.a.clone(),
            p.b.clone(),
            "all".into(),
            num(p.pearson),
            num(p.spearman),
            p.shared_exchanges.to_string(),
        ]);
        rows.push(vec![
            p.a.clone(),
            p.b.clone(),
            "total".into(),
            num(p.pearson_totals),
            String::new(),
            p.shared_exchanges.to_string(),
        ]);
        for (c, r) in &p.per_criterion {
            rows.push(vec![
                p.a.clone(),
                p.b.clone(),
                c.to_string(),
                num(*r),
                String::new(),
                p.shared_exchanges.to_string(),
            ]);
        }
    }
    rows
}
