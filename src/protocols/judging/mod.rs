//! Reading judges' answers: the Ethics Bowl's rubric (the seven criteria for each team), and
//! the 1–10 scores every rubric on that scale shares. The JSON in an answer is found by
//! [`crate::protocols::lenient_json`]. Also what every judge is asked for: the JSON schemas
//! of their answers ([`schema`]) and the correction turn after an unreadable answer.

mod correction;
#[cfg(test)]
mod every_judge;
mod rubric;
pub mod schema;
mod score;

pub use correction::{CUT_SHORT, judge_correction_prompt};
pub use rubric::{ParsedJudgment, parse_judgment};
pub(crate) use score::score_value;
