//! What every round task of a run shares: the protocol, the judging strategy, the model
//! clients, the store and the run's control. Its own module so that the round runner and the
//! round writer both read it without importing each other.

use std::sync::Arc;

use crate::config::RoleTemperatures;
use crate::protocols::Protocol;
use crate::protocols::strategy::JudgingStrategy;
use crate::providers::ModelRegistry;
use crate::store::Store;

use super::control::Control;

/// What a round task needs.
pub(crate) struct RoundContext {
    pub protocol: Arc<dyn Protocol>,
    /// Who judges the round's exchange, and how.
    pub judging: JudgingStrategy,
    pub registry: ModelRegistry,
    pub store: Store,
    pub control: Control,
    /// Temperatures by role, in place of the models' own (`[temperatures]`).
    pub temperatures: RoleTemperatures,
}
