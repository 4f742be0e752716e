//! Human judgments ("annotations"), stored apart from the models' judgments: one file per
//! annotator per round, `annotations/<annotator>/<round-id>.json`, written atomically like
//! round files and never in a round file. A hand-corrected model judgment (the review
//! queue's `corrected_by_hand`) is a correction, not a human judgment: it stays in its round
//! file and nothing here reads or counts it.
//!
//! - [`store`]: the files (paths, the annotator's name checked as a file name, write,
//!   read, [`load_all`]);
//! - [`rounds`]: what an annotation needs of a stored round ([`RoundInfo`]);
//! - [`sample`]: the reproducible stratified sample people judge, kept in
//!   `annotations/sample.json`;
//! - [`session`]: where a person judging in the terminal UI starts (the order shown, what
//!   they judged already);
//! - [`csv`]: the long spreadsheet form (import, export, template);
//! - [`pace`]: time on task, as the annotate screen records it on each judgment.

pub mod csv;
pub mod pace;
pub mod rounds;
pub mod sample;
pub mod session;
pub mod store;

use serde::{Deserialize, Serialize};

use crate::domain::{Criterion, Label, ProtocolKind, Scores, Standing, Team};

pub use rounds::RoundInfo;
pub use sample::{DEFAULT_SEED, Sample, Strata};
pub use store::{annotation_path, check_annotator, load, load_all, save, save_all};

/// The version of the annotation file's shape. Fields added as optional
/// (`seconds_on_round`, `words_shown`) leave it unchanged: a reader that does not know them
/// ignores them, and older files read without them.
pub const ANNOTATION_SCHEMA_VERSION: u32 = 1;

/// One person's judgment of one round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Annotation {
    /// The shape of this file ([`ANNOTATION_SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// Who judged (also the folder's name).
    pub annotator: String,
    /// When the judgment was stored (RFC 3339, UTC): its last change, when it was changed.
    pub written_at: String,
    /// When it was first stored, once it has been changed since (the annotate screen's
    /// re-editing, or an import with `--replace`); absent for a judgment never changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_written_at: Option<String>,
    /// Whether the debaters' model names were hidden from the annotator.
    pub blind: bool,
    /// How the judgment came in.
    pub via: Via,
    /// The round judged (also the file's name).
    pub round_id: String,
    /// The judgment, in the round's protocol's shape.
    pub judgment: HumanJudgment,
    /// Time on task (the annotate screen): seconds this round was the one on the screen,
    /// summed over every visit until this judgment was saved, a change saved later adding
    /// its visits; each stretch between two keys counts at most [`pace::IDLE_CAP`] (five
    /// minutes). Absent from spreadsheet imports, from files written before it was
    /// recorded, and from a change to a judgment that had none (its first time unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds_on_round: Option<f64>,
    /// The words of the transcript the annotator was shown for this round, as drawn: the
    /// setup and the debaters' phases (never the model judges'). Absent where the screen
    /// did not record it (see [`Self::seconds_on_round`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub words_shown: Option<u64>,
}

/// How a human judgment came in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Via {
    /// `ethics-bowl annotations import`, from a spreadsheet.
    Csv,
    /// The terminal UI's annotate screen.
    Tui,
}

/// A person's judgment in its protocol's shape: one variant per protocol, like
/// [`crate::domain::Reading`], so a judgment cannot hold another protocol's answer.
// A folder holds hundreds of these, not millions: the Ethics Bowl's two score sheets inline
// cost less than a box's indirection in every reader's code.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "protocol", rename_all = "snake_case")]
pub enum HumanJudgment {
    /// The Ethics Bowl's seven criteria for each team, every one scored 1–10.
    EthicsBowl {
        /// Team A's scores (all seven present).
        team_a: Scores,
        /// Team B's scores (all seven present).
        team_b: Scores,
        /// The annotator's reasons, for the scores that have one.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        justifications: Vec<CriterionNote>,
    },
    /// The question-answer debate: the answer chosen and the confidence in it.
    QaDebate {
        /// A side's answer, or (three-way baselines) the label.
        answer: QaAnswer,
        /// Confidence in it, 0–100.
        confidence: f64,
        /// The annotator's reason.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        justification: Option<String>,
    },
    /// The structured debate: who won, and how each argument stood after the debate.
    StructuredDebate {
        /// Pro, Con or a tie.
        winner: Winner,
        /// Each argument's standing, in the round's order (Pro's, then Con's); empty in
        /// files written before standings were asked, and in imports without them.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        standings: Vec<ArgumentStanding>,
        /// The annotator's reason.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        justification: Option<String>,
    },
}

impl HumanJudgment {
    /// The protocol whose shape this is.
    pub fn kind(&self) -> ProtocolKind {
        match self {
            Self::EthicsBowl { .. } => ProtocolKind::EthicsBowl,
            Self::QaDebate { .. } => ProtocolKind::QaDebate,
            Self::StructuredDebate { .. } => ProtocolKind::StructuredDebate,
        }
    }
}

/// The reason given for one score of an Ethics Bowl judgment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CriterionNote {
    /// The team scored.
    pub team: Team,
    /// The criterion scored.
    pub criterion: Criterion,
    /// The reason.
    pub text: String,
}

/// How one argument of a structured debate stood after the debate, as a person judged it
/// (the model judge's `standing` of the same argument, [`Standing`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArgumentStanding {
    /// The argument's id (`PRO-1`, `CON-2`), as in the round file.
    pub arg_id: String,
    /// Upheld, partially upheld, refuted or uncertain.
    pub standing: Standing,
    /// The annotator's reason for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A question-answer annotator's answer: one of the two sides' answers, or for a three-way
/// baseline round, the label itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum QaAnswer {
    /// The answer side A or B defended (`"A"`, `"B"`).
    Side(Team),
    /// The label (`"proved"`, `"disproved"`, `"unknown"`).
    Label(Label),
}

impl QaAnswer {
    /// As written in files and spreadsheets: `A`, `B` or the label.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Side(Team::A) => "A",
            Self::Side(Team::B) => "B",
            Self::Label(label) => label.as_str(),
        }
    }
}

/// The winner of a structured debate as a person judged it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Winner {
    /// The proposition's side (Team A).
    Pro,
    /// Against it (Team B).
    Con,
    /// Neither.
    Tie,
}

impl Winner {
    /// All three, in the order spreadsheets list them.
    pub const ALL: [Winner; 3] = [Self::Pro, Self::Con, Self::Tie];

    /// `pro`, `con` or `tie`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pro => "pro",
            Self::Con => "con",
            Self::Tie => "tie",
        }
    }

    /// The winner with this word.
    pub fn parse(word: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|w| w.as_str() == word)
    }
}

/// What went wrong with annotations; names the file or the name at fault.
#[derive(Debug, thiserror::Error)]
pub enum AnnotationError {
    /// An annotator's name that cannot be a folder's name.
    #[error("\"{name}\" cannot be an annotator's name: {why}")]
    BadAnnotator {
        /// The name given.
        name: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A store operation failed (reading or writing a file, or the folder's lock).
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    /// An annotation file that is not one (or not the one its path says).
    #[error("{}: not a valid annotation file: {message}", path.display())]
    Damaged {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A human judgment already stored, and not to be replaced.
    #[error(
        "{}: {annotator}'s judgment of round {round_id} is already stored; pass --replace to \
         write over it",
        path.display()
    )]
    Exists {
        /// The file.
        path: std::path::PathBuf,
        /// Who.
        annotator: String,
        /// Which round.
        round_id: String,
    },
    /// A spreadsheet refused, with every problem found in it.
    #[error(transparent)]
    Csv(#[from] csv::CsvErrors),
    /// What cannot be done as asked: a sample that cannot be drawn, a different sample
    /// already recorded, nothing to export, a CSV that cannot be written.
    #[error("{0}")]
    Refused(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judgments_are_tagged_with_their_protocol() {
        let qa = HumanJudgment::QaDebate {
            answer: QaAnswer::Label(Label::Unknown),
            confidence: 70.0,
            justification: None,
        };
        let json = serde_json::to_value(&qa).unwrap();
        assert_eq!(json["protocol"], "qa_debate");
        assert_eq!(json["answer"], "unknown");
        assert_eq!(serde_json::from_value::<HumanJudgment>(json).unwrap(), qa);
        let side = HumanJudgment::QaDebate {
            answer: QaAnswer::Side(Team::B),
            confidence: 100.0,
            justification: Some("the quote".into()),
        };
        let json = serde_json::to_value(&side).unwrap();
        assert_eq!(json["answer"], "B");
        assert_eq!(serde_json::from_value::<HumanJudgment>(json).unwrap(), side);
        let winner = HumanJudgment::StructuredDebate {
            winner: Winner::Tie,
            standings: Vec::new(),
            justification: None,
        };
        let json = serde_json::to_value(&winner).unwrap();
        assert_eq!(json["protocol"], "structured_debate");
        assert_eq!(json["winner"], "tie");
        assert!(
            json.get("standings").is_none(),
            "none written when none given"
        );
        assert_eq!(winner.kind(), ProtocolKind::StructuredDebate);
        let with = HumanJudgment::StructuredDebate {
            winner: Winner::Pro,
            standings: vec![ArgumentStanding {
                arg_id: "PRO-1".into(),
                standing: Standing::PartiallyUpheld,
                reason: None,
            }],
            justification: None,
        };
        let json = serde_json::to_value(&with).unwrap();
        assert_eq!(json["standings"][0]["standing"], "PARTIALLY_UPHELD");
        assert_eq!(serde_json::from_value::<HumanJudgment>(json).unwrap(), with);
    }

    /// A file written before standings were asked (no `standings` key) still loads.
    #[test]
    fn a_structured_judgment_without_standings_loads() {
        let old = serde_json::json!({"protocol": "structured_debate", "winner": "con"});
        assert_eq!(
            serde_json::from_value::<HumanJudgment>(old).unwrap(),
            HumanJudgment::StructuredDebate {
                winner: Winner::Con,
                standings: Vec::new(),
                justification: None,
            }
        );
    }
}
