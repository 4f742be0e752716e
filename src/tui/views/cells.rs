//! What the protocols' own views share: a settled round's matrix cell by its status, the
//! matrix legend, and a mean with its count.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::domain::RoundStatus;
use crate::tui::mirror::RoundState;
use crate::tui::theme::Theme;

/// The mark after a cell whose round holds an answer cut at the token limit.
pub const CUT: char = '✂';

/// The mark after a cell whose round holds a judgment a person corrected by hand.
pub const CORRECTED: char = '✎';

/// A settled round's cell by its status, with `outcome` (a margin) after the tick of a
/// complete round.
pub fn status_cell(
    round: &RoundState,
    outcome: String,
    theme: &Theme,
) -> (String, ratatui::style::Color) {
    match round.status() {
        RoundStatus::Complete => (format!("✓{outcome}"), theme.complete),
        RoundStatus::NeedsReview => ("?rev".into(), theme.review),
        RoundStatus::Incomplete if round.queued => ("·".into(), theme.queued),
        RoundStatus::Incomplete if round.error().is_some() => ("✗err".into(), theme.incomplete),
        RoundStatus::Incomplete if !round.stored.phases.is_empty() => ("…".into(), theme.queued),
        RoundStatus::Incomplete => ("·".into(), theme.queued),
    }
}

/// A margin to one decimal place, `=` when it rounds to nothing (as the Ethics Bowl's
/// whole-point margins read), never `+0.0` or `-0.0`.
pub fn margin_one_place(m: f64) -> String {
    if (m * 10.0).round() == 0.0 {
        "=".into()
    } else {
        format!("{m:+.1}")
    }
}

/// The legend's entry for [`CUT`], which every protocol's legend ends with.
pub fn cut_legend(theme: &Theme) -> Span<'static> {
    Span::styled(
        format!("  {CUT} answer cut at token limit"),
        Style::new().fg(theme.review),
    )
}

/// The legend's entry for [`CORRECTED`], shown when a round has the mark.
pub fn corrected_legend(theme: &Theme) -> Span<'static> {
    Span::styled(
        format!("  {CORRECTED} corrected by hand"),
        Style::new().fg(theme.accent),
    )
}

/// The legend most protocols share: `running` names the phase letters, `done` what follows
/// a finished round's tick.
pub fn legend(theme: &Theme, running: &'static str, done: &'static str) -> Line<'static> {
    Line::from(vec![
        Span::styled("· queued  ", Style::new().fg(theme.queued)),
        Span::styled(running, Style::new().fg(theme.running)),
        Span::styled("▶Dn deliberating  ", Style::new().fg(theme.running)),
        Span::styled("⟳ retry wait  ", Style::new().fg(theme.retrying)),
        Span::styled(done, Style::new().fg(theme.complete)),
        Span::styled("… queued (part-way)  ", Style::new().fg(theme.queued)),
        Span::styled("?rev needs review  ", Style::new().fg(theme.review)),
        Span::styled("✗err failed", Style::new().fg(theme.incomplete)),
        cut_legend(theme),
    ])
}

/// A mean with its 95% interval, short enough for a leaderboard's columns: `56.9
/// [54.1–59.7] n=26`, n counting the units of the `(unit, value)` observations (several
/// judgments of one exchange count once), as the report's tables do.
pub fn interval(observations: &[(usize, f64)]) -> String {
    let c = crate::analysis::tables::Cell::clustered(observations);
    match (c.mean, c.insufficient, c.low.zip(c.high)) {
        (None, _, _) => "–".into(),
        (Some(m), false, Some((l, h))) => format!("{m:.1} [{l:.1}–{h:.1}] n={}", c.units),
        (Some(m), true, _) => format!("{m:.1} n={}, too few", c.units),
        (Some(m), false, None) => format!("{m:.1} n={}", c.units),
    }
}

#[cfg(test)]
mod tests {
    use super::margin_one_place;

    #[test]
    fn a_margin_that_rounds_to_nothing_reads_as_equal() {
        assert_eq!(margin_one_place(0.0), "=");
        assert_eq!(margin_one_place(-0.04), "=");
        assert_eq!(margin_one_place(0.04), "=");
        assert_eq!(margin_one_place(-0.06), "-0.1");
        assert_eq!(margin_one_place(2.26), "+2.3");
    }
}
