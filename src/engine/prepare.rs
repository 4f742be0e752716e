//! Everything checked before anything is written or called: the tournament file, the models
//! file, every key variable of a model that will be called, the protocol's inputs (the
//! dilemma document and the selected ids, the BoardgameQA files and their sample, or the
//! topics file), and
//! the judge assignment. Any problem here is the user's to fix (exit 2).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::{
    ConfigError, ModelsConfig, QaConfig, Selection, StructuredConfig, TournamentConfig,
};
use crate::domain::ProtocolKind;
use crate::domain::SampledItem;
use crate::inputs::{DilemmaError, QaDataError, load_dilemmas, load_items, load_topics, sample};
use crate::protocols::Protocol;
use crate::protocols::ethics_bowl::{EthicsBowl, EthicsBowlOptions};
use crate::protocols::qa_debate::{QaDebate, QaRules};
use crate::protocols::structured_debate::{StructuredDebate, StructuredRules};
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
    /// A question-answer dataset cannot be used.
    #[error(transparent)]
    QaData(#[from] QaDataError),
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
    /// The question-answer sample with its assignments (empty for the Ethics Bowl).
    pub qa_sample: Vec<SampledItem>,
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

/// What a protocol's inputs give the tournament.
struct Inputs {
    protocol: Arc<dyn Protocol>,
    item_ids: Vec<String>,
    qa_sample: Vec<SampledItem>,
    schedule: Schedule,
    warnings: Vec<String>,
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
    let inputs = match (config.protocol, &config.qa, &config.structured) {
        (ProtocolKind::QaDebate, Some(qa), _) => qa_inputs(config_path, &config, qa)?,
        (ProtocolKind::StructuredDebate, _, Some(s)) => topic_inputs(config_path, &config, s)?,
        _ => dilemma_inputs(config_path, &config)?,
    };
    let registry = ModelRegistry::build(
        &models,
        used.iter().copied(),
        &crate::protocols::simulated_behaviours(),
    )?;
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
        qa_sample: inputs.qa_sample,
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

fn invalid(config_path: &Path, key: &str, message: String, fix: String) -> PrepareError {
    PrepareError::Config(ConfigError::invalid(
        config_path,
        format!("key \"{key}\""),
        message,
        fix,
    ))
}

/// Where a selection of ids comes from, for its error message.
struct Picked<'a> {
    config_path: &'a Path,
    key: &'a str,
    what: &'a str,
    file: &'a Path,
}

/// The entries a selection names, in the selection's order (all for `"all"`); an unknown id
/// is an error naming the key, the file and the ids that exist.
fn select<T: Clone>(
    all: Vec<T>,
    selection: &Selection,
    id: impl Fn(&T) -> &String,
    at: Picked<'_>,
) -> Result<Vec<T>, PrepareError> {
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
fn schedule_size(
    config_path: &Path,
    config: &TournamentConfig,
    items: usize,
) -> Result<(), PrepareError> {
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
fn pairings_schedule(
    config_path: &Path,
    config: &TournamentConfig,
    ids: &[String],
) -> Result<Schedule, PrepareError> {
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

/// The Ethics Bowl's inputs: the dilemma document and the selected dilemmas.
fn dilemma_inputs(config_path: &Path, config: &TournamentConfig) -> Result<Inputs, PrepareError> {
    let document = TournamentConfig::resolve(config_path, &config.dilemma_file);
    let loaded = load_dilemmas(&document)?;
    let dilemmas = select(
        loaded.dilemmas,
        &config.dilemmas,
        |d| &d.id,
        Picked {
            config_path,
            key: "dilemmas",
            what: "dilemma",
            file: &document,
        },
    )?;
    let ids: Vec<String> = dilemmas.iter().map(|d| d.id.clone()).collect();
    let schedule = pairings_schedule(config_path, config, &ids)?;
    Ok(Inputs {
        protocol: Arc::new(EthicsBowl::new(
            dilemmas,
            EthicsBowlOptions {
                consistency_test_both_teams: config.consistency_test_both_teams,
                judge_sees_model_names: config.judge_sees_model_names,
            },
        )),
        item_ids: ids,
        qa_sample: Vec::new(),
        schedule,
        warnings: loaded.warnings,
    })
}

/// The structured debate's inputs: the topics file and the selected topics.
fn topic_inputs(
    config_path: &Path,
    config: &TournamentConfig,
    s: &StructuredConfig,
) -> Result<Inputs, PrepareError> {
    let file = TournamentConfig::resolve(config_path, &s.topics_file);
    let all = load_topics(&file)?;
    let topics = select(
        all,
        &s.topics,
        |t| &t.id,
        Picked {
            config_path,
            key: "structured.topics",
            what: "topic",
            file: &file,
        },
    )?;
    let ids: Vec<String> = topics.iter().map(|t| t.id.clone()).collect();
    let schedule = pairings_schedule(config_path, config, &ids)?;
    Ok(Inputs {
        protocol: Arc::new(StructuredDebate::new(
            topics,
            StructuredRules {
                weights: s.weights,
                bands: s.bands,
                closing_word_limit: s.closing_word_limit,
            },
        )),
        item_ids: ids,
        qa_sample: Vec::new(),
        schedule,
        warnings: Vec::new(),
    })
}

/// The question-answer debate's inputs: every dataset file, and the seeded sample.
fn qa_inputs(
    config_path: &Path,
    config: &TournamentConfig,
    qa: &QaConfig,
) -> Result<Inputs, PrepareError> {
    let mut items = Vec::new();
    let mut warnings = Vec::new();
    for dataset in &qa.datasets {
        let path = TournamentConfig::resolve(config_path, &dataset.file);
        let loaded = load_items(&path, dataset.level.as_deref())?;
        for skipped in loaded.skipped {
            warnings.push(format!("{}: {skipped}; left out", path.display()));
        }
        for item in loaded.items {
            if items
                .iter()
                .any(|i: &crate::domain::QaItem| i.id == item.id)
            {
                return Err(invalid(
                    config_path,
                    "qa.datasets",
                    format!("two files give the item id \"{}\"", item.id),
                    "list each file once (ids come from the file name and the position)".into(),
                ));
            }
            items.push(item);
        }
    }
    let sampled = sample(&items, qa.sample_per_level, qa.seed, qa.both_wrong_share);
    let ids: Vec<String> = sampled.iter().map(|(item, _)| item.id.clone()).collect();
    schedule_size(config_path, config, ids.len())?;
    let schedule = schedule::build_qa(config, qa, &ids);
    Ok(Inputs {
        qa_sample: sampled.iter().map(|(_, s)| s.clone()).collect(),
        protocol: Arc::new(QaDebate::new(sampled, QaRules::of(qa))),
        item_ids: ids,
        schedule,
        warnings,
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
    stays_batched(prepared)
}
