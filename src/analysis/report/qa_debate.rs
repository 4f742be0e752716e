//! The question-answer debate's part of the report: judge accuracy against the baselines,
//! debaters and calibration ([`QaFigures`]) as Markdown tables, tidy CSVs and a chart.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::files::{Format, ReportError, write_csv, write_file};
use crate::analysis::charts;
use crate::analysis::qa::{Proportion, QaFigures};
use crate::analysis::show::{num, share};
use crate::domain::{Label, QaFormat};

fn points(v: Option<f64>) -> String {
    v.map_or("–".into(), |v| format!("{:+.0} pts", v * 100.0))
}

fn format_name(f: QaFormat) -> &'static str {
    match f {
        QaFormat::Debate => "debate",
        QaFormat::Consultancy => "consultancy",
        QaFormat::Naive => "naive judge",
        QaFormat::Expert => "expert judge",
        QaFormat::ExpertCot => "expert judge (reasoning first)",
        QaFormat::ThreeWay => "three-way expert (label only)",
        QaFormat::ThreeWayArgued => "three-way expert (thinking and argument first)",
    }
}

/// Appends the section to a report.
pub fn markdown(s: &mut String, q: &QaFigures) {
    let _ = writeln!(s, "## Question-answer debate: judge accuracy\n");
    let _ = writeln!(
        s,
        "{} rounds. Accuracy is the share of usable judgments (parsed, or corrected by hand) that chose the \
         correct answer, with a Wilson 95% interval; {} judgments await review and are not counted.\n",
        q.rounds, q.awaiting_review
    );
    let _ = writeln!(s, "| format | accuracy |");
    let _ = writeln!(s, "|---|---|");
    for (f, p) in &q.by_format {
        let _ = writeln!(s, "| {} | {} |", format_name(*f), share(p));
    }
    let _ = writeln!(
        s,
        "\n### Debate against the baselines, per judge and level\n"
    );
    let formats: Vec<QaFormat> = QaFormat::ALL
        .into_iter()
        .filter(|f| q.by_format.contains_key(f))
        .collect();
    let names: Vec<&str> = formats.iter().map(|f| format_name(*f)).collect();
    let _ = writeln!(
        s,
        "| judge | level | {} | lift over naive | gap to expert |",
        names.join(" | ")
    );
    let _ = writeln!(s, "|---|---|{}---|---|", "---|".repeat(formats.len()));
    for l in &q.lifts {
        let cells: Vec<String> = formats
            .iter()
            .map(|f| l.formats.get(f).map_or("–".into(), share))
            .collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            l.judge,
            l.level,
            cells.join(" | "),
            points(l.lift_over_naive),
            points(l.gap_to_expert)
        );
    }
    let _ = writeln!(s, "\n### Accuracy per configuration\n");
    let _ = writeln!(
        s,
        "| format | debaters | judge | relation | level | accuracy |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|");
    for c in &q.configurations {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            format_name(c.format),
            c.debaters,
            c.judge,
            c.relation.as_deref().unwrap_or(""),
            c.level,
            share(&c.accuracy)
        );
    }
    if !q.positions.is_empty() {
        let _ = writeln!(s, "\n### By which side was correct, and by position\n");
        let _ = writeln!(
            s,
            "| format | correct answer was A's | was B's | correct debater read first | read second |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|");
        for p in &q.positions {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} |",
                format_name(p.format),
                share(&p.correct_a),
                share(&p.correct_b),
                share(&p.correct_first),
                share(&p.correct_second)
            );
        }
    }
    if !q.debaters.is_empty() {
        let _ = writeln!(s, "\n### Debaters\n");
        let _ = writeln!(
            s,
            "Win rate: how often the judge chose the debater's answer. Persuasiveness: Bradley–Terry over cross-play \
             debates won (Elo scale, 95% bootstrap interval). Self-play accuracy: judge accuracy in debates where the \
             model argued both sides; the paper's finding is that more persuasive debaters make judges more accurate.\n"
        );
        let _ = writeln!(
            s,
            "| model | wins when correct | wins when incorrect | quotes verified | cut at the word limit | persuasiveness | self-play accuracy |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|---|");
        for d in &q.debaters {
            let rating = d.persuasiveness.as_ref().map_or("–".into(), |r| {
                format!(
                    "{:.0} [{:.0}–{:.0}] ({} debates)",
                    r.rating, r.low, r.high, r.matches
                )
            });
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} |",
                d.model,
                share(&d.wins_when_correct),
                share(&d.wins_when_incorrect),
                share(&d.quotes_verified),
                d.word_limit_violations,
                rating,
                share(&d.self_play_accuracy)
            );
        }
        let _ = writeln!(
            s,
            "\nCorrelation of persuasiveness with self-play accuracy across models: {}.",
            q.persuasiveness_accuracy_correlation
                .map_or("– (needs three models with both)".into(), |r| format!(
                    "{r:.2}"
                ))
        );
    }
    if !q.three_way.is_empty() {
        let _ = writeln!(
            s,
            "\n### Three-way baselines (the source's): proved, disproved or unknown\n"
        );
        let _ = writeln!(
            s,
            "The judge sees the game and labels the goal; accuracy is over three labels (chance is 33%), with a \
             Wilson 95% interval, overall and on the items of each correct label.\n"
        );
        let _ = writeln!(
            s,
            "| format | judge | accuracy | on proved | on disproved | on unknown | labels given (p/d/u) |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|---|");
        for t in &q.three_way {
            let on = |l: Label| t.by_label.get(&l).map_or("–".into(), share);
            let given = |l: Label| t.given.get(&l).copied().unwrap_or(0);
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {}/{}/{} |",
                format_name(t.format),
                t.judge,
                share(&t.accuracy),
                on(Label::Proved),
                on(Label::Disproved),
                on(Label::Unknown),
                given(Label::Proved),
                given(Label::Disproved),
                given(Label::Unknown)
            );
        }
    }
    let _ = writeln!(s, "\n### Calibration of judges' confidence\n");
    let _ = writeln!(s, "| stated confidence | mean stated | accuracy |");
    let _ = writeln!(s, "|---|---|---|");
    for b in &q.calibration {
        let _ = writeln!(
            s,
            "| {:.0}–{:.0} | {} | {} |",
            b.low,
            b.high,
            b.mean_confidence.map_or("–".into(), |c| format!("{c:.0}")),
            share(&b.accuracy)
        );
    }
    if let Some(w) = &q.both_wrong {
        let _ = writeln!(
            s,
            "\n{} judgments were on items where both answers were wrong: mean confidence {} against {} when one \
             answer was right (a judge that notices should be less sure).",
            w.n,
            w.mean_confidence.map_or("–".into(), |c| format!("{c:.0}")),
            w.mean_confidence_otherwise
                .map_or("–".into(), |c| format!("{c:.0}"))
        );
    }
    let _ = writeln!(s);
}

fn proportion_cells(p: &Proportion) -> [String; 5] {
    [
        p.hits.to_string(),
        p.n.to_string(),
        num(p.share),
        num(p.low),
        num(p.high),
    ]
}

/// The section's files in the formats asked for: the CSVs, and the accuracy chart.
pub(super) fn files(
    q: &QaFigures,
    out: &Path,
    formats: &[Format],
) -> Result<Vec<PathBuf>, ReportError> {
    let mut written = Vec::new();
    if formats.contains(&Format::Csv) {
        written.extend(write_csvs(q, out)?);
    }
    if formats.contains(&Format::Svg) {
        written.push(write_file(
            out.join("qa_accuracy.svg"),
            charts::accuracy_chart(q),
        )?);
    }
    Ok(written)
}

/// `qa_accuracy.csv` (one row per configuration), `qa_debaters.csv`, and
/// `qa_three_way.csv` when a three-way baseline ran (per format and judge: a row over
/// every item, its `correct_label` empty, then a row per correct label).
fn write_csvs(q: &QaFigures, out: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let rows = q
        .configurations
        .iter()
        .map(|c| {
            let mut row = vec![
                c.format.as_str().to_string(),
                c.debaters.clone(),
                c.judge.clone(),
                c.relation.clone().unwrap_or_default(),
                c.level.clone(),
            ];
            row.extend(proportion_cells(&c.accuracy));
            row
        })
        .collect();
    let accuracy = write_csv(
        out.join("qa_accuracy.csv"),
        &[
            "format",
            "debaters",
            "judge",
            "relation",
            "level",
            "correct",
            "n",
            "accuracy",
            "wilson_low",
            "wilson_high",
        ],
        rows,
    )?;
    let rows = q
        .debaters
        .iter()
        .map(|d| {
            let rating = d.persuasiveness.as_ref();
            vec![
                d.model.clone(),
                num(d.wins_when_correct.share),
                d.wins_when_correct.n.to_string(),
                num(d.wins_when_incorrect.share),
                d.wins_when_incorrect.n.to_string(),
                num(d.quotes_verified.share),
                d.quotes_verified.n.to_string(),
                d.word_limit_violations.to_string(),
                num(rating.map(|r| r.rating)),
                num(rating.map(|r| r.low)),
                num(rating.map(|r| r.high)),
                num(d.self_play_accuracy.share),
                d.self_play_accuracy.n.to_string(),
            ]
        })
        .collect();
    let debaters = write_csv(
        out.join("qa_debaters.csv"),
        &[
            "model",
            "win_rate_correct",
            "n_correct",
            "win_rate_incorrect",
            "n_incorrect",
            "quote_verification_rate",
            "quotes",
            "word_limit_violations",
            "persuasiveness",
            "persuasiveness_low",
            "persuasiveness_high",
            "self_play_accuracy",
            "n_self_play",
        ],
        rows,
    )?;
    let mut written = vec![accuracy, debaters];
    if !q.three_way.is_empty() {
        let rows = q
            .three_way
            .iter()
            .flat_map(|t| {
                let overall = (String::new(), &t.accuracy);
                std::iter::once(overall)
                    .chain(t.by_label.iter().map(|(l, p)| (l.as_str().to_string(), p)))
                    .map(|(label, p)| {
                        let mut row = vec![t.format.as_str().to_string(), t.judge.clone(), label];
                        row.extend(proportion_cells(p));
                        row
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        written.push(write_csv(
            out.join("qa_three_way.csv"),
            &[
                "format",
                "judge",
                "correct_label",
                "correct",
                "n",
                "accuracy",
                "wilson_low",
                "wilson_high",
            ],
            rows,
        )?);
    }
    Ok(written)
}
