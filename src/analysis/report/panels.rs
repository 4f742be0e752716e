//! The judge panels' section of the report, for every protocol: the Markdown and the tables
//! of `analysis::panels::PanelSection` (convergence, rounds needed, agreement before and
//! after deliberation, each judge's movement, and the protocol's own figures), written into
//! `report.md` and as CSV files.

use std::path::{Path, PathBuf};

use super::Format;
use super::files::{ReportError, write_csv};
use crate::analysis::panels::{PanelFigures, PanelSection, ProtocolPanelFigures};
use crate::domain::ProtocolKind;

/// The Ethics Bowl's panel section: the shared figures alone.
pub(super) fn ethics_bowl(figures: &PanelFigures) -> PanelSection {
    PanelSection {
        protocol: ProtocolKind::EthicsBowl,
        figures: figures.clone(),
        own: ProtocolPanelFigures::EthicsBowl,
    }
}

/// Writes a section's tables as CSV files; returns their paths.
pub(super) fn tables(section: &PanelSection, out: &Path) -> Result<Vec<PathBuf>, ReportError> {
    section
        .tables()
        .into_iter()
        .map(|t| {
            let header: Vec<&str> = t.header.iter().map(String::as_str).collect();
            write_csv(out.join(&t.file), &header, t.rows)
        })
        .collect()
}

/// Appends a protocol's panel section to the report and, when CSV is asked for, writes its
/// tables; returns the files written.
pub(super) fn section(
    s: &mut String,
    section: &PanelSection,
    out: &Path,
    formats: &[Format],
) -> Result<Vec<PathBuf>, ReportError> {
    s.push_str(&section.markdown());
    if formats.contains(&Format::Csv) {
        tables(section, out)
    } else {
        Ok(Vec::new())
    }
}
