//! The results store, the source of truth: one human-readable JSON file per round, a
//! tournament manifest and a summary, each written atomically (a temporary file in the same
//! folder, flushed, then renamed over the old one), so a crash leaves either the old file
//! or the new one, never half of one.
//!
//! Layout: `<dir>/tournament.json`, `<dir>/rounds/<round-id>.json`, `<dir>/summary.json`.

mod compat;
mod filter;
mod lock;
mod record;
pub mod search;
pub mod space;

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::domain::{IdError, Round, check_file_id};

pub use filter::{FilterValues, Role, RoundFilter};
pub use lock::LOCK_FILE;
pub use record::{RejudgingRecord, TournamentRecord, TournamentStatus};
pub use search::{HitPlace, RoundFields, SearchHit, SearchQuery, Snippet, find_ignore_case};

/// A store operation that failed; names the file.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Reading or writing failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file is not what it should be.
    #[error("{}: not a valid {what}: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// What it should have been.
        what: &'static str,
        /// The parser's message.
        message: String,
    },
    /// An id that cannot be a file name.
    #[error(transparent)]
    BadId(#[from] IdError),
    /// A folder given as results that holds none.
    #[error(
        "{}: not a results folder (no tournament.json and no round files); pass the folder \
         `ethics-bowl run` wrote, e.g. results/<tournament>",
        path.display()
    )]
    NotResults {
        /// The folder.
        path: PathBuf,
    },
    /// A round file written by a newer ethics-bowl: never set aside or played again, since
    /// its round may be whole; this build must not touch the folder.
    #[error(
        "{}: written by a newer ethics-bowl (round schema version {version}; this build reads \
         up to {}); upgrade ethics-bowl to use this folder",
        path.display(),
        crate::domain::ROUND_SCHEMA_VERSION
    )]
    Newer {
        /// The file.
        path: PathBuf,
        /// Its schema version.
        version: u64,
    },
    /// Another process writes this folder (see [`lock`]).
    #[error(
        "{} is in use by ethics-bowl ({holder}); wait for it to end or stop it, or write to \
         another folder with --out",
        path.display()
    )]
    InUse {
        /// The folder.
        path: PathBuf,
        /// Who holds it, as its lock file says.
        holder: String,
    },
}

/// A round file that could not be read, moved out of the way so the round can be played
/// again; never deleted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetAside {
    /// Where it was.
    pub from: PathBuf,
    /// Where it is now (`rounds/.unreadable/<file>`).
    pub to: PathBuf,
    /// Why it could not be read.
    pub reason: String,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// One tournament's folder.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
    /// Bounds the file writes under way at once: creating and renaming files in one folder
    /// takes the folder's lock, and hundreds of writers at once spend their time fighting
    /// over it.
    writers: std::sync::Arc<tokio::sync::Semaphore>,
    /// The folder's writer lock, when this store writes rounds (shared by its clones).
    lock: Option<std::sync::Arc<lock::FolderLock>>,
}

/// File writes under way at once from the async API.
const CONCURRENT_WRITES: usize = 4;

impl Store {
    /// Opens (creating if needed) the folder of a tournament.
    pub fn create(dir: &Path) -> Result<Self, StoreError> {
        std::fs::create_dir_all(dir.join("rounds")).map_err(io(dir))?;
        Ok(Self::at(dir))
    }

    /// Opens an existing results folder for reading (ours, or the predecessor's, which has
    /// round files but no `tournament.json`); any other folder is refused.
    pub fn open(dir: &Path) -> Result<Self, StoreError> {
        if !dir.is_dir() {
            return Err(StoreError::Io {
                path: dir.to_path_buf(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such results folder"),
            });
        }
        let store = Self::at(dir);
        if dir.join("tournament.json").is_file() || !store.round_files()?.is_empty() {
            Ok(store)
        } else {
            Err(StoreError::NotResults {
                path: dir.to_path_buf(),
            })
        }
    }

    /// Opens (creating if needed) a tournament's folder for writing: this process becomes
    /// its one writer until the store (and every clone of it) is dropped; another writer
    /// gets [`StoreError::InUse`].
    pub fn open_for_writing(dir: &Path) -> Result<Self, StoreError> {
        Self::create(dir)?.locked()
    }

    /// This store, holding the folder's writer lock (see [`lock`]).
    pub fn locked(mut self) -> Result<Self, StoreError> {
        if self.lock.is_none() {
            self.lock = Some(lock::lock(&self.dir)?);
        }
        Ok(self)
    }

    /// Opens (creating if needed) a tournament's folder for a run, as its one writer (see
    /// [`Store::open_for_writing`]), after tidying what a killed run may have left: temporary
    /// files are removed (with the lock held, none can be another writer's), and round files
    /// that cannot be read are set aside (returned, for the run to report) so that their
    /// rounds are played again. `extra_folders` are the folders of the files rounds produce
    /// beside their own (see [`Store::save_round_extra`]), tidied too.
    pub fn open_for_run(
        dir: &Path,
        extra_folders: &[&str],
    ) -> Result<(Self, Vec<SetAside>), StoreError> {
        let store = Self::open_for_writing(dir)?;
        // Every file is read before anything is touched: a file from a newer build stops the
        // run with the folder as it was. Only each round's id is kept meanwhile.
        let mut read = Vec::new();
        for path in store.round_files()? {
            match read_round(&path) {
                Err(e @ StoreError::Newer { .. }) => return Err(e),
                result => read.push((path, result.map(|round| round.id))),
            }
        }
        store.remove_temporaries(extra_folders)?;
        let mut set_aside = Vec::new();
        for (path, result) in read {
            let damage = match result {
                Err(e) => Some(e.to_string()),
                // A round whose file is named for another round would be written over that
                // round's file, or that round over it.
                Ok(id) if path.file_stem().and_then(|s| s.to_str()) != Some(id.as_str()) => {
                    Some(format!(
                        "{}: the round inside is {id:?}, not the round its name says",
                        path.display()
                    ))
                }
                Ok(_) => None,
            };
            if let Some(reason) = damage {
                set_aside.push(store.set_aside(&path, reason)?);
            }
        }
        Ok((store, set_aside))
    }

    /// Moves an unreadable round file to `rounds/.unreadable/`, keeping its name (with a
    /// number added when that name is taken).
    fn set_aside(&self, path: &Path, reason: String) -> Result<SetAside, StoreError> {
        let folder = self.rounds_dir().join(".unreadable");
        std::fs::create_dir_all(&folder).map_err(io(&folder))?;
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let mut to = folder.join(name.as_ref());
        let mut n = 1;
        while to.exists() {
            to = folder.join(format!("{name}.{n}"));
            n += 1;
        }
        std::fs::rename(path, &to).map_err(io(path))?;
        Ok(SetAside {
            from: path.to_path_buf(),
            to,
            reason,
        })
    }

    /// Removes `.tmp-*` files that a killed process left beside the files it was writing
    /// (called with the folder's lock held, so no live writer's file is among them).
    fn remove_temporaries(&self, extra_folders: &[&str]) -> Result<(), StoreError> {
        let extras = extra_folders.iter().map(|f| self.dir.join(f));
        for dir in [self.dir.clone(), self.dir.join("rounds")]
            .into_iter()
            .chain(extras)
        {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                if entry.file_name().to_string_lossy().starts_with(".tmp-") {
                    let path = entry.path();
                    std::fs::remove_file(&path).map_err(io(&path))?;
                }
            }
        }
        Ok(())
    }

    /// Files set aside as unreadable by earlier runs, for listings to mention.
    pub fn set_aside_files(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(self.rounds_dir().join(".unreadable"))
            .map(|entries| entries.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        files.sort();
        files
    }

    fn at(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
            writers: std::sync::Arc::new(tokio::sync::Semaphore::new(CONCURRENT_WRITES)),
            lock: None,
        }
    }

    /// The tournament's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where round files live: `rounds/`, or the folder itself when it holds them directly.
    fn rounds_dir(&self) -> PathBuf {
        let sub = self.dir.join("rounds");
        if sub.is_dir() { sub } else { self.dir.clone() }
    }

    /// The file of one round.
    pub fn round_path(&self, id: &str) -> Result<PathBuf, StoreError> {
        check_file_id(id)?;
        Ok(self.dir.join("rounds").join(format!("{id}.json")))
    }

    /// Writes a file a round produces beside its own (`<folder>/<id>.<extension>`: the
    /// structured debate's decision briefings in `briefings/`) atomically, with escape
    /// sequences and control characters taken out of the model text it quotes (it is for
    /// people and terminals; the round file keeps the exact text), and every key this process
    /// read redacted, as in every file the store writes.
    pub fn save_round_extra(
        &self,
        folder: &str,
        id: &str,
        extension: &str,
        text: &str,
    ) -> Result<(), StoreError> {
        check_file_id(id)?;
        check_file_id(folder)?;
        check_file_id(extension)?;
        let dir = self.dir.join(folder);
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let text = crate::redact::remembered().redact_string(crate::sanitize::sanitize(text));
        write_bytes_atomic(&dir.join(format!("{id}.{extension}")), text.as_bytes())
    }

    /// Writes a round file atomically.
    pub fn save_round(&self, round: &Round) -> Result<(), StoreError> {
        write_json_atomic(&self.round_path(&round.id)?, round)
    }

    /// Writes a round file atomically from async code: the file work (whose `fsync` can take
    /// milliseconds) runs on tokio's blocking pool, so the runtime's workers keep serving
    /// streams; it returns once the file is in place.
    pub async fn save_round_async(&self, round: &Round) -> Result<(), StoreError> {
        let path = self.round_path(&round.id)?;
        let bytes = encode(&path, round)?;
        let target = path.clone();
        // The semaphore is never closed, so a permit always comes.
        let _permit = self.writers.acquire().await.ok();
        tokio::task::spawn_blocking(move || write_bytes_atomic(&target, &bytes))
            .await
            .map_err(|e| StoreError::Io {
                path,
                source: std::io::Error::other(e),
            })?
    }

    /// Reads one round, if its file exists.
    pub fn load_round(&self, id: &str) -> Result<Option<Round>, StoreError> {
        let path = self.round_path(id)?;
        if !path.exists() {
            return Ok(None);
        }
        read_round(&path).map(Some)
    }

    /// Reads the round with this id wherever its file is: `<id>.json` where this tool writes
    /// it, else the folder's file that holds it (the predecessor names its files by
    /// pairing, not by id), so whatever `load_rounds` listed can be read again by its id.
    pub fn find_round(&self, id: &str) -> Result<Option<Round>, StoreError> {
        if check_file_id(id).is_ok() {
            let path = self.rounds_dir().join(format!("{id}.json"));
            if path.exists()
                && let Ok(round) = read_round(&path)
                && round.id == id
            {
                return Ok(Some(round));
            }
        }
        for path in self.round_files()? {
            if let Ok(round) = read_round(&path)
                && round.id == id
            {
                return Ok(Some(round));
            }
        }
        Ok(None)
    }

    /// Every round matching the filter, sorted by id. Files that cannot be read are
    /// returned as errors beside the rounds, so one bad file hides nothing else.
    pub fn load_rounds(
        &self,
        filter: &RoundFilter,
    ) -> Result<(Vec<Round>, Vec<StoreError>), StoreError> {
        self.load_rounds_with(filter, |round| round)
    }

    /// As [`Store::load_rounds`], each round passed through `keep` as soon as it is read,
    /// before the next file is: a caller that needs only part of every round holds that
    /// part of all of them, and one whole round at a time (the summary of ten thousand
    /// rounds holds their numbers, not their texts).
    pub fn load_rounds_with(
        &self,
        filter: &RoundFilter,
        mut keep: impl FnMut(Round) -> Round,
    ) -> Result<(Vec<Round>, Vec<StoreError>), StoreError> {
        let paths = self.round_files()?;
        let mut rounds = Vec::new();
        let mut errors = Vec::new();
        for path in paths {
            match read_round(&path) {
                Ok(r) if filter.matches(&r) => rounds.push(keep(r)),
                Ok(_) => {}
                Err(e) => errors.push(e),
            }
        }
        rounds.sort_by(|a, b| a.id.cmp(&b.id));
        Ok((rounds, errors))
    }

    /// The round files, sorted by name (hidden files and the other files a results folder
    /// holds left out).
    fn round_files(&self) -> Result<Vec<PathBuf>, StoreError> {
        let dir = self.rounds_dir();
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map_err(io(&dir))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension().is_some_and(|e| e == "json")
                    && !p
                        .file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
                    && !matches!(
                        p.file_name().and_then(|n| n.to_str()),
                        Some(
                            "tournament.json" | "summary.json" | "manifest.json" | "analysis.json"
                        )
                    )
            })
            .collect();
        paths.sort();
        Ok(paths)
    }

    /// Writes the tournament manifest.
    pub fn save_tournament(&self, record: &TournamentRecord) -> Result<(), StoreError> {
        write_json_atomic(&self.dir.join("tournament.json"), record)
    }

    /// Reads the tournament manifest, if there is one.
    pub fn load_tournament(&self) -> Result<Option<TournamentRecord>, StoreError> {
        let path = self.dir.join("tournament.json");
        if !path.exists() {
            return Ok(None);
        }
        read_json(&path, "tournament file").map(Some)
    }

    /// Writes `summary.json`.
    pub fn save_summary(&self, summary: &impl Serialize) -> Result<(), StoreError> {
        write_json_atomic(&self.dir.join("summary.json"), summary)
    }
}

fn read_round(path: &Path) -> Result<Round, StoreError> {
    // A FIFO, a device or a folder named like a round file (or a link to one) is never
    // opened: reading a FIFO would wait for a writer forever.
    let kind = std::fs::metadata(path).map_err(io(path))?.file_type();
    if !kind.is_file() {
        return Err(StoreError::Parse {
            path: path.to_path_buf(),
            what: "round file",
            message: "not a regular file".into(),
        });
    }
    let text = std::fs::read_to_string(path).map_err(io(path))?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| StoreError::Parse {
        path: path.to_path_buf(),
        what: "round file",
        message: e.to_string(),
    })?;
    if let Some(version) = value
        .get("schema_version")
        .and_then(serde_json::Value::as_u64)
        .filter(|v| *v > u64::from(crate::domain::ROUND_SCHEMA_VERSION))
    {
        return Err(StoreError::Newer {
            path: path.to_path_buf(),
            version,
        });
    }
    // Every string redacted with every key this process knows, as it is decoded: a file
    // from an older build may hold a key a run today would have kept out, and everything
    // shown of a round (listings, Markdown, reports, the UI) is read here.
    let mut value = compat::upgrade(value);
    crate::redact::remembered().redact_json(&mut value);
    serde_json::from_value(value).map_err(|e| StoreError::Parse {
        path: path.to_path_buf(),
        what: "round file",
        message: e.to_string(),
    })
}

fn read_json<T: DeserializeOwned>(path: &Path, what: &'static str) -> Result<T, StoreError> {
    let text = std::fs::read_to_string(path).map_err(io(path))?;
    serde_json::from_str(&text).map_err(|e| StoreError::Parse {
        path: path.to_path_buf(),
        what,
        message: e.to_string(),
    })
}

fn encode(path: &Path, value: &impl Serialize) -> Result<Vec<u8>, StoreError> {
    let mut bytes = crate::safe_json::to_vec_pretty(value).map_err(|e| StoreError::Io {
        path: path.to_path_buf(),
        source: e.into(),
    })?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Writes pretty JSON to a temporary file beside `path`, flushes it to disk, then renames
/// it over `path`.
pub fn write_json_atomic(path: &Path, value: &impl Serialize) -> Result<(), StoreError> {
    write_bytes_atomic(path, &encode(path, value)?)
}

/// The atomic write itself. The whole file goes in one `write` (serde's writer would make
/// a syscall per token), then `fsync`, then the rename.
fn write_bytes_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut builder = tempfile::Builder::new();
    builder.prefix(".tmp-");
    // Asked for as 0666, which the process's umask then narrows as for any new file (0644
    // under the usual 022), so collaborators can read results; tempfile's own default is
    // 0600 whatever the umask.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    // A failure names the file being written (the round), not the folder or temporary.
    let mut temp = builder.tempfile_in(dir).map_err(io(path))?;
    temp.write_all(bytes).map_err(io(path))?;
    temp.as_file().sync_all().map_err(io(path))?;
    temp.persist(path).map_err(|e| StoreError::Io {
        path: path.to_path_buf(),
        source: e.error,
    })?;
    Ok(())
}

/// Where `rejudge --swap-sides` writes without `--out`: beside the folder, its name with
/// `-swapped` added (`results/t` → `results/t-swapped`).
pub fn swapped_folder(results: &Path) -> PathBuf {
    let name = results
        .file_name()
        .map_or_else(|| "results".into(), |n| n.to_string_lossy().into_owned());
    results.with_file_name(format!("{name}-swapped"))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::domain::RoundStatus;

    pub(crate) fn round(id: &str, a: &str, b: &str, dilemma: &str, status: RoundStatus) -> Round {
        Round {
            id: id.into(),
            dilemma_id: dilemma.into(),
            repetition: 1,
            team_a_model: a.into(),
            team_b_model: b.into(),
            judge_model: "j".into(),
            judge_models: vec!["j".into()],
            phases: vec![],
            scores: None,
            judgments: vec![],
            status,
            error: None,
            earlier_errors: Vec::new(),
            panel: None,
            record: crate::domain::RoundRecord::EthicsBowl,
            timestamp: "2026-01-01T00:00:00Z".into(),
        }
    }

    #[test]
    fn a_round_is_found_by_its_id_whatever_its_file_is_called() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::create(dir.path()).unwrap();
        store
            .save_round(&round("r1", "a", "b", "d1", RoundStatus::Complete))
            .unwrap();
        // A file named otherwise (as the predecessor names its files), with an id no
        // file name could have.
        let odd = round("0af2/x y", "a", "b", "d2", RoundStatus::Complete);
        std::fs::write(
            dir.path().join("rounds/001_pairing.json"),
            serde_json::to_vec(&odd).unwrap(),
        )
        .unwrap();
        assert_eq!(store.find_round("r1").unwrap().unwrap().dilemma_id, "d1");
        assert_eq!(
            store.find_round("0af2/x y").unwrap().unwrap().dilemma_id,
            "d2"
        );
        assert_eq!(store.find_round("missing").unwrap(), None);
        // The predecessor's real folder: every round it lists is found again by its id.
        let predecessor = Store::open(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/predecessor"),
        );
        if let Ok(store) = predecessor {
            let (rounds, _) = store.load_rounds(&RoundFilter::default()).unwrap();
            for r in rounds.iter().take(3) {
                assert_eq!(store.find_round(&r.id).unwrap().as_ref(), Some(r));
            }
        }
    }

    #[test]
    fn save_load_and_filter() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::create(dir.path()).unwrap();
        store
            .save_round(&round("r1", "a", "b", "d1", RoundStatus::Complete))
            .unwrap();
        store
            .save_round(&round("r2", "b", "a", "d2", RoundStatus::NeedsReview))
            .unwrap();
        store
            .save_round(&round("r3", "b", "c", "d1", RoundStatus::Incomplete))
            .unwrap();
        let ids = |f: RoundFilter| -> Vec<String> {
            store
                .load_rounds(&f)
                .unwrap()
                .0
                .into_iter()
                .map(|r| r.id)
                .collect()
        };
        assert_eq!(ids(RoundFilter::default()), ["r1", "r2", "r3"]);
        assert_eq!(
            ids(RoundFilter {
                model: Some("a".into()),
                ..Default::default()
            }),
            ["r1", "r2"]
        );
        assert_eq!(
            ids(RoundFilter {
                model: Some("a".into()),
                role: Some(Role::Presenting),
                ..Default::default()
            }),
            ["r1"]
        );
        assert_eq!(
            ids(RoundFilter {
                model: Some("a".into()),
                role: Some(Role::Responding),
                ..Default::default()
            }),
            ["r2"]
        );
        assert_eq!(
            ids(RoundFilter {
                dilemma: Some("d1".into()),
                ..Default::default()
            }),
            ["r1", "r3"]
        );
        assert_eq!(
            ids(RoundFilter {
                status: Some(RoundStatus::NeedsReview),
                ..Default::default()
            }),
            ["r2"]
        );
        assert_eq!(
            ids(RoundFilter {
                judge: Some("j".into()),
                ..Default::default()
            })
            .len(),
            3
        );
        assert_eq!(
            ids(RoundFilter {
                judge: Some("x".into()),
                ..Default::default()
            })
            .len(),
            0
        );
        assert_eq!(store.load_round("r2").unwrap().unwrap().team_a_model, "b");
        assert!(store.load_round("missing").unwrap().is_none());
    }

    #[test]
    fn an_interrupted_write_leaves_the_previous_file_intact() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::create(dir.path()).unwrap();
        let before = round("r1", "a", "b", "d", RoundStatus::Incomplete);
        store.save_round(&before).unwrap();
        // A write that dies before its rename: the temporary file is written and flushed,
        // then the process "crashes" (the file is left on disk, never renamed).
        let mut temp = tempfile::Builder::new()
            .prefix(".tmp-")
            .tempfile_in(dir.path().join("rounds"))
            .unwrap();
        temp.write_all(b"{\"id\": \"r1\", \"half-writ").unwrap();
        let (_file, _kept) = temp.keep().unwrap();
        assert_eq!(store.load_round("r1").unwrap().unwrap(), before);
        let (rounds, errors) = store.load_rounds(&RoundFilter::default()).unwrap();
        assert_eq!(
            rounds.len(),
            1,
            "the stray temporary file is not read as a round"
        );
        assert!(errors.is_empty());
    }

    #[test]
    fn a_run_sets_aside_unreadable_round_files_and_removes_every_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::create(dir.path()).unwrap();
        store
            .save_round(&round("good", "a", "b", "d", RoundStatus::Complete))
            .unwrap();
        let bad = dir.path().join("rounds/bad.json");
        std::fs::write(&bad, "{\"id\": \"bad\", \"phases\": [").unwrap();
        let stale = dir.path().join("rounds/.tmp-abc123");
        let fresh = dir.path().join("rounds/.tmp-def456");
        for t in [&stale, &fresh] {
            std::fs::write(t, "partial").unwrap();
        }

        let (store, set_aside) = Store::open_for_run(dir.path(), &["briefings"]).unwrap();
        assert_eq!(set_aside.len(), 1);
        assert_eq!(set_aside[0].from, bad);
        assert!(set_aside[0].to.ends_with("rounds/.unreadable/bad.json"));
        assert!(
            set_aside[0].reason.contains("bad.json"),
            "{}",
            set_aside[0].reason
        );
        assert!(
            !bad.exists() && set_aside[0].to.exists(),
            "moved, not deleted"
        );
        // With the folder's lock held no other writer can own them, however young.
        assert!(
            !stale.exists() && !fresh.exists(),
            "the temporary files a killed run left are removed"
        );
        assert_eq!(store.set_aside_files(), vec![set_aside[0].to.clone()]);
        let (rounds, errors) = store.load_rounds(&RoundFilter::default()).unwrap();
        assert_eq!((rounds.len(), errors.len()), (1, 0));

        // A second damaged file of the same name keeps the first one set aside (once this
        // run's store, and with it the folder's lock, is gone).
        drop(store);
        std::fs::write(&bad, "not json").unwrap();
        let (_, again) = Store::open_for_run(dir.path(), &["briefings"]).unwrap();
        assert!(again[0].to.ends_with("rounds/.unreadable/bad.json.1"));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn written_files_follow_the_umask() {
        use std::os::unix::fs::PermissionsExt;
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let umask = status
            .lines()
            .find_map(|l| l.strip_prefix("Umask:"))
            .map(|v| u32::from_str_radix(v.trim(), 8).unwrap())
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let store = Store::create(dir.path()).unwrap();
        store
            .save_round(&round("r", "a", "b", "d", RoundStatus::Complete))
            .unwrap();
        let mode = std::fs::metadata(store.round_path("r").unwrap())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o666 & !umask, "umask {umask:o}");
    }

    #[test]
    fn a_folder_without_results_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let err = Store::open(dir.path()).unwrap_err();
        assert!(err.to_string().contains("not a results folder"), "{err}");
    }

    #[test]
    fn ids_are_checked_before_use_as_file_names() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::create(dir.path()).unwrap();
        assert!(matches!(
            store.save_round(&round("../escape", "a", "b", "d", RoundStatus::Complete)),
            Err(StoreError::BadId(_))
        ));
        assert!(store.load_round("a/b").is_err());
    }

    #[test]
    fn a_broken_file_is_reported_and_the_rest_still_load() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::create(dir.path()).unwrap();
        store
            .save_round(&round("r1", "a", "b", "d", RoundStatus::Complete))
            .unwrap();
        std::fs::write(dir.path().join("rounds/bad.json"), "{ not json").unwrap();
        let (rounds, errors) = store.load_rounds(&RoundFilter::default()).unwrap();
        assert_eq!(rounds.len(), 1);
        assert!(errors[0].to_string().contains("bad.json"));
    }
}
