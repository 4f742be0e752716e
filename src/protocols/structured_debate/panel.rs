//! The structured debate before a judge panel. Each judge traces every opening argument as a
//! single judge does (four scores, fallacies, a standing); the panel compares the four
//! dimensions per side (the mean of each side's argument scores: `pro.evidence`, …), the
//! verdict (`pro`, `con` or `tie`: the side that won on the weighted totals, computed from
//! the judge's scores as for every structured judgment, or `tie` when the totals read evenly
//! matched) and each argument's standing
//! (`PRO-1.standing`). The panel's trace holds the weighted mean scores and the
//! weighted-majority standing of every argument.

use std::collections::BTreeMap;

use crate::domain::{
    Aggregate, ArgumentAssessment, Evaluation, Fallacy, Judgment, Reading, Round, Side, Standing,
    StructuredVerdict,
};
use crate::protocols::ProtocolError;
use crate::protocols::judging::{JudgeAnswer, Quoted, schema};
use crate::protocols::layered::Layered;
use crate::protocols::lenient_json;
use crate::protocols::panel::{NO_CONFIDENCE, PanelJudged, Rubric, common_fields};

use super::parse::own_verdict;
use super::{StructuredDebate, argument_ids, prompts, setup_of};

/// Reads one of an assessment's four scores.
type Get = fn(&ArgumentAssessment) -> Option<f64>;
/// Points at one of an assessment's four scores.
type Slot = fn(&mut ArgumentAssessment) -> &mut Option<f64>;

/// The four scores, in the order of the weights.
const DIMENSIONS: [(&str, Get, Slot); 4] = [
    ("evidence", |a| a.evidence, |a| &mut a.evidence),
    ("logic", |a| a.logic, |a| &mut a.logic),
    (
        "responsiveness",
        |a| a.responsiveness,
        |a| &mut a.responsiveness,
    ),
    ("honesty", |a| a.honesty, |a| &mut a.honesty),
];

fn label_key(arg_id: &str) -> String {
    format!("{arg_id}.standing")
}

fn side_of(arg_id: &str) -> Option<Side> {
    Side::BOTH
        .into_iter()
        .find(|s| arg_id.to_uppercase().starts_with(s.prefix()))
}

fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// Per side and dimension, the mean of that side's argument scores (`pro.evidence`).
fn side_means(verdict: &StructuredVerdict) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for side in Side::BOTH {
        for (d, get, _) in DIMENSIONS {
            let values: Vec<f64> = verdict
                .assessments
                .iter()
                .filter(|a| side_of(&a.arg_id) == Some(side))
                .filter_map(get)
                .collect();
            if let Some(m) = mean(&values) {
                out.insert(format!("{}.{d}", side.as_str()), m);
            }
        }
    }
    out
}

/// `pro`, `con` or `tie` (evenly matched) from the side totals, when both are there.
fn winner_key(verdict: &StructuredVerdict) -> Option<String> {
    verdict.pro_total?;
    verdict.con_total?;
    Some(verdict.winner().map_or("tie", Side::as_str).to_string())
}

impl PanelJudged for StructuredDebate {
    fn panel_tag_prefix(&self) -> &'static str {
        "structured_"
    }

    fn panel_prompt_version(&self) -> &'static str {
        crate::protocols::judging::prompt_version::STRUCTURED_DEBATE_PANEL
    }

    fn panel_rubric(&self, round: &Round) -> Result<Rubric, ProtocolError> {
        let setup = setup_of(round)?;
        let w = setup.weights;
        Ok(Rubric {
            dimensions: Side::BOTH
                .iter()
                .flat_map(|s| {
                    DIMENSIONS
                        .iter()
                        .map(move |(d, _, _)| format!("{}.{d}", s.as_str()))
                })
                .collect(),
            scale: (1.0, 10.0),
            verdicts: vec!["pro".into(), "con".into(), "tie".into()],
            level_verdict: Some("tie".into()),
            labels: argument_ids(setup).iter().map(|id| label_key(id)).collect(),
            criteria: prompts::judge_criteria(),
            instructions: format!(
                "Assess every opening argument ({ids}).\n\n{criteria}\n\nThe panel compares each side's mean score per \
                 criterion (dimensions pro.evidence, con.logic, …) and each argument's standing \
                 (PRO-1.standing, …). Your verdict is not asked for: it is the side with the \
                 higher weighted total (evidence {}, logic {}, responsiveness {}, honesty {}), \
                 computed from your scores, or a tie when the totals are evenly matched ({}). Then give your confidence, the key insight, the \
                 unresolved questions, your recommendation, findings tied to the dimensions or \
                 standings they bear on, and your rationale.",
                w.evidence,
                w.logic,
                w.responsiveness,
                w.honesty,
                setup.bands.describe(),
                ids = prompts::argument_list(setup),
                criteria = prompts::judge_criteria(),
            ),
            answer_fields: std::iter::once(("confidence".to_string(), schema::fraction()))
                .chain(prompts::verdict_fields(setup))
                .collect(),
            shared: false,
        })
    }

    fn panel_material(&self, round: &Round) -> Result<Layered, ProtocolError> {
        let setup = setup_of(round)?;
        let intro = "This is a structured debate: Pro and Con gave opening arguments, \
                     cross-examined each other's and closed.\n\n";
        Ok(Layered::after(
            format!("{intro}{}", prompts::debate_for_judges(setup)),
            &format!("{intro}{}\n\n", prompts::topic_block(&setup.topic)),
        ))
    }

    fn panel_evaluation(
        &self,
        round: &Round,
        judgment: &Judgment,
        answer: JudgeAnswer<'_>,
    ) -> (Evaluation, Vec<String>) {
        let objects = own_verdict(answer, &Quoted::of(round))
            .map(|own| lenient_json::objects(&own.text))
            .unwrap_or_default();
        let common = common_fields(&objects);
        let mut problems = Vec::new();
        if common.confidence.is_none() {
            problems.push(NO_CONFIDENCE.to_string());
        }
        let verdict = judgment.verdict();
        (
            Evaluation {
                scores: verdict.map(side_means).unwrap_or_default(),
                verdict: verdict.and_then(winner_key),
                confidence: common.confidence,
                labels: verdict
                    .map(|v| {
                        v.assessments
                            .iter()
                            .filter_map(|a| {
                                Some((label_key(&a.arg_id), a.standing?.as_str().to_string()))
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
                findings: common.findings,
                rationale: common.rationale,
            },
            problems,
        )
    }

    /// Per argument, the weighted mean of each score, the fallacies named by judges holding
    /// more than half the weight, and the weighted-majority standing (UNCERTAIN, "the panel
    /// split", on a level vote); the side totals computed from those scores; the key
    /// insight and recommendation of the heaviest judge, every judge's open questions.
    fn panel_reading(
        &self,
        round: &Round,
        aggregate: &Aggregate,
        finals: &[(f64, &Judgment)],
    ) -> Reading {
        let Some(setup) = round.structured() else {
            return Reading::Verdict(None);
        };
        let verdicts: Vec<(f64, &StructuredVerdict)> = finals
            .iter()
            .filter_map(|(w, j)| Some((*w, j.verdict()?)))
            .collect();
        let assessments = argument_ids(setup)
            .into_iter()
            .map(|id| assess(&id, aggregate, &verdicts))
            .collect();
        let heaviest = verdicts
            .iter()
            .fold(
                None::<(f64, &StructuredVerdict)>,
                |best, (w, v)| match best {
                    Some((bw, _)) if bw >= *w => best,
                    _ => Some((*w, v)),
                },
            )
            .map(|(_, v)| v);
        let mut unresolved: Vec<String> = Vec::new();
        for (_, v) in &verdicts {
            for q in &v.unresolved_questions {
                if !unresolved.contains(q) {
                    unresolved.push(q.clone());
                }
            }
        }
        let mut verdict = StructuredVerdict {
            assessments,
            key_insight: heaviest.map(|v| v.key_insight.clone()).unwrap_or_default(),
            unresolved_questions: unresolved,
            recommendation: heaviest
                .map(|v| v.recommendation.clone())
                .unwrap_or_default(),
            pro_total: None,
            con_total: None,
            bands: setup.bands,
        };
        verdict.compute_totals(&setup.weights, &setup.bands);
        Reading::Verdict(Some(Box::new(verdict)))
    }
}

/// The panel's assessment of one argument.
fn assess(
    id: &str,
    aggregate: &Aggregate,
    verdicts: &[(f64, &StructuredVerdict)],
) -> ArgumentAssessment {
    let of_this: Vec<(f64, &ArgumentAssessment)> = verdicts
        .iter()
        .filter_map(|(w, v)| Some((*w, v.assessments.iter().find(|a| a.arg_id == id)?)))
        .collect();
    let mut out = ArgumentAssessment {
        arg_id: id.to_string(),
        logic: None,
        evidence: None,
        responsiveness: None,
        honesty: None,
        fallacies: Vec::new(),
        standing: None,
        reason: String::new(),
    };
    for (_, get, slot) in DIMENSIONS {
        let (sum, weight) = of_this
            .iter()
            .filter_map(|(w, a)| Some((w * get(a)?, *w)))
            .fold((0.0, 0.0), |(s, t), (x, w)| (s + x, t + w));
        *slot(&mut out) = (weight > 0.0).then(|| sum / weight);
    }
    let total: f64 = of_this.iter().map(|(w, _)| w).sum();
    out.fallacies = Fallacy::ALL
        .into_iter()
        .filter(|f| {
            let named: f64 = of_this
                .iter()
                .filter(|(_, a)| a.fallacies.contains(f))
                .map(|(w, _)| w)
                .sum();
            named > total / 2.0
        })
        .collect();
    let majority = aggregate
        .labels
        .get(&label_key(id))
        .and_then(|v| Standing::ALL.into_iter().find(|s| s.as_str() == v));
    let calls: Vec<String> = of_this
        .iter()
        .filter_map(|(w, a)| Some(format!("{} ({w})", a.standing?.as_str())))
        .collect();
    out.standing = Some(majority.unwrap_or(Standing::Uncertain));
    out.reason = format!(
        "{} of {} judge(s), by weight: {}",
        if majority.is_some() {
            "weighted majority"
        } else {
            "the panel split"
        },
        of_this.len(),
        calls.join(", ")
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{
        DebateArgument, RoundRecord, ScoreWeights, SideRecord, StructuredSetup, Topic,
    };
    use crate::protocols::Protocol;

    fn round() -> Round {
        let mut r: Round = serde_json::from_value(serde_json::json!({
            "id": "r", "dilemma_id": "t", "team_a_model": "x", "team_b_model": "y",
            "status": "incomplete", "timestamp": "t"
        }))
        .unwrap();
        let argument = |id: &str| DebateArgument {
            id: id.into(),
            claim: "A claim of some length".into(),
            reasoning: "Reasoning long enough to count.".into(),
            evidence: "Data".into(),
        };
        r.record = RoundRecord::StructuredDebate(Box::new(StructuredSetup {
            topic: Topic {
                id: "t".into(),
                proposition: "Do it".into(),
                context: None,
            },
            closing_word_limit: 200,
            weights: ScoreWeights::default(),
            bands: Default::default(),
            pro: SideRecord {
                arguments: vec![argument("PRO-1"), argument("PRO-2")],
                ..Default::default()
            },
            con: SideRecord {
                arguments: vec![argument("CON-1")],
                ..Default::default()
            },
            fallbacks: Vec::new(),
        }));
        r
    }

    fn answer(scores: [(f64, &str); 3], fallacy: &str) -> String {
        let ids = ["PRO-1", "PRO-2", "CON-1"];
        let items: Vec<String> = ids
            .iter()
            .zip(scores)
            .map(|(id, (v, standing))| {
                format!(
                    "{{\"arg_id\": \"{id}\", \"logic\": {v}, \"evidence\": {v}, \"responsiveness\": {v}, \"honesty\": {v}, \"fallacies\": [{fallacy}], \"standing\": \"{standing}\", \"reason\": \"r\"}}"
                )
            })
            .collect();
        format!(
            "{{\"confidence\": 0.6, \"assessments\": [{}], \"key_insight\": \"k\", \"unresolved_questions\": [\"q\"], \"recommendation\": \"do\", \"rationale\": \"why\"}}",
            items.join(", ")
        )
    }

    #[test]
    fn an_answer_reads_as_side_means_a_computed_verdict_and_standings() {
        let p = StructuredDebate::default();
        let r = round();
        let raw = answer([(8.0, "UPHELD"), (6.0, "REFUTED"), (5.0, "UNCERTAIN")], "");
        let j = p.judge(&r, "m", JudgeAnswer::free_text(&raw));
        let (e, problems) = p.panel_evaluation(&r, &j, JudgeAnswer::free_text(&raw));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(e.scores["pro.logic"], 7.0);
        assert_eq!(e.scores["con.evidence"], 5.0);
        assert_eq!(e.verdict.as_deref(), Some("pro"));
        assert_eq!(e.labels["PRO-2.standing"], "REFUTED");
        assert_eq!(e.confidence, Some(0.6));
        let rubric = p.panel_rubric(&r).unwrap();
        assert_eq!(rubric.dimensions.len(), 8);
        // Panel judges read the single judge's criteria: anchors, questions, standings.
        for part in [
            "1 = riddled with gaps, 10 = a flawless chain",
            "- circular_reasoning: is the conclusion already assumed in a premise?",
            "- REFUTED: it fell: the decision should not rest on it",
        ] {
            assert!(rubric.criteria.contains(part), "{part}");
            assert!(rubric.instructions.contains(part), "{part}");
        }
        assert_eq!(
            rubric.labels,
            ["PRO-1.standing", "PRO-2.standing", "CON-1.standing"]
        );
    }

    #[test]
    fn the_panel_trace_is_weighted() {
        let p = StructuredDebate::default();
        let r = round();
        let heavy_raw = answer(
            [(8.0, "UPHELD"), (4.0, "REFUTED"), (6.0, "UNCERTAIN")],
            "\"straw_man\"",
        );
        let light_raw = answer([(2.0, "REFUTED"), (4.0, "UPHELD"), (6.0, "UPHELD")], "");
        let (heavy, light) = (
            p.judge(&r, "m", JudgeAnswer::free_text(&heavy_raw)),
            p.judge(&r, "m", JudgeAnswer::free_text(&light_raw)),
        );
        let aggregate = Aggregate {
            scores: BTreeMap::new(),
            verdict: Some("pro".into()),
            labels: [
                ("PRO-1.standing".to_string(), "UPHELD".to_string()),
                ("PRO-2.standing".to_string(), "REFUTED".to_string()),
            ]
            .into(),
            confidence: None,
            judges: 2,
        };
        let Reading::Verdict(Some(v)) =
            p.panel_reading(&r, &aggregate, &[(3.0, &heavy), (1.0, &light)])
        else {
            panic!("a verdict");
        };
        let pro1 = &v.assessments[0];
        // (3 × 8 + 1 × 2) / 4.
        assert_eq!(pro1.logic, Some(6.5));
        assert_eq!(pro1.standing, Some(Standing::Upheld));
        assert_eq!(
            pro1.fallacies,
            [Fallacy::StrawMan],
            "named by 3 of 4 weight"
        );
        assert_eq!(v.assessments[2].standing, Some(Standing::Uncertain));
        assert!(v.assessments[2].reason.starts_with("the panel split"));
        assert_eq!(v.key_insight, "k");
        assert_eq!(v.unresolved_questions, ["q"]);
        assert!(v.pro_total.is_some() && v.con_total == Some(6.0));
    }
}
