//! The tool as an installed binary sees it: run from a folder with no `sample-config/` beside
//! it, it says how to start; `init` writes the sample configuration, which then runs from
//! there (each protocol's sample, its paths read relative to the written files); `init`
//! refuses to overwrite unless `--force`; completions and the manual page come from the
//! command line's definition.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The binary, run in `cwd`, its log and config folders kept inside `cwd`.
fn bin(cwd: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"));
    c.current_dir(cwd)
        .env("XDG_DATA_HOME", cwd.join(".xdg-data"))
        .env("XDG_CONFIG_HOME", cwd.join(".xdg-config"))
        .env_remove("ETHICS_BOWL_MODELS");
    c
}

fn output(c: &mut Command) -> (Output, String, String) {
    let out = c.output().expect("runs");
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    (out, o, e)
}

/// The files of the source checkout's `sample-config/`, by name.
fn sample_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-config");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() > 5, "{files:?}");
    files
}

/// The written models stream as fast as they can: the rate does not change what they say,
/// so the rounds are the sample's, in a fraction of the time.
fn fast_models(dir: &Path) {
    let path = dir.join("models.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let fast: Vec<String> = text
        .lines()
        .map(|l| {
            if l.trim_start().starts_with("tokens_per_second") {
                "tokens_per_second = 0".to_string()
            } else {
                l.to_string()
            }
        })
        .collect();
    assert_ne!(
        fast.join("\n"),
        text.trim_end(),
        "the sample models have a rate"
    );
    std::fs::write(&path, fast.join("\n")).unwrap();
}

#[test]
fn with_no_tournament_file_it_says_how_to_start() {
    let dir = tempfile::tempdir().unwrap();
    for args in [&[][..], &["run"][..], &["run", "--headless"][..]] {
        let (out, stdout, stderr) = output(bin(dir.path()).args(args));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stdout}{stderr}");
        assert!(
            stderr.contains("no tournament file here") && stderr.contains("ethics-bowl init"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("cannot read"), "{stderr}");
    }
    // Nothing written: no results folder.
    assert!(!dir.path().join("results").exists());
}

#[test]
fn init_writes_the_sample_and_each_protocol_runs_from_it() {
    let cwd = tempfile::tempdir().unwrap();
    let (out, stdout, stderr) = output(bin(cwd.path()).args(["init", "my sample"]));
    assert!(out.status.success(), "{stderr}");
    let written = cwd.path().join("my sample");
    for file in sample_files() {
        let name = file.file_name().unwrap();
        assert_eq!(
            std::fs::read(written.join(name)).unwrap(),
            std::fs::read(&file).unwrap(),
            "{name:?}"
        );
        assert!(stdout.contains(&*name.to_string_lossy()), "{stdout}");
    }
    assert!(
        stdout.contains("ethics-bowl run 'my sample/tournament.toml'"),
        "the next command, quoted: {stdout}"
    );

    // Paths in the written files are read relative to them, from another folder.
    fast_models(&written);
    for (file, rounds) in [
        ("tournament.toml", "42 rounds:"),
        ("qa-debate.toml", "288 rounds:"),
        ("structured-debate.toml", "24 rounds:"),
    ] {
        let (out, stdout, stderr) = output(
            bin(cwd.path())
                .args(["run", "--headless"])
                .arg(Path::new("my sample").join(file)),
        );
        assert!(out.status.success(), "{file}: {stderr}");
        assert!(stdout.contains(rounds), "{file}: {stdout}");
    }
    // output_dir is relative to where the run starts.
    assert!(cwd.path().join("results/sample/tournament.json").is_file());
}

#[test]
fn with_no_argument_it_runs_the_tournament_file_here() {
    let cwd = tempfile::tempdir().unwrap();
    let (out, stdout, stderr) = output(bin(cwd.path()).arg("init"));
    assert!(out.status.success(), "{stderr}");
    assert!(
        stdout.contains("ethics-bowl run tournament.toml"),
        "{stdout}"
    );
    fast_models(cwd.path());
    // One dilemma keeps it short: six ordered pairings.
    let path = cwd.path().join("tournament.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let one = text.replace("dilemmas = \"all\"", "dilemmas = [\"borrowed_voice\"]");
    assert_ne!(one, text);
    std::fs::write(&path, one).unwrap();
    let (out, stdout, stderr) = output(bin(cwd.path()).args(["run", "--headless"]));
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("6 rounds:"), "{stdout}");
    assert!(cwd.path().join("results/sample").is_dir());
    // The models file here is the one `models` lists.
    let (out, stdout, stderr) = output(bin(cwd.path()).arg("models"));
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("sim-delta"), "{stdout}");
}

#[test]
fn init_refuses_to_overwrite_unless_forced() {
    let cwd = tempfile::tempdir().unwrap();
    assert!(
        bin(cwd.path())
            .arg("init")
            .output()
            .unwrap()
            .status
            .success()
    );
    let tournament = cwd.path().join("tournament.toml");
    std::fs::write(&tournament, "# mine\n").unwrap();
    std::fs::remove_file(cwd.path().join("topics.toml")).unwrap();

    let (out, stdout, stderr) = output(bin(cwd.path()).args(["init", "."]));
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    assert!(
        stderr.contains("tournament.toml")
            && stderr.contains("models.toml")
            && stderr.contains("--force"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("topics.toml"),
        "lists only what is there: {stderr}"
    );
    assert_eq!(std::fs::read_to_string(&tournament).unwrap(), "# mine\n");
    assert!(!cwd.path().join("topics.toml").exists(), "nothing written");

    let (out, _, stderr) = output(bin(cwd.path()).args(["init", "--force"]));
    assert!(out.status.success(), "{stderr}");
    assert!(
        std::fs::read_to_string(&tournament)
            .unwrap()
            .contains("name = \"sample\"")
    );
    assert!(cwd.path().join("topics.toml").is_file());

    // A file where the folder should be.
    let (out, _, stderr) = output(bin(cwd.path()).args(["init", "tournament.toml"]));
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("not a folder"), "{stderr}");
}

#[test]
fn completions_name_every_subcommand() {
    let cwd = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let (out, stdout, stderr) = output(bin(cwd.path()).args(["completions", shell]));
        assert!(out.status.success(), "{shell}: {stderr}");
        for sub in [
            "run",
            "init",
            "completions",
            "man",
            "report",
            "rejudge",
            "dilemmas",
        ] {
            assert!(stdout.contains(sub), "{shell} lacks {sub}");
        }
    }
    let (out, _, stderr) = output(bin(cwd.path()).args(["completions", "tcsh"]));
    assert_eq!(out.status.code(), Some(2), "{stderr}");
}

#[test]
fn the_manual_page_is_roff_and_one_page_per_command() {
    let cwd = tempfile::tempdir().unwrap();
    let (out, stdout, stderr) = output(bin(cwd.path()).arg("man"));
    assert!(out.status.success(), "{stderr}");
    // clap_mangen opens with two lines defining a quote string, then the title.
    let title = stdout
        .lines()
        .find(|l| !l.starts_with(".ie") && !l.starts_with(".el"))
        .unwrap();
    assert!(title.starts_with(".TH ethics-bowl 1"), "{title}");
    assert!(stdout.contains("init") && stdout.contains("completions"));

    let (out, stdout, stderr) = output(bin(cwd.path()).args(["man", "--out", "man"]));
    assert!(out.status.success(), "{stderr}");
    for page in [
        "ethics-bowl.1",
        "ethics-bowl-run.1",
        "ethics-bowl-init.1",
        "ethics-bowl-dilemmas-convert.1",
    ] {
        let text = std::fs::read_to_string(cwd.path().join("man").join(page)).unwrap();
        assert!(text.contains(".TH ethics-bowl"), "{page}");
        assert!(stdout.contains(page), "{stdout}");
    }
}
