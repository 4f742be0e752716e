//! The structured debate's section: side advantage, win rates read through the bands (a draw
//! is not a win), standings, concessions and fallacies ([`StructuredFigures`]), with
//! `structured_models.csv`. Each judged round's decision briefing is not a figure: the report
//! writes it beside them (`briefings/`).

use super::{Link, Section, Style, Table, Text, Value};
use crate::analysis::qa::Proportion;
use crate::analysis::stats::bootstrap::MIN_CLUSTERS;
use crate::analysis::stats::statistic::Statistic;
use crate::analysis::structured::{StructuredFigures, StructuredModel};
use crate::domain::{Fallacy, Standing, TotalBands};

/// How the totals were read: the bands, in a sentence (the article's when no round says).
fn bands_sentence(bands: &[TotalBands]) -> String {
    let one = |b: &TotalBands| format!("{} (clearly ahead)", b.describe());
    let read: Vec<String> = if bands.is_empty() {
        vec![one(&TotalBands::default())]
    } else {
        bands.iter().map(one).collect()
    };
    format!(
        "Reading the totals, {}; evenly matched is a draw, and a win rate counts a draw as half a win (the usual \
         convention; the draws are also shown).",
        read.join("; in other rounds, ")
    )
}

/// A statistic in a cell, `–` without a value.
fn statistic(st: &Statistic, style: Style) -> Value {
    Value::Statistic(*st, style)
}

/// The section.
pub fn section(f: &StructuredFigures) -> Section {
    let mut s = Section::new("Structured debate");
    s.plain(format!(
        "{} rounds; {} judgments await review and are not counted; {} replies needed the correction prompt, {} were \
         kept as free text; {} rule violations were recorded. A side's total is the mean weighted score of its \
         arguments, computed from the judge's scores. {} The unit of replication is the round: the judges or \
         panel members of one round, and the arguments and answers within it, are not independent, so every 95% \
         interval resamples or counts rounds, and n counts rounds (a share's n also gives what it counts); a \
         bootstrap interval needs {MIN_CLUSTERS} rounds.",
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
        statistic(&a.mean_margin, Style::Signed(2)).shown()
    ));
    let mut ranked: Vec<&StructuredModel> = f.models.iter().collect();
    ranked.sort_by(|x, y| {
        let rate = |m: &StructuredModel| m.win_rate.value.unwrap_or(f64::NEG_INFINITY);
        rate(y)
            .total_cmp(&rate(x))
            .then_with(|| x.model.cmp(&y.model))
    });
    models(&mut s, &ranked);
    if let Some(order) = order_sentence(&ranked) {
        s.plain(order);
    }
    standings(&mut s, &ranked);
    fallacies(&mut s, &ranked);
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

/// Whether the win rates of two neighbours in the order have overlapping intervals (or one
/// has none, so nothing separates them).
fn overlap(upper: &Statistic, lower: &Statistic) -> bool {
    match (upper.low, lower.high) {
        (Some(l), Some(h)) => l <= h,
        _ => true,
    }
}

/// Where the order by win rate is not established: the neighbours whose intervals overlap.
fn order_sentence(ranked: &[&StructuredModel]) -> Option<String> {
    // Models without a win rate sit at the end, out of the order.
    let rated: Vec<&StructuredModel> = ranked
        .iter()
        .copied()
        .filter(|m| m.win_rate.value.is_some())
        .collect();
    if rated.len() < 2 {
        return None;
    }
    let pairs = rated.len() - 1;
    let unsettled: Vec<String> = rated
        .windows(2)
        .filter(|w| overlap(&w[0].win_rate, &w[1].win_rate))
        .map(|w| format!("{} and {}", w[0].model, w[1].model))
        .collect();
    Some(if unsettled.is_empty() {
        "Ordered by win rate; no two neighbours' 95% intervals overlap, so the order holds at each step.".into()
    } else {
        format!(
            "Ordered by win rate; where neighbours' 95% intervals overlap (or one has none), the order between them \
             is not established: {} ({} of {pairs} neighbouring pair{}).",
            unsettled.join("; "),
            unsettled.len(),
            if pairs == 1 { "" } else { "s" }
        )
    })
}

/// Each model's results, with `structured_models.csv` (one row per model).
fn models(s: &mut Section, ranked: &[&StructuredModel]) {
    let mut t = Table::new(
        "Structured models",
        [
            "model",
            "judgments",
            "wins (clearly)",
            "draws",
            "losses",
            "win rate (draws count half)",
            "total as Pro",
            "total as Con",
            "concedes in cross-examination",
        ],
    );
    let mut tidy = Vec::new();
    for m in ranked {
        t.row(
            vec![
                Value::text(&m.model),
                Value::Count(m.judgments),
                Value::text(format!("{} ({})", m.wins, m.clear_wins)),
                Value::Count(m.draws),
                Value::Count(m.losses),
                statistic(&m.win_rate, Style::Percent),
                Value::Mean(m.pro_total),
                Value::Mean(m.con_total),
                Value::Share(m.concessions),
            ],
            Link::player(&m.model),
        );
        let count = |st: Standing| m.standings.get(&st).copied().unwrap_or(0);
        let mut row = vec![
            Value::text(&m.model),
            Value::Count(m.judgments),
            Value::Count(m.rounds),
            Value::Count(m.wins),
            Value::Count(m.clear_wins),
            Value::Count(m.draws),
            Value::Count(m.losses),
            Value::number(m.win_rate.value, 4),
            Value::number(m.win_rate.low, 4),
            Value::number(m.win_rate.high, 4),
        ];
        for c in [&m.pro_total, &m.con_total] {
            row.extend([
                Value::number(c.mean, 4),
                Value::Count(c.n),
                Value::number(c.low, 4),
                Value::number(c.high, 4),
                Value::Count(c.units),
            ]);
        }
        row.extend([
            Value::Count(m.assessed_arguments),
            Value::Count(count(Standing::Upheld)),
            Value::Count(count(Standing::PartiallyUpheld)),
            Value::Count(count(Standing::Refuted)),
            Value::Count(count(Standing::Uncertain)),
            Value::Count(m.concessions.hits),
            Value::Count(m.concessions.n),
            Value::number(m.concessions.share, 4),
            Value::number(m.concessions.low, 4),
            Value::number(m.concessions.high, 4),
            Value::Count(m.concessions.units),
            Value::number(m.fallacies_per_argument.value, 4),
            Value::number(m.fallacies_per_argument.low, 4),
            Value::number(m.fallacies_per_argument.high, 4),
            Value::Count(m.fallacies_per_argument.n),
        ]);
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
        "rounds",
        "wins",
        "clear_wins",
        "draws",
        "losses",
        "win_rate",
        "win_rate_low",
        "win_rate_high",
        "pro_total",
        "n_pro",
        "pro_total_low",
        "pro_total_high",
        "pro_rounds",
        "con_total",
        "n_con",
        "con_total_low",
        "con_total_high",
        "con_rounds",
        "assessed_arguments",
        "upheld",
        "partially_upheld",
        "refuted",
        "uncertain",
        "concessions",
        "cross_answers",
        "concession_rate",
        "concession_low",
        "concession_high",
        "concession_rounds",
        "fallacies_per_argument",
        "fallacies_per_argument_low",
        "fallacies_per_argument_high",
        "fallacy_rounds",
    ];
    header.extend(Fallacy::ALL.iter().map(|f| f.as_str()));
    s.table(t.with_tidy("structured_models.csv", header, tidy));
}

/// How each model's arguments stood, with `structured_standings.csv` (one row per model and
/// standing).
fn standings(s: &mut Section, ranked: &[&StructuredModel]) {
    s.plain(
        "How each model's arguments stood: the share of the judges' assessments of its arguments (each judge's \
         assessment counts; n gives the assessments and the rounds they came from).",
    );
    let mut t = Table::new(
        "Structured standings",
        [
            "model",
            "assessments",
            "upheld",
            "partly upheld",
            "refuted",
            "uncertain",
        ],
    );
    let mut tidy = Vec::new();
    for m in ranked {
        let share = |st: Standing| m.standing_shares.get(&st).copied().unwrap_or_default();
        let mut cells = vec![Value::text(&m.model), Value::Count(m.assessed_arguments)];
        cells.extend(Standing::ALL.iter().map(|st| Value::Share(share(*st))));
        t.row(cells, Link::player(&m.model));
        for st in Standing::ALL {
            let p: Proportion = share(st);
            tidy.push(vec![
                Value::text(&m.model),
                Value::text(st.as_str().to_lowercase()),
                Value::Count(p.hits),
                Value::Count(p.n),
                Value::number(p.share, 4),
                Value::number(p.low, 4),
                Value::number(p.high, 4),
                Value::Count(p.units),
            ]);
        }
    }
    s.table(t.with_tidy(
        "structured_standings.csv",
        [
            "model",
            "standing",
            "count",
            "assessments",
            "share",
            "low",
            "high",
            "rounds",
        ],
        tidy,
    ));
}

/// The fallacies found in each model's arguments: counts by type, and all types per argument
/// assessed with its interval.
fn fallacies(s: &mut Section, ranked: &[&StructuredModel]) {
    s.plain(
        "Fallacies found in each model's arguments, by type (counts), and all types per argument assessed (its \
         interval resampling rounds):",
    );
    let mut head = vec!["model"];
    head.extend(Fallacy::ALL.iter().map(|x| x.as_str()));
    head.push("per argument assessed");
    let mut t = Table::new("Structured fallacies", head);
    for m in ranked {
        let mut cells = vec![Value::text(&m.model)];
        cells.extend(
            Fallacy::ALL
                .iter()
                .map(|x| Value::Count(m.fallacies.get(x).copied().unwrap_or(0))),
        );
        cells.push(statistic(&m.fallacies_per_argument, Style::Decimals(2)));
        t.row(cells, Link::player(&m.model));
    }
    s.table(t);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::qa::{Counted, Proportion};
    use crate::analysis::structured::{SideAdvantage, StructuredModel};
    use crate::analysis::tables::Cell;

    fn model(name: &str, win_rate: Statistic) -> StructuredModel {
        let share = |hits| Proportion::new(hits, 4).counting(Counted::AssessmentsOfRounds);
        StructuredModel {
            model: name.into(),
            judgments: 4,
            rounds: 4,
            wins: 3,
            clear_wins: 1,
            draws: 1,
            losses: 0,
            win_rate,
            pro_total: Cell::clustered(&[(0, 6.0), (1, 7.0)]),
            con_total: Cell::clustered(&[]),
            fallacies: [(Fallacy::StrawMan, 2)].into_iter().collect(),
            fallacies_per_argument: Statistic::without_interval(Some(0.5), 4),
            standings: [(Standing::Upheld, 1), (Standing::Refuted, 3)]
                .into_iter()
                .collect(),
            standing_shares: [
                (Standing::Upheld, share(1)),
                (Standing::PartiallyUpheld, share(0)),
                (Standing::Refuted, share(3)),
                (Standing::Uncertain, share(0)),
            ]
            .into_iter()
            .collect(),
            assessed_arguments: 4,
            concessions: Proportion::new(1, 2),
        }
    }

    fn figures(models: Vec<StructuredModel>) -> StructuredFigures {
        StructuredFigures {
            rounds: 4,
            bands: Vec::new(),
            awaiting_review: 0,
            corrected_replies: 0,
            fallback_replies: 0,
            violations: 0,
            models,
            side: SideAdvantage {
                judgments: 4,
                pro_wins: 3,
                pro_clear_wins: 1,
                con_wins: 0,
                con_clear_wins: 0,
                ties: 1,
                pro_share: Proportion::new(3, 3),
                mean_margin: Statistic {
                    value: Some(0.5),
                    low: Some(-0.25),
                    high: Some(1.25),
                    n: 12,
                },
            },
        }
    }

    #[test]
    fn a_model_row_reads_its_win_rate_with_draws_as_half_and_links_to_its_rounds() {
        let rate = Statistic::without_interval(Some(0.875), 4);
        let s = section(&figures(vec![model("m", rate)]));
        let md = super::super::markdown(std::slice::from_ref(&s));
        assert!(
            md.contains(
                "| m | 4 | 3 (1) | 1 | 0 | 88% (n=4, too few for an interval) | 6.50 (n=2, too few) | – | 50% [9–91%] (n=2) |"
            ),
            "{md}"
        );
        assert!(
            md.contains("| m | 4 | 25% [5–70%] (n=4) | 0% [0–49%] (n=4) | 75% [30–95%] (n=4) |"),
            "{md}"
        );
        assert!(
            md.contains("| m | 2 | 0 | 0 | 0 | 0 | 0 | 0 | 0.50 (n=4, too few"),
            "{md}"
        );
        assert!(md.contains("a draw as half a win"), "{md}");
        assert!(
            md.contains("mean Pro total minus mean Con total +0.50 [-0.25, +1.25] (n=12)."),
            "{md}"
        );
        assert!(md.contains("is in `briefings/`."), "{md}");
        let tables: Vec<&Table> = s.tables().collect();
        assert!(tables.iter().all(|t| t.rows[0].link == Link::player("m")));
        let tidy = tables[0].tidy.as_ref().unwrap();
        let field = |name: &str| {
            let at = tidy.header.iter().position(|h| h == name).unwrap();
            tidy.rows[0][at].csv()
        };
        assert_eq!(
            [
                field("draws"),
                field("losses"),
                field("win_rate"),
                field("rounds"),
                field("pro_total"),
                field("pro_rounds"),
                field("concession_rate")
            ],
            ["1", "0", "0.875", "4", "6.5", "2", "0.5"]
        );
        let standings = tables[1].tidy.as_ref().unwrap();
        assert_eq!(standings.file, "structured_standings.csv");
        let row: Vec<String> = standings.rows[2].iter().map(Value::csv).collect();
        assert_eq!(row[..5], ["m", "refuted", "3", "4", "0.75"]);
    }

    #[test]
    fn the_table_is_ordered_by_win_rate_and_says_which_neighbours_overlap() {
        let at = |v: f64, l: f64, h: f64| Statistic {
            value: Some(v),
            low: Some(l),
            high: Some(h),
            n: 12,
        };
        let f = figures(vec![
            model("a", at(0.4, 0.3, 0.5)),
            model("b", at(0.8, 0.7, 0.9)),
            model("c", at(0.45, 0.35, 0.55)),
        ]);
        let s = section(&f);
        let order: Vec<String> = s
            .tables()
            .next()
            .unwrap()
            .rows
            .iter()
            .map(|r| r.cells[0].shown())
            .collect();
        assert_eq!(order, ["b", "c", "a"]);
        let md = super::super::markdown(std::slice::from_ref(&s));
        assert!(
            md.contains(
                "the order between them is not established: c and a (1 of 2 neighbouring pairs)."
            ),
            "{md}"
        );
        let apart = figures(vec![
            model("a", at(0.2, 0.1, 0.3)),
            model("b", at(0.8, 0.7, 0.9)),
        ]);
        let md = super::super::markdown(&[section(&apart)]);
        assert!(
            md.contains("no two neighbours' 95% intervals overlap"),
            "{md}"
        );
    }
}
