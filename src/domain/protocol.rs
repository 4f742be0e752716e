//! Which debate format a tournament or a round follows: a closed set, so that every branch
//! on it is an exhaustive `match` and the compiler lists the places a new format must be
//! handled. The name appears as a string only in files (`"ethics_bowl"`, …).

use serde::{Deserialize, Serialize};

/// A debate format.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum ProtocolKind {
    /// The Ethics Bowl on a dilemma document.
    #[default]
    EthicsBowl,
    /// Question-answer debate with a blind judge over BoardgameQA (`[qa]`).
    QaDebate,
    /// Structured debate on decision topics: opening, cross-examination, closing
    /// (`[structured]`).
    StructuredDebate,
}

impl ProtocolKind {
    /// Every format, in the order the README lists them.
    pub const ALL: [ProtocolKind; 3] = [Self::EthicsBowl, Self::QaDebate, Self::StructuredDebate];

    /// The name in files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::EthicsBowl => "ethics_bowl",
            Self::QaDebate => "qa_debate",
            Self::StructuredDebate => "structured_debate",
        }
    }
}

impl std::fmt::Display for ProtocolKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A protocol name that no format has.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown protocol \"{0}\" (known: {known}): the file was written by another program or a \
     newer ethics-bowl",
    known = known_names()
)]
pub struct UnknownProtocol(pub String);

/// Every format's name, as the error lists them.
fn known_names() -> String {
    ProtocolKind::ALL.map(ProtocolKind::as_str).join(", ")
}

impl std::str::FromStr for ProtocolKind {
    type Err = UnknownProtocol;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| UnknownProtocol(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_errors() {
        for kind in ProtocolKind::ALL {
            assert_eq!(kind.as_str().parse::<ProtocolKind>(), Ok(kind));
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{kind}\""));
        }
        let err = "chess".parse::<ProtocolKind>().unwrap_err();
        assert!(err.to_string().contains("unknown protocol \"chess\""));
    }
}
