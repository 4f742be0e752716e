//! Hand corrections from the review queue: the corrected judgment is stored in the round file
//! marked `corrected_by_hand`, the judge's original text kept beside it.

use crate::domain::{Judgment, ParseStatus, Round};
use crate::protocols::ethics_bowl::judgment_from_text;
use crate::store::Store;

use super::events::Correction;

/// Applies a correction to a stored round and stores it; the error says why it was refused.
pub fn apply_correction(
    store: &Store,
    round_id: &str,
    judge_model: &str,
    correction: &Correction,
) -> Result<(Round, Judgment), String> {
    let mut round = store
        .load_round(round_id)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("no round \"{round_id}\" in {}", store.dir().display()))?;
    let original = round
        .judgments
        .iter()
        .find(|j| j.judge_model == judge_model)
        .cloned()
        .ok_or_else(|| format!("round \"{round_id}\" has no judgment by \"{judge_model}\""))?;
    let mut corrected = match correction {
        Correction::Text(text) => {
            let reread = judgment_from_text(judge_model, text);
            if reread.parse_status != ParseStatus::Parsed {
                return Err(format!(
                    "the corrected text still lacks scores: {}",
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
                team_a_scores: *team_a,
                team_b_scores: *team_b,
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
    if round.status != crate::domain::RoundStatus::Incomplete {
        round.status = round.settled_status();
    }
    store.save_round(&round).map_err(|e| e.to_string())?;
    Ok((round, corrected))
}
