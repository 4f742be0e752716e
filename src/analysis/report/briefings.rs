//! The structured debate's decision briefings: one Markdown file per judged round in
//! `briefings/` (key insight, recommendation, open questions, argument trace), written with
//! `report.md`. They are not figures: each is one round's.

use std::path::{Path, PathBuf};

use super::files::{ReportError, create_dir, fail, write_text};

/// Writes each briefing (round id, Markdown) as `briefings/<round id>.md`; returns the
/// folder, or nothing when there is no briefing.
pub(super) fn write(
    briefings: &[(String, String)],
    out: &Path,
) -> Result<Option<PathBuf>, ReportError> {
    if briefings.is_empty() {
        return Ok(None);
    }
    let dir = out.join("briefings");
    create_dir(&dir)?;
    for (round_id, text) in briefings {
        crate::domain::check_file_id(round_id).map_err(|e| fail(&dir)(&e))?;
        write_text(dir.join(format!("{round_id}.md")), text)?;
    }
    Ok(Some(dir))
}
