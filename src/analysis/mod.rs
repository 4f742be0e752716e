//! Pure functions from rounds to tables. The engine's `summary.json`, the reports and the
//! terminal UI share them, so their numbers never disagree.

pub mod bias;
mod charts;
pub mod panels;
pub mod qa;
mod qa_report;
pub mod ratings;
mod report;
pub mod stats;
pub mod structured;
mod structured_report;
mod summary;
pub mod tables;

pub use qa_report::{markdown as qa_markdown, share as qa_share};
pub use report::{Analysis, Format, ReportError, analyse, write_report};
pub use structured_report::markdown as structured_markdown;
pub use summary::{ModelSummary, RoleSummary, Summary, summarize};
