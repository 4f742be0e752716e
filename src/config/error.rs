//! Errors in configuration files: each names the file, the entry and the key, and says what to do.

use std::path::PathBuf;

/// A configuration problem the user must fix before anything runs (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read at all.
    #[error("{}: cannot read the file: {source}", path.display())]
    Read {
        /// The file that was asked for.
        path: PathBuf,
        /// Why reading failed.
        source: std::io::Error,
    },
    /// The file is not valid TOML, or its top level has the wrong shape.
    #[error("{}: {message}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// The parser's message, which gives the line and column.
        message: String,
    },
    /// The file is not UTF-8 text.
    #[error("{} is not UTF-8 (byte {byte}); save it as UTF-8 text", path.display())]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// The offset of the first byte that is not UTF-8, counted from 0.
        byte: usize,
    },
    /// A value does not fit its key's type or shape, or a key is unknown or missing; named
    /// by the key's path, e.g. `models[2].temperature`.
    #[error("{}, {key}: {message}{}\n  fix: {fix}", path.display(), in_parentheses(context))]
    Key {
        /// The file.
        path: PathBuf,
        /// The key's path from the top of the file (`models[2].temperature`).
        key: String,
        /// What is wrong (`expected a number, found a string`).
        message: String,
        /// Where: the line, and the entry when known; may be empty.
        context: String,
        /// What to do about it.
        fix: String,
    },
    /// One entry of the file is wrong.
    #[error("{}: {entry}: {message}\n  fix: {fix}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Which entry, e.g. `model "gpt-5" (entry 3), key "temperature"`.
        entry: String,
        /// What is wrong.
        message: String,
        /// What to do about it.
        fix: String,
    },
}

impl ConfigError {
    /// Builds an [`ConfigError::Invalid`] from its parts.
    pub fn invalid(
        path: impl Into<PathBuf>,
        entry: impl Into<String>,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        Self::Invalid {
            path: path.into(),
            entry: entry.into(),
            message: message.into(),
            fix: fix.into(),
        }
    }
}

/// ` (text)`, or nothing for empty text.
fn in_parentheses(text: &str) -> String {
    if text.is_empty() {
        String::new()
    } else {
        format!(" ({text})")
    }
}
