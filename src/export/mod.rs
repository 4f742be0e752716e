//! Stored results in the forms other tools read (`ethics-bowl export`): one Inspect
//! evaluation log (`inspect`), so a tournament opens in `inspect view` beside other
//! evaluations, and long tables for data frames (`tidy`: `judgments`, `phases`, `rounds` as
//! CSV or JSON Lines). Both read the same [`Source`] and see each judge through the same
//! [`raters`], so a score in the log and a row in `judgments.csv` never disagree.

pub mod inspect;
pub mod raters;
pub mod seats;
pub mod tidy;

use std::path::{Path, PathBuf};

use crate::annotations::Annotation;
use crate::domain::{Round, Team};
use crate::store::TournamentRecord;

/// What an export reads: the stored rounds, the tournament's record when there is one, and
/// people's judgments.
#[derive(Debug, Clone)]
pub struct Source {
    /// Every round read, in the store's order.
    pub rounds: Vec<Round>,
    /// `tournament.json`, absent in the predecessor's folders.
    pub record: Option<TournamentRecord>,
    /// People's judgments (`annotations/`), apart from the models'.
    pub annotations: Vec<Annotation>,
}

impl Source {
    /// People's judgments of one round.
    pub fn annotations_of<'a>(&'a self, round_id: &'a str) -> impl Iterator<Item = &'a Annotation> {
        self.annotations
            .iter()
            .filter(move |a| a.round_id == round_id)
    }
}

/// Why an export could not be written; names the file.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// A file or folder could not be written.
    #[error("{}: cannot write: {source}", path.display())]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A table row could not be written as CSV.
    #[error("{}: cannot write CSV: {source}", path.display())]
    Csv {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: csv::Error,
    },
    /// A value could not be written as JSON.
    #[error("{}: cannot write JSON: {source}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: serde_json::Error,
    },
}

impl ExportError {
    fn write(path: &Path, source: std::io::Error) -> Self {
        Self::Write {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// `A` or `B`, as the tables and the log write a side.
pub fn team_str(team: Team) -> &'static str {
    match team {
        Team::A => "A",
        Team::B => "B",
    }
}
