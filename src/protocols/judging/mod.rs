//! Reading judges' answers, for every protocol that scores teams on the seven criteria.

mod parser;

pub use parser::{ParsedJudgment, parse_judgment};
