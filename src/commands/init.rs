//! `ethics-bowl init [DIR]`: writes the sample configuration into a folder, so an installed
//! binary (which has no `sample-config/` beside it) can start from the same files a source
//! checkout has. The files are built into the binary; the paths inside them are relative to
//! the tournament file, so they work wherever the folder is.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::UsageError;

/// One file of `sample-config/`, as built into the binary.
pub struct SampleFile {
    /// Its name, in `sample-config/` and in the folder written.
    pub name: &'static str,
    /// What it is, for the listing `init` prints.
    pub about: &'static str,
    /// Its bytes.
    pub bytes: &'static [u8],
}

macro_rules! sample {
    ($name:literal, $about:literal) => {
        SampleFile {
            name: $name,
            about: $about,
            bytes: include_bytes!(concat!("../../sample-config/", $name)),
        }
    };
}

/// Every file of `sample-config/` (a test checks that none is missing), the tournament
/// first.
pub const FILES: &[SampleFile] = &[
    sample!(
        "tournament.toml",
        "the sample Ethics Bowl: three simulated models, seven dilemmas"
    ),
    sample!(
        "models.toml",
        "the models: simulated ones, and how to add real ones"
    ),
    sample!("dilemmas.docx", "the dilemma document the tournament reads"),
    sample!("dilemmas.md", "the same dilemmas as Markdown, to edit"),
    sample!("panel.toml", "the Ethics Bowl judged by a panel"),
    sample!(
        "qa-debate.toml",
        "question-answer debate on BoardgameQA items"
    ),
    sample!("qa-panel.toml", "question-answer debate judged by a panel"),
    sample!(
        "qa-sample.json",
        "the BoardgameQA items the QA samples read"
    ),
    sample!(
        "structured-debate.toml",
        "structured debate on practical decisions"
    ),
    sample!(
        "structured-panel.toml",
        "structured debate judged by a panel"
    ),
    sample!("topics.toml", "the structured debates' topics"),
    sample!(
        "rejudge-panel.toml",
        "a panel for `rejudge` on Ethics Bowl results"
    ),
    sample!(
        "rejudge-qa-panel.toml",
        "a panel for `rejudge` on question-answer results"
    ),
    sample!(
        "rejudge-structured-panel.toml",
        "a panel for `rejudge` on structured-debate results"
    ),
    sample!(
        "local-llm.toml",
        "models served on your own machine (docs/local-servers.md)"
    ),
    sample!(
        "local-llm-tournament.toml",
        "the smallest tournament against those local models"
    ),
];

/// Writes [`FILES`] into `dir` (created if missing). Files already there are refused, all
/// named and nothing written (exit 2), unless `force`.
pub fn run(dir: &Path, force: bool) -> anyhow::Result<()> {
    if dir.exists() && !dir.is_dir() {
        return Err(UsageError(format!(
            "{} exists and is not a folder; give a folder to write the sample into",
            dir.display()
        ))
        .into());
    }
    let existing: Vec<PathBuf> = FILES
        .iter()
        .map(|f| dir.join(f.name))
        .filter(|p| p.symlink_metadata().is_ok())
        .collect();
    if !existing.is_empty() && !force {
        let mut text = format!(
            "{} already holds {} of the sample's files; nothing was written:",
            dir.display(),
            existing.len()
        );
        for p in &existing {
            let _ = write!(text, "\n  {}", p.display());
        }
        text.push_str(
            "\nAdd --force to overwrite them, or choose another folder: ethics-bowl init DIR",
        );
        return Err(UsageError(text).into());
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let width = FILES.iter().map(|f| f.name.len()).max().unwrap_or(0);
    println!("Wrote the sample configuration into {}:", dir.display());
    for f in FILES {
        let path = dir.join(f.name);
        std::fs::write(&path, f.bytes)
            .with_context(|| format!("cannot write {}", path.display()))?;
        println!("  {:width$}  {}", f.name, f.about);
    }
    let tournament = if dir == Path::new(".") || dir.as_os_str().is_empty() {
        PathBuf::from("tournament.toml")
    } else {
        dir.join("tournament.toml")
    };
    println!();
    println!("Next, play the sample (simulated models: no network, no keys):");
    println!("  ethics-bowl run {}", shell_word(&tournament));
    println!(
        "Results go to results/sample/ under the folder you run from. Add a real model: see the \
         comments in models.toml."
    );
    Ok(())
}

/// A path as one shell word: quoted when it holds anything a shell would split or expand.
fn shell_word(path: &Path) -> String {
    let text = path.display().to_string();
    let plain = text
        .chars()
        .all(|c| c.is_alphanumeric() || "/._-+,:@%".contains(c));
    if plain && !text.is_empty() {
        text
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sample_file_is_built_in() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-config");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        on_disk.sort();
        let mut built_in: Vec<String> = FILES.iter().map(|f| f.name.to_string()).collect();
        built_in.sort();
        assert_eq!(built_in, on_disk, "add the new sample file to init::FILES");
    }

    #[test]
    fn paths_with_spaces_are_quoted() {
        assert_eq!(shell_word(Path::new("a/b.toml")), "a/b.toml");
        assert_eq!(shell_word(Path::new("my dir/t.toml")), "'my dir/t.toml'");
        assert_eq!(shell_word(Path::new("it's")), r"'it'\''s'");
    }
}
