//! Helpers shared by the integration tests: a models file pointing at a test server, a call
//! that records everything it reports, and a raw TCP server for what wiremock cannot do
//! (stop sending part-way through a body).
#![allow(dead_code)] // each test binary uses a different subset

pub mod batch_server;
pub mod coverage;
pub mod tmux;
pub mod tournament;

use std::path::Path;

use ethics_bowl::config::ModelsConfig;
use ethics_bowl::providers::{CallEvent, CallFailure, CallOutcome, ChatRequest, ModelRegistry};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A fake key with a recognisable shape, to check that it never leaks.
pub const FAKE_KEY: &str = "sk-FAKEKEY-0123456789-do-not-leak";

/// A models file with one model `m` of `provider` at `base_url`, plus `extra` lines.
pub fn models(provider: &str, base_url: &str, extra: &str) -> ModelsConfig {
    let text = format!(
        r#"
[retry]
max_attempts = 3
initial_backoff_ms = 1
max_backoff_ms = 4

[[models]]
name = "m"
provider = "{provider}"
model = "test-model"
api_key_env = "TEST_KEY"
base_url = "{base_url}"
max_tokens = 100
timeout_s = 5
{extra}
"#
    );
    ModelsConfig::parse(&text, Path::new("test-models.toml")).expect("test config is valid")
}

/// What one call reported.
pub struct Recorded {
    pub result: Result<CallOutcome, CallFailure>,
    pub streamed: String,
    pub events: Vec<String>,
}

/// Calls model `m` once with the fake key.
pub async fn call(config: &ModelsConfig, prompt: &str) -> Recorded {
    call_with(config, ChatRequest::new("You are terse.", prompt)).await
}

/// Calls model `m` once with the fake key and this request.
pub async fn call_with(config: &ModelsConfig, request: ChatRequest) -> Recorded {
    let registry = ModelRegistry::build_with_env(config, ["m"], &Default::default(), |var| {
        (var == "TEST_KEY").then(|| FAKE_KEY.to_string())
    })
    .expect("registry builds");
    let client = registry.get("m").expect("model m");
    let mut streamed = String::new();
    let mut events = Vec::new();
    let result = client
        .complete(&request, &mut |event| match event {
            CallEvent::Delta(t) => streamed.push_str(t),
            CallEvent::RetryScheduled {
                attempt,
                wait,
                error,
                ..
            } => events.push(format!(
                "retry {attempt} wait {}ms: {error}",
                wait.as_millis()
            )),
        })
        .await;
    Recorded {
        result,
        streamed,
        events,
    }
}

/// SSE body from `data:` payloads (and optional event names).
pub fn sse(frames: &[(&str, &str)]) -> String {
    frames
        .iter()
        .map(|(event, data)| {
            if event.is_empty() {
                format!("data: {data}\n\n")
            } else {
                format!("event: {event}\ndata: {data}\n\n")
            }
        })
        .collect()
}

/// A server that answers one request with status 200, SSE headers and `head` as the first
/// body chunk, then sends nothing more while holding the connection open.
pub async fn stalling_server(head: &'static str) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = vec![0u8; 64 * 1024];
                let _ = socket.read(&mut buf).await;
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n{head}\r\n",
                    head.len()
                );
                let _ = socket.write_all(response.as_bytes()).await;
                let _ = socket.flush().await;
                // Hold the socket open, silent, until the test's runtime ends.
                std::future::pending::<()>().await;
            });
        }
    });
    format!("http://{addr}")
}

/// A test server that answers every POST with `responder`.
pub async fn answering(responder: impl wiremock::Respond + 'static) -> wiremock::MockServer {
    let server = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(responder)
        .mount(&server)
        .await;
    server
}

/// A hostile gateway: answers every request with `status`, quoting the request's headers in
/// its error message and body, and the key-bearing header's value in its error type, its
/// body's request id and its `x-request-id` header.
pub struct EchoHeaders(pub u16);

impl wiremock::Respond for EchoHeaders {
    fn respond(&self, request: &wiremock::Request) -> wiremock::ResponseTemplate {
        let value = |name: &str| {
            request
                .headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let quoted: Vec<String> = request
            .headers
            .iter()
            .map(|(name, v)| format!("{name}: {}", v.to_str().unwrap_or("?")))
            .collect();
        let secret = ["authorization", "x-api-key", "x-goog-api-key"]
            .iter()
            .find_map(|h| value(h))
            .unwrap_or_default();
        wiremock::ResponseTemplate::new(self.0)
            .insert_header("x-request-id", format!("req-{secret}").as_str())
            .set_body_json(serde_json::json!({
                "error": {
                    "message": format!("rejected; you sent:\n{}", quoted.join("\n")),
                    "type": secret,
                },
                "request_id": secret,
                "headers": quoted,
            }))
    }
}

/// A whole streamed OpenAI chat answer of `text`, as a test server sends it.
pub fn openai_answer(text: &str) -> wiremock::ResponseTemplate {
    let chunk = |delta: serde_json::Value, finish: serde_json::Value| {
        serde_json::json!({"id": "c", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
            .to_string()
    };
    let frames = [
        chunk(
            serde_json::json!({"content": text}),
            serde_json::Value::Null,
        ),
        chunk(serde_json::json!({}), serde_json::Value::from("stop")),
    ];
    wiremock::ResponseTemplate::new(200)
        .insert_header("content-type", "text/event-stream")
        .set_body_string(sse(&[("", &frames[0]), ("", &frames[1]), ("", "[DONE]")]))
}

/// The terminal UI's screen at 120×40 in the no-colour theme.
pub fn draw(app: &ethics_bowl::tui::App) -> ratatui::Terminal<ratatui::backend::TestBackend> {
    let theme = ethics_bowl::tui::Theme::no_color();
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 40)).expect("test terminal");
    terminal
        .draw(|f| ethics_bowl::tui::views::render(f, app, &theme))
        .expect("draws");
    terminal
}

/// One key press, through `update`.
pub fn press(app: &mut ethics_bowl::tui::App, code: crossterm::event::KeyCode) {
    use crossterm::event::{KeyEvent, KeyModifiers};
    ethics_bowl::tui::update(
        app,
        ethics_bowl::tui::Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)),
    );
}
