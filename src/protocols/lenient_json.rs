//! Reading JSON out of what models actually send: objects anywhere in the text (in code
//! fences, after a preamble, outside `<thinking>` blocks), with comments and trailing commas
//! allowed, and raw control characters (a newline, a tab) inside strings kept as the text they
//! stand for: small models most of all write them there, and strict JSON would lose the whole
//! answer for them. Every protocol reads its replies through it: the Ethics Bowl's rubric reader,
//! the structured debate's replies and verdicts, and panel evaluations. It never panics,
//! whatever the input, and stays linear on hostile input.

use std::ops::Range;

use serde_json::Value;

/// Every JSON object in an answer (outside thinking blocks), read leniently (comments,
/// trailing commas and raw control characters in strings allowed), outermost first.
pub fn objects(text: &str) -> Vec<Value> {
    objects_at(&strip_thinking(text))
        .into_iter()
        .map(|(_, value)| value)
        .collect()
}

/// Every JSON object in `text` read leniently, outermost first, with the bytes it spans
/// (thinking blocks are not removed: strip them first with [`strip_thinking`] when the
/// spans must refer to the visible text). The spans never overlap.
///
/// Every string decoded is redacted with every key this process read: the answer's text
/// was redacted as it arrived, but decoding turns `"\u0073k-…"` or `"a\"b"` into text
/// that was not there before, and every protocol stores and quotes what it reads here.
pub fn objects_at(text: &str) -> Vec<(Range<usize>, Value)> {
    let redactor = crate::redact::remembered();
    candidates(text)
        .into_iter()
        .filter_map(|(start, candidate)| {
            let mut value = serde_json::from_str(&relax(candidate)).ok()?;
            redactor.redact_json(&mut value);
            Some((start..start + candidate.len(), value))
        })
        .collect()
}

/// Removes `<thinking>…</thinking>` and `<think>…</think>` blocks (an unclosed one runs to
/// the end).
pub fn strip_thinking(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let lower = rest.to_ascii_lowercase();
        let open = ["<thinking>", "<think>"]
            .iter()
            .filter_map(|tag| lower.find(tag).map(|i| (i, *tag)))
            .min_by_key(|(i, _)| *i);
        let Some((start, tag)) = open else {
            out.push_str(rest);
            return out;
        };
        out.push_str(&rest[..start]);
        let close = tag.replace('<', "</");
        match lower[start..].find(&close) {
            Some(end) => rest = &rest[start + end + close.len()..],
            None => return out,
        }
    }
}

/// Balanced `{…}` spans outside of strings, outermost first, with where each starts.
fn candidates(text: &str) -> Vec<(usize, &str)> {
    // Each unmatched `{` costs a scan to the end; a few dozen tries is plenty for a real
    // answer and keeps hostile input linear.
    const MAX_TRIES: usize = 64;
    let mut spans = Vec::new();
    let bytes = text.as_bytes();
    let (mut i, mut tries) = (0, 0);
    while i < bytes.len() && tries < MAX_TRIES {
        if bytes[i] == b'{' {
            tries += 1;
        }
        if bytes[i] == b'{'
            && let Some(end) = matching_brace(&bytes[i..])
        {
            spans.push((i, &text[i..i + end + 1]));
            i += end + 1;
            continue;
        }
        i += 1;
    }
    spans
}

/// The index of the `}` closing the `{` at 0, skipping strings.
fn matching_brace(bytes: &[u8]) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' => depth += 1,
            b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Removes `//` and `/* */` comments and trailing commas outside strings, and escapes the raw
/// control characters (U+0000 to U+001F) inside them, which strict JSON forbids, so that the
/// string reads as the text the model wrote.
fn relax(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let (mut i, mut in_string, mut escaped) = (0, false, false);
    while i < chars.len() {
        let c = chars[i];
        if in_string {
            match (escaped, c) {
                (true, _) if c.is_ascii_control() && c != '\u{7f}' => {
                    // A backslash before a raw control character: the character itself.
                    escape_control(c, &mut out);
                    escaped = false;
                }
                (true, _) => {
                    out.push(c);
                    escaped = false;
                }
                (false, '\\') => {
                    out.push(c);
                    escaped = true;
                }
                (false, '"') => {
                    out.push(c);
                    in_string = false;
                }
                (false, c) if c.is_ascii_control() && c != '\u{7f}' => {
                    out.push('\\');
                    escape_control(c, &mut out);
                }
                _ => out.push(c),
            }
            i += 1;
            continue;
        }
        match (c, chars.get(i + 1)) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            ('/', Some('*')) => {
                i += 2;
                while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                    i += 1;
                }
                i += 2;
                continue;
            }
            (',', _) => {
                let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
                if !matches!(next, Some('}') | Some(']')) {
                    out.push(c);
                }
            }
            _ => out.push(c),
        }
        i += 1;
    }
    out
}

/// Writes the escape for a control character below U+0020 after a backslash already written:
/// `n`, `r`, `t`, `b`, `f`, or `u00XX`.
fn escape_control(c: char, out: &mut String) {
    match c {
        '\n' => out.push('n'),
        '\r' => out.push('r'),
        '\t' => out.push('t'),
        '\u{8}' => out.push('b'),
        '\u{c}' => out.push('f'),
        other => out.push_str(&format!("u{:04x}", u32::from(other))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn a_key_written_with_json_escapes_is_redacted_once_decoded() {
        let key = r#"sk-lenient"q\x-0123456789"#;
        crate::redact::remember(&crate::redact::Redactor::new([("LENIENT_TEST_KEY", key)]));
        let text = r#"Scores: {"reason": "it is \u0073k-lenient\"q\\x-0123456789", "sk-lenient\"q\\x-0123456789": 1}"#;
        let value = &objects(text)[0];
        assert_eq!(value["reason"], "it is [redacted LENIENT_TEST_KEY]");
        assert_eq!(value["[redacted LENIENT_TEST_KEY]"], 1);
        assert!(!value.to_string().contains("lenient"), "{value}");
    }

    #[test]
    fn objects_in_fences_after_a_preamble_and_outside_thinking() {
        let text = "<thinking>maybe {\"a\": 0}</thinking>\nHere it is:\n```json\n{\"a\": 1}\n```\nand {\"b\": [2]}";
        assert_eq!(objects(text), vec![json!({"a": 1}), json!({"b": [2]})]);
        assert_eq!(strip_thinking("x<THINK>y</think>z<thinking>open"), "xz");
    }

    #[test]
    fn comments_and_trailing_commas_outside_strings() {
        let text = "{\n  // a comment\n  \"a\": \"x, }\", /* another */ \"b\": [1, 2,],\n}";
        assert_eq!(objects(text), vec![json!({"a": "x, }", "b": [1, 2]})]);
    }

    #[test]
    fn braces_in_strings_and_unbalanced_text() {
        let text = "{ unclosed {\"a\": \"}{\"} and {\"b\": 1}";
        assert_eq!(
            objects_at(text),
            vec![(11..22, json!({"a": "}{"})), (27..35, json!({"b": 1}))]
        );
        assert!(objects("no json here").is_empty());
    }

    #[test]
    fn raw_control_characters_in_strings_are_kept_as_text() {
        let text = "{\"a\": \"line one\nline two\r\n\tindented\u{1}\", \"b\": 2}";
        assert_eq!(
            objects(text),
            vec![json!({"a": "line one\nline two\r\n\tindented\u{1}", "b": 2})]
        );
        // Escapes the model did write are read as before, and a backslash before a raw
        // newline stands for the newline.
        let text = "{\"a\": \"x\\ny\\\\ \\u0041\\\nz\"}";
        assert_eq!(objects(text), vec![json!({"a": "x\ny\\ A\nz"})]);
        // Outside strings, control characters are white space or an error, as in JSON.
        assert_eq!(objects("{\n\t\"a\":\r\n1}"), vec![json!({"a": 1})]);
    }

    proptest! {
        #[test]
        fn never_panics(text in any::<String>()) {
            let _ = objects(&text);
        }

        /// Any string value, with any control characters in it raw, reads back as itself.
        #[test]
        fn strings_with_raw_control_characters_read_back(
            parts in proptest::collection::vec(("[a-z ]{0,8}", proptest::char::range('\u{0}', '\u{1f}')), 0..8)
        ) {
            let value: String = parts.iter().flat_map(|(s, c)| s.chars().chain([*c])).collect();
            // Letters, spaces and control characters: written raw between the quotes.
            let raw = format!("{{\"k\": \"{value}\"}}");
            prop_assert_eq!(objects(&raw), vec![json!({"k": value})]);
        }
    }
}
