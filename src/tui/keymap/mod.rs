//! The user's keys: a layer over the key tables of `super::keys` that a `keys.toml` fills
//! (`super::user_keys`). The tables keep their default keys; a rebound action's keys replace its
//! defaults in every row that binds it, when a key is looked up and when the help overlay
//! and the footer list the row, so what they show is still what works.

pub mod name;

use std::borrow::Cow;

use crossterm::event::KeyEvent;

use super::keys::{self, Action, Binding, GLOBAL, Key};

/// The actions a user rebound, each with its keys; every other action keeps the keys its
/// tables give it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Keymap {
    rebound: Vec<(Action, Vec<Key>)>,
}

impl Keymap {
    /// The keys `action` is rebound to, if the user rebound it.
    pub fn keys_of(&self, action: Action) -> Option<&[Key]> {
        self.rebound
            .iter()
            .find(|(a, _)| *a == action)
            .map(|(_, keys)| keys.as_slice())
    }

    /// Binds `action` to `keys` (instead of its defaults) everywhere it works.
    pub(crate) fn rebind(&mut self, action: Action, keys: Vec<Key>) {
        self.rebound.retain(|(a, _)| *a != action);
        self.rebound.push((action, keys));
        // In one order whatever the file's, so equal keys compare equal.
        self.rebound
            .sort_by_key(|(a, _)| Action::ALL.iter().position(|x| x == a));
    }

    /// Whether no action is rebound.
    pub fn is_default(&self) -> bool {
        self.rebound.is_empty()
    }

    /// A row's keys in force: its own, with each rebound action's keys in place of its
    /// defaults (where the row first binds it).
    pub fn row_keys(&self, row: &Binding) -> Vec<(Key, Action)> {
        let mut keys = Vec::with_capacity(row.keys.len());
        for (key, action) in row.keys {
            match self.keys_of(*action) {
                None => keys.push((*key, *action)),
                Some(own) if !keys.iter().any(|(_, a)| a == action) => {
                    keys.extend(own.iter().map(|k| (*k, *action)));
                }
                Some(_) => {}
            }
        }
        keys
    }

    /// Whether the user rebound any of a row's actions.
    fn touches(&self, row: &Binding) -> bool {
        row.keys.iter().any(|(_, a)| self.keys_of(*a).is_some())
    }

    /// What a pressed key does in a table, if anything.
    pub fn action(&self, table: &[Binding], pressed: &KeyEvent) -> Option<Action> {
        if self.is_default() {
            return keys::action(table, pressed);
        }
        table
            .iter()
            .flat_map(|b| self.row_keys(b))
            .find(|(k, _)| k.matches(pressed))
            .map(|(_, a)| a)
    }

    /// A row's keys as shown in the help overlay: its own label, or the keys in force when
    /// the user rebound one of its actions ("x / [": each action's keys, actions apart).
    pub fn label(&self, row: &Binding) -> Cow<'static, str> {
        if !self.touches(row) {
            return Cow::Borrowed(row.label);
        }
        let keys = self.row_keys(row);
        let mut actions: Vec<Action> = Vec::new();
        for (_, a) in &keys {
            if !actions.contains(a) {
                actions.push(*a);
            }
        }
        let names = |action: Action| {
            keys.iter()
                .filter(|(_, a)| *a == action)
                .map(|(k, _)| name::display(*k))
                .collect::<Vec<_>>()
        };
        let label = match actions.as_slice() {
            [one] => names(*one).join(" / "),
            _ => actions
                .iter()
                .map(|a| names(*a).join(" "))
                .collect::<Vec<_>>()
                .join(" / "),
        };
        Cow::Owned(label)
    }

    /// A row's short form in the footer, its keys replaced by the user's when rebound
    /// ("r retry" becomes "x retry").
    pub fn row_footer(&self, row: &Binding) -> Option<Cow<'static, str>> {
        let footer = row.footer?;
        if !self.touches(row) {
            return Some(Cow::Borrowed(footer));
        }
        let words = name::words_after_keys(footer);
        let label = self.label(row);
        Some(Cow::Owned(if words.is_empty() {
            label.into_owned()
        } else {
            format!("{label} {words}")
        }))
    }

    /// The footer's line for a table: its rows' short forms, then the global ones when they
    /// apply; rows whose keys do one of `hidden` are left out (they would do nothing here,
    /// such as pausing while browsing).
    pub fn footer(&self, table: &[Binding], global: bool, hidden: &[Action]) -> String {
        let global = if global { GLOBAL } else { &[] };
        table
            .iter()
            .chain(global)
            .filter(|b| !b.keys.iter().any(|(_, a)| hidden.contains(a)))
            .filter_map(|b| self.row_footer(b))
            .collect::<Vec<_>>()
            .join(" · ")
    }

    /// The first key in force for `action` in `table`, as shown ("q"), for sentences that
    /// name a key.
    pub fn first_key(&self, table: &[Binding], action: Action) -> Option<String> {
        table
            .iter()
            .flat_map(|b| self.row_keys(b))
            .find(|(_, a)| *a == action)
            .map(|(k, _)| name::display(k))
    }
}
