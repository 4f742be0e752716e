//! Secrets the tool loaded (the API keys read from the variables that `models.toml` names)
//! removed from text before it is stored, logged or printed: a gateway that quotes
//! `Authorization: Bearer sk-…` back in an error body ends up as
//! `Authorization: Bearer [redacted OPENAI_API_KEY]` in round files, logs and messages.
//!
//! Matching is by value, not by shape, so a key of any form is caught. One rule guards
//! against values so short that replacing them would garble ordinary text:
//! - 12 characters or more: every occurrence is replaced;
//! - 4 to 11 characters: replaced where no letter or digit touches it (`Bearer hunter2`,
//!   `req-hunter2`), not inside a longer word (`hunter22`), so that a key such as `test`
//!   leaves the word `testing` alone;
//! - 1 to 3 characters (placeholders such as `x` for local servers that want some key):
//!   never replaced; such a value guards nothing, and replacing every `x` would ruin the text.
//!
//! A key is found in every form a reader could turn back into it (JSON escapes, HTML
//! references, percent-encoding, and with what sanitising removes between its characters;
//! see [`forms`]), since what the tool stores and prints is decoded, escaped and sanitised
//! on its way to people.
//!
//! The provider layer builds one [`Redactor`] from the keys it loads and applies it where
//! each attempt's result and error are made, so every later copy is clean. The keys are also
//! [`remember`]ed for the whole process, and applied again wherever text is transformed into
//! something a key could reappear in: every string decoded from a model's JSON
//! (`protocols::lenient_json`), every string of every JSON the tool writes
//! (`safe_json`: round files, records, `--json`), every Markdown, HTML and CSV escaping of
//! untrusted text, and the log writer.

mod forms;
mod value;

use std::borrow::Cow;
use std::sync::{Arc, LazyLock, PoisonError, RwLock};

/// Values shorter than this (in characters) are never replaced.
const MIN_CHARS: usize = 4;
/// Values at least this long (in characters) are replaced wherever they occur; shorter ones
/// only where they stand alone.
const ANYWHERE_CHARS: usize = 12;

/// One secret: the variable it came from (named in the replacement) and its value.
#[derive(Clone, PartialEq, Eq)]
struct Secret {
    name: String,
    value: String,
    /// Only replaced where no word character touches it.
    standalone_only: bool,
}

impl Secret {
    fn replacement(&self) -> String {
        format!("[redacted {}]", self.name)
    }
}

/// Replaces known secret values in text. Cheap to clone; its `Debug` shows only the
/// variables' names.
#[derive(Clone, Default)]
pub struct Redactor {
    /// Longest value first, so that a key that starts with another key is replaced whole.
    secrets: Arc<[Secret]>,
    /// By byte: whether a written form of a secret can start with it (a secret's first
    /// byte, or `\`, `&`, `%`), so that the scan jumps over the text between such bytes
    /// (256 entries; empty when there are no secrets).
    starts: Arc<[bool]>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.secrets.iter().map(|s| &s.name))
            .finish()
    }
}

/// What the scanner does at one position of the text.
enum Step<'a> {
    /// No secret starts here: keep this character.
    Keep(char),
    /// This secret, written in this many bytes, starts here: replace it.
    Replace(&'a Secret, usize),
    /// A secret may start here, but the text so far ends too soon to tell.
    Wait,
}

/// Characters that make a short value part of a longer word when they touch it.
fn is_word(c: char) -> bool {
    c.is_alphanumeric()
}

impl Redactor {
    /// A redactor for `(variable name, value)` pairs. Values are trimmed; values of fewer
    /// than four characters are left out (see the module's rule), and a value given twice
    /// keeps its first name.
    pub fn new<'a>(secrets: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut list: Vec<Secret> = Vec::new();
        for (name, value) in secrets {
            let value = value.trim();
            let chars = value.chars().count();
            if chars < MIN_CHARS || list.iter().any(|s| s.value == value) {
                continue;
            }
            list.push(Secret {
                name: name.to_string(),
                value: value.to_string(),
                standalone_only: chars < ANYWHERE_CHARS,
            });
        }
        Self::from_list(list)
    }

    fn from_list(mut list: Vec<Secret>) -> Self {
        list.sort_by_key(|s| std::cmp::Reverse(s.value.len()));
        let mut starts = vec![false; 256];
        if !list.is_empty() {
            for b in [b'\\', b'&', b'%'] {
                starts[usize::from(b)] = true;
            }
            for secret in &list {
                if let Some(&b) = secret.value.as_bytes().first() {
                    starts[usize::from(b)] = true;
                }
            }
        }
        Self {
            secrets: list.into(),
            starts: starts.into(),
        }
    }

    /// The first byte at or after `from` where a written form of a secret may start (see
    /// `forms::written_at`: the secret's own first character, or an escape, reference or
    /// percent sign), or the end. A lead byte of a character is never a continuation byte,
    /// so the position found is a character boundary.
    fn next_start(&self, text: &str, from: usize) -> usize {
        text.as_bytes()[from..]
            .iter()
            .position(|&b| self.starts.get(usize::from(b)).copied().unwrap_or(true))
            .map_or(text.len(), |i| from + i)
    }

    /// True when there is nothing to replace.
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// Both redactors' secrets in one.
    pub fn merged(&self, other: &Redactor) -> Redactor {
        let mut list = self.secrets.to_vec();
        for s in other.secrets.iter() {
            if !list.iter().any(|t| t.value == s.value) {
                list.push(s.clone());
            }
        }
        Self::from_list(list)
    }

    /// The text with every secret replaced, in whatever form it is written; borrowed when
    /// there was none.
    pub fn redact<'t>(&self, text: &'t str) -> Cow<'t, str> {
        if !self.may_hold_secret(text) {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        self.scan(text, None, true, &mut out);
        if out == text {
            Cow::Borrowed(text)
        } else {
            Cow::Owned(out)
        }
    }

    /// A quick test that lets most texts through unscanned: a secret can only be there when
    /// its value is, or something that writes a character another way (`\`, `&`, `%`), or
    /// a character that sanitising removes.
    fn may_hold_secret(&self, text: &str) -> bool {
        if self.is_empty() {
            return false;
        }
        let bytes = text.as_bytes();
        // Byte searches for the common case (every string of a round file is tested at
        // each write): an escape, a reference or a percent sign; a secret as it is; or a
        // character that sanitising removes.
        memchr::memchr3(b'\\', b'&', b'%', bytes).is_some()
            || self
                .secrets
                .iter()
                .any(|s| memchr::memmem::find(bytes, s.value.as_bytes()).is_some())
            || crate::sanitize::holds_dropped(text)
    }

    /// [`Redactor::redact`] for an owned string.
    pub fn redact_string(&self, text: String) -> String {
        match self.redact(&text) {
            Cow::Borrowed(_) => text,
            Cow::Owned(clean) => clean,
        }
    }

    /// A filter for one stream of text arriving in pieces.
    pub fn stream(&self) -> StreamRedactor {
        StreamRedactor {
            redactor: self.clone(),
            pending: String::new(),
            prev: None,
        }
    }

    /// Decides what happens at the start of `rest`; `prev` is the character before it, and
    /// `at_end` says that no more text follows.
    fn step(&self, rest: &str, prev: Option<char>, at_end: bool) -> Step<'_> {
        for secret in self.secrets.iter() {
            if secret.standalone_only && prev.is_some_and(is_word) {
                continue;
            }
            let (ends, partial) = forms::written_at(&secret.value, rest);
            if partial && !at_end {
                // More text could still make (or lengthen) a form of this secret.
                return Step::Wait;
            }
            // The longest form first (`&#115;` rather than `&#115`).
            for &end in ends.iter().rev() {
                match rest[end..].chars().next() {
                    Some(next) if secret.standalone_only && is_word(next) => continue,
                    None if secret.standalone_only && !at_end => return Step::Wait,
                    _ => return Step::Replace(secret, end),
                }
            }
        }
        match rest.chars().next() {
            Some(c) => Step::Keep(c),
            None => Step::Wait,
        }
    }

    /// Writes the redacted form of `text` to `out`, stopping where the rest could still turn
    /// out to be a secret (never when `at_end`). Returns the bytes consumed and the last
    /// character consumed.
    fn scan(
        &self,
        text: &str,
        mut prev: Option<char>,
        at_end: bool,
        out: &mut String,
    ) -> (usize, Option<char>) {
        let mut at = 0;
        while at < text.len() {
            // Text where no form can start is kept as it is, in one piece.
            let next = self.next_start(text, at);
            if next > at {
                let kept = &text[at..next];
                out.push_str(kept);
                prev = kept.chars().next_back();
                at = next;
                continue;
            }
            match self.step(&text[at..], prev, at_end) {
                Step::Keep(c) => {
                    out.push(c);
                    prev = Some(c);
                    at += c.len_utf8();
                }
                Step::Replace(secret, len) => {
                    out.push_str(&secret.replacement());
                    prev = secret.value.chars().last();
                    at += len;
                }
                Step::Wait => break,
            }
        }
        (at, prev)
    }
}

/// A [`Redactor`] over text that arrives in pieces (a streamed answer): a secret split
/// across two pieces is still replaced. Only a tail that could still become a secret is
/// held back, so ordinary text passes through at once. The pieces it returns, joined, equal
/// [`Redactor::redact`] of the whole text.
#[derive(Debug)]
pub struct StreamRedactor {
    redactor: Redactor,
    pending: String,
    prev: Option<char>,
}

impl StreamRedactor {
    /// Takes the next piece; returns the text that is now safe to pass on.
    pub fn push(&mut self, piece: &str) -> String {
        if self.redactor.is_empty() {
            return piece.to_string();
        }
        self.pending.push_str(piece);
        let mut out = String::with_capacity(self.pending.len());
        let (used, prev) = self
            .redactor
            .scan(&self.pending, self.prev, false, &mut out);
        self.pending.drain(..used);
        self.prev = prev;
        out
    }

    /// The stream is over: returns what was held back, redacted.
    pub fn finish(&mut self) -> String {
        let mut out = String::with_capacity(self.pending.len());
        let (used, prev) = self.redactor.scan(&self.pending, self.prev, true, &mut out);
        self.pending.drain(..used);
        self.prev = prev;
        out
    }
}

/// Every secret loaded so far in this process.
static LOADED: LazyLock<RwLock<Redactor>> = LazyLock::new(Default::default);

/// Adds a redactor's secrets to those the whole process knows (see [`remembered`]).
pub fn remember(redactor: &Redactor) {
    if redactor.is_empty() {
        return;
    }
    let mut loaded = LOADED.write().unwrap_or_else(PoisonError::into_inner);
    *loaded = loaded.merged(redactor);
}

/// Remembers the values of these environment variables (those set), named by them: for a
/// command that reads stored results without calling a model, so that what it shows is
/// redacted with the keys the results' models use (see `Store`'s readers).
pub fn remember_env<'a>(vars: impl IntoIterator<Item = &'a str>) {
    let keys: Vec<(&str, String)> = vars
        .into_iter()
        .filter_map(|var| std::env::var(var).ok().map(|value| (var, value)))
        .collect();
    remember(&Redactor::new(
        keys.iter().map(|(var, value)| (*var, value.as_str())),
    ));
}

/// Every secret [`remember`]ed so far: for places that print text but never see the
/// provider layer's own redactor, such as the log writer.
pub fn remembered() -> Redactor {
    LOADED
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const LONG: &str = "sk-proj-ABCDEFGHIJKLMNOP0123456789";

    fn redactor() -> Redactor {
        Redactor::new([("OPENAI_API_KEY", LONG), ("LOCAL_KEY", "hunter2")])
    }

    #[test]
    fn long_keys_go_wherever_they_are() {
        let r = redactor();
        let body = format!(
            r#"{{"error":"bad key","headers":{{"authorization":"Bearer {LONG}"}},"id":"req-{LONG}x"}}"#
        );
        let clean = r.redact(&body);
        assert!(!clean.contains(LONG), "{clean}");
        assert_eq!(
            clean,
            r#"{"error":"bad key","headers":{"authorization":"Bearer [redacted OPENAI_API_KEY]"},"id":"req-[redacted OPENAI_API_KEY]x"}"#
        );
    }

    #[test]
    fn short_keys_go_only_where_they_stand_alone() {
        let r = redactor();
        assert_eq!(
            r.redact("x-api-key: hunter2\r\nBearer hunter2. req-hunter2_x"),
            "x-api-key: [redacted LOCAL_KEY]\r\nBearer [redacted LOCAL_KEY]. req-[redacted LOCAL_KEY]_x"
        );
        assert_eq!(r.redact("hunter22 and xhunter2"), "hunter22 and xhunter2");
        assert!(matches!(r.redact("nothing here"), Cow::Borrowed(_)));
    }

    #[test]
    fn tiny_values_are_never_replaced() {
        let r = Redactor::new([("A", "x"), ("B", "abc"), ("C", "   ")]);
        assert!(r.is_empty());
        assert_eq!(r.redact("x abc"), "x abc");
        assert_eq!(format!("{r:?}"), "[]");
    }

    #[test]
    fn a_key_that_begins_another_leaves_no_tail() {
        let r = Redactor::new([("SHORT", "abcdefghijklmn"), ("LONG", "abcdefghijklmnopq")]);
        assert_eq!(r.redact("abcdefghijklmnopq"), "[redacted LONG]");
        let mut s = r.stream();
        let out = s.push("abcdefghijklmn") + &s.push("opq") + &s.finish();
        assert_eq!(out, "[redacted LONG]");
    }

    #[test]
    fn a_key_split_across_pieces_is_replaced_and_other_text_is_not_held() {
        let r = redactor();
        let mut s = r.stream();
        assert_eq!(s.push("Hello "), "Hello ");
        assert_eq!(s.push(&LONG[..5]), "");
        assert_eq!(s.push(&LONG[5..]), "[redacted OPENAI_API_KEY]");
        assert_eq!(s.push(" and hunter2"), " and ");
        assert_eq!(s.push("!"), "[redacted LOCAL_KEY]!");
        assert_eq!(s.push(" sk-"), " ");
        assert_eq!(s.finish(), "sk-");
    }

    #[test]
    fn debug_names_variables_only_and_merging_keeps_both() {
        let r = redactor();
        let debug = format!("{r:?}");
        assert!(
            debug.contains("OPENAI_API_KEY") && !debug.contains(LONG),
            "{debug}"
        );
        let other = Redactor::new([("OTHER", "0123456789abcdef")]);
        let both = r.merged(&other);
        assert_eq!(both.redact("0123456789abcdef"), "[redacted OTHER]");
        assert_eq!(both.redact(LONG), "[redacted OPENAI_API_KEY]");
    }

    #[test]
    fn remembered_keys_accumulate() {
        remember(&Redactor::new([(
            "PROCESS_TEST_KEY",
            "remembered-0123456789",
        )]));
        assert_eq!(
            remembered().redact("x remembered-0123456789"),
            "x [redacted PROCESS_TEST_KEY]"
        );
    }

    proptest! {
        #[test]
        fn pieces_joined_equal_the_whole(
            parts in prop::collection::vec(
                prop_oneof![
                    Just(LONG.to_string()),
                    Just(LONG[..7].to_string()),
                    Just("hunter2".to_string()),
                    Just("hunt".to_string()),
                    Just(" ".to_string()),
                    Just("\\u0073".to_string()),
                    Just("&#115".to_string()),
                    Just("&amp".to_string()),
                    Just(";".to_string()),
                    Just("%73".to_string()),
                    Just("\u{1b}[31m".to_string()),
                    Just("\u{200e}".to_string()),
                    Just("k-proj-ABCDEFGHIJKLMNOP0123456789".to_string()),
                    "[a-z0-9 -]{0,6}",
                    "[\\\\&%;#xu0-9]{0,6}",
                    any::<String>(),
                ],
                0..12,
            ),
            cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
        ) {
            let r = redactor();
            let text: String = parts.concat();
            let whole = r.redact(&text);
            prop_assert_eq!(&in_pieces(&r, &text, &cuts), &*whole);
            prop_assert!(!whole.contains(LONG));
        }

        #[test]
        fn a_key_written_in_any_mix_of_forms_is_replaced_whole(
            forms in prop::collection::vec(0..6usize, LONG.len()),
            before in "[a-z .]{0,4}",
            after in "[a-z .]{0,4}",
            cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
        ) {
            let r = redactor();
            let last = LONG.len() - 1;
            let written: String = LONG
                .chars()
                .zip(&forms)
                .enumerate()
                .map(|(i, (c, form))| {
                    let code = u32::from(c);
                    match form {
                        0 => c.to_string(),
                        1 => format!("\\u{code:04X}"),
                        2 => format!("&#{code};"),
                        3 => format!("&#x{code:x};"),
                        4 => format!("%{code:02x}"),
                        // A mark that sanitising removes, between two characters.
                        _ if i < last => format!("{c}\u{200f}"),
                        _ => c.to_string(),
                    }
                })
                .collect();
            let text = format!("{before}{written}{after}");
            let whole = r.redact(&text);
            prop_assert_eq!(
                &*whole,
                format!("{before}[redacted OPENAI_API_KEY]{after}")
            );
            prop_assert_eq!(&in_pieces(&r, &text, &cuts), &*whole);
        }
    }

    /// `text` redacted as a stream cut at these places.
    fn in_pieces(r: &Redactor, text: &str, cuts: &[prop::sample::Index]) -> String {
        let chars: Vec<char> = text.chars().collect();
        let mut points: Vec<usize> = cuts.iter().map(|c| c.index(chars.len() + 1)).collect();
        points.sort_unstable();
        let mut s = r.stream();
        let mut joined = String::new();
        let mut from = 0;
        for to in points.into_iter().chain([chars.len()]) {
            let piece: String = chars[from..to].iter().collect();
            joined.push_str(&s.push(&piece));
            from = to;
        }
        joined.push_str(&s.finish());
        joined
    }
}
