//! The question-answer debate's section: judge accuracy by format, against the baselines per
//! judge and level, per configuration, by position, debaters, the three-way baselines and
//! calibration ([`QaFigures`]), with `qa_accuracy.csv`, `qa_lift.csv`, `qa_debaters.csv`,
//! `qa_three_way.csv` and the accuracy chart. Every estimate carries its 95% interval and n
//! in items, the unit of replication (a share's n also gives its judgments or quotes).

use super::{Link, LinkKey, Section, Style, Table, Value};
use crate::analysis::charts;
use crate::analysis::qa::{ConfigAccuracy, Proportion, QaFigures};
use crate::analysis::stats::bootstrap::MIN_CLUSTERS;
use crate::analysis::stats::statistic::Statistic;
use crate::domain::{Label, QaFormat};

/// A paired difference in points with its interval, or why there is none: one of the two
/// formats was not judged (`first` and `second` name them).
fn difference(d: &Statistic, first: QaFormat, second: QaFormat) -> Value {
    if d.value.is_some() {
        return Value::Statistic(*d, Style::Points);
    }
    Value::text(format!(
        "– (needs judgments in both {} and {})",
        format_name(first),
        format_name(second)
    ))
}

fn format_name(f: QaFormat) -> &'static str {
    match f {
        QaFormat::Debate => "debate",
        QaFormat::Consultancy => "consultancy",
        QaFormat::Naive => "naive judge",
        QaFormat::Expert => "expert judge",
        QaFormat::ExpertCot => "expert judge (reasoning first)",
        QaFormat::ThreeWay => "three-way expert (label only)",
        QaFormat::ThreeWayArgued => "three-way expert (thinking and argument first)",
    }
}

/// The rounds of one format.
fn format_link(f: QaFormat) -> Option<Link> {
    Some(Link(vec![(LinkKey::Format, f.as_str().into())]))
}

/// A share or `–` when there is none.
fn share_or_dash(p: Option<&Proportion>) -> Value {
    p.map_or(Value::text("–"), |p| Value::Share(*p))
}

/// A proportion's CSV fields: correct, n, accuracy, Wilson low and high, items.
fn proportion_fields(p: &Proportion) -> [Value; 6] {
    [
        Value::Count(p.hits),
        Value::Count(p.n),
        Value::number(p.share, 3),
        Value::number(p.low, 3),
        Value::number(p.high, 3),
        Value::Count(p.units),
    ]
}

/// A share's CSV fields in a wide row: the share, its interval, its trials and units.
fn share_fields(p: &Proportion) -> [Value; 5] {
    [
        Value::number(p.share, 3),
        Value::number(p.low, 3),
        Value::number(p.high, 3),
        Value::Count(p.n),
        Value::Count(p.units),
    ]
}

/// A statistic's CSV fields: its value, its interval, its units.
fn statistic_fields(st: &Statistic) -> [Value; 4] {
    [
        Value::number(st.value, 4),
        Value::number(st.low, 4),
        Value::number(st.high, 4),
        Value::Count(st.n),
    ]
}

/// The section.
pub fn section(q: &QaFigures) -> Section {
    let mut s = Section::new("Question-answer debate: judge accuracy");
    s.plain(format!(
        "{} rounds. Accuracy is the share of usable judgments (parsed, or corrected by hand) that chose the \
         correct answer, with a Wilson 95% interval that counts items, the unit of replication (the several \
         judgments of one item are not independent; n gives both); {} judgments await review and are not \
         counted.",
        q.rounds, q.awaiting_review
    ));
    let mut t = Table::new("QA accuracy by format", ["format", "accuracy"]);
    for (f, p) in &q.by_format {
        t.row(
            vec![Value::text(format_name(*f)), Value::Share(*p)],
            format_link(*f),
        );
    }
    s.table(t);
    s.chart("qa_accuracy.svg", charts::accuracy_chart(q), true);
    baselines(&mut s, q);
    configurations(&mut s, q);
    positions(&mut s, q);
    debaters(&mut s, q);
    three_way(&mut s, q);
    calibration(&mut s, q);
    s
}

fn baselines(s: &mut Section, q: &QaFigures) {
    s.heading("Debate against the baselines, per judge and level");
    s.plain(format!(
        "Lift over naive: debate accuracy minus the naive judge's; gap to expert: the expert judge's minus \
         debate's, in percentage points. Both are measured on the same items, so each 95% interval is a paired \
         cluster bootstrap: items are drawn with replacement and both accuracies recomputed from the drawn \
         items' judgments; n counts items (no interval under {MIN_CLUSTERS})."
    ));
    let formats: Vec<QaFormat> = QaFormat::ALL
        .into_iter()
        .filter(|f| q.by_format.contains_key(f))
        .collect();
    let mut head = vec!["judge", "level"];
    head.extend(formats.iter().map(|f| format_name(*f)));
    head.extend(["lift over naive", "gap to expert"]);
    let mut t = Table::new("QA against the baselines", head);
    let mut tidy = Vec::new();
    for l in &q.lifts {
        let mut cells = vec![Value::text(&l.judge), Value::text(&l.level)];
        cells.extend(formats.iter().map(|f| share_or_dash(l.formats.get(f))));
        cells.extend([
            difference(&l.lift_over_naive, QaFormat::Debate, QaFormat::Naive),
            difference(&l.gap_to_expert, QaFormat::Expert, QaFormat::Debate),
        ]);
        t.row(
            cells,
            Link::judge(&l.judge).map(|k| k.and(LinkKey::Level, &l.level)),
        );
        for (comparison, st) in [
            ("debate_minus_naive", &l.lift_over_naive),
            ("expert_minus_debate", &l.gap_to_expert),
        ] {
            let mut row = vec![
                Value::text(&l.judge),
                Value::text(&l.level),
                Value::text(comparison),
            ];
            row.extend(statistic_fields(st));
            tidy.push(row);
        }
    }
    s.table(t.with_tidy(
        "qa_lift.csv",
        [
            "judge",
            "level",
            "comparison",
            "difference",
            "low",
            "high",
            "items",
        ],
        tidy,
    ));
}

/// The rounds of one configuration: its format, debaters (none for the baselines), judge
/// and level (the relation follows from the debaters and the judge).
fn configuration_link(c: &ConfigAccuracy) -> Option<Link> {
    let mut link = format_link(c.format)?
        .and(LinkKey::Judge, &c.judge)
        .and(LinkKey::Level, &c.level);
    if !c.debaters.is_empty() {
        link = link.and(LinkKey::Debaters, &c.debaters);
    }
    Some(link)
}

fn configurations(s: &mut Section, q: &QaFigures) {
    s.heading("Accuracy per configuration");
    let mut t = Table::new(
        "QA accuracy per configuration",
        [
            "format", "debaters", "judge", "relation", "level", "accuracy",
        ],
    );
    let mut tidy = Vec::new();
    for c in &q.configurations {
        let relation = c.relation.clone().unwrap_or_default();
        t.row(
            vec![
                Value::text(format_name(c.format)),
                Value::text(&c.debaters),
                Value::text(&c.judge),
                Value::text(&relation),
                Value::text(&c.level),
                Value::Share(c.accuracy),
            ],
            configuration_link(c),
        );
        let mut row = vec![
            Value::text(c.format.as_str()),
            Value::text(&c.debaters),
            Value::text(&c.judge),
            Value::Text(relation),
            Value::text(&c.level),
        ];
        row.extend(proportion_fields(&c.accuracy));
        tidy.push(row);
    }
    s.table(t.with_tidy(
        "qa_accuracy.csv",
        [
            "format",
            "debaters",
            "judge",
            "relation",
            "level",
            "correct",
            "n",
            "accuracy",
            "wilson_low",
            "wilson_high",
            "items",
        ],
        tidy,
    ));
}

fn positions(s: &mut Section, q: &QaFigures) {
    if q.positions.is_empty() {
        return;
    }
    s.heading("By which side was correct, and by position");
    let mut t = Table::new(
        "QA by side and position",
        [
            "format",
            "correct answer was A's",
            "was B's",
            "correct debater read first",
            "read second",
        ],
    );
    for p in &q.positions {
        t.row(
            vec![
                Value::text(format_name(p.format)),
                Value::Share(p.correct_a),
                Value::Share(p.correct_b),
                Value::Share(p.correct_first),
                Value::Share(p.correct_second),
            ],
            format_link(p.format),
        );
    }
    s.table(t);
}

/// Whether a debater's persuasiveness rests on enough items for its interval: under
/// [`MIN_CLUSTERS`] the resampled items are too few to stand for the spread, as everywhere
/// else in the report.
fn enough(d: &crate::analysis::qa::DebaterFigures) -> bool {
    d.persuasiveness_items >= MIN_CLUSTERS
}

/// The debaters' table; its CSV is written even when no debater is listed (header only).
fn debaters(s: &mut Section, q: &QaFigures) {
    if !q.debaters.is_empty() {
        s.heading("Debaters");
        s.plain(format!(
            "Win rate: how often the judge chose the debater's answer. Quotes verified: the share of its quotes \
             found in the game, its interval counting items (one debater's quotes on one item are not \
             independent). Persuasiveness: Bradley–Terry over cross-play debates won (Elo scale, 95% interval \
             from resampling items, none under {MIN_CLUSTERS} items; n gives the judgments and the items). \
             Self-play accuracy: judge accuracy in debates where the model argued both sides; the paper's finding \
             is that more persuasive debaters make judges more accurate."
        ));
    }
    let mut t = Table::new(
        "QA debaters",
        [
            "model",
            "wins when correct",
            "wins when incorrect",
            "quotes verified",
            "cut at the word limit",
            "persuasiveness",
            "self-play accuracy",
        ],
    );
    let mut tidy = Vec::new();
    for d in &q.debaters {
        let rating = d.persuasiveness.as_ref();
        t.row(
            vec![
                Value::text(&d.model),
                Value::Share(d.wins_when_correct),
                Value::Share(d.wins_when_incorrect),
                Value::Share(d.quotes_verified),
                Value::Count(d.word_limit_violations as usize),
                Value::text(rating.map_or("–".into(), |r| {
                    let items = if d.persuasiveness_items == 1 {
                        "item"
                    } else {
                        "items"
                    };
                    let n = format!(
                        "n={} judgments, {} {items}",
                        r.matches, d.persuasiveness_items
                    );
                    match (r.low, r.high) {
                        (Some(low), Some(high)) if enough(d) => {
                            format!("{:.0} [{low:.0}–{high:.0}] ({n})", r.rating)
                        }
                        _ => format!("{:.0} ({n}, too few for an interval)", r.rating),
                    }
                })),
                Value::Share(d.self_play_accuracy),
            ],
            Link::player(&d.model),
        );
        let mut row = vec![Value::text(&d.model)];
        row.extend(share_fields(&d.wins_when_correct));
        row.extend(share_fields(&d.wins_when_incorrect));
        row.extend(share_fields(&d.quotes_verified));
        row.extend([
            Value::Count(d.word_limit_violations as usize),
            Value::number(rating.map(|r| r.rating), 0),
            Value::number(rating.filter(|_| enough(d)).and_then(|r| r.low), 0),
            Value::number(rating.filter(|_| enough(d)).and_then(|r| r.high), 0),
            Value::Count(rating.map_or(0, |r| r.matches)),
            Value::Count(d.persuasiveness_items),
        ]);
        row.extend(share_fields(&d.self_play_accuracy));
        tidy.push(row);
    }
    s.table(t.with_tidy(
        "qa_debaters.csv",
        [
            "model",
            "win_rate_correct",
            "win_rate_correct_low",
            "win_rate_correct_high",
            "n_correct",
            "items_correct",
            "win_rate_incorrect",
            "win_rate_incorrect_low",
            "win_rate_incorrect_high",
            "n_incorrect",
            "items_incorrect",
            "quote_verification_rate",
            "quote_verification_low",
            "quote_verification_high",
            "quotes",
            "items_quoted",
            "word_limit_violations",
            "persuasiveness",
            "persuasiveness_low",
            "persuasiveness_high",
            "n_persuasiveness",
            "items_persuasiveness",
            "self_play_accuracy",
            "self_play_low",
            "self_play_high",
            "n_self_play",
            "items_self_play",
        ],
        tidy,
    ));
    if !q.debaters.is_empty() {
        s.plain(format!(
            "Correlation of persuasiveness with self-play accuracy across models: {}.",
            correlation(&q.persuasiveness_accuracy_correlation)
        ));
    }
}

/// The correlation across models in words: its value and interval, or why either is
/// missing.
fn correlation(r: &Statistic) -> String {
    let models = |n: usize| format!("{n} model{}", if n == 1 { "" } else { "s" });
    match r.value {
        None if r.n < 3 => format!(
            "– (needs three models with both a persuasiveness rating and self-play accuracy; {} {} both)",
            models(r.n),
            if r.n == 1 { "has" } else { "have" }
        ),
        None => format!(
            "– (one of the two does not vary across the {})",
            models(r.n)
        ),
        Some(_) if r.low.is_some() => format!(
            "Pearson's r = {}, its interval from resampling models and, within each resample, the items \
             both figures were measured on",
            Value::Statistic(*r, Style::Signed(2)).shown()
        ),
        Some(v) => format!(
            "Pearson's r = {v:+.2} over {}, no interval: the models, not the items, are this correlation's \
             units, and an interval needs {MIN_CLUSTERS} of them",
            models(r.n)
        ),
    }
}

/// The three-way baselines, with `qa_three_way.csv` (per format and judge: a row over every
/// item, its `correct_label` empty, then a row per correct label).
fn three_way(s: &mut Section, q: &QaFigures) {
    if q.three_way.is_empty() {
        return;
    }
    s.heading("Three-way baselines (the source's): proved, disproved or unknown");
    s.plain(
        "The judge sees the game and labels the goal; accuracy is over three labels (chance is 33%), with a \
         Wilson 95% interval, overall and on the items of each correct label.",
    );
    let mut t = Table::new(
        "QA three-way baselines",
        [
            "format",
            "judge",
            "accuracy",
            "on proved",
            "on disproved",
            "on unknown",
            "labels given (p/d/u)",
        ],
    );
    let mut tidy = Vec::new();
    for w in &q.three_way {
        let on = |l: Label| share_or_dash(w.by_label.get(&l));
        let given = |l: Label| w.given.get(&l).copied().unwrap_or(0);
        t.row(
            vec![
                Value::text(format_name(w.format)),
                Value::text(&w.judge),
                Value::Share(w.accuracy),
                on(Label::Proved),
                on(Label::Disproved),
                on(Label::Unknown),
                Value::text(format!(
                    "{}/{}/{}",
                    given(Label::Proved),
                    given(Label::Disproved),
                    given(Label::Unknown)
                )),
            ],
            format_link(w.format).map(|l| l.and(LinkKey::Judge, &w.judge)),
        );
        let overall = (String::new(), &w.accuracy);
        for (label, p) in
            std::iter::once(overall).chain(w.by_label.iter().map(|(l, p)| (l.as_str().into(), p)))
        {
            let mut row = vec![
                Value::text(w.format.as_str()),
                Value::text(&w.judge),
                Value::Text(label),
            ];
            row.extend(proportion_fields(p));
            tidy.push(row);
        }
    }
    s.table(t.with_tidy(
        "qa_three_way.csv",
        [
            "format",
            "judge",
            "correct_label",
            "correct",
            "n",
            "accuracy",
            "wilson_low",
            "wilson_high",
            "items",
        ],
        tidy,
    ));
}

fn calibration(s: &mut Section, q: &QaFigures) {
    s.heading("Calibration of judges' confidence");
    s.plain(
        "Mean stated: the judges' mean confidence in the bin, with its 95% interval counting items \
         (cluster-robust); it places the bin on the calibration curve, and the bin's bounds hold it. Accuracy: \
         how often those choices were right.",
    );
    let mut t = Table::new(
        "QA calibration",
        ["stated confidence", "mean stated", "accuracy"],
    );
    for b in &q.calibration {
        t.row(
            vec![
                Value::text(format!("{:.0}–{:.0}", b.low, b.high)),
                Value::Mean(b.mean_confidence),
                Value::Share(b.accuracy),
            ],
            // A bin no judge's confidence fell in has no rounds to open.
            b.mean_confidence.mean.map(|_| {
                Link(vec![(
                    LinkKey::Confidence,
                    format!("{:.0}-{:.0}", b.low, b.high),
                )])
            }),
        );
    }
    s.table(t);
    if let Some(w) = &q.both_wrong {
        s.plain(format!(
            "{} judgments were on items where both answers were wrong: mean confidence {} against {} when one \
             answer was right (n counts items; a judge that notices should be less sure).",
            w.n,
            Value::Mean(w.mean_confidence).shown(),
            Value::Mean(w.mean_confidence_otherwise).shown()
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::qa::{CalibrationBin, DebaterFigures, Lift};
    use crate::analysis::tables::Cell;

    #[test]
    fn rows_link_to_their_rounds_and_the_debaters_csv_is_kept_without_debaters() {
        let p = Proportion::new(3, 4);
        let q = QaFigures {
            rounds: 4,
            awaiting_review: 0,
            by_format: [(QaFormat::Debate, p)].into_iter().collect(),
            configurations: Vec::new(),
            lifts: vec![Lift {
                judge: "j".into(),
                level: "L".into(),
                formats: [(QaFormat::Debate, p)].into_iter().collect(),
                lift_over_naive: Statistic {
                    value: Some(0.2083),
                    low: Some(0.05),
                    high: Some(0.38),
                    n: 12,
                },
                gap_to_expert: Statistic::default(),
            }],
            positions: Vec::new(),
            debaters: Vec::new(),
            persuasiveness_accuracy_correlation: Statistic::without_interval(None, 2),
            calibration: vec![CalibrationBin {
                low: 90.0,
                high: 100.0,
                mean_confidence: Cell::clustered(&[(0, 94.0), (1, 96.0), (2, 95.0)]),
                accuracy: p,
            }],
            both_wrong: None,
            three_way: Vec::new(),
        };
        let s = section(&q);
        let md = super::super::markdown(std::slice::from_ref(&s));
        assert!(md.contains("| debate | 75% [30–95%] (n=4) |"), "{md}");
        assert!(
            md.contains("| 90–100 | 95.00 [92.52, 97.48] (n=3) | 75%"),
            "{md}"
        );
        assert!(
            md.contains(
                "| j | L | 75% [30–95%] (n=4) | +21 pts [+5, +38] (n=12) | – (needs judgments in both expert judge and debate) |"
            ),
            "{md}"
        );
        assert!(!md.contains("### Debaters"), "{md}");
        let tables: Vec<&Table> = s.tables().collect();
        assert_eq!(
            tables[0].rows[0].link,
            Some(Link(vec![(LinkKey::Format, "debate".into())]))
        );
        let calibration = tables.last().unwrap();
        assert_eq!(
            calibration.rows[0]
                .link
                .as_ref()
                .and_then(|l| l.get(LinkKey::Confidence)),
            Some("90-100")
        );
        let files: Vec<&str> = tables
            .iter()
            .filter_map(|t| t.tidy.as_ref().map(|t| t.file.as_str()))
            .collect();
        assert_eq!(files, ["qa_lift.csv", "qa_accuracy.csv", "qa_debaters.csv"]);
        let lift = tables[1].tidy.as_ref().unwrap();
        let row: Vec<String> = lift.rows[0].iter().map(Value::csv).collect();
        assert_eq!(
            row,
            [
                "j",
                "L",
                "debate_minus_naive",
                "0.2083",
                "0.05",
                "0.38",
                "12"
            ]
        );

        let with = QaFigures {
            debaters: vec![DebaterFigures {
                model: "m".into(),
                wins_when_correct: p,
                wins_when_incorrect: p,
                quotes_verified: p,
                word_limit_violations: 1,
                persuasiveness: None,
                persuasiveness_items: 0,
                self_play_accuracy: Proportion::default(),
            }],
            ..q
        };
        let md = super::super::markdown(&[section(&with)]);
        assert!(
            md.contains(
                "| m | 75% [30–95%] (n=4) | 75% [30–95%] (n=4) | 75% [30–95%] (n=4) | 1 | – | – |"
            ),
            "{md}"
        );
        assert!(
            md.contains("– (needs three models with both a persuasiveness rating and self-play accuracy; 2 models have both)"),
            "{md}"
        );
        let r = Statistic::without_interval(Some(0.5), 4);
        assert_eq!(
            correlation(&r),
            "Pearson's r = +0.50 over 4 models, no interval: the models, not the items, are this correlation's \
             units, and an interval needs 10 of them"
        );
    }
}
