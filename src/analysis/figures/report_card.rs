//! The judges' report cards (`judge_cards.csv`): one row per judge with every check a
//! reviewer asks of it, each estimate with its n and interval.

use super::{Link, Section, Style, Table, Value};
use crate::analysis::report_card::JudgeCard;
use crate::analysis::stats::statistic::Statistic;

/// A figure as a cell, `–` when there is none.
fn or_dash(v: Option<Value>) -> Value {
    v.unwrap_or_else(|| Value::text("–"))
}

/// The section; none without judges.
pub(super) fn section(cards: &[JudgeCard]) -> Option<Section> {
    if cards.is_empty() {
        return None;
    }
    let mut s = Section::new("Judge report cards");
    s.plain(
        "Each judge in one row: leniency (points above the average judge on a team's total, from \
         the judge-effects fit), self-preference (its score of its own model's team minus the other \
         judges'), test–retest (Krippendorff's alpha over the configurations it judged in more than \
         one repetition; n counts configurations), length sensitivity (Pearson's r of its margin \
         with the teams' length difference), the shares of its answers read whole, corrected by \
         hand and still unread (Wilson intervals, n counting judgments), the share of its verdicts \
         that flip when the sides are shown swapped (n counting exchanges judged both ways), \
         agreement with people (alpha against their consensus) and its cost per answered call. A `–` is a check this run \
         cannot make: leniency and length need Ethics Bowl rounds (leniency two judges or more), \
         self-preference a judge whose own model plays, test–retest `repetitions` above 1, flips \
         `ethics-bowl rejudge --swap-sides`, \
         agreement people's judgments (`ethics-bowl annotate`), cost a price in the models file.",
    );
    let mut t = Table::new(
        "Report cards",
        [
            "judge",
            "judgments",
            "leniency",
            "self-preference",
            "test–retest alpha",
            "length r",
            "read whole",
            "corrected by hand",
            "unread",
            "flips when swapped",
            "alpha vs people",
            "cost per call",
        ],
    );
    let mut tidy = Vec::new();
    for c in cards {
        let statistic =
            |s: Option<Statistic>| or_dash(s.map(|s| Value::Statistic(s, Style::Decimals(2))));
        t.row(
            vec![
                Value::text(&c.judge),
                Value::Count(c.judgments),
                or_dash(c.leniency.clone().map(Value::Estimate)),
                or_dash(c.self_preference.map(Value::Mean)),
                statistic(c.test_retest.map(Statistic::from)),
                statistic(c.length_sensitivity),
                Value::Share(c.parsed),
                Value::Share(c.corrected_by_hand),
                Value::Share(c.unread),
                or_dash(c.position_flips.map(Value::Share)),
                statistic(c.human_alpha.map(Statistic::from)),
                or_dash(c.cost_per_call.map(|v| Value::text(format!("${v:.4}")))),
            ],
            Link::judge(&c.judge),
        );
        tidy.push(vec![
            Value::text(&c.judge),
            Value::text(&c.model),
            Value::Count(c.judgments),
            Value::number(c.leniency.as_ref().map(|e| e.estimate), 4),
            Value::number(c.leniency.as_ref().and_then(|e| e.low), 4),
            Value::number(c.leniency.as_ref().and_then(|e| e.high), 4),
            Value::number(c.self_preference.and_then(|m| m.mean), 4),
            Value::number(c.test_retest.and_then(|f| f.estimate), 4),
            Value::number(c.test_retest.and_then(|f| f.low), 4),
            Value::number(c.test_retest.and_then(|f| f.high), 4),
            Value::number(c.length_sensitivity.and_then(|s| s.value), 4),
            Value::number(c.length_sensitivity.and_then(|s| s.low), 4),
            Value::number(c.length_sensitivity.and_then(|s| s.high), 4),
            Value::number(c.parsed.share, 4),
            Value::number(c.corrected_by_hand.share, 4),
            Value::number(c.unread.share, 4),
            Value::number(c.position_flips.and_then(|p| p.share), 4),
            Value::number(c.position_flips.and_then(|p| p.low), 4),
            Value::number(c.position_flips.and_then(|p| p.high), 4),
            Value::number(c.human_alpha.and_then(|f| f.estimate), 4),
            Value::number(c.human_alpha.and_then(|f| f.low), 4),
            Value::number(c.human_alpha.and_then(|f| f.high), 4),
            Value::number(c.cost_per_call, 6),
        ]);
    }
    s.table(t.with_tidy(
        "judge_cards.csv",
        [
            "judge",
            "model",
            "judgments",
            "leniency",
            "leniency_low",
            "leniency_high",
            "self_preference",
            "test_retest_alpha",
            "test_retest_low",
            "test_retest_high",
            "length_r",
            "length_r_low",
            "length_r_high",
            "read_whole",
            "corrected_by_hand",
            "unread",
            "position_flips",
            "position_flips_low",
            "position_flips_high",
            "human_alpha",
            "human_alpha_low",
            "human_alpha_high",
            "cost_per_call_usd",
        ],
        tidy,
    ));
    Some(s)
}
