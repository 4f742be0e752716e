//! Search benchmark: `Store::search` over 1,000 stored Ethics Bowl rounds with full
//! transcripts (six phases each, answers of ~3,000 characters and prompts quoting the
//! earlier answers, as real rounds hold), for queries from rare to everywhere, with the page
//! cache warm. Prints the median and p90 of each query and over all of them.
//!
//! cargo run --release --example bench_search

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a benchmark: a failure stops it

use std::time::{Duration, Instant};

use ethics_bowl::domain::{Judgment, Phase, PhaseType, Reading, Round, RoundRecord, RoundStatus};
use ethics_bowl::store::{SearchQuery, Store};

const ROUNDS: usize = 1000;
const RUNS: usize = 21;
const LIMIT: usize = ethics_bowl::tui::screens::search::HIT_LIMIT;

const WORDS: &[&str] = &[
    "the",
    "principle",
    "stakeholders",
    "consequences",
    "duty",
    "harm",
    "consent",
    "trust",
    "uncertain",
    "weigh",
    "grief",
    "memory",
    "voice",
    "promise",
    "child",
    "decide",
    "family",
    "obligation",
    "care",
    "autonomy",
    "respect",
    "honesty",
    "fairness",
    "risk",
    "benefit",
    "would",
    "because",
    "however",
    "and",
    "of",
    "to",
    "a",
    "in",
    "that",
    "is",
    "not",
];

/// Text of about `chars` characters, varied by `seed` (a tiny linear congruential
/// generator: the benchmark needs variety, not randomness).
fn text(seed: u64, chars: usize) -> String {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut out = String::with_capacity(chars + 16);
    let mut sentence: u32 = 0;
    while out.len() < chars {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let word = WORDS[(state >> 33) as usize % WORDS.len()];
        out.push_str(word);
        sentence += 1;
        // Sentences of 14 words, paragraphs of four, a quoted phrase in each paragraph.
        if sentence.is_multiple_of(56) {
            out.push_str(".\n\n");
        } else if sentence.is_multiple_of(14) {
            out.push_str(". ");
        } else if sentence % 56 == 30 {
            out.push_str(", \"quoted\" ");
        } else {
            out.push(' ');
        }
    }
    out
}

fn round(i: usize) -> Round {
    let a = format!("model-{}", i % 10);
    let b = format!("model-{}", (i / 10) % 10);
    let dilemma = format!("dilemma_{}", i / 100);
    let mut phases: Vec<Phase> = Vec::new();
    let kinds = [
        (PhaseType::Presentation, &a),
        (PhaseType::Response, &b),
        (PhaseType::Rebuttal, &a),
        (PhaseType::ConsistencyTest, &a),
        (PhaseType::ConsistencyTestB, &b),
        (PhaseType::Judgment, &"judge".to_string()),
    ];
    for (n, (kind, model)) in kinds.iter().enumerate() {
        let mut answer = text((i * 10 + n) as u64, 3000);
        if i == 617 && n == 2 {
            answer.push_str(" The Lighthouse Keeper's ledger.");
        }
        if i.is_multiple_of(50) && n == 1 {
            answer.push_str(" Éthique appliquée.");
        }
        let earlier: Vec<&str> = phases.iter().map(|p| p.response.as_str()).collect();
        phases.push(Phase {
            prompt: format!(
                "## The case\n{}\n\n{}",
                text(i as u64, 1500),
                earlier.join("\n\n")
            ),
            system_prompt: "You are a careful ethicist.".into(),
            timestamp: "2026-11-23T08:00:00Z".into(),
            latency_ms: Some(4200),
            input_tokens: Some(1800),
            output_tokens: Some(700),
            cost_usd: Some(0.0021),
            finish_reason: Some("stop".into()),
            ..Phase::new(*kind, model, &answer)
        });
    }
    let mut judgment = Judgment::new(
        "judge",
        Reading::empty(ethics_bowl::domain::ProtocolKind::EthicsBowl),
    );
    judgment.raw_response = phases[5].response.clone();
    Round {
        id: format!("{dilemma}__{a}__vs__{b}__r{}", i % 7 + 1),
        dilemma_id: dilemma,
        repetition: 1,
        team_a_model: a,
        team_b_model: b,
        judge_model: "judge".into(),
        judge_models: vec!["judge".into()],
        phases,
        scores: Some(judgment.clone()),
        judgments: vec![judgment],
        status: RoundStatus::Complete,
        error: None,
        earlier_errors: Vec::new(),
        panel: None,
        record: RoundRecord::EthicsBowl,
        timestamp: "2026-11-23T08:00:00Z".into(),
    }
}

fn quantile(sorted: &[Duration], q: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// The CPU time the process has used (every thread, user and system), from
/// `/proc/self/stat` in clock ticks of 10 ms; `None` off Linux. The machine may be shared, so
/// CPU time tells the work a search takes apart from the wait for a core.
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit(')').next()?.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let store = Store::create(dir.path())?;
    let mut bytes = 0;
    for i in 0..ROUNDS {
        let r = round(i);
        store.save_round(&r)?;
        bytes += std::fs::metadata(store.round_path(&r.id)?)?.len();
    }
    println!(
        "{ROUNDS} round files, {:.1} MB in all; {} threads available",
        bytes as f64 / 1e6,
        std::thread::available_parallelism().map_or(1, usize::from)
    );
    let queries = [
        ("rare phrase (one round)", "lighthouse keeper"),
        ("non-ASCII word (20 rounds)", "éthique"),
        ("model name (every 10th round's id)", "model-7"),
        ("word in every answer", "stakeholders"),
        ("quoted text in every answer", "\"quoted\" duty"),
        ("no match", "zeppelin"),
    ];
    let mut all = Vec::new();
    println!(
        "{:<38} {:>9} {:>10} {:>10} {:>10}",
        "query", "hits", "median", "p90", "CPU/search"
    );
    for (label, q) in queries {
        let query = SearchQuery::new(q);
        let hits = store.search(&query, LIMIT)?.len();
        let cpu_before = cpu_time();
        let mut times: Vec<Duration> = (0..RUNS)
            .map(|_| {
                let start = Instant::now();
                let _ = store.search(&query, LIMIT);
                start.elapsed()
            })
            .collect();
        let cpu = cpu_time()
            .zip(cpu_before)
            .map_or("?".into(), |(after, before)| {
                ms((after - before) / RUNS as u32)
            });
        times.sort();
        all.extend_from_slice(&times);
        println!(
            "{label:<38} {hits:>9} {:>10} {:>10} {cpu:>10}",
            ms(quantile(&times, 0.5)),
            ms(quantile(&times, 0.9))
        );
    }
    all.sort();
    // The UI stops at LIMIT hits; a query in every answer with no limit walks every file.
    let query = SearchQuery::new("stakeholders");
    let mut times: Vec<Duration> = (0..5)
        .map(|_| {
            let start = Instant::now();
            let _ = store.search(&query, usize::MAX);
            start.elapsed()
        })
        .collect();
    times.sort();
    println!(
        "{:<38} {:>9} {:>10} {:>10}",
        "word in every answer, no limit",
        store.search(&query, usize::MAX)?.len(),
        ms(quantile(&times, 0.5)),
        ms(quantile(&times, 0.9))
    );
    println!(
        "all queries: median {}, p90 {} (target < 50 ms; limit {LIMIT} hits)",
        ms(quantile(&all, 0.5)),
        ms(quantile(&all, 0.9))
    );
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "load average while measuring: {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!("command: cargo run --release --example bench_search");
    Ok(())
}
