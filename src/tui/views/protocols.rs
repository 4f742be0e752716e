//! Which presentation a protocol has: the one place the UI's views branch on the protocol
//! kind (see [`Presentation`]).

use crate::domain::ProtocolKind;

use super::presentation::Presentation;

/// The presentation of a protocol: the one place the UI branches on the protocol kind.
pub fn presentation(kind: ProtocolKind) -> &'static dyn Presentation {
    match kind {
        ProtocolKind::EthicsBowl => &super::ethics_bowl::EthicsBowl,
        ProtocolKind::QaDebate => &super::qa_debate::QaDebate,
        ProtocolKind::StructuredDebate => &super::structured_debate::StructuredDebate,
    }
}
