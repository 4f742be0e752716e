//! Gemini's batch mode: the requests inline in one `batchGenerateContent` call (up to
//! 20 MB), the batch read at `/{name}` until its state ends, the answers inline in it.

use std::collections::HashMap;

use reqwest::Method;
use reqwest::header::HeaderMap;
use serde_json::{Value, json};

use super::api::{Http, LIST_PAGE, Listed, Progress, Stage, count, outcome_of};
use super::item::{Item, ItemOutcome};
use crate::providers::ProviderError;
use crate::providers::gemini::parse_body;

fn call(http: &Http<'_>, method: Method, path: &str) -> reqwest::RequestBuilder {
    let url = format!("{}/{path}", http.base());
    http.request(method, &url, "x-goog-api-key", "", HeaderMap::new())
}

/// Creates a batch of inline requests named `tag` (its display name); returns its name
/// (`batches/…`).
pub(crate) async fn create(
    http: &Http<'_>,
    items: &[Item],
    tag: &str,
) -> Result<String, ProviderError> {
    let requests: Vec<Value> = items
        .iter()
        .map(|i| json!({"request": i.body, "metadata": {"key": i.id}}))
        .collect();
    let model = http.config().model.clone();
    let body = json!({"batch": {
        "display_name": tag,
        "input_config": {"requests": {"requests": requests}},
    }});
    let operation = http
        .json(
            call(
                http,
                Method::POST,
                &format!("models/{model}:batchGenerateContent"),
            )
            .json(&body),
        )
        .await?;
    operation
        .get("name")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| ProviderError::malformed("the batch was created without a name"))
}

/// The account's most recent batches (one page of `GET /batches`, operations whose
/// metadata is the batch).
pub(crate) async fn list(http: &Http<'_>) -> Result<Vec<Listed>, ProviderError> {
    let page = http
        .json(call(
            http,
            Method::GET,
            &format!("batches?pageSize={LIST_PAGE}"),
        ))
        .await?;
    Ok(read_list(&page))
}

/// Reads a page of `GET /batches`: `operations`, each with its batch as `metadata`.
pub(crate) fn read_list(page: &Value) -> Vec<Listed> {
    page.get("operations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|op| {
            let batch = batch_of(op);
            let field = |camel: &str, snake: &str| {
                batch
                    .get(camel)
                    .or_else(|| batch.get(snake))
                    .and_then(Value::as_str)
            };
            Some(Listed {
                remote: op
                    .get("name")
                    .or_else(|| batch.get("name"))
                    .and_then(Value::as_str)?
                    .to_string(),
                tag: field("displayName", "display_name").map(str::to_string),
                created: field("createTime", "create_time").and_then(|t| t.parse().ok()),
                total: count(batch.pointer("/batchStats/requestCount")),
            })
        })
        .collect()
}

/// Reads a batch.
pub(crate) async fn progress(http: &Http<'_>, remote: &str) -> Result<Progress, ProviderError> {
    let raw = http.json(call(http, Method::GET, remote)).await?;
    Ok(read_progress(raw))
}

/// The batch itself: the operation's `metadata` (or the object as it is).
fn batch_of(raw: &Value) -> &Value {
    raw.get("metadata").filter(|m| m.is_object()).unwrap_or(raw)
}

/// Reads a batch (as an operation, or as the batch object).
pub(crate) fn read_progress(raw: Value) -> Progress {
    let batch = batch_of(&raw);
    let state = batch
        .get("state")
        .and_then(Value::as_str)
        .unwrap_or("unknown")
        .to_string();
    let word = state
        .trim_start_matches("BATCH_STATE_")
        .trim_start_matches("JOB_STATE_");
    let stage = match word {
        "SUCCEEDED" | "CANCELLED" | "EXPIRED" => Stage::Ended,
        "FAILED" => Stage::Refused {
            why: format!(
                "Gemini failed the batch: {}",
                raw.pointer("/error/message")
                    .and_then(Value::as_str)
                    .unwrap_or("no reason given")
            ),
            retryable: raw
                .pointer("/error/code")
                .and_then(Value::as_u64)
                .is_some_and(|code| {
                    crate::providers::error::status_is_retryable(http_status(code))
                }),
        },
        _ if raw.get("done").and_then(Value::as_bool) == Some(true) => Stage::Ended,
        _ => Stage::Running,
    };
    let stats = batch.get("batchStats");
    let n = |k: &str| count(stats.and_then(|s| s.get(k)));
    Progress {
        stage,
        total: n("requestCount"),
        succeeded: n("successfulRequestCount"),
        failed: n("failedRequestCount"),
        state,
        raw,
    }
}

/// The HTTP status of a `google.rpc.Status` code (what an inline error carries), so that
/// it is classified as the streamed call's error would be; a code that is already an HTTP
/// status stays.
fn http_status(code: u64) -> u16 {
    match code {
        1 => 499,
        3 | 9 | 11 => 400,
        4 => 504,
        5 => 404,
        6 | 10 => 409,
        7 => 403,
        8 => 429,
        12 => 501,
        14 => 503,
        16 => 401,
        100.. => u16::try_from(code).unwrap_or(500),
        _ => 500,
    }
}

/// The inline answers of an ended batch. Each carries its request's key in `metadata`;
/// a list without any keys is matched by position, which the API keeps. A batch that
/// succeeded with no inline answers (its results in a file, which this tool does not read)
/// is an error, so its requests are not all sent again at once.
pub(crate) fn results(
    progress: &Progress,
    requests: &[(String, u32)],
) -> Result<Vec<(String, ItemOutcome)>, ProviderError> {
    let raw = &progress.raw;
    let list = [
        raw.pointer("/response/inlinedResponses/inlinedResponses"),
        raw.pointer("/metadata/output/inlinedResponses/inlinedResponses"),
        raw.pointer("/output/inlinedResponses/inlinedResponses"),
    ]
    .into_iter()
    .flatten()
    .find_map(Value::as_array);
    let Some(list) = list else {
        if progress.succeeded + progress.failed > 0 {
            return Err(ProviderError::malformed(
                "the batch ended with answers but holds no inline responses",
            ));
        }
        return Ok(Vec::new());
    };
    let keyed = list.iter().any(|a| key_of(a).is_some());
    let by_id: HashMap<&str, &(String, u32)> = requests.iter().map(|r| (r.0.as_str(), r)).collect();
    let mut out = Vec::new();
    for (position, answer) in list.iter().enumerate() {
        let Some((id, max_tokens)) = (match key_of(answer) {
            Some(k) => by_id.get(k).copied(),
            None if keyed => None,
            None => requests.get(position),
        }) else {
            continue;
        };
        let outcome = match (answer.get("response"), answer.get("error")) {
            (Some(response), _) => outcome_of(200, response, *max_tokens, parse_body),
            (None, Some(error)) => {
                let status = http_status(error.get("code").and_then(Value::as_u64).unwrap_or(13));
                outcome_of(status, &json!({"error": error}), *max_tokens, parse_body)
            }
            (None, None) => continue,
        };
        out.push((id.clone(), outcome));
    }
    Ok(out)
}

/// The request key an inline answer carries.
fn key_of(answer: &Value) -> Option<&str> {
    answer
        .pointer("/metadata/key")
        .or_else(|| answer.get("key"))
        .and_then(Value::as_str)
}

/// Asks Gemini to cancel a batch.
pub(crate) async fn cancel(http: &Http<'_>, remote: &str) -> Result<(), ProviderError> {
    http.send(call(http, Method::POST, &format!("{remote}:cancel")))
        .await
        .map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listed_batch_shows_its_display_name_creation_and_size() {
        let page = json!({"operations": [
            {"name": "batches/7", "metadata": {"@type": "x", "displayName": "ethics-bowl-b1-cd", "createTime": "2026-11-23T08:00:00.5Z", "batchStats": {"requestCount": "4"}}},
            {"metadata": {"displayName": "no name"}}
        ], "nextPageToken": "t"});
        let listed = read_list(&page);
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].remote, "batches/7");
        assert_eq!(listed[0].tag.as_deref(), Some("ethics-bowl-b1-cd"));
        assert_eq!(listed[0].total, 4);
        assert!(listed[0].created.is_some());
    }

    #[test]
    fn inline_answers_and_errors_are_matched_by_key_or_position() {
        let requests = vec![("a".to_string(), 64), ("b".to_string(), 64)];
        let raw = json!({
            "name": "batches/1",
            "metadata": {"state": "BATCH_STATE_SUCCEEDED", "batchStats": {"requestCount": "2", "successfulRequestCount": "1", "failedRequestCount": "1"}},
            "done": true,
            "response": {"inlinedResponses": {"inlinedResponses": [
                {"response": {"candidates": [{"content": {"parts": [{"text": "hi"}]}, "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 4, "cachedContentTokenCount": 3, "candidatesTokenCount": 1}}},
                {"error": {"code": 3, "message": "bad schema", "status": "INVALID_ARGUMENT"}}
            ]}}
        });
        let p = read_progress(raw);
        assert_eq!(
            (p.stage.clone(), p.total, p.succeeded, p.failed),
            (Stage::Ended, 2, 1, 1)
        );
        let out = results(&p, &requests).unwrap();
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].0, "a", "no keys: matched by position");
        assert!(matches!(&out[0].1, ItemOutcome::Answer { text, .. } if text == "hi"));
        assert!(
            matches!(&out[0].1, ItemOutcome::Answer { usage: Some(u), .. } if u.input_tokens == 4 && u.cached_input_tokens == 3),
            "a batch answer's cached tokens are read as a streamed one's"
        );
        assert_eq!(out[1].0, "b");
        assert!(matches!(
            &out[1].1,
            ItemOutcome::Error {
                retryable: false,
                ..
            }
        ));
    }
}
