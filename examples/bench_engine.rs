//! Engine benchmarks against a local HTTP server speaking OpenAI's streaming format.
//!
//! `synthetic [ROUNDS]`: 200 rounds (5 models in 20 ordered pairs × 10 dilemmas, one judge;
//! ROUNDS takes the first ROUNDS of them), every call answered after a fixed 100 ms.
//! Reports wall time against the ideal (the longest chain of dependent calls × 100 ms),
//! CPU per call and peak memory.
//!
//! `floor [ROUNDS]`: the same rounds' requests through the same model clients, each sent as
//! soon as the answers it needs are in, with no engine, store or events: what the HTTP
//! client, the server and the machine's cores cost before the engine adds anything.
//!
//! `replay`: the predecessor's real 16-round run (`../shared/data/predecessor/`), each
//! recorded answer served after its recorded latency ÷ 60. Reports wall time against the sum
//! of latencies (a sequential runner) and against the critical path.
//!
//! `memory ROUNDS [IN_FLIGHT [TOKENS_PER_SECOND]]`: `ethics-bowl run --headless` (the
//! release binary, as a child process) on ROUNDS simulated rounds (a multiple of 20; five
//! debaters and a judge, never failing, streaming at TOKENS_PER_SECOND, default 0: at
//! once), IN_FLIGHT rounds at once (default 16). Reports resident memory at 10%, 50% and
//! 100% of the rounds, the peak, and what each finished round added. Needs
//! `cargo build --release` first; `ETHICS_BOWL_BIN` runs another build of the binary (an
//! older commit's, to compare).
//!
//! `memory-ui ROUNDS [IN_FLIGHT]`: the terminal UI's state (an `App` taking every engine
//! event, no terminal drawn) over ROUNDS simulated rounds run in the same process, then
//! over the same tournament resumed; resident memory at 10%, 50% and 100% and the peak.
//! `BENCH_UI_KEEP_TEXT=N` lets N finished rounds keep their text (default 64).
//!
//! cargo run --release --example bench_engine -- synthetic
//! cargo run --release --example bench_engine -- floor
//! cargo run --release --example bench_engine -- replay
//! cargo build --release && cargo run --release --example bench_engine -- memory 10000
//! cargo run --release --example bench_engine -- memory-ui 10000
//!
//! `BENCH_DIR=/dev/shm` puts the results on another file system (here: memory), to tell
//! the engine's own cost from the disk's.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a benchmark: a failure stops it

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use ethics_bowl::domain::Phase;
use ethics_bowl::domain::ScheduledRound;
use ethics_bowl::engine::{self, EngineEvent};
use ethics_bowl::protocols::Step;
use ethics_bowl::protocols::strategy::{Judges, JudgingStrategy};
use futures_util::StreamExt;
use http_body_util::{BodyExt, Full};
use serde_json::Value;
use tokio::sync::mpsc;

/// What the server answers a model and its last user message with: a ready SSE body
/// (every chunk but the usage report) and the delay before sending it. Bodies are built
/// once, before the run, so the server spends its CPU on HTTP alone.
type Answer = Arc<dyn Fn(&str, &str) -> (Arc<str>, Duration) + Send + Sync>;

/// The part of an OpenAI chat request the server reads.
#[derive(serde::Deserialize)]
struct ChatBody<'a> {
    #[serde(borrow)]
    model: Cow<'a, str>,
    #[serde(borrow)]
    messages: Vec<ChatMessage<'a>>,
}

#[derive(serde::Deserialize)]
struct ChatMessage<'a> {
    #[serde(borrow)]
    content: Cow<'a, str>,
}

/// `text` as OpenAI's streamed chunks, eight words to a chunk, ending with `finish_reason`.
fn sse_body(text: &str) -> Arc<str> {
    let mut out = String::new();
    let pieces: Vec<&str> = text.split_inclusive(' ').collect();
    for piece in pieces.chunks(8) {
        let delta = serde_json::json!({"choices": [{"index": 0, "delta": {"content": piece.concat()}, "finish_reason": null}]});
        out.push_str(&format!("data: {delta}\n\n"));
    }
    out.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n");
    out.into()
}

/// Answers one request: reads it, waits the answer's delay, sends the body with a usage
/// report sized from the request, as OpenAI does at the end of a stream.
async fn respond(
    answer: Answer,
    request: hyper::Request<hyper::body::Incoming>,
) -> Result<hyper::Response<Full<Bytes>>, hyper::Error> {
    let body = request.into_body().collect().await?.to_bytes();
    let (sse, delay) = match serde_json::from_slice::<ChatBody>(&body) {
        Ok(chat) => answer(
            &chat.model,
            chat.messages.last().map_or("", |m| m.content.as_ref()),
        ),
        Err(_) => (Arc::from(""), Duration::ZERO),
    };
    tokio::time::sleep(delay).await;
    let mut out = String::with_capacity(sse.len() + 120);
    out.push_str(&sse);
    out.push_str(&format!(
        "data: {{\"choices\":[],\"usage\":{{\"prompt_tokens\":{},\"completion_tokens\":{}}}}}\n\ndata: [DONE]\n\n",
        body.len() / 4,
        sse.len() / 16
    ));
    let mut response = hyper::Response::new(Full::new(Bytes::from(out)));
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/event-stream"),
    );
    Ok(response)
}

/// An HTTP/1.1 server (hyper on tokio's multi-threaded runtime, keeping connections alive
/// as real APIs do) that answers every POST with `answer`; returns its base URL. Not
/// wiremock, which serves from one thread and builds every answer per request: this one
/// costs HTTP alone, so that the cores it shares with the engine go to the engine.
async fn serve(answer: Answer) -> std::io::Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}/v1", listener.local_addr()?);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let _ = stream.set_nodelay(true);
            let answer = answer.clone();
            tokio::spawn(async move {
                let service =
                    hyper::service::service_fn(move |request| respond(answer.clone(), request));
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Ok(base)
}

fn phase_of(prompt: &str) -> &'static str {
    if prompt.starts_with("## Your role: presenting team, rebuttal") {
        "rebuttal"
    } else if prompt.starts_with("## Your role: presenting team") {
        "presentation"
    } else if prompt.starts_with("## Your role: responding team") {
        "response"
    } else if prompt.starts_with("## Consistency test") {
        "consistency_test"
    } else {
        "judgment"
    }
}

/// CPU seconds (user + system) and peak resident memory (KiB) of this process, from /proc.
fn process_usage() -> (f64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let hwm = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0);
    (cpu_seconds("self"), hwm)
}

/// CPU seconds (user + system) of a process (`self` or a pid), from /proc.
fn cpu_seconds(process: &str) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{process}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let ticks: f64 = fields
        .get(11)
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(0.0)
        + fields
            .get(12)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0);
    ticks / 100.0
}

/// A scratch folder for one run, under `BENCH_DIR` when set.
fn scratch() -> tempfile::TempDir {
    match std::env::var_os("BENCH_DIR") {
        Some(dir) => tempfile::tempdir_in(dir).expect("tempdir in BENCH_DIR"),
        None => tempfile::tempdir().expect("tempdir"),
    }
}

/// The key variable the HTTP models name: a real provider's model always has a key, and
/// every answer, round file and report is then redacted of it, which a run without one skips.
const KEY_VAR: &str = "BENCH_ENGINE_KEY";

fn write_models(dir: &Path, base: &str, names: &[&str]) {
    let mut text = String::from("[retry]\nmax_attempts = 1\n[limits]\nmax_concurrency = 100000\n");
    for n in names {
        text.push_str(&format!(
            "[[models]]\nname = \"{n}\"\nprovider = \"openai-compatible\"\nmodel = \"{n}\"\nbase_url = \"{base}\"\napi_key_env = \"{KEY_VAR}\"\nmax_concurrency = 100000\n"
        ));
    }
    std::fs::write(dir.join("models.toml"), text).expect("models");
}

/// Runs the tournament; returns wall time, calls, delta events and the CPU seconds of the
/// run itself (set-up and clean-up excluded).
async fn run_engine(
    config: &Path,
    patch: impl FnOnce(&mut engine::Prepared),
) -> (Duration, usize, usize, f64) {
    let mut prepared = engine::prepare(config, None).expect("prepare");
    patch(&mut prepared);
    let (cpu_before, _) = process_usage();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let (_commands, mut crx) = mpsc::unbounded_channel();
    let start = Instant::now();
    let handle = tokio::spawn(async move { engine::run(prepared, tx, &mut crx).await });
    let (mut calls, mut deltas) = (0, 0);
    while let Some(e) = rx.recv().await {
        match e {
            EngineEvent::PhaseStarted { .. } => calls += 1,
            EngineEvent::TextDelta { .. } => deltas += 1,
            _ => {}
        }
    }
    let report = handle.await.expect("join").expect("run");
    let (cpu_after, _) = process_usage();
    assert_eq!(report.summary.incomplete, 0, "every round completes");
    let store = ethics_bowl::store::Store::open(&report.dir).expect("store");
    let (rounds, _) = store.load_rounds(&Default::default()).expect("rounds");
    let mut latencies: Vec<u64> = rounds
        .iter()
        .flat_map(|r| r.phases.iter().filter_map(|p| p.latency_ms))
        .collect();
    latencies.sort_unstable();
    println!(
        "  call latency as the engine saw it: median {} ms, p99 {} ms, max {} ms",
        latencies[latencies.len() / 2],
        latencies[latencies.len() * 99 / 100],
        latencies[latencies.len() - 1]
    );
    (start.elapsed(), calls, deltas, cpu_after - cpu_before)
}

fn synthetic_answers() -> Answer {
    let judgment = {
        let keys: Vec<String> = ethics_bowl::domain::Criterion::ALL
            .iter()
            .map(|c| format!("\"{}\": 7", c.key()))
            .collect();
        format!(
            "{{\"team_a_scores\": {{{0}}}, \"team_b_scores\": {{{0}}}, \"overall_analysis\": \"fine\"}}",
            keys.join(", ")
        )
    };
    let prose = "This answer stands for a real model's analysis of the case, with enough words to stream in several pieces. ".repeat(12);
    let judgment = sse_body(&judgment);
    let analysis = sse_body(&format!(
        "{prose}\nGuiding principle: care.\nTentative conclusion: act."
    ));
    Arc::new(move |_model, prompt| {
        let body = if phase_of(prompt) == "judgment" {
            &judgment
        } else {
            &analysis
        };
        (body.clone(), Duration::from_millis(100))
    })
}

/// The synthetic tournament's files in `dir`: five debaters and a judge at `base`, ten
/// dilemmas; returns the tournament file.
fn synthetic_config(dir: &Path, base: &str) -> PathBuf {
    let models = ["m1", "m2", "m3", "m4", "m5"];
    write_models(dir, base, &[&models[..], &["judge"]].concat());
    let mut doc = String::new();
    for i in 1..=10 {
        doc.push_str(&format!("## Case Number {i}\n\nCategory: Bench\n\nA scenario with enough words to be a scenario.\n\n### Questions\n\n- What now?\n\n### Consistency Case\n\nA parallel case.\n\n"));
    }
    std::fs::write(dir.join("dilemmas.md"), doc).expect("doc");
    let config = dir.join("tournament.toml");
    std::fs::write(
        &config,
        format!(
            "name = \"bench\"\ndilemma_file = \"dilemmas.md\"\noutput_dir = \"{}\"\nmodels = [\"m1\", \"m2\", \"m3\", \"m4\", \"m5\"]\njudges = [\"judge\"]\nmax_concurrency = 100000\n",
            dir.join("results").display()
        ),
    )
    .expect("config");
    config
}

/// presentation → response → rebuttal (or Team B's consistency test) → judgment
const SYNTHETIC_IDEAL: Duration = Duration::from_millis(400);

fn print_wall(wall: Duration) {
    println!(
        "  wall {:.3} s against ideal {:.3} s ({:+.1}%)",
        wall.as_secs_f64(),
        SYNTHETIC_IDEAL.as_secs_f64(),
        (wall.as_secs_f64() / SYNTHETIC_IDEAL.as_secs_f64() - 1.0) * 100.0
    );
}

async fn synthetic(rounds: usize) {
    let (server, base) = server_process("synthetic");
    let dir = scratch();
    let config = synthetic_config(dir.path(), &base);
    let (wall, calls, deltas, cpu) =
        run_engine(&config, |p| p.schedule.rounds.truncate(rounds)).await;
    let (_, peak_kib) = process_usage();
    println!("synthetic: {rounds} rounds, {calls} calls, {deltas} delta events");
    print_wall(wall);
    println!(
        "  engine CPU {:.3} s in all, {:.3} ms per call (engine, HTTP client and store; the server runs in another process)",
        cpu,
        cpu * 1000.0 / calls as f64
    );
    server.print_cpu(calls);
    println!("  peak resident memory {:.1} MiB", peak_kib as f64 / 1024.0);
}

/// The same rounds with the engine taken away: each round's requests, built by the
/// protocol, sent through the same model clients as soon as the phases they need have
/// answered, with no store, no events and no round bookkeeping. What this takes over the
/// ideal is the floor that the HTTP client, the server and the two cores set; the engine
/// can only add to it.
async fn floor(rounds: usize) {
    let (server, base) = server_process("synthetic");
    let dir = scratch();
    let config = synthetic_config(dir.path(), &base);
    let mut prepared = engine::prepare(&config, None).expect("prepare");
    prepared.schedule.rounds.truncate(rounds);
    let protocol = prepared.protocol.clone();
    let registry = Arc::new(prepared.registry);
    let (cpu_before, _) = process_usage();
    let start = Instant::now();
    let tasks: Vec<_> = prepared
        .schedule
        .rounds
        .iter()
        .map(|scheduled| {
            let mut round = protocol.new_round(scheduled).expect("round");
            let (protocol, registry) = (protocol.clone(), registry.clone());
            tokio::spawn(async move {
                let mut calls = futures_util::stream::FuturesUnordered::new();
                let mut started: Vec<Step> = Vec::new();
                loop {
                    let steps = JudgingStrategy::new(Judges::Single)
                        .steps(protocol.as_ref(), &round)
                        .expect("steps");
                    for step in steps {
                        if !started.contains(&step) && step.is_ready(&round) {
                            let request = protocol.request(&step, &round).expect("request");
                            let client = registry.get(&step.model).expect("client");
                            started.push(step.clone());
                            calls.push(async move {
                                let outcome = client.complete(&request, &mut |_| {}).await;
                                (step, outcome.expect("answer").completion.text)
                            });
                        }
                    }
                    let Some((step, text)) = calls.next().await else {
                        break;
                    };
                    let mut phase = Phase::new(step.phase_type, &step.model, &text);
                    phase.turn = step.turn;
                    round.phases.push(phase);
                }
                round.phases.len()
            })
        })
        .collect();
    let mut calls = 0;
    for task in tasks {
        calls += task.await.expect("round");
    }
    let wall = start.elapsed();
    let (cpu_after, _) = process_usage();
    println!("floor: {rounds} rounds, {calls} calls through the model clients alone");
    print_wall(wall);
    println!(
        "  CPU {:.3} s in all, {:.3} ms per call (HTTP client and stream decoding; no engine, no store)",
        cpu_after - cpu_before,
        (cpu_after - cpu_before) * 1000.0 / calls as f64
    );
    server.print_cpu(calls);
}

/// The predecessor's run: each call's answer and latency, the schedule, and its timings.
struct Recording {
    answers: HashMap<(String, String, String), (Arc<str>, f64)>,
    schedule: Vec<ScheduledRound>,
    titles: Vec<(String, String)>,
    sum_secs: f64,
    critical_secs: f64,
}

fn predecessor_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/predecessor")
}

fn recording() -> Recording {
    let shared = predecessor_dir();
    let mut rec = Recording {
        answers: HashMap::new(),
        schedule: Vec::new(),
        titles: Vec::new(),
        sum_secs: 0.0,
        critical_secs: 0.0,
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(shared.join("rounds"))
        .expect("predecessor rounds")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    paths.sort();
    for path in paths {
        let round: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
        let dilemma = round["dilemma_id"].as_str().unwrap_or_default().to_string();
        let mut latency: HashMap<String, f64> = HashMap::new();
        for p in round["phases"].as_array().into_iter().flatten() {
            let phase = p["phase_type"].as_str().unwrap_or_default();
            let key_phase = if phase == "consistency_test_b" {
                "consistency_test"
            } else {
                phase
            };
            let secs = p["response_time_seconds"].as_f64().unwrap_or(0.0);
            latency.insert(phase.to_string(), secs);
            rec.sum_secs += secs;
            rec.answers.insert(
                (
                    p["model_id"].as_str().unwrap_or_default().to_string(),
                    dilemma.clone(),
                    key_phase.to_string(),
                ),
                (sse_body(p["response"].as_str().unwrap_or_default()), secs),
            );
        }
        let l = |k: &str| latency.get(k).copied().unwrap_or(0.0);
        // presentation, then the consistency test beside response → (rebuttal | Team B's test), then the judge
        let chain = l("presentation")
            + l("consistency_test").max(l("response") + l("rebuttal").max(l("consistency_test_b")))
            + l("judgment");
        rec.critical_secs = rec.critical_secs.max(chain);
        let team = |k: &str| round[k].as_str().unwrap_or_default().to_string();
        rec.schedule.push(ScheduledRound {
            round_id: engine::round_id(&dilemma, &team("team_a_model"), &team("team_b_model"), 1),
            dilemma_id: dilemma,
            repetition: 1,
            team_a: team("team_a_model"),
            team_b: team("team_b_model"),
            judges: vec![team("judge_model")],
            format: None,
            relation: None,
        });
    }
    let loaded =
        ethics_bowl::inputs::load_dilemmas(&shared.join("dilemmas_v2.md")).expect("dilemmas");
    rec.titles = loaded
        .dilemmas
        .iter()
        .map(|d| (d.title.clone(), d.id.clone()))
        .collect();
    rec
}

fn replay_answers() -> Answer {
    let rec = recording();
    let unrecorded = sse_body("unrecorded");
    Arc::new(move |model, prompt| {
        let dilemma = rec
            .titles
            .iter()
            .find(|(t, _)| prompt.contains(t.as_str()))
            .map(|(_, id)| id.clone())
            .unwrap_or_default();
        match rec
            .answers
            .get(&(model.to_string(), dilemma, phase_of(prompt).to_string()))
        {
            Some((body, secs)) => (body.clone(), Duration::from_secs_f64(secs / 60.0)),
            None => (unrecorded.clone(), Duration::ZERO),
        }
    })
}

async fn replay() {
    let rec = recording();
    let (_server, base) = server_process("replay");
    let dir = scratch();
    let models = [
        "claude-sonnet-4-5",
        "gpt-5.2",
        "gemini-3-pro-preview",
        "grok-4-1-fast-reasoning",
    ];
    write_models(dir.path(), &base, &models);
    let config = dir.path().join("tournament.toml");
    std::fs::write(
        &config,
        format!(
            "name = \"replay\"\ndilemma_file = \"{}\"\noutput_dir = \"{}\"\nmodels = {:?}\njudges = {:?}\njudging = \"all\"\nmax_concurrency = 100\n",
            predecessor_dir().join("dilemmas_v2.md").display(),
            dir.path().join("results").display(),
            models,
            models
        ),
    )
    .expect("config");
    let schedule = rec.schedule.clone();
    let (wall, calls, _, _) = run_engine(&config, |p| p.schedule.rounds = schedule).await;
    let (sum, critical) = (rec.sum_secs / 60.0, rec.critical_secs / 60.0);
    println!("replay: 16 recorded rounds, {calls} calls, latencies ÷ 60");
    println!("  wall {:.2} s", wall.as_secs_f64());
    println!(
        "  sequential (sum of latencies ÷ 60): {sum:.2} s; the engine takes {:.1}% of it",
        wall.as_secs_f64() / sum * 100.0
    );
    println!(
        "  critical path (longest round's dependent chain ÷ 60): {critical:.2} s ({:+.1}%)",
        (wall.as_secs_f64() / critical - 1.0) * 100.0
    );
}

/// `memory`: the simulated tournament's files in `dir`: five simulated debaters and a
/// simulated judge streaming at `tokens_per_second`, never failing, and `rounds` rounds
/// (20 ordered pairs × up to 50 dilemmas × repetitions); returns the tournament file.
fn memory_config(dir: &Path, rounds: usize, in_flight: usize, tokens_per_second: f64) -> PathBuf {
    let models = ["m1", "m2", "m3", "m4", "m5"];
    let mut text = String::from("[retry]\nmax_attempts = 1\n[limits]\nmax_concurrency = 1000\n");
    for name in models.iter().chain(&["judge"]) {
        text.push_str(&format!(
            "[[models]]\nname = \"{name}\"\nprovider = \"simulated\"\nmodel = \"{name}\"\nmax_tokens = 2048\nprice = {{ input_per_mtok = 1.0, output_per_mtok = 4.0 }}\n[models.simulated]\nquality = 0.7\ntokens_per_second = {tokens_per_second}\nmalformed_judgment_rate = 0.1\nfailure_rate = 0.0\n"
        ));
    }
    std::fs::write(dir.join("models.toml"), text).expect("models");
    let pairs = rounds / 20;
    let dilemmas = (1..=50)
        .rev()
        .find(|d| pairs.is_multiple_of(*d))
        .unwrap_or(1);
    let repetitions = pairs / dilemmas;
    let mut doc = String::new();
    for i in 1..=dilemmas {
        doc.push_str(&format!("## Case Number {i}\n\nCategory: Bench\n\n### Core Scenario\n\nA scenario with enough words to be a scenario, number {i}.\n\n### Complications\n\n- It gets harder.\n\n### Questions\n\n1. What now?\n\n### Asymmetric Features\n\n- One side knows more.\n\n### Consistency Case\n\nA parallel case.\n\n"));
    }
    std::fs::write(dir.join("dilemmas.md"), doc).expect("doc");
    let config = dir.join("tournament.toml");
    std::fs::write(
        &config,
        format!(
            "name = \"memory\"\nmodels_file = \"models.toml\"\ndilemma_file = \"dilemmas.md\"\noutput_dir = \"{}\"\nmodels = {models:?}\njudges = [\"judge\"]\nrepetitions = {repetitions}\nmax_concurrency = {in_flight}\n",
            dir.join("results").display()
        ),
    )
    .expect("config");
    config
}

/// A process's resident memory now (`VmRSS`) and at its peak (`VmHWM`), in KiB, from /proc;
/// `None` once it has exited.
fn resident_kib(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| -> Option<u64> {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

/// `ethics-bowl run --headless` on a simulated tournament of `rounds` rounds with
/// `in_flight` rounds at once, as a child process: its resident memory when 10%, 50% and
/// 100% of the rounds have finished (from its progress lines), its peak (sampled from
/// /proc every few milliseconds until it exits; the high-water mark only grows, so the
/// last sample holds it unless memory rose in the child's last milliseconds), and what
/// each finished round added.
fn memory(rounds: usize, in_flight: usize, tokens_per_second: f64) {
    use std::io::BufRead;
    use std::sync::atomic::{AtomicU64, Ordering};
    let binary = std::env::var_os("ETHICS_BOWL_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let exe = std::env::current_exe().expect("exe");
            exe.parent()
                .and_then(Path::parent)
                .map(|d| d.join("ethics-bowl"))
                .expect("target folder")
        });
    assert!(
        binary.is_file(),
        "{} not found: run `cargo build --release` first (or set ETHICS_BOWL_BIN)",
        binary.display()
    );
    let dir = scratch();
    let config = memory_config(dir.path(), rounds, in_flight, tokens_per_second);
    let start = Instant::now();
    let mut child = std::process::Command::new(&binary)
        .args(["run", "--headless"])
        .arg(&config)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("ethics-bowl");
    let pid = child.id();
    let peak = Arc::new(AtomicU64::new(0));
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = {
        let (peak, done) = (Arc::clone(&peak), Arc::clone(&done));
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                if let Some((_, hwm)) = resident_kib(pid) {
                    peak.fetch_max(hwm, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        })
    };
    let marks = [10, 50, 100];
    let mut at: Vec<(usize, u64, f64)> = Vec::new();
    let stderr = child.stderr.take().expect("stderr");
    for line in std::io::BufReader::new(stderr).lines() {
        let Ok(line) = line else { break };
        let Some(done) = line
            .strip_prefix("round ")
            .and_then(|l| l.split_once('/'))
            .and_then(|(n, _)| n.parse::<usize>().ok())
        else {
            if !line.starts_with("status:") && !line.starts_with("review:") {
                eprintln!("  {line}");
            }
            continue;
        };
        if let Some(mark) = marks.get(at.len())
            && done * 100 >= mark * rounds
            && let Some((rss, _)) = resident_kib(pid)
        {
            at.push((done, rss, start.elapsed().as_secs_f64()));
        }
    }
    let status = child.wait().expect("wait");
    done.store(true, Ordering::Relaxed);
    let _ = sampler.join();
    let wall = start.elapsed();
    assert!(status.success(), "ethics-bowl ended with {status}");
    let peak = peak.load(Ordering::Relaxed);
    // The same command again: every round is stored, so the run resumes, has nothing to
    // run, and writes the summary.
    let resumed = {
        let start = Instant::now();
        let mut child = std::process::Command::new(&binary)
            .args(["run", "--headless"])
            .arg(&config)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("ethics-bowl");
        let pid = child.id();
        let mut peak = 0;
        while child.try_wait().expect("wait").is_none() {
            if let Some((_, hwm)) = resident_kib(pid) {
                peak = peak.max(hwm);
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        (peak, start.elapsed())
    };
    println!(
        "memory: {rounds} simulated rounds, {in_flight} in flight, headless ({}), {:.1} s",
        binary.display(),
        wall.as_secs_f64()
    );
    for ((done, rss, secs), mark) in at.iter().zip(marks) {
        println!(
            "  {mark:>3}% ({done} rounds, {secs:.1} s): resident {:.1} MiB",
            *rss as f64 / 1024.0
        );
    }
    println!("  peak resident {:.1} MiB (VmHWM)", peak as f64 / 1024.0);
    println!(
        "  the same command again (resumes: {rounds} stored, none to run): peak resident {:.1} MiB, {:.1} s",
        resumed.0 as f64 / 1024.0,
        resumed.1.as_secs_f64()
    );
    if let (Some(first), Some(last)) = (at.first(), at.last())
        && last.0 > first.0
    {
        println!(
            "  {:.2} KiB more resident per round finished between {}% and 100%; peak {:.2} KiB per round of the tournament",
            (last.1 as f64 - first.1 as f64) / (last.0 - first.0) as f64,
            marks[0],
            peak as f64 / rounds as f64
        );
    }
}

/// `memory-ui`: the terminal UI's state fed by a simulated tournament of `rounds` rounds
/// (`in_flight` at once), then by the same command resumed, each in a child process of
/// this binary (`ui-child`), so the figures are the UI state's and the engine's alone.
fn memory_ui(rounds: usize, in_flight: usize) {
    use std::io::BufRead;
    let dir = scratch();
    let config = memory_config(dir.path(), rounds, in_flight, 0.0);
    println!(
        "memory-ui: {rounds} simulated rounds, {in_flight} in flight, the UI's state fed by the engine in one process (no terminal drawn)"
    );
    for pass in ["run", "resumed"] {
        let mut child = std::process::Command::new(std::env::current_exe().expect("exe"))
            .arg("ui-child")
            .arg(&config)
            .arg(rounds.to_string())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("ui child");
        let stdout = child.stdout.take().expect("stdout");
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            println!("  {pass}: {line}");
        }
        let status = child.wait().expect("wait");
        assert!(status.success(), "ui-child ended with {status}");
    }
}

/// `ui-child CONFIG ROUNDS`: runs the tournament in this process and applies every event to
/// an [`ethics_bowl::tui::App`], as the terminal UI does between frames; prints resident
/// memory at 10%, 50% and 100% of the rounds finished, at the end, and the peak.
async fn ui_child(config: &Path, rounds: usize) {
    use ethics_bowl::tui::{App, Mode, Msg, update};
    let me = std::process::id();
    let prepared = engine::prepare(config, None).expect("prepare");
    let (tx, mut rx) = mpsc::unbounded_channel();
    let (_commands, mut crx) = mpsc::unbounded_channel();
    let start = Instant::now();
    let handle = tokio::spawn(async move { engine::run(prepared, tx, &mut crx).await });
    let mut app = App::new("memory", Mode::Live, Instant::now());
    // `BENCH_UI_KEEP_TEXT=N`: N finished rounds keep their text (a large N keeps every
    // round whole, as the UI did before it dropped finished rounds' text).
    if let Some(n) = std::env::var("BENCH_UI_KEEP_TEXT")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        app.mirror.text_kept.capacity = n;
    }
    let mut marks = [10, 50, 100].into_iter().peekable();
    let mut finished = 0;
    while let Some(event) = rx.recv().await {
        let round_done = matches!(event, EngineEvent::RoundFinished { .. });
        update(&mut app, Msg::Engine(event));
        if round_done {
            finished += 1;
            if let Some(&mark) = marks.peek()
                && finished * 100 >= mark * rounds
                && let Some((rss, _)) = resident_kib(me)
            {
                marks.next();
                println!(
                    "{mark:>3}% ({finished} rounds finished, {:.1} s): resident {:.1} MiB",
                    start.elapsed().as_secs_f64(),
                    rss as f64 / 1024.0
                );
            }
        }
    }
    handle.await.expect("engine task").expect("engine");
    let whole = app.mirror.rounds.iter().filter(|r| !r.text_dropped).count();
    if let Some((rss, hwm)) = resident_kib(me) {
        println!(
            "end ({} rounds in the UI, {whole} with their text, {:.1} s): resident {:.1} MiB, peak {:.1} MiB (VmHWM)",
            app.mirror.rounds.len(),
            start.elapsed().as_secs_f64(),
            rss as f64 / 1024.0,
            hwm as f64 / 1024.0
        );
    }
}

/// The bench server in a child process of this same binary, so the figures for this
/// process are the engine's (and its HTTP client's) alone. Killed on drop.
struct ServerProcess(std::process::Child);

impl ServerProcess {
    /// Prints the server's CPU so far (building its answers before the run is negligible).
    fn print_cpu(&self, calls: usize) {
        let cpu = cpu_seconds(&self.0.id().to_string());
        println!(
            "  server CPU {cpu:.3} s in all, {:.3} ms per call (on the same two cores)",
            cpu * 1000.0 / calls as f64
        );
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn server_process(kind: &str) -> (ServerProcess, String) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(std::env::current_exe().expect("exe"))
        .args(["serve", kind])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("server process");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("server address");
    (ServerProcess(child), line.trim().to_string())
}

#[tokio::main]
async fn main() {
    if std::env::var_os(KEY_VAR).is_none() {
        // SAFETY: nothing has read the environment yet; the runtime's workers do not.
        unsafe { std::env::set_var(KEY_VAR, "sk-bench-0123456789abcdefghijklmnopqrstuvwxyzABCD") };
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["synthetic"] => synthetic(200).await,
        ["synthetic", n] => match n.parse() {
            Ok(rounds) => synthetic(rounds).await,
            Err(_) => eprintln!("synthetic ROUNDS: a number of rounds, up to 200"),
        },
        ["floor"] => floor(200).await,
        ["floor", n] => match n.parse() {
            Ok(rounds) => floor(rounds).await,
            Err(_) => eprintln!("floor ROUNDS: a number of rounds, up to 200"),
        },
        ["replay"] => replay().await,
        ["memory", rounds, rest @ ..] => {
            let number = |v: Option<&&str>, default: f64| v.map_or(Ok(default), |v| v.parse());
            match (
                rounds.parse::<usize>(),
                number(rest.first(), 16.0),
                number(rest.get(1), 0.0),
            ) {
                (Ok(rounds), Ok(in_flight), Ok(rate))
                    if rounds >= 20 && rounds.is_multiple_of(20) && in_flight >= 1.0 =>
                {
                    memory(rounds, in_flight as usize, rate)
                }
                _ => eprintln!(
                    "memory ROUNDS [IN_FLIGHT [TOKENS_PER_SECOND]]: a multiple of 20 rounds"
                ),
            }
        }
        ["memory-ui", rounds, rest @ ..] => match (
            rounds.parse::<usize>(),
            rest.first().map_or(Ok(16), |v| v.parse::<usize>()),
        ) {
            (Ok(rounds), Ok(in_flight))
                if rounds >= 20 && rounds.is_multiple_of(20) && in_flight >= 1 =>
            {
                memory_ui(rounds, in_flight)
            }
            _ => eprintln!("memory-ui ROUNDS [IN_FLIGHT]: a multiple of 20 rounds"),
        },
        ["ui-child", config, rounds] => match rounds.parse() {
            Ok(rounds) => ui_child(Path::new(config), rounds).await,
            Err(_) => eprintln!("ui-child CONFIG ROUNDS"),
        },
        ["serve", kind] => {
            let answers = if *kind == "replay" {
                replay_answers()
            } else {
                synthetic_answers()
            };
            match serve(answers).await {
                Ok(base) => println!("{base}"),
                Err(e) => return eprintln!("bench server: {e}"),
            }
            std::future::pending::<()>().await;
        }
        _ => eprintln!(
            "usage: bench_engine synthetic [ROUNDS] | floor [ROUNDS] | replay | memory ROUNDS [IN_FLIGHT [TOKENS_PER_SECOND]] | memory-ui ROUNDS [IN_FLIGHT]"
        ),
    }
}
