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
         fix: compare with sample-config/models.toml; docs/configuration.md lists every key"
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
        ("timeout_s = 1e300\n", "timeout_s"),
        ("timeout_s = inf\n", "timeout_s"),
        (
            "price = { input_per_mtok = inf, output_per_mtok = 1.0 }\n",
            "price",
        ),
        (
            "price = { input_per_mtok = 1.0, output_per_mtok = nan }\n",
            "price",
        ),
        (
            "price = { input_per_mtok = -1.0, output_per_mtok = 1.0 }\n",
            "price",
        ),
        (
            "price = { input_per_mtok = 1.0, output_per_mtok = 1.0, cached_input_per_mtok = -0.1 }\n",
            "price",
        ),
        (
            "price = { input_per_mtok = 1.0, output_per_mtok = 1.0, cache_write_per_mtok = inf }\n",
            "price",
        ),
        ("base_url = \"ftp://x\"\n", "base_url"),
        ("[models.simulated]\nquality = 0.5\n", "simulated"),
    ] {
        let e = err(&format!("{base}{extra}"));
        assert!(e.contains(&format!("key \"{needle}\"")), "{extra}: {e}");
    }
    let e = err(&format!("{base}prompt_cache = \"yes\"\n"));
    assert!(
        e.contains("models[0].prompt_cache") && e.contains("true or false"),
        "{e}"
    );
    let e = err(
        "[[models]]\nname = \"a\"\nprovider = \"anthropic\"\nmodel = \"m\"\nreasoning_effort = \"high\"\n",
    );
    assert!(
        e.contains("key \"max_tokens\"") && e.contains("reasoning budget"),
        "{e}"
    );
    for (provider, says) in [
        ("anthropic", "Anthropic's API takes no seed"),
        ("simulated", "[models.simulated]"),
    ] {
        let e = err(&format!(
            "[[models]]\nname = \"a\"\nprovider = \"{provider}\"\nmodel = \"m\"\nseed = 1\n"
        ));
        assert!(e.contains("key \"seed\"") && e.contains(says), "{e}");
    }
    let e =
        err("[[models]]\nname = \"a\"\nprovider = \"google\"\nmodel = \"m\"\nseed = 4294967296\n");
    assert!(e.contains("key \"seed\"") && e.contains("32-bit"), "{e}");
    assert!(
        parse(
            "[[models]]\nname = \"a\"\nprovider = \"openai\"\nmodel = \"m\"\nseed = 4294967296\n"
        )
        .is_ok()
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

#[test]
fn structured_output_takes_a_boolean_or_a_dialect_with_provider_defaults() {
    let c = parse(GOOD).unwrap();
    assert_eq!(
        c.get("gpt").unwrap().structured_output_flavour(),
        StructuredOutput::Native
    );
    assert_eq!(
        c.get("local").unwrap().structured_output_flavour(),
        StructuredOutput::Off
    );
    let local = |value: &str| {
        format!(
            "[[models]]\nname = \"local\"\nprovider = \"openai-compatible\"\nmodel = \"m\"\n\
             base_url = \"http://localhost:8000/v1\"\nstructured_output = {value}\n"
        )
    };
    for (value, flavour, on_wire) in [
        ("true", StructuredOutput::Native, true),
        ("false", StructuredOutput::Off, false),
        ("\"json_schema\"", StructuredOutput::JsonSchema, true),
        (
            "\"json_object_schema\"",
            StructuredOutput::JsonObjectSchema,
            true,
        ),
        ("\"json_object\"", StructuredOutput::JsonObject, false),
    ] {
        let c = parse(&local(value)).unwrap();
        let m = c.get("local").unwrap();
        assert_eq!(m.structured_output_flavour(), flavour, "{value}");
        assert_eq!(m.uses_structured_output(), on_wire, "{value}");
    }
    let e = err(&local("\"json-schema\""));
    assert!(
        e.starts_with("models.toml, models[0].structured_output: expected true, false, \"json_schema\", \"json_object_schema\" or \"json_object\", found a string"),
        "{e}"
    );
    assert!(e.contains("model \"local\""), "{e}");
    let e = err(
        "[[models]]\nname = \"c\"\nprovider = \"anthropic\"\nmodel = \"m\"\nstructured_output = \"json_object\"\n",
    );
    assert!(
        e.contains("key \"structured_output\"") && e.contains("anthropic takes only true or false"),
        "{e}"
    );
}

#[test]
fn truncation_keys_and_their_defaults() {
    let c = parse(GOOD).unwrap();
    let gpt = c.get("gpt").unwrap();
    assert_eq!(gpt.on_truncation, OnTruncation::Keep);
    assert_eq!(gpt.effective_max_tokens_cap(), 4 * 2048);
    let base =
        "[[models]]\nname = \"a\"\nprovider = \"openai\"\nmodel = \"m\"\nmax_tokens = 1000\n";
    let c = parse(&format!(
        "{base}on_truncation = \"retry\"\nmax_tokens_cap = 1000\n"
    ))
    .unwrap();
    assert_eq!(c.models[0].on_truncation, OnTruncation::Retry);
    assert_eq!(c.models[0].effective_max_tokens_cap(), 1000);
    let e = err(&format!("{base}max_tokens_cap = 999\n"));
    assert!(
        e.contains("key \"max_tokens_cap\"") && e.contains("999 is below max_tokens (1000)"),
        "{e}"
    );
    let e = err(&format!("{base}on_truncation = \"double\"\n"));
    assert!(
        e.contains("models[0].on_truncation") && e.contains("`keep`") && e.contains("`retry`"),
        "{e}"
    );
}

#[test]
fn connect_retry_has_a_default_and_must_not_be_negative() {
    assert_eq!(parse(GOOD).unwrap().retry.connect_retry_s, 15.0);
    let e = err(
        "[retry]\nconnect_retry_s = -1\n[[models]]\nname=\"a\"\nprovider=\"simulated\"\nmodel=\"m\"\n",
    );
    assert!(e.contains("key \"connect_retry_s\""), "{e}");
}

#[test]
fn adaptive_concurrency_defaults_by_provider_and_is_refused_for_simulated() {
    let entry = |provider: &str, extra: &str| {
        let base_url = if provider == "openai-compatible" {
            "base_url = \"http://localhost:1\"\n"
        } else {
            ""
        };
        format!(
            "[[models]]\nname = \"a\"\nprovider = \"{provider}\"\nmodel = \"m\"\n{base_url}{extra}"
        )
    };
    for (provider, adaptive) in [
        ("openai", true),
        ("anthropic", true),
        ("google", true),
        ("xai", true),
        ("qwen", true),
        ("openai-compatible", false),
        ("simulated", false),
    ] {
        let c = parse(&entry(provider, "")).unwrap();
        assert_eq!(
            c.models[0].uses_adaptive_concurrency(),
            adaptive,
            "{provider}"
        );
    }
    let c = parse(&entry("openai", "adaptive_concurrency = false\n")).unwrap();
    assert!(!c.models[0].uses_adaptive_concurrency());
    let c = parse(&entry("openai-compatible", "adaptive_concurrency = true\n")).unwrap();
    assert!(c.models[0].uses_adaptive_concurrency());
    let e = err(&entry("simulated", "adaptive_concurrency = true\n"));
    assert!(
        e.contains("key \"adaptive_concurrency\"")
            && e.contains("models.toml")
            && e.contains("\"a\""),
        "{e}"
    );
    let e = err(&entry("openai", "adaptive_concurrency = \"auto\"\n"));
    assert!(e.contains("models[0].adaptive_concurrency"), "{e}");
    let e = err(&entry("openai", "concurrency = \"auto\"\n"));
    assert!(
        e.contains("models[0].concurrency") && e.contains("`adaptive_concurrency = true`"),
        "{e}"
    );
}

#[test]
fn batch_is_for_providers_with_a_batch_api_and_its_discount_is_a_share() {
    let entry = |provider: &str, extra: &str| {
        let base_url = if provider == "openai-compatible" {
            "base_url = \"http://localhost:1\"\n"
        } else {
            ""
        };
        format!(
            "[[models]]\nname = \"a\"\nprovider = \"{provider}\"\nmodel = \"m\"\n{base_url}{extra}"
        )
    };
    for provider in ["openai", "anthropic", "google"] {
        let c = parse(&entry(provider, "batch = true\n")).unwrap();
        assert!(c.models[0].has_batch_api(), "{provider}");
        assert_eq!(c.models[0].effective_batch_discount(), 0.5);
    }
    for provider in ["xai", "qwen", "openai-compatible", "simulated"] {
        let e = err(&entry(provider, "batch = true\n"));
        assert!(
            e.contains("key \"batch\"") && e.contains("no batch API"),
            "{provider}: {e}"
        );
        assert!(parse(&entry(provider, "batch = false\n")).is_ok());
    }
    let c = parse(&entry("openai", "batch_discount = 0.25\n")).unwrap();
    assert_eq!(c.models[0].effective_batch_discount(), 0.25);
    let e = err(&entry("openai", "batch_discount = 1.5\n"));
    assert!(
        e.contains("key \"batch_discount\"") && e.contains("between 0 and 1"),
        "{e}"
    );
}

/// A number in TOML as a file might hold it: any float (`inf`, `nan` and exponents
/// included), any integer, or digits far past any integer type.
fn toml_number() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    prop_oneof![
        any::<f64>().prop_map(|n| {
            if n.is_nan() {
                "nan".to_string()
            } else if n.is_infinite() {
                if n > 0.0 { "inf".into() } else { "-inf".into() }
            } else {
                format!("{n:e}")
            }
        }),
        any::<i64>().prop_map(|n| n.to_string()),
        "[0-9]{20,40}",
        prop::sample::select(vec!["0", "-0.0", "1e300", "-1e300", "5e-324"]).prop_map(String::from),
    ]
}

proptest::proptest! {
    /// Any number in any numeric key of a models file is accepted or refused with an error,
    /// never a panic; an accepted file's durations convert without one.
    #[test]
    fn no_number_in_a_models_file_panics(value in toml_number(), which in 0usize..14) {
        let (section, key) = [
            ("model", "temperature"),
            ("model", "timeout_s"),
            ("model", "max_call_s"),
            ("model", "max_tokens"),
            ("model", "max_concurrency"),
            ("model", "max_response_bytes"),
            ("model", "seed"),
            ("model", "batch_discount"),
            ("model", "requests_per_minute"),
            ("retry", "max_retry_after_s"),
            ("retry", "connect_retry_s"),
            ("retry", "max_rate_limit_wait_s"),
            ("retry", "max_attempts"),
            ("price", "input_per_mtok"),
        ][which];
        let (retry, model, price) = match section {
            "retry" => (format!("{key} = {value}\n"), String::new(), "1.0".to_string()),
            "price" => (String::new(), String::new(), value.clone()),
            _ => (String::new(), format!("{key} = {value}\n"), "1.0".to_string()),
        };
        let text = format!(
            "[retry]\n{retry}\n[[models]]\nname = \"a\"\nprovider = \"openai\"\nmodel = \"m\"\n{model}price = {{ input_per_mtok = {price}, output_per_mtok = 1.0 }}\n"
        );
        if let Ok(config) = parse(&text) {
            let _ = crate::providers::RetryPolicy::from(&config.retry);
            for m in &config.models {
                let _ = m.read_timeout();
                proptest::prop_assert!(m.timeout_s.is_finite() && m.max_call_s.is_finite());
            }
        }
    }
}

#[test]
fn simulated_truth_keys_are_optional_and_checked() {
    let entry = |extra: &str| {
        format!(
            "[[models]]\nname = \"a\"\nprovider = \"simulated\"\nmodel = \"m\"\n[models.simulated]\n{extra}"
        )
    };
    let plain = parse(&entry("quality = 0.5\n")).unwrap();
    let sim = plain.models[0].simulated.clone().unwrap();
    assert_eq!(
        (
            sim.skill,
            sim.leniency,
            sim.position_bias,
            sim.self_preference,
            sim.noise_sd
        ),
        (None, None, None, None, None)
    );
    // Unset keys are not written back, so stored configurations read as before.
    let written = toml::to_string(&sim).unwrap();
    assert!(
        !written.contains("skill") && !written.contains("noise_sd"),
        "{written}"
    );
    let set = parse(&entry(
        "skill = 0.7\nleniency = -0.5\nposition_bias = 0.25\nself_preference = 1\nnoise_sd = 0\n",
    ))
    .unwrap();
    let sim = set.models[0].simulated.clone().unwrap();
    assert_eq!(sim.skill, Some(0.7));
    assert_eq!(sim.leniency, Some(-0.5));
    assert_eq!(sim.position_bias, Some(0.25));
    assert_eq!(sim.self_preference, Some(1.0));
    assert_eq!(sim.noise_sd, Some(0.0));
    for (extra, key, says) in [
        ("skill = 1.5\n", "skill", "outside 0 to 1"),
        ("skill = -0.1\n", "skill", "outside 0 to 1"),
        ("skill = nan\n", "skill", "outside 0 to 1"),
        ("noise_sd = -1\n", "noise_sd", "standard deviation"),
        ("noise_sd = inf\n", "noise_sd", "standard deviation"),
        (
            "performance_sd = -2\n",
            "performance_sd",
            "standard deviation",
        ),
        ("leniency = inf\n", "leniency", "not a finite number"),
        (
            "position_bias = nan\n",
            "position_bias",
            "not a finite number",
        ),
        (
            "self_preference = -inf\n",
            "self_preference",
            "not a finite number",
        ),
    ] {
        let e = err(&entry(extra));
        assert!(
            e.contains(&format!("key \"simulated.{key}\"")) && e.contains(says),
            "{extra}: {e}"
        );
    }
}
