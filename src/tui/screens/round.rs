//! One round, the one it was opened on (by id, whether or not the matrix shows it): its
//! transcript or its verdict tab, scrolled or following the stream, prompts shown or not;
//! `y` copies it as Markdown.

use std::cell::Cell;

use crossterm::event::KeyCode;

use crate::engine::EngineCommand;
use crate::tui::keys::{Action, BACK, Binding, PAGE_UP_DOWN, UP_DOWN, ch, key};
use crate::tui::mirror::{Mirror, RoundState};
use crate::tui::msg::{Destination, Effect, Opening, Outcome};

/// The footer's hint for Tab, which the footer names after the protocol's second tab.
pub const TAB_FOOTER: &str = "Tab transcript/scores";

/// The round's keys.
pub const BINDINGS: &[Binding] = &[
    Binding {
        label: "Tab",
        help: "transcript / scores",
        footer: Some(TAB_FOOTER),
        keys: &[(key(KeyCode::Tab), Action::SwitchTab)],
    },
    Binding {
        label: "] / [",
        help: "next / previous round (in the matrix, the search hits or the review queue: where the round was opened from), same tab",
        footer: Some("] [ next/prev round"),
        keys: &[
            (ch(']'), Action::NextRound),
            (ch('['), Action::PreviousRound),
        ],
    },
    Binding {
        label: "↑ ↓ / k j",
        help: "scroll a line",
        footer: Some("↑↓ PgUp PgDn Home End scroll"),
        keys: UP_DOWN,
    },
    PAGE_UP_DOWN,
    Binding {
        label: "Home",
        help: "top (stops following)",
        footer: None,
        keys: &[(key(KeyCode::Home), Action::Top)],
    },
    Binding {
        label: "End / f",
        help: "follow the stream",
        footer: Some("f follow"),
        keys: &[
            (key(KeyCode::End), Action::Follow),
            (ch('f'), Action::Follow),
        ],
    },
    Binding {
        label: "P",
        help: "show or hide prompts",
        footer: Some("P prompts"),
        keys: &[(ch('P'), Action::Prompts)],
    },
    Binding {
        label: "y",
        help: "copy the round as Markdown (clipboard via OSC 52)",
        footer: Some("y copy"),
        keys: &[(ch('y'), Action::Copy)],
    },
    Binding {
        label: "r",
        help: "run this round again when incomplete and at rest",
        footer: Some("r retry"),
        keys: &[(ch('r'), Action::Retry)],
    },
    Binding {
        label: "v",
        help: "with open DIR --compare OTHER: the round's judgments in both runs side by side",
        footer: Some("v compare"),
        keys: &[(ch('v'), Action::Compare)],
    },
    BACK,
];

/// The order `]` and `[` step through: the one the round showing was opened from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    /// The matrix's cells, row by row, as the filter shows them.
    #[default]
    Matrix,
    /// The rounds of the search hits.
    Search,
    /// The rounds of the review queue.
    Review,
}

impl Order {
    /// How the order is named in a notice ("in the matrix").
    pub fn describe(self) -> &'static str {
        match self {
            Self::Matrix => "in the matrix",
            Self::Search => "among the search hits",
            Self::Review => "in the review queue",
        }
    }
}

/// Lines a page scrolls.
const PAGE: usize = 20;

/// The round screen's state.
#[derive(Debug, Clone)]
pub struct RoundScreen {
    /// The round showing, by id.
    pub id: Option<String>,
    /// The verdict (or scores) tab instead of the transcript.
    pub scores: bool,
    /// Lines scrolled from the top of the transcript.
    pub scroll: usize,
    /// Stick to the end of the transcript as it grows.
    pub follow: bool,
    /// Show each phase's prompt in the transcript.
    pub show_prompts: bool,
    /// The transcript is to scroll to the open search hit at its next frame.
    pub scroll_to_hit: bool,
    /// The line the transcript scrolled to for the open hit (the view knows the width,
    /// which decides it): the next scroll key starts from there.
    pub scrolled_to: Cell<Option<usize>>,
    /// The last line the tab showing can scroll to, as the view last drew it (the view
    /// knows the width, which decides it): scrolling down stops there.
    pub bottom: Cell<Option<usize>>,
    /// The order `]` and `[` step through.
    pub order: Order,
}

impl Default for RoundScreen {
    fn default() -> Self {
        Self {
            id: None,
            scores: false,
            scroll: 0,
            follow: true,
            show_prompts: false,
            scroll_to_hit: false,
            scrolled_to: Cell::new(None),
            bottom: Cell::new(None),
            order: Order::Matrix,
        }
    }
}

impl RoundScreen {
    /// Shows round `id`, on its verdict tab or its transcript from where `opening` says.
    pub fn open(&mut self, id: String, scores: bool, opening: Opening) {
        self.id = Some(id);
        self.scores = scores;
        self.scroll = 0;
        self.scroll_to_hit = false;
        self.bottom.set(None);
        match opening {
            Opening::Follow => self.follow = true,
            Opening::Top => self.follow = false,
            Opening::Hit { prompt } => {
                self.follow = false;
                self.scroll_to_hit = true;
                self.scrolled_to.set(None);
                if prompt {
                    self.show_prompts = true;
                }
            }
        }
    }

    /// The round showing.
    pub fn round<'a>(&self, mirror: &'a Mirror) -> Option<&'a RoundState> {
        mirror.round(self.id.as_deref()?)
    }

    /// A view scrolled to a hit goes on from the line it showed.
    fn settle_scroll(&mut self) {
        if self.scroll_to_hit {
            self.scroll_to_hit = false;
            if let Some(line) = self.scrolled_to.take() {
                self.scroll = line;
            }
        }
    }

    /// Handles one of the round's keys.
    pub fn act(&mut self, action: Action, mirror: &Mirror) -> Outcome {
        self.settle_scroll();
        match action {
            Action::Back => return Outcome::go(Destination::Back),
            Action::SwitchTab => {
                self.scores = !self.scores;
                self.scroll = 0;
                self.bottom.set(None);
            }
            Action::Up => {
                self.unfollow();
                self.scroll = self.scroll.saturating_sub(1);
            }
            Action::Down => self.scroll_down(1),
            Action::PageUp => {
                self.unfollow();
                self.scroll = self.scroll.saturating_sub(PAGE);
            }
            Action::PageDown => self.scroll_down(PAGE),
            Action::Top => {
                self.scroll = 0;
                self.follow = false;
            }
            Action::Follow => self.follow = true,
            Action::Prompts => self.show_prompts = !self.show_prompts,
            Action::Copy => return self.copy(mirror),
            Action::Retry => return retry(self.round(mirror), mirror.engine_running),
            Action::NextRound => return Outcome::go(Destination::Step { forward: true }),
            Action::PreviousRound => return Outcome::go(Destination::Step { forward: false }),
            _ => {}
        }
        Outcome::default()
    }

    /// Stops following the stream, from where it showed (its end), so scrolling up goes
    /// up from there rather than from the top.
    fn unfollow(&mut self) {
        if self.follow
            && !self.scores
            && let Some(bottom) = self.bottom.get()
        {
            self.scroll = bottom;
        }
        self.follow = false;
    }

    /// Scrolls down `lines`, no further than the last line the view can show.
    fn scroll_down(&mut self, lines: usize) {
        let next = self.scroll.saturating_add(lines);
        self.scroll = match self.bottom.get() {
            Some(bottom) => next.min(bottom.max(self.scroll)),
            None => next,
        };
    }

    /// Copies the round as Markdown (once its text is in memory).
    fn copy(&self, mirror: &Mirror) -> Outcome {
        let Some(round) = self.round(mirror) else {
            return Outcome::default();
        };
        if round.text_dropped {
            return Outcome::notice(match &mirror.text_kept.failed {
                Some((id, why)) if id == round.id() => {
                    format!("nothing copied: the round could not be read back ({why})")
                }
                _ => "nothing copied yet: the round is still being read from the store".into(),
            });
        }
        let text = crate::analysis::round_markdown::round_markdown(&round.stored);
        let line = format!(
            "copied round {} as Markdown ({} characters) through OSC 52; if the clipboard \
             stays empty, the terminal does not allow it: `ethics-bowl rounds DIR --round {} --markdown` prints it",
            round.stored.id,
            text.chars().count(),
            round.stored.id
        );
        Outcome {
            notice: Some(line.clone()),
            log: Some(line),
            effects: vec![Effect::Copy(text)],
            go: None,
        }
    }
}

/// Asks the engine to run `round` again when it is incomplete and at rest (the engine
/// answers `Queued`, during a run, after it and in `open` alike); otherwise says why not.
pub(crate) fn retry(round: Option<&RoundState>, engine_running: bool) -> Outcome {
    match round {
        Some(round) if round.can_retry(engine_running) => Outcome::effect(Effect::Command(
            EngineCommand::RetryRound(round.id().to_string()),
        )),
        _ => Outcome::notice(
            "nothing to retry here: only an incomplete round at rest can run again".into(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrolling_up_from_the_followed_end_goes_up_from_the_end_and_down_stops_at_the_bottom() {
        let mirror = Mirror::new(
            "t",
            crate::tui::mirror::Mode::Live,
            std::time::Instant::now(),
        );
        let mut screen = RoundScreen::default();
        screen.open("r".into(), false, Opening::Follow);
        // The view drew the transcript with 50 lines below the first screenful.
        screen.bottom.set(Some(50));
        screen.act(Action::Up, &mirror);
        assert!(!screen.follow);
        assert_eq!(
            screen.scroll, 49,
            "one line up from the end, not from the top"
        );
        for _ in 0..5 {
            screen.act(Action::PageDown, &mirror);
        }
        assert_eq!(screen.scroll, 50, "no further than the bottom");
        screen.act(Action::PageUp, &mirror);
        assert_eq!(screen.scroll, 30, "one page up takes effect at once");
    }
}
