//! Reading judges' answers: the Ethics Bowl's rubric (the seven criteria for each team), and
//! the 1–10 scores every rubric on that scale shares. The JSON in an answer is found by
//! [`crate::protocols::lenient_json`].

mod correction;
mod rubric;
mod score;

pub use correction::judge_correction_prompt;
pub use rubric::{ParsedJudgment, parse_judgment};
pub(crate) use score::score_value;
