//! A protocol's panel section as CSV tables, for `report.html`'s panel section: the tidy
//! forms of `analysis::figures`' panel tables, as text.

use serde::Serialize;

use super::PanelSection;
use crate::analysis::figures::{Value, judge_panels};

/// A CSV table: its file name in the report folder, header and rows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Table {
    /// `panel_judges.csv`, `qa_panel_accuracy.csv`, …
    pub file: String,
    /// Column names.
    pub header: Vec<String>,
    /// Rows, as text.
    pub rows: Vec<Vec<String>>,
}

impl PanelSection {
    /// The section's CSV tables, as `report.md`'s figures write them.
    pub fn tables(&self) -> Vec<Table> {
        judge_panels(self)
            .tables()
            .filter_map(|t| t.tidy.as_ref())
            .map(|t| Table {
                file: t.file.clone(),
                header: t.header.clone(),
                rows: t
                    .rows
                    .iter()
                    .map(|r| r.iter().map(Value::csv).collect())
                    .collect(),
            })
            .collect()
    }
}
