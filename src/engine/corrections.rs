//! Hand corrections from the review queue: the corrected judgment is stored in the round file
//! marked `corrected_by_hand`, the judge's original text kept beside it; a debater's reply
//! that could not be read gets its corrected text stored beside the original. Each stored
//! correction rewrites `summary.json`, so its counts follow.

use std::sync::Arc;

use crate::domain::{Judgment, ParseStatus, Reading, Round};
use crate::protocols::judging::JudgeAnswer;
use crate::protocols::panel::Panel;
use crate::store::Store;

use super::events::{Correction, EngineEvent};
use super::round_extras::save_round_extras;
use super::summary_file::refresh_or_warn;

fn load(store: &Store, round_id: &str) -> Result<Round, String> {
    store
        .load_round(round_id)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("no round \"{round_id}\" in {}", store.dir().display()))
}

/// Applies a correction from the review queue, where `key` names a judge or a debater's
/// reply waiting for review, and stores it; returns the round as stored, or why it was
/// refused.
pub(crate) fn apply(
    store: &Store,
    round_id: &str,
    key: &str,
    correction: &Correction,
) -> Result<Round, String> {
    let round = load(store, round_id)?;
    let waiting = crate::protocols::stored(round.kind()).review_requests(&round);
    if waiting.iter().any(|r| r.key == key) {
        correct_reply(store, round, key, correction)
    } else {
        correct_judgment(store, round, key, correction).map(|(round, _)| round)
    }
}

/// Applies a correction to a stored round and stores it; the error says why it was refused.
pub fn apply_correction(
    store: &Store,
    round_id: &str,
    judge: &str,
    correction: &Correction,
) -> Result<(Round, Judgment), String> {
    correct_judgment(store, load(store, round_id)?, judge, correction)
}

fn correct_judgment(
    store: &Store,
    mut round: Round,
    judge: &str,
    correction: &Correction,
) -> Result<(Round, Judgment), String> {
    let round_id = round.id.clone();
    let original = round
        .judgments
        .iter()
        .find(|j| j.judge_key() == judge)
        .cloned()
        .ok_or_else(|| format!("round \"{round_id}\" has no judgment by \"{judge}\""))?;
    let mut corrected = match correction {
        Correction::Text(text) => {
            // What the judge saw stays as recorded: the protocol that reads stored rounds
            // knows nothing of the run's options.
            let protocol = crate::protocols::stored(round.kind());
            let mut read =
                protocol.judge(&round, &original.judge_model, JudgeAnswer::free_text(text));
            // A judge that read the sides swapped wrote its text in their labels.
            if original.view.as_ref().is_some_and(|v| v.sides_swapped) {
                read = protocol.swapped_back(read);
            }
            let reread = Judgment {
                persona_id: original.persona_id.clone(),
                view: original.view.clone(),
                ..read
            };
            if reread.parse_status != ParseStatus::Parsed {
                return Err(format!(
                    "the corrected text is still incomplete: {}",
                    reread.problems.join("; ")
                ));
            }
            Judgment {
                corrected_text: Some(text.clone()),
                ..reread
            }
        }
        Correction::Scores { team_a, team_b } => {
            let all = crate::domain::Criterion::ALL.iter().all(|c| {
                [team_a.get(*c), team_b.get(*c)]
                    .iter()
                    .all(|v| v.is_some_and(|v| (1.0..=10.0).contains(&v)))
            });
            if !all {
                return Err("every one of the fourteen scores must be given, from 1 to 10".into());
            }
            Judgment {
                reading: Reading::Rubric {
                    team_a: *team_a,
                    team_b: *team_b,
                },
                problems: Vec::new(),
                ..original.clone()
            }
        }
    };
    corrected.parse_status = ParseStatus::CorrectedByHand;
    corrected.raw_response = original.raw_response;
    corrected.problems.clear();
    if corrected.team_a_justification.is_empty() {
        corrected.team_a_justification = original.team_a_justification;
    }
    if corrected.team_b_justification.is_empty() {
        corrected.team_b_justification = original.team_b_justification;
    }
    if corrected.overall_analysis.is_empty() {
        corrected.overall_analysis = original.overall_analysis;
    }
    round.put_judgment(corrected.clone());
    if let Some(record) = &round.panel {
        // The correction stands for this judge's latest answer: the aggregate moves with it.
        let protocol = crate::protocols::stored(round.kind());
        Panel::of_record(record)
            .apply(&mut round, protocol.as_ref())
            .map_err(|e| e.to_string())?;
    }
    if round.status != crate::domain::RoundStatus::Incomplete {
        round.status = round.settled_status();
    }
    store.save_round(&round).map_err(|e| e.to_string())?;
    refresh_or_warn(store);
    Ok((round, corrected))
}

/// Stores a person's corrected text for a debater's reply that waited for review; the error
/// says why it was refused.
pub fn apply_reply_correction(
    store: &Store,
    round_id: &str,
    key: &str,
    correction: &Correction,
) -> Result<Round, String> {
    correct_reply(store, load(store, round_id)?, key, correction)
}

fn correct_reply(
    store: &Store,
    mut round: Round,
    key: &str,
    correction: &Correction,
) -> Result<Round, String> {
    let Correction::Text(text) = correction else {
        return Err("a debater's reply is corrected as text (its JSON), not as scores".into());
    };
    crate::protocols::stored(round.kind()).correct_reply(&mut round, key, text)?;
    if round.status != crate::domain::RoundStatus::Incomplete {
        round.status = round.settled_status();
    }
    store.save_round(&round).map_err(|e| e.to_string())?;
    refresh_or_warn(store);
    Ok(round)
}

/// Stores a correction and announces the round as stored (or says why it was refused).
pub(super) fn correction_events(
    store: &Store,
    round_id: &str,
    judge: &str,
    correction: &Correction,
) -> EngineEvent {
    let round = match apply(store, round_id, judge, correction) {
        Ok(round) => round,
        Err(reason) => return EngineEvent::CommandRefused { reason },
    };
    save_round_extras(store, &round);
    EngineEvent::RoundStored {
        round: Arc::new(round),
    }
}
