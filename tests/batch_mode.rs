//! Batch mode against an in-process server speaking the three providers' batch APIs
//! (`support/batch_server.rs`): calls that arrive together share one batch, answers come
//! back to their own calls with the batch discount, a request failing inside a batch fails
//! its call alone, an expired batch's unfinished requests go again in the next batch, a
//! killed run's open batch is polled again (never sent twice) and its stored results are
//! used without asking, a batch whose create answer was lost (in the run, or by a kill) is
//! found in the provider's list and adopted, and cancelling cancels at the provider.
//!
//! The server answers on its own threads over real sockets, so the batches run on real
//! time (a few hundred milliseconds), not a paused tokio clock.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use ethics_bowl::config::ModelsConfig;
use ethics_bowl::providers::{BatchSettings, Batching, ChatRequest, ModelRegistry};
use support::FAKE_KEY;
use support::batch_server::{BatchServer, FAIL_MARK, Options};

const PROVIDERS: [&str; 3] = ["openai", "anthropic", "google"];

fn options(delay_ms: u64) -> Options {
    Options {
        delay: Duration::from_millis(delay_ms),
        expire_after: None,
        key: FAKE_KEY.to_string(),
        answer: Arc::new(|model, prompt| format!("{model} answers: {prompt}")),
        refuse: false,
    }
}

fn fast() -> BatchSettings {
    BatchSettings {
        collect: Duration::from_millis(50),
        collect_max: Duration::from_secs(2),
        poll_first: Duration::from_millis(20),
        poll_max: Duration::from_millis(40),
    }
}

fn models(provider: &str, server: &BatchServer) -> ModelsConfig {
    support::models(
        provider,
        &server.base(provider),
        "price = { input_per_mtok = 10.0, output_per_mtok = 20.0 }\n",
    )
}

fn registry_for(config: &ModelsConfig) -> ModelRegistry {
    ModelRegistry::build_with_env(config, ["m"], &Default::default(), |var| {
        (var == "TEST_KEY").then(|| FAKE_KEY.to_string())
    })
    .expect("registry builds")
}

fn start(registry: &ModelRegistry, dir: &Path) -> Batching {
    registry
        .start_batching(&["m".to_string()], dir, fast())
        .expect("batching starts")
}

fn request(round: &str, prompt: &str) -> ChatRequest {
    ChatRequest::new("You are terse.", prompt).tagged(round, "presentation")
}

/// Calls model `m` with each prompt at once; the answers or errors, in order.
async fn call_all(
    registry: &ModelRegistry,
    prompts: &[&str],
) -> Vec<Result<ethics_bowl::providers::CallOutcome, ethics_bowl::providers::CallFailure>> {
    let client = registry.get("m").expect("model m");
    let calls = prompts.iter().enumerate().map(|(n, p)| {
        let client = Arc::clone(&client);
        let req = request(&format!("round{n}"), p);
        async move { client.complete(&req, &mut |_| {}).await }
    });
    futures_util::future::join_all(calls).await
}

#[tokio::test]
async fn calls_that_arrive_together_share_one_batch_at_half_price_on_every_provider() {
    for provider in PROVIDERS {
        let server = BatchServer::start(options(150)).await;
        let config = models(provider, &server);
        let dir = tempfile::tempdir().unwrap();
        let registry = registry_for(&config);
        assert!(registry.supports_batch("m"));
        let batching = start(&registry, dir.path());
        assert!(registry.get("m").unwrap().is_batched());
        let watch = batching.watch();
        let prompts = ["one", "two", &format!("three {FAIL_MARK}"), "four"];
        let results = call_all(&registry, &prompts).await;
        let seen = server.seen();
        assert_eq!(
            seen.created.get(provider),
            Some(&1),
            "{provider}: one batch"
        );
        assert_eq!(seen.requests, 4, "{provider}");
        assert_eq!(
            seen.unauthorised, 0,
            "{provider}: every request carried the key"
        );
        for (n, result) in results.iter().enumerate() {
            if n == 2 {
                let failure = result.as_ref().expect_err("the marked request fails");
                assert!(
                    !failure.error.retryable,
                    "{provider}: a 400 inside a batch is final"
                );
                assert_eq!(failure.attempts.len(), 1, "{provider}");
                assert!(
                    failure.error.message.contains("refused"),
                    "{provider}: {}",
                    failure.error
                );
                continue;
            }
            let outcome = result.as_ref().expect("answered");
            let c = &outcome.completion;
            assert_eq!(
                c.text,
                format!("test-model answers: {}", prompts[n]),
                "{provider}"
            );
            assert!(c.batch_id.is_some(), "{provider}");
            let usage = c.usage.expect("usage from the batch");
            let full = (usage.input_tokens as f64 * 10.0 + usage.output_tokens as f64 * 20.0) / 1e6;
            let cost = outcome.cost_usd.expect("priced");
            assert!(
                (cost - full * 0.5).abs() < 1e-12,
                "{provider}: half price, {cost} vs {full}"
            );
        }
        assert!(
            watch.has_changed().unwrap(),
            "{provider}: the board was published"
        );
        assert_eq!(batching.open_count(), 0, "{provider}: nothing left open");
        let journal = std::fs::read_to_string(dir.path().join("m.jsonl")).unwrap();
        assert!(
            journal.contains("\"submitted\"") && journal.contains("\"ended\""),
            "{journal}"
        );
        assert!(!journal.contains(FAKE_KEY));
    }
}

#[tokio::test]
async fn an_expired_batch_sends_its_unfinished_requests_again_in_the_next() {
    for provider in PROVIDERS {
        let server = BatchServer::start(Options {
            expire_after: Some(2),
            ..options(100)
        })
        .await;
        let config = models(provider, &server);
        let dir = tempfile::tempdir().unwrap();
        let registry = registry_for(&config);
        let _batching = start(&registry, dir.path());
        let results = call_all(&registry, &["a", "b", "c", "d"]).await;
        let seen = server.seen();
        assert!(
            results.iter().all(Result::is_ok),
            "{provider}: all answered in the end"
        );
        assert_eq!(
            seen.created.get(provider),
            Some(&2),
            "{provider}: a second batch for the two unfinished"
        );
        assert_eq!(seen.requests, 6, "{provider}");
        let retried = results
            .iter()
            .filter(|r| r.as_ref().unwrap().attempts.len() == 2)
            .count();
        assert_eq!(retried, 2, "{provider}: two calls needed a second attempt");
    }
}

#[tokio::test]
async fn a_killed_run_polls_its_open_batch_again_and_never_sends_a_request_twice() {
    for provider in PROVIDERS {
        let server = BatchServer::start(options(400)).await;
        let config = models(provider, &server);
        let dir = tempfile::tempdir().unwrap();
        // The first run sends its batch and is killed while the batch runs.
        {
            let registry = registry_for(&config);
            let _batching = start(&registry, dir.path());
            let calls = call_all(&registry, &["x", "y"]);
            let waited = tokio::time::timeout(Duration::from_millis(200), calls).await;
            assert!(waited.is_err(), "{provider}: still waiting when killed");
        }
        assert_eq!(server.seen().created.get(provider), Some(&1));
        assert_eq!(
            server.running(),
            1,
            "{provider}: the batch runs on at the provider"
        );
        // The next run asks the same calls: the batch in the journal answers them.
        let registry = registry_for(&config);
        let _batching = start(&registry, dir.path());
        let results = call_all(&registry, &["x", "y"]).await;
        assert!(results.iter().all(Result::is_ok), "{provider}");
        let seen = server.seen();
        assert_eq!(
            seen.created.get(provider),
            Some(&1),
            "{provider}: not sent again"
        );
        assert!(seen.ids.values().all(|n| *n == 1), "{provider}");
    }
}

#[tokio::test]
async fn results_that_finished_while_the_run_was_down_are_collected() {
    let server = BatchServer::start(options(100)).await;
    let config = models("openai", &server);
    let dir = tempfile::tempdir().unwrap();
    {
        let registry = registry_for(&config);
        let _batching = start(&registry, dir.path());
        let calls = call_all(&registry, &["late"]);
        assert!(
            tokio::time::timeout(Duration::from_millis(80), calls)
                .await
                .is_err()
        );
    }
    // Down for longer than the batch takes.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(server.running(), 0);
    let registry = registry_for(&config);
    let _batching = start(&registry, dir.path());
    let results = call_all(&registry, &["late"]).await;
    assert_eq!(
        results[0].as_ref().unwrap().completion.text,
        "test-model answers: late"
    );
    assert_eq!(server.seen().created.get("openai"), Some(&1));
}

#[tokio::test]
async fn cancelling_cancels_open_batches_at_the_provider_and_in_the_journal() {
    for provider in PROVIDERS {
        let server = BatchServer::start(options(5_000)).await;
        let config = models(provider, &server);
        let dir = tempfile::tempdir().unwrap();
        {
            let registry = registry_for(&config);
            let batching = start(&registry, dir.path());
            let calls = call_all(&registry, &["p", "q"]);
            let _ = tokio::time::timeout(Duration::from_millis(200), calls).await;
            assert_eq!(batching.open_count(), 1, "{provider}");
            assert!(batching.cancel_open().await.is_empty(), "{provider}");
            // The cancelled batch is polled until it ends, with what it finished.
            let mut watch = batching.watch();
            while !watch.borrow_and_update().is_empty() {
                watch.changed().await.unwrap();
            }
        }
        assert_eq!(server.seen().cancelled, 1, "{provider}");
        // A later run sends the calls the cancelled batch did not answer again.
        let registry = registry_for(&config);
        let _batching = start(&registry, dir.path());
        let calls = call_all(&registry, &["p", "q"]);
        let _ = tokio::time::timeout(Duration::from_millis(300), calls).await;
        assert_eq!(server.seen().created.get(provider), Some(&2), "{provider}");
    }
}

/// Settings that collect calls for 300 ms before a batch is made.
fn slow_collect() -> BatchSettings {
    BatchSettings {
        collect: Duration::from_millis(300),
        ..fast()
    }
}

#[tokio::test]
async fn once_a_run_stops_no_batch_is_created_for_calls_still_being_collected() {
    let server = BatchServer::start(options(100)).await;
    let config = models("openai", &server);
    let dir = tempfile::tempdir().unwrap();
    let registry = registry_for(&config);
    let batching = registry
        .start_batching(&["m".to_string()], dir.path(), slow_collect())
        .unwrap();
    let calls = tokio::spawn({
        let client = registry.get("m").unwrap();
        async move {
            let req = request("round0", "p");
            client.complete(&req, &mut |_| {}).await
        }
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    batching.stop_creating();
    let failure = calls.await.unwrap().expect_err("stopped before its batch");
    assert!(
        failure.error.retryable,
        "a later run sends it: {}",
        failure.error
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        server.seen().created.is_empty(),
        "{:?}",
        server.seen().created
    );
}

#[tokio::test]
async fn a_call_abandoned_before_its_batch_is_created_is_not_sent() {
    let server = BatchServer::start(options(100)).await;
    let config = models("openai", &server);
    let dir = tempfile::tempdir().unwrap();
    let registry = registry_for(&config);
    let _batching = registry
        .start_batching(&["m".to_string()], dir.path(), slow_collect())
        .unwrap();
    let abandoned = call_all(&registry, &["p", "q"]);
    let _ = tokio::time::timeout(Duration::from_millis(50), abandoned).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        server.seen().created.is_empty(),
        "{:?}",
        server.seen().created
    );
    // A call that is still waited for goes out as usual.
    let answered = call_all(&registry, &["r"]).await;
    assert!(answered[0].is_ok());
    assert_eq!(server.seen().created.get("openai"), Some(&1));
    assert_eq!(server.seen().requests, 1, "only the call still waited for");
}

#[tokio::test]
async fn a_batched_tournament_plays_every_round_in_waves_and_a_rerun_sends_nothing() {
    use ethics_bowl::engine::EngineEvent;
    let server = BatchServer::start(Options {
        answer: support::batch_server::ethics_bowl_answers(),
        ..options(100)
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let model = |name: &str, provider: &str| {
        format!(
            "[[models]]\nname = \"{name}\"\nprovider = \"{provider}\"\nmodel = \"{name}-id\"\nbase_url = \"{}\"\napi_key_env = \"BATCH_TEST_KEY\"\nprice = {{ input_per_mtok = 10.0, output_per_mtok = 20.0 }}\n",
            server.base(provider)
        )
    };
    let models = [
        model("a", "openai"),
        model("b", "anthropic"),
        model("j", "google"),
    ]
    .join("\n");
    let config = support::tournament::write(
        dir.path(),
        &models,
        "models = [\"a\", \"b\"]\njudges = [\"j\"]\ndilemmas = [\"borrowed_voice\", \"quiet_majority\"]\nbatch = true\nbatch_collect_s = 0.05\nbatch_poll_max_s = 0.04\n",
    );
    // SAFETY: set before any thread of this test reads the environment.
    unsafe { std::env::set_var("BATCH_TEST_KEY", FAKE_KEY) };
    let (report, events) = support::tournament::run_collecting(&config, None).await;
    let rounds = support::tournament::stored_rounds(&report);
    assert_eq!(rounds.len(), 4, "two dilemmas, both orders");
    for round in &rounds {
        assert_eq!(
            round.status,
            ethics_bowl::domain::RoundStatus::Complete,
            "{}: {:?}",
            round.id,
            round.error
        );
        assert_eq!(
            round.phases.len(),
            6,
            "{}: no correction turn needed",
            round.id
        );
        for phase in &round.phases {
            assert!(
                phase.batch_id.is_some(),
                "{} {:?}",
                round.id,
                phase.phase_type
            );
        }
    }
    let phases: usize = rounds.iter().map(|r| r.phases.len()).sum();
    let seen = server.seen();
    assert_eq!(seen.requests, phases, "each call sent once");
    let batches: usize = seen.created.values().sum();
    assert!(
        batches < phases / 2,
        "{batches} batches for {phases} calls: calls share batches"
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, EngineEvent::PhaseBatched { .. }))
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, EngineEvent::Batches { open } if !open.is_empty()))
    );
    assert!(
        std::fs::read_to_string(report.dir.join("batches/a.jsonl"))
            .unwrap()
            .contains("\"ended\"")
    );
    // Run again: everything is stored, nothing is sent.
    let (_, _) = support::tournament::run_collecting(&config, None).await;
    assert_eq!(server.seen().requests, phases);

    // A new judge rejudges the stored rounds in batch mode (`rejudge --batch`).
    let judging = dir.path().join("judging.toml");
    std::fs::write(
        &judging,
        format!(
            "models_file = \"models.toml\"\ndilemma_file = \"{}\"\njudging = \"all\"\njudges = [\"b\"]\nbatch_poll_max_s = 0.04\nbatch_collect_s = 0.05\n",
            support::tournament::sample_dilemmas().display()
        ),
    )
    .unwrap();
    let out = dir.path().join("rejudged");
    let plan = ethics_bowl::engine::prepare_rejudge(&report.dir, &judging, Some(&out), true)
        .expect("plans");
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let rejudged =
        ethics_bowl::engine::rejudge(plan, tx, &mut tokio::sync::mpsc::unbounded_channel().1)
            .await
            .expect("rejudges");
    assert_eq!((rejudged.rounds, rejudged.need_attention), (4, 0));
    let seen = server.seen();
    assert_eq!(seen.requests, phases + 4, "one judgment per round, batched");
    assert!(seen.created.get("anthropic").is_some_and(|n| *n >= 1));
    assert!(out.join("batches/b.jsonl").exists());
}

#[tokio::test]
async fn a_refused_batch_fails_its_calls_and_a_later_run_sends_them_again() {
    for provider in PROVIDERS {
        let server = BatchServer::start(Options {
            refuse: true,
            ..options(50)
        })
        .await;
        let config = models(provider, &server);
        let dir = tempfile::tempdir().unwrap();
        {
            let registry = registry_for(&config);
            let _batching = start(&registry, dir.path());
            let results = call_all(&registry, &["r"]).await;
            let failure = results[0].as_ref().expect_err("refused");
            assert!(!failure.error.retryable, "{provider}: {}", failure.error);
            assert!(
                failure.error.message.contains("refused"),
                "{provider}: {}",
                failure.error
            );
        }
        // The provider takes batches again: the failure is not replayed from the journal.
        server.set_refuse(false);
        let registry = registry_for(&config);
        let _batching = start(&registry, dir.path());
        let results = call_all(&registry, &["r"]).await;
        assert!(
            results[0].is_ok(),
            "{provider}: {:?}",
            results[0].as_ref().err()
        );
    }
}

#[tokio::test]
async fn a_batch_the_provider_no_longer_knows_is_given_up_and_sent_again() {
    let server = BatchServer::start(options(300)).await;
    let config = models("anthropic", &server);
    let dir = tempfile::tempdir().unwrap();
    let registry = registry_for(&config);
    let _batching = start(&registry, dir.path());
    let client = registry.get("m").unwrap();
    let req = request("round0", "lost");
    let call = tokio::spawn(async move { client.complete(&req, &mut |_| {}).await });
    while server.seen().created.is_empty() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    server.forget_all();
    let outcome = call.await.unwrap().expect("answered by a second batch");
    assert_eq!(outcome.attempts.len(), 2);
    assert!(
        outcome.attempts[0]
            .error
            .as_deref()
            .unwrap_or("")
            .contains("could not be read")
    );
    assert_eq!(server.seen().created.get("anthropic"), Some(&2));
}

#[tokio::test]
async fn answers_nobody_took_are_kept_for_the_next_run() {
    let server = BatchServer::start(options(100)).await;
    let config = models("google", &server);
    let dir = tempfile::tempdir().unwrap();
    {
        // The round stops waiting, but the run goes on until the batch has ended.
        let registry = registry_for(&config);
        let batching = start(&registry, dir.path());
        let calls = call_all(&registry, &["kept"]);
        let mut watch = batching.watch();
        // The call waits until its batch is open, then stops waiting (dropped).
        tokio::select! {
            _ = calls => panic!("answered before its batch ended"),
            _ = async {
                while watch.borrow_and_update().is_empty() {
                    watch.changed().await.unwrap();
                }
            } => {}
        }
        while !watch.borrow_and_update().is_empty() {
            watch.changed().await.unwrap();
        }
    }
    let polls = server.seen().polls;
    let registry = registry_for(&config);
    let _batching = start(&registry, dir.path());
    let results = call_all(&registry, &["kept"]).await;
    assert_eq!(
        results[0].as_ref().unwrap().completion.text,
        "test-model answers: kept"
    );
    let seen = server.seen();
    assert_eq!(
        (seen.created.get("google"), seen.polls),
        (Some(&1), polls),
        "answered from the journal"
    );
}

#[tokio::test]
async fn a_batch_whose_create_answer_was_lost_is_found_in_the_list_and_never_sent_twice() {
    for provider in PROVIDERS {
        let server = BatchServer::start(options(100)).await;
        server.lose_creates(1);
        let config = models(provider, &server);
        let dir = tempfile::tempdir().unwrap();
        let registry = registry_for(&config);
        let _batching = start(&registry, dir.path());
        let results = call_all(&registry, &["x", "y"]).await;
        for (result, prompt) in results.iter().zip(["x", "y"]) {
            let outcome = result.as_ref().expect("answered by the batch");
            assert_eq!(
                outcome.completion.text,
                format!("test-model answers: {prompt}"),
                "{provider}"
            );
            assert_eq!(outcome.attempts.len(), 1, "{provider}: no second attempt");
        }
        let seen = server.seen();
        assert_eq!(
            seen.created.get(provider),
            Some(&1),
            "{provider}: not sent again"
        );
        assert_eq!(seen.lists, 1, "{provider}: the list was read once");
        let journal = std::fs::read_to_string(dir.path().join("m.jsonl")).unwrap();
        assert!(journal.contains("\"submitted\""), "{provider}: {journal}");
    }
}

/// Runs a first run of `config` on its own runtime until its batch is made at the provider,
/// then kills it (drops the runtime) while the create answer is still held back.
fn run_killed_while_creating(server: &BatchServer, config: &ModelsConfig, dir: &Path) {
    server.hold_creates(Some(Duration::from_secs(5)));
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async {
                let registry = registry_for(config);
                let _batching = start(&registry, dir);
                let calls = tokio::spawn(async move { call_all(&registry, &["x", "y"]).await });
                while server.seen().created.is_empty() {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                assert!(!calls.is_finished(), "still waiting for the create answer");
            });
            drop(runtime);
        });
    });
    server.hold_creates(None);
}

#[tokio::test]
async fn a_run_killed_before_its_create_answer_came_adopts_the_batch_on_the_next_run() {
    for provider in PROVIDERS {
        let server = BatchServer::start(options(200)).await;
        let config = models(provider, &server);
        let dir = tempfile::tempdir().unwrap();
        run_killed_while_creating(&server, &config, dir.path());
        let journal = std::fs::read_to_string(dir.path().join("m.jsonl")).unwrap();
        assert!(
            journal.contains("\"submitting\"") && !journal.contains("\"submitted\""),
            "{provider}: the kill fell between create and its answer: {journal}"
        );
        assert!(
            ethics_bowl::providers::batch::any_open(dir.path()),
            "{provider}: a resume turns batch mode on to look for it"
        );
        let registry = registry_for(&config);
        let _batching = start(&registry, dir.path());
        let results = call_all(&registry, &["x", "y"]).await;
        let seen = server.seen();
        for result in &results {
            let outcome = result.as_ref().expect("answered");
            assert_eq!(outcome.attempts.len(), 1, "{provider}");
            assert!(outcome.completion.batch_id.is_some(), "{provider}");
        }
        assert_eq!(
            seen.created.get(provider),
            Some(&1),
            "{provider}: the lost batch was adopted, not sent again"
        );
        assert!(seen.ids.values().all(|n| *n == 1), "{provider}");
        assert_eq!(seen.lists, 1, "{provider}");
    }
}

#[tokio::test]
async fn a_lost_batch_that_cannot_be_listed_is_sent_again_and_not_looked_for_twice() {
    let server = BatchServer::start(options(100)).await;
    let config = models("openai", &server);
    let dir = tempfile::tempdir().unwrap();
    run_killed_while_creating(&server, &config, dir.path());
    server.set_list_fails(true);
    {
        let registry = registry_for(&config);
        let _batching = start(&registry, dir.path());
        let results = call_all(&registry, &["x", "y"]).await;
        assert!(results.iter().all(Result::is_ok), "sent again and answered");
    }
    let seen = server.seen();
    assert_eq!(
        seen.created.get("openai"),
        Some(&2),
        "the fallback sends again"
    );
    assert_eq!(seen.lists, 1);
    let journal = std::fs::read_to_string(dir.path().join("m.jsonl")).unwrap();
    assert!(journal.contains("not looked up"), "{journal}");
    // The journal closed the lost batch: a later run does not look for it again.
    server.set_list_fails(false);
    let registry = registry_for(&config);
    let _batching = start(&registry, dir.path());
    let _ = call_all(&registry, &["x", "y"]).await;
    assert_eq!(server.seen().lists, 1);

    // In a run, a lost create answer with no list to read fails the calls' attempt, which
    // the retry policy sends again.
    let server = BatchServer::start(options(100)).await;
    server.lose_creates(1);
    server.set_list_fails(true);
    let config = models("google", &server);
    let dir = tempfile::tempdir().unwrap();
    let registry = registry_for(&config);
    let _batching = start(&registry, dir.path());
    let results = call_all(&registry, &["x"]).await;
    let outcome = results[0].as_ref().expect("answered by a second batch");
    assert_eq!(outcome.attempts.len(), 2);
    assert_eq!(server.seen().created.get("google"), Some(&2));
}

/// An Anthropic batch taken for ours by its size and time alone (its create answer was
/// lost; Anthropic's batches carry no tag) may be somebody else's: it is polled, but never
/// cancelled, in this run or the next.
#[tokio::test]
async fn a_batch_taken_by_size_and_time_alone_is_never_cancelled() {
    let server = BatchServer::start(options(5_000)).await;
    server.lose_creates(1);
    let config = models("anthropic", &server);
    let dir = tempfile::tempdir().unwrap();
    for session in ["first", "resumed"] {
        let registry = registry_for(&config);
        let batching = start(&registry, dir.path());
        let calls = call_all(&registry, &["p", "q"]);
        let mut watch = batching.watch();
        tokio::select! {
            _ = calls => panic!("{session}: answered before the batch ended"),
            _ = async {
                while watch.borrow_and_update().is_empty() {
                    watch.changed().await.unwrap();
                }
            } => {}
        }
        let refused = batching.cancel_open().await;
        assert_eq!(refused.len(), 1, "{session}: {refused:?}");
        assert!(refused[0].contains("was not cancelled"), "{session}");
        assert_eq!(server.seen().cancelled, 0, "{session}");
    }
    let journal = std::fs::read_to_string(dir.path().join("m.jsonl")).unwrap();
    assert!(journal.contains("\"guessed\":true"), "{journal}");
    assert_eq!(server.seen().created.get("anthropic"), Some(&1));
}

#[tokio::test]
async fn the_response_cache_answers_before_a_request_is_queued_for_a_batch() {
    use ethics_bowl::providers::response_cache::{CachePolicy, ResponseCache};
    for provider in PROVIDERS {
        let server = BatchServer::start(options(100)).await;
        let config = support::models(
            provider,
            &server.base(provider),
            "temperature = 0.0\nprice = { input_per_mtok = 10.0, output_per_mtok = 20.0 }\n",
        );
        let dir = tempfile::tempdir().unwrap();
        let registry = registry_for(&config);
        registry.use_response_cache(Some(Arc::new(ResponseCache::new(
            dir.path().join("cache"),
            CachePolicy::ZeroTemperature,
        ))));
        let _batching = start(&registry, dir.path());
        let prompts = ["one", "two"];
        let first = call_all(&registry, &prompts).await;
        assert!(
            first
                .iter()
                .all(|r| r.as_ref().unwrap().completion.batch_id.is_some())
        );
        let seen = server.seen();
        assert_eq!((seen.created.get(provider), seen.requests), (Some(&1), 2));
        let again = call_all(&registry, &prompts).await;
        let seen = server.seen();
        assert_eq!(
            (seen.created.get(provider), seen.requests),
            (Some(&1), 2),
            "{provider}: no batch, no request the second time"
        );
        for (n, result) in again.iter().enumerate() {
            let outcome = result.as_ref().unwrap();
            assert!(outcome.reused_from.is_some(), "{provider}");
            assert_eq!(outcome.cost_usd, Some(0.0));
            assert_eq!(
                outcome.completion.text,
                format!("test-model answers: {}", prompts[n])
            );
        }
    }
}
