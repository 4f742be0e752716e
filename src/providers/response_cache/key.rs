//! A request's key in the response cache: SHA-256 over a canonical JSON of everything that
//! decides the answer, so two requests share an answer only when a provider would be asked
//! the same thing in the same way.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::config::ModelConfig;
use crate::providers::types::ChatRequest;

/// The shape of the key and of the files it names; a change to either bumps it, so entries
/// written by an older build are never read as answers to today's requests.
pub(crate) const FORMAT: u32 = 2;

/// The canonical JSON a key is the digest of: the format, the provider and endpoint, the
/// model id, every sampling setting actually sent, the system prompt, the turns, the schema,
/// and the round (its id, which holds its pairing, dilemma and repetition). Never the key
/// variable's name or value, and never the stable prefix's mark (it tells a provider's
/// prompt cache where to cut, not what to answer).
///
/// The round is in the key although a provider never sees it: without it, two rounds of one
/// run that send the same request (a model presenting a dilemma against two opponents, a
/// structured debate's opening) would share one answer, turning what the design counts as
/// independent rounds into copies; with it, only the same round asked again (a re-run, a
/// resume, a rejudge) gets a stored answer.
///
/// A simulated model's answer is also seeded by the call's tag (its round, phase and cast)
/// and by the knobs of every simulated model (`roster`, a judge reads its debaters'
/// skill), so for it those are part of the key too; a real provider never sees them.
pub(crate) fn canonical(
    config: &ModelConfig,
    req: &ChatRequest,
    constrained: bool,
    roster: Option<&Value>,
) -> Value {
    let turns: Vec<Value> = req
        .turns
        .iter()
        .map(|t| json!({"role": t.role, "text": t.text}))
        .collect();
    let schema = req
        .schema
        .as_ref()
        .map(|s| json!({"name": s.name, "schema": s.schema}));
    let simulated = roster.map(|roster| {
        json!({
            "name": config.name,
            "tag": req.tag,
            "roster": roster,
        })
    });
    json!({
        "format": FORMAT,
        "provider": config.provider.as_str(),
        "base_url": config.effective_base_url(),
        "model": config.model,
        "temperature": req.temperature_or(config.temperature),
        "max_tokens": req.token_limit(config.max_tokens),
        "seed": config.seed,
        "reasoning_effort": config.reasoning_effort.map(|r| r.as_str()),
        "structured_output": config.structured_output.map(|s| s.as_config()),
        "constrained": constrained,
        "on_truncation": config.on_truncation,
        "max_tokens_cap": config.effective_max_tokens_cap(),
        "system": req.system,
        "turns": turns,
        "schema": schema,
        "round": req.tag.round_id,
        "repetition": req.tag.repetition,
        "simulated": simulated,
    })
}

/// The key: the lowercase hex SHA-256 of [`canonical`]'s JSON text.
pub(crate) fn key(
    config: &ModelConfig,
    req: &ChatRequest,
    constrained: bool,
    roster: Option<&Value>,
) -> String {
    let text = canonical(config, req, constrained, roster).to_string();
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ProviderKind;
    use crate::providers::types::{Role, Turn};

    fn model() -> ModelConfig {
        let mut m: ModelConfig = toml::from_str(
            "name = \"gpt\"\nprovider = \"openai\"\nmodel = \"gpt-4o\"\napi_key_env = \"OPENAI_API_KEY\"\n",
        )
        .unwrap();
        m.temperature = Some(0.0);
        m
    }

    fn request() -> ChatRequest {
        let mut r = ChatRequest::new("system", "the dilemma, then the round's own text");
        r.tag.repetition = Some(1);
        r
    }

    #[test]
    fn the_same_request_has_the_same_key_of_64_hex_digits() {
        let k = key(&model(), &request(), false, None);
        assert_eq!(k, key(&model(), &request(), false, None));
        assert_eq!(k.len(), 64);
        assert!(
            k.chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
    }

    #[test]
    fn every_part_that_decides_the_answer_changes_the_key() {
        let base = key(&model(), &request(), false, None);
        let mut changed: Vec<(&str, String)> = Vec::new();
        let with_model = |f: &dyn Fn(&mut ModelConfig)| {
            let mut m = model();
            f(&mut m);
            key(&m, &request(), false, None)
        };
        let with_request = |f: &dyn Fn(&mut ChatRequest)| {
            let mut r = request();
            f(&mut r);
            key(&model(), &r, false, None)
        };
        changed.push(("model id", with_model(&|m| m.model = "gpt-4.1".into())));
        changed.push(("provider", with_model(&|m| m.provider = ProviderKind::Xai)));
        changed.push((
            "base url",
            with_model(&|m| m.base_url = Some("http://127.0.0.1:9/v1".into())),
        ));
        changed.push(("temperature", with_model(&|m| m.temperature = Some(0.5))));
        changed.push(("max_tokens", with_model(&|m| m.max_tokens = 99)));
        changed.push(("seed", with_model(&|m| m.seed = Some(7))));
        changed.push((
            "request temperature",
            with_request(&|r| r.temperature = Some(0.2)),
        ));
        changed.push(("request limit", with_request(&|r| r.max_tokens = Some(50))));
        changed.push(("system", with_request(&|r| r.system = "other".into())));
        changed.push((
            "turns",
            with_request(&|r| {
                r.turns.push(Turn {
                    role: Role::Assistant,
                    text: "earlier".into(),
                })
            }),
        ));
        changed.push((
            "schema",
            with_request(&|r| r.schema = request().with_schema("s", json!({})).schema),
        ));
        changed.push(("repetition", with_request(&|r| r.tag.repetition = Some(2))));
        changed.push(("constrained", key(&model(), &request(), true, None)));
        for (what, k) in &changed {
            assert_ne!(*k, base, "{what} left the key as it was");
        }
    }

    #[test]
    fn marks_phases_and_names_of_a_real_model_leave_the_key_alone_but_its_round_does_not() {
        let base = key(
            &model(),
            &request().tagged("r1", "presentation"),
            false,
            None,
        );
        let marked = request()
            .tagged("r1", "presentation")
            .with_stable_prefix(10);
        assert_eq!(key(&model(), &marked, false, None), base);
        let other_phase = request().tagged("r1", "judgment");
        assert_eq!(key(&model(), &other_phase, false, None), base);
        let other_round = request().tagged("r9", "presentation");
        assert_ne!(
            key(&model(), &other_round, false, None),
            base,
            "two rounds of one run never share an answer"
        );
        let mut renamed = model();
        renamed.name = "gpt-judge".into();
        renamed.api_key_env = Some("OTHER_KEY".into());
        assert_eq!(
            key(
                &renamed,
                &request().tagged("r1", "presentation"),
                false,
                None
            ),
            base
        );
    }

    #[test]
    fn a_simulated_models_tag_and_roster_are_part_of_its_key() {
        let roster = json!({"sim": {"skill": 1.0}});
        let base = key(&model(), &request(), false, Some(&roster));
        let tagged = request().tagged("r9", "judgment");
        assert_ne!(key(&model(), &tagged, false, Some(&roster)), base);
        assert_ne!(
            key(
                &model(),
                &request(),
                false,
                Some(&json!({"sim": {"skill": 2.0}}))
            ),
            base
        );
    }

    #[test]
    fn the_key_variable_and_its_value_never_appear_in_what_is_hashed() {
        let secret = "sk-live-cache-key-test-0123456789";
        let mut m = model();
        m.api_key_env = Some("MY_SECRET_VAR".into());
        let text = canonical(&m, &request(), false, None).to_string();
        assert!(
            !text.contains("MY_SECRET_VAR") && !text.contains(secret),
            "{text}"
        );
        assert!(!key(&m, &request(), false, None).contains(secret));
    }
}
