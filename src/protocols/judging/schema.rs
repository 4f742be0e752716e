//! The JSON schemas judges answer in, built from a few pieces every structured-output
//! provider accepts (OpenAI strict, Anthropic tools, Gemini's responseSchema once
//! `additionalProperties` is dropped, llama.cpp's grammar converter): objects with every
//! property required and no other allowed, whole-number scores with bounds, string enums,
//! plain text and lists. No `$ref`, `oneOf`, `pattern` or `format`.
//!
//! The same schema is described in words for the prompt ([`describe`]), so what a judge
//! reads and what a provider enforces are one shape. Properties keep the order given
//! (llama.cpp and OpenAI generate them in schema order): a reasoning field put first is
//! written before the scores.

use serde_json::{Map, Value, json};

/// An object whose every property is required and no other allowed, in the order given.
pub fn object<K: Into<String>>(properties: impl IntoIterator<Item = (K, Value)>) -> Value {
    let properties: Map<String, Value> =
        properties.into_iter().map(|(k, v)| (k.into(), v)).collect();
    let required: Vec<&String> = properties.keys().collect();
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// A whole number from `lo` to `hi` (a score on a 1–10 scale, a confidence out of 100).
pub fn whole(lo: u32, hi: u32) -> Value {
    json!({"type": "integer", "minimum": lo, "maximum": hi})
}

/// A number from 0 to 1 (a panel judge's confidence).
pub fn fraction() -> Value {
    json!({"type": "number", "minimum": 0, "maximum": 1})
}

/// Free text; the description is what the prompt shows in its place.
pub fn text(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

/// One of these words.
pub fn one_of(options: &[&str]) -> Value {
    json!({"type": "string", "enum": options})
}

/// One of these words, shown in the prompt as the description (for long lists the prompt
/// spells out elsewhere).
pub fn one_of_described(options: &[&str], description: &str) -> Value {
    json!({"type": "string", "enum": options, "description": description})
}

/// A list of items.
pub fn list(items: Value) -> Value {
    json!({"type": "array", "items": items})
}

/// A list of at most `n` items: a small model under a grammar may otherwise repeat an item
/// until its token limit.
pub fn list_up_to(items: Value, n: usize) -> Value {
    json!({"type": "array", "items": items, "maxItems": n})
}

/// The schema as a prompt shows it: an object's fields one per line, inner objects and
/// lists inline, `<1-10>` for a bounded number, `"a" | "b"` for a choice, and the
/// description for text.
pub fn describe(schema: &Value) -> String {
    match properties(schema) {
        Some(props) if !props.is_empty() => {
            let fields: Vec<String> = props
                .iter()
                .map(|(k, v)| format!("  \"{k}\": {}", inline(v)))
                .collect();
            format!("{{\n{}\n}}", fields.join(",\n"))
        }
        _ => inline(schema),
    }
}

fn properties(schema: &Value) -> Option<&Map<String, Value>> {
    schema.get("properties").and_then(Value::as_object)
}

fn inline(schema: &Value) -> String {
    let description = schema.get("description").and_then(Value::as_str);
    let kind = schema.get("type").and_then(Value::as_str).unwrap_or("");
    if let Some(props) = properties(schema) {
        let fields: Vec<String> = props
            .iter()
            .map(|(k, v)| format!("\"{k}\": {}", inline(v)))
            .collect();
        return format!("{{{}}}", fields.join(", "));
    }
    if kind == "array" {
        let item = schema.get("items").map(inline).unwrap_or_default();
        return format!("[{item}]");
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        if let Some(d) = description {
            return format!("\"<{d}>\"");
        }
        let options: Vec<String> = options.iter().map(Value::to_string).collect();
        return options.join(" | ");
    }
    match (kind, description) {
        ("string", Some(d)) => format!("\"<{d}>\""),
        ("string", None) => "\"…\"".to_string(),
        ("boolean", _) => "true | false".to_string(),
        (_, Some(d)) => format!("<{d}>"),
        ("integer", None) => format!(
            "<{}-{}>",
            bound(schema, "minimum"),
            bound(schema, "maximum")
        ),
        (_, None) => format!(
            "<{} to {}>",
            bound(schema, "minimum"),
            bound(schema, "maximum")
        ),
    }
}

fn bound(schema: &Value, key: &str) -> String {
    schema.get(key).map_or_else(|| "…".into(), Value::to_string)
}

#[cfg(test)]
pub(crate) mod checks {
    //! What every judge schema must be, and schema-valid answers to feed the parsers.

    use serde_json::{Map, Value};

    /// Keywords that some provider or llama.cpp's converter does not take.
    const FORBIDDEN: [&str; 8] = [
        "$ref", "oneOf", "anyOf", "allOf", "pattern", "format", "const", "$defs",
    ];

    /// Panics unless every object has all properties required and no others, and no
    /// keyword outside the portable set appears.
    pub(crate) fn assert_portable(schema: &Value) {
        let Value::Object(map) = schema else {
            panic!("not a schema: {schema}");
        };
        for k in FORBIDDEN {
            assert!(!map.contains_key(k), "{k} in {schema}");
        }
        match map.get("type").and_then(Value::as_str) {
            Some("object") => {
                let props = map["properties"].as_object().expect("properties");
                let required: Vec<&str> = map["required"]
                    .as_array()
                    .expect("required")
                    .iter()
                    .filter_map(Value::as_str)
                    .collect();
                let keys: Vec<&str> = props.keys().map(String::as_str).collect();
                assert_eq!(required, keys, "every property required, in order");
                assert_eq!(map["additionalProperties"], false, "{schema}");
                props.values().for_each(assert_portable);
            }
            Some("array") => assert_portable(&map["items"]),
            Some("string") => {
                if let Some(options) = map.get("enum") {
                    assert!(
                        options
                            .as_array()
                            .is_some_and(|o| o.iter().all(Value::is_string))
                    );
                }
            }
            Some("integer" | "number") => {
                assert!(map.contains_key("minimum") && map.contains_key("maximum"));
                assert!(!map.contains_key("enum"), "Gemini takes string enums only");
            }
            Some("boolean") => {}
            other => panic!("type {other:?} in {schema}"),
        }
    }

    /// A schema-valid instance: every number at its minimum (`high` false) or maximum,
    /// every choice its first or last option, texts non-empty, lists of their fixed length
    /// (one item when free), each enum item distinct where a list has a fixed length.
    pub(crate) fn instance(schema: &Value, high: bool) -> Value {
        instance_at(schema, high, 0)
    }

    fn instance_at(schema: &Value, high: bool, index: usize) -> Value {
        let pick = |options: &Vec<Value>| -> Value {
            let i = if high {
                options
                    .len()
                    .saturating_sub(1 + index % options.len().max(1))
            } else {
                index % options.len().max(1)
            };
            options[i].clone()
        };
        if let Some(options) = schema.get("enum").and_then(Value::as_array) {
            return pick(options);
        }
        match schema["type"].as_str() {
            Some("object") => {
                let mut out = Map::new();
                for (k, v) in schema["properties"].as_object().into_iter().flatten() {
                    out.insert(k.clone(), instance_at(v, high, index));
                }
                Value::Object(out)
            }
            Some("array") => {
                let n = schema
                    .get("minItems")
                    .and_then(Value::as_u64)
                    .map_or(1, |n| n as usize);
                Value::Array(
                    (0..n)
                        .map(|i| instance_at(&schema["items"], high, i))
                        .collect(),
                )
            }
            Some("integer" | "number") => schema[if high { "maximum" } else { "minimum" }].clone(),
            Some("boolean") => Value::Bool(high),
            _ => Value::String(if high {
                "A long, careful text: with commas, \"quotes\" and {braces}.".into()
            } else {
                "x".into()
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_require_every_property_in_order() {
        let s = object([("reasoning", text("why")), ("a", whole(1, 10))]);
        checks::assert_portable(&s);
        assert_eq!(s["required"], json!(["reasoning", "a"]));
        let keys: Vec<&String> = s["properties"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["reasoning", "a"], "the order given is kept");
    }

    #[test]
    fn described_as_the_prompt_shows_it() {
        let s = object([
            ("reasoning", text("your reasons, in two sentences")),
            (
                "scores",
                object([("logic", whole(1, 10)), ("honesty", whole(1, 10))]),
            ),
            ("answer", one_of(&["A", "B"])),
            ("confidence", fraction()),
            ("notes", list(text("a note"))),
            (
                "fallacies",
                list(one_of_described(&["x", "y"], "a fallacy")),
            ),
            ("shifted", json!({"type": "boolean"})),
        ]);
        assert_eq!(
            describe(&s),
            "{\n  \"reasoning\": \"<your reasons, in two sentences>\",\n  \
             \"scores\": {\"logic\": <1-10>, \"honesty\": <1-10>},\n  \
             \"answer\": \"A\" | \"B\",\n  \"confidence\": <0 to 1>,\n  \
             \"notes\": [\"<a note>\"],\n  \"fallacies\": [\"<a fallacy>\"],\n  \
             \"shifted\": true | false\n}"
        );
    }

    #[test]
    fn instances_take_the_bounds() {
        let s = object([
            ("n", whole(1, 10)),
            ("c", one_of(&["A", "B"])),
            (
                "l",
                json!({"type": "array", "items": one_of(&["P-1", "P-2"]), "minItems": 2, "maxItems": 2}),
            ),
        ]);
        assert_eq!(
            checks::instance(&s, false),
            json!({"n": 1, "c": "A", "l": ["P-1", "P-2"]})
        );
        assert_eq!(
            checks::instance(&s, true),
            json!({"n": 10, "c": "B", "l": ["P-2", "P-1"]})
        );
    }
}
