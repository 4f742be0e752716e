//! Configuration files: what models exist and how to reach them.

mod error;
mod models;

pub use error::ConfigError;
pub use models::{
    LimitsConfig, ModelConfig, ModelsConfig, Price, ProviderKind, ReasoningEffort, RetryConfig,
    SimulatedParams,
};
