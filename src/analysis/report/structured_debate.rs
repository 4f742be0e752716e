//! The structured debate's part of the report: side advantage, win rates read through the
//! bands (a draw is not a win), standings, concessions and fallacies ([`StructuredFigures`]) as Markdown tables and a tidy CSV, and
//! each judged round's decision briefing.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::files::{Format, ReportError, create_dir, fail, write_csv, write_text};
use crate::analysis::show::{num, share};
use crate::analysis::structured::{Mean, StructuredFigures};
use crate::domain::{Fallacy, Standing, TotalBands};

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

/// Appends the section to a report.
pub fn markdown(s: &mut String, f: &StructuredFigures) {
    let _ = writeln!(s, "## Structured debate\n");
    let _ = writeln!(
        s,
        "{} rounds; {} judgments await review and are not counted; {} replies needed the correction prompt, {} were \
         kept as free text; {} rule violations were recorded. A side's total is the mean weighted score of its \
         arguments, computed from the judge's scores. {}\n",
        f.rounds,
        f.awaiting_review,
        f.corrected_replies,
        f.fallback_replies,
        f.violations,
        bands_sentence(&f.bands)
    );
    let a = &f.side;
    let _ = writeln!(
        s,
        "Side advantage: over {} judgments Pro won {} ({} clearly), Con {} ({} clearly), {} evenly matched; Pro's \
         share of the decided ones {}; mean Pro total minus mean Con total {}.\n",
        a.judgments,
        a.pro_wins,
        a.pro_clear_wins,
        a.con_wins,
        a.con_clear_wins,
        a.ties,
        share(&a.pro_share),
        a.mean_margin.map_or("–".into(), |m| format!("{m:+.2}"))
    );
    let _ = writeln!(
        s,
        "| model | judgments | wins (clearly) | draws | win rate | total as Pro | total as Con | arguments | upheld | partly upheld | refuted | uncertain | concedes in cross-examination |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for m in &f.models {
        let standing = |st: Standing| {
            pct(
                m.standings.get(&st).copied().unwrap_or(0),
                m.assessed_arguments,
            )
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} ({}) | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            m.model,
            m.judgments,
            m.wins,
            m.clear_wins,
            m.draws,
            m.win_rate
                .map_or("–".into(), |w| format!("{:.0}%", w * 100.0)),
            mean(&m.pro_total),
            mean(&m.con_total),
            m.assessed_arguments,
            standing(Standing::Upheld),
            standing(Standing::PartiallyUpheld),
            standing(Standing::Refuted),
            standing(Standing::Uncertain),
            share(&m.concessions)
        );
    }
    let names: Vec<&str> = Fallacy::ALL.iter().map(|f| f.as_str()).collect();
    let _ = writeln!(s, "\nFallacies found in each model's arguments:\n");
    let _ = writeln!(s, "| model | {} |", names.join(" | "));
    let _ = writeln!(s, "|---|{}", "---|".repeat(names.len()));
    for m in &f.models {
        let counts: Vec<String> = Fallacy::ALL
            .iter()
            .map(|x| m.fallacies.get(x).copied().unwrap_or(0).to_string())
            .collect();
        let _ = writeln!(s, "| {} | {} |", m.model, counts.join(" | "));
    }
    let _ = writeln!(
        s,
        "\nEach judged round's decision briefing (key insight, recommendation, open questions, argument trace) is \
         in `briefings/`.\n"
    );
}

/// How the totals were read: the bands, in a sentence (the article's when no round says).
fn bands_sentence(bands: &[TotalBands]) -> String {
    let one = |b: &TotalBands| format!("{} (clearly ahead)", b.describe());
    let read: Vec<String> = if bands.is_empty() {
        vec![one(&TotalBands::default())]
    } else {
        bands.iter().map(one).collect()
    };
    format!(
        "Reading the totals, {}; evenly matched is a draw, and a draw is not a win.",
        read.join("; in other rounds, ")
    )
}

/// The section's files in the formats asked for: the CSV, and with the Markdown report the
/// decision briefings (round id, Markdown) in `briefings/`.
pub(super) fn files(
    f: &StructuredFigures,
    briefings: &[(String, String)],
    out: &Path,
    formats: &[Format],
) -> Result<Vec<PathBuf>, ReportError> {
    let mut written = Vec::new();
    if formats.contains(&Format::Csv) {
        written.extend(write_csvs(f, out)?);
    }
    if formats.contains(&Format::Markdown) && !briefings.is_empty() {
        let dir = out.join("briefings");
        create_dir(&dir)?;
        for (round_id, text) in briefings {
            crate::domain::check_file_id(round_id).map_err(|e| fail(&dir)(&e))?;
            write_text(dir.join(format!("{round_id}.md")), text)?;
        }
        written.push(dir);
    }
    Ok(written)
}

/// `structured_models.csv`: one row per model.
fn write_csvs(f: &StructuredFigures, out: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let mut header = vec![
        "model",
        "judgments",
        "wins",
        "clear_wins",
        "draws",
        "win_rate",
        "pro_total",
        "n_pro",
        "con_total",
        "n_con",
        "assessed_arguments",
        "upheld",
        "partially_upheld",
        "refuted",
        "uncertain",
        "concessions",
        "cross_answers",
    ];
    header.extend(Fallacy::ALL.iter().map(|f| f.as_str()));
    let rows = f
        .models
        .iter()
        .map(|m| {
            let standing = |s: Standing| m.standings.get(&s).copied().unwrap_or(0).to_string();
            let mut row = vec![
                m.model.clone(),
                m.judgments.to_string(),
                m.wins.to_string(),
                m.clear_wins.to_string(),
                m.draws.to_string(),
                num(m.win_rate),
                num(m.pro_total.mean),
                m.pro_total.n.to_string(),
                num(m.con_total.mean),
                m.con_total.n.to_string(),
                m.assessed_arguments.to_string(),
                standing(Standing::Upheld),
                standing(Standing::PartiallyUpheld),
                standing(Standing::Refuted),
                standing(Standing::Uncertain),
                m.concessions.hits.to_string(),
                m.concessions.n.to_string(),
            ];
            row.extend(
                Fallacy::ALL
                    .iter()
                    .map(|x| m.fallacies.get(x).copied().unwrap_or(0).to_string()),
            );
            row
        })
        .collect();
    Ok(vec![write_csv(
        out.join("structured_models.csv"),
        &header,
        rows,
    )?])
}
