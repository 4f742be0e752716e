//! Rounds and judgments built by hand, for the analyses' tests.

use crate::domain::{Judgment, ParseStatus, Phase, PhaseType, Round, Scores};

pub(crate) fn judgment(judge: &str, a: Scores, b: Scores) -> Judgment {
    Judgment {
        judge_model: judge.into(),
        persona_id: None,
        reading: crate::domain::Reading::Rubric {
            team_a: a,
            team_b: b,
        },
        team_a_justification: "A utilitarian weighing of outcomes.".into(),
        team_b_justification: "Attentive to duties and rights.".into(),
        overall_analysis: String::new(),
        parse_status: ParseStatus::Parsed,
        problems: vec![],
        raw_response: String::new(),
        corrected_text: None,
        view: None,
    }
}

pub(crate) fn phase(t: PhaseType, model: &str, text: &str) -> Phase {
    Phase::new(t, model, text)
}

pub(crate) fn round(id: &str, d: &str, a: &str, b: &str, judgments: Vec<Judgment>) -> Round {
    let mut r: Round = serde_json::from_value(serde_json::json!({
        "id": id, "dilemma_id": d, "team_a_model": a, "team_b_model": b, "status": "complete", "timestamp": "t"
    }))
    .unwrap();
    r.judge_models = judgments.iter().map(|j| j.judge_model.clone()).collect();
    for j in judgments {
        r.put_judgment(j);
    }
    r
}
