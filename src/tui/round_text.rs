//! Which rounds keep their model text in the UI's memory. Every round keeps its numbers and
//! verdicts (what the matrix, the leaderboard and the header show); only the rounds under
//! way, the round showing and the few shown or finished most recently keep their
//! transcripts. The others' text waits in the store, and the round view asks the driver to
//! read a round back ([`Effect::LoadRound`]) when it opens one without it. So the UI's
//! memory grows with the rounds in flight, not with the rounds finished.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::domain::Round;

use super::app::{App, Screen};
use super::msg::Effect;

/// Finished rounds whose text stays in memory, most recently shown or finished first.
pub const KEPT_WHOLE: usize = 64;

/// The rounds keeping their text, most recent first (indices into [`App::rounds`]), and the
/// read under way.
#[derive(Debug, Clone)]
pub struct TextKept {
    /// Indices of finished rounds that keep their text, most recent first.
    recent: VecDeque<usize>,
    /// How many finished rounds keep their text (rounds under way and the round showing
    /// always do).
    pub capacity: usize,
    /// The round whose text the driver is reading back.
    pub loading: Option<String>,
    /// The last round that could not be read back, and why (shown in its view; not asked
    /// for again until it is stored anew).
    pub failed: Option<(String, String)>,
}

impl Default for TextKept {
    fn default() -> Self {
        Self {
            recent: VecDeque::new(),
            capacity: KEPT_WHOLE,
            loading: None,
            failed: None,
        }
    }
}

/// The round showing whole, if one is: in the round view, or its two judgments side by
/// side (`open --compare`).
fn showing(app: &App) -> Option<usize> {
    match app.screen {
        Screen::Round { .. } | Screen::Compare { summary: false } => {
            app.cells.get(&app.cursor).copied()
        }
        _ => None,
    }
}

/// Notes that round `i` was just finished, stored or shown whole, and drops the text of
/// the finished rounds beyond the capacity, least recent first (a round under way or
/// showing keeps its text whatever its place).
pub(crate) fn touch(app: &mut App, i: usize) {
    let kept = &mut app.text_kept.recent;
    kept.retain(|&k| k != i);
    kept.push_front(i);
    let open = showing(app);
    let mut excess = app
        .text_kept
        .recent
        .len()
        .saturating_sub(app.text_kept.capacity);
    let mut at = app.text_kept.recent.len();
    while excess > 0 && at > 0 {
        at -= 1;
        let k = app.text_kept.recent[at];
        let Some(round) = app.rounds.get_mut(k) else {
            app.text_kept.recent.remove(at);
            excess -= 1;
            continue;
        };
        if Some(k) != open && round.at_rest() {
            round.drop_text();
            app.text_kept.recent.remove(at);
            excess -= 1;
        }
    }
}

/// Forgets every note (a new schedule).
pub(crate) fn reset(app: &mut App) {
    app.text_kept.recent.clear();
    app.text_kept.loading = None;
    app.text_kept.failed = None;
}

/// Asks for the text of the round showing when it has none and no read is under way.
pub(crate) fn follow_screen(app: &mut App) -> Option<Effect> {
    let i = showing(app)?;
    let round = app.rounds.get(i)?;
    let failed = app.text_kept.failed.as_ref().map(|(id, _)| id.as_str());
    if !round.text_dropped
        || app.text_kept.loading.as_deref() == Some(round.id())
        || failed == Some(round.id())
    {
        return None;
    }
    let round_id = round.id().to_string();
    app.text_kept.loading = Some(round_id.clone());
    Some(Effect::LoadRound { round_id })
}

/// Takes a round read back from the store (already sanitised), or why it could not be read.
pub(crate) fn loaded(app: &mut App, round_id: &str, result: Result<Arc<Round>, String>) {
    if app.text_kept.loading.as_deref() == Some(round_id) {
        app.text_kept.loading = None;
    }
    let Some(i) = app.index.get(round_id).copied() else {
        return;
    };
    match result {
        Ok(round) if round.id == round_id => {
            if app.rounds[i].text_dropped {
                app.rounds[i].store(round);
            }
            touch(app, i);
        }
        Ok(_) => fail(app, round_id, "its file holds another round".into()),
        Err(e) => fail(app, round_id, e),
    }
}

fn fail(app: &mut App, round_id: &str, why: String) {
    let line = format!("round {round_id} could not be read back from the store: {why}");
    app.log_line(line);
    app.text_kept.failed = Some((round_id.to_string(), why));
}
