//! Untrusted text (what a model or a server wrote) inside the Markdown the tool writes
//! (`rounds --markdown`, the UI's copy key, `report.md`, decision briefings): sanitised (see
//! [`crate::sanitize`]), every key this process read redacted, and inert as HTML however a
//! renderer (pandoc, GitHub, any CommonMark) reads it.
//!
//! `<`, `>` and `&` become entities everywhere, code included, so no tag, comment or HTML
//! block can open (`<svg onload=…>` reads as text, and a model's own `&lt;` stays `&lt;`).
//! Outside code, `\`, `[` and `{` are escaped with a backslash too: no link or image (no
//! `javascript:` URL, no remote image), and none of pandoc's `{=html}` raw blocks or
//! `{onclick=…}` attributes. Emphasis, lists and code still render, and apostrophes, `*` and
//! numbers stay as written.
//!
//! A model's fenced code block is written again inside a fence of ours, set off by blank
//! lines and longer than any run of backticks in the code, so the model cannot end it early
//! (a ```` ``` ```` of its own) or leave it open: its code is kept readable (JSON's braces
//! and brackets unescaped) because the renderer is sure to read it as code. A code span
//! (`` `…` ``) is prose here and shows the escapes.

use crate::sanitize::sanitize;

/// Sanitised, then redacted: what reaches a person.
fn for_people(text: &str) -> String {
    crate::redact::remembered().redact_string(sanitize(text))
}

/// Appends one character of text with `<`, `>` and `&` as entities; true when it did.
fn push_markup_escaped(c: char, out: &mut String) -> bool {
    match c {
        '<' => out.push_str("&lt;"),
        '>' => out.push_str("&gt;"),
        '&' => out.push_str("&amp;"),
        _ => return false,
    }
    true
}

/// Appends one character of prose, escaped (see the module's rules).
fn push_prose(c: char, out: &mut String) {
    if !push_markup_escaped(c, out) {
        if matches!(c, '\\' | '[' | '{') {
            out.push('\\');
        }
        out.push(c);
    }
}

/// Text for a place inside one line of Markdown (a heading, a list item, a table cell):
/// escaped as prose, with line breaks as spaces and `|` escaped, so it stays in its line and
/// its cell.
pub fn inline(text: &str) -> String {
    let clean = for_people(text);
    let mut out = String::with_capacity(clean.len());
    for c in clean.chars() {
        match c {
            '\n' => out.push(' '),
            '|' => out.push_str("\\|"),
            c => push_prose(c, &mut out),
        }
    }
    out
}

/// A fenced code block a model opened.
struct Fence {
    /// `` ` `` or `~`.
    mark: char,
    /// How many marks opened it.
    len: usize,
    /// The language named after the opening fence, reduced to characters that name one.
    info: String,
}

/// The line without up to three leading spaces (more make it indented code, not a fence).
fn unindented(line: &str) -> &str {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    if spaces <= 3 { &line[spaces..] } else { line }
}

impl Fence {
    /// The fence this line opens, if it opens one as CommonMark reads it.
    fn opened_by(line: &str) -> Option<Fence> {
        let rest = unindented(line);
        let mark = rest.chars().next().filter(|c| matches!(c, '`' | '~'))?;
        let len = rest.len() - rest.trim_start_matches(mark).len();
        let info = &rest[len..];
        if len < 3 || (mark == '`' && info.contains('`')) {
            return None;
        }
        let info = info
            .split_whitespace()
            .next()
            .unwrap_or("")
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.' | '_' | '#'))
            .take(24)
            .collect();
        Some(Fence { mark, len, info })
    }

    /// Whether this line closes the fence.
    fn closed_by(&self, line: &str) -> bool {
        let rest = unindented(line);
        let len = rest.len() - rest.trim_start_matches(self.mark).len();
        len >= self.len && rest[len..].trim_matches([' ', '\t']).is_empty()
    }
}

/// The longest run of backticks in a line.
fn longest_backtick_run(line: &str) -> usize {
    line.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// Appends a code block in a fence of ours, set off by blank lines.
fn push_code(out: &mut Vec<String>, info: &str, code: &[&str]) {
    let fence = "`".repeat(
        3.max(
            code.iter()
                .map(|l| longest_backtick_run(l))
                .max()
                .unwrap_or(0)
                + 1,
        ),
    );
    if out.last().is_some_and(|l| !l.is_empty()) {
        out.push(String::new());
    }
    out.push(format!("{fence}{info}"));
    for line in code {
        let mut escaped = String::with_capacity(line.len());
        for c in line.chars() {
            if !push_markup_escaped(c, &mut escaped) {
                escaped.push(c);
            }
        }
        out.push(escaped);
    }
    out.push(fence);
    out.push(String::new());
}

/// Text as lines of Markdown, the model's own formatting kept (see the module's rules).
pub fn block(text: &str) -> Vec<String> {
    let clean = for_people(text);
    let mut out = Vec::new();
    let mut lines = clean.lines();
    while let Some(line) = lines.next() {
        match Fence::opened_by(line) {
            Some(fence) => {
                // An unclosed fence runs to the end, as CommonMark reads it; ours is closed.
                let code: Vec<&str> = lines.by_ref().take_while(|l| !fence.closed_by(l)).collect();
                push_code(&mut out, &fence.info, &code);
            }
            None => {
                let mut escaped = String::with_capacity(line.len());
                for c in line.chars() {
                    push_prose(c, &mut escaped);
                }
                out.push(escaped);
            }
        }
    }
    while out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    out
}

/// Text as a Markdown blockquote ([`block`], each line behind `> `), so that it cannot open
/// a heading or a section of the document: `> (empty)` when there is none.
pub fn quoted(text: &str) -> String {
    let lines = block(text);
    if lines.iter().all(|l| l.trim().is_empty()) {
        return "> (empty)\n".to_string();
    }
    lines
        .iter()
        .map(|l| {
            if l.is_empty() {
                ">\n".to_string()
            } else {
                format!("> {l}\n")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pulldown_cmark::{Event, Options, Parser, Tag};

    /// What a CommonMark renderer makes of `md`: every HTML, link or image it would emit,
    /// and the text a reader sees.
    fn rendered(md: &str) -> (Vec<String>, String) {
        let mut live = Vec::new();
        let mut text = String::new();
        for event in Parser::new_ext(md, Options::all() - Options::ENABLE_SMART_PUNCTUATION) {
            match event {
                Event::Html(h) | Event::InlineHtml(h) => live.push(h.to_string()),
                Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                    live.push(dest_url.to_string())
                }
                Event::Start(Tag::HtmlBlock) => live.push("html block".into()),
                Event::Text(t) | Event::Code(t) => text.push_str(&t),
                Event::SoftBreak | Event::HardBreak => text.push('\n'),
                _ => {}
            }
        }
        (live, text)
    }

    /// Fails unless `md`, rendered, holds no HTML, link or image, and no `<` at all.
    fn assert_inert(md: &str) -> String {
        let (live, text) = rendered(md);
        assert!(live.is_empty(), "live HTML or links {live:?} in:\n{md}");
        assert!(!md.contains('<'), "no tag can open:\n{md}");
        assert!(
            md.lines().all(|l| l.starts_with('>')),
            "every line quoted:\n{md}"
        );
        text
    }

    #[test]
    fn hostile_prose_renders_as_text_and_ordinary_text_as_written() {
        let md = quoted(
            "It's 2 * 3 = 6, and *this* matters.\n\
             <svg onload=alert(1)>\n\
             <script>alert(2)</script> and &lt;b&gt; and [x](javascript:alert(3)) ![i](http://t/i.png)\n\
             \\<img src=x onerror=alert(4)> `<code span>`{=html} [s]{onclick=alert(5)}\n\
             <!-- a comment\n\n> a quote [^1]\n\n[^1]: javascript:alert(6)",
        );
        let text = assert_inert(&md);
        assert!(
            md.starts_with("> It's 2 * 3 = 6, and *this* matters.\n"),
            "{md}"
        );
        for shown in [
            "<svg onload=alert(1)>",
            "<script>alert(2)</script>",
            "&lt;b&gt;",
            "[x](javascript:alert(3))",
            "\\<img src=x onerror=alert(4)>",
            "{onclick=alert(5)}",
            "<!-- a comment",
            "> a quote",
        ] {
            assert!(
                text.contains(shown),
                "{shown} is read as text:\n{text}\n{md}"
            );
        }
    }

    #[test]
    fn a_models_fences_cannot_end_ours_or_stay_open() {
        // Closed, with prose after it.
        let md = quoted("```json\n{\"a\": [1, 2], \"b\": \"x < y\"}\n```\nafter <b>x</b>");
        let text = assert_inert(&md);
        assert!(
            md.contains("> ```json\n> {\"a\": [1, 2], \"b\": \"x &lt; y\"}\n> ```\n"),
            "code keeps its brackets:\n{md}"
        );
        assert!(text.contains("after <b>x</b>"), "{text}");
        // A backtick fence inside a tilde one, then a break-out attempt.
        let md =
            quoted("~~~\n```\n<b onmouseover=alert(1)>\n~~~\n```\n<i>out</i>\n[x](javascript:y)");
        assert_inert(&md);
        assert!(md.starts_with("> ````\n> ```\n> &lt;b onmouseover"), "{md}");
        assert!(
            md.ends_with("> ```\n> &lt;i&gt;out&lt;/i&gt;\n> [x](javascript:y)\n> ```\n"),
            "the fence it opened is code, closed by ours:\n{md}"
        );
        // A longer fence left open, holding a shorter one.
        let md = quoted("````\n```\n</code><iframe src=javascript:alert(2)>\n");
        assert_inert(&md);
        assert!(
            md.ends_with(
                "> ````\n> ```\n> &lt;/code&gt;&lt;iframe src=javascript:alert(2)&gt;\n> ````\n"
            ),
            "{md}"
        );
        // Not a fence (a backtick in its info string): prose.
        let md = quoted("``` a`b\n<i>x</i> [y](javascript:z)");
        let text = assert_inert(&md);
        assert!(text.contains("<i>x</i> [y](javascript:z)"), "{text}");
    }

    #[test]
    fn inline_text_stays_in_its_line_and_cell() {
        assert_eq!(inline("a | b\n# c <i>\u{1b}[31m"), "a \\| b # c &lt;i&gt;");
        assert_eq!(inline("it's 3 * 4"), "it's 3 * 4");
    }

    #[test]
    fn keys_are_redacted_before_markdown_escapes_them() {
        let key = r#"sk-md"esc\[key]<0123"#;
        crate::redact::remember(&crate::redact::Redactor::new([("MD_TEST_KEY", key)]));
        let text = format!("mine: {key}\n```\n{key}\n```");
        // The marker's `[` is escaped like any other in prose; it reads the same.
        assert_eq!(
            inline(&text),
            "mine: \\[redacted MD_TEST_KEY] ``` \\[redacted MD_TEST_KEY] ```"
        );
        assert_eq!(
            quoted(&text),
            "> mine: \\[redacted MD_TEST_KEY]\n>\n> ```\n> [redacted MD_TEST_KEY]\n> ```\n"
        );
    }

    #[test]
    fn fences_are_read_as_commonmark_reads_them() {
        assert!(Fence::opened_by("   ```rust").is_some());
        assert!(Fence::opened_by("    ```").is_none(), "indented code");
        assert!(
            Fence::opened_by("``` a`b").is_none(),
            "a backtick in the info"
        );
        assert!(Fence::opened_by("~~~ a`b").is_some());
        let f = Fence::opened_by("````{=html} x").unwrap();
        assert_eq!(f.info, "html");
        assert!(!f.closed_by("```"));
        assert!(f.closed_by("  ````` "));
        assert!(!f.closed_by("```` x"));
        assert_eq!(quoted(""), "> (empty)\n");
    }
}
