//! The tournament mirror: what the UI knows of the tournament, one model changed only by
//! ingesting the engine's events ([`ingest()`]) and the store's answers (a round read back,
//! a second folder to compare with). It starts from the store (every round of the schedule
//! as stored, or as set up when it has no file yet), and model text is sanitised once, as
//! it enters. The screens read it; none of their cursors, scrolls or modes live here.

mod compare;
mod ingest;
mod model;
mod round_state;
mod round_text;
mod schedule;
mod standing;

pub use compare::{Compared, JudgeRow, Mark, PANEL, run_names, verdict_in_terms};
pub use ingest::Echo;
pub(crate) use ingest::{clean, ingest};
pub use model::{LogLine, Mirror, Mode, Resume};
pub use round_state::{Entry, LivePhase, ReviewItem, RoundState};
pub use round_text::{KEPT_WHOLE, TextKept};
pub use standing::{Standing, standing};
