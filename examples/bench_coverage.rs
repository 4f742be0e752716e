//! How often the judge effects' 95% intervals contain the truth: seeded Ethics Bowl
//! tournaments of simulated models with set truths (three debaters whose form varies from
//! exchange to exchange, three judges with different leniencies and a position bias; every
//! pairing on every sample dilemma, every judge on every round), each analysed; beside the
//! same fit with intervals that count each judgment as its own exchange. Target: 93–97%.
//!
//! cargo run --release --example bench_coverage [TOURNAMENTS] [PERFORMANCE_SD]
//!
//! Defaults: 200 tournaments, performance_sd 2.0 (points per criterion; the judges' own
//! noise is 1.0).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a benchmark: a failure stops it

// The study itself is the tests' (`tests/support/coverage.rs`, which `tests/coverage.rs`
// runs small), so that the benchmark and the test measure the same thing.
#[path = "../tests/support/coverage.rs"]
mod coverage;
#[path = "../tests/support/tournament.rs"]
#[allow(dead_code)] // the coverage study uses part of it
mod tournament;

use coverage::{Coverage, Tally, one};

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let tournaments: u64 = args.next().map_or(200, |a| a.parse().expect("a count"));
    let sd: f64 = args.next().map_or(2.0, |a| a.parse().expect("a number"));
    let started = std::time::Instant::now();
    let mut all = Coverage::default();
    for seed in 0..tournaments {
        let dir = tempfile::tempdir().expect("a folder");
        all.merge(&one(seed, sd, dir.path()).await);
    }
    let line = |what: &str, t: Tally, naive: Tally| {
        println!(
            "{what:<28} {:>5.1}% of {:>4}   {:>5.1}% of {:>4}",
            100.0 * t.share(),
            t.drawn,
            100.0 * naive.share(),
            naive.drawn
        );
    };
    println!(
        "{tournaments} tournaments, performance_sd {sd}, {:.1} s\n\
         {:<28} {:>15}   {:>15}",
        started.elapsed().as_secs_f64(),
        "95% intervals holding the truth",
        "by exchanges",
        "by judgments"
    );
    line("adjusted model scores", all.models, all.models_by_judgment);
    line("judge leniencies", all.judges, all.judges_by_judgment);
    line("side effect", all.side, all.side_by_judgment);
}
