//! The analysis report: `report.md` (every table, readable on GitHub), one tidy CSV per table
//! (one row per observation, for pandas, R or DuckDB), and `analysis.json` with everything.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::tables::{
    Cell, ConsistencyRow, DilemmaDifficulty, FRAMEWORKS, FrameworkUsage, JudgeAgreement, MIN_N,
    ModelRole, consistency, dilemma_difficulty, framework_usage, judge_agreement, model_comparison,
};
use std::collections::BTreeMap;

use super::bias::{BiasChecks, bias_checks};
use super::panels::{PanelFigures, panel_figures};
use super::qa::{QaFigures, qa_figures};
use super::ratings::{Ratings, ratings};
use super::structured::{StructuredFigures, structured_figures};
use crate::domain::{Criterion, Round, RoundStatus};

/// Everything the report says, as `analysis.json` holds it.
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    /// Rounds read.
    pub rounds: usize,
    /// Rounds with every phase run and every judgment usable.
    pub complete_rounds: usize,
    /// Model comparison by role.
    pub model_comparison: Vec<ModelRole>,
    /// Dilemma difficulty, hardest first.
    pub dilemma_difficulty: Vec<DilemmaDifficulty>,
    /// Every consistency test, with flags.
    pub consistency: Vec<ConsistencyRow>,
    /// Framework usage by model.
    pub framework_usage: Vec<FrameworkUsage>,
    /// Judge agreement.
    pub judge_agreement: JudgeAgreement,
    /// Bradley–Terry ratings with bootstrap intervals.
    pub ratings: Ratings,
    /// Position, self-preference and length bias; score distributions.
    pub bias: BiasChecks,
    /// Judge panels: convergence, agreement before and after, judges' movement.
    pub panels: Option<PanelFigures>,
    /// Ethics Bowl rounds among them (the tables above cover only these).
    pub ethics_bowl_rounds: usize,
    /// Question-answer debates: judge accuracy against the baselines, debaters, calibration.
    pub qa: Option<QaFigures>,
    /// Structured debates: win rates and side totals by side, fallacies, standings,
    /// concessions, side advantage.
    pub structured: Option<StructuredFigures>,
    /// Each judged structured-debate round's decision briefing (round id, Markdown).
    #[serde(skip)]
    pub briefings: Vec<(String, String)>,
}

/// Analyses rounds (finished so far: incomplete rounds count only where they have data).
/// `provider_of` names each model's provider, for the same-provider preference check.
pub fn analyse(rounds: &[Round], provider_of: &BTreeMap<String, String>) -> Analysis {
    let qa = qa_figures(rounds);
    let structured = structured_figures(rounds);
    let briefings = rounds
        .iter()
        .filter_map(|r| {
            let judgment = crate::protocols::structured_debate::briefing::briefing_judgment(r)?;
            Some((
                r.id.clone(),
                crate::protocols::structured_debate::briefing::briefing(r, judgment)?,
            ))
        })
        .collect();
    let complete_rounds = rounds
        .iter()
        .filter(|r| r.status == RoundStatus::Complete)
        .count();
    let ethics: Vec<Round>;
    let rounds = if qa.is_some() || structured.is_some() {
        ethics = rounds
            .iter()
            .filter(|r| r.qa().is_none() && r.structured().is_none())
            .cloned()
            .collect();
        &ethics[..]
    } else {
        rounds
    };
    Analysis {
        rounds: rounds.len()
            + qa.as_ref().map_or(0, |q| q.rounds)
            + structured.as_ref().map_or(0, |s| s.rounds),
        complete_rounds,
        model_comparison: model_comparison(rounds),
        dilemma_difficulty: dilemma_difficulty(rounds),
        consistency: consistency(rounds),
        framework_usage: framework_usage(rounds),
        judge_agreement: judge_agreement(rounds),
        ratings: ratings(rounds),
        bias: bias_checks(rounds, provider_of),
        panels: panel_figures(rounds),
        ethics_bowl_rounds: rounds.len(),
        qa,
        structured,
        briefings,
    }
}

/// Which files to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `report.md`.
    Markdown,
    /// One CSV per table.
    Csv,
    /// `analysis.json`.
    Json,
    /// SVG charts.
    Svg,
}

/// A report could not be written.
#[derive(Debug, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct ReportError {
    /// The file.
    pub path: PathBuf,
    /// What failed.
    pub message: String,
}

pub(super) fn fail(path: &Path) -> impl Fn(&dyn std::fmt::Display) -> ReportError + '_ {
    move |e| ReportError {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

fn cell(c: &Cell) -> String {
    match (c.mean, c.insufficient) {
        (None, _) => "–".into(),
        (Some(m), false) => format!("{m:.2} (n={})", c.n),
        (Some(m), true) => format!("{m:.2} (n={}, too few)", c.n),
    }
}

pub(super) fn opt(v: Option<f64>) -> String {
    v.map_or("–".into(), |v| format!("{v:.3}"))
}

/// Writes the chosen files into `out`; returns their paths.
pub fn write_report(
    a: &Analysis,
    out: &Path,
    formats: &[Format],
) -> Result<Vec<PathBuf>, ReportError> {
    std::fs::create_dir_all(out).map_err(|e| fail(out)(&e))?;
    let mut written = Vec::new();
    if formats.contains(&Format::Json) {
        let path = out.join("analysis.json");
        let json = serde_json::to_string_pretty(a).map_err(|e| fail(&path)(&e))?;
        std::fs::write(&path, json).map_err(|e| fail(&path)(&e))?;
        written.push(path);
    }
    if formats.contains(&Format::Csv) && a.ethics_bowl_rounds > 0 {
        written.extend(write_csvs(a, out)?);
    }
    if let Some(q) = &a.qa {
        if formats.contains(&Format::Csv) {
            written.extend(super::qa_report::write_csvs(q, out)?);
        }
        if formats.contains(&Format::Svg) {
            let path = out.join("qa_accuracy.svg");
            std::fs::write(&path, super::charts::accuracy_chart(q)).map_err(|e| fail(&path)(&e))?;
            written.push(path);
        }
    }
    if let Some(f) = &a.structured
        && formats.contains(&Format::Csv)
    {
        written.extend(super::structured_report::write_csvs(f, out)?);
    }
    if formats.contains(&Format::Markdown) && !a.briefings.is_empty() {
        let dir = out.join("briefings");
        std::fs::create_dir_all(&dir).map_err(|e| fail(&dir)(&e))?;
        for (round_id, text) in &a.briefings {
            crate::domain::check_file_id(round_id).map_err(|e| fail(&dir)(&e))?;
            let path = dir.join(format!("{round_id}.md"));
            std::fs::write(&path, text).map_err(|e| fail(&path)(&e))?;
        }
        written.push(dir);
    }
    if formats.contains(&Format::Svg) && a.ethics_bowl_rounds > 0 {
        let charts = [
            (
                "ratings.svg",
                super::charts::ratings_chart(
                    &a.ratings.overall,
                    "Ratings (Bradley–Terry, Elo scale) with 95% intervals",
                ),
            ),
            (
                "criteria_profile.svg",
                super::charts::profile_chart(&a.model_comparison),
            ),
            (
                "dilemma_difficulty.svg",
                super::charts::difficulty_chart(&a.dilemma_difficulty),
            ),
            (
                "judge_agreement.svg",
                super::charts::agreement_chart(&a.judge_agreement),
            ),
        ];
        for (name, svg) in charts {
            let path = out.join(name);
            std::fs::write(&path, svg).map_err(|e| fail(&path)(&e))?;
            written.push(path);
        }
    }
    if formats.contains(&Format::Markdown) {
        let path = out.join("report.md");
        std::fs::write(&path, markdown(a)).map_err(|e| fail(&path)(&e))?;
        written.push(path);
    }
    Ok(written)
}

pub(super) fn write_csv(
    path: PathBuf,
    header: &[&str],
    rows: Vec<Vec<String>>,
) -> Result<PathBuf, ReportError> {
    let mut w = csv::Writer::from_path(&path).map_err(|e| fail(&path)(&e))?;
    w.write_record(header).map_err(|e| fail(&path)(&e))?;
    for r in rows {
        w.write_record(&r).map_err(|e| fail(&path)(&e))?;
    }
    w.flush().map_err(|e| fail(&path)(&e))?;
    Ok(path)
}

pub(super) fn num(v: Option<f64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
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
            "flagged_unacknowledged",
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
    let mut rows = Vec::new();
    for p in &a.judge_agreement.pairs {
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
    if let Some(p) = &a.panels {
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
        files.push(write_csv(
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
        )?);
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
    Ok(files)
}

fn markdown(a: &Analysis) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Tournament analysis\n");
    let _ = writeln!(
        s,
        "{} rounds ({} complete). Each figure is a mean over usable judgments (parsed, or corrected by hand), with its n; \
         a figure on fewer than {MIN_N} observations is marked \"too few\".\n",
        a.rounds, a.complete_rounds
    );
    if a.ethics_bowl_rounds > 0 {
        ethics_markdown(&mut s, a);
    }
    if let Some(q) = &a.qa {
        super::qa_report::markdown(&mut s, q);
    }
    if let Some(f) = &a.structured {
        super::structured_report::markdown(&mut s, f);
    }
    s
}

fn ethics_markdown(s: &mut String, a: &Analysis) {
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
    let flagged: Vec<&ConsistencyRow> = a
        .consistency
        .iter()
        .filter(|c| c.flagged_unacknowledged)
        .collect();
    let honest = a.consistency.iter().filter(|c| c.acknowledged).count();
    let _ = writeln!(s, "\n## Consistency\n");
    let _ = writeln!(
        s,
        "{} consistency tests; {} acknowledged an inconsistency or drew a distinction; {} were flagged: a judges' consistency score \
         of {} or less with no acknowledgement in the answer.\n",
        a.consistency.len(),
        honest,
        flagged.len(),
        super::tables::LOW_CONSISTENCY
    );
    if !flagged.is_empty() {
        let _ = writeln!(
            s,
            "| round (transcript: rounds/<id>.json) | model | team | stated principle | consistency score |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|");
        for c in flagged {
            let _ = writeln!(
                s,
                "| {} | {} | {:?} | {} | {} |",
                c.round_id,
                c.model,
                c.team,
                c.principle
                    .clone()
                    .unwrap_or_else(|| "(not labelled)".into())
                    .replace('|', "/"),
                opt(c.consistency_score)
            );
        }
    }
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
        a.ratings.matches,
        super::ratings::DRAW_MARGIN,
        a.ratings.draws
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
    let fmt_diff = |d: &super::bias::Difference| match (d.mean, d.low, d.high) {
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
    let ceiling: Vec<&super::bias::Distribution> = b
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
            "No exchange was scored by two judges or more (use `judging = \"all\"`), so agreement cannot be measured."
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
    if let Some(p) = &a.panels {
        panel_markdown(s, p);
    }
}

fn panel_markdown(s: &mut String, p: &PanelFigures) {
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
