//! Untrusted text (anything a model wrote) made safe for a terminal: escape sequences
//! (CSI, OSC, DCS and the rest), control characters (C0 and C1) and the bidirectional
//! overrides and isolates (U+202A–U+202E, U+2066–U+2069, which can make text display in
//! an order other than the one it has) are dropped; newlines and tabs stay.
//!
//! Written here rather than taken from a crate because answers arrive as stream deltas, so a
//! sequence may be split across two pieces: the state must carry over between calls, and C1
//! controls (U+0080–U+009F, e.g. a one-character CSI) must go too.

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
            self.state = match (self.state, c) {
                (State::Text, '\u{1b}') => State::Escape,
                (State::Text, '\u{9b}') => State::Csi,
                (State::Text, '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}') => State::Str,
                (State::Text, c) => {
                    if c == '\n' || c == '\t' || !(c.is_control() || is_bidi_control(c)) {
                        out.push(c);
                    }
                    State::Text
                }
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
        }
        out
    }
}

/// Embedding, override and isolate controls: they reorder how the text around them is
/// shown.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Filters a whole text at once.
pub fn sanitize(input: &str) -> String {
    Sanitizer::new().push(input)
}

#[cfg(test)]
mod tests {
    use super::*;
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
            prop_assert!(out.chars().all(|c| c == '\n' || c == '\t' || !(c.is_control() || is_bidi_control(c))));
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
