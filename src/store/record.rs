//! The tournament manifest (`tournament.json`): the resolved configuration (no secrets),
//! the schedule with its judge assignment, and how the run went.

use serde::{Deserialize, Serialize};

use crate::config::{ModelConfig, TournamentConfig};
use crate::domain::{ProtocolKind, ScheduledRound};

/// How a run ended, or that it is still going.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TournamentStatus {
    /// Under way (or killed: a later run resumes it).
    Running,
    /// Every round was attempted.
    Finished,
    /// Stopped by the user; resumable.
    Cancelled,
    /// Stopped at the budget; resumable with a larger one.
    BudgetReached,
}

/// The manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TournamentRecord {
    /// The tournament's id (its folder's name).
    pub id: String,
    /// The protocol played.
    pub protocol: ProtocolKind,
    /// How the run stands.
    pub status: TournamentStatus,
    /// When the first run started (RFC 3339).
    pub started_at: String,
    /// When the last run ended.
    #[serde(default)]
    pub finished_at: Option<String>,
    /// The tournament file this run was started from (resume reads it again).
    pub config_file: std::path::PathBuf,
    /// The tournament file as written.
    pub config: TournamentConfig,
    /// The models taking part, as configured (key variable names only, never keys).
    pub models: Vec<ModelConfig>,
    /// The dilemmas (or question-answer items) played.
    pub dilemma_ids: Vec<String>,
    /// Every round, with its judges.
    pub schedule: Vec<ScheduledRound>,
    /// Warnings from planning (judge balance, document warnings).
    #[serde(default)]
    pub warnings: Vec<String>,
    /// The question-answer sample with the answers handed out, so a run can be reproduced.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub qa_sample: Vec<crate::domain::SampledItem>,
}
