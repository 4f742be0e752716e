//! What each model's answered calls say beyond their text: how many answers were cut at the
//! output-token limit, and how many have usage the server did not report (their tokens and
//! cost are estimates). `summary.json` and the report share it, so the two agree; it covers
//! every protocol, debaters and judges alike.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::domain::{Phase, Round};

/// One model's answered calls, or every model's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CallCounts {
    /// Calls that answered (failed calls are not counted, nor answers the response cache
    /// gave, which are `reused_phases`).
    pub calls: usize,
    /// Answers that ended at the output-token limit and may be cut short.
    pub truncated_phases: usize,
    /// Answers whose server reported no usage: their tokens, and the cost from them, are
    /// estimates.
    pub estimated_usage_phases: usize,
    /// Whether any usage counted here is estimated (`estimated_usage_phases > 0`).
    pub usage_estimated: bool,
    /// Answers the response cache gave instead of a call: earlier runs' answers, not new
    /// samples (left out when none).
    #[serde(skip_serializing_if = "is_zero")]
    pub reused_phases: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl CallCounts {
    /// Counts one answered phase.
    fn add(&mut self, p: &Phase) {
        self.calls += usize::from(p.reused_from_cache.is_none());
        self.truncated_phases += usize::from(p.truncated);
        self.estimated_usage_phases += usize::from(p.usage_estimated);
        self.usage_estimated = self.estimated_usage_phases > 0;
        self.reused_phases += usize::from(p.reused_from_cache.is_some());
    }

    /// The counts of several models together.
    pub fn total<'a>(counts: impl IntoIterator<Item = &'a CallCounts>) -> Self {
        let mut t = Self::default();
        for c in counts {
            t.calls += c.calls;
            t.truncated_phases += c.truncated_phases;
            t.estimated_usage_phases += c.estimated_usage_phases;
            t.reused_phases += c.reused_phases;
        }
        t.usage_estimated = t.estimated_usage_phases > 0;
        t
    }
}

/// Whether no answer was cut, no usage estimated and no answer reused from the response
/// cache: then the report has nothing to say about the calls, and `analysis.json` leaves
/// them out.
pub fn nothing_to_say(by_model: &BTreeMap<String, CallCounts>) -> bool {
    by_model
        .values()
        .all(|c| c.truncated_phases == 0 && c.estimated_usage_phases == 0 && c.reused_phases == 0)
}

/// Every answered phase of the rounds, counted by the model that answered.
pub fn calls_by_model(rounds: &[Round]) -> BTreeMap<String, CallCounts> {
    let mut by_model: BTreeMap<String, CallCounts> = BTreeMap::new();
    for p in rounds
        .iter()
        .flat_map(|r| &r.phases)
        .filter(|p| p.error.is_none())
    {
        by_model.entry(p.model_id.clone()).or_default().add(p);
    }
    by_model
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::PhaseType;

    fn round(phases: Vec<Phase>) -> Round {
        let mut r: Round = serde_json::from_value(serde_json::json!({
            "id": "r", "dilemma_id": "d", "team_a_model": "a", "team_b_model": "b",
            "status": "complete", "timestamp": "t"
        }))
        .unwrap();
        r.phases = phases;
        r
    }

    #[test]
    fn cut_and_estimated_answers_are_counted_by_model_and_failed_calls_are_not() {
        let rounds = [
            round(vec![
                Phase {
                    truncated: true,
                    ..Phase::new(PhaseType::Presentation, "a", "cut")
                },
                Phase {
                    usage_estimated: true,
                    ..Phase::new(PhaseType::Response, "b", "x")
                },
            ]),
            round(vec![
                Phase {
                    truncated: true,
                    usage_estimated: true,
                    ..Phase::new(PhaseType::Presentation, "a", "cut")
                },
                Phase::new(PhaseType::Response, "b", "y"),
                Phase {
                    reused_from_cache: Some(crate::domain::Reused {
                        stored_at: String::new(),
                        input_tokens: None,
                        output_tokens: None,
                    }),
                    ..Phase::new(PhaseType::Rebuttal, "b", "from the cache")
                },
                Phase {
                    error: Some("down".into()),
                    truncated: true,
                    usage_estimated: true,
                    ..Phase::new(PhaseType::PanelEvaluation, "j", "")
                },
            ]),
        ];
        let by = calls_by_model(&rounds);
        assert_eq!(
            by["a"],
            CallCounts {
                calls: 2,
                truncated_phases: 2,
                estimated_usage_phases: 1,
                usage_estimated: true,
                reused_phases: 0,
            }
        );
        assert_eq!(
            (
                by["b"].calls,
                by["b"].truncated_phases,
                by["b"].usage_estimated
            ),
            (2, 0, true)
        );
        assert_eq!(by["b"].reused_phases, 1, "reused, not a call");
        assert!(!by.contains_key("j"), "a failed call answered nothing");
        let all = CallCounts::total(by.values());
        assert_eq!(
            (all.calls, all.truncated_phases, all.estimated_usage_phases),
            (4, 2, 2)
        );
        assert!(all.usage_estimated && !CallCounts::total([]).usage_estimated);
    }
}
