//! "Position flips", for a folder of judgments read with the sides swapped (`rejudge
//! --swap-sides`): each judge's flip rate and position effect against the same exchanges as
//! played, and `position_flips.csv`. Every other folder gets no section, so its report reads
//! as before.

use super::{Link, LinkKey, Section, Style, Table, Text, Value};
use crate::analysis::flip::FlipRate;
use crate::analysis::ratings::DRAW_MARGIN;

/// The section, when some exchange was judged both ways.
pub(super) fn section(flips: &[FlipRate]) -> Option<Section> {
    if flips.is_empty() {
        return None;
    }
    let mut s = Section::new("Position flips");
    s.paragraph(
        Text::plain(
            "Every judgment in this folder was read with the two sides exchanged in the \
             judge's prompt and is stored mapped back to the sides as played, so the tables \
             above are about swapped judgments only. Here each judge's swapped verdicts are \
             set against its own verdicts of the same exchanges as played (the folder ",
        )
        .code("rejudge --swap-sides")
        .and(format!(
            " judged). A flip is a verdict that changes: the side ahead by team totals in \
             the Ethics Bowl (a draw under {DRAW_MARGIN} points), the answer chosen in the \
             question-answer debate, the winner in the structured debate. The position effect \
             is the mean of (margin as played − margin swapped) / 2: the points a side gains \
             from the place it is shown in as played (Ethics Bowl: labelled Team A; structured \
             debate: read first). n counts exchanges."
        )),
    );
    let mut t = Table::new(
        "Position flips",
        [
            "judge",
            "protocol",
            "exchanges",
            "verdict flipped",
            "position effect (points)",
        ],
    );
    let mut tidy = Vec::new();
    for f in flips {
        let effect = f
            .position_effect
            .map_or(Value::Empty, |e| Value::Statistic(e, Style::Signed(1)));
        t.row(
            vec![
                Value::text(&f.judge),
                Value::text(f.protocol.as_str()),
                Value::Count(f.exchanges),
                Value::Share(f.flips),
                effect,
            ],
            Link::judge(&f.judge).map(|l| l.and(LinkKey::Protocol, f.protocol.as_str())),
        );
        let e = f.position_effect;
        tidy.push(vec![
            Value::text(&f.judge),
            Value::text(f.protocol.as_str()),
            Value::Count(f.exchanges),
            Value::Count(f.flips.hits),
            Value::number(f.flips.share, 4),
            Value::number(f.flips.low, 4),
            Value::number(f.flips.high, 4),
            Value::number(e.and_then(|e| e.value), 4),
            Value::number(e.and_then(|e| e.low), 4),
            Value::number(e.and_then(|e| e.high), 4),
        ]);
    }
    s.table(t.with_tidy(
        "position_flips.csv",
        [
            "judge",
            "protocol",
            "exchanges",
            "flips",
            "flip_rate",
            "flip_rate_low",
            "flip_rate_high",
            "position_effect",
            "position_effect_low",
            "position_effect_high",
        ],
        tidy,
    ));
    Some(s)
}
