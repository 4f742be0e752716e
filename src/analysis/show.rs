//! How a figure is shown in the report's tables (Markdown and CSV), the same in every
//! protocol's section and in the judge panels'.

use crate::analysis::qa::Proportion;
use crate::analysis::tables::Cell;

/// A mean with its 95% interval and n, n counting its independent units (exchanges):
/// `7.50 [6.90, 8.10] (n=12)`; `7.50 (n=2, too few)`; `7.50 (n=12)` when no interval could
/// be drawn; `–` without data.
pub(crate) fn cell(c: &Cell) -> String {
    match (c.mean, c.insufficient, c.low.zip(c.high)) {
        (None, _, _) => "–".into(),
        (Some(m), true, _) => format!("{m:.2} (n={}, too few)", c.units),
        (Some(m), false, Some((l, h))) => format!("{m:.2} [{l:.2}, {h:.2}] (n={})", c.units),
        (Some(m), false, None) => format!("{m:.2} (n={})", c.units),
    }
}

/// A proportion with its Wilson interval and n: `62% [48–74%] (n=40)`; when its trials
/// come in fewer independent units, both, named as the share counts them:
/// `62% [41–79%] (n=94 judgments, 12 items)`, `66% [60–71%] (n=300 quotes, 12 items)`; `–`
/// without data.
pub fn share(p: &Proportion) -> String {
    let n = if p.units < p.n {
        format!(
            "n={} {}, {} {}",
            p.n,
            p.counted.trials(p.n),
            p.units,
            p.counted.units(p.units)
        )
    } else {
        format!("n={}", p.n)
    };
    match (p.share, p.low, p.high) {
        (Some(s), Some(l), Some(h)) => format!(
            "{:.0}% [{:.0}–{:.0}%] ({n})",
            s * 100.0,
            l * 100.0,
            h * 100.0,
        ),
        _ => "–".into(),
    }
}

/// A number in a CSV cell: empty when there is none.
pub(crate) fn num(v: Option<f64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}
