//! The response cache for development (`cache = true`): a second run of the same tournament
//! into another folder, a second rejudge, and a second identical request to a real wire
//! format are answered from the cache without a call, and say so; requests above
//! temperature 0 are left alone unless `cache = "any-temperature"`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ethics_bowl::domain::Round;
use ethics_bowl::engine;
use ethics_bowl::providers::response_cache::{CachePolicy, ResponseCache};
use ethics_bowl::providers::{CallEvent, ChatRequest, ModelRegistry};
use ethics_bowl::store::{RoundFilter, Store};
use support::tournament::{run_collecting, sim, stored_rounds, write};
use support::{FAKE_KEY, answering, models, openai_answer};

/// A sample-like tournament: three simulated models debating every ordered pairing on every
/// sample dilemma twice, one rotating judge each round (some answers unreadable, so
/// correction turns are asked too), with `cache` and the cache folder `cache_dir`, at
/// `temperature` for every call.
fn tournament(dir: &Path, cache: &str, cache_dir: &Path, temperature: f64) -> PathBuf {
    let models: String = ["sim-alpha", "sim-beta", "sim-gamma"]
        .iter()
        .map(|m| sim(m, 0.6, 0.0, 0.2))
        .collect();
    let body = format!(
        "models = [\"sim-alpha\", \"sim-beta\", \"sim-gamma\"]\n\
         judges = [\"sim-alpha\", \"sim-beta\", \"sim-gamma\"]\n\
         repetitions = 2\n\
         cache = {cache}\ncache_dir = \"{}\"\n\
         [temperatures]\ndebaters = {temperature}\njudges = {temperature}\n",
        cache_dir.display()
    );
    write(dir, &models, &body)
}

/// A stored answer: its step, who gave it, and its text.
type Answer = (String, String, String);

/// Every stored answer of a run, by round, each with its step and who gave it (a round
/// stores its phases in the order they finished, which calls made side by side need not
/// keep from run to run).
fn answers(rounds: &[Round]) -> Vec<(String, Vec<Answer>)> {
    let mut all: Vec<(String, Vec<Answer>)> = rounds
        .iter()
        .map(|r| {
            let mut phases: Vec<Answer> = r
                .phases
                .iter()
                .map(|p| {
                    (
                        p.phase_type.as_str().to_string(),
                        p.speaker(),
                        p.response.clone(),
                    )
                })
                .collect();
            phases.sort();
            (r.id.clone(), phases)
        })
        .collect();
    all.sort();
    all
}

fn answered(rounds: &[Round]) -> usize {
    rounds
        .iter()
        .flat_map(|r| &r.phases)
        .filter(|p| p.error.is_none())
        .count()
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(shards) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    shards
        .flat_map(|s| std::fs::read_dir(s.unwrap().path()).unwrap())
        .map(|f| f.unwrap().path())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_second_run_into_another_folder_reuses_every_answer_and_stores_the_same_texts() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let config = tournament(dir.path(), "true", &cache, 0.0);

    let (first, _) = run_collecting(&config, Some(&dir.path().join("one"))).await;
    let first_rounds = stored_rounds(&first);
    let calls = answered(&first_rounds);
    assert!(calls > 0);
    assert_eq!(first.summary.reused_from_cache, 0);
    assert!(first.summary.tokens.0 > 0 && first.summary.cost_usd > 0.0);
    assert_eq!(files_in(&cache).len(), calls, "one file per answered call");

    let (second, _) = run_collecting(&config, Some(&dir.path().join("two"))).await;
    let second_rounds = stored_rounds(&second);
    assert_eq!(answers(&second_rounds), answers(&first_rounds));
    // No call: every answer reused, marked so, nothing billed, the original usage kept apart.
    assert_eq!(second.summary.reused_from_cache, calls);
    assert_eq!(second.summary.tokens, (0, 0));
    assert_eq!(second.summary.cost_usd, 0.0);
    assert_eq!(
        second.summary.reused_tokens, first.summary.tokens,
        "the first run's tokens, kept as reused"
    );
    for p in second_rounds.iter().flat_map(|r| &r.phases) {
        let reused = p.reused_from_cache.as_ref().expect("every phase reused");
        assert!(p.attempts.is_empty() && p.input_tokens.is_none());
        assert!(reused.input_tokens.is_some());
    }
    assert_eq!(second.summary.judgments, first.summary.judgments);
    // The first run's round files never mention the cache.
    let raw = std::fs::read_to_string(
        first
            .dir
            .join("rounds")
            .join(format!("{}.json", first_rounds[0].id)),
    )
    .unwrap();
    assert!(!raw.contains("reused_from_cache"));
    let summary = std::fs::read_to_string(second.dir.join("summary.json")).unwrap();
    assert!(summary.contains(&format!("\"reused_from_cache\": {calls}")));
}

#[tokio::test(start_paused = true)]
async fn answers_above_temperature_zero_are_kept_only_with_any_temperature() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let config = tournament(dir.path(), "true", &cache, 0.7);
    let (first, _) = run_collecting(&config, Some(&dir.path().join("one"))).await;
    let (second, _) = run_collecting(&config, Some(&dir.path().join("two"))).await;
    assert!(files_in(&cache).is_empty(), "nothing stored at 0.7");
    assert_eq!(second.summary.reused_from_cache, 0);
    assert_eq!(second.summary.tokens, first.summary.tokens);

    let config = tournament(dir.path(), "\"any-temperature\"", &cache, 0.7);
    let (third, _) = run_collecting(&config, Some(&dir.path().join("three"))).await;
    let calls = answered(&stored_rounds(&third));
    assert_eq!(third.summary.reused_from_cache, 0);
    assert_eq!(files_in(&cache).len(), calls);
    let (fourth, _) = run_collecting(&config, Some(&dir.path().join("four"))).await;
    assert_eq!(fourth.summary.reused_from_cache, calls);
}

#[tokio::test(start_paused = true)]
async fn a_cache_setting_the_file_cannot_mean_is_refused_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let config = tournament(dir.path(), "\"sometimes\"", &dir.path().join("c"), 0.0);
    let e = engine::prepare(&config, None).unwrap_err().to_string();
    assert!(
        e.contains("cache") && e.contains("\"any-temperature\""),
        "{e}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_second_rejudge_reuses_the_judges_answers() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    // The exchanges to judge, played without the cache.
    let config = tournament(dir.path(), "false", &cache, 0.0);
    let (played, _) = run_collecting(&config, None).await;
    let judging = dir.path().join("judging.toml");
    std::fs::write(
        &judging,
        format!(
            "models_file = \"models.toml\"\njudging = \"all\"\njudges = [\"sim-beta\"]\n\
             judge_temperature = 0.0\ncache = true\ncache_dir = \"{}\"\n",
            cache.display()
        ),
    )
    .unwrap();
    let rejudge = |out: PathBuf| {
        let plan = engine::prepare_rejudge(&played.dir, &judging, Some(&out), false).unwrap();
        async move {
            let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
            let (_commands, mut commands_rx) = tokio::sync::mpsc::unbounded_channel();
            let report = engine::rejudge(plan, tx, &mut commands_rx).await.unwrap();
            let (rounds, errors) = Store::open(&out)
                .unwrap()
                .load_rounds(&RoundFilter::default())
                .unwrap();
            assert!(errors.is_empty());
            (report, rounds)
        }
    };
    let (first, first_rounds) = rejudge(dir.path().join("judged-once")).await;
    assert!(first.rounds > 0);
    assert_eq!(first.reused_from_cache, 0);
    let (second, second_rounds) = rejudge(dir.path().join("judged-twice")).await;
    let new_calls = answered(&first_rounds) - answered(&stored_rounds(&played));
    assert!(new_calls > 0);
    assert_eq!(second.reused_from_cache, new_calls as u64);
    assert_eq!(answers(&second_rounds), answers(&first_rounds));
    assert_eq!(second.summary.reused_from_cache, new_calls);
}

#[tokio::test]
async fn a_second_identical_request_never_reaches_the_server() {
    let server = answering(openai_answer("Forty-two.")).await;
    let config = models(
        "openai",
        &format!("{}/v1", server.uri()),
        "temperature = 0.0\nprice = { input_per_mtok = 2.0, output_per_mtok = 10.0 }",
    );
    let registry = ModelRegistry::build_with_env(&config, ["m"], &Default::default(), |var| {
        (var == "TEST_KEY").then(|| FAKE_KEY.to_string())
    })
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cache = Arc::new(ResponseCache::new(
        dir.path().to_path_buf(),
        CachePolicy::ZeroTemperature,
    ));
    registry.use_response_cache(Some(Arc::clone(&cache)));
    let client = registry.get("m").unwrap();
    let mut request = ChatRequest::new("You are terse.", "The answer?").with_stable_prefix(4);
    request.tag.repetition = Some(1);
    let call = |req: ChatRequest| {
        let client = Arc::clone(&client);
        async move {
            let mut streamed = String::new();
            let outcome = client
                .complete(&req, &mut |e| {
                    if let CallEvent::Delta(t) = e {
                        streamed.push_str(t)
                    }
                })
                .await
                .unwrap();
            (outcome, streamed)
        }
    };
    let (first, _) = call(request.clone()).await;
    assert!(first.reused_from.is_none() && first.cost_usd.unwrap() > 0.0);
    let requests = || async { server.received_requests().await.unwrap().len() };
    assert_eq!(requests().await, 1);

    // The same request, marked elsewhere for the prompt cache: answered from the cache.
    let (second, streamed) = call(request.clone().with_stable_prefix(2)).await;
    assert_eq!(requests().await, 1, "the second request reached the server");
    assert_eq!(streamed, "Forty-two.", "the observer gets the text");
    assert_eq!(second.completion.text, "Forty-two.");
    assert!(second.reused_from.is_some() && second.attempts.is_empty());
    assert_eq!(second.cost_usd, Some(0.0));
    assert_eq!(second.completion.usage, first.completion.usage);
    assert_eq!(cache.reused(), 1);

    // Another repetition is its own sample; so is another temperature (not kept at all).
    let mut next = request.clone();
    next.tag.repetition = Some(2);
    call(next).await;
    assert_eq!(requests().await, 2);
    let mut warm = request.clone();
    warm.temperature = Some(0.5);
    call(warm.clone()).await;
    call(warm).await;
    assert_eq!(requests().await, 4);

    // The key's variable and value are in no file of the cache.
    for file in files_in(dir.path()) {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            !text.contains(FAKE_KEY) && !text.contains("TEST_KEY"),
            "{text}"
        );
    }
}

/// `ethics-bowl run --headless FLAG --out OUT CONFIG` with the cache in `cache` and the
/// user's data under `dir`.
fn headless_run(
    dir: &Path,
    flag: &str,
    out: &Path,
    config: &Path,
    cache: &Path,
) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_ethics-bowl"))
        .args(["run", "--headless", flag, "--out"])
        .arg(out)
        .arg(config)
        .env("ETHICS_BOWL_CACHE_DIR", cache)
        .env("XDG_DATA_HOME", dir.join("data"))
        .output()
        .unwrap()
}

#[test]
fn the_command_lines_cache_flag_says_how_many_answers_it_reused() {
    let dir = tempfile::tempdir().unwrap();
    let models: String = ["sim-alpha", "sim-beta", "sim-judge", "sim-other-judge"]
        .iter()
        .map(|m| sim(m, 0.6, 0.0, 0.0))
        .collect();
    let config = write(
        dir.path(),
        &models,
        "models = [\"sim-alpha\", \"sim-beta\"]\njudges = [\"sim-judge\"]\n\
         [temperatures]\ndebaters = 0.0\njudges = 0.0\n",
    );
    let cache = dir.path().join("cache");
    let run = |out: &str, flag: &str| {
        let output = headless_run(dir.path(), flag, &dir.path().join(out), &config, &cache);
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (code, stdout, stderr) = run("one", "--cache");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stdout.contains("reused"), "{stdout}");
    assert!(!stderr.contains("sent without it"), "{stderr}");
    assert!(
        !files_in(&cache).is_empty(),
        "the variable names the folder"
    );
    let (code, stdout, stderr) = run("two", "--cache");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("answers reused from the response cache, not new samples"),
        "{stdout}"
    );
    let (code, _, stderr) = run("three", "--cache=sometimes");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("any-temperature"), "{stderr}");

    // Another judge over the first run's exchanges, twice: the second time from the cache.
    let judging = dir.path().join("judging.toml");
    std::fs::write(
        &judging,
        "models_file = \"models.toml\"\njudges = [\"sim-other-judge\"]\njudge_temperature = 0.0\n",
    )
    .unwrap();
    let rejudge = |out: &str| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_ethics-bowl"))
            .arg("rejudge")
            .arg(dir.path().join("one").join("test"))
            .arg("--config")
            .arg(&judging)
            .arg("--out")
            .arg(dir.path().join(out))
            .arg("--cache")
            .env("ETHICS_BOWL_CACHE_DIR", &cache)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let first = rejudge("judged-once");
    assert!(!first.contains("reused"), "{first}");
    let second = rejudge("judged-twice");
    assert!(
        second.contains("judge answer(s) reused from the response cache, not new samples"),
        "{second}"
    );
}

/// The sample's models have no temperature: `--cache` keeps nothing of theirs, and says so
/// after the run instead of passing for a cache that found nothing.
#[test]
fn a_cache_that_passes_requests_over_for_their_temperature_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let models: String = ["sim-alpha", "sim-beta", "sim-judge"]
        .iter()
        .map(|m| sim(m, 0.6, 0.0, 0.0))
        .collect();
    let config = write(
        dir.path(),
        &models,
        "models = [\"sim-alpha\", \"sim-beta\"]\njudges = [\"sim-judge\"]\n",
    );
    let cache = dir.path().join("cache");
    let output = headless_run(
        dir.path(),
        "--cache",
        &dir.path().join("out"),
        &config,
        &cache,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(files_in(&cache).is_empty(), "nothing kept");
    assert!(
        stderr.contains("request(s) sent without it, their temperature not 0")
            && stderr.contains("--cache=any-temperature"),
        "{stderr}"
    );
}

/// `--cache=off` runs without the cache a tournament file turns on: the run to report.
#[test]
fn cache_off_on_the_command_line_overrides_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let models: String = ["sim-alpha", "sim-beta", "sim-judge"]
        .iter()
        .map(|m| sim(m, 0.6, 0.0, 0.0))
        .collect();
    let config = write(
        dir.path(),
        &models,
        "models = [\"sim-alpha\", \"sim-beta\"]\njudges = [\"sim-judge\"]\ncache = true\n\
         [temperatures]\ndebaters = 0.0\njudges = 0.0\n",
    );
    let cache = dir.path().join("cache");
    let output = headless_run(
        dir.path(),
        "--cache=off",
        &dir.path().join("out"),
        &config,
        &cache,
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        files_in(&cache).is_empty(),
        "the file's cache = true was overridden"
    );
}

/// A run started with `--cache` is resumed with it (and so is the UI's run-again of failed
/// rounds, which resumes the same way), though the tournament file does not turn it on.
#[tokio::test(start_paused = true)]
async fn a_resume_keeps_the_cache_the_run_was_started_with() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let config = tournament(dir.path(), "false", &cache, 0.0);
    let prepared = engine::prepare(&config, Some(&dir.path().join("out")))
        .unwrap()
        .with_cache(ethics_bowl::config::CacheSetting::On)
        .unwrap();
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let (_commands, mut commands_rx) = tokio::sync::mpsc::unbounded_channel();
    let report = engine::run(prepared, tx, &mut commands_rx).await.unwrap();

    let resumed = engine::prepare_resume(&report.dir).unwrap();
    assert_eq!(resumed.config.cache, ethics_bowl::config::CacheSetting::On);
    assert!(resumed.registry.response_cache().is_some());
    let off = resumed
        .with_cache(ethics_bowl::config::CacheSetting::Off)
        .unwrap();
    assert!(off.registry.response_cache().is_none(), "--cache=off wins");
}
