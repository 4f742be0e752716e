//! Anthropic Messages: `POST {base}/messages`, named SSE events, cumulative output usage.

use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::{Value, json};

use super::ProviderError;
use super::http::{self, Finish, HttpTarget, Outgoing, SseDecoder};
use super::structured;
use super::types::{ChatRequest, Completion, FinishReason, Role, Usage};
use crate::config::ModelConfig;

/// The API version this client speaks.
pub(crate) const API_VERSION: &str = "2023-06-01";

/// A model reached through the Messages API.
#[derive(Debug)]
pub(crate) struct Anthropic {
    pub target: HttpTarget,
}

impl Anthropic {
    /// One attempt: send the request, stream (or read) the answer.
    pub(crate) async fn attempt(
        &self,
        req: &ChatRequest,
        on_delta: &mut (dyn FnMut(&str) + Send),
    ) -> Result<Completion, ProviderError> {
        let url = format!("{}/messages", self.target.base_url);
        let mut headers = HeaderMap::new();
        headers.insert("anthropic-version", HeaderValue::from_static(API_VERSION));
        if let Some((name, value)) = self
            .target
            .key
            .as_ref()
            .and_then(|k| k.header("x-api-key", ""))
        {
            headers.insert(name, value);
        }
        let cfg = &self.target.config;
        let body = request_body(cfg, req);
        let outgoing = Outgoing {
            url,
            headers,
            structured: body.get("tools").is_some(),
            max_tokens: req.token_limit(cfg.max_tokens),
            body,
            parse_body,
        };
        http::exchange::<Decoder>(&self.target, outgoing, on_delta).await
    }
}

/// The mark that ends a prefix for the prompt cache (the 5-minute cache).
fn cache_mark() -> Value {
    json!({"type": "ephemeral"})
}

/// The messages, plain, or with the prompt cache's marks (`prompt_cache`, on by default):
/// at the end of the stable prefix, whose turn is sent as two text blocks (the stable part
/// marked, then the round's own text), and at the end of the turn before the last when
/// that comes first. With the system prompt's mark, at most three of the four breakpoints
/// Anthropic allows.
fn messages(req: &ChatRequest, marked: bool) -> Vec<Value> {
    let role = |r: Role| match r {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    let last = req.turns.len().saturating_sub(1);
    let split = req.stable_split().filter(|_| marked);
    let block = |text: &str, mark: bool| {
        let mut b = json!({"type": "text", "text": text});
        if mark {
            b["cache_control"] = cache_mark();
        }
        b
    };
    req.turns
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let content = match split {
                Some((at, stable, own)) if at == i && own.is_empty() => {
                    json!([block(stable, true)])
                }
                Some((at, stable, own)) if at == i => {
                    json!([block(stable, true), block(own, false)])
                }
                // The turn before the last, when it comes before the stable prefix's end
                // (a debater's prefilled acknowledgement): not after it, where it is the
                // round's own (a correction turn's first answer), read by no other request.
                _ if marked && i + 1 == last && split.is_none_or(|(at, ..)| i < at) => {
                    json!([block(&t.text, true)])
                }
                _ => json!(t.text),
            };
            json!({"role": role(t.role), "content": content})
        })
        .collect()
}

/// The request body. With a reasoning effort, extended thinking gets a budget below
/// `max_tokens` (the configuration check keeps room for the answer), and the temperature
/// is left to the API, which requires its default while thinking. With `prompt_cache` (the
/// default) the system prompt is a text block marked for the prompt cache, and so are the
/// ends of the conversation's stable parts (see [`messages`]).
pub(crate) fn request_body(cfg: &ModelConfig, req: &ChatRequest) -> Value {
    let marked = cfg.prompt_cache;
    let system = if marked && !req.system.is_empty() {
        json!([{"type": "text", "text": req.system, "cache_control": cache_mark()}])
    } else {
        json!(req.system)
    };
    let mut body = json!({
        "model": cfg.model,
        "max_tokens": req.token_limit(cfg.max_tokens),
        "system": system,
        "messages": messages(req, marked),
    });
    match cfg.reasoning_effort {
        Some(effort) => {
            let budget = effort
                .budget_tokens()
                .min(req.token_limit(cfg.max_tokens).saturating_sub(1))
                .max(1024);
            body["thinking"] = json!({"type": "enabled", "budget_tokens": budget});
        }
        None => {
            if let Some(t) = req.temperature_or(cfg.temperature) {
                body["temperature"] = json!(t);
            }
        }
    }
    if cfg.stream {
        body["stream"] = json!(true);
    }
    // Structured output is a tool the model must call; its input is the answer. Extended
    // thinking does not allow a forced tool, so thinking models get the schema in the prompt.
    if let Some(s) = req
        .schema
        .as_ref()
        .filter(|_| structured::constrains(cfg, req))
    {
        body["tools"] = json!([{
            "name": s.name,
            "description": "Give your answer in exactly this structure.",
            "input_schema": s.schema,
        }]);
        body["tool_choice"] = json!({"type": "tool", "name": s.name});
    }
    body
}

fn stop_reason(s: &str) -> FinishReason {
    match s {
        // tool_use: only ever the forced structured-output tool, whose input is the answer.
        "end_turn" | "stop_sequence" | "tool_use" => FinishReason::Stop,
        "max_tokens" | "model_context_window_exceeded" => FinishReason::Length,
        "refusal" => FinishReason::Refusal,
        other => FinishReason::Other(other.to_string()),
    }
}

/// Reads a non-streamed response body.
pub(crate) fn parse_body(
    value: &Value,
    id: Option<String>,
    max_tokens: u32,
) -> Result<Completion, ProviderError> {
    if let Some(err) = value.get("error") {
        return Err(ProviderError::from_stream_frame(err));
    }
    let text: String = value
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| ProviderError::malformed("no content in the response"))?
        .iter()
        .filter_map(|b| match b.get("type").and_then(Value::as_str) {
            Some("text") => b.get("text").and_then(Value::as_str).map(str::to_string),
            Some("tool_use") => b.get("input").map(Value::to_string),
            _ => None,
        })
        .collect();
    let finish = value
        .get("stop_reason")
        .and_then(Value::as_str)
        .map(|r| Finish::classify(r, stop_reason))
        .ok_or_else(|| ProviderError::malformed("no stop_reason in the response"))?;
    let usage = value.get("usage").map(|u| {
        let mut usage = Usage::default();
        read_usage(&mut usage, u);
        usage
    });
    let id = id.or_else(|| value.get("id").and_then(Value::as_str).map(str::to_string));
    http::finalize(text, finish, usage, id, max_tokens)
}

/// Reads the fields `u` carries into `usage`, leaving the others as they were (a
/// `message_delta` may carry only `output_tokens`). Anthropic's `input_tokens` counts only
/// the prompt after the last cache breakpoint: the cache reads and writes are added to it,
/// so that `input_tokens` is the whole prompt as every other provider reports it.
fn read_usage(usage: &mut Usage, u: &Value) {
    let field = |name: &str| u.get(name).and_then(Value::as_u64);
    let uncached = field("input_tokens");
    let read = field("cache_read_input_tokens");
    let write = field("cache_creation_input_tokens");
    if uncached.is_some() || read.is_some() || write.is_some() {
        let before = usage.uncached_input_tokens();
        usage.cached_input_tokens = read.unwrap_or(usage.cached_input_tokens);
        usage.cache_write_tokens = write.unwrap_or(usage.cache_write_tokens);
        usage.input_tokens =
            uncached.unwrap_or(before) + usage.cached_input_tokens + usage.cache_write_tokens;
    }
    if let Some(out) = field("output_tokens") {
        usage.output_tokens = out;
    }
}

/// Streaming state. `message_delta` usage is cumulative: the last value wins.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    text: String,
    finish: Option<Finish>,
    usage: Usage,
    saw_usage: bool,
    stopped: bool,
}

impl SseDecoder for Decoder {
    fn feed(&mut self, event: &str, data: &str) -> Result<Option<String>, ProviderError> {
        let frame = http::parse_data(data)?;
        let kind = frame.get("type").and_then(Value::as_str).unwrap_or(event);
        match kind {
            "error" => {
                let err = frame.get("error").unwrap_or(&frame);
                Err(ProviderError::from_stream_frame(err))
            }
            "message_start" => {
                if let Some(u) = frame.get("message").and_then(|m| m.get("usage")) {
                    read_usage(&mut self.usage, u);
                    self.saw_usage = true;
                }
                Ok(None)
            }
            "content_block_delta" => {
                let delta = frame.get("delta");
                // The answer is text_delta, or input_json_delta of the structured-output
                // tool; thinking_delta and signature_delta are not answer text.
                let field = match delta.and_then(|d| d.get("type")).and_then(Value::as_str) {
                    Some("text_delta") => "text",
                    Some("input_json_delta") => "partial_json",
                    _ => return Ok(None),
                };
                let text = delta
                    .and_then(|d| d.get(field))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                self.text.push_str(text);
                Ok(Some(text.to_string()))
            }
            "message_delta" => {
                if let Some(r) = frame
                    .get("delta")
                    .and_then(|d| d.get("stop_reason"))
                    .and_then(Value::as_str)
                {
                    self.finish = Some(Finish::classify(r, stop_reason));
                }
                if let Some(u) = frame.get("usage") {
                    read_usage(&mut self.usage, u);
                    self.saw_usage = true;
                }
                Ok(None)
            }
            "message_stop" => {
                self.stopped = true;
                Ok(None)
            }
            // ping, content_block_start, content_block_stop, and event types added later.
            _ => Ok(None),
        }
    }

    fn ended(&self) -> bool {
        self.stopped
    }

    fn into_parts(self) -> (String, Option<Finish>, Option<Usage>) {
        // Without message_stop the stream was cut, whatever stop_reason said before.
        let finish = if self.stopped { self.finish } else { None };
        (self.text, finish, self.saw_usage.then_some(self.usage))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed_all(
        frames: &[(&str, &str)],
    ) -> Result<(String, Option<Finish>, Option<Usage>), ProviderError> {
        let mut d = Decoder::default();
        for (event, data) in frames {
            d.feed(event, data)?;
        }
        Ok(d.into_parts())
    }

    #[test]
    fn cumulative_usage_takes_the_last_value_and_ignores_pings_and_thinking() {
        let (text, finish, usage) = feed_all(&[
            ("message_start", r#"{"type":"message_start","message":{"content":[],"usage":{"input_tokens":25,"output_tokens":1}}}"#),
            ("ping", r#"{"type":"ping"}"#),
            ("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}"#),
            ("content_block_delta", r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hi"}}"#),
            ("message_delta", r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7}}"#),
            ("message_delta", r#"{"type":"message_delta","delta":{},"usage":{"output_tokens":15}}"#),
            ("message_stop", r#"{"type":"message_stop"}"#),
        ])
        .unwrap();
        assert_eq!(text, "Hi");
        assert_eq!(
            finish.map(|f| (f.reason, f.raw)),
            Some((FinishReason::Stop, "end_turn".into()))
        );
        assert_eq!(usage, Some(Usage::new(25, 15)));
    }

    #[test]
    fn cache_reads_and_writes_are_added_to_the_input_and_later_counts_replace_earlier_ones() {
        // message_start carries the cache counts beside the uncached input; a later
        // message_delta may repeat them cumulatively, or carry only the output.
        let (_, _, usage) = feed_all(&[
            ("message_start", r#"{"type":"message_start","message":{"usage":{"input_tokens":10,"cache_read_input_tokens":1500,"cache_creation_input_tokens":300,"output_tokens":1}}}"#),
            ("message_delta", r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}"#),
            ("message_stop", r#"{"type":"message_stop"}"#),
        ])
        .unwrap();
        let expected = Usage {
            input_tokens: 1810,
            output_tokens: 9,
            cached_input_tokens: 1500,
            cache_write_tokens: 300,
        };
        assert_eq!(usage, Some(expected));
        let (_, _, usage) = feed_all(&[
            ("message_start", r#"{"type":"message_start","message":{"usage":{"input_tokens":10,"cache_read_input_tokens":0,"cache_creation_input_tokens":0,"output_tokens":1}}}"#),
            ("message_delta", r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":10,"cache_read_input_tokens":1500,"cache_creation_input_tokens":300,"output_tokens":9}}"#),
            ("message_stop", r#"{"type":"message_stop"}"#),
        ])
        .unwrap();
        assert_eq!(
            usage,
            Some(expected),
            "cumulative counts are not added twice"
        );
        let v: Value = serde_json::from_str(r#"{"content":[{"type":"text","text":"x"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"cache_read_input_tokens":1500,"cache_creation_input_tokens":300,"output_tokens":9}}"#).unwrap();
        assert_eq!(parse_body(&v, None, 100).unwrap().usage, Some(expected));
    }

    #[test]
    fn error_event_is_classified() {
        let e = feed_all(&[(
            "error",
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        )])
        .unwrap_err();
        assert!(e.retryable);
        assert_eq!(e.code.as_deref(), Some("overloaded_error"));
    }

    #[test]
    fn no_message_stop_means_truncated() {
        let (_, finish, _) = feed_all(&[
            ("message_delta", r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}"#),
        ])
        .unwrap();
        assert_eq!(finish, None);
    }
}
