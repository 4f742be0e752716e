//! One round as one Inspect sample: its input, every call's answer as a message saying who
//! spoke in which role, one score per judge, and the round's record as metadata. A round
//! that failed is a sample with an `error` and no scores.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::log::{ChatMessage, EvalError, EvalSample, ModelUsage, Score};
use crate::domain::{Round, Team};
use crate::export::raters::{self, Rater};
use crate::export::seats::{self, model_of, side_name};
use crate::export::{Source, team_str};

/// The sample of `round`, its input the text given (the dilemma, question or proposition).
pub fn of_round(source: &Source, round: &Round, input: String) -> EvalSample {
    let mut messages = vec![ChatMessage::User {
        content: input.clone(),
        source: "input",
    }];
    messages.extend(round.phases.iter().map(|p| message(round, p)));
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
        model_usage.entry(p.model_id.clone()).or_default().add(
            p.input_tokens.unwrap_or(0),
            p.output_tokens.unwrap_or(0),
            p.cost_usd,
        );
    }
    EvalSample {
        id: round.id.clone(),
        epoch: round.repetition,
        input,
        target: round
            .qa()
            .map(|s| s.label.as_str().to_string())
            .unwrap_or_default(),
        messages,
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
        completed_at: round
            .phases
            .iter()
            .map(|p| p.timestamp.as_str())
            .filter(|t| !t.is_empty())
            .max()
            .map(str::to_string),
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
    m.insert(
        "pairing".into(),
        json!(format!("{} vs {}", round.team_a_model, round.team_b_model)),
    );
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
