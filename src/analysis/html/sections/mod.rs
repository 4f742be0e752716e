//! The report's tables and charts as HTML, from the same [`Analysis`] that `report.md` is
//! written from, one module per part (usage for every protocol, then each protocol's own,
//! then the judge panels), chosen by an exhaustive `match` on the protocol kind as
//! `write_report` does.

mod panels;
mod qa_debate;
mod structured_debate;

use super::doc::{Doc, Filter};
use crate::analysis::Analysis;
use crate::analysis::tables::MIN_N;
use crate::domain::ProtocolKind;

/// Every section of the report.
pub(super) fn report(a: &Analysis) -> Doc {
    let mut doc = Doc::default();
    doc.h2("Overview");
    doc.p(&format!(
        "{} rounds ({} complete). Each figure is a mean over usable judgments (parsed, or corrected by hand), \
         with its n; a figure on fewer than {MIN_N} observations is marked \"too few\". A table row about a model, \
         dilemma, item, judge or round links to its rounds in the transcript browser below.",
        a.rounds, a.complete_rounds
    ));
    for section in &crate::analysis::figures::sections(a) {
        doc.section(section);
    }
    for kind in ProtocolKind::ALL {
        match kind {
            ProtocolKind::EthicsBowl => {
                if let Some(p) = &a.panels {
                    panels::section(
                        &mut doc,
                        &crate::analysis::panels::PanelSection {
                            protocol: ProtocolKind::EthicsBowl,
                            figures: p.clone(),
                            own: crate::analysis::panels::ProtocolPanelFigures::EthicsBowl,
                        },
                    );
                }
            }
            ProtocolKind::QaDebate => {
                if let Some(q) = &a.qa {
                    qa_debate::section(&mut doc, q);
                }
                if let Some(p) = &a.qa_panels {
                    panels::section(&mut doc, p);
                }
            }
            ProtocolKind::StructuredDebate => {
                if let Some(f) = &a.structured {
                    structured_debate::section(&mut doc, f);
                }
                if let Some(p) = &a.structured_panels {
                    panels::section(&mut doc, p);
                }
            }
        }
    }
    doc
}

/// The rounds a model played or judged.
fn model(m: &str) -> Option<Filter> {
    Some(vec![("model", m.to_string())])
}

/// The rounds a judge judged.
fn judge(j: &str) -> Option<Filter> {
    Some(vec![("judge", j.to_string())])
}
