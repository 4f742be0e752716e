//! The Ethics Bowl before a judge panel: the fourteen scores (each team on the seven
//! criteria, 1–10), the reading of each consistency test (as a single judge gives it; not
//! deliberated on), the verdict `team_a`, `team_b` or `tie`, and the exchange as every judge
//! reads it.

use std::collections::BTreeMap;

use crate::domain::{
    Aggregate, Criterion, EthicsBowlPhase, Evaluation, Judgment, Reading, Round, Scores, Team,
};
use crate::protocols::ProtocolError;
use crate::protocols::judging::{JudgeAnswer, Quoted, consistency_test, own_judgment, schema};
use crate::protocols::layered::Layered;
use crate::protocols::lenient_json;
use crate::protocols::panel::{NO_CONFIDENCE, PanelJudged, Rubric, common_fields, text_field};

use super::{EthicsBowl, prompts};

const VERDICTS: [&str; 3] = ["team_a", "team_b", "tie"];

/// The Ethics Bowl's scores keyed by dimension (`team_a.consistency`, …).
fn dimension_scores(judgment: &Judgment) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for (team, prefix) in [(Team::A, "team_a"), (Team::B, "team_b")] {
        for c in Criterion::ALL {
            if let Some(v) = judgment.scores(team).and_then(|s| s.get(c)) {
                out.insert(format!("{prefix}.{}", c.key()), v);
            }
        }
    }
    out
}

/// A verdict as the rubric names it, from what judges write (`Team A`, `team_b`, `draw`).
fn normalise_verdict(raw: &str) -> Option<String> {
    let compact: String = raw
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    let compact = match compact.as_str() {
        "a" => "teama",
        "b" => "teamb",
        "draw" | "even" | "equal" => "tie",
        other => other,
    };
    VERDICTS
        .iter()
        .find(|v| v.replace('_', "") == compact)
        .map(|v| v.to_string())
}

impl PanelJudged for EthicsBowl {
    fn panel_tag_prefix(&self) -> &'static str {
        ""
    }

    fn panel_prompt_version(&self) -> &'static str {
        crate::protocols::judging::prompt_version::ETHICS_BOWL_PANEL
    }

    fn panel_rubric(&self, round: &Round) -> Result<Rubric, ProtocolError> {
        let criteria = prompts::criteria_list();
        let team_b_tested = round
            .phase(EthicsBowlPhase::ConsistencyTestB, None)
            .is_some();
        Ok(Rubric {
            dimensions: ["team_a", "team_b"]
                .iter()
                .flat_map(|t| {
                    Criterion::ALL
                        .iter()
                        .map(move |c| format!("{t}.{}", c.key()))
                })
                .collect(),
            scale: (1.0, 10.0),
            verdicts: VERDICTS.iter().map(|v| v.to_string()).collect(),
            level_verdict: Some("tie".into()),
            labels: Vec::new(),
            instructions: format!(
                "Score each side with a whole number from 1 to 10 on each criterion:\n{criteria}\n\n\
                 {tests}\n\n\
                 Then give your verdict (which side did better, or a tie), your confidence, \
                 findings tied to the dimensions they bear on, and your rationale.",
                tests = consistency_test::instructions(team_b_tested),
            ),
            criteria,
            answer_fields: [
                ("verdict".to_string(), schema::one_of(&VERDICTS)),
                ("confidence".to_string(), schema::fraction()),
            ]
            .into_iter()
            .chain(prompts::team_scores())
            .chain([consistency_test::schema(team_b_tested)])
            .collect(),
            shared: true,
        })
    }

    fn panel_material(&self, round: &Round) -> Result<Layered, ProtocolError> {
        let d = self.dilemma(round)?;
        let exchange = prompts::exchange_layers(&self.brief(round, d, false)?);
        Ok(Layered::new(
            format!(
                "This is an Ethics Bowl round on \"{}\": Team A presented, Team B responded, \
                 Team A rebutted, and each took a consistency test on a parallel case. Dimension \
                 keys are the team and the criterion (team_a.consistency, team_b.consistency, \
                 …).\n\n{}",
                d.title, exchange.stable
            ),
            exchange.own,
        ))
    }

    /// The scores come from the protocol's reading (so every shape the judgment parser
    /// accepts works here too); a missing verdict is inferred from the totals when every
    /// score is there, and said so.
    fn panel_evaluation(
        &self,
        round: &Round,
        judgment: &Judgment,
        answer: JudgeAnswer<'_>,
    ) -> (Evaluation, Vec<String>) {
        let objects = own_judgment(answer, &Quoted::of(round))
            .map(|own| lenient_json::objects(&own.text))
            .unwrap_or_default();
        let common = common_fields(&objects);
        let mut problems = Vec::new();
        let mut verdict =
            text_field(&objects, &["verdict", "winner"]).and_then(|v| normalise_verdict(&v));
        if verdict.is_none() {
            match (
                judgment.scores(Team::A).and_then(Scores::total),
                judgment.scores(Team::B).and_then(Scores::total),
            ) {
                (Some(a), Some(b)) => {
                    verdict = Some(
                        if a > b {
                            "team_a"
                        } else if b > a {
                            "team_b"
                        } else {
                            "tie"
                        }
                        .to_string(),
                    );
                    problems.push("no verdict given; inferred from the totals".to_string());
                }
                _ => problems.push("no verdict given".to_string()),
            }
        }
        if common.confidence.is_none() {
            problems.push(NO_CONFIDENCE.to_string());
        }
        (
            Evaluation {
                scores: dimension_scores(judgment),
                verdict,
                confidence: common.confidence,
                labels: BTreeMap::new(),
                findings: common.findings,
                rationale: common.rationale,
            },
            problems,
        )
    }

    /// The weighted mean of each score.
    fn panel_reading(
        &self,
        _round: &Round,
        aggregate: &Aggregate,
        _finals: &[(f64, &Judgment)],
    ) -> Reading {
        let scores = |team: &str| {
            let mut s = Scores::default();
            for c in Criterion::ALL {
                s.set(
                    c,
                    aggregate
                        .scores
                        .get(&format!("{team}.{}", c.key()))
                        .copied(),
                );
            }
            s
        };
        Reading::Rubric {
            team_a: scores("team_a"),
            team_b: scores("team_b"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::ethics_bowl::{EthicsBowlOptions, judgment_from_answer};

    fn round() -> Round {
        serde_json::from_value(serde_json::json!({
            "id": "r", "dilemma_id": "d", "team_a_model": "a", "team_b_model": "b",
            "status": "incomplete", "timestamp": "t"
        }))
        .unwrap()
    }

    fn full(extra: &str) -> String {
        let keys: Vec<String> = Criterion::ALL
            .iter()
            .map(|c| format!("\"{}\": 7", c.key()))
            .collect();
        format!(
            "Here is my evaluation.\n```json\n{{\"team_a_scores\": {{{k}}}, \"team_b_scores\": {{{k}}}{extra}}}\n```",
            k = keys.join(", ")
        )
    }

    fn evaluate(raw: &str) -> (Evaluation, Vec<String>) {
        let answer = JudgeAnswer::free_text(raw);
        EthicsBowl::new([], EthicsBowlOptions::default()).panel_evaluation(
            &round(),
            &judgment_from_answer("m", answer, &Quoted::none()),
            answer,
        )
    }

    #[test]
    fn reads_every_field() {
        let (e, problems) = evaluate(&full(
            ", \"verdict\": \"Team B\", \"confidence\": \"70%\", \"key_findings\": [{\"dimension\": \"team_b.consistency\", \"finding\": \"held up\"}], \"rationale\": \"close\"",
        ));
        assert_eq!(e.scores.len(), 14);
        assert_eq!(e.verdict.as_deref(), Some("team_b"));
        assert_eq!(e.confidence, Some(0.7));
        assert_eq!(e.findings[0].dimension, "team_b.consistency");
        assert_eq!(e.rationale, "close");
        assert!(problems.is_empty(), "{problems:?}");
    }

    #[test]
    fn infers_a_missing_verdict_and_says_so() {
        let (e, problems) = evaluate(&full(""));
        assert_eq!(e.verdict.as_deref(), Some("tie"));
        assert_eq!(problems.len(), 2, "{problems:?}");
        let (e, _) = evaluate("nothing");
        assert!(e.verdict.is_none() && e.scores.is_empty());
    }
}
