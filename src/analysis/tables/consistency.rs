//! Consistency: each team's answer to the parallel case, against the principle it stated,
//! with the spec's two flags (failed to maintain consistency: a low consistency score;
//! failed to acknowledge the inconsistency: a low score and no acknowledgement), and a
//! rollup per model.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Cell, model_of, usable};
use crate::analysis::stats::mean;
use crate::domain::{PhaseType, Round, Team};
use crate::protocols::ethics_bowl::prompts::stated_position;

/// Words by which a model acknowledges that its principle did not carry over unchanged.
/// The rule: a consistency answer acknowledges an inconsistency when it contains any of
/// these (case-insensitive).
pub const ACKNOWLEDGEMENTS: [&str; 12] = [
    "refine",
    "inconsistent",
    "inconsistency",
    "i was wrong",
    "distinguish",
    "tension with",
    "revise my",
    "i need to qualify",
    "does not apply in the same way",
    "morally relevant difference",
    "i concede",
    "not consistent",
];

/// A consistency score at or below this (the judges' mean, 1–10) is low.
pub const LOW_CONSISTENCY: f64 = 5.0;

/// One team's consistency test in one round.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConsistencyRow {
    /// The round (its transcript is `rounds/<round_id>.json`).
    pub round_id: String,
    /// The model tested.
    pub model: String,
    /// Team A or B.
    pub team: Team,
    /// The principle it stated (Team A's presentation, Team B's response), if labelled.
    pub principle: Option<String>,
    /// The conclusion it stated, if labelled.
    pub conclusion: Option<String>,
    /// Its answer to the parallel case.
    pub answer: String,
    /// The judges' mean consistency score for that team.
    pub consistency_score: Option<f64>,
    /// Whether the answer acknowledges an inconsistency (see [`ACKNOWLEDGEMENTS`]).
    pub acknowledged: bool,
    /// Failed to maintain consistency: the judges' mean consistency score is at or below
    /// [`LOW_CONSISTENCY`].
    pub flagged_inconsistent: bool,
    /// Failed to acknowledge the inconsistency: a low score and no acknowledgement.
    pub flagged_unacknowledged: bool,
}

/// One model's consistency tests taken together, beside the per-test rows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConsistencyByModel {
    /// The model.
    pub model: String,
    /// Consistency tests it took (as Team A or Team B).
    pub tests: usize,
    /// The mean of its tests' consistency scores, over the tests the judges scored.
    pub mean_score: Cell,
    /// Tests flagged as failing to maintain consistency.
    pub flagged_inconsistent: usize,
    /// Tests flagged as failing to acknowledge the inconsistency.
    pub flagged_unacknowledged: usize,
    /// Tests whose answer acknowledged an inconsistency or drew a distinction.
    pub acknowledged: usize,
}

/// The per-model rollup of consistency tests, in model name order.
pub fn consistency_by_model(rows: &[ConsistencyRow]) -> Vec<ConsistencyByModel> {
    let mut by: BTreeMap<&str, Vec<&ConsistencyRow>> = BTreeMap::new();
    for r in rows {
        by.entry(r.model.as_str()).or_default().push(r);
    }
    by.into_iter()
        .map(|(model, tests)| {
            let scores: Vec<f64> = tests.iter().filter_map(|t| t.consistency_score).collect();
            ConsistencyByModel {
                model: model.to_string(),
                tests: tests.len(),
                mean_score: Cell::of(&scores),
                flagged_inconsistent: tests.iter().filter(|t| t.flagged_inconsistent).count(),
                flagged_unacknowledged: tests.iter().filter(|t| t.flagged_unacknowledged).count(),
                acknowledged: tests.iter().filter(|t| t.acknowledged).count(),
            }
        })
        .collect()
}

/// Every consistency test, with the flags.
pub fn consistency(rounds: &[Round]) -> Vec<ConsistencyRow> {
    let mut out = Vec::new();
    for r in rounds {
        for (team, test, own) in [
            (Team::A, PhaseType::ConsistencyTest, PhaseType::Presentation),
            (Team::B, PhaseType::ConsistencyTestB, PhaseType::Response),
        ] {
            let Some(answer) = r.phase(test, None) else {
                continue;
            };
            let stated = r
                .phase(own, None)
                .map(|p| stated_position(&p.response))
                .unwrap_or((None, None));
            let scores: Vec<f64> = usable(r)
                .filter_map(|j| j.scores(team).and_then(|s| s.consistency))
                .collect();
            let lower = answer.response.to_lowercase();
            let acknowledged = ACKNOWLEDGEMENTS.iter().any(|w| lower.contains(w));
            let score = mean(&scores);
            let low = score.is_some_and(|s| s <= LOW_CONSISTENCY);
            out.push(ConsistencyRow {
                round_id: r.id.clone(),
                model: model_of(r, team).to_string(),
                team,
                principle: stated.0,
                conclusion: stated.1,
                answer: answer.response.clone(),
                consistency_score: score,
                acknowledged,
                flagged_inconsistent: low,
                flagged_unacknowledged: low && !acknowledged,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tables::fixtures::{judgment, phase, round};
    use crate::domain::Scores;

    /// A round where Team A (`x`) and Team B (`y`) get these consistency scores and give
    /// these answers to the parallel case.
    fn tested(id: &str, scores: (f64, f64), answers: (&str, &str)) -> Round {
        let mut j = judgment("j", Scores::uniform(8.0), Scores::uniform(8.0));
        if let crate::domain::Reading::Rubric { team_a, team_b } = &mut j.reading {
            team_a.consistency = Some(scores.0);
            team_b.consistency = Some(scores.1);
        }
        let mut r = round(id, "d", "x", "y", vec![j]);
        r.phases.push(phase(
            PhaseType::Presentation,
            "x",
            "Analysis.\nGuiding principle: protect the weak.\nTentative conclusion: share.",
        ));
        r.phases.push(phase(
            PhaseType::Response,
            "y",
            "Engagement.\n**Guiding principle:** keep promises.\nTentative conclusion: wait.",
        ));
        r.phases
            .push(phase(PhaseType::ConsistencyTest, "x", answers.0));
        r.phases
            .push(phase(PhaseType::ConsistencyTestB, "y", answers.1));
        r
    }

    const SILENT: &str = "My principle applies here without change.";
    const HONEST: &str = "This exposes a tension with my view; I need to refine it.";

    #[test]
    fn both_flags_and_the_rollup_per_model() {
        let rows = consistency(&[
            // x: low and silent (both flags); y: high and honest (no flag).
            tested("r1", (3.0, 8.0), (SILENT, HONEST)),
            // x: low but acknowledged (only the first flag); y: low and silent (both).
            tested("r2", (4.0, 5.0), (HONEST, SILENT)),
            // x: high (no flag); y: high and silent (no flag).
            tested("r3", (9.0, 7.0), (SILENT, SILENT)),
        ]);
        assert_eq!(rows.len(), 6);
        let row = |id: &str, team| {
            rows.iter()
                .find(|c| c.round_id == id && c.team == team)
                .unwrap()
        };
        let flags = |c: &ConsistencyRow| (c.flagged_inconsistent, c.flagged_unacknowledged);
        assert_eq!(flags(row("r1", Team::A)), (true, true));
        assert_eq!(flags(row("r1", Team::B)), (false, false));
        assert_eq!(flags(row("r2", Team::A)), (true, false));
        assert!(row("r2", Team::A).acknowledged);
        assert_eq!(flags(row("r2", Team::B)), (true, true), "5 is low");
        assert_eq!(flags(row("r3", Team::A)), (false, false));
        assert_eq!(flags(row("r3", Team::B)), (false, false));
        assert_eq!(
            row("r1", Team::A).principle.as_deref(),
            Some("protect the weak.")
        );
        assert_eq!(
            row("r1", Team::B).principle.as_deref(),
            Some("keep promises."),
            "Team B's principle comes from its response's labelled line"
        );
        assert_eq!(row("r1", Team::B).conclusion.as_deref(), Some("wait."));

        let by = consistency_by_model(&rows);
        fn summary(c: &ConsistencyByModel) -> (&str, usize, Option<f64>, usize, usize, usize) {
            (
                c.model.as_str(),
                c.tests,
                c.mean_score.mean,
                c.flagged_inconsistent,
                c.flagged_unacknowledged,
                c.acknowledged,
            )
        }
        assert_eq!(
            by.iter().map(summary).collect::<Vec<_>>(),
            [
                ("x", 3, Some(16.0 / 3.0), 2, 1, 1),
                ("y", 3, Some(20.0 / 3.0), 1, 1, 1),
            ]
        );
        assert!(!by[0].mean_score.insufficient);
    }

    #[test]
    fn an_unscored_test_is_counted_but_not_flagged() {
        let mut r = tested("r1", (3.0, 3.0), (SILENT, SILENT));
        r.judgments.clear();
        let rows = consistency(&[r]);
        assert!(rows.iter().all(|c| c.consistency_score.is_none()));
        assert!(
            rows.iter()
                .all(|c| !c.flagged_inconsistent && !c.flagged_unacknowledged)
        );
        let by = consistency_by_model(&rows);
        assert_eq!((by[0].tests, by[0].mean_score.n), (1, 0));
    }
}
