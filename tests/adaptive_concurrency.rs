//! Adaptive concurrency against an in-process server that enforces a request quota per
//! window and sends OpenAI's rate-limit headers: a burst of calls under `max_concurrency = 16`
//! is answered in full with few 429s when the window adapts, where a fixed 16 meets many;
//! three names on one quota (fixed window and token bucket) pace it as one; and Anthropic's
//! quota headers reach the model's snapshot.
//!
//! The quota window is real time (6 requests per 300 ms), not a paused tokio clock: the mock
//! server answers on its own threads over real sockets, so a paused clock in the test would
//! jump the client's waits past the server's windows instead of keeping them in step.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ethics_bowl::config::ModelsConfig;
use ethics_bowl::providers::{ChatRequest, ModelRegistry, RateSnapshot};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

const QUOTA: usize = 6;
const PERIOD: Duration = Duration::from_millis(300);
const CALLS: usize = 30;

/// Counts of what the server did.
#[derive(Default)]
struct Counts {
    answered: AtomicUsize,
    limited: AtomicUsize,
}

/// Allows `QUOTA` requests per fixed `PERIOD`, answering OpenAI's JSON body with its headers.
struct QuotaServer {
    started: Instant,
    used: std::sync::Mutex<(u128, usize)>,
    counts: Arc<Counts>,
}

impl QuotaServer {
    fn new(counts: &Arc<Counts>) -> Self {
        Self {
            started: Instant::now(),
            used: std::sync::Mutex::new((0, 0)),
            counts: Arc::clone(counts),
        }
    }
}

impl Respond for QuotaServer {
    fn respond(&self, _request: &Request) -> ResponseTemplate {
        let elapsed = self.started.elapsed();
        let period = PERIOD.as_millis();
        let window = elapsed.as_millis() / period;
        let reset_ms = period - elapsed.as_millis() % period;
        let mut used = self.used.lock().unwrap();
        if used.0 != window {
            *used = (window, 0);
        }
        let allowed = used.1 < QUOTA;
        if allowed {
            used.1 += 1;
        }
        let remaining = QUOTA - used.1;
        drop(used);
        answer(&self.counts, allowed, remaining, reset_ms, reset_ms)
    }
}

/// Allows `QUOTA` requests at once, refilling continuously at `QUOTA` per `PERIOD` (as
/// OpenAI's buckets do): a 429 names the time until one request is back, the reset header
/// the time until the bucket is full.
struct BucketServer {
    bucket: std::sync::Mutex<(Instant, f64)>,
    counts: Arc<Counts>,
}

impl Respond for BucketServer {
    fn respond(&self, _request: &Request) -> ResponseTemplate {
        let per_ms = QUOTA as f64 / PERIOD.as_millis() as f64;
        let mut bucket = self.bucket.lock().unwrap();
        let now = Instant::now();
        let level = (bucket.1 + now.duration_since(bucket.0).as_secs_f64() * 1000.0 * per_ms)
            .min(QUOTA as f64);
        let allowed = level >= 1.0;
        let level = if allowed { level - 1.0 } else { level };
        *bucket = (now, level);
        drop(bucket);
        let next_ms = ((1.0 - level).max(0.0) / per_ms).ceil() as u128;
        let full_ms = ((QUOTA as f64 - level) / per_ms).ceil() as u128;
        answer(&self.counts, allowed, level as usize, next_ms, full_ms)
    }
}

/// An answer or a 429 (naming `wait_ms`), with OpenAI's quota headers.
fn answer(
    counts: &Counts,
    allowed: bool,
    remaining: usize,
    wait_ms: u128,
    reset_ms: u128,
) -> ResponseTemplate {
    let template = if allowed {
        counts.answered.fetch_add(1, Ordering::SeqCst);
        ResponseTemplate::new(200).set_body_json(serde_json::json!({
            "id": "c",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 1}
        }))
    } else {
        counts.limited.fetch_add(1, Ordering::SeqCst);
        ResponseTemplate::new(429)
            .insert_header("retry-after-ms", wait_ms.to_string())
            .set_body_json(serde_json::json!({
                "error": {"message": "Rate limit reached for requests", "type": "requests", "code": "rate_limit_exceeded"}
            }))
    };
    template
        .insert_header("x-ratelimit-limit-requests", QUOTA.to_string())
        .insert_header("x-ratelimit-remaining-requests", remaining.to_string())
        .insert_header("x-ratelimit-reset-requests", format!("{reset_ms}ms"))
        .insert_header("x-ratelimit-limit-tokens", "100000")
        .insert_header("x-ratelimit-remaining-tokens", "99000")
        .insert_header("x-ratelimit-reset-tokens", "6m0s")
        .set_delay(Duration::from_millis(20))
}

/// Runs a burst of `CALLS` calls at a fresh quota server; returns the server's counts, the
/// calls answered and the model's snapshot afterwards.
async fn burst(adaptive: bool) -> (Arc<Counts>, usize, RateSnapshot) {
    let server = MockServer::start().await;
    let counts = Arc::new(Counts::default());
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(QuotaServer::new(&counts))
        .mount(&server)
        .await;
    let text = format!(
        "[retry]\nmax_attempts = 30\ninitial_backoff_ms = 10\nmax_backoff_ms = 50\n\n\
         [[models]]\nname = \"m\"\nprovider = \"openai\"\nmodel = \"test-model\"\n\
         api_key_env = \"TEST_KEY\"\nbase_url = \"{}/v1\"\nstream = false\n\
         max_concurrency = 16\nadaptive_concurrency = {adaptive}\n",
        server.uri()
    );
    let config = ModelsConfig::parse(&text, Path::new("test-models.toml")).unwrap();
    let registry = ModelRegistry::build_with_env(&config, ["m"], &Default::default(), |var| {
        (var == "TEST_KEY").then(|| "sk-test".to_string())
    })
    .unwrap();
    let client = registry.get("m").unwrap();
    let calls = (0..CALLS).map(|i| {
        let client = Arc::clone(&client);
        tokio::spawn(async move {
            let request = ChatRequest::new("You are terse.", format!("question {i}"));
            client.complete(&request, &mut |_| {}).await
        })
    });
    let mut answered = 0;
    for call in futures_util::future::join_all(calls).await {
        if call.unwrap().is_ok() {
            answered += 1;
        }
    }
    (counts, answered, client.rate_snapshot())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_adaptive_window_meets_few_429s_where_a_fixed_one_meets_many() {
    let (counts, answered, snapshot) = burst(true).await;
    let limited = counts.limited.load(Ordering::SeqCst);
    assert_eq!(answered, CALLS, "every call is answered");
    assert_eq!(counts.answered.load(Ordering::SeqCst), CALLS);
    // A fixed window is read as refilling until early 429s say otherwise (see
    // providers::adaptive): a few may come first, on a loaded machine more.
    assert!(limited <= 4, "adaptive: {limited} 429s");
    assert!(snapshot.adaptive);
    assert!((1..=16).contains(&snapshot.window), "{snapshot:?}");
    assert_eq!(snapshot.max_concurrency, 16);
    assert_eq!(snapshot.in_flight, 0);
    assert_eq!(snapshot.limit_requests, Some(QUOTA as u64));
    assert!(snapshot.remaining_requests.is_some());
    assert_eq!(snapshot.remaining_tokens, Some(99_000));
    assert_eq!(snapshot.rate_limited, limited as u64);

    let (counts, _, snapshot) = burst(false).await;
    let limited = counts.limited.load(Ordering::SeqCst);
    assert!(limited >= 10, "fixed 16: only {limited} 429s");
    assert!(!snapshot.adaptive);
    assert_eq!(snapshot.window, 16);
    assert_eq!(snapshot.rate_limited, limited as u64);
}

/// Runs `CALLS` calls spread over three names that are one provider model on one key (a
/// debater and two judges at other temperatures), each name with the default three
/// attempts, against `responder`; returns the server's counts, the calls answered and the
/// snapshots the registry reports.
async fn three_names(
    responder: impl Respond + 'static,
    counts: &Arc<Counts>,
) -> (usize, usize, Vec<(String, RateSnapshot)>) {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(responder)
        .mount(&server)
        .await;
    let model = |name: &str, temperature: f64| {
        format!(
            "[[models]]\nname = \"{name}\"\nprovider = \"openai\"\nmodel = \"test-model\"\n\
             api_key_env = \"TEST_KEY\"\nbase_url = \"{}/v1\"\nstream = false\n\
             max_concurrency = 16\ntemperature = {temperature}\n\n",
            server.uri()
        )
    };
    let text = format!(
        "[retry]\ninitial_backoff_ms = 10\nmax_backoff_ms = 50\n\n{}{}{}",
        model("debater", 1.0),
        model("judge", 0.0),
        model("judge-warm", 0.7)
    );
    let config = ModelsConfig::parse(&text, Path::new("test-models.toml")).unwrap();
    let names = ["debater", "judge", "judge-warm"];
    let registry = ModelRegistry::build_with_env(&config, names, &Default::default(), |var| {
        (var == "TEST_KEY").then(|| "sk-test".to_string())
    })
    .unwrap();
    let calls = (0..CALLS).map(|i| {
        let client = registry.get(names[i % 3]).unwrap();
        tokio::spawn(async move {
            let request = ChatRequest::new("You are terse.", format!("question {i}"));
            client.complete(&request, &mut |_| {}).await
        })
    });
    let mut answered = 0;
    for call in futures_util::future::join_all(calls).await {
        if call.unwrap().is_ok() {
            answered += 1;
        }
    }
    let limited = counts.limited.load(Ordering::SeqCst);
    (answered, limited, registry.rate_snapshots())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_names_on_one_quota_pace_it_as_one() {
    let counts = Arc::new(Counts::default());
    let (answered, limited, snapshots) = three_names(QuotaServer::new(&counts), &counts).await;
    assert_eq!(answered, CALLS, "fixed window: every call answered");
    assert!(limited <= 5, "fixed window: {limited} 429s");
    assert_eq!(snapshots.len(), 1, "one window, shown once: {snapshots:?}");
    assert_eq!(snapshots[0].0, "debater+judge+judge-warm");
    assert_eq!(snapshots[0].1.rate_limited, limited as u64);

    let counts = Arc::new(Counts::default());
    let bucket = BucketServer {
        bucket: std::sync::Mutex::new((Instant::now(), QUOTA as f64)),
        counts: Arc::clone(&counts),
    };
    let (answered, limited, _) = three_names(bucket, &counts).await;
    assert_eq!(answered, CALLS, "token bucket: every call answered");
    assert!(limited <= 5, "token bucket: {limited} 429s");
}

#[tokio::test]
async fn anthropic_quota_headers_reach_the_snapshot() {
    let server = MockServer::start().await;
    let reset = (jiff::Timestamp::now() + jiff::SignedDuration::from_secs(30)).to_string();
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(serde_json::json!({
                    "id": "msg", "type": "message",
                    "content": [{"type": "text", "text": "ok"}],
                    "stop_reason": "end_turn", "usage": {"input_tokens": 3, "output_tokens": 1}
                }))
                .insert_header("anthropic-ratelimit-requests-limit", "50")
                .insert_header("anthropic-ratelimit-requests-remaining", "49")
                .insert_header("anthropic-ratelimit-requests-reset", reset.as_str())
                .insert_header("anthropic-ratelimit-input-tokens-limit", "40000")
                .insert_header("anthropic-ratelimit-input-tokens-remaining", "39000")
                .insert_header("anthropic-ratelimit-output-tokens-limit", "8000")
                .insert_header("anthropic-ratelimit-output-tokens-remaining", "7000")
                .insert_header("anthropic-ratelimit-output-tokens-reset", reset.as_str()),
        )
        .mount(&server)
        .await;
    let text = format!(
        "[[models]]\nname = \"m\"\nprovider = \"anthropic\"\nmodel = \"test-model\"\n\
         api_key_env = \"TEST_KEY\"\nbase_url = \"{}/v1\"\nstream = false\nmax_concurrency = 8\n",
        server.uri()
    );
    let config = ModelsConfig::parse(&text, Path::new("test-models.toml")).unwrap();
    let registry = ModelRegistry::build_with_env(&config, ["m"], &Default::default(), |var| {
        (var == "TEST_KEY").then(|| "sk-test".to_string())
    })
    .unwrap();
    let client = registry.get("m").unwrap();
    let before = client.rate_snapshot();
    assert!(before.adaptive, "on by default for anthropic");
    assert_eq!((before.window, before.remaining_requests), (2, None));
    let request = ChatRequest::new("You are terse.", "hello");
    client.complete(&request, &mut |_| {}).await.unwrap();
    let after = registry.rate_snapshots();
    assert_eq!(after.len(), 1);
    let (name, s) = &after[0];
    assert_eq!(name, "m");
    assert_eq!(
        (s.remaining_requests, s.limit_requests),
        (Some(49), Some(50))
    );
    assert_eq!(
        (s.remaining_tokens, s.limit_tokens),
        (Some(7000), Some(8000)),
        "the tightest token quota"
    );
    assert_eq!((s.in_flight, s.rate_limited, s.held_for), (0, 0, None));
}
