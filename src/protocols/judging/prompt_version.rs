//! Which version of its prompt template a judge answered, recorded on every judgment
//! ([`crate::domain::JudgeView::prompt_version`]), so that judgments made under different
//! prompts (a folder judged again by a later build, two folders compared) can be told apart.
//!
//! A version is a constant per protocol and kind of judge (single judges, panel judges),
//! bumped by hand when its template changes: `ethics_bowl-judge-1`, then `-2`. Not a hash of
//! the prompt sent, which holds the exchange and so differs in every round; not a hash of
//! the template's source, which a comment or a refactoring would change without changing a
//! word the judge reads. A name and a number say which prompt is older and can be looked up
//! in the changelog; a hash can do neither.
//!
//! So that a change is not forgotten, each protocol's tests pin a fingerprint of its judges'
//! prompts rendered over a fixed exchange ([`fingerprint`]; system prompt, user prompt,
//! schema, and the correction turn for single judges): a test fails when the rendered
//! prompts change, naming the version to bump and the new fingerprint to pin. A change in
//! the shared panel prompts (`panel::prompts`) changes every protocol's panel fingerprint, so
//! every panel version is bumped with it.

/// The Ethics Bowl's single judge: the system prompt, the exchange and rubric
/// (`ethics_bowl::prompts::judgment_prompt`) and its schema.
pub const ETHICS_BOWL_JUDGE: &str = "ethics_bowl-judge-3";
/// The Ethics Bowl's panel judges: the shared panel prompts over its rubric and material.
pub const ETHICS_BOWL_PANEL: &str = "ethics_bowl-panel-3";
/// The question-answer debate's judges and baselines (every format).
pub const QA_DEBATE_JUDGE: &str = "qa_debate-judge-1";
/// The question-answer debate's panel judges.
pub const QA_DEBATE_PANEL: &str = "qa_debate-panel-2";
/// The structured debate's judge (the argument trace and totals).
pub const STRUCTURED_DEBATE_JUDGE: &str = "structured_debate-judge-2";
/// The structured debate's panel judges.
pub const STRUCTURED_DEBATE_PANEL: &str = "structured_debate-panel-2";

/// A fingerprint of rendered judge requests: the first 16 hex digits of the SHA-256 of their
/// system prompts, turns and schemas, in order.
#[cfg(test)]
pub(crate) fn fingerprint(requests: &[crate::providers::ChatRequest]) -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    for r in requests {
        for part in [r.system.as_str()]
            .into_iter()
            .chain(r.turns.iter().map(|t| t.text.as_str()))
        {
            hash.update(part.as_bytes());
            hash.update([0]);
        }
        if let Some(schema) = &r.schema {
            hash.update(schema.name.as_bytes());
            hash.update(schema.schema.to_string().as_bytes());
        }
        hash.update([1]);
    }
    hash.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Asserts that the rendered requests still have the fingerprint pinned for `version`.
#[cfg(test)]
pub(crate) fn assert_pinned(
    version: &str,
    requests: &[crate::providers::ChatRequest],
    pinned: &str,
) {
    let now = fingerprint(requests);
    assert_eq!(
        now, pinned,
        "the judge prompts of {version} changed: bump the version in \
         src/protocols/judging/prompt_version.rs (and say so in docs/changelog.md), then pin \
         the new fingerprint \"{now}\""
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Dilemma, Phase, PhaseType, QaFormat, Round, ScheduledRound, Team, Topic};
    use crate::protocols::ethics_bowl::{EthicsBowl, EthicsBowlOptions};
    use crate::protocols::judging::judge_correction_prompt;
    use crate::protocols::qa_debate::{QaDebate, QaRules};
    use crate::protocols::strategy::{Judges, JudgingStrategy};
    use crate::protocols::structured_debate::{StructuredDebate, StructuredRules};
    use crate::protocols::{Protocol, Step};
    use crate::providers::ChatRequest;

    /// The round with every debater's call answered by `text` (correction turns too, until
    /// the protocol asks for nothing more).
    fn debated(p: &dyn Protocol, s: &ScheduledRound, text: &dyn Fn(&Step) -> String) -> Round {
        let mut round = p.new_round(s).unwrap();
        for _ in 0..20 {
            let due: Vec<Step> = p
                .debate_steps(&round)
                .into_iter()
                .filter(|st| !st.is_done(&round))
                .collect();
            if due.is_empty() {
                return round;
            }
            for st in due {
                round.phases.push(Phase {
                    turn: st.turn,
                    correction: st.correction,
                    ..Phase::new(st.phase_type, &st.model, &text(&st))
                });
                p.after_phase(&mut round);
            }
        }
        panic!("the debate never finished")
    }

    /// A single judge's request over the round, and the correction turn's prompt.
    fn single(p: &dyn Protocol, round: &Round) -> Vec<ChatRequest> {
        let step = Step::new(PhaseType::Judgment, "j", &[]);
        vec![
            JudgingStrategy::new(Judges::Single)
                .request(p, &step, round)
                .unwrap(),
            ChatRequest::new("", judge_correction_prompt(&["a problem".into()], true)),
        ]
    }

    fn ethics_bowl(names: bool) -> (EthicsBowl, Round) {
        let p = EthicsBowl::new(
            [Dilemma {
                id: "d".into(),
                title: "D".into(),
                category: "C".into(),
                core_scenario: "A hard case.".into(),
                complications: vec!["It gets harder.".into()],
                questions: vec!["What should be done?".into()],
                asymmetric_features: Vec::new(),
                consistency_case: "A parallel case.".into(),
                metadata: Default::default(),
            }],
            EthicsBowlOptions {
                consistency_test_both_teams: true,
                judge_sees_model_names: names,
            },
        );
        let round = debated(
            &p,
            &ScheduledRound::example("d__a__vs__b__r1", "d"),
            &|_| "We argue.".into(),
        );
        (p, round)
    }

    #[test]
    fn the_ethics_bowl_judges_prompts_are_the_versions_pinned() {
        let mut requests = Vec::new();
        for names in [true, false] {
            let (p, round) = ethics_bowl(names);
            requests.extend(single(&p, &round));
        }
        assert!(requests[0].turns[0].text.contains("We argue."));
        assert_pinned(ETHICS_BOWL_JUDGE, &requests, "e2621b7cb6ebe14c");
        let (p, round) = ethics_bowl(true);
        let panel = crate::protocols::panel::prompts_for_pinning(&p, &round);
        assert_pinned(ETHICS_BOWL_PANEL, &panel, "2d9798c52ae8ea94");
    }

    fn qa() -> QaDebate {
        let (item, sampled) = crate::protocols::qa_debate::example_item(Team::B);
        QaDebate::new(
            [(item, sampled)],
            QaRules {
                debate_rounds: 2,
                word_limit: 100,
                turn_order: crate::domain::TurnOrder::Sequential,
                quote_matching: crate::domain::QuoteMatching::Whole,
            },
        )
    }

    #[test]
    fn the_question_answer_judges_prompts_are_the_versions_pinned() {
        let p = qa();
        let mut requests = Vec::new();
        let mut panel = Vec::new();
        for format in QaFormat::ALL {
            let s = ScheduledRound {
                format: Some(format),
                ..ScheduledRound::example("r", "t-0")
            };
            let round = debated(&p, &s, &|st| {
                format!("My answer holds. <quote>The cat has 5 friends.</quote> {st:?}")
            });
            requests.extend(single(&p, &round));
            panel.extend(crate::protocols::panel::prompts_for_pinning(&p, &round));
        }
        assert!(requests[0].turns[0].text.contains("My answer holds."));
        assert_pinned(QA_DEBATE_JUDGE, &requests, "3193ff3b967a3584");
        assert_pinned(QA_DEBATE_PANEL, &panel, "49d20d7d979b54a4");
    }

    #[test]
    fn the_structured_debate_judges_prompts_are_the_versions_pinned() {
        let p = StructuredDebate::new(
            [Topic {
                id: "t".into(),
                proposition: "A ten-person startup should adopt microservices.".into(),
                context: Some("It ships weekly.".into()),
            }],
            StructuredRules::default(),
        );
        let round = debated(
            &p,
            &ScheduledRound::example("t__a__vs__b__r1", "t"),
            &|st| {
                match (st.phase_type, st.model.as_str()) {
                (PhaseType::Opening, "a") => r#"{"arguments": [{"id": "PRO-1", "claim": "Teams ship alone", "reasoning": "Independent deploys.", "evidence": "Reports"}]}"#.into(),
                (PhaseType::Opening, _) => r#"{"arguments": [{"id": "CON-1", "claim": "Too many services", "reasoning": "Each needs an owner.", "evidence": "On-call load"}]}"#.into(),
                _ => "We hold our ground.".into(),
            }
            },
        );
        let requests = single(&p, &round);
        assert!(requests[0].turns[0].text.contains("PRO-1"));
        assert_pinned(STRUCTURED_DEBATE_JUDGE, &requests, "533fac610eeec37d");
        assert_pinned(
            STRUCTURED_DEBATE_PANEL,
            &crate::protocols::panel::prompts_for_pinning(&p, &round),
            "d8c995942c22cd54",
        );
    }
}
