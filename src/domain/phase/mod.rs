//! Which step of a round a call is: one of the judging phases every protocol shares
//! ([`JudgingPhase`]), or one of a protocol's own debating phases ([`DebatePhase`], one
//! variant per protocol holding that protocol's enum). A protocol matches only on its own
//! enum (see [`PhaseType::own`]), so it neither lists nor refuses another protocol's phases,
//! and a new protocol's phases are one more variant that the compiler makes every
//! exhaustive `match` here handle.
//!
//! A round file keeps each phase as its flat name (`"presentation"`, `"judgment"`,
//! `"cross_examination"`): every phase's name is unique across protocols, and reading a
//! round checks that its phases belong to its protocol (see `round_file`).
//!
//! Code that names one particular phase writes it as before the split, as an associated
//! constant (`PhaseType::Judgment`, `PhaseType::Presentation`), usable in patterns too; each
//! protocol's constants are beside its enum.

mod ethics_bowl;
mod qa_debate;
mod structured_debate;

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use super::ProtocolKind;

pub use ethics_bowl::EthicsBowlPhase;
pub use qa_debate::QaPhase;
pub use structured_debate::StructuredPhase;

/// How a phase is named: in files, for people, and in one letter for compact displays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PhaseNames {
    /// The name in files (`consistency_test_b`).
    pub name: &'static str,
    /// The name as people read it (`Consistency test (Team B)`).
    pub title: &'static str,
    /// One letter (`C`).
    pub letter: char,
}

/// A protocol's own phases: the calls its debaters answer.
pub trait OwnPhase: Copy + Eq + Into<DebatePhase> + 'static {
    /// Every phase, in the protocol's order.
    const ALL: &'static [Self];
    /// How the phase is named.
    fn names(self) -> PhaseNames;
    /// The protocol's phase, if `phase` is one of its.
    fn of(phase: DebatePhase) -> Option<Self>;
}

/// The judging phases, which any protocol's judging strategy may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JudgingPhase {
    /// A judge scores the exchange.
    Judgment,
    /// A panel judge's independent evaluation (deliberation round 0).
    PanelEvaluation,
    /// A panel judge's updated evaluation after seeing the others' positions.
    Deliberation,
}

impl JudgingPhase {
    /// Every judging phase.
    pub const ALL: [JudgingPhase; 3] = [Self::Judgment, Self::PanelEvaluation, Self::Deliberation];

    /// How the phase is named.
    pub fn names(self) -> PhaseNames {
        let (name, title, letter) = match self {
            Self::Judgment => ("judgment", "Judgment", 'J'),
            Self::PanelEvaluation => ("panel_evaluation", "Panel evaluation", 'J'),
            Self::Deliberation => ("deliberation", "Deliberation", 'D'),
        };
        PhaseNames {
            name,
            title,
            letter,
        }
    }
}

/// A debater's phase: one protocol's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DebatePhase {
    /// The Ethics Bowl's.
    EthicsBowl(EthicsBowlPhase),
    /// The question-answer debate's.
    QaDebate(QaPhase),
    /// The structured debate's.
    StructuredDebate(StructuredPhase),
}

impl DebatePhase {
    /// The protocol whose debaters answer it.
    pub fn protocol(self) -> ProtocolKind {
        match self {
            Self::EthicsBowl(_) => ProtocolKind::EthicsBowl,
            Self::QaDebate(_) => ProtocolKind::QaDebate,
            Self::StructuredDebate(_) => ProtocolKind::StructuredDebate,
        }
    }

    /// How the phase is named.
    pub fn names(self) -> PhaseNames {
        match self {
            Self::EthicsBowl(p) => p.names(),
            Self::QaDebate(p) => p.names(),
            Self::StructuredDebate(p) => p.names(),
        }
    }

    /// Every phase of a protocol's debaters, in its order.
    pub fn all_of(kind: ProtocolKind) -> Vec<DebatePhase> {
        fn each<P: OwnPhase>() -> Vec<DebatePhase> {
            P::ALL.iter().map(|p| (*p).into()).collect()
        }
        match kind {
            ProtocolKind::EthicsBowl => each::<EthicsBowlPhase>(),
            ProtocolKind::QaDebate => each::<QaPhase>(),
            ProtocolKind::StructuredDebate => each::<StructuredPhase>(),
        }
    }
}

/// The step of a round a call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PhaseType {
    /// A judge's call (single or on a panel), in any protocol.
    Judging(JudgingPhase),
    /// A debater's call, in its protocol.
    Debate(DebatePhase),
}

/// The shorthands of the judging phases.
#[allow(non_upper_case_globals)]
impl PhaseType {
    /// A judge scores the exchange.
    pub const Judgment: Self = Self::Judging(JudgingPhase::Judgment);
    /// A panel judge's independent evaluation (deliberation round 0).
    pub const PanelEvaluation: Self = Self::Judging(JudgingPhase::PanelEvaluation);
    /// A panel judge's updated evaluation after seeing the others' positions.
    pub const Deliberation: Self = Self::Judging(JudgingPhase::Deliberation);
}

impl PhaseType {
    /// How the phase is named.
    pub fn names(self) -> PhaseNames {
        match self {
            Self::Judging(p) => p.names(),
            Self::Debate(p) => p.names(),
        }
    }

    /// The spec's name (the one in files).
    pub fn as_str(self) -> &'static str {
        self.names().name
    }

    /// The phase's name as people read it (`Consistency test (Team A)`).
    pub fn title(self) -> &'static str {
        self.names().title
    }

    /// One letter for compact displays (P R B C C J).
    pub fn letter(self) -> char {
        self.names().letter
    }

    /// The protocol whose debaters answer this phase; none for judging phases, which any
    /// protocol's judging strategy may use. Reading a round file checks its phases by it.
    pub fn protocol(self) -> Option<ProtocolKind> {
        match self {
            Self::Judging(_) => None,
            Self::Debate(p) => Some(p.protocol()),
        }
    }

    /// Whether a judge (single or panel) answers this phase rather than a debater.
    pub fn is_judging(self) -> bool {
        matches!(self, Self::Judging(_))
    }

    /// The protocol `P`'s own phase, if it is one of its (none for judging phases and for
    /// other protocols' phases).
    pub fn own<P: OwnPhase>(self) -> Option<P> {
        match self {
            Self::Judging(_) => None,
            Self::Debate(p) => P::of(p),
        }
    }

    /// Every phase: the judging phases, then each protocol's in the order of
    /// [`ProtocolKind::ALL`].
    pub fn all() -> impl Iterator<Item = PhaseType> {
        JudgingPhase::ALL.into_iter().map(Self::Judging).chain(
            ProtocolKind::ALL
                .into_iter()
                .flat_map(DebatePhase::all_of)
                .map(Self::Debate),
        )
    }

    /// The phase with this name in files.
    pub fn from_name(name: &str) -> Option<PhaseType> {
        Self::all().find(|p| p.as_str() == name)
    }
}

impl From<JudgingPhase> for PhaseType {
    fn from(p: JudgingPhase) -> Self {
        Self::Judging(p)
    }
}

impl<P: OwnPhase> From<P> for PhaseType {
    fn from(p: P) -> Self {
        Self::Debate(p.into())
    }
}

/// Every phase's name in files, for the error that names an unknown one.
static NAMES: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| PhaseType::all().map(PhaseType::as_str).collect());

impl Serialize for PhaseType {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for PhaseType {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Name;
        impl serde::de::Visitor<'_> for Name {
            type Value = PhaseType;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a phase's name")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<PhaseType, E> {
                PhaseType::from_name(v).ok_or_else(|| E::unknown_variant(v, NAMES.as_slice()))
            }
        }
        deserializer.deserialize_str(Name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names in files, as the flat enum before the split spelled them, in its order.
    const NAMES_IN_FILES: [&str; 12] = [
        "presentation",
        "response",
        "rebuttal",
        "consistency_test",
        "consistency_test_b",
        "judgment",
        "panel_evaluation",
        "deliberation",
        "argument",
        "opening",
        "cross_examination",
        "closing",
    ];

    #[test]
    fn every_phase_keeps_its_name_in_files_and_reads_back() {
        let mut names: Vec<&str> = PhaseType::all().map(PhaseType::as_str).collect();
        assert_eq!(names.len(), NAMES_IN_FILES.len());
        names.sort_unstable();
        let mut expected = NAMES_IN_FILES.to_vec();
        expected.sort_unstable();
        assert_eq!(names, expected, "names are unique and unchanged");
        for name in NAMES_IN_FILES {
            let phase: PhaseType = serde_json::from_str(&format!("\"{name}\"")).unwrap();
            assert_eq!(phase.as_str(), name);
            assert_eq!(
                serde_json::to_string(&phase).unwrap(),
                format!("\"{name}\"")
            );
        }
        let err = serde_json::from_str::<PhaseType>("\"rebutal\"").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("unknown variant `rebutal`, expected one of `judgment`"),
            "{err}"
        );
    }

    #[test]
    fn a_protocol_sees_only_its_own_phases() {
        assert_eq!(
            PhaseType::Presentation.own::<EthicsBowlPhase>(),
            Some(EthicsBowlPhase::Presentation)
        );
        assert_eq!(PhaseType::Presentation.own::<StructuredPhase>(), None);
        assert_eq!(PhaseType::Judgment.own::<EthicsBowlPhase>(), None);
        assert_eq!(PhaseType::Argument.protocol(), Some(ProtocolKind::QaDebate));
        assert!(
            PhaseType::Deliberation.is_judging() && PhaseType::Deliberation.protocol().is_none()
        );
        for kind in ProtocolKind::ALL {
            assert!(
                DebatePhase::all_of(kind)
                    .iter()
                    .all(|p| p.protocol() == kind)
            );
        }
    }
}
