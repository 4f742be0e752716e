//! `report.html`: one self-contained page with every table and chart of the report and a
//! transcript browser over every round, with search, filters, and links from each table row
//! to the rounds behind it. No network: the styles, the script, the charts (inline SVG)
//! and the rounds (a JSON block) are all in the file, so it opens from a `file://` URL.
//!
//! Model text is untrusted. The static part escapes every string ([`escape::html`]); the
//! rounds travel as JSON escaped for a script block ([`escape::script_json`]) and the
//! page's script puts them into the DOM as text only. A Content-Security-Policy allows
//! the page's own script (by its hash) and nothing else, as a second wall.

mod doc;
mod escape;
mod page;
mod rounds;
mod sections;

use std::path::{Path, PathBuf};

use super::report::{Analysis, ReportError};
use crate::domain::Round;

pub use page::page;

/// Writes `report.html` into `out` (created if missing); returns its path.
pub fn write_html(a: &Analysis, rounds: &[Round], out: &Path) -> Result<PathBuf, ReportError> {
    let fail = |path: &Path, e: std::io::Error| ReportError {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    std::fs::create_dir_all(out).map_err(|e| fail(out, e))?;
    let path = out.join("report.html");
    std::fs::write(&path, page(a, rounds)).map_err(|e| fail(&path, e))?;
    Ok(path)
}
