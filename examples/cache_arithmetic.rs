//! The caching arithmetic of a stored tournament: how much of each call's prompt a
//! provider's prefix cache could have served, and what that saves at each provider's
//! published cache prices (the defaults of the models file's `price`).
//!
//! Each call is the text a provider reads, in order: the system prompt, the earlier turns,
//! the prompt. Calls are replayed model by model in the order they finished; a call's
//! cached part is the longest start it shares with an earlier call of the same model,
//! counted when it reaches `--min-tokens` (1,024 by default: OpenAI's and Anthropic's
//! minimum for most models, Gemini 2.5 Flash's) and rounded down to 128-token steps
//! (OpenAI's). On Anthropic the part of a call that a later call reads is first written at
//! the cache-write price (an ideal breakpoint, at the end of what is shared). Tokens are
//! counted as the simulated provider counts them, four characters to a token; the cache is
//! assumed to live long enough (five minutes on Anthropic, refreshed on each read).
//!
//! cargo run --example cache_arithmetic -- results/sample [--min-tokens 1024]

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a tool for the docs: a failure stops it

use std::collections::BTreeMap;
use std::path::PathBuf;

use ethics_bowl::config::{BilledTokens, Price, ProviderKind};
use ethics_bowl::domain::Phase;
use ethics_bowl::store::{RoundFilter, Store};

/// The price the savings are shown at: $3 a million input tokens, $15 output.
const PRICE: Price = Price {
    input_per_mtok: 3.0,
    output_per_mtok: 15.0,
    cached_input_per_mtok: None,
    cache_write_per_mtok: None,
};

/// Tokens as the simulated provider counts them.
fn tokens(bytes: usize) -> u64 {
    (bytes as u64).div_ceil(4)
}

/// What a provider reads of a call, as one text.
fn request_text(p: &Phase) -> String {
    let mut parts = vec![p.system_prompt.as_str()];
    parts.extend(p.earlier_turns.iter().map(String::as_str));
    parts.push(p.prompt.as_str());
    parts.join("\u{0}")
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

/// A shared start as a cache counts it: nothing below the minimum, else whole steps.
fn cacheable(shared_bytes: usize, min_tokens: u64) -> u64 {
    let t = tokens(shared_bytes).saturating_sub(1);
    if t < min_tokens { 0 } else { t / 128 * 128 }
}

#[derive(Default)]
struct Tally {
    calls: u64,
    input: u64,
    output: u64,
    read: u64,
    written: u64,
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut dir = None;
    let mut min_tokens = 1024;
    while let Some(a) = args.next() {
        if a == "--min-tokens" {
            min_tokens = args
                .next()
                .and_then(|n| n.parse().ok())
                .expect("--min-tokens N");
        } else {
            dir = Some(PathBuf::from(a));
        }
    }
    let dir = dir.expect("usage: cache_arithmetic RESULTS_DIR [--min-tokens N]");
    let store = Store::open(&dir).expect("a results folder");
    let (rounds, _) = store
        .load_rounds(&RoundFilter::default())
        .expect("its rounds");
    // Every answered call, in the order the calls finished.
    let mut calls: Vec<&Phase> = rounds
        .iter()
        .flat_map(|r| &r.phases)
        .filter(|p| p.error.is_none() && !p.prompt.is_empty())
        .collect();
    calls.sort_by(|a, b| a.timestamp.cmp(&b.timestamp));
    let texts: Vec<String> = calls.iter().map(|p| request_text(p)).collect();
    let mut by_phase: BTreeMap<String, Tally> = BTreeMap::new();
    for (i, p) in calls.iter().enumerate() {
        let same_model = |j: &usize| calls[*j].model_id == p.model_id;
        let read = (0..i)
            .filter(same_model)
            .map(|j| cacheable(common_prefix(&texts[i], &texts[j]), min_tokens))
            .max()
            .unwrap_or(0);
        let reused = (i + 1..calls.len())
            .filter(same_model)
            .map(|j| cacheable(common_prefix(&texts[i], &texts[j]), min_tokens))
            .max()
            .unwrap_or(0);
        let t = by_phase
            .entry(p.phase_type.as_str().to_string())
            .or_default();
        t.calls += 1;
        t.input += tokens(texts[i].len());
        t.output += p.output_tokens.unwrap_or(0);
        t.read += read;
        t.written += reused.saturating_sub(read);
    }
    println!(
        "{} calls in {} rounds of {}; cached from {min_tokens} tokens on, in 128-token steps\n",
        calls.len(),
        rounds.len(),
        dir.display()
    );
    println!(
        "| phase | calls | input tokens | shared per call | read from cache | share | written (Anthropic) |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    let mut all = Tally::default();
    for (phase, t) in &by_phase {
        println!(
            "| {phase} | {} | {} | {} | {} | {:.0}% | {} |",
            t.calls,
            t.input,
            t.read / t.calls.max(1),
            t.read,
            100.0 * t.read as f64 / t.input.max(1) as f64,
            t.written
        );
        all.calls += t.calls;
        all.input += t.input;
        all.output += t.output;
        all.read += t.read;
        all.written += t.written;
    }
    println!(
        "| all | {} | {} | {} | {} | {:.0}% | {} |\n",
        all.calls,
        all.input,
        all.read / all.calls.max(1),
        all.read,
        100.0 * all.read as f64 / all.input.max(1) as f64,
        all.written
    );
    println!(
        "At ${} a million input tokens and ${} output, each provider's cache prices by default:\n",
        PRICE.input_per_mtok, PRICE.output_per_mtok
    );
    println!("| provider | cached input | cache write | cost without cache | with cache | saved |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    for provider in [
        ProviderKind::Openai,
        ProviderKind::Google,
        ProviderKind::Anthropic,
    ] {
        let written = if provider == ProviderKind::Anthropic {
            all.written
        } else {
            0
        };
        let full = PRICE.cost(
            provider,
            BilledTokens {
                input: all.input,
                output: all.output,
                ..BilledTokens::default()
            },
        );
        let cached = PRICE.cost(
            provider,
            BilledTokens {
                input: all.input,
                cached: all.read,
                written,
                output: all.output,
            },
        );
        println!(
            "| {provider} | {:.2}× | {:.2}× | ${:.4} | ${:.4} | ${:.4} ({:.0}%) |",
            Price::default_cached_input_ratio(provider),
            Price::default_cache_write_ratio(provider),
            full.cost_usd,
            cached.cost_usd,
            cached.saved_usd,
            100.0 * cached.saved_usd / full.cost_usd.max(f64::MIN_POSITIVE)
        );
    }
}
