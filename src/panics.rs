//! Panics kept off the terminal. A panic is a bug, ours or a dependency's (one caught inside
//! the Word reader, say): its message and backtrace are for whoever fixes it, so they go to
//! the log file (`--log-file`, or `ethics-bowl.log` in the data folder), or to stderr as
//! Rust prints them when `RUST_BACKTRACE` is set. The user gets the command's own error, or,
//! when a panic stops the command, one line saying where the details are. The terminal UI
//! chains its own hook in front of this one to restore the screen first.

use std::io::Write;
use std::panic::PanicHookInfo;
use std::path::{Path, PathBuf};

/// Sends every panic's report to the log file from now on; `log_file` is `--log-file`.
pub fn install(log_file: Option<PathBuf>) {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if reader_went_away(info) {
            std::process::exit(crate::exit_codes::SUCCESS.into());
        }
        if backtrace_wanted() {
            default(info);
            return;
        }
        let written = report_file(log_file.as_deref())
            .is_some_and(|path| append(&path, &report(info)).is_ok());
        // With nowhere to write it, the report is better on stderr than lost.
        if !written {
            default(info);
        }
    }));
}

/// The line for the user when a panic has stopped the command.
pub fn stopped(log_file: Option<&Path>) -> String {
    let details = if backtrace_wanted() {
        "the details are above".to_string()
    } else {
        match report_file(log_file) {
            Some(path) => format!("the details are in {}", path.display()),
            None => "run it again with RUST_BACKTRACE=1 to see the details".to_string(),
        }
    };
    format!("ethics-bowl stopped on an internal error (a bug); {details}; please report it")
}

/// `RUST_BACKTRACE` set to anything but `0`: the user wants Rust's own report.
fn backtrace_wanted() -> bool {
    std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0")
}

/// Where reports go: the log file given, or the default one.
fn report_file(log_file: Option<&Path>) -> Option<PathBuf> {
    log_file
        .map(Path::to_path_buf)
        .or_else(crate::commands::default_log_file)
}

/// `ethics-bowl rounds DIR | head` closes standard output early. Rust ignores SIGPIPE, so
/// the next `println!` panics; that panic only means the reader has gone.
fn reader_went_away(info: &PanicHookInfo<'_>) -> bool {
    let message = message(info);
    message.starts_with("failed printing to stdout")
        && (message.contains("Broken pipe") || message.contains("os error 32"))
}

fn message<'a>(info: &'a PanicHookInfo<'_>) -> &'a str {
    ethics_bowl::panic_message(info.payload())
}

/// The report: when, which thread, where, what, and the backtrace.
fn report(info: &PanicHookInfo<'_>) -> String {
    let thread = std::thread::current();
    let location = info
        .location()
        .map(|l| l.to_string())
        .unwrap_or_else(|| "an unknown place".into());
    format!(
        "{} PANIC in thread '{}' at {location}: {}\n{}\n",
        jiff::Timestamp::now(),
        thread.name().unwrap_or("unnamed"),
        message(info),
        std::backtrace::Backtrace::force_capture()
    )
}

fn append(path: &Path, text: &str) -> std::io::Result<()> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?
        .write_all(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    /// What the hook's helpers make of a panic with this message.
    fn seen(message: &'static str) -> (String, bool) {
        let sink = Arc::new(Mutex::new((String::new(), false)));
        let seen = Arc::clone(&sink);
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if let Ok(mut s) = seen.lock() {
                *s = (report(info), reader_went_away(info));
            }
        }));
        let _ = std::panic::catch_unwind(|| panic!("{message}"));
        std::panic::set_hook(previous);
        sink.lock().map(|s| s.clone()).unwrap_or_default()
    }

    // One test: the panic hook is global, and tests run in parallel.
    #[test]
    fn reports_say_where_and_what_and_a_closed_pipe_is_no_bug() {
        let (report, went_away) = seen("the reader failed");
        assert!(
            report.contains("PANIC in thread")
                && report.contains("src/panics.rs")
                && report.contains(": the reader failed\n"),
            "{report}"
        );
        assert!(report.lines().count() > 3, "a backtrace: {report}");
        assert!(!went_away);
        let (_, went_away) = seen("failed printing to stdout: Broken pipe (os error 32)");
        assert!(went_away);

        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("ethics-bowl.log");
        assert_eq!(report_file(Some(&log)), Some(log.clone()));
        append(&log, "one\n").unwrap();
        append(&log, "two\n").unwrap();
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "one\ntwo\n");
        assert!(stopped(Some(&log)).starts_with("ethics-bowl stopped on an internal error"));
    }
}
