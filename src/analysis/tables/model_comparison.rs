//! Model comparison: each model in each role (presenting, responding), each criterion's mean
//! and the team total's, each with an interval that counts exchanges (a round's debate), not
//! judgments.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Cell, model_of, usable};
use crate::domain::{Criterion, Round, Scores, Team};

/// One model in one role: each criterion's mean and the total's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelRole {
    /// The model.
    pub model: String,
    /// `presenting` (Team A) or `responding` (Team B).
    pub role: &'static str,
    /// Each criterion, by its spec key.
    pub criteria: BTreeMap<&'static str, Cell>,
    /// The team total (out of 70).
    pub total: Cell,
}

/// For each model and role, the mean of each criterion over every judgment of its rounds.
pub fn model_comparison(rounds: &[Round]) -> Vec<ModelRole> {
    // Each judgment's scores, with the exchange (the round) they are of.
    let mut by: BTreeMap<(String, Team), Vec<(usize, &Scores)>> = BTreeMap::new();
    for (exchange, r) in rounds.iter().enumerate() {
        for j in usable(r) {
            for team in [Team::A, Team::B] {
                by.entry((model_of(r, team).to_string(), team))
                    .or_default()
                    .extend(j.scores(team).map(|s| (exchange, s)));
            }
        }
    }
    by.into_iter()
        .map(|((model, team), scores)| ModelRole {
            model,
            role: if team == Team::A {
                "presenting"
            } else {
                "responding"
            },
            criteria: Criterion::ALL
                .iter()
                .map(|c| {
                    (
                        c.key(),
                        Cell::clustered(
                            &scores
                                .iter()
                                .filter_map(|(e, s)| Some((*e, s.get(*c)?)))
                                .collect::<Vec<_>>(),
                        ),
                    )
                })
                .collect(),
            total: Cell::clustered(
                &scores
                    .iter()
                    .filter_map(|(e, s)| Some((*e, s.total()?)))
                    .collect::<Vec<_>>(),
            ),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tables::fixtures::{judgment, round};

    #[test]
    fn model_comparison_by_role_with_n() {
        let rounds = vec![
            round(
                "r1",
                "d",
                "x",
                "y",
                vec![judgment("j", Scores::uniform(8.0), Scores::uniform(6.0))],
            ),
            round(
                "r2",
                "d",
                "y",
                "x",
                vec![judgment("j", Scores::uniform(7.0), Scores::uniform(9.0))],
            ),
            round(
                "r3",
                "d",
                "x",
                "y",
                vec![judgment("j", Scores::uniform(6.0), Scores::uniform(6.0))],
            ),
        ];
        let t = model_comparison(&rounds);
        let x_a = t
            .iter()
            .find(|m| m.model == "x" && m.role == "presenting")
            .unwrap();
        let c = x_a.criteria["consistency"];
        assert_eq!(
            (c.mean, c.n, c.units, c.insufficient),
            (Some(7.0), 2, 2, true)
        );
        assert_eq!(x_a.total.mean, Some(49.0));
        let x_b = t
            .iter()
            .find(|m| m.model == "x" && m.role == "responding")
            .unwrap();
        assert_eq!(x_b.total, Cell::clustered(&[(1, 63.0)]));
    }
}
