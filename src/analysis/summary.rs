//! The tournament summary (`summary.json`): scores by model, by model and role, by dilemma,
//! and the cross-model matrix. One usable judgment (parsed or corrected by hand) is one
//! observation; rounds that need review or are incomplete count only in the tallies.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::domain::{Criterion, Round, RoundStatus, Team};

/// A mean with the number of observations behind it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct CellSummary {
    /// Observations.
    pub n: usize,
    /// Their mean; absent when `n` is 0.
    pub mean: Option<f64>,
}

impl CellSummary {
    fn of(values: &[f64]) -> Self {
        Self {
            n: values.len(),
            mean: (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64),
        }
    }
}

/// A model in one role.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RoleSummary {
    /// Team total (out of 70).
    pub total: CellSummary,
    /// Each criterion (out of 10).
    pub criteria: BTreeMap<String, CellSummary>,
}

/// A model over the whole tournament.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ModelSummary {
    /// Team total over both roles.
    pub total: CellSummary,
    /// As Team A.
    pub presenting: RoleSummary,
    /// As Team B.
    pub responding: RoleSummary,
}

/// A dilemma over all rounds.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DilemmaSummary {
    /// Team totals over both teams.
    pub total: CellSummary,
}

/// The whole summary.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Rounds in the store.
    pub rounds: usize,
    /// Rounds complete.
    pub complete: usize,
    /// Rounds whose judgments need review.
    pub needs_review: usize,
    /// Rounds not finished.
    pub incomplete: usize,
    /// Usable judgments.
    pub judgments: usize,
    /// Prompt and answer tokens of every stored phase.
    pub tokens: (u64, u64),
    /// Estimated dollars of every stored phase with prices.
    pub cost_usd: f64,
    /// The same, by the model that answered (debating and judging).
    pub cost_usd_by_model: BTreeMap<String, f64>,
    /// By model.
    pub models: BTreeMap<String, ModelSummary>,
    /// By dilemma.
    pub dilemmas: BTreeMap<String, DilemmaSummary>,
    /// Team A's margin (A total − B total) by Team A then Team B.
    pub matrix: BTreeMap<String, BTreeMap<String, CellSummary>>,
}

/// Summarises rounds.
pub fn summarize(rounds: &[Round]) -> Summary {
    let mut s = Summary {
        rounds: rounds.len(),
        ..Summary::default()
    };
    let mut totals: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut role_totals: BTreeMap<(String, Team), Vec<f64>> = BTreeMap::new();
    let mut role_criteria: BTreeMap<(String, Team, Criterion), Vec<f64>> = BTreeMap::new();
    let mut dilemma_totals: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut margins: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
    for r in rounds {
        match r.status {
            RoundStatus::Complete => s.complete += 1,
            RoundStatus::NeedsReview => s.needs_review += 1,
            RoundStatus::Incomplete => s.incomplete += 1,
        }
        let (i, o) = r.tokens();
        s.tokens.0 += i;
        s.tokens.1 += o;
        s.cost_usd += r.cost_usd();
        for p in &r.phases {
            if let Some(c) = p.cost_usd {
                *s.cost_usd_by_model.entry(p.model_id.clone()).or_default() += c;
            }
        }
        for j in r.judgments.iter().filter(|j| j.is_usable()) {
            let (Some(a), Some(b)) = (j.team_a_scores.total(), j.team_b_scores.total()) else {
                continue;
            };
            s.judgments += 1;
            for (team, model, total) in
                [(Team::A, &r.team_a_model, a), (Team::B, &r.team_b_model, b)]
            {
                totals.entry(model.clone()).or_default().push(total);
                role_totals
                    .entry((model.clone(), team))
                    .or_default()
                    .push(total);
                for c in Criterion::ALL {
                    if let Some(v) = j.scores(team).get(c) {
                        role_criteria
                            .entry((model.clone(), team, c))
                            .or_default()
                            .push(v);
                    }
                }
                dilemma_totals
                    .entry(r.dilemma_id.clone())
                    .or_default()
                    .push(total);
            }
            margins
                .entry((r.team_a_model.clone(), r.team_b_model.clone()))
                .or_default()
                .push(a - b);
        }
    }
    for r in rounds {
        for m in [&r.team_a_model, &r.team_b_model] {
            s.models.entry(m.clone()).or_default();
        }
        s.dilemmas.entry(r.dilemma_id.clone()).or_default();
    }
    for (model, summary) in s.models.iter_mut() {
        summary.total = CellSummary::of(totals.get(model).map_or(&[][..], Vec::as_slice));
        for (team, role) in [
            (Team::A, &mut summary.presenting),
            (Team::B, &mut summary.responding),
        ] {
            role.total = CellSummary::of(
                role_totals
                    .get(&(model.clone(), team))
                    .map_or(&[][..], Vec::as_slice),
            );
            for c in Criterion::ALL {
                let values = role_criteria
                    .get(&(model.clone(), team, c))
                    .map_or(&[][..], Vec::as_slice);
                role.criteria
                    .insert(c.key().to_string(), CellSummary::of(values));
            }
        }
    }
    for (d, summary) in s.dilemmas.iter_mut() {
        summary.total = CellSummary::of(dilemma_totals.get(d).map_or(&[][..], Vec::as_slice));
    }
    for ((a, b), values) in margins {
        s.matrix
            .entry(a)
            .or_default()
            .insert(b, CellSummary::of(&values));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Judgment, ParseStatus, Scores};

    fn scores(v: f64) -> Scores {
        let mut s = Scores::default();
        for c in Criterion::ALL {
            s.set(c, Some(v));
        }
        s
    }

    fn round(a: &str, b: &str, d: &str, sa: f64, sb: f64, status: ParseStatus) -> Round {
        let j = Judgment {
            judge_model: "j".into(),
            team_a_scores: scores(sa),
            team_b_scores: scores(sb),
            team_a_justification: String::new(),
            team_b_justification: String::new(),
            overall_analysis: String::new(),
            parse_status: status,
            problems: vec![],
            raw_response: String::new(),
            corrected_text: None,
        };
        let mut r: Round = serde_json::from_value(serde_json::json!({
            "id": format!("{d}__{a}__vs__{b}"), "dilemma_id": d, "team_a_model": a, "team_b_model": b,
            "status": "complete", "timestamp": "t"
        }))
        .unwrap();
        r.judge_models = vec!["j".into()];
        r.put_judgment(j);
        r.status = r.settled_status();
        r
    }

    #[test]
    fn means_by_model_role_dilemma_and_matrix() {
        let rounds = vec![
            round("a", "b", "d1", 8.0, 6.0, ParseStatus::Parsed),
            round("b", "a", "d1", 7.0, 9.0, ParseStatus::CorrectedByHand),
            round("a", "b", "d2", 5.0, 5.0, ParseStatus::Partial),
        ];
        let s = summarize(&rounds);
        assert_eq!(
            (s.rounds, s.complete, s.needs_review, s.judgments),
            (3, 2, 1, 2)
        );
        let a = &s.models["a"];
        assert_eq!(
            a.total,
            CellSummary {
                n: 2,
                mean: Some((56.0 + 63.0) / 2.0)
            }
        );
        assert_eq!(
            a.presenting.total,
            CellSummary {
                n: 1,
                mean: Some(56.0)
            }
        );
        assert_eq!(
            a.responding.criteria["consistency"],
            CellSummary {
                n: 1,
                mean: Some(9.0)
            }
        );
        assert_eq!(
            s.dilemmas["d2"].total.n, 0,
            "a partial judgment does not count"
        );
        assert_eq!(
            s.matrix["a"]["b"],
            CellSummary {
                n: 1,
                mean: Some(14.0)
            }
        );
        assert_eq!(s.matrix["b"]["a"].mean, Some(-14.0));
    }
}
