//! The analysis report: `report.md` (every table, readable on GitHub), one tidy CSV per table
//! (one row per observation, for pandas, R or DuckDB), SVG charts, `analysis.json` with
//! everything, and the structured debate's decision briefings.
//!
//! [`contents`] computes what the report says; `analysis::figures` turns it into sections of
//! typed tables and charts, which are drawn here as Markdown and written as their CSV and SVG
//! files ([`files`]: how a file is written); [`briefings`] writes each judged structured
//! round's decision briefing.

mod briefings;
mod contents;
mod files;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::analysis::figures;
use crate::analysis::qa::QaFigures;
use crate::analysis::structured::StructuredFigures;
use crate::analysis::tables::MIN_N;

pub use crate::analysis::show::share;
pub use contents::{
    Analysis, RunTitle, analyse, analyse_store, people_of, providers_of, run_of, warnings_of,
};
pub use files::{Format, ReportError};

/// Writes the chosen files into `out`; returns their paths. `report.html` needs the rounds
/// too: [`crate::analysis::write_html`] writes it.
pub fn write_report(
    a: &Analysis,
    out: &Path,
    formats: &[Format],
) -> Result<Vec<PathBuf>, ReportError> {
    files::create_dir(out)?;
    let mut written = Vec::new();
    if formats.contains(&Format::Json) {
        written.push(files::write_json(out.join("analysis.json"), a)?);
    }
    let sections = figures::sections(a);
    written.extend(files::write_figures(&sections, out, formats)?);
    if formats.contains(&Format::Markdown) {
        let mut report = String::new();
        let _ = writeln!(report, "# {}\n", crate::markdown_escape::inline(&a.title()));
        let _ = writeln!(
            report,
            "{} rounds ({} complete). Each figure is a mean over usable judgments (parsed, or corrected by hand), with its n; \
             a figure on fewer than {MIN_N} observations is marked \"too few\".\n",
            a.rounds, a.complete_rounds
        );
        report.push_str(&figures::markdown(&sections));
        written.push(files::write_text(out.join("report.md"), &report)?);
        written.extend(briefings::write(&a.briefings, out)?);
    }
    Ok(written)
}

/// Appends the question-answer debate's section, as `report.md` has it, to `s`.
pub fn qa_markdown(s: &mut String, q: &QaFigures) {
    s.push_str(&figures::markdown(&[figures::qa_section(q)]));
}

/// Appends the structured debate's section, as `report.md` has it, to `s`.
pub fn structured_markdown(s: &mut String, f: &StructuredFigures) {
    s.push_str(&figures::markdown(&[figures::structured_section(f)]));
}
