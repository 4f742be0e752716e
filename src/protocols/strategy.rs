//! How a round is judged, apart from what it is: single judges, each alone (`all`,
//! `rotate`, and the judges `rejudge` adds), or a panel that deliberates. Any protocol takes
//! any strategy: the protocol gives its debaters' calls, what its judges read and how an
//! answer reads; the strategy adds the judges' calls and turns their answers into the
//! round's judgments.

use crate::domain::{Judgment, PhaseType, Round};
use crate::providers::ChatRequest;

use super::panel::Panel;
use super::{PhaseRef, Protocol, ProtocolError, Step};

/// Who judges a round, and how.
#[derive(Debug, Clone)]
pub enum JudgingStrategy {
    /// Each of the round's judges (`judge_models`) scores the exchange alone.
    Single,
    /// These judges score the exchange alone, beside the judgments already on file
    /// (re-judging stored rounds).
    Added(Vec<String>),
    /// A panel of judges that deliberates when it disagrees.
    Panel(Panel),
}

/// One call per judge, each waiting for what judges read. A judge whose judgment is on file
/// without the call that gave it (imported from the Python predecessor) is not asked again.
fn single_judges(round: &Round, judges: &[String], after: &[PhaseRef]) -> Vec<Step> {
    judges
        .iter()
        .filter(|j| {
            round.phase(PhaseType::Judgment, Some(j)).is_some()
                || !round.judgments.iter().any(|x| x.judge_key() == j.as_str())
        })
        .map(|judge| Step {
            depends_on: after.to_vec(),
            ..Step::new(PhaseType::Judgment, judge, &[])
        })
        .collect()
}

impl JudgingStrategy {
    /// Every call of the round as things stand: the debaters', then the judges' (a panel's
    /// deliberation rounds appear as they become due).
    pub fn steps(
        &self,
        protocol: &dyn Protocol,
        round: &Round,
    ) -> Result<Vec<Step>, ProtocolError> {
        let mut steps = protocol.debate_steps(round);
        let after = protocol.judged_after(round);
        match self {
            Self::Single => steps.extend(single_judges(round, &round.judge_models, &after)),
            Self::Added(judges) => steps.extend(single_judges(round, judges, &after)),
            Self::Panel(panel) => steps.extend(panel.settle(round, protocol)?.1),
        }
        Ok(steps)
    }

    /// The request for one step.
    pub fn request(
        &self,
        protocol: &dyn Protocol,
        step: &Step,
        round: &Round,
    ) -> Result<ChatRequest, ProtocolError> {
        match (self, &step.seat) {
            (Self::Panel(panel), Some(_)) => panel.request(step, round, protocol),
            (Self::Single | Self::Added(_) | Self::Panel(_), _) => protocol.request(step, round),
        }
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
        match (self, &step.seat) {
            (Self::Panel(panel), Some(_)) => panel.apply(round, protocol),
            (Self::Single | Self::Added(_) | Self::Panel(_), _)
                if step.phase_type == PhaseType::Judgment =>
            {
                let Some(phase) = round.phases.iter().rev().find(|p| step.matches(p)) else {
                    return Ok(Vec::new());
                };
                let judgment = protocol.judge(round, &step.model, &phase.response);
                round.put_judgment(judgment.clone());
                Ok(vec![judgment])
            }
            (Self::Single | Self::Added(_) | Self::Panel(_), _) => Ok(Vec::new()),
        }
    }

    /// The panel, when a panel judges.
    pub fn panel(&self) -> Option<&Panel> {
        match self {
            Self::Panel(panel) => Some(panel),
            Self::Single | Self::Added(_) => None,
        }
    }
}
