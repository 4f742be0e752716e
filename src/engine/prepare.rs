//! Everything checked before anything is written or called: the tournament file, the models
//! file, every key variable of a model that will be called, the dilemma document and the
//! selected ids, and the judge assignment. Any problem here is the user's to fix (exit 2).

use std::path::{Path, PathBuf};

use crate::config::{ConfigError, ModelsConfig, Selection, TournamentConfig};
use crate::domain::Dilemma;
use crate::inputs::{DilemmaError, load_dilemmas};
use crate::providers::{ModelRegistry, SetupError};
use crate::store::{Store, StoreError};

use super::schedule::{self, Schedule};

/// A tournament that cannot start.
#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    /// A configuration file is wrong.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A model cannot be called (unknown, or its key variable is not set).
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The dilemma document cannot be used.
    #[error(transparent)]
    Dilemmas(#[from] DilemmaError),
    /// The results folder to resume cannot be read.
    #[error("cannot resume: {0}")]
    Resume(#[from] StoreError),
}

/// A checked tournament, ready to run.
#[derive(Debug)]
pub struct Prepared {
    /// The tournament's id.
    pub id: String,
    /// The tournament file (paths in it are relative to it).
    pub config_path: PathBuf,
    /// The tournament file's contents.
    pub config: TournamentConfig,
    /// The results folder of this tournament.
    pub dir: PathBuf,
    /// The models file.
    pub models: ModelsConfig,
    /// The dilemmas played, in document order.
    pub dilemmas: Vec<Dilemma>,
    /// The rounds and their judges.
    pub schedule: Schedule,
    /// Clients for every model that will be called.
    pub registry: ModelRegistry,
    /// Warnings from the dilemma document.
    pub document_warnings: Vec<String>,
}

/// Checks a tournament file and everything it names. `output` overrides `output_dir`.
pub fn prepare(config_path: &Path, output: Option<&Path>) -> Result<Prepared, PrepareError> {
    let config = TournamentConfig::load(config_path)?;
    let invalid = |key: &str, message: String, fix: String| {
        PrepareError::Config(ConfigError::invalid(
            config_path,
            format!("key \"{key}\""),
            message,
            fix,
        ))
    };
    let models_path = TournamentConfig::resolve(config_path, &config.models_file);
    let models = ModelsConfig::load(&models_path)?;
    let defined = models.names().join(", ");
    let mut used: Vec<&str> = Vec::new();
    let judges = config.judge_models();
    let judges_key = if config.panel.is_some() {
        "panel.judges"
    } else {
        "judges"
    };
    for (key, names) in [("models", &config.models), (judges_key, &judges)] {
        for name in names {
            if models.get(name).is_none() {
                return Err(invalid(
                    key,
                    format!(
                        "model \"{name}\" is not defined in {}",
                        models_path.display()
                    ),
                    format!("define it there, or use one of: {defined}"),
                ));
            }
            used.push(name);
        }
    }
    for (a, b) in schedule::pairings(&config) {
        for m in [&a, &b] {
            if !config.models.contains(m) {
                return Err(invalid(
                    "pairings",
                    format!("\"{m}\" is not one of the tournament's models"),
                    "add it to models, or fix the pairing".into(),
                ));
            }
        }
    }
    let document = TournamentConfig::resolve(config_path, &config.dilemma_file);
    let loaded = load_dilemmas(&document)?;
    let dilemmas: Vec<Dilemma> = match &config.dilemmas {
        Selection::Keyword(_) => loaded.dilemmas,
        Selection::Ids(ids) => {
            let known: Vec<String> = loaded.dilemmas.iter().map(|d| d.id.clone()).collect();
            let mut picked = Vec::new();
            for id in ids {
                match loaded.dilemmas.iter().find(|d| d.id == *id) {
                    Some(d) => picked.push(d.clone()),
                    None => {
                        return Err(invalid(
                            "dilemmas",
                            format!("dilemma \"{id}\" is not in {}", document.display()),
                            format!("use ids that exist: {}", known.join(", ")),
                        ));
                    }
                }
            }
            picked
        }
    };
    let ids: Vec<String> = dilemmas.iter().map(|d| d.id.clone()).collect();
    let schedule = schedule::build(&config, &ids)
        .map_err(|message| invalid("judges", message, "change judges or judging".into()))?;
    let registry = ModelRegistry::build(&models, used.iter().copied())?;
    let base = output
        .map(Path::to_path_buf)
        .unwrap_or_else(|| config.output_dir.clone());
    let id = config.id();
    Ok(Prepared {
        dir: base.join(&id),
        id,
        config_path: config_path.to_path_buf(),
        config,
        models,
        dilemmas,
        schedule,
        registry,
        document_warnings: loaded.warnings,
    })
}

/// Prepares the tournament whose results are in `dir`, from the tournament file it records.
pub fn prepare_resume(dir: &Path) -> Result<Prepared, PrepareError> {
    let store = Store::open(dir)?;
    let record = store.load_tournament()?.ok_or_else(|| StoreError::Io {
        path: dir.join("tournament.json"),
        source: std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no tournament.json: not a results folder of ethics-bowl run",
        ),
    })?;
    let parent = dir.parent().unwrap_or(Path::new("."));
    let mut prepared = prepare(&record.config_file, Some(parent))?;
    prepared.dir = dir.to_path_buf();
    Ok(prepared)
}
