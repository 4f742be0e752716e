//! The tool against a real model, through the real binary: llama-cpp-python's OpenAI-compatible
//! server with SmolLM2-135M, as `../shared/tools/local-llm/serve.sh` starts it. Everything the
//! in-process test servers cannot show is here: a real streamed answer and its finish reason,
//! a round of each protocol played by a real (tiny) model with its judge's answer constrained
//! to the judge's JSON schema, token estimates where the server sends no usage, the budget
//! stopping a streamed run, and a real context-window overflow, streamed and not.
//!
//! `ETHICS_BOWL_LOCAL_LLM` holds the server's URL (`http://127.0.0.1:18090/v1`);
//! `ETHICS_BOWL_LOCAL_LLM_SMALL` a second server's, started with a 1024-token window, for the
//! overflow. Without them each test says how to run it and passes, except under CI
//! (`CI=true`), where they must be set (`.ci/run` starts both servers).
//!
//! The tests may run at once against one server: `serve.sh` starts it with
//! `--interrupt_requests False`, so a second request waits for the first instead of ending
//! its stream; `timeout_s` is long enough for that wait.
//!
//! Every model here samples at temperature 0 with a fixed `seed`, so a given server build
//! answers a prompt the same way every run. Even so, the assertions hold for any answer the
//! judge's grammar lets through: a judgment is read whole, or its round is sent to review with
//! the parser's reason; never lost, never an error. That this model's own recorded answers are
//! read whole is checked apart, without a server, in `tests/recorded_answers.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use support::tournament::manifest;

/// How to run these tests, printed when the server's variable is unset.
const HOW: &str = "start a server with `bash ../shared/tools/local-llm/serve.sh 18090` (and \
`bash ../shared/tools/local-llm/serve.sh 18091 1024` for the overflow test), then run \
`ETHICS_BOWL_LOCAL_LLM=http://127.0.0.1:18090/v1 ETHICS_BOWL_LOCAL_LLM_SMALL=http://127.0.0.1:18091/v1 \
cargo test --test local_model`";

/// The URL in `var`, or `None` after saying how to run the test; under CI an unset variable
/// fails the test, since CI must run it.
fn server(var: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(url) if !url.trim().is_empty() => Some(url.trim().trim_end_matches('/').to_string()),
        _ => {
            let ci = matches!(std::env::var("CI").as_deref(), Ok("true" | "1"));
            assert!(
                !ci,
                "{var} is not set under CI: .ci/run starts the local servers; {HOW}"
            );
            eprintln!("SKIPPED: {var} is not set; to run this test, {HOW}");
            None
        }
    }
}

/// The binary, run from the crate's folder, logging into a temporary data folder.
fn bin(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.env_remove("ETHICS_BOWL_LOG");
    c.env_remove("ETHICS_BOWL_MODELS");
    c.env("XDG_DATA_HOME", dir.join("data"));
    c
}

/// Runs `command`: its exit code, stdout and stderr.
fn output(command: &mut Command) -> (Option<i32>, String, String) {
    let out = command.output().expect("the binary runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The sampling every model here uses: greedy, with a fixed seed, so that the server answers
/// the same prompt the same way every run.
const DETERMINISTIC: &str = "temperature = 0\nseed = 42\n";

/// A model answered by the server at `url`, sampling deterministically, with `extra` keys. The
/// long `timeout_s` covers waiting while another test's call holds the server's one thread.
fn model(name: &str, url: &str, extra: &str) -> String {
    format!(
        "[[models]]\nname = \"{name}\"\nprovider = \"openai-compatible\"\nmodel = \"smollm2\"\n\
         base_url = \"{url}\"\ntimeout_s = 600\n{DETERMINISTIC}{extra}\n"
    )
}

/// A debater: short answers, streamed.
fn debater(name: &str, url: &str) -> String {
    model(name, url, "max_tokens = 200\n")
}

/// A judge whose answer the server constrains to the judge's JSON schema.
fn judge(name: &str, url: &str) -> String {
    model(
        name,
        url,
        "max_tokens = 500\nstructured_output = \"json_object_schema\"\n",
    )
}

/// Writes `models.toml` (three attempts, so a retried call would show) and `tournament.toml`
/// (`body` after the name, models file and results folder) into `dir`; returns the latter.
fn write_tournament(dir: &Path, models: &[String], body: &str) -> PathBuf {
    let retry = "[retry]\nmax_attempts = 3\ninitial_backoff_ms = 200\nmax_backoff_ms = 400\n\n";
    std::fs::write(
        dir.join("models.toml"),
        format!("{retry}{}", models.concat()),
    )
    .expect("write models");
    let path = dir.join("tournament.toml");
    let text = format!(
        "name = \"local\"\nmodels_file = \"models.toml\"\noutput_dir = \"{}\"\n{body}",
        dir.join("results").display()
    );
    std::fs::write(&path, text).expect("write tournament");
    path
}

/// `text` with `from` replaced by `to`; fails when `from` is not there, so a sample file that
/// changed cannot silently keep its own values.
fn replace(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "\"{from}\" not found in:\n{text}");
    text.replace(from, to)
}

/// Runs a tournament headless, logging into `dir`: exit code, stdout, stderr.
fn run(dir: &Path, config: &Path) -> (Option<i32>, String, String) {
    output(
        bin(dir)
            .arg("--log-file")
            .arg(dir.join("run.log"))
            .args(["run", "--headless"])
            .arg(config),
    )
}

/// Every round file the run wrote, as JSON (the files, not the library's reading of them).
fn round_files(dir: &Path) -> Vec<Value> {
    let results: Vec<PathBuf> = std::fs::read_dir(dir.join("results"))
        .expect("a results folder")
        .map(|e| e.expect("entry").path())
        .collect();
    assert_eq!(results.len(), 1, "one tournament folder: {results:?}");
    let mut rounds: Vec<Value> = std::fs::read_dir(results[0].join("rounds"))
        .expect("a rounds folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| serde_json::from_str(&std::fs::read_to_string(&p).expect("read")).expect("JSON"))
        .collect();
    rounds.sort_by_key(|r| r["id"].as_str().unwrap_or_default().to_string());
    rounds
}

/// The tournament's record (`tournament.json`).
fn tournament_record(dir: &Path) -> Value {
    let results = std::fs::read_dir(dir.join("results"))
        .expect("a results folder")
        .next()
        .expect("one tournament folder")
        .expect("entry")
        .path();
    serde_json::from_str(&std::fs::read_to_string(results.join("tournament.json")).expect("read"))
        .expect("JSON")
}

/// A phase's token count, 0 when absent.
fn tokens(phase: &Value, key: &str) -> u64 {
    phase[key].as_u64().unwrap_or(0)
}

/// What every round played against the real model must show, whatever the model answered:
/// `expected` rounds, each `complete` or `needs_review` (never `incomplete`); each judge's
/// answer either read whole (`parsed`) or, when the grammar let through an answer the parser
/// cannot read whole (a string cut at the token limit, say), kept with the parser's reason and
/// its round sent to review; and every phase a streamed call whose tokens were estimated,
/// since this server sends no usage when streaming, with its finish reason as the server
/// spelled it.
fn assert_played(rounds: &[Value], expected: usize, run_output: &str) {
    assert_eq!(rounds.len(), expected, "rounds stored:\n{run_output}");
    for round in rounds {
        let id = round["id"].as_str().unwrap_or("?");
        let status = round["status"].as_str().unwrap_or("?");
        assert!(
            status == "complete" || status == "needs_review",
            "round {id} is {status}: {}\n{run_output}",
            round["error"]
        );
        let judgments = round["judgments"].as_array().expect("judgments");
        assert!(!judgments.is_empty(), "round {id} has no judgment");
        for j in judgments {
            let parse = j["parse_status"].as_str().unwrap_or("?");
            let reasons = j["problems"].as_array().map_or(0, Vec::len);
            let raw = j["raw_response"].as_str().unwrap_or("");
            assert!(!raw.is_empty(), "round {id}: the judge's answer is kept");
            assert!(
                parse == "parsed" || (status == "needs_review" && reasons > 0),
                "round {id} ({status}): the judge's answer was read {parse} with {reasons} \
                 reasons ({}):\n{raw}",
                j["problems"]
            );
        }
        let phases = round["phases"].as_array().expect("phases");
        assert!(!phases.is_empty(), "round {id} has no phase");
        for p in phases {
            let what = format!("round {id}, phase {} of {}", p["phase_type"], p["model_id"]);
            assert_eq!(
                p["usage_estimated"], true,
                "{what}: usage not marked estimated"
            );
            assert!(
                tokens(p, "input_tokens") > 0 && tokens(p, "output_tokens") > 0,
                "{what}: tokens {} in, {} out",
                p["input_tokens"],
                p["output_tokens"]
            );
            let finish = p["finish_reason"].as_str().unwrap_or("?");
            assert!(
                finish == "stop" || finish == "length",
                "{what}: finish reason {finish}"
            );
            assert_eq!(
                p["truncated"] == true,
                finish == "length",
                "{what}: truncated is set exactly when the answer stopped at the limit"
            );
        }
    }
}

#[test]
fn ask_prints_the_answer_and_the_finish_reason_as_the_server_spells_it() {
    let Some(url) = server("ETHICS_BOWL_LOCAL_LLM") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let models = dir.path().join("models.toml");
    std::fs::write(
        &models,
        [
            model("smol", &url, "max_tokens = 40\n"),
            model("smol-whole", &url, "max_tokens = 40\nstream = false\n"),
        ]
        .concat(),
    )
    .unwrap();
    for (name, streamed) in [("smol", true), ("smol-whole", false)] {
        let (code, stdout, stderr) = output(
            bin(dir.path())
                .arg("ask")
                .arg("--config")
                .arg(&models)
                .arg(name)
                .arg("Say hello to a friend in one short sentence."),
        );
        assert_eq!(code, Some(0), "{name}: {stderr}");
        assert!(!stdout.trim().is_empty(), "{name}: no answer on stdout");
        let summary = stderr
            .lines()
            .find(|l| l.starts_with(&format!("[{name}:")))
            .unwrap_or_else(|| panic!("{name}: no summary line:\n{stderr}"));
        assert!(
            summary.contains("finish stop") || summary.contains("finish length"),
            "{name}: the finish reason as the server spells it: {summary}"
        );
        assert!(summary.contains("1 attempt;"), "{name}: {summary}");
        // Streamed, this server sends no usage: the tokens are estimated and say so; not
        // streamed, it reports usage, which is shown as it is.
        assert_eq!(
            summary.contains("estimated"),
            streamed,
            "{name}: usage marked estimated only when streamed: {summary}"
        );
        assert!(
            !summary.contains("usage not reported"),
            "{name}: usage is reported or estimated: {summary}"
        );
    }
}

#[test]
fn an_ethics_bowl_round_from_the_local_sample_plays_and_its_judgment_parses() {
    let Some(url) = server("ETHICS_BOWL_LOCAL_LLM") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // The sample files themselves, pointed at this server and this folder.
    let models = std::fs::read_to_string(manifest("sample-config/local-llm.toml")).unwrap();
    let models = replace(&models, "http://127.0.0.1:18090/v1", &url);
    // Greedy sampling (the sample's own seed stays), so every run asks and is answered alike.
    let models = replace(&models, "temperature = 0.7", "temperature = 0");
    let models = replace(&models, "temperature = 0.2", "temperature = 0");
    assert!(
        models.contains("seed = "),
        "the sample sets a seed:\n{models}"
    );
    std::fs::write(dir.path().join("local-llm.toml"), models).unwrap();
    let tournament =
        std::fs::read_to_string(manifest("sample-config/local-llm-tournament.toml")).unwrap();
    let dilemmas = manifest("sample-config/dilemmas.md");
    let tournament = replace(
        &tournament,
        "dilemma_file = \"dilemmas.md\"",
        &format!("dilemma_file = \"{}\"", dilemmas.display()),
    );
    let tournament = replace(
        &tournament,
        "output_dir = \"results\"",
        &format!("output_dir = \"{}\"", dir.path().join("results").display()),
    );
    let config = dir.path().join("local-llm-tournament.toml");
    std::fs::write(&config, tournament).unwrap();

    let (code, stdout, stderr) = run(dir.path(), &config);
    let said = format!("{stdout}\n{stderr}");
    assert_eq!(code, Some(0), "{said}");
    let rounds = round_files(dir.path());
    assert_played(&rounds, 1, &said);
    let types: Vec<&str> = rounds[0]["phases"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["phase_type"].as_str())
        .collect();
    for phase in [
        "presentation",
        "response",
        "rebuttal",
        "consistency_test",
        "judgment",
    ] {
        assert!(types.contains(&phase), "{phase} in {types:?}");
    }
    // Whatever was read is a score from 1 to 10: nothing else becomes a score. A whole
    // reading has all seven per team.
    let judgment = &rounds[0]["judgments"][0];
    for team in ["team_a_scores", "team_b_scores"] {
        let scores = judgment[team].as_object().expect(team);
        if judgment["parse_status"] == "parsed" {
            assert_eq!(scores.len(), 7, "{team}: {scores:?}");
        }
        assert!(
            scores
                .values()
                .all(|s| s.is_null() || s.as_f64().is_some_and(|s| (1.0..=10.0).contains(&s))),
            "{team}: {scores:?}"
        );
    }
}

#[test]
fn a_question_answer_debate_plays_and_its_judgment_parses() {
    let Some(url) = server("ETHICS_BOWL_LOCAL_LLM") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let body = format!(
        "protocol = \"qa_debate\"\nmodels = [\"smol-a\", \"smol-b\"]\njudges = [\"smol-judge\"]\n\
         pairings = [[\"smol-a\", \"smol-b\"]]\nmax_concurrency = 1\n\n[qa]\n\
         datasets = [{{ file = \"{}\", level = \"Sample\" }}]\nsample_per_level = 1\nseed = 7\n\
         debate_rounds = 1\nword_limit = 80\nbaselines = []\nconsultancy = false\n\
         relations = [\"mixed\"]\n",
        manifest("sample-config/qa-sample.json").display()
    );
    let config = write_tournament(
        dir.path(),
        &[
            debater("smol-a", &url),
            debater("smol-b", &url),
            judge("smol-judge", &url),
        ],
        &body,
    );
    let (code, stdout, stderr) = run(dir.path(), &config);
    let said = format!("{stdout}\n{stderr}");
    assert_eq!(code, Some(0), "{said}");
    let rounds = round_files(dir.path());
    assert_played(&rounds, 1, &said);
    let judgment = &rounds[0]["judgments"][0];
    if judgment["parse_status"] == "parsed" {
        let choice = &judgment["choice"];
        assert!(choice.is_object(), "the judge's choice is read: {choice}");
    }
    let arguments = rounds[0]["phases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["turn"].is_object())
        .count();
    assert!(
        arguments >= 2,
        "both debaters argued: {}",
        rounds[0]["phases"]
    );
}

#[test]
fn a_structured_debate_plays_and_its_verdict_parses() {
    let Some(url) = server("ETHICS_BOWL_LOCAL_LLM") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // The debaters' replies are JSON too: the schema goes on the wire for them as well.
    let json_debater = |name: &str| {
        model(
            name,
            &url,
            "max_tokens = 400\nstructured_output = \"json_object_schema\"\n",
        )
    };
    let body = format!(
        "protocol = \"structured_debate\"\nmodels = [\"smol\"]\nself_debates = true\n\
         judges = [\"smol-judge\"]\nmax_concurrency = 1\n\n[structured]\ntopics_file = \"{}\"\n\
         topics = [\"microservices_day_one\"]\n",
        manifest("sample-config/topics.toml").display()
    );
    let config = write_tournament(
        dir.path(),
        &[
            json_debater("smol"),
            model(
                "smol-judge",
                &url,
                "max_tokens = 1000\nstructured_output = \"json_object_schema\"\n\
                 on_truncation = \"retry\"\nmax_tokens_cap = 2500\n",
            ),
        ],
        &body,
    );
    let (code, stdout, stderr) = run(dir.path(), &config);
    let said = format!("{stdout}\n{stderr}");
    assert_eq!(code, Some(0), "{said}");
    let rounds = round_files(dir.path());
    assert_played(&rounds, 1, &said);
    let judgment = &rounds[0]["judgments"][0];
    if judgment["parse_status"] == "parsed" {
        let verdict = &judgment["structured"];
        assert!(
            verdict["assessments"].is_array(),
            "the judge's verdict is read: {verdict}"
        );
    }
}

#[test]
fn the_budget_stops_a_streamed_run_whose_server_sends_no_usage() {
    let Some(url) = server("ETHICS_BOWL_LOCAL_LLM") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // A dear pretend price: the first call's estimated cost (a prompt of hundreds of tokens)
    // passes the budget, so no second call may start.
    let price = "price = { input_per_mtok = 10.0, output_per_mtok = 10.0 }\n";
    let priced = |name: &str| model(name, &url, &format!("max_tokens = 60\n{price}"));
    let config = write_tournament(
        dir.path(),
        &[priced("smol-a"), priced("smol-b"), priced("smol-judge")],
        &format!(
            "dilemma_file = \"{}\"\nmodels = [\"smol-a\", \"smol-b\"]\njudges = [\"smol-judge\"]\n\
             dilemmas = [\"borrowed_voice\"]\npairings = [[\"smol-a\", \"smol-b\"]]\n\
             max_concurrency = 1\nbudget_usd = 0.001\n",
            manifest("sample-config/dilemmas.md").display()
        ),
    );
    let (code, stdout, stderr) = run(dir.path(), &config);
    let said = format!("{stdout}\n{stderr}");
    assert_eq!(code, Some(1), "rounds are left: {said}");
    assert!(
        stderr.contains("budget reached") && stderr.contains("stopped at the budget"),
        "the run says the budget stopped it: {said}"
    );
    assert_eq!(tournament_record(dir.path())["status"], "budget_reached");
    let rounds = round_files(dir.path());
    let phases: Vec<&Value> = rounds
        .iter()
        .flat_map(|r| r["phases"].as_array().into_iter().flatten())
        .collect();
    // One round of six calls was scheduled (four debate phases, Team B's consistency test,
    // the judgment).
    assert!(
        !phases.is_empty() && phases.len() < 6,
        "{} calls made: {said}",
        phases.len()
    );
    for p in phases {
        assert_eq!(p["usage_estimated"], true, "{p}");
        assert!(p["cost_usd"].as_f64().is_some_and(|c| c > 0.0), "{p}");
    }
}

#[test]
fn a_context_overflow_is_reported_after_one_attempt_streamed_or_not() {
    let Some(url) = server("ETHICS_BOWL_LOCAL_LLM_SMALL") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let config = write_tournament(
        dir.path(),
        &[
            model("small-streamed", &url, "max_tokens = 50\n"),
            model("small-whole", &url, "max_tokens = 50\nstream = false\n"),
            model("small-judge", &url, "max_tokens = 50\n"),
        ],
        &format!(
            "dilemma_file = \"{}\"\nmodels = [\"small-streamed\", \"small-whole\"]\n\
             judges = [\"small-judge\"]\ndilemmas = [\"borrowed_voice\"]\n\
             pairings = [[\"small-streamed\", \"small-whole\"], [\"small-whole\", \"small-streamed\"]]\n",
            long_dilemmas(dir.path()).display()
        ),
    );
    let streamed_says = ["closed the stream without an answer", "context-length"];
    let whole_says = ["maximum context length is 1024 tokens"];

    // `ask`: the failure says what happened and that it took one attempt.
    let long_prompt = "Weigh every consideration in this sentence with care. ".repeat(300);
    for (name, says) in [
        ("small-whole", &whole_says[..]),
        ("small-streamed", &streamed_says[..]),
    ] {
        let (code, _, stderr) = output(
            bin(dir.path())
                .arg("ask")
                .arg("--config")
                .arg(dir.path().join("models.toml"))
                .arg(name)
                .arg(&long_prompt),
        );
        assert_eq!(code, Some(1), "{name}: {stderr}");
        for part in says.iter().chain(&["after 1 attempt"]) {
            assert!(stderr.contains(part), "{name}: \"{part}\" in:\n{stderr}");
        }
        assert!(
            !stderr.contains("retrying"),
            "{name}: not retried:\n{stderr}"
        );
    }

    // A round: Team A's presentation overflows; the round file keeps its one attempt.
    let (code, stdout, stderr) = run(dir.path(), &config);
    let said = format!("{stdout}\n{stderr}");
    assert_eq!(code, Some(1), "{said}");
    let rounds = round_files(dir.path());
    assert_eq!(rounds.len(), 2, "{said}");
    for round in &rounds {
        let id = round["id"].as_str().unwrap_or("?");
        assert_eq!(round["status"], "incomplete", "{id}");
        let error = &round["error"];
        let failed = error["model_id"].as_str().unwrap_or("?");
        assert_eq!(error["phase_type"], "presentation", "{id}: {error}");
        assert_eq!(failed, round["team_a_model"], "{id}: {error}");
        let says = if failed == "small-streamed" {
            &streamed_says[..]
        } else {
            &whole_says[..]
        };
        let message = error["message"].as_str().unwrap_or("");
        for part in says {
            assert!(message.contains(part), "{id}: \"{part}\" in {message}");
        }
        assert_eq!(
            error["attempts"].as_array().map(Vec::len),
            Some(1),
            "{id}: one attempt: {error}"
        );
    }
}

/// A dilemma document whose one dilemma (`borrowed_voice`, the sample's, its scenario said
/// many times over) is far longer than a 1024-token window.
fn long_dilemmas(dir: &Path) -> PathBuf {
    let sample = std::fs::read_to_string(manifest("sample-config/dilemmas.md")).unwrap();
    let start = sample
        .find("## The Borrowed Voice")
        .expect("the sample's first dilemma");
    let end = sample[start + 1..]
        .find("\n## ")
        .map_or(sample.len(), |i| start + 1 + i);
    let dilemma = &sample[start..end];
    let scenario_at = dilemma
        .find("### Core Scenario\n")
        .expect("a core scenario")
        + 18;
    let paragraph = dilemma[scenario_at..]
        .trim_start()
        .split("\n\n")
        .next()
        .expect("a paragraph");
    let repeated = format!("{paragraph}\n\n").repeat(12);
    let long = format!(
        "{}\n{repeated}{}",
        &dilemma[..scenario_at],
        &dilemma[scenario_at..]
    );
    let path = dir.join("long-dilemmas.md");
    std::fs::write(&path, format!("# Long dilemmas\n\n{long}")).unwrap();
    path
}

#[test]
fn the_local_sample_models_file_loads() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = output(
        bin(dir.path())
            .arg("models")
            .arg("--config")
            .arg(manifest("sample-config/local-llm.toml")),
    );
    assert_eq!(code, Some(0), "{stderr}");
    for name in ["smol-a", "smol-b", "smol-judge"] {
        assert!(stdout.contains(name), "{name} in:\n{stdout}");
    }
}
