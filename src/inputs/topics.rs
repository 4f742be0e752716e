//! The structured debate's topics file (`[[topics]]` with `id`, `proposition`, `context`).

use std::path::Path;

use crate::config::{ConfigError, TopicsFile};
use crate::domain::{Topic, check_file_id};

/// Reads and checks a topics file: ids usable as file names and unique, propositions given.
pub fn load_topics(path: &Path) -> Result<Vec<Topic>, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let file: TopicsFile = toml::from_str(&text).map_err(|e| {
        ConfigError::invalid(
            path,
            "the file",
            e.message().trim().to_string(),
            "write [[topics]] tables with id, proposition and optional context",
        )
    })?;
    if file.topics.is_empty() {
        return Err(ConfigError::invalid(
            path,
            "the file",
            "has no [[topics]]",
            "add at least one [[topics]] table",
        ));
    }
    for (n, topic) in file.topics.iter().enumerate() {
        let entry = format!("topics[{n}]");
        if let Err(e) = check_file_id(&topic.id) {
            return Err(ConfigError::invalid(
                path,
                format!("{entry}, key \"id\""),
                e.to_string(),
                "use letters, digits, '-' and '_'",
            ));
        }
        if file.topics[..n].iter().any(|t| t.id == topic.id) {
            return Err(ConfigError::invalid(
                path,
                format!("{entry}, key \"id\""),
                format!("\"{}\" is used twice", topic.id),
                "give each topic its own id",
            ));
        }
        if topic.proposition.trim().len() < 10 {
            return Err(ConfigError::invalid(
                path,
                format!("{entry}, key \"proposition\""),
                "is missing or too short",
                "state the proposition Pro argues for, as a full sentence",
            ));
        }
    }
    Ok(file.topics)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_load_and_bad_ones_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("topics.toml");
        std::fs::write(
            &path,
            "[[topics]]\nid = \"a\"\nproposition = \"Teams should pair program.\"\n",
        )
        .unwrap();
        assert_eq!(load_topics(&path).unwrap()[0].id, "a");
        std::fs::write(
            &path,
            "[[topics]]\nid = \"../x\"\nproposition = \"Teams should pair program.\"\n",
        )
        .unwrap();
        assert!(
            load_topics(&path)
                .unwrap_err()
                .to_string()
                .contains("topics[0], key \"id\"")
        );
        std::fs::write(&path, "[[topics]]\nid = \"a\"\nproposition = \"Teams should pair program.\"\n[[topics]]\nid = \"a\"\nproposition = \"Teams should pair program.\"\n").unwrap();
        assert!(
            load_topics(&path)
                .unwrap_err()
                .to_string()
                .contains("used twice")
        );
        std::fs::write(&path, "[[topics]]\nid = \"a\"\nproposal = \"x\"\n").unwrap();
        assert!(
            load_topics(&path)
                .unwrap_err()
                .to_string()
                .contains("proposal")
        );
    }
}
