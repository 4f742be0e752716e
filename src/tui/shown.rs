//! The rounds the filter bar lets through, read off the mirror: what the matrix, the review
//! queue and the leaderboard show.

use super::filter::Filter;
use super::mirror::{Mirror, ReviewItem, RoundState};

/// The mirror seen through the filter in force (every round, with none).
#[derive(Debug, Clone, Copy)]
pub struct Shown<'a> {
    /// The mirror.
    pub mirror: &'a Mirror,
    /// The filter in force.
    pub filter: Option<&'a Filter>,
}

impl<'a> Shown<'a> {
    /// `mirror` through `filter`.
    pub fn new(mirror: &'a Mirror, filter: Option<&'a Filter>) -> Self {
        Self { mirror, filter }
    }

    /// Whether a round passes the filter.
    pub fn passes(self, round: &RoundState) -> bool {
        self.filter
            .is_none_or(|f| f.matches(round, self.mirror.now))
    }

    /// The rounds the filter lets through, in schedule order: what the leaderboard counts.
    pub fn rounds(self) -> impl Iterator<Item = &'a RoundState> {
        self.mirror.rounds.iter().filter(move |r| self.passes(r))
    }

    /// The review queue: what waits for a person in every stored round the filter lets
    /// through, in schedule order.
    pub fn review_items(self) -> impl Iterator<Item = &'a ReviewItem> {
        self.rounds().flat_map(|r| &r.review)
    }

    /// How many items of the queue wait for a person.
    pub fn review_len(self) -> usize {
        self.rounds().map(|r| r.review.len()).sum()
    }
}
