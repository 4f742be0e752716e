//! `ethics-bowl ask MODEL PROMPT`: one streamed answer to stdout, then usage, latency and
//! attempts to stderr.

use std::io::Write;
use std::path::Path;

use ethics_bowl::providers::{CallEvent, ChatRequest, ModelRegistry};
use ethics_bowl::sanitize::Sanitizer;

use super::{UsageError, load_models, read_input};

/// Streams the answer as it arrives.
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
    let registry = ModelRegistry::build(&models, [model])?;
    let client = registry
        .get(model)
        .ok_or_else(|| UsageError(format!("model \"{model}\" was not set up")))?;
    let request = ChatRequest::new(system, prompt);
    let mut stdout = std::io::stdout();
    let mut clean = Sanitizer::new();
    let mut write_failed = None;
    let result = client
        .complete(&request, &mut |event| match event {
            CallEvent::Delta(text) => {
                let text = clean.push(text);
                if let Err(e) = stdout
                    .write_all(text.as_bytes())
                    .and_then(|()| stdout.flush())
                {
                    write_failed.get_or_insert(e);
                }
            }
            CallEvent::RetryScheduled {
                attempt,
                wait,
                error,
                discarded_chars,
            } => {
                if discarded_chars > 0 {
                    let _ = writeln!(
                        stdout,
                        "\n[attempt {attempt} failed part-way; its text above is discarded]"
                    );
                }
                eprintln!(
                    "attempt {attempt} failed: {error}; retrying in {:.1} s",
                    wait.as_secs_f64()
                );
            }
        })
        .await;
    if let Some(e) = write_failed {
        return Err(e.into());
    }
    let outcome = result?;
    writeln!(stdout)?;
    let c = &outcome.completion;
    let usage = c
        .usage
        .map(|u| format!("{} in / {} out tokens", u.input_tokens, u.output_tokens))
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
    eprintln!(
        "[{model}: {usage}{cost}; {:.2} s; {} attempt{}; finish {:?}{id}]",
        outcome.latency.as_secs_f64(),
        outcome.attempts.len(),
        if outcome.attempts.len() == 1 { "" } else { "s" },
        c.finish_reason,
    );
    Ok(())
}
