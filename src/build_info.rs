//! Which build of the tool wrote a file: its version and the git commit it was built from
//! (set by `build.rs`; `unknown` when the build had neither git nor a packaged crate's
//! `.cargo_vcs_info.json`). `tournament.json` records it for every run and re-judging.

use serde::{Deserialize, Serialize};

/// The commit `build.rs` found, or `unknown`.
const COMMIT: &str = env!("ETHICS_BOWL_GIT_COMMIT");
/// Whether the tree had changes not committed: `true`, `false` or `unknown`.
const DIRTY: &str = env!("ETHICS_BOWL_GIT_DIRTY");

/// A build of the tool, as `tournament.json` records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolInfo {
    /// The crate's version (`CARGO_PKG_VERSION`).
    pub version: String,
    /// The git commit it was built from (40 hex digits), or `unknown`.
    pub commit: String,
    /// Whether the sources had changes not committed when it was built; absent when not
    /// known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dirty: Option<bool>,
}

impl ToolInfo {
    /// This build.
    pub fn current() -> Self {
        Self {
            version: env!("CARGO_PKG_VERSION").to_string(),
            commit: COMMIT.to_string(),
            dirty: match DIRTY {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            },
        }
    }

    /// One line for people: `0.1.0 (commit 1a2b3c4d5e6f, with changes not committed)`.
    pub fn describe(&self) -> String {
        let commit = match self.commit.get(..12) {
            Some(short) if self.commit.len() == 40 => short,
            _ => self.commit.as_str(),
        };
        let dirty = match self.dirty {
            Some(true) => ", with changes not committed",
            Some(false) | None => "",
        };
        format!("{} (commit {commit}{dirty})", self.version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_build_names_its_version_and_a_commit_or_unknown() {
        let t = ToolInfo::current();
        assert_eq!(t.version, env!("CARGO_PKG_VERSION"));
        assert!(
            t.commit == "unknown"
                || (t.commit.len() == 40 && t.commit.chars().all(|c| c.is_ascii_hexdigit())),
            "{t:?}"
        );
        assert!(t.commit != "unknown" || t.dirty.is_none(), "{t:?}");
    }

    #[test]
    fn described_with_a_short_commit_and_whether_it_was_dirty() {
        let t = ToolInfo {
            version: "1.2.3".into(),
            commit: "0123456789abcdef0123456789abcdef01234567".into(),
            dirty: Some(true),
        };
        assert_eq!(
            t.describe(),
            "1.2.3 (commit 0123456789ab, with changes not committed)"
        );
        let unknown = ToolInfo {
            commit: "unknown".into(),
            dirty: None,
            ..t
        };
        assert_eq!(unknown.describe(), "1.2.3 (commit unknown)");
    }

    #[test]
    fn a_record_without_dirty_reads() {
        let t: ToolInfo =
            serde_json::from_str(r#"{"version": "0.1.0", "commit": "unknown"}"#).unwrap();
        assert_eq!(t.dirty, None);
    }
}
