//! One writer per results folder: a second run on a folder another run is writing exits 2 at
//! once, naming the first; a run killed with `kill -9` leaves no lock behind.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::tournament::{sim, write};

fn bin(data: &std::path::Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.env_remove("ETHICS_BOWL_LOG");
    c.env("XDG_DATA_HOME", data);
    c
}

#[test]
fn a_second_run_on_a_folder_in_use_exits_2_and_a_killed_run_leaves_no_lock() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    // Slow streaming: the first run is still on its first calls while the second starts.
    let models = [
        sim("a", 0.8, 30.0, 0.0),
        sim("b", 0.5, 30.0, 0.0),
        sim("j", 0.5, 30.0, 0.0),
    ]
    .concat();
    let config = write(
        dir.path(),
        &models,
        "models = [\"a\", \"b\"]\njudges = [\"j\"]\ndilemmas = [\"borrowed_voice\"]\n",
    );
    let results = dir.path().join("results/test");
    let mut first = bin(&data)
        .args(["run", "--headless"])
        .arg(&config)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lock = results.join("ethics-bowl.lock");
    let pid = format!("pid {} on ", first.id());
    let started = Instant::now();
    while !std::fs::read_to_string(&lock).is_ok_and(|t| t.starts_with(&pid)) {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the first run never took the folder"
        );
        std::thread::sleep(Duration::from_millis(20));
    }

    let second = bin(&data)
        .args(["run", "--headless"])
        .arg(&config)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&second.stderr).into_owned();
    assert_eq!(second.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{} is in use by ethics-bowl ({pid}",
            results.display()
        )) && stderr.contains("wait for it to end or stop it"),
        "{stderr}"
    );
    // Nothing of the first run's was touched: no round the second played.
    assert!(first.try_wait().unwrap().is_none(), "the first run goes on");

    // `kill -9`: the system drops the lock with the process; the next run takes the folder
    // and finishes what the first began.
    first.kill().unwrap();
    first.wait().unwrap();
    std::fs::write(
        dir.path().join("models.toml"),
        std::fs::read_to_string(dir.path().join("models.toml"))
            .unwrap()
            .replace("tokens_per_second = 30", "tokens_per_second = 0"),
    )
    .unwrap();
    let third = bin(&data)
        .args(["run", "--headless"])
        .arg(&config)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&third.stderr).into_owned();
    assert_eq!(third.status.code(), Some(0), "{stderr}");
    let holder = std::fs::read_to_string(&lock).unwrap();
    assert!(
        !holder.starts_with(&pid),
        "the third run took the lock: {holder}"
    );
}
