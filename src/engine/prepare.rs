//! Everything checked before anything is written or called: the tournament file, the models
//! file, every key variable of a model that will be called, the protocol's inputs (read by
//! its spec: see [`crate::protocols::ProtocolSpec::inputs`]), and the judge assignment. Any
//! problem here is the user's to fix (exit 2).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::{CacheSetting, ConfigError, ModelsConfig, TournamentConfig};
use crate::domain::SampledItem;
use crate::protocols::inputs::InputsError;
use crate::protocols::schedule::{self, Schedule};
use crate::protocols::{Protocol, spec};
use crate::providers::response_cache::{self, CachePolicy, ResponseCache};
use crate::providers::{ModelRegistry, SetupError};
use crate::store::{Store, StoreError};

/// A tournament that cannot start.
#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    /// A configuration file is wrong.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A model cannot be called (unknown, or its key variable is not set).
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The protocol's inputs cannot be used (its dilemma document, datasets or topics).
    #[error(transparent)]
    Inputs(#[from] InputsError),
    /// The results folder to resume cannot be read.
    #[error("cannot resume: {0}")]
    Resume(#[from] StoreError),
    /// The results folder to write is another process's (see [`Store::open_for_writing`]).
    #[error(transparent)]
    Folder(StoreError),
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
    /// The protocol, with the dilemmas or items its rounds play.
    pub protocol: Arc<dyn Protocol>,
    /// The dilemmas (or items) played, in order.
    pub item_ids: Vec<String>,
    /// The items' sample with the answers handed out, for the tournament's record (see
    /// [`crate::protocols::inputs::Inputs::sample`]).
    pub sample: Vec<SampledItem>,
    /// The rounds and their judges.
    pub schedule: Schedule,
    /// Clients for every model that will be called.
    pub registry: ModelRegistry,
    /// Warnings from the inputs (dilemma document, dataset items left out).
    pub input_warnings: Vec<String>,
    /// The models whose calls go through their provider's batch API (batch mode).
    pub batch_models: Vec<String>,
}

impl Prepared {
    /// Uses the response cache as `setting` says (`--cache`), in place of the tournament
    /// file's `cache`; its folder is still the file's `cache_dir` when it names one.
    pub fn with_cache(mut self, setting: CacheSetting) -> Result<Self, PrepareError> {
        self.config.cache = setting;
        let cache = response_cache(setting, self.config.cache_dir.as_deref(), &self.config_path)?;
        self.registry.use_response_cache(cache);
        Ok(self)
    }

    /// Turns batch mode on (`--batch`, or a resumed run that was batched): every model with
    /// a batch API batches, unless its own `batch` key says no. None having one is an error.
    pub fn with_batch(mut self) -> Result<Self, PrepareError> {
        self.config.batch = true;
        let (models, warnings) = batch_plan(&self.config, &self.models);
        if models.is_empty() {
            return Err(PrepareError::Config(ConfigError::invalid(
                &self.config_path,
                "batch mode (--batch or batch = true)".to_string(),
                format!(
                    "none of the models called ({}) has a batch API here (only openai, \
                     anthropic and google do)",
                    used_models(&self.config).join(", ")
                ),
                "run without batch mode, or use models of those providers".to_string(),
            )));
        }
        self.batch_models = models;
        self.input_warnings.extend(warnings);
        Ok(self)
    }
}

/// Every model a tournament calls, debaters then judges, each once.
fn used_models(config: &TournamentConfig) -> Vec<String> {
    let mut used: Vec<String> = Vec::new();
    for m in config.models.iter().chain(&config.judge_models()) {
        if !used.contains(m) {
            used.push(m.clone());
        }
    }
    used
}

/// The batched models of a tournament, and warnings about models that cannot batch.
fn batch_plan(config: &TournamentConfig, models: &ModelsConfig) -> (Vec<String>, Vec<String>) {
    let used = used_models(config);
    super::batching::batched_models(config.batch, models, used.iter().map(String::as_str))
}

/// Checks a tournament file and everything it names. `output` overrides `output_dir`.
pub fn prepare(config_path: &Path, output: Option<&Path>) -> Result<Prepared, PrepareError> {
    let config = TournamentConfig::load(config_path)?;
    let invalid = |key: &str, message: String, fix: String| invalid(config_path, key, message, fix);
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
    let inputs = spec(config.protocol).inputs(config_path, &config)?;
    let registry = ModelRegistry::build(
        &models,
        used.iter().copied(),
        &crate::protocols::simulated_behaviours(),
    )?;
    registry.use_response_cache(response_cache(
        config.cache,
        config.cache_dir.as_deref(),
        config_path,
    )?);
    let base = output
        .map(Path::to_path_buf)
        .unwrap_or_else(|| config.output_dir.clone());
    let id = config.id();
    let batch = config.batch;
    let (batch_models, batch_warnings) = batch_plan(&config, &models);
    let mut warnings = inputs.warnings;
    warnings.extend(batch_warnings);
    let prepared = Prepared {
        dir: base.join(&id),
        id,
        config_path: config_path.to_path_buf(),
        config,
        models,
        protocol: inputs.protocol,
        item_ids: inputs.item_ids,
        sample: inputs.sample,
        schedule: inputs.schedule,
        registry,
        input_warnings: warnings,
        batch_models,
    };
    // A batch = true with no model able to batch is refused the same way as --batch.
    if batch && prepared.batch_models.is_empty() {
        return prepared.with_batch();
    }
    stays_batched(prepared)
}

/// A tournament whose stored record says it batched, or whose journals hold batches still
/// open, goes on batching however it is started again: its open batches are collected, not
/// sent again at full price.
fn stays_batched(prepared: Prepared) -> Result<Prepared, PrepareError> {
    if prepared.config.batch {
        return Ok(prepared);
    }
    let recorded = Store::open(&prepared.dir)
        .ok()
        .and_then(|s| s.load_tournament().ok().flatten())
        .is_some_and(|r| r.config.batch);
    if recorded || crate::providers::batch::any_open(&prepared.dir.join("batches")) {
        return prepared.with_batch();
    }
    Ok(prepared)
}

/// The response cache `setting` asks for (none when off), in `dir` (relative to the file at
/// `config_path`) or the default folder (see [`response_cache::folder`]); no folder to put
/// it in is an error naming the file.
pub(crate) fn response_cache(
    setting: CacheSetting,
    dir: Option<&Path>,
    config_path: &Path,
) -> Result<Option<Arc<ResponseCache>>, PrepareError> {
    let Some(policy) = CachePolicy::of(setting) else {
        return Ok(None);
    };
    let dir = dir.map(|d| TournamentConfig::resolve(config_path, d));
    let folder =
        response_cache::folder(dir.as_deref(), |v| std::env::var(v).ok()).ok_or_else(|| {
            invalid(
                config_path,
                "cache",
                "asks for the response cache, but there is no home folder to keep it in".into(),
                format!(
                    "name a folder with cache_dir, or in the environment variable {}",
                    response_cache::DIR_VAR
                ),
            )
        })?;
    tracing::info!(dir = %folder.display(), ?policy, "response cache in use");
    Ok(Some(Arc::new(ResponseCache::new(folder, policy))))
}

fn invalid(config_path: &Path, key: &str, message: String, fix: String) -> PrepareError {
    PrepareError::Config(ConfigError::invalid(
        config_path,
        format!("key \"{key}\""),
        message,
        fix,
    ))
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
    // The response cache as the run was started (`--cache` included), so a resume and the
    // UI's run-again of failed rounds go on as the run began; a `--cache` given to the
    // resume replaces it afterwards.
    if record.config.cache != prepared.config.cache {
        prepared = prepared.with_cache(record.config.cache)?;
    }
    stays_batched(prepared)
}
