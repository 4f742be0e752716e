//! Runs one round: each step starts as soon as the phases it quotes have finished, calls run
//! concurrently, every finished phase is stored before it is announced (see
//! [`RoundWriter`]), and a step that
//! fails after its retries leaves the round incomplete with what finished kept.

use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::domain::{Phase, PhaseType, Round, RoundError, RoundStatus, now_rfc3339};
use crate::protocols::{Protocol, Step};
use crate::providers::{CallEvent, CallFailure, CallOutcome, ChatRequest, ModelRegistry};
use crate::store::Store;

use super::control::Control;
use super::events::EngineEvent;
use super::round_writer::{RoundEvents, RoundWriter};

/// What a round task needs.
pub(crate) struct RoundContext {
    pub protocol: Arc<dyn Protocol>,
    pub registry: ModelRegistry,
    pub store: Store,
    pub control: Control,
}

/// Text deltas are sent in pieces of at least this many bytes…
const DELTA_BYTES: usize = 256;
/// …or after this long, whichever comes first.
const DELTA_INTERVAL: Duration = Duration::from_millis(33);

type CallResult = (Step, ChatRequest, Result<CallOutcome, CallFailure>);

/// Runs the round's remaining steps and returns it as stored.
pub(crate) async fn run_round(ctx: Arc<RoundContext>, mut round: Round) -> Round {
    // Whether the round differs from its file: a new round has none yet, and a resumed
    // one loses the error that stopped it.
    let mut unsaved = round.error.take().is_some() || round.phases.is_empty();
    let writer = RoundWriter::start(Arc::clone(&ctx));
    let steps = ctx.protocol.steps(&round);
    let mut running: JoinSet<CallResult> = JoinSet::new();
    let mut started: Vec<(PhaseType, String)> = Vec::new();
    let mut stopped = false;
    loop {
        if !stopped && round.error.is_none() {
            for step in steps
                .iter()
                .filter(|s| !s.is_done(&round) && s.is_ready(&round))
            {
                if started.contains(&(step.phase_type, step.model.clone())) {
                    continue;
                }
                if !ctx.control.may_start_call().await {
                    stopped = true;
                    break;
                }
                match start_call(&ctx, writer.events(), &round, step) {
                    Ok(task) => {
                        started.push((step.phase_type, step.model.clone()));
                        running.spawn(task);
                    }
                    Err(message) => {
                        fail(&writer, &mut round, step, message);
                        unsaved = false;
                        break;
                    }
                }
            }
        }
        let next = tokio::select! {
            _ = ctx.control.cancel.cancelled() => None,
            next = running.join_next() => next,
        };
        let Some(joined) = next else { break };
        let Ok((step, request, result)) = joined else {
            continue;
        };
        unsaved = false; // both arms below store a snapshot
        match result {
            Ok(outcome) => {
                record_phase(&ctx, &writer, &steps, &mut round, &step, &request, outcome)
            }
            Err(failure) => fail(&writer, &mut round, &step, failure.to_string()),
        }
    }
    drop(running); // abandons calls still under way (cancelled runs)
    let finished = |round: &Round| EngineEvent::RoundFinished {
        round_id: round.id.clone(),
        status: round.status,
        error: round.error.as_ref().map(|e| e.message.clone()),
    };
    let status = status_of(&steps, &round);
    if status == round.status && !unsaved {
        // The last snapshot already holds the final state.
        writer.events().emit(finished(&round));
    } else {
        round.status = status;
        writer.save(&round, vec![finished(&round)]);
    }
    writer.finish().await;
    round
}

/// Complete or needing review once every step has run; incomplete before.
fn status_of(steps: &[Step], round: &Round) -> RoundStatus {
    if steps.iter().all(|s| s.is_done(round)) {
        round.settled_status()
    } else {
        RoundStatus::Incomplete
    }
}

/// Records a step that failed after its retries: the round stops starting calls.
fn fail(writer: &RoundWriter, round: &mut Round, step: &Step, message: String) {
    tracing::debug!(round = %round.id, phase = step.phase_type.as_str(), model = %step.model, error = %message, "phase failed");
    round.error = Some(RoundError {
        phase_type: step.phase_type,
        model_id: step.model.clone(),
        message: message.clone(),
        timestamp: now_rfc3339(),
    });
    round.status = RoundStatus::Incomplete;
    let failed = EngineEvent::PhaseFailed {
        round_id: round.id.clone(),
        phase_type: step.phase_type,
        model: step.model.clone(),
        error: message,
    };
    writer.save(round, vec![failed]);
}

/// Builds the step's request and the task that makes the call, streaming coalesced deltas.
fn start_call(
    ctx: &RoundContext,
    events: RoundEvents,
    round: &Round,
    step: &Step,
) -> Result<impl Future<Output = CallResult> + Send + 'static, String> {
    let request = ctx
        .protocol
        .request(step, round)
        .map_err(|e| e.to_string())?;
    let client = ctx
        .registry
        .get(&step.model)
        .ok_or_else(|| format!("model \"{}\" was not set up", step.model))?;
    let step = step.clone();
    let round_id = round.id.clone();
    events.emit(EngineEvent::PhaseStarted {
        round_id: round_id.clone(),
        phase_type: step.phase_type,
        model: step.model.clone(),
    });
    Ok(async move {
        let mut pending = String::new();
        let mut last_sent = Instant::now();
        let send = |text: String| EngineEvent::TextDelta {
            round_id: round_id.clone(),
            phase_type: step.phase_type,
            model: step.model.clone(),
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
                        model: step.model.clone(),
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
        (step, request, result)
    })
}

/// Stores a finished phase (and a judgment parsed from it), then announces it.
fn record_phase(
    ctx: &RoundContext,
    writer: &RoundWriter,
    steps: &[Step],
    round: &mut Round,
    step: &Step,
    request: &ChatRequest,
    outcome: CallOutcome,
) {
    let usage = outcome.completion.usage;
    ctx.control.record_call(
        usage.map_or(0, |u| u.input_tokens),
        usage.map_or(0, |u| u.output_tokens),
        outcome.cost_usd,
    );
    let phase = Phase {
        phase_type: step.phase_type,
        model_id: step.model.clone(),
        prompt: request.last_user_text().to_string(),
        response: outcome.completion.text,
        timestamp: now_rfc3339(),
        system_prompt: request.system.clone(),
        latency_ms: Some(outcome.latency.as_millis() as u64),
        attempts: outcome.attempts,
        input_tokens: usage.map(|u| u.input_tokens),
        output_tokens: usage.map(|u| u.output_tokens),
        cost_usd: outcome.cost_usd,
        finish_reason: Some(format!("{:?}", outcome.completion.finish_reason).to_lowercase()),
    };
    let judgment = (step.phase_type == PhaseType::Judgment)
        .then(|| ctx.protocol.judge(&step.model, &phase.response));
    round.phases.push(phase.clone());
    if let Some(j) = &judgment {
        round.put_judgment(j.clone());
    }
    // The last phase's snapshot carries the round's final status.
    round.status = status_of(steps, round);
    let mut events = vec![EngineEvent::PhaseCompleted {
        round_id: round.id.clone(),
        phase: Box::new(phase),
    }];
    if let Some(j) = judgment {
        events.push(EngineEvent::JudgmentRecorded {
            round_id: round.id.clone(),
            judgment: Box::new(j),
        });
    }
    writer.save(round, events);
}
