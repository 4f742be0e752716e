//! Adaptive concurrency against a provider's quota: an in-process server speaking OpenAI's
//! streamed chat completions enforces R requests and T tokens per period P, and N calls are
//! driven through the real `ModelClient`s (default retry policy) in three modes side by
//! side: adaptive (`adaptive_concurrency = true`, `max_concurrency = 32`), and today's fixed
//! window at `max_concurrency = 8` (a guess too low) and `32` (too high).
//!
//! The quota is modelled as OpenAI describes its limits: two buckets (requests, tokens) that
//! refill continuously at R/P and T/P, hold at most R and T, and start full. A request is
//! admitted when the requests bucket holds one request and the tokens bucket its cost (the
//! prompt estimated as its characters ÷ 4, plus the answer's output tokens, as OpenAI counts
//! before answering); otherwise it gets an immediate 429 with `retry-after` (whole seconds,
//! rounded up), OpenAI's error JSON and the same headers. Every response carries
//! `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`, the resets as Go durations
//! (`120ms`, `6.5s`, `1m0s`) naming the time until the bucket is full again, as OpenAI's do.
//! An admitted answer (headers and body) is sent after the latency.
//!
//! `--fixed-windows` makes each quota whole at every multiple of P instead (its reset naming
//! the time until then), to show the limiter on a provider that counts that way.
//!
//! Reported per mode: calls answered and failed after retries, wall time, throughput against
//! the binding quota (the quota-limited ideal time for the calls answered over the wall
//! time: from full buckets refilling at R/P and T/P, or, with fixed windows, the start of
//! the window the last call lands in when every window is filled in turn, plus one answer's
//! latency), the requests and tokens the client drew per period while calls waited (buckets:
//! beyond the full buckets it started with, up to the last admission; fixed windows: in the
//! whole windows before the last admission's, each of which had calls waiting), 429s met
//! per 1,000 calls, and the median/p95 of the answered attempt's latency and of the whole
//! call (queueing, holds and retries included).
//!
//! Requests-bound (R = 300 per 6 s, 50/s, 15 calls in flight to use it at 300 ms):
//! cargo run --release --example bench_quota -- --period 6 --requests 300 --tokens 1000000
//! Tokens-bound (T = 120,000 per 6 s; about 400 tokens a call, so again about 50 calls/s):
//! cargo run --release --example bench_quota -- --period 6 --requests 1200 --tokens 120000
//! Three names on one quota of 30 requests a minute (a debater and two judges that are one
//! provider model on one key), 84 calls:
//! cargo run --release --example bench_quota -- --period 60 --requests 30 --calls 84 --names 3 --modes adaptive

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a benchmark: a failure stops it

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use clap::Parser;
use ethics_bowl::config::ModelsConfig;
use ethics_bowl::providers::{ChatRequest, ModelRegistry};
use http_body_util::{BodyExt, Full};
use hyper::header::{HeaderName, HeaderValue};
use tokio::time::Instant;

/// The benchmark's knobs.
#[derive(Parser, Debug, Clone)]
#[command(about = "Adaptive vs fixed concurrency against an enforced requests/tokens quota")]
struct Args {
    /// Requests allowed per period (R).
    #[arg(long, default_value_t = 300)]
    requests: u64,
    /// Tokens allowed per period (T).
    #[arg(long, default_value_t = 1_000_000)]
    tokens: u64,
    /// The quota's period in seconds (P): 60 as real providers; smaller to run in minutes.
    #[arg(long, default_value_t = 60.0)]
    period: f64,
    /// Calls per run, all queued at once.
    #[arg(long, default_value_t = 1000)]
    calls: usize,
    /// Milliseconds from admission to the answer.
    #[arg(long, default_value_t = 300)]
    latency_ms: u64,
    /// Output tokens of every answer.
    #[arg(long, default_value_t = 200)]
    output_tokens: u64,
    /// Runs of each mode.
    #[arg(long, default_value_t = 1)]
    runs: usize,
    /// Fixed windows instead of buckets: each quota is whole again at every multiple of P
    /// and its reset names the time until then (how some other providers count).
    #[arg(long)]
    fixed_windows: bool,
    /// Print the requests admitted in every second of each run.
    #[arg(long)]
    timeline: bool,
    /// Only these modes (adaptive, fixed8, fixed32); all when absent.
    #[arg(long, value_delimiter = ',')]
    modes: Vec<String>,
    /// Configured names on the one quota (the same provider model and key at other
    /// temperatures, as a debater and its judges), the calls dealt among them in turn.
    #[arg(long, default_value_t = 1)]
    names: usize,
}

/// One quota: a bucket refilling continuously, or (with `window`) one made whole at every
/// multiple of its period from `started`.
#[derive(Debug)]
struct Bucket {
    capacity: f64,
    level: f64,
    per_second: f64,
    at: Instant,
    window: Option<(Instant, Duration)>,
}

impl Bucket {
    fn full(capacity: u64, period: Duration, now: Instant, fixed_window: bool) -> Self {
        Self {
            capacity: capacity as f64,
            level: capacity as f64,
            per_second: capacity as f64 / period.as_secs_f64(),
            at: now,
            window: fixed_window.then_some((now, period)),
        }
    }

    /// The end of the fixed window `now` is in.
    fn window_end(started: Instant, period: Duration, now: Instant) -> Instant {
        let index = (now.duration_since(started).as_secs_f64() / period.as_secs_f64()).floor();
        started + period.mul_f64(index + 1.0)
    }

    fn refill(&mut self, now: Instant) {
        match self.window {
            Some((started, period)) => {
                if Self::window_end(started, period, self.at) <= now {
                    self.level = self.capacity;
                }
            }
            None => {
                let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
                self.level = (self.level + elapsed * self.per_second).min(self.capacity);
            }
        }
        self.at = now;
    }

    /// The time until `amount` is in the bucket.
    fn wait_for(&self, amount: f64) -> Duration {
        match self.window {
            Some(_) if self.level >= amount => Duration::ZERO,
            Some((started, period)) => {
                Self::window_end(started, period, self.at).saturating_duration_since(self.at)
            }
            None => Duration::from_secs_f64(((amount - self.level) / self.per_second).max(0.0)),
        }
    }

    fn remaining(&self) -> u64 {
        self.level.max(0.0).floor() as u64
    }

    /// The time until the bucket is full: OpenAI's `x-ratelimit-reset-*`.
    fn reset(&self) -> Duration {
        self.wait_for(self.capacity)
    }
}

/// Which quota refused a request.
#[derive(Debug, Clone, Copy)]
enum Refusal {
    Requests,
    Tokens,
}

/// The server's quota and what it did.
#[derive(Debug)]
struct Quota {
    requests: Bucket,
    tokens: Bucket,
    started: Instant,
    /// Seconds since the start and token cost of every admitted request.
    admitted: Vec<(f64, u64)>,
    refused_requests: u64,
    refused_tokens: u64,
}

impl Quota {
    /// Admits a request costing `cost` tokens, or says which quota refuses it and for how
    /// long.
    fn admit(&mut self, cost: u64, now: Instant) -> Result<(), (Refusal, Duration)> {
        self.requests.refill(now);
        self.tokens.refill(now);
        if self.requests.level < 1.0 {
            self.refused_requests += 1;
            return Err((Refusal::Requests, self.requests.wait_for(1.0)));
        }
        if self.tokens.level < cost as f64 {
            self.refused_tokens += 1;
            return Err((Refusal::Tokens, self.tokens.wait_for(cost as f64)));
        }
        self.requests.level -= 1.0;
        self.tokens.level -= cost as f64;
        let at = now.duration_since(self.started).as_secs_f64();
        self.admitted.push((at, cost));
        Ok(())
    }

    fn headers(&self) -> [(&'static str, String); 6] {
        [
            (
                "x-ratelimit-limit-requests",
                (self.requests.capacity as u64).to_string(),
            ),
            (
                "x-ratelimit-remaining-requests",
                self.requests.remaining().to_string(),
            ),
            (
                "x-ratelimit-reset-requests",
                go_duration(self.requests.reset()),
            ),
            (
                "x-ratelimit-limit-tokens",
                (self.tokens.capacity as u64).to_string(),
            ),
            (
                "x-ratelimit-remaining-tokens",
                self.tokens.remaining().to_string(),
            ),
            ("x-ratelimit-reset-tokens", go_duration(self.tokens.reset())),
        ]
    }
}

/// A duration as Go prints it, as OpenAI's reset headers do: `120ms`, `6.5s`, `1m0s`.
fn go_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        return format!("{ms}ms");
    }
    let seconds = (ms % 60_000) as f64 / 1000.0;
    let minutes = ms / 60_000;
    let seconds = format!("{seconds:.3}");
    let seconds = seconds.trim_end_matches('0').trim_end_matches('.');
    if minutes > 0 {
        format!("{minutes}m{seconds}s")
    } else {
        format!("{seconds}s")
    }
}

/// What the server serves with.
struct Server {
    quota: Mutex<Quota>,
    latency: Duration,
    output_tokens: u64,
    /// The streamed answer, every chunk but the usage report.
    answer: String,
}

/// `words` words as OpenAI's streamed chunks, eight to a chunk, ending with `stop`.
fn sse_answer(words: u64) -> String {
    let text = "word ".repeat(words as usize);
    let pieces: Vec<&str> = text.split_inclusive(' ').collect();
    let mut out = String::new();
    for piece in pieces.chunks(8) {
        let delta = serde_json::json!({"choices": [{"index": 0, "delta": {"content": piece.concat()}, "finish_reason": null}]});
        out.push_str(&format!("data: {delta}\n\n"));
    }
    out.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n");
    out
}

/// The prompt's estimated tokens: its messages' characters ÷ 4, rounded up.
fn prompt_tokens(body: &[u8]) -> u64 {
    let chars: usize = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| {
            v.get("messages")?.as_array().map(|messages| {
                messages
                    .iter()
                    .filter_map(|m| m.get("content")?.as_str())
                    .map(|c| c.chars().count())
                    .sum()
            })
        })
        .unwrap_or(0);
    chars.div_ceil(4) as u64
}

async fn respond(
    server: Arc<Server>,
    request: hyper::Request<hyper::body::Incoming>,
) -> Result<hyper::Response<Full<Bytes>>, hyper::Error> {
    let body = request.into_body().collect().await?.to_bytes();
    let prompt = prompt_tokens(&body);
    let cost = prompt + server.output_tokens;
    let (admitted, headers) = {
        let mut quota = server.quota.lock().unwrap_or_else(|e| e.into_inner());
        let admitted = quota.admit(cost, Instant::now());
        (admitted, quota.headers())
    };
    let mut response = match admitted {
        Ok(()) => {
            tokio::time::sleep(server.latency).await;
            let mut out = server.answer.clone();
            out.push_str(&format!(
                "data: {{\"choices\":[],\"usage\":{{\"prompt_tokens\":{prompt},\"completion_tokens\":{}}}}}\n\ndata: [DONE]\n\n",
                server.output_tokens
            ));
            let mut response = hyper::Response::new(Full::new(Bytes::from(out)));
            response.headers_mut().insert(
                hyper::header::CONTENT_TYPE,
                HeaderValue::from_static("text/event-stream"),
            );
            response
        }
        Err((refusal, wait)) => {
            let (kind, unit, limit) = match refusal {
                Refusal::Requests => ("requests", "requests per min (RPM)", &headers[0].1),
                Refusal::Tokens => ("tokens", "tokens per min (TPM)", &headers[3].1),
            };
            let message = format!(
                "Rate limit reached for bench-model in organization org-bench on {unit}: \
                 Limit {limit}, Requested {}. Please try again in {}. Visit \
                 https://platform.openai.com/account/rate-limits to learn more.",
                if kind == "tokens" { cost } else { 1 },
                go_duration(wait)
            );
            let error = serde_json::json!({"error": {"message": message, "type": kind, "param": null, "code": "rate_limit_exceeded"}});
            let mut response = hyper::Response::new(Full::new(Bytes::from(error.to_string())));
            *response.status_mut() = hyper::StatusCode::TOO_MANY_REQUESTS;
            let seconds = wait.as_secs_f64().ceil().max(1.0) as u64;
            response
                .headers_mut()
                .insert(hyper::header::RETRY_AFTER, HeaderValue::from(seconds));
            response.headers_mut().insert(
                hyper::header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            response
        }
    };
    for (name, value) in headers {
        if let Ok(value) = HeaderValue::from_str(&value) {
            response
                .headers_mut()
                .insert(HeaderName::from_static(name), value);
        }
    }
    Ok(response)
}

/// Serves `server` over HTTP/1.1 on a free port; returns the base URL.
async fn serve(server: Arc<Server>) -> std::io::Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}/v1", listener.local_addr()?);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let _ = stream.set_nodelay(true);
            let server = Arc::clone(&server);
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| {
                    respond(Arc::clone(&server), request)
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Ok(base)
}

/// One way of setting the model's concurrency.
#[derive(Debug, Clone, Copy)]
struct Mode {
    name: &'static str,
    adaptive: bool,
    max_concurrency: u32,
}

const MODES: [Mode; 3] = [
    Mode {
        name: "adaptive",
        adaptive: true,
        max_concurrency: 32,
    },
    Mode {
        name: "fixed8",
        adaptive: false,
        max_concurrency: 8,
    },
    Mode {
        name: "fixed32",
        adaptive: false,
        max_concurrency: 32,
    },
];

/// One run's figures.
#[derive(Debug)]
struct Figures {
    answered: usize,
    failed: usize,
    wall: Duration,
    /// The quota-limited ideal time for every call, over the wall time.
    throughput: f64,
    /// Requests and tokens the client drew from the quota per period while calls waited:
    /// beyond the full buckets at the start (buckets), or in the whole windows before the
    /// last admission's (fixed windows).
    used_per_period: Option<(f64, f64)>,
    refused: u64,
    attempt_ms: (u64, u64),
    call_ms: (u64, u64),
    window_after: u32,
}

/// The earliest the last call could be admitted under fixed windows, in seconds from the
/// start: the start of the window it lands in when every window is filled to its requests
/// and tokens in turn with the calls as admitted.
fn fixed_window_ideal(admitted: &[(f64, u64)], args: &Args) -> f64 {
    let (mut window, mut requests, mut tokens) = (0u64, 0u64, 0u64);
    for (_, cost) in admitted {
        if requests + 1 > args.requests || tokens + cost > args.tokens {
            window += 1;
            (requests, tokens) = (0, 0);
        }
        requests += 1;
        tokens += cost;
    }
    window as f64 * args.period
}

/// Requests and tokens admitted per window in the whole windows before the one of the last
/// admission (`last`, seconds from the start): every one of them had calls waiting.
fn used_in_whole_windows(admitted: &[(f64, u64)], args: &Args, last: f64) -> Option<(f64, f64)> {
    let windows = (last / args.period).floor();
    let end = windows * args.period;
    let within = admitted.iter().filter(|(at, _)| *at < end);
    let (requests, tokens) = within.fold((0u64, 0u64), |(r, t), (_, cost)| (r + 1, t + cost));
    (windows > 0.0).then(|| (requests as f64 / windows, tokens as f64 / windows))
}

fn percentiles(mut values: Vec<u64>) -> (u64, u64) {
    if values.is_empty() {
        return (0, 0);
    }
    values.sort_unstable();
    let at = |share: f64| values[((values.len() - 1) as f64 * share).round() as usize];
    (at(0.5), at(0.95))
}

async fn run(args: &Args, mode: Mode) -> Figures {
    let period = Duration::from_secs_f64(args.period);
    let now = Instant::now();
    let server = Arc::new(Server {
        quota: Mutex::new(Quota {
            requests: Bucket::full(args.requests, period, now, args.fixed_windows),
            tokens: Bucket::full(args.tokens, period, now, args.fixed_windows),
            started: now,
            admitted: Vec::new(),
            refused_requests: 0,
            refused_tokens: 0,
        }),
        latency: Duration::from_millis(args.latency_ms),
        output_tokens: args.output_tokens,
        answer: sse_answer(args.output_tokens),
    });
    let base = serve(Arc::clone(&server)).await.expect("bench server");
    let names: Vec<String> = (1..=args.names.max(1)).map(|i| format!("m{i}")).collect();
    let models: String = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            format!(
                "[[models]]\nname = \"{name}\"\nprovider = \"openai\"\nmodel = \"bench-model\"\n\
                 api_key_env = \"BENCH_QUOTA_KEY\"\nbase_url = \"{base}\"\nmax_tokens = {}\n\
                 max_concurrency = {}\nadaptive_concurrency = {}\ntemperature = {:.1}\n\n",
                args.output_tokens * 2,
                mode.max_concurrency,
                mode.adaptive,
                i as f64 * 0.5
            )
        })
        .collect();
    let text = format!("[limits]\nmax_concurrency = 100000\n\n{models}");
    let config = ModelsConfig::parse(&text, std::path::Path::new("bench-models.toml"))
        .expect("models config");
    let registry = ModelRegistry::build_with_env(
        &config,
        names.iter().map(String::as_str),
        &Default::default(),
        |var| (var == "BENCH_QUOTA_KEY").then(|| "sk-bench".to_string()),
    )
    .expect("registry");
    let clients: Vec<_> = names
        .iter()
        .map(|name| registry.get(name).expect("client"))
        .collect();
    // A prompt of about 200 tokens, as a short debate turn's.
    let context =
        "The case concerns a hospital deciding who receives a scarce treatment. ".repeat(11);
    let start = Instant::now();
    let calls: Vec<_> = (0..args.calls)
        .map(|i| {
            let client = Arc::clone(&clients[i % clients.len()]);
            let request = ChatRequest::new(
                "You are a careful ethicist.",
                format!("{context}Question {i}: what should be done?"),
            );
            tokio::spawn(async move {
                let began = Instant::now();
                let result = client.complete(&request, &mut |_| {}).await;
                (result, began.elapsed())
            })
        })
        .collect();
    let (mut answered, mut failed) = (0, 0);
    let (mut attempt_ms, mut call_ms) = (Vec::new(), Vec::new());
    for call in calls {
        let (result, took) = call.await.expect("call task");
        match result {
            Ok(outcome) => {
                answered += 1;
                attempt_ms.extend(outcome.attempts.last().map(|a| a.latency_ms));
                call_ms.push(took.as_millis() as u64);
            }
            Err(_) => failed += 1,
        }
    }
    let wall = start.elapsed();
    let window_after = clients[0].rate_snapshot().window;
    let quota = server.quota.lock().unwrap_or_else(|e| e.into_inner());
    if args.timeline {
        let mut per_second =
            vec![0u32; quota.admitted.last().map_or(0, |(at, _)| *at as usize + 1)];
        for (at, _) in &quota.admitted {
            per_second[*at as usize] += 1;
        }
        eprintln!("{}: admitted per second: {per_second:?}", mode.name);
    }
    let total_tokens: u64 = quota.admitted.iter().map(|(_, cost)| cost).sum();
    let latency = args.latency_ms as f64 / 1000.0;
    let last = quota.admitted.last().map_or(0.0, |(at, _)| *at);
    let (ideal, used_per_period) = if args.fixed_windows {
        (
            fixed_window_ideal(&quota.admitted, args) + latency,
            used_in_whole_windows(&quota.admitted, args, last),
        )
    } else {
        let ideal =
            |needed: f64, capacity: f64| ((needed - capacity).max(0.0) / capacity) * args.period;
        // What the client drew from the refill: the admissions beyond the full buckets it
        // started with, per period up to the last admission.
        let periods = last / args.period;
        (
            ideal(answered as f64, args.requests as f64)
                .max(ideal(total_tokens as f64, args.tokens as f64))
                + latency,
            (last > 0.0).then(|| {
                (
                    (quota.admitted.len() as f64 - args.requests as f64).max(0.0) / periods,
                    (total_tokens as f64 - args.tokens as f64).max(0.0) / periods,
                )
            }),
        )
    };
    Figures {
        answered,
        failed,
        wall,
        throughput: ideal / wall.as_secs_f64(),
        used_per_period,
        refused: quota.refused_requests + quota.refused_tokens,
        attempt_ms: percentiles(attempt_ms),
        call_ms: percentiles(call_ms),
        window_after,
    }
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    let modes: Vec<Mode> = MODES
        .into_iter()
        .filter(|m| args.modes.is_empty() || args.modes.iter().any(|n| n == m.name))
        .collect();
    let per_minute = 60.0 / args.period;
    println!(
        "quota: R = {} requests and T = {} tokens per P = {} s (= {:.0} RPM, {:.0} TPM); \
         {} calls queued at once over {} name(s) on the quota, {} ms per answer, {} output \
         tokens each; {}; default retry policy",
        args.requests,
        args.tokens,
        args.period,
        args.requests as f64 * per_minute,
        args.tokens as f64 * per_minute,
        args.calls,
        args.names.max(1),
        args.latency_ms,
        args.output_tokens,
        if args.fixed_windows {
            "fixed windows, whole at every multiple of P"
        } else {
            "buckets refill continuously and start full"
        }
    );
    println!(
        "| mode | run | answered | failed | wall s | throughput vs quota (answered calls) | requests used per P while calls waited (% of R) | tokens used per P while calls waited (% of T) | 429s per 1,000 calls | attempt p50/p95 ms | call p50/p95 s | window at end |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for run_number in 1..=args.runs {
        for mode in &modes {
            let f = run(&args, *mode).await;
            let refill = |pick: fn(&(f64, f64)) -> f64, of: u64| {
                f.used_per_period.as_ref().map_or("n/a".to_string(), |s| {
                    format!("{:.0} ({:.0}%)", pick(s), pick(s) / of as f64 * 100.0)
                })
            };
            println!(
                "| {} | {run_number} | {} | {} | {:.1} | {:.1}% | {} | {} | {:.1} | {}/{} | {:.1}/{:.1} | {} |",
                mode.name,
                f.answered,
                f.failed,
                f.wall.as_secs_f64(),
                f.throughput * 100.0,
                refill(|s| s.0, args.requests),
                refill(|s| s.1, args.tokens),
                f.refused as f64 * 1000.0 / args.calls as f64,
                f.attempt_ms.0,
                f.attempt_ms.1,
                f.call_ms.0 as f64 / 1000.0,
                f.call_ms.1 as f64 / 1000.0,
                f.window_after,
            );
        }
    }
}
