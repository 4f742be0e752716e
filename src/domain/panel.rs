//! A judge panel's record of one exchange: each judge's evaluation in every deliberation
//! round, the agreement and disagreements after each, and the weighted aggregate. It is
//! derived from the round's panel phases (see `protocols::panel`), so it can always be
//! rebuilt from what is on disk.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Judgment;

/// One judge of the panel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PanelSeat {
    /// The persona's id (unique in the panel).
    pub persona_id: String,
    /// The model that plays it.
    pub model: String,
    /// Its weight in the aggregate (normalised over the judges that answered).
    pub weight: f64,
}

/// A finding a judge ties to one dimension of the rubric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// The dimension's key (`team_a.consistency`), or empty when the judge named none.
    pub dimension: String,
    /// What the judge found.
    pub finding: String,
}

/// One judge's evaluation of the exchange.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// Scores by dimension key (`team_a.principle_articulation`, …); missing ones absent.
    pub scores: BTreeMap<String, f64>,
    /// Which side did better (`team_a`, `team_b`, `tie`), when given or inferable.
    pub verdict: Option<String>,
    /// How sure the judge is, from 0 to 1.
    pub confidence: Option<f64>,
    /// Calls the judge makes by name rather than by score, keyed as the rubric names them
    /// (a structured debate's `PRO-1.standing` → `UPHELD`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Findings tied to dimensions.
    #[serde(default)]
    pub findings: Vec<Finding>,
    /// The judge's reasons.
    #[serde(default)]
    pub rationale: String,
}

/// What became of one judge's call in one panel round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeatOutcome {
    /// Read in full.
    Evaluated,
    /// Read in part: what was read is kept; the round goes to review.
    Partial,
    /// Not readable: the previous evaluation stands for this round; the round goes to review.
    Unparsed,
    /// Corrected by a person in the review queue.
    CorrectedByHand,
    /// The provider failed after its retries: this judge is left out from here on.
    Failed,
    /// The deliberation round's time limit (`deliberation_timeout_s`) ran out before it
    /// answered: its previous evaluation stands, and the panel deliberates no further.
    TimedOut,
}

/// One judge in one panel round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeatResult {
    /// The judge.
    pub persona_id: String,
    /// What became of its call.
    pub outcome: SeatOutcome,
    /// The evaluation in force for this round (the previous one when this reply was
    /// unreadable; none when the judge has never been read).
    pub evaluation: Option<Evaluation>,
    /// What could not be read, or the provider's error.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

/// How far a panel agrees: 0.6 × verdict agreement + 0.4 × dimension agreement.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Agreement {
    /// The weighted whole.
    pub overall: f64,
    /// The share of judges on the most common verdict.
    pub verdict: f64,
    /// The mean over dimensions of 1 − range ÷ the scale's range, floored at 0.
    pub dimension: f64,
    /// How many judges it covers.
    pub judges: usize,
}

/// What the judges disagree on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Disagreement {
    /// The dimension's key, `verdict` for a verdict split, or a label's key.
    pub subject: String,
    /// From 0 to 1: for a dimension, its gap ÷ the scale's range; for a verdict or a label,
    /// the share of judges off the majority ÷ the largest share possible.
    pub severity: f64,
    /// Each judge's position on it (`philosopher: 8`, `coach: team_b`).
    pub positions: Vec<(String, String)>,
}

/// One round of the panel: 0 is the independent evaluation, then each deliberation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PanelRound {
    /// The round's number.
    pub number: u32,
    /// Each judge asked in this round.
    pub evaluations: Vec<SeatResult>,
    /// The agreement after it, when at least one judge has an evaluation.
    pub agreement: Option<Agreement>,
    /// What is still disputed after it, most severe first.
    #[serde(default)]
    pub disagreements: Vec<Disagreement>,
}

/// The panel's weighted verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Aggregate {
    /// Weighted mean score per dimension.
    pub scores: BTreeMap<String, f64>,
    /// The verdict with the largest total weight (see `protocols::panel::aggregate` for a
    /// level vote).
    pub verdict: Option<String>,
    /// Per label, the value with the largest total weight (absent when the vote is level).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Weighted mean confidence.
    pub confidence: Option<f64>,
    /// How many judges it covers.
    pub judges: usize,
}

/// Where a panel stands: still evaluating, or why it stopped (its stop reason).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PanelState {
    /// Judges are still answering the current round.
    Evaluating,
    /// The agreement reached the convergence threshold.
    Converged,
    /// The agreement is below the threshold, but no verdict, score gap or label is disputed:
    /// there is nothing to deliberate on. (Records written before this reason existed call
    /// it `converged`.)
    NothingDisputed,
    /// The deliberation round limit was reached without convergence.
    RoundLimit,
    /// Fewer judges have an evaluation than `min_evaluations_for_debate`: too few to
    /// deliberate.
    TooFewJudges,
    /// A deliberation round ran past `deliberation_timeout_s`: the answers given in time
    /// count, the late judges' previous evaluations stand.
    TimedOut,
}

impl PanelState {
    /// Its name as the round file writes it (`nothing_disputed`), for reports and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Evaluating => "evaluating",
            Self::Converged => "converged",
            Self::NothingDisputed => "nothing_disputed",
            Self::RoundLimit => "round_limit",
            Self::TooFewJudges => "too_few_judges",
            Self::TimedOut => "timed_out",
        }
    }
}

/// What a disagreement is about, for the summary's count of disagreement types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DisagreementKind {
    /// The judges' verdicts differ.
    Verdict,
    /// One dimension's scores are at least the disagreement threshold apart.
    Dimension,
    /// A call made by name (an argument's standing) differs.
    Label,
}

/// One panel round in the summary: the agreement after it, and what was still disputed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundDisputes {
    /// The panel round (0: the independent evaluations; the disputes after round `n` are
    /// what deliberation round `n + 1` was asked to resolve).
    pub number: u32,
    /// The agreement after it.
    pub agreement: Option<f64>,
    /// How many disagreements were left after it.
    pub disagreements: usize,
    /// Those disagreements by type.
    pub types: BTreeMap<DisagreementKind, usize>,
}

/// One judge's final position, as the summary lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FinalVerdict {
    /// The judge.
    pub persona_id: String,
    /// Its verdict in force at the end, when it gave one.
    pub verdict: Option<String>,
    /// Its confidence in it (0–1), when given.
    pub confidence: Option<f64>,
}

/// The source design's summary of one exchange's deliberation (MAJ-EVAL's debate summary):
/// what a reader compares across panels without reading every round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PanelSummary {
    /// Deliberation rounds held (after the independent evaluations).
    pub deliberation_rounds: u32,
    /// Agreement after the independent evaluations.
    pub initial_agreement: Option<f64>,
    /// Agreement after the last round.
    pub final_agreement: Option<f64>,
    /// Final minus initial agreement.
    pub improvement: Option<f64>,
    /// Whether the final agreement reached the threshold.
    pub converged: bool,
    /// Why the panel stopped.
    pub stop_reason: PanelState,
    /// Each panel round's agreement and disagreements (count and types), round 0 first.
    pub rounds: Vec<RoundDisputes>,
    /// Each judge's final verdict with its confidence (judges with an evaluation in force).
    pub final_verdicts: Vec<FinalVerdict>,
}

/// The panel's whole record for one exchange.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PanelRecord {
    /// The judges, in the configured order.
    pub judges: Vec<PanelSeat>,
    /// Deliberation rounds allowed.
    pub max_deliberation_rounds: u32,
    /// The agreement at which the panel stops.
    pub convergence_threshold: f64,
    /// The score gap that counts as a disagreement.
    pub dimension_disagreement_threshold: f64,
    /// Judges with an evaluation needed for a deliberation (absent from the file when 2,
    /// the default, which is also what records written before the setting assumed).
    #[serde(
        default = "default_min_evaluations",
        skip_serializing_if = "is_default_min_evaluations"
    )]
    pub min_evaluations_for_debate: u32,
    /// Seconds each deliberation round may take, when limited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deliberation_timeout_s: Option<f64>,
    /// Every round so far.
    pub rounds: Vec<PanelRound>,
    /// Where it stands: evaluating, or why it stopped.
    pub state: PanelState,
    /// Whether it converged: its final agreement reached the threshold.
    pub converged: bool,
    /// Agreement after the independent evaluations.
    pub initial_agreement: Option<f64>,
    /// Agreement after the last round.
    pub final_agreement: Option<f64>,
    /// The weighted aggregate of the evaluations in force after the last round.
    pub aggregate: Option<Aggregate>,
    /// The deliberation's summary, once the panel has finished (absent from records written
    /// before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<PanelSummary>,
    /// The aggregate read as a judgment in the protocol's own shape (judge `panel`): what the
    /// round's `scores` holds. Stored once, as `scores`, and restored from it on load.
    #[serde(skip)]
    pub verdict: Option<Judgment>,
}

/// The default of `min_evaluations_for_debate`: a debate needs two judges.
pub const DEFAULT_MIN_EVALUATIONS: u32 = 2;

fn default_min_evaluations() -> u32 {
    DEFAULT_MIN_EVALUATIONS
}

fn is_default_min_evaluations(n: &u32) -> bool {
    *n == DEFAULT_MIN_EVALUATIONS
}

impl PanelRecord {
    /// Whether a judge's latest reply still needs a person.
    pub fn needs_review(&self) -> bool {
        self.judges.iter().any(|seat| {
            self.latest(&seat.persona_id)
                .is_some_and(|r| matches!(r.outcome, SeatOutcome::Partial | SeatOutcome::Unparsed))
        })
    }

    /// The judge's result in the last round it was asked in.
    pub fn latest(&self, persona_id: &str) -> Option<&SeatResult> {
        self.rounds
            .iter()
            .rev()
            .find_map(|r| r.evaluations.iter().find(|e| e.persona_id == persona_id))
    }

    /// The panel's verdict as a judgment in its protocol's shape (judge `panel`), once the
    /// panel has finished, so a reader of `scores` sees the panel's verdict.
    pub fn aggregate_judgment(&self) -> Option<Judgment> {
        self.verdict.clone()
    }

    /// Deliberation rounds held (rounds after the independent one).
    pub fn deliberation_rounds(&self) -> u32 {
        self.rounds.len().saturating_sub(1) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_states_name_is_the_one_the_file_holds() {
        for state in [
            PanelState::Evaluating,
            PanelState::Converged,
            PanelState::NothingDisputed,
            PanelState::RoundLimit,
            PanelState::TooFewJudges,
            PanelState::TimedOut,
        ] {
            assert_eq!(serde_json::to_value(state).unwrap(), state.as_str());
        }
    }
}
