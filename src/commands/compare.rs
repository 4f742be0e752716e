//! `ethics-bowl compare A B [--out DIR] [--json]`: two results folders of one protocol side
//! by side (see `analysis::compare`), as Markdown on stdout (or with `--json` one JSON
//! document, [`CompareJson`]), and with `--out` as `compare.md`,
//! `compare_pairs.csv` and `compare_judges.csv`. The Markdown names the runs by their
//! folders (as `open --compare` does, see `run_names`) and verdicts in the protocol's terms
//! (Team A, Pro), so a run is never taken for a team; the CSVs keep their `_a`/`_b` columns.

use std::fmt::Write as _;
use std::path::Path;

use ethics_bowl::analysis::compare::{
    Comparison, JudgeInBoth, PairedJudgment, RatingInBoth, compare,
};
use ethics_bowl::analysis::figures::{Style, Value};
use ethics_bowl::analysis::judge_views::{JudgeViewCount, describe};
use ethics_bowl::analysis::stats::statistic::Statistic;
use ethics_bowl::domain::{ProtocolKind, Round};
use ethics_bowl::sanitize::sanitize;
use ethics_bowl::store::{RoundFilter, Store};
use ethics_bowl::tui::mirror::{run_names, verdict_in_terms};
use serde::Serialize;

use super::UsageError;

/// `compare --json`: the comparison the Markdown shows, every pair included.
#[derive(Serialize)]
struct CompareJson<'a> {
    protocol: ProtocolKind,
    a: Folder,
    b: Folder,
    rounds: RoundCounts,
    agreement: Agreement,
    /// Each model's Bradley–Terry rating in both (Ethics Bowl; empty otherwise).
    ratings: &'a [RatingInBoth],
    /// What each folder's judges saw, when the folders differ in it; else null.
    judges_saw: Option<JudgesSaw<'a>>,
    judges: &'a [JudgeInBoth],
    /// Every judgment usable in both, with whether its verdict flipped.
    pairs: Vec<Pair<'a>>,
}

/// One folder compared: its path and the name the Markdown and the UI give it.
#[derive(Serialize)]
struct Folder {
    dir: String,
    name: String,
}

/// Rounds in A, in B, and in both.
#[derive(Serialize)]
struct RoundCounts {
    a: usize,
    b: usize,
    both: usize,
}

/// How far the two folders' judgments agree.
#[derive(Serialize)]
struct Agreement {
    /// Judgments usable in both (same round, same judge).
    pairs: usize,
    /// Of those, the pairs with a margin in both, which the two figures below read.
    margins: usize,
    margin_correlation: Statistic,
    mean_abs_change: Statistic,
    /// Pairs whose verdict differs.
    flipped: usize,
}

/// What the judges saw in A and in B.
#[derive(Serialize)]
struct JudgesSaw<'a> {
    a: &'a [JudgeViewCount],
    b: &'a [JudgeViewCount],
}

/// A judgment in both folders.
#[derive(Serialize)]
struct Pair<'a> {
    #[serde(flatten)]
    pair: &'a PairedJudgment,
    flipped: bool,
}

impl<'a> CompareJson<'a> {
    fn of(c: &'a Comparison, a: &Path, b: &Path) -> Self {
        let (dir_a, dir_b) = (a.display().to_string(), b.display().to_string());
        let (name_a, name_b) = run_names(&dir_a, &dir_b);
        let (na, nb, both) = c.rounds;
        Self {
            protocol: c.protocol,
            a: Folder {
                dir: dir_a,
                name: name_a,
            },
            b: Folder {
                dir: dir_b,
                name: name_b,
            },
            rounds: RoundCounts { a: na, b: nb, both },
            agreement: Agreement {
                pairs: c.pairs.len(),
                margins: c
                    .pairs
                    .iter()
                    .filter(|p| p.margin_a.is_some() && p.margin_b.is_some())
                    .count(),
                margin_correlation: c.margin_agreement.correlation,
                mean_abs_change: c.margin_agreement.mean_abs_change,
                flipped: c.flipped,
            },
            ratings: &c.ratings,
            judges_saw: c.judges_saw.as_ref().map(|(a, b)| JudgesSaw { a, b }),
            judges: &c.judges,
            pairs: c
                .pairs
                .iter()
                .map(|p| Pair {
                    pair: p,
                    flipped: p.flipped(),
                })
                .collect(),
        }
    }
}

/// A folder's rounds and the protocol they played.
pub fn load(dir: &Path) -> Result<(ProtocolKind, Vec<Round>), UsageError> {
    let store = Store::open(dir).map_err(|e| UsageError(e.to_string()))?;
    super::remember_keys(&store);
    // Comparisons read judgments only: each round is held without its phases.
    let (rounds, errors) = store
        .load_rounds_with(&RoundFilter::default(), |mut round| {
            round.phases = Vec::new();
            round
        })
        .map_err(|e| UsageError(e.to_string()))?;
    for e in &errors {
        eprintln!("warning: {e}");
    }
    Ok((protocol(&store, &rounds), rounds))
}

/// The protocol a folder played: its tournament file's, else its first round's.
pub fn protocol(store: &Store, rounds: &[Round]) -> ProtocolKind {
    store
        .load_tournament()
        .ok()
        .flatten()
        .map(|t| t.protocol)
        .or_else(|| rounds.first().map(Round::kind))
        .unwrap_or(ProtocolKind::EthicsBowl)
}

fn num(v: Option<f64>, digits: usize) -> String {
    v.map_or("–".to_string(), |v| format!("{v:.digits$}"))
}

/// The comparison as Markdown.
fn markdown(c: &Comparison, a: &Path, b: &Path) -> String {
    let (name_a, name_b) = run_names(&a.display().to_string(), &b.display().to_string());
    // The runs' names, as the UI's compare mode calls them.
    let names = (sanitize(&name_a), sanitize(&name_b));
    let (ra, rb) = (names.0.as_str(), names.1.as_str());
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Comparison\n\n- {ra}: {}\n- {rb}: {}\n",
        sanitize(&a.display().to_string()),
        sanitize(&b.display().to_string())
    );
    let (na, nb, both) = c.rounds;
    let _ = writeln!(
        s,
        "{} rounds: {na} in {ra}, {nb} in {rb}, {both} in both; {} judgments usable in both (same round, same judge).\n",
        c.protocol.as_str(),
        c.pairs.len()
    );
    let flipped = if c.pairs.is_empty() {
        "–".to_string()
    } else {
        format!(
            "{} of {} ({:.0}%)",
            c.flipped,
            c.pairs.len(),
            100.0 * c.flipped as f64 / c.pairs.len() as f64
        )
    };
    let _ = writeln!(
        s,
        "| agreement between {ra} and {rb} (95% intervals, n counting rounds) | |\n|---|---|\n| correlation of the margins (Pearson) | {} |\n| mean absolute change of the margin | {} |\n| verdicts that flipped | {flipped} |\n",
        Value::Statistic(c.margin_agreement.correlation, Style::Decimals(3)).shown(),
        Value::Statistic(c.margin_agreement.mean_abs_change, Style::Decimals(2)).shown()
    );
    if !c.ratings.is_empty() {
        let _ = writeln!(
            s,
            "## Ratings (Bradley–Terry, 95% intervals)\n\n| model | {ra} | {rb} |\n|---|---|---|"
        );
        let show = |r: &Option<ethics_bowl::analysis::ratings::Rating>| {
            r.as_ref().map_or("–".to_string(), |r| r.shown())
        };
        for r in &c.ratings {
            let _ = writeln!(
                s,
                "| {} | {} | {} |",
                sanitize(&r.model),
                show(&r.a),
                show(&r.b)
            );
        }
        s.push('\n');
    }
    if let Some((in_a, in_b)) = &c.judges_saw {
        let _ = writeln!(
            s,
            "## What the judges saw\n\nThe folders differ in it: judgments paired across them, and each judge's \
             leniency in both, compare unlike conditions.\n\n- {ra}: {}\n- {rb}: {}\n",
            sanitize(&describe(in_a)),
            sanitize(&describe(in_b))
        );
    }
    let what = if c.protocol == ProtocolKind::QaDebate {
        "mean confidence"
    } else {
        "mean total given a team"
    };
    let _ = writeln!(
        s,
        "## Judges ({what})\n\n| judge | {ra} | {rb} |\n|---|---|---|"
    );
    for j in &c.judges {
        let _ = writeln!(
            s,
            "| {} | {} (n={}) | {} (n={}) |",
            sanitize(&j.judge),
            num(j.mean_a, 2),
            j.n_a,
            num(j.mean_b, 2),
            j.n_b
        );
    }
    let _ = writeln!(s, "\n## Judgments that changed verdict\n");
    let flips: Vec<_> = c.pairs.iter().filter(|p| p.flipped()).collect();
    if flips.is_empty() {
        s.push_str("None.\n");
    } else {
        let _ = writeln!(
            s,
            "| round | judge | verdict in {ra} | verdict in {rb} | margin in {ra} | margin in {rb} |\n|---|---|---|---|---|---|"
        );
        for p in flips {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} |",
                sanitize(&p.round_id),
                sanitize(&p.judge),
                verdict_in_terms(c.protocol, p.verdict_a),
                verdict_in_terms(c.protocol, p.verdict_b),
                num(p.margin_a, 1),
                num(p.margin_b, 1)
            );
        }
    }
    s
}

/// Writes a CSV, naming the file on failure.
fn write_csv(path: &Path, header: &[&str], rows: Vec<Vec<String>>) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_path(path)
        .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", path.display()))?;
    w.write_record(header)?;
    for r in rows {
        w.write_record(r.iter().map(|c| sanitize(c)))?;
    }
    w.flush()
        .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", path.display()))?;
    Ok(())
}

/// Compares two results folders.
pub fn run(a: &Path, b: &Path, out: Option<&Path>, json: bool) -> anyhow::Result<()> {
    let (kind_a, rounds_a) = load(a)?;
    let (kind_b, rounds_b) = load(b)?;
    if kind_a != kind_b {
        return Err(UsageError(format!(
            "{} holds {} rounds and {} holds {}: compare folders of one protocol",
            a.display(),
            kind_a.as_str(),
            b.display(),
            kind_b.as_str()
        ))
        .into());
    }
    let c = compare(kind_a, &rounds_a, &rounds_b);
    let text = markdown(&c, a, b);
    if json {
        super::json::print_versioned(CompareJson::of(&c, a, b))?;
    } else {
        print!("{text}");
    }
    if let Some(out) = out {
        std::fs::create_dir_all(out)
            .map_err(|e| anyhow::anyhow!("{}: cannot create: {e}", out.display()))?;
        std::fs::write(out.join("compare.md"), &text)
            .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", out.display()))?;
        let opt = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
        write_csv(
            &out.join("compare_pairs.csv"),
            &[
                "round_id",
                "judge",
                "verdict_a",
                "verdict_b",
                "margin_a",
                "margin_b",
                "flipped",
            ],
            c.pairs
                .iter()
                .map(|p| {
                    vec![
                        p.round_id.clone(),
                        p.judge.clone(),
                        p.verdict_a.to_string(),
                        p.verdict_b.to_string(),
                        opt(p.margin_a),
                        opt(p.margin_b),
                        p.flipped().to_string(),
                    ]
                })
                .collect(),
        )?;
        write_csv(
            &out.join("compare_judges.csv"),
            &["judge", "mean_a", "n_a", "mean_b", "n_b"],
            c.judges
                .iter()
                .map(|j| {
                    vec![
                        j.judge.clone(),
                        opt(j.mean_a),
                        j.n_a.to_string(),
                        opt(j.mean_b),
                        j.n_b.to_string(),
                    ]
                })
                .collect(),
        )?;
        eprintln!("wrote {}", out.join("compare.md").display());
    }
    Ok(())
}
