//! Round files written by the Python predecessor of this tool, brought to our shape on
//! load: the judgment under `judgment` (not `scores`), per-phase `response_time_seconds`,
//! the judge's raw text found in the `judgment` phase, and its `parse_errors` (scores it
//! filled with a default) turned into a review flag.

use serde_json::{Value, json};

/// Rewrites a predecessor round file's JSON into ours; our own files pass unchanged.
pub fn upgrade(mut v: Value) -> Value {
    let Some(obj) = v.as_object_mut() else {
        return v;
    };
    if !obj.contains_key("scores")
        && let Some(j) = obj.remove("judgment")
    {
        obj.insert("scores".into(), j);
    }
    if let Some(status) = obj.get("status").and_then(Value::as_str) {
        let ours = match status {
            "complete" | "completed" => "complete",
            "needs_review" => "needs_review",
            _ => "incomplete",
        };
        obj.insert("status".into(), json!(ours));
    }
    if let Some(phases) = obj.get_mut("phases").and_then(Value::as_array_mut) {
        for p in phases.iter_mut().filter_map(Value::as_object_mut) {
            if !p.contains_key("latency_ms")
                && let Some(secs) = p.get("response_time_seconds").and_then(Value::as_f64)
            {
                p.insert("latency_ms".into(), json!((secs * 1000.0).round() as u64));
            }
        }
    }
    let judge = obj
        .get("judge_model")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let raw = obj
        .get("phases")
        .and_then(Value::as_array)
        .and_then(|ps| {
            ps.iter()
                .find(|p| p.get("phase_type").and_then(Value::as_str) == Some("judgment"))
        })
        .and_then(|p| p.get("response"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    if let Some(scores) = obj.get_mut("scores").and_then(Value::as_object_mut) {
        scores.entry("judge_model").or_insert(json!(judge));
        scores.entry("raw_response").or_insert(json!(raw));
        if let Some(errors) = scores.remove("parse_errors")
            && let Some(list) = errors.as_array().filter(|l| !l.is_empty())
        {
            // The predecessor filled what it could not parse with a default score; keep
            // the number as stored, but send the round to review.
            scores.insert("problems".into(), json!(list));
            scores.entry("parse_status").or_insert(json!("partial"));
            obj.insert("status".into(), json!("needs_review"));
        }
    }
    if !obj.contains_key("judgments")
        && let Some(scores) = obj.get("scores").filter(|s| s.is_object()).cloned()
    {
        obj.insert("judgments".into(), json!([scores]));
    }
    if !obj.contains_key("judge_models") && !judge.is_empty() {
        obj.insert("judge_models".into(), json!([judge]));
    }
    v
}
