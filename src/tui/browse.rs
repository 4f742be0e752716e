//! The UI state of stored results (`ethics-bowl open`): the same state a run starts from,
//! built from the stored rounds with no engine, so browsing and watching share every screen
//! and every rule.

use std::sync::Arc;
use std::time::Instant;

use crate::domain::Round;
use crate::engine::{EngineEvent, ScheduledState};

use super::app::App;
use super::mirror::Mode;
use super::msg::Msg;
use super::update::update;

/// The state for browsing `rounds`.
pub fn browse(name: &str, rounds: &[Round], now: Instant) -> App {
    let rounds = rounds
        .iter()
        .map(|r| ScheduledState {
            round: Arc::new(r.clone()),
            stored: true,
            to_run: false,
            text_dropped: false,
        })
        .collect();
    browse_schedule(name, rounds, now)
}

/// The state for browsing stored rounds as given, some of them perhaps without their text
/// ([`ScheduledState::text_dropped`]: `open` reads a large folder so, one round whole at a
/// time).
pub fn browse_schedule(name: &str, rounds: Vec<ScheduledState>, now: Instant) -> App {
    let mut app = App::new(name, Mode::Browse, now);
    update(
        &mut app,
        Msg::Engine(EngineEvent::Started {
            tournament_id: name.to_string(),
            rounds,
        }),
    );
    app
}
