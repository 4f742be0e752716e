//! The summary of a finished panel (the source design's debate summary): deliberation
//! rounds held, agreement before and after and its improvement, whether it converged and
//! why it stopped, each round's disagreements by count and type, and every judge's final
//! verdict with its confidence.

use std::collections::BTreeMap;

use crate::domain::{
    Disagreement, DisagreementKind, Evaluation, FinalVerdict, PanelRound, PanelState, PanelSummary,
    RoundDisputes,
};

use super::Rubric;

/// What a disagreement is about: the verdict, a label the rubric names, or a dimension.
pub fn disagreement_kind(d: &Disagreement, rubric: &Rubric) -> DisagreementKind {
    if d.subject == "verdict" {
        DisagreementKind::Verdict
    } else if rubric.labels.contains(&d.subject) {
        DisagreementKind::Label
    } else {
        DisagreementKind::Dimension
    }
}

/// The summary of a panel that stopped for `stop_reason` after `rounds`, with `finals`
/// each judge's evaluation in force at the end (in the panel's order).
pub fn summarize(
    rounds: &[PanelRound],
    rubric: &Rubric,
    stop_reason: PanelState,
    finals: &[(&str, &Evaluation)],
) -> PanelSummary {
    let initial = rounds.first().and_then(|r| r.agreement).map(|a| a.overall);
    let last = rounds.last().and_then(|r| r.agreement).map(|a| a.overall);
    PanelSummary {
        deliberation_rounds: rounds.len().saturating_sub(1) as u32,
        initial_agreement: initial,
        final_agreement: last,
        improvement: initial.zip(last).map(|(a, b)| b - a),
        converged: stop_reason == PanelState::Converged,
        stop_reason,
        rounds: rounds
            .iter()
            .map(|r| {
                let mut types: BTreeMap<DisagreementKind, usize> = BTreeMap::new();
                for d in &r.disagreements {
                    *types.entry(disagreement_kind(d, rubric)).or_default() += 1;
                }
                RoundDisputes {
                    number: r.number,
                    agreement: r.agreement.map(|a| a.overall),
                    disagreements: r.disagreements.len(),
                    types,
                }
            })
            .collect(),
        final_verdicts: finals
            .iter()
            .map(|(persona, e)| FinalVerdict {
                persona_id: persona.to_string(),
                verdict: e.verdict.clone(),
                confidence: e.confidence,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Agreement;

    fn rubric() -> Rubric {
        Rubric {
            dimensions: vec!["team_a.logic".into()],
            scale: (1.0, 10.0),
            verdicts: vec!["pro".into(), "con".into()],
            level_verdict: None,
            labels: vec!["PRO-1.standing".into()],
            criteria: String::new(),
            instructions: String::new(),
            answer_fields: Vec::new(),
            shared: true,
        }
    }

    fn dispute(subject: &str) -> Disagreement {
        Disagreement {
            subject: subject.into(),
            severity: 0.5,
            positions: Vec::new(),
        }
    }

    fn round(number: u32, overall: f64, disputes: &[&str]) -> PanelRound {
        PanelRound {
            number,
            evaluations: Vec::new(),
            agreement: Some(Agreement {
                overall,
                verdict: 1.0,
                dimension: 1.0,
                judges: 2,
            }),
            disagreements: disputes.iter().map(|s| dispute(s)).collect(),
        }
    }

    #[test]
    fn counts_each_rounds_disagreements_by_type_and_the_improvement() {
        let rounds = [
            round(0, 0.5, &["verdict", "team_a.logic", "PRO-1.standing"]),
            round(1, 0.7, &["team_a.logic"]),
        ];
        let x = Evaluation {
            verdict: Some("pro".into()),
            confidence: Some(0.75),
            ..Evaluation::default()
        };
        let s = summarize(&rounds, &rubric(), PanelState::RoundLimit, &[("x", &x)]);
        assert_eq!(s.deliberation_rounds, 1);
        assert!((s.improvement.unwrap() - 0.2).abs() < 1e-12);
        assert!(!s.converged);
        assert_eq!(s.rounds[0].disagreements, 3);
        assert_eq!(
            s.rounds[0].types.keys().copied().collect::<Vec<_>>(),
            [
                DisagreementKind::Verdict,
                DisagreementKind::Dimension,
                DisagreementKind::Label
            ]
        );
        assert_eq!(s.rounds[1].types[&DisagreementKind::Dimension], 1);
        assert_eq!(
            s.final_verdicts,
            [FinalVerdict {
                persona_id: "x".into(),
                verdict: Some("pro".into()),
                confidence: Some(0.75)
            }]
        );
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["rounds"][0]["types"]["label"], 1);
        assert_eq!(json["stop_reason"], "round_limit");
    }
}
