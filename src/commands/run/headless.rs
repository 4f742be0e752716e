//! Headless progress on stderr, from the engine's events: a bar on a terminal; plain lines
//! otherwise (a log file, CI, `nohup`), with a status line every [`STATUS_INTERVAL`]. Both
//! get a line for each retry, review flag, failure and warning; a finished round's line says
//! when an answer of it was cut at the token limit, and the status line counts them and
//! marks tokens as estimated when a server reported no usage.

use std::path::Path;
use std::time::Duration;

use ethics_bowl::engine::{Change, EngineEvent, Progress, UsageTotals, WaitingKind};
use ethics_bowl::sanitize::sanitize;
use indicatif::{ProgressBar, ProgressStyle};
use tokio::sync::mpsc;
use tokio::time::Instant;

/// How often plain-line progress says where the run stands.
pub const STATUS_INTERVAL: Duration = Duration::from_secs(10);

/// What the follower has to say; the output decides how (see [`Output`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Say {
    /// A line of its own: the start, a retry, a review flag, a failure, a warning.
    Line(String),
    /// A round finished: its line, and how many of all are done.
    Finished {
        /// The line.
        line: String,
        /// Rounds done, stored before included.
        done: usize,
        /// Rounds of the tournament.
        of: usize,
    },
    /// Where the run stands (counts, tokens, cost, ETA) after an event.
    Status(String),
    /// The same, when the interval has passed.
    Tick(String),
    /// How many batches are open now (batch mode): not shown, kept for Ctrl-C's question.
    Batches(usize),
}

/// Where progress goes: the bar on a terminal, else plain lines on stderr.
pub enum Output {
    /// An indicatif bar; lines print above it.
    Bar(ProgressBar),
    /// Plain lines, for a file or pipe.
    Lines,
}

impl Output {
    /// The bar when stderr is a terminal, else plain lines.
    pub fn for_stderr() -> Self {
        use std::io::IsTerminal;
        if !std::io::stderr().is_terminal() {
            return Self::Lines;
        }
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} rounds  {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Self::Bar(bar)
    }

    /// Shows one thing said.
    pub fn show(&self, say: Say) {
        match (self, say) {
            (Self::Bar(bar), Say::Line(line)) => bar.println(line),
            (Self::Bar(bar), Say::Finished { done, of, .. }) => {
                bar.set_length(of as u64);
                bar.set_position(done as u64);
            }
            (Self::Bar(bar), Say::Status(s) | Say::Tick(s)) => bar.set_message(s),
            (Self::Lines, Say::Line(line) | Say::Finished { line, .. } | Say::Tick(line)) => {
                eprintln!("{line}")
            }
            (Self::Lines, Say::Status(_)) | (_, Say::Batches(_)) => {}
        }
    }

    /// Removes the bar before the summary prints.
    pub fn finish(&self) {
        if let Self::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}

/// Follows the events until the engine stops sending, saying what happened through `say`
/// and the status every `interval`.
pub async fn follow(
    mut events: mpsc::UnboundedReceiver<EngineEvent>,
    name: &str,
    dir: &Path,
    interval: Duration,
    mut say: impl FnMut(Say),
) {
    let start = Instant::now();
    let mut tick = tokio::time::interval_at(start + interval, interval);
    // After a stall, one status line, not a burst of them.
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut progress = Progress::default();
    let mut batch_lines = crate::commands::batch_lines::BatchLines::default();
    loop {
        let event = tokio::select! {
            event = events.recv() => match event {
                Some(event) => event,
                None => break,
            },
            _ = tick.tick() => {
                say(Say::Tick(status(&progress, start.elapsed())));
                continue;
            }
        };
        for change in progress.apply(&event) {
            say(match change {
                Change::Started {
                    rounds,
                    stored,
                    finished,
                    waiting,
                } => {
                    // Finished and to run add up to the schedule (a half-finished round is
                    // stored, but counted once: to run).
                    let resumed = if stored > 0 {
                        format!(
                            " (resumed: {finished} finished, {} to run, {waiting} waiting for review)",
                            rounds - finished
                        )
                    } else {
                        String::new()
                    };
                    Say::Line(format!(
                        "tournament {name}: {rounds} rounds{resumed}, results in {}",
                        dir.display()
                    ))
                }
                Change::NowWaiting { round_id, item } => Say::Line(match item.kind {
                    WaitingKind::Judgment(_) => {
                        format!("review: {round_id}: {} could not be fully parsed", item.key)
                    }
                    WaitingKind::Reply => {
                        format!(
                            "review: {round_id}: the {} reply could not be read",
                            item.key
                        )
                    }
                }),
                Change::RoundFinished(round) => {
                    let (done, of) = (progress.done(), progress.outset().rounds);
                    Say::Finished {
                        line: format!(
                            "round {done}/{of}: {} {}{}",
                            round.id,
                            round.status.as_str(),
                            cut(round.truncated)
                        ),
                        done,
                        of,
                    }
                }
                Change::Design {
                    wave,
                    added,
                    not_chosen,
                    stopped,
                } => Say::Line(match stopped {
                    Some(why) => format!(
                        "adaptive design stopped after {wave} waves ({not_chosen} rounds of the full schedule not chosen): {why}"
                    ),
                    None if added > 0 => format!(
                        "adaptive design, wave {wave}: {added} rounds chosen ({not_chosen} not chosen yet)"
                    ),
                    // The first wave's rounds were announced with the tournament's start.
                    None => format!(
                        "adaptive design, wave {wave}: the rounds above chosen ({not_chosen} of the full schedule not chosen yet)"
                    ),
                }),
            });
        }
        if let Some(line) = event_line(&event) {
            say(Say::Line(line));
        }
        if let EngineEvent::Batches { open } = &event {
            for line in batch_lines.changes(open) {
                say(Say::Line(line));
            }
            say(Say::Batches(open.len()));
        }
        // Streamed text changes no count; the status is summed afresh only when one may change.
        if !matches!(event, EngineEvent::TextDelta { .. }) {
            say(Say::Status(status(&progress, start.elapsed())));
        }
    }
}

/// The line an event that is not a stored change deserves, if any.
fn event_line(event: &EngineEvent) -> Option<String> {
    Some(match event {
        EngineEvent::RetryScheduled {
            round_id,
            phase_type,
            model,
            attempt,
            wait,
            error,
        } => format!(
            "retry: {round_id} {} by {}: attempt {attempt} failed ({}); next in {:.1} s",
            phase_type.as_str(),
            sanitize(model),
            sanitize(error),
            wait.as_secs_f64()
        ),
        EngineEvent::PhaseFailed {
            round_id,
            phase_type,
            model,
            error,
        } => format!(
            "call failed: {round_id} {} by {}: {}",
            phase_type.as_str(),
            sanitize(model),
            sanitize(error)
        ),
        EngineEvent::BudgetReached {
            spent_usd,
            budget_usd,
        } => format!("budget reached: ${spent_usd:.4} of ${budget_usd:.2}; no new calls"),
        EngineEvent::Warning { message } => format!("warning: {}", sanitize(message)),
        EngineEvent::StoreFailed { message } => format!(
            "error: {}; no new calls start (calls under way finish, and are stored if space returns)",
            sanitize(message)
        ),
        EngineEvent::RateLimits { quota, snapshot } if snapshot.held_for.is_some() => format!(
            "rate limit: {} holds new calls for {:.0} s (quota spent; window {}/{})",
            sanitize(quota),
            snapshot.held_for.unwrap_or_default().as_secs_f64(),
            snapshot.window,
            snapshot.max_concurrency
        ),
        _ => return None,
    })
}

/// `; 2 answers cut at the token limit`, or nothing when none was.
fn cut(truncated: u64) -> String {
    match truncated {
        0 => String::new(),
        1 => "; 1 answer cut at the token limit".to_string(),
        n => format!("; {n} answers cut at the token limit"),
    }
}

/// The tokens of a status line, `~`-marked with how many calls' usage is estimated when a
/// server reported none.
fn tokens(t: &UsageTotals) -> String {
    if t.is_estimated() {
        format!(
            "~{} in{} / ~{} out tokens (estimated for {} call{})",
            t.input_tokens,
            cached(t),
            t.output_tokens,
            t.estimated,
            if t.estimated == 1 { "" } else { "s" }
        )
    } else {
        format!(
            "{} in{} / {} out tokens",
            t.input_tokens,
            cached(t),
            t.output_tokens
        )
    }
}

/// How many prompt tokens a provider's cache served, when any: ` (1200 cached)`.
fn cached(t: &UsageTotals) -> String {
    if t.cached_input_tokens > 0 {
        format!(" ({} cached)", t.cached_input_tokens)
    } else {
        String::new()
    }
}

/// Answers the response cache served instead of a call, when any: `; 12 reused from the
/// response cache`.
fn reused(t: &UsageTotals) -> String {
    match t.reused {
        0 => String::new(),
        1 => "; 1 answer reused from the response cache".to_string(),
        n => format!("; {n} answers reused from the response cache"),
    }
}

/// What prompt caching saved, when it changed the cost: ` (caching saved $0.0120)`.
fn cache_saving(t: &UsageTotals) -> String {
    if t.cache_saved_usd.abs() >= 0.00005 {
        format!(" (caching saved ${:.4})", t.cache_saved_usd)
    } else {
        String::new()
    }
}

/// One line: rounds by state (in the words of `engine::Standings`), calls under way, tokens, cost, answers cut at the token limit,
/// and the time left at this run's pace so far.
fn status(progress: &Progress, elapsed: Duration) -> String {
    let c = progress.standings();
    let t = progress.totals();
    let eta = match progress.eta(elapsed) {
        None => "ETA –".to_string(),
        Some(left) => format!("ETA {}", clock(left)),
    };
    format!(
        "status: {} done, {} needs review, {} running, {} queued, {} failed; {} calls in flight; {}; ${:.4}{}{}{}; {eta}",
        c.done,
        c.needs_review,
        c.running,
        c.queued,
        c.failed,
        progress.under_way(),
        tokens(&t),
        t.cost_usd,
        cache_saving(&t),
        cut(t.truncated),
        reused(&t)
    )
}

/// `h:mm:ss`.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

#[cfg(test)]
mod tests {

    use super::*;
    use std::sync::{Arc, Mutex};

    #[tokio::test(start_paused = true)]
    async fn a_status_line_comes_every_interval_while_nothing_happens() {
        let (tx, rx) = mpsc::unbounded_channel();
        let said = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&said);
        let follower = tokio::spawn(async move {
            follow(rx, "t", Path::new("results/t"), STATUS_INTERVAL, move |s| {
                if let Ok(mut v) = sink.lock() {
                    v.push(s);
                }
            })
            .await
        });
        tokio::time::sleep(STATUS_INTERVAL * 3 + Duration::from_secs(1)).await;
        drop(tx);
        follower.await.unwrap();
        let said = said.lock().unwrap();
        let ticks: Vec<&Say> = said.iter().filter(|s| matches!(s, Say::Tick(_))).collect();
        assert_eq!(ticks.len(), 3, "{said:?}");
        assert!(
            matches!(ticks[0], Say::Tick(line) if line.contains("0 done") && line.contains("ETA –"))
        );
    }

    #[test]
    fn retries_and_failures_get_a_line_and_streamed_text_none() {
        use ethics_bowl::domain::PhaseType;
        let retry = EngineEvent::RetryScheduled {
            round_id: "r".into(),
            phase_type: PhaseType::Presentation,
            model: "m".into(),
            attempt: 1,
            wait: Duration::from_millis(1500),
            error: "HTTP 503: busy".into(),
        };
        assert_eq!(
            event_line(&retry).as_deref(),
            Some("retry: r presentation by m: attempt 1 failed (HTTP 503: busy); next in 1.5 s")
        );
        let failed = EngineEvent::PhaseFailed {
            round_id: "r".into(),
            phase_type: PhaseType::Presentation,
            model: "m".into(),
            error: "HTTP 401: no".into(),
        };
        assert_eq!(
            event_line(&failed).as_deref(),
            Some("call failed: r presentation by m: HTTP 401: no")
        );
        let text = EngineEvent::TextDelta {
            round_id: "r".into(),
            phase_type: PhaseType::Presentation,
            model: "m".into(),
            text: "x".into(),
        };
        assert_eq!(event_line(&text), None);
    }

    #[test]
    fn cut_answers_and_estimated_usage_are_said() {
        assert_eq!(cut(0), "");
        assert_eq!(cut(1), "; 1 answer cut at the token limit");
        assert_eq!(cut(3), "; 3 answers cut at the token limit");
        let mut t = UsageTotals {
            input_tokens: 1200,
            output_tokens: 300,
            ..UsageTotals::default()
        };
        assert_eq!(tokens(&t), "1200 in / 300 out tokens");
        t.estimated = 2;
        assert_eq!(
            tokens(&t),
            "~1200 in / ~300 out tokens (estimated for 2 calls)"
        );
        t.estimated = 0;
        t.cached_input_tokens = 800;
        t.cache_saved_usd = 0.012;
        assert_eq!(tokens(&t), "1200 in (800 cached) / 300 out tokens");
        assert_eq!(cache_saving(&t), " (caching saved $0.0120)");
        assert_eq!(cache_saving(&UsageTotals::default()), "");
        assert_eq!(reused(&t), "");
        t.reused = 3;
        assert_eq!(reused(&t), "; 3 answers reused from the response cache");
    }

    #[tokio::test(start_paused = true)]
    async fn a_finished_round_with_a_cut_answer_says_so() {
        use ethics_bowl::domain::{Phase, PhaseType, Round, RoundStatus};
        use std::sync::Arc;
        let mut round: Round = serde_json::from_value(serde_json::json!({
            "id": "r", "dilemma_id": "d", "team_a_model": "a", "team_b_model": "b",
            "status": "complete", "timestamp": "t"
        }))
        .unwrap();
        round.status = RoundStatus::Complete;
        round.phases.push(Phase {
            truncated: true,
            usage_estimated: true,
            output_tokens: Some(100),
            ..Phase::new(PhaseType::Presentation, "a", "cut")
        });
        let (tx, rx) = mpsc::unbounded_channel();
        for event in [
            EngineEvent::RoundStored {
                round: Arc::new(round),
            },
            EngineEvent::RoundFinished {
                round_id: "r".into(),
            },
        ] {
            tx.send(event).unwrap();
        }
        drop(tx);
        let mut said = Vec::new();
        follow(rx, "t", Path::new("results/t"), STATUS_INTERVAL, |s| {
            said.push(s)
        })
        .await;
        assert!(
            said.iter().any(|s| matches!(s, Say::Finished { line, .. }
                if line.ends_with("r complete; 1 answer cut at the token limit"))),
            "{said:?}"
        );
        let Some(Say::Status(last)) = said.last() else {
            panic!("a status line last: {said:?}")
        };
        assert!(
            last.contains("~0 in / ~100 out tokens (estimated for 1 call)")
                && last.contains("; 1 answer cut at the token limit;"),
            "{last}"
        );
    }

    #[test]
    fn the_eta_follows_this_runs_pace() {
        use ethics_bowl::domain::Round;
        use ethics_bowl::engine::ScheduledState;
        use std::sync::Arc;
        // Ten rounds, two finished before this run, four finished by it.
        let mut progress = Progress::default();
        let ids: Vec<String> = (0..10).map(|i| format!("r{i}")).collect();
        let rounds = ids
            .iter()
            .enumerate()
            .map(|(i, id)| ScheduledState {
                round: Arc::new(
                    serde_json::from_value::<Round>(serde_json::json!({
                        "id": id, "dilemma_id": "d", "team_a_model": "a", "team_b_model": "b",
                        "status": "incomplete", "timestamp": "t"
                    }))
                    .unwrap(),
                ),
                stored: i < 2,
                to_run: i >= 2,
                text_dropped: false,
            })
            .collect();
        progress.apply(&EngineEvent::Started {
            tournament_id: "t".into(),
            rounds,
        });
        for id in &ids[2..6] {
            progress.apply(&EngineEvent::RoundFinished {
                round_id: id.clone(),
            });
        }
        let line = status(&progress, Duration::from_secs(60));
        assert!(line.ends_with("ETA 0:01:00"), "{line}");
    }
}
