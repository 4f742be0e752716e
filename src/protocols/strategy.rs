//! How a round is judged, apart from what it is: single judges, each alone (`all`,
//! `rotate`, and the judges `rejudge` adds), or a panel that deliberates. Any protocol takes
//! any strategy: the protocol gives its debaters' calls, what its judges read and how an
//! answer reads; the strategy adds the judges' calls and turns their answers into the
//! round's judgments.
//!
//! A single judge whose answer is not a complete judgment (unreadable, partial, or cut at the
//! token limit) is asked again, up to `corrections` times, with the parser's problems quoted
//! and its own answer before them; every answer is kept as a phase (the later ones with
//! [`Phase::correction`] set) and the judgment is read from the last. Only then does the
//! round wait for a person.

use crate::domain::{Judgment, ParseStatus, Phase, PhaseType, Round};
use crate::providers::{ChatRequest, Role, Turn};

use super::judging::{CUT_SHORT, JudgeAnswer, judge_correction_prompt};
use super::panel::Panel;
use super::{PhaseRef, Protocol, ProtocolError, Step};

/// Who judges a round.
#[derive(Debug, Clone)]
pub enum Judges {
    /// Each of the round's judges (`judge_models`) scores the exchange alone.
    Single,
    /// These judges score the exchange alone, beside the judgments already on file
    /// (re-judging stored rounds).
    Added(Vec<String>),
    /// A panel of judges that deliberates when it disagrees.
    Panel(Panel),
}

/// Who judges a round, and how often a single judge's incomplete answer is sent back.
#[derive(Debug, Clone)]
pub struct JudgingStrategy {
    judges: Judges,
    corrections: u32,
    swap_sides: bool,
}

impl JudgingStrategy {
    /// These judges, with one correction turn per single judge (the configuration's
    /// default; see [`JudgingStrategy::with_corrections`]).
    pub fn new(judges: Judges) -> Self {
        Self {
            judges,
            corrections: 1,
            swap_sides: false,
        }
    }

    /// The same judges, sending an incomplete answer back up to `corrections` times (0: never).
    pub fn with_corrections(self, corrections: u32) -> Self {
        let judges = match self.judges {
            Judges::Panel(panel) => Judges::Panel(panel.with_corrections(corrections)),
            other => other,
        };
        Self {
            judges,
            corrections,
            ..self
        }
    }

    /// The same judges, each single judge reading the exchange with its two sides exchanged
    /// ([`Protocol::swapped_judge_request`]) and its judgment mapped back before it is stored
    /// ([`Protocol::swapped_back`], the judgment's view marked `sides_swapped`): `rejudge
    /// --swap-sides`. A panel's calls are not swapped.
    pub fn with_swapped_sides(self) -> Self {
        Self {
            swap_sides: true,
            ..self
        }
    }

    /// Whether single judges read the sides exchanged.
    pub fn swaps_sides(&self) -> bool {
        self.swap_sides
    }

    /// Every call of the round as things stand: the debaters', then the judges' (a panel's
    /// deliberation rounds and single judges' correction turns appear as they become due).
    pub fn steps(
        &self,
        protocol: &dyn Protocol,
        round: &Round,
    ) -> Result<Vec<Step>, ProtocolError> {
        let mut steps = protocol.debate_steps(round);
        let after = protocol.judged_after(round);
        match &self.judges {
            Judges::Single => steps.extend(self.single_judges(round, &round.judge_models, &after)),
            Judges::Added(judges) => steps.extend(self.single_judges(round, judges, &after)),
            Judges::Panel(panel) => steps.extend(panel.settle(round, protocol)?.1),
        }
        Ok(steps)
    }

    /// One call per judge, each waiting for what judges read, and each judge's correction
    /// turns as they become due. A judge whose judgment is on file without the call that gave
    /// it (imported from the Python predecessor) is not asked again.
    fn single_judges(&self, round: &Round, judges: &[String], after: &[PhaseRef]) -> Vec<Step> {
        let mut steps = Vec::new();
        for judge in judges {
            if round.phase(PhaseType::Judgment, Some(judge)).is_none()
                && round
                    .judgments
                    .iter()
                    .any(|x| x.judge_key() == judge.as_str())
            {
                continue;
            }
            let first = Step {
                depends_on: after.to_vec(),
                ..Step::new(PhaseType::Judgment, judge, &[])
            };
            let answers = judge_answers(round, judge);
            let due = match answers.last() {
                Some(last) if last.error.is_none() && needs_correction(round, judge) => {
                    last.correction + 1
                }
                Some(last) => last.correction,
                None => 0,
            };
            for correction in 0..=due.min(self.corrections) {
                steps.push(Step {
                    correction,
                    ..first.clone()
                });
            }
        }
        steps
    }

    /// The request for one step: the protocol's (or the panel's), with the round's cast (see
    /// [`Protocol::cast`]); a correction turn adds the judge's previous answer and what
    /// could not be read in it.
    pub fn request(
        &self,
        protocol: &dyn Protocol,
        step: &Step,
        round: &Round,
    ) -> Result<ChatRequest, ProtocolError> {
        let first = Step {
            correction: 0,
            ..step.clone()
        };
        let panel = self.panel().filter(|_| step.seat.is_some());
        let mut request = match panel {
            Some(panel) => panel
                .request(&first, round, protocol)?
                .with_cast(protocol.cast(round)),
            None if self.swap_sides && step.phase_type == PhaseType::Judgment => {
                protocol.swapped_judge_request(&first, round)?
            }
            None => protocol
                .request(&first, round)?
                .with_cast(protocol.cast(round)),
        };
        if step.correction == 0 {
            return Ok(request);
        }
        let answered = Step {
            correction: step.correction - 1,
            ..step.clone()
        };
        let previous = round
            .phases
            .iter()
            .rev()
            .find(|p| answered.matches(p))
            .ok_or_else(|| {
                ProtocolError(format!(
                    "round {}: {} has no answer to correct",
                    round.id,
                    answered.speaker()
                ))
            })?;
        let problems = match panel {
            Some(panel) => panel.correction_problems(step, round, protocol)?,
            None => round
                .judgments
                .iter()
                .find(|j| j.judge_key() == step.model)
                .map(|j| j.problems.clone())
                .unwrap_or_default(),
        };
        request.turns.push(Turn {
            role: Role::Assistant,
            text: previous.response.clone(),
        });
        request.turns.push(Turn {
            role: Role::User,
            text: judge_correction_prompt(&problems, previous.truncated),
        });
        let tag = format!("{}/correction", request.tag.phase);
        Ok(request.tagged(&round.id, tag))
    }

    /// Records what a finished judging call changes once its phase is on the round: a single
    /// judge's judgment, or the panel's record and its judges' latest judgments. Returns the
    /// judgments that changed (none for a debater's call).
    pub fn record(
        &self,
        protocol: &dyn Protocol,
        round: &mut Round,
        step: &Step,
    ) -> Result<Vec<Judgment>, ProtocolError> {
        if let (Judges::Panel(panel), Some(_)) = (&self.judges, &step.seat) {
            return panel.apply(round, protocol);
        }
        if step.phase_type != PhaseType::Judgment {
            return Ok(Vec::new());
        }
        // A correction turn whose call failed leaves the judgment before it standing.
        let Some(phase) = round
            .phases
            .iter()
            .rev()
            .find(|p| step.matches(p) && p.error.is_none())
        else {
            return Ok(Vec::new());
        };
        let truncated = phase.truncated;
        let mut judgment = protocol.judge(round, &step.model, JudgeAnswer::of(phase));
        let mut view = super::judge_view(protocol, phase, protocol.judge_prompt_version());
        if self.swap_sides {
            judgment = protocol.swapped_back(judgment);
            view.sides_swapped = true;
        }
        judgment.view = Some(view);
        if truncated && judgment.parse_status == ParseStatus::Parsed {
            judgment.parse_status = ParseStatus::Partial;
        }
        if truncated {
            judgment.problems.push(CUT_SHORT.to_string());
        }
        round.put_judgment(judgment.clone());
        Ok(vec![judgment])
    }

    /// The deliberation round a step belongs to and that round's time limit, when a panel
    /// with `deliberation_timeout_s` judges (see [`Panel::time_limit`]).
    pub fn time_limit(&self, step: &Step) -> Option<(u32, std::time::Duration)> {
        self.panel()?.time_limit(step)
    }

    /// The panel, when a panel judges.
    pub fn panel(&self) -> Option<&Panel> {
        match &self.judges {
            Judges::Panel(panel) => Some(panel),
            Judges::Single | Judges::Added(_) => None,
        }
    }
}

/// A single judge's answers on the round, first answer first.
fn judge_answers<'r>(round: &'r Round, judge: &str) -> Vec<&'r Phase> {
    let mut answers: Vec<&Phase> = round
        .phases
        .iter()
        .filter(|p| {
            p.phase_type == PhaseType::Judgment && p.judge_id.is_none() && p.model_id == judge
        })
        .collect();
    answers.sort_by_key(|p| p.correction);
    answers
}

/// Whether the judge's current judgment (read from its last answer) is one to send back: not
/// complete, and not already settled by a person.
fn needs_correction(round: &Round, judge: &str) -> bool {
    round
        .judgments
        .iter()
        .find(|j| j.judge_key() == judge)
        .is_some_and(|j| matches!(j.parse_status, ParseStatus::Partial | ParseStatus::Failed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Dilemma, ScheduledRound};
    use crate::protocols::ethics_bowl::{EthicsBowl, EthicsBowlOptions};

    const COMPLETE: &str = r#"{"team_a_scores": {"principle_articulation": 8, "consistency": 7, "stakeholder_recognition": 8, "uncertainty_integration": 6, "framework_awareness": 7, "intellectual_honesty": 8, "constructive_engagement": 7}, "team_b_scores": {"principle_articulation": 6, "consistency": 6, "stakeholder_recognition": 7, "uncertainty_integration": 5, "framework_awareness": 6, "intellectual_honesty": 7, "constructive_engagement": 8}, "team_a_justification": "a", "team_b_justification": "b", "overall_analysis": "c"}"#;

    fn protocol() -> EthicsBowl {
        EthicsBowl::new(
            [Dilemma {
                id: "d".into(),
                title: "D".into(),
                category: "C".into(),
                core_scenario: "A hard case.".into(),
                complications: Vec::new(),
                questions: Vec::new(),
                asymmetric_features: Vec::new(),
                consistency_case: "A parallel case.".into(),
                metadata: Default::default(),
            }],
            EthicsBowlOptions::default(),
        )
    }

    /// A round whose debaters have all spoken, judged by `j`.
    fn debated(p: &EthicsBowl) -> Round {
        let mut round = p
            .new_round(&ScheduledRound::example("d__a__vs__b__r1", "d"))
            .unwrap();
        for step in p.debate_steps(&round) {
            round
                .phases
                .push(Phase::new(step.phase_type, &step.model, "We argue."));
        }
        round
    }

    /// The judge answers the next due step with `text`, recorded as the engine does.
    fn answer(s: &JudgingStrategy, p: &EthicsBowl, round: &mut Round, text: &str, cut: bool) {
        let step = s
            .steps(p, round)
            .unwrap()
            .into_iter()
            .find(|st| !st.is_done(round))
            .expect("a judging step is due");
        round.phases.push(Phase {
            correction: step.correction,
            truncated: cut,
            ..Phase::new(step.phase_type, &step.model, text)
        });
        s.record(p, round, &step).unwrap();
    }

    fn due(s: &JudgingStrategy, p: &EthicsBowl, round: &Round) -> Vec<u32> {
        s.steps(p, round)
            .unwrap()
            .into_iter()
            .filter(|st| !st.is_done(round))
            .map(|st| st.correction)
            .collect()
    }

    #[test]
    fn a_swapped_judge_reads_the_labels_exchanged_and_its_judgment_is_stored_mapped_back() {
        let p = protocol();
        let s = JudgingStrategy::new(Judges::Added(vec!["j".into()])).with_swapped_sides();
        let mut round = debated(&p);
        let (a, b) = (round.team_a_model.clone(), round.team_b_model.clone());
        let step = s.steps(&p, &round).unwrap().pop().unwrap();
        let request = s.request(&p, &step, &round).unwrap();
        let text = &request.turns[0].text;
        for heading in [
            format!("=== TEAM B ({a}) PRESENTATION ==="),
            format!("=== TEAM A ({b}) RESPONSE ==="),
            format!("=== TEAM B ({a}) REBUTTAL ==="),
            format!("=== TEAM A ({b}) CONSISTENCY TEST ==="),
        ] {
            assert!(text.contains(&heading), "{heading}");
        }
        let cast = request.tag.cast.clone().unwrap();
        assert_eq!((&cast.team_a, &cast.team_b), (&b, &a));
        // As played, the same judge's request keeps the labels.
        let plain = JudgingStrategy::new(Judges::Added(vec!["j".into()]))
            .request(&p, &step, &round)
            .unwrap();
        assert!(
            plain.turns[0]
                .text
                .contains(&format!("=== TEAM A ({a}) PRESENTATION ==="))
        );
        assert_eq!(plain.tag.cast.unwrap().team_a, a);

        // The judge gives the team it saw as Team A 51 and as Team B 45: stored mapped back.
        answer(&s, &p, &mut round, COMPLETE, false);
        let j = &round.judgments[0];
        assert_eq!(
            j.scores(crate::domain::Team::A).unwrap().total(),
            Some(45.0)
        );
        assert_eq!(
            j.scores(crate::domain::Team::B).unwrap().total(),
            Some(51.0)
        );
        assert_eq!(
            (
                j.team_a_justification.as_str(),
                j.team_b_justification.as_str()
            ),
            ("b", "a")
        );
        assert!(j.view.as_ref().unwrap().sides_swapped);
    }

    #[test]
    fn an_unreadable_answer_is_sent_back_once_with_its_problems_and_both_answers_kept() {
        let (p, s) = (protocol(), JudgingStrategy::new(Judges::Single));
        let mut round = debated(&p);
        assert_eq!(due(&s, &p, &round), vec![0]);
        answer(
            &s,
            &p,
            &mut round,
            "Both teams did well; Stakeholders: 6.",
            false,
        );
        assert_eq!(due(&s, &p, &round), vec![1]);

        let step = s.steps(&p, &round).unwrap().pop().unwrap();
        let request = s.request(&p, &step, &round).unwrap();
        assert_eq!(request.turns.len(), 3);
        assert_eq!(request.turns[1].role, Role::Assistant);
        assert_eq!(
            request.turns[1].text,
            "Both teams did well; Stakeholders: 6."
        );
        assert!(request.turns[2].text.contains("could not be read"));
        assert!(request.tag.phase.ends_with("/correction"));
        assert_eq!(step.speaker(), "j · correction");

        answer(&s, &p, &mut round, COMPLETE, false);
        assert!(due(&s, &p, &round).is_empty());
        let judging: Vec<u32> = round
            .phases
            .iter()
            .filter(|ph| ph.phase_type == PhaseType::Judgment)
            .map(|ph| ph.correction)
            .collect();
        assert_eq!(judging, vec![0, 1]);
        assert_eq!(round.judgments.len(), 1);
        assert_eq!(round.judgments[0].parse_status, ParseStatus::Parsed);
        assert_eq!(round.settled_status(), crate::domain::RoundStatus::Complete);
    }

    #[test]
    fn a_second_unreadable_answer_goes_to_review_and_zero_corrections_asks_nothing_more() {
        let p = protocol();
        let s = JudgingStrategy::new(Judges::Single);
        let mut round = debated(&p);
        answer(&s, &p, &mut round, "no scores", false);
        answer(&s, &p, &mut round, "still no scores", false);
        assert!(due(&s, &p, &round).is_empty());
        assert_eq!(
            round.settled_status(),
            crate::domain::RoundStatus::NeedsReview
        );

        let off = JudgingStrategy::new(Judges::Single).with_corrections(0);
        let mut round = debated(&p);
        answer(&off, &p, &mut round, "no scores", false);
        assert!(due(&off, &p, &round).is_empty());
        assert_eq!(
            round.settled_status(),
            crate::domain::RoundStatus::NeedsReview
        );
    }

    #[test]
    fn an_answer_cut_at_the_token_limit_is_treated_as_incomplete() {
        let (p, s) = (protocol(), JudgingStrategy::new(Judges::Single));
        let mut round = debated(&p);
        answer(&s, &p, &mut round, COMPLETE, true);
        assert_eq!(round.judgments[0].parse_status, ParseStatus::Partial);
        assert!(
            round.judgments[0]
                .problems
                .iter()
                .any(|m| m.contains("token limit"))
        );
        let step = s.steps(&p, &round).unwrap().pop().unwrap();
        assert_eq!(step.correction, 1);
        let request = s.request(&p, &step, &round).unwrap();
        assert!(request.turns[2].text.contains("length limit"));
        answer(&s, &p, &mut round, COMPLETE, true);
        assert_eq!(
            round.settled_status(),
            crate::domain::RoundStatus::NeedsReview
        );
    }

    #[test]
    fn a_judgment_a_person_corrected_is_not_sent_back() {
        let (p, s) = (
            protocol(),
            JudgingStrategy::new(Judges::Single).with_corrections(0),
        );
        let mut round = debated(&p);
        answer(&s, &p, &mut round, "no scores", false);
        round.judgments[0].parse_status = ParseStatus::CorrectedByHand;
        let more = JudgingStrategy::new(Judges::Single).with_corrections(2);
        assert!(due(&more, &p, &round).is_empty());
    }

    #[test]
    fn a_judgment_records_what_its_judge_saw() {
        let hidden = EthicsBowl::new(
            [],
            EthicsBowlOptions {
                judge_sees_model_names: false,
                ..EthicsBowlOptions::default()
            },
        );
        let p = protocol();
        let s = JudgingStrategy::new(Judges::Single);
        for (protocol, names, temperature) in [(&p, true, Some(0.3)), (&hidden, false, None)] {
            let mut round = debated(&p);
            let step = Step::new(PhaseType::Judgment, "j", &[]);
            round.phases.push(Phase {
                temperature,
                ..Phase::new(PhaseType::Judgment, "j", COMPLETE)
            });
            let changed = s.record(protocol, &mut round, &step).unwrap();
            let view = changed[0].view.clone().unwrap();
            assert_eq!(view.judge_sees_model_names, names);
            assert_eq!(view.temperature, temperature);
            assert_eq!(
                view.prompt_version,
                crate::protocols::judging::prompt_version::ETHICS_BOWL_JUDGE
            );
            assert_eq!(round.judgments[0].view, Some(view));
        }
    }
}
