//! JSON as the tool writes it, to files and to stdout: pretty, and with every C1 control
//! (U+0080–U+009F), bidirectional control (U+061C, U+200E, U+200F, U+202A–U+202E,
//! U+2066–U+2069) and line or paragraph separator (U+2028, U+2029) written as a `\u` escape.
//! serde_json escapes only C0 controls, so model text holding a C1 CSI or a right-to-left
//! override would otherwise reach a terminal that `cat`s a round file or pipes `--json`
//! output. The escapes are lossless: a reader decodes exactly the text the model wrote, keys
//! aside (see [`to_vec_pretty`]).

use std::io;

use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};

/// Whether a character must not appear raw in JSON the tool writes.
fn must_escape(c: char) -> bool {
    matches!(c,
        '\u{80}'..='\u{9f}'
        | '\u{61c}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{2028}'
        | '\u{2029}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}')
}

/// serde_json's pretty layout with the extra escapes above; watching, it also keeps each
/// string's text as it was (escapes undone) to say whether any holds a form of a key.
struct Escaping<'a>(PrettyFormatter<'static>, Option<Watch<'a>>);

/// What a watching [`Escaping`] keeps: the redactor, the string being written, and whether
/// a string written so far holds something the redactor would replace.
struct Watch<'a> {
    redactor: &'a crate::redact::Redactor,
    current: String,
    found: &'a std::cell::Cell<bool>,
}

impl Formatter for Escaping<'_> {
    fn begin_string<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        if let Some(watch) = &mut self.1 {
            watch.current.clear();
        }
        self.0.begin_string(writer)
    }

    fn end_string<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        if let Some(watch) = &mut self.1
            && !watch.found.get()
            && matches!(
                watch.redactor.redact(&watch.current),
                std::borrow::Cow::Owned(_)
            )
        {
            watch.found.set(true);
        }
        self.0.end_string(writer)
    }

    fn write_char_escape<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        char_escape: serde_json::ser::CharEscape,
    ) -> io::Result<()> {
        use serde_json::ser::CharEscape;
        if let Some(watch) = &mut self.1 {
            watch.current.push(match char_escape {
                CharEscape::Quote => '"',
                CharEscape::ReverseSolidus => '\\',
                CharEscape::Solidus => '/',
                CharEscape::Backspace => '\u{8}',
                CharEscape::FormFeed => '\u{c}',
                CharEscape::LineFeed => '\n',
                CharEscape::CarriageReturn => '\r',
                CharEscape::Tab => '\t',
                CharEscape::AsciiControl(b) => char::from(b),
            });
        }
        self.0.write_char_escape(writer, char_escape)
    }

    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        if let Some(watch) = &mut self.1 {
            watch.current.push_str(fragment);
        }
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if must_escape(c) {
                writer.write_all(&fragment.as_bytes()[start..i])?;
                write!(writer, "\\u{:04x}", u32::from(c))?;
                start = i + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// Pretty JSON with the escapes above, as bytes, every string in it redacted with every key
/// this process read. Every round file, record and `--json` output is written here, so this
/// is the one place that keeps keys out of all of them, whatever field holds the text and
/// however it got there (a string decoded from a model's JSON, a server's message): the
/// strings are redacted as they are, before JSON escapes them (a key holding `"` or `\` is
/// written escaped, which a search for the key would miss and a reader would decode).
///
/// With keys known, the value is first written while each string is watched; only when one
/// holds a form of a key (rare: text is redacted as it arrives and as it is decoded) is it
/// written again from a tree whose strings were redacted. Every round file is written whole
/// at each of its writes, so the watch is the cost paid every time.
pub fn to_vec_pretty(value: &impl Serialize) -> serde_json::Result<Vec<u8>> {
    let redactor = crate::redact::remembered();
    let mut out = Vec::with_capacity(4096);
    if redactor.is_empty() {
        let mut ser = serde_json::Serializer::with_formatter(
            &mut out,
            Escaping(PrettyFormatter::new(), None),
        );
        value.serialize(&mut ser)?;
        return Ok(out);
    }
    let found = std::cell::Cell::new(false);
    let watch = Watch {
        redactor: &redactor,
        current: String::new(),
        found: &found,
    };
    let mut ser = serde_json::Serializer::with_formatter(
        &mut out,
        Escaping(PrettyFormatter::new(), Some(watch)),
    );
    value.serialize(&mut ser)?;
    if found.get() {
        out.clear();
        let mut ser = serde_json::Serializer::with_formatter(
            &mut out,
            Escaping(PrettyFormatter::new(), None),
        );
        redactor.json_tree(value)?.serialize(&mut ser)?;
    }
    Ok(out)
}

/// Pretty JSON with the escapes above, as text.
pub fn to_string_pretty(value: &impl Serialize) -> serde_json::Result<String> {
    let bytes = to_vec_pretty(value)?;
    // The serializer writes only UTF-8 (whole strings, and ASCII escapes and layout).
    String::from_utf8(bytes).map_err(|e| serde_json::Error::io(io::Error::other(e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_string_and_key_is_redacted_before_it_is_escaped() {
        let key = r#"sk-safe"json\key-0123"#;
        crate::redact::remember(&crate::redact::Redactor::new([("SAFE_JSON_TEST_KEY", key)]));
        let mut map = std::collections::BTreeMap::new();
        map.insert(
            format!("named {key}"),
            vec![format!("said {key}"), "plain".into()],
        );
        let json = to_string_pretty(&map).unwrap();
        assert!(!json.contains("safe"), "{json}");
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(
            back,
            serde_json::json!({"named [redacted SAFE_JSON_TEST_KEY]": ["said [redacted SAFE_JSON_TEST_KEY]", "plain"]})
        );
    }

    #[test]
    fn c1_and_bidi_controls_are_escaped_and_read_back_exactly() {
        let text =
            "a\u{9b}31m b\u{202e}evil\u{202c} c\u{2066}d\u{2069} \u{1b}[2J é ünï 中文 \u{85}";
        let json = to_string_pretty(&serde_json::json!({ "text": text })).unwrap();
        assert!(
            json.chars()
                .all(|c| !must_escape(c) && (c == '\n' || !c.is_control())),
            "{json:?}"
        );
        assert!(json.contains("\\u009b") && json.contains("\\u202e") && json.contains("\\u001b"));
        assert!(
            json.contains("é ünï 中文"),
            "other text stays as it is: {json}"
        );
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back["text"], text);
        assert_eq!(
            serde_json::to_string_pretty(&serde_json::json!({ "a": [1, {"b": null}] })).unwrap(),
            to_string_pretty(&serde_json::json!({ "a": [1, {"b": null}] })).unwrap(),
            "the layout is serde_json's pretty one"
        );
    }
}
