//! ethics-bowl: tournaments in which language models reason about hard questions in front of
//! judge models. The library holds everything but the command line: configuration, providers,
//! and (as they land) the domain types, protocols, engine, store, analysis and terminal UI.

pub mod analysis;
pub mod annotations;
pub mod build_info;
pub mod config;
pub mod design;
pub mod domain;
pub mod engine;
pub mod export;
pub mod inputs;
pub mod markdown_escape;
pub mod protocols;
pub mod providers;
pub mod redact;
pub mod safe_json;
pub mod sanitize;
pub mod store;
pub mod tui;

/// A panic's message from its payload (`panic!` with a literal or with a format): for the panic
/// hook's report and for the round error that records a task that panicked.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}
