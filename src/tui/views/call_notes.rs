//! How a failed call's attempts, a phase's token counts and a cut answer read in the round
//! view: one line each, so a person sees how the call went without opening the round file.
//! The text they quote (provider errors, finish reasons) was sanitised as the round entered
//! the UI; here it is only kept to one line and a readable length.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::domain::Attempt;

/// The longest error message shown for one attempt; the round file has the whole of it.
const MAX_ERROR: usize = 160;
/// The longest finish reason shown.
const MAX_REASON: usize = 32;

/// `text` on one line (line breaks and tabs as spaces), cut to `max` characters with `…`.
fn one_line(text: &str, max: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .collect();
    let flat = flat.trim();
    if flat.chars().count() <= max {
        flat.to_string()
    } else {
        let cut: String = flat.chars().take(max.saturating_sub(1)).collect();
        format!("{}…", cut.trim_end())
    }
}

/// Seconds from milliseconds, as the transcript shows timings: `2.4 s`.
fn seconds(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

/// One line per attempt: its number, how long it took, why it failed (or that it answered)
/// and the wait before the next, indented under what they explain.
pub fn lines(attempts: &[Attempt], colour: Color) -> Vec<Line<'static>> {
    attempts
        .iter()
        .map(|a| {
            let outcome = match &a.error {
                Some(e) => one_line(e, MAX_ERROR),
                None => "answered".to_string(),
            };
            let wait = a
                .wait_ms
                .map(|w| format!(" · waited {} before the next", seconds(w)))
                .unwrap_or_default();
            let discarded = match a.discarded_chars {
                0 => String::new(),
                n => format!(" · {n} streamed characters discarded"),
            };
            Line::styled(
                format!(
                    "  attempt {} · {} · {outcome}{wait}{discarded}",
                    a.number,
                    seconds(a.latency_ms)
                ),
                Style::new().fg(colour),
            )
        })
        .collect()
}

/// A stored phase's tokens for its header: ` · 2763 in/776 out tokens`, with
/// ` (estimated)` when the server reported no usage; empty when unknown.
pub fn tokens(tokens: Option<(u64, u64)>, estimated: bool) -> String {
    match tokens {
        None => String::new(),
        Some((i, o)) => format!(
            " · {i} in/{o} out tokens{}",
            if estimated { " (estimated)" } else { "" }
        ),
    }
}

/// The warning under a cut answer's header: it ended at the output-token limit, with the
/// finish reason as the provider spelled it.
pub fn truncated(finish_reason: Option<&str>, colour: Color) -> Line<'static> {
    let reason = finish_reason
        .map(|r| format!(" (finish: {})", one_line(r, MAX_REASON)))
        .unwrap_or_default();
    Line::from(vec![
        Span::styled(
            "✂ cut at the token limit",
            Style::new().fg(colour).add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            format!("{reason}: the answer may end mid-thought (raise the model's max_tokens)"),
            Style::new().fg(colour),
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(line: &Line<'_>) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn each_attempt_says_how_it_failed_and_how_long_the_wait_was() {
        let attempts = [
            Attempt {
                number: 1,
                latency_ms: 900,
                error: Some("HTTP 503:\nbusy".into()),
                error_kind: None,
                wait_ms: Some(2000),
                discarded_chars: 0,
            },
            Attempt {
                number: 2,
                latency_ms: 1500,
                error: Some("x".repeat(400)),
                error_kind: None,
                wait_ms: None,
                discarded_chars: 12,
            },
        ];
        let shown: Vec<String> = lines(&attempts, Color::Reset).iter().map(text).collect();
        assert_eq!(
            shown[0],
            "  attempt 1 · 0.9 s · HTTP 503: busy · waited 2.0 s before the next"
        );
        assert!(
            shown[1].starts_with("  attempt 2 · 1.5 s · xxx"),
            "{}",
            shown[1]
        );
        assert!(
            shown[1].ends_with("x… · 12 streamed characters discarded"),
            "{}",
            shown[1]
        );
        assert!(shown[1].chars().count() < 220, "a long error is cut");
    }

    #[test]
    fn tokens_say_when_they_are_estimated_and_a_cut_answer_names_its_finish_reason() {
        assert_eq!(tokens(None, true), "");
        assert_eq!(tokens(Some((12, 34)), false), " · 12 in/34 out tokens");
        assert_eq!(
            tokens(Some((12, 34)), true),
            " · 12 in/34 out tokens (estimated)"
        );
        let line = text(&truncated(Some("MAX_TOKENS"), Color::Reset));
        assert!(
            line.starts_with("✂ cut at the token limit (finish: MAX_TOKENS): "),
            "{line}"
        );
        let line = text(&truncated(None, Color::Reset));
        assert!(line.starts_with("✂ cut at the token limit: "), "{line}");
    }
}
