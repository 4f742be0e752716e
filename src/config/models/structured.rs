//! `structured_output`: whether, and in which of the wire's dialects, a model is sent the JSON
//! schema a protocol asks for. Written as `true`, `false` or the name of a dialect, because
//! OpenAI-compatible servers disagree on how `response_format` carries a schema.

use serde::de::{self, Unexpected, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// How a request's JSON schema reaches the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StructuredOutput {
    /// `false`: no schema on the wire; the prompt alone describes the JSON.
    Off,
    /// `true`: the provider's own feature (OpenAI and xAI `json_schema` in strict mode,
    /// Anthropic a forced tool, Gemini `responseSchema`; on Chat Completions servers the
    /// same as `JsonSchema`).
    Native,
    /// `"json_schema"`: `response_format: {"type": "json_schema", "json_schema": {name,
    /// strict, schema}}` (OpenAI's form; vLLM, Ollama, llama.cpp's `llama-server`, LM Studio).
    JsonSchema,
    /// `"json_object_schema"`: `response_format: {"type": "json_object", "schema": …}`
    /// (llama-cpp-python's server, which turns the schema into a grammar).
    JsonObjectSchema,
    /// `"json_object"`: JSON mode, `response_format: {"type": "json_object"}`; any JSON
    /// object, the schema in the prompt only.
    JsonObject,
}

impl StructuredOutput {
    /// What the models file accepts, for messages.
    pub const ACCEPTED: &'static str =
        "true, false, \"json_schema\", \"json_object_schema\" or \"json_object\"";

    /// The value as written in the models file (`true`, `"json_schema"`, …).
    pub fn as_config(self) -> &'static str {
        match self {
            Self::Off => "false",
            Self::Native => "true",
            Self::JsonSchema => "\"json_schema\"",
            Self::JsonObjectSchema => "\"json_object_schema\"",
            Self::JsonObject => "\"json_object\"",
        }
    }

    /// Whether the schema itself goes on the wire (JSON mode sends none).
    pub fn sends_schema(self) -> bool {
        matches!(
            self,
            Self::Native | Self::JsonSchema | Self::JsonObjectSchema
        )
    }

    /// Whether this is one of the Chat Completions `response_format` dialects, which only
    /// OpenAI-style providers take.
    pub fn is_chat_dialect(self) -> bool {
        matches!(
            self,
            Self::JsonSchema | Self::JsonObjectSchema | Self::JsonObject
        )
    }

    fn from_name(name: &str) -> Option<Self> {
        match name {
            "json_schema" => Some(Self::JsonSchema),
            "json_object_schema" => Some(Self::JsonObjectSchema),
            "json_object" => Some(Self::JsonObject),
            _ => None,
        }
    }
}

impl Serialize for StructuredOutput {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Off => s.serialize_bool(false),
            Self::Native => s.serialize_bool(true),
            Self::JsonSchema => s.serialize_str("json_schema"),
            Self::JsonObjectSchema => s.serialize_str("json_object_schema"),
            Self::JsonObject => s.serialize_str("json_object"),
        }
    }
}

struct FlavourVisitor;

impl Visitor<'_> for FlavourVisitor {
    type Value = StructuredOutput;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(StructuredOutput::ACCEPTED)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(if v {
            StructuredOutput::Native
        } else {
            StructuredOutput::Off
        })
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        StructuredOutput::from_name(v).ok_or_else(|| E::invalid_value(Unexpected::Str(v), &self))
    }
}

impl<'de> Deserialize<'de> for StructuredOutput {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(FlavourVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize, Serialize)]
    struct Doc {
        s: StructuredOutput,
    }

    #[test]
    fn reads_booleans_and_names_and_writes_them_back() {
        for (text, want) in [
            ("true", StructuredOutput::Native),
            ("false", StructuredOutput::Off),
            ("\"json_schema\"", StructuredOutput::JsonSchema),
            ("\"json_object_schema\"", StructuredOutput::JsonObjectSchema),
            ("\"json_object\"", StructuredOutput::JsonObject),
        ] {
            let doc: Doc = toml::from_str(&format!("s = {text}")).unwrap();
            assert_eq!(doc.s, want, "{text}");
            assert_eq!(want.as_config(), text);
            assert_eq!(toml::to_string(&doc).unwrap().trim(), format!("s = {text}"));
        }
    }

    #[test]
    fn a_wrong_value_lists_the_accepted_ones() {
        let e = toml::from_str::<Doc>("s = \"json\"")
            .unwrap_err()
            .to_string();
        assert!(e.contains(StructuredOutput::ACCEPTED), "{e}");
        let e = toml::from_str::<Doc>("s = 1").unwrap_err().to_string();
        assert!(e.contains("json_object_schema"), "{e}");
    }
}
