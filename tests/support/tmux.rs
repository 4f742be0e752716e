//! The real binary in a real terminal: a tmux server of its own per test, driven by keys and
//! read back from its screen. Without tmux a test says so and passes, except under CI
//! (`CI=true`), where `.ci/run` installs it.

use std::process::Command;
use std::time::{Duration, Instant};

/// A tmux server running one command in one window.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// A tmux server of its own (tests run side by side) running `command` at 120×40.
    pub fn start(name: &str, command: &str) -> Self {
        let tmux = Tmux {
            socket: format!("eb-{name}-{}", std::process::id()),
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
            command,
        ]);
        tmux
    }

    /// Runs a tmux command against this server; returns what it printed.
    pub fn cmd(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
    /// What the window shows now.
    pub fn screen(&self) -> String {
        self.cmd(&["capture-pane", "-p", "-t", "e2e"])
    }
    /// Sends keys by name (`Enter`, `Escape`, `q`).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "e2e"];
        args.extend_from_slice(keys);
        self.cmd(&args);
    }
    /// Types text as it is.
    pub fn text(&self, text: &str) {
        self.cmd(&["send-keys", "-t", "e2e", "-l", text]);
    }
    /// Polls the screen until `needle` shows (or fails after a generous deadline).
    pub fn wait_for(&self, needle: &str) -> String {
        self.wait_until(needle, |screen| screen.contains(needle))
    }
    /// Polls the screen until `ready` holds for it (`what` names it in the failure).
    pub fn wait_until(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let screen = self.screen();
            if ready(&screen) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "waited for {what}; the screen shows:\n{screen}"
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

/// Whether tmux runs here (a failure under CI, where it must).
pub fn tmux_available() -> bool {
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
