//! The terminal UI: an Elm-style loop. Its state starts from the store (every round as
//! stored); engine events, keys and ticks become [`Msg`]s; a pure [`update`] changes the
//! [`App`] state and returns effects (commands for the engine, quit); views render frames
//! from the state. It never calls a provider or writes a file.

pub mod app;
mod browse;
pub mod compare;
pub mod filter;
mod keys;
pub mod mirror;
pub mod msg;
pub mod search;
pub mod terminal;
pub mod theme;
pub mod update;
pub mod views;

pub use app::{App, Screen};
pub use browse::{browse, browse_schedule};
pub use mirror::{Mirror, Mode};
pub use msg::{AnalysisTarget, Effect, Msg};
pub use theme::Theme;
pub use update::update;
pub use views::analysis_targets;
