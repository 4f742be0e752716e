//! The terminal UI: an Elm-style loop. Its state ([`App`]) is the tournament mirror
//! ([`mirror`]: what the UI knows of the tournament, changed only by the engine's events and
//! the store's answers) beside every screen's own state ([`screens`]); engine events, keys
//! and ticks become [`Msg`]s; a pure [`update`] changes the state and returns effects
//! (commands for the engine, reads of the store, quit), going from screen to screen through
//! one navigation function ([`nav`]); views render frames from the state. It never calls a
//! provider or writes a file.

pub mod app;
mod browse;
pub mod filter;
pub mod keymap;
pub mod keys;
pub mod mirror;
pub mod msg;
pub mod nav;
pub mod prompt;
pub mod screens;
pub mod shown;
pub mod terminal;
pub mod theme;
pub mod update;
pub mod user_keys;
pub mod views;

pub use app::{App, Screen};
pub use browse::{browse, browse_schedule, in_run_order};
pub use mirror::{Mirror, Mode};
pub use msg::{AnalysisTarget, Effect, Msg};
pub use screens::analysis::analysis_targets;
pub use theme::Theme;
pub use update::update;
