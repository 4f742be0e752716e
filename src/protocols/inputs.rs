//! What a protocol's inputs give a tournament (the protocol over its dilemmas, items or
//! topics, and the schedule of rounds), and the checks every protocol's inputs share: a
//! selection of ids that exist, and a schedule of a size one run can take. Each protocol reads
//! its own inputs in its `spec` (see [`super::ProtocolSpec::inputs`]).

use std::path::Path;
use std::sync::Arc;

use crate::config::{ConfigError, Selection, TournamentConfig};
use crate::domain::SampledItem;
use crate::inputs::{DilemmaError, QaDataError};
use crate::store::StoreError;

use super::Protocol;
use super::schedule::{self, Schedule};

/// A protocol's inputs that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum InputsError {
    /// The tournament (or judging) file is wrong, or a file it names cannot be read.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The dilemma document cannot be used.
    #[error(transparent)]
    Dilemmas(#[from] DilemmaError),
    /// A question-answer dataset cannot be used.
    #[error(transparent)]
    QaData(#[from] QaDataError),
    /// The results folder's record cannot be read.
    #[error("cannot resume: {0}")]
    Store(#[from] StoreError),
}

/// What a protocol's inputs give the tournament.
#[derive(Debug)]
pub struct Inputs {
    /// The protocol, with the dilemmas, items or topics its rounds play.
    pub protocol: Arc<dyn Protocol>,
    /// The dilemmas (or items, or topics) played, in order.
    pub item_ids: Vec<String>,
    /// The items' sample with the answers handed out, which the tournament's record keeps so
    /// that a run can be reproduced (the question-answer debate's; empty for the others).
    pub sample: Vec<SampledItem>,
    /// The rounds and their judges.
    pub schedule: Schedule,
    /// Warnings from the inputs (dilemma document, dataset items left out).
    pub warnings: Vec<String>,
}

/// A tournament file's key that is wrong, as an error naming the file and the key.
pub fn invalid(config_path: &Path, key: &str, message: String, fix: String) -> InputsError {
    InputsError::Config(ConfigError::invalid(
        config_path,
        format!("key \"{key}\""),
        message,
        fix,
    ))
}

/// Where a selection of ids comes from, for its error message.
pub struct Picked<'a> {
    /// The tournament file.
    pub config_path: &'a Path,
    /// The key that selects.
    pub key: &'a str,
    /// What an id names (`dilemma`, `topic`).
    pub what: &'a str,
    /// The file the ids are looked up in.
    pub file: &'a Path,
}

/// The entries a selection names, in the selection's order (all for `"all"`); an unknown id
/// is an error naming the key, the file and the ids that exist.
pub fn select<T: Clone>(
    all: Vec<T>,
    selection: &Selection,
    id: impl Fn(&T) -> &String,
    at: Picked<'_>,
) -> Result<Vec<T>, InputsError> {
    let Selection::Ids(ids) = selection else {
        return Ok(all);
    };
    let mut picked = Vec::new();
    for wanted in ids {
        let Some(found) = all.iter().find(|x| id(x) == wanted) else {
            let known: Vec<&str> = all.iter().map(|x| id(x).as_str()).collect();
            return Err(invalid(
                at.config_path,
                at.key,
                format!("{} \"{wanted}\" is not in {}", at.what, at.file.display()),
                format!("use ids that exist: {}", known.join(", ")),
            ));
        };
        picked.push(found.clone());
    }
    Ok(picked)
}

/// Refuses, before anything is allocated, a schedule of more than
/// [`schedule::MAX_ROUNDS`] rounds (repetitions × items × pairings, a lower bound of what the
/// schedule would hold).
pub fn schedule_size(
    config_path: &Path,
    config: &TournamentConfig,
    items: usize,
) -> Result<(), InputsError> {
    let rounds = schedule::least_rounds(config, items);
    if rounds > schedule::MAX_ROUNDS {
        return Err(invalid(
            config_path,
            "repetitions",
            format!(
                "the schedule would hold at least {rounds} rounds ({} repetitions × {items} \
                 items × {} pairings), more than the {} one run takes",
                config.repetitions,
                schedule::pairings(config).len(),
                schedule::MAX_ROUNDS
            ),
            "lower repetitions, or select fewer dilemmas, items or pairings".into(),
        ));
    }
    Ok(())
}

/// Every pairing over `ids` with its judges, for the protocols where two models meet over
/// an item (dilemma or topic).
pub fn pairings_schedule(
    config_path: &Path,
    config: &TournamentConfig,
    ids: &[String],
) -> Result<Schedule, InputsError> {
    schedule_size(config_path, config, ids.len())?;
    schedule::build(config, ids).map_err(|message| {
        invalid(
            config_path,
            "judges",
            message,
            "change judges or judging".into(),
        )
    })
}
