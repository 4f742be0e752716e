//! `ethics-bowl export RESULTS --format inspect|csv|jsonl`: stored results for other tools,
//! an Inspect evaluation log or long tables for data frames (see `ethics_bowl::export`).

use std::path::Path;

use ethics_bowl::export::{Source, inspect, tidy};

use super::UsageError;
use crate::cli::ExportFormatArg;

/// Reads the folder and writes the export.
pub fn run(dir: &Path, format: ExportFormatArg, out: Option<&Path>) -> anyhow::Result<()> {
    let (store, rounds) = super::stored_rounds(dir)?;
    if rounds.is_empty() {
        return Err(UsageError(format!("{}: no rounds to export", dir.display())).into());
    }
    let record = store
        .load_tournament()
        .map_err(|e| UsageError(format!("{e}; fix or remove it, then export again")))?;
    // People's judgments go in beside the models': a damaged file stops the export, naming
    // it, rather than leave them out without a word.
    let annotations = ethics_bowl::annotations::load_all(store.dir())
        .map_err(|e| UsageError(format!("{e}; fix or remove it, then export again")))?;
    let source = Source {
        rounds,
        record,
        annotations,
    };
    let default = dir.join("export");
    match format {
        ExportFormatArg::Inspect => {
            if out.is_some_and(Path::is_dir) {
                return Err(UsageError(format!(
                    "{} is a folder: --out names the log file for --format inspect (without \
                     --out, the log goes into RESULTS/export/ under the name Inspect gives its \
                     own logs)",
                    out.map(Path::display)
                        .map(|d| d.to_string())
                        .unwrap_or_default()
                ))
                .into());
            }
            let built = inspect::build(&source);
            for note in &built.notes {
                eprintln!("note: {note}");
            }
            let path = out
                .map(Path::to_path_buf)
                .unwrap_or_else(|| default.join(inspect::file_name(&built.log)));
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            if !name.as_deref().is_some_and(inspect::viewer_lists) {
                eprintln!(
                    "note: `inspect view --log-dir` lists only logs named as Inspect names its \
                     own, a timestamp first ({}); read_eval_log reads any name",
                    inspect::file_name(&built.log)
                );
            }
            inspect::write(&built.log, &path)?;
            println!("wrote {}", path.display());
        }
        ExportFormatArg::Csv | ExportFormatArg::Jsonl => {
            let target = out.map(Path::to_path_buf).unwrap_or(default);
            if target.is_file() {
                return Err(UsageError(format!(
                    "{} is a file: --out names the folder the tables go in for --format csv \
                     and jsonl",
                    target.display()
                ))
                .into());
            }
            let table_format = if format == ExportFormatArg::Csv {
                tidy::TableFormat::Csv
            } else {
                tidy::TableFormat::Jsonl
            };
            for path in tidy::write(&source, &target, table_format)? {
                println!("wrote {}", path.display());
            }
        }
    }
    Ok(())
}
