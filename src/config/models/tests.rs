//! The models file read end to end: what is accepted with which defaults, and every error
//! naming the file, the entry and the key.

use std::path::Path;

use super::*;
use crate::config::ConfigError;

fn parse(text: &str) -> Result<ModelsConfig, ConfigError> {
    ModelsConfig::parse(text, Path::new("models.toml"))
}

fn err(text: &str) -> String {
    match parse(text) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e.to_string(),
    }
}

const GOOD: &str = r#"
    [[models]]
    name = "gpt"
    provider = "openai"
    model = "gpt-5.2"
    api_key_env = "OPENAI_API_KEY"
    price = { input_per_mtok = 1.0, output_per_mtok = 10.0 }

    [[models]]
    name = "local"
    provider = "openai-compatible"
    model = "llama3"
    base_url = "http://localhost:11434/v1/"

    [[models]]
    name = "sim"
    provider = "simulated"
    model = "alpha"
    [models.simulated]
    quality = 0.9
"#;

#[test]
fn parses_a_valid_file_with_defaults() {
    let c = parse(GOOD).unwrap();
    assert_eq!(c.models.len(), 3);
    assert_eq!(c.retry.max_attempts, 3);
    let gpt = c.get("gpt").unwrap();
    assert_eq!(gpt.max_tokens, 2048);
    assert!(gpt.stream);
    assert_eq!(gpt.key_env(), Some("OPENAI_API_KEY"));
    assert_eq!(gpt.effective_base_url(), Some("https://api.openai.com/v1"));
    let local = c.get("local").unwrap();
    assert_eq!(local.key_env(), None);
    assert_eq!(
        local.effective_base_url(),
        Some("http://localhost:11434/v1")
    );
    assert_eq!(
        c.get("sim").unwrap().simulated.as_ref().unwrap().quality,
        0.9
    );
}

#[test]
fn unknown_key_names_model_and_key() {
    let e = err(r#"
        [[models]]
        name = "gpt"
        provider = "openai"
        model = "x"
        tempreature = 0.5
    "#);
    assert!(
        e.starts_with("models.toml, models[0].tempreature: unknown field"),
        "{e}"
    );
    assert!(e.contains("(line 6, model \"gpt\")"), "{e}");
    assert!(e.contains("fix:"), "{e}");
}

#[test]
fn missing_field_is_named() {
    let e = err("[[models]]\nname = \"a\"\nprovider = \"openai\"\n");
    assert!(
        e.starts_with("models.toml, models[0].model: is missing") && e.contains("model \"a\""),
        "{e}"
    );
}

#[test]
fn malformed_field_is_named_by_its_path() {
    let e = err(
        "[[models]]\nname = \"a\"\nprovider = \"openai\"\nmodel = \"m\"\nmax_tokens = \"lots\"\n",
    );
    assert!(e.contains("model \"a\""), "{e}");
    assert!(
        e.contains("models[0].max_tokens: expected a whole number"),
        "{e}"
    );
    let third = "[[models]]\nname = \"a\"\nprovider = \"simulated\"\nmodel = \"m\"\n\
                 [[models]]\nname = \"b\"\nprovider = \"simulated\"\nmodel = \"m\"\n\
                 [[models]]\nname = \"c\"\nprovider = \"openai\"\nmodel = \"m\"\ntemperature = \"warm\"\n";
    assert_eq!(
        err(third),
        "models.toml, models[2].temperature: expected a number, found a string (line 13, model \"c\")\n  \
         fix: compare with sample-config/models.toml; the README lists every key"
    );
    let e = err(
        "[retry]\nmax_attempts = true\n[[models]]\nname=\"a\"\nprovider=\"simulated\"\nmodel=\"m\"\n",
    );
    assert!(
        e.starts_with("models.toml, retry.max_attempts: expected a whole number from 0 to 4294967295, found true (line 2)"),
        "{e}"
    );
}

#[test]
fn unknown_provider_lists_the_known_ones() {
    let e = err("[[models]]\nname = \"a\"\nprovider = \"openia\"\nmodel = \"m\"\n");
    assert!(e.contains("unknown provider \"openia\""), "{e}");
    assert!(e.contains("openai-compatible"), "{e}");
}

#[test]
fn literal_key_is_refused_and_not_echoed() {
    let secret = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let e = err(&format!(
        "[[models]]\nname = \"a\"\nprovider = \"openai\"\nmodel = \"m\"\napi_key = \"{secret}\"\n"
    ));
    assert!(e.contains("never written in configuration files"), "{e}");
    assert!(!e.contains(secret), "{e}");
    let e = err(&format!(
        "[[models]]\nname = \"a\"\nprovider = \"openai\"\nmodel = \"m\"\napi_key_env = \"{secret}\"\n"
    ));
    assert!(e.contains("looks like a key"), "{e}");
    assert!(!e.contains(secret), "{e}");
    let google_like = "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW";
    let e = err(&format!(
        "[[models]]\nname = \"a\"\nprovider = \"google\"\nmodel = \"m\"\napi_key_env = \"{google_like}\"\n"
    ));
    assert!(!e.contains(google_like), "{e}");
}

#[test]
fn duplicate_names_are_refused() {
    let e = err(r#"
        [[models]]
        name = "a"
        provider = "simulated"
        model = "x"
        [[models]]
        name = "a"
        provider = "simulated"
        model = "y"
    "#);
    assert!(
        e.contains("duplicate model name \"a\" (also entry 1)"),
        "{e}"
    );
    assert!(e.contains("entry 2"), "{e}");
}

#[test]
fn semantic_checks() {
    let base = "[[models]]\nname = \"a\"\nprovider = \"openai\"\nmodel = \"m\"\n";
    for (extra, needle) in [
        ("temperature = 3.0\n", "temperature"),
        ("max_tokens = 0\n", "max_tokens"),
        ("max_concurrency = 0\n", "max_concurrency"),
        ("timeout_s = -1.0\n", "timeout_s"),
        ("base_url = \"ftp://x\"\n", "base_url"),
        ("[models.simulated]\nquality = 0.5\n", "simulated"),
    ] {
        let e = err(&format!("{base}{extra}"));
        assert!(e.contains(&format!("key \"{needle}\"")), "{extra}: {e}");
    }
    let e = err(
        "[[models]]\nname = \"a\"\nprovider = \"anthropic\"\nmodel = \"m\"\nreasoning_effort = \"high\"\n",
    );
    assert!(
        e.contains("key \"max_tokens\"") && e.contains("reasoning budget"),
        "{e}"
    );
    let e = err("[[models]]\nname = \"a\"\nprovider = \"openai-compatible\"\nmodel = \"m\"\n");
    assert!(e.contains("need a base_url"), "{e}");
    let e = err("[[models]]\nname = \"../a\"\nprovider = \"simulated\"\nmodel = \"m\"\n");
    assert!(e.contains("not a usable model name"), "{e}");
}

#[test]
fn top_level_and_sections() {
    assert!(err("[[model]]\nname = \"a\"\n").contains("unknown top-level key"));
    assert!(err("").contains("no models"));
    assert!(err("[retry]\nmax_attemps = 2\n[[models]]\nname=\"a\"\nprovider=\"simulated\"\nmodel=\"m\"\n").contains("retry.max_attemps"));
    assert!(err("not toml = = 1").contains("models.toml"));
}
