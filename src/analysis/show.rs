//! How a figure is shown in the report's tables (Markdown and CSV), the same in every
//! protocol's section and in the judge panels'.

use crate::analysis::qa::Proportion;
use crate::analysis::tables::Cell;

/// A mean with its n: `7.50 (n=12)`, `7.50 (n=2, too few)`, or `–` without data.
pub(crate) fn cell(c: &Cell) -> String {
    match (c.mean, c.insufficient) {
        (None, _) => "–".into(),
        (Some(m), false) => format!("{m:.2} (n={})", c.n),
        (Some(m), true) => format!("{m:.2} (n={}, too few)", c.n),
    }
}

/// A proportion with its Wilson interval and n: `62% [48–74%] (n=40)`, or `–` without data.
pub fn share(p: &Proportion) -> String {
    match (p.share, p.low, p.high) {
        (Some(s), Some(l), Some(h)) => format!(
            "{:.0}% [{:.0}–{:.0}%] (n={})",
            s * 100.0,
            l * 100.0,
            h * 100.0,
            p.n
        ),
        _ => "–".into(),
    }
}

/// A number in a CSV cell: empty when there is none.
pub(crate) fn num(v: Option<f64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}
