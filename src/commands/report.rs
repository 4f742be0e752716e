//! `ethics-bowl report DIR`: the analysis of what is stored, finished rounds so far, as
//! report.md, CSVs, analysis.json, SVG charts and report.html.

use std::path::{Path, PathBuf};

use ethics_bowl::analysis::figures::{Style, Value};
use ethics_bowl::analysis::flip::FlipRate;
use ethics_bowl::analysis::flip::flips_of;
use ethics_bowl::analysis::human::PersonReading;
use ethics_bowl::analysis::qa::{Lift, Proportion, QaFigures};
use ethics_bowl::analysis::structured::{SideAdvantage, StructuredFigures, StructuredModel};
use ethics_bowl::analysis::tables::unread_note;
use ethics_bowl::analysis::{
    Analysis, Format, analyse, providers_of, qa_share, run_of, warnings_of, write_html,
    write_report,
};
use ethics_bowl::domain::{ProtocolKind, QaFormat};
use serde::Serialize;

use super::UsageError;
use crate::cli::FormatArg;

/// Analyses the rounds in `dir` and writes the report files; prints what it wrote and the
/// figures below, or with `json` the same as one document ([`ReportJson`]).
pub fn run(
    dir: &Path,
    out: Option<&Path>,
    formats: &[FormatArg],
    json: bool,
) -> anyhow::Result<()> {
    let (store, rounds) = super::stored_rounds(dir)?;
    if rounds.is_empty() {
        return Err(UsageError(format!("{}: no rounds to analyse", dir.display())).into());
    }
    let formats: Vec<Format> = formats
        .iter()
        .map(|f| match f {
            FormatArg::Md => Format::Markdown,
            FormatArg::Csv => Format::Csv,
            FormatArg::Json => Format::Json,
            FormatArg::Svg => Format::Svg,
            FormatArg::Html => Format::Html,
        })
        .collect();
    let target = out
        .map(Path::to_path_buf)
        .unwrap_or_else(|| dir.join("report"));
    // Providers, for the same-provider check, and the run's warnings, which the report opens
    // with, from the tournament's record when there is one.
    let provider_of = providers_of(&store);
    // People's judgments, when any: a damaged file stops the report, naming it, rather than
    // leave the judges unmeasured without a word.
    let annotations = ethics_bowl::annotations::load_all(store.dir())
        .map_err(|e| UsageError(format!("{e}; fix or remove it, then run the report again")))?;
    let (people, blind) = PersonReading::of_annotations(&annotations);
    let analysis = analyse(&rounds, &provider_of)
        .with_warnings(warnings_of(&store))
        .with_run(run_of(&store))
        .with_flips(flips_of(&store, &rounds))
        .with_people(&rounds, &people, blind);
    // Without --json each file is named as soon as it is written, so a later failure still
    // leaves the list of what was.
    let wrote = |path: &Path| {
        if !json {
            println!("wrote {}", path.display());
        }
    };
    let mut files = write_report(&analysis, &target, &formats)?;
    files.iter().for_each(|p| wrote(p));
    if formats.contains(&Format::Html) {
        let page = write_html(&analysis, &rounds, &target)?;
        wrote(&page);
        files.push(page);
    }
    if json {
        return super::json::print_versioned(ReportJson::of(dir, &target, &files, &analysis));
    }
    for f in &analysis.position_flips {
        let effect = f
            .position_effect
            .map(|e| {
                format!(
                    "; position effect {}",
                    Value::Statistic(e, Style::Signed(1)).shown()
                )
            })
            .unwrap_or_default();
        println!(
            "position flips: {} ({}): {} of exchanges{effect}",
            ethics_bowl::sanitize::sanitize(&f.judge),
            f.protocol,
            Value::Share(f.flips).shown()
        );
    }
    for kind in ProtocolKind::ALL {
        match kind {
            // Its tables are in the report's files only, but for what cannot be computed.
            ProtocolKind::EthicsBowl => {
                if let Some(note) = unread_note(&analysis.consistency) {
                    println!("\nconsistency flags: {note}");
                }
            }
            ProtocolKind::QaDebate => {
                if let Some(q) = &analysis.qa {
                    print_qa(q);
                }
            }
            ProtocolKind::StructuredDebate => {
                if let Some(f) = &analysis.structured {
                    print_structured(f);
                }
            }
        }
    }
    Ok(())
}

/// `report --json`: what the report prints, as one document. The figures are the objects
/// `analysis.json` holds under the same keys (a subset of it: the whole analysis is that
/// file, named in `files` when `--format` writes it).
#[derive(Serialize)]
struct ReportJson<'a> {
    /// The results folder read.
    dir: String,
    /// The folder written.
    out: String,
    /// Every file written, in the order written.
    files: Vec<String>,
    rounds: usize,
    complete_rounds: usize,
    /// Why the Ethics Bowl's consistency flags are not computed for some tests, if so.
    consistency_note: Option<String>,
    position_flips: &'a [FlipRate],
    qa: Option<QaJson<'a>>,
    structured: Option<StructuredJson<'a>>,
}

/// The question-answer debate's judge accuracy, as `report` prints it.
#[derive(Serialize)]
struct QaJson<'a> {
    by_format: &'a std::collections::BTreeMap<QaFormat, Proportion>,
    lifts: &'a [Lift],
    awaiting_review: usize,
}

/// The structured debate's side advantage and win rates, as `report` prints them.
#[derive(Serialize)]
struct StructuredJson<'a> {
    side: &'a SideAdvantage,
    models: &'a [StructuredModel],
}

impl<'a> ReportJson<'a> {
    fn of(dir: &Path, out: &Path, files: &[PathBuf], analysis: &'a Analysis) -> Self {
        Self {
            dir: dir.display().to_string(),
            out: out.display().to_string(),
            files: files.iter().map(|p| p.display().to_string()).collect(),
            rounds: analysis.rounds,
            complete_rounds: analysis.complete_rounds,
            consistency_note: unread_note(&analysis.consistency),
            position_flips: &analysis.position_flips,
            qa: analysis.qa.as_ref().map(|q| QaJson {
                by_format: &q.by_format,
                lifts: &q.lifts,
                awaiting_review: q.awaiting_review,
            }),
            structured: analysis.structured.as_ref().map(|f| StructuredJson {
                side: &f.side,
                models: &f.models,
            }),
        }
    }
}

/// The structured debate's totals: the side advantage and each model's win rate.
fn print_structured(f: &StructuredFigures) {
    let a = &f.side;
    println!(
        "\nstructured debate: {} judgments; Pro won {}, Con {}, {} ties (Pro's share of decided: {}); win rates count a draw as half",
        a.judgments,
        a.pro_wins,
        a.con_wins,
        a.ties,
        qa_share(&a.pro_share)
    );
    for m in &f.models {
        println!(
            "  {:<18} win rate {}  total as Pro {}  as Con {}",
            m.model,
            Value::Statistic(m.win_rate, Style::Percent).shown(),
            m.pro_total.mean.map_or("–".into(), |v| format!("{v:.2}")),
            m.con_total.mean.map_or("–".into(), |v| format!("{v:.2}"))
        );
    }
}

/// The question-answer debate's judge accuracy, per format and per judge.
fn print_qa(q: &QaFigures) {
    println!("\njudge accuracy (95% Wilson interval, n):");
    for (format, p) in &q.by_format {
        println!("  {:<12} {}", format.as_str(), qa_share(p));
    }
    for l in &q.lifts {
        let points = |v| Value::Statistic(v, Style::Points).shown();
        println!(
            "  judge {} on {}: debate minus naive {}, expert minus debate {}",
            l.judge,
            l.level,
            points(l.lift_over_naive),
            points(l.gap_to_expert)
        );
    }
    if q.awaiting_review > 0 {
        println!(
            "  ({} judgments await review and are not counted)",
            q.awaiting_review
        );
    }
}
