//! Structured output on the wire: the Chat Completions `response_format` for each dialect a
//! model may be configured with, and the one clear error for a server that refuses it.

use serde_json::{Value, json};

use super::ProviderError;
use super::types::{ChatRequest, ResponseSchema};
use crate::config::{ModelConfig, ProviderKind, StructuredOutput};
use crate::domain::ErrorKind;

/// Whether the provider is made to answer `req` in its schema (the schema sent and
/// enforced: OpenAI-style `json_schema` or `json_object` with a schema, Anthropic's forced
/// tool, Gemini's `responseSchema`), so that the whole answer is the JSON asked for. JSON
/// mode, which takes any object, does not count; nor does the simulated provider.
pub(crate) fn constrains(cfg: &ModelConfig, req: &ChatRequest) -> bool {
    req.schema.is_some()
        && cfg.uses_structured_output()
        && match cfg.provider {
            ProviderKind::Simulated => false,
            // Extended thinking does not allow a forced tool.
            ProviderKind::Anthropic => cfg.reasoning_effort.is_none(),
            ProviderKind::Openai
            | ProviderKind::Google
            | ProviderKind::Xai
            | ProviderKind::Qwen
            | ProviderKind::OpenaiCompatible => true,
        }
}

/// The `response_format` a Chat Completions request carries for `flavour`, if any.
pub(crate) fn response_format(flavour: StructuredOutput, schema: &ResponseSchema) -> Option<Value> {
    match flavour {
        StructuredOutput::Off => None,
        StructuredOutput::Native | StructuredOutput::JsonSchema => Some(json!({
            "type": "json_schema",
            "json_schema": {"name": schema.name, "strict": true, "schema": schema.schema},
        })),
        StructuredOutput::JsonObjectSchema => {
            Some(json!({"type": "json_object", "schema": ranges_as_enums(schema.schema.clone())}))
        }
        StructuredOutput::JsonObject => Some(json!({"type": "json_object"})),
    }
}

/// The most values an integer range may have to be sent as an enum.
const MAX_ENUM_RANGE: i64 = 101;

/// The schema with every bounded integer (`minimum`..=`maximum`, at most
/// [`MAX_ENUM_RANGE`] values) written as an enum of its values: llama-cpp-python's grammar
/// (the `json_object_schema` flavour) ignores `minimum` and `maximum`, so a small model
/// writes scores of 35 or 7089 in a 1–10 rubric, while it honours enums. Providers that honour
/// bounds get the schema unchanged (Gemini also refuses enums of numbers).
fn ranges_as_enums(mut schema: Value) -> Value {
    rewrite_ranges(&mut schema);
    schema
}

fn rewrite_ranges(value: &mut Value) {
    match value {
        Value::Object(map) => {
            let bounds = (
                map.get("type").and_then(Value::as_str),
                map.get("minimum").and_then(Value::as_i64),
                map.get("maximum").and_then(Value::as_i64),
            );
            if let (Some("integer"), Some(low), Some(high)) = bounds
                && low <= high
                && high - low < MAX_ENUM_RANGE
                && !map.contains_key("enum")
            {
                map.remove("minimum");
                map.remove("maximum");
                map.insert("enum".into(), (low..=high).collect::<Vec<i64>>().into());
            }
            map.values_mut().for_each(rewrite_ranges);
        }
        Value::Array(items) => items.iter_mut().for_each(rewrite_ranges),
        _ => {}
    }
}

/// Words in a server's refusal that point at the structured-output part of the request.
const SCHEMA_WORDS: [&str; 5] = [
    "response_format",
    "json_schema",
    "schema",
    "grammar",
    "tool",
];

/// Whether `error` is a server refusing the structured-output part of a request: a 400 or
/// 422 whose message mentions it, or a 500 naming `response_format` or `json_schema` (what
/// llama-cpp-python's server answers to a `response_format` type it does not know).
fn is_rejection(error: &ProviderError) -> bool {
    if error.kind != ErrorKind::Http {
        return false;
    }
    let message = error.message.to_lowercase();
    match error.status {
        Some(400 | 422) => SCHEMA_WORDS.iter().any(|w| message.contains(w)),
        Some(500) => message.contains("response_format") || message.contains("json_schema"),
        _ => false,
    }
}

/// What was sent, and what to try instead, for `cfg`'s flavour.
fn sent_and_advice(cfg: &ModelConfig) -> (&'static str, &'static str) {
    let only_prompt = "set structured_output = false (the schema then goes in the prompt only)";
    match (cfg.provider, cfg.structured_output_flavour()) {
        (ProviderKind::Anthropic, _) => ("a forced tool call", only_prompt),
        (ProviderKind::Google, _) => ("responseSchema", only_prompt),
        (_, StructuredOutput::Native | StructuredOutput::JsonSchema) => (
            "response_format json_schema",
            "this server may take structured_output = \"json_object_schema\" \
             (llama-cpp-python) or \"json_object\", or set structured_output = false",
        ),
        (_, StructuredOutput::JsonObjectSchema) => (
            "response_format json_object with a schema",
            "this server may take structured_output = \"json_schema\" (vLLM, Ollama, \
             llama.cpp's llama-server, LM Studio) or \"json_object\", or set \
             structured_output = false",
        ),
        (_, StructuredOutput::JsonObject | StructuredOutput::Off) => {
            ("response_format json_object (JSON mode)", only_prompt)
        }
    }
}

/// Turns a server's refusal of the structured-output request into one final error that
/// names the dialect in use and the one to try, keeping the server's own message; any other
/// error passes unchanged. Call only for requests that carried structured output.
pub(crate) fn explain_rejection(error: ProviderError, cfg: &ModelConfig) -> ProviderError {
    if !is_rejection(&error) {
        return error;
    }
    let (sent, advice) = sent_and_advice(cfg);
    ProviderError {
        kind: ErrorKind::SchemaRejected,
        message: format!(
            "the server rejected structured output sent as {sent} (structured_output = {}); \
             {advice}. The server said: {}",
            cfg.structured_output_flavour().as_config(),
            error.message
        ),
        retryable: false,
        retry_after: None,
        quota_reset: None,
        ..error
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ModelsConfig;
    use reqwest::header::HeaderMap;
    use std::path::Path;

    fn config(provider: &str, extra: &str) -> ModelConfig {
        let text = format!(
            "[[models]]\nname = \"m\"\nprovider = \"{provider}\"\nmodel = \"x\"\nbase_url = \"http://x/v1\"\n{extra}\n"
        );
        ModelsConfig::parse(&text, Path::new("t.toml"))
            .unwrap()
            .models
            .remove(0)
    }

    fn schema() -> ResponseSchema {
        ResponseSchema {
            name: "reply".into(),
            schema: json!({"type": "object"}),
        }
    }

    #[test]
    fn llama_cpp_python_gets_bounded_integers_as_enums_and_others_get_the_bounds() {
        let s = ResponseSchema {
            name: "j".into(),
            schema: json!({"type": "object", "properties": {
                "score": {"type": "integer", "minimum": 1, "maximum": 10},
                "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                "items": {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 2}},
                "huge": {"type": "integer", "minimum": 0, "maximum": 100000},
            }}),
        };
        let sent = response_format(StructuredOutput::JsonObjectSchema, &s).unwrap();
        let props = &sent["schema"]["properties"];
        assert_eq!(
            props["score"],
            json!({"type": "integer", "enum": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]})
        );
        assert_eq!(props["items"]["items"]["enum"], json!([0, 1, 2]));
        assert_eq!(
            props["confidence"]["maximum"], 1,
            "numbers keep their bounds"
        );
        assert_eq!(
            props["huge"]["maximum"], 100000,
            "wide ranges keep their bounds"
        );
        let strict = response_format(StructuredOutput::JsonSchema, &s).unwrap();
        assert_eq!(
            strict["json_schema"]["schema"], s.schema,
            "unchanged elsewhere"
        );
    }

    #[test]
    fn an_answer_counts_as_constrained_only_when_its_schema_was_sent_and_enforced() {
        let ask = ChatRequest::new("s", "u");
        let with_schema = ChatRequest {
            schema: Some(schema()),
            ..ask.clone()
        };
        for (provider, extra, expected) in [
            (
                "openai-compatible",
                "structured_output = \"json_schema\"",
                true,
            ),
            (
                "openai-compatible",
                "structured_output = \"json_object_schema\"",
                true,
            ),
            (
                "openai-compatible",
                "structured_output = \"json_object\"",
                false,
            ),
            ("openai-compatible", "", false),
            ("openai", "", true),
            ("google", "", true),
            ("anthropic", "", true),
            (
                "anthropic",
                "reasoning_effort = \"low\"\nmax_tokens = 40000",
                false,
            ),
            ("anthropic", "structured_output = false", false),
        ] {
            let cfg = config(provider, extra);
            assert_eq!(
                constrains(&cfg, &with_schema),
                expected,
                "{provider} {extra}"
            );
            assert!(!constrains(&cfg, &ask), "no schema, nothing enforced");
        }
    }

    #[test]
    fn each_dialect_has_its_response_format() {
        let s = schema();
        assert_eq!(response_format(StructuredOutput::Off, &s), None);
        let strict = json!({"type": "json_schema", "json_schema": {"name": "reply", "strict": true, "schema": {"type": "object"}}});
        assert_eq!(
            response_format(StructuredOutput::Native, &s),
            Some(strict.clone())
        );
        assert_eq!(
            response_format(StructuredOutput::JsonSchema, &s),
            Some(strict)
        );
        assert_eq!(
            response_format(StructuredOutput::JsonObjectSchema, &s),
            Some(json!({"type": "json_object", "schema": {"type": "object"}}))
        );
        assert_eq!(
            response_format(StructuredOutput::JsonObject, &s),
            Some(json!({"type": "json_object"}))
        );
    }

    #[test]
    fn a_refusal_names_the_dialect_and_the_one_to_try() {
        let body = r#"{"error":{"message":"Invalid 'response_format': json_schema is not supported","type":"invalid_request_error"}}"#;
        let e = ProviderError::from_http(400, &HeaderMap::new(), body);
        let cfg = config("openai-compatible", "structured_output = true");
        let e = explain_rejection(e, &cfg);
        assert_eq!(e.kind, ErrorKind::SchemaRejected);
        assert!(!e.retryable);
        assert_eq!(e.status, Some(400));
        assert!(
            e.message
                .contains("sent as response_format json_schema (structured_output = true)"),
            "{}",
            e.message
        );
        assert!(
            e.message
                .contains("\"json_object_schema\" (llama-cpp-python)")
        );
        assert!(
            e.message.ends_with("json_schema is not supported"),
            "{}",
            e.message
        );
        let cfg = config(
            "openai-compatible",
            "structured_output = \"json_object_schema\"",
        );
        let e = ProviderError::from_http(422, &HeaderMap::new(), "grammar failed to parse");
        let e = explain_rejection(e, &cfg);
        assert!(
            e.message
                .contains("may take structured_output = \"json_schema\" (vLLM")
        );
        // Older llama.cpp servers (and forks) answer json_schema with a 500 of their own.
        let old = r#"{"error":{"code":500,"message":"response_format type must be one of \"text\" or \"json_object\", but got: json_schema","type":"server_error"}}"#;
        let e = ProviderError::from_http(500, &HeaderMap::new(), old);
        let e = explain_rejection(e, &config("openai-compatible", "structured_output = true"));
        assert_eq!(e.kind, ErrorKind::SchemaRejected);
        assert!(!e.retryable);
        let e = ProviderError::from_http(400, &HeaderMap::new(), "bad tool schema");
        let e = explain_rejection(e, &config("anthropic", ""));
        assert!(e.message.contains("forced tool call"), "{}", e.message);
        assert!(e.message.contains("set structured_output = false"));
    }

    #[test]
    fn other_errors_pass_unchanged() {
        let cfg = config("openai-compatible", "structured_output = true");
        for (status, body) in [
            (400, "maximum context length is 1024 tokens"),
            (500, "internal error"),
            (429, "response_format rate"),
            (401, "bad schema key"),
        ] {
            let e = ProviderError::from_http(status, &HeaderMap::new(), body);
            assert_eq!(explain_rejection(e.clone(), &cfg), e, "{status} {body}");
        }
    }
}
