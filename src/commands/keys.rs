//! `ethics-bowl keys`: the terminal UI's keys as a `keys.toml` to start from, and where the
//! UI finds the user's own (`ETHICS_BOWL_KEYS`, else `keys.toml` in the user config folder).

use std::path::PathBuf;

use ethics_bowl::config::ConfigError;
use ethics_bowl::tui::keymap::Keymap;
use ethics_bowl::tui::user_keys::{self, template};

/// The variable naming a keys file to use instead of the user config folder's.
pub const KEYS_ENV: &str = "ETHICS_BOWL_KEYS";

/// Prints the keys in force as a `keys.toml` (the user's file checked and applied), or the
/// defaults with `default`.
pub fn run(default: bool) -> anyhow::Result<()> {
    let keymap = if default { Keymap::default() } else { load()? };
    let place = user_file().map_or_else(
        || format!("keys.toml in your config folder (or set {KEYS_ENV})"),
        |p| p.display().to_string(),
    );
    print!("{}", template::render(&keymap, &place));
    Ok(())
}

/// The user's keys: the file `ETHICS_BOWL_KEYS` names (which must exist), else the config
/// folder's `keys.toml` when there is one, else the defaults. Read before the UI takes the
/// terminal, so a mistake is an ordinary error (exit code 2).
pub fn load() -> Result<Keymap, ConfigError> {
    if let Some(path) = std::env::var_os(KEYS_ENV).filter(|v| !v.is_empty()) {
        return user_keys::load(&PathBuf::from(path));
    }
    match user_file() {
        Some(path) if path.is_file() => user_keys::load(&path),
        _ => Ok(Keymap::default()),
    }
}

/// Where the user's keys file goes: `keys.toml` in the user config folder
/// (`$XDG_CONFIG_HOME/ethics-bowl`, else `~/.config/ethics-bowl` on Linux).
fn user_file() -> Option<PathBuf> {
    super::user_config_dir().map(|d| d.join("keys.toml"))
}
