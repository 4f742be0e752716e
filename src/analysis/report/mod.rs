//! The analysis report: `report.md` (every table, readable on GitHub), one tidy CSV per table
//! (one row per observation, for pandas, R or DuckDB), SVG charts, and `analysis.json` with
//! everything.
//!
//! [`contents`] computes what the report says; [`usage`] gives every protocol's cost, tokens
//! and latency by model; [`calls`] says, for every protocol, which
//! answers were cut at the token limit and whose usage is estimated; each protocol's sections and files are its own
//! module (`ethics_bowl`, `qa_debate`, `structured_debate`, with `panels` for judge panels),
//! chosen here by an exhaustive `match` on the protocol kind; what they share sits below them
//! (`analysis::show`: how a figure is shown, `files`: how a file is written) and imports none
//! of them.

mod contents;
mod files;
mod panels;
mod qa_debate;
mod structured_debate;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::analysis::figures;
use crate::analysis::tables::MIN_N;
use crate::domain::ProtocolKind;

pub use crate::analysis::show::share;
pub use contents::{Analysis, analyse, analyse_store, providers_of};
pub use files::{Format, ReportError};
pub use qa_debate::markdown as qa_markdown;
pub use structured_debate::markdown as structured_markdown;

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
    let mut report = String::new();
    let _ = writeln!(report, "# Tournament analysis\n");
    let _ = writeln!(
        report,
        "{} rounds ({} complete). Each figure is a mean over usable judgments (parsed, or corrected by hand), with its n; \
         a figure on fewer than {MIN_N} observations is marked \"too few\".\n",
        a.rounds, a.complete_rounds
    );
    let sections = figures::sections(a);
    report.push_str(&figures::markdown(&sections));
    written.extend(files::write_figures(&sections, out, formats)?);
    for kind in ProtocolKind::ALL {
        match kind {
            ProtocolKind::EthicsBowl => {
                if let Some(p) = &a.panels {
                    written.extend(panels::section(
                        &mut report,
                        &panels::ethics_bowl(p),
                        out,
                        formats,
                    )?);
                }
            }
            ProtocolKind::QaDebate => {
                if let Some(q) = &a.qa {
                    qa_debate::markdown(&mut report, q);
                    written.extend(qa_debate::files(q, out, formats)?);
                }
                if let Some(p) = &a.qa_panels {
                    written.extend(panels::section(&mut report, p, out, formats)?);
                }
            }
            ProtocolKind::StructuredDebate => {
                if let Some(f) = &a.structured {
                    structured_debate::markdown(&mut report, f);
                    written.extend(structured_debate::files(f, &a.briefings, out, formats)?);
                }
                if let Some(p) = &a.structured_panels {
                    written.extend(panels::section(&mut report, p, out, formats)?);
                }
            }
        }
    }
    if formats.contains(&Format::Markdown) {
        written.push(files::write_text(out.join("report.md"), &report)?);
    }
    Ok(written)
}
