//! `ethics-bowl ask MODEL PROMPT`: one answer to stdout, then usage, latency and attempts to
//! stderr.
//!
//! On a terminal the answer streams as it arrives, sanitised as the UI does it, and an
//! attempt that fails part-way is marked where its text stops. Anywhere else (a pipe, a
//! file) stdout receives exactly the final answer's text, written once the call has
//! succeeded, so that a script never reads the text of a discarded attempt; discarded
//! attempts are reported on stderr instead.

use std::io::{IsTerminal, Write};
use std::path::Path;

use ethics_bowl::providers::{CallEvent, CallOutcome, ChatRequest, FinishReason, ModelRegistry};
use ethics_bowl::sanitize::{Sanitizer, sanitize};

use super::{UsageError, load_models, read_input};

/// Calls the model once and writes its answer.
pub async fn run(
    config: Option<&Path>,
    model: &str,
    system: &str,
    prompt: &str,
) -> anyhow::Result<()> {
    let prompt = if prompt == "-" {
        read_input(Path::new("-"))?
    } else {
        prompt.to_string()
    };
    if prompt.trim().is_empty() {
        return Err(UsageError(
            "the prompt is empty; give it as an argument or on stdin with -".into(),
        )
        .into());
    }
    let models = load_models(config)?;
    let registry = ModelRegistry::build(
        &models,
        [model],
        &ethics_bowl::protocols::simulated_behaviours(),
    )?;
    let client = registry
        .get(model)
        .ok_or_else(|| UsageError(format!("model \"{model}\" was not set up")))?;
    let request = ChatRequest::new(system, prompt);
    let live = std::io::stdout().is_terminal();
    let mut answer = AnswerWriter::new(std::io::stdout(), std::io::stderr(), live);
    let result = client
        .complete(&request, &mut |event| answer.event(event))
        .await;
    answer.written()?;
    let outcome = result?;
    answer.finish(&outcome.completion.text)?;
    let summary = summary(model, &outcome);
    eprintln!("{}", sanitize(&summary));
    Ok(())
}

/// The line written to stderr after the answer: usage (marked when estimated), cost,
/// latency, attempts, and the finish reason as the provider spelled it (with a note when the
/// answer was cut at the token limit).
fn summary(model: &str, outcome: &CallOutcome) -> String {
    let c = &outcome.completion;
    let usage = c
        .usage
        .map(|u| {
            let estimated = if c.usage_estimated {
                " (estimated)"
            } else {
                ""
            };
            let mut cache = Vec::new();
            if u.cached_input_tokens > 0 {
                cache.push(format!("{} cached", u.cached_input_tokens));
            }
            if u.cache_write_tokens > 0 {
                cache.push(format!("{} written to the cache", u.cache_write_tokens));
            }
            let cache = if cache.is_empty() {
                String::new()
            } else {
                format!(" ({})", cache.join(", "))
            };
            format!(
                "{} in{cache} / {} out tokens{estimated}",
                u.input_tokens, u.output_tokens
            )
        })
        .unwrap_or_else(|| "usage not reported".into());
    let cost = outcome
        .cost_usd
        .map(|c| format!(", ~${c:.5}"))
        .unwrap_or_default();
    let id = c
        .request_id
        .as_deref()
        .map(|id| format!(", request id {id}"))
        .unwrap_or_default();
    let cut = if c.finish_reason == FinishReason::Length {
        " (cut at the token limit)"
    } else {
        ""
    };
    format!(
        "[{model}: {usage}{cost}; {:.2} s; {} attempt{}; finish {}{cut}{id}]",
        outcome.latency.as_secs_f64(),
        outcome.attempts.len(),
        if outcome.attempts.len() == 1 { "" } else { "s" },
        c.provider_finish_reason,
    )
}

/// Where the answer goes: streamed to a terminal, or written whole once it is final.
enum Mode {
    /// Each piece as it arrives, through the terminal filter.
    Live(Sanitizer),
    /// Nothing until the call succeeds, then exactly the final text.
    Whole,
}

/// Writes the answer to `out` and notes about failed attempts to `err`, as the mode says.
struct AnswerWriter<O, E> {
    out: O,
    err: E,
    mode: Mode,
    /// The first failed write to `out`; the call goes on, the command then fails with it.
    write_failed: Option<std::io::Error>,
}

impl<O: Write, E: Write> AnswerWriter<O, E> {
    fn new(out: O, err: E, live: bool) -> Self {
        let mode = if live {
            Mode::Live(Sanitizer::new())
        } else {
            Mode::Whole
        };
        Self {
            out,
            err,
            mode,
            write_failed: None,
        }
    }

    /// Handles one event of the call.
    fn event(&mut self, event: CallEvent<'_>) {
        match event {
            CallEvent::Delta(text) => {
                if let Mode::Live(filter) = &mut self.mode {
                    let text = filter.push(text);
                    let written = self
                        .out
                        .write_all(text.as_bytes())
                        .and_then(|()| self.out.flush());
                    if let Err(e) = written {
                        self.write_failed.get_or_insert(e);
                    }
                }
            }
            CallEvent::RetryScheduled {
                attempt,
                wait,
                error,
                discarded_chars,
            } => {
                if discarded_chars > 0 {
                    match self.mode {
                        Mode::Live(_) => {
                            let _ = writeln!(
                                self.out,
                                "\n[attempt {attempt} failed part-way; its text above is discarded]"
                            );
                        }
                        Mode::Whole => {
                            let _ = writeln!(
                                self.err,
                                "attempt {attempt} failed part-way; its partial text is discarded \
                                 (stdout gets only the final answer)"
                            );
                        }
                    }
                }
                let _ = writeln!(
                    self.err,
                    "attempt {attempt} failed: {}; retrying in {:.1} s",
                    sanitize(&error.to_string()),
                    wait.as_secs_f64()
                );
            }
        }
    }

    /// The first error met while streaming to `out`, if any.
    fn written(&mut self) -> std::io::Result<()> {
        self.write_failed.take().map_or(Ok(()), Err)
    }

    /// The call succeeded with `text`: on a terminal, end the streamed line; elsewhere,
    /// write the answer, exactly.
    fn finish(&mut self, text: &str) -> std::io::Result<()> {
        match self.mode {
            Mode::Live(_) => writeln!(self.out)?,
            Mode::Whole => self.out.write_all(text.as_bytes())?,
        }
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ethics_bowl::domain::ErrorKind;
    use ethics_bowl::providers::ProviderError;
    use std::time::Duration;

    /// Streams "Hel", fails part-way, streams the final answer, finishes.
    fn play(live: bool, answer: &str) -> (String, String) {
        let mut w = AnswerWriter::new(Vec::new(), Vec::new(), live);
        let error = ProviderError::new(ErrorKind::Truncated, "cut", true);
        w.event(CallEvent::Delta("Hel"));
        w.event(CallEvent::RetryScheduled {
            attempt: 1,
            wait: Duration::from_millis(100),
            error: &error,
            discarded_chars: 3,
        });
        w.event(CallEvent::Delta(answer));
        w.written().unwrap();
        w.finish(answer).unwrap();
        (
            String::from_utf8(w.out).unwrap(),
            String::from_utf8(w.err).unwrap(),
        )
    }

    #[test]
    fn elsewhere_stdout_is_exactly_the_final_answer() {
        let answer = "Hello \u{202e}world\u{1b}[2J";
        let (out, err) = play(false, answer);
        assert_eq!(out, answer);
        assert!(err.contains("attempt 1 failed part-way"), "{err}");
        assert!(err.contains("attempt 1 failed: truncated: cut"), "{err}");
    }

    #[test]
    fn on_a_terminal_the_stream_is_live_and_sanitised() {
        let (out, err) = play(true, "Hello \u{202e}world\u{9b}2J");
        assert_eq!(
            out,
            "Hel\n[attempt 1 failed part-way; its text above is discarded]\nHello world\n"
        );
        assert!(!err.contains("part-way"), "{err}");
    }

    fn outcome(usage_estimated: bool, finish: FinishReason, raw: &str) -> CallOutcome {
        use ethics_bowl::domain::Attempt;
        use ethics_bowl::providers::{Completion, Usage};
        CallOutcome {
            completion: Completion {
                text: "answer".into(),
                usage: Some(Usage::new(12, 34)),
                usage_estimated,
                finish_reason: finish,
                provider_finish_reason: raw.into(),
                request_id: Some("req_1".into()),
                batch_id: None,
            },
            attempts: vec![Attempt {
                number: 1,
                latency_ms: 250,
                error: None,
                error_kind: None,
                wait_ms: None,
                discarded_chars: 0,
            }],
            latency: Duration::from_millis(250),
            cost_usd: Some(0.00012),
            cache_saved_usd: Some(0.0),
            reused_from: None,
        }
    }

    #[test]
    fn the_summary_spells_the_finish_as_the_provider_did_and_marks_estimates_and_cuts() {
        assert_eq!(
            summary("m", &outcome(false, FinishReason::Stop, "end_turn")),
            "[m: 12 in / 34 out tokens, ~$0.00012; 0.25 s; 1 attempt; finish end_turn, request id req_1]"
        );
        assert_eq!(
            summary("m", &outcome(true, FinishReason::Length, "MAX_TOKENS")),
            "[m: 12 in / 34 out tokens (estimated), ~$0.00012; 0.25 s; 1 attempt; finish MAX_TOKENS \
             (cut at the token limit), request id req_1]"
        );
    }
}
