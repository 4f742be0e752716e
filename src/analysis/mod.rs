//! Pure functions from rounds to tables. The engine's `summary.json`, the reports and the
//! terminal UI share them, so their numbers never disagree.

pub mod bias;
pub mod calls;
mod charts;
pub mod compare;
pub mod effects;
pub mod figures;
pub mod flip;
pub mod html;
pub mod human;
pub mod judge_views;
pub mod length;
pub mod panels;
pub mod plan;
pub mod power;
pub mod qa;
pub mod ratings;
mod report;
pub mod report_card;
pub mod round_markdown;
mod show;
pub mod side_adjusted;
pub use show::cell as mean_with_interval;
pub mod stats;
pub mod structured;
mod summary;
pub mod tables;
pub mod usage;

pub use html::write_html;
pub use report::{
    Analysis, Format, ReportError, RunTitle, analyse, analyse_store, people_of, providers_of,
    qa_markdown, run_of, share as qa_share, structured_markdown, warnings_of, write_report,
};
pub use summary::{
    ModelSummary, RoleSummary, StructuredSummary, Summary, Unfinished, summarize, summary_fields,
};
