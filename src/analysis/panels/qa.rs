//! The question-answer debate's panels: how often the panel's answer and each judge's was
//! correct, before deliberation (the weighted vote of the independent answers; each judge's
//! own) and after (the panel's final answer; each judge's last), per format and level, on
//! items with a correct answer. Each share counts items in its interval: the rounds of one
//! item (its debater pairings, its repetitions) are not independent.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::analysis::qa::{ItemTally, Proportion};
use crate::domain::{Evaluation, PanelSeat, PanelState, ProtocolKind, QaFormat, Round};
use crate::protocols::panel::aggregate;
use crate::protocols::qa_debate::verdict_of;

use super::first_and_last;

/// One judge's (or the panel's) accuracy in one format and level.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AccuracyRow {
    /// The format judged.
    pub format: QaFormat,
    /// The items' level.
    pub level: String,
    /// The persona, or `panel` for the panel's answer.
    pub judge: String,
    /// The persona's model (empty for the panel).
    pub model: String,
    /// After the independent answers: the judge's own, or the weighted vote of all.
    pub before: Proportion,
    /// After the last deliberation round: the judge's last answer, or the panel's.
    pub after: Proportion,
}

/// The accuracy of question-answer panels and their judges.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct QaPanelAccuracy {
    /// Per format and level: the panel first, then each judge in panel order.
    pub rows: Vec<AccuracyRow>,
}

/// Hits and trials before and after, by item.
type Counts = (ItemTally, ItemTally);

fn count(slot: &mut ItemTally, item: &str, verdict: Option<&String>, correct: &str) {
    if let Some(v) = verdict {
        slot.add(item, v == correct);
    }
}

/// The accuracy figures over these rounds' finished panels.
pub fn panel_accuracy(rounds: &[Round]) -> QaPanelAccuracy {
    let protocol = crate::protocols::stored(ProtocolKind::QaDebate);
    // (format, level, place in the panel (0: the panel), judge, model).
    let mut counts: BTreeMap<(QaFormat, String, usize, String, String), Counts> = BTreeMap::new();
    for round in rounds {
        let (Some(setup), Some(panel)) = (round.qa(), &round.panel) else {
            continue;
        };
        let Some(correct) = setup.assignment.correct_side.map(verdict_of) else {
            continue;
        };
        if panel.state == PanelState::Evaluating {
            continue;
        }
        let key = |place: usize, judge: &str, model: &str| {
            (
                setup.format,
                setup.level.clone(),
                place,
                judge.to_string(),
                model.to_string(),
            )
        };
        let evaluations: Vec<(&PanelSeat, Option<Evaluation>, Option<Evaluation>)> = panel
            .judges
            .iter()
            .map(|s| {
                let (first, last) = first_and_last(panel, &s.persona_id);
                (s, first, last)
            })
            .collect();
        let independent: Vec<(&PanelSeat, &Evaluation)> = evaluations
            .iter()
            .filter_map(|(s, first, _)| Some((*s, first.as_ref()?)))
            .collect();
        let vote_before = protocol
            .panel_rubric(round)
            .ok()
            .and_then(|rubric| aggregate(&independent, &rubric))
            .and_then(|a| a.verdict);
        let vote_after = round
            .scores
            .as_ref()
            .and_then(|j| j.choice())
            .map(|c| verdict_of(c.side).to_string());
        let slot = counts.entry(key(0, "panel", "")).or_default();
        let item = setup.item_id.as_str();
        count(&mut slot.0, item, vote_before.as_ref(), correct);
        count(&mut slot.1, item, vote_after.as_ref(), correct);
        for (place, (seat, first, last)) in evaluations.iter().enumerate() {
            let slot = counts
                .entry(key(place + 1, &seat.persona_id, &seat.model))
                .or_default();
            count(
                &mut slot.0,
                item,
                first.as_ref().and_then(|e| e.verdict.as_ref()),
                correct,
            );
            count(
                &mut slot.1,
                item,
                last.as_ref().and_then(|e| e.verdict.as_ref()),
                correct,
            );
        }
    }
    QaPanelAccuracy {
        rows: counts
            .into_iter()
            .map(
                |((format, level, _, judge, model), (before, after))| AccuracyRow {
                    format,
                    level,
                    judge,
                    model,
                    before: before.proportion(),
                    after: after.proportion(),
                },
            )
            .collect(),
    }
}
