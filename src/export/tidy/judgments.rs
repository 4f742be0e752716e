//! `judgments`: one row per judge, side and criterion of every round (a verdict, a choice
//! and a correctness have no side), from models, panels and people alike.

use serde::Serialize;

use super::{Table, format_of, seat};
use crate::export::raters;
use crate::export::seats::{model_of, side_name};
use crate::export::{Source, team_str};

/// The columns, in order.
pub const COLUMNS: &[&str] = &[
    "round_id",
    "protocol",
    "item_id",
    "repetition",
    "format",
    "team_a_model",
    "team_b_model",
    "judge",
    "judge_model",
    "judge_kind",
    "names_shown",
    "parse_status",
    "corrected_by_hand",
    "side",
    "side_name",
    "side_model",
    "criterion",
    "score",
    "answer",
];

/// One observation of one judge.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(Default))]
pub struct Row {
    /// The round's id.
    pub round_id: String,
    /// `ethics_bowl`, `qa_debate`, `structured_debate`.
    pub protocol: &'static str,
    /// The dilemma, question-answer item or topic.
    pub item_id: String,
    /// The repetition (1-based).
    pub repetition: u32,
    /// The question-answer arrangement; none for the other protocols.
    pub format: Option<&'static str>,
    /// Team A's model (presenting, debater A, Pro).
    pub team_a_model: Option<String>,
    /// Team B's model (responding, debater B, Con).
    pub team_b_model: Option<String>,
    /// The judge: a model, a panel judge's persona, `panel`, or an annotator.
    pub judge: String,
    /// The judging model; none for the panel's aggregate and for people.
    pub judge_model: Option<String>,
    /// `model`, `panel_judge`, `panel`, `human`.
    pub judge_kind: &'static str,
    /// Whether the judge saw the debaters' model names; none when not recorded.
    pub names_shown: Option<bool>,
    /// How a model's answer was read; none for people.
    pub parse_status: Option<&'static str>,
    /// Whether a person corrected the model's judgment in the review queue.
    pub corrected_by_hand: bool,
    /// The side the observation is about (`A`, `B`); none for the round as a whole.
    pub side: Option<&'static str>,
    /// That side as the protocol names it.
    pub side_name: Option<&'static str>,
    /// The model on that side.
    pub side_model: Option<String>,
    /// What is observed.
    pub criterion: &'static str,
    /// The number, when the observation is one; empty when not read.
    pub score: Option<f64>,
    /// The word, when the observation is one; empty when not read.
    pub answer: Option<String>,
}

/// The table.
pub fn table(source: &Source) -> Table<Row> {
    let mut rows = Vec::new();
    for round in &source.rounds {
        let kind = round.kind();
        for rater in raters::of_round(source, round) {
            for o in &rater.observations {
                rows.push(Row {
                    round_id: round.id.clone(),
                    protocol: kind.as_str(),
                    item_id: round.dilemma_id.clone(),
                    repetition: round.repetition,
                    format: format_of(round),
                    team_a_model: seat(&round.team_a_model),
                    team_b_model: seat(&round.team_b_model),
                    judge: rater.judge.clone(),
                    judge_model: rater.model.clone(),
                    judge_kind: rater.kind.as_str(),
                    names_shown: rater.names_shown,
                    parse_status: rater.parse_status,
                    corrected_by_hand: rater.parse_status == Some("corrected_by_hand"),
                    side: o.side.map(team_str),
                    side_name: o.side.map(|t| side_name(kind, t)),
                    side_model: o.side.and_then(|t| seat(model_of(round, t))),
                    criterion: o.criterion,
                    score: o.score,
                    answer: o.answer.clone(),
                });
            }
        }
    }
    Table {
        name: "judgments",
        columns: COLUMNS,
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::tidy::test_support::field_names;

    #[test]
    fn the_columns_are_the_rows_fields() {
        let row = Row::default();
        assert_eq!(field_names(&row), COLUMNS);
    }
}
