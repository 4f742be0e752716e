//! The tournament summary (`summary.json`): scores by model, by model and role, by dilemma,
//! and the cross-model matrix. It is built from the report's own tables, so the two never
//! disagree. One usable judgment (parsed or corrected by hand) is one observation; rounds
//! that need review or are incomplete count only in the tallies.

use std::collections::BTreeMap;

use serde::Serialize;

use super::tables::{Cell, dilemma_difficulty, model_comparison};
use crate::domain::{Reading, Round, RoundStatus};

/// A model in one role.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoleSummary {
    /// Team total (out of 70).
    pub total: Cell,
    /// Each criterion (out of 10).
    pub criteria: BTreeMap<String, Cell>,
}

/// A model over the whole tournament.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelSummary {
    /// Team total over both roles.
    pub total: Cell,
    /// As Team A, when it presented.
    pub presenting: Option<RoleSummary>,
    /// As Team B, when it responded.
    pub responding: Option<RoleSummary>,
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
    /// Mean team total by dilemma.
    pub dilemmas: BTreeMap<String, Cell>,
    /// Team A's margin (A total − B total) by Team A then Team B.
    pub matrix: BTreeMap<String, BTreeMap<String, Cell>>,
    /// Question-answer judge accuracy by format (debate and each baseline).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub qa_accuracy: BTreeMap<crate::domain::QaFormat, super::qa::Proportion>,
    /// Structured-debate wins (a tie is half) and judgments, by model.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub structured_wins: BTreeMap<String, (f64, usize)>,
}

/// Summarises rounds.
pub fn summarize(rounds: &[Round]) -> Summary {
    let mut s = Summary {
        rounds: rounds.len(),
        qa_accuracy: super::qa::accuracy_by_format(rounds),
        structured_wins: super::structured::win_rates(rounds),
        ..Summary::default()
    };
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
            match &j.reading {
                Reading::Rubric { team_a, team_b } => {
                    if let (Some(a), Some(b)) = (team_a.total(), team_b.total()) {
                        s.judgments += 1;
                        margins
                            .entry((r.team_a_model.clone(), r.team_b_model.clone()))
                            .or_default()
                            .push(a - b);
                    }
                }
                // A question-answer choice, or a structured-debate trace.
                Reading::Choice(Some(_)) | Reading::Verdict(Some(_)) => s.judgments += 1,
                Reading::Choice(None) | Reading::Verdict(None) => {}
            }
        }
    }
    for row in model_comparison(rounds) {
        let role = RoleSummary {
            total: row.total,
            criteria: row
                .criteria
                .iter()
                .map(|(k, c)| (k.to_string(), *c))
                .collect(),
        };
        let entry = s.models.entry(row.model.clone()).or_insert(ModelSummary {
            total: Cell::of(&[]),
            presenting: None,
            responding: None,
        });
        if row.role == "presenting" {
            entry.presenting = Some(role);
        } else {
            entry.responding = Some(role);
        }
    }
    for m in s.models.values_mut() {
        // Both roles pooled: the n-weighted mean of the role means.
        let roles: Vec<Cell> = [&m.presenting, &m.responding]
            .into_iter()
            .flatten()
            .map(|r| r.total)
            .collect();
        let n: usize = roles.iter().map(|c| c.n).sum();
        let sum: f64 = roles
            .iter()
            .filter_map(|c| c.mean.map(|v| v * c.n as f64))
            .sum();
        m.total = Cell {
            mean: (n > 0).then(|| sum / n as f64),
            n,
            insufficient: n < super::tables::MIN_N,
        };
    }
    for r in rounds {
        for model in [&r.team_a_model, &r.team_b_model] {
            s.models.entry(model.clone()).or_insert(ModelSummary {
                total: Cell::of(&[]),
                presenting: None,
                responding: None,
            });
        }
    }
    s.dilemmas = dilemma_difficulty(rounds)
        .into_iter()
        .map(|d| (d.dilemma_id, d.mean_total))
        .collect();
    for r in rounds {
        s.dilemmas
            .entry(r.dilemma_id.clone())
            .or_insert(Cell::of(&[]));
    }
    for ((a, b), values) in margins {
        s.matrix.entry(a).or_default().insert(b, Cell::of(&values));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Judgment, ParseStatus, Scores};

    fn round(a: &str, b: &str, d: &str, sa: f64, sb: f64, status: ParseStatus) -> Round {
        let j = Judgment {
            judge_model: "j".into(),
            persona_id: None,
            reading: crate::domain::Reading::Rubric {
                team_a: Scores::uniform(sa),
                team_b: Scores::uniform(sb),
            },
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
        assert_eq!((a.total.n, a.total.mean), (2, Some((56.0 + 63.0) / 2.0)));
        assert_eq!(a.presenting.as_ref().unwrap().total.mean, Some(56.0));
        assert_eq!(
            a.responding.as_ref().unwrap().criteria["consistency"].mean,
            Some(9.0)
        );
        assert_eq!(s.dilemmas["d2"].n, 0, "a partial judgment does not count");
        assert_eq!(s.matrix["a"]["b"].mean, Some(14.0));
        assert_eq!(s.matrix["b"]["a"].mean, Some(-14.0));
    }

    #[test]
    fn the_summary_and_the_report_agree() {
        let rounds = vec![
            round("a", "b", "d1", 8.0, 6.0, ParseStatus::Parsed),
            round("b", "a", "d2", 7.0, 9.0, ParseStatus::Parsed),
        ];
        let s = summarize(&rounds);
        for row in model_comparison(&rounds) {
            let m = &s.models[&row.model];
            let role = if row.role == "presenting" {
                &m.presenting
            } else {
                &m.responding
            };
            assert_eq!(role.as_ref().unwrap().total, row.total);
        }
    }
}
