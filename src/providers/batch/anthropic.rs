//! Anthropic's Message Batches: the requests posted whole to `/messages/batches`, read
//! until `processing_status` is `ended`, the results read as JSON lines.

use reqwest::Method;
use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::{Value, json};

use super::api::{Http, LIST_PAGE, Listed, Progress, Stage, count, outcome_of, result_lines};
use super::item::{Item, ItemOutcome};
use crate::providers::ProviderError;
use crate::providers::anthropic::{API_VERSION, parse_body};

fn call(http: &Http<'_>, method: Method, path: &str) -> reqwest::RequestBuilder {
    let url = format!("{}{path}", http.base());
    let mut headers = HeaderMap::new();
    headers.insert("anthropic-version", HeaderValue::from_static(API_VERSION));
    http.request(method, &url, "x-api-key", "", headers)
}

/// Creates a message batch of the requests; returns its id.
pub(crate) async fn create(http: &Http<'_>, items: &[Item]) -> Result<String, ProviderError> {
    let requests: Vec<Value> = items
        .iter()
        .map(|i| json!({"custom_id": i.id, "params": i.body}))
        .collect();
    let batch = http
        .json(call(http, Method::POST, "/messages/batches").json(&json!({"requests": requests})))
        .await?;
    batch
        .get("id")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| ProviderError::malformed("the message batch was created without an id"))
}

/// The account's most recent message batches, newest first (one page). They carry no tag:
/// Message Batches have no metadata or name.
pub(crate) async fn list(http: &Http<'_>) -> Result<Vec<Listed>, ProviderError> {
    let page = http
        .json(call(
            http,
            Method::GET,
            &format!("/messages/batches?limit={LIST_PAGE}"),
        ))
        .await?;
    Ok(read_list(&page))
}

/// Reads a page of `GET /messages/batches`.
pub(crate) fn read_list(page: &Value) -> Vec<Listed> {
    page.get("data")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|b| {
            Some(Listed {
                remote: b.get("id").and_then(Value::as_str)?.to_string(),
                tag: None,
                created: b
                    .get("created_at")
                    .and_then(Value::as_str)
                    .and_then(|t| t.parse().ok()),
                total: read_progress(b.clone()).total,
            })
        })
        .collect()
}

/// Reads a message batch.
pub(crate) async fn progress(http: &Http<'_>, remote: &str) -> Result<Progress, ProviderError> {
    let raw = http
        .json(call(
            http,
            Method::GET,
            &format!("/messages/batches/{remote}"),
        ))
        .await?;
    Ok(read_progress(raw))
}

/// Reads a message batch object.
pub(crate) fn read_progress(raw: Value) -> Progress {
    let state = raw
        .get("processing_status")
        .and_then(Value::as_str)
        .unwrap_or("unknown")
        .to_string();
    let c = raw.get("request_counts");
    let n = |k: &str| count(c.and_then(|c| c.get(k)));
    Progress {
        stage: if state == "ended" {
            Stage::Ended
        } else {
            Stage::Running
        },
        total: n("processing") + n("succeeded") + n("errored") + n("canceled") + n("expired"),
        succeeded: n("succeeded"),
        failed: n("errored") + n("canceled") + n("expired"),
        state,
        raw,
    }
}

/// The results are read from `{base}/messages/batches/{id}/results`, built here rather
/// than taken from the batch's `results_url`, so the key is only ever sent to the
/// configured server.
pub(crate) async fn results(
    http: &Http<'_>,
    remote: &str,
    requests: &[(String, u32)],
) -> Result<Vec<(String, ItemOutcome)>, ProviderError> {
    let text = http
        .text(call(
            http,
            Method::GET,
            &format!("/messages/batches/{remote}/results"),
        ))
        .await?;
    Ok(read_results(&text, requests))
}

/// Reads the results' JSON lines.
pub(crate) fn read_results(text: &str, requests: &[(String, u32)]) -> Vec<(String, ItemOutcome)> {
    let mut out = Vec::new();
    for (id, max_tokens, value) in result_lines(text, requests) {
        let result = value.get("result");
        let outcome = match result.and_then(|r| r.get("type")).and_then(Value::as_str) {
            Some("succeeded") => {
                let message = result
                    .and_then(|r| r.get("message"))
                    .unwrap_or(&Value::Null);
                outcome_of(200, message, max_tokens, parse_body)
            }
            Some("errored") => {
                // The error envelope is the Messages API's; its type says whether asking
                // again can help.
                let envelope = result.and_then(|r| r.get("error")).unwrap_or(&Value::Null);
                let kind = envelope
                    .pointer("/error/type")
                    .or_else(|| envelope.get("type").filter(|t| t.as_str() != Some("error")))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let status = match kind {
                    "invalid_request_error" => 400,
                    "authentication_error" => 401,
                    "permission_error" => 403,
                    "not_found_error" => 404,
                    "request_too_large" => 413,
                    "rate_limit_error" => 429,
                    "overloaded_error" => 529,
                    _ => 500,
                };
                outcome_of(status, envelope, max_tokens, parse_body)
            }
            Some(other @ ("canceled" | "expired")) => {
                ItemOutcome::unfinished(&format!("the batch {other} this request before it ran"))
            }
            _ => continue,
        };
        out.push((id, outcome));
    }
    out
}

/// Asks Anthropic to cancel a message batch.
pub(crate) async fn cancel(http: &Http<'_>, remote: &str) -> Result<(), ProviderError> {
    http.send(call(
        http,
        Method::POST,
        &format!("/messages/batches/{remote}/cancel"),
    ))
    .await
    .map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_of_each_type_become_outcomes() {
        let requests = vec![
            ("a".to_string(), 64),
            ("b".to_string(), 64),
            ("c".to_string(), 64),
        ];
        let text = [
            r#"{"custom_id":"a","result":{"type":"succeeded","message":{"id":"msg_1","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":5,"cache_read_input_tokens":20,"cache_creation_input_tokens":2,"output_tokens":1}}}}"#,
            r#"{"custom_id":"b","result":{"type":"errored","error":{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens too large"}}}}"#,
            r#"{"custom_id":"c","result":{"type":"expired"}}"#,
        ]
        .join("\n");
        let out = read_results(&text, &requests);
        assert_eq!(out.len(), 3);
        assert!(
            matches!(&out[0].1, ItemOutcome::Answer { text, request_id: Some(id), .. } if text == "hi" && id == "msg_1")
        );
        assert!(
            matches!(&out[0].1, ItemOutcome::Answer { usage: Some(u), .. } if (u.input_tokens, u.cached_input_tokens, u.cache_write_tokens) == (27, 20, 2)),
            "a batch answer's cache counts are read as a streamed one's, into the input"
        );
        assert!(
            matches!(&out[1].1, ItemOutcome::Error { retryable: false, message, .. } if message.contains("max_tokens"))
        );
        assert!(matches!(
            &out[2].1,
            ItemOutcome::Error {
                retryable: true,
                ..
            }
        ));
    }

    #[test]
    fn a_listed_batch_shows_its_creation_and_size() {
        let page = json!({"data": [
            {"id": "msgbatch_1", "created_at": "2026-11-23T08:00:00Z", "processing_status": "in_progress", "request_counts": {"processing": 2, "succeeded": 1, "errored": 0, "canceled": 0, "expired": 0}}
        ], "has_more": false});
        let listed = read_list(&page);
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].remote, "msgbatch_1");
        assert_eq!(listed[0].total, 3);
        assert_eq!(
            listed[0].created,
            Some("2026-11-23T08:00:00Z".parse().unwrap())
        );
        assert_eq!(listed[0].tag, None);
    }

    #[test]
    fn progress_counts_every_state() {
        let p = read_progress(
            json!({"processing_status": "in_progress", "request_counts": {"processing": 2, "succeeded": 3, "errored": 1, "canceled": 0, "expired": 1}}),
        );
        assert_eq!(
            (p.stage, p.total, p.succeeded, p.failed),
            (Stage::Running, 7, 3, 2)
        );
    }
}
