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

impl Action {
    /// Every action, in the order `ethics-bowl keys` lists them.
    pub const ALL: [Action; 45] = [
        Action::Help,
        Action::Quit,
        Action::CancelBatches,
        Action::ForceQuit,
        Action::Up,
        Action::Down,
        Action::Left,
        Action::Right,
        Action::Open,
        Action::Review,
        Action::Analysis,
        Action::Leaderboard,
        Action::Log,
        Action::Pause,
        Action::Retry,
        Action::RetryAll,
        Action::Back,
        Action::SwitchTab,
        Action::PageUp,
        Action::PageDown,
        Action::Top,
        Action::Follow,
        Action::Prompts,
        Action::Copy,
        Action::NextTab,
        Action::PreviousTab,
        Action::ScoreFields,
        Action::Save,
        Action::Leave,
        Action::Erase,
        Action::Filter,
        Action::ClearFilter,
        Action::ApplyFilter,
        Action::CancelFilter,
        Action::Compare,
        Action::CompareSummary,
        Action::OpenRound,
        Action::Search,
        Action::Jump,
        Action::NextHit,
        Action::PreviousHit,
        Action::NextRound,
        Action::PreviousRound,
        Action::Run,
        Action::Annotate,
    ];

    /// The action's name in `keys.toml` (snake case: `next_round`).
    pub const fn name(self) -> &'static str {
        match self {
            Action::Help => "help",
            Action::Quit => "quit",
            Action::CancelBatches => "cancel_batches",
            Action::ForceQuit => "force_quit",
            Action::Up => "up",
            Action::Down => "down",
            Action::Left => "left",
            Action::Right => "right",
            Action::Open => "open",
            Action::Review => "review",
            Action::Analysis => "analysis",
            Action::Leaderboard => "leaderboard",
            Action::Log => "log",
            Action::Pause => "pause",
            Action::Retry => "retry",
            Action::RetryAll => "retry_all",
            Action::Back => "back",
            Action::SwitchTab => "switch_tab",
            Action::PageUp => "page_up",
            Action::PageDown => "page_down",
            Action::Top => "top",
            Action::Follow => "follow",
            Action::Prompts => "prompts",
            Action::Copy => "copy",
            Action::NextTab => "next_tab",
            Action::PreviousTab => "previous_tab",
            Action::ScoreFields => "score_fields",
            Action::Save => "save",
            Action::Leave => "leave",
            Action::Erase => "erase",
            Action::Filter => "filter",
            Action::ClearFilter => "clear_filter",
            Action::ApplyFilter => "apply_filter",
            Action::CancelFilter => "cancel_filter",
            Action::Compare => "compare",
            Action::CompareSummary => "compare_summary",
            Action::OpenRound => "open_round",
            Action::Search => "search",
            Action::Jump => "jump",
            Action::NextHit => "next_hit",
            Action::PreviousHit => "previous_hit",
            Action::NextRound => "next_round",
            Action::PreviousRound => "previous_round",
            Action::Run => "run",
            Action::Annotate => "annotate",
        }
    }

    /// What the action does, for the comments of `ethics-bowl keys`.
    pub const fn describe(self) -> &'static str {
        match self {
            Action::Help => "Open the help overlay.",
            Action::Quit => "Quit (asking first while calls are in flight).",
            Action::CancelBatches => {
                "Cancel the open batches at their providers, then stop and quit (asked when quitting a batched run)."
            }
            Action::ForceQuit => "Quit at once, calls in flight or not.",
            Action::Up => "Move or scroll up.",
            Action::Down => "Move or scroll down.",
            Action::Left => "Move left.",
            Action::Right => "Move right.",
            Action::Open => "Open what is selected.",
            Action::Review => "Go to the review queue.",
            Action::Analysis => "Go to the Analysis screen.",
            Action::Leaderboard => "Go to the leaderboard.",
            Action::Log => "Go to the log.",
            Action::Pause => "Pause or resume new calls.",
            Action::Retry => "Run an incomplete round again.",
            Action::RetryAll => "Run every incomplete round again.",
            Action::Back => "Back to the screen this one was opened from.",
            Action::SwitchTab => "Transcript or scores.",
            Action::PageUp => "Scroll a page up.",
            Action::PageDown => "Scroll a page down.",
            Action::Top => "Scroll to the top (stops following).",
            Action::Follow => "Follow the stream.",
            Action::Prompts => "Show or hide prompts.",
            Action::Copy => "Copy the round as Markdown to the clipboard.",
            Action::NextTab => "The next table.",
            Action::PreviousTab => "The previous table.",
            Action::ScoreFields => {
                "In the editor: type the fourteen scores instead of fixing the text, or back."
            }
            Action::Save => "In the editor: save.",
            Action::Leave => "In the editor: leave (twice with edits to discard them).",
            Action::Erase => "In the score fields: erase a character.",
            Action::Filter => "Open the filter bar's prompt (to type or edit the filter).",
            Action::ClearFilter => "Clear the filter.",
            Action::ApplyFilter => "In the filter prompt: apply what is typed.",
            Action::CancelFilter => "In the filter prompt: leave it, the filter as it was.",
            Action::Compare => "Show the round's judgments in both compared folders side by side.",
            Action::CompareSummary => "Show the comparison's summary.",
            Action::OpenRound => {
                "Open the round of what is selected (a review item, the compared round)."
            }
            Action::Search => "Open the search prompt.",
            Action::Jump => "Open the jump-to-round prompt.",
            Action::NextHit => "Open the next search hit.",
            Action::PreviousHit => "Open the previous search hit.",
            Action::NextRound => {
                "Open the next round in the order the round showing was opened from."
            }
            Action::PreviousRound => {
                "Open the previous round in the order the round showing was opened from."
            }
            Action::Run => "In a prompt: run it.",
            Action::Annotate => "Judge rounds yourself, blind (asks for your name first).",
        }
    }

    /// The action called `name` in `keys.toml`, if any.
    pub fn named(name: &str) -> Option<Action> {
        Self::ALL.into_iter().find(|a| a.name() == name)
    }
}

/// A key as bound: its code and whether Ctrl is held (Shift is part of the character).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    code: KeyCode,
    ctrl: bool,
}

impl Key {
    /// A key from its parts, as a user's `keys.toml` names it.
    pub(crate) const fn new(code: KeyCode, ctrl: bool) -> Key {
        Key { code, ctrl }
    }

    /// The key's code.
    pub(crate) const fn code(self) -> KeyCode {
        self.code
    }

    /// Whether Ctrl is held.
    pub(crate) const fn with_ctrl(self) -> bool {
        self.ctrl
    }

    /// Whether `pressed` is this key.
    pub(crate) fn matches(self, pressed: &KeyEvent) -> bool {
        self.code == pressed.code && self.ctrl == pressed.modifiers.contains(KeyModifiers::CONTROL)
    }
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

/// What a pressed key does in a table with its default keys, if anything (the UI looks keys
/// up through `super::keymap::Keymap`, which holds the user's).
pub fn action(table: &[Binding], pressed: &KeyEvent) -> Option<Action> {
    table
        .iter()
        .flat_map(|b| b.keys)
        .find(|(k, _)| k.matches(pressed))
        .map(|(_, a)| *a)
}
