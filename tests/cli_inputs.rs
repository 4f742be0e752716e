//! Input the tool cannot use is refused with exit code 2 and a message that names its
//! source: text that is not UTF-8 (stdin or a file, with the first bad byte) and
//! configuration values of the wrong type (the file and the key's path).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.env_remove("ETHICS_BOWL_MODELS");
    c
}

/// Runs with `input` on stdin.
fn run_with_stdin(args: &[&str], input: &[u8]) -> (Output, String) {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stderr)
}

fn run(args: &[&str], file: &Path) -> (Output, String) {
    let out = bin().args(args).arg(file).output().expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stderr)
}

/// Latin-1 text: `é` is the single byte 0xE9, at offset 11.
const LATIN1: &[u8] = b"Scores: caf\xe9 | 8 |\n";

#[test]
fn stdin_that_is_not_utf8_is_named_with_its_first_bad_byte() {
    for args in [&["judgment", "parse", "-"][..], &["ask", "sim-alpha", "-"]] {
        let (out, stderr) = run_with_stdin(args, LATIN1);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("stdin is not UTF-8 (byte 11)"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("stream did not contain"), "{stderr}");
    }
}

#[test]
fn a_file_that_is_not_utf8_is_named_with_its_first_bad_byte() {
    let dir = tempfile::tempdir().unwrap();
    let judgment = dir.path().join("judge.txt");
    std::fs::write(&judgment, LATIN1).unwrap();
    let (out, stderr) = run(&["judgment", "parse"], &judgment);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("{} is not UTF-8 (byte 11)", judgment.display())),
        "{stderr}"
    );
    let models = dir.path().join("models.toml");
    std::fs::write(&models, b"# mod\xe8les\n[[models]]\n").unwrap();
    let (out, stderr) = run(&["models", "--config"], &models);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("{} is not UTF-8 (byte 5)", models.display())),
        "{stderr}"
    );
}

#[test]
fn a_value_of_the_wrong_type_is_named_by_file_and_key_path() {
    let dir = tempfile::tempdir().unwrap();
    let models = dir.path().join("models.toml");
    let entry = |name: &str, extra: &str| {
        format!("[[models]]\nname = \"{name}\"\nprovider = \"simulated\"\nmodel = \"m\"\n{extra}")
    };
    let text = [
        entry("a", ""),
        entry("b", ""),
        entry("c", "temperature = \"warm\"\n"),
    ]
    .concat();
    std::fs::write(&models, text).unwrap();
    let (out, stderr) = run(&["models", "--config"], &models);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}, models[2].temperature: expected a number, found a string (line 13, model \"c\")",
            models.display()
        )),
        "{stderr}"
    );

    let tournament = dir.path().join("tournament.toml");
    std::fs::write(
        &tournament,
        "name = \"t\"\nmodels_file = \"models.toml\"\nmodels = [\"a\", \"b\"]\nrepetitions = \"twice\"\n",
    )
    .unwrap();
    let (out, stderr) = run(&["run", "--headless"], &tournament);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}, repetitions: expected a whole number from 0 to 4294967295, found a string (line 4)",
            tournament.display()
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("the file (line"), "{stderr}");
}
