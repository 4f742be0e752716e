//! The response cache for development (`cache = true` in a tournament, `--cache`): every
//! answer kept under the digest of the full request (see [`key`]), so a re-run, a rejudge
//! or a resumed run that asks the same thing again gets the stored answer without a call.
//! Off by default, and used only for requests at temperature 0 unless asked for every
//! temperature (`cache = "any-temperature"`): a reused answer is not a new sample.
//! See docs/response-cache.md.

mod entry;
mod key;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;

use crate::config::{CacheSetting, ModelConfig};
use crate::providers::types::{ChatRequest, Completion};

pub use entry::Entry;

/// The variable that names the cache's folder when the tournament's `cache_dir` does not.
pub const DIR_VAR: &str = "ETHICS_BOWL_CACHE_DIR";

/// Which requests the cache serves and keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CachePolicy {
    /// Only requests whose temperature in force is 0 (`cache = true`).
    ZeroTemperature,
    /// Every request (`cache = "any-temperature"`).
    AnyTemperature,
}

impl CachePolicy {
    /// The policy a tournament's `cache` asks for; none when it is off.
    pub fn of(setting: CacheSetting) -> Option<Self> {
        match setting {
            CacheSetting::Off => None,
            CacheSetting::On => Some(Self::ZeroTemperature),
            CacheSetting::AnyTemperature => Some(Self::AnyTemperature),
        }
    }
}

/// A request's place in the cache: the folder, the request's key, and the count of answers
/// served it adds to. The file work runs on tokio's blocking pool, as the store's does, so
/// the runtime's workers keep serving streams while a file is read or flushed.
#[derive(Debug, Clone)]
pub struct Slot {
    dir: PathBuf,
    key: String,
    reused: Arc<AtomicU64>,
}

impl Slot {
    /// The stored answer, if any; counted as reused.
    pub async fn load(&self) -> Option<Entry> {
        let (dir, key) = (self.dir.clone(), self.key.clone());
        let entry = tokio::task::spawn_blocking(move || entry::load(&dir, &key))
            .await
            .ok()
            .flatten()?;
        self.reused.fetch_add(1, Ordering::Relaxed);
        Some(entry)
    }

    /// Stores a model's answer (`model`, its provider's id) for the next identical request;
    /// returns once the file is in place (or its failure logged).
    pub async fn store(&self, model: &str, completion: &Completion) {
        let entry = Entry::new(&self.key, model, completion);
        let dir = self.dir.clone();
        if tokio::task::spawn_blocking(move || entry::store(&dir, &entry))
            .await
            .is_err()
        {
            tracing::warn!(key = %self.key, "answer not stored in the response cache");
        }
    }
}

/// The cache one run (or rejudge) uses: its folder and policy, and how many answers it
/// served.
#[derive(Debug)]
pub struct ResponseCache {
    dir: PathBuf,
    policy: CachePolicy,
    reused: Arc<AtomicU64>,
    passed_over: AtomicU64,
}

impl ResponseCache {
    /// A cache in `dir` (created as entries are written).
    pub fn new(dir: PathBuf, policy: CachePolicy) -> Self {
        Self {
            dir,
            policy,
            reused: Arc::new(AtomicU64::new(0)),
            passed_over: AtomicU64::new(0),
        }
    }

    /// Answers served from the cache so far.
    pub fn reused(&self) -> u64 {
        self.reused.load(Ordering::Relaxed)
    }

    /// Requests sent without the cache because their temperature was not 0: said after a
    /// run, so that `--cache` on models at their default temperature (the sample's) does not
    /// pass for a cache that found nothing.
    pub fn passed_over(&self) -> u64 {
        self.passed_over.load(Ordering::Relaxed)
    }

    /// The line that says why some requests went without the cache, when any did.
    pub fn passed_over_line(&self) -> Option<String> {
        let n = self.passed_over();
        (n > 0).then(|| {
            format!(
                "response cache: {n} request(s) sent without it, their temperature not 0 (a \
                 model with no `temperature` gets its provider's default); set temperature = 0 \
                 or use cache = \"any-temperature\" (--cache=any-temperature) to keep them too"
            )
        })
    }

    /// Whether a request at this temperature in force may be served and kept: 0 exactly,
    /// or any with `AnyTemperature`. No temperature (the provider's default) is not 0.
    pub fn admits(&self, temperature: Option<f64>) -> bool {
        self.policy == CachePolicy::AnyTemperature || temperature == Some(0.0)
    }

    /// The request's slot, when the policy admits it: `constrained` says whether the model
    /// is made to answer in the request's schema; `roster`, a simulated model's knobs of
    /// every simulated model (none for a real provider).
    pub fn slot(
        &self,
        config: &ModelConfig,
        req: &ChatRequest,
        constrained: bool,
        roster: Option<&Value>,
    ) -> Option<Slot> {
        let admitted = self.admits(req.temperature_or(config.temperature));
        if !admitted {
            self.passed_over.fetch_add(1, Ordering::Relaxed);
        }
        admitted.then(|| Slot {
            dir: self.dir.clone(),
            key: key::key(config, req, constrained, roster),
            reused: Arc::clone(&self.reused),
        })
    }
}

/// The cache's folder: the tournament's `cache_dir` when set, else `$ETHICS_BOWL_CACHE_DIR`,
/// else `$XDG_CACHE_HOME/ethics-bowl/responses` (`~/.cache/ethics-bowl/responses`); none
/// when there is no home folder to put it in. `env` reads a variable (tests pass their own).
pub fn folder(configured: Option<&Path>, env: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(dir) = configured {
        return Some(dir.to_path_buf());
    }
    if let Some(dir) = env(DIR_VAR).filter(|d| !d.trim().is_empty()) {
        return Some(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "ethics-bowl").map(|d| d.cache_dir().join("responses"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_temperature_zero_is_admitted_unless_every_temperature_is() {
        let zero = ResponseCache::new(PathBuf::from("c"), CachePolicy::ZeroTemperature);
        assert!(zero.admits(Some(0.0)));
        assert!(!zero.admits(Some(0.7)));
        assert!(!zero.admits(None), "the provider's default is not 0");
        let any = ResponseCache::new(PathBuf::from("c"), CachePolicy::AnyTemperature);
        assert!(any.admits(Some(0.7)) && any.admits(None));
    }

    #[test]
    fn the_folder_is_the_files_then_the_variables_then_the_users_cache() {
        let env = |v: &str| (v == DIR_VAR).then(|| "/from/env".to_string());
        assert_eq!(
            folder(Some(Path::new("mine")), env),
            Some(PathBuf::from("mine"))
        );
        assert_eq!(folder(None, env), Some(PathBuf::from("/from/env")));
        let none = |_: &str| None;
        if let Some(dir) = folder(None, none) {
            assert!(dir.ends_with("ethics-bowl/responses"), "{}", dir.display());
        }
    }
}
