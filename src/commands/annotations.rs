//! `ethics-bowl annotations`: human judgments kept apart from the models' (see
//! `ethics_bowl::annotations`): a blank spreadsheet for a reproducible sample of rounds,
//! its import once filled in, and the export of everything stored.

use std::path::{Path, PathBuf};

use clap::{Subcommand, ValueEnum};
use ethics_bowl::annotations::csv::ImportOptions;
use ethics_bowl::annotations::{self, AnnotationError, DEFAULT_SEED, RoundInfo, Strata};
use ethics_bowl::domain::ProtocolKind;

use super::UsageError;

/// `annotations` subcommands.
#[derive(Debug, Subcommand)]
pub enum Action {
    /// Draw a reproducible sample of finished rounds (recorded in
    /// RESULTS/annotations/sample.json) and write a blank spreadsheet of its rows.
    Template {
        /// The tournament's results folder (results/<tournament>).
        #[arg(value_name = "RESULTS")]
        dir: PathBuf,
        /// How many rounds (default: every finished round).
        #[arg(long, value_name = "N")]
        sample: Option<usize>,
        /// Stratify the sample: a share of every dilemma, pairing of debaters, or judge.
        #[arg(long, value_enum)]
        strata: Option<StrataArg>,
        /// The seed of the draw: the same seed, rounds and options draw the same sample.
        #[arg(long, default_value_t = DEFAULT_SEED)]
        seed: u64,
        /// Write the spreadsheet here instead of to stdout.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Record this sample in place of a different one already recorded.
        #[arg(long)]
        replace: bool,
    },
    /// Store a filled-in spreadsheet of human judgments; checked whole first, and nothing
    /// is written if any row is wrong.
    Import {
        /// The tournament's results folder (results/<tournament>).
        #[arg(value_name = "RESULTS")]
        dir: PathBuf,
        /// The CSV file.
        file: PathBuf,
        /// Whose judgments these are (unless the file has an `annotator` column).
        #[arg(long, value_name = "NAME")]
        annotator: Option<String>,
        /// The annotator judged without seeing the debaters' model names.
        #[arg(long)]
        blind: bool,
        /// Write over judgments this annotator already stored for these rounds.
        #[arg(long)]
        replace: bool,
    },
    /// Write every stored human judgment as one long CSV, an `annotator` column first.
    Export {
        /// The tournament's results folder (results/<tournament>).
        #[arg(value_name = "RESULTS")]
        dir: PathBuf,
        /// Write here instead of to stdout.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
}

/// What a sample is stratified by.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum StrataArg {
    /// The dilemma (question-answer: the item; structured debate: the topic).
    Dilemma,
    /// The pairing of debaters' models.
    Model,
    /// The judge.
    Judge,
}

impl From<StrataArg> for Strata {
    fn from(arg: StrataArg) -> Self {
        match arg {
            StrataArg::Dilemma => Self::Dilemma,
            StrataArg::Model => Self::Model,
            StrataArg::Judge => Self::Judge,
        }
    }
}

/// Runs an `annotations` subcommand.
pub fn run(action: Action) -> anyhow::Result<()> {
    match action {
        Action::Template {
            dir,
            sample,
            strata,
            seed,
            out,
            replace,
        } => template(
            &dir,
            sample,
            strata.map(Strata::from),
            seed,
            out.as_deref(),
            replace,
        ),
        Action::Import {
            dir,
            file,
            annotator,
            blind,
            replace,
        } => import(&dir, &file, annotator, blind, replace),
        Action::Export { dir, out } => export(&dir, out.as_deref()),
    }
}

/// A library error as the command reports it: exit code 2 for everything the user can fix
/// (the spreadsheet, the name, a judgment already stored, a damaged file), the store's own
/// errors as they are.
fn refused(e: AnnotationError) -> anyhow::Error {
    match e {
        AnnotationError::Store(store) => store.into(),
        other => UsageError(other.to_string()).into(),
    }
}

/// The finished and unfinished rounds of a results folder, as annotations see them.
fn rounds(dir: &Path) -> Result<Vec<RoundInfo>, UsageError> {
    let (_, rounds) = super::stored_rounds(dir)?;
    Ok(rounds.iter().map(RoundInfo::of).collect())
}

fn template(
    dir: &Path,
    size: Option<usize>,
    strata: Option<Strata>,
    seed: u64,
    out: Option<&Path>,
    replace: bool,
) -> anyhow::Result<()> {
    let rounds = rounds(dir)?;
    let mut protocols: Vec<ProtocolKind> = rounds.iter().map(|r| r.protocol).collect();
    protocols.sort();
    protocols.dedup();
    let protocol = match protocols.as_slice() {
        [one] => *one,
        [] => return Err(UsageError(format!("{}: no rounds stored", dir.display())).into()),
        _ => {
            return Err(UsageError(format!(
                "{}: holds rounds of several protocols; a spreadsheet holds one protocol's",
                dir.display()
            ))
            .into());
        }
    };
    let drawn = annotations::sample::draw(&rounds, size, strata, seed).map_err(refused)?;
    let sheet = annotations::csv::template(protocol, &drawn.round_ids, &rounds).map_err(refused)?;
    // The sample is recorded before the sheet is handed out, under the folder's lock.
    let sample = {
        let _writer = ethics_bowl::store::Store::open(dir)?.locked()?;
        annotations::sample::record(dir, drawn, replace).map_err(refused)?
    };
    if sample.round_ids.is_empty() {
        return Err(UsageError("the sample is empty".into()).into());
    }
    write_out(out, &sheet)?;
    eprintln!(
        "{} round{} of {} (seed {}{}) recorded in {}",
        sample.round_ids.len(),
        if sample.round_ids.len() == 1 { "" } else { "s" },
        sample.population,
        sample.seed,
        sample
            .strata
            .map(|s| format!(", by {}", strata_name(s)))
            .unwrap_or_default(),
        dir.join(annotations::store::FOLDER)
            .join(annotations::sample::SAMPLE_FILE)
            .display()
    );
    Ok(())
}

fn strata_name(strata: Strata) -> &'static str {
    match strata {
        Strata::Dilemma => "dilemma",
        Strata::Model => "model",
        Strata::Judge => "judge",
    }
}

fn import(
    dir: &Path,
    file: &Path,
    annotator: Option<String>,
    blind: bool,
    replace: bool,
) -> anyhow::Result<()> {
    if let Some(name) = &annotator {
        annotations::check_annotator(name).map_err(refused)?;
    }
    let text = super::read_input(file)?;
    let rounds = rounds(dir)?;
    let options = ImportOptions {
        annotator,
        blind,
        written_at: ethics_bowl::domain::now_rfc3339(),
    };
    let parsed = annotations::csv::parse(&file.display().to_string(), &text, &rounds, &options)
        .map_err(|e| refused(e.into()))?;
    let written = annotations::save_all(dir, &parsed, replace).map_err(refused)?;
    let mut people: Vec<&str> = parsed.iter().map(|a| a.annotator.as_str()).collect();
    people.dedup();
    eprintln!(
        "stored {} human judgment{} ({}) in {}",
        written.len(),
        if written.len() == 1 { "" } else { "s" },
        people.join(", "),
        dir.join(annotations::store::FOLDER).display()
    );
    Ok(())
}

fn export(dir: &Path, out: Option<&Path>) -> anyhow::Result<()> {
    ethics_bowl::store::Store::open(dir)?;
    let all = annotations::load_all(dir).map_err(refused)?;
    let sheet = annotations::csv::export(&all).map_err(refused)?;
    write_out(out, &sheet)
}

/// The CSV to its file, or to stdout.
fn write_out(out: Option<&Path>, text: &str) -> anyhow::Result<()> {
    match out {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| UsageError(format!("{}: cannot write: {e}", path.display())).into()),
        None => {
            use std::io::Write;
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(text.as_bytes())?;
            stdout.flush()?;
            Ok(())
        }
    }
}
