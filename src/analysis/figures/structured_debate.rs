//! The structured debate's section: side advantage, win rates read through the bands (a draw
//! is not a win), standings, concessions and fallacies ([`StructuredFigures`]), with
//! `structured_models.csv`. Each judged round's decision briefing is not a figure: the report
//! writes it beside them (`briefings/`).

use super::{Link, Section, Table, Text, Value};
use crate::analysis::structured::{Mean, StructuredFigures};
use crate::analysis::tables::Cell;
use crate::domain::{Fallacy, Standing, TotalBands};

/// A side total with its n (never marked "too few": each is one judgment's reading).
fn mean(m: &Mean) -> Value {
    Value::Mean(Cell::without_interval(m.mean, m.n, false))
}

/// A part of a whole as a percentage, `–` when the whole is nothing.
fn pct(part: usize, whole: usize) -> Value {
    if whole == 0 {
        Value::text("–")
    } else {
        Value::Percent(part as f64 / whole as f64)
    }
}

/// How the totals were read: the bands, in a sentence (the article's when no round says).
fn bands_sentence(bands: &[TotalBands]) -> String {
    let one = |b: &TotalBands| format!("{} (clearly ahead)", b.describe());
    let read: Vec<String> = if bands.is_empty() {
        vec![one(&TotalBands::default())]
    } else {
        bands.iter().map(one).collect()
    };
    format!(
        "Reading the totals, {}; evenly matched is a draw, and a draw is not a win.",
        read.join("; in other rounds, ")
    )
}

/// The section.
pub fn section(f: &StructuredFigures) -> Section {
    let mut s = Section::new("Structured debate");
    s.plain(format!(
        "{} rounds; {} judgments await review and are not counted; {} replies needed the correction prompt, {} were \
         kept as free text; {} rule violations were recorded. A side's total is the mean weighted score of its \
         arguments, computed from the judge's scores. {}",
        f.rounds,
        f.awaiting_review,
        f.corrected_replies,
        f.fallback_replies,
        f.violations,
        bands_sentence(&f.bands)
    ));
    let a = &f.side;
    s.plain(format!(
        "Side advantage: over {} judgments Pro won {} ({} clearly), Con {} ({} clearly), {} evenly matched; Pro's \
         share of the decided ones {}; mean Pro total minus mean Con total {}.",
        a.judgments,
        a.pro_wins,
        a.pro_clear_wins,
        a.con_wins,
        a.con_clear_wins,
        a.ties,
        Value::Share(a.pro_share).shown(),
        a.mean_margin.map_or("–".into(), |m| format!("{m:+.2}"))
    ));
    models(&mut s, f);
    s.plain("Fallacies found in each model's arguments:");
    let mut head = vec!["model"];
    head.extend(Fallacy::ALL.iter().map(|x| x.as_str()));
    let mut t = Table::new("Structured fallacies", head);
    for m in &f.models {
        let mut cells = vec![Value::text(&m.model)];
        cells.extend(
            Fallacy::ALL
                .iter()
                .map(|x| Value::Count(m.fallacies.get(x).copied().unwrap_or(0))),
        );
        t.row(cells, Link::player(&m.model));
    }
    s.table(t);
    s.paragraph(
        Text::plain(
            "Each judged round's decision briefing (key insight, recommendation, open questions, argument trace) is \
             in ",
        )
        .code("briefings/")
        .and("."),
    );
    s
}

/// Each model's results, with `structured_models.csv` (one row per model).
fn models(s: &mut Section, f: &StructuredFigures) {
    let mut t = Table::new(
        "Structured models",
        [
            "model",
            "judgments",
            "wins (clearly)",
            "draws",
            "win rate",
            "total as Pro",
            "total as Con",
            "arguments",
            "upheld",
            "partly upheld",
            "refuted",
            "uncertain",
            "concedes in cross-examination",
        ],
    );
    let mut tidy = Vec::new();
    for m in &f.models {
        let count = |st: Standing| m.standings.get(&st).copied().unwrap_or(0);
        let standing = |st: Standing| pct(count(st), m.assessed_arguments);
        t.row(
            vec![
                Value::text(&m.model),
                Value::Count(m.judgments),
                Value::text(format!("{} ({})", m.wins, m.clear_wins)),
                Value::Count(m.draws),
                m.win_rate.map_or(Value::text("–"), Value::Percent),
                mean(&m.pro_total),
                mean(&m.con_total),
                Value::Count(m.assessed_arguments),
                standing(Standing::Upheld),
                standing(Standing::PartiallyUpheld),
                standing(Standing::Refuted),
                standing(Standing::Uncertain),
                Value::Share(m.concessions),
            ],
            Link::player(&m.model),
        );
        let mut row = vec![
            Value::text(&m.model),
            Value::Count(m.judgments),
            Value::Count(m.wins),
            Value::Count(m.clear_wins),
            Value::Count(m.draws),
            Value::number(m.win_rate, 2),
            mean(&m.pro_total),
            Value::Count(m.pro_total.n),
            mean(&m.con_total),
            Value::Count(m.con_total.n),
            Value::Count(m.assessed_arguments),
            Value::Count(count(Standing::Upheld)),
            Value::Count(count(Standing::PartiallyUpheld)),
            Value::Count(count(Standing::Refuted)),
            Value::Count(count(Standing::Uncertain)),
            Value::Count(m.concessions.hits),
            Value::Count(m.concessions.n),
        ];
        row.extend(
            Fallacy::ALL
                .iter()
                .map(|x| Value::Count(m.fallacies.get(x).copied().unwrap_or(0))),
        );
        tidy.push(row);
    }
    let mut header = vec![
        "model",
        "judgments",
        "wins",
        "clear_wins",
        "draws",
        "win_rate",
        "pro_total",
        "n_pro",
        "con_total",
        "n_con",
        "assessed_arguments",
        "upheld",
        "partially_upheld",
        "refuted",
        "uncertain",
        "concessions",
        "cross_answers",
    ];
    header.extend(Fallacy::ALL.iter().map(|f| f.as_str()));
    s.table(t.with_tidy("structured_models.csv", header, tidy));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::qa::Proportion;
    use crate::analysis::structured::{SideAdvantage, StructuredModel};

    #[test]
    fn a_model_row_reads_shares_of_its_arguments_and_links_to_its_rounds() {
        let m = StructuredModel {
            model: "m".into(),
            judgments: 4,
            wins: 3,
            clear_wins: 1,
            draws: 1,
            win_rate: Some(0.75),
            pro_total: Mean {
                mean: Some(6.5),
                n: 2,
            },
            con_total: Mean::default(),
            fallacies: [(Fallacy::StrawMan, 2)].into_iter().collect(),
            standings: [(Standing::Upheld, 1), (Standing::Refuted, 3)]
                .into_iter()
                .collect(),
            assessed_arguments: 4,
            concessions: Proportion::new(1, 2),
        };
        let f = StructuredFigures {
            rounds: 4,
            bands: Vec::new(),
            awaiting_review: 0,
            corrected_replies: 0,
            fallback_replies: 0,
            violations: 0,
            models: vec![m],
            side: SideAdvantage {
                judgments: 4,
                pro_wins: 3,
                pro_clear_wins: 1,
                con_wins: 0,
                con_clear_wins: 0,
                ties: 1,
                pro_share: Proportion::new(3, 3),
                mean_margin: Some(0.5),
            },
        };
        let s = section(&f);
        let md = super::super::markdown(std::slice::from_ref(&s));
        assert!(
            md.contains("| m | 4 | 3 (1) | 1 | 75% | 6.50 (n=2) | – | 4 | 25% | 0% | 75% | 0% |"),
            "{md}"
        );
        assert!(md.contains("| m | 2 | 0 | 0 | 0 | 0 | 0 | 0 |"), "{md}");
        assert!(md.contains("is in `briefings/`."), "{md}");
        let tables: Vec<&Table> = s.tables().collect();
        assert!(tables.iter().all(|t| t.rows[0].link == Link::player("m")));
        let tidy = tables[0].tidy.as_ref().unwrap();
        let row: Vec<String> = tidy.rows[0].iter().map(Value::csv).collect();
        assert_eq!(
            row[..17],
            [
                "m", "4", "3", "1", "1", "0.75", "6.5", "2", "", "0", "4", "1", "0", "3", "0", "1",
                "2"
            ]
        );
    }
}
