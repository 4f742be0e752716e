//! A small version of `examples/bench_adaptive.rs`: on simulated models with known skills,
//! the adaptive design's ranking at 40% of the full schedule's rounds is closer to the true
//! order than a uniform random subset of the same size, over a few seeded tournaments.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/adaptive_study.rs"]
#[allow(dead_code)] // the example reads the rest
mod adaptive_study;

use adaptive_study::{SKILL_STEP, curve, kendall_tau, one};

#[test]
fn adaptive_beats_the_uniform_subset_at_forty_percent() {
    let tournaments: Vec<_> = (0..6).map(|seed| one(seed, 8, SKILL_STEP)).collect();
    let c = curve(&tournaments);
    let forty = (0.4 * c.full_rounds as f64).floor() as usize;
    let row = c
        .rows
        .iter()
        .rev()
        .find(|r| r.rounds <= forty)
        .expect("a budget at 40%");
    assert!(
        row.adaptive > row.uniform,
        "adaptive τ {} vs uniform τ {} at {} rounds",
        row.adaptive,
        row.uniform,
        row.rounds
    );
    // The oracle, which knows the skills, does at least as well as the uniform subset.
    assert!(row.oracle > row.uniform, "{row:?}");
    assert!(
        c.full_tau > 0.5,
        "the full round-robin recovers the order: {}",
        c.full_tau
    );
}

#[test]
fn kendall_tau_counts_pairs() {
    assert_eq!(kendall_tau(&[3.0, 2.0, 1.0], &[3.0, 2.0, 1.0]), 1.0);
    assert_eq!(kendall_tau(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), -1.0);
    assert!((kendall_tau(&[3.0, 1.0, 2.0], &[3.0, 2.0, 1.0]) - 1.0 / 3.0).abs() < 1e-12);
}
