//! What every panel answer holds beside the protocol's own reading: a confidence, findings
//! tied to dimensions, and a rationale, read from the answer's JSON (in code fences, after a
//! preamble, with comments: whatever the lenient reader accepts). Each protocol reads its
//! scores and verdict itself (see [`super::PanelJudged::panel_evaluation`]).

use serde_json::Value;

use crate::domain::Finding;

/// The parts of a panel answer every protocol shares.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CommonFields {
    /// The judge's confidence from 0 to 1 (percentages are read as such), when valid.
    pub confidence: Option<f64>,
    /// Findings tied to dimensions.
    pub findings: Vec<Finding>,
    /// The judge's reasons.
    pub rationale: String,
}

/// The first string among these keys, in any object of the answer.
pub fn text_field(objects: &[Value], keys: &[&str]) -> Option<String> {
    objects.iter().find_map(|o| {
        keys.iter()
            .find_map(|k| o.get(*k).and_then(Value::as_str))
            .map(str::to_string)
    })
}

/// A confidence from 0 to 1 (a number above 1 and up to 100 is a percentage).
fn confidence(objects: &[Value]) -> Option<f64> {
    let raw = objects.iter().find_map(|o| o.get("confidence"))?;
    let v = match raw {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.trim().trim_end_matches('%').trim().parse().ok()?,
        _ => return None,
    };
    let v = if v > 1.0 && v <= 100.0 { v / 100.0 } else { v };
    (0.0..=1.0).contains(&v).then_some(v)
}

fn findings(objects: &[Value]) -> Vec<Finding> {
    let Some(list) = objects
        .iter()
        .find_map(|o| o.get("key_findings").or_else(|| o.get("findings")))
        .and_then(Value::as_array)
    else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|f| match f {
            Value::String(s) => Some(Finding {
                dimension: String::new(),
                finding: s.clone(),
            }),
            Value::Object(o) => Some(Finding {
                dimension: o
                    .get("dimension")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                finding: o
                    .get("finding")
                    .or_else(|| o.get("evidence"))
                    .and_then(Value::as_str)?
                    .to_string(),
            }),
            _ => None,
        })
        .collect()
}

/// The shared parts of an answer's JSON objects.
pub fn common_fields(objects: &[Value]) -> CommonFields {
    CommonFields {
        confidence: confidence(objects),
        findings: findings(objects),
        rationale: text_field(objects, &["rationale", "overall_analysis", "reasoning"])
            .unwrap_or_default(),
    }
}

/// The problem to record when an answer gives no confidence.
pub const NO_CONFIDENCE: &str = "no confidence (0–1) given";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_shared_fields() {
        let raw = "Here it is.\n```json\n{\"confidence\": \"70%\", \"key_findings\": [{\"dimension\": \"team_b.consistency\", \"finding\": \"held up\"}, \"loose\"], \"rationale\": \"close\"}\n```";
        let c = common_fields(&crate::protocols::lenient_json::objects(raw));
        assert_eq!(c.confidence, Some(0.7));
        assert_eq!(c.findings[0].dimension, "team_b.consistency");
        assert_eq!(c.findings[1].dimension, "");
        assert_eq!(c.rationale, "close");
        let none = common_fields(&crate::protocols::lenient_json::objects(
            "{\"confidence\": 140}",
        ));
        assert_eq!(none.confidence, None, "outside 0–100");
        assert_eq!(
            common_fields(&crate::protocols::lenient_json::objects("prose")),
            CommonFields::default()
        );
    }
}
