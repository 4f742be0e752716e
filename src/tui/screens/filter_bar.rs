//! The filter bar's prompt: `f` opens it holding the filter in force (to edit), typing
//! builds the filter, Enter applies it (or says what is wrong and stays), Esc leaves it as
//! it was, `F` clears it. What a filter is and matches is [`crate::tui::filter`]'s.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::store::FilterValues;
use crate::tui::filter::Filter;
use crate::tui::keymap::Keymap;
use crate::tui::keys::{Action, Binding, key};

/// The filter prompt's keys (every other key is text).
pub const BINDINGS: &[Binding] = &[
    Binding {
        label: "key=value …",
        help: "type the filter: model= a= b= judge= dilemma= (item=, topic=) status=",
        footer: Some("type key=value words"),
        keys: &[],
    },
    Binding {
        label: "Enter",
        help: "apply it (empty clears the filter)",
        footer: Some("Enter apply (empty clears)"),
        keys: &[(key(KeyCode::Enter), Action::ApplyFilter)],
    },
    Binding {
        label: "Esc",
        help: "leave the prompt, the filter as it was",
        footer: Some("Esc cancel"),
        keys: &[(key(KeyCode::Esc), Action::CancelFilter)],
    },
    Binding {
        label: "Backspace",
        help: "erase a character",
        footer: None,
        keys: &[(key(KeyCode::Backspace), Action::Erase)],
    },
    crate::tui::prompt::ERASE,
];

/// The filter bar: the active filter and the prompt while one is typed.
#[derive(Debug, Clone, Default)]
pub struct FilterBar {
    /// The filter in force.
    pub active: Option<Filter>,
    /// The text being typed, while the prompt is open.
    pub prompt: Option<String>,
    /// Why the typed filter was refused, until the text changes.
    pub message: Option<String>,
}

impl FilterBar {
    /// Opens the prompt with the filter in force.
    pub fn open(&mut self) {
        let text = self
            .active
            .as_ref()
            .map(|f| format!("{} ", f.text))
            .unwrap_or_default();
        self.prompt = Some(text);
        self.message = None;
    }

    /// Clears the filter; whether there was one.
    pub fn clear(&mut self) -> bool {
        self.active.take().is_some()
    }

    /// A key while the prompt is open: every key but Enter, Esc and Backspace is text.
    /// Enter reads the typed filter against the values the rounds hold (`known`). Returns
    /// whether the filter in force changed.
    pub fn key(
        &mut self,
        key: &KeyEvent,
        keymap: &Keymap,
        known: impl FnOnce() -> FilterValues,
    ) -> bool {
        let Some(text) = self.prompt.as_mut() else {
            return false;
        };
        if crate::tui::prompt::erase(text, key) {
            self.message = None;
            return false;
        }
        match keymap.action(BINDINGS, key) {
            Some(Action::ApplyFilter) => return self.apply(&known()),
            Some(Action::CancelFilter) => {
                self.prompt = None;
                self.message = None;
            }
            Some(Action::Erase) => {
                text.pop();
                self.message = None;
            }
            _ => {
                // A pasted escape or control character never reaches the screen.
                if let KeyCode::Char(c) = key.code
                    && !key.modifiers.contains(KeyModifiers::CONTROL)
                    && !c.is_control()
                {
                    text.push(c);
                    self.message = None;
                }
            }
        }
        false
    }

    /// Applies the typed filter, or keeps the prompt open with why it cannot be.
    fn apply(&mut self, known: &FilterValues) -> bool {
        let Some(text) = self.prompt.clone() else {
            return false;
        };
        match Filter::parse(&text, known) {
            Ok(filter) => {
                self.active = filter;
                self.prompt = None;
                self.message = None;
                true
            }
            Err(why) => {
                self.message = Some(why);
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Instant;

    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    use crate::domain::{Judgment, ParseStatus, Reading, Round, RoundRecord, ScheduledRound};
    use crate::domain::{RoundStatus, Scores};
    use crate::engine::{EngineEvent, ScheduledState};
    use crate::tui::app::{App, Screen};
    use crate::tui::mirror::Mode;
    use crate::tui::mirror::{Standing, standing};
    use crate::tui::msg::Msg;
    use crate::tui::update::update;

    fn round(id: &str, a: &str, b: &str, d: &str, judge: &str) -> Round {
        let s = ScheduledRound {
            team_a: a.into(),
            team_b: b.into(),
            judges: vec![judge.into()],
            ..ScheduledRound::example(id, d)
        };
        crate::protocols::blank_round(&s, RoundRecord::EthicsBowl)
    }

    fn done(mut r: Round, status: ParseStatus) -> Round {
        let judge = r.judge_models.first().cloned().unwrap_or_default();
        r.put_judgment(Judgment {
            parse_status: status,
            problems: vec!["Team A missing: consistency".into()],
            ..Judgment::new(
                &judge,
                Reading::Rubric {
                    team_a: Scores::uniform(7.0),
                    team_b: Scores::uniform(6.0),
                },
            )
        });
        r.status = r.settled_status();
        r
    }

    /// Six rounds of three models on two dilemmas, judged by j1 or j2: two done, one
    /// needing review, the rest not begun.
    fn app() -> App {
        let mut app = App::new("t", Mode::Live, Instant::now());
        let rounds = vec![
            round("r1", "gpt-4o", "claude", "d1", "j1"),
            round("r2", "claude", "gpt-4o", "d1", "j2"),
            round("r3", "gemini", "claude", "d1", "j1"),
            round("r4", "gpt-4o", "claude", "d2", "j2"),
            round("r5", "claude", "gpt-4o", "d2", "j1"),
            round("r6", "gemini", "claude", "d2", "j1"),
        ];
        let rounds = rounds
            .into_iter()
            .map(|r| ScheduledState {
                round: Arc::new(r),
                stored: false,
                to_run: true,
                text_dropped: false,
            })
            .collect();
        update(
            &mut app,
            Msg::Engine(EngineEvent::Started {
                tournament_id: "t".into(),
                rounds,
            }),
        );
        for (r, status) in [
            (
                round("r1", "gpt-4o", "claude", "d1", "j1"),
                ParseStatus::Parsed,
            ),
            (
                round("r2", "claude", "gpt-4o", "d1", "j2"),
                ParseStatus::Failed,
            ),
            (
                round("r6", "gemini", "claude", "d2", "j1"),
                ParseStatus::Parsed,
            ),
        ] {
            update(
                &mut app,
                Msg::Engine(EngineEvent::RoundStored {
                    round: Arc::new(done(r, status)),
                }),
            );
        }
        app
    }

    fn press(app: &mut App, code: KeyCode) {
        update(app, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }

    fn type_filter(app: &mut App, text: &str) {
        press(app, KeyCode::Char('f'));
        while app.filter.prompt.as_ref().is_some_and(|t| !t.is_empty()) {
            press(app, KeyCode::Backspace);
        }
        for c in text.chars() {
            press(app, KeyCode::Char(c));
        }
        press(app, KeyCode::Enter);
    }

    fn shown(app: &App) -> Vec<&str> {
        app.shown().rounds().map(|r| r.id()).collect()
    }

    #[test]
    fn a_role_word_resolves_a_partial_model_and_narrows_every_list() {
        let mut app = app();
        type_filter(&mut app, "b=gpt");
        assert!(app.filter.prompt.is_none(), "{:?}", app.filter.message);
        let filter = app.filter.active.as_ref().expect("a filter");
        assert_eq!(filter.text, "b=gpt-4o");
        assert_eq!(shown(&app), ["r2", "r5"]);
        // The review queue holds only r2's judgment, which passes.
        assert_eq!(app.shown().review_len(), 1);
        // The cursor moved onto a round that passes; the hidden rows are stepped over.
        assert_eq!(app.selected().map(|r| r.id()), Some("r2"));
        let (rows, cols) = app.screens.matrix.shown_lines(app.shown());
        assert_eq!((rows.len(), cols.len()), (1, 2));
        press(&mut app, KeyCode::Down);
        assert_eq!(app.selected().map(|r| r.id()), Some("r2"));
        press(&mut app, KeyCode::Right);
        assert_eq!(app.selected().map(|r| r.id()), Some("r5"));
    }

    #[test]
    fn words_combine_and_status_reads_the_uis_states() {
        let mut app = app();
        type_filter(&mut app, "model=claude status=done");
        assert_eq!(shown(&app), ["r1", "r6"]);
        type_filter(&mut app, "judge=j1 status=incomplete");
        assert_eq!(shown(&app), ["r3", "r5"]);
        type_filter(&mut app, "status=review");
        assert_eq!(shown(&app), ["r2"]);
        type_filter(&mut app, "dilemma=d2 a=gemini");
        assert_eq!(shown(&app), ["r6"]);
        // A call under way makes a round running, not queued.
        update(
            &mut app,
            Msg::Engine(EngineEvent::PhaseStarted {
                round_id: "r3".into(),
                phase_type: crate::domain::PhaseType::Presentation,
                model: "gemini".into(),
            }),
        );
        let r3 = &app.mirror.rounds[app.mirror.index["r3"]];
        assert_eq!(standing(r3, app.mirror.now), Standing::Running);
        type_filter(&mut app, "status=running");
        assert_eq!(shown(&app), ["r3"]);
        type_filter(&mut app, "status=queued");
        assert_eq!(shown(&app), ["r4", "r5"]);
    }

    #[test]
    fn a_wrong_word_is_explained_and_the_prompt_stays() {
        let mut app = app();
        type_filter(&mut app, "a=mistral");
        assert!(app.filter.prompt.is_some() && app.filter.active.is_none());
        let why = app.filter.message.clone().expect("a message");
        assert!(why.contains("a=mistral") && why.contains("gpt-4o"), "{why}");
        press(&mut app, KeyCode::Esc);
        type_filter(&mut app, "model=g");
        let why = app.filter.message.clone().expect("ambiguous");
        assert!(why.contains("gemini") && why.contains("gpt-4o"), "{why}");
        press(&mut app, KeyCode::Esc);
        type_filter(&mut app, "gpt");
        assert!(
            app.filter
                .message
                .as_deref()
                .is_some_and(|m| m.contains("key=value"))
        );
        press(&mut app, KeyCode::Esc);
        type_filter(&mut app, "status=finished");
        assert!(
            app.filter
                .message
                .as_deref()
                .is_some_and(|m| m.contains("done, review"))
        );
        press(&mut app, KeyCode::Esc);
        assert!(app.filter.prompt.is_none() && app.filter.active.is_none());
        assert_eq!(app.shown().rounds().count(), 6);
    }

    #[test]
    fn f_edits_the_filter_in_force_and_capital_f_or_an_empty_one_clears_it() {
        let mut app = app();
        type_filter(&mut app, "a=gpt");
        press(&mut app, KeyCode::Char('f'));
        assert_eq!(app.filter.prompt.as_deref(), Some("a=gpt-4o "));
        // Keys are text in the prompt: `q` does not quit, `v` does not leave the matrix.
        for c in "status=done".chars() {
            press(&mut app, KeyCode::Char(c));
        }
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.screen(), Screen::Matrix);
        assert_eq!(shown(&app), ["r1"]);
        press(&mut app, KeyCode::Char('F'));
        assert!(app.filter.active.is_none());
        assert_eq!(app.shown().rounds().count(), 6);
        type_filter(&mut app, "a=gpt");
        type_filter(&mut app, "");
        assert!(app.filter.active.is_none());
        // The review queue and the leaderboard take the keys too.
        press(&mut app, KeyCode::Char('v'));
        type_filter(&mut app, "status=done");
        assert_eq!(
            (app.screen(), app.shown().review_len()),
            (Screen::Review, 0)
        );
        press(&mut app, KeyCode::Char('F'));
        assert_eq!(app.shown().review_len(), 1);
        press(&mut app, KeyCode::Esc);
        press(&mut app, KeyCode::Char('s'));
        type_filter(&mut app, "a=gemini");
        assert_eq!(
            (app.screen(), shown(&app)),
            (Screen::Leaderboard, vec!["r3", "r6"])
        );
        assert_eq!(
            app.mirror.rounds[app.mirror.index["r2"]].status(),
            RoundStatus::NeedsReview
        );
    }
}
