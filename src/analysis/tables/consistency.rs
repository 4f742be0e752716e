//! Consistency: each team's answer to the parallel case, against the principle it stated,
//! with the spec's two flags read from the judges' reading of that very test (see
//! [`TestReading`]): failed to maintain consistency (its principle did not carry over) and
//! failed to acknowledge the inconsistency (nor did it say so); and a rollup per model.
//! The judges' consistency score, which covers a team over the whole exchange, is shown
//! beside them. Rounds judged before judges gave the reading have no flags, and are counted.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Cell, model_of, usable};
use crate::analysis::stats::mean;
use crate::domain::{PhaseType, Round, Team};
use crate::protocols::ethics_bowl::prompts::stated_position;
use crate::protocols::judging::consistency_test::{self, TestReading};
use crate::protocols::judging::own::Quoted;

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

/// A judges' mean consistency score at or below this (1–10) is low. The flags do not read
/// it: the score is the judges' view of a team over the whole exchange, not of its test.
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
    /// The judges' mean consistency score for that team (over the whole exchange).
    pub consistency_score: Option<f64>,
    /// Each usable judgment's reading of this test, in the round's order of judgments; empty
    /// when no judge gave one (every round judged before 2026-11-27).
    pub readings: Vec<TestReading>,
    /// Whether the answer acknowledges an inconsistency or draws a distinction (see
    /// [`ACKNOWLEDGEMENTS`]).
    pub acknowledged: bool,
    /// Failed to maintain consistency: more than half of the judges' readings say its
    /// principle did not carry over (`acknowledged` or `inconsistent`).
    pub flagged_inconsistent: bool,
    /// Failed to acknowledge the inconsistency: more than half of the readings are
    /// `inconsistent` (it neither named a morally relevant difference nor admitted it).
    pub flagged_unacknowledged: bool,
}

impl ConsistencyRow {
    /// Whether any judge read this test, so that its flags say something.
    pub fn is_read(&self) -> bool {
        !self.readings.is_empty()
    }
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
    /// Tests no judge read (judged before the readings): not flagged either way.
    pub unread: usize,
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
                unread: tests.iter().filter(|t| !t.is_read()).count(),
            }
        })
        .collect()
}

/// What to tell a reader when some tests could not be flagged (none when every test was
/// read by a judge).
pub fn unread_note(rows: &[ConsistencyRow]) -> Option<String> {
    let unread = rows.iter().filter(|r| !r.is_read()).count();
    (unread > 0).then(|| {
        format!(
            "{unread} of {} consistency tests have no judge's reading of the test (judged before \
             2026-11-27, or the judge gave none): their two consistency flags are not computed \
             and they are counted as unflagged. Re-judge them (ethics-bowl rejudge) for the flags.",
            rows.len()
        )
    })
}

/// Whether more than half of `readings` satisfy `flag`.
fn majority(readings: &[TestReading], flag: impl Fn(TestReading) -> bool) -> bool {
    2 * readings.iter().filter(|r| flag(**r)).count() > readings.len()
}

/// Every consistency test, with the flags.
pub fn consistency(rounds: &[Round]) -> Vec<ConsistencyRow> {
    let mut out = Vec::new();
    for r in rounds {
        // Each usable judgment's readings of both tests, its answer read once.
        let quoted = Quoted::of(r);
        let read: Vec<[Option<TestReading>; 2]> = usable(r)
            .map(|j| consistency_test::readings(&quoted, j))
            .collect();
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
            let slot = consistency_test::team_slot(team);
            let readings: Vec<TestReading> = read.iter().filter_map(|both| both[slot]).collect();
            let lower = answer.response.to_lowercase();
            out.push(ConsistencyRow {
                round_id: r.id.clone(),
                model: model_of(r, team).to_string(),
                team,
                principle: stated.0,
                conclusion: stated.1,
                answer: answer.response.clone(),
                consistency_score: mean(&scores),
                acknowledged: ACKNOWLEDGEMENTS.iter().any(|w| lower.contains(w)),
                flagged_inconsistent: majority(&readings, TestReading::failed_to_maintain),
                flagged_unacknowledged: majority(&readings, TestReading::failed_to_acknowledge),
                readings,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tables::fixtures::{judgment, phase, round};
    use crate::domain::{Judgment, Scores};

    /// A judgment by `judge` giving these consistency scores and, when given, these readings
    /// of Team A's and Team B's tests.
    fn judged(judge: &str, scores: (f64, f64), readings: Option<(&str, &str)>) -> Judgment {
        let mut j = judgment(judge, Scores::uniform(8.0), Scores::uniform(8.0));
        if let crate::domain::Reading::Rubric { team_a, team_b } = &mut j.reading {
            team_a.consistency = Some(scores.0);
            team_b.consistency = Some(scores.1);
        }
        j.raw_response = match readings {
            Some((a, b)) => format!(
                "{{\"team_a_scores\": {{\"consistency\": {}}}, \"consistency_tests\": \
                 {{\"team_a\": \"{a}\", \"team_b\": \"{b}\"}}}}",
                scores.0
            ),
            None => format!("{{\"team_a_scores\": {{\"consistency\": {}}}}}", scores.0),
        };
        j
    }

    /// A round where Team A (`x`) and Team B (`y`) give these answers to the parallel case,
    /// judged by `judgments`.
    fn tested(id: &str, judgments: Vec<Judgment>, answers: (&str, &str)) -> Round {
        let mut r = round(id, "d", "x", "y", judgments);
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

    fn flags(c: &ConsistencyRow) -> (bool, bool) {
        (c.flagged_inconsistent, c.flagged_unacknowledged)
    }

    #[test]
    fn the_flags_read_the_judges_reading_of_the_test_not_the_score() {
        let rows = consistency(&[
            // x: read inconsistent though scored 9 (both flags); y: read consistent though
            // scored 3 (no flag).
            tested(
                "r1",
                vec![judged(
                    "j",
                    (9.0, 3.0),
                    Some(("inconsistent", "consistent")),
                )],
                (SILENT, SILENT),
            ),
            // x: acknowledged (the first flag only); y: distinguished (no flag).
            tested(
                "r2",
                vec![judged(
                    "j",
                    (4.0, 5.0),
                    Some(("acknowledged", "distinguished")),
                )],
                (HONEST, HONEST),
            ),
            // Three judges: x read inconsistent by two of three (both flags); y split
            // acknowledged, inconsistent, consistent: two of three failed to maintain (the
            // first flag), one of three unacknowledged (not the second).
            tested(
                "r3",
                vec![
                    judged("j", (5.0, 5.0), Some(("inconsistent", "acknowledged"))),
                    judged("k", (5.0, 5.0), Some(("inconsistent", "inconsistent"))),
                    judged("l", (5.0, 5.0), Some(("consistent", "consistent"))),
                ],
                (SILENT, HONEST),
            ),
            // Two judges split one failure to one consistent: not more than half, no flag.
            tested(
                "r4",
                vec![
                    judged("j", (5.0, 5.0), Some(("inconsistent", "consistent"))),
                    judged("k", (5.0, 5.0), Some(("consistent", "distinguished"))),
                ],
                (SILENT, SILENT),
            ),
        ]);
        assert_eq!(rows.len(), 8);
        let row = |id: &str, team| {
            rows.iter()
                .find(|c| c.round_id == id && c.team == team)
                .unwrap()
        };
        assert_eq!(flags(row("r1", Team::A)), (true, true));
        assert_eq!(row("r1", Team::A).consistency_score, Some(9.0));
        assert_eq!(flags(row("r1", Team::B)), (false, false));
        assert_eq!(flags(row("r2", Team::A)), (true, false));
        assert!(row("r2", Team::A).acknowledged);
        assert_eq!(flags(row("r2", Team::B)), (false, false));
        assert_eq!(flags(row("r3", Team::A)), (true, true));
        assert_eq!(
            row("r3", Team::B).readings,
            [
                TestReading::Acknowledged,
                TestReading::Inconsistent,
                TestReading::Consistent
            ]
        );
        assert_eq!(flags(row("r3", Team::B)), (true, false));
        assert_eq!(flags(row("r4", Team::A)), (false, false));
        assert!(rows.iter().all(ConsistencyRow::is_read));
        assert_eq!(unread_note(&rows), None);
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
        fn summary(c: &ConsistencyByModel) -> (&str, usize, usize, usize, usize, usize) {
            (
                c.model.as_str(),
                c.tests,
                c.flagged_inconsistent,
                c.flagged_unacknowledged,
                c.acknowledged,
                c.unread,
            )
        }
        assert_eq!(
            by.iter().map(summary).collect::<Vec<_>>(),
            [("x", 4, 3, 2, 1, 0), ("y", 4, 1, 0, 2, 0)]
        );
        assert_eq!(by[0].mean_score.mean, Some(23.0 / 4.0));
        assert!(!by[0].mean_score.insufficient);
    }

    #[test]
    fn a_test_judged_before_the_readings_is_counted_unread_and_not_flagged() {
        // Scored 3 (the old rule's flag), but no judge read the test.
        let old = tested("old", vec![judged("j", (3.0, 3.0), None)], (SILENT, SILENT));
        let rows = consistency(&[old]);
        assert!(rows.iter().all(|c| !c.is_read()));
        assert!(rows.iter().all(|c| flags(c) == (false, false)));
        assert_eq!(rows[0].consistency_score, Some(3.0), "still shown");
        let by = consistency_by_model(&rows);
        assert_eq!(
            (by[0].tests, by[0].unread, by[0].flagged_inconsistent),
            (1, 1, 0)
        );
        let note = unread_note(&rows).unwrap();
        assert!(note.starts_with("2 of 2 consistency tests"), "{note}");
        assert!(note.contains("not computed"), "{note}");
        // Serialised as before plus the readings and the count.
        let json = serde_json::to_value(&by[0]).unwrap();
        assert_eq!(json["unread"], 1);
        assert_eq!(
            serde_json::to_value(&rows[0]).unwrap()["readings"],
            serde_json::json!([])
        );
    }

    #[test]
    fn an_unscored_test_is_counted_but_not_flagged() {
        let mut r = tested(
            "r1",
            vec![judged(
                "j",
                (3.0, 3.0),
                Some(("inconsistent", "inconsistent")),
            )],
            (SILENT, SILENT),
        );
        r.judgments.clear();
        let rows = consistency(&[r]);
        assert!(rows.iter().all(|c| c.consistency_score.is_none()));
        assert!(rows.iter().all(|c| flags(c) == (false, false)));
        let by = consistency_by_model(&rows);
        assert_eq!((by[0].tests, by[0].mean_score.n), (1, 0));
    }
}
