//! OpenAI's Batch API: the requests as a JSONL file uploaded to `/files` (purpose `batch`),
//! a batch created over it (`/batches`, window 24 h), read until it ends, its output and
//! error files downloaded.

use reqwest::Method;
use reqwest::header::HeaderMap;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

use super::api::{Http, LIST_PAGE, Listed, Progress, Stage, count, outcome_of, result_lines};
use super::item::{Item, ItemOutcome};
use crate::providers::ProviderError;
use crate::providers::openai_chat::parse_body;

fn call(http: &Http<'_>, method: Method, path: &str) -> reqwest::RequestBuilder {
    let url = format!("{}{path}", http.base());
    http.request(method, &url, "authorization", "Bearer ", HeaderMap::new())
}

/// The JSONL the batch reads: one chat-completions request per line.
pub(crate) fn input_file(items: &[Item]) -> String {
    let mut out = String::new();
    for item in items {
        let line = json!({
            "custom_id": item.id,
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": item.body,
        });
        out.push_str(&line.to_string());
        out.push('\n');
    }
    out
}

/// The metadata key that carries our tag on a batch.
const TAG_KEY: &str = "ethics_bowl_local";

/// Uploads the requests as a file and creates a batch over it, tagged `tag` in its
/// metadata; returns the batch's id.
pub(crate) async fn create(
    http: &Http<'_>,
    items: &[Item],
    tag: &str,
) -> Result<String, ProviderError> {
    let file = Part::bytes(input_file(items).into_bytes())
        .file_name("ethics-bowl-batch.jsonl")
        .mime_str("application/jsonl")
        .map_err(|e| ProviderError::malformed(e.to_string()))?;
    let form = Form::new().text("purpose", "batch").part("file", file);
    let uploaded = http
        .json(call(http, Method::POST, "/files").multipart(form))
        .await?;
    let file_id = uploaded
        .get("id")
        .and_then(Value::as_str)
        .ok_or_else(|| ProviderError::malformed("the file upload answered without an id"))?;
    let batch = http
        .json(call(http, Method::POST, "/batches").json(&json!({
            "input_file_id": file_id,
            "endpoint": "/v1/chat/completions",
            "completion_window": "24h",
            "metadata": {"created_by": "ethics-bowl", TAG_KEY: tag},
        })))
        .await?;
    batch
        .get("id")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| ProviderError::malformed("the batch was created without an id"))
}

/// The account's most recent batches, newest first (one page).
pub(crate) async fn list(http: &Http<'_>) -> Result<Vec<Listed>, ProviderError> {
    let page = http
        .json(call(
            http,
            Method::GET,
            &format!("/batches?limit={LIST_PAGE}"),
        ))
        .await?;
    Ok(read_list(&page))
}

/// Reads a page of `GET /batches`.
pub(crate) fn read_list(page: &Value) -> Vec<Listed> {
    page.get("data")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|b| {
            Some(Listed {
                remote: b.get("id").and_then(Value::as_str)?.to_string(),
                tag: b
                    .pointer(&format!("/metadata/{TAG_KEY}"))
                    .and_then(Value::as_str)
                    .map(str::to_string),
                created: b
                    .get("created_at")
                    .and_then(Value::as_i64)
                    .and_then(|s| jiff::Timestamp::from_second(s).ok()),
                total: count(b.pointer("/request_counts/total")),
            })
        })
        .collect()
}

/// Reads a batch.
pub(crate) async fn progress(http: &Http<'_>, remote: &str) -> Result<Progress, ProviderError> {
    let raw = http
        .json(call(http, Method::GET, &format!("/batches/{remote}")))
        .await?;
    Ok(read_progress(raw))
}

/// Reads a batch object.
pub(crate) fn read_progress(raw: Value) -> Progress {
    let state = raw
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or("unknown")
        .to_string();
    let stage = match state.as_str() {
        "completed" | "expired" | "cancelled" => Stage::Ended,
        "failed" => {
            let errors: Vec<&Value> = raw
                .pointer("/errors/data")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .collect();
            let why: Vec<&str> = errors
                .iter()
                .filter_map(|e| e.get("message").and_then(Value::as_str))
                .collect();
            // A full queue of enqueued batch tokens clears as other batches finish.
            let retryable = errors
                .iter()
                .any(|e| e.get("code").and_then(Value::as_str) == Some("token_limit_exceeded"));
            Stage::Refused {
                why: if why.is_empty() {
                    "OpenAI refused the batch".to_string()
                } else {
                    format!("OpenAI refused the batch: {}", why.join("; "))
                },
                retryable,
            }
        }
        _ => Stage::Running,
    };
    let counts = raw.get("request_counts");
    Progress {
        stage,
        total: count(counts.and_then(|c| c.get("total"))),
        succeeded: count(counts.and_then(|c| c.get("completed"))),
        failed: count(counts.and_then(|c| c.get("failed"))),
        state,
        raw,
    }
}

/// The results of an ended batch, from its output and error files. A batch that says it
/// ran requests but names neither file is not read as empty (which would send every request
/// again): it is an error, and the results are asked for again.
pub(crate) async fn results(
    http: &Http<'_>,
    progress: &Progress,
    requests: &[(String, u32)],
) -> Result<Vec<(String, ItemOutcome)>, ProviderError> {
    let no_files = ["output_file_id", "error_file_id"]
        .iter()
        .all(|k| progress.raw.get(*k).and_then(Value::as_str).is_none());
    if no_files && progress.succeeded + progress.failed > 0 {
        return Err(ProviderError::malformed(
            "the batch ended with answers but names no output or error file",
        ));
    }
    let mut out = Vec::new();
    for key in ["output_file_id", "error_file_id"] {
        let Some(file) = progress.raw.get(key).and_then(Value::as_str) else {
            continue;
        };
        let text = http
            .text(call(http, Method::GET, &format!("/files/{file}/content")))
            .await?;
        out.extend(read_results(&text, requests));
    }
    Ok(out)
}

/// Reads an output or error file: one line per request.
pub(crate) fn read_results(text: &str, requests: &[(String, u32)]) -> Vec<(String, ItemOutcome)> {
    let mut out = Vec::new();
    for (id, max_tokens, value) in result_lines(text, requests) {
        let response = value.get("response").filter(|r| !r.is_null());
        let outcome = match (response, value.get("error").filter(|e| !e.is_null())) {
            (Some(r), _) => {
                let status = r.get("status_code").and_then(Value::as_u64).unwrap_or(0) as u16;
                let body = r.get("body").cloned().unwrap_or(Value::Null);
                outcome_of(status, &body, max_tokens, parse_body)
            }
            (None, Some(e)) => {
                let code = e.get("code").and_then(Value::as_str).unwrap_or("");
                let message = e
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("no message");
                if code == "batch_expired" || code == "batch_cancelled" {
                    ItemOutcome::unfinished(&format!("{message} ({code})"))
                } else {
                    ItemOutcome::from_result(Err(ProviderError::from_http(
                        400,
                        &HeaderMap::new(),
                        &json!({"error": e}).to_string(),
                    )))
                }
            }
            (None, None) => continue,
        };
        out.push((id, outcome));
    }
    out
}

/// Deletes a file from the account.
pub(crate) async fn delete_file(http: &Http<'_>, file: &str) -> Result<(), ProviderError> {
    http.send(call(http, Method::DELETE, &format!("/files/{file}")))
        .await
        .map(drop)
}

/// Asks OpenAI to cancel a batch.
pub(crate) async fn cancel(http: &Http<'_>, remote: &str) -> Result<(), ProviderError> {
    http.send(call(
        http,
        Method::POST,
        &format!("/batches/{remote}/cancel"),
    ))
    .await
    .map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_and_error_lines_become_outcomes() {
        let requests = vec![
            ("a".to_string(), 64),
            ("b".to_string(), 64),
            ("c".to_string(), 64),
        ];
        let text = [
            r#"{"id":"r1","custom_id":"a","response":{"status_code":200,"request_id":"q","body":{"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":4}}}},"error":null}"#,
            r#"{"id":"r2","custom_id":"b","response":{"status_code":400,"body":{"error":{"message":"bad","type":"invalid_request_error"}}},"error":null}"#,
            r#"{"id":"r3","custom_id":"c","response":null,"error":{"code":"batch_expired","message":"This request could not be executed before the completion window expired."}}"#,
            r#"{"custom_id":"stranger","response":null,"error":{"code":"x","message":"y"}}"#,
            "not json",
        ]
        .join("\n");
        let out = read_results(&text, &requests);
        assert_eq!(out.len(), 3);
        assert!(matches!(&out[0].1, ItemOutcome::Answer { text, .. } if text == "hi"));
        assert!(
            matches!(&out[0].1, ItemOutcome::Answer { usage: Some(u), .. } if u.input_tokens == 5 && u.cached_input_tokens == 4),
            "a batch answer's cached tokens are read as a streamed one's"
        );
        assert!(matches!(
            &out[1].1,
            ItemOutcome::Error {
                retryable: false,
                status: Some(400),
                ..
            }
        ));
        assert!(matches!(
            &out[2].1,
            ItemOutcome::Error {
                retryable: true,
                ..
            }
        ));
    }

    #[test]
    fn a_listed_batch_shows_its_tag_creation_and_size() {
        let page = json!({"object": "list", "data": [
            {"id": "batch_2", "created_at": 1_700_000_000, "metadata": {"ethics_bowl_local": "ethics-bowl-b0-ab"}, "request_counts": {"total": 3}},
            {"id": "batch_1", "metadata": null},
            {"object": "batch"}
        ], "has_more": true});
        let listed = read_list(&page);
        assert_eq!(listed.len(), 2, "an entry without an id is skipped");
        assert_eq!(listed[0].tag.as_deref(), Some("ethics-bowl-b0-ab"));
        assert_eq!(listed[0].total, 3);
        assert_eq!(
            listed[0].created,
            Some(jiff::Timestamp::from_second(1_700_000_000).unwrap())
        );
        assert_eq!((listed[1].tag.as_ref(), listed[1].created), (None, None));
    }

    #[test]
    fn a_failed_batch_is_refused_with_its_reasons() {
        let p = read_progress(
            json!({"status": "failed", "errors": {"data": [{"message": "line 1: bad model"}]}, "request_counts": {"total": 2, "completed": 0, "failed": 0}}),
        );
        assert_eq!(
            p.stage,
            Stage::Refused {
                why: "OpenAI refused the batch: line 1: bad model".into(),
                retryable: false
            }
        );
        let p = read_progress(
            json!({"status": "failed", "errors": {"data": [{"code": "token_limit_exceeded", "message": "Enqueued token limit reached"}]}}),
        );
        assert!(matches!(
            p.stage,
            Stage::Refused {
                retryable: true,
                ..
            }
        ));
        let p = read_progress(
            json!({"status": "in_progress", "request_counts": {"total": 3, "completed": 1, "failed": 1}}),
        );
        assert_eq!(
            (p.stage, p.total, p.succeeded, p.failed),
            (Stage::Running, 3, 1, 1)
        );
    }
}
