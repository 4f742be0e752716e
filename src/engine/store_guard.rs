//! Keeping the store able to hold what is paid for. The first round write that fails (a full
//! disk) stops new calls; calls under way finish, and their rounds' writers keep trying to
//! store them, so answers are kept once space returns. A disk with less free space than the
//! tournament's `min_free_space_mb` stops new calls the same way before any write fails.
//! What could still not be stored when the run ends is counted, so the run can say what was
//! lost.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often the free space is looked at, at most: a `statvfs` is cheap, but calls start by
/// the thousand.
const CHECK_EVERY: Duration = Duration::from_secs(1);

/// Whether new calls may start, as far as the store is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StoreCheck {
    /// Yes.
    Fine,
    /// No: the store already stopped them (announced then).
    Stopped,
    /// No: the disk is found too full now (to announce).
    LowSpace(String),
}

/// What could not be stored when the run ended: rounds, and the answers (calls) in them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Lost {
    /// Rounds whose newest state is not on disk.
    pub rounds: usize,
    /// Answers received but not on disk.
    pub answers: usize,
}

/// The store's side of a run's control.
#[derive(Debug)]
pub(crate) struct StoreGuard {
    dir: PathBuf,
    min_free_bytes: u64,
    checked: Mutex<Option<Instant>>,
    /// The first failure, which stopped new calls.
    trouble: Mutex<Option<String>>,
    lost: Mutex<Lost>,
}

impl StoreGuard {
    /// A guard for the results folder `dir`, holding back calls below `min_free_mb` MiB.
    pub fn new(dir: &Path, min_free_mb: u64) -> Self {
        Self {
            dir: dir.to_path_buf(),
            min_free_bytes: min_free_mb.saturating_mul(1024 * 1024),
            checked: Mutex::new(None),
            trouble: Mutex::new(None),
            lost: Mutex::new(Lost::default()),
        }
    }

    /// The failure that stopped new calls, if one did.
    pub fn trouble(&self) -> Option<String> {
        lock(&self.trouble).clone()
    }

    /// Records a failure; true the first time (which the caller announces).
    pub fn failed(&self, message: &str) -> bool {
        let mut trouble = lock(&self.trouble);
        if trouble.is_some() {
            return false;
        }
        *trouble = Some(message.to_string());
        true
    }

    /// Whether a new call may start: nothing failed, and the disk (looked at once a second
    /// at most) has the free space asked for.
    pub fn check(&self) -> StoreCheck {
        if lock(&self.trouble).is_some() {
            return StoreCheck::Stopped;
        }
        if self.min_free_bytes == 0 {
            return StoreCheck::Fine;
        }
        {
            let mut checked = lock(&self.checked);
            if checked.is_some_and(|at| at.elapsed() < CHECK_EVERY) {
                return StoreCheck::Fine;
            }
            *checked = Some(Instant::now());
        }
        match self.low_space() {
            Some(message) => StoreCheck::LowSpace(message),
            None => StoreCheck::Fine,
        }
    }

    /// Says why the disk is too full to start calls, if it is.
    pub fn low_space(&self) -> Option<String> {
        let free = crate::store::space::available_bytes(&self.dir)?;
        (free < self.min_free_bytes).then(|| {
            format!(
                "only {:.1} MiB free on the disk holding {} (min_free_space_mb = {})",
                free as f64 / (1024.0 * 1024.0),
                self.dir.display(),
                self.min_free_bytes / (1024 * 1024)
            )
        })
    }

    /// Counts a round whose newest `answers` answers could not be stored.
    pub fn lose(&self, answers: usize) {
        let mut lost = lock(&self.lost);
        lost.rounds += 1;
        lost.answers += answers;
    }

    /// What could not be stored.
    pub fn lost(&self) -> Lost {
        *lock(&self.lost)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Plain values: one left by a panic is still usable.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_failure_stops_calls_and_is_announced_once() {
        let dir = tempfile::tempdir().unwrap();
        let guard = StoreGuard::new(dir.path(), 0);
        assert_eq!(guard.check(), StoreCheck::Fine);
        assert!(guard.failed("r1.json: no space"));
        assert!(!guard.failed("r2.json: no space"));
        assert_eq!(guard.check(), StoreCheck::Stopped);
        assert_eq!(guard.trouble().as_deref(), Some("r1.json: no space"));
    }

    #[test]
    fn too_little_free_space_holds_calls_back_and_says_how_much_there_is() {
        let dir = tempfile::tempdir().unwrap();
        let guard = StoreGuard::new(dir.path(), u64::MAX / (2 * 1024 * 1024));
        let StoreCheck::LowSpace(message) = guard.check() else {
            panic!("no disk is that large");
        };
        assert!(
            message.contains("MiB free on the disk holding"),
            "{message}"
        );
        assert!(message.contains("min_free_space_mb"), "{message}");
        // Looked at once a second at most.
        assert_eq!(guard.check(), StoreCheck::Fine);
        let roomy = StoreGuard::new(dir.path(), 1);
        assert_eq!(roomy.check(), StoreCheck::Fine);
    }

    #[test]
    fn losses_add_up() {
        let guard = StoreGuard::new(Path::new("."), 0);
        guard.lose(2);
        guard.lose(1);
        assert_eq!(
            guard.lost(),
            Lost {
                rounds: 2,
                answers: 3
            }
        );
    }
}
