//! Writing the report's files: which formats, an error that names the file, tidy CSVs and
//! any other file.

use std::path::{Path, PathBuf};

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
    /// `report.html`, with the transcripts: written by [`crate::analysis::write_html`],
    /// which also takes the rounds.
    Html,
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

/// Turns an error into one that names the file.
pub(super) fn fail(path: &Path) -> impl Fn(&dyn std::fmt::Display) -> ReportError + '_ {
    move |e| ReportError {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// Creates a folder (and its parents).
pub(super) fn create_dir(dir: &Path) -> Result<(), ReportError> {
    std::fs::create_dir_all(dir).map_err(|e| fail(dir)(&e))
}

/// Writes a file and returns its path.
pub(super) fn write_file(
    path: PathBuf,
    contents: impl AsRef<[u8]>,
) -> Result<PathBuf, ReportError> {
    std::fs::write(&path, contents).map_err(|e| fail(&path)(&e))?;
    Ok(path)
}

/// Writes a value as pretty-printed JSON, model text's controls escaped (see `safe_json`).
pub(super) fn write_json(
    path: PathBuf,
    value: &impl serde::Serialize,
) -> Result<PathBuf, ReportError> {
    let json = crate::safe_json::to_vec_pretty(value).map_err(|e| fail(&path)(&e))?;
    write_file(path, json)
}

/// Text for a report file people read: escape sequences, control characters and
/// bidirectional controls taken out (tables quote model text, and these files are `cat`ed to
/// terminals and pasted into documents), then every key this process read redacted.
fn for_people(text: &str) -> String {
    crate::redact::remembered().redact_string(crate::sanitize::sanitize(text))
}

/// Writes text for people to read (Markdown); see [`for_people`].
pub(super) fn write_text(path: PathBuf, text: &str) -> Result<PathBuf, ReportError> {
    write_file(path, for_people(text))
}

/// Writes the figures' files in the formats asked for: each table's CSV, each chart's SVG.
pub(super) fn write_figures(
    sections: &[crate::analysis::figures::Section],
    out: &Path,
    formats: &[Format],
) -> Result<Vec<PathBuf>, ReportError> {
    use crate::analysis::figures::Block;
    let mut written = Vec::new();
    for block in sections.iter().flat_map(|s| &s.blocks) {
        match block {
            Block::Table(t) if formats.contains(&Format::Csv) => {
                if let Some(tidy) = &t.tidy {
                    let header: Vec<&str> = tidy.header.iter().map(String::as_str).collect();
                    let rows = tidy
                        .rows
                        .iter()
                        .map(|r| r.iter().map(crate::analysis::figures::Value::csv).collect())
                        .collect();
                    written.push(write_csv(out.join(&tidy.file), &header, rows)?);
                }
            }
            Block::Chart(c) if formats.contains(&Format::Svg) => {
                written.push(write_file(out.join(c.file), &c.svg)?);
            }
            _ => {}
        }
    }
    Ok(written)
}

/// Writes a tidy CSV: the header, then one row per observation.
pub(super) fn write_csv(
    path: PathBuf,
    header: &[&str],
    rows: Vec<Vec<String>>,
) -> Result<PathBuf, ReportError> {
    let mut w = csv::Writer::from_path(&path).map_err(|e| fail(&path)(&e))?;
    w.write_record(header).map_err(|e| fail(&path)(&e))?;
    for r in rows {
        // Cells may quote model text: shown in spreadsheets and terminals, so sanitised and
        // redacted before the CSV writer quotes them.
        let cells = r.iter().map(|cell| for_people(cell));
        w.write_record(cells).map_err(|e| fail(&path)(&e))?;
    }
    w.flush().map_err(|e| fail(&path)(&e))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_csv_cells_are_redacted_before_csv_quotes_them() {
        let key = r#"sk-report"files,key-0123"#;
        crate::redact::remember(&crate::redact::Redactor::new([("FILES_TEST_KEY", key)]));
        let dir = tempfile::tempdir().unwrap();
        let csv = write_csv(
            dir.path().join("t.csv"),
            &["text"],
            vec![vec![format!("said {key}")]],
        )
        .unwrap();
        let md = write_text(dir.path().join("t.md"), &format!("| {key} |")).unwrap();
        let csv = std::fs::read_to_string(csv).unwrap();
        assert_eq!(csv, "text\nsaid [redacted FILES_TEST_KEY]\n");
        assert_eq!(
            std::fs::read_to_string(md).unwrap(),
            "| [redacted FILES_TEST_KEY] |"
        );
    }
}
