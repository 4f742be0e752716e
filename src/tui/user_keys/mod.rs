//! Reading a `keys.toml`: a table of action names (`retry = "r"`, `quit = ["q", "ctrl-c"]`)
//! to one key or a list, checked whole before the UI starts. Every mistake is an error
//! naming the file, the entry and its line: an unknown action, a key that cannot be read, an
//! action left with no key, two actions on one key where both are read, a character bound
//! where it is text.

use std::collections::BTreeMap;
use std::path::Path;

use toml::Spanned;

pub mod tables;
pub mod template;

use tables::{TABLES, Table, Typing};

use super::keymap::{Keymap, name};
use crate::config::ConfigError;
use crate::tui::keys::{Action, GLOBAL, Key, ctrl};

/// Reads and checks the keys file at `path`.
pub fn load(path: &Path) -> Result<Keymap, ConfigError> {
    let bytes = std::fs::read(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let text = String::from_utf8(bytes).map_err(|e| ConfigError::NotUtf8 {
        path: path.to_path_buf(),
        byte: e.utf8_error().valid_up_to(),
    })?;
    parse(&text, path)
}

/// Reads and checks a keys file's text; `path` names it in errors.
pub fn parse(text: &str, path: &Path) -> Result<Keymap, ConfigError> {
    let entries: BTreeMap<Spanned<String>, Spanned<toml::Value>> =
        toml::from_str(text).map_err(|e| ConfigError::Syntax {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
    let mut entries: Vec<_> = entries.into_iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    let error = |entry: &Spanned<String>, message: String, fix: String| ConfigError::Key {
        path: path.to_path_buf(),
        key: entry.get_ref().clone(),
        message,
        context: format!("line {}", line_of(text, entry.span().start)),
        fix,
    };
    let mut keymap = Keymap::default();
    // Where each rebound action is written, for the errors of the checks after.
    let mut lines: Vec<(Action, &Spanned<String>)> = Vec::new();
    for (entry, value) in &entries {
        let Some(action) = Action::named(entry.get_ref()) else {
            return Err(error(
                entry,
                "no action has this name".into(),
                unknown_fix(entry),
            ));
        };
        let texts = key_texts(value.get_ref()).ok_or_else(|| {
            error(
                entry,
                "expected a key (\"r\") or a list of keys ([\"q\", \"ctrl-c\"])".into(),
                format!("write {}", name::SYNTAX),
            )
        })?;
        let mut keys: Vec<Key> = Vec::new();
        for t in texts {
            let key = name::parse(t).map_err(|m| {
                error(
                    entry,
                    m,
                    "`ethics-bowl keys` shows every action's keys".into(),
                )
            })?;
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        if keys.is_empty() {
            return Err(error(
                entry,
                format!("no key left for {}: it could not be reached", action.name()),
                "give it at least one key (`ethics-bowl keys` shows its default)".into(),
            ));
        }
        keymap.rebind(action, keys);
        lines.push((action, entry));
    }
    let entry_of = |action: Action| lines.iter().find(|(a, _)| *a == action).map(|(_, e)| *e);
    for table in TABLES {
        if let Some((key, action, clash)) = clash(&keymap, table) {
            // One of the two is rebound (the defaults never clash): its line is named, and
            // it is named first.
            let (action, clash) = match clash {
                Clash::Action(other) if entry_of(action).is_none() => {
                    (other, Clash::Action(action))
                }
                _ => (action, clash),
            };
            let Some(entry) = entry_of(action) else {
                continue;
            };
            let key = name::toml_name(key);
            let (message, fix) = match clash {
                Clash::Action(other) => (
                    format!(
                        "{key} would both {} and {} in {}",
                        action.name(),
                        other.name(),
                        table.name
                    ),
                    "bind one of them to another key".to_string(),
                ),
                Clash::Text(what) => (
                    format!(
                        "{key} {what} in {}, so {} cannot have it",
                        table.name,
                        action.name()
                    ),
                    "bind it to a named key or a ctrl- key (\"ctrl-s\", \"f2\")".to_string(),
                ),
            };
            return Err(error(entry, message, fix));
        }
    }
    Ok(keymap)
}

/// Why a key cannot do what it is bound to.
#[derive(Debug, Clone, Copy)]
enum Clash {
    /// The key does this other action there too.
    Action(Action),
    /// The key is text there ("is typed as text").
    Text(&'static str),
}

/// The first key that does two things in `table` (with what is read beside it), or that
/// is bound where it is text.
fn clash(keymap: &Keymap, table: &Table) -> Option<(Key, Action, Clash)> {
    let mut keys: Vec<(Key, Action)> = table.rows.iter().flat_map(|b| keymap.row_keys(b)).collect();
    // Ctrl-C's force quit is read before every table; the global keys beside most.
    let beside = GLOBAL.iter().flat_map(|b| keymap.row_keys(b));
    if table.global {
        keys.extend(beside);
    } else {
        keys.extend(beside.filter(|(_, a)| *a == Action::ForceQuit));
    }
    for (i, (key, action)) in keys.iter().enumerate() {
        if let Some((_, other)) = keys[i + 1..].iter().find(|(k, a)| k == key && a != action) {
            return Some((*key, *action, Clash::Action(*other)));
        }
        if let Some(what) = text_use(table, *key) {
            return Some((*key, *action, Clash::Text(what)));
        }
    }
    None
}

/// What a key does in `table` as text, if it is text there: a character typed (the force
/// quit, read before the text, counts too), or Ctrl-U and Ctrl-W erasing in a prompt.
fn text_use(table: &Table, key: Key) -> Option<&'static str> {
    if let crossterm::event::KeyCode::Char(c) = key.code()
        && !key.with_ctrl()
    {
        let typed = match table.typing {
            Typing::No => false,
            Typing::Text => true,
            Typing::Digits => c.is_ascii_digit() || c == '.',
        };
        if typed {
            return Some("is typed as text");
        }
    }
    (table.prompt && (key == ctrl('u') || key == ctrl('w'))).then_some("erases text")
}

/// The values of an entry as key texts: one string or a list of strings.
fn key_texts(value: &toml::Value) -> Option<Vec<&str>> {
    match value {
        toml::Value::String(s) => Some(vec![s.as_str()]),
        toml::Value::Array(items) => items.iter().map(toml::Value::as_str).collect(),
        _ => None,
    }
}

/// What to do about an unknown action: the nearest name, if one is near.
fn unknown_fix(entry: &Spanned<String>) -> String {
    let near = Action::ALL
        .iter()
        .map(|a| (strsim::levenshtein(a.name(), entry.get_ref()), a.name()))
        .min()
        .filter(|(d, _)| *d <= 3);
    match near {
        Some((_, name)) => format!("did you mean {name}? `ethics-bowl keys` lists every action"),
        None => "`ethics-bowl keys` lists every action".into(),
    }
}

/// The line (from 1) of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset).map_or(0, |t| t.matches('\n').count()) + 1
}

#[cfg(test)]
mod tests;
