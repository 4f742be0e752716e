//! Untrusted text (anything a model wrote) made safe for a terminal: escape sequences
//! (CSI, OSC, DCS and the rest), control characters and bidirectional-text controls (which
//! can make a line display in another order than it reads) are dropped; newlines and tabs
//! stay.
//!
//! Written here rather than taken from a crate because answers arrive as stream deltas, so a
//! sequence may be split across two pieces: the state must carry over between calls, and C1
//! controls (U+0080–U+009F, e.g. a one-character CSI) must go too. [`sanitized`] does the
//! same to every string of a whole value (a stored round), so nothing a model wrote is
//! missed when a field is added.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Where the filter is inside an escape sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum State {
    #[default]
    Text,
    /// After ESC.
    Escape,
    /// Inside `ESC [` … final byte.
    Csi,
    /// Inside a string sequence (OSC, DCS, SOS, PM, APC) until BEL or ST.
    Str,
    /// After ESC inside a string sequence (ST is `ESC \`).
    StrEscape,
}

/// A stateful filter for one stream of model text.
#[derive(Debug, Clone, Default)]
pub struct Sanitizer {
    state: State,
}

impl Sanitizer {
    /// A filter at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Filters the next piece of the stream.
    pub fn push(&mut self, input: &str) -> String {
        let mut out = String::with_capacity(input.len());
        for c in input.chars() {
            let (state, keep) = advance(self.state, c);
            self.state = state;
            if keep {
                out.push(c);
            }
        }
        out
    }
}

/// The filter's next state after `c`, and whether `c` is kept.
fn advance(state: State, c: char) -> (State, bool) {
    let next = match (state, c) {
        (State::Text, '\u{1b}') => State::Escape,
        (State::Text, '\u{9b}') => State::Csi,
        (State::Text, '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}') => State::Str,
        (State::Text, c) => return (State::Text, kept(c)),
        (State::Escape, '[') => State::Csi,
        (State::Escape, ']' | 'P' | 'X' | '^' | '_') => State::Str,
        // Intermediate bytes of a two- or three-byte escape (e.g. `ESC ( B`).
        (State::Escape, '\u{20}'..='\u{2f}') => State::Escape,
        (State::Escape, _) => State::Text,
        (State::Csi, '\u{40}'..='\u{7e}') => State::Text,
        (State::Csi, _) => State::Csi,
        (State::Str, '\u{7}' | '\u{9c}') => State::Text,
        (State::Str, '\u{1b}') => State::StrEscape,
        (State::Str, _) => State::Str,
        (State::StrEscape, '\\') => State::Text,
        (State::StrEscape, _) => State::Str,
    };
    (next, false)
}

/// How many bytes at the start of `text` the filter removes whole (control characters,
/// bidirectional controls, escape sequences) before the first character it keeps; `None`
/// when `text` ends inside an escape sequence, so that what follows decides. A run longer
/// than `limit` bytes counts as none. The redactor looks through such runs inside a key,
/// since removing them would join the key up again.
pub(crate) fn dropped_prefix(text: &str, limit: usize) -> Option<usize> {
    let mut state = State::Text;
    for (at, c) in text.char_indices() {
        if at > limit {
            return Some(0);
        }
        let (next, keep) = advance(state, c);
        if keep {
            return Some(at);
        }
        state = next;
    }
    if text.len() > limit {
        return Some(0);
    }
    (state == State::Text).then_some(text.len())
}

/// Whether the filter removes this character wherever it stands outside an escape sequence.
pub(crate) fn drops(c: char) -> bool {
    !kept(c)
}

/// Whether `text` holds a character the filter removes: a byte search for the bytes such
/// characters start with (C0 controls but newline and tab, DEL, C1 controls after 0xC2, and
/// the bidi controls after 0xD8 and 0xE2, see [`is_bidi_control`]), confirmed by characters
/// only when one is there. Kept beside [`kept`], which it must agree with.
pub(crate) fn holds_dropped(text: &str) -> bool {
    text.bytes()
        .any(|b| matches!(b, 0x00..=0x08 | 0x0b..=0x1f | 0x7f | 0xc2 | 0xd8 | 0xe2))
        && text.chars().any(drops)
}

/// The characters that change the display order of text around them (embeddings,
/// overrides, isolates and the directional marks).
fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
    )
}

/// Whether a character outside an escape sequence is kept.
fn kept(c: char) -> bool {
    c == '\n' || c == '\t' || !(c.is_control() || is_bidi_control(c))
}

/// Whether a text holds nothing the filter would drop.
fn is_clean(input: &str) -> bool {
    input.chars().all(kept)
}

/// Filters a whole text at once.
pub fn sanitize(input: &str) -> String {
    Sanitizer::new().push(input)
}

/// Sanitises every string in a JSON value (map keys too); true when one changed.
fn sanitize_value(value: &mut Value) -> bool {
    match value {
        Value::String(s) if !is_clean(s) => {
            *s = sanitize(s);
            true
        }
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |changed, v| sanitize_value(v) | changed),
        Value::Object(map) => {
            let mut changed = map
                .values_mut()
                .fold(false, |changed, v| sanitize_value(v) | changed);
            if map.keys().any(|k| !is_clean(k)) {
                *map = std::mem::take(map)
                    .into_iter()
                    .map(|(k, v)| (sanitize(&k), v))
                    .collect();
                changed = true;
            }
            changed
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => false,
    }
}

/// `value` with every string in it sanitised, walked through its serde form so that every
/// field, including ones added later, is covered; `None` when nothing needed it (the caller
/// keeps the value it has).
pub fn sanitized<T: Serialize + DeserializeOwned>(
    value: &T,
) -> Result<Option<T>, serde_json::Error> {
    let mut tree = serde_json::to_value(value)?;
    if sanitize_value(&mut tree) {
        serde_json::from_value(tree).map(Some)
    } else {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_byte_search_agrees_with_the_characters_dropped() {
        for c in (0..=0x3000u32).filter_map(char::from_u32) {
            assert_eq!(holds_dropped(&format!("a{c}b")), drops(c), "{c:?}");
        }
    }
    use proptest::prelude::*;

    #[test]
    fn hostile_sequences_become_harmless_text() {
        assert_eq!(sanitize("\u{1b}]0;pwned\u{7}\u{1b}[2Jhello"), "hello");
        assert_eq!(sanitize("a\u{1b}[31mred\u{1b}[0m b"), "ared b");
        assert_eq!(sanitize("x\u{1b}P1;2|data\u{1b}\\y"), "xy");
        assert_eq!(sanitize("tab\there\nline\r\u{8}\u{0}"), "tab\there\nline");
        assert_eq!(sanitize("c1\u{9b}2Jcsi"), "c1csi");
        assert_eq!(sanitize("\u{1b}(Bcharset"), "charset");
        assert_eq!(
            sanitize("abc\u{202e}fed\u{202c} \u{2066}x\u{2069}"),
            "abcfed x"
        );
        assert_eq!(
            sanitize("smart \u{201c}quotes\u{201d} stay"),
            "smart \u{201c}quotes\u{201d} stay"
        );
    }

    #[test]
    fn bidirectional_controls_are_dropped() {
        assert_eq!(
            sanitize("admin\u{202e}txt.exe\u{2066}x\u{2069}\u{200f}"),
            "admintxt.exex"
        );
    }

    #[test]
    fn every_string_of_a_value_is_sanitised_keys_included() {
        let mut map = std::collections::BTreeMap::new();
        map.insert("key\u{1b}[31m".to_string(), vec!["a\u{202e}b".to_string()]);
        map.insert("plain".to_string(), vec!["fine".to_string()]);
        let clean = sanitized(&map).unwrap().expect("changed");
        assert_eq!(clean["key"], ["ab"]);
        assert_eq!(clean["plain"], ["fine"]);
        assert!(sanitized(&clean).unwrap().is_none(), "clean stays as it is");
    }

    #[test]
    fn sequences_split_across_pieces_are_still_removed() {
        let mut s = Sanitizer::new();
        let out: String = ["ok \u{1b}", "]0;pw", "ned\u{7}", "\u{1b}[", "2J", " done"]
            .iter()
            .map(|p| s.push(p))
            .collect();
        assert_eq!(out, "ok  done");
    }

    proptest! {
        #[test]
        fn output_never_holds_escapes_or_controls(input in any::<String>()) {
            let out = sanitize(&input);
            prop_assert!(is_clean(&out));
        }

        #[test]
        fn splitting_does_not_change_the_result(input in any::<String>(), cut in any::<prop::sample::Index>()) {
            let chars: Vec<char> = input.chars().collect();
            let at = if chars.is_empty() { 0 } else { cut.index(chars.len()) };
            let (a, b): (String, String) = (chars[..at].iter().collect(), chars[at..].iter().collect());
            let mut s = Sanitizer::new();
            let joined = s.push(&a) + &s.push(&b);
            prop_assert_eq!(joined, sanitize(&input));
        }
    }
}
