//! Where log lines go (stderr, or a file), with every loaded key removed from each line
//! before it is written.
//!
//! The provider layer already redacts what servers send back (see `ethics_bowl::redact`);
//! this is the safety net for anything else that might reach a log line, such as a
//! dependency's own trace output. It is applied here, at the writer, because every log line
//! passes through it whole: `tracing-subscriber` formats an event into one buffer and hands
//! it over in a single write.

use std::io::{self, Write};
use std::path::Path;

use tracing_subscriber::fmt::MakeWriter;

use crate::commands::UsageError;

/// Starts logging to stderr, or to `file` when given (never to stdout, which carries answers
/// and the terminal UI). `ETHICS_BOWL_LOG` sets the filter (default `warn`).
pub fn init(file: Option<&Path>) -> Result<(), UsageError> {
    use tracing_subscriber::EnvFilter;
    let filter =
        EnvFilter::try_from_env("ETHICS_BOWL_LOG").unwrap_or_else(|_| EnvFilter::new("warn"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false);
    match file {
        Some(path) => {
            let f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| {
                    UsageError(format!("cannot open the log file {}: {e}", path.display()))
                })?;
            builder
                .with_ansi(false)
                .with_writer(Redacting(std::sync::Mutex::new(f)))
                .init();
        }
        None => builder.with_writer(Redacting(io::stderr)).init(),
    }
    Ok(())
}

/// A [`MakeWriter`] whose writers redact every key loaded so far.
struct Redacting<M>(M);

impl<'a, M: MakeWriter<'a>> MakeWriter<'a> for Redacting<M> {
    type Writer = RedactingWriter<M::Writer>;

    fn make_writer(&'a self) -> Self::Writer {
        RedactingWriter(self.0.make_writer())
    }
}

/// Writes each buffer it is given with the keys replaced.
struct RedactingWriter<W>(W);

impl<W: Write> Write for RedactingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match std::str::from_utf8(buf) {
            Ok(text) => {
                let redactor = ethics_bowl::redact::remembered();
                self.0.write_all(redactor.redact(text).as_bytes())?;
            }
            Err(_) => self.0.write_all(buf)?,
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ethics_bowl::redact::{Redactor, remember};

    #[test]
    fn lines_lose_remembered_keys() {
        remember(&Redactor::new([(
            "LOG_TEST_KEY",
            "log-test-key-0123456789",
        )]));
        let mut out = RedactingWriter(Vec::new());
        out.write_all(b"WARN retrying: HTTP 500: Bearer log-test-key-0123456789\n")
            .unwrap();
        assert_eq!(
            String::from_utf8(out.0).unwrap(),
            "WARN retrying: HTTP 500: Bearer [redacted LOG_TEST_KEY]\n"
        );
    }
}
