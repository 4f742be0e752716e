//! Providers turn one request into a stream of text deltas and a final [`Completion`], and
//! classify every failure as retryable or final. Retry, backoff, rate limits and concurrency
//! caps wrap them once, in [`ModelClient`], for every provider alike.
//!
//! Wire formats: OpenAI Chat Completions (also xAI, Qwen and every `openai-compatible`
//! server), Anthropic Messages and Gemini; plus the offline `simulated` provider, whose
//! protocol-specific answers each protocol supplies as a [`SimulatedBehaviour`].

mod adaptive;
mod anthropic;
pub mod batch;
mod client;
mod error;
mod estimate;
mod gemini;
mod http;
mod limits;
mod openai_chat;
mod quota;
mod rate_headers;
pub mod response_cache;
mod retry;
pub mod simulated;
mod structured;
mod types;

pub use adaptive::RateSnapshot;
pub use batch::{BatchSettings, BatchSetupError, BatchView, Batching};
pub use client::{CallFailure, CallOutcome, ModelClient, ModelRegistry, SetupError};
pub use error::ProviderError;
pub use retry::RetryPolicy;
pub use simulated::{SimulatedBehaviour, SimulatedBehaviours, SimulatedModel};
pub use types::{
    CallEvent, CallTag, ChatRequest, Completion, FinishReason, Role, RoundCast, StablePrefix, Turn,
    Usage,
};
