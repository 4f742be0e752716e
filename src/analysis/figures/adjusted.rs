//! The Ethics Bowl's judge effects: each model's score adjusted for the judges it met and
//! the side it played, beside its raw mean; each judge's leniency; the side effect. Every
//! estimate with its 95% interval from resampling exchanges, `n` counting exchanges
//! (`adjusted_models.csv`, `judge_leniency.csv`).

use super::{Link, Section, Table, Value};
use crate::analysis::effects::{Adjusted, Estimate};
use crate::analysis::stats::bootstrap::{MIN_CLUSTERS, REPLICATES};

/// An estimate's CSV fields: estimate, low, high, exchanges, judgments.
fn fields(e: &Estimate) -> [Value; 5] {
    [
        Value::number(Some(e.estimate), 3),
        Value::number(e.low, 3),
        Value::number(e.high, 3),
        Value::Count(e.n),
        Value::Count(e.judgments),
    ]
}

const HEAD: [&str; 5] = ["estimate", "low", "high", "exchanges", "judgments"];

/// The section.
pub(super) fn section(a: &Adjusted) -> Section {
    let mut s = Section::new("Scores adjusted for judges and sides");
    s.plain(format!(
        "A linear model of each team's 70-point total with a term for the model, one for the judge and \
         one for the side, fitted by least squares: a model's adjusted score is its points above the \
         average model once the judges it happened to meet and the side it played are taken out; a judge's \
         leniency is its points above the average judge. Intervals: 95% percentile bootstrap over \
         {REPLICATES} resamples of exchanges (a round's debate), so several judges of one exchange count \
         once; n counts exchanges, and an interval needs {MIN_CLUSTERS}. Judgments of a judge's own model \
         are left out ({}).",
        a.self_judgments_left_out
    ));
    if let Some(why) = &a.not_computed {
        s.plain(format!("Not computed: {why}."));
        return s;
    }
    let mut t = Table::new(
        "Adjusted scores",
        [
            "model",
            "adjusted (points above the average model)",
            "raw mean, same scale",
            "judgments",
        ],
    );
    let mut tidy = Vec::new();
    for m in &a.models {
        t.row(
            vec![
                Value::text(&m.model),
                Value::Estimate(m.effect.clone()),
                Value::Estimate(m.raw.clone()),
                Value::Count(m.effect.judgments),
            ],
            Link::player(&m.model),
        );
        let mut row = vec![Value::text(&m.model)];
        row.extend(fields(&m.effect));
        row.extend([
            Value::number(Some(m.raw.estimate), 3),
            Value::number(m.raw.low, 3),
            Value::number(m.raw.high, 3),
        ]);
        tidy.push(row);
    }
    let mut head = vec!["model"];
    head.extend(HEAD);
    head.extend(["raw", "raw_low", "raw_high"]);
    s.table(t.with_tidy("adjusted_models.csv", head, tidy));
    if a.judges.is_empty() {
        s.plain("One judge: its leniency cannot be told from the models' scores.");
    } else {
        let mut t = Table::new(
            "Judge leniency",
            [
                "judge",
                "leniency (points above the average judge)",
                "judgments",
            ],
        );
        let mut tidy = Vec::new();
        for j in &a.judges {
            t.row(
                vec![
                    Value::text(&j.judge),
                    Value::Estimate(j.effect.clone()),
                    Value::Count(j.effect.judgments),
                ],
                Link::judge(&j.judge),
            );
            let mut row = vec![Value::text(&j.judge)];
            row.extend(fields(&j.effect));
            tidy.push(row);
        }
        let mut head = vec!["judge"];
        head.extend(HEAD);
        s.table(t.with_tidy("judge_leniency.csv", head, tidy));
    }
    if let Some(side) = &a.side {
        s.plain(format!(
            "Side effect (Team A minus Team B, on one team's total): {}; {} judgments.",
            Value::Estimate(side.clone()).shown(),
            side.judgments
        ));
    }
    s
}
