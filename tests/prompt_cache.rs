//! Provider prompt caching on the wire, against in-process servers: each format's cache
//! counts read into one `Usage` (streamed and whole), the cost at the cache prices and what
//! caching saved, and Anthropic's `cache_control` marks (and their absence with
//! `prompt_cache = false`, and on the formats that cache by themselves).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use ethics_bowl::providers::{ChatRequest, Role, Turn, Usage};
use serde_json::{Value, json};
use support::{call_with, models, sse};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

#[derive(Clone, Copy, Debug)]
enum Format {
    OpenAi,
    Anthropic,
    Gemini,
}

const ALL: [Format; 3] = [Format::OpenAi, Format::Anthropic, Format::Gemini];

/// One price for every format: $2 a million input tokens, $10 output; the cache prices are
/// each provider's default share of the input price.
const PRICE: &str = "price = { input_per_mtok = 2.0, output_per_mtok = 10.0 }";

/// Every call's usage: a prompt of 3,000 tokens in all, 2,000 of them read from the cache
/// (and, on Anthropic, 500 written to it), 40 answer tokens.
const PROMPT: u64 = 3_000;
const READ: u64 = 2_000;
const WRITTEN: u64 = 500;
const OUTPUT: u64 = 40;

impl Format {
    fn provider(self) -> &'static str {
        match self {
            Format::OpenAi => "openai",
            Format::Anthropic => "anthropic",
            Format::Gemini => "google",
        }
    }

    fn base(self, server: &MockServer) -> String {
        match self {
            Format::Gemini => format!("{}/v1beta", server.uri()),
            _ => format!("{}/v1", server.uri()),
        }
    }

    fn route(self, streamed: bool) -> &'static str {
        match (self, streamed) {
            (Format::OpenAi, _) => "/v1/chat/completions",
            (Format::Anthropic, _) => "/v1/messages",
            (Format::Gemini, true) => "/v1beta/models/test-model:streamGenerateContent",
            (Format::Gemini, false) => "/v1beta/models/test-model:generateContent",
        }
    }

    /// The usage as the provider reports it: OpenAI and Gemini count the cached tokens
    /// inside the prompt's count; Anthropic's `input_tokens` leaves out its cache reads and
    /// writes.
    fn written(self) -> u64 {
        match self {
            Format::Anthropic => WRITTEN,
            _ => 0,
        }
    }

    fn usage_json(self) -> Value {
        match self {
            Format::OpenAi => json!({
                "prompt_tokens": PROMPT, "completion_tokens": OUTPUT,
                "total_tokens": PROMPT + OUTPUT,
                "prompt_tokens_details": {"cached_tokens": READ, "audio_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": 0}
            }),
            Format::Anthropic => json!({
                "input_tokens": PROMPT - READ - WRITTEN, "output_tokens": OUTPUT,
                "cache_read_input_tokens": READ, "cache_creation_input_tokens": WRITTEN
            }),
            Format::Gemini => json!({
                "promptTokenCount": PROMPT, "candidatesTokenCount": OUTPUT,
                "cachedContentTokenCount": READ, "totalTokenCount": PROMPT + OUTPUT
            }),
        }
    }

    /// A whole answer "cached" with the usage.
    fn body(self) -> Value {
        match self {
            Format::OpenAi => json!({
                "id": "c", "choices": [{"index": 0, "message": {"role": "assistant", "content": "cached"}, "finish_reason": "stop"}],
                "usage": self.usage_json()
            }),
            Format::Anthropic => json!({
                "id": "msg", "type": "message", "content": [{"type": "text", "text": "cached"}],
                "stop_reason": "end_turn", "usage": self.usage_json()
            }),
            Format::Gemini => json!({
                "candidates": [{"content": {"parts": [{"text": "cached"}]}, "finishReason": "STOP"}],
                "usageMetadata": self.usage_json()
            }),
        }
    }

    /// A streamed answer "cached", the usage where each format streams it: OpenAI's last
    /// chunk (`include_usage`); Anthropic's `message_start` (its cache counts and the
    /// uncached input) and `message_delta` (the output, cumulative); Gemini's frames, the
    /// last one whole.
    fn stream(self) -> String {
        let usage = self.usage_json().to_string();
        match self {
            Format::OpenAi => sse(&[
                (
                    "",
                    r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"cach"},"finish_reason":null}],"usage":null}"#,
                ),
                (
                    "",
                    r#"{"choices":[{"index":0,"delta":{"content":"ed"},"finish_reason":"stop"}],"usage":null}"#,
                ),
                ("", &format!(r#"{{"choices":[],"usage":{usage}}}"#)),
                ("", "[DONE]"),
            ]),
            Format::Anthropic => sse(&[
                (
                    "message_start",
                    &format!(
                        r#"{{"type":"message_start","message":{{"id":"m","content":[],"usage":{{"input_tokens":{},"cache_read_input_tokens":{READ},"cache_creation_input_tokens":{WRITTEN},"output_tokens":1}}}}}}"#,
                        PROMPT - READ - WRITTEN
                    ),
                ),
                (
                    "content_block_delta",
                    r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"cached"}}"#,
                ),
                (
                    "message_delta",
                    &format!(
                        r#"{{"type":"message_delta","delta":{{"stop_reason":"end_turn"}},"usage":{{"output_tokens":{OUTPUT}}}}}"#
                    ),
                ),
                ("message_stop", r#"{"type":"message_stop"}"#),
            ]),
            Format::Gemini => sse(&[
                (
                    "",
                    r#"{"candidates":[{"content":{"parts":[{"text":"cach"}],"role":"model"}}],"usageMetadata":{"promptTokenCount":3000,"candidatesTokenCount":1}}"#,
                ),
                (
                    "",
                    &format!(
                        r#"{{"candidates":[{{"content":{{"parts":[{{"text":"ed"}}],"role":"model"}},"finishReason":"STOP"}}],"usageMetadata":{usage}}}"#
                    ),
                ),
            ]),
        }
    }

    /// The provider's default cache prices for $2 input: read, write.
    fn cache_prices(self) -> (f64, f64) {
        match self {
            Format::OpenAi => (1.0, 2.0),
            Format::Anthropic => (0.2, 2.5),
            Format::Gemini => (0.5, 2.0),
        }
    }
}

async fn server(f: Format, streamed: bool) -> MockServer {
    let server = MockServer::start().await;
    let response = if streamed {
        ResponseTemplate::new(200)
            .insert_header("content-type", "text/event-stream")
            .set_body_string(f.stream())
    } else {
        ResponseTemplate::new(200).set_body_json(f.body())
    };
    Mock::given(method("POST"))
        .and(path(f.route(streamed)))
        .respond_with(response)
        .mount(&server)
        .await;
    server
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[tokio::test]
async fn each_formats_cache_counts_are_read_into_one_shape_streamed_and_whole() {
    for f in ALL {
        for streamed in [true, false] {
            let server = server(f, streamed).await;
            let extra = if streamed {
                PRICE.to_string()
            } else {
                format!("stream = false\n{PRICE}")
            };
            let config = models(f.provider(), &f.base(&server), &extra);
            let r = call_with(&config, ChatRequest::new("You are terse.", "hello")).await;
            let outcome = r
                .result
                .unwrap_or_else(|e| panic!("{f:?} streamed {streamed}: {e}"));
            assert_eq!(outcome.completion.text, "cached");
            // Anthropic's input_tokens (500) plus its cache reads and writes: the whole
            // prompt, as the others report it; never counted twice.
            assert_eq!(
                outcome.completion.usage,
                Some(Usage {
                    input_tokens: PROMPT,
                    output_tokens: OUTPUT,
                    cached_input_tokens: READ,
                    cache_write_tokens: f.written(),
                }),
                "{f:?} streamed {streamed}"
            );
            let (read_price, write_price) = f.cache_prices();
            let uncached = PROMPT - READ - f.written();
            let expected = (uncached as f64 * 2.0
                + READ as f64 * read_price
                + f.written() as f64 * write_price
                + OUTPUT as f64 * 10.0)
                / 1e6;
            let full = (PROMPT as f64 * 2.0 + OUTPUT as f64 * 10.0) / 1e6;
            let cost = outcome.cost_usd.unwrap();
            assert!(close(cost, expected), "{f:?}: {cost} != {expected}");
            let saved = outcome.cache_saved_usd.unwrap();
            assert!(close(saved, full - expected), "{f:?}: saved {saved}");
            assert!(
                saved > 0.0,
                "{f:?}: 2,000 cached tokens save more than 500 written cost"
            );
        }
    }
}

#[tokio::test]
async fn set_cache_prices_replace_the_providers_ratio() {
    let f = Format::Anthropic;
    let server = server(f, true).await;
    let config = models(
        f.provider(),
        &f.base(&server),
        "price = { input_per_mtok = 2.0, output_per_mtok = 10.0, cached_input_per_mtok = 1.0, cache_write_per_mtok = 4.0 }",
    );
    let r = call_with(&config, ChatRequest::new("s", "hello")).await;
    let outcome = r.result.unwrap();
    let expected = (500.0 * 2.0 + 2_000.0 * 1.0 + 500.0 * 4.0 + 40.0 * 10.0) / 1e6;
    assert!(close(outcome.cost_usd.unwrap(), expected));
    assert!(close(
        outcome.cache_saved_usd.unwrap(),
        (3_000.0 * 2.0 + 400.0) / 1e6 - expected
    ));
}

/// A request with an earlier exchange and a last turn whose first part is stable.
fn layered_request() -> ChatRequest {
    let stable = "## The case\nThe same dilemma in every round.\n\n";
    let mut req = ChatRequest::new("The system prompt.", format!("{stable}This round's text."));
    req.turns.splice(
        0..0,
        [
            Turn {
                role: Role::User,
                text: "Your side and the rules.".into(),
            },
            Turn {
                role: Role::Assistant,
                text: "Understood.".into(),
            },
        ],
    );
    req.with_stable_prefix(stable.len())
}

async fn sent(f: Format, extra: &str, req: ChatRequest) -> Value {
    let server = server(f, true).await;
    let config = models(f.provider(), &f.base(&server), extra);
    let r = call_with(&config, req).await;
    r.result.unwrap_or_else(|e| panic!("{f:?}: {e}"));
    let requests = server.received_requests().await.unwrap_or_default();
    serde_json::from_slice(&requests[0].body).unwrap()
}

#[tokio::test]
async fn anthropic_marks_the_system_prompt_the_earlier_turns_and_the_stable_prefix() {
    let body = sent(Format::Anthropic, "", layered_request()).await;
    let mark = json!({"type": "ephemeral"});
    assert_eq!(
        body["system"],
        json!([{"type": "text", "text": "The system prompt.", "cache_control": mark}])
    );
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages[0]["content"], json!("Your side and the rules."));
    assert_eq!(
        messages[1]["content"],
        json!([{"type": "text", "text": "Understood.", "cache_control": mark}]),
        "the end of the earlier exchange is a breakpoint"
    );
    assert_eq!(
        messages[2]["content"],
        json!([
            {"type": "text", "text": "## The case\nThe same dilemma in every round.\n\n", "cache_control": mark},
            {"type": "text", "text": "This round's text."}
        ]),
        "the stable part marked, the round's own text after it"
    );
    let marks = body.to_string().matches("cache_control").count();
    assert!(marks <= 4, "Anthropic allows four breakpoints: {marks}");
}

#[tokio::test]
async fn prompt_cache_false_sends_anthropic_requests_unmarked() {
    let body = sent(Format::Anthropic, "prompt_cache = false", layered_request()).await;
    assert!(!body.to_string().contains("cache_control"), "{body}");
    assert_eq!(body["system"], json!("The system prompt."));
    assert_eq!(
        body["messages"][2]["content"],
        json!("## The case\nThe same dilemma in every round.\n\nThis round's text.")
    );
}

#[tokio::test]
async fn openai_and_gemini_get_the_prompt_whole_and_unmarked() {
    // They cache repeated prefixes by themselves: the prompt goes as one text, its stable
    // part first.
    let body = sent(Format::OpenAi, "", layered_request()).await;
    assert!(!body.to_string().contains("cache_control"));
    assert_eq!(
        body["messages"][3]["content"],
        json!("## The case\nThe same dilemma in every round.\n\nThis round's text.")
    );
    let body = sent(Format::Gemini, "", layered_request()).await;
    assert!(!body.to_string().contains("cache_control"));
    assert_eq!(
        body["contents"][2]["parts"],
        json!([{"text": "## The case\nThe same dilemma in every round.\n\nThis round's text."}])
    );
}

#[tokio::test]
async fn a_correction_turn_leaves_the_first_answer_unmarked() {
    // The judge's prompt (its case stable), the judge's first answer, the correction: the
    // mark stays at the prompt's stable part; the first answer is no one else's prefix.
    let mut req = ChatRequest::new("s", "The case. The round.").with_stable_prefix(9);
    req.turns.extend([
        Turn {
            role: Role::Assistant,
            text: "Not JSON.".into(),
        },
        Turn {
            role: Role::User,
            text: "Answer again in JSON.".into(),
        },
    ]);
    let body = sent(Format::Anthropic, "", req).await;
    let mark = json!({"type": "ephemeral"});
    assert_eq!(
        body["messages"][0]["content"],
        json!([{"type": "text", "text": "The case.", "cache_control": mark}, {"type": "text", "text": " The round."}])
    );
    assert_eq!(body["messages"][1]["content"], json!("Not JSON."));
    assert_eq!(
        body["messages"][2]["content"],
        json!("Answer again in JSON.")
    );
}

#[tokio::test]
async fn a_wholly_stable_turn_is_one_marked_block() {
    let req = ChatRequest::new("s", "The same in every round.").with_stable_prefix(24);
    let body = sent(Format::Anthropic, "", req).await;
    assert_eq!(
        body["messages"][0]["content"],
        json!([{"type": "text", "text": "The same in every round.", "cache_control": {"type": "ephemeral"}}])
    );
}

#[tokio::test]
async fn a_prefix_mark_off_a_character_boundary_or_past_the_turn_is_ignored() {
    for bytes in [1, 10_000] {
        let req = ChatRequest::new("s", "é and more").with_stable_prefix(bytes);
        let body = sent(Format::Anthropic, "", req).await;
        assert_eq!(
            body["messages"][0]["content"],
            json!("é and more"),
            "{bytes}"
        );
    }
}
