//! The registry: each protocol kind's [`ProtocolSpec`]. The one place that lists the
//! protocols, as an exhaustive `match`, so the compiler names it when a kind is added.

use crate::domain::ProtocolKind;
use crate::providers::simulated::SimulatedBehaviours;

use super::spec::ProtocolSpec;
use super::{Protocol, ethics_bowl, qa_debate, structured_debate};

/// The spec of a protocol kind.
pub fn spec(kind: ProtocolKind) -> &'static dyn ProtocolSpec {
    match kind {
        ProtocolKind::EthicsBowl => &ethics_bowl::Spec,
        ProtocolKind::QaDebate => &qa_debate::Spec,
        ProtocolKind::StructuredDebate => &structured_debate::Spec,
    }
}

/// Every protocol's spec, in the order of [`ProtocolKind::ALL`].
pub fn specs() -> impl Iterator<Item = &'static dyn ProtocolSpec> {
    ProtocolKind::ALL.into_iter().map(spec)
}

/// The protocol that reads stored rounds of this kind (see [`ProtocolSpec::stored`]).
pub fn stored(kind: ProtocolKind) -> Box<dyn Protocol> {
    spec(kind).stored()
}

/// What simulated models say in every protocol's calls (each protocol's `simulated`
/// module), for the models of a run, `rejudge` and `ask` (see [`crate::providers::simulated`]).
pub fn simulated_behaviours() -> SimulatedBehaviours {
    SimulatedBehaviours::new(specs().map(|s| s.simulation()).collect())
}

/// The folders every protocol's rounds put their extra files in (see
/// [`ProtocolSpec::round_extras`]).
pub fn extra_folders() -> Vec<&'static str> {
    let mut folders: Vec<&'static str> = Vec::new();
    for folder in specs().flat_map(|s| s.extra_folders()) {
        if !folders.contains(folder) {
            folders.push(folder);
        }
    }
    folders
}
