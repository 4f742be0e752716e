//! Which rounds a table row is about: the filter `report.html`'s transcript browser applies
//! when the row is clicked, and the one the Analysis screen opens.

/// A filter's key, as `report.html` names it in its links (`#rounds?model=x&role=a`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LinkKey {
    /// A model that played or judged the round (with `Role`, in that role).
    Model,
    /// `a` (Team A, presenting), `b` (Team B, responding) or `judge`.
    Role,
    /// The dilemma, item or topic.
    Dilemma,
    /// A judge of the round.
    Judge,
    /// One round, by id.
    Round,
    /// A question-answer round's format and level tag (`debate`, `expert`).
    Qa,
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
            Self::Dilemma => "dilemma",
            Self::Judge => "judge",
            Self::Round => "round",
            Self::Qa => "qa",
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

    /// The rounds a judge judged.
    pub fn judge(j: &str) -> Option<Self> {
        Some(Self(vec![(LinkKey::Judge, j.to_string())]))
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
