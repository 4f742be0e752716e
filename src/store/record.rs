//! The tournament manifest (`tournament.json`): the resolved configuration (no secrets),
//! the schedule with its judge assignment, and how the run went.

use serde::{Deserialize, Serialize};

use std::path::PathBuf;

use crate::build_info::ToolInfo;
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
    /// The build of the tool that last ran the tournament (or re-judged the folder): its
    /// version and git commit. Absent in records written before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<ToolInfo>,
    /// Other builds that ran the tournament or re-judged the folder before the last one,
    /// oldest first, each once: a folder finished by another build than the one that began
    /// it says so.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub earlier_tools: Vec<ToolInfo>,
    /// The adaptive design's choices (`pairings = "adaptive"`): every wave with the rating
    /// state it saw and the rounds it chose, and what stopped it. Absent for a fixed
    /// schedule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub design: Option<crate::design::DesignRecord>,
    /// Every re-judging that wrote into this folder, oldest first: `rejudge --out` writes
    /// the source's record here with one more entry naming the source folder, `rejudge` in
    /// place adds one to the folder's own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rejudgings: Vec<RejudgingRecord>,
}

impl TournamentRecord {
    /// Stamps the record with this build ([`ToolInfo::current`]), keeping the build that
    /// wrote it before among [`TournamentRecord::earlier_tools`] when it was another.
    pub fn stamp_tool(&mut self) {
        let now = ToolInfo::current();
        if let Some(before) = self.tool.take().filter(|t| *t != now)
            && !self.earlier_tools.contains(&before)
        {
            self.earlier_tools.push(before);
        }
        self.tool = Some(now);
    }
}

/// One re-judging of stored exchanges (`ethics-bowl rejudge`), as the folder it wrote into
/// records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RejudgingRecord {
    /// The folder whose rounds were judged again (absolute when it could be resolved).
    pub source: PathBuf,
    /// Whether the judgments were added to the source folder itself (no `--out`).
    pub in_place: bool,
    /// When it started (RFC 3339); a stopped re-judging run again keeps its first start.
    pub started_at: String,
    /// The judging file.
    pub config_file: PathBuf,
    /// `all` (each judge alone) or `panel`.
    pub judging: crate::config::JudgingMode,
    /// The judging models (a panel's judges' models, in its order).
    pub judges: Vec<String>,
    /// The panel's judges' ids, when a panel judged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub panel_judges: Vec<String>,
    /// Whether the new judges saw the debaters' model names (the question-answer and
    /// structured debates never show them).
    pub judge_sees_model_names: bool,
    /// The judges' temperature in place of the models' own, when the judging file set one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_temperature: Option<f64>,
    /// Whether the judges read each exchange with its two sides exchanged (`rejudge
    /// --swap-sides`): the folder then holds only those judgments, mapped back to the sides
    /// as played, and `source` the folder judged as played. Absent (false) otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub swap_sides: bool,
    /// The build of the tool that re-judged.
    pub tool: ToolInfo,
}

impl RejudgingRecord {
    /// Whether `other` is this re-judging run again (all but the start time alike), so the
    /// record keeps one entry for a re-judging stopped and taken up again.
    pub fn same_as(&self, other: &Self) -> bool {
        Self {
            started_at: String::new(),
            ..self.clone()
        } == Self {
            started_at: String::new(),
            ..other.clone()
        }
    }
}
