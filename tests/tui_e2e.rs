//! The real binary in a real terminal (tmux): start a tournament, wait for the matrix, open
//! a round, open the review queue, fix a judgment, quit; then check that the round file holds
//! the corrected judgment and that the terminal was given back. And a resumed run: quit
//! mid-run, start again, and check that what the first session stored shows (margins, every
//! item waiting for review, the header saying the run was resumed). And retrying after a
//! run ended: a model that fails every call leaves failed rounds; with the models file
//! fixed, `r` on a failed cell runs it again (queued, running, done), and in `open` the
//! header says what is being retried.
//!
//! And judging blind (`annotate`): three rounds of a sample of five judged at the keyboard
//! with no model's name or judge's score on screen, quit, resumed at the fourth, finished;
//! then opened again, `[` back to the last round, a score changed and saved again; the files
//! hold what was typed.
//!
//! Without tmux the test says so and passes, except under CI (`CI=true`), where `.ci/run`
//! installs it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use ethics_bowl::domain::{Round, RoundStatus};
use ethics_bowl::engine::waiting;
use ethics_bowl::store::{RoundFilter, Store};
use support::tmux::{Tmux, tmux_available};
use support::tournament::{sim, write};

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
    let tmux = Tmux::start("e2e", &command);

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
    assert_eq!(wait_exit(&tmux, &done_file), "0");
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

/// Waits until the command wrote its exit code to `file`; returns it.
fn wait_exit(tmux: &Tmux, file: &Path) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !file.exists() {
        assert!(
            Instant::now() < deadline,
            "the program did not exit:\n{}",
            tmux.screen()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // The shell may have created the file and not yet written it.
    std::thread::sleep(Duration::from_millis(100));
    std::fs::read_to_string(file).unwrap().trim().to_string()
}

/// Every round stored so far.
fn stored(results: &Path) -> Vec<Round> {
    let (rounds, errors) = Store::open(results)
        .unwrap()
        .load_rounds(&RoundFilter::default())
        .unwrap();
    assert!(errors.is_empty(), "{errors:?}");
    rounds
}

/// The matrix's rows (a pairing and its cells).
fn matrix_rows(screen: &str) -> impl Iterator<Item = &str> {
    screen.lines().filter(|l| l.contains(" vs "))
}

/// The matrix cells showing a finished round: `✓` with its margin, and bare `✓`.
fn done_cells(screen: &str) -> (usize, usize) {
    let mut with_margin = 0;
    let mut bare = 0;
    for cell in matrix_rows(screen).flat_map(|row| row.split('✓').skip(1)) {
        match cell.chars().next() {
            Some('+' | '-') => with_margin += 1,
            _ => bare += 1,
        }
    }
    (with_margin, bare)
}

/// The matrix cells of rounds waiting for review.
fn review_cells(screen: &str) -> usize {
    matrix_rows(screen)
        .map(|row| row.matches("?rev").count())
        .sum()
}

#[test]
fn a_resumed_run_shows_what_the_first_session_stored() {
    if !tmux_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let models = [
        sim("sim-alpha", 0.85, 400.0, 0.4),
        sim("sim-beta", 0.6, 400.0, 0.4),
        sim("sim-gamma", 0.4, 400.0, 0.4),
    ]
    .concat();
    let config = write(
        dir.path(),
        &models,
        "models = [\"sim-alpha\", \"sim-beta\", \"sim-gamma\"]\njudges = [\"sim-alpha\", \"sim-beta\", \"sim-gamma\"]\nmax_concurrency = 3\ndilemmas = [\"borrowed_voice\", \"quiet_majority\"]\n",
    );
    let results = dir.path().join("results/test");
    let (first_exit, go, second_exit) = (
        dir.path().join("first-exit"),
        dir.path().join("go"),
        dir.path().join("second-exit"),
    );
    let run = format!(
        "{} --log-file {} run {}",
        env!("CARGO_BIN_EXE_ethics-bowl"),
        dir.path().join("log.txt").display(),
        config.display()
    );
    // The same command twice; the second waits until the test has read the store.
    let command = format!(
        "cd {}; {run}; echo $? > {}; while [ ! -f {} ]; do sleep 0.05; done; {run}; echo $? > {}; sleep 30",
        env!("CARGO_MANIFEST_DIR"),
        first_exit.display(),
        go.display(),
        second_exit.display()
    );
    let tmux = Tmux::start("resume", &command);

    // The first session: quit (and confirm) once two rounds have finished.
    tmux.wait_until("two finished rounds", |screen| {
        done_cells(screen).0 + review_cells(screen) >= 2
    });
    tmux.keys(&["q"]);
    tmux.wait_for("press q again");
    tmux.keys(&["q"]);
    // Quitting is the user's choice: exit 0 (Ctrl-C and signals are 130).
    assert_eq!(wait_exit(&tmux, &first_exit), "0", "quit, to resume");
    let first = stored(&results);
    let at_rest = first
        .iter()
        .filter(|r| r.status != RoundStatus::Incomplete)
        .count();
    assert!(at_rest >= 2 && first.len() < 12, "stopped part-way");
    std::fs::write(&go, "").unwrap();

    // The second session says it was resumed, from what is stored.
    // Finished and to run add up to the schedule: a half-finished round counts once.
    let header = format!("resumed: {at_rest} finished, {} to run", 12 - at_rest);
    tmux.wait_for(&header);
    // Paused with no call in flight, the store holds still while the screen is read.
    tmux.keys(&["p"]);
    let screen = tmux.wait_until("paused with no call in flight", |screen| {
        let calls = screen.split("│ calls ").nth(1).unwrap_or("");
        screen.contains("PAUSED") && !calls.split('│').next().unwrap_or("▶").contains('▶')
    });
    let now = stored(&results);
    assert!(screen.contains(&header), "{screen}");
    // Every finished round shows its margin (a margin of 0 shows as +0).
    let complete = now
        .iter()
        .filter(|r| r.status == RoundStatus::Complete)
        .count();
    assert_eq!(
        done_cells(&screen),
        (complete, 0),
        "finished rounds show their margins:\n{screen}"
    );
    let needs_review = now
        .iter()
        .filter(|r| r.status == RoundStatus::NeedsReview)
        .count();
    assert_eq!(review_cells(&screen), needs_review, "{screen}");
    // The queue holds every flagged item, whichever session flagged it.
    let flagged: usize = now.iter().map(|r| waiting(r).len()).sum();
    assert!(flagged > 0, "the simulated judges left something to review");
    tmux.keys(&["v"]);
    let queue = tmux.wait_for("Review queue");
    assert!(
        queue.contains(&format!("Review queue · {flagged} waiting")),
        "{flagged} flagged in the store:\n{queue}"
    );
    tmux.keys(&["Escape", "q"]);
    assert_eq!(
        wait_exit(&tmux, &second_exit),
        "0",
        "quitting with q is the user's choice"
    );
}

/// The models file with `sim-beta` failing every call (`failure_rate`) or not; the judge
/// is never malformed, so a round run again ends done, not waiting for review.
fn retry_models(beta_fails: bool, tokens_per_second: f64) -> String {
    let beta = sim("sim-beta", 0.6, tokens_per_second, 0.0);
    let beta = if beta_fails {
        beta.replace("failure_rate = 0.0", "failure_rate = 1.0")
    } else {
        beta
    };
    [
        sim("sim-alpha", 0.85, tokens_per_second, 0.0),
        beta,
        sim("sim-gamma", 0.5, tokens_per_second, 0.0),
    ]
    .concat()
}

/// The matrix's selected round, from its title (` Progress · <id> `).
fn selected_round(screen: &str) -> String {
    screen
        .split("Progress · ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .expect("a selected round")
        .to_string()
}

/// The matrix cell of the one pairing in column `column` (its text up to the next blank).
fn cell_on(screen: &str, column: usize) -> String {
    matrix_rows(screen)
        .find(|l| l.contains("sim-alpha vs sim-beta"))
        .and_then(|row| row.split("sim-alpha vs sim-beta").nth(1))
        .and_then(|cells| cells.split_whitespace().nth(column))
        .unwrap_or("")
        .to_string()
}

#[test]
fn a_failed_round_is_retried_after_the_run_and_in_open() {
    if !tmux_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = write(
        dir.path(),
        &retry_models(true, 3000.0),
        "models = [\"sim-alpha\", \"sim-beta\"]\njudges = [\"sim-gamma\"]\ndilemmas = [\"borrowed_voice\", \"quiet_majority\"]\npairings = [[\"sim-alpha\", \"sim-beta\"]]\n",
    );
    let results = dir.path().join("results/test");
    let (first_exit, go, second_exit) = (
        dir.path().join("first-exit"),
        dir.path().join("go"),
        dir.path().join("second-exit"),
    );
    let bin = env!("CARGO_BIN_EXE_ethics-bowl");
    let log = dir.path().join("log.txt");
    // The run, then (once the test says so) `open` over what it stored.
    let command = format!(
        "cd {}; {bin} --log-file {} run {}; echo $? > {}; while [ ! -f {} ]; do sleep 0.05; done; {bin} --log-file {} open {}; echo $? > {}; sleep 30",
        env!("CARGO_MANIFEST_DIR"),
        log.display(),
        config.display(),
        first_exit.display(),
        go.display(),
        log.display(),
        results.display(),
        second_exit.display()
    );
    let tmux = Tmux::start("retry", &command);

    // The run ends with both rounds failed: sim-beta fails every call.
    let ended = tmux.wait_until("both rounds failed and the run finished", |screen| {
        screen.contains("· finished") && screen.matches("✗err").count() >= 2
    });
    let first = selected_round(&ended);
    assert_eq!(cell_on(&ended, 0), "✗err", "{ended}");
    assert!(ended.contains("r retry"), "the footer offers it:\n{ended}");
    // Fixed, and slow enough to be seen running: retrying reads the models file again.
    std::fs::write(
        dir.path().join("models.toml"),
        format!(
            "[retry]\nmax_attempts = 2\ninitial_backoff_ms = 1\nmax_backoff_ms = 2\n\n{}",
            retry_models(false, 200.0)
        ),
    )
    .unwrap();
    tmux.keys(&["r"]);
    let running = tmux.wait_until("the retried round running", |screen| {
        cell_on(screen, 0).starts_with('▶')
    });
    assert_eq!(
        cell_on(&running, 1),
        "✗err",
        "only the round asked for runs"
    );
    let done = tmux.wait_until("the retried round done", |screen| {
        cell_on(screen, 0).starts_with('✓') && screen.contains("· finished")
    });
    assert_eq!(cell_on(&done, 1), "✗err", "{done}");
    // It was queued first (the log says so), and the store holds it done.
    tmux.keys(&["g"]);
    tmux.wait_for(&format!("queued to run again: {first}"));
    tmux.keys(&["Escape", "q"]);
    assert_eq!(
        wait_exit(&tmux, &first_exit),
        "1",
        "a round is still not finished"
    );
    let rounds = stored(&results);
    let retried = rounds.iter().find(|r| r.id == first).unwrap();
    assert_eq!(retried.status, RoundStatus::Complete, "{first}");
    assert!(
        rounds
            .iter()
            .any(|r| r.id != first && r.status == RoundStatus::Incomplete)
    );

    // In `open`: the other failed round, from the round screen; the header says what runs.
    std::fs::write(&go, "").unwrap();
    tmux.wait_for("browsing stored results");
    tmux.keys(&["Right", "Enter"]);
    let round = tmux.wait_for("Transcript");
    assert!(round.contains("r retry"), "an incomplete round:\n{round}");
    tmux.keys(&["r"]);
    tmux.wait_for("retrying 1 round");
    tmux.keys(&["Escape"]);
    let done = tmux.wait_until("the second round done", |screen| {
        cell_on(screen, 1).starts_with('✓') && screen.contains("browsing stored results")
    });
    assert_eq!(cell_on(&done, 0).chars().next(), Some('✓'), "{done}");
    tmux.keys(&["q"]);
    assert_eq!(wait_exit(&tmux, &second_exit), "0");
    assert!(
        stored(&results)
            .iter()
            .all(|r| r.status == RoundStatus::Complete)
    );
}

/// SIGTERM, SIGINT or SIGHUP sent to the live UI (`kill`, `timeout`, a closed window) ends
/// it as a forced quit does: the terminal is given back (the normal screen, the cursor shown,
/// cooked mode), the run is stopped with the resume hint and exit 130, and the tournament
/// record does not say it is still running.
#[test]
fn a_stop_signal_to_the_live_ui_gives_the_terminal_back() {
    if !tmux_available() {
        return;
    }
    for signal in ["TERM", "INT", "HUP"] {
        let dir = tempfile::tempdir().unwrap();
        let models = [
            sim("sim-alpha", 0.85, 300.0, 0.3),
            sim("sim-beta", 0.6, 300.0, 0.3),
            sim("sim-judge", 0.6, 300.0, 0.3),
        ]
        .concat();
        let config = write(
            dir.path(),
            &models,
            "models = [\"sim-alpha\", \"sim-beta\"]\njudges = [\"sim-judge\"]\ndilemmas = [\"borrowed_voice\", \"quiet_majority\"]\n",
        );
        let (pid_file, done_file, stty_file) = (
            dir.path().join("pid"),
            dir.path().join("exit-code"),
            dir.path().join("stty"),
        );
        // `exec` makes the shell's pid the program's, so the test knows whom to signal.
        let command = format!(
            "cd {} && sh -c 'echo $$ > {}; exec {} --log-file {} run {}'; echo $? > {}; stty -a > {}; sleep 30",
            env!("CARGO_MANIFEST_DIR"),
            pid_file.display(),
            env!("CARGO_BIN_EXE_ethics-bowl"),
            dir.path().join("log.txt").display(),
            config.display(),
            done_file.display(),
            stty_file.display()
        );
        let tmux = Tmux::start(&format!("signal-{signal}"), &command);
        tmux.wait_for("Team A vs Team B");
        let pid = std::fs::read_to_string(&pid_file).unwrap();
        let killed = Command::new("kill")
            .args([&format!("-{signal}"), pid.trim()])
            .status()
            .unwrap();
        assert!(killed.success());
        assert_eq!(
            wait_exit(&tmux, &done_file),
            "130",
            "SIG{signal}: stopped, to resume"
        );
        let flags = tmux.cmd(&[
            "display",
            "-p",
            "-t",
            "e2e",
            "#{alternate_on} #{cursor_flag}",
        ]);
        assert_eq!(
            flags.trim(),
            "0 1",
            "SIG{signal}: the normal screen and the cursor back"
        );
        let after = tmux.wait_for("--resume");
        assert!(
            after.contains("rounds:"),
            "SIG{signal}: the summary:\n{after}"
        );
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::fs::metadata(&stty_file).map_or(true, |m| m.len() == 0) {
            assert!(Instant::now() < deadline, "stty did not run");
            std::thread::sleep(Duration::from_millis(50));
        }
        let stty = std::fs::read_to_string(&stty_file).unwrap();
        let modes: Vec<&str> = stty.split_whitespace().collect();
        assert!(
            modes.contains(&"icanon") && modes.contains(&"echo"),
            "SIG{signal}: cooked mode again: {stty}"
        );
        let record =
            std::fs::read_to_string(dir.path().join("results/test/tournament.json")).unwrap();
        assert!(!record.contains("\"running\""), "SIG{signal}: {record}");
    }
}

/// Batch mode in a real terminal: the open batches show in the header and the batched rounds
/// as `⧗`; quitting asks, and `c` cancels the open batches at the provider before the run
/// stops; a second session started after a `q` (which leaves the batches open) polls the
/// same batches again instead of sending their requests twice.
#[test]
fn a_batched_run_shows_its_batches_and_cancels_them_when_asked() {
    use support::batch_server::{BatchServer, Options};
    if !tmux_available() {
        return;
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = runtime.block_on(BatchServer::start(Options {
        delay: Duration::from_secs(600),
        expire_after: None,
        key: support::FAKE_KEY.to_string(),
        answer: std::sync::Arc::new(|_, _| "An answer.".to_string()),
        refuse: false,
    }));
    let dir = tempfile::tempdir().unwrap();
    let model = |name: &str, provider: &str| {
        format!(
            "[[models]]\nname = \"{name}\"\nprovider = \"{provider}\"\nmodel = \"{name}-id\"\nbase_url = \"{}\"\napi_key_env = \"EB_E2E_BATCH_KEY\"\n",
            server.base(provider)
        )
    };
    let models = [
        model("gpt", "openai"),
        model("claude", "anthropic"),
        model("gem", "google"),
    ]
    .concat();
    let config = write(
        dir.path(),
        &models,
        "models = [\"gpt\", \"claude\"]\njudges = [\"gem\"]\ndilemmas = [\"borrowed_voice\"]\nbatch = true\nbatch_collect_s = 0.1\nbatch_poll_max_s = 0.5\n",
    );
    let session = |n: u32| {
        let done = dir.path().join(format!("exit-{n}"));
        let command = format!(
            "cd {} && EB_E2E_BATCH_KEY={} {} --log-file {} run {}; echo $? > {}; sleep 30",
            env!("CARGO_MANIFEST_DIR"),
            support::FAKE_KEY,
            env!("CARGO_BIN_EXE_ethics-bowl"),
            dir.path().join("log.txt").display(),
            config.display(),
            done.display()
        );
        (Tmux::start(&format!("batch{n}"), &command), done)
    };

    // First session: two presentations, one batch each for gpt and claude; quit with q.
    let (tmux, done) = session(1);
    let screen = tmux.wait_until("both batches open", |s| {
        s.contains("(openai) 1") && s.contains("claude (anthropic) 1")
    });
    assert!(screen.contains("⧗P"), "{screen}");
    tmux.keys(&["q"]);
    tmux.wait_for("c cancels them");
    tmux.keys(&["q"]);
    assert_eq!(wait_exit(&tmux, &done), "0");
    drop(tmux);
    let seen = server.seen();
    assert_eq!(
        (seen.requests, seen.cancelled),
        (2, 0),
        "q leaves the batches open"
    );

    // Second session: the same batches are polled again, nothing is sent twice; then c.
    let (tmux, done) = session(2);
    tmux.wait_until("both batches open again", |s| {
        s.contains("(openai) 1") && s.contains("claude (anthropic) 1")
    });
    assert_eq!(server.seen().requests, 2, "not sent again");
    tmux.keys(&["q"]);
    tmux.wait_for("c cancels them");
    tmux.keys(&["c"]);
    assert_eq!(wait_exit(&tmux, &done), "0");
    assert_eq!(
        server.seen().cancelled,
        2,
        "both batches cancelled at the provider"
    );
    assert_eq!(server.running(), 0);
}

/// `open` on a tournament larger than the rounds the UI keeps whole: the first round's text
/// waits in the store, so opening it goes through the real driver (`Effect::LoadRound`), and
/// the Analysis screen is computed from the store (`Effect::Analyse`).
#[test]
fn a_round_whose_text_waits_in_the_store_is_read_back_when_opened() {
    if !tmux_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let models = [
        sim("sim-alpha", 0.85, 0.0, 0.0),
        sim("sim-beta", 0.6, 0.0, 0.0),
        sim("sim-gamma", 0.4, 0.0, 0.0),
        sim("sim-judge", 0.9, 0.0, 0.0),
    ]
    .concat();
    // 3 models in 6 pairings × 7 dilemmas × 2 repetitions: 84 rounds, more than the 64
    // finished rounds the UI keeps whole.
    let config = write(
        dir.path(),
        &models,
        "models = [\"sim-alpha\", \"sim-beta\", \"sim-gamma\"]\njudges = [\"sim-judge\"]\nrepetitions = 2\n",
    );
    let status = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"))
        .args(["run", "--headless"])
        .arg(&config)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
    let results = dir.path().join("results/test");
    let rounds = stored(&results);
    assert_eq!(rounds.len(), 84);
    let exit = dir.path().join("exit");
    let command = format!(
        "{} open {}; echo $? > {}; sleep 30",
        env!("CARGO_BIN_EXE_ethics-bowl"),
        results.display(),
        exit.display()
    );
    let tmux = Tmux::start("readback", &command);
    tmux.wait_for("Progress");
    // The cursor starts on the first round by id, the first the UI gave its text up for.
    // A finished round opens at its top, the dilemma first; End goes to the judge's
    // answer, as stored.
    let first = &rounds[0];
    tmux.keys(&["Enter"]);
    let top = tmux.wait_until("the top of the transcript read back", |screen| {
        screen.contains(&first.id) && screen.contains("Case: ")
    });
    assert!(
        top.contains("Dilemma: ") && top.contains("━━ Presentation"),
        "{top}"
    );
    tmux.keys(&["End"]);
    let screen = tmux.wait_until("the transcript read back from the store", |screen| {
        screen.contains(&first.id) && screen.contains("━━ Judgment")
    });
    assert!(screen.contains("\"team_a_scores\""), "{screen}");
    assert!(!screen.contains("could not be read back"), "{screen}");
    // (Escape and a key sent together would read as Alt and the key.)
    tmux.keys(&["Escape"]);
    tmux.wait_for("Progress");
    tmux.keys(&["a"]);
    tmux.wait_for("Model comparison by role");
    tmux.keys(&["q"]);
    assert_eq!(wait_exit(&tmux, &exit), "0");
}

/// The score typed for round `round` (0-based), team `team` (0: A), criterion `c`.
fn typed_score(round: usize, team: usize, c: usize) -> u8 {
    ((round * 3 + team * 5 + c) % 10 + 1) as u8
}

/// Types round `round`'s fourteen scores and saves; the screen must never show a model's
/// name or the model judges' scores.
fn judge_one(tmux: &Tmux, round: usize, total: usize) {
    let here = format!("round {} of {total}", round + 1);
    let screen = tmux.wait_until("the round's transcript", |s| {
        s.contains(&here) && s.contains("━━ Presentation")
    });
    assert_blind(&screen);
    for team in 0..2 {
        for c in 0..7 {
            tmux.text(&typed_score(round, team, c).to_string());
            tmux.keys(&["Enter"]);
        }
    }
    let screen = tmux.wait_for("Complete: Ctrl-S saves");
    assert_blind(&screen);
    tmux.keys(&["PageDown"]);
    assert_blind(&tmux.screen());
    tmux.keys(&["C-s"]);
    tmux.wait_for(&format!("{} of {total} judged", round + 1));
}

fn assert_blind(screen: &str) {
    for hidden in [
        "sim-alpha",
        "sim-beta",
        "sim-gamma",
        "__vs__",
        "━━ Judgment",
    ] {
        assert!(!screen.contains(hidden), "{hidden} shows:\n{screen}");
    }
}

#[test]
fn a_person_judges_three_rounds_blind_quits_resumes_at_the_fourth_and_finishes() {
    if !tmux_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    let status = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"))
        .args([
            "run",
            "sample-config/tournament.toml",
            "--headless",
            "--out",
        ])
        .arg(&out)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
    let results = out.join("sample");
    let annotate = |exit: &Path| {
        format!(
            "{} annotate {} --annotator ann --sample 5; echo $? > {}; sleep 30",
            env!("CARGO_BIN_EXE_ethics-bowl"),
            results.display(),
            exit.display()
        )
    };
    let first_exit = dir.path().join("exit-1");
    let tmux = Tmux::start("annotate-1", &annotate(&first_exit));
    // Nothing judged yet: the header estimates the reading, and says it is an estimate.
    tmux.wait_for("to read this round (estimate at 250 words a minute)");
    for round in 0..3 {
        judge_one(&tmux, round, 5);
    }
    tmux.wait_for("round 4 of 5");
    tmux.keys(&["q"]);
    assert_eq!(wait_exit(&tmux, &first_exit), "0");
    drop(tmux);

    let second_exit = dir.path().join("exit-2");
    let tmux = Tmux::start("annotate-2", &annotate(&second_exit));
    let screen = tmux.wait_for("round 4 of 5");
    assert!(screen.contains("3 of 5 judged"), "{screen}");
    // The pace, from the judgments stored in the first session.
    assert!(screen.contains(" a round · about "), "{screen}");
    for round in 3..5 {
        judge_one(&tmux, round, 5);
    }
    tmux.wait_for("Every one of the 5 rounds is judged");
    tmux.keys(&["q"]);
    assert_eq!(wait_exit(&tmux, &second_exit), "0");
    drop(tmux);

    // Every round judged: the screen says so, `[` goes back to the last round with what was
    // stored, and a changed score is saved again.
    let third_exit = dir.path().join("exit-3");
    let tmux = Tmux::start("annotate-3", &annotate(&third_exit));
    tmux.wait_for("Every one of the 5 rounds is judged");
    tmux.keys(&["["]);
    let screen = tmux.wait_for("you judged this round");
    assert!(screen.contains("round 5 of 5"), "{screen}");
    assert!(
        screen.contains("Complete: Ctrl-S saves"),
        "what was stored shows: {screen}"
    );
    assert_blind(&screen);
    tmux.text("9");
    tmux.keys(&["C-s"]);
    tmux.wait_for("round 5 changed");
    tmux.keys(&["q"]);
    assert_eq!(wait_exit(&tmux, &third_exit), "0");

    let sample = ethics_bowl::annotations::sample::load_sample(&results)
        .unwrap()
        .expect("the sample is recorded");
    assert_eq!(sample.round_ids.len(), 5);
    for (i, id) in sample.round_ids.iter().enumerate() {
        let stored = ethics_bowl::annotations::load(&results, "ann", id)
            .unwrap()
            .unwrap_or_else(|| panic!("{id} is judged"));
        assert!(stored.blind && stored.via == ethics_bowl::annotations::Via::Tui);
        // Time on task: the round's time (a few seconds of typing here) and its words.
        assert!(
            stored.seconds_on_round.is_some_and(|s| s > 0.0),
            "{stored:?}"
        );
        assert!(stored.words_shown.is_some_and(|w| w > 300), "{stored:?}");
        let ethics_bowl::annotations::HumanJudgment::EthicsBowl {
            team_a,
            team_b,
            justifications,
        } = stored.judgment
        else {
            panic!("{stored:?}");
        };
        assert!(justifications.is_empty());
        // The last round's first score was changed to 9 and saved again, keeping when it
        // was first stored.
        let changed = i == 4;
        assert_eq!(stored.first_written_at.is_some(), changed, "{id}");
        for (c, criterion) in ethics_bowl::domain::Criterion::ALL.iter().enumerate() {
            let typed = if changed && c == 0 {
                9
            } else {
                typed_score(i, 0, c)
            };
            assert_eq!(team_a.get(*criterion), Some(f64::from(typed)));
            assert_eq!(
                team_b.get(*criterion),
                Some(f64::from(typed_score(i, 1, c)))
            );
        }
    }
}
