//! Pure functions from rounds to tables. The engine's `summary.json`, the reports and the
//! terminal UI share them, so their numbers never disagree.

mod summary;

pub use summary::{CellSummary, DilemmaSummary, ModelSummary, RoleSummary, Summary, summarize};
