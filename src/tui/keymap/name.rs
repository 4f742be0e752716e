//! Keys as people write them: `keys.toml`'s syntax ("ctrl-u", "shift-tab", "pgdn", "f1",
//! one character), read into a [`Key`] and written back, and a key as the help shows it.

use crossterm::event::KeyCode;

use crate::tui::keys::Key;

/// The named keys: how `keys.toml` writes each (first name; the others are read too) and
/// how the help shows it.
const NAMED: &[(&[&str], KeyCode, &str)] = &[
    (&["enter", "return"], KeyCode::Enter, "Enter"),
    (&["esc", "escape"], KeyCode::Esc, "Esc"),
    (&["tab"], KeyCode::Tab, "Tab"),
    (&["shift-tab", "backtab"], KeyCode::BackTab, "Shift-Tab"),
    (&["backspace"], KeyCode::Backspace, "Backspace"),
    (&["delete", "del"], KeyCode::Delete, "Delete"),
    (&["insert", "ins"], KeyCode::Insert, "Insert"),
    (&["home"], KeyCode::Home, "Home"),
    (&["end"], KeyCode::End, "End"),
    (&["pgup", "pageup"], KeyCode::PageUp, "PgUp"),
    (&["pgdn", "pagedown"], KeyCode::PageDown, "PgDn"),
    (&["up"], KeyCode::Up, "↑"),
    (&["down"], KeyCode::Down, "↓"),
    (&["left"], KeyCode::Left, "←"),
    (&["right"], KeyCode::Right, "→"),
    (&["space"], KeyCode::Char(' '), "Space"),
];

/// What a key may be, for error messages.
pub const SYNTAX: &str = "one character (\"r\", \"]\"), a name (enter, esc, tab, backspace, \
                          delete, insert, home, end, pgup, pgdn, up, down, left, right, space, \
                          f1 to f12), or ctrl- or shift- before one (\"ctrl-u\", \"shift-tab\")";

/// Reads a key as `keys.toml` writes it; the error says what is wrong.
pub fn parse(text: &str) -> Result<Key, String> {
    let lower = text.to_ascii_lowercase();
    if let Some(code) = one_char(text) {
        return Ok(Key::new(code, false));
    }
    if let Some(code) = named(&lower) {
        return Ok(Key::new(code, false));
    }
    if let Some(rest) = strip_prefix(text, "ctrl-") {
        let code = one_char(rest)
            .map(|c| match c {
                KeyCode::Char(c) => KeyCode::Char(c.to_ascii_lowercase()),
                other => other,
            })
            .or_else(|| named(&rest.to_ascii_lowercase()))
            .ok_or_else(|| format!("{text:?} is not a key: after ctrl- write {SYNTAX}"))?;
        return Ok(Key::new(code, true));
    }
    if let Some(rest) = strip_prefix(text, "shift-") {
        return match one_char(rest) {
            Some(KeyCode::Char(c)) if c.is_alphabetic() => {
                let upper: Vec<char> = c.to_uppercase().collect();
                match upper.as_slice() {
                    [u] => Ok(Key::new(KeyCode::Char(*u), false)),
                    _ => Err(format!("{text:?}: write the capital letter itself")),
                }
            }
            _ => Err(format!(
                "{text:?}: Shift goes only with tab or a letter; write the character Shift \
                 types itself (\"?\", \"R\")"
            )),
        };
    }
    if ["alt-", "meta-", "super-", "cmd-"]
        .iter()
        .any(|m| lower.starts_with(m))
    {
        return Err(format!(
            "{text:?}: only Ctrl and Shift are read; write {SYNTAX}"
        ));
    }
    Err(format!("{text:?} is not a key: write {SYNTAX}"))
}

/// A key as `keys.toml` writes it (what [`parse`] reads back).
pub fn toml_name(key: Key) -> String {
    let base = match key.code() {
        KeyCode::Char(c) if c != ' ' => c.to_string(),
        KeyCode::F(n) => format!("f{n}"),
        code => NAMED
            .iter()
            .find(|(_, c, _)| *c == code)
            .and_then(|(names, _, _)| names.first())
            .map_or_else(|| format!("{code:?}").to_lowercase(), |n| (*n).to_string()),
    };
    if key.with_ctrl() {
        format!("ctrl-{base}")
    } else {
        base
    }
}

/// A key as the help and the footer show it ("Ctrl-S", "Enter", "↑", "r").
pub fn display(key: Key) -> String {
    let base = match key.code() {
        KeyCode::Char(c) if c != ' ' && key.with_ctrl() => c.to_uppercase().to_string(),
        KeyCode::Char(c) if c != ' ' => c.to_string(),
        KeyCode::F(n) => format!("F{n}"),
        code => NAMED
            .iter()
            .find(|(_, c, _)| *c == code)
            .map_or_else(|| format!("{code:?}"), |(_, _, shown)| (*shown).to_string()),
    };
    if key.with_ctrl() {
        format!("Ctrl-{base}")
    } else {
        base
    }
}

/// A footer's words after the keys it starts with ("r retry" → "retry", "↑↓ PgUp PgDn
/// scroll" → "scroll", "n/N next/prev hit" → "next/prev hit").
pub fn words_after_keys(footer: &str) -> &str {
    let mut rest = footer.trim_start();
    while let Some(token) = rest.split_whitespace().next() {
        if !names_keys(token) {
            break;
        }
        rest = rest[token.len()..].trim_start();
    }
    rest
}

/// Whether a footer's word names keys rather than what they do: one character or
/// symbols ("?", "↑↓"), a key's name ("Tab", "Ctrl-S"), or such joined by `/`.
fn names_keys(token: &str) -> bool {
    const WORDS: &[&str] = &[
        "Tab",
        "Esc",
        "Enter",
        "PgUp",
        "PgDn",
        "Home",
        "End",
        "Backspace",
        "arrows",
        "hjkl",
    ];
    token.split('/').all(|part| {
        part.chars().count() == 1
            || !part.chars().any(char::is_alphanumeric)
            || WORDS.contains(&part)
            || part.starts_with("Ctrl-")
            || part.starts_with("Shift-")
    })
}

/// The key code of a text of exactly one (printable) character.
fn one_char(text: &str) -> Option<KeyCode> {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if !c.is_control() => Some(KeyCode::Char(c)),
        _ => None,
    }
}

/// The key called `lower` (lower case), named or F1 to F12.
fn named(lower: &str) -> Option<KeyCode> {
    if let Some(n) = lower.strip_prefix('f').and_then(|n| n.parse::<u8>().ok())
        && (1..=12).contains(&n)
    {
        return Some(KeyCode::F(n));
    }
    NAMED
        .iter()
        .find(|(names, _, _)| names.contains(&lower))
        .map(|(_, code, _)| *code)
}

/// `text` after `prefix`, ignoring the prefix's case.
fn strip_prefix<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
        .filter(|rest| !rest.is_empty())
}
