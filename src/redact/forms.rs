//! The ways a key can be written in text that some reader turns back into the key: as it is,
//! with JSON string escapes (`\u0073`, `\"`, `\\`, `\/`), as HTML character references
//! (`&#115;`, `&#x73;`, `&quot;`, `&amp;`, with or without the `;` browsers forgive), and
//! percent-encoded (`%73`), each character in any of them, mixed; and with what
//! [`crate::sanitize`] removes (control characters, bidirectional controls, escape
//! sequences) between its characters, since every terminal and Markdown output removes them
//! and so joins the key up again. A model can write `"\u0073k-…"` inside the JSON of its
//! answer, whose decoded strings the tool stores; a key holding `"` or `\` is stored
//! JSON-escaped; an output searched as it is must hold none of these forms.
//!
//! HTML's other named references (`&period;`, `&lowbar;`, …) are left out: the tool escapes
//! `&` in every HTML and Markdown output, so no reference a model writes is decoded there.

use crate::sanitize;

/// One character written at the start of a text: the character and the bytes it takes.
type Written = (char, usize);

/// Every character the start of `text` can be read as (the literal character first, then
/// any escape or reference starting there), pushed onto `out`; returns true when `text`
/// ends before one of them is complete, so that more text could still make one.
fn decode_at(text: &str, out: &mut Vec<Written>) -> bool {
    let Some(first) = text.chars().next() else {
        return true;
    };
    out.push((first, first.len_utf8()));
    match first {
        '\\' => json_escape(text.as_bytes(), out),
        '&' => html_reference(text.as_bytes(), out),
        '%' => percent(text.as_bytes(), out),
        _ => false,
    }
}

/// The value of an ASCII hex digit.
fn hex(b: u8) -> Option<u32> {
    char::from(b).to_digit(16)
}

/// Reads `count` hex digits at `at`: `Err(true)` when the text ends first with only digits
/// so far, `Err(false)` when something else stands there.
fn hex_digits(bytes: &[u8], at: usize, count: usize) -> Result<u32, bool> {
    let mut value = 0;
    for i in at..at + count {
        let Some(&b) = bytes.get(i) else {
            return Err(true);
        };
        value = value * 16 + hex(b).ok_or(false)?;
    }
    Ok(value)
}

/// A JSON escape at the start of `bytes` (which starts with `\`).
fn json_escape(bytes: &[u8], out: &mut Vec<Written>) -> bool {
    let Some(&kind) = bytes.get(1) else {
        return true;
    };
    let short = match kind {
        b'"' => Some('"'),
        b'\\' => Some('\\'),
        b'/' => Some('/'),
        b'b' => Some('\u{8}'),
        b'f' => Some('\u{c}'),
        b'n' => Some('\n'),
        b'r' => Some('\r'),
        b't' => Some('\t'),
        _ => None,
    };
    if let Some(c) = short {
        out.push((c, 2));
        return false;
    }
    if kind != b'u' {
        return false;
    }
    let unit = match hex_digits(bytes, 2, 4) {
        Ok(unit) => unit,
        Err(partial) => return partial,
    };
    if !(0xd800..0xdc00).contains(&unit) {
        if let Some(c) = char::from_u32(unit) {
            out.push((c, 6));
        }
        return false;
    }
    // A high surrogate: the character needs the low one after it.
    match (bytes.get(6), bytes.get(7)) {
        (None, _) | (Some(b'\\'), None) => return true,
        (Some(b'\\'), Some(b'u')) => {}
        _ => return false,
    }
    let low = match hex_digits(bytes, 8, 4) {
        Ok(low) => low,
        Err(partial) => return partial,
    };
    if (0xdc00..0xe000).contains(&low)
        && let Some(c) = char::from_u32(0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00))
    {
        out.push((c, 12));
    }
    false
}

/// The named references a key's characters may take in the HTML the tool writes.
const NAMED: [(&str, char); 9] = [
    ("quot", '"'),
    ("QUOT", '"'),
    ("amp", '&'),
    ("AMP", '&'),
    ("lt", '<'),
    ("LT", '<'),
    ("gt", '>'),
    ("GT", '>'),
    ("apos", '\''),
];

/// At most this many bytes between two characters of a key are looked through: enough for
/// any escape sequence or a few marks, and a bound on the work and on what a stream holds
/// back.
const SKIP_LIMIT: usize = 64;

/// Numeric references have at most this many digits here (leading zeros included); a
/// longer run stands for no character a key holds.
const MAX_DIGITS: usize = 16;

/// An HTML character reference at the start of `bytes` (which starts with `&`).
fn html_reference(bytes: &[u8], out: &mut Vec<Written>) -> bool {
    // With and without the `;`, which browsers forgive; true when the text ends right
    // after the reference, where a `;` may still come.
    let mut push = |c: char, end: usize| {
        out.push((c, end));
        match bytes.get(end) {
            Some(b';') => {
                out.push((c, end + 1));
                false
            }
            Some(_) => false,
            None => true,
        }
    };
    match bytes.get(1) {
        None => true,
        Some(b'#') => {
            let (radix, start) = match bytes.get(2) {
                None => return true,
                Some(b'x' | b'X') => (16, 3),
                Some(_) => (10, 2),
            };
            let digits = bytes[start.min(bytes.len())..]
                .iter()
                .take(MAX_DIGITS + 1)
                .take_while(|b| char::from(**b).is_digit(radix))
                .count();
            let end = start + digits;
            if digits == 0 || digits > MAX_DIGITS {
                return end >= bytes.len() && digits <= MAX_DIGITS;
            }
            let value = bytes[start..end].iter().fold(0u64, |v, b| {
                v.saturating_mul(u64::from(radix))
                    .saturating_add(u64::from(char::from(*b).to_digit(radix).unwrap_or(0)))
            });
            // More digits may follow when the text ends inside them.
            let more = end >= bytes.len();
            let semicolon = u32::try_from(value)
                .ok()
                .and_then(char::from_u32)
                .is_some_and(|c| push(c, end));
            more || semicolon
        }
        Some(_) => {
            let mut partial = false;
            for (name, c) in NAMED {
                let rest = &bytes[1..];
                if rest.starts_with(name.as_bytes()) {
                    partial |= push(c, 1 + name.len());
                } else if name.as_bytes().starts_with(rest) {
                    partial = true;
                }
            }
            partial
        }
    }
}

/// Percent-encoded UTF-8 at the start of `bytes` (which starts with `%`): one `%XX` per
/// byte of the character.
fn percent(bytes: &[u8], out: &mut Vec<Written>) -> bool {
    let byte = |i: usize| -> Result<u8, bool> {
        match bytes.get(3 * i) {
            None => return Err(true),
            Some(b'%') => {}
            Some(_) => return Err(false),
        }
        hex_digits(bytes, 3 * i + 1, 2).map(|v| v as u8)
    };
    let lead = match byte(0) {
        Ok(b) => b,
        Err(partial) => return partial,
    };
    let len = match lead {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => return false,
    };
    let mut utf8 = vec![lead];
    for i in 1..len {
        match byte(i) {
            Ok(b) => utf8.push(b),
            Err(partial) => return partial,
        }
    }
    if let Some(c) = std::str::from_utf8(&utf8)
        .ok()
        .and_then(|s| s.chars().next())
    {
        out.push((c, 3 * len));
    }
    false
}

/// The lengths of what may stand between two characters of a key at the start of `text`
/// and vanish on the way to a reader: a run [`sanitize`] removes, or one escaped or
/// referenced character it removes. Returns true when `text` ends inside one.
fn skips_at(text: &str, out: &mut Vec<usize>, scratch: &mut Vec<Written>) -> bool {
    let mut partial = match sanitize::dropped_prefix(text, SKIP_LIMIT) {
        None => true,
        Some(0) => false,
        Some(n) => {
            out.push(n);
            false
        }
    };
    scratch.clear();
    partial |= decode_at(text, scratch);
    // The literal character (the first) is the run above.
    for &(c, len) in scratch.iter().skip(1) {
        if sanitize::drops(c) {
            out.push(len);
        }
    }
    partial
}

/// Whether `text` may start with a way of writing `first`; a quick test before
/// [`written_at`].
fn may_start(text: &str, first: char) -> bool {
    text.starts_with(first) || text.starts_with(['\\', '&', '%'])
}

/// Where a written form of `value` that starts at the beginning of `text` ends (every
/// possible end, shortest first), and whether `text` ends before a form could be complete.
pub(super) fn written_at(value: &str, text: &str) -> (Vec<usize>, bool) {
    let mut chars = value.chars();
    let Some(first) = chars.next() else {
        return (Vec::new(), false);
    };
    if !text.is_empty() && !may_start(text, first) {
        return (Vec::new(), false);
    }
    let mut partial = false;
    let mut scratch = Vec::new();
    let mut skips = Vec::new();
    let mut ends = Vec::new();
    partial |= decode_at(text, &mut scratch);
    ends.extend(scratch.iter().filter(|(c, _)| *c == first).map(|(_, n)| *n));
    for c in chars {
        // What vanishes between two characters, as many runs of it as stand there within
        // the limit: (where a path is, where its gap began).
        let mut queue: Vec<(usize, usize)> = ends.iter().map(|&e| (e, e)).collect();
        while let Some((from, start)) = queue.pop() {
            skips.clear();
            partial |= skips_at(&text[from..], &mut skips, &mut scratch);
            for &n in &skips {
                let to = from + n;
                if to - start <= SKIP_LIMIT && !ends.contains(&to) {
                    ends.push(to);
                    queue.push((to, start));
                }
            }
        }
        let mut next = Vec::new();
        for &from in &ends {
            scratch.clear();
            partial |= decode_at(&text[from..], &mut scratch);
            for &(d, n) in &scratch {
                if d == c && !next.contains(&(from + n)) {
                    next.push(from + n);
                }
            }
        }
        ends = next;
        if ends.is_empty() {
            break;
        }
    }
    ends.sort_unstable();
    (ends, partial)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every character `text` starts with, with its length.
    fn decoded(text: &str) -> (Vec<Written>, bool) {
        let mut out = Vec::new();
        let partial = decode_at(text, &mut out);
        (out, partial)
    }

    #[test]
    fn each_escape_and_reference_reads_as_its_character() {
        assert_eq!(decoded("\\u0073k"), (vec![('\\', 1), ('s', 6)], false));
        assert_eq!(decoded("\\u004B"), (vec![('\\', 1), ('K', 6)], false));
        assert_eq!(decoded("\\\"x"), (vec![('\\', 1), ('"', 2)], false));
        assert_eq!(decoded("\\\\"), (vec![('\\', 1), ('\\', 2)], false));
        assert_eq!(
            decoded("\\ud83d\\ude00"),
            (vec![('\\', 1), ('😀', 12)], false)
        );
        assert_eq!(
            decoded("&#115;"),
            (vec![('&', 1), ('s', 5), ('s', 6)], false)
        );
        assert_eq!(decoded("&#x73k"), (vec![('&', 1), ('s', 5)], false));
        assert_eq!(decoded("&#0000115;").0.last(), Some(&('s', 10)));
        assert_eq!(decoded("&quot;").0, vec![('&', 1), ('"', 5), ('"', 6)]);
        assert_eq!(decoded("&AMP;").0.last(), Some(&('&', 5)));
        assert_eq!(decoded("%73"), (vec![('%', 1), ('s', 3)], false));
        assert_eq!(decoded("%C3%A9"), (vec![('%', 1), ('é', 6)], false));
        assert_eq!(decoded("%zz").0, vec![('%', 1)]);
        assert_eq!(decoded("\\q").0, vec![('\\', 1)]);
    }

    #[test]
    fn a_text_that_ends_inside_a_form_says_so() {
        for text in [
            "",
            "\\",
            "\\u00",
            "\\ud83d",
            "\\ud83d\\u",
            "&",
            "&#",
            "&#11",
            "&#115",
            "&qu",
            "&amp",
            "%",
            "%7",
            "%C3",
        ] {
            assert!(decoded(text).1, "{text:?}");
        }
        for text in ["x", "\\u00zz", "&#;", "&zz", "%zz", "\\ud83dx"] {
            assert!(!decoded(text).1, "{text:?}");
        }
    }

    #[test]
    fn a_value_is_found_in_every_form_and_mixed() {
        let value = r#"sk-a"b\c"#;
        for text in [
            r#"sk-a"b\c"#,
            r#"\u0073k-a\"b\\c"#,
            r#"&#115;k&#x2d;a&quot;b\c"#,
            r#"%73k-a%22b%5Cc"#,
            "sk-\u{1b}[31ma\u{202e}\"b\\\u{200f}c",
            r#"sk-\u200ea\"b\\c"#,
        ] {
            let (ends, partial) = written_at(value, text);
            assert_eq!(ends, vec![text.len()], "{text:?}");
            assert!(!partial, "{text:?}");
        }
        assert_eq!(written_at(value, r#"sk-a"b\d"#), (vec![], false));
        assert_eq!(
            written_at(value, "sk-a\nb"),
            (vec![], false),
            "a line break stays"
        );
        assert_eq!(written_at(value, "sk-a\""), (vec![], true));
        assert_eq!(written_at(value, "sk-a\u{1b}[3"), (vec![], true));
        assert_eq!(written_at("abcd", "xabcd"), (vec![], false));
    }

    #[test]
    fn only_a_short_run_between_two_characters_is_looked_through() {
        let marks = |n: usize| format!("sk-{}ab", "\u{200e}".repeat(n));
        assert_eq!(written_at("sk-ab", &marks(21)).0, vec![marks(21).len()]);
        assert_eq!(written_at("sk-ab", &marks(22)), (vec![], false));
        let escaped = |n: usize| format!("sk-{}ab", "\\u200e".repeat(n));
        assert_eq!(written_at("sk-ab", &escaped(10)).0, vec![escaped(10).len()]);
        assert_eq!(written_at("sk-ab", &escaped(11)), (vec![], false));
        let endless = format!("sk-\u{1b}]{}", "x".repeat(1 << 20));
        assert_eq!(written_at("sk-ab", &endless), (vec![], false));
    }
}
