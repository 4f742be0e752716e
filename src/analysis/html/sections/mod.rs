//! The report's tables and charts as HTML, from the same [`Analysis`] that `report.md` is
//! written from: the overview, then every section of the figure model (usage for every
//! protocol, then each protocol's own with its judge panels').

use super::doc::Doc;
use crate::analysis::Analysis;
use crate::analysis::tables::MIN_N;

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
    doc
}
