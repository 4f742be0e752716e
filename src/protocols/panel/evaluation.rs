//! Reads a panel judge's answer: the scores through the protocol's own judgment parser (so
//! every shape it accepts works here too), then the verdict, confidence, findings and
//! rationale from the answer's JSON.

use serde_json::Value;

use crate::domain::{Criterion, Evaluation, Finding, Judgment, Scores, Team};
use crate::protocols::lenient_json;

/// The Ethics Bowl's scores keyed by dimension (`team_a.consistency`, …).
pub fn dimension_scores(judgment: &Judgment) -> std::collections::BTreeMap<String, f64> {
    let mut out = std::collections::BTreeMap::new();
    for (team, prefix) in [(Team::A, "team_a"), (Team::B, "team_b")] {
        for c in Criterion::ALL {
            if let Some(v) = judgment.scores(team).and_then(|s| s.get(c)) {
                out.insert(format!("{prefix}.{}", c.key()), v);
            }
        }
    }
    out
}

/// The first string among these keys, in any object of the answer.
fn text_field(objects: &[Value], keys: &[&str]) -> Option<String> {
    objects.iter().find_map(|o| {
        keys.iter()
            .find_map(|k| o.get(*k).and_then(Value::as_str))
            .map(str::to_string)
    })
}

/// A verdict as the rubric names it, from what judges write (`Team A`, `team_b`, `draw`).
fn normalise_verdict(raw: &str, verdicts: &[String]) -> Option<String> {
    let compact: String = raw
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    let compact = match compact.as_str() {
        "a" => "teama".to_string(),
        "b" => "teamb".to_string(),
        "draw" | "even" | "equal" => "tie".to_string(),
        _ => compact,
    };
    verdicts
        .iter()
        .find(|v| v.replace('_', "") == compact)
        .cloned()
}

/// A confidence from 0 to 1 (percentages are read as such).
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

/// The evaluation in a judge's answer, given the protocol's reading of its scores. A
/// missing verdict is inferred from the totals when every score is there (and said so).
pub fn read_evaluation(
    raw: &str,
    judgment: &Judgment,
    verdicts: &[String],
) -> (Evaluation, Vec<String>) {
    let objects = lenient_json::objects(raw);
    let mut problems = Vec::new();
    let mut verdict =
        text_field(&objects, &["verdict", "winner"]).and_then(|v| normalise_verdict(&v, verdicts));
    if verdict.is_none() {
        match (
            judgment.scores(Team::A).and_then(Scores::total),
            judgment.scores(Team::B).and_then(Scores::total),
        ) {
            (Some(a), Some(b)) => {
                verdict = Some(
                    if a > b {
                        "team_a"
                    } else if b > a {
                        "team_b"
                    } else {
                        "tie"
                    }
                    .to_string(),
                );
                problems.push("no verdict given; inferred from the totals".to_string());
            }
            _ => problems.push("no verdict given".to_string()),
        }
    }
    let confidence = confidence(&objects);
    if confidence.is_none() {
        problems.push("no confidence (0–1) given".to_string());
    }
    let rationale =
        text_field(&objects, &["rationale", "overall_analysis", "reasoning"]).unwrap_or_default();
    (
        Evaluation {
            scores: dimension_scores(judgment),
            verdict,
            confidence,
            findings: findings(&objects),
            rationale,
        },
        problems,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::ethics_bowl::judgment_from_text;

    fn verdicts() -> Vec<String> {
        vec!["team_a".into(), "team_b".into(), "tie".into()]
    }

    fn full(extra: &str) -> String {
        let keys: Vec<String> = Criterion::ALL
            .iter()
            .map(|c| format!("\"{}\": 7", c.key()))
            .collect();
        format!(
            "Here is my evaluation.\n```json\n{{\"team_a_scores\": {{{k}}}, \"team_b_scores\": {{{k}}}{extra}}}\n```",
            k = keys.join(", ")
        )
    }

    #[test]
    fn reads_every_field() {
        let raw = full(
            ", \"verdict\": \"Team B\", \"confidence\": \"70%\", \"key_findings\": [{\"dimension\": \"team_b.consistency\", \"finding\": \"held up\"}], \"rationale\": \"close\"",
        );
        let j = judgment_from_text("m", &raw);
        let (e, problems) = read_evaluation(&raw, &j, &verdicts());
        assert_eq!(e.scores.len(), 14);
        assert_eq!(e.verdict.as_deref(), Some("team_b"));
        assert_eq!(e.confidence, Some(0.7));
        assert_eq!(e.findings[0].dimension, "team_b.consistency");
        assert_eq!(e.rationale, "close");
        assert!(problems.is_empty(), "{problems:?}");
    }

    #[test]
    fn infers_a_missing_verdict_and_says_so() {
        let raw = full("");
        let j = judgment_from_text("m", &raw);
        let (e, problems) = read_evaluation(&raw, &j, &verdicts());
        assert_eq!(e.verdict.as_deref(), Some("tie"));
        assert_eq!(problems.len(), 2, "{problems:?}");
        let (e, _) = read_evaluation("nothing", &judgment_from_text("m", "nothing"), &verdicts());
        assert!(e.verdict.is_none() && e.scores.is_empty());
    }
}
