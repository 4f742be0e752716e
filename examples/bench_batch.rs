//! Batch mode benchmark: a 200-round Ethics Bowl (five debaters on OpenAI, Anthropic and
//! Gemini, a Gemini judge; 20 ordered pairs × 5 dilemmas × 2 repetitions) against the
//! in-process server of the three batch APIs (`tests/support/batch_server.rs`), each batch
//! ending DELAY seconds after it was created. Reports requests, batches, waves (batches
//! created together), wall time against waves × DELAY, and the cost estimate against the
//! same tournament run without batches (each request answered on its own, same answers).
//!
//! cargo run --release --example bench_batch            # DELAY = 3 s
//! cargo run --release --example bench_batch -- 10      # DELAY = 10 s

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a benchmark: a failure stops it

#[path = "../tests/support/batch_server.rs"]
mod batch_server;

use std::path::Path;
use std::time::{Duration, Instant};

use batch_server::{BatchServer, Options};
use ethics_bowl::engine;
use ethics_bowl::store::{RoundFilter, Store};

const KEY: &str = "bench-key";

/// The tournament's files in `dir`; returns the tournament file.
fn write(dir: &Path, server: &BatchServer, batch: bool) -> std::path::PathBuf {
    let model = |name: &str, provider: &str| {
        format!(
            "[[models]]\nname = \"{name}\"\nprovider = \"{provider}\"\nmodel = \"{name}-id\"\nbase_url = \"{}\"\napi_key_env = \"BENCH_BATCH_KEY\"\nstream = false\nadaptive_concurrency = false\nmax_concurrency = 64\nprice = {{ input_per_mtok = 3.0, output_per_mtok = 15.0 }}\n",
            server.base(provider)
        )
    };
    let models = [
        model("a1", "openai"),
        model("b1", "anthropic"),
        model("g1", "google"),
        model("a2", "openai"),
        model("b2", "anthropic"),
        model("j", "google"),
    ]
    .join("\n");
    std::fs::write(
        dir.join("models.toml"),
        format!("[limits]\nmax_concurrency = 256\n\n{models}"),
    )
    .expect("models");
    let dilemmas =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-config/dilemmas.md");
    let path = dir.join("tournament.toml");
    std::fs::write(
        &path,
        format!(
            "name = \"bench-batch\"\nmodels_file = \"models.toml\"\noutput_dir = \"{}\"\ndilemma_file = \"{}\"\n\
             models = [\"a1\", \"b1\", \"g1\", \"a2\", \"b2\"]\njudges = [\"j\"]\nrepetitions = 2\n\
             dilemmas = [\"borrowed_voice\", \"reversible_promise\", \"quiet_majority\", \"sympathetic_saboteur\", \"inherited_debt\"]\n\
             max_concurrency = 64\nbatch = {batch}\nbatch_collect_s = 0.2\nbatch_poll_max_s = 0.25\n",
            dir.join("results").display(),
            dilemmas.display()
        ),
    )
    .expect("tournament");
    path
}

/// Runs the tournament; returns wall time, rounds, calls and the estimated cost.
async fn run(config: &Path) -> (Duration, usize, usize, f64) {
    let prepared = engine::prepare(config, None).expect("prepares");
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let (_commands, mut commands_rx) = tokio::sync::mpsc::unbounded_channel();
    let drain = tokio::spawn(async move { while rx.recv().await.is_some() {} });
    let start = Instant::now();
    let report = engine::run(prepared, tx, &mut commands_rx)
        .await
        .expect("runs");
    let wall = start.elapsed();
    drain.abort();
    let (rounds, errors) = Store::open(&report.dir)
        .expect("store")
        .load_rounds(&RoundFilter::default())
        .expect("rounds");
    assert!(errors.is_empty(), "{errors:?}");
    let calls = rounds.iter().map(|r| r.phases.len()).sum();
    let cost = rounds
        .iter()
        .flat_map(|r| &r.phases)
        .filter_map(|p| p.cost_usd)
        .sum();
    let complete = rounds
        .iter()
        .filter(|r| r.status == ethics_bowl::domain::RoundStatus::Complete)
        .count();
    (wall, complete, calls, cost)
}

/// Batches created within a second of each other form one wave.
fn waves(mut created: Vec<Duration>) -> usize {
    created.sort();
    let mut waves = 0;
    let mut last: Option<Duration> = None;
    for at in created {
        if last.is_none_or(|l| at - l > Duration::from_secs(1)) {
            waves += 1;
        }
        last = Some(at);
    }
    waves
}

#[tokio::main]
async fn main() {
    let delay: f64 = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("DELAY in seconds"))
        .unwrap_or(3.0);
    // SAFETY: set before the runtime's other threads read the environment.
    unsafe { std::env::set_var("BENCH_BATCH_KEY", KEY) };
    let options = Options {
        delay: Duration::from_secs_f64(delay),
        expire_after: None,
        key: KEY.to_string(),
        answer: batch_server::ethics_bowl_answers(),
        refuse: false,
    };

    let server = BatchServer::start(options.clone()).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let (wall, complete, calls, cost) = run(&write(dir.path(), &server, true)).await;
    let seen = server.seen();
    let batches: usize = seen.created.values().sum();
    let waves = waves(seen.created_at.clone());
    let ideal = Duration::from_secs_f64(delay * waves as f64);
    println!("batch mode, each batch ending {delay:.1} s after it was created:");
    println!("  rounds complete {complete}/200, calls stored {calls}");
    println!(
        "  requests {} in {batches} batches (openai {}, anthropic {}, google {}), {waves} waves",
        seen.requests,
        seen.created.get("openai").unwrap_or(&0),
        seen.created.get("anthropic").unwrap_or(&0),
        seen.created.get("google").unwrap_or(&0),
    );
    println!(
        "  wall {:.2} s against waves × delay {:.2} s: {:+.1}%; {} polls",
        wall.as_secs_f64(),
        ideal.as_secs_f64(),
        (wall.as_secs_f64() / ideal.as_secs_f64() - 1.0) * 100.0,
        seen.polls
    );

    let server = BatchServer::start(options).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let (wall_streamed, complete_streamed, calls_streamed, cost_streamed) =
        run(&write(dir.path(), &server, false)).await;
    println!("without batches (each request answered at once, same answers):");
    println!(
        "  rounds complete {complete_streamed}/200, calls {calls_streamed} ({} requests), wall {:.2} s",
        server.seen().single,
        wall_streamed.as_secs_f64()
    );
    println!(
        "cost estimate: batched ${cost:.4}, without batches ${cost_streamed:.4}: {:.1}%",
        cost / cost_streamed * 100.0
    );
}
