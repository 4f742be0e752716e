//! The simulated judge on a structured-debate panel. It traces every argument as the single
//! simulated judge does, with a persona's lean: a tilt of every score (−1 to +1) and a
//! temper for standings (a strict judge calls an unsettled argument refuted, a lenient one
//! calls a partly upheld one upheld; a weaker judge misplaces a standing by one step more
//! often), so judges on one panel can disagree. Deliberating, it
//! shifts each side's scores so that their means move the `deliberation_pull` share of the
//! way to the other judges' means, takes the others' majority standing on a disputed
//! argument when pull × their share reaches one half, and moves its confidence likewise. Its
//! independent trace is drawn from the round and persona alone, so a judge that never moves
//! answers the same in every round.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

use super::{summary, trace};
use crate::protocols::panel::simulated::{Context, context, toward, yields};
use crate::providers::RoundCast;
use crate::providers::simulated::truth::RubricRule;
use crate::providers::simulated::{Call, SimulatedModel, rng_for};

const SCORES: [&str; 4] = ["evidence", "logic", "responsiveness", "honesty"];

/// How a persona calls standings.
#[derive(Clone, Copy)]
enum Temper {
    Strict,
    Even,
    Lenient,
}

fn side_of(arg_id: &str) -> &'static str {
    if arg_id.starts_with("CON") {
        "con"
    } else {
        "pro"
    }
}

fn number(a: &Value, key: &str) -> Option<f64> {
    a.get(key).and_then(Value::as_f64)
}

/// The mean of one score over one side's arguments.
fn side_mean(assessments: &[Value], side: &str, score: &str) -> Option<f64> {
    let values: Vec<f64> = assessments
        .iter()
        .filter(|a| side_of(a["arg_id"].as_str().unwrap_or_default()) == side)
        .filter_map(|a| number(a, score))
        .collect();
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// The judge's independent trace and confidence, drawn from the round and persona alone;
/// when both debaters have a configured `skill`, its scores are the truth rule's, with no
/// persona tilt (see [`RubricRule`]).
fn structured_panel_view(
    model: &SimulatedModel,
    prompt: &str,
    persona: &str,
    round_id: &str,
    cast: Option<&RoundCast>,
) -> (Vec<Value>, f64) {
    let seed = model.params.seed.to_string();
    let mut lean = rng_for(&[persona, "structured-lean", &seed]);
    let rule = RubricRule::of(model, cast);
    let tilt = f64::from(lean.random_range(-1..=1)) * if rule.is_some() { 0.0 } else { 1.0 };
    let temper = [Temper::Strict, Temper::Even, Temper::Lenient][lean.random_range(0..3)];
    let mut rng = rng_for(&[&model.name, persona, round_id, &seed, "structured-panel"]);
    let mut assessments = trace(prompt, rule.as_ref(), &mut rng);
    let doubt = ((1.0 - model.params.quality) * 0.5).clamp(0.0, 1.0);
    for a in &mut assessments {
        for score in SCORES {
            if let Some(v) = number(a, score) {
                a[score] = json!((v + tilt).clamp(1.0, 10.0));
            }
        }
        let standing = a["standing"].as_str().unwrap_or_default();
        let called = match (temper, standing) {
            (Temper::Strict, "UNCERTAIN") => "REFUTED",
            (Temper::Lenient, "PARTIALLY_UPHELD") => "UPHELD",
            (_, other) => other,
        };
        // A weaker judge misjudges a standing by one step more often.
        let called = match (rng.random_bool(doubt), called) {
            (true, "UPHELD") => "PARTIALLY_UPHELD",
            (true, "PARTIALLY_UPHELD") => "UPHELD",
            (true, "UNCERTAIN") => "REFUTED",
            (true, "REFUTED") => "UNCERTAIN",
            (_, other) => other,
        }
        .to_string();
        a["standing"] = json!(called);
    }
    (assessments, f64::from(rng.random_range(55..=90)) / 100.0)
}

/// A panel judge's answer, independent or deliberating (prose at the malformed rate,
/// drawn per call).
pub(super) fn structured_panel_judge(
    model: &SimulatedModel,
    call: &Call<'_>,
    deliberating: bool,
    rng: &mut ChaCha8Rng,
) -> String {
    let prompt = call.prompt;
    let (mut assessments, mut confidence) =
        structured_panel_view(model, prompt, call.persona, call.round_id, call.cast);
    let mut rationale = "My independent trace of the debate.".to_string();
    if deliberating {
        let ctx = context(prompt);
        confidence = structured_deliberate(model, &mut assessments, confidence, &ctx);
        rationale = format!(
            "Having read the other judges, I moved {:.0}% of the way toward them.",
            model.params.deliberation_pull * 100.0
        );
    }
    if rng.random_bool(model.params.malformed_judgment_rate) {
        return "On reflection both sides made fair points and I would not change much.".into();
    }
    let mut answer = summary(&assessments);
    answer["confidence"] = json!(confidence);
    answer["rationale"] = json!(rationale);
    answer["key_findings"] = json!(
        assessments
            .iter()
            .filter(|a| a["standing"] == "REFUTED")
            .map(|a| json!({"dimension": format!("{}.standing", a["arg_id"].as_str().unwrap_or_default()), "finding": a["reason"]}))
            .collect::<Vec<_>>()
    );
    answer["assessments"] = Value::Array(assessments);
    serde_json::to_string_pretty(&answer).unwrap_or_default()
}

/// Moves the trace toward the other judges: each side's mean score toward theirs from
/// the mean the panel holds for this judge, disputed standings to their majority when
/// the pull is strong enough. Returns the new confidence.
fn structured_deliberate(
    model: &SimulatedModel,
    assessments: &mut [Value],
    confidence: f64,
    ctx: &Context,
) -> f64 {
    let pull = model.params.deliberation_pull;
    for side in ["pro", "con"] {
        for score in SCORES {
            let key = format!("{side}.{score}");
            let (Some(base), Some(target)) =
                (side_mean(assessments, side, score), ctx.others_mean(&key))
            else {
                continue;
            };
            // The prompt shows scores to two decimals: a difference below that is none.
            let held = ctx
                .own
                .as_ref()
                .and_then(|o| o.scores.get(&key).copied())
                .filter(|held| (held - base).abs() >= 0.01)
                .unwrap_or(base);
            let shift = toward(held, target, pull) - base;
            for a in assessments
                .iter_mut()
                .filter(|a| side_of(a["arg_id"].as_str().unwrap_or_default()) == side)
            {
                if let Some(v) = number(a, score) {
                    a[score] = json!((v + shift).clamp(1.0, 10.0));
                }
            }
        }
    }
    for a in assessments.iter_mut() {
        let key = format!("{}.standing", a["arg_id"].as_str().unwrap_or_default());
        let held = ctx.own.as_ref().and_then(|o| o.calls.get(&key)).cloned();
        let mut call =
            held.unwrap_or_else(|| a["standing"].as_str().unwrap_or_default().to_string());
        if let Some((majority, share)) = ctx.others_majority(|p| p.calls.get(&key))
            && majority != call
            && yields(pull, share)
        {
            call = majority;
        }
        a["standing"] = json!(call);
    }
    let held = ctx
        .own
        .as_ref()
        .and_then(|o| o.confidence)
        .unwrap_or(confidence);
    ctx.others_confidence()
        .map_or(held, |target| toward(held, target, pull))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SimulatedParams;

    const DEBATE: &str = "Proposition: Do it\n\n## PRO: opening arguments\n[{\"id\": \"PRO-1\", \"claim\": \"It is cheaper\", \"reasoning\": \"Costs fall.\", \"evidence\": \"Figures\"}]\n\n## PRO: cross-examination of the other side\n[{\"target_arg_id\": \"CON-1\", \"response_type\": \"refute\", \"reasoning\": \"No.\"}]\n\n## CON: opening arguments\n[{\"id\": \"CON-1\", \"claim\": \"It is risky\", \"reasoning\": \"Risk rises.\", \"evidence\": \"\"}]\n\n## CON: cross-examination of the other side\n[{\"target_arg_id\": \"PRO-1\", \"response_type\": \"concede\", \"reasoning\": \"Yes.\"}]\n";

    /// A call of persona `x` in round `r` with this prompt and cast.
    fn call<'a>(prompt: &'a str, cast: Option<&'a RoundCast>) -> Call<'a> {
        Call {
            tag: "structured_panel_evaluation/x",
            phase: "structured_panel_evaluation",
            persona: "x",
            round_id: "r",
            system: "",
            prompt,
            last_prompt: prompt,
            cast,
        }
    }

    fn judge(pull: f64) -> SimulatedModel {
        SimulatedModel::new(
            "j",
            SimulatedParams {
                malformed_judgment_rate: 0.0,
                deliberation_pull: pull,
                ..Default::default()
            },
        )
    }

    #[test]
    fn traces_every_argument_and_moves_to_the_others_by_its_pull() {
        let first = structured_panel_judge(
            &judge(1.0),
            &call(DEBATE, None),
            false,
            &mut rng_for(&["a"]),
        );
        let v: Value = serde_json::from_str(&first).unwrap();
        assert_eq!(v["assessments"].as_array().unwrap().len(), 2);
        assert_eq!(v["assessments"][0]["standing"], "UPHELD", "conceded");
        let prompt = format!(
            "{DEBATE}\n### Your evaluation so far\nVerdict: pro; confidence: 0.70\nScores: con.logic {}\nRationale: r\n\n### The other judges\n\n#### y\nVerdict: con; confidence: 0.50\nScores: con.logic 2\nCalls: PRO-1.standing REFUTED\nRationale: r\n\nGive your updated evaluation.",
            v["assessments"][1]["logic"]
        );
        let moved = structured_panel_judge(
            &judge(1.0),
            &call(&prompt, None),
            true,
            &mut rng_for(&["b"]),
        );
        let m: Value = serde_json::from_str(&moved).unwrap();
        assert_eq!(m["assessments"][1]["logic"], 2.0);
        assert_eq!(m["assessments"][0]["standing"], "REFUTED");
        assert_eq!(m["confidence"], 0.5);
        let steady = structured_panel_judge(
            &judge(0.0),
            &call(&prompt, None),
            true,
            &mut rng_for(&["c"]),
        );
        let s: Value = serde_json::from_str(&steady).unwrap();
        assert_eq!(
            s["assessments"], v["assessments"],
            "a judge with pull 0 never moves"
        );
    }

    #[test]
    fn with_skills_a_panel_judge_scores_by_the_truth_rule() {
        let debater = |skill| SimulatedParams {
            skill: Some(skill),
            ..Default::default()
        };
        let roster = [
            ("pro".to_string(), debater(0.8)),
            ("con".to_string(), debater(0.2)),
        ];
        let judge = SimulatedModel::new(
            "j",
            SimulatedParams {
                malformed_judgment_rate: 0.0,
                position_bias: Some(0.5),
                ..Default::default()
            },
        )
        .with_roster(std::sync::Arc::new(roster.into()));
        let cast = RoundCast::teams("pro", "con");
        let text = structured_panel_judge(
            &judge,
            &call(DEBATE, Some(&cast)),
            false,
            &mut rng_for(&["a"]),
        );
        let v: Value = serde_json::from_str(&text).unwrap();
        // Pro: 1 + 7.2 + 0.5 = 8.7; Con: 1 + 1.8 = 2.8; no persona tilt.
        for (i, expected) in [(0, 9.0), (1, 3.0)] {
            for score in SCORES {
                assert_eq!(v["assessments"][i][score], expected, "{i} {score}: {text}");
            }
        }
        // Standings are still read from the text.
        assert_eq!(v["assessments"][0]["standing"], "UPHELD");
    }
}
