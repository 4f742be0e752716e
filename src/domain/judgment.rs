//! Judges' scores: seven criteria for each team, 1 to 10, and how the judge's text was read.

use serde::{Deserialize, Serialize};

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

/// A judge's verdict on one exchange.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Judgment {
    /// The judging model.
    #[serde(default)]
    pub judge_model: String,
    /// The panel judge (persona) this judgment is from, when a panel judged; two personas
    /// may share a model, so this, not the model, tells them apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persona_id: Option<String>,
    /// Team A's seven scores (absent in question-answer judgments).
    #[serde(default, skip_serializing_if = "Scores::is_empty")]
    pub team_a_scores: Scores,
    /// Team B's seven scores.
    #[serde(default, skip_serializing_if = "Scores::is_empty")]
    pub team_b_scores: Scores,
    /// A question-answer judge's pick (absent in Ethics Bowl judgments).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<super::QaChoice>,
    /// A structured-debate judge's trace of every argument and the side totals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<Box<super::StructuredVerdict>>,
    /// Why Team A scored as it did.
    #[serde(default)]
    pub team_a_justification: String,
    /// Why Team B scored as it did.
    #[serde(default)]
    pub team_b_justification: String,
    /// The judge's view of the whole exchange.
    #[serde(default)]
    pub overall_analysis: String,
    /// How the scores were obtained.
    #[serde(default = "parsed")]
    pub parse_status: ParseStatus,
    /// What the parser could not read, for the review queue.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
    /// The judge's own text, always kept.
    #[serde(default)]
    pub raw_response: String,
    /// When corrected by hand: the text the person saved (the raw response stays as it was).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corrected_text: Option<String>,
}

fn parsed() -> ParseStatus {
    ParseStatus::Parsed
}

impl Judgment {
    /// What tells this judge apart in a round: the persona for panel judges, else the model.
    pub fn judge_key(&self) -> &str {
        self.persona_id.as_deref().unwrap_or(&self.judge_model)
    }

    /// Whether the scores are usable as they are (parsed or corrected).
    pub fn is_usable(&self) -> bool {
        matches!(
            self.parse_status,
            ParseStatus::Parsed | ParseStatus::CorrectedByHand
        )
    }

    /// The scores of one team.
    pub fn scores(&self, team: Team) -> &Scores {
        match team {
            Team::A => &self.team_a_scores,
            Team::B => &self.team_b_scores,
        }
    }
}
