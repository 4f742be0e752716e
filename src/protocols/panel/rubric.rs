//! What a protocol gives a judge panel: the rubric its judges score (dimensions, scale,
//! verdicts, labels) and the part of the protocol a panel calls ([`PanelJudged`]), so the
//! panel itself never knows which protocol it judges.

use serde_json::Value;

use crate::domain::{Aggregate, Evaluation, Judgment, Reading, Round};
use crate::protocols::ProtocolError;
use crate::protocols::judging::{JudgeAnswer, schema};
use crate::protocols::layered::Layered;

/// What a protocol's panel judges score in one round: its dimensions, their scale, the
/// verdicts, the labels voted on by name, and how all of it is asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct Rubric {
    /// Dimension keys, in order (`team_a.principle_articulation`, `debater_b.quote_use`, …).
    pub dimensions: Vec<String>,
    /// The lowest and highest score (the agreement is normalised by their distance).
    pub scale: (f64, f64),
    /// The verdicts a judge may give (`team_a`, `team_b`, `tie`; `A`, `B`; …).
    pub verdicts: Vec<String>,
    /// What a level weighted vote gives, when the rubric has such a verdict (`tie`); without
    /// one, the judges' confidence breaks the tie.
    pub level_verdict: Option<String>,
    /// Keys of the calls judges make by name and the panel settles by weighted majority
    /// (a structured debate's `PRO-1.standing`).
    pub labels: Vec<String>,
    /// The criteria, as listed to judges.
    pub criteria: String,
    /// What a judge does after reading the exchange, the criteria included.
    pub instructions: String,
    /// The protocol's fields of the answer's JSON object (verdict, confidence, scores), in
    /// order, each with its schema (see [`schema`]); the panel adds findings and rationale
    /// ([`Rubric::answer_schema`]).
    pub answer_fields: Vec<(String, Value)>,
    /// Whether the instructions and the answer format are the same in every round on the
    /// case, so that the prompts put them in their shared part (false for a structured
    /// debate's, which name the round's arguments).
    pub shared: bool,
}

impl Rubric {
    /// The schema of a panel judge's whole answer (evaluation and deliberation alike): the
    /// protocol's fields, then findings tied to dimensions, then the rationale. Its
    /// description is the answer format the prompts show.
    pub fn answer_schema(&self) -> Value {
        let example = self
            .dimensions
            .first()
            .or(self.labels.first())
            .map_or("verdict", String::as_str);
        let finding = schema::object([
            (
                "dimension",
                schema::text(&format!("a dimension key, e.g. {example}")),
            ),
            (
                "finding",
                schema::text("what you found, citing the transcript, in one or two sentences"),
            ),
        ]);
        schema::object(self.answer_fields.iter().cloned().chain([
            ("key_findings".to_string(), schema::list_up_to(finding, 5)),
            (
                "rationale".to_string(),
                schema::text("your reasons, in two to four sentences"),
            ),
        ]))
    }

    /// The scale's range (9 for 1–10).
    pub fn scale_span(&self) -> f64 {
        (self.scale.1 - self.scale.0).max(f64::MIN_POSITIVE)
    }
}

/// A score as judges and people read it: `8`, `6.5` for half points, `5.25` for a mean (at
/// most two decimals).
pub(crate) fn show_score(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// What a judge panel needs from a protocol: the rubric its judges score, the exchange they
/// read, how an answer compares with the others', and the panel's aggregate in the
/// protocol's own shape. Every protocol implements it, so a panel judges any of them.
pub trait PanelJudged {
    /// The prefix of its panel calls' tags (`qa_`, so a provider, a simulated judge among
    /// them, can tell what it judges; the Ethics Bowl's calls keep the bare phase name they
    /// always had).
    fn panel_tag_prefix(&self) -> &'static str;
    /// The version of its panel judges' prompts: the shared panel prompts over its rubric
    /// and material (see [`crate::protocols::judging::prompt_version`]).
    fn panel_prompt_version(&self) -> &'static str;
    /// What a panel judge scores in this round.
    fn panel_rubric(&self, round: &Round) -> Result<Rubric, ProtocolError>;
    /// The exchange as panel judges read it (every phase they need must have run), in
    /// layers: what every round on the same case shares, then the round's own.
    fn panel_material(&self, round: &Round) -> Result<Layered, ProtocolError>;
    /// A panel judge's answer as the panel compares it: `judgment` is the protocol's reading
    /// of `answer` (a person's correction of it, when corrected), whose other fields are read
    /// from the same part of it, the judge's own. Returns what could not be read beside the
    /// judgment's own problems.
    fn panel_evaluation(
        &self,
        round: &Round,
        judgment: &Judgment,
        answer: JudgeAnswer<'_>,
    ) -> (Evaluation, Vec<String>);
    /// The panel's verdict as this protocol reads a judgment, from the weighted aggregate and
    /// each judge's final judgment with its weight.
    fn panel_reading(
        &self,
        round: &Round,
        aggregate: &Aggregate,
        finals: &[(f64, &Judgment)],
    ) -> Reading;
}
