//! One model's batch queue: calls wait here while their batch is collected, created,
//! polled and read; each is handed its own answer or error.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use tokio::sync::{Notify, oneshot};
use tokio::task::AbortHandle;
use tokio::time::Instant;

use super::adopt::{Lost, find, may_have_created, new_tag};
use super::api::{BatchApi, Listed, Progress, Stage};
use super::item::{Item, ItemOutcome, item_id};
use super::journal::{Entry, Journal, JournalError, Record, Recorded, remotes_in};
use super::{BatchSettings, BatchView, Board};
use crate::domain::{ErrorKind, now_rfc3339};
use crate::providers::ProviderError;
use crate::providers::types::{ChatRequest, Completion};

/// What a waiting call receives: the provider's id of its batch, and its outcome.
type Delivery = (String, ItemOutcome);

/// Polls or result reads a provider refuses (a final error: the batch is gone, the key
/// was revoked) before the batch is given up and its requests are sent again.
const MAX_REFUSED_POLLS: u32 = 3;
/// A batch still open this long after it was created is given up (the providers end
/// batches at 24 hours), and its requests are sent again.
const GIVE_UP_AFTER: Duration = Duration::from_secs(25 * 3600);
/// How long stopping or cancelling waits for batches being created to get their ids.
const CREATE_WAIT: Duration = Duration::from_secs(15);
/// How long listing the provider's batches (to find one whose create answer was lost) may
/// take before its requests are sent again instead.
const LIST_WAIT: Duration = Duration::from_secs(60);

/// The queue's changing state.
#[derive(Debug, Default)]
struct State {
    /// Calls not yet in a batch, in arrival order.
    pending: Vec<Item>,
    pending_ids: HashSet<String>,
    first_arrival: Option<Instant>,
    last_arrival: Option<Instant>,
    /// Calls waiting for an answer, by request id.
    waiters: HashMap<String, Vec<oneshot::Sender<Delivery>>>,
    /// Requests in a batch being created or still open.
    placed: HashSet<String>,
    /// Requests of batches whose create answer was lost, while the provider's list is
    /// read to find them…
    looking: HashSet<String>,
    /// …and the calls that asked for them meanwhile, held until it is known whether they
    /// are in a batch or must be sent.
    held: HashMap<String, Item>,
    /// Answers no call has asked for yet (fetched while nobody waited, or read from the
    /// journal), by request id.
    unclaimed: HashMap<String, Delivery>,
    /// Open batches: local id to the provider's id and the poll task.
    open: HashMap<String, (String, AbortHandle)>,
    /// Open batches taken for ours by size and time alone: never cancelled by us.
    guessed: HashSet<String>,
}

/// One model's batch queue (see the module doc).
#[derive(Debug)]
pub(crate) struct ModelBatcher {
    model: String,
    api: BatchApi,
    journal: Mutex<Journal>,
    state: Mutex<State>,
    arrived: Notify,
    board: Arc<Board>,
    settings: BatchSettings,
    next_local: AtomicU64,
    stopped: AtomicBool,
    collector: Mutex<Option<AbortHandle>>,
    /// Batches being created (their ids not yet known), and a signal when one is.
    creating: AtomicUsize,
    created: Notify,
    /// The folder of every model's journal, whose batches a lookup for a lost batch must
    /// not take for it.
    journals: PathBuf,
}

impl ModelBatcher {
    /// Opens the model's journal, takes in what it holds (answers not yet claimed; batches
    /// still open, which are polled again) and starts collecting.
    pub(crate) fn start(
        model: &str,
        api: BatchApi,
        journal_path: &Path,
        settings: BatchSettings,
        board: Arc<Board>,
    ) -> Result<Arc<Self>, JournalError> {
        let (journal, replay) = Journal::open(journal_path)?;
        let queue = Arc::new(Self {
            model: model.to_string(),
            api,
            journal: Mutex::new(journal),
            state: Mutex::new(State {
                unclaimed: replay.results,
                ..State::default()
            }),
            arrived: Notify::new(),
            board,
            settings,
            next_local: AtomicU64::new(replay.next_local),
            stopped: AtomicBool::new(false),
            collector: Mutex::new(None),
            creating: AtomicUsize::new(0),
            created: Notify::new(),
            journals: journal_path
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default(),
        });
        let mut lost = Vec::new();
        for (local, batch) in replay.batches {
            if batch.is_orphan() {
                lost.push((local, batch));
                continue;
            }
            let Some(remote) = batch.remote.filter(|_| !batch.closed) else {
                continue;
            };
            if batch.guessed {
                lock(&queue.state).guessed.insert(local.clone());
            }
            let submitted = batch
                .submitted_at
                .and_then(|at| at.parse::<jiff::Timestamp>().ok())
                .map_or_else(SystemTime::now, SystemTime::from);
            tracing::info!(model, batch = %remote, requests = batch.requests.len(), "polling a batch left open by an earlier run");
            let requests: Vec<(String, u32)> = batch
                .requests
                .iter()
                .map(|e| (e.id.clone(), e.max_tokens))
                .collect();
            Arc::clone(&queue).watch_batch(local, remote, requests, submitted);
        }
        if !lost.is_empty() {
            let mut state = lock(&queue.state);
            for (_, batch) in &lost {
                state
                    .looking
                    .extend(batch.requests.iter().map(|e| e.id.clone()));
            }
            drop(state);
            queue.creating.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(Arc::clone(&queue).adopt_lost(lost));
        }
        let collector = tokio::spawn(Arc::clone(&queue).collect());
        *lock(&queue.collector) = Some(collector.abort_handle());
        Ok(queue)
    }

    /// Stops collecting and polling; calls still waiting fail as retryable. Batches being
    /// created may still get their ids recorded: [`ModelBatcher::settle`] waits for them.
    pub(crate) fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        if let Some(collector) = lock(&self.collector).take() {
            collector.abort();
        }
        let mut state = lock(&self.state);
        for (_, (_, poll)) in state.open.drain() {
            poll.abort();
        }
        state.waiters.clear();
    }

    /// Creates no more batches: calls not yet in a batch fail as stopped (retryable, so a
    /// later run sends them), while open batches go on being polled for the answers they
    /// hold. Called the moment a run stops starting calls, so that nothing is sent after
    /// "stopping".
    pub(crate) fn stop_creating(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        if let Some(collector) = lock(&self.collector).take() {
            collector.abort();
        }
        let mut state = lock(&self.state);
        let pending = std::mem::take(&mut state.pending);
        state.pending_ids.clear();
        state.first_arrival = None;
        state.last_arrival = None;
        for item in pending {
            // Dropping the senders fails the waiting calls as stopped.
            state.waiters.remove(&item.id);
        }
    }

    /// Waits (up to a bound) until no batch is being created, so that every batch the
    /// provider made is in the journal before the run stops or cancels.
    pub(crate) async fn settle(&self) {
        let deadline = Instant::now() + CREATE_WAIT;
        loop {
            let created = self.created.notified();
            if self.creating.load(Ordering::SeqCst) == 0 {
                return;
            }
            if tokio::time::timeout_at(deadline, created).await.is_err() {
                tracing::warn!(model = %self.model, "a batch was still being created when the run stopped; if the provider made it, the next run looks for it in the provider's list");
                return;
            }
        }
    }

    /// One attempt of a call, through a batch: the answer or error its request got.
    pub(crate) async fn call(
        &self,
        req: &ChatRequest,
        attempt: u32,
        max_tokens: u32,
    ) -> Result<Completion, ProviderError> {
        let body = self.api.body(req);
        let id = item_id(
            &req.tag.round_id,
            &req.tag.phase,
            attempt,
            &self.api.identity(req),
        );
        let receiver = {
            let mut state = lock(&self.state);
            if let Some((remote, outcome)) = state.unclaimed.remove(&id) {
                return outcome.into_result(&remote);
            }
            if self.stopped.load(Ordering::SeqCst) {
                return Err(stopped());
            }
            let (tx, rx) = oneshot::channel();
            state.waiters.entry(id.clone()).or_default().push(tx);
            let item = Item {
                id: id.clone(),
                body,
                max_tokens,
                round_id: req.tag.round_id.clone(),
                phase: req.tag.phase.clone(),
            };
            if state.placed.contains(&id) {
                // Its batch answers it.
            } else if state.looking.contains(&id) {
                state.held.entry(id).or_insert(item);
            } else if state.pending_ids.insert(id) {
                self.enqueue(&mut state, item);
            }
            rx
        };
        match receiver.await {
            Ok((remote, outcome)) => outcome.into_result(&remote),
            Err(_) => Err(stopped()),
        }
    }

    /// Puts a call in the next batch.
    fn enqueue(&self, state: &mut State, item: Item) {
        let now = Instant::now();
        state.first_arrival.get_or_insert(now);
        state.last_arrival = Some(now);
        state.pending.push(item);
        self.arrived.notify_one();
    }

    /// Looks for the batches whose create answer was lost (`lost`, as the journal tells
    /// them) in the provider's list: one found is recorded as submitted and polled; the
    /// requests of one not found (or of all, when the list cannot be read) are sent again,
    /// and the journal closes it so no later run looks again.
    async fn adopt_lost(self: Arc<Self>, lost: Vec<(String, Recorded)>) {
        let listed = self.list().await;
        for (local, batch) in lost {
            let ids: Vec<String> = batch.requests.iter().map(|e| e.id.clone()).collect();
            let tag = batch.tag.as_deref().unwrap_or_default();
            let found = listed.as_ref().ok().and_then(|listed| {
                let wanted = Lost {
                    tag,
                    at: batch.submitting_at.as_deref().and_then(|t| t.parse().ok()),
                    requests: ids.len(),
                };
                find(
                    listed,
                    &wanted,
                    self.api.tags_batches(),
                    &self.known_remotes(),
                )
                .cloned()
            });
            match found {
                Some(remote) => {
                    tracing::info!(model = %self.model, batch = %remote.remote, requests = ids.len(), "found at the provider a batch whose create answer was lost; polling it instead of sending its requests again");
                    let guessed = !self.api.tags_batches();
                    if guessed {
                        lock(&self.state).guessed.insert(local.clone());
                    }
                    self.record_submitted(&local, &remote.remote, guessed);
                    let requests = batch
                        .requests
                        .iter()
                        .map(|e| (e.id.clone(), e.max_tokens))
                        .collect();
                    let created = remote
                        .created
                        .map_or_else(SystemTime::now, SystemTime::from);
                    // Stopped meanwhile: the journal has it for the next run.
                    if !self.stopped.load(Ordering::SeqCst) {
                        Arc::clone(&self).watch_batch(local, remote.remote, requests, created);
                    }
                }
                None => {
                    let why = match &listed {
                        Ok(_) => "not in the provider's list: never created".to_string(),
                        Err(e) => format!("not looked up ({e}): sent again"),
                    };
                    tracing::warn!(model = %self.model, requests = ids.len(), why, "a batch whose create answer was lost is not adopted; its requests are sent again");
                    self.record_closed(&local, &why);
                }
            }
            self.release(&ids);
        }
        self.creating.fetch_sub(1, Ordering::SeqCst);
        self.created.notify_waiters();
    }

    /// The provider's most recent batches, bounded in time; an error says why not.
    async fn list(&self) -> Result<Vec<Listed>, String> {
        match tokio::time::timeout(LIST_WAIT, self.api.list()).await {
            Ok(Ok(listed)) => Ok(listed),
            Ok(Err(e)) => {
                tracing::warn!(model = %self.model, error = %e, "could not list the provider's batches to find one whose create answer was lost; if the provider made it, it runs twice");
                Err(e.to_string())
            }
            Err(_) => {
                tracing::warn!(model = %self.model, "listing the provider's batches took too long; if a batch whose create answer was lost exists, it runs twice");
                Err("the list took too long".to_string())
            }
        }
    }

    /// Ends the lookup of `ids`: the calls held for those not placed in a batch go to the
    /// next one.
    fn release(&self, ids: &[String]) {
        let mut state = lock(&self.state);
        for id in ids {
            state.looking.remove(id);
            let Some(item) = state.held.remove(id) else {
                continue;
            };
            if !state.placed.contains(id) && state.pending_ids.insert(id.clone()) {
                self.enqueue(&mut state, item);
            }
        }
    }

    /// Collects arriving calls into batches: a batch is sent once calls stop arriving
    /// (`collect`), `collect_max` after its first call, or when it is full.
    async fn collect(self: Arc<Self>) {
        let (max_requests, _) = self.api.limits();
        loop {
            let arrived = self.arrived.notified();
            let due = {
                let state = lock(&self.state);
                match (state.first_arrival, state.last_arrival) {
                    (Some(first), Some(_)) if state.pending.len() >= max_requests => Some(first),
                    (Some(first), Some(last)) => {
                        Some((last + self.settings.collect).min(first + self.settings.collect_max))
                    }
                    _ => None,
                }
            };
            match due {
                None => arrived.await,
                Some(due) if due > Instant::now() => {
                    tokio::select! {
                        () = tokio::time::sleep_until(due) => {}
                        () = arrived => {}
                    }
                }
                Some(_) => {
                    for items in self.take_batches() {
                        let local = format!("b{}", self.next_local.fetch_add(1, Ordering::SeqCst));
                        self.creating.fetch_add(1, Ordering::SeqCst);
                        tokio::spawn(Arc::clone(&self).submit(local, items));
                    }
                }
            }
        }
    }

    /// Takes every pending call that someone still waits for (a call abandoned meanwhile,
    /// as when a run is stopped, is not sent), split into batches within the provider's
    /// limits.
    fn take_batches(&self) -> Vec<Vec<Item>> {
        let (max_requests, max_bytes) = self.api.limits();
        let mut state = lock(&self.state);
        let pending = std::mem::take(&mut state.pending);
        state.pending_ids.clear();
        state.first_arrival = None;
        state.last_arrival = None;
        if self.stopped.load(Ordering::SeqCst) {
            for item in pending {
                state.waiters.remove(&item.id);
            }
            return Vec::new();
        }
        let mut batches: Vec<Vec<Item>> = Vec::new();
        let mut bytes = 0usize;
        for item in pending {
            let waited = state.waiters.get_mut(&item.id).is_some_and(|waiting| {
                waiting.retain(|tx| !tx.is_closed());
                !waiting.is_empty()
            });
            if !waited {
                state.waiters.remove(&item.id);
                continue;
            }
            // The body plus room for the line around it.
            let size = item.body.to_string().len() + 200;
            let full = batches
                .last()
                .is_none_or(|b| b.len() >= max_requests || bytes + size > max_bytes);
            if full {
                batches.push(Vec::new());
                bytes = 0;
            }
            bytes += size;
            state.placed.insert(item.id.clone());
            if let Some(batch) = batches.last_mut() {
                batch.push(item);
            }
        }
        batches
    }

    /// Records, creates and then watches one batch.
    async fn submit(self: Arc<Self>, local: String, items: Vec<Item>) {
        let created = self.create(&local, &items).await;
        self.creating.fetch_sub(1, Ordering::SeqCst);
        self.created.notify_waiters();
        let ids: Vec<String> = items.iter().map(|i| i.id.clone()).collect();
        match created {
            Ok(remote) => {
                let requests = items.iter().map(|i| (i.id.clone(), i.max_tokens)).collect();
                self.watch_batch(local, remote, requests, SystemTime::now());
            }
            Err(error) => {
                tracing::warn!(model = %self.model, requests = items.len(), %error, "a batch could not be created");
                let outcome = ItemOutcome::from_result(Err(error));
                let results = ids.into_iter().map(|id| (id, outcome.clone())).collect();
                self.deliver("(not created)", &local, results, false);
            }
        }
    }

    /// Journals a batch's requests, creates it, and journals its id.
    async fn create(&self, local: &str, items: &[Item]) -> Result<String, ProviderError> {
        let requests = items
            .iter()
            .map(|i| Entry {
                id: i.id.clone(),
                round: i.round_id.clone(),
                phase: i.phase.clone(),
                max_tokens: i.max_tokens,
            })
            .collect();
        let tag = new_tag(local);
        let at = now_rfc3339();
        self.record(&Record::Submitting {
            local: local.to_string(),
            requests,
            tag: Some(tag.clone()),
            at: Some(at.clone()),
        })
        .map_err(|e| ProviderError::new(ErrorKind::Http, e.to_string(), false))?;
        let remote = match self.api.create(items, &tag).await {
            Ok(remote) => remote,
            Err(error) => {
                let found = if may_have_created(&error) {
                    let wanted = Lost {
                        tag: &tag,
                        at: at.parse().ok(),
                        requests: items.len(),
                    };
                    let known = self.known_remotes();
                    self.list().await.ok().and_then(|listed| {
                        find(&listed, &wanted, self.api.tags_batches(), &known)
                            .map(|b| b.remote.clone())
                    })
                } else {
                    None
                };
                let Some(remote) = found else {
                    self.record_closed(local, "not created");
                    return Err(error);
                };
                tracing::info!(model = %self.model, batch = %remote, %error, "the create answer was lost, but the provider lists the batch: polling it");
                let guessed = !self.api.tags_batches();
                if guessed {
                    lock(&self.state).guessed.insert(local.to_string());
                }
                self.record_submitted(local, &remote, guessed);
                return Ok(remote);
            }
        };
        self.record_submitted(local, &remote, false);
        tracing::info!(model = %self.model, batch = %remote, requests = items.len(), "batch created");
        Ok(remote)
    }

    /// The provider's ids of the batches the tournament's journals have (every model's: two
    /// models may share an account).
    fn known_remotes(&self) -> HashSet<String> {
        remotes_in(&self.journals)
    }

    /// Journals that batch `local` is `remote` at the provider.
    fn record_submitted(&self, local: &str, remote: &str, guessed: bool) {
        if let Err(e) = self.record(&Record::Submitted {
            local: local.to_string(),
            remote: remote.to_string(),
            at: now_rfc3339(),
            guessed,
        }) {
            tracing::error!(model = %self.model, batch = %remote, error = %e, "the batch runs, but the journal could not record it; a later run would send its requests again");
        }
    }

    /// Journals that batch `local` never reached the provider (its requests go again), so
    /// that no later run looks for it.
    fn record_closed(&self, local: &str, why: &str) {
        if let Err(e) = self.record(&Record::Ended {
            local: local.to_string(),
            state: why.to_string(),
        }) {
            tracing::warn!(model = %self.model, error = %e, "could not journal that a batch was not created; a later run looks for it at the provider again");
        }
    }

    /// Starts polling an open batch.
    fn watch_batch(
        self: Arc<Self>,
        local: String,
        remote: String,
        requests: Vec<(String, u32)>,
        submitted: SystemTime,
    ) {
        let mut state = lock(&self.state);
        for (id, _) in &requests {
            state.placed.insert(id.clone());
        }
        let queue = Arc::clone(&self);
        let task = tokio::spawn({
            let (local, remote) = (local.clone(), remote.clone());
            async move { queue.poll(local, remote, requests, submitted).await }
        });
        state.open.insert(local, (remote, task.abort_handle()));
    }

    /// Polls a batch until it ends, then hands out its results. A batch the provider keeps
    /// refusing to show, or one past the providers' 24 hours, is given up: its requests
    /// fail as retryable, to go again in a later batch.
    async fn poll(
        &self,
        local: String,
        remote: String,
        requests: Vec<(String, u32)>,
        submitted: SystemTime,
    ) {
        let settings = self.settings;
        let mut interval = settings.poll_first.min(settings.poll_max);
        let mut refused = 0;
        let mut view = BatchView {
            model: self.model.clone(),
            provider: self.api.provider(),
            remote: remote.clone(),
            requests: requests.len() as u64,
            succeeded: 0,
            failed: 0,
            state: "submitted".into(),
            age: Duration::ZERO,
            next_poll_in: None,
        };
        loop {
            view.age = SystemTime::now()
                .duration_since(submitted)
                .unwrap_or_default();
            if view.age > GIVE_UP_AFTER {
                let why = "the batch was still open 25 hours after it was created";
                self.give_up(&local, &remote, &requests, why);
                return;
            }
            view.next_poll_in = Some(interval);
            self.board.set(&self.model, &local, Some(view.clone()));
            tokio::time::sleep(interval).await;
            interval = (interval + interval / 2).min(settings.poll_max);
            let read = match self.api.progress(&remote).await {
                Ok(progress) => {
                    view.state = progress.state.clone();
                    view.succeeded = progress.succeeded;
                    view.failed = progress.failed;
                    if progress.total > 0 {
                        view.requests = progress.total;
                    }
                    self.outcomes(&remote, &progress, &requests)
                        .await
                        .map(|results| results.map(|r| (progress, r)))
                }
                Err(error) => Err(error),
            };
            match read {
                Ok(None) => refused = 0,
                Ok(Some((progress, results))) => {
                    self.finish(&local, &remote, &progress.state, &requests, results);
                    return;
                }
                Err(error) => {
                    tracing::warn!(model = %self.model, batch = %remote, %error, "batch poll failed");
                    view.state = "poll failed; polling again".into();
                    if !error.retryable {
                        refused += 1;
                    }
                    if refused >= MAX_REFUSED_POLLS {
                        let why = format!("the batch could not be read: {error}");
                        self.give_up(&local, &remote, &requests, &why);
                        return;
                    }
                }
            }
        }
    }

    /// The outcomes of a batch that has ended (none while it runs): its results, or the
    /// provider's refusal of the whole batch for every request.
    async fn outcomes(
        &self,
        remote: &str,
        progress: &Progress,
        requests: &[(String, u32)],
    ) -> Result<Option<Vec<(String, ItemOutcome)>>, ProviderError> {
        match &progress.stage {
            Stage::Running => Ok(None),
            Stage::Refused { why, retryable } => {
                let error = ProviderError::new(ErrorKind::Http, why.clone(), *retryable);
                let outcome = ItemOutcome::from_result(Err(error));
                Ok(Some(
                    requests
                        .iter()
                        .map(|(id, _)| (id.clone(), outcome.clone()))
                        .collect(),
                ))
            }
            Stage::Ended => {
                let results = self.api.results(remote, progress, requests).await?;
                self.api.clean_up(progress).await;
                Ok(Some(results))
            }
        }
    }

    /// Gives a batch up: every request fails as retryable, and the journal closes it.
    fn give_up(&self, local: &str, remote: &str, requests: &[(String, u32)], why: &str) {
        tracing::warn!(model = %self.model, batch = %remote, why, "batch given up; its requests go again");
        let outcome = ItemOutcome::unfinished(why);
        let results = requests
            .iter()
            .map(|(id, _)| (id.clone(), outcome.clone()))
            .collect();
        self.finish(local, remote, "given up", requests, results);
    }

    /// Records an ended batch's results (requests it gave none for are unfinished, to be
    /// sent again) and hands them out.
    fn finish(
        &self,
        local: &str,
        remote: &str,
        state: &str,
        requests: &[(String, u32)],
        mut results: Vec<(String, ItemOutcome)>,
    ) {
        let answered: HashSet<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
        let why = format!("the batch ended ({state}) without an answer to this request");
        let missing: Vec<String> = requests
            .iter()
            .filter(|(id, _)| !answered.contains(id.as_str()))
            .map(|(id, _)| id.clone())
            .collect();
        results.extend(
            missing
                .into_iter()
                .map(|id| (id, ItemOutcome::unfinished(&why))),
        );
        let recorded = self
            .record(&Record::Results {
                local: local.to_string(),
                items: results.clone(),
            })
            .and_then(|()| {
                self.record(&Record::Ended {
                    local: local.to_string(),
                    state: state.to_string(),
                })
            });
        if let Err(e) = recorded {
            tracing::error!(model = %self.model, batch = %remote, error = %e, "batch results could not be recorded");
        }
        let failed = results.iter().filter(|(_, o)| o.is_error()).count();
        tracing::info!(model = %self.model, batch = %remote, results = results.len(), failed, state, "batch ended");
        lock(&self.state).open.remove(local);
        self.board.set(&self.model, local, None);
        self.deliver(remote, local, results, true);
    }

    /// Hands outcomes to the calls waiting for them; keeps answers nobody asked for yet.
    /// When every outcome found its call, the journal need not keep them (`journaled`: the
    /// batch's results are in the journal).
    fn deliver(
        &self,
        remote: &str,
        local: &str,
        results: Vec<(String, ItemOutcome)>,
        journaled: bool,
    ) {
        let mut all_claimed = true;
        {
            let mut state = lock(&self.state);
            for (id, outcome) in results {
                state.placed.remove(&id);
                // A call that gave up waiting (its round was stopped) has dropped its end.
                let mut taken = false;
                for waiter in state.waiters.remove(&id).unwrap_or_default() {
                    taken |= waiter.send((remote.to_string(), outcome.clone())).is_ok();
                }
                if !taken && !outcome.is_error() {
                    all_claimed = false;
                    state.unclaimed.insert(id, (remote.to_string(), outcome));
                }
            }
        }
        if journaled
            && all_claimed
            && let Err(e) = self.record(&Record::Claimed {
                local: local.to_string(),
            })
        {
            tracing::warn!(model = %self.model, batch = %remote, error = %e, "could not journal that the batch's results were claimed");
        }
    }

    /// Asks the provider to cancel this model's open batches (after any being created get
    /// their ids). They stay open here until they end, so the answers they finished first
    /// are still collected, now or by the next run; returns what could not be cancelled.
    pub(crate) async fn cancel_open(&self) -> Vec<String> {
        self.settle().await;
        let mut failures = Vec::new();
        let mut open: Vec<(String, String)> = Vec::new();
        {
            let state = lock(&self.state);
            for (local, (remote, _)) in &state.open {
                if state.guessed.contains(local) {
                    failures.push(format!(
                        "model \"{}\": batch {remote} was not cancelled: it was taken for this run's by its size and time alone (the provider's batches carry no tag), so it may be somebody else's; cancel it in the provider's console if it is yours",
                        self.model
                    ));
                } else {
                    open.push((local.clone(), remote.clone()));
                }
            }
        }
        for (local, remote) in open {
            match self.api.cancel(&remote).await {
                Ok(()) => {
                    tracing::info!(model = %self.model, batch = %remote, "batch cancellation asked");
                    if let Err(e) = self.record(&Record::CancelRequested { local }) {
                        failures.push(e.to_string());
                    }
                }
                Err(e) => failures.push(format!(
                    "model \"{}\": batch {remote} could not be cancelled: {e}",
                    self.model
                )),
            }
        }
        failures
    }

    fn record(&self, record: &Record) -> Result<(), JournalError> {
        lock(&self.journal).append(record)
    }
}

fn stopped() -> ProviderError {
    ProviderError::new(
        ErrorKind::Http,
        "batch mode stopped before this request's batch ended",
        true,
    )
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
