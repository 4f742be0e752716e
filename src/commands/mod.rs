//! One module per subcommand; each returns `anyhow::Result`, and `main` turns errors into
//! exit codes (`crate::exit_codes`: 2 for usage and configuration, 1 for calls that
//! failed); `json` prints what every `--json` prints.

pub mod annotate;
pub mod annotations;
pub mod ask;
pub mod batch_lines;
pub mod compare;
pub mod completions;
pub mod dilemmas;
pub mod export;
pub mod init;
pub mod json;
pub mod judgment;
pub mod keys;
pub mod man;
pub mod models;
pub mod open;
pub mod plan;
pub mod rejudge;
pub mod report;
pub mod rounds;
pub mod run;

use std::io::Read;
use std::path::{Path, PathBuf};

use ethics_bowl::config::ModelsConfig;

/// A mistake in how the command was called (exit code 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Reads a text input: the file, or stdin for `-`. Bytes that are not UTF-8 are refused
/// with the source's name and the offset of the first bad byte (counted from 0), so the
/// user knows what to fix and where.
pub fn read_input(path: &Path) -> Result<String, UsageError> {
    let (name, bytes) = if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| UsageError(format!("cannot read stdin: {e}")))?;
        ("stdin".to_string(), bytes)
    } else {
        let name = path.display().to_string();
        let bytes =
            std::fs::read(path).map_err(|e| UsageError(format!("{name}: cannot read: {e}")))?;
        (name, bytes)
    };
    String::from_utf8(bytes).map_err(|e| {
        UsageError(format!(
            "{name} is not UTF-8 (byte {}); save it as UTF-8 text",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// The models file to use: the one given, else the user's own, else `./models.toml` (as
/// `ethics-bowl init` writes it), else the source checkout's sample.
pub fn models_path(given: Option<&Path>) -> PathBuf {
    if let Some(path) = given {
        return path.to_path_buf();
    }
    if let Some(dirs) = directories::ProjectDirs::from("", "", "ethics-bowl") {
        let user = dirs.config_dir().join("models.toml");
        if user.is_file() {
            return user;
        }
    }
    let here = PathBuf::from("models.toml");
    if here.is_file() {
        return here;
    }
    PathBuf::from("sample-config/models.toml")
}

/// Loads the models file chosen by [`models_path`].
pub fn load_models(given: Option<&Path>) -> Result<ModelsConfig, ethics_bowl::config::ConfigError> {
    ModelsConfig::load(&models_path(given))
}

/// Where log lines go while the terminal UI owns the screen: the user's data folder.
pub fn default_log_file() -> Option<PathBuf> {
    let dirs = directories::ProjectDirs::from("", "", "ethics-bowl")?;
    std::fs::create_dir_all(dirs.data_dir()).ok()?;
    Some(dirs.data_dir().join("ethics-bowl.log"))
}

/// The user's config folder (user themes live in its `themes/`).
pub fn user_config_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "ethics-bowl").map(|d| d.config_dir().to_path_buf())
}

/// The UI theme called `name`, honouring `NO_COLOR` and the user's own themes.
pub fn theme(name: &str) -> Result<ethics_bowl::tui::Theme, ethics_bowl::config::ConfigError> {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    ethics_bowl::tui::Theme::load(name, user_config_dir().as_deref(), no_color)
}

/// The rounds stored in a results folder (ours or the predecessor's), warning on stderr
/// about files that cannot be read.
pub fn stored_rounds(
    dir: &Path,
) -> Result<(ethics_bowl::store::Store, Vec<ethics_bowl::domain::Round>), UsageError> {
    let store = ethics_bowl::store::Store::open(dir).map_err(|e| UsageError(e.to_string()))?;
    remember_keys(&store);
    let (rounds, errors) = store
        .load_rounds(&ethics_bowl::store::RoundFilter::default())
        .map_err(|e| UsageError(e.to_string()))?;
    for e in &errors {
        eprintln!("warning: {e}");
    }
    mention_set_aside(&store);
    Ok((store, rounds))
}

/// Remembers the keys of the models a folder's tournament names, as far as their variables
/// are set here, before its rounds are read: every round read is redacted with them (see
/// `ethics_bowl::redact`), so a file an older build wrote with a key in it shows none.
pub fn remember_keys(store: &ethics_bowl::store::Store) {
    if let Ok(Some(tournament)) = store.load_tournament() {
        ethics_bowl::redact::remember_env(tournament.models.iter().filter_map(|m| m.key_env()));
    }
}

/// Says on stderr which round files earlier runs set aside as unreadable, so a listing or
/// report never leaves them out silently.
pub fn mention_set_aside(store: &ethics_bowl::store::Store) {
    let files = store.set_aside_files();
    if !files.is_empty() {
        eprintln!(
            "note: {} unreadable round file{} set aside by earlier runs (not counted here):",
            files.len(),
            if files.len() == 1 { "" } else { "s" }
        );
        for f in files {
            eprintln!("  {}", f.display());
        }
    }
}
