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
