//! Which commit the tool was built from, for `tournament.json` (`tool.commit` and
//! `tool.dirty`): set as `ETHICS_BOWL_GIT_COMMIT` (40 hex digits, or `unknown`) and
//! `ETHICS_BOWL_GIT_DIRTY` (`true`, `false` or `unknown`) for `env!` in `src/build_info.rs`.
//!
//! Where it comes from, first found first:
//! 1. `.cargo_vcs_info.json`, which `cargo package` writes into a crate tarball (the commit it
//!    was packaged from, and whether the tree was dirty);
//! 2. `git rev-parse HEAD` and `git status --porcelain` in the crate's folder;
//! 3. `unknown`: no git, no repository (a tarball without the file, a copy of the sources).
//!
//! It never fails the build: every failure is the fallback.
//!
//! When it runs again: when HEAD moves (`.git/HEAD`, and the branch file it points to, or
//! `packed-refs` when the branch is packed; found with `git rev-parse --git-path`, so a
//! linked worktree's own files are watched), and when the sources change (`src`, `build.rs`,
//! `Cargo.toml`), since only then can the tree's dirtiness change the binary. A change of the
//! sources recompiles the crate anyway; `.git/index` is not watched (`git status` rewrites it,
//! which would rerun this script on every build).
//!
//! Why not a crate: `vergen-gitcl` brings `vergen`, `vergen-lib`, `bon` or `derive_builder`
//! and `time` into the lock file for two strings; `built` reads the commit only through
//! `git2`, a C library to compile; `git-version` gives `git describe`'s one string (a tag
//! when there is one) and recompiles on every change of `.git/index`. This file is ~100
//! lines of `std`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=Cargo.toml");
    println!("cargo:rerun-if-changed=src");
    let vcs_info = manifest.join(".cargo_vcs_info.json");
    let (commit, dirty) = if vcs_info.is_file() {
        println!("cargo:rerun-if-changed=.cargo_vcs_info.json");
        from_vcs_info(&vcs_info)
    } else {
        from_git(&manifest)
    };
    println!("cargo:rustc-env=ETHICS_BOWL_GIT_COMMIT={commit}");
    println!("cargo:rustc-env=ETHICS_BOWL_GIT_DIRTY={dirty}");
}

/// The commit and dirtiness `cargo package` recorded, as far as they can be read.
fn from_vcs_info(path: &Path) -> (String, &'static str) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let commit = value_after(&text, "\"sha1\"")
        .filter(|s| is_commit(s))
        .unwrap_or_else(|| "unknown".into());
    let dirty = match value_after(&text, "\"dirty\"").as_deref() {
        Some("true") => "true",
        // `cargo package` leaves the key out when the tree was clean.
        _ if commit != "unknown" => "false",
        _ => "unknown",
    };
    (commit, dirty)
}

/// The JSON value after `key` (a string's contents, or a bare word), without a JSON parser.
fn value_after(text: &str, key: &str) -> Option<String> {
    let rest = text[text.find(key)? + key.len()..].trim_start();
    let rest = rest.strip_prefix(':')?.trim_start();
    let value = match rest.strip_prefix('"') {
        Some(quoted) => &quoted[..quoted.find('"')?],
        None => rest
            .split(|c: char| c == ',' || c == '}' || c.is_whitespace())
            .next()?,
    };
    Some(value.to_string())
}

fn is_commit(s: &str) -> bool {
    s.len() == 40 && s.chars().all(|c| c.is_ascii_hexdigit())
}

/// The commit and dirtiness git reports, with the files that say when HEAD moves watched.
fn from_git(dir: &Path) -> (String, &'static str) {
    let Some(commit) = git(dir, &["rev-parse", "HEAD"]).filter(|s| is_commit(s)) else {
        return ("unknown".into(), "unknown");
    };
    for file in watched(dir) {
        println!("cargo:rerun-if-changed={}", file.display());
    }
    let dirty = match git(dir, &["--no-optional-locks", "status", "--porcelain"]) {
        Some(s) if s.is_empty() => "false",
        Some(_) => "true",
        None => "unknown",
    };
    (commit, dirty)
}

/// HEAD's file and the file of the branch it names (or `packed-refs`), those that exist: a
/// path that does not exist would make cargo run this script on every build.
fn watched(dir: &Path) -> Vec<PathBuf> {
    let path = |name: &str| {
        git(dir, &["rev-parse", "--git-path", name])
            .map(|p| dir.join(p))
            .filter(|p| p.is_file())
    };
    let mut files: Vec<PathBuf> = path("HEAD").into_iter().collect();
    if let Some(branch) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        files.extend(path(&branch).or_else(|| path("packed-refs")));
    }
    files
}

/// A git command's trimmed output, when git ran and succeeded.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}
