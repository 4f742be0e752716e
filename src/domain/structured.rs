//! The structured debate's data: topics, the arguments, cross-examination answers and
//! closings the two sides give, and the judge's trace of every argument.

use serde::{Deserialize, Serialize};

use super::Team;

/// A practical decision question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Topic {
    /// Stable, filename-safe id.
    pub id: String,
    /// What Pro argues for ("A ten-person startup should adopt microservices from day one").
    pub proposition: String,
    /// Background both sides and the judge read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
}

/// A side of the proposition. Team A argues Pro, Team B Con.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// For the proposition.
    Pro,
    /// Against it.
    Con,
}

impl Side {
    /// Both sides.
    pub const BOTH: [Side; 2] = [Side::Pro, Side::Con];

    /// The team that argues this side.
    pub fn team(self) -> Team {
        match self {
            Self::Pro => Team::A,
            Self::Con => Team::B,
        }
    }

    /// The side a team argues.
    pub fn of(team: Team) -> Self {
        match team {
            Team::A => Self::Pro,
            Team::B => Self::Con,
        }
    }

    /// The other side.
    pub fn other(self) -> Self {
        match self {
            Self::Pro => Self::Con,
            Self::Con => Self::Pro,
        }
    }

    /// The prefix of this side's argument ids (`PRO`, `CON`).
    pub fn prefix(self) -> &'static str {
        match self {
            Self::Pro => "PRO",
            Self::Con => "CON",
        }
    }

    /// `pro` or `con`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pro => "pro",
            Self::Con => "con",
        }
    }
}

/// One opening argument.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DebateArgument {
    /// `PRO-1`, `CON-2`, …
    pub id: String,
    /// The claim.
    pub claim: String,
    /// Why it holds.
    pub reasoning: String,
    /// What supports it.
    pub evidence: String,
}

/// How a side answers one of the other side's arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResponseType {
    /// It is wrong.
    Refute,
    /// It is doubtful.
    Challenge,
    /// It stands.
    Concede,
    /// Part of it stands.
    Partial,
}

impl ResponseType {
    /// Every answer, in the order the prompt explains them.
    pub const ALL: [ResponseType; 4] =
        [Self::Refute, Self::Challenge, Self::Concede, Self::Partial];

    /// The name in files and prompts.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Refute => "refute",
            Self::Challenge => "challenge",
            Self::Concede => "concede",
            Self::Partial => "partial",
        }
    }

    /// When a debater should answer this way (the cross-examination prompt says it).
    pub fn meaning(self) -> &'static str {
        match self {
            Self::Refute => "the argument contains a factual or logical error; say which",
            Self::Challenge => {
                "its evidence is not enough, or the conditions it relies on do not hold here"
            }
            Self::Concede => "you accept the argument as it stands",
            Self::Partial => {
                "you accept its core but dispute how far it reaches or where it applies"
            }
        }
    }
}

/// One cross-examination answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrossResponse {
    /// The argument answered.
    pub target_arg_id: String,
    /// How.
    pub response_type: ResponseType,
    /// Why.
    pub reasoning: String,
    /// A question back.
    #[serde(default)]
    pub follow_up_question: String,
}

/// A closing statement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Closing {
    /// What the side concedes.
    #[serde(default)]
    pub concessions: Vec<String>,
    /// Its arguments the other side did not effectively rebut.
    #[serde(default)]
    pub unrebutted_arguments: Vec<String>,
    /// Where it ends up.
    pub final_position: String,
    /// Whether its position moved during the debate.
    #[serde(default)]
    pub position_shifted: bool,
}

/// What the judge found of an argument after the whole debate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Standing {
    /// It stood.
    Upheld,
    /// Part of it stood.
    PartiallyUpheld,
    /// It fell.
    Refuted,
    /// The debate did not settle it.
    Uncertain,
}

impl Standing {
    /// Every standing.
    pub const ALL: [Standing; 4] = [
        Self::Upheld,
        Self::PartiallyUpheld,
        Self::Refuted,
        Self::Uncertain,
    ];

    /// The name in files and prompts.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Upheld => "UPHELD",
            Self::PartiallyUpheld => "PARTIALLY_UPHELD",
            Self::Refuted => "REFUTED",
            Self::Uncertain => "UNCERTAIN",
        }
    }

    /// What the standing means for a decision (the judge's prompt and the briefing's legend
    /// say it).
    pub fn meaning(self) -> &'static str {
        match self {
            Self::Upheld => "it survived the debate: the decision can rely on it",
            Self::PartiallyUpheld => "it holds, but only within limits the debate exposed",
            Self::Refuted => "it fell: the decision should not rest on it",
            Self::Uncertain => "the debate did not settle it: more data is needed",
        }
    }
}

/// The judge's fallacy checklist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fallacy {
    /// Attacking a weaker version of the other side's claim.
    StrawMan,
    /// Authority in place of evidence.
    AppealToAuthority,
    /// An unsupported chain of consequences.
    SlipperySlope,
    /// Two options where there are more.
    FalseDilemma,
    /// A story in place of data.
    AnecdotalEvidence,
    /// The conclusion assumed.
    CircularReasoning,
    /// The arguer, not the argument.
    AdHominem,
}

impl Fallacy {
    /// The checklist, in order.
    pub const ALL: [Fallacy; 7] = [
        Self::StrawMan,
        Self::AppealToAuthority,
        Self::SlipperySlope,
        Self::FalseDilemma,
        Self::AnecdotalEvidence,
        Self::CircularReasoning,
        Self::AdHominem,
    ];

    /// The name in files and prompts.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::StrawMan => "straw_man",
            Self::AppealToAuthority => "appeal_to_authority",
            Self::SlipperySlope => "slippery_slope",
            Self::FalseDilemma => "false_dilemma",
            Self::AnecdotalEvidence => "anecdotal_evidence",
            Self::CircularReasoning => "circular_reasoning",
            Self::AdHominem => "ad_hominem",
        }
    }

    /// The question that detects it (the judge's checklist asks it of every argument).
    pub fn question(self) -> &'static str {
        match self {
            Self::StrawMan => "does it attack a claim the other side never made?",
            Self::AppealToAuthority => {
                "does a famous name or title stand in for the reasoning itself?"
            }
            Self::SlipperySlope => {
                "does it assume one step will set off a chain of consequences nobody can stop?"
            }
            Self::FalseDilemma => "does it squeeze a complex issue into an either-or choice?",
            Self::AnecdotalEvidence => {
                "does it rest on isolated cases where systematic evidence is needed?"
            }
            Self::CircularReasoning => "is the conclusion already assumed in a premise?",
            Self::AdHominem => "does it attack the other side rather than their argument?",
        }
    }
}

/// The judge's assessment of one opening argument.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArgumentAssessment {
    /// The argument.
    pub arg_id: String,
    /// Soundness of the reasoning, 1–10.
    pub logic: Option<f64>,
    /// Strength of the support, 1–10.
    pub evidence: Option<f64>,
    /// How it held up under cross-examination, 1–10.
    pub responsiveness: Option<f64>,
    /// Conceding when warranted, 1–10.
    pub honesty: Option<f64>,
    /// Fallacies found in it.
    #[serde(default)]
    pub fallacies: Vec<Fallacy>,
    /// Where it stands after the debate.
    pub standing: Option<Standing>,
    /// Why.
    #[serde(default)]
    pub reason: String,
}

/// Weights of the four scores in a side's total (they sum to 1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoreWeights {
    /// Evidence.
    pub evidence: f64,
    /// Logic.
    pub logic: f64,
    /// Responsiveness.
    pub responsiveness: f64,
    /// Honesty.
    pub honesty: f64,
}

impl Default for ScoreWeights {
    fn default() -> Self {
        Self {
            evidence: 0.4,
            logic: 0.3,
            responsiveness: 0.2,
            honesty: 0.1,
        }
    }
}

impl ScoreWeights {
    /// An argument's weighted score, when all four scores are there.
    pub fn score(&self, a: &ArgumentAssessment) -> Option<f64> {
        Some(
            self.evidence * a.evidence?
                + self.logic * a.logic?
                + self.responsiveness * a.responsiveness?
                + self.honesty * a.honesty?,
        )
    }
}

/// How a gap between the side totals reads (after the article: under 1 point the sides are
/// evenly matched, over 3 the difference is significant). Briefings, win rates and the report
/// read every verdict with the thresholds recorded in it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TotalBands {
    /// A gap under this many points is evenly matched: a draw, not a win.
    pub even_below: f64,
    /// A gap over this many points puts the leader clearly ahead.
    pub clearly_ahead_above: f64,
}

impl Default for TotalBands {
    fn default() -> Self {
        Self {
            even_below: 1.0,
            clearly_ahead_above: 3.0,
        }
    }
}

impl TotalBands {
    /// Whether these are the article's thresholds (the default).
    pub fn is_articles(&self) -> bool {
        *self == Self::default()
    }

    /// The reading in words, as briefings and the report say it.
    pub fn describe(&self) -> String {
        let points = |v: f64| {
            if v == 1.0 {
                "1 point".to_string()
            } else {
                format!("{v} points")
            }
        };
        format!(
            "a gap under {} reads as evenly matched, over {} as a significant difference",
            points(self.even_below),
            points(self.clearly_ahead_above)
        )
    }

    /// The band a gap (the absolute difference of the totals) falls in.
    pub fn band(&self, gap: f64) -> Band {
        if gap < self.even_below {
            Band::Even
        } else if gap > self.clearly_ahead_above {
            Band::ClearlyAhead
        } else {
            Band::Ahead
        }
    }
}

/// The reading of a gap between the side totals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Band {
    /// Evenly matched: a draw.
    Even,
    /// One side ahead.
    Ahead,
    /// One side ahead by a significant difference.
    ClearlyAhead,
}

impl Band {
    /// Every band, from the narrowest gap.
    pub const ALL: [Band; 3] = [Self::Even, Self::Ahead, Self::ClearlyAhead];

    /// The name in files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Even => "even",
            Self::Ahead => "ahead",
            Self::ClearlyAhead => "clearly_ahead",
        }
    }

    /// How a reader says it.
    pub fn label(self) -> &'static str {
        match self {
            Self::Even => "evenly matched",
            Self::Ahead => "ahead",
            Self::ClearlyAhead => "clearly ahead",
        }
    }
}

/// A verdict's side totals read through its bands.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Margin {
    /// The side with the higher total (none when the totals are equal).
    pub leader: Option<Side>,
    /// The absolute difference of the totals.
    pub gap: f64,
    /// How the gap reads.
    pub band: Band,
}

impl Margin {
    /// The side that won: the leader, unless the sides are evenly matched.
    pub fn winner(&self) -> Option<Side> {
        self.leader.filter(|_| self.band != Band::Even)
    }
}

/// A structured judge's verdict: the trace of every argument, the judge's own summary, and
/// the side totals the tool computes from the scores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StructuredVerdict {
    /// One per opening argument.
    pub assessments: Vec<ArgumentAssessment>,
    /// What the debate showed.
    #[serde(default)]
    pub key_insight: String,
    /// What remains open.
    #[serde(default)]
    pub unresolved_questions: Vec<String>,
    /// What the judge would decide.
    #[serde(default)]
    pub recommendation: String,
    /// Pro's total: the mean weighted score of its arguments (computed by the tool).
    pub pro_total: Option<f64>,
    /// Con's total.
    pub con_total: Option<f64>,
    /// The thresholds the totals are read with (set with the totals). The article's 1 and 3
    /// points are left out of files, so verdicts stored before bands existed read as before.
    #[serde(default, skip_serializing_if = "TotalBands::is_articles")]
    pub bands: TotalBands,
}

impl StructuredVerdict {
    /// The totals read through the verdict's bands, when both totals are there.
    pub fn margin(&self) -> Option<Margin> {
        let (pro, con) = (self.pro_total?, self.con_total?);
        let gap = (pro - con).abs();
        let leader = if gap < 1e-9 {
            None
        } else if pro > con {
            Some(Side::Pro)
        } else {
            Some(Side::Con)
        };
        Some(Margin {
            leader,
            gap,
            band: if leader.is_none() {
                Band::Even
            } else {
                self.bands.band(gap)
            },
        })
    }

    /// The side that won: ahead by at least the even threshold. None when the sides are
    /// evenly matched (a draw) or a total is missing.
    pub fn winner(&self) -> Option<Side> {
        self.margin()?.winner()
    }

    /// Recomputes the side totals from the scores with these weights, and records the bands
    /// they are read with.
    pub fn compute_totals(&mut self, weights: &ScoreWeights, bands: &TotalBands) {
        self.bands = *bands;
        let total = |side: Side| {
            let scores: Vec<f64> = self
                .assessments
                .iter()
                .filter(|a| a.arg_id.to_uppercase().starts_with(side.prefix()))
                .filter_map(|a| weights.score(a))
                .collect();
            (!scores.is_empty()).then(|| scores.iter().sum::<f64>() / scores.len() as f64)
        };
        self.pro_total = total(Side::Pro);
        self.con_total = total(Side::Con);
    }
}

/// A debater's reply that was not the JSON asked for, even after the correction prompt:
/// kept as free text, and waiting for a person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplyFallback {
    /// `pro.opening`, `con.cross_examination`, … (the review queue's key).
    pub key: String,
    /// Why it could not be read.
    pub error: String,
    /// The reply as given.
    pub raw: String,
    /// The JSON a person supplied in the review queue, once corrected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corrected_text: Option<String>,
}

/// One side's part of the debate, as read from its replies.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SideRecord {
    /// Its opening arguments.
    #[serde(default)]
    pub arguments: Vec<DebateArgument>,
    /// Its answers to the other side's arguments.
    #[serde(default)]
    pub cross_examination: Vec<CrossResponse>,
    /// Its closing statement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closing: Option<Closing>,
    /// Words in the closing statement.
    #[serde(default)]
    pub closing_words: usize,
    /// Validation warnings (short claim, missing evidence, wrong id prefix, …).
    #[serde(default)]
    pub warnings: Vec<String>,
    /// Rule violations (an argument not answered, an unknown target, a new argument in
    /// cross-examination, a closing over the word limit).
    #[serde(default)]
    pub violations: Vec<String>,
}

/// What a structured-debate round is about and what the replies gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StructuredSetup {
    /// The topic.
    pub topic: Topic,
    /// Words allowed in a closing statement.
    pub closing_word_limit: usize,
    /// The weights of the side totals.
    pub weights: ScoreWeights,
    /// How a gap between the side totals reads (left out of files when the article's 1 and
    /// 3 points, so rounds stored before bands existed read and write back as before).
    #[serde(default, skip_serializing_if = "TotalBands::is_articles")]
    pub bands: TotalBands,
    /// Pro's part (Team A).
    #[serde(default)]
    pub pro: SideRecord,
    /// Con's part (Team B).
    #[serde(default)]
    pub con: SideRecord,
    /// Replies kept as free text, waiting for review.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fallbacks: Vec<ReplyFallback>,
}

impl StructuredSetup {
    /// One side's record.
    pub fn side(&self, side: Side) -> &SideRecord {
        match side {
            Side::Pro => &self.pro,
            Side::Con => &self.con,
        }
    }

    /// One side's record, to change.
    pub fn side_mut(&mut self, side: Side) -> &mut SideRecord {
        match side {
            Side::Pro => &mut self.pro,
            Side::Con => &mut self.con,
        }
    }

    /// Whether a reply waits for a person.
    pub fn needs_review(&self) -> bool {
        self.fallbacks.iter().any(|f| f.corrected_text.is_none())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assess(id: &str, e: f64, l: f64, r: f64, h: f64) -> ArgumentAssessment {
        ArgumentAssessment {
            arg_id: id.into(),
            logic: Some(l),
            evidence: Some(e),
            responsiveness: Some(r),
            honesty: Some(h),
            fallacies: Vec::new(),
            standing: Some(Standing::Upheld),
            reason: String::new(),
        }
    }

    #[test]
    fn totals_are_recomputed_from_the_weights() {
        let mut v = StructuredVerdict {
            assessments: vec![
                assess("PRO-1", 8.0, 6.0, 5.0, 10.0),
                assess("PRO-2", 4.0, 4.0, 4.0, 6.0),
                assess("CON-1", 7.0, 7.0, 7.0, 7.0),
                ArgumentAssessment {
                    evidence: None,
                    ..assess("CON-2", 1.0, 1.0, 1.0, 1.0)
                },
            ],
            key_insight: String::new(),
            unresolved_questions: Vec::new(),
            recommendation: String::new(),
            pro_total: Some(99.0),
            con_total: None,
            bands: TotalBands::default(),
        };
        v.compute_totals(&ScoreWeights::default(), &TotalBands::default());
        // PRO-1: 0.4×8 + 0.3×6 + 0.2×5 + 0.1×10 = 7.0; PRO-2: 0.4×4 + 0.3×4 + 0.2×4 + 0.1×6
        // = 4.2; mean 5.6. CON-2 lacks a score and is left out: CON = 7.0.
        assert!((v.pro_total.unwrap() - 5.6).abs() < 1e-12);
        assert!((v.con_total.unwrap() - 7.0).abs() < 1e-12);
        assert_eq!(v.winner(), Some(Side::Con));
        v.compute_totals(
            &ScoreWeights {
                evidence: 0.0,
                logic: 0.0,
                responsiveness: 0.0,
                honesty: 1.0,
            },
            &TotalBands::default(),
        );
        assert_eq!(v.pro_total, Some(8.0));
        assert_eq!(v.winner(), Some(Side::Pro));
    }

    fn totals(pro: f64, con: f64, bands: TotalBands) -> StructuredVerdict {
        StructuredVerdict {
            assessments: Vec::new(),
            key_insight: String::new(),
            unresolved_questions: Vec::new(),
            recommendation: String::new(),
            pro_total: Some(pro),
            con_total: Some(con),
            bands,
        }
    }

    #[test]
    fn a_gap_under_one_point_is_a_draw_and_over_three_is_clear() {
        let b = TotalBands::default();
        let read = |pro, con| totals(pro, con, b).margin().unwrap();
        assert_eq!(read(6.0, 6.0).band, Band::Even);
        assert_eq!(read(6.0, 6.0).leader, None);
        let close = read(6.9, 6.0);
        assert_eq!((close.leader, close.band), (Some(Side::Pro), Band::Even));
        assert_eq!(close.winner(), None, "a draw is not a win");
        assert_eq!(totals(6.9, 6.0, b).winner(), None);
        assert_eq!(read(5.0, 6.0).band, Band::Ahead, "exactly 1 point is ahead");
        assert_eq!(read(5.0, 6.0).winner(), Some(Side::Con));
        assert_eq!(
            read(3.0, 6.0).band,
            Band::Ahead,
            "exactly 3 points is not clear"
        );
        assert_eq!(read(8.5, 5.0).band, Band::ClearlyAhead);
        assert_eq!(totals(8.5, 5.0, b).winner(), Some(Side::Pro));
        // Other thresholds read the same totals differently.
        let strict = TotalBands {
            even_below: 0.5,
            clearly_ahead_above: 0.8,
        };
        assert_eq!(
            totals(6.9, 6.0, strict).margin().unwrap().band,
            Band::ClearlyAhead
        );
        assert_eq!(totals(6.9, 6.0, strict).winner(), Some(Side::Pro));
        let mut missing = totals(6.0, 1.0, b);
        missing.con_total = None;
        assert_eq!(missing.margin(), None);
    }

    #[test]
    fn verdicts_stored_before_the_bands_read_with_the_articles_thresholds() {
        let v: StructuredVerdict =
            serde_json::from_str(r#"{"assessments": [], "pro_total": 6.5, "con_total": 6.0}"#)
                .unwrap();
        assert_eq!(v.bands, TotalBands::default());
        assert_eq!(v.winner(), None);
        let written = serde_json::to_value(&v).unwrap();
        assert!(written.get("bands").is_none(), "the default is left out");
        let mut wide = v.clone();
        wide.bands.even_below = 0.25;
        let back: StructuredVerdict =
            serde_json::from_value(serde_json::to_value(&wide).unwrap()).unwrap();
        assert_eq!(back.bands, wide.bands, "other bands are kept");
        assert_eq!(back.winner(), Some(Side::Pro));
    }
}
