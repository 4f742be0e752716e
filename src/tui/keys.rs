//! Keys as data: what a key does ([`Action`]), a row of a key table ([`Binding`]), the keys
//! every screen shares, and looking a pressed key up in a table. Each screen states its own
//! table (see `super::screens`); the key handlers look a key up there, and the help overlay
//! and the footer list the same rows, so what they show is what works.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What a key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Open the help overlay.
    Help,
    /// Quit (asking first while calls are in flight).
    Quit,
    /// Cancel the open batches at their providers, then stop and quit (asked when
    /// quitting a batched run).
    CancelBatches,
    /// Quit at once, calls in flight or not.
    ForceQuit,
    /// Move or scroll up.
    Up,
    /// Move or scroll down.
    Down,
    /// Move left.
    Left,
    /// Move right.
    Right,
    /// Open what is selected.
    Open,
    /// Go to the review queue.
    Review,
    /// Go to the Analysis screen.
    Analysis,
    /// Go to the leaderboard.
    Leaderboard,
    /// Go to the log.
    Log,
    /// Pause or resume new calls.
    Pause,
    /// Run an incomplete round again.
    Retry,
    /// Run every incomplete round again.
    RetryAll,
    /// Back to the screen this one was opened from.
    Back,
    /// Transcript or scores.
    SwitchTab,
    /// Scroll a page up.
    PageUp,
    /// Scroll a page down.
    PageDown,
    /// Scroll to the top (stops following).
    Top,
    /// Follow the stream.
    Follow,
    /// Show or hide prompts.
    Prompts,
    /// Copy the round as Markdown to the clipboard.
    Copy,
    /// The next table.
    NextTab,
    /// The previous table.
    PreviousTab,
    /// In the editor: type the fourteen scores instead of fixing the text, or back.
    ScoreFields,
    /// In the editor: save.
    Save,
    /// In the editor: leave (twice with edits to discard them).
    Leave,
    /// In the score fields: erase a character.
    Erase,
    /// Open the filter bar's prompt (to type or edit the filter).
    Filter,
    /// Clear the filter.
    ClearFilter,
    /// In the filter prompt: apply what is typed.
    ApplyFilter,
    /// In the filter prompt: leave it, the filter as it was.
    CancelFilter,
    /// Show the round's judgments in both compared folders side by side.
    Compare,
    /// Show the comparison's summary.
    CompareSummary,
    /// Open the round of what is selected (a review item, the compared round).
    OpenRound,
    /// Open the search prompt.
    Search,
    /// Open the jump-to-round prompt.
    Jump,
    /// Open the next search hit.
    NextHit,
    /// Open the previous search hit.
    PreviousHit,
    /// Open the next round in the order the round showing was opened from.
    NextRound,
    /// Open the previous round in the order the round showing was opened from.
    PreviousRound,
    /// In a prompt: run it.
    Run,
    /// Judge rounds as a person (asks for the annotator's name first).
    Annotate,
}

/// A key as bound: its code and whether Ctrl is held (Shift is part of the character).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    code: KeyCode,
    ctrl: bool,
}

/// A key without Ctrl.
pub(crate) const fn key(code: KeyCode) -> Key {
    Key { code, ctrl: false }
}

/// A character key without Ctrl.
pub(crate) const fn ch(c: char) -> Key {
    key(KeyCode::Char(c))
}

/// A character key with Ctrl.
pub(crate) const fn ctrl(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        ctrl: true,
    }
}

/// One row of a key table: keys that do one thing, as people read them.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    /// The keys as shown ("← ↓ ↑ → / h j k l").
    pub label: &'static str,
    /// What they do, for the help overlay.
    pub help: &'static str,
    /// The footer's short form, when the footer lists the row.
    pub footer: Option<&'static str>,
    /// Each key and what it does (none for rows that describe typing).
    pub keys: &'static [(Key, Action)],
}

/// The arrows and h j k l, moving in four directions.
pub(crate) const ARROWS: &[(Key, Action)] = &[
    (key(KeyCode::Up), Action::Up),
    (key(KeyCode::Down), Action::Down),
    (key(KeyCode::Left), Action::Left),
    (key(KeyCode::Right), Action::Right),
    (ch('k'), Action::Up),
    (ch('j'), Action::Down),
    (ch('h'), Action::Left),
    (ch('l'), Action::Right),
];
/// Up and down, by arrow or k j.
pub(crate) const UP_DOWN: &[(Key, Action)] = &[
    (key(KeyCode::Up), Action::Up),
    (key(KeyCode::Down), Action::Down),
    (ch('k'), Action::Up),
    (ch('j'), Action::Down),
];
/// PgUp and PgDn: scroll a page (the round and the comparison).
pub(crate) const PAGE_UP_DOWN: Binding = Binding {
    label: "PgUp PgDn",
    help: "scroll a page",
    footer: None,
    keys: &[
        (key(KeyCode::PageUp), Action::PageUp),
        (key(KeyCode::PageDown), Action::PageDown),
    ],
};
/// Esc (or Backspace): back where the screen was opened from.
pub(crate) const BACK: Binding = Binding {
    label: "Esc",
    help: "back to the screen this was opened from",
    footer: Some("Esc back"),
    keys: &[
        (key(KeyCode::Esc), Action::Back),
        (key(KeyCode::Backspace), Action::Back),
    ],
};

/// `f`: the filter bar's prompt.
pub(crate) const FILTER: Binding = Binding {
    label: "f",
    help: "filter rounds by model (a=, b= for a role), judge, dilemma, status; again to edit",
    footer: Some("f filter"),
    keys: &[(ch('f'), Action::Filter)],
};
/// `F`: no filter.
pub(crate) const CLEAR_FILTER: Binding = Binding {
    label: "F",
    help: "clear the filter",
    footer: Some("F clear filter"),
    keys: &[(ch('F'), Action::ClearFilter)],
};

/// Keys that work on every screen but the editor (and the prompts, where keys are text).
pub const GLOBAL: &[Binding] = &[
    Binding {
        label: "?",
        help: "this help",
        footer: Some("? help"),
        keys: &[(ch('?'), Action::Help)],
    },
    Binding {
        label: "q",
        help: "quit (asks first while calls are in flight)",
        footer: Some("q quit"),
        keys: &[(ch('q'), Action::Quit)],
    },
    Binding {
        label: "Ctrl-C",
        help: "quit at once (everything finished is stored)",
        footer: None,
        keys: &[(ctrl('c'), Action::ForceQuit)],
    },
    SEARCH,
    JUMP,
    NEXT_HIT,
];

// Search and jump work on every screen (see `super::search`).
const SEARCH: Binding = Binding {
    label: "/",
    help: "search text, round ids, models, dilemmas (prompts when shown)",
    footer: Some("/ search"),
    keys: &[(ch('/'), Action::Search)],
};
const JUMP: Binding = Binding {
    label: ":",
    help: "jump to a round by id (its start is enough)",
    footer: Some(": jump"),
    keys: &[(ch(':'), Action::Jump)],
};
const NEXT_HIT: Binding = Binding {
    label: "n / N",
    help: "open the next / previous search hit",
    footer: Some("n/N next/prev hit"),
    keys: &[(ch('n'), Action::NextHit), (ch('N'), Action::PreviousHit)],
};
/// Quitting while calls are in flight, asked to confirm.
pub const CONFIRM: &[Binding] = &[
    Binding {
        label: "q / y",
        help: "stop the run and quit (any other key stays); open batches stay open",
        footer: None,
        keys: &[(ch('q'), Action::Quit), (ch('y'), Action::Quit)],
    },
    Binding {
        label: "c",
        help: "cancel the open batches at their providers, then stop and quit",
        footer: None,
        keys: &[(ch('c'), Action::CancelBatches)],
    },
];

/// The rows of a table.
/// What a pressed key does in a table, if anything.
pub fn action(table: &[Binding], pressed: &KeyEvent) -> Option<Action> {
    let ctrl = pressed.modifiers.contains(KeyModifiers::CONTROL);
    table
        .iter()
        .flat_map(|b| b.keys)
        .find(|(k, _)| k.code == pressed.code && k.ctrl == ctrl)
        .map(|(_, a)| *a)
}

/// The footer's line for a table: its rows' short forms, then the global ones when they
/// apply; rows whose keys do one of `hidden` are left out (they would do nothing here, such
/// as pausing while browsing).
pub fn footer(table: &[Binding], global: bool, hidden: &[Action]) -> String {
    let global = if global { GLOBAL } else { &[] };
    table
        .iter()
        .chain(global)
        .filter(|b| !b.keys.iter().any(|(_, a)| hidden.contains(a)))
        .filter_map(|b| b.footer)
        .collect::<Vec<_>>()
        .join(" · ")
}
