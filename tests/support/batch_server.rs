//! An in-process server speaking the three providers' batch APIs, for tests and the batch
//! benchmark: OpenAI (file upload, batch create, retrieve, output and error files, cancel),
//! Anthropic Message Batches (create, retrieve, results, cancel) and Gemini batch mode
//! (inline `batchGenerateContent`, the batch operation, cancel); plus each provider's
//! ordinary endpoint, answered whole (`stream = false`), for comparison.
//!
//! Batches keep the tag they were created with (OpenAI's `metadata`, Gemini's display name)
//! and are listed newest first (`GET /v1/batches`, `/v1/messages/batches`,
//! `/v1beta/batches`). A create answer can be lost on purpose: the batch is made and the
//! answer is a 500 ([`BatchServer::lose_creates`]), or comes only after a long hold
//! ([`BatchServer::hold_creates`]); listing can be made to fail.
//!
//! A batch ends `delay` after it was created (real time: the server answers on its own
//! threads). Requests whose prompt holds [`FAIL_MARK`] fail on their own (HTTP 400 inside the
//! batch); with `expire_after = Some(n)` a batch expires having run only its first `n`
//! requests. Every request is checked for the provider's key header.
#![allow(dead_code)] // each test binary uses a different subset

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// A prompt holding this fails inside the batch (HTTP 400 for that request alone).
pub const FAIL_MARK: &str = "FAIL-IN-BATCH";

/// The answer text for a model and the last user message.
pub type Answer = Arc<dyn Fn(&str, &str) -> String + Send + Sync>;

/// Answers as the Ethics Bowl's debaters and judge would: an analysis with its principle and
/// conclusion, or a judgment with every score.
pub fn ethics_bowl_answers() -> Answer {
    let scores: Vec<String> = ethics_bowl::domain::Criterion::ALL
        .iter()
        .map(|c| format!("\"{}\": 7", c.key()))
        .collect();
    let judgment = format!(
        "{{\"team_a_scores\": {{{0}}}, \"team_b_scores\": {{{0}}}, \"overall_analysis\": \"fine\"}}",
        scores.join(", ")
    );
    Arc::new(move |_model, prompt| {
        if prompt.starts_with("## Your role: judge") || !prompt.starts_with("## ") {
            judgment.clone()
        } else {
            "A careful analysis of the case.\nGuiding principle: care.\nTentative conclusion: act."
                .to_string()
        }
    })
}

/// How the server behaves.
#[derive(Clone)]
pub struct Options {
    /// How long a batch runs before it ends.
    pub delay: Duration,
    /// Batches expire having run only this many requests.
    pub expire_after: Option<usize>,
    /// The key every request must carry.
    pub key: String,
    /// What the model answers.
    pub answer: Answer,
    /// Refuse every batch as a whole (OpenAI: status `failed`; Gemini: `BATCH_STATE_FAILED`;
    /// Anthropic: HTTP 400 on create).
    pub refuse: bool,
}

/// What the server saw.
#[derive(Debug, Default, Clone)]
pub struct Seen {
    /// Batches created, by provider.
    pub created: HashMap<&'static str, usize>,
    /// Requests in all batches created.
    pub requests: usize,
    /// Every request id ever submitted, with how often.
    pub ids: HashMap<String, usize>,
    /// Polls (retrieve calls).
    pub polls: usize,
    /// Batches cancelled.
    pub cancelled: usize,
    /// Requests without the right key header.
    pub unauthorised: usize,
    /// Requests answered one at a time, outside any batch.
    pub single: usize,
    /// When each batch was created, from the server's start.
    pub created_at: Vec<Duration>,
    /// List calls.
    pub lists: usize,
}

struct Batch {
    provider: &'static str,
    created: Instant,
    /// When, as the provider lists it.
    created_wall: jiff::Timestamp,
    /// The tag it was created with (OpenAI's metadata, Gemini's display name).
    tag: Option<String>,
    /// Its order of creation.
    seq: usize,
    /// Request id, model, body.
    items: Vec<(String, String, Value)>,
    cancelled: bool,
}

struct State {
    started: Instant,
    options: Options,
    files: HashMap<String, String>,
    batches: HashMap<String, Batch>,
    seen: Seen,
    next: usize,
    /// Create calls whose answer is still to be lost (a 500 after the batch is made).
    lose: usize,
    /// How long create answers are held back.
    hold: Option<Duration>,
    /// List calls fail (HTTP 503).
    list_fails: bool,
}

/// The running server.
pub struct BatchServer {
    /// The HTTP server.
    pub server: MockServer,
    state: Arc<Mutex<State>>,
}

impl BatchServer {
    /// Starts a server.
    pub async fn start(options: Options) -> Self {
        let server = MockServer::start().await;
        let state = Arc::new(Mutex::new(State {
            started: Instant::now(),
            options,
            files: HashMap::new(),
            batches: HashMap::new(),
            seen: Seen::default(),
            next: 1,
            lose: 0,
            hold: None,
            list_fails: false,
        }));
        Mock::given(any())
            .respond_with(Responder(Arc::clone(&state)))
            .mount(&server)
            .await;
        Self { server, state }
    }

    /// What it has seen so far.
    pub fn seen(&self) -> Seen {
        self.state.lock().unwrap().seen.clone()
    }

    /// Refuses (or stops refusing) every batch from now on.
    pub fn set_refuse(&self, refuse: bool) {
        self.state.lock().unwrap().options.refuse = refuse;
    }

    /// Loses the answer of the next `n` create calls: the batch is made, the answer is a 500.
    pub fn lose_creates(&self, n: usize) {
        self.state.lock().unwrap().lose = n;
    }

    /// Holds back every create answer this long (the batch is made at once), as a provider
    /// whose answer is slow to come; `None` answers at once.
    pub fn hold_creates(&self, hold: Option<Duration>) {
        self.state.lock().unwrap().hold = hold;
    }

    /// Makes list calls fail (or work again).
    pub fn set_list_fails(&self, fails: bool) {
        self.state.lock().unwrap().list_fails = fails;
    }

    /// Forgets every batch, as a provider does after its retention period: reads of them
    /// answer 404.
    pub fn forget_all(&self) {
        self.state.lock().unwrap().batches.clear();
    }

    /// Batches not yet ended or cancelled.
    pub fn running(&self) -> usize {
        let state = self.state.lock().unwrap();
        let delay = state.options.delay;
        state
            .batches
            .values()
            .filter(|b| !b.cancelled && b.created.elapsed() < delay)
            .count()
    }

    /// The base URL for a provider (`openai`, `anthropic`, `google`).
    pub fn base(&self, provider: &str) -> String {
        match provider {
            "google" => format!("{}/v1beta", self.server.uri()),
            _ => format!("{}/v1", self.server.uri()),
        }
    }
}

struct Responder(Arc<Mutex<State>>);

fn json_response(status: u16, body: Value) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(body)
}

fn not_found() -> ResponseTemplate {
    json_response(
        404,
        json!({"error": {"message": "not found", "type": "not_found_error"}}),
    )
}

/// The last user text of a request body in any of the three formats.
fn prompt_of(body: &Value) -> String {
    let last = |v: Option<&Value>| v.and_then(Value::as_array).and_then(|a| a.last()).cloned();
    if let Some(m) = last(body.get("messages")) {
        return m
            .get("content")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
    }
    if let Some(c) = last(body.get("contents")) {
        return c
            .pointer("/parts/0/text")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
    }
    String::new()
}

impl State {
    fn id(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{}", self.next)
    }

    fn add_batch(
        &mut self,
        provider: &'static str,
        id: &str,
        tag: Option<String>,
        items: Vec<(String, String, Value)>,
    ) {
        *self.seen.created.entry(provider).or_default() += 1;
        self.seen.created_at.push(self.started.elapsed());
        self.seen.requests += items.len();
        for (rid, _, _) in &items {
            *self.seen.ids.entry(rid.clone()).or_default() += 1;
        }
        self.batches.insert(
            id.to_string(),
            Batch {
                provider,
                created: Instant::now(),
                created_wall: jiff::Timestamp::now(),
                tag,
                seq: self.next,
                items,
                cancelled: false,
            },
        );
    }

    /// Whether the batch has ended, and how many of its requests ran.
    fn ended(&self, batch: &Batch) -> (bool, usize) {
        let over = batch.cancelled || batch.created.elapsed() >= self.options.delay;
        let ran = if batch.cancelled {
            0
        } else if over {
            self.options
                .expire_after
                .unwrap_or(usize::MAX)
                .min(batch.items.len())
        } else {
            0
        };
        (over, ran)
    }

    /// The answer to a create call that made a batch: `made`, unless it is to be lost or
    /// held back.
    fn created(&mut self, made: ResponseTemplate) -> ResponseTemplate {
        if self.lose > 0 {
            self.lose -= 1;
            return json_response(
                500,
                json!({"error": {"message": "internal error (test)", "type": "api_error"}}),
            );
        }
        match self.hold {
            Some(hold) => made.set_delay(hold),
            None => made,
        }
    }

    /// The answer to a list call: the batches of a provider, newest first, as `show`
    /// renders them, in the page `page` makes of them; a 503 when lists are made to fail.
    fn list(
        &mut self,
        provider: &str,
        show: fn(&State, &str) -> Value,
        page: fn(Vec<Value>) -> Value,
    ) -> ResponseTemplate {
        self.seen.lists += 1;
        if self.list_fails {
            return json_response(
                503,
                json!({"error": {"message": "unavailable (test)", "type": "api_error"}}),
            );
        }
        let mut ids: Vec<(&String, usize)> = self
            .batches
            .iter()
            .filter(|(_, b)| b.provider == provider)
            .map(|(id, b)| (id, b.seq))
            .collect();
        ids.sort_by_key(|(_, seq)| std::cmp::Reverse(*seq));
        let shown = ids.into_iter().map(|(id, _)| show(self, id)).collect();
        json_response(200, page(shown))
    }

    fn text(&self, model: &str, body: &Value) -> Result<String, String> {
        let prompt = prompt_of(body);
        if prompt.contains(FAIL_MARK) {
            return Err("the request was refused (test)".into());
        }
        Ok((self.options.answer)(model, &prompt))
    }
}

impl Respond for Responder {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let mut state = self.0.lock().unwrap();
        let path = request.url.path().to_string();
        let method = request.method.as_str().to_string();
        let header = |name: &str| {
            request
                .headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_string()
        };
        let key = state.options.key.clone();
        let authorised = header("authorization") == format!("Bearer {key}")
            || header("x-api-key") == key
            || header("x-goog-api-key") == key;
        if !authorised {
            state.seen.unauthorised += 1;
            return json_response(
                401,
                json!({"error": {"message": "no key", "type": "authentication_error"}}),
            );
        }
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        match (method.as_str(), path.as_str()) {
            // One request at a time, not streamed (`stream = false`): the same answers, for
            // comparing a batched run with a run without batches.
            ("POST", "/v1/chat/completions") => {
                let model = body["model"].as_str().unwrap_or("").to_string();
                let text = state.text(&model, &body).unwrap_or_default();
                state.seen.single += 1;
                json_response(
                    200,
                    json!({
                        "id": "chatcmpl-1", "object": "chat.completion",
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 20, "completion_tokens": 10},
                    }),
                )
            }
            ("POST", "/v1/messages") => {
                let model = body["model"].as_str().unwrap_or("").to_string();
                let text = state.text(&model, &body).unwrap_or_default();
                state.seen.single += 1;
                json_response(
                    200,
                    json!({
                        "id": "msg_1", "type": "message", "role": "assistant",
                        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                        "usage": {"input_tokens": 20, "output_tokens": 10},
                    }),
                )
            }
            ("POST", p) if p.starts_with("/v1beta/models/") && p.ends_with(":generateContent") => {
                let model = p
                    .trim_start_matches("/v1beta/models/")
                    .trim_end_matches(":generateContent")
                    .to_string();
                let text = state.text(&model, &body).unwrap_or_default();
                state.seen.single += 1;
                json_response(
                    200,
                    json!({
                        "candidates": [{"content": {"parts": [{"text": text}], "role": "model"}, "finishReason": "STOP"}],
                        "usageMetadata": {"promptTokenCount": 20, "candidatesTokenCount": 10},
                    }),
                )
            }
            // OpenAI
            ("POST", "/v1/files") => {
                let text = String::from_utf8_lossy(&request.body);
                let lines: Vec<&str> = text
                    .lines()
                    .filter(|l| l.starts_with("{\"custom_id\""))
                    .collect();
                let id = state.id("file-");
                state.files.insert(id.clone(), lines.join("\n"));
                json_response(200, json!({"id": id, "object": "file", "purpose": "batch"}))
            }
            ("POST", "/v1/batches") => {
                let file = body["input_file_id"].as_str().unwrap_or("").to_string();
                let Some(content) = state.files.get(&file).cloned() else {
                    return not_found();
                };
                let items = content
                    .lines()
                    .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                    .map(|l| {
                        let model = l["body"]["model"].as_str().unwrap_or("").to_string();
                        (
                            l["custom_id"].as_str().unwrap_or("").to_string(),
                            model,
                            l["body"].clone(),
                        )
                    })
                    .collect();
                let id = state.id("batch_");
                let tag = body
                    .pointer("/metadata/ethics_bowl_local")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                state.add_batch("openai", &id, tag, items);
                let made = json_response(200, openai_batch(&state, &id));
                state.created(made)
            }
            ("GET", "/v1/batches") => state.list(
                "openai",
                openai_batch,
                |data| json!({"object": "list", "data": data, "has_more": false}),
            ),
            ("POST", p) if p.starts_with("/v1/batches/") && p.ends_with("/cancel") => {
                let id = p
                    .trim_start_matches("/v1/batches/")
                    .trim_end_matches("/cancel")
                    .to_string();
                cancel(&mut state, &id);
                json_response(200, openai_batch(&state, &id))
            }
            ("GET", p) if p.starts_with("/v1/batches/") => {
                state.seen.polls += 1;
                let id = p.trim_start_matches("/v1/batches/").to_string();
                if !state.batches.contains_key(&id) {
                    return not_found();
                }
                json_response(200, openai_batch(&state, &id))
            }
            ("GET", p) if p.starts_with("/v1/files/") && p.ends_with("/content") => {
                let id = p
                    .trim_start_matches("/v1/files/")
                    .trim_end_matches("/content");
                match openai_file(&state, id) {
                    Some(text) => ResponseTemplate::new(200).set_body_string(text),
                    None => not_found(),
                }
            }
            // Anthropic
            ("POST", "/v1/messages/batches") if state.options.refuse => json_response(
                400,
                json!({"type": "error", "error": {"type": "invalid_request_error", "message": "the batch was refused (test)"}}),
            ),
            ("POST", "/v1/messages/batches") => {
                let items = body["requests"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|r| {
                        let model = r["params"]["model"].as_str().unwrap_or("").to_string();
                        (
                            r["custom_id"].as_str().unwrap_or("").to_string(),
                            model,
                            r["params"].clone(),
                        )
                    })
                    .collect();
                let id = state.id("msgbatch_");
                state.add_batch("anthropic", &id, None, items);
                let made = json_response(200, anthropic_batch(&state, &id));
                state.created(made)
            }
            ("GET", "/v1/messages/batches") => state.list(
                "anthropic",
                anthropic_batch,
                |data| json!({"data": data, "has_more": false}),
            ),
            ("POST", p) if p.starts_with("/v1/messages/batches/") && p.ends_with("/cancel") => {
                let id = p
                    .trim_start_matches("/v1/messages/batches/")
                    .trim_end_matches("/cancel")
                    .to_string();
                cancel(&mut state, &id);
                json_response(200, anthropic_batch(&state, &id))
            }
            ("GET", p) if p.starts_with("/v1/messages/batches/") && p.ends_with("/results") => {
                let id = p
                    .trim_start_matches("/v1/messages/batches/")
                    .trim_end_matches("/results");
                anthropic_results(&state, id)
            }
            ("GET", p) if p.starts_with("/v1/messages/batches/") => {
                state.seen.polls += 1;
                let id = p.trim_start_matches("/v1/messages/batches/").to_string();
                if !state.batches.contains_key(&id) {
                    return not_found();
                }
                json_response(200, anthropic_batch(&state, &id))
            }
            // Gemini
            ("POST", p)
                if p.starts_with("/v1beta/models/") && p.ends_with(":batchGenerateContent") =>
            {
                let model = p
                    .trim_start_matches("/v1beta/models/")
                    .trim_end_matches(":batchGenerateContent")
                    .to_string();
                let items = body
                    .pointer("/batch/input_config/requests/requests")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|r| {
                        (
                            r.pointer("/metadata/key")
                                .and_then(Value::as_str)
                                .unwrap_or("")
                                .to_string(),
                            model.clone(),
                            r["request"].clone(),
                        )
                    })
                    .collect();
                let id = state.id("batches/");
                let tag = ["/batch/display_name", "/batch/displayName"]
                    .iter()
                    .find_map(|p| body.pointer(p).and_then(Value::as_str))
                    .map(str::to_string);
                state.add_batch("google", &id, tag, items);
                let made = json_response(200, gemini_batch(&state, &id));
                state.created(made)
            }
            ("GET", "/v1beta/batches") => {
                state.list("google", gemini_batch, |ops| json!({"operations": ops}))
            }
            ("POST", p) if p.starts_with("/v1beta/batches/") && p.ends_with(":cancel") => {
                let id = p
                    .trim_start_matches("/v1beta/")
                    .trim_end_matches(":cancel")
                    .to_string();
                cancel(&mut state, &id);
                json_response(200, json!({}))
            }
            ("GET", p) if p.starts_with("/v1beta/batches/") => {
                state.seen.polls += 1;
                let id = p.trim_start_matches("/v1beta/").to_string();
                if !state.batches.contains_key(&id) {
                    return not_found();
                }
                json_response(200, gemini_batch(&state, &id))
            }
            _ => not_found(),
        }
    }
}

fn cancel(state: &mut State, id: &str) {
    if let Some(b) = state.batches.get_mut(id) {
        b.cancelled = true;
        state.seen.cancelled += 1;
    }
}

fn openai_batch(state: &State, id: &str) -> Value {
    let Some(batch) = state.batches.get(id) else {
        return json!({});
    };
    let (over, ran) = state.ended(batch);
    let total = batch.items.len();
    let failed_inside = batch.items[..ran]
        .iter()
        .filter(|(_, m, b)| state.text(m, b).is_err())
        .count();
    if state.options.refuse {
        return json!({"id": id, "object": "batch", "status": "failed",
            "errors": {"data": [{"code": "invalid_request", "message": "the file was refused (test)"}]},
            "request_counts": {"total": 0, "completed": 0, "failed": 0}});
    }
    let status = match (over, batch.cancelled, ran < total) {
        (false, _, _) => "in_progress",
        (true, true, _) => "cancelled",
        (true, false, true) => "expired",
        (true, false, false) => "completed",
    };
    let mut out = json!({
        "id": id, "object": "batch", "status": status,
        "created_at": batch.created_wall.as_second(),
        "metadata": batch.tag.as_ref().map(|t| json!({"created_by": "ethics-bowl", "ethics_bowl_local": t})),
        "request_counts": {"total": total, "completed": if over { ran - failed_inside } else { 0 }, "failed": if over { failed_inside + (total - ran) } else { 0 }},
    });
    if over {
        // Their contents are made when read (see `openai_file`).
        out["output_file_id"] = json!(format!("out-{id}"));
        out["error_file_id"] = json!(format!("err-{id}"));
    }
    out
}

fn anthropic_batch(state: &State, id: &str) -> Value {
    let Some(batch) = state.batches.get(id) else {
        return json!({});
    };
    let (over, ran) = state.ended(batch);
    let total = batch.items.len();
    let errored = batch.items[..ran]
        .iter()
        .filter(|(_, m, b)| state.text(m, b).is_err())
        .count();
    json!({
        "id": id, "type": "message_batch",
        "created_at": batch.created_wall.to_string(),
        "processing_status": if over { "ended" } else { "in_progress" },
        "request_counts": {
            "processing": if over { 0 } else { total },
            "succeeded": if over { ran - errored } else { 0 },
            "errored": if over { errored } else { 0 },
            "canceled": if batch.cancelled { total } else { 0 },
            "expired": if over && !batch.cancelled { total - ran } else { 0 },
        },
        "results_url": format!("https://elsewhere.invalid/v1/messages/batches/{id}/results"),
    })
}

fn anthropic_results(state: &State, id: &str) -> ResponseTemplate {
    let Some(batch) = state.batches.get(id) else {
        return not_found();
    };
    let (over, ran) = state.ended(batch);
    if !over {
        return json_response(
            400,
            json!({"error": {"type": "invalid_request_error", "message": "not ended"}}),
        );
    }
    let mut lines = Vec::new();
    for (n, (rid, model, body)) in batch.items.iter().enumerate() {
        let result = if batch.cancelled {
            json!({"type": "canceled"})
        } else if n >= ran {
            json!({"type": "expired"})
        } else {
            match state.text(model, body) {
                Ok(text) => json!({"type": "succeeded", "message": {
                    "id": format!("msg_{rid}"), "type": "message", "role": "assistant",
                    "content": [{"type": "text", "text": text}],
                    "stop_reason": "end_turn",
                    "usage": {"input_tokens": 20, "output_tokens": 10},
                }}),
                Err(why) => {
                    json!({"type": "errored", "error": {"type": "error", "error": {"type": "invalid_request_error", "message": why}}})
                }
            }
        };
        lines.push(json!({"custom_id": rid, "result": result}).to_string());
    }
    ResponseTemplate::new(200).set_body_string(lines.join("\n"))
}

fn gemini_batch(state: &State, id: &str) -> Value {
    let Some(batch) = state.batches.get(id) else {
        return json!({});
    };
    let (over, ran) = state.ended(batch);
    let total = batch.items.len();
    if state.options.refuse {
        return json!({"name": id, "metadata": {"state": "BATCH_STATE_FAILED"}, "done": true,
            "error": {"code": 3, "message": "the batch was refused (test)"}});
    }
    let word = match (over, batch.cancelled, ran < total) {
        (false, _, _) => "BATCH_STATE_RUNNING",
        (true, true, _) => "BATCH_STATE_CANCELLED",
        (true, false, true) => "BATCH_STATE_EXPIRED",
        (true, false, false) => "BATCH_STATE_SUCCEEDED",
    };
    let mut answers = Vec::new();
    let mut failed = 0;
    for (rid, model, body) in &batch.items[..ran] {
        answers.push(match state.text(model, body) {
            Ok(text) => json!({"response": {
                "candidates": [{"content": {"parts": [{"text": text}], "role": "model"}, "finishReason": "STOP"}],
                "usageMetadata": {"promptTokenCount": 20, "candidatesTokenCount": 10},
            }, "metadata": {"key": rid}}),
            Err(why) => {
                failed += 1;
                json!({"error": {"code": 400, "message": why, "status": "INVALID_ARGUMENT"}, "metadata": {"key": rid}})
            }
        });
    }
    let mut out = json!({
        "name": id,
        "metadata": {
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch",
            "state": word,
            "displayName": batch.tag,
            "createTime": batch.created_wall.to_string(),
            "batchStats": {
                "requestCount": total.to_string(),
                "successfulRequestCount": (ran - failed).to_string(),
                "failedRequestCount": failed.to_string(),
                "pendingRequestCount": if over { "0".to_string() } else { total.to_string() },
            },
        },
        "done": over,
    });
    if over {
        out["response"] = json!({
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatchOutput",
            "inlinedResponses": {"inlinedResponses": answers},
        });
    }
    out
}

/// The output (`out-<batch>`) or error (`err-<batch>`) file of an ended OpenAI batch.
fn openai_file(state: &State, file: &str) -> Option<String> {
    let (kind, id) = file.split_once('-')?;
    let batch = state.batches.get(id)?;
    let (over, ran) = state.ended(batch);
    if !over {
        return None;
    }
    let mut out = Vec::new();
    let mut err = Vec::new();
    for (n, (rid, model, body)) in batch.items.iter().enumerate() {
        if batch.cancelled || n >= ran {
            let code = if batch.cancelled {
                "batch_cancelled"
            } else {
                "batch_expired"
            };
            err.push(json!({"id": format!("r{n}"), "custom_id": rid, "response": null, "error": {"code": code, "message": "This request was not run."}}).to_string());
            continue;
        }
        match state.text(model, body) {
            Ok(text) => out.push(json!({"id": format!("r{n}"), "custom_id": rid, "response": {"status_code": 200, "request_id": format!("req_{n}"), "body": {
                "id": format!("chatcmpl-{n}"), "object": "chat.completion",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 20, "completion_tokens": 10},
            }}, "error": null}).to_string()),
            Err(why) => err.push(json!({"id": format!("r{n}"), "custom_id": rid, "response": {"status_code": 400, "request_id": format!("req_{n}"), "body": {"error": {"message": why, "type": "invalid_request_error"}}}, "error": null}).to_string()),
        }
    }
    Some(if kind == "out" { out } else { err }.join("\n"))
}
