//! One round as one Inspect sample: its input, every call's answer as a message saying who
//! spoke in which role, one score per judge, and the round's record as metadata. A round
//! that failed is a sample with an `error` and no scores.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::log::{
    ChatCompletionChoice, ChatMessage, EvalError, EvalSample, ModelEvent, ModelOutput, ModelUsage,
    Score,
};
use crate::domain::{Phase, Round, Team};
use crate::export::raters::{self, Rater};
use crate::export::seats::{self, model_of, side_name};
use crate::export::{Source, team_str};
use crate::providers::Usage;

/// The sample of `round`, its input the text given (the dilemma, question or proposition).
pub fn of_round(source: &Source, round: &Round, input: String) -> EvalSample {
    let mut messages = vec![ChatMessage::User {
        content: input.clone(),
        source: "input",
    }];
    messages.extend(round.phases.iter().map(|p| message(round, p)));
    let events = round.phases.iter().map(|p| event(round, p)).collect();
    let raters = raters::of_round(source, round);
    let failed = round.error.is_some();
    let scores = (!failed)
        .then(|| {
            raters
                .iter()
                .filter(|r| r.usable)
                .map(|r| (r.score_name(), score(r)))
                .collect::<BTreeMap<_, _>>()
        })
        .filter(|s| !s.is_empty());
    let mut model_usage: BTreeMap<String, ModelUsage> = BTreeMap::new();
    for p in round.phases.iter().filter(|p| p.error.is_none()) {
        model_usage
            .entry(p.model_id.clone())
            .or_default()
            .add(&tokens_of(p), p.cost_usd);
    }
    let completed = round
        .phases
        .iter()
        .filter_map(|p| p.timestamp.parse::<jiff::Timestamp>().ok())
        .max();
    EvalSample {
        id: round.id.clone(),
        epoch: round.repetition,
        input,
        target: round
            .qa()
            .map(|s| s.label.as_str().to_string())
            .unwrap_or_default(),
        messages,
        events,
        scores,
        metadata: metadata(round, &raters),
        model_usage,
        error: round.error.as_ref().map(|e| EvalError {
            message: format!(
                "{} ({}) failed: {}",
                e.phase_type.as_str(),
                e.model_id,
                e.message
            ),
            traceback: attempts_text(&e.attempts),
            traceback_ansi: attempts_text(&e.attempts),
        }),
        started_at: round.timestamp.clone(),
        total_time: completed
            .zip(round.timestamp.parse::<jiff::Timestamp>().ok())
            .map(|(end, start)| end.duration_since(start).as_secs_f64().max(0.0)),
        completed_at: completed.map(|t| t.to_string()),
    }
}

/// Every attempt of a failed call, one line each.
fn attempts_text(attempts: &[crate::domain::Attempt]) -> String {
    attempts
        .iter()
        .map(|a| {
            format!(
                "attempt {}: {} ms{}",
                a.number,
                a.latency_ms,
                a.error
                    .as_deref()
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default()
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// One call's answer, saying who spoke, in which role and for which side.
fn message(round: &Round, p: &crate::domain::Phase) -> ChatMessage {
    let seat = seats::of_phase(p);
    let mut m = Map::new();
    m.insert("phase".into(), json!(p.phase_type.as_str()));
    m.insert("phase_title".into(), json!(p.phase_type.title()));
    m.insert("role".into(), json!(seat.role));
    if let Some(side) = seat.side {
        m.insert("side".into(), json!(team_str(side)));
        m.insert("side_name".into(), json!(side_name(round.kind(), side)));
    }
    m.insert("speaker".into(), json!(p.speaker()));
    m.insert("model".into(), json!(p.model_id));
    let optional = [
        ("judge", p.judge_id.as_ref().map(|j| json!(j))),
        ("deliberation_round", p.deliberation_round.map(|r| json!(r))),
        ("argument_round", p.turn.map(|t| json!(t.round))),
        ("input_tokens", p.input_tokens.map(|t| json!(t))),
        ("output_tokens", p.output_tokens.map(|t| json!(t))),
        ("cost_usd", p.cost_usd.map(|c| json!(c))),
        ("latency_ms", p.latency_ms.map(|l| json!(l))),
        ("finish_reason", p.finish_reason.as_ref().map(|f| json!(f))),
        ("error", p.error.as_ref().map(|e| json!(e))),
        ("finished_at", Some(json!(p.timestamp))),
    ];
    m.extend(
        optional
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k.to_string(), v))),
    );
    if p.truncated {
        m.insert("truncated".into(), json!(true));
    }
    if p.correction > 0 || p.turn.is_some_and(|t| t.attempt > 0) {
        m.insert("correction".into(), json!(true));
    }
    ChatMessage::Assistant {
        content: p.response.clone(),
        source: "generate",
        model: p.model_id.clone(),
        metadata: m,
    }
}

/// One call as a model event: what the model was sent (its system prompt, the turns before,
/// the prompt) and its answer with usage, timed from the round's start.
fn event(round: &Round, p: &crate::domain::Phase) -> ModelEvent {
    let mut input = Vec::new();
    if !p.system_prompt.is_empty() {
        input.push(ChatMessage::System {
            content: p.system_prompt.clone(),
            source: "input",
        });
    }
    // Earlier turns alternate from a user turn.
    for (i, turn) in p.earlier_turns.iter().enumerate() {
        input.push(if i % 2 == 0 {
            ChatMessage::User {
                content: turn.clone(),
                source: "input",
            }
        } else {
            ChatMessage::Assistant {
                content: turn.clone(),
                source: "generate",
                model: p.model_id.clone(),
                metadata: Map::new(),
            }
        });
    }
    input.push(ChatMessage::User {
        content: p.prompt.clone(),
        source: "input",
    });
    let finished: Option<jiff::Timestamp> = p.timestamp.parse().ok();
    let latency = p
        .latency_ms
        .map(|ms| jiff::SignedDuration::from_millis(ms as i64));
    let started = finished
        .zip(latency)
        .and_then(|(f, l)| f.checked_sub(l).ok());
    let round_start: Option<jiff::Timestamp> = round.timestamp.parse().ok();
    let working_start = started
        .zip(round_start)
        .map(|(s, r)| s.duration_since(r).as_secs_f64().max(0.0))
        .unwrap_or(0.0);
    let seconds = p.latency_ms.map(|ms| ms as f64 / 1000.0);
    let mut usage = ModelUsage::default();
    usage.add(&tokens_of(p), p.cost_usd);
    let mut config = Map::new();
    if let Some(t) = p.temperature {
        config.insert("temperature".into(), json!(t));
    }
    ModelEvent {
        event: "model",
        timestamp: started.or(finished).map(|t| t.to_string()),
        working_start,
        model: p.model_id.clone(),
        role: event_role(round, p),
        input,
        tools: Vec::new(),
        tool_choice: "none",
        config,
        output: ModelOutput {
            model: p.model_id.clone(),
            choices: vec![ChatCompletionChoice {
                message: ChatMessage::Assistant {
                    content: p.response.clone(),
                    source: "generate",
                    model: p.model_id.clone(),
                    metadata: Map::new(),
                },
                stop_reason: stop_reason(p.finish_reason.as_deref(), p.truncated),
            }],
            usage: (p.input_tokens.is_some() || p.output_tokens.is_some()).then_some(usage),
            time: seconds,
        },
        retries: (p.attempts.len() > 1).then(|| p.attempts.len() - 1),
        cache: p.reused_from_cache.is_some().then_some("read"),
        error: p.error.clone(),
        completed: finished.map(|t| t.to_string()),
        working_time: seconds,
    }
}

/// Who a call was, for the transcript's heading: the side a debater spoke for, `judge`, or
/// the panel judge.
fn event_role(round: &Round, p: &crate::domain::Phase) -> String {
    let seat = seats::of_phase(p);
    match (seat.side, &p.judge_id) {
        (Some(side), _) => side_name(round.kind(), side).to_string(),
        (None, Some(persona)) => format!("panel judge {persona}"),
        (None, None) => seat.role.to_string(),
    }
}

/// Inspect's stop reason for a provider's finish reason (OpenAI's `stop` and `length`,
/// Anthropic's `end_turn` and `max_tokens`, Gemini's `STOP`, `MAX_TOKENS` and `SAFETY`).
fn stop_reason(finish: Option<&str>, truncated: bool) -> &'static str {
    if truncated {
        return "max_tokens";
    }
    match finish.map(str::to_ascii_lowercase).as_deref() {
        Some("stop" | "end_turn" | "stop_sequence") => "stop",
        Some("length" | "max_tokens") => "max_tokens",
        Some("content_filter" | "safety" | "refusal" | "recitation") => "content_filter",
        _ => "unknown",
    }
}

/// A judge's score: its observations as a dict, the verdict or choice as the answer, its
/// reasons as the explanation.
fn score(r: &Rater) -> Score {
    let mut value = Map::new();
    let mut answer = None;
    for o in &r.observations {
        let v = match (&o.answer, o.score) {
            (Some(a), _) => {
                answer.get_or_insert_with(|| a.clone());
                json!(a)
            }
            (None, Some(s)) => json!(s),
            (None, None) => Value::Null,
        };
        value.insert(o.key(), v);
    }
    let mut metadata = Map::new();
    metadata.insert("judge".into(), json!(r.judge));
    metadata.insert("judge_kind".into(), json!(r.kind.as_str()));
    metadata.insert("judge_model".into(), json!(r.model));
    metadata.insert("names_shown".into(), json!(r.names_shown));
    metadata.insert("parse_status".into(), json!(r.parse_status));
    metadata.extend(r.details.clone());
    Score {
        value,
        answer,
        explanation: (!r.explanation.trim().is_empty()).then(|| r.explanation.clone()),
        metadata,
    }
}

/// The round's record: pairing, sides, judges, status, the protocol's setup, the panel's
/// course, and the judgments that could not be read (they are not scores).
fn metadata(round: &Round, raters: &[Rater]) -> Map<String, Value> {
    let kind = round.kind();
    let mut m = Map::new();
    m.insert("round_id".into(), json!(round.id));
    m.insert("protocol".into(), json!(kind.as_str()));
    m.insert("item_id".into(), json!(round.dilemma_id));
    m.insert("repetition".into(), json!(round.repetition));
    m.insert("status".into(), json!(round.status.as_str()));
    let sides: Map<String, Value> = [Team::A, Team::B]
        .into_iter()
        .filter(|t| !model_of(round, *t).is_empty())
        .map(|t| {
            let mut side = Map::new();
            side.insert("model".into(), json!(model_of(round, t)));
            side.insert("side_name".into(), json!(side_name(kind, t)));
            if let Some(setup) = round.qa() {
                side.insert("answer".into(), json!(setup.answer(t).as_str()));
            }
            (team_str(t).to_string(), Value::Object(side))
        })
        .collect();
    let seated: Vec<&str> = [round.team_a_model.as_str(), round.team_b_model.as_str()]
        .into_iter()
        .filter(|m| !m.is_empty())
        .collect();
    m.insert("pairing".into(), json!(seated.join(" vs ")));
    m.insert("sides".into(), Value::Object(sides));
    m.insert("judges".into(), json!(round.judge_models));
    if let Some(setup) = round.qa() {
        m.insert(
            "qa".into(),
            json!({
                "format": setup.format.as_str(),
                "level": setup.level,
                "label": setup.label.as_str(),
                "correct_side": setup.assignment.correct_side.map(team_str),
                "relation": setup.relation,
                "debate_rounds": setup.debate_rounds,
            }),
        );
    }
    if let Some(setup) = round.structured() {
        m.insert(
            "structured".into(),
            json!({
                "topic": setup.topic.id,
                "proposition": setup.topic.proposition,
            }),
        );
    }
    if let Some(panel) = &round.panel {
        m.insert(
            "panel".into(),
            json!({
                "judges": panel.judges,
                "state": panel.state.as_str(),
                "converged": panel.converged,
                "deliberation_rounds": panel.deliberation_rounds(),
                "initial_agreement": panel.initial_agreement,
                "final_agreement": panel.final_agreement,
            }),
        );
    }
    let unread: Vec<Value> = raters
        .iter()
        .filter(|r| !r.usable)
        .map(|r| {
            json!({
                "judge": r.judge,
                "judge_model": r.model,
                "parse_status": r.parse_status,
                "problems": r.problems,
            })
        })
        .collect();
    if !unread.is_empty() {
        m.insert("unread_judgments".into(), Value::Array(unread));
    }
    if !round.earlier_errors.is_empty() {
        m.insert(
            "earlier_errors".into(),
            json!(
                round
                    .earlier_errors
                    .iter()
                    .map(|e| format!("{} ({}): {}", e.phase_type.as_str(), e.model_id, e.message))
                    .collect::<Vec<_>>()
            ),
        );
    }
    m
}

/// A stored call's tokens as one usage (a count not recorded is 0).
fn tokens_of(p: &Phase) -> Usage {
    Usage {
        input_tokens: p.input_tokens.unwrap_or(0),
        output_tokens: p.output_tokens.unwrap_or(0),
        cached_input_tokens: p.cached_input_tokens.unwrap_or(0),
        cache_write_tokens: p.cache_write_tokens.unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_providers_finish_reason_reads_as_inspects_stop_reason() {
        for (finish, want) in [
            ("stop", "stop"),
            ("end_turn", "stop"),
            ("STOP", "stop"),
            ("length", "max_tokens"),
            ("MAX_TOKENS", "max_tokens"),
            ("SAFETY", "content_filter"),
            ("tool_use", "unknown"),
        ] {
            assert_eq!(stop_reason(Some(finish), false), want, "{finish}");
        }
        assert_eq!(stop_reason(None, false), "unknown");
        assert_eq!(stop_reason(Some("stop"), true), "max_tokens");
    }

    #[test]
    fn a_call_is_an_event_timed_from_the_rounds_start_with_what_it_was_sent() {
        let round = Round {
            timestamp: "2026-11-22T23:01:00Z".into(),
            ..crate::protocols::example_round(&crate::domain::ScheduledRound {
                round_id: "d__a__vs__b__r1".into(),
                dilemma_id: "d".into(),
                repetition: 1,
                team_a: "a".into(),
                team_b: "b".into(),
                judges: vec!["j".into()],
                format: None,
                relation: None,
            })
        };
        let phase = crate::domain::Phase {
            prompt: "the prompt".into(),
            system_prompt: "the system".into(),
            earlier_turns: vec!["first".into(), "ack".into()],
            timestamp: "2026-11-22T23:01:10Z".into(),
            latency_ms: Some(2_500),
            input_tokens: Some(10),
            output_tokens: Some(5),
            finish_reason: Some("end_turn".into()),
            ..crate::domain::Phase::new(crate::domain::PhaseType::Presentation, "a", "answer")
        };
        let e = event(&round, &phase);
        assert_eq!(e.role, "presenting");
        assert_eq!(e.working_start, 7.5);
        assert_eq!(e.timestamp.as_deref(), Some("2026-11-22T23:01:07.5Z"));
        assert_eq!(e.working_time, Some(2.5));
        let roles: Vec<&str> = e
            .input
            .iter()
            .map(|m| match m {
                ChatMessage::System { .. } => "system",
                ChatMessage::User { .. } => "user",
                ChatMessage::Assistant { .. } => "assistant",
            })
            .collect();
        assert_eq!(roles, ["system", "user", "assistant", "user"]);
        assert_eq!(e.output.choices[0].stop_reason, "stop");
        assert_eq!(e.output.usage.as_ref().map(|u| u.total_tokens), Some(15));
        assert_eq!(e.cache, None, "a call");
        let reused = crate::domain::Phase {
            reused_from_cache: Some(crate::domain::Reused {
                stored_at: "2026-11-21T10:00:00Z".into(),
                input_tokens: Some(10),
                output_tokens: Some(5),
            }),
            input_tokens: None,
            output_tokens: None,
            ..phase
        };
        let e = event(&round, &reused);
        assert_eq!(
            e.cache,
            Some("read"),
            "as Inspect marks its own cache's answers"
        );
        assert!(e.output.usage.is_none(), "no tokens of this run");
    }
}
