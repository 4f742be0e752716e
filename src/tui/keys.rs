//! Every key the UI answers, as data. The key handlers look up what a key does here, and the
//! help overlay and the footer list the same rows, so what they show is what works.

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
    /// Back to the matrix.
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
    /// Open the search prompt.
    Search,
    /// Open the jump-to-round prompt.
    Jump,
    /// Open the next search hit.
    NextHit,
    /// Open the previous search hit.
    PreviousHit,
    /// In a prompt: run it.
    Run,
}

/// A key as bound: its code and whether Ctrl is held (Shift is part of the character).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    code: KeyCode,
    ctrl: bool,
}

const fn key(code: KeyCode) -> Key {
    Key { code, ctrl: false }
}

const fn ch(c: char) -> Key {
    key(KeyCode::Char(c))
}

const fn ctrl(c: char) -> Key {
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

/// The key tables: one per screen, one for the editor's two modes, one for every screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// Keys that work everywhere (except inside the editor).
    Global,
    /// The progress matrix.
    Matrix,
    /// One round.
    Round,
    /// The review queue.
    Review,
    /// The review editor, fixing the text.
    Editor,
    /// The review editor, typing the fourteen scores.
    Fields,
    /// The Analysis screen.
    Analysis,
    /// The leaderboard and the log.
    Plain,
    /// Quitting while calls are in flight, asked to confirm.
    Confirm,
    /// The leaderboard.
    Leaderboard,
    /// Typing a filter in the filter bar.
    FilterPrompt,
    /// The compare screen (`open A --compare B`).
    Compare,
    /// Typing a search or a round id in the footer.
    Prompt,
    /// The list of search hits (or of rounds to jump to).
    SearchList,
}

const ARROWS: &[(Key, Action)] = &[
    (key(KeyCode::Up), Action::Up),
    (key(KeyCode::Down), Action::Down),
    (key(KeyCode::Left), Action::Left),
    (key(KeyCode::Right), Action::Right),
    (ch('k'), Action::Up),
    (ch('j'), Action::Down),
    (ch('h'), Action::Left),
    (ch('l'), Action::Right),
];
const UP_DOWN: &[(Key, Action)] = &[
    (key(KeyCode::Up), Action::Up),
    (key(KeyCode::Down), Action::Down),
    (ch('k'), Action::Up),
    (ch('j'), Action::Down),
];
const BACK: Binding = Binding {
    label: "Esc",
    help: "back to the matrix",
    footer: Some("Esc back"),
    keys: &[
        (key(KeyCode::Esc), Action::Back),
        (key(KeyCode::Backspace), Action::Back),
    ],
};

const FILTER: Binding = Binding {
    label: "f",
    help: "filter rounds by model (a=, b= for a role), judge, dilemma, status; again to edit",
    footer: Some("f filter"),
    keys: &[(ch('f'), Action::Filter)],
};
const CLEAR_FILTER: Binding = Binding {
    label: "F",
    help: "clear the filter",
    footer: Some("F clear filter"),
    keys: &[(ch('F'), Action::ClearFilter)],
};

const GLOBAL: &[Binding] = &[
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
const PROMPT: &[Binding] = &[
    Binding {
        label: "letters",
        help: "type the search, or the start of a round id",
        footer: None,
        keys: &[],
    },
    Binding {
        label: "Enter",
        help: "run it",
        footer: Some("Enter run"),
        keys: &[(key(KeyCode::Enter), Action::Run)],
    },
    Binding {
        label: "Backspace",
        help: "erase a character",
        footer: None,
        keys: &[(key(KeyCode::Backspace), Action::Erase)],
    },
    Binding {
        label: "Esc",
        help: "cancel",
        footer: Some("Esc cancel"),
        keys: &[(key(KeyCode::Esc), Action::Leave)],
    },
];
const SEARCH_LIST: &[Binding] = &[
    Binding {
        label: "↑ ↓ / k j",
        help: "choose a hit",
        footer: Some("↑↓ choose"),
        keys: &[
            (key(KeyCode::Up), Action::Up),
            (key(KeyCode::Down), Action::Down),
            (ch('k'), Action::Up),
            (ch('j'), Action::Down),
            (key(KeyCode::PageUp), Action::PageUp),
            (key(KeyCode::PageDown), Action::PageDown),
        ],
    },
    Binding {
        label: "Enter",
        help: "open the round at the hit",
        footer: Some("Enter open"),
        keys: &[(key(KeyCode::Enter), Action::Open)],
    },
    Binding {
        label: "Esc",
        help: "close the list (n / N still step through the hits)",
        footer: Some("Esc close"),
        keys: &[(key(KeyCode::Esc), Action::Back)],
    },
];

const MATRIX: &[Binding] = &[
    Binding {
        label: "← ↓ ↑ → / h j k l",
        help: "move the cursor",
        footer: Some("arrows/hjkl move"),
        keys: ARROWS,
    },
    Binding {
        label: "Enter",
        help: "open the round under the cursor",
        footer: Some("Enter open"),
        keys: &[(key(KeyCode::Enter), Action::Open)],
    },
    Binding {
        label: "v",
        help: "review queue (what waits for a person)",
        footer: Some("v review"),
        keys: &[(ch('v'), Action::Review)],
    },
    Binding {
        label: "a",
        help: "analysis tables (as in the report)",
        footer: Some("a analysis"),
        keys: &[(ch('a'), Action::Analysis)],
    },
    Binding {
        label: "s",
        help: "leaderboard",
        footer: Some("s scores"),
        keys: &[(ch('s'), Action::Leaderboard)],
    },
    Binding {
        label: "g",
        help: "log",
        footer: Some("g log"),
        keys: &[(ch('g'), Action::Log)],
    },
    Binding {
        label: "p",
        help: "pause / resume new calls",
        footer: Some("p pause"),
        keys: &[(ch('p'), Action::Pause)],
    },
    Binding {
        label: "r",
        help: "retry an incomplete round",
        footer: Some("r retry"),
        keys: &[(ch('r'), Action::Retry)],
    },
    FILTER,
    CLEAR_FILTER,
    Binding {
        label: "c",
        help: "with open A --compare B: agreement of A and B, flipped verdicts, judges, ratings",
        footer: Some("c compare"),
        keys: &[(ch('c'), Action::CompareSummary)],
    },
];

const ROUND: &[Binding] = &[
    Binding {
        label: "Tab",
        help: "transcript / scores",
        footer: Some("Tab transcript/scores"),
        keys: &[(key(KeyCode::Tab), Action::SwitchTab)],
    },
    Binding {
        label: "↑ ↓ / k j",
        help: "scroll a line",
        footer: Some("↑↓ PgUp PgDn Home End scroll"),
        keys: UP_DOWN,
    },
    Binding {
        label: "PgUp PgDn",
        help: "scroll a page",
        footer: None,
        keys: &[
            (key(KeyCode::PageUp), Action::PageUp),
            (key(KeyCode::PageDown), Action::PageDown),
        ],
    },
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
        label: "v",
        help: "with open A --compare B: the round's judgments in A and B side by side",
        footer: Some("v compare"),
        keys: &[(ch('v'), Action::Compare)],
    },
    BACK,
];

const REVIEW: &[Binding] = &[
    Binding {
        label: "↑ ↓ / k j",
        help: "choose an item",
        footer: Some("↑↓ choose"),
        keys: UP_DOWN,
    },
    Binding {
        label: "Enter",
        help: "edit it: the model's text beside what is read from it",
        footer: Some("Enter edit"),
        keys: &[(key(KeyCode::Enter), Action::Open)],
    },
    FILTER,
    CLEAR_FILTER,
    BACK,
];

const EDITOR: &[Binding] = &[
    Binding {
        label: "letters, arrows",
        help: "edit the text",
        footer: Some("type to edit"),
        keys: &[],
    },
    Binding {
        label: "Tab",
        help: "type the fourteen scores instead of fixing the text",
        footer: Some("Tab type the 14 scores instead"),
        keys: &[(key(KeyCode::Tab), Action::ScoreFields)],
    },
    Binding {
        label: "Ctrl-S",
        help: "save (once everything is read)",
        footer: Some("Ctrl-S save"),
        keys: &[(ctrl('s'), Action::Save)],
    },
    Binding {
        label: "Esc",
        help: "leave the editor (twice to discard edits)",
        footer: Some("Esc leave (twice to discard edits)"),
        keys: &[(key(KeyCode::Esc), Action::Leave)],
    },
];

const FIELDS: &[Binding] = &[
    Binding {
        label: "digits, .",
        help: "type a score (1 to 10, halves allowed)",
        footer: Some("type each score"),
        keys: &[],
    },
    Binding {
        label: "arrows / Enter",
        help: "move between the fields",
        footer: Some("arrows move"),
        keys: &[
            (key(KeyCode::Up), Action::Up),
            (key(KeyCode::Down), Action::Down),
            (key(KeyCode::Enter), Action::Down),
            (key(KeyCode::Left), Action::Left),
            (key(KeyCode::Right), Action::Right),
        ],
    },
    Binding {
        label: "Backspace",
        help: "erase a character",
        footer: None,
        keys: &[(key(KeyCode::Backspace), Action::Erase)],
    },
    Binding {
        label: "Tab",
        help: "back to the text",
        footer: Some("Tab back to the text"),
        keys: &[(key(KeyCode::Tab), Action::ScoreFields)],
    },
    Binding {
        label: "Ctrl-S",
        help: "save (once every field holds a score)",
        footer: Some("Ctrl-S save"),
        keys: &[(ctrl('s'), Action::Save)],
    },
    Binding {
        label: "Esc",
        help: "leave the editor (twice to discard edits)",
        footer: Some("Esc leave"),
        keys: &[(key(KeyCode::Esc), Action::Leave)],
    },
];

const ANALYSIS: &[Binding] = &[
    Binding {
        label: "Tab / ← → / h l",
        help: "next or previous table",
        footer: Some("Tab/←→ tables"),
        keys: &[
            (key(KeyCode::Tab), Action::NextTab),
            (key(KeyCode::Right), Action::NextTab),
            (ch('l'), Action::NextTab),
            (key(KeyCode::BackTab), Action::PreviousTab),
            (key(KeyCode::Left), Action::PreviousTab),
            (ch('h'), Action::PreviousTab),
        ],
    },
    Binding {
        label: "↑ ↓ / k j",
        help: "choose a line",
        footer: Some("↑↓ choose"),
        keys: UP_DOWN,
    },
    Binding {
        label: "Enter",
        help: "open it (the matrix column, or a round)",
        footer: Some("Enter open"),
        keys: &[(key(KeyCode::Enter), Action::Open)],
    },
    BACK,
];

const PLAIN: &[Binding] = &[BACK];

const LEADERBOARD: &[Binding] = &[FILTER, CLEAR_FILTER, BACK];

const FILTER_PROMPT: &[Binding] = &[
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
];

const COMPARE: &[Binding] = &[
    Binding {
        label: "Tab",
        help: "this round / the summary of the comparison",
        footer: Some("Tab round/summary"),
        keys: &[(key(KeyCode::Tab), Action::SwitchTab)],
    },
    Binding {
        label: "↑ ↓ / k j",
        help: "scroll a line",
        footer: Some("↑↓ PgUp PgDn scroll"),
        keys: UP_DOWN,
    },
    Binding {
        label: "PgUp PgDn",
        help: "scroll a page",
        footer: None,
        keys: &[
            (key(KeyCode::PageUp), Action::PageUp),
            (key(KeyCode::PageDown), Action::PageDown),
        ],
    },
    Binding {
        label: "Esc",
        help: "back where the comparison was opened",
        footer: Some("Esc back"),
        keys: &[
            (key(KeyCode::Esc), Action::Back),
            (key(KeyCode::Backspace), Action::Back),
        ],
    },
];

const CONFIRM: &[Binding] = &[
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
pub fn bindings(table: Table) -> &'static [Binding] {
    match table {
        Table::Global => GLOBAL,
        Table::Matrix => MATRIX,
        Table::Round => ROUND,
        Table::Review => REVIEW,
        Table::Editor => EDITOR,
        Table::Fields => FIELDS,
        Table::Analysis => ANALYSIS,
        Table::Plain => PLAIN,
        Table::Confirm => CONFIRM,
        Table::Leaderboard => LEADERBOARD,
        Table::FilterPrompt => FILTER_PROMPT,
        Table::Compare => COMPARE,
        Table::Prompt => PROMPT,
        Table::SearchList => SEARCH_LIST,
    }
}

/// What a pressed key does in a table, if anything.
pub fn action(table: Table, pressed: &KeyEvent) -> Option<Action> {
    let ctrl = pressed.modifiers.contains(KeyModifiers::CONTROL);
    bindings(table)
        .iter()
        .flat_map(|b| b.keys)
        .find(|(k, _)| k.code == pressed.code && k.ctrl == ctrl)
        .map(|(_, a)| *a)
}

/// The footer's line for a table: its rows' short forms, then the global ones (except in
/// the editor, where every other key is text); rows whose keys do one of `hidden` are left
/// out (they would do nothing here, such as pausing while browsing).
pub fn footer(table: Table, hidden: &[Action]) -> String {
    let global = match table {
        Table::Editor | Table::Fields | Table::FilterPrompt | Table::Prompt => &[][..],
        _ => GLOBAL,
    };
    bindings(table)
        .iter()
        .chain(global)
        .filter(|b| !b.keys.iter().any(|(_, a)| hidden.contains(a)))
        .filter_map(|b| b.footer)
        .collect::<Vec<_>>()
        .join(" · ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Table; 14] = [
        Table::Global,
        Table::Matrix,
        Table::Round,
        Table::Review,
        Table::Editor,
        Table::Fields,
        Table::Analysis,
        Table::Plain,
        Table::Confirm,
        Table::Leaderboard,
        Table::FilterPrompt,
        Table::Compare,
        Table::Prompt,
        Table::SearchList,
    ];

    #[test]
    fn no_key_does_two_things_in_one_table_or_shadows_a_global_key() {
        for table in ALL {
            let mut keys: Vec<Key> = bindings(table)
                .iter()
                .flat_map(|b| b.keys.iter().map(|(k, _)| *k))
                .collect();
            if !matches!(
                table,
                Table::Global
                    | Table::Editor
                    | Table::Fields
                    | Table::Confirm
                    | Table::FilterPrompt
                    | Table::Prompt
            ) {
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
        for table in ALL {
            let rows = bindings(table);
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
        assert_eq!(action(Table::Matrix, &s), Some(Action::Leaderboard));
        assert_eq!(action(Table::Matrix, &ctrl_s), None);
        assert_eq!(action(Table::Editor, &ctrl_s), Some(Action::Save));
        let shift_p = KeyEvent::new(KeyCode::Char('P'), KeyModifiers::SHIFT);
        assert_eq!(action(Table::Round, &shift_p), Some(Action::Prompts));
    }
}
