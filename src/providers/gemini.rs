//! Google Gemini: `POST {base}/models/{model}:streamGenerateContent?alt=sse`. Each SSE frame
//! is a whole response object; there is no end marker but the end of the body, so the last
//! frame's `finishReason` is what tells a finished answer from a cut one.

use reqwest::header::HeaderMap;
use serde_json::{Value, json};

use super::ProviderError;
use super::http::{self, Finish, HttpTarget, Outgoing, SseDecoder};
use super::structured;
use super::types::{ChatRequest, Completion, FinishReason, Role, Usage};
use crate::config::ModelConfig;
use crate::domain::ErrorKind;

/// A model reached through the Gemini API.
#[derive(Debug)]
pub(crate) struct Gemini {
    pub target: HttpTarget,
}

impl Gemini {
    /// One attempt: send the request, stream (or read) the answer.
    pub(crate) async fn attempt(
        &self,
        req: &ChatRequest,
        on_delta: &mut (dyn FnMut(&str) + Send),
    ) -> Result<Completion, ProviderError> {
        let cfg = &self.target.config;
        let url = if cfg.stream {
            format!(
                "{}/models/{}:streamGenerateContent?alt=sse",
                self.target.base_url, cfg.model
            )
        } else {
            format!(
                "{}/models/{}:generateContent",
                self.target.base_url, cfg.model
            )
        };
        let mut headers = HeaderMap::new();
        if let Some((name, value)) = self
            .target
            .key
            .as_ref()
            .and_then(|k| k.header("x-goog-api-key", ""))
        {
            headers.insert(name, value);
        }
        let body = request_body(cfg, req);
        let outgoing = Outgoing {
            url,
            headers,
            structured: body["generationConfig"].get("responseSchema").is_some(),
            max_tokens: req.token_limit(cfg.max_tokens),
            body,
            parse_body,
        };
        http::exchange::<Decoder>(&self.target, outgoing, on_delta).await
    }
}

/// The request body (camelCase on the wire).
pub(crate) fn request_body(cfg: &ModelConfig, req: &ChatRequest) -> Value {
    let contents: Vec<Value> = req
        .turns
        .iter()
        .map(|t| {
            let role = match t.role {
                Role::User => "user",
                Role::Assistant => "model",
            };
            json!({"role": role, "parts": [{"text": t.text}]})
        })
        .collect();
    let mut generation = json!({"maxOutputTokens": req.token_limit(cfg.max_tokens)});
    if let Some(t) = req.temperature_or(cfg.temperature) {
        generation["temperature"] = json!(t);
    }
    if let Some(seed) = cfg.seed {
        generation["seed"] = json!(seed);
    }
    if let Some(effort) = cfg.reasoning_effort {
        generation["thinkingConfig"] = json!({"thinkingBudget": effort.budget_tokens()});
    }
    if let Some(s) = req
        .schema
        .as_ref()
        .filter(|_| structured::constrains(cfg, req))
    {
        generation["responseMimeType"] = json!("application/json");
        generation["responseSchema"] = gemini_schema(&s.schema);
    }
    json!({
        "contents": contents,
        "systemInstruction": {"parts": [{"text": req.system}]},
        "generationConfig": generation,
    })
}

/// The keys of Gemini's `Schema` (a subset of OpenAPI 3.0) that a JSON Schema may carry
/// over as they are. Gemini refuses any other field, so the rest (`additionalProperties`,
/// `$schema`, `exclusiveMinimum`, …) is left out; the prompt still states the whole schema.
const GEMINI_SCHEMA_KEYS: [&str; 18] = [
    "format",
    "title",
    "description",
    "nullable",
    "required",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "propertyOrdering",
    "default",
    "example",
    "enum",
];

/// A JSON Schema in Gemini's `Schema` form: type names in capitals (a `["string", "null"]`
/// type becomes `STRING` with `nullable`), `const` as a one-value `enum`, enums kept only
/// when they are strings (all Gemini takes), nested `properties`, `items` and `anyOf`
/// converted alike, and every key Gemini does not know left out.
fn gemini_schema(schema: &Value) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    let mut out = serde_json::Map::new();
    for (key, value) in map {
        match (key.as_str(), value) {
            ("type", Value::String(t)) => {
                out.insert(key.clone(), Value::String(t.to_uppercase()));
            }
            ("type", Value::Array(types)) => {
                let named: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
                if let Some(t) = named.iter().find(|t| **t != "null") {
                    out.insert(key.clone(), Value::String(t.to_uppercase()));
                }
                if named.contains(&"null") {
                    out.insert("nullable".into(), Value::Bool(true));
                }
            }
            ("properties", Value::Object(props)) => {
                // Gemini writes properties in alphabetical order unless told the schema's
                // own (a judge's reasoning comes before its answer).
                let order: Vec<Value> = props.keys().map(|p| Value::from(p.as_str())).collect();
                out.insert("propertyOrdering".into(), Value::Array(order));
                let props = props
                    .iter()
                    .map(|(p, s)| (p.clone(), gemini_schema(s)))
                    .collect();
                out.insert(key.clone(), Value::Object(props));
            }
            ("items", s) => {
                out.insert(key.clone(), gemini_schema(s));
            }
            ("anyOf", Value::Array(options)) => {
                out.insert(
                    key.clone(),
                    Value::Array(options.iter().map(gemini_schema).collect()),
                );
            }
            ("const", Value::String(c)) => {
                out.insert("enum".into(), json!([c]));
            }
            ("enum", Value::Array(values)) if !values.iter().all(Value::is_string) => {}
            (k, v) if GEMINI_SCHEMA_KEYS.contains(&k) => {
                out.insert(key.clone(), v.clone());
            }
            _ => {}
        }
    }
    if out.contains_key("enum") && !out.contains_key("type") {
        out.insert("type".into(), json!("STRING"));
    }
    Value::Object(out)
}

fn finish_reason(s: &str) -> FinishReason {
    match s {
        "STOP" => FinishReason::Stop,
        "MAX_TOKENS" => FinishReason::Length,
        "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" | "IMAGE_SAFETY" => {
            FinishReason::ContentFilter
        }
        other => FinishReason::Other(other.to_string()),
    }
}

/// What one response object (a whole body, or one SSE frame) carries.
struct Frame {
    text: String,
    finish: Option<Finish>,
    usage: Option<Usage>,
}

fn read_frame(value: &Value) -> Result<Frame, ProviderError> {
    if let Some(err) = value.get("error") {
        return Err(ProviderError::from_stream_frame(err));
    }
    if let Some(reason) = value
        .get("promptFeedback")
        .and_then(|f| f.get("blockReason"))
        .and_then(Value::as_str)
    {
        let detail = value
            .get("promptFeedback")
            .and_then(|f| f.get("blockReasonMessage"))
            .and_then(Value::as_str)
            .map(|m| format!(": {m}"))
            .unwrap_or_default();
        return Err(ProviderError::new(
            ErrorKind::Refused,
            format!("Gemini blocked the prompt ({reason}){detail}"),
            false,
        ));
    }
    let candidate = value.get("candidates").and_then(|c| c.get(0));
    let text = candidate
        .and_then(|c| c.get("content"))
        .and_then(|c| c.get("parts"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|p| !p.get("thought").and_then(Value::as_bool).unwrap_or(false))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect();
    let finish = candidate
        .and_then(|c| c.get("finishReason"))
        .and_then(Value::as_str)
        .map(|f| Finish::classify(f, finish_reason));
    // The cached tokens (implicit caching, or a cached content) are part of
    // `promptTokenCount` already.
    let usage = value.get("usageMetadata").map(|u| {
        let input_tokens = http::tokens(u.get("promptTokenCount"));
        Usage {
            input_tokens,
            output_tokens: http::tokens(u.get("candidatesTokenCount"))
                + http::tokens(u.get("thoughtsTokenCount")),
            cached_input_tokens: http::tokens(u.get("cachedContentTokenCount")).min(input_tokens),
            cache_write_tokens: 0,
        }
    });
    Ok(Frame {
        text,
        finish,
        usage,
    })
}

/// Reads a non-streamed response body.
pub(crate) fn parse_body(
    value: &Value,
    id: Option<String>,
    max_tokens: u32,
) -> Result<Completion, ProviderError> {
    let frame = read_frame(value)?;
    let finish = frame
        .finish
        .ok_or_else(|| ProviderError::malformed("no finishReason in the response"))?;
    let id = id.or_else(|| {
        value
            .get("responseId")
            .and_then(Value::as_str)
            .map(str::to_string)
    });
    http::finalize(frame.text, finish, frame.usage, id, max_tokens)
}

/// Streaming state: usage may come on several frames; the last one wins.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    text: String,
    finish: Option<Finish>,
    usage: Option<Usage>,
}

impl SseDecoder for Decoder {
    fn feed(&mut self, _event: &str, data: &str) -> Result<Option<String>, ProviderError> {
        let frame = read_frame(&http::parse_data(data)?)?;
        if frame.finish.is_some() {
            self.finish = frame.finish;
        }
        if frame.usage.is_some() {
            self.usage = frame.usage;
        }
        self.text.push_str(&frame.text);
        Ok(Some(frame.text))
    }

    fn ended(&self) -> bool {
        false
    }

    fn into_parts(self) -> (String, Option<Finish>, Option<Usage>) {
        (self.text, self.finish, self.usage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_join_text_skip_thoughts_and_take_last_usage() {
        let mut d = Decoder::default();
        d.feed("", r#"{"candidates":[{"content":{"parts":[{"text":"plan","thought":true},{"text":"Hello! "}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":2,"candidatesTokenCount":1}}"#).unwrap();
        d.feed("", r#"{"candidates":[{"content":{"parts":[{"text":"done"}],"role":"model"},"index":0,"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":2,"candidatesTokenCount":10,"thoughtsTokenCount":5}}"#).unwrap();
        let (text, finish, usage) = d.into_parts();
        assert_eq!(text, "Hello! done");
        assert_eq!(
            finish.map(|f| (f.reason, f.raw)),
            Some((FinishReason::Stop, "STOP".into()))
        );
        assert_eq!(usage, Some(Usage::new(2, 15)));
    }

    #[test]
    fn safety_blocks_are_final_refusals() {
        let mut d = Decoder::default();
        let e = d
            .feed(
                "",
                r#"{"promptFeedback":{"blockReason":"SAFETY","safetyRatings":[]}}"#,
            )
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::Refused);
        assert!(!e.retryable);
        let v: Value = serde_json::from_str(
            r#"{"candidates":[{"finishReason":"SAFETY","safetyRatings":[{"blocked":true}]}]}"#,
        )
        .unwrap();
        let e = parse_body(&v, None, 100).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Refused);
    }

    #[test]
    fn protocol_schemas_become_what_gemini_accepts() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "additionalProperties": false,
            "required": ["verdict", "score", "notes", "items", "kind"],
            "properties": {
                "verdict": {"type": "string", "enum": ["pro", "con", "tie"]},
                "score": {"type": "integer", "minimum": 1, "maximum": 10, "exclusiveMaximum": 11},
                "weight": {"type": "number", "minimum": 0.0, "maximum": 1.0},
                "notes": {"type": ["string", "null"], "description": "free text"},
                "level": {"type": "integer", "enum": [1, 2, 3]},
                "kind": {"const": "verdict"},
                "items": {"type": "array", "minItems": 1, "items": {
                    "type": "object", "additionalProperties": false,
                    "required": ["id"], "properties": {"id": {"type": "string"}}
                }}
            }
        });
        assert_eq!(
            gemini_schema(&schema),
            json!({
                "type": "OBJECT",
                "required": ["verdict", "score", "notes", "items", "kind"],
                "propertyOrdering": ["verdict", "score", "weight", "notes", "level", "kind", "items"],
                "properties": {
                    "verdict": {"type": "STRING", "enum": ["pro", "con", "tie"]},
                    "score": {"type": "INTEGER", "minimum": 1, "maximum": 10},
                    "weight": {"type": "NUMBER", "minimum": 0.0, "maximum": 1.0},
                    "notes": {"type": "STRING", "nullable": true, "description": "free text"},
                    "level": {"type": "INTEGER"},
                    "kind": {"type": "STRING", "enum": ["verdict"]},
                    "items": {"type": "ARRAY", "minItems": 1, "items": {
                        "type": "OBJECT", "required": ["id"], "propertyOrdering": ["id"],
                        "properties": {"id": {"type": "STRING"}}
                    }}
                }
            })
        );
    }

    #[test]
    fn body_parsing_and_thinking_budget() {
        let v: Value = serde_json::from_str(r#"{"candidates":[{"content":{"parts":[{"text":"a"},{"text":"b"}]},"finishReason":"MAX_TOKENS"}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":2},"responseId":"r1"}"#).unwrap();
        let c = parse_body(&v, None, 100).unwrap();
        assert_eq!(c.text, "ab");
        assert_eq!(c.finish_reason, FinishReason::Length);
        assert_eq!(c.provider_finish_reason, "MAX_TOKENS");
        assert_eq!(c.request_id.as_deref(), Some("r1"));
        let v: Value = serde_json::from_str(r#"{"candidates":[{"content":{"parts":[{"text":"a"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":4000,"cachedContentTokenCount":3000,"candidatesTokenCount":2}}"#).unwrap();
        assert_eq!(
            parse_body(&v, None, 100).unwrap().usage,
            Some(Usage {
                input_tokens: 4000,
                output_tokens: 2,
                cached_input_tokens: 3000,
                cache_write_tokens: 0,
            }),
            "the cached tokens are part of the prompt's count"
        );
    }
}
