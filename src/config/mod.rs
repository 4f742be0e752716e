//! Configuration files: what models exist and how to reach them, and what a tournament plays.

mod error;
mod models;
mod panel;
mod qa;
mod structured;
mod tournament;

pub use error::ConfigError;
pub use models::{
    LimitsConfig, ModelConfig, ModelsConfig, Price, ProviderKind, ReasoningEffort, RetryConfig,
    SimulatedParams,
};
pub use panel::{PanelConfig, PanelJudgeConfig};
pub use qa::{QaConfig, QaDataset};
pub use structured::{StructuredConfig, TopicsFile};
pub use tournament::{JudgingMode, Pairings, Selection, TournamentConfig};

/// Reads a configuration file, naming it when that fails.
fn read_file(path: &std::path::Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })
}
