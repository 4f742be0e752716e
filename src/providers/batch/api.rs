//! The three providers' batch APIs behind one shape: create a batch from requests, read
//! its progress, fetch its results, cancel it. Each provider's module speaks its own wire
//! format; requests and answers are the same bodies the streamed calls use (without
//! streaming), so an answer from a batch is read by the same parser.

use reqwest::header::HeaderMap;
use serde_json::Value;

use super::item::{Item, ItemOutcome};
use super::{anthropic, gemini, openai};
use crate::config::ProviderKind;
use crate::providers::ProviderError;
use crate::providers::http::HttpTarget;

/// Error bodies are read up to this size for their message.
const MAX_ERROR_BODY: usize = 64 * 1024;

/// Where a batch stands, by the provider.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Stage {
    /// Queued or running.
    Running,
    /// Over: its results can be fetched (some requests may be missing: expired,
    /// cancelled).
    Ended,
    /// The provider refused the batch as a whole (its file failed validation, the
    /// account's queue of batch tokens was full): every request fails with this message,
    /// retryably when sending it again later may work.
    Refused {
        /// The provider's reasons.
        why: String,
        /// Whether a later batch may succeed.
        retryable: bool,
    },
}

/// A batch's progress as last read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Progress {
    /// Where it stands.
    pub stage: Stage,
    /// The provider's own word for it (`in_progress`, `ended`, `BATCH_STATE_RUNNING`, …).
    pub state: String,
    /// Requests in it.
    pub total: u64,
    /// Requests answered.
    pub succeeded: u64,
    /// Requests failed (errored, expired, cancelled).
    pub failed: u64,
    /// The provider's whole answer, which some read results from.
    pub raw: Value,
}

/// How many batches one list call asks for: the page read to find a lost batch.
pub(crate) const LIST_PAGE: usize = 100;

/// A batch as the provider's list shows it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Listed {
    /// The provider's id.
    pub remote: String,
    /// The tag it carries (OpenAI's `metadata.ethics_bowl_local`, Gemini's display name).
    pub tag: Option<String>,
    /// When the provider created it.
    pub created: Option<jiff::Timestamp>,
    /// Requests in it, when the list says.
    pub total: u64,
}

/// One model's batch API.
#[derive(Debug)]
pub(crate) enum BatchApi {
    /// OpenAI: a JSONL file uploaded, then a batch over it.
    OpenAi(HttpTarget),
    /// Anthropic: Message Batches.
    Anthropic(HttpTarget),
    /// Gemini: inline requests to `batchGenerateContent`.
    Gemini(HttpTarget),
}

impl BatchApi {
    /// The batch API of a model's provider, if it has one here.
    pub(crate) fn for_target(target: &HttpTarget) -> Option<Self> {
        match target.config.provider {
            ProviderKind::Openai => Some(Self::OpenAi(target.clone())),
            ProviderKind::Anthropic => Some(Self::Anthropic(target.clone())),
            ProviderKind::Google => Some(Self::Gemini(target.clone())),
            _ => None,
        }
    }

    fn target(&self) -> &HttpTarget {
        match self {
            Self::OpenAi(t) | Self::Anthropic(t) | Self::Gemini(t) => t,
        }
    }

    /// The provider's name, for people.
    pub(crate) fn provider(&self) -> &'static str {
        match self {
            Self::OpenAi(_) => "openai",
            Self::Anthropic(_) => "anthropic",
            Self::Gemini(_) => "google",
        }
    }

    /// The most requests and bytes one batch may hold (a little under the providers'
    /// published limits: OpenAI 50,000 and 200 MB, Anthropic 100,000 and 256 MB, Gemini's
    /// inline requests 20 MB).
    pub(crate) fn limits(&self) -> (usize, usize) {
        match self {
            Self::OpenAi(_) => (50_000, 190_000_000),
            Self::Anthropic(_) => (100_000, 250_000_000),
            Self::Gemini(_) => (50_000, 19_000_000),
        }
    }

    /// The request body of a call, as the batch carries it.
    pub(crate) fn body(&self, req: &crate::providers::ChatRequest) -> Value {
        self.body_with(&self.target().config, req)
    }

    /// The body a call is known by in the journal (its item's id is a digest of it): the
    /// body without the prompt cache's marks, so that a request keeps its id whether or not
    /// its model marks prompts, and a batch sent before the marks existed is still claimed
    /// by its requests when the run resumes.
    pub(crate) fn identity(&self, req: &crate::providers::ChatRequest) -> Value {
        let cfg = crate::config::ModelConfig {
            prompt_cache: false,
            ..self.target().config.as_ref().clone()
        };
        self.body_with(&cfg, req)
    }

    fn body_with(
        &self,
        cfg: &crate::config::ModelConfig,
        req: &crate::providers::ChatRequest,
    ) -> Value {
        let mut body = match self {
            Self::OpenAi(_) => crate::providers::openai_chat::request_body(cfg, req),
            Self::Anthropic(_) => crate::providers::anthropic::request_body(cfg, req),
            Self::Gemini(_) => crate::providers::gemini::request_body(cfg, req),
        };
        if let Some(map) = body.as_object_mut() {
            map.remove("stream");
            map.remove("stream_options");
        }
        body
    }

    /// Creates a batch of `items` carrying `tag` where the provider keeps one (OpenAI's
    /// metadata, Gemini's display name; Anthropic has no field for it); returns the
    /// provider's id for it.
    pub(crate) async fn create(&self, items: &[Item], tag: &str) -> Result<String, ProviderError> {
        let result = match self {
            Self::OpenAi(t) => openai::create(&Http(t), items, tag).await,
            Self::Anthropic(t) => anthropic::create(&Http(t), items).await,
            Self::Gemini(t) => gemini::create(&Http(t), items, tag).await,
        };
        result.map_err(|e| e.redacted(&self.target().redactor))
    }

    /// The account's most recent batches (one page, newest first), to find one whose
    /// create answer was lost.
    pub(crate) async fn list(&self) -> Result<Vec<Listed>, ProviderError> {
        let result = match self {
            Self::OpenAi(t) => openai::list(&Http(t)).await,
            Self::Anthropic(t) => anthropic::list(&Http(t)).await,
            Self::Gemini(t) => gemini::list(&Http(t)).await,
        };
        result.map_err(|e| e.redacted(&self.target().redactor))
    }

    /// Whether this provider's batches carry our tag, so a listed batch is known for ours
    /// by it alone.
    pub(crate) fn tags_batches(&self) -> bool {
        !matches!(self, Self::Anthropic(_))
    }

    /// Reads a batch's progress.
    pub(crate) async fn progress(&self, remote: &str) -> Result<Progress, ProviderError> {
        let result = match self {
            Self::OpenAi(t) => openai::progress(&Http(t), remote).await,
            Self::Anthropic(t) => anthropic::progress(&Http(t), remote).await,
            Self::Gemini(t) => gemini::progress(&Http(t), remote).await,
        };
        result.map_err(|e| e.redacted(&self.target().redactor))
    }

    /// The results of an ended batch, by request id; `requests` are the batch's request ids
    /// with their token limits, in the order submitted. Requests the provider gave no
    /// result for are left out.
    pub(crate) async fn results(
        &self,
        remote: &str,
        progress: &Progress,
        requests: &[(String, u32)],
    ) -> Result<Vec<(String, ItemOutcome)>, ProviderError> {
        let result = match self {
            Self::OpenAi(t) => openai::results(&Http(t), progress, requests).await,
            Self::Anthropic(t) => anthropic::results(&Http(t), remote, requests).await,
            Self::Gemini(_) => gemini::results(progress, requests),
        };
        let redactor = &self.target().redactor;
        result
            .map(|items| {
                items
                    .into_iter()
                    .map(|(id, outcome)| (id, clean(outcome, redactor)))
                    .collect()
            })
            .map_err(|e| e.redacted(redactor))
    }

    /// Deletes what an ended batch left in the account (OpenAI's input, output and error
    /// files), best effort: a failure is logged.
    pub(crate) async fn clean_up(&self, progress: &Progress) {
        if let Self::OpenAi(t) = self {
            let http = Http(t);
            for key in ["input_file_id", "output_file_id", "error_file_id"] {
                if let Some(file) = progress.raw.get(key).and_then(Value::as_str)
                    && let Err(e) = openai::delete_file(&http, file).await
                {
                    tracing::warn!(file, error = %e.redacted(&t.redactor), "a batch file could not be deleted");
                }
            }
        }
    }

    /// Asks the provider to cancel a batch.
    pub(crate) async fn cancel(&self, remote: &str) -> Result<(), ProviderError> {
        let result = match self {
            Self::OpenAi(t) => openai::cancel(&Http(t), remote).await,
            Self::Anthropic(t) => anthropic::cancel(&Http(t), remote).await,
            Self::Gemini(t) => gemini::cancel(&Http(t), remote).await,
        };
        result.map_err(|e| e.redacted(&self.target().redactor))
    }
}

/// Removes every loaded key from what a provider sent back.
fn clean(outcome: ItemOutcome, redactor: &crate::redact::Redactor) -> ItemOutcome {
    match outcome {
        ItemOutcome::Answer {
            text,
            usage,
            finish,
            provider_finish,
            request_id,
        } => ItemOutcome::Answer {
            text: redactor.redact_string(text),
            usage,
            finish,
            provider_finish: redactor.redact_string(provider_finish),
            request_id: request_id.map(|id| redactor.redact_string(id)),
        },
        ItemOutcome::Error {
            kind,
            message,
            status,
            code,
            retryable,
        } => ItemOutcome::Error {
            kind,
            message: redactor.redact_string(message),
            status,
            code: code.map(|c| redactor.redact_string(c)),
            retryable,
        },
    }
}

/// The HTTP side of a batch API: the model's client, base URL and key.
pub(crate) struct Http<'a>(pub &'a HttpTarget);

impl Http<'_> {
    /// The endpoint prefix.
    pub(crate) fn base(&self) -> &str {
        &self.0.base_url
    }

    /// The model's configuration.
    pub(crate) fn config(&self) -> &crate::config::ModelConfig {
        &self.0.config
    }

    /// A request with the key header the provider wants.
    pub(crate) fn request(
        &self,
        method: reqwest::Method,
        url: &str,
        key_header: &'static str,
        key_prefix: &str,
        extra: HeaderMap,
    ) -> reqwest::RequestBuilder {
        let mut headers = extra;
        if let Some((name, value)) = self
            .0
            .key
            .as_ref()
            .and_then(|k| k.header(key_header, key_prefix))
        {
            headers.insert(name, value);
        }
        self.0.client.request(method, url).headers(headers)
    }

    /// Sends a request; a non-success status becomes a classified error.
    pub(crate) async fn send(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, ProviderError> {
        let response = request
            .send()
            .await
            .map_err(|e| ProviderError::from_transport(&e))?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let headers = response.headers().clone();
        let mut body = response
            .text()
            .await
            .map_err(|e| ProviderError::from_transport(&e))?;
        if body.len() > MAX_ERROR_BODY {
            let mut cut = MAX_ERROR_BODY;
            while !body.is_char_boundary(cut) {
                cut -= 1;
            }
            body.truncate(cut);
        }
        Err(ProviderError::from_http(status.as_u16(), &headers, &body))
    }

    /// Sends a request and reads a JSON answer.
    pub(crate) async fn json(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<Value, ProviderError> {
        let bytes = self
            .send(request)
            .await?
            .bytes()
            .await
            .map_err(|e| ProviderError::from_transport(&e))?;
        serde_json::from_slice(&bytes).map_err(ProviderError::malformed)
    }

    /// Sends a request and reads a text answer (a results file).
    pub(crate) async fn text(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<String, ProviderError> {
        self.send(request)
            .await?
            .text()
            .await
            .map_err(|e| ProviderError::from_transport(&e))
    }
}

/// Reads a count the provider may send as a number or as a string (Gemini's int64s).
pub(crate) fn count(value: Option<&Value>) -> u64 {
    match value {
        Some(Value::Number(n)) => n.as_u64().unwrap_or(0),
        Some(Value::String(s)) => s.parse().unwrap_or(0),
        _ => 0,
    }
}

/// The outcome of a request the provider answered with an HTTP status and a body: the
/// wire format's parser for a success, the error classification for anything else.
pub(crate) fn outcome_of(
    status: u16,
    body: &Value,
    max_tokens: u32,
    parse: crate::providers::http::BodyParser,
) -> ItemOutcome {
    if (200..300).contains(&status) {
        ItemOutcome::from_result(parse(body, None, max_tokens))
    } else {
        ItemOutcome::from_result(Err(ProviderError::from_http(
            status,
            &HeaderMap::new(),
            &body.to_string(),
        )))
    }
}

/// The lines of a results file (OpenAI's output and error files, Anthropic's results): each
/// line's `custom_id`, the token limit its request asked for, and the line itself. Lines that
/// are not JSON are skipped with a warning; lines of requests not in `requests` are skipped.
pub(crate) fn result_lines<'a>(
    text: &'a str,
    requests: &'a [(String, u32)],
) -> impl Iterator<Item = (String, u32, Value)> + 'a {
    let limits: std::collections::HashMap<&str, u32> =
        requests.iter().map(|(id, m)| (id.as_str(), *m)).collect();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(move |line| {
            let Ok(value) = serde_json::from_str::<Value>(line) else {
                tracing::warn!("an unreadable line in a batch results file was skipped");
                return None;
            };
            let id = value.get("custom_id").and_then(Value::as_str)?;
            let max_tokens = *limits.get(id)?;
            Some((id.to_string(), max_tokens, value))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ModelsConfig;
    use crate::providers::ChatRequest;

    fn api(provider: &str) -> BatchApi {
        let text = format!(
            "[[models]]\nname = \"m\"\nprovider = \"{provider}\"\nmodel = \"x\"\nbase_url = \"http://x/v1\"\n"
        );
        let config = ModelsConfig::parse(&text, std::path::Path::new("t.toml"))
            .unwrap()
            .models
            .remove(0);
        BatchApi::for_target(&HttpTarget {
            client: reqwest::Client::new(),
            base_url: "http://x/v1".into(),
            key: None,
            config: std::sync::Arc::new(config),
            redactor: Default::default(),
            limiter: std::sync::Arc::new(crate::providers::adaptive::ModelLimiter::new(1, false)),
        })
        .unwrap()
    }

    #[test]
    fn a_batched_request_is_sent_marked_but_known_by_its_unmarked_body() {
        let req = ChatRequest::new("system", "The case. The round.").with_stable_prefix(9);
        let anthropic = api("anthropic");
        let sent = anthropic.body(&req);
        assert!(sent.to_string().contains("cache_control"));
        assert!(sent.get("stream").is_none());
        let known = anthropic.identity(&req);
        assert!(!known.to_string().contains("cache_control"));
        assert_eq!(
            known["system"], "system",
            "the shape before the marks existed"
        );
        for provider in ["openai", "google"] {
            let api = api(provider);
            assert_eq!(
                api.body(&req),
                api.identity(&req),
                "{provider}: never marked"
            );
        }
    }
}
