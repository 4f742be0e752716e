//! Configuration files: what models exist and how to reach them, and what a tournament plays.

mod cache;
mod error;
mod models;
mod panel;
mod qa;
mod seconds;
mod structured;
mod tournament;
mod typed;

pub use cache::CacheSetting;
pub use error::ConfigError;
pub use models::{
    BilledTokens, CallCost, LimitsConfig, ModelConfig, ModelsConfig, OnTruncation, Price,
    ProviderKind, ReasoningEffort, RetryConfig, SimulatedParams, StructuredOutput,
};
pub use panel::{PanelConfig, PanelJudgeConfig};
pub use qa::{QaConfig, QaDataset};
pub(crate) use seconds::in_range as seconds_in_range;
pub use seconds::{LONGEST_SECONDS, seconds};
pub use structured::{StructuredConfig, TopicsFile};
pub use tournament::{
    ADAPTIVE, JudgingMode, Pairings, RoleTemperatures, Selection, TournamentConfig,
};

/// Reads a configuration file, naming it (and the first byte that is not UTF-8) when that
/// fails.
fn read_file(path: &std::path::Path) -> Result<String, ConfigError> {
    let bytes = std::fs::read(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    String::from_utf8(bytes).map_err(|e| ConfigError::NotUtf8 {
        path: path.to_path_buf(),
        byte: e.utf8_error().valid_up_to(),
    })
}
