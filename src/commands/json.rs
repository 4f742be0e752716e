//! What every `--json` prints: one JSON document on stdout, the tool's escaping applied
//! (see `ethics_bowl::safe_json`), warnings left to stderr. The documents made for a
//! command (not the stored files `rounds` and `dilemmas` print) carry [`VERSION`], so a
//! script can refuse a shape it was not written for instead of misreading it.
//! docs/json-output.md lists every shape, and `tests/cli_json.rs` checks the list.

use serde::Serialize;

/// The version of the `--json` shapes: raised when a key is renamed or removed or its
/// meaning changes, not when a key is added.
pub const VERSION: u32 = 1;

/// A command's document with the shapes' version first.
#[derive(Serialize)]
pub struct Versioned<T> {
    /// [`VERSION`].
    version: u32,
    /// The command's own keys, beside `version`.
    #[serde(flatten)]
    body: T,
}

/// Prints `body` with `"version"` beside its keys (`body` must serialise as an object).
pub fn print_versioned<T: Serialize>(body: T) -> anyhow::Result<()> {
    print(&Versioned {
        version: VERSION,
        body,
    })
}

/// Prints `value` as one pretty JSON document on stdout.
pub fn print<T: Serialize>(value: &T) -> anyhow::Result<()> {
    println!("{}", ethics_bowl::safe_json::to_string_pretty(value)?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_comes_first_beside_the_body_keys() {
        #[derive(Serialize)]
        struct Body {
            models: Vec<u8>,
        }
        let text = ethics_bowl::safe_json::to_string_pretty(&Versioned {
            version: VERSION,
            body: Body { models: vec![1] },
        })
        .unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value, serde_json::json!({"version": 1, "models": [1]}));
        assert!(text.find("version") < text.find("models"), "{text}");
    }
}
