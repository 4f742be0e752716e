//! A protocol as one plug-in: what the rest of the tool asks of a protocol beyond a round's
//! steps ([`Protocol`]) and its panel's rubric ([`super::panel::PanelJudged`]): its inputs
//! and schedule, its stored rounds read back, its simulated debaters and judges, and the
//! files its rounds produce beside their own. The registry ([`super::spec`]) gives each
//! protocol kind its spec; the engine, `rejudge` and the commands ask it, never a protocol
//! by name.

use std::path::Path;
use std::sync::Arc;

use crate::config::TournamentConfig;
use crate::domain::{Judgment, ProtocolKind, Round, RoundStatus, Team};
use crate::providers::simulated::SimulatedBehaviour;
use crate::store::Store;

use super::Protocol;
use super::inputs::{Inputs, InputsError};

/// A file a round produces beside its own (the structured debate's decision briefing),
/// stored as `<folder>/<round id>.<extension>` in the tournament's folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundExtra {
    /// The folder in the tournament's folder (one of the spec's
    /// [`ProtocolSpec::extra_folders`]).
    pub folder: &'static str,
    /// The file's extension (`md`).
    pub extension: &'static str,
    /// The file's text, as the protocol wrote it (the store sanitises and redacts it).
    pub text: String,
}

/// What re-judging a folder gives the protocol that judges its rounds again.
#[derive(Debug, Clone, Copy)]
pub struct Rejudging<'a> {
    /// The judging file (paths in it are relative to it).
    pub config_path: &'a Path,
    /// The results folder whose rounds are judged.
    pub results: &'a Path,
    /// The results folder, to read its tournament's record from.
    pub source: &'a Store,
    /// The judging file's `dilemma_file`, as written (the Ethics Bowl's dilemma document).
    pub dilemma_file: Option<&'a Path>,
    /// The judges see model names (false: "Team A" / "Team B" only).
    pub judge_sees_model_names: bool,
}

/// One protocol, as the registry hands it out: everything the tool needs of it besides
/// what each round asks of its [`Protocol`].
pub trait ProtocolSpec: Send + Sync {
    /// Which protocol this is.
    fn kind(&self) -> ProtocolKind;

    /// Its inputs read and checked (the tournament file's `dilemma_file`, `[qa]` or
    /// `[structured]` table), with the protocol over them and the schedule of rounds.
    fn inputs(&self, config_path: &Path, config: &TournamentConfig) -> Result<Inputs, InputsError>;

    /// The protocol that reads stored rounds of this kind, for work on stored rounds that
    /// needs no inputs (re-reading a corrected judgment, re-deriving records, the review
    /// queue).
    fn stored(&self) -> Box<dyn Protocol>;

    /// The protocol that judges stored rounds again (`rejudge`), able to build its judges'
    /// requests: by default the stored one, for protocols whose rounds hold everything their
    /// judges read.
    fn rejudging(&self, _from: &Rejudging<'_>) -> Result<Arc<dyn Protocol>, InputsError> {
        Ok(Arc::from(self.stored()))
    }

    /// What its simulated debaters and judges say (see [`crate::providers::simulated`]).
    fn simulation(&self) -> Box<dyn SimulatedBehaviour>;

    /// Whether a pairings list is played both ways, so that side advantage can be measured
    /// (sides that differ in kind, like the structured debate's Pro and Con).
    fn pairs_both_ways(&self) -> bool {
        false
    }

    /// What a finished round says of its two models as a match, for a design that chooses
    /// rounds by the ratings so far ([`crate::design`]): Team A's score (1 a win, ½ a
    /// draw, 0 a loss) by the deciding judgment (the panel's verdict, else the first usable
    /// judgment); none when the round is not complete, is no match between two models, or
    /// its judgment holds no result. By default the judgment's margin decides (a rubric's
    /// totals, a verdict's); a protocol whose judges choose instead says how.
    fn match_score(&self, round: &Round) -> Option<f64> {
        let margin = deciding(round)?.margin()?;
        Some(if margin > 0.0 {
            1.0
        } else if margin < 0.0 {
            0.0
        } else {
            0.5
        })
    }

    /// The folders its rounds' extra files go in ([`ProtocolSpec::round_extras`]).
    fn extra_folders(&self) -> &'static [&'static str] {
        &[]
    }

    /// The files a round produces beside its own, as it stands (none until it is judged).
    fn round_extras(&self, _round: &Round) -> Vec<RoundExtra> {
        Vec::new()
    }
}

/// A finished round as an adaptive design reads it ([`crate::design`]): its spec's
/// [`ProtocolSpec::match_score`] and who decided it, the panel as one unit when its verdict
/// decided (`panel`), else the deciding judgment's judge. One outcome per round, never one
/// per judgment: a round's judges score one exchange, and counting each as a match would
/// overstate what the round tells (and so how soon the ranking looks settled).
pub fn match_outcome(round: &Round) -> Option<crate::design::Outcome> {
    let score = crate::protocols::spec(round.kind()).match_score(round)?;
    let panel = round.panel.as_ref().is_some_and(|p| p.verdict.is_some());
    let judge = if panel {
        crate::design::PANEL.to_string()
    } else {
        deciding(round)?.judge_key().to_string()
    };
    Some(crate::design::Outcome { score, judge })
}

/// The judgment that decides a complete round between two models: the panel's verdict when
/// a panel judged, else the first usable judgment; none for any other round.
pub fn deciding(round: &Round) -> Option<&Judgment> {
    if round.status != RoundStatus::Complete
        || round.team_a_model.is_empty()
        || round.team_b_model.is_empty()
        || round.team_a_model == round.team_b_model
    {
        return None;
    }
    match round.panel.as_ref().and_then(|p| p.verdict.as_ref()) {
        Some(panel) => Some(panel),
        None => round.judgments.iter().find(|j| j.is_usable()),
    }
}

/// Team A's score when the judge chose `side`'s answer: 1 for A, 0 for B.
pub fn chosen_score(side: Team) -> f64 {
    match side {
        Team::A => 1.0,
        Team::B => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{
        Criterion, PanelRecord, PanelState, Reading, RoundRecord, RoundStatus, ScheduledRound,
        Scores,
    };

    fn sheet(value: f64) -> Scores {
        let mut s = Scores::default();
        for c in Criterion::ALL {
            s.set(c, Some(value));
        }
        s
    }

    fn judged(judge: &str, a: f64, b: f64) -> Judgment {
        Judgment::new(
            judge,
            Reading::Rubric {
                team_a: sheet(a),
                team_b: sheet(b),
            },
        )
    }

    #[test]
    fn a_round_is_one_match_decided_by_its_first_judgment_or_by_the_panel_as_one() {
        let s = ScheduledRound {
            team_a: "a".into(),
            team_b: "b".into(),
            judges: vec!["j1".into(), "j2".into()],
            ..ScheduledRound::example("r1", "d1")
        };
        let mut round = crate::protocols::blank_round(&s, RoundRecord::EthicsBowl);
        round.put_judgment(judged("j1", 7.0, 5.0));
        round.put_judgment(judged("j2", 4.0, 6.0));
        assert_eq!(match_outcome(&round), None, "not complete");
        round.status = RoundStatus::Complete;
        let one = match_outcome(&round).unwrap();
        assert_eq!((one.score, one.judge.as_str()), (1.0, "j1"));
        round.panel = Some(PanelRecord {
            judges: Vec::new(),
            max_deliberation_rounds: 1,
            convergence_threshold: 0.8,
            dimension_disagreement_threshold: 2.0,
            min_evaluations_for_debate: 2,
            deliberation_timeout_s: None,
            rounds: Vec::new(),
            state: PanelState::Converged,
            converged: true,
            initial_agreement: None,
            final_agreement: None,
            aggregate: None,
            summary: None,
            verdict: Some(judged("j2", 5.0, 6.0)),
        });
        let panel = match_outcome(&round).unwrap();
        assert_eq!((panel.score, panel.judge.as_str()), (0.0, "panel"));
    }
}
