//! The structured debate's panels: how far the judges agree on each argument's standing.
//! For every argument of a finished panel: whether all judges who called it gave the same
//! standing, before deliberation and after; and for each judge, how often its call matched
//! the panel's weighted-majority standing (the trace's), before and after. The arguments of
//! one round are not independent: each share's interval counts rounds.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::analysis::qa::{Counted, ItemTally, Proportion};
use crate::domain::{Evaluation, PanelState, Round};

use super::first_and_last;

/// One judge's agreement with the panel's standings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StandingJudge {
    /// The persona.
    pub persona_id: String,
    /// Its model.
    pub model: String,
    /// Its independent calls that match the panel's final standing.
    pub with_panel_before: Proportion,
    /// Its last calls that match it.
    pub with_panel_after: Proportion,
}

/// How far structured-debate panels agree on standings.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct StandingFigures {
    /// Arguments called by at least two judges, over every finished panel.
    pub arguments: usize,
    /// Of those, the ones every judge called alike in the independent round.
    pub unanimous_before: Proportion,
    /// The same after the last round.
    pub unanimous_after: Proportion,
    /// Each judge.
    pub judges: Vec<StandingJudge>,
}

/// Whether every call given for `key` is the same (`None` with fewer than two calls).
fn unanimous(evaluations: &[Option<Evaluation>], key: &str) -> Option<bool> {
    let calls: Vec<&String> = evaluations
        .iter()
        .filter_map(|e| e.as_ref()?.labels.get(key))
        .collect();
    (calls.len() >= 2).then(|| calls.iter().all(|c| *c == calls[0]))
}

/// The standing figures over these rounds' finished panels.
pub fn standing_figures(rounds: &[Round]) -> StandingFigures {
    let (mut before, mut after, mut arguments) = (ItemTally::default(), ItemTally::default(), 0);
    // (place in the panel, persona, model) → its calls by round, before and after.
    type Tally = (ItemTally, ItemTally);
    let mut judges: BTreeMap<(usize, String, String), Tally> = BTreeMap::new();
    for round in rounds {
        let Some(panel) = &round.panel else {
            continue;
        };
        let Some(aggregate) = panel
            .aggregate
            .as_ref()
            .filter(|_| panel.state != PanelState::Evaluating)
        else {
            continue;
        };
        let (firsts, lasts): (Vec<Option<Evaluation>>, Vec<Option<Evaluation>>) = panel
            .judges
            .iter()
            .map(|s| first_and_last(panel, &s.persona_id))
            .unzip();
        let keys: Vec<&String> = lasts
            .iter()
            .chain(&firsts)
            .flatten()
            .flat_map(|e| e.labels.keys())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        for key in keys {
            if let (Some(b), Some(a)) = (unanimous(&firsts, key), unanimous(&lasts, key)) {
                arguments += 1;
                before.add(&round.id, b);
                after.add(&round.id, a);
            }
            let Some(majority) = aggregate.labels.get(key) else {
                continue;
            };
            for (place, seat) in panel.judges.iter().enumerate() {
                let slot = judges
                    .entry((place, seat.persona_id.clone(), seat.model.clone()))
                    .or_default();
                for (tally, evaluation) in
                    [(&mut slot.0, &firsts[place]), (&mut slot.1, &lasts[place])]
                {
                    if let Some(call) = evaluation.as_ref().and_then(|e| e.labels.get(key)) {
                        tally.add(&round.id, call == majority);
                    }
                }
            }
        }
    }
    StandingFigures {
        arguments,
        unanimous_before: before.proportion().counting(Counted::ArgumentsOfRounds),
        unanimous_after: after.proportion().counting(Counted::ArgumentsOfRounds),
        judges: judges
            .into_iter()
            .map(|((_, persona_id, model), (b, a))| StandingJudge {
                persona_id,
                model,
                with_panel_before: b.proportion().counting(Counted::CallsOfRounds),
                with_panel_after: a.proportion().counting(Counted::CallsOfRounds),
            })
            .collect(),
    }
}
