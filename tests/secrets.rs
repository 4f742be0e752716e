//! Keys never written: gateways that quote the request's headers (and the key in their body
//! and request-id header) in their 401 and 500 answers, called through `run --headless` and
//! `ask` as a user would, with trace logging to `--log-file`. No key may appear in a round
//! file or any other file of the results, in the log file, on stderr or on stdout.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::path::Path;
use std::process::{Command, Output};

use support::EchoHeaders;
use support::tournament::{sim, write};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer};

/// Each provider's wire format with its own key: two in the usual long shape, one short
/// (9 characters), which is still redacted.
const REMOTES: [(&str, &str, &str, &str); 3] = [
    (
        "openai-compatible",
        "/v1",
        "EB_SECRET_OPENAI",
        "sk-FAKE-openai-0123456789abcdef",
    ),
    (
        "anthropic",
        "/v1",
        "EB_SECRET_ANTHROPIC",
        "sk-ant-FAKE-0123456789abcdef",
    ),
    ("google", "/v1beta", "EB_SECRET_GOOGLE", "gk-short9"),
];

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.env_remove("ETHICS_BOWL_MODELS");
    c.env("ETHICS_BOWL_LOG", "trace");
    for (_, _, var, key) in REMOTES {
        c.env(var, key);
    }
    c
}

/// A gateway answering every call with `status` and the request's headers.
async fn echoing(status: u16) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(EchoHeaders(status))
        .mount(&server)
        .await;
    server
}

/// A model entry per wire format and server: `echo-{provider}-{status}`.
fn remote_models(servers: &[(u16, &MockServer)]) -> (String, Vec<String>) {
    let mut entries = String::new();
    let mut names = Vec::new();
    for (status, server) in servers {
        for (provider, prefix, var, _) in REMOTES {
            let name = format!("echo-{provider}-{status}");
            entries.push_str(&format!(
                "[[models]]\nname = \"{name}\"\nprovider = \"{provider}\"\nmodel = \"m\"\napi_key_env = \"{var}\"\nbase_url = \"{}{prefix}\"\ntimeout_s = 5\n",
                server.uri()
            ));
            names.push(name);
        }
    }
    (entries, names)
}

/// Fails naming `what` when it holds any key.
fn assert_no_key(what: &str, text: &str) {
    for (_, _, var, key) in REMOTES {
        assert!(
            !text.contains(key),
            "{what} holds the key of {var}:\n{text}"
        );
    }
}

/// Every file under `dir`, with its text.
fn files_under(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("readable folder") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).expect("readable file");
                out.push((
                    path.display().to_string(),
                    String::from_utf8_lossy(&bytes).into_owned(),
                ));
            }
        }
    }
    out
}

async fn output(mut command: Command) -> Output {
    tokio::task::spawn_blocking(move || command.output().expect("runs"))
        .await
        .expect("joins")
}

#[tokio::test]
async fn echoed_keys_reach_no_round_file_log_or_output() {
    let (unauthorized, broken) = (echoing(401).await, echoing(500).await);
    let (entries, names) = remote_models(&[(401, &unauthorized), (500, &broken)]);
    let dir = tempfile::tempdir().unwrap();
    let models = [entries, sim("a", 0.8, 0.0, 0.0), sim("j", 0.5, 0.0, 0.0)].concat();
    let pairings: Vec<String> = names.iter().map(|n| format!("[\"a\", \"{n}\"]")).collect();
    let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    let config = write(
        dir.path(),
        &models,
        &format!(
            "models = [\"a\", {}]\njudges = [\"j\"]\ndilemmas = [\"borrowed_voice\"]\npairings = [{}]\n",
            quoted.join(", "),
            pairings.join(", ")
        ),
    );
    let log = dir.path().join("run.log");

    let mut run = bin();
    run.arg("--log-file")
        .arg(&log)
        .args(["run", "--headless"])
        .arg(&config);
    let out = output(run).await;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_no_key("run's stderr", &stderr);
    assert_no_key("run's stdout", &String::from_utf8_lossy(&out.stdout));
    let stored = files_under(&dir.path().join("results"));
    let rounds: Vec<_> = stored
        .iter()
        .filter(|(path, _)| path.contains("rounds"))
        .collect();
    assert_eq!(
        rounds.len(),
        names.len(),
        "a round file per pairing: {stderr}"
    );
    for (path, text) in &stored {
        assert_no_key(path, text);
    }
    for (_, _, var, _) in REMOTES {
        let marker = format!("[redacted {var}]");
        assert!(
            rounds.iter().any(|(_, text)| text.contains(&marker)),
            "the echo is stored with {marker} in place of the key"
        );
    }
    let logged = std::fs::read_to_string(&log).expect("log file written");
    assert!(!logged.is_empty(), "trace logging wrote lines");
    assert_no_key("the log file", &logged);

    for name in &names {
        let mut ask = bin();
        ask.arg("--log-file")
            .arg(&log)
            .args(["ask", name, "hello", "--config"])
            .arg(dir.path().join("models.toml"));
        let out = output(ask).await;
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert!(stderr.contains("[redacted EB_SECRET_"), "{name}: {stderr}");
        assert_no_key("ask's stderr", &stderr);
        assert_no_key("ask's stdout", &String::from_utf8_lossy(&out.stdout));
    }
    assert_no_key("the log file", &std::fs::read_to_string(&log).unwrap());
}
