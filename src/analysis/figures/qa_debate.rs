//! The question-answer debate's section: judge accuracy by format, against the baselines per
//! judge and level, per configuration, by position, debaters, the three-way baselines and
//! calibration ([`QaFigures`]), with `qa_accuracy.csv`, `qa_debaters.csv`,
//! `qa_three_way.csv` and the accuracy chart.

use super::{Link, LinkKey, Section, Table, Value};
use crate::analysis::charts;
use crate::analysis::qa::{ConfigAccuracy, Proportion, QaFigures};
use crate::domain::{Label, QaFormat};

fn points(v: Option<f64>) -> Value {
    Value::text(v.map_or("–".into(), |v| format!("{:+.0} pts", v * 100.0)))
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

/// A proportion's CSV fields: correct, n, accuracy, Wilson low and high.
fn proportion_fields(p: &Proportion) -> [Value; 5] {
    [
        Value::Count(p.hits),
        Value::Count(p.n),
        Value::number(p.share, 3),
        Value::number(p.low, 3),
        Value::number(p.high, 3),
    ]
}

/// The section.
pub fn section(q: &QaFigures) -> Section {
    let mut s = Section::new("Question-answer debate: judge accuracy");
    s.plain(format!(
        "{} rounds. Accuracy is the share of usable judgments (parsed, or corrected by hand) that chose the \
         correct answer, with a Wilson 95% interval; {} judgments await review and are not counted.",
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
    let formats: Vec<QaFormat> = QaFormat::ALL
        .into_iter()
        .filter(|f| q.by_format.contains_key(f))
        .collect();
    let mut head = vec!["judge", "level"];
    head.extend(formats.iter().map(|f| format_name(*f)));
    head.extend(["lift over naive", "gap to expert"]);
    let mut t = Table::new("QA against the baselines", head);
    for l in &q.lifts {
        let mut cells = vec![Value::text(&l.judge), Value::text(&l.level)];
        cells.extend(formats.iter().map(|f| share_or_dash(l.formats.get(f))));
        cells.extend([points(l.lift_over_naive), points(l.gap_to_expert)]);
        t.row(
            cells,
            Link::judge(&l.judge).map(|k| k.and(LinkKey::Level, &l.level)),
        );
    }
    s.table(t);
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

/// The debaters' table; its CSV is written even when no debater is listed (header only).
fn debaters(s: &mut Section, q: &QaFigures) {
    if !q.debaters.is_empty() {
        s.heading("Debaters");
        s.plain(
            "Win rate: how often the judge chose the debater's answer. Persuasiveness: Bradley–Terry over cross-play \
             debates won (Elo scale, 95% bootstrap interval). Self-play accuracy: judge accuracy in debates where the \
             model argued both sides; the paper's finding is that more persuasive debaters make judges more accurate.",
        );
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
                    format!(
                        "{:.0} [{:.0}–{:.0}] ({} debates)",
                        r.rating, r.low, r.high, r.matches
                    )
                })),
                Value::Share(d.self_play_accuracy),
            ],
            Link::player(&d.model),
        );
        tidy.push(vec![
            Value::text(&d.model),
            Value::Share(d.wins_when_correct),
            Value::Count(d.wins_when_correct.n),
            Value::Share(d.wins_when_incorrect),
            Value::Count(d.wins_when_incorrect.n),
            Value::Share(d.quotes_verified),
            Value::Count(d.quotes_verified.n),
            Value::Count(d.word_limit_violations as usize),
            Value::number(rating.map(|r| r.rating), 0),
            Value::number(rating.map(|r| r.low), 0),
            Value::number(rating.map(|r| r.high), 0),
            Value::Share(d.self_play_accuracy),
            Value::Count(d.self_play_accuracy.n),
        ]);
    }
    s.table(t.with_tidy(
        "qa_debaters.csv",
        [
            "model",
            "win_rate_correct",
            "n_correct",
            "win_rate_incorrect",
            "n_incorrect",
            "quote_verification_rate",
            "quotes",
            "word_limit_violations",
            "persuasiveness",
            "persuasiveness_low",
            "persuasiveness_high",
            "self_play_accuracy",
            "n_self_play",
        ],
        tidy,
    ));
    if !q.debaters.is_empty() {
        s.plain(format!(
            "Correlation of persuasiveness with self-play accuracy across models: {}.",
            q.persuasiveness_accuracy_correlation
                .map_or("– (needs three models with both)".into(), |r| format!(
                    "{r:.2}"
                ))
        ));
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
        ],
        tidy,
    ));
}

fn calibration(s: &mut Section, q: &QaFigures) {
    s.heading("Calibration of judges' confidence");
    let mut t = Table::new(
        "QA calibration",
        ["stated confidence", "mean stated", "accuracy"],
    );
    for b in &q.calibration {
        t.row(
            vec![
                Value::text(format!("{:.0}–{:.0}", b.low, b.high)),
                Value::number(b.mean_confidence, 0),
                Value::Share(b.accuracy),
            ],
            // A bin no judge's confidence fell in has no rounds to open.
            b.mean_confidence.map(|_| {
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
             answer was right (a judge that notices should be less sure).",
            w.n,
            Value::number(w.mean_confidence, 0).shown(),
            Value::number(w.mean_confidence_otherwise, 0).shown()
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::qa::{CalibrationBin, DebaterFigures};

    #[test]
    fn rows_link_to_their_rounds_and_the_debaters_csv_is_kept_without_debaters() {
        let p = Proportion::new(3, 4);
        let q = QaFigures {
            rounds: 4,
            awaiting_review: 0,
            by_format: [(QaFormat::Debate, p)].into_iter().collect(),
            configurations: Vec::new(),
            lifts: Vec::new(),
            positions: Vec::new(),
            debaters: Vec::new(),
            persuasiveness_accuracy_correlation: None,
            calibration: vec![CalibrationBin {
                low: 90.0,
                high: 100.0,
                mean_confidence: Some(95.0),
                accuracy: p,
            }],
            both_wrong: None,
            three_way: Vec::new(),
        };
        let s = section(&q);
        let md = super::super::markdown(std::slice::from_ref(&s));
        assert!(md.contains("| debate | 75% [30–95%] (n=4) |"), "{md}");
        assert!(md.contains("| 90–100 | 95 | 75%"), "{md}");
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
        assert_eq!(files, ["qa_accuracy.csv", "qa_debaters.csv"]);

        let with = QaFigures {
            debaters: vec![DebaterFigures {
                model: "m".into(),
                wins_when_correct: p,
                wins_when_incorrect: p,
                quotes_verified: p,
                word_limit_violations: 1,
                persuasiveness: None,
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
        assert!(md.contains("– (needs three models with both)"), "{md}");
    }
}
