//! The simulated model in the structured debate. As a debater it writes three to five
//! arguments from its side's stock of decision arguments, fitted to the proposition; a
//! weaker model leaves evidence out and slips in fallacy phrases more often. In
//! cross-examination it concedes arguments without evidence and refutes or challenges the
//! rest; it sometimes leaves one unanswered, closes over the word limit, or answers in prose
//! instead of JSON, at its configured rates. As a judge it reads the debate from the prompt:
//! evidence and fallacy phrases set the scores, the other side's answers set responsiveness
//! and the standing. Its panel judges are in [`panel`]; [`Simulation`] answers the
//! protocol's calls for the simulated provider.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

use crate::domain::Team;
use crate::providers::RoundCast;
use crate::providers::simulated::truth::RubricRule;
use crate::providers::simulated::{Call, SimulatedBehaviour, SimulatedModel};

mod panel;

/// The structured debate's debaters and judges, single and on panels.
#[derive(Debug, Clone, Copy)]
pub struct Simulation;

impl SimulatedBehaviour for Simulation {
    fn answer(
        &self,
        model: &SimulatedModel,
        call: &Call<'_>,
        rng: &mut ChaCha8Rng,
    ) -> Option<String> {
        Some(match call.phase {
            "structured_opening" | "structured_cross_examination" | "structured_closing" => {
                structured_reply(
                    model,
                    call.phase,
                    call.persona,
                    call.system,
                    call.prompt,
                    rng,
                )
            }
            "structured_judgment" => structured_judgment(model, call.prompt, call.cast, rng),
            "structured_panel_evaluation" | "structured_deliberation" => {
                panel::structured_panel_judge(
                    model,
                    call,
                    call.phase == "structured_deliberation",
                    rng,
                )
            }
            _ => return None,
        })
    }
}

/// (claim, reasoning, evidence) for each side.
const PRO: [(&str, &str, &str); 5] = [
    (
        "It lowers the long-run cost of the decision",
        "Costs paid once up front are recovered by savings that repeat every month after.",
        "Cost comparisons from teams that made the same change two years earlier",
    ),
    (
        "It removes a risk the current approach leaves open",
        "The status quo depends on a single point of failure that this change eliminates.",
        "Incident reports where that single point of failure caused outages",
    ),
    (
        "Comparable organisations succeeded with it",
        "Organisations of similar size and constraints report better outcomes after adopting it.",
        "Published case studies from three similar organisations",
    ),
    (
        "It keeps future options open",
        "Choosing it now avoids a costly migration later, when the stakes will be higher.",
        "Migration cost estimates for doing the same change at larger scale",
    ),
    (
        "The people affected prefer it",
        "Those who live with the decision every day report that it would make their work easier.",
        "A survey of the people affected",
    ),
];
const CON: [(&str, &str, &str); 5] = [
    (
        "It raises costs before any benefit arrives",
        "The change must be paid for now while its benefits are uncertain and come much later.",
        "Budget figures for the first year of comparable changes",
    ),
    (
        "It adds complexity the team cannot yet absorb",
        "Every new moving part needs people who understand it, and the team is already stretched.",
        "The team's current on-call load and hiring plan",
    ),
    (
        "The evidence for it comes from different settings",
        "Success stories come from organisations ten times larger with dedicated specialist staff.",
        "The size and staffing of the organisations in the success stories",
    ),
    (
        "A simpler option already works",
        "The current approach meets today's needs, and can be changed later when a need appears.",
        "Current performance measured against the stated needs",
    ),
    (
        "It shifts risk onto people who did not choose it",
        "Those who carry the cost of failure are not the ones who decide to take the risk.",
        "Who bears the cost in the failure scenarios",
    ),
];

/// Phrases a weaker debater slips in, and the fallacy a judge names for each.
pub(super) const FALLACY_PHRASES: [(&str, &str); 5] = [
    ("every expert agrees", "appeal_to_authority"),
    ("will inevitably lead to ruin", "slippery_slope"),
    ("either we do this or we fail", "false_dilemma"),
    ("I once saw a team", "anecdotal_evidence"),
    ("only a fool would disagree", "ad_hominem"),
];

fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    text.find(start)
        .map(|i| &text[i + start.len()..])
        .map(|rest| rest.find(end).map_or(rest, |j| &rest[..j]))
        .unwrap_or("")
}

/// The first JSON array after `marker` in a prompt.
fn array_after(prompt: &str, marker: &str) -> Vec<Value> {
    let Some(i) = prompt.find(marker) else {
        return Vec::new();
    };
    let rest = &prompt[i + marker.len()..];
    let Some(start) = rest.find('[') else {
        return Vec::new();
    };
    serde_json::Deserializer::from_str(&rest[start..])
        .into_iter::<Value>()
        .next()
        .and_then(Result::ok)
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default()
}

fn field<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// A debater's reply in one stage; prose instead of JSON at the broken-JSON rate.
pub(super) fn structured_reply(
    model: &SimulatedModel,
    stage: &str,
    persona: &str,
    system: &str,
    prompt: &str,
    rng: &mut ChaCha8Rng,
) -> String {
    let pro = persona.starts_with("pro");
    if rng.random_bool(model.params.broken_json_rate) {
        return format!(
            "I would rather explain in my own words: the case {} the proposition is strong, for reasons I will set out as we go.",
            if pro { "for" } else { "against" }
        );
    }
    let value = match stage {
        "structured_opening" => opening(model, pro, system, rng),
        "structured_cross_examination" => cross(model, prompt, rng),
        _ => closing(model, prompt, rng),
    };
    serde_json::to_string_pretty(&value).unwrap_or_default()
}

fn opening(model: &SimulatedModel, pro: bool, system: &str, rng: &mut ChaCha8Rng) -> Value {
    let stock = if pro { PRO } else { CON };
    let prefix = if pro { "PRO" } else { "CON" };
    let proposition = between(system, "Proposition: ", "\n").trim_end_matches('.');
    let n = rng.random_range(3..=5);
    let arguments: Vec<Value> = stock
        .iter()
        .take(n)
        .enumerate()
        .map(|(i, (claim, reasoning, evidence))| {
            let mut reasoning = format!("{reasoning} This bears directly on whether {}.", proposition.to_lowercase());
            if rng.random_bool((1.0 - model.params.quality) * 0.5) {
                let (phrase, _) = FALLACY_PHRASES[rng.random_range(0..FALLACY_PHRASES.len())];
                reasoning.push_str(&format!(" Besides, {phrase}."));
            }
            let evidence = if rng.random_bool(model.params.quality.clamp(0.05, 0.95)) {
                (*evidence).to_string()
            } else {
                String::new()
            };
            json!({"id": format!("{prefix}-{}", i + 1), "claim": claim, "reasoning": reasoning, "evidence": evidence})
        })
        .collect();
    json!({ "arguments": arguments })
}

fn cross(model: &SimulatedModel, prompt: &str, rng: &mut ChaCha8Rng) -> Value {
    let theirs = array_after(prompt, "The other side's opening arguments:");
    let skip = (rng.random_bool(model.params.skip_argument_rate) && theirs.len() > 1)
        .then(|| rng.random_range(0..theirs.len()));
    let responses: Vec<Value> = theirs
        .iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != skip)
        .map(|(_, a)| {
            let id = field(a, "id");
            let weak = field(a, "evidence").is_empty();
            let honest = rng.random_bool(model.params.quality.clamp(0.05, 0.95));
            let kind = match (weak, honest) {
                (true, _) => "refute",
                (false, true) if rng.random_bool(0.3) => "concede",
                (false, true) => "partial",
                (false, false) => ["refute", "challenge"][rng.random_range(0..2)],
            };
            let reasoning = match kind {
                "refute" => format!("{id} offers no evidence that survives scrutiny: the claim that {} does not follow.", field(a, "claim").to_lowercase()),
                "concede" => format!("{id} is well supported; we accept it and weigh it against our own case."),
                "partial" => format!("{id} holds in part, but its evidence covers only some of the situations at stake."),
                _ => format!("{id} rests on assumptions that have not been shown to hold here."),
            };
            json!({"target_arg_id": id, "response_type": kind, "reasoning": reasoning, "follow_up_question": format!("What would change your mind about {id}?")})
        })
        .collect();
    json!({ "responses": responses })
}

fn closing(model: &SimulatedModel, prompt: &str, rng: &mut ChaCha8Rng) -> Value {
    let own_answers = array_after(prompt, "Your answers to theirs:");
    let their_answers = array_after(prompt, "Their answers to your arguments:");
    let concessions: Vec<String> = own_answers
        .iter()
        .filter(|r| matches!(field(r, "response_type"), "concede" | "partial"))
        .map(|r| format!("We accept {} in whole or part.", field(r, "target_arg_id")))
        .collect();
    let unrebutted: Vec<String> = their_answers
        .iter()
        .filter(|r| {
            matches!(
                field(r, "response_type"),
                "concede" | "partial" | "challenge"
            )
        })
        .map(|r| field(r, "target_arg_id").to_string())
        .collect();
    let limit: usize = between(prompt, "In under ", " words")
        .trim()
        .parse()
        .unwrap_or(200);
    let mut position = "On balance our position stands: the arguments that survived cross-examination outweigh those that did not.".to_string();
    if rng.random_bool(model.params.overlong_rate) {
        while position.split_whitespace().count() <= limit {
            position.push_str(
                " We repeat, at length, that every consideration above points the same way.",
            );
        }
    }
    json!({
        "concessions": concessions,
        "unrebutted_arguments": unrebutted,
        "final_position": position,
        "position_shifted": concessions.len() >= 2,
    })
}

/// A judge's trace of every argument, in the JSON asked for (broken at the malformed
/// rate: prose, or assessments missing scores).
pub(super) fn structured_judgment(
    model: &SimulatedModel,
    prompt: &str,
    cast: Option<&RoundCast>,
    rng: &mut ChaCha8Rng,
) -> String {
    let rule = RubricRule::of(model, cast);
    let mut assessments = trace(prompt, rule.as_ref(), rng);
    if rng.random_bool(model.params.malformed_judgment_rate) {
        return if rng.random_bool(0.5) {
            "Both sides argued well; on the whole I found the case for the proposition slightly stronger, though several points remain open.".into()
        } else {
            for a in assessments.iter_mut().skip(1) {
                a["evidence"] = Value::Null;
            }
            json!({"assessments": assessments, "key_insight": "partial"}).to_string()
        };
    }
    let mut verdict = summary(&assessments);
    verdict["assessments"] = Value::Array(assessments);
    serde_json::to_string_pretty(&verdict).unwrap_or_default()
}

/// The key insight, open questions and recommendation a simulated judge draws from its
/// trace: the side with more arguments upheld is recommended.
pub(super) fn summary(assessments: &[Value]) -> Value {
    let upheld = |prefix: &str| {
        assessments
            .iter()
            .filter(|a| field(a, "arg_id").starts_with(prefix) && field(a, "standing") == "UPHELD")
            .count()
    };
    let (pro, con) = (upheld("PRO"), upheld("CON"));
    let recommendation = if pro >= con {
        "Adopt the proposition, with the conceded risks managed explicitly."
    } else {
        "Do not adopt the proposition now; revisit when the open questions are answered."
    };
    json!({
        "key_insight": format!("{pro} of Pro's arguments and {con} of Con's stood unchallenged or conceded; evidence decided most exchanges."),
        "unresolved_questions": ["How large are the costs in this particular setting?", "What would the first year look like?"],
        "recommendation": recommendation,
    })
}

/// An argument's logic, evidence, responsiveness and honesty as the text shows them: 7
/// less 2 per fallacy, 7 with evidence (3 without), by how the other side answered it, and
/// 6, each with a jitter of one point.
fn text_scores(
    fallacies: usize,
    has_evidence: bool,
    answer: &str,
    rng: &mut ChaCha8Rng,
) -> (i32, i32, i32, i32) {
    let jitter = |rng: &mut ChaCha8Rng| rng.random_range(-1..=1);
    let clamp = |v: i32| v.clamp(1, 10);
    let logic = clamp(7 - 2 * fallacies as i32 + jitter(rng));
    let evidence = clamp(if has_evidence { 7 } else { 3 } + jitter(rng));
    let responsiveness = clamp(
        match answer {
            "concede" | "unanswered" => 8,
            "partial" => 6,
            "challenge" => 5,
            _ => {
                if has_evidence {
                    5
                } else {
                    3
                }
            }
        } + jitter(rng),
    );
    let honesty = clamp(6 + jitter(rng));
    (logic, evidence, responsiveness, honesty)
}

/// The simulated judge's assessment of every opening argument in a judge's prompt: evidence
/// and fallacy phrases set the scores, the other side's answers set responsiveness and the
/// standing, with a jitter of one point. With a truth `rule` (both debaters have a
/// configured `skill`) the four scores are the rule's instead, Pro being Team A, drawn in
/// the order logic, evidence, responsiveness, honesty; fallacies and standings are still
/// read from the text.
pub(super) fn trace(prompt: &str, rule: Option<&RubricRule>, rng: &mut ChaCha8Rng) -> Vec<Value> {
    let mut assessments = Vec::new();
    for (side, other) in [("PRO", "CON"), ("CON", "PRO")] {
        let arguments = array_after(prompt, &format!("## {side}: opening arguments"));
        let answers = array_after(
            prompt,
            &format!("## {other}: cross-examination of the other side"),
        );
        for a in &arguments {
            let id = field(a, "id");
            let text = format!("{} {}", field(a, "reasoning"), field(a, "claim"));
            let fallacies: Vec<&str> = FALLACY_PHRASES
                .iter()
                .filter(|(phrase, _)| text.contains(phrase))
                .map(|(_, f)| *f)
                .collect();
            let answer = answers
                .iter()
                .find(|r| field(r, "target_arg_id") == id)
                .map_or("unanswered", |r| field(r, "response_type"));
            let has_evidence = !field(a, "evidence").is_empty();
            let (logic, evidence, responsiveness, honesty) = match rule {
                Some(rule) => {
                    let team = if side == "PRO" { Team::A } else { Team::B };
                    let mut score = || i32::from(rule.score(team, rng));
                    (score(), score(), score(), score())
                }
                None => text_scores(fallacies.len(), has_evidence, answer, rng),
            };
            let standing = match (answer, has_evidence) {
                ("concede" | "unanswered", _) => "UPHELD",
                ("partial", _) => "PARTIALLY_UPHELD",
                ("refute", false) => "REFUTED",
                _ => "UNCERTAIN",
            };
            assessments.push(json!({
                "arg_id": id, "logic": logic, "evidence": evidence, "responsiveness": responsiveness,
                "honesty": honesty, "fallacies": fallacies, "standing": standing,
                "reason": format!("{id} was {} in cross-examination{}.", match answer {
                    "refute" => "refuted",
                    "concede" => "conceded",
                    "partial" => "partly conceded",
                    "challenge" => "challenged",
                    other => other,
                }, if has_evidence { "" } else { ", and it cites no evidence" }),
            }));
        }
    }
    assessments
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SimulatedParams;
    use crate::providers::simulated::rng_for;

    const DEBATE: &str = "Proposition: Do it\n\n## PRO: opening arguments\n[{\"id\": \"PRO-1\", \"claim\": \"It is cheaper\", \"reasoning\": \"Costs fall.\", \"evidence\": \"Figures\"}]\n\n## PRO: cross-examination of the other side\n[{\"target_arg_id\": \"CON-1\", \"response_type\": \"refute\", \"reasoning\": \"No.\"}]\n\n## CON: opening arguments\n[{\"id\": \"CON-1\", \"claim\": \"It is risky\", \"reasoning\": \"Risk rises.\", \"evidence\": \"\"}]\n\n## CON: cross-examination of the other side\n[{\"target_arg_id\": \"PRO-1\", \"response_type\": \"concede\", \"reasoning\": \"Yes.\"}]\n";

    /// A judge knowing `pro` (skill 0.3), `con` (skill 0.9) and `plain` (none).
    fn judge(name: &str, biases: SimulatedParams) -> SimulatedModel {
        crate::providers::simulated::truth::judge_knowing(
            name,
            biases,
            &[("pro", Some(0.3)), ("con", Some(0.9)), ("plain", None)],
        )
    }

    #[test]
    fn with_skills_the_judge_scores_every_argument_by_the_truth_rule() {
        let j = judge(
            "con",
            SimulatedParams {
                leniency: Some(-0.5),
                self_preference: Some(1.0),
                ..Default::default()
            },
        );
        let cast = RoundCast::teams("pro", "con");
        let text = structured_judgment(&j, DEBATE, Some(&cast), &mut rng_for(&["r"]));
        let v: Value = serde_json::from_str(&text).unwrap();
        // Pro: 1 + 2.7 − 0.5 = 3.2; Con, the judge's own: 1 + 8.1 − 0.5 + 1 = 9.6.
        for (i, expected) in [(0, 3), (1, 10)] {
            for score in ["logic", "evidence", "responsiveness", "honesty"] {
                assert_eq!(v["assessments"][i][score], expected, "{i} {score}: {text}");
            }
        }
    }

    #[test]
    fn without_skills_the_cast_changes_nothing() {
        let j = judge(
            "j",
            SimulatedParams {
                noise_sd: Some(2.0),
                ..Default::default()
            },
        );
        for key in ["a", "b", "c"] {
            let bare = structured_judgment(&j, DEBATE, None, &mut rng_for(&[key]));
            let cast = RoundCast::teams("pro", "plain");
            let with = structured_judgment(&j, DEBATE, Some(&cast), &mut rng_for(&[key]));
            assert_eq!(bare, with);
        }
    }
}
