//! The `models` and `ask` commands as a user runs them: output, exit codes, and the
//! configuration errors, each naming file, model and key with exit code 2.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use support::FAKE_KEY;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.env_remove("ETHICS_BOWL_MODELS");
    c
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn config_file(body: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new()
        .suffix(".toml")
        .tempfile()
        .expect("temp file");
    f.write_all(body.as_bytes()).expect("write");
    f
}

#[test]
fn ask_streams_a_simulated_answer() {
    let out = run(&["ask", "sim-alpha", "Say hello"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("Hello from sim-alpha"), "{stdout}");
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("tokens") && stderr.contains("1 attempt"),
        "{stderr}"
    );
}

#[test]
fn ask_reads_the_prompt_from_stdin() {
    let mut child = bin()
        .args(["ask", "sim-beta", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"A question from stdin")
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    assert!(out.status.success());
    assert!(text(&out.stdout).contains("A question from stdin"));
}

#[test]
fn models_lists_key_status_without_the_key() {
    let f = config_file(
        "[[models]]\nname = \"real\"\nprovider = \"openai\"\nmodel = \"gpt-x\"\napi_key_env = \"EB_TEST_KEY_SET\"\n\
         [[models]]\nname = \"other\"\nprovider = \"anthropic\"\nmodel = \"claude\"\napi_key_env = \"EB_TEST_KEY_UNSET\"\n",
    );
    let out = bin()
        .args(["models", "--config"])
        .arg(f.path())
        .env("EB_TEST_KEY_SET", FAKE_KEY)
        .env_remove("EB_TEST_KEY_UNSET")
        .output()
        .expect("runs");
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    assert!(stdout.contains("EB_TEST_KEY_SET (set)"), "{stdout}");
    assert!(stdout.contains("EB_TEST_KEY_UNSET (NOT SET)"), "{stdout}");
    assert!(stdout.contains("https://api.anthropic.com/v1"));
    assert!(!stdout.contains(FAKE_KEY));
}

#[test]
fn configuration_errors_exit_2_naming_file_model_and_key() {
    let cases: [(&str, &[&str]); 6] = [
        (
            "[[models]]\nname = \"a\"\nprovider = \"openai\"\nmodel = \"m\"\ntemprature = 1\n",
            &["model \"a\"", ", models[0].temprature: unknown field"],
        ),
        (
            "[[models]]\nname = \"a\"\nprovider = \"openai\"\n",
            &["model \"a\"", ", models[0].model: is missing"],
        ),
        (
            "[[models]]\nname = \"a\"\nprovider = \"openai\"\nmodel = \"m\"\nmax_tokens = \"many\"\n",
            &[
                "model \"a\"",
                ", models[0].max_tokens: expected a whole number",
                "found a string",
            ],
        ),
        (
            "[[models]]\nname = \"a\"\nprovider = \"open-ai\"\nmodel = \"m\"\n",
            &["model \"a\"", "unknown provider", "openai-compatible"],
        ),
        (
            "[[models]]\nname = \"a\"\nprovider = \"openai\"\nmodel = \"m\"\napi_key = \"sk-FAKEKEY-0123456789-do-not-leak\"\n",
            &["model \"a\"", "key \"api_key\"", "api_key_env"],
        ),
        (
            "[[models]]\nname = \"a\"\nprovider = \"simulated\"\nmodel = \"m\"\n[[models]]\nname = \"a\"\nprovider = \"simulated\"\nmodel = \"n\"\n",
            &["duplicate model name \"a\""],
        ),
    ];
    for (body, needles) in cases {
        let f = config_file(body);
        for args in [
            vec!["models", "--config"],
            vec!["ask", "a", "hi", "--config"],
        ] {
            let out = bin().args(&args).arg(f.path()).output().expect("runs");
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?} {body}: {stderr}");
            assert!(
                stderr.contains(&f.path().display().to_string()),
                "names the file: {stderr}"
            );
            for needle in needles {
                assert!(stderr.contains(needle), "{needle:?} missing from: {stderr}");
            }
            assert!(
                stderr.contains("fix:") || stderr.contains("duplicate"),
                "{stderr}"
            );
            assert!(!stderr.contains(FAKE_KEY), "{stderr}");
        }
    }
}

#[test]
fn missing_key_variable_and_unknown_model_exit_2() {
    let f = config_file(
        "[[models]]\nname = \"real\"\nprovider = \"openai\"\nmodel = \"gpt-x\"\napi_key_env = \"EB_TEST_NEVER_SET\"\n",
    );
    let out = bin()
        .args(["ask", "real", "hi", "--config"])
        .arg(f.path())
        .env_remove("EB_TEST_NEVER_SET")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("EB_TEST_NEVER_SET, which is not set"),
        "{}",
        text(&out.stderr)
    );
    let out = run(&["ask", "no-such-model", "hi"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("sim-alpha"),
        "lists the defined models"
    );
    let out = run(&["ask"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["models", "--config", "does/not/exist.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("does/not/exist.toml"));
}

#[tokio::test]
async fn a_failed_call_exits_1_with_the_provider_message_and_no_key_even_in_trace_logs() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(401)
                .insert_header("x-request-id", "req_cli_1")
                .set_body_json(serde_json::json!({"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}})),
        )
        .mount(&server)
        .await;
    let f = config_file(&format!(
        "[[models]]\nname = \"real\"\nprovider = \"openai\"\nmodel = \"gpt-x\"\napi_key_env = \"EB_TEST_KEY\"\nbase_url = \"{}/v1\"\n",
        server.uri()
    ));
    let path = f.path().to_path_buf();
    let out = tokio::task::spawn_blocking(move || {
        bin()
            .args(["ask", "real", "hi", "--config"])
            .arg(path)
            .env("EB_TEST_KEY", FAKE_KEY)
            .env("ETHICS_BOWL_LOG", "trace")
            .output()
            .expect("runs")
    })
    .await
    .expect("joins");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("Incorrect API key provided"), "{stderr}");
    assert!(stderr.contains("req_cli_1"), "{stderr}");
    assert!(
        !stderr.contains(FAKE_KEY),
        "the key leaked into stderr/logs"
    );
    assert!(!text(&out.stdout).contains(FAKE_KEY));
}

#[tokio::test]
async fn piped_ask_writes_only_the_final_answer_after_a_mid_stream_failure() {
    let server = MockServer::start().await;
    let partial = serde_json::json!({"choices": [{"index": 0, "delta": {"content": "A first try that breaks "}, "finish_reason": null}]});
    // The first attempt streams some text, then the body ends with no finish reason.
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("content-type", "text/event-stream")
                .set_body_string(support::sse(&[("", &partial.to_string())])),
        )
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    let answer = "The final answer,\nbyte for byte: \u{202e}kept\u{202c}.";
    Mock::given(method("POST"))
        .respond_with(support::openai_answer(answer))
        .mount(&server)
        .await;
    let f = config_file(&format!(
        "[retry]\ninitial_backoff_ms = 1\nmax_backoff_ms = 2\n\
         [[models]]\nname = \"remote\"\nprovider = \"openai-compatible\"\nmodel = \"x\"\nbase_url = \"{}/v1\"\n",
        server.uri()
    ));
    let path = f.path().to_path_buf();
    let out = tokio::task::spawn_blocking(move || {
        bin()
            .args(["ask", "remote", "hi", "--config"])
            .arg(path)
            .output()
            .expect("runs")
    })
    .await
    .expect("joins");
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(text(&out.stdout), answer, "stdout is exactly the answer");
    assert!(
        stderr.contains("attempt 1 failed part-way; its partial text is discarded"),
        "{stderr}"
    );
    assert!(stderr.contains("2 attempts; finish stop"), "{stderr}");
}

#[test]
fn a_reader_that_goes_away_ends_the_listing_quietly() {
    let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-config/models.toml");
    let mut child = bin()
        .args(["models", "--config"])
        .arg(&models)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader closes before the first line
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    assert!(
        !text(&out.stderr).contains("panicked"),
        "{}",
        text(&out.stderr)
    );
}
