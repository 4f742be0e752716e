//! The parts of Inspect's evaluation log (`EvalLog`, log format version 2, as `inspect log
//! schema` prints it for inspect-ai 0.3.285) that an export fills in: the required fields
//! and the ones a tournament has something to say in. Everything else Inspect reads with
//! its defaults.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::providers::Usage;

/// The log format's version (`EvalLog.version`).
pub const LOG_VERSION: u32 = 2;

/// The inspect-ai release whose `EvalLog` this follows (pinned in `.ci/run` and named in the
/// docs).
pub const INSPECT_VERSION: &str = "0.3.285";

/// One evaluation log.
#[derive(Debug, Clone, Serialize)]
pub struct EvalLog {
    /// [`LOG_VERSION`].
    pub version: u32,
    /// `started`, `success`, `cancelled` (Inspect's `EvalStatus`).
    pub status: &'static str,
    /// The task, dataset, models and configuration.
    pub eval: EvalSpec,
    /// The headline metrics.
    pub results: EvalResults,
    /// Times and token usage.
    pub stats: EvalStats,
    /// One sample per round.
    pub samples: Vec<EvalSample>,
}

/// `EvalSpec`.
#[derive(Debug, Clone, Serialize)]
pub struct EvalSpec {
    /// A stable id for this tournament's log.
    pub eval_id: String,
    /// The run's id.
    pub run_id: String,
    /// When the run started (RFC 3339).
    pub created: String,
    /// `protocol/tournament`.
    pub task: String,
    /// The task's id.
    pub task_id: String,
    /// Always 0: a tournament has no task versions.
    pub task_version: u32,
    /// The tournament's name, for the viewer's heading.
    pub task_display_name: String,
    /// The protocol and tournament.
    pub task_attribs: Map<String, Value>,
    /// The dilemmas, items or topics.
    pub dataset: EvalDataset,
    /// Inspect's model under test; `none/none`, as Inspect writes for tasks with no single
    /// model (the models are in `model_roles`).
    pub model: String,
    /// Debaters and judges by role.
    pub model_roles: BTreeMap<String, Vec<ModelConfig>>,
    /// The repetitions as epochs.
    pub config: EvalConfig,
    /// This tool and its version.
    pub packages: BTreeMap<String, String>,
    /// The tournament's own record: its configuration, status and warnings.
    pub metadata: Map<String, Value>,
}

/// `EvalDataset`.
#[derive(Debug, Clone, Serialize)]
pub struct EvalDataset {
    /// `dilemmas`, `boardgameqa`, `topics`.
    pub name: String,
    /// The file the tournament read them from, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// How many were played.
    pub samples: usize,
    /// Their ids.
    pub sample_ids: Vec<String>,
}

/// `ModelConfig`: one model in a role (no key, no base URL).
#[derive(Debug, Clone, Serialize)]
pub struct ModelConfig {
    /// The model's name in the models file (as messages and usage name it).
    pub model: String,
    /// Its generation settings, when known.
    pub config: Map<String, Value>,
    /// Its provider and the provider's model id.
    pub args: Map<String, Value>,
}

/// `EvalConfig`.
#[derive(Debug, Clone, Serialize)]
pub struct EvalConfig {
    /// The tournament's repetitions.
    pub epochs: u32,
}

/// `EvalResults`.
#[derive(Debug, Clone, Serialize)]
pub struct EvalResults {
    /// Rounds.
    pub total_samples: usize,
    /// Rounds every phase of which ran (complete or waiting for review).
    pub completed_samples: usize,
    /// The headline figures, each from the report's analysis.
    pub scores: Vec<EvalScore>,
    /// What could not be computed, and why.
    pub metadata: Map<String, Value>,
}

/// `EvalScore`: one of the report's figures, its rows as metrics.
#[derive(Debug, Clone, Serialize)]
pub struct EvalScore {
    /// The figure.
    pub name: String,
    /// Who scored: the protocol's judges.
    pub scorer: String,
    /// Rounds with a usable judgment.
    pub scored_samples: usize,
    /// Rounds without one.
    pub unscored_samples: usize,
    /// Its rows.
    pub metrics: BTreeMap<String, EvalMetric>,
    /// What the figure is and what n counts.
    pub metadata: Map<String, Value>,
}

/// `EvalMetric`: an estimate, its interval and n in `metadata`.
#[derive(Debug, Clone, Serialize)]
pub struct EvalMetric {
    /// The row.
    pub name: String,
    /// The estimate.
    pub value: f64,
    /// `low`, `high` (the 95% interval, null when it cannot be computed), `n` and what it
    /// counts.
    pub metadata: Map<String, Value>,
}

/// `EvalStats`.
#[derive(Debug, Clone, Serialize)]
pub struct EvalStats {
    /// When the run started.
    pub started_at: String,
    /// When it finished (empty while it has not).
    pub completed_at: String,
    /// Tokens and cost by model.
    pub model_usage: BTreeMap<String, ModelUsage>,
    /// Tokens and cost by role (`debater`, `judge`).
    pub role_usage: BTreeMap<String, ModelUsage>,
}

/// `ModelUsage`. Inspect counts prompt tokens apart by price: `input_tokens` only those at
/// the full rate, the cache's reads and writes beside them (our `Usage` counts the whole
/// prompt in `input_tokens`, the cache's parts inside it).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ModelUsage {
    /// Prompt tokens charged at the full rate (neither read from nor written to a cache).
    pub input_tokens: u64,
    /// Answer tokens.
    pub output_tokens: u64,
    /// Every prompt and answer token.
    pub total_tokens: u64,
    /// Prompt tokens written to the provider's prompt cache.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_tokens_cache_write: Option<u64>,
    /// Prompt tokens the provider's prompt cache served.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_tokens_cache_read: Option<u64>,
    /// Estimated dollars, when any call had a price.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_cost: Option<f64>,
}

impl ModelUsage {
    /// Adds one call's (or a usage row's) tokens and cost.
    pub fn add(&mut self, tokens: &Usage, cost: Option<f64>) {
        let cached = tokens.cached_input_tokens + tokens.cache_write_tokens;
        self.input_tokens += tokens.input_tokens.saturating_sub(cached);
        self.output_tokens += tokens.output_tokens;
        self.total_tokens += tokens.input_tokens + tokens.output_tokens;
        if tokens.cache_write_tokens > 0 {
            *self.input_tokens_cache_write.get_or_insert(0) += tokens.cache_write_tokens;
        }
        if tokens.cached_input_tokens > 0 {
            *self.input_tokens_cache_read.get_or_insert(0) += tokens.cached_input_tokens;
        }
        if let Some(c) = cost {
            *self.total_cost.get_or_insert(0.0) += c;
        }
    }
}

/// `EvalSample`: one round.
#[derive(Debug, Clone, Serialize)]
pub struct EvalSample {
    /// The round's id.
    pub id: String,
    /// The repetition.
    pub epoch: u32,
    /// The dilemma, question or proposition.
    pub input: String,
    /// The correct answer (question-answer items); empty where there is none.
    pub target: String,
    /// The input, then every call's answer in the order they finished.
    pub messages: Vec<ChatMessage>,
    /// Every call as a model event, with what the model was sent: the viewer's transcript.
    pub events: Vec<ModelEvent>,
    /// One score per judge (none for a round that failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scores: Option<BTreeMap<String, Score>>,
    /// Pairing, sides, judges, status, the protocol's record.
    pub metadata: Map<String, Value>,
    /// Tokens and cost by model.
    pub model_usage: BTreeMap<String, ModelUsage>,
    /// What stopped a round that failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<EvalError>,
    /// When the round was created.
    pub started_at: String,
    /// When its last call finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<String>,
    /// Seconds from its start to its last call's end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_time: Option<f64>,
}

/// A chat message.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum ChatMessage {
    /// A call's system prompt.
    System {
        /// The text.
        content: String,
        /// `input`.
        source: &'static str,
    },
    /// The round's input, or a prompt sent.
    User {
        /// The text.
        content: String,
        /// `input`.
        source: &'static str,
    },
    /// One call's answer.
    Assistant {
        /// The answer as the model wrote it.
        content: String,
        /// `generate`.
        source: &'static str,
        /// The model that answered.
        model: String,
        /// Its phase, role, side, speaker, usage and how it ended (none for an earlier turn
        /// of a conversation).
        #[serde(skip_serializing_if = "Map::is_empty")]
        metadata: Map<String, Value>,
    },
}

/// `ModelEvent`: one call, as the viewer's transcript shows it.
#[derive(Debug, Clone, Serialize)]
pub struct ModelEvent {
    /// `model`.
    pub event: &'static str,
    /// When the call started (its end less its latency), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// Seconds from the round's start to the call's.
    pub working_start: f64,
    /// The model called.
    pub model: String,
    /// Who it was in the round, as the viewer's transcript heads the call: a debater's side
    /// (`presenting`, `con`, `debater_a`, …), `judge`, or `panel judge PERSONA`.
    pub role: String,
    /// What it was sent: its system prompt, earlier turns, and the prompt.
    pub input: Vec<ChatMessage>,
    /// None: the tournament's calls use no tools.
    pub tools: Vec<Value>,
    /// `none`.
    pub tool_choice: &'static str,
    /// The temperature sent, when one was.
    pub config: Map<String, Value>,
    /// The answer.
    pub output: ModelOutput,
    /// Attempts that failed before it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retries: Option<usize>,
    /// `read` for an answer our response cache gave instead of a call, as Inspect marks an
    /// answer from its own cache; none for a call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache: Option<&'static str>,
    /// The error of a panel call that failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// When it finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completed: Option<String>,
    /// Its latency in seconds, retries included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub working_time: Option<f64>,
}

/// `ModelOutput`.
#[derive(Debug, Clone, Serialize)]
pub struct ModelOutput {
    /// The model.
    pub model: String,
    /// The one answer.
    pub choices: Vec<ChatCompletionChoice>,
    /// Its tokens and cost.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<ModelUsage>,
    /// Its latency in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<f64>,
}

/// `ChatCompletionChoice`.
#[derive(Debug, Clone, Serialize)]
pub struct ChatCompletionChoice {
    /// The answer.
    pub message: ChatMessage,
    /// Inspect's reading of the provider's finish reason: `stop`, `max_tokens`,
    /// `content_filter`, `unknown`.
    pub stop_reason: &'static str,
}

/// A score (`Score`): a dict of the judge's observations.
#[derive(Debug, Clone, Serialize)]
pub struct Score {
    /// The observations, by key (`team_a.consistency`, `verdict`, `choice`).
    pub value: Map<String, Value>,
    /// The verdict or choice, as a word.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// The judge's reasons.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
    /// Who judged and how the judgment was read.
    pub metadata: Map<String, Value>,
}

/// `EvalError`.
#[derive(Debug, Clone, Serialize)]
pub struct EvalError {
    /// What failed, where.
    pub message: String,
    /// Every attempt of the failed call (Inspect's field for a traceback).
    pub traceback: String,
    /// The same.
    pub traceback_ansi: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_tokens_are_counted_beside_the_full_rate_ones_as_inspect_counts_them() {
        let mut usage = ModelUsage::default();
        let call = Usage {
            input_tokens: 1000,
            output_tokens: 50,
            cached_input_tokens: 600,
            cache_write_tokens: 300,
        };
        usage.add(&call, Some(0.01));
        usage.add(
            &Usage {
                input_tokens: 10,
                output_tokens: 5,
                ..Usage::default()
            },
            None,
        );
        assert_eq!(usage.input_tokens, 100 + 10);
        assert_eq!(usage.input_tokens_cache_read, Some(600));
        assert_eq!(usage.input_tokens_cache_write, Some(300));
        assert_eq!(usage.total_tokens, 1000 + 50 + 10 + 5);
        assert_eq!(usage.total_cost, Some(0.01));
    }
}
