//! Every judge request of every protocol carries a portable schema, the prompt describes the
//! same shape, and any answer valid under the schema reads as a complete judgment (every
//! number at its minimum, then at its maximum).

use serde_json::Value;

use super::JudgeAnswer;
use super::schema::{checks, describe};
use crate::config::{PanelConfig, PanelJudgeConfig};
use crate::domain::{
    Assignment, Dilemma, Label, ParseStatus, Phase, PhaseType, QaFormat, QaItem, Round,
    SampledItem, ScheduledRound, Side, Team, Topic, Turn,
};
use crate::protocols::ethics_bowl::{EthicsBowl, EthicsBowlOptions};
use crate::protocols::panel::Panel;
use crate::protocols::qa_debate::{QaDebate, QaRules};
use crate::protocols::structured_debate::{StructuredDebate, StructuredRules};
use crate::protocols::{Protocol, Seat, Step};
use crate::providers::ChatRequest;

/// A judge request, the protocol that reads its answer, and the round it judges.
pub(crate) struct Case {
    /// What it is (`ethics_bowl judgment`, `qa panel_evaluation (naive)`, …).
    pub(crate) name: String,
    pub(crate) protocol: Box<dyn Protocol>,
    pub(crate) round: Round,
    pub(crate) request: ChatRequest,
    /// Whether a panel judges (the answer is also read as a panel evaluation).
    pub(crate) panel: bool,
}

fn scheduled(id: &str, item: &str, format: Option<QaFormat>) -> ScheduledRound {
    ScheduledRound {
        format,
        ..ScheduledRound::example(id, item)
    }
}

fn ethics_bowl() -> (EthicsBowl, Round) {
    let dilemma = Dilemma {
        id: "d".into(),
        title: "The Borrowed Kidney".into(),
        category: "Medicine".into(),
        core_scenario: "A surgeon can save two patients by using a kidney donated for a third \
                        patient who is expected to recover without it, slowly and painfully."
            .into(),
        complications: vec!["The donor's family asked that it go to the third patient.".into()],
        questions: vec!["Should the surgeon redirect the kidney?".into()],
        asymmetric_features: vec![],
        consistency_case: "A firefighter can save two people by leaving one who would probably \
                           escape alone."
            .into(),
        metadata: Default::default(),
    };
    let p = EthicsBowl::new([dilemma], EthicsBowlOptions::default());
    let mut round = p.new_round(&scheduled("eb", "d", None)).unwrap();
    for (phase, model, text) in [
        (
            PhaseType::Presentation,
            "a",
            "Respecting the donor's wish keeps the trust that makes donation possible; we would not redirect.\nGuiding principle: honour explicit donor intent unless a life is at stake.\nTentative conclusion: keep the kidney for the third patient.",
        ),
        (
            PhaseType::Response,
            "b",
            "Trust matters, but two lives weigh more than a slow recovery. The presenting team did not count the two waiting patients' families.",
        ),
        (
            PhaseType::Rebuttal,
            "a",
            "We concede the families were missing. Our principle still holds because no life is at stake for the third patient.",
        ),
        (
            PhaseType::ConsistencyTest,
            "a",
            "The firefighter case differs: there a life is at stake, so our principle allows saving the two.",
        ),
        (
            PhaseType::ConsistencyTestB,
            "b",
            "We would save the two in both cases; our view is consistent.",
        ),
    ] {
        round.phases.push(Phase::new(phase, model, text));
    }
    (p, round)
}

fn qa(format: QaFormat) -> (QaDebate, Round) {
    let item = QaItem {
        id: "q".into(),
        level: "Main".into(),
        index: 0,
        facts: "The cat has 5 friends. The dog is red.".into(),
        rules: "Rule1: If the cat has more than 3 friends, then the cat attacks the dog.".into(),
        preferences: String::new(),
        question: "Does the cat attack the dog?".into(),
        label: Label::Proved,
        proof: String::new(),
    };
    let sampled = SampledItem {
        item_id: "q".into(),
        level: "Main".into(),
        index: 0,
        label: Label::Proved,
        assignment: Assignment {
            answer_a: Label::Proved,
            answer_b: Label::Disproved,
            correct_side: Some(Team::A),
            first: Team::A,
        },
    };
    let p = QaDebate::new(
        [(item, sampled)],
        QaRules {
            debate_rounds: 1,
            word_limit: 80,
            ..QaRules::default()
        },
    );
    let mut round = p
        .new_round(&scheduled(
            &format!("qa-{}", format.as_str()),
            "q",
            Some(format),
        ))
        .unwrap();
    let arguments = [
        (
            Team::A,
            "a",
            "<argument>Rule1 applies: <quote>The cat has 5 friends</quote>, more than 3, so the cat attacks the dog.</argument>",
        ),
        (
            Team::B,
            "b",
            "<argument>Nothing says Rule1 is in force: <quote>the cat is asleep</quote>, so it attacks no one.</argument>",
        ),
    ];
    for (side, model, text) in arguments.into_iter().take(format.debaters()) {
        round.phases.push(Phase {
            turn: Some(Turn::new(side, 1)),
            ..Phase::new(PhaseType::Argument, model, text)
        });
    }
    p.after_phase(&mut round);
    (p, round)
}

fn structured() -> (StructuredDebate, Round) {
    let p = StructuredDebate::new(
        [Topic {
            id: "t".into(),
            proposition: "A ten-person startup should adopt microservices.".into(),
            context: None,
        }],
        StructuredRules::default(),
    );
    let mut round = p.new_round(&scheduled("sd", "t", None)).unwrap();
    let replies = [
        (
            PhaseType::Opening,
            Side::Pro,
            r#"{"arguments": [{"id": "PRO-1", "claim": "Services let teams ship alone", "reasoning": "Independent deploys remove the release train.", "evidence": "DORA reports"}, {"id": "PRO-2", "claim": "Failures stay contained", "reasoning": "One service failing does not take the product down.", "evidence": "Incident reviews"}]}"#,
        ),
        (
            PhaseType::Opening,
            Side::Con,
            r#"{"arguments": [{"id": "CON-1", "claim": "Ten people cannot run many services", "reasoning": "Each service needs deploys, alerts and an owner.", "evidence": "On-call load"}]}"#,
        ),
        (
            PhaseType::CrossExamination,
            Side::Pro,
            r#"{"responses": [{"target_arg_id": "CON-1", "response_type": "challenge", "reasoning": "Managed platforms carry most of that load.", "follow_up_question": "Which load remains?"}]}"#,
        ),
        (
            PhaseType::CrossExamination,
            Side::Con,
            r#"{"responses": [{"target_arg_id": "PRO-1", "response_type": "partial", "reasoning": "Only with mature tooling.", "follow_up_question": "Who builds it?"}, {"target_arg_id": "PRO-2", "response_type": "refute", "reasoning": "Shared databases spread failures.", "follow_up_question": "Is the data split too?"}]}"#,
        ),
        (
            PhaseType::Closing,
            Side::Pro,
            r#"{"concessions": ["tooling costs time"], "unrebutted_arguments": ["PRO-2"], "final_position": "Adopt services gradually.", "position_shifted": true}"#,
        ),
        (
            PhaseType::Closing,
            Side::Con,
            r#"{"concessions": [], "unrebutted_arguments": ["CON-1"], "final_position": "Stay with a monolith.", "position_shifted": false}"#,
        ),
    ];
    for (stage, side, text) in replies {
        let model = match side {
            Side::Pro => "a",
            Side::Con => "b",
        };
        let turn = Turn::new(
            side.team(),
            match stage {
                PhaseType::Opening => 1,
                PhaseType::CrossExamination => 2,
                _ => 3,
            },
        );
        round.phases.push(Phase {
            turn: Some(turn),
            ..Phase::new(stage, model, text)
        });
        p.after_phase(&mut round);
    }
    (p, round)
}

fn panel() -> Panel {
    Panel::new(PanelConfig {
        judges: ["ethicist", "skeptic"]
            .iter()
            .map(|id| PanelJudgeConfig {
                persona_id: id.to_string(),
                model: "j".into(),
                persona: format!("a careful {id}"),
                weight: 1.0,
            })
            .collect(),
        max_deliberation_rounds: 2,
        convergence_threshold: 0.8,
        dimension_disagreement_threshold: 1.5,
        min_evaluations_for_debate: 2,
        deliberation_timeout_s: None,
    })
}

fn cases_of(name: &str, protocol: Box<dyn Protocol>, round: Round) -> Vec<Case> {
    let single = protocol
        .request(&Step::new(PhaseType::Judgment, "j", &[]), &round)
        .unwrap();
    let seat = Step {
        seat: Some(Seat {
            judge_id: "ethicist".into(),
            deliberation_round: 0,
        }),
        ..Step::new(PhaseType::PanelEvaluation, "j", &[])
    };
    let evaluation = panel().request(&seat, &round, protocol.as_ref()).unwrap();
    let protocol_again = crate::protocols::stored(protocol.kind());
    vec![
        Case {
            name: format!("{name} judgment"),
            protocol,
            round: round.clone(),
            request: single,
            panel: false,
        },
        Case {
            name: format!("{name} panel_evaluation"),
            protocol: protocol_again,
            round,
            request: evaluation,
            panel: true,
        },
    ]
}

/// Every judge kind: each protocol's single judge (each question-answer format) and panel
/// evaluation.
pub(crate) fn every_case() -> Vec<Case> {
    let (p, r) = ethics_bowl();
    let mut out = cases_of("ethics_bowl", Box::new(p), r);
    for format in QaFormat::ALL {
        let (p, r) = qa(format);
        out.extend(cases_of(
            &format!("qa_debate ({})", format.as_str()),
            Box::new(p),
            r,
        ));
    }
    let (p, r) = structured();
    out.extend(cases_of("structured_debate", Box::new(p), r));
    out
}

/// What an answer reads as: the judgment's status and problems, and for panels the
/// evaluation's problems and whether it has a verdict and a confidence.
pub(crate) fn read(case: &Case, text: &str) -> (ParseStatus, Vec<String>) {
    let judgment = case
        .protocol
        .judge(&case.round, "j", JudgeAnswer::free_text(text));
    let mut problems = judgment.problems.clone();
    let mut status = judgment.parse_status;
    if case.panel {
        let (evaluation, more) =
            case.protocol
                .panel_evaluation(&case.round, &judgment, JudgeAnswer::free_text(text));
        problems.extend(more);
        if evaluation.verdict.is_none() || evaluation.confidence.is_none() {
            status = ParseStatus::Partial;
            problems.push(format!("panel evaluation incomplete: {evaluation:?}"));
        }
    }
    (status, problems)
}

#[test]
fn every_judge_request_carries_a_portable_schema_its_prompt_describes() {
    let cases = every_case();
    assert_eq!(cases.len(), 18);
    for case in &cases {
        let schema = case
            .request
            .schema
            .as_ref()
            .unwrap_or_else(|| panic!("{}: no schema", case.name));
        assert!(
            schema
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "{}",
            schema.name
        );
        checks::assert_portable(&schema.schema);
        let format = describe(&schema.schema);
        let prompt = format!("{}\n{}", case.request.system, case.request.last_user_text());
        assert!(
            prompt.contains(&format),
            "{}: the prompt does not describe the schema\n{format}\n---\n{prompt}",
            case.name
        );
    }
}

#[test]
fn every_schema_valid_answer_reads_complete() {
    for case in every_case() {
        let schema = &case.request.schema.as_ref().unwrap().schema;
        for high in [false, true] {
            let answer = checks::instance(schema, high);
            for text in [
                answer.to_string(),
                serde_json::to_string_pretty(&answer).unwrap(),
            ] {
                let (status, problems) = read(&case, &text);
                assert_eq!(
                    status,
                    ParseStatus::Parsed,
                    "{} ({}): {problems:?}\n{text}",
                    case.name,
                    if high { "maxima" } else { "minima" }
                );
                assert!(problems.is_empty(), "{}: {problems:?}\n{text}", case.name);
            }
        }
    }
}

#[test]
fn the_reasoning_comes_first_where_the_judge_reasons_before_choosing() {
    for case in every_case() {
        let schema: &Value = &case.request.schema.as_ref().unwrap().schema;
        let first = schema["properties"]
            .as_object()
            .and_then(|p| p.keys().next().cloned())
            .unwrap_or_default();
        let reasons = [
            "(debate) judgment",
            "(consultancy) judgment",
            "(expert_cot) judgment",
        ]
        .iter()
        .any(|n| case.name.ends_with(n));
        assert_eq!(
            first == "reasoning",
            reasons,
            "{}: first is {first}",
            case.name
        );
    }
}
