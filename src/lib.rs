//! ethics-bowl: tournaments in which language models reason about hard questions in front of
//! judge models. The library holds everything but the command line: configuration, providers,
//! and (as they land) the domain types, protocols, engine, store, analysis and terminal UI.

pub mod analysis;
pub mod config;
pub mod domain;
pub mod engine;
pub mod inputs;
pub mod protocols;
pub mod providers;
pub mod redact;
pub mod safe_json;
pub mod sanitize;
pub mod store;
pub mod tui;
