//! What a run's end tells a script: the exit code, each failed round with its model, phase
//! and the provider's message, the resume command, and the same in the log file.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::process::{Command, Output};

use support::tournament::write;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.env_remove("ETHICS_BOWL_LOG");
    c.env("EB_TEST_KEY", "sk-test-0123456789");
    // `run` logs to the default log file: keep it out of the user's data folder.
    c.env(
        "XDG_DATA_HOME",
        std::env::temp_dir().join("ethics-bowl-test-data"),
    );
    c
}

async fn output(mut command: Command) -> Output {
    tokio::task::spawn_blocking(move || command.output().expect("runs"))
        .await
        .expect("joins")
}

/// A server that refuses every request as unauthorised, with a request id.
async fn refusing() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(401)
                .insert_header("x-request-id", "req-refused-7")
                .set_body_json(serde_json::json!({
                    "error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}
                })),
        )
        .mount(&server)
        .await;
    server
}

fn remote(name: &str, server: &MockServer) -> String {
    format!(
        "[[models]]\nname = \"{name}\"\nprovider = \"openai-compatible\"\nmodel = \"x\"\napi_key_env = \"EB_TEST_KEY\"\nbase_url = \"{}/v1\"\ntimeout_s = 5\n",
        server.uri()
    )
}

#[tokio::test]
async fn a_run_whose_every_call_is_refused_exits_1_naming_each_failure() {
    let server = refusing().await;
    let dir = tempfile::tempdir().unwrap();
    let models = ["m-one", "m-two", "m-three", "judge"]
        .map(|m| remote(m, &server))
        .concat();
    let config = write(
        dir.path(),
        &models,
        "models = [\"m-one\", \"m-two\", \"m-three\"]\njudges = [\"judge\"]\ndilemmas = [\"borrowed_voice\"]\npairings = [[\"m-one\", \"m-two\"], [\"m-three\", \"m-one\"]]\n",
    );
    let log = dir.path().join("run.log");
    let mut run = bin();
    run.arg("--log-file")
        .arg(&log)
        .args(["run", "--headless"])
        .arg(&config);
    let out = output(run).await;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("2 failed"), "{stdout}");
    let results = dir.path().join("results/test");
    let resume = format!("ethics-bowl run --resume {}", results.display());
    for (round, model) in [
        ("borrowed_voice__m-one__vs__m-two__r1", "m-one"),
        ("borrowed_voice__m-three__vs__m-one__r1", "m-three"),
    ] {
        let line = stderr
            .lines()
            .find(|l| l.starts_with(&format!("failed: {round}")))
            .unwrap_or_else(|| panic!("no failure line for {round}:\n{stderr}"));
        for part in [
            format!("model {model}"),
            "phase presentation".to_string(),
            "HTTP 401".to_string(),
            "Incorrect API key provided".to_string(),
            "req-refused-7".to_string(),
        ] {
            assert!(line.contains(&part), "{part} in {line}");
        }
    }
    assert!(stderr.contains(&resume), "the resume command:\n{stderr}");
    let logged = std::fs::read_to_string(&log).expect("log file written");
    for part in [
        "WARN",
        "phase failed",
        "Incorrect API key provided",
        "ERROR",
        &resume,
    ] {
        assert!(logged.contains(part), "{part} in the log:\n{logged}");
    }

    // Resumed without --log-file: the same exit code, and the default log file has the
    // failures.
    let data = dir.path().join("data");
    let mut resume = bin();
    resume
        .env("XDG_DATA_HOME", &data)
        .args(["run", "--headless", "--resume"])
        .arg(&results);
    let out = output(resume).await;
    assert_eq!(out.status.code(), Some(1));
    let logged = std::fs::read_to_string(data.join("ethics-bowl/ethics-bowl.log"))
        .expect("the default log file is written");
    assert!(
        logged.contains("phase failed") && logged.contains("Incorrect API key provided"),
        "{logged}"
    );

    // `rounds` shows what stopped each incomplete round.
    let mut rounds = bin();
    rounds.arg("rounds").arg(&results);
    let out = output(rounds).await;
    let listed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success());
    assert_eq!(
        listed
            .lines()
            .filter(|l| l.contains("stopped: model") && l.contains("Incorrect API key provided"))
            .count(),
        2,
        "{listed}"
    );
}

#[test]
fn with_stderr_in_a_file_progress_is_plain_lines() {
    use support::tournament::sim;
    let dir = tempfile::tempdir().unwrap();
    let models = [
        sim("a", 0.8, 0.0, 0.0),
        sim("b", 0.5, 0.0, 0.0),
        sim("j", 0.5, 0.0, 1.0),
    ]
    .concat();
    let config = write(
        dir.path(),
        &models,
        "models = [\"a\", \"b\"]\njudges = [\"j\"]\ndilemmas = [\"borrowed_voice\"]\n",
    );
    let log = dir.path().join("run.err");
    let status = bin()
        .args(["run", "--headless"])
        .arg(&config)
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .status()
        .unwrap();
    assert!(status.success());
    let written = std::fs::read_to_string(&log).unwrap();
    assert!(
        written.starts_with("tournament test: 2 rounds"),
        "{written}"
    );
    for id in [
        "borrowed_voice__a__vs__b__r1",
        "borrowed_voice__b__vs__a__r1",
    ] {
        assert!(
            written
                .lines()
                .any(|l| l.starts_with("round ") && l.contains(&format!("{id} needs_review"))),
            "a line for {id}:\n{written}"
        );
        assert!(
            written.contains(&format!("review: {id}: j could not be fully parsed")),
            "{written}"
        );
    }
    assert!(written.contains("round 2/2:"), "{written}");
    assert!(!written.contains('\r'), "no bar redraws: {written:?}");
}

/// A bug that panics inside a call (a simulated model told to) is recorded as its round's
/// error, naming the phase and the panic's message; the run goes on, says so in one line
/// without a backtrace (the backtrace goes to the log file), and exits 1; a resumed run
/// retries the round.
#[test]
fn a_call_that_panics_is_kept_as_its_rounds_error_and_resume_retries_it() {
    use support::tournament::sim;
    let dir = tempfile::tempdir().unwrap();
    let buggy = format!("{}panic_rate = 1.0\n", sim("a", 0.8, 0.0, 0.0));
    let judge = sim("j", 0.5, 0.0, 0.0);
    let models = [buggy.as_str(), &sim("b", 0.5, 0.0, 0.0), &judge].concat();
    let config = write(
        dir.path(),
        &models,
        "models = [\"a\", \"b\"]\njudges = [\"j\"]\ndilemmas = [\"borrowed_voice\"]\n",
    );
    let log = dir.path().join("run.log");
    let out = bin()
        .env_remove("RUST_BACKTRACE")
        .arg("--log-file")
        .arg(&log)
        .args(["run", "--headless"])
        .arg(&config)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        !stderr.contains("stack backtrace") && !stderr.contains("RUST_BACKTRACE"),
        "{stderr}"
    );
    let results = dir.path().join("results/test");
    for id in [
        "borrowed_voice__a__vs__b__r1",
        "borrowed_voice__b__vs__a__r1",
    ] {
        let text = std::fs::read_to_string(results.join(format!("rounds/{id}.json"))).unwrap();
        let round: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(round["status"], "incomplete", "{id}");
        let message = round["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("internal error in round")
                && message.contains("panicked on purpose")
                && message.contains("please report it"),
            "{id}: {message}"
        );
        assert_eq!(round["error"]["model_id"], "a", "{id}");
        let line = stderr
            .lines()
            .find(|l| l.starts_with(&format!("failed: {id}")))
            .unwrap_or_else(|| panic!("no failure line for {id}:\n{stderr}"));
        assert!(line.contains("panicked on purpose"), "{line}");
    }
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(
        logged.contains("PANIC in thread") && logged.contains("panicked on purpose"),
        "{logged}"
    );

    // The bug fixed (the model no longer panics), the same folder resumed: both rounds run.
    std::fs::write(
        dir.path().join("models.toml"),
        std::fs::read_to_string(dir.path().join("models.toml"))
            .unwrap()
            .replace("panic_rate = 1.0\n", ""),
    )
    .unwrap();
    let out = bin()
        .args(["run", "--headless"])
        .arg(&config)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    for id in [
        "borrowed_voice__a__vs__b__r1",
        "borrowed_voice__b__vs__a__r1",
    ] {
        let text = std::fs::read_to_string(results.join(format!("rounds/{id}.json"))).unwrap();
        let round: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_ne!(round["status"], "incomplete", "{id}: {}", round["error"]);
    }
}
