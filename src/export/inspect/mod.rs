//! A tournament as one Inspect evaluation log (`EvalLog`, log format version 2), the JSON
//! form `inspect_ai.log.read_eval_log` reads and `inspect view` shows: the task (protocol and
//! tournament), the models by role, the dataset, one sample per round (see [`sample`]), the
//! report's headline figures as `results`, and token usage as `stats`.

pub mod input;
pub mod log;
pub mod results;
pub mod sample;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::{ExportError, Source};
use crate::analysis::analyse;
use crate::config::TournamentConfig;
use crate::domain::{ProtocolKind, Round};
use crate::store::TournamentStatus;
use log::{EvalConfig, EvalDataset, EvalLog, EvalSpec, EvalStats, ModelConfig};

/// A log and what a person should know about how it was made.
#[derive(Debug, Clone)]
pub struct Built {
    /// The log.
    pub log: EvalLog,
    /// Notes for the person exporting (where an input's text came from).
    pub notes: Vec<String>,
}

/// The evaluation log of `source`.
pub fn build(source: &Source) -> Built {
    let mut notes = Vec::new();
    let kind = protocol_of(source);
    let providers: BTreeMap<String, String> = source
        .record
        .iter()
        .flat_map(|r| &r.models)
        .map(|m| (m.name.clone(), m.provider.to_string()))
        .collect();
    let analysis = analyse(&source.rounds, &providers);
    let dilemmas = input::dilemmas(source, &mut notes);
    let mut fallback = 0;
    let samples: Vec<_> = source
        .rounds
        .iter()
        .map(|round| {
            let input = input::of_round(round, &dilemmas).unwrap_or_else(|| {
                fallback += 1;
                input::first_prompt(round)
            });
            sample::of_round(source, round, input)
        })
        .collect();
    if fallback > 0 {
        notes.push(format!(
            "{fallback} round(s) have as input the first prompt their debaters were given \
             (it quotes the dilemma): the dilemma document was not found"
        ));
    }
    let scored = samples
        .iter()
        .filter(|s| s.scores.as_ref().is_some_and(|s| !s.is_empty()))
        .count();
    let (model_usage, role_usage) = results::usage(&analysis);
    let record = source.record.as_ref();
    let name = record
        .map(|r| r.config.name.clone())
        .unwrap_or_else(|| "results".to_string());
    let started = record
        .map(|r| r.started_at.clone())
        .or_else(|| source.rounds.iter().map(|r| r.timestamp.clone()).min())
        .unwrap_or_default();
    let id = short_id(&format!("{name}\n{started}"));
    let item_ids: BTreeSet<&str> = source
        .rounds
        .iter()
        .map(|r| r.dilemma_id.as_str())
        .collect();
    let status = match record.map(|r| r.status) {
        Some(TournamentStatus::Finished) => "success",
        Some(TournamentStatus::Running) => "started",
        Some(TournamentStatus::Cancelled | TournamentStatus::BudgetReached) => "cancelled",
        None if source.rounds.iter().all(|r| r.error.is_none()) => "success",
        None => "started",
    };
    let log = EvalLog {
        version: log::LOG_VERSION,
        status,
        eval: EvalSpec {
            eval_id: id.clone(),
            run_id: id.clone(),
            created: started.clone(),
            task: format!("{}/{name}", kind.as_str()),
            task_id: id,
            task_version: 0,
            task_display_name: format!("{name} ({kind})"),
            task_attribs: attribs(kind, &name),
            dataset: EvalDataset {
                name: dataset_name(kind).to_string(),
                location: record.and_then(|r| dataset_location(kind, &r.config, &r.config_file)),
                samples: item_ids.len(),
                sample_ids: item_ids.iter().map(|s| s.to_string()).collect(),
            },
            model: "none/none".into(),
            model_roles: model_roles(source),
            config: EvalConfig {
                epochs: record
                    .map(|r| r.config.repetitions)
                    .or_else(|| source.rounds.iter().map(|r| r.repetition).max())
                    .unwrap_or(1),
            },
            packages: BTreeMap::from([(
                "ethics-bowl".to_string(),
                env!("CARGO_PKG_VERSION").to_string(),
            )]),
            metadata: spec_metadata(source),
        },
        results: results::results(&analysis, &source.rounds, scored),
        stats: EvalStats {
            started_at: started,
            completed_at: record
                .and_then(|r| r.finished_at.clone())
                .unwrap_or_default(),
            model_usage,
            role_usage,
        },
        samples,
    };
    Built { log, notes }
}

/// The log's file name as Inspect names its own (`2026-11-22T23-01-24+00-00_task_id.json`):
/// `inspect view --log-dir` lists only files whose name starts with such a timestamp.
pub fn file_name(log: &EvalLog) -> String {
    let created = log
        .eval
        .created
        .parse::<jiff::Timestamp>()
        .map(|t| t.strftime("%Y-%m-%dT%H-%M-%S+00-00").to_string())
        .unwrap_or_else(|_| "1970-01-01T00-00-00+00-00".to_string());
    let task: String = log
        .eval
        .task
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("{created}_{task}_{}.json", log.eval.eval_id)
}

/// Whether `inspect view --log-dir` lists a JSON log of this name (it must start with a
/// timestamp, as Inspect names its logs).
pub fn viewer_lists(name: &str) -> bool {
    let b = name.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| r.clone().all(|i| b.get(i).is_some_and(u8::is_ascii_digit));
    let sep = |i: usize, set: &[u8]| b.get(i).is_some_and(|c| set.contains(c));
    digits(0..4)
        && sep(4, b"-")
        && digits(5..7)
        && sep(7, b"-")
        && digits(8..10)
        && sep(10, b"T")
        && digits(11..13)
        && sep(13, b":-")
        && digits(14..16)
        && sep(16, b":-")
        && digits(17..19)
        && name.ends_with(".json")
}

/// Writes `log` to `path` (its folder created if missing), as the tool writes JSON: model
/// text escaped, keys redacted.
pub fn write(log: &EvalLog, path: &Path) -> Result<(), ExportError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| ExportError::write(dir, e))?;
    }
    let bytes = crate::safe_json::to_vec_pretty(log).map_err(|source| ExportError::Json {
        path: path.to_path_buf(),
        source,
    })?;
    std::fs::write(path, bytes).map_err(|e| ExportError::write(path, e))
}

/// The protocol of the folder: its record's, else its first round's.
fn protocol_of(source: &Source) -> ProtocolKind {
    source
        .record
        .as_ref()
        .map(|r| r.protocol)
        .or_else(|| source.rounds.first().map(Round::kind))
        .unwrap_or(ProtocolKind::EthicsBowl)
}

/// 22 characters of a SHA-256 of `text`, so a folder's log has the same ids at every export.
fn short_id(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    digest
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>()
        .chars()
        .take(22)
        .collect()
}

fn attribs(kind: ProtocolKind, name: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("protocol".into(), json!(kind.as_str()));
    m.insert("tournament".into(), json!(name));
    m
}

fn dataset_name(kind: ProtocolKind) -> &'static str {
    match kind {
        ProtocolKind::EthicsBowl => "dilemmas",
        ProtocolKind::QaDebate => "boardgameqa",
        ProtocolKind::StructuredDebate => "topics",
    }
}

/// The file the tournament read its items from, as its configuration names it.
fn dataset_location(
    kind: ProtocolKind,
    config: &TournamentConfig,
    config_file: &Path,
) -> Option<String> {
    let file = match kind {
        ProtocolKind::EthicsBowl => Some(config.dilemma_file.clone()),
        ProtocolKind::QaDebate | ProtocolKind::StructuredDebate => None,
    }?;
    (!file.as_os_str().is_empty()).then(|| {
        TournamentConfig::resolve(config_file, &file)
            .display()
            .to_string()
    })
}

/// The debaters, single judges and panel judges, each once, with their provider and model
/// id when the record has them (never a key or a base URL).
fn model_roles(source: &Source) -> BTreeMap<String, Vec<ModelConfig>> {
    let mut roles: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for r in &source.rounds {
        for m in [&r.team_a_model, &r.team_b_model] {
            if !m.is_empty() {
                roles.entry("debater").or_default().insert(m.clone());
            }
        }
        for j in &r.judgments {
            let role = if j.persona_id.is_some() {
                "panel_judge"
            } else {
                "judge"
            };
            roles.entry(role).or_default().insert(j.judge_model.clone());
        }
        if r.panel.is_none() {
            for j in &r.judge_models {
                roles.entry("judge").or_default().insert(j.clone());
            }
        }
    }
    let configured = |name: &str| {
        source
            .record
            .iter()
            .flat_map(|r| &r.models)
            .find(|m| m.name == name)
    };
    roles
        .into_iter()
        .map(|(role, names)| {
            let models = names
                .into_iter()
                .map(|name| {
                    let mut config = Map::new();
                    let mut args = Map::new();
                    if let Some(m) = configured(&name) {
                        config.insert("max_tokens".into(), json!(m.max_tokens));
                        args.insert("provider".into(), json!(m.provider.to_string()));
                        args.insert("model".into(), json!(m.model));
                    }
                    ModelConfig {
                        model: name,
                        config,
                        args,
                    }
                })
                .collect();
            (role.to_string(), models)
        })
        .collect()
}

/// The tournament's record in the spec's metadata: its configuration (no keys: the record
/// holds none), status, tool and warnings.
fn spec_metadata(source: &Source) -> Map<String, Value> {
    let mut m = Map::new();
    if let Some(r) = &source.record {
        m.insert(
            "ethics_bowl".into(),
            json!({
                "tournament": r.id,
                "protocol": r.protocol.as_str(),
                "status": r.status,
                "started_at": r.started_at,
                "finished_at": r.finished_at,
                "config": r.config,
                "tool": r.tool,
                "warnings": r.warnings,
                "rejudgings": r.rejudgings.len(),
            }),
        );
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_name_is_one_the_viewer_lists() {
        let source = Source {
            rounds: Vec::new(),
            record: None,
            annotations: Vec::new(),
        };
        let mut log = build(&source).log;
        log.eval.created = "2026-11-22T23:01:24.027155794Z".into();
        log.eval.task = "ethics_bowl/my tournament".into();
        let name = file_name(&log);
        assert!(
            name.starts_with("2026-11-22T23-01-24+00-00_ethics-bowl-my-tournament_"),
            "{name}"
        );
        assert!(viewer_lists(&name), "{name}");
        assert!(!viewer_lists("inspect-log.json"));
        assert!(viewer_lists("2026-11-22T23:01:24_x.json"));
        assert!(!viewer_lists("2026-11-22T23-01-24_x.eval.txt"));
    }
}
