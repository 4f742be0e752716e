//! The command line, as clap definitions.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

/// Run tournaments in which language models reason about hard questions in front of judge
/// models. With no command, runs ./tournament.toml, else the source checkout's sample
/// (sample-config/tournament.toml); `ethics-bowl init` writes the sample into a folder.
#[derive(Debug, Parser)]
#[command(name = "ethics-bowl", version, about)]
pub struct Cli {
    /// Write log lines to this file instead of stderr.
    #[arg(long, global = true, value_name = "FILE")]
    pub log_file: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a tournament (default: ./tournament.toml, else sample-config/tournament.toml);
    /// rerunning resumes it.
    Run {
        /// The tournament file.
        config: Option<PathBuf>,
        /// Progress on stderr and a summary at the end, instead of the terminal UI (the
        /// default when stdout is not a terminal).
        #[arg(long)]
        headless: bool,
        /// The UI's colour theme: default, light, high-contrast, or one of yours (else the
        /// tournament file's `theme`, else default).
        #[arg(long)]
        theme: Option<String>,
        /// Put the tournament's folder in DIR instead of the file's output_dir: results go to
        /// DIR/<tournament name> (report --out and rejudge --out write into DIR itself).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Resume the tournament stored in DIR (results/<tournament>).
        #[arg(long, value_name = "DIR", conflicts_with_all = ["config", "out"])]
        resume: Option<PathBuf>,
        /// Batch mode: send the calls of openai, anthropic and google models through their
        /// provider's batch API (about half the price; answers within 24 hours), as the
        /// tournament file's `batch = true` does.
        #[arg(long)]
        batch: bool,
        /// The response cache for development: `--cache` answers requests at temperature 0
        /// from answers stored by earlier runs and stores new ones; `--cache=any-temperature`
        /// at every temperature; `--cache=off` runs without it whatever the tournament file's
        /// `cache` key says (docs/response-cache.md).
        #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "on", value_name = "WHICH")]
        cache: Option<CacheArg>,
    },
    /// Write the sample configuration (tournaments of every protocol, models, the dilemma
    /// document and the data they read) into DIR, to start from.
    Init {
        /// The folder to write into (created if missing).
        #[arg(default_value = ".")]
        dir: PathBuf,
        /// Overwrite the sample's files if DIR already holds them.
        #[arg(long)]
        force: bool,
    },
    /// Print the shell completion script (bash, zsh, fish, elvish, powershell);
    /// docs/install.md says where each shell reads it.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff), or write one page per command into DIR.
    Man {
        /// Write ethics-bowl.1 and one page per subcommand into DIR instead.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Write the analysis of stored rounds: report.md, one CSV per table, analysis.json,
    /// SVG charts, and report.html (the tables, charts and every transcript in one page).
    Report {
        /// The tournament's results folder (results/<tournament>), or the predecessor's.
        dir: PathBuf,
        /// Where to write (default: DIR/report).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Which files: md, csv, json, svg, html (comma-separated; default all).
        #[arg(long, value_enum, value_delimiter = ',', default_values = ["md", "csv", "json", "svg", "html"])]
        format: Vec<FormatArg>,
        /// Print the files written and the figures printed as one JSON document
        /// (docs/json-output.md).
        #[arg(long)]
        json: bool,
    },
    /// How many more repetitions (or dilemmas, topics, items) a pilot run needs for 80%
    /// power to detect a difference of D, for each comparison its report makes.
    Plan {
        /// The pilot's results folder (results/<tournament>).
        #[arg(value_name = "RESULTS")]
        dir: PathBuf,
        /// The difference to detect, a plain number: points of the 70-point total (Ethics
        /// Bowl); accuracy points (question-answer: 10 means 10 percentage points); win-rate
        /// points (structured debate).
        #[arg(long, value_name = "D", allow_negative_numbers = true, value_parser = points)]
        detect: f64,
        /// Structured debates: also plan the models' mean side totals, for a difference of T
        /// points of the 1–10 side total.
        #[arg(long, value_name = "T", allow_negative_numbers = true, value_parser = points)]
        detect_total: Option<f64>,
        /// Print the plan as one JSON document (docs/json-output.md).
        #[arg(long)]
        json: bool,
    },
    /// Two results folders of one protocol side by side (two runs, or a run and a
    /// `rejudge --out` copy): the change in every judgment found in both, the agreement
    /// between them, each judge's leniency and (Ethics Bowl) each model's rating in both.
    Compare {
        /// The first folder.
        a: PathBuf,
        /// The second folder.
        b: PathBuf,
        /// Also write compare.md, compare_pairs.csv and compare_judges.csv here.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Print the comparison as one JSON document instead of Markdown
        /// (docs/json-output.md).
        #[arg(long)]
        json: bool,
    },
    /// Open the terminal UI over stored results: transcripts, scores, the review queue.
    Open {
        /// The tournament's results folder (results/<tournament>), or the predecessor's.
        dir: PathBuf,
        /// The colour theme.
        #[arg(long, default_value = "default")]
        theme: String,
        /// Set another results folder of the same protocol beside DIR (a second run, or a
        /// `rejudge --out` copy): the matrix marks what changed, `v` in a round shows its
        /// judgments in both side by side, `c` the agreement between them.
        #[arg(long, value_name = "B")]
        compare: Option<PathBuf>,
    },
    /// List the configured models, their endpoints, and whether each key variable is set.
    Models {
        /// The models file (default: the user's models.toml if present, else ./models.toml,
        /// else sample-config/models.toml).
        #[arg(long, env = "ETHICS_BOWL_MODELS", value_name = "FILE")]
        config: Option<PathBuf>,
        /// Print the models as one JSON document (docs/json-output.md): key variables by
        /// name and whether set, never a key.
        #[arg(long)]
        json: bool,
    },
    /// Stream one answer from a configured model: check a new key or endpoint.
    Ask {
        /// The model's name in the models file.
        model: String,
        /// The prompt; `-` reads it from standard input.
        prompt: String,
        /// A system prompt.
        #[arg(long, default_value = "You are a helpful assistant.")]
        system: String,
        /// The models file.
        #[arg(long, env = "ETHICS_BOWL_MODELS", value_name = "FILE")]
        config: Option<PathBuf>,
    },
    /// Add judgments (single judges or a panel) to exchanges already stored, without
    /// calling the debaters again; resumable, and works on the predecessor's folders.
    Rejudge {
        /// The results folder (results/<tournament>, or any folder of round files).
        dir: PathBuf,
        /// The judging file: models_file, judging ("all" or "panel"), judges or [panel].
        #[arg(long, value_name = "JUDGING.toml")]
        config: PathBuf,
        /// Copy the rounds here and judge the copies (the original folder is not written).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Batch mode: the judges' calls go through their provider's batch API (openai,
        /// anthropic and google models), as the judging file's `batch = true` does.
        #[arg(long)]
        batch: bool,
        /// Judge each exchange with its two sides exchanged in the judge's prompt, the
        /// judgments mapped back to the sides as played, into a folder of their own (--out,
        /// by default DIR-swapped), so the flip rate can be measured (`report` on it).
        #[arg(long)]
        swap_sides: bool,
        /// The response cache for development, as for `run` (and the judging file's `cache`):
        /// `--cache`, `--cache=any-temperature` or `--cache=off`.
        #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "on", value_name = "WHICH")]
        cache: Option<CacheArg>,
    },
    /// Judge rounds yourself in the terminal UI, blind by default (model names hidden, no
    /// judge's scores), with the protocol's own rubric; resumes where you stopped.
    Annotate {
        /// The tournament's results folder (results/<tournament>).
        #[arg(value_name = "RESULTS")]
        dir: PathBuf,
        /// Who judges: a plain name (letters, digits, - _ . @ +), also the folder's name.
        #[arg(long, value_name = "NAME")]
        annotator: String,
        /// Draw a sample of N rounds (default: the recorded sample, or every finished round).
        #[arg(long, value_name = "N")]
        sample: Option<usize>,
        /// Stratify the sample: a share of every dilemma, pairing of debaters, or judge.
        #[arg(long, value_enum)]
        strata: Option<crate::commands::annotations::StrataArg>,
        /// The draw's seed (default 34).
        #[arg(long)]
        seed: Option<u64>,
        /// Show the model names and the model judges' verdicts (to adjudicate, not to judge
        /// blind); recorded in each judgment as `blind: false`.
        #[arg(long)]
        unblind: bool,
        /// The colour theme.
        #[arg(long, default_value = "default")]
        theme: String,
    },
    /// Human judgments, kept apart from the models': a spreadsheet for a reproducible
    /// sample of rounds, its import, and the export of what is stored.
    Annotations {
        #[command(subcommand)]
        action: crate::commands::annotations::Action,
    },
    /// Work with judges' answers.
    Judgment {
        #[command(subcommand)]
        action: JudgmentAction,
    },
    /// List the stored rounds of a tournament that match a filter.
    Rounds {
        /// The tournament's results folder (results/<tournament>).
        dir: PathBuf,
        /// Rounds this model played.
        #[arg(long)]
        model: Option<String>,
        /// With --model: only rounds where it played this role.
        #[arg(long, value_enum, requires = "model")]
        role: Option<RoleArg>,
        /// Rounds on this dilemma.
        #[arg(long)]
        dilemma: Option<String>,
        /// Rounds this model judged.
        #[arg(long)]
        judge: Option<String>,
        /// Rounds with this status.
        #[arg(long, value_enum)]
        status: Option<StatusArg>,
        /// Print the rounds as JSON: an array of round files as stored, or with --round the
        /// one round file (docs/json-output.md).
        #[arg(long, conflicts_with = "markdown")]
        json: bool,
        /// Only the round with this id (as `rounds DIR` lists them).
        #[arg(long, value_name = "ID")]
        round: Option<String>,
        /// Print each round as readable Markdown: its phases, timings, tokens, cost and
        /// judgments, model text quoted.
        #[arg(long)]
        markdown: bool,
    },
    /// Print a keys.toml with every action of the terminal UI and its keys, to save in the
    /// user config folder (or point ETHICS_BOWL_KEYS at) and edit: the keys in force, the
    /// user's file checked first, or the defaults with --default.
    Keys {
        /// The default keys, leaving the user's keys.toml aside.
        #[arg(long)]
        default: bool,
    },
    /// Read a dilemma document and show what the loader finds (or convert one).
    #[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
    Dilemmas {
        /// The document (.docx or .md).
        #[arg(required = true)]
        file: Option<PathBuf>,
        /// Print the dilemmas as a JSON array, in the spec's fields (docs/json-output.md).
        #[arg(long)]
        json: bool,
        #[command(subcommand)]
        action: Option<DilemmasAction>,
    },
    /// Write stored results for other tools: one Inspect evaluation log (`inspect view`,
    /// `read_eval_log`), or long tables for pandas and R (judgments, phases, rounds as CSV or
    /// JSON Lines); docs/using-results-elsewhere.md describes both.
    Export {
        /// The tournament's results folder (results/<tournament>), or the predecessor's.
        #[arg(value_name = "RESULTS")]
        dir: PathBuf,
        /// inspect: one Inspect log (JSON); csv or jsonl: judgments, phases and rounds tables.
        #[arg(long, value_enum)]
        format: ExportFormatArg,
        /// Where to write: the log file for inspect (default: in RESULTS/export, named as
        /// Inspect names its logs, so that `inspect view --log-dir` lists it), the folder of
        /// tables for csv and jsonl (default RESULTS/export).
        #[arg(long, value_name = "PATH")]
        out: Option<PathBuf>,
    },
}

/// What `export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormatArg {
    /// One Inspect evaluation log (log format version 2, JSON).
    Inspect,
    /// judgments.csv, phases.csv, rounds.csv.
    Csv,
    /// judgments.jsonl, phases.jsonl, rounds.jsonl.
    Jsonl,
}

/// `judgment` subcommands.
#[derive(Debug, Subcommand)]
pub enum JudgmentAction {
    /// Parse a judge's answer and show what the parser extracts.
    Parse {
        /// The file with the judge's text; `-` reads standard input.
        file: PathBuf,
        /// Print the result as one JSON document (docs/json-output.md).
        #[arg(long)]
        json: bool,
    },
}

/// `dilemmas` subcommands.
#[derive(Debug, Subcommand)]
pub enum DilemmasAction {
    /// Write a dilemma document (e.g. the Markdown source) as a Word document.
    Convert {
        /// The document to read (.md or .docx).
        input: PathBuf,
        /// The Word document to write (.docx).
        output: PathBuf,
        /// How labels and lists are laid out.
        #[arg(long, value_enum, default_value = "headings")]
        layout: LayoutArg,
    },
}

/// Layouts of a written Word document.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum LayoutArg {
    /// Heading styles for titles and labels, Word list numbering.
    Headings,
    /// Bold titles and labels, list markers typed by hand.
    BoldLabels,
    /// Heading titles, bold labels, Word list numbering.
    Numbered,
}

/// `--cache`'s value: which requests the response cache serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CacheArg {
    /// Requests at temperature 0 (what `--cache` alone means).
    On,
    /// Every request, whatever its temperature.
    AnyTemperature,
    /// No cache, whatever the file says: for the run you report.
    Off,
}

impl CacheArg {
    /// The tournament file's `cache` value this stands for.
    pub fn setting(self) -> ethics_bowl::config::CacheSetting {
        match self {
            Self::On => ethics_bowl::config::CacheSetting::On,
            Self::AnyTemperature => ethics_bowl::config::CacheSetting::AnyTemperature,
            Self::Off => ethics_bowl::config::CacheSetting::Off,
        }
    }
}

/// Report files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// report.md
    Md,
    /// One CSV per table.
    Csv,
    /// analysis.json
    Json,
    /// SVG charts.
    Svg,
    /// report.html: every table and chart, and a transcript browser with search and filters.
    Html,
}

/// A model's role, for filters.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum RoleArg {
    /// Team A.
    Presenting,
    /// Team B.
    Responding,
}

/// A round status, for filters.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum StatusArg {
    /// All phases ran and every judgment is usable.
    Complete,
    /// Not finished.
    Incomplete,
    /// A judgment needs a person.
    NeedsReview,
}

/// A difference to detect: a positive plain number (a percentage sign is refused, since
/// "10%" of a 70-point total and 10 accuracy points are different things).
fn points(text: &str) -> Result<f64, String> {
    let t = text.trim();
    if let Some(number) = t.strip_suffix('%') {
        let n = number.trim();
        return Err(format!(
            "write a plain number of points, without %: {n} means {n} accuracy points in a \
             question-answer debate, {n} win-rate points in a structured debate, and {n} points \
             of the 70-point total in the Ethics Bowl"
        ));
    }
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        Ok(_) => Err("the difference must be a positive number of points, e.g. 3".into()),
        Err(_) => Err("not a number; give a positive number of points, e.g. 3".into()),
    }
}
