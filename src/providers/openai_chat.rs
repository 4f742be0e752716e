//! OpenAI Chat Completions, spoken by OpenAI, xAI, Qwen's compatible mode and every
//! `openai-compatible` server.

use reqwest::header::HeaderMap;
use serde_json::{Value, json};

use super::ProviderError;
use super::http::{self, Finish, HttpTarget, Outgoing, SseDecoder};
use super::structured;
use super::types::{ChatRequest, Completion, FinishReason, Role, Usage};
use crate::config::{ModelConfig, ProviderKind};
use crate::domain::ErrorKind;

/// A model reached through `POST {base}/chat/completions`.
#[derive(Debug)]
pub(crate) struct OpenAiChat {
    pub target: HttpTarget,
}

impl OpenAiChat {
    /// One attempt: send the request, stream (or read) the answer.
    pub(crate) async fn attempt(
        &self,
        req: &ChatRequest,
        on_delta: &mut (dyn FnMut(&str) + Send),
    ) -> Result<Completion, ProviderError> {
        let cfg = &self.target.config;
        let url = format!("{}/chat/completions", self.target.base_url);
        let mut headers = HeaderMap::new();
        if let Some((name, value)) = self
            .target
            .key
            .as_ref()
            .and_then(|k| k.header("authorization", "Bearer "))
        {
            headers.insert(name, value);
        }
        let body = request_body(cfg, req);
        let outgoing = Outgoing {
            url,
            headers,
            structured: body.get("response_format").is_some(),
            max_tokens: req.token_limit(cfg.max_tokens),
            body,
            parse_body,
        };
        http::exchange::<Decoder>(&self.target, outgoing, on_delta).await
    }
}

/// The request body. OpenAI itself takes `max_completion_tokens`; compatible servers
/// often know only the older `max_tokens`, so they get that. A schema goes in the
/// `response_format` of the model's configured dialect.
pub(crate) fn request_body(cfg: &ModelConfig, req: &ChatRequest) -> Value {
    let mut messages = vec![json!({"role": "system", "content": req.system})];
    for turn in &req.turns {
        let role = match turn.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        messages.push(json!({"role": role, "content": turn.text}));
    }
    let mut body = json!({"model": cfg.model, "messages": messages});
    let token_field = if cfg.provider == ProviderKind::Openai {
        "max_completion_tokens"
    } else {
        "max_tokens"
    };
    body[token_field] = json!(req.token_limit(cfg.max_tokens));
    if let Some(t) = req.temperature_or(cfg.temperature) {
        body["temperature"] = json!(t);
    }
    if let Some(seed) = cfg.seed {
        body["seed"] = json!(seed);
    }
    if let Some(effort) = cfg.reasoning_effort {
        body["reasoning_effort"] = json!(effort.as_str());
    }
    if cfg.stream {
        body["stream"] = json!(true);
        body["stream_options"] = json!({"include_usage": true});
    }
    if let Some(format) = req
        .schema
        .as_ref()
        .and_then(|s| structured::response_format(cfg.structured_output_flavour(), s))
    {
        body["response_format"] = format;
    }
    body
}

fn finish_reason(s: &str) -> FinishReason {
    match s {
        "stop" => FinishReason::Stop,
        "length" => FinishReason::Length,
        "content_filter" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_string()),
    }
}

/// The usage object, streamed (the last chunk's, with `include_usage`) or whole. Cached
/// tokens are part of `prompt_tokens` already (`prompt_tokens_details.cached_tokens`).
fn usage(value: &Value) -> Option<Usage> {
    let u = value.get("usage").filter(|u| u.is_object())?;
    let input_tokens = http::tokens(u.get("prompt_tokens"));
    Some(Usage {
        input_tokens,
        output_tokens: http::tokens(u.get("completion_tokens")),
        cached_input_tokens: http::tokens(
            u.get("prompt_tokens_details")
                .and_then(|d| d.get("cached_tokens")),
        )
        .min(input_tokens),
        cache_write_tokens: 0,
    })
}

fn refused(refusal: &str) -> ProviderError {
    ProviderError::new(
        ErrorKind::Refused,
        format!("the model refused: {refusal}"),
        false,
    )
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
    let choice = value
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or_else(|| ProviderError::malformed("no choices in the response"))?;
    let message = choice.get("message");
    let text = message
        .and_then(|m| m.get("content"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    if let Some(r) = message
        .and_then(|m| m.get("refusal"))
        .and_then(Value::as_str)
        && text.is_empty()
    {
        return Err(refused(r));
    }
    let finish = choice
        .get("finish_reason")
        .and_then(Value::as_str)
        .map(|f| Finish::classify(f, finish_reason))
        .ok_or_else(|| ProviderError::malformed("no finish_reason in the response"))?;
    http::finalize(text, finish, usage(value), id, max_tokens)
}

/// Streaming state: text so far, the finish reason, the usage chunk, `[DONE]`.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    text: String,
    refusal: String,
    finish: Option<Finish>,
    usage: Option<Usage>,
    done: bool,
}

impl SseDecoder for Decoder {
    fn feed(&mut self, _event: &str, data: &str) -> Result<Option<String>, ProviderError> {
        if data.trim_start().starts_with("[DONE]") {
            self.done = true;
            return Ok(None);
        }
        let chunk = http::parse_data(data)?;
        if let Some(err) = chunk.get("error") {
            return Err(ProviderError::from_stream_frame(err));
        }
        if let Some(u) = usage(&chunk) {
            self.usage = Some(u);
        }
        // The usage chunk has an empty `choices` array; other chunks have one choice.
        let mut out = String::new();
        for choice in chunk
            .get("choices")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let delta = choice.get("delta");
            if let Some(text) = delta.and_then(|d| d.get("content")).and_then(Value::as_str) {
                out.push_str(text);
            }
            if let Some(r) = delta.and_then(|d| d.get("refusal")).and_then(Value::as_str) {
                self.refusal.push_str(r);
            }
            if let Some(f) = choice.get("finish_reason").and_then(Value::as_str) {
                self.finish = Some(Finish::classify(f, finish_reason));
            }
        }
        self.text.push_str(&out);
        Ok(Some(out))
    }

    fn ended(&self) -> bool {
        self.done
    }

    fn into_parts(self) -> (String, Option<Finish>, Option<Usage>) {
        let finish = match self.finish {
            Some(f) if self.text.is_empty() && !self.refusal.is_empty() => Some(Finish {
                reason: FinishReason::Refusal,
                ..f
            }),
            other => other,
        };
        (self.text, finish, self.usage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ModelsConfig;
    use std::path::Path;

    fn config(provider: &str) -> ModelConfig {
        let text = format!(
            "[[models]]\nname = \"m\"\nprovider = \"{provider}\"\nmodel = \"gpt-x\"\nbase_url = \"http://x/v1\"\ntemperature = 0.3\nmax_tokens = 77\nreasoning_effort = \"low\"\n"
        );
        ModelsConfig::parse(&text, Path::new("t.toml"))
            .unwrap()
            .models
            .remove(0)
    }

    #[test]
    fn a_requests_temperature_replaces_the_models() {
        let req = ChatRequest::new("sys", "q");
        assert_eq!(request_body(&config("openai"), &req)["temperature"], 0.3);
        let req = ChatRequest {
            temperature: Some(0.5),
            ..req
        };
        assert_eq!(request_body(&config("openai"), &req)["temperature"], 0.5);
        let mut cfg = config("openai");
        cfg.provider = ProviderKind::Anthropic;
        cfg.reasoning_effort = None;
        assert_eq!(
            crate::providers::anthropic::request_body(&cfg, &req)["temperature"],
            0.5
        );
        assert_eq!(
            crate::providers::gemini::request_body(&cfg, &req)["generationConfig"]["temperature"],
            0.5
        );
    }

    #[test]
    fn a_seed_goes_on_the_wire_only_when_set() {
        let req = ChatRequest::new("sys", "q");
        let mut cfg = config("openai-compatible");
        assert!(request_body(&cfg, &req).get("seed").is_none());
        cfg.seed = Some(7);
        assert_eq!(request_body(&cfg, &req)["seed"], 7);
        assert_eq!(
            crate::providers::gemini::request_body(&cfg, &req)["generationConfig"]["seed"],
            7
        );
    }

    #[test]
    fn body_has_messages_tokens_and_stream_options() {
        let mut req = ChatRequest::new("sys", "q1");
        req.turns.push(super::super::types::Turn {
            role: Role::Assistant,
            text: "a1".into(),
        });
        req.turns.push(super::super::types::Turn {
            role: Role::User,
            text: "q2".into(),
        });
        let body = request_body(&config("openai"), &req);
        assert_eq!(body["messages"].as_array().unwrap().len(), 4);
        assert_eq!(body["messages"][0]["role"], "system");
        assert_eq!(body["messages"][2]["role"], "assistant");
        assert_eq!(body["max_completion_tokens"], 77);
        assert!(body.get("max_tokens").is_none());
        assert_eq!(body["stream_options"]["include_usage"], true);
        assert_eq!(body["reasoning_effort"], "low");
        let body = request_body(&config("openai-compatible"), &req);
        assert_eq!(body["max_tokens"], 77);
    }

    #[test]
    fn decoder_handles_usage_chunk_with_empty_choices() {
        let mut d = Decoder::default();
        let frames = [
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}],"usage":null,"obfuscation":"x"}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":2,"completion_tokens":12,"total_tokens":14,"prompt_tokens_details":{"cached_tokens":1}}}"#,
            "[DONE]",
        ];
        let mut text = String::new();
        for f in frames {
            if let Some(t) = d.feed("", f).unwrap() {
                text.push_str(&t);
            }
        }
        assert!(d.ended());
        let (full, finish, usage) = d.into_parts();
        assert_eq!((text.as_str(), full.as_str()), ("Hello", "Hello"));
        assert_eq!(
            finish.map(|f| (f.reason, f.raw)),
            Some((FinishReason::Stop, "stop".into()))
        );
        assert_eq!(
            usage,
            Some(Usage {
                input_tokens: 2,
                output_tokens: 12,
                cached_input_tokens: 1,
                cache_write_tokens: 0,
            })
        );
    }

    #[test]
    fn decoder_raises_error_frames() {
        let mut d = Decoder::default();
        let e = d
            .feed(
                "",
                r#"{"error":{"message":"server had an error","type":"server_error"}}"#,
            )
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::StreamError);
        assert!(e.retryable);
    }

    #[test]
    fn body_parsing() {
        let v: Value = serde_json::from_str(r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"Hi","refusal":null},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}"#).unwrap();
        let c = parse_body(&v, None, 10).unwrap();
        assert_eq!(c.text, "Hi");
        assert_eq!(c.usage.unwrap().output_tokens, 1);
        let v: Value = serde_json::from_str(r#"{"choices":[{"message":{"content":null,"refusal":"I can't"},"finish_reason":"stop"}]}"#).unwrap();
        assert_eq!(
            parse_body(&v, None, 10).unwrap_err().kind,
            ErrorKind::Refused
        );
    }
}
