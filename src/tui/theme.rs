//! Themes as data: one documented colour per role, read from `themes/*.toml` (built into the
//! binary) or from the user's config folder, which overrides a built-in theme of the same
//! name. `NO_COLOR` turns every colour off; symbols carry the meaning without colour.

use std::path::{Path, PathBuf};

use ratatui::style::Color;
use serde::Deserialize;

use crate::config::ConfigError;

/// The built-in themes, by name.
const BUILT_IN: [(&str, &str); 3] = [
    ("default", include_str!("../../themes/default.toml")),
    ("light", include_str!("../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.toml"),
    ),
];

/// The colours of the interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    /// Behind everything.
    pub background: Color,
    /// Ordinary text.
    pub text: Color,
    /// Secondary text (legends, timings).
    pub dim: Color,
    /// Titles and the cursor's frame.
    pub accent: Color,
    /// Borders.
    pub border: Color,
    /// The selected cell or line's background.
    pub selected: Color,
    /// A round not started.
    pub queued: Color,
    /// A round with a call under way.
    pub running: Color,
    /// A round waiting to retry.
    pub retrying: Color,
    /// A finished round.
    pub complete: Color,
    /// A round whose judgment needs a person.
    pub review: Color,
    /// A round stopped by an error.
    pub incomplete: Color,
    /// Team A's name and text.
    pub team_a: Color,
    /// Team B's name and text.
    pub team_b: Color,
    /// Behind a search match (see [`Theme::search_match`]).
    pub search_match: Color,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    background: String,
    text: String,
    dim: String,
    accent: String,
    border: String,
    selected: String,
    queued: String,
    running: String,
    retrying: String,
    complete: String,
    review: String,
    incomplete: String,
    team_a: String,
    team_b: String,
    /// Optional, so theme files written before search still load.
    #[serde(default)]
    search_match: Option<String>,
}

fn colour(value: &str) -> Option<Color> {
    if let Some(hex) = value.strip_prefix('#') {
        let n = u32::from_str_radix(hex, 16)
            .ok()
            .filter(|_| hex.len() == 6)?;
        return Some(Color::Rgb((n >> 16) as u8, (n >> 8) as u8, n as u8));
    }
    Some(match value {
        "reset" => Color::Reset,
        "black" => Color::Black,
        "red" => Color::Red,
        "green" => Color::Green,
        "yellow" => Color::Yellow,
        "blue" => Color::Blue,
        "magenta" => Color::Magenta,
        "cyan" => Color::Cyan,
        "gray" => Color::Gray,
        "dark_gray" => Color::DarkGray,
        "light_red" => Color::LightRed,
        "light_green" => Color::LightGreen,
        "light_yellow" => Color::LightYellow,
        "light_blue" => Color::LightBlue,
        "light_magenta" => Color::LightMagenta,
        "light_cyan" => Color::LightCyan,
        "white" => Color::White,
        _ => return None,
    })
}

/// Behind a search match when a theme file does not say.
const DEFAULT_SEARCH_MATCH: &str = "yellow";

impl Theme {
    /// How a search match is drawn: dark text on the match colour, or reversed when colours
    /// are off (so `NO_COLOR` still shows it).
    pub fn search_match(&self) -> ratatui::style::Style {
        use ratatui::style::{Modifier, Style};
        let style = Style::new().add_modifier(Modifier::BOLD);
        if self.search_match == Color::Reset {
            style.add_modifier(Modifier::REVERSED)
        } else {
            style.bg(self.search_match).fg(Color::Black)
        }
    }

    /// Every colour the terminal's own (for `NO_COLOR` and plain terminals).
    pub fn no_color() -> Self {
        let c = Color::Reset;
        Self {
            background: c,
            text: c,
            dim: c,
            accent: c,
            border: c,
            selected: c,
            queued: c,
            running: c,
            retrying: c,
            complete: c,
            review: c,
            incomplete: c,
            team_a: c,
            team_b: c,
            search_match: c,
        }
    }

    /// Parses a theme file's text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Self, ConfigError> {
        let f: ThemeFile = toml::from_str(text).map_err(|e: toml::de::Error| {
            ConfigError::invalid(
                path,
                "theme",
                e.message().trim(),
                "every colour key is required; see themes/default.toml",
            )
        })?;
        let get = |key: &str, value: &str| {
            colour(value).ok_or_else(|| {
                ConfigError::invalid(
                    path,
                    format!("key \"{key}\""),
                    format!("\"{value}\" is not a colour"),
                    "use a colour name such as \"light_blue\" or \"#rrggbb\"",
                )
            })
        };
        Ok(Self {
            background: get("background", &f.background)?,
            text: get("text", &f.text)?,
            dim: get("dim", &f.dim)?,
            accent: get("accent", &f.accent)?,
            border: get("border", &f.border)?,
            selected: get("selected", &f.selected)?,
            queued: get("queued", &f.queued)?,
            running: get("running", &f.running)?,
            retrying: get("retrying", &f.retrying)?,
            complete: get("complete", &f.complete)?,
            review: get("review", &f.review)?,
            incomplete: get("incomplete", &f.incomplete)?,
            team_a: get("team_a", &f.team_a)?,
            team_b: get("team_b", &f.team_b)?,
            search_match: get(
                "search_match",
                f.search_match.as_deref().unwrap_or(DEFAULT_SEARCH_MATCH),
            )?,
        })
    }

    /// The theme called `name`: the user's `themes/<name>.toml` if present, else a built-in
    /// one. With `no_color` (or `NO_COLOR` set), colourless whatever the name.
    pub fn load(name: &str, user_dir: Option<&Path>, no_color: bool) -> Result<Self, ConfigError> {
        if no_color {
            return Ok(Self::no_color());
        }
        if let Some(dir) = user_dir {
            let path: PathBuf = dir.join("themes").join(format!("{name}.toml"));
            if path.is_file() {
                let text = std::fs::read_to_string(&path).map_err(|source| ConfigError::Read {
                    path: path.clone(),
                    source,
                })?;
                return Self::parse(&text, &path);
            }
        }
        match BUILT_IN.iter().find(|(n, _)| *n == name) {
            Some((n, text)) => Self::parse(text, Path::new(&format!("themes/{n}.toml"))),
            None => Err(ConfigError::invalid(
                "--theme",
                format!("theme \"{name}\""),
                "no such theme",
                format!(
                    "use one of: {}, or add {name}.toml to your config folder's themes/",
                    BUILT_IN.map(|(n, _)| n).join(", ")
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_themes_load() {
        for (name, _) in BUILT_IN {
            assert!(Theme::load(name, None, false).is_ok(), "{name}");
        }
        assert_eq!(
            Theme::load("default", None, true).unwrap(),
            Theme::no_color()
        );
    }

    /// The WCAG relative luminance of a colour as xterm's default palette draws it (named
    /// colours) or as given (`#rrggbb`).
    fn luminance(c: Color) -> f64 {
        let (r, g, b) = match c {
            Color::Rgb(r, g, b) => (r, g, b),
            Color::Black => (0, 0, 0),
            Color::Red => (205, 0, 0),
            Color::Green => (0, 205, 0),
            Color::Yellow => (205, 205, 0),
            Color::Blue => (0, 0, 238),
            Color::Magenta => (205, 0, 205),
            Color::Cyan => (0, 205, 205),
            Color::Gray => (229, 229, 229),
            Color::DarkGray => (127, 127, 127),
            Color::LightRed => (255, 0, 0),
            Color::LightGreen => (0, 255, 0),
            Color::LightYellow => (255, 255, 0),
            Color::LightBlue => (92, 92, 255),
            Color::LightMagenta => (255, 0, 255),
            Color::LightCyan => (0, 255, 255),
            _ => (255, 255, 255),
        };
        let lin = |v: u8| {
            let v = f64::from(v) / 255.0;
            if v <= 0.039_28 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
    }

    /// The WCAG contrast ratio of two colours.
    fn contrast(a: Color, b: Color) -> f64 {
        let (la, lb) = (luminance(a), luminance(b));
        (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
    }

    #[test]
    fn the_light_theme_reads_on_white() {
        let t = Theme::load("light", None, false).unwrap();
        let white = Color::Rgb(255, 255, 255);
        // Text, including the dim text of column headings, titles, counts and key hints:
        // WCAG AA for normal text.
        for (role, c) in [
            ("text", t.text),
            ("dim", t.dim),
            ("accent", t.accent),
            ("queued", t.queued),
            ("running", t.running),
            ("retrying", t.retrying),
            ("complete", t.complete),
            ("review", t.review),
            ("incomplete", t.incomplete),
            ("team_a", t.team_a),
            ("team_b", t.team_b),
        ] {
            assert!(
                !matches!(c, Color::Gray | Color::White | Color::Reset),
                "{role} is {c:?}, which a light terminal draws pale or as its background"
            );
            let ratio = contrast(c, white);
            assert!(
                ratio >= 4.5,
                "{role} {c:?} has contrast {ratio:.2} on white"
            );
        }
        // Borders: WCAG's 3:1 for graphics.
        let ratio = contrast(t.border, white);
        assert!(ratio >= 3.0, "border has contrast {ratio:.2} on white");
        // The cursor's background behind black text.
        assert!(contrast(t.selected, Color::Black) >= 4.5);
    }

    #[test]
    fn a_theme_file_without_search_match_still_loads() {
        let older = include_str!("../../themes/default.toml")
            .lines()
            .filter(|l| !l.starts_with("search_match"))
            .collect::<Vec<_>>()
            .join("\n");
        let theme = Theme::parse(&older, Path::new("older.toml")).unwrap();
        assert_eq!(theme.search_match, Color::Yellow);
        assert!(
            Theme::no_color()
                .search_match()
                .add_modifier
                .contains(ratatui::style::Modifier::REVERSED),
            "without colours a match is reversed"
        );
    }

    #[test]
    fn user_themes_override_and_errors_name_file_and_key() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("themes")).unwrap();
        let custom = include_str!("../../themes/default.toml")
            .replace("accent = \"cyan\"", "accent = \"#ff0000\"");
        std::fs::write(dir.path().join("themes/default.toml"), custom).unwrap();
        assert_eq!(
            Theme::load("default", Some(dir.path()), false)
                .unwrap()
                .accent,
            Color::Rgb(255, 0, 0)
        );
        let bad = include_str!("../../themes/default.toml")
            .replace("accent = \"cyan\"", "accent = \"cyanish\"");
        std::fs::write(dir.path().join("themes/bad.toml"), bad).unwrap();
        let e = Theme::load("bad", Some(dir.path()), false)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("bad.toml") && e.contains("key \"accent\""),
            "{e}"
        );
        assert!(
            Theme::load("nope", None, false)
                .unwrap_err()
                .to_string()
                .contains("high-contrast")
        );
    }
}
