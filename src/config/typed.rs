//! Typed reading of a whole TOML file, so that a value of the wrong type or shape is
//! reported by its key's path (`models[2].temperature`), in the file's own words ("expected
//! a number, found a string", not serde's `f64`), with its line.
//!
//! `toml` errors carry the value's position but not its key, so the path comes from
//! `serde_path_to_error`, which tracks it while deserialising.

use std::path::Path;

use serde::de::DeserializeOwned;

use super::ConfigError;

/// Deserialises the whole of `text` as `T`. `context` may name the entry a key path belongs
/// to (e.g. `model "gpt"`); `fix` says what to do about any error.
pub(super) fn from_str<T: DeserializeOwned>(
    text: &str,
    path: &Path,
    context: impl Fn(&serde_path_to_error::Path) -> Option<String>,
    fix: &str,
) -> Result<T, ConfigError> {
    let de = toml::Deserializer::parse(text).map_err(|e| ConfigError::Syntax {
        path: path.to_path_buf(),
        message: e.to_string().trim_end().to_string(),
    })?;
    serde_path_to_error::deserialize(de).map_err(|e| {
        let line = e.inner().span().map(|s| line_of(text, s.start));
        let (key, message) = describe(&e.path().to_string(), e.inner().message().trim());
        let context = [line.map(|l| format!("line {l}")), context(e.path())]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(", ");
        ConfigError::Key {
            path: path.to_path_buf(),
            key,
            message,
            context,
            fix: fix.to_string(),
        }
    })
}

/// The 1-based line holding byte `offset`.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// The key path and the message to show for serde's `message` about `path`. A missing
/// field is named in the path itself; type and value errors are put in the file's words.
fn describe(path: &str, message: &str) -> (String, String) {
    if let Some(field) = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.strip_suffix('`'))
    {
        let key = match path {
            "" | "." => field.to_string(),
            _ => format!("{path}.{field}"),
        };
        return (key, "is missing; this key is required".to_string());
    }
    let key = match path {
        "" | "." => "(top level)".to_string(),
        _ => path.to_string(),
    };
    let plain = ["invalid type: ", "invalid value: "]
        .iter()
        .find_map(|prefix| message.strip_prefix(prefix))
        .and_then(|rest| rest.rsplit_once(", expected "))
        .map(|(found, expected)| {
            format!(
                "expected {}, found {}",
                expected_words(expected),
                found_words(found)
            )
        });
    let message = match nearest_key(message) {
        Some(near) => format!("{message} (did you mean `{near}`?)"),
        None => message.to_string(),
    };
    (key, plain.unwrap_or(message))
}

/// For serde's "unknown field `x`, expected one of `a`, `b`…" (or "expected `a`"), the
/// known key nearest to `x` by edit distance (a swap of two letters counting one), when it
/// is near enough to be a typo.
fn nearest_key(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("unknown field `")?;
    let (typed, expected) = rest.split_once('`')?;
    expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|k| (strsim::osa_distance(typed, k), k))
        .filter(|(d, k)| *d <= (k.len().max(typed.len()) / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// What a Rust type expects, as a TOML user would say it.
fn expected_words(expected: &str) -> String {
    let words = match expected {
        "f32" | "f64" => "a number",
        "u8" => "a whole number from 0 to 255",
        "u16" => "a whole number from 0 to 65535",
        "u32" => "a whole number from 0 to 4294967295",
        "u64" | "usize" => "a whole number, 0 or more",
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number",
        "a boolean" => "true or false",
        "a sequence" => "a list",
        "a map" => "a table",
        e if e.starts_with("struct ") => "a table",
        e if e.starts_with("an array of length ") => "a list",
        other => other,
    };
    words.to_string()
}

/// What serde found, in the same words. A string's content is left out: it may be something
/// the user did not mean to have repeated (a key pasted into the wrong place).
fn found_words(found: &str) -> String {
    if found.starts_with("string ") || found == "a string" {
        return "a string".into();
    }
    for prefix in ["integer ", "floating point ", "boolean "] {
        if let Some(value) = found.strip_prefix(prefix) {
            return value.trim_matches('`').to_string();
        }
    }
    match found {
        "sequence" => "a list".into(),
        "map" => "a table".into(),
        other => other.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_errors_read_in_the_files_words() {
        let d = |p, m| describe(p, m);
        assert_eq!(
            d(
                "models[2].temperature",
                "invalid type: string \"hot\", expected f64"
            ),
            (
                "models[2].temperature".into(),
                "expected a number, found a string".into()
            )
        );
        assert_eq!(
            d(
                "models[0].max_tokens",
                "invalid value: integer `-5`, expected u32"
            )
            .1,
            "expected a whole number from 0 to 4294967295, found -5"
        );
        assert_eq!(
            d(
                "models[0].price",
                "invalid type: integer `3`, expected struct Price"
            )
            .1,
            "expected a table, found 3"
        );
        assert_eq!(
            d(
                "models[0].model",
                "invalid type: sequence, expected a string"
            )
            .1,
            "expected a string, found a list"
        );
        assert_eq!(
            d(
                "models[0].stream",
                "invalid type: string \"yes\", expected a boolean"
            )
            .1,
            "expected true or false, found a string"
        );
        assert_eq!(
            d("models[0]", "missing field `model`"),
            (
                "models[0].model".into(),
                "is missing; this key is required".into()
            )
        );
        assert_eq!(d(".", "missing field `name`").0, "name");
        let unknown = "unknown field `tempreature`, expected one of `name`";
        assert_eq!(d("models[0].tempreature", unknown).1, unknown);
        let typo = "unknown field `tempreature`, expected one of `name`, `temperature`, `model`";
        assert_eq!(
            d("models[0].tempreature", typo).1,
            format!("{typo} (did you mean `temperature`?)")
        );
        let single = "unknown field `nmae`, expected `name`";
        assert!(d(".", single).1.ends_with("(did you mean `name`?)"));
    }

    #[test]
    fn the_error_names_file_key_line_and_entry() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Doc {
            models: Vec<Entry>,
        }
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Entry {
            temperature: Option<f64>,
        }
        let text = "[[models]]\n[[models]]\n[[models]]\ntemperature = \"hot\"\n";
        let e = from_str::<Doc>(
            text,
            Path::new("models.toml"),
            |_| Some("the third".into()),
            "fix it",
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            e,
            "models.toml, models[2].temperature: expected a number, found a string (line 4, the third)\n  fix: fix it"
        );
    }
}
