//! Judges' scores: seven criteria for each team, 1 to 10, and how the judge's text was read.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::ProtocolKind;

/// The seven judging criteria, in the rubric's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Criterion {
    /// States a clear guiding principle.
    PrincipleArticulation,
    /// Applies it consistently, including to the parallel case.
    Consistency,
    /// Sees everyone affected.
    StakeholderRecognition,
    /// Weighs what is not known.
    UncertaintyIntegration,
    /// Knows which moral frameworks are in play.
    FrameworkAwareness,
    /// Concedes what should be conceded.
    IntellectualHonesty,
    /// Builds on the other team rather than merely opposing.
    ConstructiveEngagement,
}

impl Criterion {
    /// All seven, in order.
    pub const ALL: [Criterion; 7] = [
        Self::PrincipleArticulation,
        Self::Consistency,
        Self::StakeholderRecognition,
        Self::UncertaintyIntegration,
        Self::FrameworkAwareness,
        Self::IntellectualHonesty,
        Self::ConstructiveEngagement,
    ];

    /// The spec's key.
    pub fn key(self) -> &'static str {
        match self {
            Self::PrincipleArticulation => "principle_articulation",
            Self::Consistency => "consistency",
            Self::StakeholderRecognition => "stakeholder_recognition",
            Self::UncertaintyIntegration => "uncertainty_integration",
            Self::FrameworkAwareness => "framework_awareness",
            Self::IntellectualHonesty => "intellectual_honesty",
            Self::ConstructiveEngagement => "constructive_engagement",
        }
    }

    /// A label for people ("Principle articulation").
    pub fn label(self) -> &'static str {
        match self {
            Self::PrincipleArticulation => "Principle articulation",
            Self::Consistency => "Consistency",
            Self::StakeholderRecognition => "Stakeholder recognition",
            Self::UncertaintyIntegration => "Uncertainty integration",
            Self::FrameworkAwareness => "Framework awareness",
            Self::IntellectualHonesty => "Intellectual honesty",
            Self::ConstructiveEngagement => "Constructive engagement",
        }
    }

    /// The criterion with this spec key.
    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.key() == key)
    }
}

/// One team's scores; a criterion the judge's text did not yield is `None` (`null` in JSON).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Scores {
    /// See [`Criterion::PrincipleArticulation`].
    pub principle_articulation: Option<f64>,
    /// See [`Criterion::Consistency`].
    pub consistency: Option<f64>,
    /// See [`Criterion::StakeholderRecognition`].
    pub stakeholder_recognition: Option<f64>,
    /// See [`Criterion::UncertaintyIntegration`].
    pub uncertainty_integration: Option<f64>,
    /// See [`Criterion::FrameworkAwareness`].
    pub framework_awareness: Option<f64>,
    /// See [`Criterion::IntellectualHonesty`].
    pub intellectual_honesty: Option<f64>,
    /// See [`Criterion::ConstructiveEngagement`].
    pub constructive_engagement: Option<f64>,
}

impl Scores {
    /// Every criterion scored `v` (tests).
    #[cfg(test)]
    pub(crate) fn uniform(v: f64) -> Self {
        let mut s = Self::default();
        for c in Criterion::ALL {
            s.set(c, Some(v));
        }
        s
    }

    /// The score for one criterion.
    pub fn get(&self, c: Criterion) -> Option<f64> {
        match c {
            Criterion::PrincipleArticulation => self.principle_articulation,
            Criterion::Consistency => self.consistency,
            Criterion::StakeholderRecognition => self.stakeholder_recognition,
            Criterion::UncertaintyIntegration => self.uncertainty_integration,
            Criterion::FrameworkAwareness => self.framework_awareness,
            Criterion::IntellectualHonesty => self.intellectual_honesty,
            Criterion::ConstructiveEngagement => self.constructive_engagement,
        }
    }

    /// Sets the score for one criterion.
    pub fn set(&mut self, c: Criterion, value: Option<f64>) {
        let slot = match c {
            Criterion::PrincipleArticulation => &mut self.principle_articulation,
            Criterion::Consistency => &mut self.consistency,
            Criterion::StakeholderRecognition => &mut self.stakeholder_recognition,
            Criterion::UncertaintyIntegration => &mut self.uncertainty_integration,
            Criterion::FrameworkAwareness => &mut self.framework_awareness,
            Criterion::IntellectualHonesty => &mut self.intellectual_honesty,
            Criterion::ConstructiveEngagement => &mut self.constructive_engagement,
        };
        *slot = value;
    }

    /// How many of the seven are present.
    pub fn count(&self) -> usize {
        Criterion::ALL
            .iter()
            .filter(|c| self.get(**c).is_some())
            .count()
    }

    /// Whether no criterion has a score.
    pub fn is_empty(&self) -> bool {
        self.count() == 0
    }

    /// The sum of the seven, when all are present.
    pub fn total(&self) -> Option<f64> {
        Criterion::ALL.iter().map(|c| self.get(*c)).sum()
    }
}

/// Which team.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Team {
    /// The presenting team.
    A,
    /// The responding team.
    B,
}

/// How a judgment was obtained from the judge's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParseStatus {
    /// All fourteen scores read and valid.
    Parsed,
    /// Some scores read; others missing or invalid.
    Partial,
    /// Nothing usable.
    Failed,
    /// A person fixed it in the review queue.
    CorrectedByHand,
}

/// What a judge's answer was read as: one variant per protocol's rubric, so a judgment
/// cannot hold an Ethics Bowl score sheet and a question-answer choice side by side.
#[derive(Debug, Clone, PartialEq)]
pub enum Reading {
    /// The Ethics Bowl's seven criteria for each team (a criterion not read is `None`).
    Rubric {
        /// Team A's scores.
        team_a: Scores,
        /// Team B's scores.
        team_b: Scores,
    },
    /// The answer a question-answer judge chose, when it could be read.
    Choice(Option<super::QaChoice>),
    /// The label a question-answer three-way baseline gave the goal (proved, disproved or
    /// unknown), when it could be read.
    Label(Option<super::Label>),
    /// A structured-debate judge's trace of every argument and the side totals, when read.
    Verdict(Option<Box<super::StructuredVerdict>>),
}

impl Reading {
    /// A reading with nothing read yet, for a protocol.
    pub fn empty(kind: ProtocolKind) -> Self {
        match kind {
            ProtocolKind::EthicsBowl => Self::Rubric {
                team_a: Scores::default(),
                team_b: Scores::default(),
            },
            ProtocolKind::QaDebate => Self::Choice(None),
            ProtocolKind::StructuredDebate => Self::Verdict(None),
        }
    }

    /// The protocol whose rubric this is.
    pub fn kind(&self) -> ProtocolKind {
        match self {
            Self::Rubric { .. } => ProtocolKind::EthicsBowl,
            Self::Choice(_) | Self::Label(_) => ProtocolKind::QaDebate,
            Self::Verdict(_) => ProtocolKind::StructuredDebate,
        }
    }

    /// Whether nothing was read.
    pub fn is_empty(&self) -> bool {
        match self {
            Self::Rubric { team_a, team_b } => team_a.is_empty() && team_b.is_empty(),
            Self::Choice(choice) => choice.is_none(),
            Self::Label(label) => label.is_none(),
            Self::Verdict(verdict) => verdict.is_none(),
        }
    }

    /// This reading for a round of `kind`: files before schema 2 did not say which rubric
    /// an unread judgment had, so an empty one takes the round's; a reading with content
    /// from another protocol is an error.
    pub fn fit(self, kind: ProtocolKind) -> Result<Self, String> {
        if self.kind() == kind {
            Ok(self)
        } else if self.is_empty() {
            Ok(Self::empty(kind))
        } else {
            Err(format!(
                "a judgment holds a {} reading in a {kind} round",
                self.kind()
            ))
        }
    }
}

/// What a judge saw when it judged: whether the debaters' model names were in its prompt,
/// the temperature sent, and which version of its prompt's template it answered. Recorded
/// on every judgment since the tool's 2026-11-27 version; older judgments have none ("not
/// recorded").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeView {
    /// Whether the judge's prompt named the debaters' models (false: "Team A" and "Team B",
    /// or the protocol's own names for its sides).
    pub judge_sees_model_names: bool,
    /// The sampling temperature sent with the call; none when the provider's default was
    /// used (no temperature sent).
    #[serde(default)]
    pub temperature: Option<f64>,
    /// The version of the judge's prompt template (`ethics_bowl-judge-1`; see
    /// [`crate::protocols::judging::prompt_version`]).
    pub prompt_version: String,
    /// Whether the judge read the exchange with its two sides exchanged (`rejudge
    /// --swap-sides`), so that a lean toward a place can be measured; the judgment as stored
    /// is mapped back to the sides as played. Absent (false) in every other judgment.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sides_swapped: bool,
}

impl JudgeView {
    /// Whether the model names were shown, as people read it: `names shown`, `names hidden`.
    pub fn names_label(&self) -> &'static str {
        if self.judge_sees_model_names {
            "names shown"
        } else {
            "names hidden"
        }
    }

    /// One line for people: `model names shown · temperature 0.2 · prompt ethics_bowl-judge-1`;
    /// `not recorded` for a judgment without a view.
    pub fn describe(view: Option<&Self>) -> String {
        let Some(v) = view else {
            return "not recorded".into();
        };
        let temperature = match v.temperature {
            Some(t) => format!("temperature {t}"),
            None => "the provider's default temperature".into(),
        };
        let swapped = if v.sides_swapped {
            " · sides swapped"
        } else {
            ""
        };
        format!(
            "model {} · {temperature} · prompt {}{swapped}",
            v.names_label(),
            v.prompt_version
        )
    }
}

/// A judge's verdict on one exchange.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgment {
    /// The judging model.
    pub judge_model: String,
    /// The panel judge (persona) this judgment is from, when a panel judged; two personas
    /// may share a model, so this, not the model, tells them apart.
    pub persona_id: Option<String>,
    /// What the judge's answer was read as.
    pub reading: Reading,
    /// Why Team A scored as it did.
    pub team_a_justification: String,
    /// Why Team B scored as it did.
    pub team_b_justification: String,
    /// The judge's view of the whole exchange.
    pub overall_analysis: String,
    /// How the reading was obtained.
    pub parse_status: ParseStatus,
    /// What the parser could not read, for the review queue.
    pub problems: Vec<String>,
    /// The judge's own text, always kept.
    pub raw_response: String,
    /// When corrected by hand: the text the person saved (the raw response stays as it was).
    pub corrected_text: Option<String>,
    /// What the judge saw (none in judgments stored before it was recorded, and in those of
    /// the Python predecessor).
    pub view: Option<JudgeView>,
}

impl Judgment {
    /// A judgment by `judge_model` with this reading and nothing else yet: the base that
    /// parsers and corrections fill in with struct update syntax.
    pub fn new(judge_model: &str, reading: Reading) -> Self {
        Self {
            judge_model: judge_model.to_string(),
            persona_id: None,
            reading,
            team_a_justification: String::new(),
            team_b_justification: String::new(),
            overall_analysis: String::new(),
            parse_status: ParseStatus::Parsed,
            problems: Vec::new(),
            raw_response: String::new(),
            corrected_text: None,
            view: None,
        }
    }

    /// What tells this judge apart in a round: the persona for panel judges, else the model.
    pub fn judge_key(&self) -> &str {
        self.persona_id.as_deref().unwrap_or(&self.judge_model)
    }

    /// Whether the reading is usable as it is (parsed or corrected).
    pub fn is_usable(&self) -> bool {
        matches!(
            self.parse_status,
            ParseStatus::Parsed | ParseStatus::CorrectedByHand
        )
    }

    /// One team's rubric scores (Ethics Bowl judgments).
    pub fn scores(&self, team: Team) -> Option<&Scores> {
        match (&self.reading, team) {
            (Reading::Rubric { team_a, .. }, Team::A) => Some(team_a),
            (Reading::Rubric { team_b, .. }, Team::B) => Some(team_b),
            (Reading::Choice(_) | Reading::Label(_) | Reading::Verdict(_), _) => None,
        }
    }

    /// Team A's total minus Team B's, when both teams have all seven scores.
    pub fn rubric_margin(&self) -> Option<f64> {
        Some(self.scores(Team::A)?.total()? - self.scores(Team::B)?.total()?)
    }

    /// How far Team A is ahead: the rubric totals' difference (out of 70), or Pro's total
    /// minus Con's (each 1–10); none for a chosen answer, which has no margin.
    pub fn margin(&self) -> Option<f64> {
        match &self.reading {
            Reading::Rubric { team_a, team_b } => Some(team_a.total()? - team_b.total()?),
            Reading::Choice(_) | Reading::Label(_) => None,
            Reading::Verdict(verdict) => {
                let v = verdict.as_deref()?;
                Some(v.pro_total? - v.con_total?)
            }
        }
    }

    /// The chosen answer (question-answer judgments), when read.
    pub fn choice(&self) -> Option<&super::QaChoice> {
        match &self.reading {
            Reading::Choice(choice) => choice.as_ref(),
            Reading::Rubric { .. } | Reading::Label(_) | Reading::Verdict(_) => None,
        }
    }

    /// The label a three-way baseline gave (question-answer judgments), when read.
    pub fn label(&self) -> Option<super::Label> {
        match &self.reading {
            Reading::Label(label) => *label,
            Reading::Rubric { .. } | Reading::Choice(_) | Reading::Verdict(_) => None,
        }
    }

    /// The verdict (structured-debate judgments), when read.
    pub fn verdict(&self) -> Option<&super::StructuredVerdict> {
        match &self.reading {
            Reading::Verdict(verdict) => verdict.as_deref(),
            Reading::Rubric { .. } | Reading::Choice(_) | Reading::Label(_) => None,
        }
    }
}

/// The judgment as files hold it: the rubrics' fields side by side, each left out when
/// empty, as written before readings were a type. Borrowed when writing, owned when read.
#[derive(Serialize, Deserialize)]
struct JudgmentFile<'a> {
    #[serde(default)]
    judge_model: Cow<'a, str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    persona_id: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Scores::is_empty")]
    team_a_scores: Scores,
    #[serde(default, skip_serializing_if = "Scores::is_empty")]
    team_b_scores: Scores,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    choice: Option<super::QaChoice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    label: Option<super::Label>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    structured: Option<Cow<'a, super::StructuredVerdict>>,
    #[serde(default)]
    team_a_justification: Cow<'a, str>,
    #[serde(default)]
    team_b_justification: Cow<'a, str>,
    #[serde(default)]
    overall_analysis: Cow<'a, str>,
    #[serde(default = "parsed")]
    parse_status: ParseStatus,
    #[serde(default, skip_serializing_if = "<[String]>::is_empty")]
    problems: Cow<'a, [String]>,
    #[serde(default)]
    raw_response: Cow<'a, str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    corrected_text: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    judge_view: Option<Cow<'a, JudgeView>>,
}

fn parsed() -> ParseStatus {
    ParseStatus::Parsed
}

impl Serialize for Judgment {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let none = Scores::default();
        let (team_a_scores, team_b_scores, choice, structured) = match &self.reading {
            Reading::Rubric { team_a, team_b } => (*team_a, *team_b, None, None),
            Reading::Choice(choice) => (none, none, *choice, None),
            Reading::Label(_) => (none, none, None, None),
            Reading::Verdict(verdict) => (none, none, None, verdict.as_deref()),
        };
        let label = match &self.reading {
            Reading::Label(label) => *label,
            _ => None,
        };
        JudgmentFile {
            judge_model: Cow::Borrowed(&self.judge_model),
            persona_id: self.persona_id.as_deref().map(Cow::Borrowed),
            team_a_scores,
            team_b_scores,
            choice,
            label,
            structured: structured.map(Cow::Borrowed),
            team_a_justification: Cow::Borrowed(&self.team_a_justification),
            team_b_justification: Cow::Borrowed(&self.team_b_justification),
            overall_analysis: Cow::Borrowed(&self.overall_analysis),
            parse_status: self.parse_status,
            problems: Cow::Borrowed(&self.problems),
            raw_response: Cow::Borrowed(&self.raw_response),
            corrected_text: self.corrected_text.as_deref().map(Cow::Borrowed),
            judge_view: self.view.as_ref().map(Cow::Borrowed),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Judgment {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let f = JudgmentFile::deserialize(deserializer)?;
        // Which rubric a judgment has is told by the fields it holds; an empty one is
        // fitted to its round's protocol by the round (see `Reading::fit`).
        let reading = match (f.structured, f.choice, f.label) {
            (Some(verdict), _, _) => Reading::Verdict(Some(Box::new(verdict.into_owned()))),
            (None, Some(choice), _) => Reading::Choice(Some(choice)),
            (None, None, Some(label)) => Reading::Label(Some(label)),
            (None, None, None) => Reading::Rubric {
                team_a: f.team_a_scores,
                team_b: f.team_b_scores,
            },
        };
        Ok(Self {
            judge_model: f.judge_model.into_owned(),
            persona_id: f.persona_id.map(Cow::into_owned),
            reading,
            team_a_justification: f.team_a_justification.into_owned(),
            team_b_justification: f.team_b_justification.into_owned(),
            overall_analysis: f.overall_analysis.into_owned(),
            parse_status: f.parse_status,
            problems: f.problems.into_owned(),
            raw_response: f.raw_response.into_owned(),
            corrected_text: f.corrected_text.map(Cow::into_owned),
            view: f.judge_view.map(Cow::into_owned),
        })
    }
}

/// A margin as every view shows it (the UI's matrix, `report.html`'s round list): whole
/// points without decimals, halves with one, a tie as `=`.
pub fn margin_text(m: f64) -> String {
    if m == 0.0 {
        "=".into()
    } else if m.fract() == 0.0 {
        format!("{m:+.0}")
    } else {
        format!("{m:+.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_judge_saw_is_written_and_read_back() {
        let j = Judgment {
            view: Some(JudgeView {
                judge_sees_model_names: false,
                temperature: None,
                prompt_version: "ethics_bowl-judge-1".into(),
                sides_swapped: false,
            }),
            ..Judgment::new("j", Reading::empty(ProtocolKind::EthicsBowl))
        };
        let value = serde_json::to_value(&j).unwrap();
        assert_eq!(
            value["judge_view"],
            serde_json::json!({
                "judge_sees_model_names": false,
                "temperature": null,
                "prompt_version": "ethics_bowl-judge-1"
            })
        );
        let back: Judgment = serde_json::from_value(value).unwrap();
        assert_eq!(back, j);
        assert_eq!(
            JudgeView::describe(back.view.as_ref()),
            "model names hidden · the provider's default temperature · prompt ethics_bowl-judge-1"
        );
    }

    #[test]
    fn a_judgment_stored_before_the_view_was_recorded_reads_as_not_recorded() {
        let j: Judgment =
            serde_json::from_str(r#"{"judge_model": "j", "raw_response": "x"}"#).unwrap();
        assert_eq!(j.view, None);
        assert_eq!(JudgeView::describe(j.view.as_ref()), "not recorded");
        let written = serde_json::to_value(&j).unwrap();
        assert!(written.get("judge_view").is_none(), "{written}");
    }
}
