//! The Ethics Bowl: presentation, response, rebuttal and consistency test, then judges score
//! both teams on seven criteria.
//!
//! Dependencies follow what each prompt quotes: the consistency test needs only the
//! presentation, so it runs while the response and rebuttal are under way; Team B's
//! consistency test needs only the response; every judgment waits for all of them.

mod panel;
pub mod prompts;
pub mod simulated;
mod spec;

pub use spec::Spec;

use std::collections::HashMap;

use crate::domain::{
    Dilemma, EthicsBowlPhase, Judgment, PhaseType, ProtocolKind, Reading, Round, RoundRecord,
    ScheduledRound,
};
use crate::providers::{ChatRequest, RoundCast};

use super::judging::{JudgeAnswer, Quoted, read_judgment};
use super::{Asked, PhaseRef, Protocol, ProtocolError, Step, blank_round};

/// Options of the Ethics Bowl beyond the spec (each in the tournament config).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EthicsBowlOptions {
    /// Team B also takes the consistency test (phase `consistency_test_b`).
    pub consistency_test_both_teams: bool,
    /// The judge sees model ids; when false it sees only "Team A" and "Team B".
    pub judge_sees_model_names: bool,
}

impl Default for EthicsBowlOptions {
    fn default() -> Self {
        Self {
            consistency_test_both_teams: true,
            judge_sees_model_names: true,
        }
    }
}

/// The protocol, with the dilemmas its rounds discuss.
#[derive(Debug, Clone)]
pub struct EthicsBowl {
    dilemmas: HashMap<String, Dilemma>,
    options: EthicsBowlOptions,
}

impl EthicsBowl {
    /// The protocol over these dilemmas.
    pub fn new(dilemmas: impl IntoIterator<Item = Dilemma>, options: EthicsBowlOptions) -> Self {
        Self {
            dilemmas: dilemmas.into_iter().map(|d| (d.id.clone(), d)).collect(),
            options,
        }
    }

    fn dilemma(&self, round: &Round) -> Result<&Dilemma, ProtocolError> {
        self.dilemmas.get(&round.dilemma_id).ok_or_else(|| {
            ProtocolError(format!(
                "round {}: dilemma \"{}\" is not loaded",
                round.id, round.dilemma_id
            ))
        })
    }
}

fn text_of(round: &Round, phase: EthicsBowlPhase) -> Result<&str, ProtocolError> {
    round
        .phase(phase, None)
        .map(|p| p.response.as_str())
        .ok_or_else(|| {
            ProtocolError(format!(
                "round {}: phase {} has not run",
                round.id,
                PhaseType::from(phase).as_str()
            ))
        })
}

impl Protocol for EthicsBowl {
    fn kind(&self) -> ProtocolKind {
        ProtocolKind::EthicsBowl
    }

    fn new_round(&self, scheduled: &ScheduledRound) -> Result<Round, ProtocolError> {
        Ok(blank_round(scheduled, RoundRecord::EthicsBowl))
    }

    fn debate_steps(&self, round: &Round) -> Vec<Step> {
        use EthicsBowlPhase::*;
        let step = Step::new;
        let (a, b) = (round.team_a_model.as_str(), round.team_b_model.as_str());
        let mut steps = vec![
            step(Presentation, a, &[]),
            step(Response, b, &[Presentation]),
            step(Rebuttal, a, &[Presentation, Response]),
            step(ConsistencyTest, a, &[Presentation]),
        ];
        if self.options.consistency_test_both_teams {
            steps.push(step(ConsistencyTestB, b, &[Response]));
        }
        steps
    }

    fn judged_after(&self, _round: &Round) -> Vec<PhaseRef> {
        use EthicsBowlPhase::*;
        let mut after = vec![Presentation, Response, Rebuttal, ConsistencyTest];
        if self.options.consistency_test_both_teams {
            after.push(ConsistencyTestB);
        }
        after
            .into_iter()
            .map(|p| PhaseRef::from(PhaseType::from(p)))
            .collect()
    }

    fn request(&self, step: &Step, round: &Round) -> Result<ChatRequest, ProtocolError> {
        use EthicsBowlPhase::*;
        let d = self.dilemma(round)?;
        let asked = step.asked::<EthicsBowlPhase>(round, "the Ethics Bowl")?;
        let user = match asked {
            Asked::Debate(Presentation) => prompts::presentation_layers(d),
            Asked::Debate(Response) => prompts::response_layers(d, text_of(round, Presentation)?),
            Asked::Debate(Rebuttal) => prompts::rebuttal_layers(
                d,
                text_of(round, Presentation)?,
                text_of(round, Response)?,
            ),
            Asked::Debate(ConsistencyTest) => {
                prompts::consistency_layers(d, text_of(round, Presentation)?)
            }
            Asked::Debate(ConsistencyTestB) => {
                prompts::consistency_layers(d, text_of(round, Response)?)
            }
            Asked::Judgment => prompts::judgment_layers(&self.brief(round, d, false)?),
        };
        let request = user.request(prompts::SYSTEM_PROMPT);
        let request = match asked {
            Asked::Judgment => {
                let team_b_tested = round.phase(ConsistencyTestB, None).is_some();
                request.with_schema(
                    "ethics_bowl_judgment",
                    prompts::judgment_schema(team_b_tested),
                )
            }
            Asked::Debate(_) => request,
        };
        Ok(request.tagged(&round.id, step.phase_type.as_str()))
    }

    fn judge_sees_model_names(&self) -> bool {
        self.options.judge_sees_model_names
    }

    fn judge_prompt_version(&self) -> &'static str {
        super::judging::prompt_version::ETHICS_BOWL_JUDGE
    }

    fn judge(&self, round: &Round, judge_model: &str, answer: JudgeAnswer<'_>) -> Judgment {
        judgment_from_answer(judge_model, answer, &Quoted::of(round))
    }

    /// The same debate in the same order, the labels exchanged: the presenting team's turns
    /// are headed Team B, the responding team's Team A (each under its own model name when
    /// names are shown), and the simulated judges' cast names Team B's model as Team A.
    fn swapped_judge_request(
        &self,
        step: &Step,
        round: &Round,
    ) -> Result<ChatRequest, ProtocolError> {
        if let Some(why) = self.cannot_swap(round) {
            return Err(ProtocolError(format!("round {}: {why}", round.id)));
        }
        step.asked::<EthicsBowlPhase>(round, "the Ethics Bowl")?;
        let d = self.dilemma(round)?;
        let request = prompts::judgment_layers(&self.brief(round, d, true)?)
            .request(prompts::SYSTEM_PROMPT)
            .with_schema("ethics_bowl_judgment", prompts::judgment_schema(true))
            .tagged(&round.id, step.phase_type.as_str());
        let cast =
            (!round.team_a_model.is_empty() && !round.team_b_model.is_empty()).then(|| RoundCast {
                round: round.id.clone(),
                ..RoundCast::teams(&round.team_b_model, &round.team_a_model)
            });
        Ok(request.with_cast(cast))
    }

    /// Team A's scores and justification are the ones the judge gave the team shown as Team
    /// B, and the other way round.
    fn swapped_back(&self, judgment: Judgment) -> Judgment {
        let reading = match judgment.reading {
            Reading::Rubric { team_a, team_b } => Reading::Rubric {
                team_a: team_b,
                team_b: team_a,
            },
            other => other,
        };
        Judgment {
            reading,
            team_a_justification: judgment.team_b_justification,
            team_b_justification: judgment.team_a_justification,
            ..judgment
        }
    }

    /// Both teams must have taken the consistency test: the judge's answer format asks for
    /// Team A's reading always and Team B's only when it took one, which swapped labels would
    /// misplace.
    fn cannot_swap(&self, round: &Round) -> Option<String> {
        round
            .phase(EthicsBowlPhase::ConsistencyTestB, None)
            .is_none()
            .then(|| "only Team A took the consistency test, so the sides cannot be swapped".into())
    }
}

impl EthicsBowl {
    /// The exchange as judges see it (`swapped`: the labels exchanged, see
    /// [`prompts::JudgeBrief::swapped`]): model names hidden when the options say so; Team B's
    /// consistency test included whenever the round has one (rounds from before that option,
    /// such as the predecessor's, lack it).
    fn brief<'a>(
        &self,
        round: &'a Round,
        dilemma: &'a Dilemma,
        swapped: bool,
    ) -> Result<prompts::JudgeBrief<'a>, ProtocolError> {
        let names = self.options.judge_sees_model_names;
        let (label_a, label_b) = if swapped {
            ("Team B", "Team A")
        } else {
            ("Team A", "Team B")
        };
        Ok(prompts::JudgeBrief {
            dilemma,
            team_a_name: if names { &round.team_a_model } else { label_a },
            team_b_name: if names { &round.team_b_model } else { label_b },
            swapped,
            presentation: text_of(round, EthicsBowlPhase::Presentation)?,
            response: text_of(round, EthicsBowlPhase::Response)?,
            rebuttal: text_of(round, EthicsBowlPhase::Rebuttal)?,
            consistency_a: text_of(round, EthicsBowlPhase::ConsistencyTest)?,
            consistency_b: round
                .phase(EthicsBowlPhase::ConsistencyTestB, None)
                .map(|p| p.response.as_str()),
        })
    }
}

/// Reads a judge's answer into a judgment (its own part: judgments `quoted` from the
/// debaters left out), keeping the raw text and the parse status.
pub fn judgment_from_answer(
    judge_model: &str,
    answer: JudgeAnswer<'_>,
    quoted: &Quoted<'_>,
) -> Judgment {
    let parsed = read_judgment(answer, quoted);
    Judgment {
        judge_model: judge_model.to_string(),
        persona_id: None,
        parse_status: parsed.status(),
        reading: Reading::Rubric {
            team_a: parsed.team_a,
            team_b: parsed.team_b,
        },
        team_a_justification: parsed.team_a_justification,
        team_b_justification: parsed.team_b_justification,
        overall_analysis: parsed.overall_analysis,
        problems: parsed.problems,
        raw_response: answer.text.to_string(),
        corrected_text: None,
        view: None,
    }
}
