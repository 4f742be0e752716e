//! Reading judges' answers, for every protocol that scores teams on the seven criteria.

mod parser;

pub(crate) use parser::score_value;
pub use parser::{ParsedJudgment, json_objects, parse_judgment};
