//! The structured debate's prompts and the JSON schemas of its replies (used for the
//! providers' structured output, and described in the prompts for the others).

use serde_json::{Value, json};

use crate::domain::{
    Closing, DebateArgument, Fallacy, ResponseType, Side, SideRecord, Standing, StructuredSetup,
    Topic,
};
use crate::protocols::judging::schema;
use crate::protocols::layered::Layered;

/// An object schema with every property required and no others, as strict structured
/// output asks.
fn strict_object(properties: Value) -> Value {
    let required: Vec<&String> = properties
        .as_object()
        .map(|p| p.keys().collect())
        .unwrap_or_default();
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

/// `{"arguments": [{id, claim, reasoning, evidence}]}`.
pub fn opening_schema() -> Value {
    let argument = strict_object(
        json!({"id": {"type": "string"}, "claim": {"type": "string"}, "reasoning": {"type": "string"}, "evidence": {"type": "string"}}),
    );
    strict_object(json!({"arguments": {"type": "array", "items": argument}}))
}

/// `{"responses": [{target_arg_id, response_type, reasoning, follow_up_question}]}`.
pub fn cross_schema(opponent_ids: &[String]) -> Value {
    let target = if opponent_ids.is_empty() {
        json!({"type": "string"})
    } else {
        json!({"type": "string", "enum": opponent_ids})
    };
    let response = strict_object(json!({
        "target_arg_id": target,
        "response_type": {"type": "string", "enum": ["refute", "challenge", "concede", "partial"]},
        "reasoning": {"type": "string"},
        "follow_up_question": {"type": "string"},
    }));
    strict_object(json!({"responses": {"type": "array", "items": response}}))
}

/// `{concessions, unrebutted_arguments, final_position, position_shifted}`.
pub fn closing_schema() -> Value {
    strict_object(json!({
        "concessions": {"type": "array", "items": {"type": "string"}},
        "unrebutted_arguments": {"type": "array", "items": {"type": "string"}},
        "final_position": {"type": "string"},
        "position_shifted": {"type": "boolean"},
    }))
}

/// The judge's trace: one assessment of each opening argument, keyed by its id (whole-number
/// scores 1–10, fallacies from the checklist, a standing), then the summary.
pub fn verdict_fields(setup: &StructuredSetup) -> Vec<(String, Value)> {
    let fallacies: Vec<&str> = Fallacy::ALL.iter().map(|f| f.as_str()).collect();
    let standings: Vec<&str> = Standing::ALL.iter().map(|s| s.as_str()).collect();
    let ids: Vec<String> = Side::BOTH
        .iter()
        .flat_map(|s| setup.side(*s).arguments.iter().map(|a| a.id.clone()))
        .collect();
    let scores = [
        ("logic", schema::whole(1, 10)),
        ("evidence", schema::whole(1, 10)),
        ("responsiveness", schema::whole(1, 10)),
        ("honesty", schema::whole(1, 10)),
        (
            "fallacies",
            schema::list_up_to(
                schema::one_of_described(&fallacies, "a fallacy from the checklist"),
                fallacies.len(),
            ),
        ),
        ("standing", schema::one_of(&standings)),
        ("reason", schema::text("why, in one or two sentences")),
    ];
    // Keyed by argument id, every id required: an answer the schema admits assesses each
    // argument exactly once (a list of them lets a model repeat one and skip another). The
    // parser reads the list form too.
    let assessments = if ids.is_empty() {
        let mut fields = vec![("arg_id", schema::text("the argument's id"))];
        fields.extend(scores);
        schema::list(schema::object(fields))
    } else {
        let assessment = schema::object(scores);
        schema::object(ids.iter().map(|id| (id.clone(), assessment.clone())))
    };
    vec![
        ("assessments".to_string(), assessments),
        (
            "key_insight".to_string(),
            schema::text("the debate's key insight, in one or two sentences"),
        ),
        (
            "unresolved_questions".to_string(),
            schema::list_up_to(schema::text("a question the debate left open"), 5),
        ),
        (
            "recommendation".to_string(),
            schema::text("your recommendation for the decision, in one or two sentences"),
        ),
    ]
}

/// The single judge's answer: the trace ([`verdict_fields`]) and nothing else.
pub fn verdict_schema(setup: &StructuredSetup) -> Value {
    schema::object(verdict_fields(setup))
}

pub(super) fn topic_block(topic: &Topic) -> String {
    match &topic.context {
        Some(c) => format!("Proposition: {}\nContext: {}", topic.proposition, c.trim()),
        None => format!("Proposition: {}", topic.proposition),
    }
}

/// A debater's instructions for the whole debate: the side, the three rounds and the rules
/// every argument is held to.
pub fn debater_system(topic: &Topic, side: Side) -> String {
    let stance = match side {
        Side::Pro => "for",
        Side::Con => "against",
    };
    format!(
        "You are a rigorous debater arguing {stance} a proposition about a practical decision \
         ({} side). {}\n\nThe debate has three rounds: opening statements, cross-examination \
         and closing statements. Hold yourself to these rules throughout:\n\
         - Support your claims with specific data that someone could verify (figures, sources, \
         named cases), never general impressions.\n\
         - Give every argument a clear causal chain: show how each step leads to the next and \
         on to your conclusion.\n\
         - Honesty comes first: when you cannot answer a challenge, concede the point rather \
         than argue around it with sophistry.\n\
         - Follow each round's format exactly. Every reply is only the JSON object asked for: \
         no preamble, no code fence.",
        side.as_str().to_uppercase(),
        topic_block(topic)
    )
}

fn arguments_json(arguments: &[DebateArgument]) -> String {
    serde_json::to_string_pretty(arguments).unwrap_or_default()
}

/// Round 1.
pub fn opening_prompt(side: Side) -> String {
    let p = side.prefix();
    format!(
        "Opening statement. Give three to five arguments for your side, with ids {p}-1, {p}-2, \
         …; each has a claim (at least 10 characters), its reasoning (at least 20: the causal \
         chain from the evidence to the claim) and the evidence for it (specific and \
         verifiable).\n\nReply with: {{\"arguments\": [{{\"id\": \"{p}-1\", \"claim\": \
         \"…\", \"reasoning\": \"…\", \"evidence\": \"…\"}}]}}"
    )
}

/// The four ways to answer an argument in cross-examination, with when each applies.
fn response_types() -> String {
    ResponseType::ALL
        .iter()
        .map(|r| format!("- {}: {}", r.as_str(), r.meaning()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Round 2.
pub fn cross_prompt(own: &SideRecord, opponent: &SideRecord) -> String {
    cross_layers(own, opponent).text()
}

/// [`cross_prompt`] in layers: what to do and the reply's form first (the same in every
/// debate on the topic); the two sides' opening arguments and a reminder naming the
/// arguments to answer, the round's own.
pub fn cross_layers(own: &SideRecord, opponent: &SideRecord) -> Layered {
    let ids: Vec<&str> = opponent.arguments.iter().map(|a| a.id.as_str()).collect();
    Layered::new(
        format!(
            "Cross-examination. Respond to every one of the other side's arguments, \
             each once, with one of these response types:\n{}\nGive your reasoning and a \
             follow-up question for each. Introduce no new arguments of your own.\n\nReply \
             with only this JSON: {{\"responses\": [{{\"target_arg_id\": \"…\", \
             \"response_type\": \"refute|challenge|concede|partial\", \"reasoning\": \"…\", \
             \"follow_up_question\": \"…\"}}]}}\n\n",
            response_types()
        ),
        format!(
            "Your opening arguments:\n{}\n\nThe other side's opening arguments:\n{}\n\n\
             Respond to every one of them ({}) as asked above.",
            arguments_json(&own.arguments),
            arguments_json(&opponent.arguments),
            ids.join(", "),
        ),
    )
}

fn cross_json(record: &SideRecord) -> String {
    serde_json::to_string_pretty(&record.cross_examination).unwrap_or_default()
}

/// The closing statement's three sections, in order: (heading, the JSON field that holds it).
pub const CLOSING_SECTIONS: [(&str, &str); 3] = [
    ("Concessions made", "concessions"),
    ("Arguments not effectively rebutted", "unrebutted_arguments"),
    ("Final position", "final_position"),
];

/// Round 3.
pub fn closing_prompt(setup: &StructuredSetup, side: Side) -> String {
    closing_layers(setup, side).text()
}

/// [`closing_prompt`] in layers: the three sections asked for and the reply's form first
/// (the same in every debate on the topic); the debate so far and a reminder, the round's
/// own.
pub fn closing_layers(setup: &StructuredSetup, side: Side) -> Layered {
    let (own, other) = (setup.side(side), setup.side(side.other()));
    let [(concessions, _), (unrebutted, _), (position, _)] = CLOSING_SECTIONS;
    Layered::new(
        format!(
            "Closing statement. In under {} words in all, write three sections, each under its \
             own heading (a JSON field):\n\
             1. {concessions} (\"concessions\"): each point you conceded or partly conceded.\n\
             2. {unrebutted} (\"unrebutted_arguments\"): your arguments, by id, that the other \
             side did not effectively rebut.\n\
             3. {position} (\"final_position\"): where you stand now, saying whether your \
             position shifted during the debate and why; set \"position_shifted\" to match.\n\n\
             Reply with: {{\"concessions\": [\"…\"], \"unrebutted_arguments\": [\"…\"], \
             \"final_position\": \"…\", \"position_shifted\": false}}\n\n",
            setup.closing_word_limit
        ),
        format!(
            "The debate so far:\n\nYour arguments:\n{}\n\nTheirs:\n{}\n\nTheir answers to \
             your arguments:\n{}\n\nYour answers to theirs:\n{}\n\n\
             Write the three sections as asked above.",
            arguments_json(&own.arguments),
            arguments_json(&other.arguments),
            cross_json(other),
            cross_json(own),
        ),
    )
}

/// The second try after a reply that was not the JSON asked for.
pub fn correction_prompt(error: &str) -> String {
    format!(
        "Your reply could not be read: {error}. Reply again with only the JSON object asked \
         for, exactly in that form, and nothing else."
    )
}

/// The four scores with their anchors, in whole numbers.
fn score_anchors() -> &'static str {
    "Score each argument on four criteria, each a whole number from 1 to 10 (no fractions), \
     with these anchors:\n\
     - logic: is the reasoning sound? 1 = riddled with gaps, 10 = a flawless chain from \
     evidence to claim\n\
     - evidence: is the support strong? 1 = vague generalities, 10 = every piece can be \
     independently verified\n\
     - responsiveness: how did it hold up under cross-examination? 1 = its side evaded \
     every challenge, 10 = answered them point by point\n\
     - honesty: did its side argue fairly? 1 = sophistry and distortion, 10 = fair, \
     conceding when warranted"
}

/// The fallacy checklist, each fallacy with the question that detects it.
fn fallacy_checklist() -> String {
    let items: Vec<String> = Fallacy::ALL
        .iter()
        .map(|f| format!("- {}: {}", f.as_str(), f.question()))
        .collect();
    format!(
        "Ask these questions of every argument and list a fallacy only when the answer is \
         yes:\n{}",
        items.join("\n")
    )
}

/// The four standings and what each means.
fn standings() -> String {
    let items: Vec<String> = Standing::ALL
        .iter()
        .map(|s| format!("- {}: {}", s.as_str(), s.meaning()))
        .collect();
    format!(
        "Give each argument a standing after the whole debate, with a short reason:\n{}",
        items.join("\n")
    )
}

/// The judge's instructions: the debaters' rules, then [`judge_criteria`], the summary asked
/// for, and that the tool totals the scores.
pub fn judge_system() -> String {
    format!(
        "You are an impartial judge of a structured debate about a practical decision. The \
         debaters were told to support claims with specific, verifiable data, to give every \
         argument a clear causal chain, to concede rather than argue around a challenge they \
         could not answer, and to follow each round's format. Assess every opening argument of \
         both sides.\n\n{}\n\nThen give the key insight of the debate, the questions it left \
         unresolved (what a decision-maker must still check), and your recommendation for the \
         decision. Do not total the scores: the side totals are computed from yours. Reply \
         only with the JSON object asked for.",
        judge_criteria()
    )
}

/// The judge's criteria, as every judge (single or on a panel) reads them: the anchored
/// scores, the fallacy checklist with its questions, the standings.
pub fn judge_criteria() -> String {
    format!(
        "{}\n\n{}\n\n{}",
        score_anchors(),
        fallacy_checklist(),
        standings()
    )
}

/// The argument ids of both sides, as the judge is asked to assess them.
pub fn argument_list(setup: &StructuredSetup) -> String {
    argument_list_in(setup, Side::BOTH)
}

/// The argument ids of both sides, the sides in `order`.
fn argument_list_in(setup: &StructuredSetup, order: [Side; 2]) -> String {
    let ids: Vec<&str> = order
        .iter()
        .flat_map(|s| setup.side(*s).arguments.iter().map(|a| a.id.as_str()))
        .collect();
    ids.join(", ")
}

/// The whole debate for the judge, with the rule violations it should weigh, and the answer
/// format (the schema the request carries, described).
pub fn judge_prompt(setup: &StructuredSetup) -> String {
    judge_prompt_in(setup, Side::BOTH)
}

/// The judge's prompt with the sides presented in `order` (`[Con, Pro]` when `rejudge
/// --swap-sides` exchanges the order the judge reads them in; Pro stays Pro).
pub fn judge_prompt_in(setup: &StructuredSetup, order: [Side; 2]) -> String {
    judge_layers_in(setup, order).text()
}

/// [`judge_prompt_in`] in layers: the topic first (the same in every debate on it); then
/// the arguments to assess and the answer format (which name the round's arguments), the
/// sides' parts and a reminder, the round's own.
pub fn judge_layers_in(setup: &StructuredSetup, order: [Side; 2]) -> Layered {
    Layered::new(
        format!("{}\n\n", topic_block(&setup.topic)),
        format!(
            "Assess every argument ({}), each once. Reply with one JSON object and nothing \
             else, in exactly this format:\n{}\n{sides}\n\
             Assess every argument above, each once, and reply in the format given above.",
            argument_list_in(setup, order),
            schema::describe(&verdict_schema(setup)),
            sides = sides_for_judges(setup, order),
        ),
    )
}

/// The debate as every judge reads it (single judges and panels): the topic, each side's
/// arguments, answers and closing, and the rules each side broke.
pub fn debate_for_judges(setup: &StructuredSetup) -> String {
    debate_for_judges_in(setup, Side::BOTH)
}

/// The debate for judges, the sides' parts in `order`.
fn debate_for_judges_in(setup: &StructuredSetup, order: [Side; 2]) -> String {
    format!(
        "{}\n{}",
        topic_block(&setup.topic),
        sides_for_judges(setup, order)
    )
}

/// Each side's arguments, answers and closing, and the rules it broke, the sides in
/// `order`: what judges read of the round after the topic.
fn sides_for_judges(setup: &StructuredSetup, order: [Side; 2]) -> String {
    let mut out = String::new();
    for side in order {
        let r = setup.side(side);
        let name = side.as_str().to_uppercase();
        out.push_str(&format!(
            "\n## {name}: opening arguments\n{}\n\n## {name}: cross-examination of the other side\n{}\n",
            arguments_json(&r.arguments),
            cross_json(r)
        ));
        if let Some(c) = &r.closing {
            out.push_str(&format!(
                "\n## {name}: closing statement ({} words)\n{}",
                r.closing_words,
                closing_sections(c)
            ));
        }
        if !r.violations.is_empty() {
            out.push_str(&format!(
                "\n{name} broke these rules: {}.\n",
                r.violations.join("; ")
            ));
        }
    }
    out
}

/// A closing statement as its three headed sections. The side's text is untrusted: each
/// item is put on one line after a marker, so none of it can start a heading of its own.
pub fn closing_sections(c: &Closing) -> String {
    let [(concessions, _), (unrebutted, _), (position, _)] = CLOSING_SECTIONS;
    let line = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let list = |items: &[String]| {
        if items.is_empty() {
            "(none)\n".to_string()
        } else {
            items.iter().map(|i| format!("- {}\n", line(i))).collect()
        }
    };
    format!(
        "### {concessions}\n{}### {unrebutted}\n{}### {position} (position shifted: {})\n> {}\n",
        list(&c.concessions),
        list(&c.unrebutted_arguments),
        if c.position_shifted { "yes" } else { "no" },
        line(&c.final_position)
    )
}
