//! Configuration files: what models exist and how to reach them, and what a tournament plays.

mod error;
mod models;
mod tournament;

pub use error::ConfigError;
pub use models::{
    LimitsConfig, ModelConfig, ModelsConfig, Price, ProviderKind, ReasoningEffort, RetryConfig,
    SimulatedParams,
};
pub use tournament::{JudgingMode, Pairings, Selection, TournamentConfig};
