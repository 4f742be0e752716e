//! Reading judges' answers: the Ethics Bowl's rubric (the seven criteria for each team, and
//! the judge's reading of each consistency test), and the 1–10 scores every rubric on that
//! scale shares. The JSON in an answer is found by
//! [`crate::protocols::lenient_json`]. Also what every judge is asked for: the JSON schemas
//! of their answers ([`schema`]), the correction turn after an unreadable answer, which
//! part of an answer is the judge's own ([`own`]), which every protocol's reader applies, and
//! the version of each judge prompt template ([`prompt_version`]).

pub mod consistency_test;
mod correction;
#[cfg(test)]
mod every_judge;
pub mod own;
pub mod prompt_version;
mod rubric;
pub mod schema;
mod score;

pub use correction::{CUT_SHORT, judge_correction_prompt};
pub use own::{JudgeAnswer, Quoted};
pub use rubric::{ParsedJudgment, own_judgment, parse_judgment, read_judgment};
pub(crate) use score::score_value;
