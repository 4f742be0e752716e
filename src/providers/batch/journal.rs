//! The batch journal: one append-only JSON-lines file per model in the tournament folder
//! (`batches/<model>.jsonl`), written and flushed to disk before anything waits on what it
//! records. A restarted run reads it to find the batches still open (it polls them again,
//! never submitting their requests twice) and the results already fetched.
//!
//! A line cut short by a crash is ignored. Every batch is created with a tag unique to it,
//! recorded in its `submitting` line with the time. A batch recorded as submitting but never
//! as submitted nor closed (the run died around its create call, or the answer was lost) is
//! looked for in the provider's list when the next run starts ([`super::adopt`]): found, it
//! is recorded as submitted and polled like any open batch, its requests not sent again; not
//! found, or when the list cannot be read, it is closed and its requests are sent again (if
//! the provider did make it, that batch then runs twice and is paid twice). OpenAI and
//! Gemini batches are found by their tag; Anthropic's, which carry none, only by their size
//! and creation time. Journals written before tags have none, and such a batch is sent again
//! as before.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::item::ItemOutcome;

/// A journal that cannot be read or written.
#[derive(Debug, thiserror::Error)]
#[error("batch journal {}: {source}; check that the tournament folder is writable", path.display())]
pub struct JournalError {
    /// The journal file.
    pub path: PathBuf,
    /// What failed.
    #[source]
    pub source: std::io::Error,
}

/// One request as a batch was made of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Entry {
    /// The request's id in the batch.
    pub id: String,
    /// Its round.
    pub round: String,
    /// Its phase label.
    pub phase: String,
    /// The output-token limit it asked for.
    #[serde(default)]
    pub max_tokens: u32,
}

/// One line of the journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Record {
    /// A batch is about to be created with these requests.
    Submitting {
        /// Our id for the batch (unique in this journal).
        local: String,
        /// Its requests.
        requests: Vec<Entry>,
        /// The tag the batch carries at the provider (OpenAI's metadata, Gemini's display
        /// name), unique to this batch, to find it if the create answer is lost. Absent in
        /// journals written before batches were tagged.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tag: Option<String>,
        /// When the create call was about to go, RFC 3339.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<String>,
    },
    /// The provider created it.
    Submitted {
        /// Our id.
        local: String,
        /// The provider's id.
        remote: String,
        /// Taken for ours by its size and time alone (a provider whose batches carry no
        /// tag, after a lost create answer): it may be somebody else's, so it is polled but
        /// never cancelled.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        guessed: bool,
        /// When, RFC 3339.
        at: String,
    },
    /// Results fetched from it.
    Results {
        /// Our id.
        local: String,
        /// Each request's outcome.
        items: Vec<(String, ItemOutcome)>,
    },
    /// It ended (every result it will give is recorded above).
    Ended {
        /// Our id.
        local: String,
        /// The provider's last word on it.
        state: String,
    },
    /// This tool asked the provider to cancel it. It stays open: a cancelled batch ends
    /// with the answers it finished before the cancellation, which are collected (by this
    /// run, or the next) like any other batch's.
    CancelRequested {
        /// Our id.
        local: String,
    },
    /// Every one of its results reached the call that asked for it: a later run need not
    /// keep them.
    Claimed {
        /// Our id.
        local: String,
    },
}

/// A batch as the journal tells it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Recorded {
    /// The requests.
    pub requests: Vec<Entry>,
    /// The tag it carries at the provider, when it was tagged.
    pub tag: Option<String>,
    /// When its create call was about to go.
    pub submitting_at: Option<String>,
    /// The provider's id, once created.
    pub remote: Option<String>,
    /// When it was created.
    pub submitted_at: Option<String>,
    /// Taken for ours by size and time alone (see [`Record::Submitted`]).
    pub guessed: bool,
    /// Over: its results are recorded.
    pub closed: bool,
    /// Its results all reached their calls.
    pub claimed: bool,
}

impl Recorded {
    /// A tagged batch recorded as submitting but never as submitted nor closed: the run
    /// died (or lost the create answer) around its create call, so the provider may hold it.
    pub(crate) fn is_orphan(&self) -> bool {
        self.remote.is_none() && !self.closed && self.tag.is_some() && !self.requests.is_empty()
    }
}

/// What a journal holds, read back.
#[derive(Debug, Default)]
pub(crate) struct Replay {
    /// Every batch, by our id, in the order first seen.
    pub batches: Vec<(String, Recorded)>,
    /// Every answer recorded and not yet claimed, by request id, with the provider's id
    /// of its batch. Errors are left out: a later run sends those requests again.
    pub results: HashMap<String, (String, ItemOutcome)>,
    /// The next free local number.
    pub next_local: u64,
}

/// The journal of one model's batches.
#[derive(Debug)]
pub(crate) struct Journal {
    path: PathBuf,
    file: File,
}

impl Journal {
    /// Opens (or creates) the journal at `path` and reads what it holds.
    pub(crate) fn open(path: &Path) -> Result<(Self, Replay), JournalError> {
        let fail = |source| JournalError {
            path: path.to_path_buf(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(fail)?;
        }
        let replay = match File::open(path) {
            Ok(file) => replay(BufReader::new(file)).map_err(fail)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Replay::default(),
            Err(e) => return Err(fail(e)),
        };
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(fail)?;
        Ok((
            Self {
                path: path.to_path_buf(),
                file,
            },
            replay,
        ))
    }

    /// Appends a record and flushes it to disk. A line cut short by an earlier crash is
    /// ended first, so the new record starts on its own line. Every string is redacted with
    /// every key this process read, as in every other file the tool writes (see
    /// `safe_json`); results were redacted as they arrived, so this is a second guard.
    pub(crate) fn append(&mut self, record: &Record) -> Result<(), JournalError> {
        let mut line = crate::redact::remembered()
            .json_tree(record)
            .map(|tree| tree.to_string())
            .map_err(|e| JournalError {
                path: self.path.clone(),
                source: std::io::Error::other(e),
            })?;
        line.insert(0, '\n');
        line.push('\n');
        let result = self
            .file
            .write_all(line.as_bytes())
            .and_then(|()| self.file.sync_data());
        result.map_err(|source| JournalError {
            path: self.path.clone(),
            source,
        })
    }
}

/// Whether any journal in `dir` (a tournament's `batches/` folder) records a batch that is
/// still open at its provider, or one that may be (its create answer was lost: it is looked
/// for in the provider's list). Unreadable journals count as none.
pub fn any_open(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|entry| {
        let path = entry.path();
        path.extension().is_some_and(|e| e == "jsonl")
            && File::open(&path)
                .and_then(|f| replay(BufReader::new(f)))
                .is_ok_and(|r| {
                    r.batches
                        .iter()
                        .any(|(_, b)| (b.remote.is_some() || b.is_orphan()) && !b.closed)
                })
    })
}

/// The provider's ids of every batch the journals in `dir` record (every model's of the
/// tournament), which a lookup for a lost batch must not take for it. Unreadable journals
/// add none.
pub(crate) fn remotes_in(dir: &Path) -> std::collections::HashSet<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Default::default();
    };
    entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "jsonl"))
        .filter_map(|path| {
            File::open(path)
                .and_then(|f| replay(BufReader::new(f)))
                .ok()
        })
        .flat_map(|r| r.batches.into_iter().filter_map(|(_, b)| b.remote))
        .collect()
}

fn replay(reader: impl BufRead) -> std::io::Result<Replay> {
    let mut out = Replay::default();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut answers: Vec<(String, String, String, ItemOutcome)> = Vec::new();
    for line in reader.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let Ok(record) = serde_json::from_str::<Record>(&line) else {
            tracing::warn!(line = %line.chars().take(80).collect::<String>(), "unreadable batch journal line skipped");
            continue;
        };
        let local = match &record {
            Record::Submitting { local, .. }
            | Record::Submitted { local, .. }
            | Record::Results { local, .. }
            | Record::Ended { local, .. }
            | Record::CancelRequested { local }
            | Record::Claimed { local } => local.clone(),
        };
        if let Some(n) = local.strip_prefix('b').and_then(|n| n.parse::<u64>().ok()) {
            out.next_local = out.next_local.max(n + 1);
        }
        let at = *index.entry(local.clone()).or_insert_with(|| {
            out.batches.push((local.clone(), Recorded::default()));
            out.batches.len() - 1
        });
        let batch = &mut out.batches[at].1;
        match record {
            Record::Submitting {
                requests, tag, at, ..
            } => {
                batch.requests = requests;
                batch.tag = tag;
                batch.submitting_at = at;
            }
            Record::Submitted {
                remote,
                at,
                guessed,
                ..
            } => {
                batch.remote = Some(remote);
                batch.submitted_at = Some(at);
                batch.guessed = guessed;
            }
            Record::Results { items, .. } => {
                let remote = batch.remote.clone().unwrap_or_default();
                for (id, outcome) in items.into_iter().filter(|(_, o)| !o.is_error()) {
                    answers.push((local.clone(), id, remote.clone(), outcome));
                }
            }
            Record::Ended { .. } => batch.closed = true,
            Record::Claimed { .. } => batch.claimed = true,
            Record::CancelRequested { .. } => {}
        }
    }
    let claimed: std::collections::HashSet<&str> = out
        .batches
        .iter()
        .filter(|(_, b)| b.claimed)
        .map(|(local, _)| local.as_str())
        .collect();
    let kept: Vec<_> = answers
        .into_iter()
        .filter(|(local, ..)| !claimed.contains(local.as_str()))
        .map(|(_, id, remote, outcome)| (id, (remote, outcome)))
        .collect();
    out.results = kept.into_iter().collect();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer() -> ItemOutcome {
        ItemOutcome::Answer {
            text: "hi".into(),
            usage: None,
            finish: crate::providers::FinishReason::Stop,
            provider_finish: "stop".into(),
            request_id: None,
        }
    }

    fn j_after(path: &Path) -> Journal {
        Journal::open(path).unwrap().0
    }

    fn entry(id: &str) -> Entry {
        Entry {
            id: id.into(),
            round: "r1".into(),
            phase: "presentation".into(),
            max_tokens: 64,
        }
    }

    #[test]
    fn a_key_in_a_result_is_not_journaled() {
        let key = r#"sk-journal"key\0123456789"#;
        crate::redact::remember(&crate::redact::Redactor::new([("JOURNAL_TEST_KEY", key)]));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("batches/m.jsonl");
        let (mut j, _) = Journal::open(&path).unwrap();
        let outcome = ItemOutcome::Answer {
            text: format!("hi {key}"),
            usage: None,
            finish: crate::providers::FinishReason::Stop,
            provider_finish: "stop".into(),
            request_id: None,
        };
        j.append(&Record::Results {
            local: "b0".into(),
            items: vec![("x".into(), outcome)],
        })
        .unwrap();
        let written = std::fs::read_to_string(&path).unwrap();
        assert!(!written.contains("journal"), "{written}");
        assert!(
            written.contains("hi [redacted JOURNAL_TEST_KEY]"),
            "{written}"
        );
    }

    #[test]
    fn a_journal_read_back_knows_open_batches_and_results_despite_a_torn_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("batches/gpt.jsonl");
        let (mut j, replay) = Journal::open(&path).unwrap();
        assert!(replay.batches.is_empty());
        j.append(&Record::Submitting {
            local: "b0".into(),
            requests: vec![entry("x"), entry("y")],
            tag: None,
            at: None,
        })
        .unwrap();
        j.append(&Record::Submitted {
            local: "b0".into(),
            remote: "batch_9".into(),
            at: "2026-11-23T00:00:00Z".into(),
            guessed: false,
        })
        .unwrap();
        j.append(&Record::Results {
            local: "b0".into(),
            items: vec![
                ("x".into(), answer()),
                ("y".into(), ItemOutcome::unfinished("expired")),
            ],
        })
        .unwrap();
        j.append(&Record::Submitting {
            local: "b1".into(),
            requests: vec![entry("z")],
            tag: Some("ethics-bowl-b1-00".into()),
            at: Some("2026-11-23T00:00:01Z".into()),
        })
        .unwrap();
        drop(j);
        // A crash in the middle of a line.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"ended\": {\"loc").unwrap();
        drop(f);
        let (mut j, replay) = Journal::open(&path).unwrap();
        assert_eq!(replay.next_local, 2);
        assert_eq!(replay.batches.len(), 2);
        let (local, b0) = &replay.batches[0];
        assert_eq!(local, "b0");
        assert_eq!(b0.remote.as_deref(), Some("batch_9"));
        assert_eq!(b0.requests.len(), 2);
        assert!(!b0.closed);
        let b1 = &replay.batches[1].1;
        assert!(b1.remote.is_none(), "never submitted");
        assert!(b1.is_orphan(), "looked for at the provider");
        assert_eq!(b1.tag.as_deref(), Some("ethics-bowl-b1-00"));
        assert!(any_open(&dir.path().join("batches")));
        assert_eq!(replay.results["x"].0, "batch_9");
        assert!(
            !replay.results.contains_key("y"),
            "an error is sent again, not replayed"
        );
        j.append(&Record::Ended {
            local: "b0".into(),
            state: "completed".into(),
        })
        .unwrap();
        let (_, replay) = Journal::open(&path).unwrap();
        assert!(
            replay.batches[0].1.closed,
            "the record after the torn line reads"
        );
        let mut j = j_after(&path);
        j.append(&Record::Ended {
            local: "b1".into(),
            state: "not created".into(),
        })
        .unwrap();
        let (_, replay) = Journal::open(&path).unwrap();
        assert!(
            !replay.batches[1].1.is_orphan(),
            "closed: not looked for again"
        );
        assert!(!any_open(&dir.path().join("batches")));
        let remotes = remotes_in(&dir.path().join("batches"));
        assert_eq!(remotes.into_iter().collect::<Vec<_>>(), ["batch_9"]);
    }
}
