//! The text `ethics-bowl keys` prints: a `keys.toml` with every action, what it does and
//! its keys, commented out unless the user rebound it, so a user can start from it and
//! uncomment what they change.

use std::fmt::Write as _;

use super::tables::{TABLES, default_keys};
use crate::tui::keymap::{Keymap, name};
use crate::tui::keys::{Action, Key};

/// A `keys.toml` listing every action with the keys in force under `keymap` (the defaults
/// for `Keymap::default()`); `place` says where the file goes.
pub fn render(keymap: &Keymap, place: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# ethics-bowl's keys. Save as {place} and uncomment what you change."
    );
    out.push_str(
        "# A key is one character (\"r\", \"]\", \"?\"), a name (enter, esc, tab, backspace, \
         delete,\n# insert, home, end, pgup, pgdn, up, down, left, right, space, f1 to f12), \
         or ctrl- or\n# shift- before one (\"ctrl-u\", \"shift-tab\"); a list gives several \
         ([\"q\", \"ctrl-q\"]).\n# A rebound action's keys replace its defaults on every screen \
         it works on, and the help\n# (?) and the footer show them. Two actions on one key \
         where both work, or a character\n# where it is typed as text, are refused.\n",
    );
    for action in Action::ALL {
        let Some(keys) = TABLES
            .iter()
            .map(|t| default_keys(t, action))
            .find(|keys| !keys.is_empty())
        else {
            continue;
        };
        let _ = writeln!(out, "\n# {}", action.describe());
        // Where a screen gives the action other keys of its own, rebinding replaces them.
        for table in TABLES {
            let there = default_keys(table, action);
            if !there.is_empty() && there != keys {
                let _ = writeln!(out, "# (by default {} in {})", names(&there), table.name);
            }
        }
        match keymap.keys_of(action) {
            Some(own) => {
                let _ = writeln!(out, "{} = {}", action.name(), value(own));
            }
            None => {
                let _ = writeln!(out, "# {} = {}", action.name(), value(&keys));
            }
        }
    }
    out
}

/// Keys as a TOML value: one string, or a list.
fn value(keys: &[Key]) -> String {
    let quoted: Vec<String> = keys
        .iter()
        .map(|k| toml::Value::String(name::toml_name(*k)).to_string())
        .collect();
    match quoted.as_slice() {
        [one] => one.clone(),
        _ => format!("[{}]", quoted.join(", ")),
    }
}

/// Keys as `keys.toml` writes them, for a comment ("down, enter").
fn names(keys: &[Key]) -> String {
    keys.iter()
        .map(|k| name::toml_name(*k))
        .collect::<Vec<_>>()
        .join(", ")
}
