//! The models file (`models.toml`): which models exist, which provider serves each, and the
//! limits and retry policy that wrap every call. The types are in `types`, reading the file in
//! `load`, the checks on what it says in `validate`,
//! what a call costs in `price`.

mod load;
mod price;
mod structured;
#[cfg(test)]
mod tests;
mod types;
mod validate;

pub use price::{BilledTokens, CallCost};
pub use types::{
    LimitsConfig, ModelConfig, ModelsConfig, OnTruncation, Price, ProviderKind, ReasoningEffort,
    RetryConfig, SimulatedParams, StructuredOutput,
};
