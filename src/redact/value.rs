//! Redacting every string of a JSON value, map keys included: what a model's JSON answer
//! decodes to, and what the tool writes as JSON, whatever fields it has now or gains later.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use super::Redactor;

impl Redactor {
    /// Redacts every string in `value` (and every object key); true when one changed.
    pub fn redact_json(&self, value: &mut Value) -> bool {
        if self.is_empty() {
            return false;
        }
        match value {
            Value::String(s) => match self.redact(s) {
                Cow::Owned(clean) => {
                    *s = clean;
                    true
                }
                Cow::Borrowed(_) => false,
            },
            Value::Array(items) => items
                .iter_mut()
                .fold(false, |changed, v| self.redact_json(v) | changed),
            Value::Object(map) => {
                let mut changed = map
                    .values_mut()
                    .fold(false, |changed, v| self.redact_json(v) | changed);
                if map.keys().any(|k| matches!(self.redact(k), Cow::Owned(_))) {
                    *map = std::mem::take(map)
                        .into_iter()
                        .map(|(k, v)| (self.redact_string(k), v))
                        .collect();
                    changed = true;
                }
                changed
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => false,
        }
    }

    /// `value` as a JSON tree with every string redacted: what the tool writes as JSON.
    pub fn json_tree(&self, value: &impl Serialize) -> serde_json::Result<Value> {
        let mut tree = serde_json::to_value(value)?;
        self.redact_json(&mut tree);
        Ok(tree)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_string_and_key_of_a_value_is_redacted() {
        let r = Redactor::new([("K", "sk-value-0123456789")]);
        let mut v = serde_json::json!({
            "a": ["x sk-value-0123456789", 1, null, {"b": "\\u0073k-value-0123456789"}],
            "sk-value-0123456789": true,
            "clean": "nothing",
        });
        assert!(r.redact_json(&mut v));
        assert_eq!(
            v,
            serde_json::json!({
                "a": ["x [redacted K]", 1, null, {"b": "[redacted K]"}],
                "[redacted K]": true,
                "clean": "nothing",
            })
        );
        assert!(!r.redact_json(&mut v), "a clean value stays as it is");
    }
}
