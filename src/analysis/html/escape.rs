//! Escaping for the two places text enters the HTML report: markup (element text and
//! attribute values) and the JSON block the page's script reads. Model text is untrusted, so
//! neither may let it close its element or open a new one, nor carry a key.

/// Text for HTML element content or a quoted attribute value: every key this process read
/// redacted, then `& < > " '` as entities (redacted first: the escaped form of a key holding
/// one of them is not the key a redactor looks for).
pub(super) fn html(text: &str) -> String {
    let text = crate::redact::remembered().redact_string(text.to_string());
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// JSON for a `<script type="application/json">` block: `<`, `>` and `&` as `\u` escapes, so
/// neither `</script` nor `<!--` can appear, and the line separators U+2028 and U+2029 too.
/// These characters appear only inside JSON strings, where the escapes mean the same.
pub(super) fn script_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + json.len() / 16);
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// A query-string component for the page's `#rounds?…` links: everything but unreserved
/// characters percent-encoded (UTF-8), as `URLSearchParams` reads it back.
pub(super) fn query(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_script_escapes_leave_no_way_out() {
        assert_eq!(
            html(r#"<img src=x onerror="a('b')">&"#),
            "&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;&amp;"
        );
        let json = serde_json::to_string("</script><!-- \u{2028}&").unwrap();
        let safe = script_json(&json);
        assert!(!safe.contains('<') && !safe.contains('>') && !safe.contains('&'));
        assert!(!safe.contains('\u{2028}'));
        let back: String = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, "</script><!-- \u{2028}&");
    }

    #[test]
    fn keys_are_redacted_before_markup_escapes_them() {
        let key = r#"sk-html"escape'<key>&0123"#;
        crate::redact::remember(&crate::redact::Redactor::new([("HTML_TEST_KEY", key)]));
        assert_eq!(
            html(&format!("<b>{key}</b>")),
            "&lt;b&gt;[redacted HTML_TEST_KEY]&lt;/b&gt;"
        );
    }

    #[test]
    fn query_components_are_percent_encoded() {
        assert_eq!(query("sim alpha/é&x=1"), "sim%20alpha%2F%C3%A9%26x%3D1");
        assert_eq!(query("gpt-4.1_mini~"), "gpt-4.1_mini~");
    }
}
