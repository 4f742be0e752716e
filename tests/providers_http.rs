//! Every wire format against an in-process HTTP server: streamed success with usage, the
//! retry paths, final errors, error frames inside 200 streams, truncation, malformed data,
//! read timeouts, Gemini's body-only retry delay, and keys never leaking.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use ethics_bowl::domain::ErrorKind;
use ethics_bowl::providers::{FinishReason, Usage};
use serde_json::Value;
use support::{EchoHeaders, FAKE_KEY, call, call_with, models, sse, stalling_server};
use wiremock::matchers::{body_partial_json, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

#[derive(Clone, Copy, Debug)]
enum Format {
    OpenAi,
    Anthropic,
    Gemini,
}

const ALL: [Format; 3] = [Format::OpenAi, Format::Anthropic, Format::Gemini];

impl Format {
    fn provider(self) -> &'static str {
        match self {
            Format::OpenAi => "openai",
            Format::Anthropic => "anthropic",
            Format::Gemini => "google",
        }
    }
    fn prefix(self) -> &'static str {
        match self {
            Format::Gemini => "/v1beta",
            _ => "/v1",
        }
    }
    fn stream_path(self) -> &'static str {
        match self {
            Format::OpenAi => "/v1/chat/completions",
            Format::Anthropic => "/v1/messages",
            Format::Gemini => "/v1beta/models/test-model:streamGenerateContent",
        }
    }
    fn config(self, server: &MockServer, extra: &str) -> ethics_bowl::config::ModelsConfig {
        models(
            self.provider(),
            &format!("{}{}", server.uri(), self.prefix()),
            extra,
        )
    }
    /// A complete streamed answer "Hello world" with usage 11 in / 7 out.
    fn success(self) -> String {
        match self {
            Format::OpenAi => sse(&[
                (
                    "",
                    r#"{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null}"#,
                ),
                (
                    "",
                    r#"{"id":"c1","choices":[{"index":0,"delta":{"content":"Hello "},"finish_reason":null}],"usage":null}"#,
                ),
                (
                    "",
                    r#"{"id":"c1","choices":[{"index":0,"delta":{"content":"world"},"finish_reason":null}],"usage":null}"#,
                ),
                (
                    "",
                    r#"{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}"#,
                ),
                (
                    "",
                    r#"{"id":"c1","choices":[],"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}"#,
                ),
                ("", "[DONE]"),
            ]),
            Format::Anthropic => sse(&[
                (
                    "message_start",
                    r#"{"type":"message_start","message":{"id":"msg_1","content":[],"usage":{"input_tokens":11,"output_tokens":1}}}"#,
                ),
                (
                    "content_block_start",
                    r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
                ),
                ("ping", r#"{"type":"ping"}"#),
                (
                    "content_block_delta",
                    r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello "}}"#,
                ),
                (
                    "content_block_delta",
                    r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"world"}}"#,
                ),
                (
                    "content_block_stop",
                    r#"{"type":"content_block_stop","index":0}"#,
                ),
                (
                    "message_delta",
                    r#"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":7}}"#,
                ),
                ("message_stop", r#"{"type":"message_stop"}"#),
            ]),
            Format::Gemini => sse(&[
                (
                    "",
                    r#"{"candidates":[{"content":{"parts":[{"text":"Hello "}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":11,"candidatesTokenCount":2}}"#,
                ),
                (
                    "",
                    r#"{"candidates":[{"content":{"parts":[{"text":"world"}],"role":"model"},"index":0,"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":11,"candidatesTokenCount":7,"totalTokenCount":18}}"#,
                ),
            ]),
        }
    }
    /// A stream cut after some text, before any finish signal.
    fn cut(self) -> String {
        let full = self.success();
        let marker = match self {
            Format::OpenAi => r#""finish_reason":"stop""#,
            Format::Anthropic => "event: message_delta",
            Format::Gemini => r#""finishReason""#,
        };
        let at = full.find(marker).expect("marker");
        let frame_start = full[..at].rfind("\n\n").map_or(0, |i| i + 2);
        full[..frame_start].to_string()
    }
    /// An error body in the format's envelope.
    fn error_body(self, status: u16, kind: &str) -> Value {
        match self {
            Format::OpenAi => {
                serde_json::json!({"error": {"message": format!("mock {kind}"), "type": kind, "code": kind}})
            }
            Format::Anthropic => {
                serde_json::json!({"type": "error", "error": {"type": kind, "message": format!("mock {kind}")}, "request_id": "req_mock"})
            }
            Format::Gemini => {
                serde_json::json!({"error": {"code": status, "message": format!("mock {kind}"), "status": kind}})
            }
        }
    }
}

fn sse_response(body: String) -> ResponseTemplate {
    ResponseTemplate::new(200)
        .insert_header("content-type", "text/event-stream")
        .set_body_string(body)
}

async fn mount_success(server: &MockServer, f: Format) {
    Mock::given(method("POST"))
        .and(path(f.stream_path()))
        .respond_with(sse_response(f.success()))
        .mount(server)
        .await;
}

async fn mount_once(server: &MockServer, f: Format, response: ResponseTemplate) {
    Mock::given(method("POST"))
        .and(path(f.stream_path()))
        .respond_with(response)
        .up_to_n_times(1)
        .with_priority(1)
        .mount(server)
        .await;
}

#[tokio::test]
async fn streamed_success_with_usage_and_the_right_request() {
    for f in ALL {
        let server = MockServer::start().await;
        let auth = match f {
            Format::OpenAi => header("authorization", format!("Bearer {FAKE_KEY}").as_str()),
            Format::Anthropic => header("x-api-key", FAKE_KEY),
            Format::Gemini => header("x-goog-api-key", FAKE_KEY),
        };
        let body = match f {
            Format::OpenAi => {
                serde_json::json!({"model": "test-model", "stream": true, "stream_options": {"include_usage": true}, "max_completion_tokens": 100})
            }
            Format::Anthropic => {
                serde_json::json!({"model": "test-model", "stream": true, "max_tokens": 100, "system": [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}]})
            }
            Format::Gemini => {
                serde_json::json!({"generationConfig": {"maxOutputTokens": 100}, "systemInstruction": {"parts": [{"text": "You are terse."}]}})
            }
        };
        let mut mock = Mock::given(method("POST"))
            .and(path(f.stream_path()))
            .and(auth)
            .and(body_partial_json(body));
        if let Format::Anthropic = f {
            mock = mock.and(header("anthropic-version", "2023-06-01"));
        }
        mock.respond_with(sse_response(f.success()).insert_header("request-id", "req_42"))
            .expect(1)
            .mount(&server)
            .await;
        let r = call(&f.config(&server, ""), "hello").await;
        let outcome = r.result.unwrap_or_else(|e| panic!("{f:?}: {e}"));
        assert_eq!(outcome.completion.text, "Hello world", "{f:?}");
        assert_eq!(r.streamed, "Hello world", "{f:?}");
        assert_eq!(outcome.completion.finish_reason, FinishReason::Stop);
        assert_eq!(outcome.completion.usage, Some(Usage::new(11, 7)), "{f:?}");
        assert_eq!(outcome.completion.request_id.as_deref(), Some("req_42"));
        assert_eq!(outcome.attempts.len(), 1);
        if let Format::Gemini = f {
            let requests = server.received_requests().await.unwrap_or_default();
            assert_eq!(requests[0].url.query(), Some("alt=sse"));
        }
    }
}

#[tokio::test]
async fn non_streamed_success() {
    for f in ALL {
        let server = MockServer::start().await;
        let (route, body) = match f {
            Format::OpenAi => (
                "/v1/chat/completions",
                serde_json::json!({"id":"c","choices":[{"index":0,"message":{"role":"assistant","content":"Plain answer"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2}}),
            ),
            Format::Anthropic => (
                "/v1/messages",
                serde_json::json!({"id":"msg","type":"message","content":[{"type":"text","text":"Plain answer"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":2}}),
            ),
            Format::Gemini => (
                "/v1beta/models/test-model:generateContent",
                serde_json::json!({"candidates":[{"content":{"parts":[{"text":"Plain answer"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2}}),
            ),
        };
        Mock::given(method("POST"))
            .and(path(route))
            .respond_with(ResponseTemplate::new(200).set_body_json(body))
            .expect(1)
            .mount(&server)
            .await;
        let r = call(&f.config(&server, "stream = false"), "hello").await;
        let outcome = r.result.unwrap_or_else(|e| panic!("{f:?}: {e}"));
        assert_eq!(outcome.completion.text, "Plain answer");
        assert_eq!(r.streamed, "Plain answer");
        assert_eq!(outcome.completion.usage, Some(Usage::new(3, 2)));
    }
}

#[tokio::test]
async fn rate_limit_with_retry_after_then_success() {
    for f in ALL {
        let server = MockServer::start().await;
        mount_success(&server, f).await;
        mount_once(
            &server,
            f,
            ResponseTemplate::new(429)
                .insert_header("retry-after-ms", "40")
                .insert_header("retry-after", "1")
                .set_body_json(f.error_body(429, "rate_limit_error")),
        )
        .await;
        let r = call(&f.config(&server, ""), "hello").await;
        let outcome = r.result.unwrap_or_else(|e| panic!("{f:?}: {e}"));
        assert_eq!(outcome.attempts.len(), 2, "{f:?}");
        assert_eq!(
            outcome.attempts[0].wait_ms,
            Some(40),
            "{f:?}: retry-after-ms wins over retry-after"
        );
        assert!(outcome.latency.as_millis() >= 40);
        assert!(r.events[0].contains("HTTP 429"), "{:?}", r.events);
        assert_eq!(
            server.received_requests().await.unwrap_or_default().len(),
            2
        );
    }
}

#[tokio::test]
async fn server_errors_are_retried() {
    for f in ALL {
        for status in [500u16, 502, 503, 504, 529, 408] {
            let server = MockServer::start().await;
            mount_success(&server, f).await;
            mount_once(
                &server,
                f,
                ResponseTemplate::new(status)
                    .set_body_json(f.error_body(status, "overloaded_error")),
            )
            .await;
            let r = call(&f.config(&server, ""), "hello").await;
            let outcome = r.result.unwrap_or_else(|e| panic!("{f:?} {status}: {e}"));
            assert_eq!(outcome.attempts.len(), 2, "{f:?} {status}");
            assert!(
                outcome.attempts[0]
                    .error
                    .as_deref()
                    .unwrap_or("")
                    .contains(&format!("HTTP {status}"))
            );
        }
    }
}

#[tokio::test]
async fn final_errors_are_not_retried() {
    for f in ALL {
        let cases = [
            (400, f.error_body(400, "invalid_request_error")),
            (401, f.error_body(401, "authentication_error")),
            (403, f.error_body(403, "permission_error")),
            (404, f.error_body(404, "not_found_error")),
            (
                429,
                match f {
                    Format::Gemini => {
                        serde_json::json!({"error":{"code":429,"message":"mock daily quota","status":"RESOURCE_EXHAUSTED","details":[
                    {"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerDayPerProjectPerModel"}]}]}})
                    }
                    _ => f.error_body(429, "insufficient_quota"),
                },
            ),
        ];
        for (status, body) in cases {
            let server = MockServer::start().await;
            Mock::given(method("POST"))
                .respond_with(ResponseTemplate::new(status).set_body_json(body))
                .mount(&server)
                .await;
            let r = call(&f.config(&server, ""), "hello").await;
            let failure = r.result.expect_err("must fail");
            assert_eq!(failure.error.status, Some(status), "{f:?}");
            assert!(!failure.error.retryable, "{f:?} {status}");
            assert_eq!(failure.attempts.len(), 1, "{f:?} {status}");
            assert_eq!(
                server.received_requests().await.unwrap_or_default().len(),
                1
            );
            assert!(
                failure.to_string().contains("mock"),
                "the provider's own message: {failure}"
            );
        }
    }
}

#[tokio::test]
async fn anthropic_spend_limit_is_final_and_request_id_is_reported() {
    let server = MockServer::start().await;
    let body = serde_json::json!({"type":"error","error":{"type":"rate_limit_error","message":"spend limit reached","details":{"error_code":"enforced_spend_limit_reached"}},"request_id":"req_spend"});
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(429).set_body_json(body))
        .mount(&server)
        .await;
    let failure = call(&Format::Anthropic.config(&server, ""), "hi")
        .await
        .result
        .expect_err("fails");
    assert_eq!(failure.attempts.len(), 1);
    assert!(failure.to_string().contains("req_spend"), "{failure}");
}

#[tokio::test]
async fn error_frame_inside_a_200_stream() {
    for f in ALL {
        let frames = match f {
            Format::OpenAi => sse(&[
                (
                    "",
                    r#"{"choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}"#,
                ),
                (
                    "",
                    r#"{"error":{"message":"The server had an error","type":"server_error"}}"#,
                ),
            ]),
            Format::Anthropic => sse(&[
                (
                    "message_start",
                    r#"{"type":"message_start","message":{"content":[],"usage":{"input_tokens":3,"output_tokens":1}}}"#,
                ),
                (
                    "content_block_delta",
                    r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}"#,
                ),
                (
                    "error",
                    r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
                ),
            ]),
            Format::Gemini => sse(&[
                (
                    "",
                    r#"{"candidates":[{"content":{"parts":[{"text":"Hel"}]},"index":0}]}"#,
                ),
                (
                    "",
                    r#"{"error":{"code":503,"message":"The model is overloaded","status":"UNAVAILABLE"}}"#,
                ),
            ]),
        };
        let server = MockServer::start().await;
        mount_success(&server, f).await;
        mount_once(&server, f, sse_response(frames)).await;
        let r = call(&f.config(&server, ""), "hello").await;
        let outcome = r.result.unwrap_or_else(|e| panic!("{f:?}: {e}"));
        assert_eq!(outcome.completion.text, "Hello world");
        assert_eq!(
            outcome.attempts[0].error_kind,
            Some(ErrorKind::StreamError),
            "{f:?}"
        );
        assert_eq!(
            outcome.attempts[0].discarded_chars, 3,
            "the partial text is discarded"
        );
        assert_eq!(
            r.streamed, "HelHello world",
            "deltas as sent; the retry event says what to drop"
        );
    }
    // A non-retryable error frame is final.
    let server = MockServer::start().await;
    let frames = sse(&[(
        "error",
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt too long"}}"#,
    )]);
    Mock::given(method("POST"))
        .respond_with(sse_response(frames))
        .mount(&server)
        .await;
    let failure = call(&Format::Anthropic.config(&server, ""), "hi")
        .await
        .result
        .expect_err("fails");
    assert_eq!(failure.attempts.len(), 1);
    assert!(failure.to_string().contains("prompt too long"));
}

#[tokio::test]
async fn stream_cut_before_finish_is_truncated_and_retried() {
    for f in ALL {
        let server = MockServer::start().await;
        mount_success(&server, f).await;
        mount_once(&server, f, sse_response(f.cut())).await;
        let outcome = call(&f.config(&server, ""), "hello")
            .await
            .result
            .unwrap_or_else(|e| panic!("{f:?}: {e}"));
        assert_eq!(
            outcome.attempts[0].error_kind,
            Some(ErrorKind::Truncated),
            "{f:?}"
        );
        assert_eq!(outcome.completion.text, "Hello world");

        // With no retries left the truncation is the error, never an answer.
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(sse_response(f.cut()))
            .mount(&server)
            .await;
        let config = f.config(&server, "");
        let mut config = config;
        config.retry.max_attempts = 1;
        let failure = call(&config, "hello").await.result.expect_err("truncated");
        assert_eq!(failure.error.kind, ErrorKind::Truncated, "{f:?}");
    }
}

#[tokio::test]
async fn malformed_sse_data_is_a_failure() {
    for f in ALL {
        let server = MockServer::start().await;
        let body = "data: {not json at all\n\n".to_string();
        Mock::given(method("POST"))
            .respond_with(sse_response(body))
            .mount(&server)
            .await;
        let failure = call(&f.config(&server, ""), "hello")
            .await
            .result
            .expect_err("malformed");
        assert_eq!(failure.error.kind, ErrorKind::Malformed, "{f:?}");
        assert!(
            failure.error.message.contains("not json"),
            "{}",
            failure.error
        );
    }
}

#[tokio::test]
async fn a_server_that_goes_silent_mid_stream_times_out() {
    for f in ALL {
        let head: &'static str = match f {
            Format::OpenAi => {
                "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"},\"finish_reason\":null}]}\n\n"
            }
            Format::Anthropic => {
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}}\n\n"
            }
            Format::Gemini => {
                "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hel\"}]},\"index\":0}]}\n\n"
            }
        };
        let base = stalling_server(head).await;
        let mut config = models(f.provider(), &format!("{base}{}", f.prefix()), "");
        config.models[0].timeout_s = 0.1;
        config.retry.max_attempts = 2;
        let r = call(&config, "hello").await;
        let failure = r.result.expect_err("times out");
        assert_eq!(
            failure.error.kind,
            ErrorKind::Timeout,
            "{f:?}: {}",
            failure.error
        );
        assert_eq!(failure.attempts.len(), 2, "a timeout is retried");
        assert!(r.streamed.starts_with("Hel"));
    }
}

#[tokio::test]
async fn gemini_retry_delay_in_the_body_is_honoured() {
    let server = MockServer::start().await;
    mount_success(&server, Format::Gemini).await;
    let body = serde_json::json!({"error":{"code":429,"message":"You exceeded your current quota. Please retry in 0.05s.","status":"RESOURCE_EXHAUSTED","details":[
        {"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerMinutePerProjectPerModel"}]},
        {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"0.05s"}]}});
    mount_once(
        &server,
        Format::Gemini,
        ResponseTemplate::new(429).set_body_json(body),
    )
    .await;
    let outcome = call(&Format::Gemini.config(&server, ""), "hello")
        .await
        .result
        .expect("succeeds");
    assert_eq!(outcome.attempts[0].wait_ms, Some(50));
}

#[tokio::test]
async fn gemini_safety_blocks_are_final() {
    let server = MockServer::start().await;
    let blocked = sse(&[(
        "",
        r#"{"promptFeedback":{"blockReason":"SAFETY","safetyRatings":[]}}"#,
    )]);
    Mock::given(method("POST"))
        .respond_with(sse_response(blocked))
        .mount(&server)
        .await;
    let failure = call(&Format::Gemini.config(&server, ""), "hello")
        .await
        .result
        .expect_err("blocked");
    assert_eq!(failure.error.kind, ErrorKind::Refused);
    assert_eq!(failure.attempts.len(), 1);
}

#[tokio::test]
async fn empty_answer_with_length_is_a_retryable_failure_that_says_what_to_do() {
    let server = MockServer::start().await;
    let body = sse(&[
        (
            "",
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}"#,
        ),
        (
            "",
            r#"{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":100}}"#,
        ),
        ("", "[DONE]"),
    ]);
    Mock::given(method("POST"))
        .respond_with(sse_response(body))
        .mount(&server)
        .await;
    let failure = call(&Format::OpenAi.config(&server, ""), "hello")
        .await
        .result
        .expect_err("empty");
    assert_eq!(failure.error.kind, ErrorKind::EmptyLength);
    assert_eq!(failure.attempts.len(), 3, "retried");
    assert!(failure.error.message.contains("raise max_tokens"));
}

#[tokio::test]
async fn the_key_never_appears_in_errors_or_debug_output() {
    for f in ALL {
        for status in [401, 500] {
            // A hostile gateway quoting the request's headers in its error.
            let server = MockServer::start().await;
            Mock::given(method("POST"))
                .respond_with(EchoHeaders(status))
                .mount(&server)
                .await;
            let config = f.config(&server, "");
            let registry = ethics_bowl::providers::ModelRegistry::build_with_env(
                &config,
                ["m"],
                &Default::default(),
                |_| Some(FAKE_KEY.to_string()),
            )
            .expect("builds");
            let client = registry.get("m").expect("m");
            let debug = format!("{client:?} {registry:?} {config:?}");
            assert!(!debug.contains(FAKE_KEY), "Debug leaks the key: {debug}");
            let failure = call(&config, "hello").await.result.expect_err("fails");
            let shown = format!("{failure} {failure:?}");
            assert!(!shown.contains(FAKE_KEY), "{f:?} {status}: {shown}");
            assert!(
                failure.error.message.contains("[redacted TEST_KEY]"),
                "{f:?} {status}: the echo is kept, without the key: {}",
                failure.error.message
            );
            assert_eq!(
                failure.error.request_id.as_deref(),
                Some(match f {
                    Format::OpenAi => "req-Bearer [redacted TEST_KEY]",
                    _ => "req-[redacted TEST_KEY]",
                })
            );
            assert_eq!(failure.attempts.len(), if status == 500 { 3 } else { 1 });
            for attempt in &failure.attempts {
                let error = attempt.error.as_deref().unwrap_or_default();
                assert!(!error.contains(FAKE_KEY), "{error}");
            }
        }
    }
}

#[tokio::test]
async fn a_key_streamed_back_in_an_answer_is_redacted_even_across_pieces() {
    let (head, tail) = FAKE_KEY.split_at(9);
    let frame = |text: &str, finish: Value| {
        serde_json::json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}]})
            .to_string()
    };
    let body = sse(&[
        ("", &frame("You sent ", Value::Null)),
        ("", &frame(head, Value::Null)),
        ("", &frame(tail, Value::Null)),
        ("", &frame(" as your key.", Value::from("stop"))),
        ("", "[DONE]"),
    ]);
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(sse_response(body))
        .mount(&server)
        .await;
    let recorded = call(&Format::OpenAi.config(&server, ""), "hello").await;
    let expected = "You sent [redacted TEST_KEY] as your key.";
    assert_eq!(recorded.streamed, expected);
    let outcome = recorded.result.expect("answers");
    assert_eq!(outcome.completion.text, expected);
    assert_eq!(outcome.completion.provider_finish_reason, "stop");
}

/// Structured output: the schema goes on the wire in each format's own way, and Anthropic's
/// forced tool call streams its input as the answer.
#[tokio::test]
async fn structured_output_uses_each_formats_feature() {
    let schema = serde_json::json!({"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"], "additionalProperties": false});
    let request = || {
        ethics_bowl::providers::ChatRequest::new("You are terse.", "hello")
            .with_schema("reply", schema.clone())
    };
    for f in ALL {
        let server = MockServer::start().await;
        let expected = match f {
            Format::OpenAi => {
                serde_json::json!({"response_format": {"type": "json_schema", "json_schema": {"name": "reply", "strict": true, "schema": schema}}})
            }
            Format::Anthropic => {
                serde_json::json!({"tools": [{"name": "reply", "input_schema": schema}], "tool_choice": {"type": "tool", "name": "reply"}})
            }
            Format::Gemini => {
                serde_json::json!({"generationConfig": {"responseMimeType": "application/json", "responseSchema": {"type": "OBJECT", "properties": {"answer": {"type": "STRING"}}, "required": ["answer"]}}})
            }
        };
        let body = match f {
            Format::Anthropic => sse(&[
                (
                    "message_start",
                    r#"{"type":"message_start","message":{"id":"msg_1","content":[],"usage":{"input_tokens":11,"output_tokens":1}}}"#,
                ),
                (
                    "content_block_start",
                    r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"reply","input":{}}}"#,
                ),
                (
                    "content_block_delta",
                    r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"answer\": "}}"#,
                ),
                (
                    "content_block_delta",
                    r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\"yes\"}"}}"#,
                ),
                (
                    "content_block_stop",
                    r#"{"type":"content_block_stop","index":0}"#,
                ),
                (
                    "message_delta",
                    r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":7}}"#,
                ),
                ("message_stop", r#"{"type":"message_stop"}"#),
            ]),
            _ => f.success(),
        };
        Mock::given(method("POST"))
            .and(path(f.stream_path()))
            .and(body_partial_json(expected))
            .respond_with(sse_response(body))
            .expect(1)
            .mount(&server)
            .await;
        let r = call_with(&f.config(&server, ""), request()).await;
        let outcome = r.result.unwrap_or_else(|e| panic!("{f:?}: {e}"));
        if let Format::Anthropic = f {
            assert_eq!(outcome.completion.text, r#"{"answer": "yes"}"#);
            assert_eq!(outcome.completion.finish_reason, FinishReason::Stop);
        }
        // Off for this model: the request carries no schema field (the prompt has to do).
        let server = MockServer::start().await;
        mount_success(&server, f).await;
        let r = call_with(&f.config(&server, "structured_output = false"), request()).await;
        assert!(r.result.is_ok(), "{f:?}");
        let sent: Value =
            serde_json::from_slice(&server.received_requests().await.unwrap()[0].body).unwrap();
        for key in ["response_format", "tools", "tool_choice"] {
            assert!(sent.get(key).is_none(), "{f:?}: {key}");
        }
        assert!(
            sent["generationConfig"].get("responseSchema").is_none(),
            "{f:?}"
        );
    }
}

/// The request as the test server received it (the first one, or the `n`th).
async fn sent_body(server: &MockServer, n: usize) -> Value {
    let requests = server.received_requests().await.unwrap_or_default();
    serde_json::from_slice(&requests[n].body).expect("a JSON request body")
}

fn schema_request() -> ethics_bowl::providers::ChatRequest {
    let schema = serde_json::json!({"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"], "additionalProperties": false});
    ethics_bowl::providers::ChatRequest::new("You are terse.", "hello").with_schema("reply", schema)
}

/// An `openai-compatible` server gets the `response_format` of the configured dialect.
#[tokio::test]
async fn each_structured_output_dialect_has_its_request_body() {
    let schema = schema_request().schema.expect("schema").schema;
    let strict = serde_json::json!({"type": "json_schema", "json_schema": {"name": "reply", "strict": true, "schema": schema}});
    for (setting, expected) in [
        ("true", Some(strict.clone())),
        ("\"json_schema\"", Some(strict)),
        (
            "\"json_object_schema\"",
            Some(serde_json::json!({"type": "json_object", "schema": schema})),
        ),
        (
            "\"json_object\"",
            Some(serde_json::json!({"type": "json_object"})),
        ),
        ("false", None),
    ] {
        let server = MockServer::start().await;
        mount_success(&server, Format::OpenAi).await;
        let config = models(
            "openai-compatible",
            &format!("{}/v1", server.uri()),
            &format!("structured_output = {setting}"),
        );
        let r = call_with(&config, schema_request()).await;
        assert!(r.result.is_ok(), "{setting}");
        let sent = sent_body(&server, 0).await;
        assert_eq!(sent.get("response_format"), expected.as_ref(), "{setting}");
        assert_eq!(sent["max_tokens"], 100, "{setting}");
    }
    // The default for openai-compatible is off.
    let server = MockServer::start().await;
    mount_success(&server, Format::OpenAi).await;
    let config = models("openai-compatible", &format!("{}/v1", server.uri()), "");
    assert!(call_with(&config, schema_request()).await.result.is_ok());
    assert!(sent_body(&server, 0).await.get("response_format").is_none());
}

/// llama-cpp-python answers `json_schema` with this 500 (recorded from the real server): one
/// attempt, and an error that names the dialect to try, with the server's words kept.
#[tokio::test]
async fn a_server_rejecting_the_schema_gets_one_attempt_and_advice() {
    let body = include_str!("fixtures/llama-cpp-python/json-schema-rejected.500.json");
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(500)
                .insert_header("content-type", "application/json")
                .set_body_string(body),
        )
        .mount(&server)
        .await;
    let config = models(
        "openai-compatible",
        &format!("{}/v1", server.uri()),
        "structured_output = true",
    );
    let failure = call_with(&config, schema_request())
        .await
        .result
        .expect_err("rejected");
    assert_eq!(failure.error.kind, ErrorKind::SchemaRejected);
    assert_eq!(failure.attempts.len(), 1, "not retried");
    assert_eq!(
        server.received_requests().await.unwrap_or_default().len(),
        1
    );
    let shown = failure.to_string();
    for needle in [
        "HTTP 500",
        "rejected structured output sent as response_format json_schema (structured_output = true)",
        "structured_output = \"json_object_schema\" (llama-cpp-python) or \"json_object\"",
        "or set structured_output = false",
        "Input should be 'text' or 'json_object'",
    ] {
        assert!(shown.contains(needle), "{needle:?} in {shown}");
    }
    // The same 500 without a schema in the request is an ordinary, retried server error.
    let failure = call(&config, "hello").await.result.expect_err("500");
    assert_eq!(failure.error.kind, ErrorKind::Http);
    assert_eq!(failure.attempts.len(), 3);
}

/// llama-cpp-python's answer to a non-streamed request over its context window (recorded):
/// final, and the message says what to change.
#[tokio::test]
async fn a_context_overflow_is_final_and_says_what_to_change() {
    let body = include_str!("fixtures/llama-cpp-python/context-length-exceeded.400.json");
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(400).set_body_string(body))
        .mount(&server)
        .await;
    let config = models(
        "openai-compatible",
        &format!("{}/v1", server.uri()),
        "stream = false",
    );
    let failure = call(&config, "hello").await.result.expect_err("too long");
    assert_eq!(failure.attempts.len(), 1);
    let shown = failure.to_string();
    assert!(
        shown.contains("maximum context length is 1024 tokens"),
        "{shown}"
    );
    assert!(
        shown.contains(
            "shorten the input, lower max_tokens, or use a model or server with a longer context"
        ),
        "{shown}"
    );
}

/// A 200 stream with nothing in it (llama-cpp-python's answer to a streamed context
/// overflow) is one final error that says what to try.
#[tokio::test]
async fn an_empty_stream_is_final_and_says_what_to_try() {
    for body in ["", ": keep-alive\n\n"] {
        for f in ALL {
            let server = MockServer::start().await;
            Mock::given(method("POST"))
                .respond_with(sse_response(body.to_string()))
                .mount(&server)
                .await;
            let failure = call(&f.config(&server, ""), "hello")
                .await
                .result
                .expect_err("empty");
            assert_eq!(failure.error.kind, ErrorKind::EmptyStream, "{f:?} {body:?}");
            assert_eq!(failure.attempts.len(), 1, "{f:?}");
            assert!(
                failure.error.message.contains(
                    "the server closed the stream without an answer (a context-length overflow \
                     on some servers, or a server that ends a stream when another request \
                     arrives: try stream = false or max_concurrency = 1)"
                ),
                "{}",
                failure.error
            );
        }
    }
}

/// A stream without a usage chunk gets an estimate, marked as such, and a cost from it.
#[tokio::test]
async fn usage_is_estimated_when_the_stream_reports_none() {
    let answer = sse(&[
        (
            "",
            r#"{"choices":[{"index":0,"delta":{"content":"Hello world"},"finish_reason":null}]}"#,
        ),
        (
            "",
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
        ),
        ("", "[DONE]"),
    ]);
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(sse_response(answer))
        .mount(&server)
        .await;
    let price = "price = { input_per_mtok = 1000000.0, output_per_mtok = 2000000.0 }";
    let mut config = models("openai-compatible", &format!("{}/v1", server.uri()), price);
    let outcome = call(&config, "hello").await.result.expect("answers");
    // "You are terse." 14 characters → 4, "hello" → 2, 4 per message, 3 for the reply;
    // "Hello world" → 3.
    let usage = outcome.completion.usage.expect("estimated");
    assert_eq!(usage, Usage::new(4 + 2 + 2 * 4 + 3, 3));
    assert!(outcome.completion.usage_estimated);
    assert_eq!(outcome.cost_usd, Some(17.0 + 6.0));
    // An OpenAI model id is counted with its own tokenizer: "Hello world" is 2 tokens.
    config.models[0].model = "gpt-4o-mini".into();
    let outcome = call(&config, "hello").await.result.expect("answers");
    assert_eq!(outcome.completion.usage.map(|u| u.output_tokens), Some(2));
    assert!(outcome.completion.usage_estimated);
    // Reported usage is never replaced.
    let server = MockServer::start().await;
    mount_success(&server, Format::OpenAi).await;
    let config = Format::OpenAi.config(&server, "");
    let outcome = call(&config, "hello").await.result.expect("answers");
    assert!(!outcome.completion.usage_estimated);
    assert_eq!(outcome.completion.usage.map(|u| u.input_tokens), Some(11));
}

/// The format's complete answer, but ended by the token limit.
fn cut_at_limit(f: Format) -> String {
    f.success()
        .replace(r#""finish_reason":"stop""#, r#""finish_reason":"length""#)
        .replace(
            r#""stop_reason":"end_turn""#,
            r#""stop_reason":"max_tokens""#,
        )
        .replace(r#""finishReason":"STOP""#, r#""finishReason":"MAX_TOKENS""#)
}

/// The request body's output-token limit, in the format's field.
fn limit_field(f: Format, limit: u32) -> Value {
    match f {
        Format::OpenAi => serde_json::json!({"max_completion_tokens": limit}),
        Format::Anthropic => serde_json::json!({"max_tokens": limit}),
        Format::Gemini => serde_json::json!({"generationConfig": {"maxOutputTokens": limit}}),
    }
}

/// With `on_truncation = "retry"`, an answer cut at the limit is asked again with the limit
/// doubled (up to the cap); the cut attempt is recorded, and the usage is both requests'.
#[tokio::test]
async fn a_truncated_answer_is_asked_again_with_a_doubled_limit() {
    for f in ALL {
        for (cap, second_limit) in [("", 200), ("max_tokens_cap = 150", 150)] {
            let server = MockServer::start().await;
            Mock::given(method("POST"))
                .and(body_partial_json(limit_field(f, 100)))
                .respond_with(sse_response(cut_at_limit(f)))
                .expect(1)
                .mount(&server)
                .await;
            Mock::given(method("POST"))
                .and(body_partial_json(limit_field(f, second_limit)))
                .respond_with(sse_response(f.success()))
                .expect(1)
                .mount(&server)
                .await;
            let config = f.config(&server, &format!("on_truncation = \"retry\"\n{cap}"));
            let r = call(&config, "hello").await;
            let outcome = r.result.unwrap_or_else(|e| panic!("{f:?}: {e}"));
            assert_eq!(outcome.completion.finish_reason, FinishReason::Stop);
            assert_eq!(outcome.attempts.len(), 2, "{f:?}");
            let cut = &outcome.attempts[0];
            assert_eq!(cut.error_kind, Some(ErrorKind::TokenLimit));
            assert_eq!(
                cut.error.as_deref(),
                Some(
                    format!(
                        "token limit: cut at the token limit (100 tokens); asked again with \
                         {second_limit}"
                    )
                    .as_str()
                )
            );
            assert_eq!(cut.discarded_chars, "Hello world".len());
            assert_eq!(outcome.attempts[1].number, 2);
            assert_eq!(r.streamed, "Hello worldHello world");
            assert!(
                r.events[0].starts_with("retry 1 wait 0ms: token limit"),
                "{:?}",
                r.events
            );
            assert_eq!(
                outcome.completion.usage,
                Some(Usage::new(22, 14)),
                "{f:?}: both requests were paid for"
            );
        }
    }
}

#[tokio::test]
async fn truncation_is_kept_by_default_at_the_cap_and_on_the_second_answer() {
    let f = Format::OpenAi;
    for extra in ["", "on_truncation = \"retry\"\nmax_tokens_cap = 100"] {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(sse_response(cut_at_limit(f)))
            .expect(1)
            .mount(&server)
            .await;
        let outcome = call(&f.config(&server, extra), "hello")
            .await
            .result
            .expect("kept");
        assert_eq!(outcome.completion.finish_reason, FinishReason::Length);
        assert_eq!(outcome.attempts.len(), 1, "{extra}");
    }
    // The second answer is returned as it is, cut again or not: no third request.
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(sse_response(cut_at_limit(f)))
        .expect(2)
        .mount(&server)
        .await;
    let outcome = call(&f.config(&server, "on_truncation = \"retry\""), "hello")
        .await
        .result
        .expect("kept");
    assert_eq!(outcome.completion.finish_reason, FinishReason::Length);
    assert_eq!(outcome.attempts.len(), 2);
    assert_eq!(sent_body(&server, 1).await["max_completion_tokens"], 200);
}

/// Answers every connection on `listener` with one whole streamed OpenAI answer.
async fn serve_answers(listener: tokio::net::TcpListener, answer: String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    while let Ok((mut socket, _)) = listener.accept().await {
        let answer = answer.clone();
        tokio::spawn(async move {
            // Read the request head and its body before answering.
            let mut request = Vec::new();
            let mut buf = [0u8; 8192];
            loop {
                let Ok(n) = socket.read(&mut buf).await else {
                    return;
                };
                if n == 0 {
                    return;
                }
                request.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&request).to_lowercase();
                if let Some(head_end) = text.find("\r\n\r\n") {
                    let length = text
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .and_then(|v| v.trim().parse::<usize>().ok())
                        .unwrap_or(0);
                    if request.len() >= head_end + 4 + length {
                        break;
                    }
                }
            }
            let response = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
                answer.len()
            );
            let _ = socket.write_all(response.as_bytes()).await;
            let _ = socket.shutdown().await;
        });
    }
}

/// A server that is down while the call starts and comes up after several refused
/// connections, more than `max_attempts` allows: the call bridges the gap. The server starts
/// listening from inside the call's own retry announcement, so nothing depends on timing.
#[tokio::test]
async fn refused_connections_are_retried_until_the_server_is_back() {
    // A free port, closed again so that connections to it are refused.
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port");
    let mut config = models("openai", &format!("http://{addr}/v1"), "");
    config.retry.max_attempts = 2;
    config.retry.connect_retry_s = 60.0;
    let registry = ethics_bowl::providers::ModelRegistry::build_with_env(
        &config,
        ["m"],
        &Default::default(),
        |_| Some(FAKE_KEY.to_string()),
    )
    .expect("builds");
    let client = registry.get("m").expect("m");
    let answer = Format::OpenAi.success();
    let mut kinds = Vec::new();
    let outcome = client
        .complete(
            &ethics_bowl::providers::ChatRequest::new("You are terse.", "hello"),
            &mut |event| {
                if let ethics_bowl::providers::CallEvent::RetryScheduled {
                    attempt, error, ..
                } = event
                {
                    kinds.push(error.kind);
                    if attempt == 3 {
                        let listener = std::net::TcpListener::bind(addr).expect("rebind the port");
                        listener.set_nonblocking(true).expect("non-blocking");
                        let listener =
                            tokio::net::TcpListener::from_std(listener).expect("tokio listener");
                        tokio::spawn(serve_answers(listener, answer.clone()));
                    }
                }
            },
        )
        .await
        .expect("answers once the server is back");
    assert_eq!(outcome.completion.text, "Hello world");
    assert_eq!(outcome.attempts.len(), 4, "three refusals, then the answer");
    assert_eq!(kinds, vec![ErrorKind::Unreachable; 3]);
    assert!(
        outcome.attempts[0]
            .error
            .as_deref()
            .unwrap_or_default()
            .contains("could not connect to the server"),
        "{:?}",
        outcome.attempts[0].error
    );

    // With no bridging window, max_attempts rules.
    config.retry.connect_retry_s = 0.0;
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port");
    config.models[0].base_url = Some(format!("http://{addr}/v1"));
    let failure = call(&config, "hello")
        .await
        .result
        .expect_err("unreachable");
    assert_eq!(failure.error.kind, ErrorKind::Unreachable);
    assert_eq!(failure.attempts.len(), 2);
}

/// A 429 whose headers name absurd waits (a 30-digit or `1e20` Retry-After, `inf`, a reset a
/// billion years off) is a clear failure after one attempt, in every wire format; nonsense
/// waits (NaN, negative, text) are ignored and the call retried as usual. Nothing panics.
#[tokio::test]
async fn absurd_rate_limit_headers_fail_clearly_and_never_panic() {
    let thirty_digits = "123456789012345678901234567890";
    let too_long: [&[(&str, &str)]; 6] = [
        &[("retry-after", "1e20")],
        &[("retry-after", thirty_digits)],
        &[("retry-after", "inf")],
        &[("retry-after-ms", "1e20")],
        &[("retry-after-ms", thirty_digits)],
        &[("retry-after", "Fri, 31 Dec 9999 23:59:59 GMT")],
    ];
    let ignored: [&[(&str, &str)]; 6] = [
        &[("retry-after", "NaN")],
        &[("retry-after", "-5")],
        &[("retry-after", "soon")],
        &[
            ("x-ratelimit-remaining-requests", "0"),
            ("x-ratelimit-reset-requests", "1e20s"),
        ],
        &[
            ("x-ratelimit-remaining-requests", "0"),
            (
                "x-ratelimit-reset-requests",
                "123456789012345678901234567890s",
            ),
        ],
        &[
            ("anthropic-ratelimit-requests-remaining", "0"),
            ("anthropic-ratelimit-requests-reset", "9999-12-31T23:59:59Z"),
        ],
    ];
    for f in ALL {
        for (headers, final_after_one) in too_long
            .iter()
            .map(|h| (h, true))
            .chain(ignored.iter().map(|h| (h, false)))
        {
            let server = MockServer::start().await;
            let mut answer =
                ResponseTemplate::new(429).set_body_json(f.error_body(429, "rate_limit_error"));
            for (name, value) in headers.iter() {
                answer = answer.insert_header(*name, *value);
            }
            Mock::given(method("POST"))
                .respond_with(answer)
                .mount(&server)
                .await;
            // Fixed concurrency: a reset header is read (where the panic was) but holds no call.
            let r = call(
                &f.config(&server, "adaptive_concurrency = false\n"),
                "hello",
            )
            .await;
            let e = r.result.expect_err("every answer is a 429");
            let said = e.to_string();
            assert!(said.contains("HTTP 429"), "{f:?} {headers:?}: {said}");
            if final_after_one {
                assert_eq!(e.attempts.len(), 1, "{f:?} {headers:?}: {said}");
                assert!(
                    said.contains("longer than max_retry_after_s"),
                    "{f:?} {headers:?}: {said}"
                );
            } else {
                assert_eq!(
                    e.attempts.len(),
                    3,
                    "{f:?} {headers:?}: retried as usual: {said}"
                );
            }
        }
    }
}

/// A raw server that answers one streamed request in the OpenAI format with `frames`
/// produced without end by `next(i)`, `pause` apart.
async fn endless_server(next: fn(usize) -> String, pause: std::time::Duration) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                use tokio::io::{AsyncReadExt, AsyncWriteExt};
                let mut buf = vec![0u8; 64 * 1024];
                let _ = socket.read(&mut buf).await;
                let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
                if socket.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                for i in 0.. {
                    let frame = next(i);
                    let chunk = format!("{:x}\r\n{frame}\r\n", frame.len());
                    if socket.write_all(chunk.as_bytes()).await.is_err() {
                        return; // the client has gone
                    }
                    if !pause.is_zero() {
                        tokio::time::sleep(pause).await;
                    }
                }
            });
        }
    });
    format!("http://{addr}/v1")
}

/// One OpenAI stream event carrying `text`.
fn delta(text: &str) -> String {
    format!(
        "data: {}\n\n",
        serde_json::json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]})
    )
}

/// A server that streams text without end is cut at `max_response_bytes`, once, and says so;
/// one that sends events without text, or one endless line, is cut at 64 times that (these
/// with a `max_call_s` no machine reaches, so only the size can end them); one that trickles
/// a piece at a time (never silent for `timeout_s`) is ended at `max_call_s`.
#[tokio::test]
async fn endless_and_trickling_streams_are_ended_with_a_reason() {
    let sized = "adaptive_concurrency = false\nmax_response_bytes = 4096\nmax_call_s = 600\n";
    let flood = endless_server(|_| delta(&"word ".repeat(100)), std::time::Duration::ZERO).await;
    let r = call(&models("openai-compatible", &flood, sized), "hello").await;
    let e = r.result.expect_err("an endless answer");
    assert!(
        e.to_string()
            .contains("passed 4096 bytes (max_response_bytes)"),
        "{e}"
    );
    assert_eq!(e.attempts.len(), 1, "not paid again: {e}");
    assert!(
        r.streamed.len() <= 4096,
        "{} bytes passed on",
        r.streamed.len()
    );

    let empty = endless_server(|_| delta("").repeat(100), std::time::Duration::ZERO).await;
    let e = call(&models("openai-compatible", &empty, sized), "hello")
        .await
        .result
        .expect_err("endless events");
    assert!(
        e.to_string()
            .contains("passed 262144 bytes (64 × max_response_bytes)"),
        "{e}"
    );
    assert_eq!(e.attempts.len(), 1, "not paid again: {e}");

    let line = endless_server(
        |i| {
            if i == 0 {
                "data: {\"x\": \"".into()
            } else {
                "y".repeat(8192)
            }
        },
        std::time::Duration::ZERO,
    )
    .await;
    let e = call(&models("openai-compatible", &line, sized), "hello")
        .await
        .result
        .expect_err("one endless line");
    assert!(e.to_string().contains("(64 × max_response_bytes)"), "{e}");

    let timed = "adaptive_concurrency = false\nmax_call_s = 1\n";
    let trickle = endless_server(|_| delta("a"), std::time::Duration::from_millis(100)).await;
    let e = call(&models("openai-compatible", &trickle, timed), "hello")
        .await
        .result
        .expect_err("a trickle");
    assert!(
        e.to_string()
            .contains("still arriving after 1 s (max_call_s)"),
        "{e}"
    );
    assert_eq!(e.attempts.len(), 3, "a time-out is retried: {e}");
}
