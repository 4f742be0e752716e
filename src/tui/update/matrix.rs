//! Keys on the progress matrix: move, open a round, go to another screen, pause, retry.

use crate::domain::RoundStatus;
use crate::engine::EngineCommand;
use crate::tui::app::{App, Screen};
use crate::tui::keys::Action;
use crate::tui::mirror::Mode;

use crate::tui::msg::Effect;

pub(super) fn act(app: &mut App, action: Action) -> Vec<Effect> {
    match action {
        // Over the rows and columns the filter keeps.
        Action::Up | Action::Down | Action::Left | Action::Right => {
            super::filter::move_cursor(app, action);
        }
        Action::Open if app.selected().is_some() => {
            app.screen = Screen::Round { scores: false };
            app.round_opened_from = Screen::Matrix;
            app.scroll = 0;
            app.follow = true;
        }
        Action::Leaderboard => app.screen = Screen::Leaderboard,
        Action::Log => app.screen = Screen::Log,
        Action::Review => app.screen = Screen::Review,
        Action::Analysis => {
            app.screen = Screen::Analysis;
            if app.analysis.as_ref().is_none_or(|v| v.stale) {
                return app.refresh_analysis().into_iter().collect();
            }
        }
        Action::Pause if app.mirror.mode == Mode::Live && app.mirror.finished.is_none() => {
            let command = if app.mirror.paused {
                EngineCommand::Resume
            } else {
                EngineCommand::Pause
            };
            return vec![Effect::Command(command)];
        }
        Action::Retry if app.mirror.mode == Mode::Live => {
            if let Some(round) = app.selected()
                && round.status() == RoundStatus::Incomplete
                && round.error().is_some()
                && !round.is_running()
            {
                return vec![Effect::Command(EngineCommand::RetryRound(
                    round.id().to_string(),
                ))];
            }
        }
        _ => {}
    }
    Vec::new()
}
