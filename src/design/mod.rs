//! Designs that choose which rounds to play from the results so far, instead of playing
//! every round the configuration implies. `pairings = "adaptive"` plays the full schedule's
//! rounds in waves: before each wave the ratings are fitted to the rounds finished, with
//! Team A's advantage and each judge's side preference as terms of the fit ([`rating`]),
//! and the wave takes the pairs whose order is least certain, weighted by how much one more
//! round would tell ([`pick`]); it stops at `max_rounds`, at `budget_usd`, or
//! when each model is ordered above the next with the probability `stop_when_separated`
//! asks. Every choice is kept ([`record`]), with the rating state it saw, in
//! `tournament.json`, so a resumed run continues the same sequence and the report can say
//! the design was adaptive. Nothing here names a protocol: a round's result as a match is
//! its spec's ([`crate::protocols::match_outcome`]).

pub mod pick;
pub mod rating;
pub mod record;

pub use pick::{Budget, Next, Settings, next_wave};
pub use rating::{Outcome, PANEL, RatingState, SideTerm, state};
pub use record::{Choice, DesignRecord, StopRule, Stopped, WaveRecord};
