//! Engine benchmarks against a local HTTP server speaking OpenAI's streaming format.
//!
//! `synthetic`: 200 rounds (5 models in 20 ordered pairs × 10 dilemmas, one judge), every
//! call answered after a fixed 100 ms. Reports wall time against the ideal (the longest
//! chain of dependent calls × 100 ms), CPU per call and peak memory.
//!
//! `replay`: the predecessor's real 16-round run (`../shared/data/predecessor/`), each
//! recorded answer served after its recorded latency ÷ 60. Reports wall time against the sum
//! of latencies (a sequential runner) and against the critical path.
//!
//! cargo run --release --example bench_engine -- synthetic
//! cargo run --release --example bench_engine -- replay
//!
//! `BENCH_DIR=/dev/shm` puts the results on another file system (here: memory), to tell
//! the engine's own cost from the disk's.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ethics_bowl::engine::{self, EngineEvent};
use ethics_bowl::store::ScheduledRound;
use serde_json::Value;
use tokio::sync::mpsc;

/// What the server answers: text and delay for a request body.
type Answer = Arc<dyn Fn(&Value) -> (String, Duration) + Send + Sync>;

/// Answers every POST with an SSE body in OpenAI's chunk format after the answer's delay.
struct Streamer(Answer);

impl wiremock::Respond for Streamer {
    fn respond(&self, request: &wiremock::Request) -> wiremock::ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let (text, delay) = (self.0)(&body);
        let mut out = String::new();
        let pieces: Vec<&str> = text.split_inclusive(' ').collect();
        for piece in pieces.chunks(8) {
            let delta = serde_json::json!({"choices": [{"index": 0, "delta": {"content": piece.concat()}, "finish_reason": null}]});
            out.push_str(&format!("data: {delta}\n\n"));
        }
        out.push_str(
            "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
        );
        out.push_str(&format!(
            "data: {{\"choices\":[],\"usage\":{{\"prompt_tokens\":{},\"completion_tokens\":{}}}}}\n\ndata: [DONE]\n\n",
            request.body.len() / 4,
            text.len() / 4
        ));
        wiremock::ResponseTemplate::new(200)
            .insert_header("content-type", "text/event-stream")
            .set_body_string(out)
            .set_delay(delay)
    }
}

/// An HTTP server (hyper, via wiremock, keeping connections alive as real APIs do) that
/// answers with `answer`; returns its base URL and keeps it running.
async fn serve(answer: Answer) -> (wiremock::MockServer, String) {
    let server = wiremock::MockServer::builder()
        .disable_request_recording()
        .start()
        .await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(Streamer(answer))
        .mount(&server)
        .await;
    let base = format!("{}/v1", server.uri());
    (server, base)
}

fn user_prompt(request: &Value) -> &str {
    request["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_str())
        .unwrap_or("")
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
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
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
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let hwm = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0);
    (ticks / 100.0, hwm)
}

/// A scratch folder for one run, under `BENCH_DIR` when set.
fn scratch() -> tempfile::TempDir {
    match std::env::var_os("BENCH_DIR") {
        Some(dir) => tempfile::tempdir_in(dir).expect("tempdir in BENCH_DIR"),
        None => tempfile::tempdir().expect("tempdir"),
    }
}

fn write_models(dir: &Path, base: &str, names: &[&str]) {
    let mut text = String::from("[retry]\nmax_attempts = 1\n[limits]\nmax_concurrency = 100000\n");
    for n in names {
        text.push_str(&format!(
            "[[models]]\nname = \"{n}\"\nprovider = \"openai-compatible\"\nmodel = \"{n}\"\nbase_url = \"{base}\"\nmax_concurrency = 100000\n"
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
            EngineEvent::PhaseCompleted { .. } => calls += 1,
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
    Arc::new(move |req| {
        let text = if phase_of(user_prompt(req)) == "judgment" {
            judgment.clone()
        } else {
            format!("{prose}\nGuiding principle: care.\nTentative conclusion: act.")
        };
        (text, Duration::from_millis(100))
    })
}

async fn synthetic() {
    let (_server, base) = server_process("synthetic");
    let dir = scratch();
    let models = ["m1", "m2", "m3", "m4", "m5"];
    write_models(dir.path(), &base, &[&models[..], &["judge"]].concat());
    let mut doc = String::new();
    for i in 1..=10 {
        doc.push_str(&format!("## Case Number {i}\n\nCategory: Bench\n\nA scenario with enough words to be a scenario.\n\n### Questions\n\n- What now?\n\n### Consistency Case\n\nA parallel case.\n\n"));
    }
    std::fs::write(dir.path().join("dilemmas.md"), doc).expect("doc");
    let config = dir.path().join("tournament.toml");
    std::fs::write(
        &config,
        format!(
            "name = \"bench\"\ndilemma_file = \"dilemmas.md\"\noutput_dir = \"{}\"\nmodels = [\"m1\", \"m2\", \"m3\", \"m4\", \"m5\"]\njudges = [\"judge\"]\nmax_concurrency = 100000\n",
            dir.path().join("results").display()
        ),
    )
    .expect("config");
    let (wall, calls, deltas, cpu) = run_engine(&config, |_| {}).await;
    let (_, peak_kib) = process_usage();
    // presentation → response → rebuttal (or Team B's consistency test) → judgment
    let ideal = Duration::from_millis(400);
    println!("synthetic: 200 rounds, {calls} calls, {deltas} delta events");
    println!(
        "  wall {:.3} s against ideal {:.3} s ({:+.1}%)",
        wall.as_secs_f64(),
        ideal.as_secs_f64(),
        (wall.as_secs_f64() / ideal.as_secs_f64() - 1.0) * 100.0
    );
    println!(
        "  engine CPU {:.3} s in all, {:.3} ms per call (engine, HTTP client and store; the server runs in another process)",
        cpu,
        cpu * 1000.0 / calls as f64
    );
    println!("  peak resident memory {:.1} MiB", peak_kib as f64 / 1024.0);
}

/// The predecessor's run: each call's answer and latency, the schedule, and its timings.
struct Recording {
    answers: HashMap<(String, String, String), (String, f64)>,
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
                (p["response"].as_str().unwrap_or_default().to_string(), secs),
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
    Arc::new(move |req| {
        let prompt = user_prompt(req);
        let model = req["model"].as_str().unwrap_or_default().to_string();
        let dilemma = rec
            .titles
            .iter()
            .find(|(t, _)| prompt.contains(t.as_str()))
            .map(|(_, id)| id.clone())
            .unwrap_or_default();
        match rec
            .answers
            .get(&(model, dilemma, phase_of(prompt).to_string()))
        {
            Some((text, secs)) => (text.clone(), Duration::from_secs_f64(secs / 60.0)),
            None => ("unrecorded".into(), Duration::ZERO),
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

/// The mock server in a child process of this same binary, so the figures for this
/// process are the engine's (and its HTTP client's) alone. Killed on drop.
struct ServerProcess(std::process::Child);

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
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["synthetic"] => synthetic().await,
        ["replay"] => replay().await,
        ["serve", kind] => {
            let answers = if *kind == "replay" {
                replay_answers()
            } else {
                synthetic_answers()
            };
            let (_server, base) = serve(answers).await;
            println!("{base}");
            std::future::pending::<()>().await;
        }
        _ => eprintln!("usage: bench_engine synthetic|replay"),
    }
}
