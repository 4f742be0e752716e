//! Which configured names share one provider quota, and the limiter they then share.
//!
//! A provider meters its quota per key and model, not per name in our models file, and a
//! researcher often lists one provider model more than once (a debater and a judge at another
//! temperature). Names that share the provider, the base URL, the key variable and the
//! provider's model id therefore share one concurrency window (adaptive or fixed) and one
//! requests-per-minute limit: one limiter paces the one quota, where one per name would race
//! each other for it. The shared limits are the strictest the names ask for: the smallest
//! `max_concurrency` and `requests_per_minute`, and adaptive if any of them is. Simulated
//! models meter nothing and each keep their own.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::Arc;

use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};

use super::adaptive::ModelLimiter;
use crate::config::{ModelConfig, ProviderKind};

/// What a provider meters one quota by.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum QuotaKey {
    /// A real provider's quota: provider, base URL, key variable, model id.
    Provider {
        provider: ProviderKind,
        base_url: String,
        key_var: Option<String>,
        model: String,
    },
    /// A name with a quota of its own (a simulated model), by name.
    Own(String),
}

impl QuotaKey {
    fn of(model: &ModelConfig) -> Self {
        if model.provider == ProviderKind::Simulated {
            return Self::Own(model.name.clone());
        }
        Self::Provider {
            provider: model.provider,
            base_url: model.effective_base_url().unwrap_or_default().to_string(),
            key_var: model.key_env().map(str::to_string),
            model: model.model.clone(),
        }
    }
}

/// One quota's limits, shared by every name on it.
#[derive(Debug)]
pub(crate) struct SharedQuota {
    /// The names on it, joined with `+` in the order they were listed (`gpt+gpt-judge`):
    /// how the UI and the headless lines name the quota.
    pub label: Arc<str>,
    /// The concurrency window.
    pub limiter: Arc<ModelLimiter>,
    /// The requests-per-minute limit, when any name sets one.
    pub per_minute: Option<Arc<DefaultDirectRateLimiter>>,
}

/// The shared quota of each model, in the order given: names metered together get the same
/// one.
pub(crate) fn plan(models: &[&ModelConfig]) -> Vec<Arc<SharedQuota>> {
    let mut groups: Vec<Vec<&ModelConfig>> = Vec::new();
    let mut index: HashMap<QuotaKey, usize> = HashMap::new();
    let mut group_of = Vec::with_capacity(models.len());
    for model in models {
        let next = groups.len();
        let group = *index.entry(QuotaKey::of(model)).or_insert(next);
        if group == next {
            groups.push(Vec::new());
        }
        groups[group].push(model);
        group_of.push(group);
    }
    let shared: Vec<Arc<SharedQuota>> = groups.iter().map(|names| share(names)).collect();
    group_of
        .into_iter()
        .map(|g| Arc::clone(&shared[g]))
        .collect()
}

/// The strictest limits of the names on one quota.
fn share(names: &[&ModelConfig]) -> Arc<SharedQuota> {
    let label: Vec<&str> = names.iter().map(|m| m.name.as_str()).collect();
    let cap = names.iter().map(|m| m.max_concurrency).min().unwrap_or(1);
    let adaptive = names.iter().any(|m| m.uses_adaptive_concurrency());
    let per_minute = names
        .iter()
        .filter_map(|m| m.requests_per_minute.and_then(NonZeroU32::new))
        .min()
        .map(|rpm| Arc::new(RateLimiter::direct(Quota::per_minute(rpm))));
    Arc::new(SharedQuota {
        label: label.join("+").into(),
        limiter: Arc::new(ModelLimiter::new(cap, adaptive)),
        per_minute,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ModelsConfig;
    use std::path::Path;

    fn config(text: &str) -> ModelsConfig {
        ModelsConfig::parse(text, Path::new("m.toml")).unwrap()
    }

    const MODELS: &str = r#"
[[models]]
name = "debater"
provider = "openai"
model = "gpt-x"
max_concurrency = 8
temperature = 1.0

[[models]]
name = "judge"
provider = "openai"
model = "gpt-x"
max_concurrency = 4
requests_per_minute = 30
temperature = 0.0

[[models]]
name = "other-key"
provider = "openai"
model = "gpt-x"
api_key_env = "SECOND_KEY"

[[models]]
name = "other-model"
provider = "openai"
model = "gpt-y"

[[models]]
name = "elsewhere"
provider = "openai-compatible"
model = "gpt-x"
base_url = "http://localhost:8000/v1"

[[models]]
name = "sim-a"
provider = "simulated"
model = "sim"

[[models]]
name = "sim-b"
provider = "simulated"
model = "sim"
"#;

    #[test]
    fn names_share_a_quota_only_when_provider_url_key_and_model_all_match() {
        let config = config(MODELS);
        let models: Vec<&ModelConfig> = config.models.iter().collect();
        let plan = plan(&models);
        let labels: Vec<&str> = plan.iter().map(|q| &*q.label).collect();
        assert_eq!(
            labels,
            [
                "debater+judge",
                "debater+judge",
                "other-key",
                "other-model",
                "elsewhere",
                "sim-a",
                "sim-b"
            ]
        );
        assert!(Arc::ptr_eq(&plan[0].limiter, &plan[1].limiter));
        assert!(!Arc::ptr_eq(&plan[0].limiter, &plan[2].limiter));
        assert!(!Arc::ptr_eq(&plan[5].limiter, &plan[6].limiter));
    }

    #[test]
    fn a_shared_quota_takes_the_strictest_limits() {
        let config = config(MODELS);
        let models: Vec<&ModelConfig> = config.models.iter().collect();
        let shared = &plan(&models)[0];
        let snapshot = shared.limiter.snapshot();
        assert_eq!(snapshot.max_concurrency, 4, "the smaller cap");
        assert!(snapshot.adaptive);
        let per_minute = shared.per_minute.as_ref().expect("the judge's limit");
        assert!(matches!(
            per_minute.check_n(NonZeroU32::new(30).unwrap()),
            Ok(Ok(()))
        ));
        assert!(per_minute.check().is_err(), "30 a minute, not more");
    }
}
