//! One stored answer of the response cache: a file per key, sharded by the key's first two
//! hex digits, written atomically and redacted as round files are. A file that cannot be
//! read is a miss, never an error.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::key::FORMAT;
use crate::providers::types::{Completion, FinishReason, Usage};

/// What a cache file holds: the answer as the call returned it, and when it was written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The file's format (the key's, [`FORMAT`]).
    pub format: u32,
    /// The key the file answers, checked on reading against the name it is found under.
    pub key: String,
    /// When the answer was stored (RFC 3339).
    pub stored_at: String,
    /// The provider's model id that answered.
    pub model: String,
    /// The answer text, redacted.
    pub text: String,
    /// Tokens as the provider reported them (or estimated: `usage_estimated`).
    pub usage: Option<Usage>,
    /// The usage is an estimate: the server reported none.
    #[serde(default)]
    pub usage_estimated: bool,
    /// Why the model stopped.
    pub finish_reason: FinishReason,
    /// The provider's word for it.
    pub provider_finish_reason: String,
    /// The provider's request id of the call that produced the answer.
    #[serde(default)]
    pub request_id: Option<String>,
}

impl Entry {
    /// The entry for an answer to the request of `key`.
    pub fn new(key: &str, model: &str, completion: &Completion) -> Self {
        Self {
            format: FORMAT,
            key: key.to_string(),
            stored_at: crate::domain::now_rfc3339(),
            model: model.to_string(),
            text: completion.text.clone(),
            usage: completion.usage,
            usage_estimated: completion.usage_estimated,
            finish_reason: completion.finish_reason.clone(),
            provider_finish_reason: completion.provider_finish_reason.clone(),
            request_id: completion.request_id.clone(),
        }
    }

    /// The answer as a call returns it (never batched: no batch carried it this time).
    pub fn completion(&self) -> Completion {
        Completion {
            text: self.text.clone(),
            usage: self.usage,
            usage_estimated: self.usage_estimated,
            finish_reason: self.finish_reason.clone(),
            provider_finish_reason: self.provider_finish_reason.clone(),
            request_id: self.request_id.clone(),
            batch_id: None,
        }
    }
}

/// The file of `key` under `dir`: `dir/ab/abcdef….json`.
pub fn path(dir: &Path, key: &str) -> PathBuf {
    let shard = key.get(..2).unwrap_or("00");
    dir.join(shard).join(format!("{key}.json"))
}

/// Reads the entry of `key`; none when there is no file. A file that cannot be read, is not
/// an entry, is of another format or answers another key is a miss too, with a warning
/// logged, so a damaged cache costs a call, not a run.
pub fn load(dir: &Path, key: &str) -> Option<Entry> {
    let path = path(dir, key);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            tracing::warn!(file = %path.display(), error = %e, "response cache file unreadable; calling the model");
            return None;
        }
    };
    match serde_json::from_str::<Entry>(&text) {
        Ok(entry) if entry.format == FORMAT && entry.key == key => Some(entry),
        Ok(_) => {
            tracing::warn!(file = %path.display(), "response cache file of another format or key; calling the model");
            None
        }
        Err(e) => {
            tracing::warn!(file = %path.display(), error = %e, "response cache file damaged; calling the model");
            None
        }
    }
}

/// Stores an entry atomically (temporary file, fsync, rename), every string redacted with
/// every key this process read, as in round files; a failure is logged and the run goes on.
pub fn store(dir: &Path, entry: &Entry) {
    let path = path(dir, &entry.key);
    let written = path
        .parent()
        .map_or(Ok(()), private_dir)
        .map_err(|e| e.to_string())
        .and_then(|()| crate::store::write_json_atomic(&path, entry).map_err(|e| e.to_string()));
    if let Err(error) = written {
        tracing::warn!(file = %path.display(), %error, "answer not stored in the response cache");
    }
}

/// Creates `dir` and the folders above it that are missing, readable by their owner only
/// where the system has such modes: the answers in a cache shared by every project under
/// `~/.cache` are no other local user's to read.
fn private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn completion(text: &str) -> Completion {
        Completion {
            text: text.into(),
            usage: Some(Usage::new(120, 30)),
            usage_estimated: false,
            finish_reason: FinishReason::Stop,
            provider_finish_reason: "stop".into(),
            request_id: Some("req_1".into()),
            batch_id: Some("batch_1".into()),
        }
    }

    const KEY: &str = "ab0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd";

    #[test]
    fn an_answer_stored_is_read_back_under_its_shard() {
        let dir = tempfile::tempdir().unwrap();
        let entry = Entry::new(KEY, "gpt-4o", &completion("An answer."));
        store(dir.path(), &entry);
        assert!(dir.path().join("ab").join(format!("{KEY}.json")).is_file());
        let back = load(dir.path(), KEY).unwrap();
        assert_eq!(back, entry);
        let c = back.completion();
        assert_eq!(c.text, "An answer.");
        assert_eq!(c.usage, Some(Usage::new(120, 30)));
        assert_eq!(c.batch_id, None);
        assert_eq!(load(dir.path(), &KEY.replace("ab0", "ab1")), None);
    }

    #[test]
    fn a_damaged_or_misplaced_file_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let file = path(dir.path(), KEY);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        for text in ["", "{not json", "{\"format\": 1}", "\u{0}\u{1}"] {
            std::fs::write(&file, text).unwrap();
            assert_eq!(load(dir.path(), KEY), None, "{text:?}");
        }
        // Another key's entry under this key's name, and an older format.
        let mut other = Entry::new(&KEY.replace("ab0", "ab9"), "m", &completion("x"));
        std::fs::write(&file, serde_json::to_string(&other).unwrap()).unwrap();
        assert_eq!(load(dir.path(), KEY), None);
        other.key = KEY.into();
        other.format = FORMAT + 1;
        std::fs::write(&file, serde_json::to_string(&other).unwrap()).unwrap();
        assert_eq!(load(dir.path(), KEY), None);
        // A folder where the file should be.
        std::fs::remove_file(&file).unwrap();
        std::fs::create_dir(&file).unwrap();
        assert_eq!(load(dir.path(), KEY), None);
    }

    #[test]
    fn a_key_the_model_echoed_is_redacted_in_the_file() {
        let secret = "sk-response-cache-echo-5c1f9e0d7a";
        crate::redact::remember(&crate::redact::Redactor::new([(
            "RESPONSE_CACHE_TEST_KEY",
            secret,
        )]));
        let dir = tempfile::tempdir().unwrap();
        let text = format!("My key is {secret}, as you asked.");
        store(dir.path(), &Entry::new(KEY, "m", &completion(&text)));
        let raw = std::fs::read_to_string(path(dir.path(), KEY)).unwrap();
        assert!(!raw.contains(secret), "{raw}");
        assert!(raw.contains("[redacted RESPONSE_CACHE_TEST_KEY]"), "{raw}");
    }

    #[test]
    fn a_folder_that_cannot_be_written_only_costs_the_entry() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, "").unwrap();
        store(&blocker, &Entry::new(KEY, "m", &completion("x")));
        assert_eq!(load(&blocker, KEY), None);
    }

    #[cfg(unix)]
    #[test]
    fn the_folders_it_creates_are_its_owners_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("responses");
        store(&root, &Entry::new(KEY, "m", &completion("x")));
        for folder in [
            root.clone(),
            path(&root, KEY).parent().unwrap().to_path_buf(),
        ] {
            let mode = std::fs::metadata(&folder).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700, "{}", folder.display());
        }
    }
}
