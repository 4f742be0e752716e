//! The UI state of stored results (`ethics-bowl open`): the rounds are replayed through
//! `update` as the events that would have produced them, so browsing and watching share
//! every screen and every rule.

use std::time::Instant;

use crate::domain::Round;
use crate::engine::{EngineEvent, RoundView};

use super::app::{App, Mode};
use super::update::{Msg, update};

/// The state for browsing `rounds`.
pub fn browse(name: &str, rounds: &[Round], now: Instant) -> App {
    let mut app = App::new(name, Mode::Browse, now);
    let views = rounds
        .iter()
        .map(|r| RoundView {
            round_id: r.id.clone(),
            dilemma_id: r.dilemma_id.clone(),
            repetition: r.repetition,
            team_a: r.team_a_model.clone(),
            team_b: r.team_b_model.clone(),
            judges: if r.judge_models.is_empty() {
                vec![r.judge_model.clone()]
            } else {
                r.judge_models.clone()
            },
            status: r.status,
            finished: true,
            qa: r.qa().cloned().map(Box::new),
            structured: r.structured().cloned().map(Box::new),
        })
        .collect();
    update(
        &mut app,
        Msg::Engine(EngineEvent::Started {
            tournament_id: name.to_string(),
            rounds: views,
        }),
    );
    for r in rounds {
        for p in &r.phases {
            update(
                &mut app,
                Msg::Engine(EngineEvent::PhaseCompleted {
                    round_id: r.id.clone(),
                    phase: Box::new(p.clone()),
                }),
            );
        }
        if let Some(panel) = &r.panel {
            update(
                &mut app,
                Msg::Engine(EngineEvent::PanelUpdated {
                    round_id: r.id.clone(),
                    panel: Box::new(panel.clone()),
                }),
            );
        }
        for j in &r.judgments {
            update(
                &mut app,
                Msg::Engine(EngineEvent::JudgmentRecorded {
                    round_id: r.id.clone(),
                    judgment: Box::new(j.clone()),
                }),
            );
        }
        for request in crate::protocols::stored(r.kind()).review_requests(r) {
            update(
                &mut app,
                Msg::Engine(EngineEvent::ReplyNeedsReview {
                    round_id: r.id.clone(),
                    key: request.key,
                    raw: request.raw,
                    problems: request.problems,
                }),
            );
        }
        let error = r.error.as_ref().map(|e| e.message.clone());
        update(
            &mut app,
            Msg::Engine(EngineEvent::RoundFinished {
                round_id: r.id.clone(),
                status: r.status,
                error,
            }),
        );
    }
    app.log.clear();
    // What the stored calls used.
    for r in rounds {
        let (input, output) = r.tokens();
        app.totals.input_tokens += input;
        app.totals.output_tokens += output;
        app.totals.cost_usd += r.cost_usd();
        app.totals.calls += r.phases.len() as u64;
    }
    app
}
