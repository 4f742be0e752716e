//! Annotation files: `annotations/<annotator>/<round-id>.json` in a results folder, written
//! atomically (a temporary file, flushed, renamed) with the store's own helper. Writers hold
//! the folder's writer lock (see [`crate::store::Store::locked`]); readers take none.

use std::path::{Path, PathBuf};

use super::{ANNOTATION_SCHEMA_VERSION, Annotation, AnnotationError};
use crate::domain::check_file_id;
use crate::store::StoreError;

/// The folder of human judgments in a results folder.
pub const FOLDER: &str = "annotations";

/// The longest annotator's name, in bytes.
const MAX_NAME: usize = 64;

/// Checks that an annotator's name is a safe folder name: not empty, at most 64 bytes,
/// letters, digits and `-_.@+` only, not starting with a dot (so no `..`, no separators, no
/// control characters), and not `sample.json`, the sample's file beside the folders.
pub fn check_annotator(name: &str) -> Result<(), AnnotationError> {
    let why = if name.is_empty() {
        Some("it is empty")
    } else if name.len() > MAX_NAME {
        Some("it is longer than 64 bytes")
    } else if name.starts_with('.') {
        Some("it starts with a dot")
    } else if name.contains(['/', '\\']) {
        Some("it contains a path separator")
    } else if name.chars().any(char::is_control) {
        Some("it contains control characters")
    } else if !name
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '@' | '+'))
    {
        Some("use letters, digits and - _ . @ + only")
    } else if name == super::sample::SAMPLE_FILE {
        Some("it is the sample's file name")
    } else {
        None
    };
    match why {
        Some(why) => Err(AnnotationError::BadAnnotator {
            name: name.to_string(),
            why,
        }),
        None => Ok(()),
    }
}

/// The file of one annotator's judgment of one round.
pub fn annotation_path(
    results: &Path,
    annotator: &str,
    round_id: &str,
) -> Result<PathBuf, AnnotationError> {
    check_annotator(annotator)?;
    check_file_id(round_id).map_err(StoreError::from)?;
    Ok(results
        .join(FOLDER)
        .join(annotator)
        .join(format!("{round_id}.json")))
}

/// Writes an annotation's file atomically (creating its folder), over any earlier one: the
/// caller decides whether one may be replaced, and holds the folder's writer lock. A
/// judgment written over an earlier one keeps when that was first stored
/// (`first_written_at`), its own `written_at` saying when it was changed.
pub fn save(results: &Path, annotation: &Annotation) -> Result<PathBuf, AnnotationError> {
    let path = annotation_path(results, &annotation.annotator, &annotation.round_id)?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| StoreError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    // A damaged earlier file is replaced without its time: the new judgment stands.
    let earlier = load(results, &annotation.annotator, &annotation.round_id)
        .ok()
        .flatten();
    match earlier {
        Some(e) if annotation.first_written_at.is_none() => {
            let mut changed = annotation.clone();
            changed.first_written_at = Some(e.first_written_at.unwrap_or(e.written_at));
            crate::store::write_json_atomic(&path, &changed)?;
        }
        _ => crate::store::write_json_atomic(&path, annotation)?,
    }
    Ok(path)
}

/// Stores judgments as this folder's one writer (taking its writer lock): every file is
/// checked first, and an annotator's judgment of a round already stored is refused unless
/// `replace`, before any is written. Returns the files written.
pub fn save_all(
    results: &Path,
    annotations: &[Annotation],
    replace: bool,
) -> Result<Vec<PathBuf>, AnnotationError> {
    let _writer = crate::store::Store::open(results)?.locked()?;
    for a in annotations {
        let path = annotation_path(results, &a.annotator, &a.round_id)?;
        if !replace && path.exists() {
            return Err(AnnotationError::Exists {
                path,
                annotator: a.annotator.clone(),
                round_id: a.round_id.clone(),
            });
        }
    }
    annotations.iter().map(|a| save(results, a)).collect()
}

/// Reads one annotator's judgment of one round, if stored.
pub fn load(
    results: &Path,
    annotator: &str,
    round_id: &str,
) -> Result<Option<Annotation>, AnnotationError> {
    let path = annotation_path(results, annotator, round_id)?;
    if !path.exists() {
        return Ok(None);
    }
    read(&path, annotator, round_id).map(Some)
}

/// Every human judgment stored in a results folder, by annotator then round. A file that
/// cannot be read, or whose content is not the judgment its path names, is an error naming
/// the file: analysis never counts a folder's judgments with some silently left out. Hidden
/// files (a write under way) and files that are not `.json` are not judgments.
pub fn load_all(results: &Path) -> Result<Vec<Annotation>, AnnotationError> {
    let root = results.join(FOLDER);
    if !root.is_dir() {
        return Ok(Vec::new());
    }
    let mut all = Vec::new();
    for folder in sorted_entries(&root)? {
        let Some(name) = visible_name(&folder) else {
            continue;
        };
        if !folder.is_dir() {
            continue; // sample.json, and anything else beside the annotators' folders
        }
        check_annotator(&name).map_err(|e| AnnotationError::Damaged {
            path: folder.clone(),
            message: e.to_string(),
        })?;
        for file in sorted_entries(&folder)? {
            if visible_name(&file).is_none() || file.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let round_id = file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            all.push(read(&file, &name, &round_id)?);
        }
    }
    Ok(all)
}

/// A folder's entries, sorted by name.
fn sorted_entries(dir: &Path) -> Result<Vec<PathBuf>, AnnotationError> {
    let entries = std::fs::read_dir(dir).map_err(|source| StoreError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut paths = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| StoreError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        paths.push(entry.path());
    }
    paths.sort();
    Ok(paths)
}

/// The entry's name, unless it is hidden.
fn visible_name(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_string_lossy().into_owned();
    (!name.starts_with('.')).then_some(name)
}

/// Reads an annotation file and checks that it is the one its path names.
fn read(path: &Path, annotator: &str, round_id: &str) -> Result<Annotation, AnnotationError> {
    let damaged = |message: String| AnnotationError::Damaged {
        path: path.to_path_buf(),
        message,
    };
    // A FIFO or device named like a judgment is never opened (reading a FIFO waits forever).
    let meta = std::fs::metadata(path).map_err(|source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    if !meta.is_file() {
        return Err(damaged("not a regular file".into()));
    }
    let text = std::fs::read_to_string(path).map_err(|source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| damaged(e.to_string()))?;
    if let Some(version) = value
        .get("schema_version")
        .and_then(serde_json::Value::as_u64)
        .filter(|v| *v > u64::from(ANNOTATION_SCHEMA_VERSION))
    {
        return Err(damaged(format!(
            "written by a newer ethics-bowl (annotation schema version {version}; this build \
             reads up to {ANNOTATION_SCHEMA_VERSION}); upgrade ethics-bowl"
        )));
    }
    let annotation: Annotation =
        serde_json::from_value(value).map_err(|e| damaged(e.to_string()))?;
    if annotation.annotator != annotator {
        return Err(damaged(format!(
            "it holds {:?}'s judgment, not {annotator:?}'s as its folder says",
            annotation.annotator
        )));
    }
    if annotation.round_id != round_id {
        return Err(damaged(format!(
            "it judges round {:?}, not {round_id:?} as its name says",
            annotation.round_id
        )));
    }
    Ok(annotation)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::annotations::{HumanJudgment, Via, Winner};

    fn annotation(annotator: &str, round_id: &str) -> Annotation {
        Annotation {
            schema_version: ANNOTATION_SCHEMA_VERSION,
            annotator: annotator.into(),
            written_at: "2026-11-27T00:00:00Z".into(),
            first_written_at: None,
            blind: true,
            via: Via::Csv,
            round_id: round_id.into(),
            judgment: HumanJudgment::StructuredDebate {
                winner: Winner::Pro,
                standings: Vec::new(),
                justification: None,
            },
            seconds_on_round: None,
            words_shown: None,
        }
    }

    /// Time on task goes to the file and back when recorded, and is absent from it when
    /// not: a file written before it was recorded (no such keys) reads as none.
    #[test]
    fn time_on_task_round_trips_and_older_files_read_without_it() {
        let dir = tempfile::tempdir().unwrap();
        let timed = Annotation {
            via: Via::Tui,
            seconds_on_round: Some(187.4),
            words_shown: Some(1012),
            ..annotation("alice", "r1")
        };
        let path = save(dir.path(), &timed).unwrap();
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(json["seconds_on_round"], 187.4);
        assert_eq!(json["words_shown"], 1012);
        assert_eq!(load(dir.path(), "alice", "r1").unwrap(), Some(timed));
        let untimed = annotation("bob", "r1");
        let path = save(dir.path(), &untimed).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            !text.contains("seconds_on_round") && !text.contains("words_shown"),
            "{text}"
        );
        assert_eq!(
            load(dir.path(), "bob", "r1").unwrap(),
            Some(untimed.clone())
        );
        // As written before time on task was recorded, schema version 1.
        let older = serde_json::json!({
            "schema_version": 1,
            "annotator": "carol",
            "written_at": "2026-11-27T00:00:00Z",
            "blind": true,
            "via": "tui",
            "round_id": "r1",
            "judgment": {"protocol": "structured_debate", "winner": "pro"}
        });
        let path = annotation_path(dir.path(), "carol", "r1").unwrap();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, older.to_string()).unwrap();
        let read = load(dir.path(), "carol", "r1").unwrap().unwrap();
        assert_eq!((read.seconds_on_round, read.words_shown), (None, None));
        assert_eq!(read.via, Via::Tui);
    }

    /// A judgment changed and saved again keeps when it was first stored, through every
    /// later change.
    #[test]
    fn a_changed_judgment_keeps_when_it_was_first_stored() {
        let dir = tempfile::tempdir().unwrap();
        let first = annotation("alice", "r1");
        save(dir.path(), &first).unwrap();
        for (when, winner) in [
            ("2026-11-28T01:00:00Z", Winner::Con),
            ("2026-11-28T02:00:00Z", Winner::Tie),
        ] {
            let mut changed = first.clone();
            changed.written_at = when.into();
            changed.judgment = HumanJudgment::StructuredDebate {
                winner,
                standings: Vec::new(),
                justification: None,
            };
            save(dir.path(), &changed).unwrap();
            let stored = load(dir.path(), "alice", "r1").unwrap().unwrap();
            assert_eq!(stored.written_at, when);
            assert_eq!(
                stored.first_written_at.as_deref(),
                Some("2026-11-27T00:00:00Z")
            );
            assert_eq!(stored.judgment, changed.judgment);
        }
    }

    #[test]
    fn unsafe_annotator_names_are_refused() {
        for bad in [
            "",
            "..",
            ".hidden",
            "a/b",
            "a\\b",
            "../x",
            "tab\there",
            "nul\0",
            "with space",
            "sample.json",
            &"x".repeat(65),
        ] {
            assert!(
                matches!(
                    check_annotator(bad),
                    Err(AnnotationError::BadAnnotator { .. })
                ),
                "{bad:?}"
            );
        }
        for good in ["alice", "Zoë", "a.b@example.org", "rater_2", "r-3+x"] {
            assert!(check_annotator(good).is_ok(), "{good:?}");
        }
    }

    #[test]
    fn saved_annotations_load_back_sorted_and_a_damaged_one_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let b = annotation("bob", "r1");
        let a2 = annotation("alice", "r2");
        let a1 = annotation("alice", "r1");
        for a in [&b, &a2, &a1] {
            save(dir.path(), a).unwrap();
        }
        // What is not a judgment is passed over: the sample, hidden files, other files.
        std::fs::write(dir.path().join("annotations/sample.json"), "{}").unwrap();
        std::fs::write(dir.path().join("annotations/alice/.tmp-x"), "half").unwrap();
        std::fs::write(dir.path().join("annotations/alice/notes.txt"), "hi").unwrap();
        assert_eq!(load_all(dir.path()).unwrap(), vec![a1.clone(), a2, b]);
        assert_eq!(load(dir.path(), "alice", "r1").unwrap(), Some(a1));
        assert_eq!(load(dir.path(), "alice", "r9").unwrap(), None);

        std::fs::write(dir.path().join("annotations/bob/r2.json"), "{ not json").unwrap();
        let err = load_all(dir.path()).unwrap_err().to_string();
        assert!(err.contains("bob/r2.json"), "{err}");

        // A judgment moved to another round's name is refused too.
        std::fs::write(
            dir.path().join("annotations/bob/r2.json"),
            serde_json::to_vec(&annotation("bob", "r1")).unwrap(),
        )
        .unwrap();
        let err = load_all(dir.path()).unwrap_err().to_string();
        assert!(err.contains("not \"r2\""), "{err}");
    }

    #[test]
    fn a_judgment_corrected_by_hand_is_not_a_human_judgment() {
        use crate::domain::{Judgment, ParseStatus, Reading, RoundStatus, Scores};
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::Store::create(dir.path()).unwrap();
        let mut round = crate::store::tests::round("r1", "a", "b", "d", RoundStatus::Complete);
        let mut corrected = Judgment::new(
            "j",
            Reading::Rubric {
                team_a: Scores::default(),
                team_b: Scores::default(),
            },
        );
        corrected.parse_status = ParseStatus::CorrectedByHand;
        corrected.corrected_text = Some("a person's fix".into());
        round.judgments.push(corrected);
        store.save_round(&round).unwrap();
        assert!(load_all(dir.path()).unwrap().is_empty());
        save(dir.path(), &annotation("alice", "r1")).unwrap();
        let all = load_all(dir.path()).unwrap();
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].annotator, "alice");
    }

    #[test]
    fn no_annotations_folder_means_no_judgments() {
        let dir = tempfile::tempdir().unwrap();
        assert!(load_all(dir.path()).unwrap().is_empty());
    }

    #[test]
    fn a_path_is_only_made_of_safe_names() {
        let dir = Path::new("/r");
        assert!(annotation_path(dir, "..", "r1").is_err());
        assert!(annotation_path(dir, "alice", "../r1").is_err());
        assert_eq!(
            annotation_path(dir, "alice", "r1").unwrap(),
            Path::new("/r/annotations/alice/r1.json")
        );
    }
}
