//! `ethics-bowl keys` and the user's keys.toml as the binary reads them: the printed file,
//! a rebinding it shows, and a mistaken file refused with exit code 2 naming the file, the
//! entry and its line, before the UI takes the terminal.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::Path;
use std::process::Command;

fn bin(keys: Option<&Path>) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.env(
        "XDG_DATA_HOME",
        std::env::temp_dir().join("ethics-bowl-test-data"),
    );
    // Never the tester's own keys.
    c.env(
        "XDG_CONFIG_HOME",
        std::env::temp_dir().join("ethics-bowl-test-config"),
    );
    match keys {
        Some(path) => c.env("ETHICS_BOWL_KEYS", path),
        None => c.env_remove("ETHICS_BOWL_KEYS"),
    };
    c
}

fn run(c: &mut Command) -> (Option<i32>, String, String) {
    let out = c.output().expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn keys_prints_every_action_and_the_users_keys() {
    let (code, out, err) = run(bin(None).args(["keys", "--default"]));
    assert_eq!(code, Some(0), "{err}");
    for line in [
        "# retry = \"r\"",
        "# next_round = \"]\"",
        "# quit = \"q\"",
        "# help = \"?\"",
    ] {
        assert!(out.contains(line), "{line} missing:\n{out}");
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("keys.toml");
    std::fs::write(&file, "retry = \"x\"\n").unwrap();
    let (code, out, err) = run(bin(Some(&file)).arg("keys"));
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("\nretry = \"x\"\n") && out.contains("# help = \"?\""),
        "{out}"
    );
}

#[test]
fn a_mistaken_keys_file_exits_2_naming_file_entry_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("keys.toml");
    std::fs::write(&file, "retry = \"x\"\nnext_rund = \"}\"\n").unwrap();
    let (code, _, err) = run(bin(Some(&file)).arg("keys"));
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(&file.display().to_string())
            && err.contains("next_rund")
            && err.contains("line 2")
            && err.contains("next_round"),
        "{err}"
    );
    // `open` says it before reading the folder or asking for a terminal.
    std::fs::write(&file, "retry = \"v\"\n").unwrap();
    let (code, _, err) =
        run(bin(Some(&file)).args(["open", "tests/fixtures/stored-v0/ethics_bowl"]));
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("keys.toml, retry: v would both retry and review in the matrix (line 1)"),
        "{err}"
    );
    // A file ETHICS_BOWL_KEYS names must be there.
    let missing = dir.path().join("none.toml");
    let (code, _, err) = run(bin(Some(&missing)).arg("keys"));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("none.toml"), "{err}");
}
