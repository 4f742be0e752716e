//! Which presentation a protocol has: the one place the UI's views branch on the protocol
//! kind (see [`Presentation`]), and what the lines of its Analysis screen lead to.

use crate::domain::ProtocolKind;
use crate::tui::mirror::Mirror;
use crate::tui::msg::AnalysisTarget;
use crate::tui::screens::analysis::AnalysisView;

use super::presentation::Presentation;

/// The presentation of a protocol: the one place the UI branches on the protocol kind.
pub fn presentation(kind: ProtocolKind) -> &'static dyn Presentation {
    match kind {
        ProtocolKind::EthicsBowl => &super::ethics_bowl::EthicsBowl,
        ProtocolKind::QaDebate => &super::qa_debate::QaDebate,
        ProtocolKind::StructuredDebate => &super::structured_debate::StructuredDebate,
    }
}

/// What each line of the current Analysis tab leads to, one per line in the tab's order (the
/// protocol's tables decide, see [`Presentation::analysis_lines`]).
pub fn analysis_targets(mirror: &Mirror, view: &AnalysisView) -> Vec<AnalysisTarget> {
    presentation(mirror.protocol).analysis_lines(mirror, view)
}
