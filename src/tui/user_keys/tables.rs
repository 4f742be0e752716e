//! Every key table, with what is read beside it: the list a user's keys are checked
//! against (no key may do two things where it is read, nor take a character that is text
//! there) and the one `ethics-bowl keys` takes each action's default keys from.

use crate::tui::keys::{Action, Binding, CONFIRM, GLOBAL};
use crate::tui::screens::{
    analysis, annotate, compare, editor, filter_bar, leaderboard, log, matrix, review, round,
    search,
};

/// Whether the keys a table does not bind are text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Typing {
    /// No: keys are only keys.
    No,
    /// Every character is text (the editor, the prompts).
    Text,
    /// Digits and `.` are text (the score fields).
    Digits,
}

/// A key table as the UI reads it.
#[derive(Debug, Clone, Copy)]
pub struct Table {
    /// Where it is read, for messages ("the matrix").
    pub name: &'static str,
    /// Its rows.
    pub rows: &'static [Binding],
    /// Whether the global keys work beside it (Ctrl-C's force quit works everywhere).
    pub global: bool,
    /// Which keys are text there.
    pub typing: Typing,
    /// Whether it is a one-line prompt, where Ctrl-U and Ctrl-W erase.
    pub prompt: bool,
}

const fn table(name: &'static str, rows: &'static [Binding], global: bool) -> Table {
    Table {
        name,
        rows,
        global,
        typing: Typing::No,
        prompt: false,
    }
}

const fn typed(
    name: &'static str,
    rows: &'static [Binding],
    typing: Typing,
    prompt: bool,
) -> Table {
    Table {
        name,
        rows,
        global: false,
        typing,
        prompt,
    }
}

/// Every table, the global one first (where `ethics-bowl keys` takes an action's default
/// keys from the first table binding it).
pub const TABLES: &[Table] = &[
    table("every screen", GLOBAL, false),
    table("the matrix", matrix::BINDINGS, true),
    table("the round", round::BINDINGS, true),
    table("the review queue", review::BINDINGS, true),
    table("the analysis", analysis::BINDINGS, true),
    table("the comparison", compare::BINDINGS, true),
    table("the leaderboard", leaderboard::BINDINGS, true),
    table("the log", log::BINDINGS, true),
    table("the list of search hits", search::LIST, true),
    table("the question before quitting", CONFIRM, false),
    typed("the editor", editor::BINDINGS, Typing::Text, false),
    typed("the score fields", editor::FIELDS, Typing::Digits, false),
    typed(
        "the filter prompt",
        filter_bar::BINDINGS,
        Typing::Text,
        true,
    ),
    typed("the search prompt", search::PROMPT, Typing::Text, true),
    typed(
        "the annotate screen",
        annotate::BINDINGS,
        Typing::Digits,
        false,
    ),
    typed(
        "the annotate screen's reason",
        annotate::WRITING,
        Typing::Text,
        false,
    ),
    typed(
        "the annotator's name prompt",
        annotate::PROMPT,
        Typing::Text,
        true,
    ),
];

/// The keys an action has by default in a table, in the table's order, each once.
pub fn default_keys(table: &Table, action: Action) -> Vec<crate::tui::keys::Key> {
    let mut keys = Vec::new();
    for (k, a) in table.rows.iter().flat_map(|b| b.keys) {
        if *a == action && !keys.contains(k) {
            keys.push(*k);
        }
    }
    keys
}
