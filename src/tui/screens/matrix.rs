//! The progress matrix: a cursor over the rounds' cells (over the rows and columns the
//! filter keeps); Enter opens the round under it, letters go to the other screens, `p`
//! pauses while the engine plays rounds, and `r` (`R`) runs an incomplete round (every one)
//! again, during a run, after it and in `open`.

use crossterm::event::KeyCode;

use crate::engine::EngineCommand;
use crate::tui::keys::{ARROWS, Action, Binding, CLEAR_FILTER, FILTER, ch, key};
use crate::tui::mirror::{Mirror, RoundState};
use crate::tui::msg::{Destination, Effect, Opening, Outcome, RoundAt};
use crate::tui::shown::Shown;

/// The matrix's keys.
pub const BINDINGS: &[Binding] = &[
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
        label: "A",
        help: "judge rounds yourself, blind (asks your name; the recorded sample, or every finished round)",
        footer: Some("A annotate"),
        keys: &[(ch('A'), Action::Annotate)],
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
    Binding {
        label: "R",
        help: "retry every incomplete round",
        footer: Some("R retry all"),
        keys: &[(ch('R'), Action::RetryAll)],
    },
    FILTER,
    CLEAR_FILTER,
    Binding {
        label: "c",
        help: "with open DIR --compare OTHER: agreement of the two runs, flipped verdicts ({open} opens one), judges, ratings",
        footer: Some("c compare"),
        keys: &[(ch('c'), Action::CompareSummary)],
    },
];

/// The matrix's state: where its cursor is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MatrixScreen {
    /// The cursor (row, column).
    pub cursor: (usize, usize),
}

impl MatrixScreen {
    /// The round under the cursor.
    pub fn selected<'a>(&self, mirror: &'a Mirror) -> Option<&'a RoundState> {
        mirror.cells.get(&self.cursor).map(|i| &mirror.rounds[*i])
    }

    /// The round under the cursor when the filter lets it through: what Enter opens and the
    /// matrix's title names.
    pub fn selected_shown<'a>(&self, shown: Shown<'a>) -> Option<&'a RoundState> {
        self.selected(shown.mirror).filter(|r| shown.passes(r))
    }

    /// The rows and columns the filter keeps (those with a round that passes), and the
    /// cursor's, so the cursor never sits in a hidden line; none when nothing passes.
    pub fn shown_lines(&self, shown: Shown<'_>) -> (Vec<usize>, Vec<usize>) {
        let m = shown.mirror;
        if shown.filter.is_none() {
            return ((0..m.rows.len()).collect(), (0..m.columns.len()).collect());
        }
        let mut rows = vec![false; m.rows.len()];
        let mut cols = vec![false; m.columns.len()];
        for (&(r, c), &i) in &m.cells {
            if shown.passes(&m.rounds[i]) {
                rows[r] = true;
                cols[c] = true;
            }
        }
        if !rows.contains(&true) {
            return (Vec::new(), Vec::new());
        }
        if let Some(r) = rows.get_mut(self.cursor.0) {
            *r = true;
        }
        if let Some(c) = cols.get_mut(self.cursor.1) {
            *c = true;
        }
        let keep = |v: Vec<bool>| {
            v.iter()
                .enumerate()
                .filter(|(_, k)| **k)
                .map(|(i, _)| i)
                .collect()
        };
        (keep(rows), keep(cols))
    }

    /// Puts the cursor on a round that passes (the first, in schedule order) when the one
    /// under it does not (the filter changed).
    pub fn settle(&mut self, shown: Shown<'_>) {
        let m = shown.mirror;
        if self.selected(m).is_some_and(|r| shown.passes(r)) {
            return;
        }
        if let Some(cell) = m
            .cells
            .iter()
            .filter(|(_, i)| shown.passes(&m.rounds[**i]))
            .min_by_key(|(_, i)| **i)
            .map(|(cell, _)| *cell)
        {
            self.cursor = cell;
        }
    }

    /// Puts the cursor on round `i` when it has a cell the filter shows (a round opened
    /// elsewhere is under the cursor on the way back).
    pub fn follow(&mut self, shown: Shown<'_>, i: usize) {
        if let Some(cell) = shown.mirror.cell_of(i)
            && shown.passes(&shown.mirror.rounds[i])
        {
            self.cursor = cell;
        }
    }

    /// Moves the cursor one shown row or column, stopping at the edges.
    fn step(&mut self, shown: Shown<'_>, action: Action) {
        let (rows, cols) = self.shown_lines(shown);
        let step = |lines: &[usize], at: usize, forward: bool| -> usize {
            let Some(pos) = lines.iter().position(|l| *l == at) else {
                return lines.first().copied().unwrap_or(at);
            };
            let next = if forward {
                lines.get(pos + 1)
            } else {
                pos.checked_sub(1).and_then(|p| lines.get(p))
            };
            next.copied().unwrap_or(at)
        };
        let (r, c) = self.cursor;
        match action {
            Action::Up => self.cursor.0 = step(&rows, r, false),
            Action::Down => self.cursor.0 = step(&rows, r, true),
            Action::Left => self.cursor.1 = step(&cols, c, false),
            Action::Right => self.cursor.1 = step(&cols, c, true),
            _ => {}
        }
    }

    /// Handles one of the matrix's keys.
    pub fn act(&mut self, action: Action, shown: Shown<'_>) -> Outcome {
        let m = shown.mirror;
        match action {
            Action::Up | Action::Down | Action::Left | Action::Right => self.step(shown, action),
            Action::Open => {
                if let Some(round) = self.selected_shown(shown) {
                    return Outcome::go(Destination::Round(RoundAt {
                        id: round.id().to_string(),
                        scores: false,
                        opening: Opening::Follow,
                    }));
                }
            }
            Action::Leaderboard => return Outcome::go(Destination::Leaderboard),
            Action::Log => return Outcome::go(Destination::Log),
            Action::Review => return Outcome::go(Destination::Review),
            Action::Analysis => return Outcome::go(Destination::Analysis),
            Action::Pause if m.engine_running => {
                let command = if m.paused {
                    EngineCommand::Resume
                } else {
                    EngineCommand::Pause
                };
                return Outcome::effect(Effect::Command(command));
            }
            // During a run, after it, and in `open`: the engine answers `Queued`.
            Action::Retry => return super::round::retry(self.selected(m), m.engine_running),
            Action::RetryAll if m.can_retry_any() => {
                return Outcome::effect(Effect::Command(EngineCommand::RetryIncomplete));
            }
            _ => {}
        }
        Outcome::default()
    }
}
