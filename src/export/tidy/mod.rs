//! Long tables for data frames: `judgments` (one row per judge, side and criterion),
//! `phases` (one row per call) and `rounds` (one row per round), as CSV or JSON Lines, one
//! file per table. Every design variable of a row (round, protocol, item, repetition,
//! format, the two sides' models, the judge) is a column of its own, so a row stands
//! alone; `docs/using-results-elsewhere.md` lists the columns and their types.

pub mod judgments;
pub mod phases;
pub mod rounds;

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{ExportError, Source};
use crate::domain::Round;

/// How the tables are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    /// `judgments.csv`, …: a header line, then one line per row; empty cells for values
    /// that are missing.
    Csv,
    /// `judgments.jsonl`, …: one JSON object per line, `null` for values that are missing.
    Jsonl,
}

impl TableFormat {
    fn extension(self) -> &'static str {
        match self {
            Self::Csv => "csv",
            Self::Jsonl => "jsonl",
        }
    }
}

/// A table: its name (the file's stem), its columns in order, and its rows.
pub struct Table<R> {
    /// `judgments`, `phases`, `rounds`.
    pub name: &'static str,
    /// The column names, in the order of the row's fields.
    pub columns: &'static [&'static str],
    /// The rows.
    pub rows: Vec<R>,
}

/// Writes the three tables into `dir` (created if missing): the files written.
pub fn write(
    source: &Source,
    dir: &Path,
    format: TableFormat,
) -> Result<Vec<PathBuf>, ExportError> {
    std::fs::create_dir_all(dir).map_err(|e| ExportError::write(dir, e))?;
    Ok(vec![
        write_table(dir, format, &judgments::table(source))?,
        write_table(dir, format, &phases::table(source))?,
        write_table(dir, format, &rounds::table(source))?,
    ])
}

fn write_table<R: Serialize>(
    dir: &Path,
    format: TableFormat,
    table: &Table<R>,
) -> Result<PathBuf, ExportError> {
    let path = dir.join(format!("{}.{}", table.name, format.extension()));
    let bytes = match format {
        TableFormat::Csv => csv_bytes(&path, table)?,
        TableFormat::Jsonl => jsonl_bytes(&path, table)?,
    };
    std::fs::write(&path, bytes).map_err(|e| ExportError::write(&path, e))?;
    Ok(path)
}

/// The header from the table's columns (written even when there are no rows), then the
/// rows.
fn csv_bytes<R: Serialize>(path: &Path, table: &Table<R>) -> Result<Vec<u8>, ExportError> {
    let fail = |source| ExportError::Csv {
        path: path.to_path_buf(),
        source,
    };
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new());
    w.write_record(table.columns).map_err(fail)?;
    for row in &table.rows {
        w.serialize(row).map_err(fail)?;
    }
    w.into_inner()
        .map_err(|e| ExportError::write(path, e.into_error()))
}

fn jsonl_bytes<R: Serialize>(path: &Path, table: &Table<R>) -> Result<Vec<u8>, ExportError> {
    let mut out = Vec::new();
    for row in &table.rows {
        serde_json::to_writer(&mut out, row).map_err(|source| ExportError::Json {
            path: path.to_path_buf(),
            source,
        })?;
        out.push(b'\n');
    }
    Ok(out)
}

/// The question-answer format of a round (`debate`, `naive`, …); none for the other
/// protocols.
fn format_of(round: &Round) -> Option<&'static str> {
    round.qa().map(|s| s.format.as_str())
}

/// A model name as the tables write it: none for an empty seat (a baseline's debaters).
fn seat(model: &str) -> Option<String> {
    (!model.is_empty()).then(|| model.to_string())
}

#[cfg(test)]
pub(crate) mod test_support {
    use serde::Serialize;

    /// The names of a row's fields, in order, as serde writes them.
    pub fn field_names(row: &impl Serialize) -> Vec<String> {
        match serde_json::to_value(row) {
            Ok(serde_json::Value::Object(map)) => map.keys().cloned().collect(),
            other => vec![format!("not an object: {other:?}")],
        }
    }
}
