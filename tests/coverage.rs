//! The judge effects' intervals hold the truth about as often as they say, where intervals
//! that count judgments do not: a small version of `examples/bench_coverage.rs` over seeded
//! simulated tournaments whose debaters' form varies from exchange to exchange (shared by
//! the three judges of each), so that one exchange's judgments depend on each other.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use support::coverage::{Coverage, one};

#[tokio::test]
async fn intervals_over_exchanges_cover_the_truth_and_intervals_over_judgments_do_not() {
    let mut all = Coverage::default();
    for seed in 0..16 {
        let dir = tempfile::tempdir().unwrap();
        all.merge(&one(seed, 2.0, dir.path()).await);
    }
    assert_eq!(all.models.drawn, 48, "{all:?}");
    // 48 intervals: a 95% interval misses about 2; one counting judgments as exchanges is
    // too narrow for the models (the judges of one exchange share its form).
    assert!(all.models.share() >= 0.85, "{all:?}");
    assert!(all.side.share() >= 0.8, "{all:?}");
    assert!(all.judges.share() >= 0.85, "{all:?}");
    assert!(
        all.models_by_judgment.share() + 0.15 <= all.models.share(),
        "{all:?}"
    );
}
