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

/// Two judges' keys: one in the usual shape, one holding `"` and `\`, which JSON writes
/// escaped, so that its stored form differs from the key itself.
const JUDGE_KEYS: [(&str, &str); 2] = [
    ("EB_SECRET_JUDGE_PLAIN", "sk-test-judge-0123456789abcdef"),
    ("EB_SECRET_JUDGE_QUOTE", r#"sk-q"uo\te-judge-0123456789"#),
];

/// The text of a JSON string holding `text` (without its quotes).
fn json_escaped(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap();
    quoted[1..quoted.len() - 1].to_string()
}

/// `text` as HTML escapes it.
fn html_escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// A judge that reads its key from the request and writes it back inside the JSON strings
/// of a complete judgment, as JSON spells it (`"` and `\` escaped) and with its first `s`
/// as `\u0073`: the text it sends is not the key, the strings a JSON reader decodes are.
struct EscapedKeyJudge;

impl wiremock::Respond for EscapedKeyJudge {
    fn respond(&self, request: &wiremock::Request) -> wiremock::ResponseTemplate {
        let key = request
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or_default();
        let written = json_escaped(key).replacen('s', "\\u0073", 1);
        let scores = r#"{"principle_articulation": 7, "consistency": 7, "stakeholder_recognition": 7, "uncertainty_integration": 7, "framework_awareness": 7, "intellectual_honesty": 7, "constructive_engagement": 7}"#;
        let text = format!(
            r#"{{"team_a_scores": {scores}, "team_b_scores": {scores}, "team_a_justification": "Team A read out {written} to me.", "team_b_justification": "Thin.", "overall_analysis": "My key is {written}."}}"#
        );
        support::openai_answer(&text)
    }
}

/// Every way a key could be written in an output that a reader decodes back to it: as it
/// is, JSON-escaped (once, or twice as a stored raw answer is), HTML-escaped, and with the
/// judge's `\u0073`.
fn written_forms(key: &str) -> Vec<String> {
    let mut forms = Vec::new();
    for base in [key.to_string(), key.replacen('s', "\\u0073", 1)] {
        for form in [
            base.clone(),
            json_escaped(&base),
            json_escaped(&json_escaped(&base)),
            html_escaped(&base),
            html_escaped(&json_escaped(&base)),
        ] {
            if !forms.contains(&form) {
                forms.push(form);
            }
        }
    }
    forms
}

/// Fails naming `what` when it holds a judge's key in any written form.
fn assert_no_judge_key(what: &str, text: &str) {
    for (var, key) in JUDGE_KEYS {
        for form in written_forms(key) {
            assert!(
                !text.contains(&form),
                "{what} holds the key of {var} as {form}:\n{text}"
            );
        }
    }
}

/// Fails naming `what` when a string of this JSON, decoded, holds a judge's key.
fn assert_no_decoded_judge_key(what: &str, value: &serde_json::Value) {
    match value {
        serde_json::Value::String(s) => assert_no_judge_key(what, s),
        serde_json::Value::Array(items) => {
            for v in items {
                assert_no_decoded_judge_key(what, v);
            }
        }
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                assert_no_judge_key(what, k);
                assert_no_decoded_judge_key(what, v);
            }
        }
        _ => {}
    }
}

/// A judge that writes its key JSON-escaped inside its judgment (`\u0073k-…`, `\"`, `\\`)
/// reaches no round file, `rounds --json`, `rounds --markdown` or report file: the strings
/// decoded from its answer are redacted as its raw text is.
#[tokio::test]
async fn a_key_a_judge_writes_json_escaped_reaches_no_stored_or_printed_output() {
    let server = support::answering(EscapedKeyJudge).await;
    let dir = tempfile::tempdir().unwrap();
    let judges: String = JUDGE_KEYS
        .iter()
        .enumerate()
        .map(|(i, (var, _))| {
            format!(
                "[[models]]\nname = \"j{i}\"\nprovider = \"openai-compatible\"\nmodel = \"m\"\napi_key_env = \"{var}\"\nbase_url = \"{}/v1\"\ntimeout_s = 5\n",
                server.uri()
            )
        })
        .collect();
    let models = [judges, sim("a", 0.8, 0.0, 0.0), sim("b", 0.5, 0.0, 0.0)].concat();
    let config = write(
        dir.path(),
        &models,
        "models = [\"a\", \"b\"]\njudges = [\"j0\", \"j1\"]\njudging = \"all\"\ndilemmas = [\"borrowed_voice\"]\npairings = [[\"a\", \"b\"]]\n",
    );
    let with_keys = |mut c: Command| {
        for (var, key) in JUDGE_KEYS {
            c.env(var, key);
        }
        c
    };
    let mut run = with_keys(bin());
    run.args(["run", "--headless"]).arg(&config);
    let out = output(run).await;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "the run completes: {stderr}");
    assert_no_judge_key("run's stderr", &stderr);
    assert_no_judge_key("run's stdout", &String::from_utf8_lossy(&out.stdout));

    let results: Vec<_> = std::fs::read_dir(dir.path().join("results"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    assert_eq!(results.len(), 1, "one tournament folder");
    let folder = &results[0];
    let stored = files_under(folder);
    let rounds: Vec<_> = stored
        .iter()
        .filter(|(path, _)| path.contains("rounds"))
        .collect();
    assert_eq!(rounds.len(), 1, "{stderr}");
    let (_, round_text) = rounds[0];
    let round: serde_json::Value = serde_json::from_str(round_text).unwrap();
    assert_eq!(
        round["status"], "complete",
        "both judgments read: {round_text}"
    );
    for (var, _) in JUDGE_KEYS {
        assert!(
            round_text.contains(&format!("[redacted {var}]")),
            "the judgment is stored with the key replaced: {round_text}"
        );
    }
    for (path, text) in &stored {
        assert_no_judge_key(path, text);
    }
    assert_no_decoded_judge_key("the round file", &round);

    for args in [&["--json"][..], &["--markdown"][..]] {
        let mut rounds_cmd = bin();
        rounds_cmd.arg("rounds").arg(folder).args(args);
        let out = output(rounds_cmd).await;
        assert!(out.status.success(), "{args:?}");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            stdout.contains("[redacted EB_SECRET_JUDGE_"),
            "{args:?}: {stdout}"
        );
        assert_no_judge_key(&format!("rounds {args:?}"), &stdout);
        if args == ["--json"] {
            let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
            assert_no_decoded_judge_key("rounds --json", &value);
        }
    }

    let mut report = bin();
    report.arg("report").arg(folder);
    let out = output(report).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = files_under(&folder.join("report"));
    for name in ["report.md", "report.html"] {
        assert!(
            written.iter().any(|(path, _)| path.ends_with(name)),
            "{name} written"
        );
    }
    for (path, text) in &written {
        assert_no_judge_key(path, text);
    }
}

/// Copies a folder (files and subfolders).
fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_folder(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// A round file an older build wrote with a key in it (a judgment's decoded text, a
/// server's message) shows no key through `rounds`, `rounds --markdown`, `rounds --json` or
/// a report, when the key's variable, named by the folder's tournament, is set.
#[tokio::test]
async fn a_key_an_older_build_stored_is_redacted_wherever_its_folder_is_read() {
    let (var, key) = ("EB_SECRET_OLD_BUILD", r#"sk-old"build\key-0123456789"#);
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("old");
    copy_folder(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/stored-v0/ethics_bowl"),
        &folder,
    );
    let tournament_path = folder.join("tournament.json");
    let mut tournament: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&tournament_path).unwrap()).unwrap();
    tournament["models"][0]["api_key_env"] = var.into();
    std::fs::write(&tournament_path, tournament.to_string()).unwrap();
    let round_path = folder
        .join("rounds")
        .join("borrowed_voice__sim-alpha__vs__sim-beta__r1.json");
    let mut round: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&round_path).unwrap()).unwrap();
    round["judgments"][0]["overall_analysis"] = format!("The key is {key}.").into();
    round["phases"][0]["response"] = format!("Mine: {key}").into();
    round["status"] = "incomplete".into();
    round["error"] = serde_json::json!({
        "phase_type": "judgment", "model_id": "sim-gamma",
        "message": format!("HTTP 401: bad key {key}"), "timestamp": "t",
    });
    std::fs::write(&round_path, round.to_string()).unwrap();

    let read = |args: &[&str]| {
        let mut c = bin();
        c.env(var, key).args(args).arg(&folder);
        c
    };
    for args in [
        &["rounds"][..],
        &["rounds", "--markdown"],
        &["rounds", "--json"],
    ] {
        let out = output(read(args)).await;
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            stdout.contains(&format!("[redacted {var}]")),
            "{args:?}: {stdout}"
        );
        for form in written_forms(key) {
            assert!(!stdout.contains(&form), "{args:?} shows {form}:\n{stdout}");
        }
    }
    let out = output(read(&["report"])).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (path, text) in files_under(&folder.join("report")) {
        for form in written_forms(key) {
            assert!(!text.contains(&form), "{path} holds {form}");
        }
    }
}
