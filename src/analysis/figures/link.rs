//! Which rounds a table row is about: the filter `report.html`'s transcript browser applies
//! when the row is clicked, and the one the Analysis screen opens. [`Link::matches`] is the
//! page script's `matches` in Rust, over the same [`RoundTags`] the page's JSON carries, so
//! that a test can check each row's link selects the rounds the row counts.

use serde::Serialize;

use crate::domain::{Judgment, Round, Side};

/// A filter's key, as `report.html` names it in its links (`#rounds?model=x&role=a`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LinkKey {
    /// A model that played or judged the round (with `Role`, in that role).
    Model,
    /// `a` (Team A, presenting), `b` (Team B, responding), `player` (either) or `judge`.
    Role,
    /// The protocol (`ethics_bowl`, `qa_debate`, `structured_debate`).
    Protocol,
    /// The dilemma, item or topic.
    Dilemma,
    /// A judge of the round.
    Judge,
    /// A second judge of the round (a pair of judges' rows).
    Judge2,
    /// One round, by id.
    Round,
    /// Whether a question-answer round's judge was right (`correct`, `incorrect`).
    Qa,
    /// A question-answer round's format (`debate`, `naive`, as the configuration names it).
    Format,
    /// A question-answer item's level.
    Level,
    /// A question-answer round's debaters (`a vs b`, or the consultant).
    Debaters,
    /// A question-answer judgment's stated confidence, as a bin (`90-100`).
    Confidence,
    /// A structured debate's winning side.
    Winner,
    /// A structured debate's argument standing.
    Standing,
    /// Words searched for in the rounds.
    Search,
}

impl LinkKey {
    /// The key in a link of `report.html`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Model => "model",
            Self::Role => "role",
            Self::Protocol => "protocol",
            Self::Dilemma => "dilemma",
            Self::Judge => "judge",
            Self::Judge2 => "judge2",
            Self::Round => "round",
            Self::Qa => "qa",
            Self::Format => "format",
            Self::Level => "level",
            Self::Debaters => "debaters",
            Self::Confidence => "confidence",
            Self::Winner => "winner",
            Self::Standing => "standing",
            Self::Search => "q",
        }
    }
}

/// The rounds a row counts: every pair must hold.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Link(pub Vec<(LinkKey, String)>);

impl Link {
    /// The rounds a model played or judged.
    pub fn model(m: &str) -> Option<Self> {
        Some(Self(vec![(LinkKey::Model, m.to_string())]))
    }

    /// The rounds a model played in, on either side.
    pub fn player(m: &str) -> Option<Self> {
        Self::model(m).map(|l| l.and(LinkKey::Role, "player"))
    }

    /// The rounds a judge judged.
    pub fn judge(j: &str) -> Option<Self> {
        Some(Self(vec![(LinkKey::Judge, j.to_string())]))
    }

    /// The rounds of one protocol.
    pub fn protocol(kind: &str) -> Option<Self> {
        Some(Self(vec![(LinkKey::Protocol, kind.to_string())]))
    }

    /// One round.
    pub fn round(id: &str) -> Option<Self> {
        Some(Self(vec![(LinkKey::Round, id.to_string())]))
    }

    /// The rounds of one dilemma, item or topic.
    pub fn dilemma(d: &str) -> Option<Self> {
        Some(Self(vec![(LinkKey::Dilemma, d.to_string())]))
    }

    /// The rounds holding these words.
    pub fn search(q: &str) -> Option<Self> {
        Some(Self(vec![(LinkKey::Search, q.to_string())]))
    }

    /// Adds a pair.
    pub fn and(mut self, key: LinkKey, value: impl Into<String>) -> Self {
        self.0.push((key, value.into()));
        self
    }

    /// The value of a key, when the link has it.
    pub fn get(&self, key: LinkKey) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
    }
}

impl Link {
    /// Whether a round passes the link's filter, as `report.html` decides it: a model in
    /// either team or among the judges (in `role`, when given), the case, a judge, the
    /// question-answer and structured tags; a search asks that every word appear in the
    /// round's ids or models (the page searches the transcript too).
    pub fn matches(&self, round: &Round) -> bool {
        let tags = RoundTags::of(round);
        let judges = judges_of(round);
        let role = self.get(LinkKey::Role);
        self.0.iter().all(|(key, value)| match key {
            LinkKey::Model => {
                let in_a = round.team_a_model == *value;
                let in_b = round.team_b_model == *value;
                let judged = judges.contains(&value.as_str());
                match role {
                    Some("a") => in_a,
                    Some("b") => in_b,
                    Some("player") => in_a || in_b,
                    Some("judge") => judged,
                    _ => in_a || in_b || judged,
                }
            }
            LinkKey::Role => true,
            LinkKey::Protocol => round.kind().as_str() == value,
            LinkKey::Dilemma => round.dilemma_id == *value,
            LinkKey::Judge | LinkKey::Judge2 => judges.contains(&value.as_str()),
            LinkKey::Round => round.id == *value,
            LinkKey::Qa => tags.qa == Some(value.as_str()),
            LinkKey::Format => tags.format == Some(value.as_str()),
            LinkKey::Level => tags.level.as_deref() == Some(value.as_str()),
            LinkKey::Debaters => tags.debaters.as_deref() == Some(value.as_str()),
            LinkKey::Confidence => tags.confidence.contains(value),
            LinkKey::Winner => tags.winner == Some(value.as_str()),
            LinkKey::Standing => tags.standings.contains(&value.as_str()),
            LinkKey::Search => {
                let hay = [
                    round.id.as_str(),
                    round.dilemma_id.as_str(),
                    round.team_a_model.as_str(),
                    round.team_b_model.as_str(),
                ]
                .into_iter()
                .chain(judges.iter().copied())
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase();
                value
                    .to_lowercase()
                    .split_whitespace()
                    .all(|w| hay.contains(w))
            }
        })
    }
}

/// The judges of a round as its filters name them: the judge models, then each panel
/// judge's persona (the judge-agreement tables of a panel name its judges so).
pub fn judges_of(round: &Round) -> Vec<&str> {
    let mut judges: Vec<&str> = round.judge_models.iter().map(String::as_str).collect();
    for j in &round.judgments {
        if let Some(p) = j.persona_id.as_deref()
            && !judges.contains(&p)
        {
            judges.push(p);
        }
    }
    judges
}

/// What a round is, for the filters beyond its models and case: the page's JSON carries it
/// (`tags`) and [`Link::matches`] reads it.
#[derive(Debug, Default, Serialize, PartialEq, Eq)]
pub struct RoundTags {
    /// Question-answer rounds: the format, as configurations name it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<&'static str>,
    /// Question-answer rounds: the item's level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    /// Question-answer rounds with debaters: `a vs b`, or the consultant.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub debaters: Option<String>,
    /// Question-answer rounds: `correct` or `incorrect` (the round's judgment against the
    /// item's label), when read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qa: Option<&'static str>,
    /// Structured debates: `pro`, `con` or `draw`, when read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winner: Option<&'static str>,
    /// Structured debates: every standing the judges gave an argument.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub standings: Vec<&'static str>,
    /// Question-answer rounds: the calibration bins (`50-60`, as the calibration table
    /// names them) of every judge's stated confidence.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub confidence: Vec<String>,
}

impl RoundTags {
    /// The tags of a round: what it is, and what its judgment (the first judge's, or the
    /// panel's aggregate) read.
    pub fn of(round: &Round) -> Self {
        let mut tags = Self::default();
        if let Some(q) = round.qa() {
            tags.format = Some(q.format.as_str());
            tags.level = Some(q.level.clone());
            tags.debaters = crate::analysis::qa::debaters_label(round, q.format);
        }
        let Some(j) = &round.scores else {
            return tags;
        };
        if let Some(q) = round.qa() {
            let mut bins: Vec<String> = round
                .judgments
                .iter()
                .filter_map(|j| j.choice().and_then(|c| c.confidence))
                .filter_map(confidence_bin)
                .collect();
            bins.sort_unstable();
            bins.dedup();
            tags.confidence = bins;
            let right = match (j.choice(), j.label()) {
                (Some(c), _) => Some(q.assignment.correct_side == Some(c.side)),
                (None, Some(l)) => Some(l == q.label),
                (None, None) => None,
            };
            tags.qa = right.map(|r| if r { "correct" } else { "incorrect" });
        }
        if let Some(v) = j.verdict() {
            tags.winner = v.margin().map(|m| match m.winner() {
                Some(Side::Pro) => "pro",
                Some(Side::Con) => "con",
                None => "draw",
            });
        }
        let mut standings: Vec<&'static str> = round
            .judgments
            .iter()
            .filter_map(Judgment::verdict)
            .flat_map(|v| &v.assessments)
            .filter_map(|a| a.standing.map(|s| s.as_str()))
            .collect();
        standings.sort_unstable();
        standings.dedup();
        tags.standings = standings;
        tags
    }
}

/// The calibration bin of a confidence (0–100), named `low-high`.
fn confidence_bin(c: f64) -> Option<String> {
    crate::analysis::qa::CALIBRATION_BINS
        .iter()
        .find(|&&(low, high)| c >= low && (c < high || (high == 100.0 && c <= high)))
        .map(|(low, high)| format!("{low:.0}-{high:.0}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confidences_fall_in_the_calibration_tables_bins() {
        assert_eq!(confidence_bin(0.0).as_deref(), Some("0-50"));
        assert_eq!(confidence_bin(59.9).as_deref(), Some("50-60"));
        assert_eq!(confidence_bin(60.0).as_deref(), Some("60-70"));
        assert_eq!(confidence_bin(100.0).as_deref(), Some("90-100"));
        assert_eq!(confidence_bin(101.0), None);
    }
}
