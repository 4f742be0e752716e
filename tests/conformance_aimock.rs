//! Conformance against a third-party mock server (`@copilotkit/aimock`, installed from npm by
//! `.ci/run` into `.aimock/`): all three wire formats, streamed and not, plus its scripted
//! 429 and 529 errors. Written by other people from the providers' documentation, it checks
//! that our clients read what is really sent, not only what our own fixtures say.
//!
//! Without the package the test says so and passes, except under CI (`CI=true`), where the
//! package must be there.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use ethics_bowl::providers::FinishReason;
use support::{call, models};

const FIXTURE_TEXT: &str = "Hello from aimock. The affirmative opens with a careful case.";

struct Server {
    child: Child,
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn cli_path() -> Option<PathBuf> {
    let path = std::env::var_os("AIMOCK_CLI")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join(".aimock/node_modules/@copilotkit/aimock/dist/cli.js")
        });
    path.is_file().then_some(path)
}

async fn start(dir: &std::path::Path) -> Option<Server> {
    let Some(cli) = cli_path() else {
        assert!(
            std::env::var("CI").is_err(),
            "aimock is not installed; .ci/run installs it into .aimock/ (or set AIMOCK_CLI)"
        );
        eprintln!(
            "SKIPPED: aimock not installed (run .ci/run, or npm install @copilotkit/aimock@1.43.0 in .aimock/)"
        );
        return None;
    };
    let fixtures = dir.join("fixtures.json");
    let body = serde_json::json!({"fixtures": [
        {"match": {"userMessage": "hello"}, "response": {"content": FIXTURE_TEXT}},
        {"match": {"userMessage": "trigger429"}, "response": {"error": {"message": "Rate limit exceeded (mock).", "type": "rate_limit_error", "code": "rate_limit_exceeded"}, "status": 429}},
        {"match": {"userMessage": "trigger529"}, "response": {"error": {"message": "Overloaded (mock).", "type": "overloaded_error"}, "status": 529}},
        {"match": {"userMessage": "trigger401"}, "response": {"error": {"message": "Invalid key (mock).", "type": "authentication_error"}, "status": 401}}
    ]});
    std::fs::write(&fixtures, body.to_string()).expect("write fixtures");
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let child = Command::new("node")
        .arg(&cli)
        .args([
            "-p",
            &port.to_string(),
            "-h",
            "127.0.0.1",
            "--log-level",
            "warn",
            "-f",
        ])
        .arg(&fixtures)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("node runs aimock");
    let server = Server {
        child,
        base: format!("http://127.0.0.1:{port}"),
    };
    // Ready when it answers a fixture, not when it first accepts a connection: on a loaded
    // machine node can accept before its routes answer, and the test's calls then counted
    // the start-up's failures as attempts (CI, 2026-11-28).
    let client = reqwest::Client::new();
    let probe = serde_json::json!({
        "model": "probe",
        "messages": [{"role": "user", "content": "hello"}],
    });
    for _ in 0..400 {
        let answered = client
            .post(format!("{}/v1/chat/completions", server.base))
            .json(&probe)
            .timeout(Duration::from_secs(2))
            .send()
            .await
            .is_ok_and(|r| r.status().is_success());
        if answered {
            return Some(server);
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("aimock did not answer its fixture on port {port}");
}

const FORMATS: [(&str, &str); 3] = [
    ("openai", "/v1"),
    ("anthropic", "/v1"),
    ("google", "/v1beta"),
];

#[tokio::test]
async fn all_formats_streamed_and_not() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(server) = start(dir.path()).await else {
        return;
    };
    for (provider, prefix) in FORMATS {
        for stream in [true, false] {
            let config = models(
                provider,
                &format!("{}{prefix}", server.base),
                &format!("stream = {stream}"),
            );
            let r = call(&config, "hello").await;
            let outcome = r
                .result
                .unwrap_or_else(|e| panic!("{provider} stream={stream}: {e}"));
            assert_eq!(
                outcome.completion.text, FIXTURE_TEXT,
                "{provider} stream={stream}"
            );
            assert_eq!(r.streamed, FIXTURE_TEXT);
            assert_eq!(outcome.completion.finish_reason, FinishReason::Stop);
            assert_eq!(outcome.attempts.len(), 1);
            if stream && provider == "openai" {
                assert!(
                    outcome.completion.usage.is_some(),
                    "the usage chunk with empty choices is read"
                );
            }
        }
    }
}

#[tokio::test]
async fn scripted_errors_are_classified() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(server) = start(dir.path()).await else {
        return;
    };
    for (provider, prefix) in FORMATS {
        let mut config = models(provider, &format!("{}{prefix}", server.base), "");
        config.retry.max_attempts = 1;
        // The 429's named wait is the one attempt, not held (the mock names one every time).
        config.retry.max_rate_limit_wait_s = 0.0;
        let failure = call(&config, "trigger429").await.result.expect_err("429");
        assert_eq!(failure.error.status, Some(429), "{provider}");
        assert!(
            failure.error.retryable,
            "{provider}: an ordinary 429 is retryable"
        );
        assert_eq!(
            failure.error.retry_after,
            Some(Duration::from_secs(1)),
            "{provider}: Retry-After read"
        );
        let failure = call(&config, "trigger401").await.result.expect_err("401");
        assert_eq!(failure.error.status, Some(401));
        assert!(!failure.error.retryable);
    }
    let mut config = models("anthropic", &format!("{}/v1", server.base), "");
    config.retry.max_attempts = 1;
    let failure = call(&config, "trigger529").await.result.expect_err("529");
    assert_eq!(failure.error.status, Some(529));
    assert!(failure.error.retryable);
    assert_eq!(failure.error.code.as_deref(), Some("overloaded_error"));
}
