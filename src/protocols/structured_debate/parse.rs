//! Reading the structured debate's JSON replies leniently (code fences, a preamble, trailing
//! commas, a bare array instead of the wrapping object, title-case values), validating what
//! was read, and the free-text fallbacks when a reply is not JSON at all. A judge's verdict is
//! read from the judge's own part of its answer ([`own_verdict`]).

use serde_json::Value;

use crate::domain::{
    ArgumentAssessment, Closing, CrossResponse, DebateArgument, Fallacy, ResponseType, Side,
    Standing, StructuredVerdict, TotalBands,
};
use crate::protocols::judging::own::{
    Claims, JudgeAnswer, OwnText, Quoted, own_text, verdict_claims,
};
use crate::protocols::judging::score_value;
use crate::protocols::lenient_json;

/// The text of a field, whatever JSON type the model used for it.
fn text(v: &Value, key: &str) -> String {
    match v.get(key) {
        Some(Value::String(s)) => s.trim().to_string(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
            .collect::<Vec<_>>()
            .join("; "),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// A list of strings, from an array or a single string.
fn strings(v: &Value, key: &str) -> Vec<String> {
    match v.get(key) {
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
            .filter(|s| !s.trim().is_empty())
            .collect(),
        Some(Value::String(s)) if !s.trim().is_empty() => vec![s.trim().to_string()],
        _ => Vec::new(),
    }
}

/// The elements of the list under `key` in the reply, or, for a bare array, the objects that
/// carry `marker`.
fn list(raw: &str, key: &str, marker: &str) -> Result<Vec<Value>, String> {
    let objects = lenient_json::objects(raw);
    if let Some(items) = objects
        .iter()
        .find_map(|o| o.get(key).and_then(Value::as_array))
    {
        return Ok(items.clone());
    }
    let bare: Vec<Value> = objects
        .into_iter()
        .filter(|o| o.get(marker).is_some())
        .collect();
    if bare.is_empty() {
        Err(format!(
            "no JSON object with a \"{key}\" list (or objects with \"{marker}\") was found"
        ))
    } else {
        Ok(bare)
    }
}

/// A side's opening arguments, with a warning for each that breaks the rules.
pub fn parse_opening(raw: &str, side: Side) -> Result<(Vec<DebateArgument>, Vec<String>), String> {
    let items = list(raw, "arguments", "claim")?;
    if items.is_empty() {
        return Err("the \"arguments\" list is empty".into());
    }
    let mut warnings = Vec::new();
    let mut out: Vec<DebateArgument> = Vec::new();
    for (n, item) in items.iter().enumerate() {
        let mut id = text(item, "id").to_uppercase();
        if id.is_empty() || out.iter().any(|a| a.id == id) {
            let given = id.clone();
            id = format!("{}-{}", side.prefix(), n + 1);
            warnings.push(if given.is_empty() {
                format!("argument {} has no id; called it {id}", n + 1)
            } else {
                format!("argument id {given} is repeated; called this one {id}")
            });
        } else if !id.starts_with(&format!("{}-", side.prefix())) {
            warnings.push(format!("{id} does not start with {}-", side.prefix()));
        }
        let argument = DebateArgument {
            id,
            claim: text(item, "claim"),
            reasoning: text(item, "reasoning"),
            evidence: text(item, "evidence"),
        };
        if argument.claim.chars().count() < 10 {
            warnings.push(format!("{}: the claim is under 10 characters", argument.id));
        }
        if argument.reasoning.chars().count() < 20 {
            warnings.push(format!(
                "{}: the reasoning is under 20 characters",
                argument.id
            ));
        }
        if argument.evidence.is_empty() {
            warnings.push(format!("{}: no evidence given", argument.id));
        }
        out.push(argument);
    }
    Ok((out, warnings))
}

fn response_type(v: &str) -> Option<ResponseType> {
    match v.trim().to_lowercase().as_str() {
        "refute" | "refutes" | "refuted" => Some(ResponseType::Refute),
        "challenge" | "challenges" | "challenged" => Some(ResponseType::Challenge),
        "concede" | "concedes" | "conceded" => Some(ResponseType::Concede),
        "partial" | "partially concede" | "partial concession" => Some(ResponseType::Partial),
        _ => None,
    }
}

/// A side's cross-examination, with a violation for every opposing argument it did not
/// answer, every target that does not exist and every new argument it slipped in.
pub fn parse_cross(
    raw: &str,
    opponent_ids: &[String],
) -> Result<(Vec<CrossResponse>, Vec<String>), String> {
    let items = list(raw, "responses", "target_arg_id")?;
    let mut violations = Vec::new();
    let mut out = Vec::new();
    for item in &items {
        if item.get("claim").is_some() && item.get("target_arg_id").is_none() {
            violations.push(format!(
                "added a new argument in cross-examination: {}",
                text(item, "claim")
            ));
            continue;
        }
        let target = text(item, "target_arg_id").to_uppercase();
        if target.is_empty() {
            violations.push("an answer names no target argument".into());
            continue;
        }
        if !opponent_ids.contains(&target) {
            violations.push(format!(
                "answered {target}, which the other side did not make"
            ));
        }
        let kind = text(item, "response_type");
        let response_type = response_type(&kind).unwrap_or_else(|| {
            violations.push(format!(
                "{target}: response_type \"{kind}\" is not refute, challenge, concede or partial; read as challenge"
            ));
            ResponseType::Challenge
        });
        out.push(CrossResponse {
            target_arg_id: target,
            response_type,
            reasoning: text(item, "reasoning"),
            follow_up_question: text(item, "follow_up_question"),
        });
    }
    for id in opponent_ids {
        if !out.iter().any(|r| &r.target_arg_id == id) {
            violations.push(format!("did not answer {id}"));
        }
    }
    Ok((out, violations))
}

/// A closing statement, and its length in words.
pub fn parse_closing(raw: &str) -> Result<(Closing, usize), String> {
    let object = lenient_json::objects(raw)
        .into_iter()
        .find(|o| o.get("final_position").is_some())
        .ok_or("no JSON object with \"final_position\" was found")?;
    let shifted = match object.get("position_shifted") {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => matches!(s.trim().to_lowercase().as_str(), "true" | "yes"),
        _ => false,
    };
    let closing = Closing {
        concessions: strings(&object, "concessions"),
        unrebutted_arguments: strings(&object, "unrebutted_arguments"),
        final_position: text(&object, "final_position"),
        position_shifted: shifted,
    };
    Ok((closing.clone(), closing_words(&closing)))
}

/// The words a closing statement says.
pub fn closing_words(c: &Closing) -> usize {
    c.concessions
        .iter()
        .chain(&c.unrebutted_arguments)
        .chain(std::iter::once(&c.final_position))
        .map(|s| s.split_whitespace().count())
        .sum()
}

/// Free text kept as one argument.
pub fn fallback_opening(raw: &str, side: Side) -> Vec<DebateArgument> {
    let claim: String = raw
        .split_whitespace()
        .take(20)
        .collect::<Vec<_>>()
        .join(" ");
    vec![DebateArgument {
        id: format!("{}-1", side.prefix()),
        claim,
        reasoning: raw.trim().to_string(),
        evidence: String::new(),
    }]
}

/// Free text kept as one challenge of every opposing argument.
pub fn fallback_cross(raw: &str, opponent_ids: &[String]) -> Vec<CrossResponse> {
    opponent_ids
        .iter()
        .map(|id| CrossResponse {
            target_arg_id: id.clone(),
            response_type: ResponseType::Challenge,
            reasoning: raw.trim().to_string(),
            follow_up_question: String::new(),
        })
        .collect()
}

/// Free text kept as the final position.
pub fn fallback_closing(raw: &str) -> Closing {
    Closing {
        concessions: Vec::new(),
        unrebutted_arguments: Vec::new(),
        final_position: raw.trim().to_string(),
        position_shifted: false,
    }
}

fn standing(v: &str) -> Option<Standing> {
    let key: String = v
        .trim()
        .to_uppercase()
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '_' })
        .collect();
    Standing::ALL.into_iter().find(|s| s.as_str() == key)
}

fn fallacy(v: &str) -> Option<Fallacy> {
    let key: String = v
        .trim()
        .to_lowercase()
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '_' })
        .collect();
    let key = key.replace("strawman", "straw_man");
    Fallacy::ALL.into_iter().find(|f| f.as_str() == key)
}

/// The judge's own part of an answer (see [`own`](crate::protocols::judging::own)), each
/// JSON object read as [`parse_verdict`] reads it.
pub fn own_verdict(answer: JudgeAnswer<'_>, quoted: &Quoted<'_>) -> Result<OwnText, String> {
    own_text(answer, quoted, claims)
}

/// What one JSON object says alone: each argument's four scores, standing and fallacies,
/// and a panel judge's confidence.
fn claims(_before: &str, value: &Value) -> Claims {
    let mut out = verdict_claims(value);
    if value.get("assessments").is_none() {
        return out;
    }
    let (verdict, _) = verdict_in(value, &[]);
    for a in &verdict.assessments {
        let scores = [
            ("logic", a.logic),
            ("evidence", a.evidence),
            ("responsiveness", a.responsiveness),
            ("honesty", a.honesty),
        ];
        for (name, score) in scores {
            if let Some(v) = score {
                out.insert(format!("{}.{name}", a.arg_id), v.to_string());
            }
        }
        if let Some(standing) = a.standing {
            out.insert(format!("{}.standing", a.arg_id), standing.as_str().into());
        }
        let mut fallacies: Vec<&str> = a.fallacies.iter().map(|f| f.as_str()).collect();
        fallacies.sort_unstable();
        out.insert(format!("{}.fallacies", a.arg_id), fallacies.join(", "));
    }
    out
}

/// A judge's verdict as read, and what could not be read; the side totals are left to the
/// caller (they are computed from the scores, not taken from the judge).
pub fn parse_verdict(
    raw: &str,
    argument_ids: &[String],
) -> (Option<StructuredVerdict>, Vec<String>) {
    let objects = lenient_json::objects(raw);
    let Some(object) = objects.iter().find(|o| o.get("assessments").is_some()) else {
        return (
            None,
            vec!["no JSON object with an \"assessments\" list was found".into()],
        );
    };
    let (verdict, problems) = verdict_in(object, argument_ids);
    (Some(verdict), problems)
}

/// The verdict one JSON object holds (it has an `assessments` list or map), and what could
/// not be read in it.
fn verdict_in(object: &Value, argument_ids: &[String]) -> (StructuredVerdict, Vec<String>) {
    let mut problems = Vec::new();
    let mut assessments = Vec::new();
    // A list of assessments each naming its argument, or an object keyed by argument id
    // (what the judge's schema asks for).
    let items: Vec<(String, &Value)> = match &object["assessments"] {
        Value::Object(by_id) => by_id.iter().map(|(id, item)| (id.clone(), item)).collect(),
        other => other
            .as_array()
            .into_iter()
            .flatten()
            .map(|item| (text(item, "arg_id"), item))
            .collect(),
    };
    for (arg_id, item) in items {
        let arg_id = arg_id.trim().to_uppercase();
        let mut score = |key: &str| match item.get(key).map(score_value) {
            Some(Ok(v)) => Some(v),
            Some(Err(e)) => {
                problems.push(format!("{arg_id}: {key}: {e}"));
                None
            }
            None => {
                problems.push(format!("{arg_id}: no {key} score"));
                None
            }
        };
        let (logic, evidence, responsiveness, honesty) = (
            score("logic"),
            score("evidence"),
            score("responsiveness"),
            score("honesty"),
        );
        let standing_text = text(item, "standing");
        let standing = standing(&standing_text);
        if standing.is_none() {
            problems.push(format!("{arg_id}: standing \"{standing_text}\" is not one of UPHELD, PARTIALLY_UPHELD, REFUTED, UNCERTAIN"));
        }
        let mut fallacies = Vec::new();
        for name in strings(item, "fallacies") {
            match fallacy(&name) {
                Some(f) if !fallacies.contains(&f) => fallacies.push(f),
                Some(_) => {}
                None if matches!(name.trim().to_lowercase().as_str(), "none" | "n/a") => {}
                None => problems.push(format!(
                    "{arg_id}: \"{name}\" is not on the fallacy checklist"
                )),
            }
        }
        assessments.push(ArgumentAssessment {
            arg_id,
            logic,
            evidence,
            responsiveness,
            honesty,
            fallacies,
            standing,
            reason: text(item, "reason"),
        });
    }
    for id in argument_ids {
        if !assessments.iter().any(|a| &a.arg_id == id) {
            problems.push(format!("{id} was not assessed"));
        }
    }
    let verdict = StructuredVerdict {
        assessments,
        key_insight: text(object, "key_insight"),
        unresolved_questions: strings(object, "unresolved_questions"),
        recommendation: text(object, "recommendation"),
        pro_total: None,
        con_total: None,
        bands: TotalBands::default(),
    };
    (verdict, problems)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn openings_are_read_and_validated() {
        let raw = "Here you go:\n```json\n{\"arguments\": [{\"id\": \"PRO-1\", \"claim\": \"Services scale teams\", \"reasoning\": \"Independent deploys cut coordination.\", \"evidence\": \"Conway's law\"}, {\"id\": \"X-2\", \"claim\": \"Short\", \"reasoning\": \"too short\", \"evidence\": \"\"},]}\n```";
        let (args, warnings) = parse_opening(raw, Side::Pro).unwrap();
        assert_eq!(args.len(), 2);
        assert_eq!(
            warnings,
            [
                "X-2 does not start with PRO-",
                "X-2: the claim is under 10 characters",
                "X-2: the reasoning is under 20 characters",
                "X-2: no evidence given"
            ]
        );
        let bare = "[{\"id\": \"CON-1\", \"claim\": \"Monoliths are simpler\", \"reasoning\": \"One deploy, one database, one log.\", \"evidence\": \"Shopify\"}]";
        assert_eq!(parse_opening(bare, Side::Con).unwrap().0[0].id, "CON-1");
        assert!(parse_opening("I think microservices are great.", Side::Pro).is_err());
    }

    #[test]
    fn cross_examination_must_answer_every_argument_and_add_none() {
        let ids = vec!["CON-1".to_string(), "CON-2".to_string()];
        let raw = r#"{"responses": [
            {"target_arg_id": "con-1", "response_type": "Refute", "reasoning": "r", "follow_up_question": "q?"},
            {"target_arg_id": "CON-7", "response_type": "concede", "reasoning": "r"},
            {"id": "PRO-9", "claim": "A brand new point", "reasoning": "x", "evidence": "y"}
        ]}"#;
        let (responses, violations) = parse_cross(raw, &ids).unwrap();
        assert_eq!(responses.len(), 2);
        assert_eq!(responses[0].response_type, ResponseType::Refute);
        assert_eq!(
            violations,
            [
                "answered CON-7, which the other side did not make",
                "added a new argument in cross-examination: A brand new point",
                "did not answer CON-2"
            ]
        );
    }

    #[test]
    fn closings_count_their_words() {
        let raw = r#"{"concessions": ["one two"], "unrebutted_arguments": "PRO-1", "final_position": "three four five", "position_shifted": "yes"}"#;
        let (c, words) = parse_closing(raw).unwrap();
        assert_eq!(words, 6);
        assert!(c.position_shifted);
        assert_eq!(c.unrebutted_arguments, ["PRO-1"]);
    }

    #[test]
    fn verdicts_keep_what_they_can() {
        let ids = vec!["PRO-1".to_string(), "CON-1".to_string()];
        let raw = r#"{"assessments": [
            {"arg_id": "PRO-1", "logic": 8, "evidence": "7/10", "responsiveness": 6, "honesty": 9, "fallacies": ["Straw man", "none"], "standing": "partially upheld", "reason": "r"}
        ], "key_insight": "k", "unresolved_questions": ["u"], "recommendation": "do it"}"#;
        let (v, problems) = parse_verdict(raw, &ids);
        let v = v.unwrap();
        assert_eq!(v.assessments[0].evidence, Some(7.0));
        assert_eq!(v.assessments[0].fallacies, [Fallacy::StrawMan]);
        assert_eq!(v.assessments[0].standing, Some(Standing::PartiallyUpheld));
        assert_eq!(problems, ["CON-1 was not assessed"]);
        assert!(parse_verdict("no json", &ids).0.is_none());
    }

    proptest! {
        #[test]
        fn parsers_never_panic(raw in "\\PC{0,300}") {
            let ids = vec!["CON-1".to_string()];
            let _ = parse_opening(&raw, Side::Pro);
            let _ = parse_cross(&raw, &ids);
            let _ = parse_closing(&raw);
            let _ = parse_verdict(&raw, &ids);
        }

        /// Several complete verdicts among words: read when they all agree, never when two
        /// disagree.
        #[test]
        fn several_verdicts_are_read_only_when_they_agree(
            logic in prop::collection::vec(7u8..9, 1..4),
            junk in "[ a-z.\n]{0,8}",
        ) {
            let text: String = logic
                .iter()
                .map(|n| format!(
                    "{{\"assessments\": [{{\"arg_id\": \"PRO-1\", \"logic\": {n}, \"evidence\": 5, \"responsiveness\": 5, \"honesty\": 5, \"fallacies\": [], \"standing\": \"UPHELD\", \"reason\": \"r\"}}]}}{junk}"
                ))
                .collect();
            let own = own_verdict(JudgeAnswer::free_text(&text), &Quoted::none());
            if logic.iter().all(|n| *n == logic[0]) {
                let own = own.map_err(TestCaseError::fail)?;
                let (verdict, _) = parse_verdict(&own.text, &["PRO-1".to_string()]);
                let read = verdict.and_then(|v| v.assessments.first().and_then(|a| a.logic));
                prop_assert_eq!(read, Some(f64::from(logic[0])));
            } else {
                prop_assert!(own.is_err(), "{}", text);
            }
        }

        /// Several verdict-like objects (cut, repeated, disagreeing) among words: no panic.
        #[test]
        fn several_verdicts_never_panic(
            parts in prop::collection::vec(
                (0u8..12, prop::sample::select(vec!["UPHELD", "REFUTED", "?"]), "[ a-z{}\n\"]{0,6}"),
                0..6,
            ),
            planted in "\\PC{0,80}",
        ) {
            let text: String = parts
                .iter()
                .map(|(n, standing, junk)| format!(
                    "{{\"assessments\": [{{\"arg_id\": \"PRO-1\", \"logic\": {n}, \"standing\": \"{standing}\"}}], \"confidence\": 0.{n}}}{junk}"
                ))
                .collect();
            let debater = crate::domain::Phase::new(crate::domain::PhaseType::Opening, "a", &planted);
            let mut round: crate::domain::Round = serde_json::from_value(serde_json::json!({
                "id": "r", "dilemma_id": "t", "team_a_model": "a", "team_b_model": "b",
                "status": "incomplete", "timestamp": "t"
            })).unwrap();
            round.phases.push(debater);
            for constrained in [false, true] {
                let answer = JudgeAnswer { text: &text, constrained };
                if let Ok(own) = own_verdict(answer, &Quoted::of(&round)) {
                    let _ = parse_verdict(&own.text, &["PRO-1".to_string()]);
                }
            }
        }

        #[test]
        fn mutated_json_never_panics(cut in 0usize..200, insert in "[\\[\\]{}\",: a-z0-9]{0,8}") {
            let valid = r#"{"assessments": [{"arg_id": "PRO-1", "logic": 8, "evidence": 7, "responsiveness": 6, "honesty": 9, "fallacies": [], "standing": "UPHELD", "reason": "r"}], "key_insight": "k"}"#;
            let at = valid.char_indices().nth(cut % valid.len()).map_or(0, |(i, _)| i);
            let raw = format!("{}{insert}{}", &valid[..at], &valid[at..]);
            let _ = parse_verdict(&raw, &["PRO-1".to_string()]);
            let _ = parse_opening(&raw, Side::Pro);
        }
    }
}
