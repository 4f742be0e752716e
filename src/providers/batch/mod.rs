//! Batch mode: calls to a model placed in the provider's batch API (OpenAI's Batch API,
//! Anthropic's Message Batches, Gemini's batch mode) at about half the price, instead of
//! being streamed one by one.
//!
//! A round's call waits as it would for a streamed answer; the model's [`queue`] collects
//! the calls that arrive together (every round's ready step: a wave), submits them as one
//! batch (split at the provider's size limits), polls it with a growing interval, and hands
//! each call its answer, read by the same parser as a streamed one. A failed request fails
//! its own call (retried by the retry policy in a later batch when retryable), never the
//! batch. The [`journal`] in the tournament folder makes this survive a crash, and
//! [`adopt`] finds a batch whose create answer was lost.

mod adopt;
mod anthropic;
mod api;
mod gemini;
mod item;
mod journal;
mod openai;
mod queue;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::watch;

pub(crate) use api::BatchApi;
pub use journal::{JournalError, any_open};
pub(crate) use queue::ModelBatcher;

/// How batches are collected and polled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BatchSettings {
    /// A batch is sent once no new call has arrived for this long (calls of one wave arrive
    /// together)…
    pub collect: Duration,
    /// …or this long after its first call arrived, whichever is first.
    pub collect_max: Duration,
    /// The first poll of a batch comes after the smaller of this and `poll_max`…
    pub poll_first: Duration,
    /// …and the interval grows by half each poll up to this.
    pub poll_max: Duration,
}

impl Default for BatchSettings {
    fn default() -> Self {
        Self {
            collect: Duration::from_secs(2),
            collect_max: Duration::from_secs(30),
            poll_first: Duration::from_secs(5),
            poll_max: Duration::from_secs(60),
        }
    }
}

/// An open batch as the UI and headless output show it.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchView {
    /// The model's configured name.
    pub model: String,
    /// Its provider (`openai`, `anthropic`, `google`).
    pub provider: &'static str,
    /// The provider's id for the batch.
    pub remote: String,
    /// Requests in it.
    pub requests: u64,
    /// Requests answered so far.
    pub succeeded: u64,
    /// Requests failed so far.
    pub failed: u64,
    /// The provider's word for where it stands.
    pub state: String,
    /// How long it had been open when this view was taken.
    pub age: Duration,
    /// How long until the next poll, when this view was taken.
    pub next_poll_in: Option<Duration>,
}

/// The open batches of every model, published to whoever watches.
#[derive(Debug)]
pub(crate) struct Board {
    open: Mutex<BTreeMap<(String, String), BatchView>>,
    published: watch::Sender<Vec<BatchView>>,
}

impl Board {
    fn new() -> Self {
        Self {
            open: Mutex::new(BTreeMap::new()),
            published: watch::Sender::new(Vec::new()),
        }
    }

    /// Records a batch's view (`None` removes it) and publishes the whole board.
    pub(crate) fn set(&self, model: &str, local: &str, view: Option<BatchView>) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let key = (model.to_string(), local.to_string());
        match view {
            Some(v) => {
                open.insert(key, v);
            }
            None => {
                open.remove(&key);
            }
        }
        let all: Vec<BatchView> = open.values().cloned().collect();
        drop(open);
        self.published.send_replace(all);
    }
}

/// Batch mode for a run: one queue per batched model, and the board of open batches.
/// Dropping it stops collecting and polling (open batches stay open at the provider, and
/// the journal lets the next run pick them up).
#[derive(Debug)]
pub struct Batching {
    queues: Vec<Arc<ModelBatcher>>,
    board: Arc<Board>,
}

/// Batch mode cannot start.
#[derive(Debug, thiserror::Error)]
pub enum BatchSetupError {
    /// The model's provider has no batch API here.
    #[error(
        "model \"{model}\" ({provider}) cannot run in batch mode: only openai, anthropic and google \
         models have a batch API here; set batch = false on it in the models file, or leave batch mode off"
    )]
    Unsupported {
        /// The model.
        model: String,
        /// Its provider.
        provider: String,
    },
    /// The journal cannot be used.
    #[error(transparent)]
    Journal(#[from] JournalError),
}

impl Batching {
    /// Starts batch mode for `clients` (name and the model's HTTP target), with journals in
    /// `dir`: every batch a journal says is still open is polled again at once.
    pub(crate) fn start(
        clients: Vec<(String, Arc<ModelBatcherSlot>)>,
        dir: &Path,
        settings: BatchSettings,
    ) -> Result<Self, BatchSetupError> {
        let board = Arc::new(Board::new());
        let mut queues = Vec::new();
        for (name, slot) in clients {
            let api = slot.api()?;
            let path = dir.join(format!("{}.jsonl", file_stem(&name)));
            let queue = ModelBatcher::start(&name, api, &path, settings, Arc::clone(&board))?;
            slot.attach(Arc::clone(&queue));
            queues.push(queue);
        }
        Ok(Self { queues, board })
    }

    /// The open batches, updated whenever one changes.
    pub fn watch(&self) -> watch::Receiver<Vec<BatchView>> {
        self.board.published.subscribe()
    }

    /// How many batches are open now.
    pub fn open_count(&self) -> usize {
        self.board.published.borrow().len()
    }

    /// Waits (up to 15 s) for batches being created to get their ids into the journal:
    /// called before a run stops, so a batch the provider made is never forgotten.
    pub async fn settle(&self) {
        for queue in &self.queues {
            queue.settle().await;
        }
    }

    /// Creates no more batches (see [`ModelBatcher::stop_creating`]): the run has stopped
    /// starting calls. Open batches are still polled.
    pub fn stop_creating(&self) {
        for queue in &self.queues {
            queue.stop_creating();
        }
    }

    /// Asks the providers to cancel every open batch; returns what could not be
    /// cancelled. The batches stay open here until they end, so the answers they finished
    /// first are collected (now, or by the next run) and only the rest are sent again.
    pub async fn cancel_open(&self) -> Vec<String> {
        let mut failures = Vec::new();
        for queue in &self.queues {
            failures.extend(queue.cancel_open().await);
        }
        failures
    }
}

impl Drop for Batching {
    fn drop(&mut self) {
        for queue in &self.queues {
            queue.stop();
        }
    }
}

/// A file name for a model's journal: its name with anything but letters, digits, `-`
/// and `_` replaced.
fn file_stem(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Where a model client keeps its batch queue once batch mode starts, and what it needs to
/// make one.
#[derive(Debug, Default)]
pub(crate) struct ModelBatcherSlot {
    target: Option<crate::providers::http::HttpTarget>,
    model: String,
    provider: String,
    queue: std::sync::OnceLock<Arc<ModelBatcher>>,
}

impl ModelBatcherSlot {
    /// A slot for a model reached over `target` (none for simulated models).
    pub(crate) fn new(
        model: &str,
        provider: &str,
        target: Option<crate::providers::http::HttpTarget>,
    ) -> Self {
        Self {
            target,
            model: model.to_string(),
            provider: provider.to_string(),
            queue: std::sync::OnceLock::new(),
        }
    }

    fn api(&self) -> Result<BatchApi, BatchSetupError> {
        self.target
            .as_ref()
            .and_then(BatchApi::for_target)
            .ok_or_else(|| BatchSetupError::Unsupported {
                model: self.model.clone(),
                provider: self.provider.clone(),
            })
    }

    fn attach(&self, queue: Arc<ModelBatcher>) {
        let _ = self.queue.set(queue);
    }

    /// The queue, when batch mode is on for this model.
    pub(crate) fn queue(&self) -> Option<&Arc<ModelBatcher>> {
        self.queue.get()
    }

    /// Whether the model's provider has a batch API here.
    pub(crate) fn supported(&self) -> bool {
        self.target
            .as_ref()
            .is_some_and(|t| BatchApi::for_target(t).is_some())
    }
}
