//! The offline `simulated` provider: deterministic answers, streamed at a set rate, so the
//! tool and its tests run with no network and no keys. It is a stand-in for a model, never
//! for a client: nothing it does is evidence that a real provider works.
//!
//! This module is the generic fake: a [`SimulatedModel`] (a name and its configured knobs)
//! fails at its configured rate, seeds every answer from the model, the round and the phase
//! (or the prompt), cuts answers at the token cap, reports usage and streams at its token
//! rate. What it says is up to the [`SimulatedBehaviour`]s it is given, consulted in order:
//! each protocol's debaters and judges live beside the protocol
//! (`protocols::<protocol>::simulated`) and read the request's phase tag and prompt; a
//! request none of them answers gets prose built from its prompt ([`prose`]), which is
//! what `ethics-bowl ask` sees.

pub mod prose;
pub mod truth;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::ProviderError;
use super::types::{ChatRequest, Completion, FinishReason, Role, RoundCast, Usage};
use crate::config::{ModelConfig, ProviderKind, SimulatedParams};
use crate::domain::ErrorKind;

/// The configured knobs of every simulated model of a models file, by name.
pub type Roster = Arc<BTreeMap<String, SimulatedParams>>;

/// A simulated model: what every behaviour may read about the model answering.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulatedModel {
    /// The model's configured name (part of every seed).
    pub name: String,
    /// The configured knobs.
    pub params: SimulatedParams,
    /// Every simulated model's knobs, so that a judge can read its debaters' configured
    /// `skill` (see [`truth`]); empty unless the model was set up from a models file.
    pub roster: Roster,
}

impl SimulatedModel {
    /// The model with this name and these knobs, knowing no other model.
    pub fn new(name: &str, params: SimulatedParams) -> Self {
        Self {
            name: name.to_string(),
            params,
            roster: Roster::default(),
        }
    }

    /// The same model, knowing these models' knobs.
    pub fn with_roster(mut self, roster: Roster) -> Self {
        self.roster = roster;
        self
    }

    /// The roster of a models file: every simulated model's knobs (defaults where it has
    /// no `[models.simulated]` table).
    pub fn roster_of(models: &[ModelConfig]) -> Roster {
        Arc::new(
            models
                .iter()
                .filter(|m| m.provider == ProviderKind::Simulated)
                .map(|m| (m.name.clone(), m.simulated.clone().unwrap_or_default()))
                .collect(),
        )
    }

    /// A model's configured knobs: the roster's, or this model's own when the roster lacks
    /// it.
    pub fn params_of(&self, name: &str) -> Option<&SimulatedParams> {
        self.roster
            .get(name)
            .or_else(|| (name == self.name).then_some(&self.params))
    }
}

/// One request as a behaviour reads it.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    /// The phase tag as the engine gave it (`presentation`, `qa_judgment/expert`, …).
    pub tag: &'a str,
    /// The tag before its first `/` (the whole tag when it has none).
    pub phase: &'a str,
    /// The tag after its first `/` (a panel judge's persona, a judging format), or empty; a
    /// correction turn's `/correction` suffix is not part of it.
    pub persona: &'a str,
    /// The round the call belongs to (empty for calls outside a round).
    pub round_id: &'a str,
    /// The system prompt.
    pub system: &'a str,
    /// The first user turn: the task (a correction turn, which follows it, asks for the
    /// task's answer again).
    pub prompt: &'a str,
    /// The last user turn: what a request of several turns asks now (a question-answer
    /// debater's game, transcript and round request follow its opening exchange); the
    /// same as `prompt` for a request of one turn.
    pub last_prompt: &'a str,
    /// Who plays the round, as its configuration says (see [`RoundCast`]).
    pub cast: Option<&'a RoundCast>,
}

impl<'a> Call<'a> {
    /// The call a request makes.
    pub fn of(req: &'a ChatRequest) -> Self {
        // A correction turn's tag ends in `/correction`; it asks for the same answer again.
        let tag = req.tag.phase.as_str();
        let asked = tag.strip_suffix("/correction").unwrap_or(tag);
        let (phase, persona) = asked.split_once('/').unwrap_or((asked, ""));
        Self {
            tag: &req.tag.phase,
            phase,
            persona,
            round_id: &req.tag.round_id,
            system: &req.system,
            prompt: req
                .turns
                .iter()
                .find(|t| t.role == Role::User)
                .map_or("", |t| t.text.as_str()),
            last_prompt: req.last_user_text(),
            cast: req.tag.cast.as_ref(),
        }
    }
}

/// What a simulated model says in one protocol's calls.
pub trait SimulatedBehaviour: Send + Sync {
    /// The answer `model` gives to `call`, drawing from `rng` (seeded from the model, the
    /// round and the phase), or `None` when the call is not this behaviour's. A behaviour
    /// that answers `None` is given no rng state to spend: the next one starts afresh.
    fn answer(
        &self,
        model: &SimulatedModel,
        call: &Call<'_>,
        rng: &mut ChaCha8Rng,
    ) -> Option<String>;
}

/// The behaviours a run's simulated models consult, in order (cheap to clone).
#[derive(Clone, Default)]
pub struct SimulatedBehaviours(Arc<[Box<dyn SimulatedBehaviour>]>);

impl SimulatedBehaviours {
    /// These behaviours, consulted in this order.
    pub fn new(behaviours: Vec<Box<dyn SimulatedBehaviour>>) -> Self {
        Self(behaviours.into())
    }

    /// The first behaviour's answer to the call, or prose when none answers it.
    fn answer(&self, model: &SimulatedModel, call: &Call<'_>, rng: &ChaCha8Rng) -> String {
        self.0
            .iter()
            .find_map(|b| b.answer(model, call, &mut rng.clone()))
            .unwrap_or_else(|| prose::reply(model, call.prompt, &mut rng.clone()))
    }
}

impl std::fmt::Debug for SimulatedBehaviours {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SimulatedBehaviours({})", self.0.len())
    }
}

/// A simulated model ready to answer: the model, its behaviours and its output-token cap.
#[derive(Debug, Clone)]
pub struct Simulator {
    model: SimulatedModel,
    behaviours: SimulatedBehaviours,
    max_tokens: u32,
}

impl Simulator {
    /// The model answering with these behaviours, cut at `max_tokens`.
    pub fn new(model: SimulatedModel, behaviours: SimulatedBehaviours, max_tokens: u32) -> Self {
        Self {
            model,
            behaviours,
            max_tokens,
        }
    }

    /// Makes one attempt at a request.
    pub async fn attempt(
        &self,
        req: &ChatRequest,
        attempt: u32,
        on_delta: &mut (dyn FnMut(&str) + Send),
    ) -> Result<Completion, ProviderError> {
        let params = &self.model.params;
        let max_tokens = req.token_limit(self.max_tokens);
        let key = self.request_key(req);
        if rng_for(&[&key, "panic", &attempt.to_string()]).random_bool(params.panic_rate) {
            panic_on_purpose();
        }
        let mut fail = rng_for(&[&key, "failure", &attempt.to_string()]);
        if fail.random_bool(params.failure_rate) {
            let mut e = ProviderError::new(
                ErrorKind::Simulated,
                "simulated transient failure (503 overloaded)",
                true,
            );
            e.status = Some(503);
            return Err(e);
        }
        let text = self
            .behaviours
            .answer(&self.model, &Call::of(req), &rng_for(&[&key, "text"]));
        let words: Vec<&str> = text.split_inclusive(' ').collect();
        let output_tokens = (words.len() as u64 * 4).div_ceil(3);
        let (text, finish_reason, provider_finish_reason) = if output_tokens > u64::from(max_tokens)
        {
            let keep = (max_tokens as usize * 3 / 4).min(words.len());
            (words[..keep].concat(), FinishReason::Length, "length")
        } else {
            (text.clone(), FinishReason::Stop, "stop")
        };
        self.stream(&text, on_delta).await;
        let input_chars = req.system.len() + req.turns.iter().map(|t| t.text.len()).sum::<usize>();
        Ok(Completion {
            usage_estimated: false,
            usage: Some(Usage::new(
                (input_chars as u64).div_ceil(4),
                output_tokens.min(u64::from(max_tokens)),
            )),
            text,
            finish_reason,
            provider_finish_reason: provider_finish_reason.to_string(),
            request_id: None,
            batch_id: None,
        })
    }

    /// Streams text in small pieces at the configured token rate, on tokio's clock.
    async fn stream(&self, text: &str, on_delta: &mut (dyn FnMut(&str) + Send)) {
        const WORDS_PER_PIECE: usize = 4;
        let rate = self.model.params.tokens_per_second;
        let pause = (rate > 0.0)
            .then(|| Duration::from_secs_f64(WORDS_PER_PIECE as f64 * 4.0 / 3.0 / rate));
        let words: Vec<&str> = text.split_inclusive(' ').collect();
        for piece in words.chunks(WORDS_PER_PIECE) {
            if let Some(pause) = pause {
                tokio::time::sleep(pause).await;
            }
            on_delta(&piece.concat());
        }
    }

    /// What seeds this request's text: the round and phase when the engine gives them,
    /// the prompt otherwise.
    fn request_key(&self, req: &ChatRequest) -> String {
        let name = &self.model.name;
        let seed = self.model.params.seed.to_string();
        if req.tag.round_id.is_empty() {
            format!(
                "{name}|{seed}|{:016x}",
                fnv1a(req.last_user_text().as_bytes())
            )
        } else {
            format!("{name}|{seed}|{}|{}", req.tag.round_id, req.tag.phase)
        }
    }
}

/// A generator seeded from text parts, stable across runs, platforms and Rust versions.
pub fn rng_for(parts: &[&str]) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(fnv1a(parts.join("\u{1f}").as_bytes()))
}

/// FNV-1a, 64-bit: a stable hash for seeds (std's hasher may change between releases).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The bug `simulated.panic_rate` asks for.
#[allow(clippy::panic)] // the point: a panic, to test how the tool records one
fn panic_on_purpose() -> ! {
    panic!("a simulated bug: this call panicked on purpose (simulated.panic_rate)")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn simulator(name: &str, params: SimulatedParams) -> Simulator {
        Simulator::new(
            SimulatedModel::new(
                name,
                SimulatedParams {
                    tokens_per_second: 0.0,
                    ..params
                },
            ),
            SimulatedBehaviours::default(),
            4096,
        )
    }

    /// One attempt of a simulated model: its completion and the text it streamed.
    pub(crate) async fn run(
        s: &Simulator,
        req: &ChatRequest,
        attempt: u32,
    ) -> Result<(Completion, String), ProviderError> {
        let mut streamed = String::new();
        let c = s
            .attempt(req, attempt, &mut |d| streamed.push_str(d))
            .await?;
        Ok((c, streamed))
    }

    /// A short dilemma to put in prompts.
    pub(crate) const DILEMMA: &str = "A hospital must decide whether to share anonymised records with a research consortium. \
        The patients consented to treatment but were never asked about research. \
        The research could shorten the search for a cure by several years.";

    /// A behaviour that answers one phase with a fixed text and a draw from its rng.
    struct Echo;

    impl SimulatedBehaviour for Echo {
        fn answer(
            &self,
            model: &SimulatedModel,
            call: &Call<'_>,
            rng: &mut ChaCha8Rng,
        ) -> Option<String> {
            (call.phase == "echo").then(|| {
                format!(
                    "{} as {} in {}: {}",
                    model.name,
                    call.persona,
                    call.round_id,
                    rng.random_range(0..1000)
                )
            })
        }
    }

    #[tokio::test]
    async fn same_seed_same_text_and_stream_equals_text() {
        let s = simulator("sim-alpha", SimulatedParams::default());
        let req = ChatRequest::new("s", DILEMMA).tagged("r1", "presentation");
        let (a, streamed) = run(&s, &req, 1).await.unwrap();
        let (b, _) = run(&s, &req, 1).await.unwrap();
        assert_eq!(a.text, b.text);
        assert_eq!(a.text, streamed);
        assert!(
            a.text.contains("research"),
            "uses the prompt's content: {}",
            a.text
        );
        let other = run(&s, &req.clone().tagged("r2", "presentation"), 1)
            .await
            .unwrap()
            .0;
        assert_ne!(a.text, other.text);
    }

    #[tokio::test]
    async fn behaviours_answer_their_calls_and_prose_the_rest() {
        let mut s = simulator("sim", SimulatedParams::default());
        s.behaviours = SimulatedBehaviours::new(vec![Box::new(Echo)]);
        let req = ChatRequest::new("s", DILEMMA).tagged("r1", "echo/x");
        let text = run(&s, &req, 1).await.unwrap().0.text;
        assert!(text.starts_with("sim as x in r1: "), "{text}");
        let other = run(&s, &req.clone().tagged("r1", "judgment"), 1)
            .await
            .unwrap()
            .0
            .text;
        assert!(other.starts_with("Hello from sim"), "{other}");
    }

    #[tokio::test]
    async fn failure_rate_is_honoured_and_retries_can_succeed() {
        let s = simulator(
            "flaky",
            SimulatedParams {
                failure_rate: 0.25,
                ..Default::default()
            },
        );
        let mut failures = 0;
        for i in 0..400 {
            let req = ChatRequest::new("s", DILEMMA).tagged(format!("r{i}"), "response");
            if let Err(e) = run(&s, &req, 1).await {
                assert!(e.retryable);
                failures += 1;
            }
        }
        assert!((70..=130).contains(&failures), "{failures} of 400");
        let req = ChatRequest::new("s", DILEMMA).tagged("r-any", "response");
        let mut any_success = false;
        for attempt in 1..=10 {
            any_success |= run(&s, &req, attempt).await.is_ok();
        }
        assert!(any_success);
    }

    #[tokio::test(start_paused = true)]
    async fn streams_at_the_configured_rate() {
        let s = Simulator::new(
            SimulatedModel::new(
                "sim",
                SimulatedParams {
                    tokens_per_second: 100.0,
                    ..Default::default()
                },
            ),
            SimulatedBehaviours::default(),
            4096,
        );
        let start = tokio::time::Instant::now();
        let mut pieces = 0;
        let c = s
            .attempt(&ChatRequest::new("s", DILEMMA), 1, &mut |_| pieces += 1)
            .await
            .unwrap();
        let tokens = c.usage.unwrap().output_tokens as f64;
        let secs = start.elapsed().as_secs_f64();
        assert!(pieces > 3);
        assert!(
            (secs - tokens / 100.0).abs() < 0.2 * tokens / 100.0 + 0.1,
            "{secs}s for {tokens} tokens"
        );
    }

    /// Providers know no protocol: protocols bring their behaviours to the fake.
    #[test]
    fn no_provider_imports_a_protocol() {
        fn check(dir: &std::path::Path) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    check(&path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    let needle = ["crate", "::protocols"].concat();
                    assert!(
                        !text.contains(&needle),
                        "{} imports a protocol",
                        path.display()
                    );
                }
            }
        }
        check(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/providers"));
    }

    #[tokio::test]
    async fn small_max_tokens_cuts_with_length() {
        let mut s = simulator("sim", SimulatedParams::default());
        s.max_tokens = 8;
        let c = s
            .attempt(&ChatRequest::new("s", DILEMMA), 1, &mut |_| {})
            .await
            .unwrap();
        assert_eq!(c.finish_reason, FinishReason::Length);
    }
}
