//! Runs one round: each step starts as soon as the phases it quotes have finished, calls run
//! concurrently, every finished phase is stored and then announced as the stored round (see
//! [`RoundWriter`]), and a step that fails after its retries leaves the round incomplete
//! with what finished kept.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt;
use std::time::Duration;

use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::domain::{
    Attempt, Phase, PhaseType, Reused, Round, RoundError, RoundStatus, now_rfc3339,
};

use crate::protocols::Step;
use crate::protocols::panel::time_up;
use crate::providers::{CallEvent, CallFailure, CallOutcome, ChatRequest, FinishReason};

use super::caught::caught;
use super::context::RoundContext;
use super::events::EngineEvent;
use super::round_writer::{RoundEvents, RoundWriter};

/// Text deltas are sent in pieces of at least this many bytes…
const DELTA_BYTES: usize = 256;
/// …or after this long, whichever comes first.
const DELTA_INTERVAL: Duration = Duration::from_millis(33);

type CallResult = (Step, ChatRequest, Result<CallOutcome, CallFailure>);

/// Every call of the round as things stand: the protocol's debaters', then the judges' by
/// the judging strategy (a panel's deliberation rounds appear as they become due).
fn steps_of(ctx: &RoundContext, round: &Round) -> Result<Vec<Step>, String> {
    ctx.judging
        .steps(ctx.protocol.as_ref(), round)
        .map_err(|e| e.to_string())
}

/// On resume, a panel none of whose judges answered is asked again from the start.
fn forget_failed_panel(round: &mut Round) {
    let panel_phases = round.phases.iter().filter(|p| p.judge_id.is_some());
    if panel_phases.clone().all(|p| p.error.is_some()) {
        round
            .phases
            .retain(|p| p.judge_id.is_none() || p.error.is_none());
    }
}

/// Runs the round's remaining steps and returns it as stored. A panic while it runs (a bug)
/// is recorded as the round's error, on the last snapshot stored, so that the round is kept
/// `incomplete` and a resumed run retries it.
pub(crate) async fn run_round(ctx: Arc<RoundContext>, round: Round) -> Round {
    let writer = RoundWriter::start(Arc::clone(&ctx));
    let before = round.clone();
    let played = caught(AssertUnwindSafe(play(&ctx, &writer, round)).catch_unwind()).await;
    let round = match played {
        Ok(round) => round,
        Err(payload) => {
            let mut round = match writer.last_snapshot() {
                Some(stored) => (*stored).clone(),
                // Nothing stored this run: the round as it came, its resumed error kept among
                // the earlier ones as `play` would have.
                None => {
                    let mut round = before;
                    let resumed = round.error.take();
                    round.earlier_errors.extend(resumed);
                    round
                }
            };
            // Where the round was, asked of the protocol; the same bug may strike again
            // there, so that is caught too and the step named generically.
            let step = std::panic::catch_unwind(AssertUnwindSafe(|| {
                steps_of(&ctx, &round)
                    .ok()
                    .and_then(|steps| steps.into_iter().find(|s| !s.is_done(&round)))
            }))
            .ok()
            .flatten()
            .unwrap_or_else(|| Step::new(PhaseType::Judgment, "", &[]));
            let message = internal_error(&round.id, &step, payload);
            fail(&writer, &mut round, &step, message, Vec::new());
            writer.events().emit(EngineEvent::RoundFinished {
                round_id: round.id.clone(),
            });
            round
        }
    };
    writer.finish().await;
    round
}

/// The round's steps, run until every one has finished, failed or been stopped.
async fn play(ctx: &Arc<RoundContext>, writer: &RoundWriter, mut round: Round) -> Round {
    // Whether the round differs from its file: a new round has none yet, and a resumed
    // one keeps the error that stopped it among its earlier errors.
    let resumed_error = round.error.take();
    let mut unsaved = resumed_error.is_some() || round.phases.is_empty();
    round.earlier_errors.extend(resumed_error);
    forget_failed_panel(&mut round);
    let mut running: JoinSet<CallResult> = JoinSet::new();
    // Which step each call task runs, so that a task that panicked is recorded as its step's
    // failure instead of vanishing.
    let mut step_of_task: HashMap<tokio::task::Id, Step> = HashMap::new();
    let mut started: Vec<Step> = Vec::new();
    // Each timed deliberation round's deadline, from its first call in this run.
    let mut deadlines: HashMap<u32, Instant> = HashMap::new();
    let mut stopped = false;
    let mut steps = Vec::new();
    loop {
        match steps_of(ctx, &round) {
            Ok(now) => steps = now,
            Err(message) => {
                let step = steps
                    .last()
                    .cloned()
                    .unwrap_or_else(|| Step::new(PhaseType::PanelEvaluation, "", &[]));
                fail(writer, &mut round, &step, message, Vec::new());
                unsaved = false;
                break;
            }
        }
        let next_step = if stopped || round.error.is_some() {
            None
        } else {
            steps
                .iter()
                .find(|s| !s.is_done(&round) && s.is_ready(&round) && !started.contains(s))
                .cloned()
        };
        let joined = match next_step {
            // Waiting until a call may start (the run may be paused), a call that finishes
            // meanwhile is recorded at once.
            Some(step) => tokio::select! {
                may = ctx.control.may_start_call() => {
                    if !may {
                        stopped = true;
                        continue;
                    }
                    let timed = ctx.judging.time_limit(&step).map(|(n, limit)| {
                        let at = *deadlines.entry(n).or_insert_with(|| Instant::now() + limit);
                        (at, n, limit)
                    });
                    match start_call(ctx, writer.events(), &round, &step, timed) {
                        Ok(task) => {
                            step_of_task.insert(running.spawn(caught(task)).id(), step.clone());
                            started.push(step);
                        }
                        Err(message) => {
                            fail(writer, &mut round, &step, message, Vec::new());
                            unsaved = false;
                        }
                    }
                    continue;
                }
                Some(joined) = running.join_next() => joined,
            },
            None => {
                let next = tokio::select! {
                    _ = ctx.control.cancel.cancelled() => None,
                    next = running.join_next() => next,
                };
                let Some(joined) = next else { break };
                joined
            }
        };
        let (step, request, result) = match joined {
            Ok(done) => done,
            Err(join_error) => {
                // Only a panic (a bug) ends a call task this way while the round runs.
                let Some(step) = step_of_task.remove(&join_error.id()) else {
                    continue;
                };
                if join_error.is_panic() {
                    let message = internal_error(&round.id, &step, join_error.into_panic());
                    fail(writer, &mut round, &step, message, Vec::new());
                    unsaved = false;
                }
                continue;
            }
        };
        unsaved = false; // every arm below stores a snapshot
        match result {
            Ok(outcome) => record_phase(ctx, writer, &mut round, &step, &request, outcome),
            Err(failure) if step.seat.is_some() || step.correction > 0 => {
                record_failed_aside(ctx, writer, &mut round, &step, &request, failure)
            }
            Err(failure) => {
                let message = failure.to_string();
                fail(writer, &mut round, &step, message, failure.attempts)
            }
        }
    }
    drop(running); // abandons calls still under way (cancelled runs)
    let finished = |round: &Round| EngineEvent::RoundFinished {
        round_id: round.id.clone(),
    };
    let status = status_of(&steps, &round);
    if let Some(error) = panel_without_judges(&round, status) {
        round.error = Some(error);
        round.status = RoundStatus::Incomplete;
        writer.save(&round, vec![finished(&round)]);
    } else if status == round.status && !unsaved {
        // The last snapshot already holds the final state.
        writer.events().emit(finished(&round));
    } else {
        round.status = status;
        writer.save(&round, vec![finished(&round)]);
    }
    round
}

/// A panel that ended with no judge's evaluation leaves the round incomplete (a resumed
/// run asks the judges again).
fn panel_without_judges(round: &Round, status: RoundStatus) -> Option<RoundError> {
    let panel = round.panel.as_ref()?;
    if status == RoundStatus::Incomplete || panel.aggregate.is_some() || round.error.is_some() {
        return None;
    }
    let last = round.phases.iter().rev().find(|p| p.judge_id.is_some())?;
    Some(RoundError {
        phase_type: last.phase_type,
        model_id: last.model_id.clone(),
        message: "no panel judge gave a readable evaluation; resume to ask them again".to_string(),
        timestamp: now_rfc3339(),
        attempts: Vec::new(),
    })
}

/// Complete or needing review once every step has run; incomplete before.
fn status_of(steps: &[Step], round: &Round) -> RoundStatus {
    if steps.iter().all(|s| s.is_done(round)) {
        round.settled_status()
    } else {
        RoundStatus::Incomplete
    }
}

/// The round's error for a call task that panicked: what broke, where, and that the round was
/// kept (the panic's backtrace went to the log file through the panic hook).
fn internal_error(round_id: &str, step: &Step, payload: Box<dyn std::any::Any + Send>) -> String {
    format!(
        "internal error in round {round_id} ({} of {}): {}; the round was kept and a resumed run \
         retries it; please report it",
        step.phase_type.as_str(),
        step.model,
        crate::panic_message(payload.as_ref())
    )
}

/// Records a step that failed after its retries (with every attempt, when a call was
/// made): the round stops starting calls.
fn fail(
    writer: &RoundWriter,
    round: &mut Round,
    step: &Step,
    message: String,
    attempts: Vec<Attempt>,
) {
    tracing::warn!(round = %round.id, phase = step.phase_type.as_str(), model = %step.model, error = %message, "phase failed after its retries; the round stops");
    round.error = Some(RoundError {
        phase_type: step.phase_type,
        model_id: step.model.clone(),
        message: message.clone(),
        timestamp: now_rfc3339(),
        attempts,
    });
    round.status = RoundStatus::Incomplete;
    let failed = EngineEvent::PhaseFailed {
        round_id: round.id.clone(),
        phase_type: step.phase_type,
        model: step.speaker(),
        error: message,
    };
    writer.save(round, vec![failed]);
}

/// Builds the step's request and the task that makes the call, streaming coalesced deltas;
/// a call with a deadline (`timed`: the deadline, deliberation round and time limit of a
/// timed panel deliberation; batched calls are not timed) still running when it passes
/// fails as timed out.
fn start_call(
    ctx: &RoundContext,
    events: RoundEvents,
    round: &Round,
    step: &Step,
    timed: Option<(Instant, u32, Duration)>,
) -> Result<impl Future<Output = CallResult> + Send + 'static, String> {
    let mut request = ctx
        .judging
        .request(ctx.protocol.as_ref(), step, round)
        .map_err(|e| e.to_string())?;
    let client = ctx
        .registry
        .get(&step.model)
        .ok_or_else(|| format!("model \"{}\" was not set up", step.model))?;
    // The temperature in force is the one the phase records.
    let role = if step.phase_type.is_judging() {
        ctx.temperatures.judges
    } else {
        ctx.temperatures.debaters
    };
    request.temperature = role.or(request.temperature).or(client.config().temperature);
    // Never sent; the response cache keys each repetition apart.
    request.tag.repetition = Some(round.repetition);
    let step = step.clone();
    let round_id = round.id.clone();
    let speaker = step.speaker();
    events.emit(EngineEvent::PhaseStarted {
        round_id: round_id.clone(),
        phase_type: step.phase_type,
        model: speaker.clone(),
    });
    if client.is_batched() {
        events.emit(EngineEvent::PhaseBatched {
            round_id: round_id.clone(),
            phase_type: step.phase_type,
            model: speaker.clone(),
        });
    }
    // On a timeout, the phase is recorded with the step and request it was made with.
    let time_up_of = timed
        .filter(|_| !client.is_batched())
        .map(|(at, n, limit)| (at, n, limit, step.clone(), request.clone()));
    let call = async move {
        let mut pending = String::new();
        let mut last_sent = Instant::now();
        let send = |text: String| EngineEvent::TextDelta {
            round_id: round_id.clone(),
            phase_type: step.phase_type,
            model: speaker.clone(),
            text,
        };
        let result = client
            .complete(&request, &mut |event| match event {
                CallEvent::Delta(text) => {
                    pending.push_str(text);
                    if pending.len() >= DELTA_BYTES || last_sent.elapsed() >= DELTA_INTERVAL {
                        events.emit(send(std::mem::take(&mut pending)));
                        last_sent = Instant::now();
                    }
                }
                CallEvent::RetryScheduled {
                    attempt,
                    wait,
                    error,
                    ..
                } => {
                    pending.clear();
                    events.emit(EngineEvent::RetryScheduled {
                        round_id: round_id.clone(),
                        phase_type: step.phase_type,
                        model: speaker.clone(),
                        attempt,
                        wait,
                        error: error.to_string(),
                    });
                }
            })
            .await;
        if !pending.is_empty() {
            events.emit(send(pending));
        }
        let snapshot = client.rate_snapshot();
        if snapshot.adaptive && !client.is_batched() {
            events.emit(EngineEvent::RateLimits {
                quota: client.quota_label().to_string(),
                snapshot,
            });
        }
        (step, request, result)
    };
    Ok(async move {
        match time_up_of {
            Some((at, n, limit, step, request)) => {
                tokio::time::timeout_at(at, call).await.unwrap_or_else(|_| {
                    let failure = time_up(&step.model, n, limit);
                    (step, request, Err(failure))
                })
            }
            None => call.await,
        }
    })
}

/// The phase a call produced, before its answer is known.
fn phase_of(step: &Step, request: &ChatRequest) -> Phase {
    Phase {
        prompt: request.last_user_text().to_string(),
        earlier_turns: request.turns[..request.turns.len().saturating_sub(1)]
            .iter()
            .map(|t| t.text.clone())
            .collect(),
        timestamp: now_rfc3339(),
        system_prompt: request.system.clone(),
        judge_id: step.seat.as_ref().map(|s| s.judge_id.clone()),
        deliberation_round: step.seat.as_ref().map(|s| s.deliberation_round),
        turn: step.turn,
        correction: step.correction,
        temperature: request.temperature,
        ..Phase::new(step.phase_type, &step.model, "")
    }
}

/// Stores a finished phase (and a judgment parsed from it); the writer announces it.
fn record_phase(
    ctx: &RoundContext,
    writer: &RoundWriter,
    round: &mut Round,
    step: &Step,
    request: &ChatRequest,
    outcome: CallOutcome,
) {
    // A reused answer's usage is the original call's: kept apart, never counted as spent.
    let reused = outcome.reused_from.map(|stored_at| Reused {
        stored_at,
        input_tokens: outcome.completion.usage.map(|u| u.input_tokens),
        output_tokens: outcome.completion.usage.map(|u| u.output_tokens),
    });
    let usage = outcome.completion.usage.filter(|_| reused.is_none());
    // The budget projects the next call's cost from the calls made; a reused answer made none.
    if reused.is_none() {
        ctx.control.record_call(outcome.cost_usd);
    }
    if outcome.completion.usage_estimated && reused.is_none() {
        ctx.control.note_estimated_usage(&step.model);
    }
    let phase = Phase {
        response: outcome.completion.text,
        latency_ms: Some(outcome.latency.as_millis() as u64),
        attempts: outcome.attempts,
        input_tokens: usage.map(|u| u.input_tokens),
        output_tokens: usage.map(|u| u.output_tokens),
        cached_input_tokens: usage.map(|u| u.cached_input_tokens).filter(|&n| n > 0),
        cache_write_tokens: usage.map(|u| u.cache_write_tokens).filter(|&n| n > 0),
        cost_usd: outcome.cost_usd,
        cache_saved_usd: outcome
            .cache_saved_usd
            .filter(|_| usage.is_some_and(|u| u.cached_input_tokens + u.cache_write_tokens > 0)),
        truncated: outcome.completion.finish_reason == FinishReason::Length,
        batch_id: outcome.completion.batch_id,
        usage_estimated: outcome.completion.usage_estimated && reused.is_none(),
        finish_reason: Some(outcome.completion.provider_finish_reason),
        reused_from_cache: reused,
        constrained: ctx
            .registry
            .get(&step.model)
            .is_some_and(|client| client.constrains(request)),
        ..phase_of(step, request)
    };
    round.phases.push(phase);
    ctx.protocol.after_phase(round);
    record_judging(ctx, round, step);
    save_settled(ctx, writer, round, Vec::new());
}

/// Stores the round with its status (the last phase's snapshot carries the round's final
/// status), followed by `events`.
fn save_settled(
    ctx: &RoundContext,
    writer: &RoundWriter,
    round: &mut Round,
    events: Vec<EngineEvent>,
) {
    let steps = steps_of(ctx, round).unwrap_or_default();
    round.status = status_of(&steps, round);
    writer.save(round, events);
}

/// Records a call the round can do without that failed after its retries: a panel judge's
/// (the panel goes on without that judge), or a judge's correction turn (the answer before
/// it stands and the round waits for a person).
fn record_failed_aside(
    ctx: &RoundContext,
    writer: &RoundWriter,
    round: &mut Round,
    step: &Step,
    request: &ChatRequest,
    failure: CallFailure,
) {
    tracing::warn!(round = %round.id, judge = %step.speaker(), error = %failure, "judging call failed after its retries; the round goes on without it");
    round.phases.push(Phase {
        error: Some(failure.to_string()),
        attempts: failure.attempts.clone(),
        ..phase_of(step, request)
    });
    let failed = EngineEvent::PhaseFailed {
        round_id: round.id.clone(),
        phase_type: step.phase_type,
        model: step.speaker(),
        error: failure.to_string(),
    };
    record_judging(ctx, round, step);
    save_settled(ctx, writer, round, vec![failed]);
}

/// Brings the round's judgments up to date with a finished call: a single judge's
/// judgment, or the panel's record and the judgments read from its judges.
fn record_judging(ctx: &RoundContext, round: &mut Round, step: &Step) {
    if let Err(e) = ctx.judging.record(ctx.protocol.as_ref(), round, step) {
        tracing::warn!(round = %round.id, error = %e, "judging could not be recorded");
    }
}
