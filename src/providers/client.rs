//! The one way the rest of the tool calls a model: a [`ModelClient`] per configured model,
//! which wraps the model's wire format in the retry policy and the limits, and reports the
//! attempts, usage and cost of every call.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

use super::ProviderError;
use super::anthropic::Anthropic;
use super::gemini::Gemini;
use super::http::{self, ApiKey, HttpTarget};
use super::limits::Limits;
use super::openai_chat::OpenAiChat;
use super::retry::{self, Attempter, RetryPolicy};
use super::simulated::{SimulatedBehaviours, SimulatedModel, Simulator};
use super::types::{CallEvent, ChatRequest, Completion};
use crate::config::{ModelConfig, ModelsConfig, ProviderKind};
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
    /// Estimated cost in dollars, when the model has prices.
    pub cost_usd: Option<f64>,
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
    policy: RetryPolicy,
}

impl ModelClient {
    /// The model's configuration.
    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    /// Calls the model: attempts under the limits, retries by the policy, text passed to
    /// `observer` as it streams and retries announced before their waits.
    pub async fn complete(
        &self,
        req: &ChatRequest,
        observer: &mut (dyn FnMut(CallEvent<'_>) + Send),
    ) -> Result<CallOutcome, CallFailure> {
        let started = Instant::now();
        match retry::run(&self.policy, &self.backend, &self.limits, req, observer).await {
            Ok((completion, attempts)) => {
                let cost_usd = self
                    .config
                    .price
                    .zip(completion.usage)
                    .map(|(p, u)| p.cost(u.input_tokens, u.output_tokens));
                Ok(CallOutcome {
                    completion,
                    attempts,
                    latency: started.elapsed(),
                    cost_usd,
                })
            }
            Err((error, attempts)) => Err(CallFailure {
                model: self.config.name.clone(),
                error,
                attempts,
            }),
        }
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
        let mut clients = HashMap::new();
        for (model, key) in planned {
            let key = key.map(|(_, value)| ApiKey::new(value));
            let client = ModelClient {
                config: Arc::new(model.clone()),
                backend: backend(model, key, &redactor, behaviours)?,
                limits: Limits::new(
                    model.max_concurrency,
                    model.requests_per_minute,
                    Arc::clone(&overall),
                ),
                policy: policy.clone(),
            };
            clients.insert(model.name.clone(), Arc::new(client));
        }
        Ok(Self { clients })
    }

    /// The client for a model named at build time.
    pub fn get(&self, name: &str) -> Option<Arc<ModelClient>> {
        self.clients.get(name).cloned()
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

fn backend(
    model: &ModelConfig,
    key: Option<ApiKey>,
    redactor: &Redactor,
    behaviours: &SimulatedBehaviours,
) -> Result<Backend, SetupError> {
    if model.provider == ProviderKind::Simulated {
        let sim = SimulatedModel::new(&model.name, model.simulated.clone().unwrap_or_default());
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
    };
    Ok(match model.provider {
        ProviderKind::Anthropic => Backend::Anthropic(Anthropic { target }),
        ProviderKind::Google => Backend::Gemini(Gemini { target }),
        _ => Backend::OpenAiChat(OpenAiChat { target }),
    })
}
