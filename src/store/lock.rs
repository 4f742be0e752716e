//! One writer per results folder. A process that writes rounds (a run, a resume, a rejudging,
//! corrections) holds an exclusive advisory lock on `<dir>/ethics-bowl.lock` for as long as
//! it keeps the folder's store, so that two runs never play (and pay for) the same rounds or
//! write over each other's files. The operating system releases the lock when the process
//! ends, however it ends (`kill -9` included), so a stale lock never blocks the next run. The
//! file itself stays, holding who had it last; it is never removed, since removing a lock
//! file while another process opens it would let two writers in.
//!
//! Within one process the lock is shared: every store of a folder that asks for it gets the
//! same held lock (a run's command takes it before its terminal UI starts, the engine and the
//! review queue's corrections then write under it), since a second lock on the same file
//! from the same process would refuse the process itself.
//!
//! Readers (`open`, `report`, `rounds`, `compare`, search) take no lock: every file is
//! written whole by a rename, so they read a folder while a run writes it.

use std::collections::HashMap;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use super::StoreError;

/// The lock file's name in a results folder.
pub const LOCK_FILE: &str = "ethics-bowl.lock";

/// The held lock: released when the last store holding it is dropped, or the process ends.
#[derive(Debug)]
pub(crate) struct FolderLock {
    _file: File,
}

/// The locks this process holds, by folder, so that asking again shares the one held.
fn held() -> &'static Mutex<HashMap<PathBuf, Weak<FolderLock>>> {
    static HELD: OnceLock<Mutex<HashMap<PathBuf, Weak<FolderLock>>>> = OnceLock::new();
    HELD.get_or_init(Mutex::default)
}

/// Takes the folder's lock (or shares the one this process already holds), or says who
/// holds it.
pub(crate) fn lock(dir: &Path) -> Result<Arc<FolderLock>, StoreError> {
    let key = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let mut held = held()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(lock) = held.get(&key).and_then(Weak::upgrade) {
        return Ok(lock);
    }
    let lock = Arc::new(take(dir)?);
    held.retain(|_, l| l.strong_count() > 0);
    held.insert(key, Arc::downgrade(&lock));
    Ok(lock)
}

/// Takes the folder's lock file's advisory lock.
fn take(dir: &Path) -> Result<FolderLock, StoreError> {
    let path = dir.join(LOCK_FILE);
    let io = |source| StoreError::Io {
        path: path.clone(),
        source,
    };
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(io)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            return Err(StoreError::InUse {
                path: dir.to_path_buf(),
                holder: holder_text(&holder),
            });
        }
        // A file system without advisory locks (some network mounts): the run goes on, as
        // before there were locks, and the log says the folder is unguarded.
        Err(TryLockError::Error(e)) if e.kind() == std::io::ErrorKind::Unsupported => {
            tracing::warn!(folder = %dir.display(), "this file system takes no locks; another run could write this folder at the same time");
        }
        Err(TryLockError::Error(e)) => return Err(io(e)),
    }
    let me = format!(
        "pid {} on {}, started {}\n",
        std::process::id(),
        host(),
        jiff::Zoned::now().strftime("%Y-%m-%d %H:%M:%S %Z")
    );
    file.set_len(0)
        .and_then(|()| file.seek(SeekFrom::Start(0)))
        .and_then(|_| file.write_all(me.as_bytes()))
        .and_then(|()| file.flush())
        .map_err(io)?;
    Ok(FolderLock { _file: file })
}

/// The holder as the lock file says it, made safe for a terminal line (it is a file anyone
/// could have written).
fn holder_text(written: &str) -> String {
    let line = written.lines().next().unwrap_or("").trim();
    let clean: String = line.chars().filter(|c| !c.is_control()).take(200).collect();
    if clean.is_empty() {
        "another process".to_string()
    } else {
        clean
    }
}

/// This machine's name, when the system says it.
fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "this machine".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_a_held_folder_says_who_holds_it_and_a_released_one_is_taken() {
        let dir = tempfile::tempdir().unwrap();
        let held = lock(dir.path()).unwrap();
        // Another holder: a second file description, as another process would have.
        let Err(StoreError::InUse { holder, .. }) = take(dir.path()) else {
            panic!("a second lock was taken");
        };
        assert!(
            holder.starts_with(&format!("pid {} on ", std::process::id())),
            "{holder}"
        );
        drop(held);
        assert!(take(dir.path()).is_ok(), "released with its holder");
    }

    #[test]
    fn one_process_shares_its_lock_and_takes_it_again_once_all_are_gone() {
        let dir = tempfile::tempdir().unwrap();
        let first = lock(dir.path()).unwrap();
        let second = lock(&dir.path().join(".")).unwrap();
        assert!(Arc::ptr_eq(&first, &second), "one held lock, shared");
        drop((first, second));
        // Gone with its last holder: another process could take it now; this one takes it anew.
        assert!(take(dir.path()).is_ok());
    }

    #[test]
    fn a_lock_file_with_hostile_text_is_shown_clean() {
        assert_eq!(holder_text("\u{1b}]0;x\u{7}pid 1\nmore"), "]0;xpid 1");
        assert_eq!(holder_text(""), "another process");
    }
}
