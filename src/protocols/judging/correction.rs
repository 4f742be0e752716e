//! The correction turn's prompt: what a judge is told when its answer was not a complete
//! judgment, before it answers again.

use crate::protocols::quoting::quoted;

/// The user turn after an incomplete judge answer: the parser's problems (quoted, since they
/// may repeat the judge's own words) and, when the answer hit the token limit, a request
/// for a shorter one.
pub fn judge_correction_prompt(problems: &[String], truncated: bool) -> String {
    let mut text = String::from("Your answer could not be read as a complete judgment.");
    if !problems.is_empty() {
        text.push_str(" What was wrong:\n");
        text.push_str(&quoted(&problems.join("\n"), &[]));
        text.push('\n');
    }
    if truncated {
        text.push_str(" It was cut at the length limit: keep every explanation short this time.");
    }
    text.push_str(
        " Answer again with the complete judgment, exactly in the format asked for, and nothing else.",
    );
    text
}
