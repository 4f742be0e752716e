//! Everyone who judged a round, model or person, as one list of observations: what the
//! Inspect log's scores and `judgments.csv` are both written from.
//!
//! A judgment that is not usable (its reading partial or failed) keeps its rows, every
//! score and answer empty, so a table shows that the judge was asked and what became of it;
//! no failure becomes a score. A hand correction is the model's judgment corrected
//! (`corrected_by_hand`), never a person's judgment: people's are the annotations.

use serde_json::{Map, Value, json};

use crate::analysis::human::reading::TIE_MARGIN;
use crate::annotations::{Annotation, HumanJudgment, QaAnswer, Via};
use crate::domain::{
    Criterion, Judgment, ParseStatus, QaChoice, Reading, Round, Scores, StructuredVerdict, Team,
};

use super::{Source, team_str};

/// What kind of judge gave a judgment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JudgeKind {
    /// A single model judge.
    Model,
    /// One judge (persona) of a panel.
    PanelJudge,
    /// A panel's weighted aggregate.
    Panel,
    /// A person (`annotations/`).
    Human,
}

impl JudgeKind {
    /// The word in the tables and the log: `model`, `panel_judge`, `panel`, `human`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Model => "model",
            Self::PanelJudge => "panel_judge",
            Self::Panel => "panel",
            Self::Human => "human",
        }
    }
}

/// One thing a judge said about a round: a criterion's score, a total, a verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// The side it is about; none for the round as a whole (a verdict, a choice).
    pub side: Option<Team>,
    /// What is observed: a rubric criterion's key, `total`, `verdict`, `choice`, `label`,
    /// `confidence`, `correct`.
    pub criterion: &'static str,
    /// A number, when the observation is one (empty when not read).
    pub score: Option<f64>,
    /// A word, when the observation is one (`A`, `B`, `tie`, `pro`, `proved`, …).
    pub answer: Option<String>,
}

impl Observation {
    fn score(side: Option<Team>, criterion: &'static str, score: Option<f64>) -> Self {
        Self {
            side,
            criterion,
            score,
            answer: None,
        }
    }

    fn answer(criterion: &'static str, answer: Option<String>) -> Self {
        Self {
            side: None,
            criterion,
            score: None,
            answer,
        }
    }

    /// The key it has in the Inspect score's dict: `team_a.consistency`, `verdict`.
    pub fn key(&self) -> String {
        match self.side {
            Some(Team::A) => format!("team_a.{}", self.criterion),
            Some(Team::B) => format!("team_b.{}", self.criterion),
            None => self.criterion.to_string(),
        }
    }
}

/// One judge of one round, with what it said.
#[derive(Debug, Clone, PartialEq)]
pub struct Rater {
    /// Who judged: the model, the panel judge's persona, `panel`, or the annotator.
    pub judge: String,
    /// The judging model; none for the panel's aggregate and for people.
    pub model: Option<String>,
    /// What kind of judge.
    pub kind: JudgeKind,
    /// Whether the debaters' model names were shown to the judge; none when not recorded.
    pub names_shown: Option<bool>,
    /// How the model's answer was read (`parsed`, `partial`, `failed`,
    /// `corrected_by_hand`); none for people, whose judgments are entered, not parsed.
    pub parse_status: Option<&'static str>,
    /// Whether its scores count: parsed, corrected by hand, or a person's.
    pub usable: bool,
    /// What it said, in the protocol's terms (empty scores when not usable).
    pub observations: Vec<Observation>,
    /// Its reasons, as it wrote them.
    pub explanation: String,
    /// What the parser could not read.
    pub problems: Vec<String>,
    /// The rest of what is known about the judgment (prompt version, temperature, sides
    /// swapped; a person's blindness and how the judgment came in).
    pub details: Map<String, Value>,
}

impl Rater {
    /// Its name among a round's scores in the Inspect log: the judge, or `human:NAME`.
    pub fn score_name(&self) -> String {
        match self.kind {
            JudgeKind::Human => format!("human:{}", self.judge),
            JudgeKind::Model | JudgeKind::PanelJudge | JudgeKind::Panel => self.judge.clone(),
        }
    }
}

/// Every judge of `round`: its model judges (single or on a panel) in the round's order,
/// the panel's aggregate when a panel judged, then the people who judged it.
pub fn of_round(source: &Source, round: &Round) -> Vec<Rater> {
    let mut raters: Vec<Rater> = round
        .judgments
        .iter()
        .map(|j| {
            let kind = if j.persona_id.is_some() {
                JudgeKind::PanelJudge
            } else {
                JudgeKind::Model
            };
            of_judgment(round, j, kind)
        })
        .collect();
    if round.panel.is_some() {
        raters.extend(verdict_of(round));
    }
    raters.extend(
        source
            .annotations_of(&round.id)
            .map(|a| of_person(round, a)),
    );
    raters
}

/// The judgment a round's verdict is read from (the round's `scores`: its first judge's,
/// or the panel's aggregate when a panel judged).
pub fn verdict_of(round: &Round) -> Option<Rater> {
    let j = round.scores.as_ref()?;
    Some(match round.panel {
        Some(_) => Rater {
            judge: "panel".into(),
            model: None,
            ..of_judgment(round, j, JudgeKind::Panel)
        },
        None => of_judgment(round, j, JudgeKind::Model),
    })
}

fn parse_status(status: ParseStatus) -> &'static str {
    match status {
        ParseStatus::Parsed => "parsed",
        ParseStatus::Partial => "partial",
        ParseStatus::Failed => "failed",
        ParseStatus::CorrectedByHand => "corrected_by_hand",
    }
}

fn of_judgment(round: &Round, j: &Judgment, kind: JudgeKind) -> Rater {
    let usable = j.is_usable();
    let observations = match &j.reading {
        Reading::Rubric { team_a, team_b } => rubric(team_a, team_b),
        Reading::Choice(choice) => choice_rows(round, *choice),
        Reading::Label(label) => label_rows(round, label.map(|l| l.as_str()), None),
        Reading::Verdict(verdict) => verdict_rows(verdict.as_deref()),
    };
    let observations = if usable {
        observations
    } else {
        observations
            .into_iter()
            .map(|o| Observation {
                score: None,
                answer: None,
                ..o
            })
            .collect()
    };
    let mut details = Map::new();
    if let Some(view) = &j.view {
        details.insert("prompt_version".into(), json!(view.prompt_version));
        details.insert("temperature".into(), json!(view.temperature));
        if view.sides_swapped {
            details.insert("sides_swapped".into(), json!(true));
        }
    }
    Rater {
        judge: j.judge_key().to_string(),
        model: Some(j.judge_model.clone()),
        kind,
        names_shown: j.view.as_ref().map(|v| v.judge_sees_model_names),
        parse_status: Some(parse_status(j.parse_status)),
        usable,
        observations,
        explanation: explanation(j),
        problems: j.problems.clone(),
        details,
    }
}

/// The judge's reasons: its justifications and analysis, else its own text (or the text a
/// person corrected it to).
fn explanation(j: &Judgment) -> String {
    let parts: Vec<String> = [
        ("Team A: ", &j.team_a_justification),
        ("Team B: ", &j.team_b_justification),
        ("", &j.overall_analysis),
    ]
    .into_iter()
    .filter(|(_, text)| !text.trim().is_empty())
    .map(|(label, text)| format!("{label}{}", text.trim()))
    .collect();
    if parts.is_empty() {
        j.corrected_text
            .clone()
            .unwrap_or_else(|| j.raw_response.clone())
    } else {
        parts.join("\n\n")
    }
}

/// The fourteen criteria, each team's total, and the verdict (a tie when the totals are
/// closer than the ratings' draw margin, as the report reads them).
fn rubric(team_a: &Scores, team_b: &Scores) -> Vec<Observation> {
    let mut rows = Vec::with_capacity(17);
    for (team, scores) in [(Team::A, team_a), (Team::B, team_b)] {
        for c in Criterion::ALL {
            rows.push(Observation::score(Some(team), c.key(), scores.get(c)));
        }
        rows.push(Observation::score(Some(team), "total", scores.total()));
    }
    let verdict = team_a.total().zip(team_b.total()).map(|(a, b)| {
        if (a - b).abs() < TIE_MARGIN {
            "tie"
        } else if a > b {
            "A"
        } else {
            "B"
        }
    });
    rows.push(Observation::answer("verdict", verdict.map(str::to_string)));
    rows
}

/// A question-answer choice: the side chosen, the confidence, and whether it was the
/// correct answer (empty when neither side had it).
fn choice_rows(round: &Round, choice: Option<QaChoice>) -> Vec<Observation> {
    let correct_side = round.qa().and_then(|s| s.assignment.correct_side);
    let correct = choice
        .zip(correct_side)
        .map(|(c, right)| f64::from(u8::from(c.side == right)));
    vec![
        Observation::answer("choice", choice.map(|c| team_str(c.side).to_string())),
        Observation::score(None, "confidence", choice.and_then(|c| c.confidence)),
        Observation::score(None, "correct", correct),
    ]
}

/// A three-way baseline's label, its confidence when given (people give one), and whether
/// it is the item's label.
fn label_rows(round: &Round, label: Option<&str>, confidence: Option<f64>) -> Vec<Observation> {
    let truth = round.qa().map(|s| s.label.as_str());
    let correct = label.zip(truth).map(|(l, t)| f64::from(u8::from(l == t)));
    vec![
        Observation::answer("label", label.map(str::to_string)),
        Observation::score(None, "confidence", confidence),
        Observation::score(None, "correct", correct),
    ]
}

/// A structured debate's side totals (Pro is Team A) and the winner by the round's bands.
fn verdict_rows(verdict: Option<&StructuredVerdict>) -> Vec<Observation> {
    let winner = verdict.and_then(|v| {
        v.margin()
            .map(|_| v.winner().map_or("tie", |side| side_word(side)))
    });
    vec![
        Observation::score(Some(Team::A), "total", verdict.and_then(|v| v.pro_total)),
        Observation::score(Some(Team::B), "total", verdict.and_then(|v| v.con_total)),
        Observation::answer("verdict", winner.map(str::to_string)),
    ]
}

fn side_word(side: crate::domain::Side) -> &'static str {
    match side {
        crate::domain::Side::Pro => "pro",
        crate::domain::Side::Con => "con",
    }
}

fn of_person(round: &Round, a: &Annotation) -> Rater {
    let (observations, explanation) = match &a.judgment {
        HumanJudgment::EthicsBowl {
            team_a,
            team_b,
            justifications,
        } => {
            let text = justifications
                .iter()
                .map(|n| {
                    format!(
                        "Team {} · {}: {}",
                        team_str(n.team),
                        n.criterion.label(),
                        n.text
                    )
                })
                .collect::<Vec<_>>()
                .join("\n");
            (rubric(team_a, team_b), text)
        }
        HumanJudgment::QaDebate {
            answer,
            confidence,
            justification,
        } => {
            let rows = match answer {
                QaAnswer::Side(side) => choice_rows(
                    round,
                    Some(QaChoice {
                        side: *side,
                        confidence: Some(*confidence),
                    }),
                ),
                QaAnswer::Label(label) => {
                    label_rows(round, Some(label.as_str()), Some(*confidence))
                }
            };
            (rows, justification.clone().unwrap_or_default())
        }
        HumanJudgment::StructuredDebate {
            winner,
            justification,
            ..
        } => (
            vec![Observation::answer(
                "verdict",
                Some(winner.as_str().to_string()),
            )],
            justification.clone().unwrap_or_default(),
        ),
    };
    let mut details = Map::new();
    details.insert("annotator".into(), json!(a.annotator));
    details.insert("blind".into(), json!(a.blind));
    details.insert(
        "via".into(),
        json!(match a.via {
            Via::Csv => "csv",
            Via::Tui => "tui",
        }),
    );
    details.insert("written_at".into(), json!(a.written_at));
    if let HumanJudgment::StructuredDebate { standings, .. } = &a.judgment
        && !standings.is_empty()
    {
        // Each argument's standing as the person gave it (the model judges' are in the
        // round's own record, not scores either).
        details.insert("standings".into(), json!(standings));
    }
    Rater {
        judge: a.annotator.clone(),
        model: None,
        kind: JudgeKind::Human,
        names_shown: Some(!a.blind),
        parse_status: None,
        usable: true,
        observations,
        explanation,
        problems: Vec::new(),
        details,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{RoundStatus, ScheduledRound};

    fn round_with(judgments: Vec<Judgment>) -> Round {
        let mut r = crate::protocols::example_round(&ScheduledRound {
            round_id: "d__a__vs__b__r1".into(),
            dilemma_id: "d".into(),
            repetition: 1,
            team_a: "a".into(),
            team_b: "b".into(),
            judges: vec!["j1".into(), "j2".into()],
            format: None,
            relation: None,
        });
        r.judgments = judgments;
        r.status = RoundStatus::Complete;
        r
    }

    fn source(rounds: Vec<Round>) -> Source {
        Source {
            rounds,
            record: None,
            annotations: Vec::new(),
        }
    }

    #[test]
    fn a_judgment_that_was_not_read_keeps_its_rows_with_no_score() {
        let read = Judgment::new(
            "j1",
            Reading::Rubric {
                team_a: Scores::uniform(8.0),
                team_b: Scores::uniform(6.0),
            },
        );
        let unread = Judgment {
            parse_status: ParseStatus::Partial,
            ..Judgment::new(
                "j2",
                Reading::Rubric {
                    team_a: Scores::uniform(9.0),
                    team_b: Scores::default(),
                },
            )
        };
        let round = round_with(vec![read, unread]);
        let raters = of_round(&source(vec![round.clone()]), &round);
        assert_eq!(raters.len(), 2);
        let first = &raters[0];
        assert_eq!(first.observations.len(), 17);
        assert_eq!(first.observations[7].key(), "team_a.total");
        assert_eq!(first.observations[7].score, Some(56.0));
        assert_eq!(first.observations[16].answer.as_deref(), Some("A"));
        let second = &raters[1];
        assert!(!second.usable);
        assert_eq!(second.parse_status, Some("partial"));
        assert_eq!(second.observations.len(), 17);
        assert!(
            second
                .observations
                .iter()
                .all(|o| o.score.is_none() && o.answer.is_none())
        );
    }

    #[test]
    fn close_totals_are_a_tie() {
        let rows = rubric(&Scores::uniform(7.0), &Scores::uniform(7.1));
        assert_eq!(rows[16].answer.as_deref(), Some("tie"));
        let rows = rubric(&Scores::uniform(7.0), &Scores::default());
        assert_eq!(rows[16].answer, None);
    }
}
