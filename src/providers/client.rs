//! The one way the rest of the tool calls a model: a [`ModelClient`] per configured model,
//! which wraps the model's wire format in the retry policy and the limits, and reports the
//! attempts, usage and cost of every call.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

use super::ProviderError;
use super::adaptive::{ModelLimiter, RateSnapshot};
use super::anthropic::Anthropic;
use super::batch::{BatchSettings, BatchSetupError, Batching, ModelBatcher, ModelBatcherSlot};
use super::estimate;
use super::gemini::Gemini;
use super::http::{self, ApiKey, HttpTarget};
use super::limits::Limits;
use super::openai_chat::OpenAiChat;
use super::quota::{self, SharedQuota};
use super::response_cache::ResponseCache;
use super::retry::{self, Attempter, Gate, RetryPolicy};
use super::simulated::{Roster, SimulatedBehaviours, SimulatedModel, Simulator};
use super::types::{CallEvent, ChatRequest, Completion, FinishReason};
use crate::config::{BilledTokens, ModelConfig, ModelsConfig, OnTruncation, ProviderKind};
use crate::domain::Attempt;
use crate::redact::{self, Redactor};

/// A model could not be set up for calling; the user must change the configuration or the
/// environment (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The name is not in the models file.
    #[error("model \"{name}\" is not defined in {file}; defined models: {known}")]
    UnknownModel {
        /// The name asked for.
        name: String,
        /// The models file.
        file: String,
        /// The names that exist.
        known: String,
    },
    /// The key variable is not set.
    #[error(
        "model \"{model}\" needs its API key in the environment variable {var}, which is not set; \
         export {var}=... (or change api_key_env in {file})"
    )]
    MissingKey {
        /// The model.
        model: String,
        /// The variable's name.
        var: String,
        /// The models file.
        file: String,
    },
    /// The HTTP client could not be built (e.g. no TLS roots).
    #[error("model \"{model}\": cannot build the HTTP client: {message}")]
    Http {
        /// The model.
        model: String,
        /// What failed.
        message: String,
    },
}

/// One wire format (or the simulation) for one model.
#[derive(Debug)]
enum Backend {
    OpenAiChat(OpenAiChat),
    Anthropic(Anthropic),
    Gemini(Gemini),
    /// A simulated model.
    Simulated(Simulator),
}

impl Backend {
    /// The HTTP target of a real model.
    fn target(&self) -> Option<&HttpTarget> {
        match self {
            Backend::OpenAiChat(b) => Some(&b.target),
            Backend::Anthropic(b) => Some(&b.target),
            Backend::Gemini(b) => Some(&b.target),
            Backend::Simulated(_) => None,
        }
    }
}

/// Attempts through the model's batch queue: each attempt is one request in a batch.
struct Batched<'a> {
    queue: &'a ModelBatcher,
    max_tokens: u32,
}

impl Attempter for Batched<'_> {
    async fn attempt(
        &self,
        req: &ChatRequest,
        attempt: u32,
        on_delta: &mut (dyn FnMut(&str) + Send),
    ) -> Result<Completion, ProviderError> {
        let limit = req.token_limit(self.max_tokens);
        let completion = self.queue.call(req, attempt, limit).await?;
        on_delta(&completion.text);
        Ok(completion)
    }
}

/// No gate: a batched request takes no slot of the model's real-time concurrency, since the
/// provider runs the batch on its own schedule.
struct Ungated;

impl Gate for Ungated {
    type Pass = ();

    async fn enter(&self) {}
}

impl Attempter for Backend {
    async fn attempt(
        &self,
        req: &ChatRequest,
        attempt: u32,
        on_delta: &mut (dyn FnMut(&str) + Send),
    ) -> Result<Completion, ProviderError> {
        match self {
            Backend::OpenAiChat(b) => b.attempt(req, on_delta).await,
            Backend::Anthropic(b) => b.attempt(req, on_delta).await,
            Backend::Gemini(b) => b.attempt(req, on_delta).await,
            Backend::Simulated(s) => s.attempt(req, attempt, on_delta).await,
        }
    }
}

/// A successful call.
#[derive(Debug, Clone)]
pub struct CallOutcome {
    /// The answer.
    pub completion: Completion,
    /// Every attempt, the successful one last.
    pub attempts: Vec<Attempt>,
    /// From the first request to the end of the answer, waits included.
    pub latency: Duration,
    /// Estimated cost in dollars, when the model has prices: the cached part of the prompt
    /// at the cache prices.
    pub cost_usd: Option<f64>,
    /// What the prompt cache saved on this call, in dollars (the cost at the full input
    /// price less `cost_usd`), when the model has prices.
    pub cache_saved_usd: Option<f64>,
    /// When the answer was stored, if it came from the response cache rather than a call:
    /// then no request was made, `cost_usd` is 0 and the usage is the original call's, not
    /// billed again (see [`crate::providers::response_cache`]).
    pub reused_from: Option<String>,
}

/// A call that failed after its retries.
#[derive(Debug, Clone, thiserror::Error)]
#[error("model \"{model}\": {error} (after {} attempt{})", attempts.len(), if attempts.len() == 1 { "" } else { "s" })]
pub struct CallFailure {
    /// The model's configured name.
    pub model: String,
    /// The last attempt's error.
    pub error: ProviderError,
    /// Every attempt.
    pub attempts: Vec<Attempt>,
}

/// A configured model, ready to call.
#[derive(Debug)]
pub struct ModelClient {
    config: Arc<ModelConfig>,
    backend: Backend,
    limits: Limits,
    quota: Arc<SharedQuota>,
    policy: RetryPolicy,
    batch: Arc<ModelBatcherSlot>,
    /// The response cache, when the run uses one.
    cache: RwLock<Option<Arc<ResponseCache>>>,
    /// A simulated model's view of every simulated model's knobs, part of its cache key
    /// (none for a real provider).
    roster: Option<serde_json::Value>,
}

impl ModelClient {
    /// Whether this model's calls go through its provider's batch API in this run.
    pub fn is_batched(&self) -> bool {
        self.batch.queue().is_some()
    }

    /// The model's configuration.
    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    /// Whether this model is made to answer `req` in its schema, so that its whole answer is
    /// the JSON asked for (see [`crate::domain::Phase::constrained`]).
    pub fn constrains(&self, req: &ChatRequest) -> bool {
        super::structured::constrains(&self.config, req)
    }

    /// The concurrency window of the model's quota and what its provider last reported of
    /// it, for the engine and UI to show.
    pub fn rate_snapshot(&self) -> RateSnapshot {
        self.quota.limiter.snapshot()
    }

    /// The names metered as one quota with this one, joined with `+` (`gpt+gpt-judge`), or
    /// its own name alone: how the window is named where it is shown.
    pub fn quota_label(&self) -> &str {
        &self.quota.label
    }

    /// Calls the model: attempts under the limits, retries by the policy, text passed to
    /// `observer` as it streams and retries announced before their waits.
    ///
    /// An answer without usage gets an estimate (see `providers::estimate`), marked
    /// `usage_estimated`. With `on_truncation = "retry"`, an answer cut at the token limit is
    /// asked for once more with the limit doubled (up to `max_tokens_cap`): the cut attempt
    /// is recorded as a `TokenLimit` failure and announced as a retry (its text discarded),
    /// the second answer is returned as it comes, and the usage and cost are those of both
    /// requests, since both were paid for.
    ///
    /// With a response cache (see [`crate::providers::response_cache`]) that admits the
    /// request's temperature, a stored answer to the identical request is returned without a
    /// call (nor a slot of the limits, nor a place in a batch), its text passed to `observer`
    /// as one piece; otherwise the answer the call gets is stored for next time. Failures are
    /// never stored.
    pub async fn complete(
        &self,
        req: &ChatRequest,
        observer: &mut (dyn FnMut(CallEvent<'_>) + Send),
    ) -> Result<CallOutcome, CallFailure> {
        let started = Instant::now();
        let cache = self
            .cache
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let slot = cache.as_ref().and_then(|c| {
            c.slot(
                &self.config,
                req,
                self.constrains(req),
                self.roster.as_ref(),
            )
        });
        let stored = match &slot {
            Some(slot) => slot.load().await,
            None => None,
        };
        if let Some(entry) = stored {
            let completion = entry.completion();
            observer(CallEvent::Delta(&completion.text));
            return Ok(CallOutcome {
                completion,
                attempts: Vec::new(),
                latency: started.elapsed(),
                cost_usd: self.config.price.map(|_| 0.0),
                cache_saved_usd: None,
                reused_from: Some(entry.stored_at),
            });
        }
        let outcome = self.call(req, observer, started).await?;
        if let Some(slot) = &slot
            && keeps(&outcome.completion)
        {
            slot.store(&self.config.model, &outcome.completion).await;
        }
        Ok(outcome)
    }

    /// The call itself, for [`ModelClient::complete`].
    async fn call(
        &self,
        req: &ChatRequest,
        observer: &mut (dyn FnMut(CallEvent<'_>) + Send),
        started: Instant,
    ) -> Result<CallOutcome, CallFailure> {
        let (mut completion, mut attempts) = self.attempts(req, 1, observer).await?;
        self.fill_usage(req, &mut completion).await;
        if let Some(next) = self.truncation_retry_limit(req, &completion) {
            let error = ProviderError::token_limit(req.token_limit(self.config.max_tokens), next);
            let discarded_chars = completion.text.len();
            let number = attempts.len() as u32;
            if let Some(cut) = attempts.last_mut() {
                cut.error = Some(error.to_string());
                cut.error_kind = Some(error.kind);
                cut.discarded_chars = discarded_chars;
            }
            observer(CallEvent::RetryScheduled {
                attempt: number,
                wait: Duration::ZERO,
                error: &error,
                discarded_chars,
            });
            let mut again = req.clone();
            again.max_tokens = Some(next);
            let first = completion;
            let (second, more) = match self.attempts(&again, number + 1, observer).await {
                Ok(done) => done,
                Err(mut failure) => {
                    attempts.append(&mut failure.attempts);
                    failure.attempts = attempts;
                    return Err(failure);
                }
            };
            attempts.extend(more);
            completion = second;
            self.fill_usage(&again, &mut completion).await;
            completion.usage = match (first.usage, completion.usage) {
                (Some(mut a), Some(b)) => {
                    a += b;
                    Some(a)
                }
                (a, b) => a.or(b),
            };
            completion.usage_estimated |= first.usage_estimated;
        }
        let discount = if completion.batch_id.is_some() {
            1.0 - self.config.effective_batch_discount()
        } else {
            1.0
        };
        let cost = self.config.price.zip(completion.usage).map(|(p, u)| {
            p.cost(
                self.config.provider,
                BilledTokens {
                    input: u.input_tokens,
                    cached: u.cached_input_tokens,
                    written: u.cache_write_tokens,
                    output: u.output_tokens,
                },
            )
            .scaled(discount)
        });
        Ok(CallOutcome {
            completion,
            attempts,
            latency: started.elapsed(),
            cost_usd: cost.map(|c| c.cost_usd),
            cache_saved_usd: cost.map(|c| c.saved_usd),
            reused_from: None,
        })
    }

    /// One request through the retry policy, its attempts numbered from `first_number`.
    async fn attempts(
        &self,
        req: &ChatRequest,
        first_number: u32,
        observer: &mut (dyn FnMut(CallEvent<'_>) + Send),
    ) -> Result<(Completion, Vec<Attempt>), CallFailure> {
        let result = match self.batch.queue() {
            Some(queue) => {
                let batched = Batched {
                    queue,
                    max_tokens: self.config.max_tokens,
                };
                retry::run(
                    &self.policy,
                    &batched,
                    &Ungated,
                    req,
                    first_number,
                    observer,
                )
                .await
            }
            None => {
                retry::run(
                    &self.policy,
                    &self.backend,
                    &self.limits,
                    req,
                    first_number,
                    observer,
                )
                .await
            }
        };
        result.map_err(|(error, attempts)| CallFailure {
            model: self.config.name.clone(),
            error,
            attempts,
        })
    }

    /// Estimates the usage of an answer whose server reported none; reported usage stays.
    async fn fill_usage(&self, req: &ChatRequest, completion: &mut Completion) {
        if completion.usage.is_none() {
            completion.usage =
                Some(estimate::estimate_usage(&self.config.model, req, &completion.text).await);
            completion.usage_estimated = true;
        }
    }

    /// The higher limit to ask again with, when this model retries truncated answers, the
    /// answer was cut at the limit, and the cap leaves room.
    fn truncation_retry_limit(&self, req: &ChatRequest, completion: &Completion) -> Option<u32> {
        let limit = req.token_limit(self.config.max_tokens);
        let cap = self.config.effective_max_tokens_cap();
        (self.config.on_truncation == OnTruncation::Retry
            && completion.finish_reason == FinishReason::Length
            && limit < cap)
            .then(|| limit.saturating_mul(2).min(cap))
    }
}

/// Clients for the models a run will call, sharing the overall concurrency cap.
#[derive(Debug)]
pub struct ModelRegistry {
    clients: HashMap<String, Arc<ModelClient>>,
}

impl ModelRegistry {
    /// Sets up clients for `names`, reading each key from the environment now, so a
    /// missing key stops the run before any call is made. Every key read is redacted from
    /// whatever the clients return (see [`crate::redact`]). Simulated models answer with
    /// `behaviours` (`protocols::simulated_behaviours()` for every protocol's).
    pub fn build<'a>(
        config: &ModelsConfig,
        names: impl IntoIterator<Item = &'a str>,
        behaviours: &SimulatedBehaviours,
    ) -> Result<Self, SetupError> {
        Self::build_with_env(config, names, behaviours, |var| std::env::var(var).ok())
    }

    /// As [`ModelRegistry::build`], reading variables through `env` (tests pass their own).
    pub fn build_with_env<'a>(
        config: &ModelsConfig,
        names: impl IntoIterator<Item = &'a str>,
        behaviours: &SimulatedBehaviours,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, SetupError> {
        let overall = Arc::new(Semaphore::new(config.limits.max_concurrency as usize));
        let policy = RetryPolicy::from(&config.retry);
        // Every key first, so that each model's redactor knows all of them: a gateway
        // shared by two models may echo either key.
        let mut planned: Vec<(&ModelConfig, Option<(&str, String)>)> = Vec::new();
        for name in names {
            if planned.iter().any(|(m, _)| m.name == name) {
                continue;
            }
            let model = config.get(name).ok_or_else(|| SetupError::UnknownModel {
                name: name.to_string(),
                file: config.path.display().to_string(),
                known: config.names().join(", "),
            })?;
            planned.push((model, read_key(model, config, &env)?));
        }
        let redactor = Redactor::new(
            planned
                .iter()
                .filter_map(|(_, key)| key.as_ref().map(|(var, value)| (*var, value.as_str()))),
        );
        redact::remember(&redactor);
        let quotas = quota::plan(&planned.iter().map(|(m, _)| *m).collect::<Vec<_>>());
        let mut clients = HashMap::new();
        let roster = SimulatedModel::roster_of(&config.models);
        let roster_json = serde_json::to_value(&*roster).ok();
        for ((model, key), quota) in planned.into_iter().zip(quotas) {
            let key = key.map(|(_, value)| ApiKey::new(value));
            let simulated = (behaviours, &roster);
            let backend = backend(model, key, &redactor, simulated, &quota.limiter)?;
            let batch = Arc::new(ModelBatcherSlot::new(
                &model.name,
                model.provider.as_str(),
                backend.target().cloned(),
            ));
            let client = ModelClient {
                config: Arc::new(model.clone()),
                backend,
                batch,
                limits: Limits::new(
                    Arc::clone(&quota.limiter),
                    quota.per_minute.clone(),
                    Arc::clone(&overall),
                ),
                quota,
                policy: policy.clone(),
                cache: RwLock::new(None),
                roster: roster_json
                    .clone()
                    .filter(|_| model.provider == ProviderKind::Simulated),
            };
            clients.insert(model.name.clone(), Arc::new(client));
        }
        Ok(Self { clients })
    }

    /// Answers requests from `cache` where it holds them, and keeps new answers there, from
    /// now on (none: every request is sent); replaces an earlier cache.
    pub fn use_response_cache(&self, cache: Option<Arc<ResponseCache>>) {
        for client in self.clients.values() {
            *client.cache.write().unwrap_or_else(PoisonError::into_inner) = cache.clone();
        }
    }

    /// The response cache in use, if any.
    pub fn response_cache(&self) -> Option<Arc<ResponseCache>> {
        self.clients.values().next().and_then(|client| {
            client
                .cache
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .clone()
        })
    }

    /// The client for a model named at build time.
    pub fn get(&self, name: &str) -> Option<Arc<ModelClient>> {
        self.clients.get(name).cloned()
    }

    /// Starts batch mode for the named models (see [`crate::providers::batch`]), with their
    /// journals in `dir`; from then on their calls go through their provider's batch API.
    /// Batches a journal says are still open are polled again at once.
    pub fn start_batching(
        &self,
        models: &[String],
        dir: &std::path::Path,
        settings: BatchSettings,
    ) -> Result<Batching, BatchSetupError> {
        let mut slots = Vec::new();
        for name in models {
            if let Some(client) = self.clients.get(name) {
                slots.push((name.clone(), Arc::clone(&client.batch)));
            }
        }
        Batching::start(slots, dir, settings)
    }

    /// Whether a model's provider has a batch API here.
    pub fn supports_batch(&self, name: &str) -> bool {
        self.clients.get(name).is_some_and(|c| c.batch.supported())
    }

    /// Every quota's [`ModelClient::rate_snapshot`] once, by its [`ModelClient::quota_label`]
    /// in alphabetical order.
    pub fn rate_snapshots(&self) -> Vec<(String, RateSnapshot)> {
        let mut all: Vec<_> = self
            .clients
            .values()
            .map(|client| (client.quota_label().to_string(), client.rate_snapshot()))
            .collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all.dedup_by(|a, b| a.0 == b.0);
        all
    }
}

/// The model's key variable and its value, when the model needs one; a missing or blank
/// variable is an error.
fn read_key<'m>(
    model: &'m ModelConfig,
    config: &ModelsConfig,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<Option<(&'m str, String)>, SetupError> {
    if model.provider == ProviderKind::Simulated {
        return Ok(None);
    }
    let Some(var) = model.key_env() else {
        return Ok(None);
    };
    match env(var).filter(|v| !v.trim().is_empty()) {
        Some(value) => Ok(Some((var, value))),
        None => Err(SetupError::MissingKey {
            model: model.name.clone(),
            var: var.to_string(),
            file: config.path.display().to_string(),
        }),
    }
}

/// The backend of one model; a simulated one answers with `behaviours` and knows the
/// `roster` of every simulated model's knobs.
fn backend(
    model: &ModelConfig,
    key: Option<ApiKey>,
    redactor: &Redactor,
    (behaviours, roster): (&SimulatedBehaviours, &Roster),
    limiter: &Arc<ModelLimiter>,
) -> Result<Backend, SetupError> {
    if model.provider == ProviderKind::Simulated {
        let sim = SimulatedModel::new(&model.name, model.simulated.clone().unwrap_or_default())
            .with_roster(Arc::clone(roster));
        return Ok(Backend::Simulated(Simulator::new(
            sim,
            behaviours.clone(),
            model.max_tokens,
        )));
    }
    let client = http::build_client(model.read_timeout()).map_err(|e| SetupError::Http {
        model: model.name.clone(),
        message: e.to_string(),
    })?;
    let target = HttpTarget {
        client,
        base_url: model.effective_base_url().unwrap_or_default().to_string(),
        key,
        config: Arc::new(model.clone()),
        redactor: redactor.clone(),
        limiter: Arc::clone(limiter),
    };
    Ok(match model.provider {
        ProviderKind::Anthropic => Backend::Anthropic(Anthropic { target }),
        ProviderKind::Google => Backend::Gemini(Gemini { target }),
        _ => Backend::OpenAiChat(OpenAiChat { target }),
    })
}

/// Whether the response cache keeps an answer: one that ended naturally or at the token
/// limit, with text. An empty answer, a refusal or one a content filter cut is a glitch to
/// try again next time, not an answer every later run should get.
fn keeps(c: &Completion) -> bool {
    !c.text.trim().is_empty()
        && matches!(c.finish_reason, FinishReason::Stop | FinishReason::Length)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(text: &str, finish_reason: FinishReason) -> Completion {
        Completion {
            text: text.into(),
            usage: None,
            usage_estimated: false,
            finish_reason,
            provider_finish_reason: String::new(),
            request_id: None,
            batch_id: None,
        }
    }

    #[test]
    fn the_response_cache_keeps_whole_answers_and_never_a_glitch() {
        assert!(keeps(&answer("An answer.", FinishReason::Stop)));
        assert!(keeps(&answer("Cut at the li", FinishReason::Length)));
        assert!(!keeps(&answer("  \n", FinishReason::Stop)), "empty");
        assert!(!keeps(&answer("Partly", FinishReason::ContentFilter)));
        assert!(!keeps(&answer("I can't", FinishReason::Refusal)));
        assert!(!keeps(&answer("x", FinishReason::Other("pause".into()))));
    }
}
