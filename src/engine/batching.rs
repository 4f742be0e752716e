//! Batch mode in a run: which models batch, starting their queues with the journal in the
//! tournament folder, and passing the board of open batches on as events.

use std::path::Path;

use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use crate::config::{ModelsConfig, TournamentConfig};
use crate::providers::{BatchSettings, BatchSetupError, Batching, ModelRegistry};
use crate::store::StoreError;

use super::error::EngineError;
use super::events::EngineEvent;

/// The models of a run whose calls go through their provider's batch API, and what the
/// user should hear about the others. A model's own `batch` key wins; otherwise batch mode
/// on the tournament (its `batch` key or `--batch`) takes every model with a batch API.
pub fn batched_models<'a>(
    batch: bool,
    models: &ModelsConfig,
    used: impl IntoIterator<Item = &'a str>,
) -> (Vec<String>, Vec<String>) {
    let mut batched = Vec::new();
    let mut streamed = Vec::new();
    for name in used {
        let Some(m) = models.get(name) else { continue };
        if batched.contains(&m.name) || streamed.contains(&m.name) {
            continue;
        }
        match m.batch {
            Some(true) => batched.push(m.name.clone()),
            Some(false) => {}
            None if batch && m.has_batch_api() => batched.push(m.name.clone()),
            None if batch => streamed.push(m.name.clone()),
            None => {}
        }
    }
    let warnings = if streamed.is_empty() {
        Vec::new()
    } else {
        vec![format!(
            "batch mode: {} ha{} no batch API here (only openai, anthropic and google do), so \
             {} calls are streamed as usual",
            streamed.join(", "),
            if streamed.len() == 1 { "s" } else { "ve" },
            if streamed.len() == 1 { "its" } else { "their" }
        )]
    };
    (batched, warnings)
}

/// The polling settings a tournament file asks for.
pub fn settings(config: &TournamentConfig) -> BatchSettings {
    BatchSettings {
        poll_max: crate::config::seconds(config.batch_poll_max_s),
        collect: crate::config::seconds(config.batch_collect_s),
        ..BatchSettings::default()
    }
}

/// Batch mode running for a run: the queues, and the task passing the board on.
pub(crate) struct RunBatches {
    pub batching: Batching,
    forward: AbortHandle,
}

impl Drop for RunBatches {
    fn drop(&mut self) {
        self.forward.abort();
    }
}

/// Starts batch mode for `models` (none: batch mode is off), journals in
/// `<dir>/batches/`; every change to the open batches becomes an [`EngineEvent::Batches`].
pub(crate) fn start(
    registry: &ModelRegistry,
    models: &[String],
    dir: &Path,
    settings: BatchSettings,
    events: mpsc::UnboundedSender<EngineEvent>,
) -> Result<Option<RunBatches>, EngineError> {
    if models.is_empty() {
        return Ok(None);
    }
    let batching = registry
        .start_batching(models, &dir.join("batches"), settings)
        .map_err(|e| match e {
            BatchSetupError::Journal(j) => EngineError::Store(StoreError::Io {
                path: j.path,
                source: j.source,
            }),
            other => EngineError::Store(StoreError::Io {
                path: dir.to_path_buf(),
                source: std::io::Error::other(other.to_string()),
            }),
        })?;
    let mut board = batching.watch();
    let forward = tokio::spawn(async move {
        while board.changed().await.is_ok() {
            let open = board.borrow_and_update().clone();
            if events.send(EngineEvent::Batches { open }).is_err() {
                break;
            }
        }
    });
    Ok(Some(RunBatches {
        batching,
        forward: forward.abort_handle(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn models() -> ModelsConfig {
        let text = "[[models]]\nname = \"gpt\"\nprovider = \"openai\"\nmodel = \"m\"\n\
             [[models]]\nname = \"claude\"\nprovider = \"anthropic\"\nmodel = \"m\"\nbatch = false\n\
             [[models]]\nname = \"grok\"\nprovider = \"xai\"\nmodel = \"m\"\n\
             [[models]]\nname = \"gem\"\nprovider = \"google\"\nmodel = \"m\"\nbatch = true\n";
        ModelsConfig::parse(text, Path::new("models.toml")).unwrap()
    }

    #[test]
    fn a_models_own_key_wins_and_models_without_a_batch_api_are_named() {
        let all = ["gpt", "claude", "grok", "gem", "gpt"];
        let (batched, warnings) = batched_models(true, &models(), all);
        assert_eq!(batched, ["gpt", "gem"]);
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].contains("grok has no batch API"),
            "{warnings:?}"
        );
        let (batched, warnings) = batched_models(false, &models(), all);
        assert_eq!(batched, ["gem"], "batch = true on the model alone");
        assert!(warnings.is_empty());
    }
}
