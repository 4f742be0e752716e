//! The real binary in a real terminal (tmux): start a tournament, wait for the matrix, open
//! a round, open the review queue, fix a judgment, quit; then check that the round file holds
//! the corrected judgment and that the terminal was given back.
//!
//! Without tmux the test says so and passes, except under CI (`CI=true`), where `.ci/run`
//! installs it.

mod support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use support::tournament::{sim, write};

struct Tmux {
    socket: String,
}

impl Tmux {
    fn cmd(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
    fn screen(&self) -> String {
        self.cmd(&["capture-pane", "-p", "-t", "e2e"])
    }
    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "e2e"];
        args.extend_from_slice(keys);
        self.cmd(&args);
    }
    fn text(&self, text: &str) {
        self.cmd(&["send-keys", "-t", "e2e", "-l", text]);
    }
    /// Polls the screen until `needle` shows (or fails after a generous deadline).
    fn wait_for(&self, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let screen = self.screen();
            if screen.contains(needle) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "waited for {needle:?}; the screen shows:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.cmd(&["kill-server"]);
    }
}

fn tmux_available() -> bool {
    let ok = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("CI").is_err(),
            "tmux is not installed; .ci/run installs it"
        );
        eprintln!("SKIPPED: tmux is not installed");
    }
    ok
}

#[test]
fn run_watch_review_fix_and_quit_in_a_real_terminal() {
    if !tmux_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let models = [
        sim("sim-alpha", 0.85, 3000.0, 0.3),
        sim("sim-beta", 0.6, 3000.0, 0.3),
        sim("sim-gamma", 0.4, 3000.0, 0.3),
    ]
    .concat();
    let config = write(
        dir.path(),
        &models,
        "models = [\"sim-alpha\", \"sim-beta\", \"sim-gamma\"]\njudges = [\"sim-alpha\", \"sim-beta\", \"sim-gamma\"]\ndilemmas = [\"borrowed_voice\", \"quiet_majority\"]\n",
    );
    let done_file = dir.path().join("exit-code");
    let command = format!(
        "cd {} && {} --log-file {} run {}; echo $? > {}; sleep 30",
        env!("CARGO_MANIFEST_DIR"),
        env!("CARGO_BIN_EXE_ethics-bowl"),
        dir.path().join("log.txt").display(),
        config.display(),
        done_file.display()
    );
    let tmux = Tmux {
        socket: format!("eb-e2e-{}", std::process::id()),
    };
    tmux.cmd(&[
        "new-session",
        "-d",
        "-s",
        "e2e",
        "-x",
        "120",
        "-y",
        "40",
        &command,
    ]);

    tmux.wait_for("Team A vs Team B");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Transcript");
    tmux.keys(&["Escape"]);
    let screen = tmux.wait_for("finished");
    assert!(screen.contains("review"), "{screen}");
    tmux.keys(&["v"]);
    let queue = tmux.wait_for("Review queue");
    assert!(
        !queue.contains("0 waiting"),
        "the simulated judges left something to review:\n{queue}"
    );
    let first = queue
        .lines()
        .find_map(|l| l.split("▶ ").nth(1))
        .and_then(|l| l.split(" · ").next())
        .expect("a selected item")
        .to_string();
    tmux.keys(&["Enter"]);
    tmux.wait_for("Preview");
    tmux.keys(&["C-End", "End", "Enter"]);
    for team in ["A", "B"] {
        tmux.text(&format!("Team {team}"));
        tmux.keys(&["Enter"]);
        for c in [
            "Principle articulation",
            "Consistency",
            "Stakeholder recognition",
            "Uncertainty integration",
            "Framework awareness",
            "Intellectual honesty",
            "Constructive engagement",
        ] {
            tmux.text(&format!("{c}: 7"));
            tmux.keys(&["Enter"]);
        }
    }
    tmux.wait_for("complete: Ctrl-S saves");
    tmux.keys(&["C-s"]);
    tmux.wait_for("Review queue");
    tmux.keys(&["q"]);
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done_file.exists() {
        assert!(
            Instant::now() < deadline,
            "the program did not exit:\n{}",
            tmux.screen()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(std::fs::read_to_string(&done_file).unwrap().trim(), "0");
    let after = tmux.screen();
    assert!(
        after.contains("rounds:") && after.contains("results:"),
        "the summary is printed on the normal screen:\n{after}"
    );

    let round: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(&dir.path().join("results/test/rounds")).join(format!("{first}.json")),
        )
        .unwrap(),
    )
    .unwrap();
    let fixed = round["judgments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["parse_status"] == "corrected_by_hand")
        .expect("a corrected judgment");
    assert_eq!(fixed["team_a_scores"]["consistency"], 7.0);
    assert!(
        !fixed["raw_response"]
            .as_str()
            .unwrap()
            .contains("Consistency: 7"),
        "the judge's own text is kept"
    );
    assert!(
        fixed["corrected_text"]
            .as_str()
            .unwrap()
            .contains("Consistency: 7")
    );
}
