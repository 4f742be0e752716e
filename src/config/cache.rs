//! `cache`: whether a tournament (or a rejudge's judging file) keeps and reuses answers in
//! the response cache for development (see `providers::response_cache`). Written as `true`,
//! `false` or `"any-temperature"`.

use std::fmt;

use serde::de::{self, Unexpected, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The `cache` key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CacheSetting {
    /// `false` (the default): every request is sent.
    #[default]
    Off,
    /// `true`: requests at temperature 0 are answered from the cache when it holds them.
    On,
    /// `"any-temperature"`: every request, whatever its temperature.
    AnyTemperature,
}

impl CacheSetting {
    /// What the key accepts, for messages.
    pub const ACCEPTED: &'static str = "true, false or \"any-temperature\"";

    /// Whether the cache is off (the default, which a file need not write).
    pub fn is_off(&self) -> bool {
        *self == Self::Off
    }
}

impl Serialize for CacheSetting {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Off => s.serialize_bool(false),
            Self::On => s.serialize_bool(true),
            Self::AnyTemperature => s.serialize_str("any-temperature"),
        }
    }
}

struct SettingVisitor;

impl Visitor<'_> for SettingVisitor {
    type Value = CacheSetting;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(CacheSetting::ACCEPTED)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(if v {
            CacheSetting::On
        } else {
            CacheSetting::Off
        })
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        match v {
            "any-temperature" => Ok(CacheSetting::AnyTemperature),
            _ => Err(E::invalid_value(Unexpected::Str(v), &self)),
        }
    }
}

impl<'de> Deserialize<'de> for CacheSetting {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SettingVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize, Serialize)]
    struct Doc {
        cache: CacheSetting,
    }

    #[test]
    fn reads_booleans_and_the_keyword_and_writes_them_back() {
        for (text, want) in [
            ("true", CacheSetting::On),
            ("false", CacheSetting::Off),
            ("\"any-temperature\"", CacheSetting::AnyTemperature),
        ] {
            let doc: Doc = toml::from_str(&format!("cache = {text}")).unwrap();
            assert_eq!(doc.cache, want, "{text}");
            assert_eq!(
                toml::to_string(&doc).unwrap().trim(),
                format!("cache = {text}")
            );
        }
    }

    #[test]
    fn another_value_names_the_accepted_ones() {
        for text in ["\"yes\"", "1", "\"any_temperature\""] {
            let e = toml::from_str::<Doc>(&format!("cache = {text}"))
                .unwrap_err()
                .to_string();
            assert!(e.contains(CacheSetting::ACCEPTED), "{text}: {e}");
        }
    }
}
