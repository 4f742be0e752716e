//! Provider failures and their classification: retryable (the same request may succeed
//! later) or final (retrying cannot help).

use crate::domain::ErrorKind;
use crate::providers::rate_headers::{LONGEST_NAMED_WAIT, RateReport, header_wait};
use std::time::Duration;

use reqwest::header::HeaderMap;
use serde_json::Value;

/// A failed attempt, with enough detail to decide on a retry and to tell the user.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct ProviderError {
    /// What went wrong.
    pub kind: ErrorKind,
    /// The provider's own message (or ours when it sent none).
    pub message: String,
    /// The HTTP status, when there was one.
    pub status: Option<u16>,
    /// The provider's error type or code (`rate_limit_error`, `RESOURCE_EXHAUSTED`, …).
    pub code: Option<String>,
    /// The provider's request id, when it sent one.
    pub request_id: Option<String>,
    /// How long the server asked us to wait before trying again.
    pub retry_after: Option<Duration>,
    /// On a rate limit whose headers say a quota is spent (none left): how long until it
    /// is whole again. A wait the server named, like `retry_after`, though the limiter
    /// paces to it rather than sleeping it out (a refilling bucket has room sooner).
    pub quota_reset: Option<Duration>,
    /// Whether the same request may succeed if sent again.
    pub retryable: bool,
}

impl ProviderError {
    /// A failure that is not an HTTP status.
    pub fn new(kind: ErrorKind, message: impl Into<String>, retryable: bool) -> Self {
        Self {
            kind,
            message: message.into(),
            status: None,
            code: None,
            request_id: None,
            retry_after: None,
            quota_reset: None,
            retryable,
        }
    }

    /// The same error with every key `redactor` knows removed from the text the server
    /// sent (message, code and request id); see [`crate::redact`].
    pub(crate) fn redacted(self, redactor: &crate::redact::Redactor) -> Self {
        Self {
            message: redactor.redact_string(self.message),
            code: self.code.map(|c| redactor.redact_string(c)),
            request_id: self.request_id.map(|id| redactor.redact_string(id)),
            ..self
        }
    }

    /// A rate limit: HTTP 429, or a rate-limit error frame inside a 200 stream.
    pub fn is_rate_limit(&self) -> bool {
        self.status == Some(429)
            || matches!(
                self.code.as_deref(),
                Some("rate_limit_error" | "rate_limit_exceeded")
            )
    }

    /// The wait a rate limit's server named (Retry-After, Gemini's retry delay, or the
    /// reset of a quota its headers say is spent); `None` for any other failure.
    pub fn named_rate_limit_wait(&self) -> Option<Duration> {
        if !self.is_rate_limit() {
            return None;
        }
        self.retry_after.or(self.quota_reset)
    }

    fn describe(&self) -> String {
        let mut s = match self.status {
            Some(status) if matches!(self.kind, ErrorKind::Http | ErrorKind::SchemaRejected) => {
                format!("HTTP {status}")
            }
            _ => kind_label(self.kind).to_string(),
        };
        if let Some(code) = &self.code {
            s.push_str(&format!(" ({code})"));
        }
        s.push_str(": ");
        s.push_str(&self.message);
        if let Some(id) = &self.request_id {
            s.push_str(&format!(" [request id {id}]"));
        }
        s
    }

    /// Builds the error for a non-success HTTP response from its status, headers and body
    /// (any of the three providers' error envelopes).
    pub fn from_http(status: u16, headers: &HeaderMap, body: &str) -> Self {
        if (300..400).contains(&status) {
            let to = header_str(headers, "location")
                .map(|l| server_line(&l))
                .unwrap_or_else(|| "elsewhere".into());
            return Self {
                status: Some(status),
                ..Self::new(
                    ErrorKind::Http,
                    format!(
                        "the server redirects to {to}; redirects are not followed (a key must not \
                         follow them to another host): set base_url to the address it redirects to"
                    ),
                    false,
                )
            };
        }
        let parsed: Option<Value> = serde_json::from_str(body).ok();
        // Vertex wraps the envelope in an array.
        let root = match parsed {
            Some(Value::Array(mut items)) if !items.is_empty() => items.swap_remove(0),
            Some(v) => v,
            None => Value::Null,
        };
        let err = root.get("error").cloned().unwrap_or(Value::Null);
        let message = err
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| {
                let trimmed: String = body.chars().take(300).collect();
                if trimmed.trim().is_empty() {
                    "no error message in the response".to_string()
                } else {
                    trimmed
                }
            });
        let code = ["type", "status", "code"]
            .iter()
            .find_map(|k| err.get(*k).and_then(Value::as_str))
            .map(str::to_string);
        let request_id = header_str(headers, "x-request-id")
            .or_else(|| header_str(headers, "request-id"))
            .or_else(|| {
                root.get("request_id")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            });
        let message = with_context_hint(server_line(&message), code.as_deref(), &err);
        let code = code.map(|c| server_line(&c));
        let request_id = request_id.map(|id| server_line(&id));
        let retry_after = retry_after_from_headers(headers).or_else(|| gemini_retry_delay(&err));
        let quota_reset = (status == 429)
            .then(|| RateReport::from_headers(headers).spent_reset())
            .flatten();
        let retryable = match header_str(headers, "x-should-retry").as_deref() {
            Some("true") => true,
            Some("false") => false,
            _ => status_is_retryable(status) && !is_permanent_quota(status, &err),
        };
        Self {
            kind: ErrorKind::Http,
            message,
            status: Some(status),
            code,
            request_id,
            retry_after,
            quota_reset,
            retryable,
        }
    }

    /// An error frame found inside a 200 stream, classified by its type.
    pub fn from_stream_frame(err: &Value) -> Self {
        let message = err
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("error frame without a message");
        let message = server_line(message);
        let code = ["type", "status", "code"]
            .iter()
            .find_map(|k| err.get(*k).and_then(Value::as_str))
            .map(server_line);
        let numeric = err.get("code").and_then(Value::as_u64).map(|c| c as u16);
        let retryable = match code.as_deref() {
            Some(
                "overloaded_error" | "api_error" | "rate_limit_error" | "server_error"
                | "timeout_error" | "UNAVAILABLE" | "INTERNAL" | "DEADLINE_EXCEEDED",
            ) => true,
            Some("insufficient_quota") => false,
            _ => numeric.is_some_and(status_is_retryable),
        };
        Self {
            kind: ErrorKind::StreamError,
            message,
            status: None,
            code,
            request_id: None,
            retry_after: gemini_retry_delay(err),
            quota_reset: None,
            retryable,
        }
    }

    /// Maps a transport error from reqwest. A failure to connect at all is `Unreachable`
    /// (nothing was sent, so it is safe to retry for a while); others are retryable too.
    pub fn from_transport(e: &reqwest::Error) -> Self {
        if e.is_connect() {
            Self::new(
                ErrorKind::Unreachable,
                format!(
                    "could not connect to the server: {}; check that it is running and that \
                     base_url is right",
                    transport_message(e)
                ),
                true,
            )
        } else if e.is_timeout() {
            Self::new(
                ErrorKind::Timeout,
                "the server sent nothing within the read timeout (timeout_s)",
                true,
            )
        } else {
            // Connection refused or reset, a broken body: all worth another attempt.
            Self::new(ErrorKind::Connection, transport_message(e), true)
        }
    }

    /// The stream ended before the model's finish signal.
    pub fn truncated(received_chars: usize) -> Self {
        Self::new(
            ErrorKind::Truncated,
            format!(
                "the stream ended before the model finished (after {received_chars} characters); \
                 the partial answer is discarded"
            ),
            true,
        )
    }

    /// An answer still arriving when the call's total time (`max_call_s`) ran out: a server
    /// that streams without end, or trickles a byte at a time. Retried like a timeout.
    pub fn call_too_long(limit: Duration) -> Self {
        Self::new(
            ErrorKind::Timeout,
            format!(
                "the answer was still arriving after {} s (max_call_s); the call was ended and \
                 its partial answer discarded",
                limit.as_secs_f64()
            ),
            true,
        )
    }

    /// An answer larger than the model's `max_response_bytes`: a server sending without
    /// end. Not retried, since the same request would pay for the same flood.
    pub fn answer_too_large(limit: u64) -> Self {
        Self::new(
            ErrorKind::StreamError,
            format!(
                "the answer passed {limit} bytes (max_response_bytes) and was ended there; raise \
                 max_response_bytes if answers this long are expected"
            ),
            false,
        )
    }

    /// A stream whose own bytes (the events around the text) passed `limit`, 64 times the
    /// answer's limit: events without text, or one line without end. Not retried.
    pub fn stream_too_large(limit: u64) -> Self {
        Self::new(
            ErrorKind::StreamError,
            format!(
                "the stream passed {limit} bytes (64 × max_response_bytes) without ending its \
                 answer, and was ended there"
            ),
            false,
        )
    }

    /// A streamed response that ended without sending anything at all. Not retried: the
    /// servers known to do this do it again for the same request.
    pub fn empty_stream() -> Self {
        Self::new(
            ErrorKind::EmptyStream,
            "the server closed the stream without an answer (a context-length overflow on some \
             servers, or a server that ends a stream when another request arrives: try stream = \
             false or max_concurrency = 1)",
            false,
        )
    }

    /// The answer was cut at `limit` output tokens and is asked for again with `next`.
    pub fn token_limit(limit: u32, next: u32) -> Self {
        Self::new(
            ErrorKind::TokenLimit,
            format!("cut at the token limit ({limit} tokens); asked again with {next}"),
            true,
        )
    }

    /// Data that is not the wire format.
    pub fn malformed(what: impl std::fmt::Display) -> Self {
        Self::new(
            ErrorKind::Malformed,
            format!("malformed response: {what}"),
            true,
        )
    }

    /// The whole token budget went to reasoning, or the cap was too small for any answer.
    pub fn empty_length(max_tokens: u32) -> Self {
        Self::new(
            ErrorKind::EmptyLength,
            format!(
                "the model used all {max_tokens} output tokens without answering (finish reason \
                 length); raise max_tokens for this model, reasoning models need room to think"
            ),
            true,
        )
    }
}

/// How an error kind is named in messages.
fn kind_label(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Http => "HTTP error",
        ErrorKind::Connection => "connection",
        ErrorKind::Unreachable => "unreachable",
        ErrorKind::Timeout => "timeout",
        ErrorKind::StreamError => "error frame in stream",
        ErrorKind::Truncated => "truncated",
        ErrorKind::Malformed => "malformed",
        ErrorKind::Refused => "refused",
        ErrorKind::EmptyLength => "empty answer",
        ErrorKind::EmptyStream => "empty stream",
        ErrorKind::SchemaRejected => "schema rejected",
        ErrorKind::TokenLimit => "token limit",
        ErrorKind::Simulated => "simulated",
    }
}

/// A context-window overflow (OpenAI's `context_length_exceeded`, and the servers that copy
/// it) gets a sentence on what to change.
fn with_context_hint(message: String, code: Option<&str>, err: &Value) -> String {
    let coded = code == Some("context_length_exceeded")
        || err.get("code").and_then(Value::as_str) == Some("context_length_exceeded");
    if !coded {
        return message;
    }
    format!(
        "{message} (the prompt plus max_tokens must fit the model's context window: shorten \
         the input, lower max_tokens, or use a model or server with a longer context)"
    )
}

fn transport_message(e: &reqwest::Error) -> String {
    // reqwest's Display names the URL; the chain below it says what actually broke.
    let mut msg = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        source = s.source();
    }
    msg
}

/// Statuses worth retrying: request timeout, conflict, rate limit, server errors, overload.
pub fn status_is_retryable(status: u16) -> bool {
    matches!(status, 408 | 409 | 429 | 500 | 502 | 503 | 504 | 529)
}

/// A 429 that waiting will not cure: OpenAI's `insufficient_quota`, Anthropic's spend limit,
/// Gemini's per-day quotas.
fn is_permanent_quota(status: u16, err: &Value) -> bool {
    if status != 429 {
        return false;
    }
    let field = |k: &str| err.get(k).and_then(Value::as_str).unwrap_or("");
    if field("type") == "insufficient_quota" || field("code") == "insufficient_quota" {
        return true;
    }
    let details = err.get("details");
    if details
        .and_then(|d| d.get("error_code"))
        .and_then(Value::as_str)
        .is_some_and(|c| c == "enforced_spend_limit_reached")
    {
        return true;
    }
    details.and_then(Value::as_array).is_some_and(|items| {
        items.iter().any(|d| {
            d.get("violations")
                .and_then(Value::as_array)
                .is_some_and(|vs| {
                    vs.iter().any(|v| {
                        v.get("quotaId")
                            .and_then(Value::as_str)
                            .is_some_and(|q| q.contains("PerDay"))
                    })
                })
        })
    })
}

/// Text a server sent, made one safe line: escape sequences and control characters dropped
/// (a server's message reaches terminals, the log file and round files, and must not retitle
/// a terminal, write its clipboard or forge a log line), white space folded, at most 2,000
/// characters.
fn server_line(text: &str) -> String {
    let clean = crate::sanitize::sanitize(text);
    let mut line = clean.split_whitespace().collect::<Vec<_>>().join(" ");
    if let Some((cut, _)) = line.char_indices().nth(2000) {
        line.truncate(cut);
        line.push('…');
    }
    line
}

fn header_str(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(|s| s.trim().to_string())
}

/// `retry-after-ms` (milliseconds), then `retry-after` (seconds, or an HTTP date).
pub fn retry_after_from_headers(headers: &HeaderMap) -> Option<Duration> {
    if let Some(wait) = header_str(headers, "retry-after-ms")
        .and_then(|v| v.parse::<f64>().ok())
        .and_then(|ms| header_wait(ms / 1000.0))
    {
        return Some(wait);
    }
    let value = header_str(headers, "retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return header_wait(secs);
    }
    let when = httpdate::parse_http_date(&value).ok()?;
    Some(
        when.duration_since(std::time::SystemTime::now())
            .unwrap_or(Duration::ZERO)
            .min(LONGEST_NAMED_WAIT),
    )
}

/// Gemini's wait, found only in the body: `details[].retryDelay` of a `RetryInfo`, a
/// protobuf duration such as `"47s"` or `"45.837906927s"`.
fn gemini_retry_delay(err: &Value) -> Option<Duration> {
    err.get("details")?
        .as_array()?
        .iter()
        .filter(|d| {
            d.get("@type")
                .and_then(Value::as_str)
                .is_some_and(|t| t.ends_with("RetryInfo"))
        })
        .find_map(|d| parse_proto_duration(d.get("retryDelay")?.as_str()?))
}

fn parse_proto_duration(s: &str) -> Option<Duration> {
    header_wait(s.strip_suffix('s')?.parse().ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_servers_message_is_one_clean_line() {
        let hostile = "bad request\u{1b}]0;owned\u{7}\u{1b}]52;c;ZWNobyBoaQ==\u{7}\u{1b}c\u{1b}[6n\n2026-01-01 ERROR forged log line\r\n\u{9b}31mred";
        let body =
            serde_json::json!({"error": {"message": hostile, "type": "invalid\u{1b}[2J_request"}})
                .to_string();
        let e = ProviderError::from_http(400, &HeaderMap::new(), &body);
        for shown in [
            e.to_string(),
            e.message.clone(),
            e.code.clone().unwrap_or_default(),
        ] {
            assert!(
                !shown
                    .chars()
                    .any(|c| c.is_control() || ('\u{80}'..='\u{9f}').contains(&c)),
                "{shown:?}"
            );
        }
        assert!(
            e.message.starts_with("bad request") && e.message.contains("forged log line"),
            "{}",
            e.message
        );
        let frame = serde_json::json!({"message": "a\nb\u{1b}[31m", "type": "server_error"});
        assert_eq!(ProviderError::from_stream_frame(&frame).message, "a b");
    }
    use reqwest::header::{HeaderName, HeaderValue};

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(
                HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        h
    }

    #[test]
    fn statuses_are_classified() {
        for s in [408, 409, 429, 500, 502, 503, 504, 529] {
            assert!(
                ProviderError::from_http(s, &HeaderMap::new(), "").retryable,
                "{s}"
            );
        }
        for s in [400, 401, 403, 404, 413, 422] {
            assert!(
                !ProviderError::from_http(s, &HeaderMap::new(), "").retryable,
                "{s}"
            );
        }
    }

    #[test]
    fn quota_429s_are_final() {
        let openai = r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#;
        assert!(!ProviderError::from_http(429, &HeaderMap::new(), openai).retryable);
        let anthropic = r#"{"type":"error","error":{"type":"rate_limit_error","message":"spend","details":{"error_code":"enforced_spend_limit_reached"}}}"#;
        assert!(!ProviderError::from_http(429, &HeaderMap::new(), anthropic).retryable);
        let gemini_day = r#"{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerDayPerProjectPerModel"}]}]}}"#;
        assert!(!ProviderError::from_http(429, &HeaderMap::new(), gemini_day).retryable);
        let ordinary = r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#;
        assert!(ProviderError::from_http(429, &HeaderMap::new(), ordinary).retryable);
    }

    #[test]
    fn envelopes_give_message_code_and_request_id() {
        let body = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}"#;
        let e = ProviderError::from_http(529, &HeaderMap::new(), body);
        assert_eq!(e.message, "Overloaded");
        assert_eq!(e.code.as_deref(), Some("overloaded_error"));
        assert_eq!(e.request_id.as_deref(), Some("req_1"));
        assert_eq!(
            e.to_string(),
            "HTTP 529 (overloaded_error): Overloaded [request id req_1]"
        );
        let mut moved = HeaderMap::new();
        moved.insert("location", "https://other.example/v1".parse().unwrap());
        let e = ProviderError::from_http(301, &moved, "");
        assert!(
            !e.retryable && e.message.contains("https://other.example/v1"),
            "{e}"
        );
        let vertex = r#"[{"error":{"code":503,"message":"busy","status":"UNAVAILABLE"}}]"#;
        let e = ProviderError::from_http(503, &headers(&[("x-request-id", "abc")]), vertex);
        assert_eq!(e.message, "busy");
        assert_eq!(e.request_id.as_deref(), Some("abc"));
        let e = ProviderError::from_http(502, &HeaderMap::new(), "<html>Bad gateway</html>");
        assert_eq!(e.message, "<html>Bad gateway</html>");
    }

    #[test]
    fn waits_come_from_headers_or_the_gemini_body() {
        let h = headers(&[("retry-after-ms", "1500"), ("retry-after", "9")]);
        assert_eq!(
            retry_after_from_headers(&h),
            Some(Duration::from_millis(1500))
        );
        let h = headers(&[("retry-after", "2.5")]);
        assert_eq!(
            retry_after_from_headers(&h),
            Some(Duration::from_millis(2500))
        );
        let h = headers(&[("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")]);
        assert_eq!(retry_after_from_headers(&h), Some(Duration::ZERO));
        assert_eq!(
            retry_after_from_headers(&headers(&[("retry-after", "soon")])),
            None
        );
        let body = r#"{"error":{"code":429,"message":"Please retry in 45.8s","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"45.837906927s"}]}}"#;
        let e = ProviderError::from_http(429, &HeaderMap::new(), body);
        assert!(e.retryable);
        assert_eq!(e.retry_after, Some(Duration::from_secs_f64(45.837906927)));
    }

    #[test]
    fn a_429_names_its_wait_by_retry_after_or_a_spent_quotas_reset() {
        let spent = headers(&[
            ("x-ratelimit-remaining-requests", "0"),
            ("x-ratelimit-reset-requests", "1m30s"),
            ("x-ratelimit-remaining-tokens", "5000"),
            ("x-ratelimit-reset-tokens", "6m0s"),
        ]);
        let e = ProviderError::from_http(429, &spent, "");
        assert_eq!(e.retry_after, None);
        assert_eq!(
            e.quota_reset,
            Some(Duration::from_secs(90)),
            "the spent quota's"
        );
        assert_eq!(e.named_rate_limit_wait(), Some(Duration::from_secs(90)));
        let e = ProviderError::from_http(429, &headers(&[("retry-after", "3")]), "");
        assert_eq!(e.named_rate_limit_wait(), Some(Duration::from_secs(3)));
        let left = headers(&[
            ("x-ratelimit-remaining-requests", "4"),
            ("x-ratelimit-reset-requests", "1s"),
        ]);
        let e = ProviderError::from_http(429, &left, "");
        assert_eq!(
            e.named_rate_limit_wait(),
            None,
            "a quota not spent names nothing"
        );
        let e = ProviderError::from_http(503, &spent, "");
        assert_eq!((e.quota_reset, e.named_rate_limit_wait()), (None, None));
    }

    #[test]
    fn server_can_override_retry() {
        let e = ProviderError::from_http(500, &headers(&[("x-should-retry", "false")]), "");
        assert!(!e.retryable);
        let e = ProviderError::from_http(400, &headers(&[("x-should-retry", "true")]), "");
        assert!(e.retryable);
    }

    #[test]
    fn stream_frames_are_classified_by_type() {
        let v: Value =
            serde_json::from_str(r#"{"type":"overloaded_error","message":"Overloaded"}"#).unwrap();
        assert!(ProviderError::from_stream_frame(&v).retryable);
        let v: Value =
            serde_json::from_str(r#"{"type":"invalid_request_error","message":"bad"}"#).unwrap();
        assert!(!ProviderError::from_stream_frame(&v).retryable);
        let v: Value =
            serde_json::from_str(r#"{"code":503,"message":"x","status":"UNAVAILABLE"}"#).unwrap();
        assert!(ProviderError::from_stream_frame(&v).retryable);
    }
}
