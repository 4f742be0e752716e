//! The screens, each a struct that owns its own state (cursor, scroll, mode), states its key
//! bindings and handles an action, reading the mirror; the views draw each from its state
//! and the mirror. Which screen shows, and the way back, is the [`Trail`]; going somewhere
//! is `super::nav::go`'s, so a screen's key only says where ([`Outcome`]).
//!
//! [`Outcome`]: super::msg::Outcome

pub mod analysis;
pub mod annotate;
pub mod compare;
pub mod editor;
pub mod filter_bar;
pub mod help;
pub mod leaderboard;
pub mod log;
pub mod matrix;
pub mod review;
pub mod round;
pub mod search;

use super::keys::Binding;

/// Which screen: the screens that fill the body (help and the search list show over them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Id {
    /// The progress matrix.
    Matrix,
    /// One round: its transcript or its verdict.
    Round,
    /// What waits for a person.
    Review,
    /// A review item being fixed.
    Editor,
    /// The analysis tables.
    Analysis,
    /// Each model's standing and calls.
    Leaderboard,
    /// Warnings and errors.
    Log,
    /// Two results folders side by side.
    Compare,
    /// A person judging rounds (blind by default).
    Annotate,
}

/// The screens opened on the way to the one showing, the matrix first: Esc goes back one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trail(Vec<Id>);

impl Default for Trail {
    fn default() -> Self {
        Self(vec![Id::Matrix])
    }
}

impl Trail {
    /// The screen showing.
    pub fn top(&self) -> Id {
        self.0.last().copied().unwrap_or(Id::Matrix)
    }

    /// Shows `id`: back to it when it is on the trail already (so the way back never goes
    /// round in a circle), else on top of the screen showing.
    pub fn show(&mut self, id: Id) {
        match self.0.iter().position(|s| *s == id) {
            Some(at) => self.0.truncate(at + 1),
            None => self.0.push(id),
        }
    }

    /// Leaves the screen showing for the one it was opened from (never the matrix); returns
    /// the screen left.
    pub fn back(&mut self) -> Option<Id> {
        if self.0.len() > 1 { self.0.pop() } else { None }
    }

    /// Whether `id` is on the trail.
    pub fn holds(&self, id: Id) -> bool {
        self.0.contains(&id)
    }
}

/// Every screen's own state.
#[derive(Debug, Clone, Default)]
pub struct Screens {
    /// The progress matrix.
    pub matrix: matrix::MatrixScreen,
    /// The round showing.
    pub round: round::RoundScreen,
    /// The review queue.
    pub review: review::ReviewScreen,
    /// The review item being edited, while the editor is open.
    pub editor: Option<editor::Editor>,
    /// The Analysis screen.
    pub analysis: analysis::AnalysisScreen,
    /// The leaderboard.
    pub leaderboard: leaderboard::LeaderboardScreen,
    /// The log.
    pub log: log::LogScreen,
    /// Search and jump-to-round (the prompt, the hits, the list over the screen).
    pub search: search::Search,
    /// The comparison with a second folder.
    pub compare: compare::CompareScreen,
    /// The help overlay.
    pub help: help::Help,
    /// A person judging rounds, and the prompt for their name.
    pub annotate: annotate::AnnotateScreen,
}

impl Screens {
    /// The keys of screen `id` (the editor's in the mode it is in).
    pub fn bindings(&self, id: Id) -> &'static [Binding] {
        match id {
            Id::Matrix => matrix::BINDINGS,
            Id::Round => round::BINDINGS,
            Id::Review => review::BINDINGS,
            Id::Editor => match &self.editor {
                Some(e) if e.fields.is_some() => editor::FIELDS,
                _ => editor::BINDINGS,
            },
            Id::Analysis => analysis::BINDINGS,
            Id::Leaderboard => leaderboard::BINDINGS,
            Id::Log => log::BINDINGS,
            Id::Compare => compare::BINDINGS,
            Id::Annotate => match &self.annotate.session {
                Some(s) if s.writing => annotate::WRITING,
                _ => annotate::BINDINGS,
            },
        }
    }

    /// What the help lists for screen `id`: its own keys, then those of what it opens, each
    /// with what its rows are prefixed with.
    pub fn help(&self, id: Id) -> Vec<(&'static [Binding], &'static str)> {
        let mut sections = vec![(self.bindings(id), "")];
        if id == Id::Review {
            sections.push((editor::BINDINGS, "in the editor: "));
            sections.push((editor::FIELDS, "typing scores: "));
        }
        if id == Id::Annotate {
            sections.push((annotate::WRITING, "writing a reason: "));
        }
        sections
    }
}

#[cfg(test)]
mod tests {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    use super::*;
    use crate::tui::keys::{Action, CONFIRM, GLOBAL, Key, action};

    /// Every table, and whether the global keys work beside it.
    const ALL: [(&str, &[Binding], bool); 17] = [
        ("global", GLOBAL, false),
        ("matrix", matrix::BINDINGS, true),
        ("round", round::BINDINGS, true),
        ("review", review::BINDINGS, true),
        ("editor", editor::BINDINGS, false),
        ("fields", editor::FIELDS, false),
        ("analysis", analysis::BINDINGS, true),
        ("log", log::BINDINGS, true),
        ("confirm", CONFIRM, false),
        ("leaderboard", leaderboard::BINDINGS, true),
        ("filter prompt", filter_bar::BINDINGS, false),
        ("compare", compare::BINDINGS, true),
        ("prompt", search::PROMPT, false),
        ("search list", search::LIST, true),
        ("annotate", annotate::BINDINGS, false),
        ("annotate writing", annotate::WRITING, false),
        ("annotator prompt", annotate::PROMPT, false),
    ];

    #[test]
    fn no_key_does_two_things_in_one_table_or_shadows_a_global_key() {
        for (table, rows, global) in ALL {
            let mut keys: Vec<Key> = rows
                .iter()
                .flat_map(|b| b.keys.iter().map(|(k, _)| *k))
                .collect();
            if global {
                keys.extend(GLOBAL.iter().flat_map(|b| b.keys.iter().map(|(k, _)| *k)));
            }
            for (i, k) in keys.iter().enumerate() {
                assert!(
                    !keys[i + 1..].contains(k),
                    "{table:?}: {k:?} is bound twice"
                );
            }
        }
    }

    #[test]
    fn no_row_is_listed_twice() {
        for (table, rows, _) in ALL {
            for (i, b) in rows.iter().enumerate() {
                assert!(
                    rows[i + 1..].iter().all(|o| o.label != b.label),
                    "{table:?}: {} is listed twice",
                    b.label
                );
            }
        }
    }

    #[test]
    fn a_key_is_looked_up_with_its_ctrl() {
        let s = KeyEvent::new(KeyCode::Char('s'), KeyModifiers::NONE);
        let ctrl_s = KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL);
        assert_eq!(action(matrix::BINDINGS, &s), Some(Action::Leaderboard));
        assert_eq!(action(matrix::BINDINGS, &ctrl_s), None);
        assert_eq!(action(editor::BINDINGS, &ctrl_s), Some(Action::Save));
        let shift_p = KeyEvent::new(KeyCode::Char('P'), KeyModifiers::SHIFT);
        assert_eq!(action(round::BINDINGS, &shift_p), Some(Action::Prompts));
    }

    #[test]
    fn the_way_back_never_goes_round_in_a_circle() {
        let mut trail = Trail::default();
        trail.show(Id::Round);
        trail.show(Id::Compare);
        trail.show(Id::Round);
        assert_eq!(trail.top(), Id::Round);
        assert_eq!(trail.back(), Some(Id::Round));
        assert_eq!(trail.top(), Id::Matrix);
        assert_eq!(trail.back(), None, "the matrix stays");
    }
}
