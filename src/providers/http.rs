//! HTTP plumbing shared by the three wire formats: the client, the key, sending a JSON
//! request, and turning an SSE body into decoder input.

use std::time::Duration;

use eventsource_stream::{EventStreamError, Eventsource};
use futures_util::StreamExt;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;

use super::ProviderError;
use super::adaptive::ModelLimiter;
use super::rate_headers::RateReport;
use super::types::{Completion, FinishReason, Usage};
use crate::domain::ErrorKind;
use crate::redact::Redactor;

/// Error bodies longer than this are cut before parsing; they are only read for a message.
const MAX_ERROR_BODY: usize = 64 * 1024;

/// An API key read from the environment. Its `Debug` never shows the value, and it only
/// leaves this type inside a header marked sensitive.
#[derive(Clone)]
pub(crate) struct ApiKey(String);

impl ApiKey {
    /// Wraps a key value.
    pub(crate) fn new(value: String) -> Self {
        Self(value)
    }

    /// A header carrying the key, marked sensitive so it is never logged.
    pub(crate) fn header(
        &self,
        name: &'static str,
        prefix: &str,
    ) -> Option<(HeaderName, HeaderValue)> {
        let mut value = HeaderValue::from_str(&format!("{prefix}{}", self.0)).ok()?;
        value.set_sensitive(true);
        Some((HeaderName::from_static(name), value))
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

/// One HTTP client per model: a connect timeout and a read timeout (silence between two
/// pieces of the body), never a total timeout, since a long answer may stream for minutes.
/// Redirects are not followed: reqwest drops only `Authorization` on a redirect to another
/// host, and Anthropic's and Gemini's keys travel in headers of their own, which would go
/// along to wherever the server pointed (a redirect becomes an HTTP error that says so).
pub(crate) fn build_client(read_timeout: Duration) -> Result<reqwest::Client, reqwest::Error> {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(read_timeout.min(Duration::from_secs(15)))
        .read_timeout(read_timeout)
        .user_agent(concat!("ethics-bowl/", env!("CARGO_PKG_VERSION")))
        .build()
}

/// Sends a JSON body; a non-success status becomes a classified [`ProviderError`]. The
/// rate-limit headers of every response, success or not, go to the model's limiter.
pub(crate) async fn post_json(
    target: &HttpTarget,
    url: &str,
    headers: HeaderMap,
    body: &Value,
) -> Result<reqwest::Response, ProviderError> {
    let response = target
        .client
        .post(url)
        .headers(headers)
        .json(body)
        .send()
        .await
        .map_err(|e| ProviderError::from_transport(&e))?;
    target
        .limiter
        .observe(&RateReport::from_headers(response.headers()));
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let headers = response.headers().clone();
    let body = read_capped(response).await;
    Err(ProviderError::from_http(status.as_u16(), &headers, &body))
}

async fn read_capped(response: reqwest::Response) -> String {
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(Ok(chunk)) = stream.next().await {
        body.extend_from_slice(&chunk);
        if body.len() >= MAX_ERROR_BODY {
            body.truncate(MAX_ERROR_BODY);
            break;
        }
    }
    String::from_utf8_lossy(&body).into_owned()
}

/// The request id a provider put in its response headers.
pub(crate) fn request_id(headers: &HeaderMap) -> Option<String> {
    ["x-request-id", "request-id", "x-goog-request-id"]
        .iter()
        .find_map(|h| headers.get(*h)?.to_str().ok().map(str::to_string))
}

/// Reads a successful JSON (non-streamed) body of at most `max_bytes`.
pub(crate) async fn read_json(
    response: reqwest::Response,
    max_bytes: u64,
) -> Result<(Value, Option<String>), ProviderError> {
    let id = request_id(response.headers());
    let mut bytes = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| ProviderError::from_transport(&e))?;
        bytes.extend_from_slice(&chunk);
        if bytes.len() as u64 > max_bytes {
            return Err(ProviderError::answer_too_large(max_bytes));
        }
    }
    let value = serde_json::from_slice(&bytes).map_err(ProviderError::malformed)?;
    Ok((value, id))
}

/// How an answer ended: the provider's own word for it, and what that means here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finish {
    /// The meaning, by the wire format's table.
    pub reason: FinishReason,
    /// The word the provider sent (`stop`, `end_turn`, `STOP`, …).
    pub raw: String,
}

impl Finish {
    /// The provider's word, classified by the wire format's `table`.
    pub(crate) fn classify(raw: &str, table: fn(&str) -> FinishReason) -> Self {
        Self {
            reason: table(raw),
            raw: raw.to_string(),
        }
    }
}

/// One wire format's view of an SSE stream.
pub(crate) trait SseDecoder {
    /// Takes one event (its `event:` name, possibly empty, and its joined `data:`), and
    /// returns answer text to pass on.
    fn feed(&mut self, event: &str, data: &str) -> Result<Option<String>, ProviderError>;
    /// True once the format's own end marker has arrived (`[DONE]`, `message_stop`).
    fn ended(&self) -> bool;
    /// What the stream said, once it is over: text so far, finish reason if any, usage.
    fn into_parts(self) -> (String, Option<Finish>, Option<Usage>);
}

/// Streams an SSE body through a decoder, passing text on as it arrives. A stream that ends
/// without a finish reason is truncated, never an answer; one that ends without a single
/// event is an [`ProviderError::empty_stream`]; one whose text passes `max_bytes` is ended
/// there ([`ProviderError::answer_too_large`]).
pub(crate) async fn read_sse<D: SseDecoder>(
    response: reqwest::Response,
    mut decoder: D,
    max_tokens: u32,
    max_bytes: u64,
    on_delta: &mut (dyn FnMut(&str) + Send),
) -> Result<Completion, ProviderError> {
    let id = request_id(response.headers());
    // The stream's own bytes (the events' JSON around the text) are bounded too, at 64 times
    // the text's limit, so that a server sending events without text, or one endless line,
    // cannot fill memory either; past that the stream is cut and the answer refused.
    let raw_limit = max_bytes.saturating_mul(64);
    let mut raw = 0u64;
    let flooded = std::sync::atomic::AtomicBool::new(false);
    let mut events = response
        .bytes_stream()
        .take_while(|chunk| {
            raw = raw.saturating_add(chunk.as_ref().map_or(0, |c| c.len() as u64));
            let within = raw <= raw_limit;
            if !within {
                flooded.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            std::future::ready(within)
        })
        .eventsource();
    let mut received = 0usize;
    let mut any_event = false;
    while let Some(item) = events.next().await {
        let event = item.map_err(|e| match e {
            EventStreamError::Transport(e) => ProviderError::from_transport(&e),
            EventStreamError::Utf8(e) => ProviderError::malformed(e),
            EventStreamError::Parser(e) => ProviderError::malformed(e),
        })?;
        any_event = true;
        if let Some(text) = decoder.feed(&event.event, &event.data)?
            && !text.is_empty()
        {
            received += text.len();
            if received as u64 > max_bytes {
                return Err(ProviderError::answer_too_large(max_bytes));
            }
            on_delta(&text);
        }
        if decoder.ended() {
            break;
        }
    }
    drop(events);
    if flooded.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(ProviderError::stream_too_large(raw_limit));
    }
    if !any_event {
        return Err(ProviderError::empty_stream());
    }
    let (text, finish, usage) = decoder.into_parts();
    let Some(finish) = finish else {
        return Err(ProviderError::truncated(received));
    };
    finalize(text, finish, usage, id, max_tokens)
}

/// The checks every answer passes, streamed or not: an empty answer cut by the token cap is
/// a retryable failure that says to raise `max_tokens`; an empty refusal is final.
pub(crate) fn finalize(
    text: String,
    finish: Finish,
    usage: Option<Usage>,
    request_id: Option<String>,
    max_tokens: u32,
) -> Result<Completion, ProviderError> {
    if text.trim().is_empty() {
        match &finish.reason {
            FinishReason::Length => return Err(ProviderError::empty_length(max_tokens)),
            FinishReason::ContentFilter | FinishReason::Refusal => {
                return Err(ProviderError::new(
                    ErrorKind::Refused,
                    format!(
                        "the provider withheld the answer (finish reason {})",
                        finish.raw
                    ),
                    false,
                ));
            }
            _ => {}
        }
    }
    Ok(Completion {
        usage_estimated: false,
        text,
        usage,
        finish_reason: finish.reason,
        provider_finish_reason: finish.raw,
        request_id,
        batch_id: None,
    })
}

/// Parses one data payload as JSON, or fails as malformed.
pub(crate) fn parse_data(data: &str) -> Result<Value, ProviderError> {
    serde_json::from_str(data).map_err(|e| {
        let excerpt: String = data.chars().take(120).collect();
        ProviderError::malformed(format!("{e} in stream data {excerpt:?}"))
    })
}

/// Reads a JSON number as a token count.
pub(crate) fn tokens(value: Option<&Value>) -> u64 {
    value.and_then(Value::as_u64).unwrap_or(0)
}

/// Where and how one model is reached over HTTP.
#[derive(Debug, Clone)]
pub(crate) struct HttpTarget {
    /// The model's own client (its read timeout).
    pub client: reqwest::Client,
    /// The endpoint prefix, without a trailing slash.
    pub base_url: String,
    /// The key, when the provider needs one.
    pub key: Option<ApiKey>,
    /// The model's configuration (model id, sampling, limits).
    pub config: std::sync::Arc<crate::config::ModelConfig>,
    /// Every key the registry loaded, to be removed from what comes back.
    pub redactor: Redactor,
    /// The model's concurrency window, told the rate-limit headers of every response.
    pub limiter: std::sync::Arc<ModelLimiter>,
}

/// Reads a non-streamed body into a completion (one per wire format).
pub(crate) type BodyParser = fn(&Value, Option<String>, u32) -> Result<Completion, ProviderError>;

/// One request of a wire format, as its backend built it.
pub(crate) struct Outgoing {
    /// The endpoint.
    pub url: String,
    /// The format's headers (the key among them).
    pub headers: HeaderMap,
    /// The JSON body.
    pub body: Value,
    /// The answer-token limit the body asks for, to tell an answer cut by it.
    pub max_tokens: u32,
    /// How the format's non-streamed body reads.
    pub parse_body: BodyParser,
    /// The body asks for structured output, so a refusal is explained (see
    /// [`super::structured::explain_rejection`]).
    pub structured: bool,
}

/// One attempt against an HTTP model: send the body, then stream the answer through the
/// format's decoder, or, for models configured with `stream = false`, parse the whole body
/// and pass its text on as a single delta.
///
/// Every loaded key is redacted here, from the streamed text, the completion and the error
/// alike. This is the one place every HTTP attempt's result passes through before anything
/// stores, logs or prints it (the retry loop, round files, the UI and `ask` only ever see
/// what leaves this function), so a server that quotes the request's headers back cannot
/// make any later copy hold a key.
pub(crate) async fn exchange<D: SseDecoder + Default>(
    target: &HttpTarget,
    outgoing: Outgoing,
    on_delta: &mut (dyn FnMut(&str) + Send),
) -> Result<Completion, ProviderError> {
    let structured = outgoing.structured;
    let mut stream = target.redactor.stream();
    let result = {
        let mut clean_delta = |text: &str| {
            let clean = stream.push(text);
            if !clean.is_empty() {
                on_delta(&clean);
            }
        };
        unredacted_exchange::<D>(target, outgoing, &mut clean_delta).await
    };
    let tail = stream.finish();
    if !tail.is_empty() {
        on_delta(&tail);
    }
    let r = &target.redactor;
    match result {
        Ok(mut c) => {
            c.text = r.redact_string(c.text);
            c.provider_finish_reason = r.redact_string(c.provider_finish_reason);
            c.request_id = c.request_id.map(|id| r.redact_string(id));
            Ok(c)
        }
        Err(e) if structured => Err(super::structured::explain_rejection(
            e.redacted(r),
            &target.config,
        )),
        Err(e) => Err(e.redacted(r)),
    }
}

async fn unredacted_exchange<D: SseDecoder + Default>(
    target: &HttpTarget,
    outgoing: Outgoing,
    on_delta: &mut (dyn FnMut(&str) + Send),
) -> Result<Completion, ProviderError> {
    let Outgoing {
        url,
        headers,
        body,
        max_tokens,
        parse_body,
        ..
    } = outgoing;
    let max_call = crate::config::seconds(target.config.max_call_s);
    let max_bytes = target.config.max_response_bytes;
    let call = async {
        let response = post_json(target, &url, headers, &body).await?;
        if target.config.stream {
            read_sse(response, D::default(), max_tokens, max_bytes, on_delta).await
        } else {
            let (value, id) = read_json(response, max_bytes.saturating_mul(8)).await?;
            let completion = parse_body(&value, id, max_tokens)?;
            on_delta(&completion.text);
            Ok(completion)
        }
    };
    tokio::time::timeout(max_call, call)
        .await
        .unwrap_or_else(|_| Err(ProviderError::call_too_long(max_call)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_debug_is_redacted() {
        let key = ApiKey::new("sk-test-DEADBEEF".into());
        assert!(!format!("{key:?}").contains("DEADBEEF"));
        let (_, value) = key.header("authorization", "Bearer ").unwrap();
        assert!(value.is_sensitive());
        assert!(!format!("{value:?}").contains("DEADBEEF"));
    }

    fn finish(reason: FinishReason, raw: &str) -> Finish {
        Finish {
            reason,
            raw: raw.into(),
        }
    }

    #[test]
    fn empty_answers_are_failures_by_finish_reason() {
        let length = || finish(FinishReason::Length, "length");
        let e = finalize(String::new(), length(), None, None, 64).unwrap_err();
        assert_eq!(e.kind, ErrorKind::EmptyLength);
        assert!(e.retryable && e.message.contains("raise max_tokens"));
        let filtered = finish(FinishReason::ContentFilter, "SAFETY");
        let e = finalize(" ".into(), filtered, None, None, 64).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Refused);
        assert!(!e.retryable);
        assert!(e.message.contains("finish reason SAFETY"), "{}", e.message);
        let c = finalize("ok".into(), length(), None, None, 64).unwrap();
        assert_eq!(c.provider_finish_reason, "length");
    }
}
