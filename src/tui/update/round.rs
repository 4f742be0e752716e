//! Keys in a round: switch between transcript and scores, scroll, follow the stream, show
//! prompts.

use crate::tui::app::{App, Screen};

use crate::tui::keys::Action;

use crate::tui::msg::Effect;

/// Lines a page scrolls.
const PAGE: usize = 20;

pub(super) fn act(app: &mut App, action: Action, scores: bool) -> Vec<Effect> {
    match action {
        Action::Back => app.screen = app.round_opened_from,
        Action::SwitchTab => {
            app.screen = Screen::Round { scores: !scores };
            app.scroll = 0;
        }
        Action::Up => {
            app.scroll = app.scroll.saturating_sub(1);
            app.follow = false;
        }
        Action::Down => app.scroll += 1,
        Action::PageUp => {
            app.scroll = app.scroll.saturating_sub(PAGE);
            app.follow = false;
        }
        Action::PageDown => app.scroll += PAGE,
        Action::Top => {
            app.scroll = 0;
            app.follow = false;
        }
        Action::Follow => app.follow = true,
        Action::Prompts => app.show_prompts = !app.show_prompts,
        Action::Copy => {
            if app.selected().is_some_and(|r| r.text_dropped) {
                app.notice = Some(match &app.mirror.text_kept.failed {
                    Some((id, why)) if app.selected().is_some_and(|r| r.id() == id) => {
                        format!("nothing copied: the round could not be read back ({why})")
                    }
                    _ => "nothing copied yet: the round is still being read from the store".into(),
                });
            } else if let Some(round) = app.selected() {
                let text = crate::analysis::round_markdown::round_markdown(&round.stored);
                let line = format!(
                    "copied round {} as Markdown ({} characters) through OSC 52; if the clipboard \
                     stays empty, the terminal does not allow it: `ethics-bowl rounds DIR --round {} --markdown` prints it",
                    round.stored.id,
                    text.chars().count(),
                    round.stored.id
                );
                app.notice = Some(line.clone());
                app.mirror.log_line(line);
                return vec![Effect::Copy(text)];
            }
        }
        _ => {}
    }
    Vec::new()
}
