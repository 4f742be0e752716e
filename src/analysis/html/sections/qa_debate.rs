//! The question-answer debate's tables and chart: judge accuracy by format, against the
//! baselines per judge and level, per configuration, by position, debaters, the three-way
//! baselines and calibration.

use super::super::doc::{Doc, Filter, Table};
use super::{judge, model};
use crate::analysis::charts;
use crate::analysis::qa::QaFigures;
use crate::analysis::show::share;
use crate::domain::{Label, QaFormat};

fn points(v: Option<f64>) -> String {
    v.map_or("–".into(), |v| format!("{:+.0} pts", v * 100.0))
}

/// The rounds of one format (searched for: round files name their format).
fn format(f: QaFormat) -> Option<Filter> {
    Some(vec![("q", f.as_str().to_string())])
}

/// Appends the section.
pub(super) fn section(doc: &mut Doc, q: &QaFigures) {
    doc.h2("Question-answer debate: judge accuracy");
    doc.p(&format!(
        "{} rounds. Accuracy is the share of usable judgments that chose the correct answer, with a Wilson 95% \
         interval; {} judgments await review and are not counted.",
        q.rounds, q.awaiting_review
    ));
    let mut t = Table::new(["format", "accuracy"]);
    for (f, p) in &q.by_format {
        t.row(vec![f.as_str().into(), share(p)], format(*f));
    }
    doc.table(&t);
    doc.chart(&charts::accuracy_chart(q));

    doc.h3("Debate against the baselines, per judge and level");
    let formats: Vec<QaFormat> = QaFormat::ALL
        .into_iter()
        .filter(|f| q.by_format.contains_key(f))
        .collect();
    let mut head = vec!["judge", "level"];
    head.extend(formats.iter().map(|f| f.as_str()));
    head.extend(["lift over naive", "gap to expert"]);
    let mut t = Table::new(head);
    for l in &q.lifts {
        let mut cells = vec![l.judge.clone(), l.level.clone()];
        cells.extend(
            formats
                .iter()
                .map(|f| l.formats.get(f).map_or("–".into(), share)),
        );
        cells.extend([points(l.lift_over_naive), points(l.gap_to_expert)]);
        t.row(cells, judge(&l.judge));
    }
    doc.table(&t);

    doc.h3("Accuracy per configuration");
    let mut t = Table::new([
        "format", "debaters", "judge", "relation", "level", "accuracy",
    ]);
    for c in &q.configurations {
        t.row(
            vec![
                c.format.as_str().into(),
                c.debaters.clone(),
                c.judge.clone(),
                c.relation.clone().unwrap_or_default(),
                c.level.clone(),
                share(&c.accuracy),
            ],
            judge(&c.judge),
        );
    }
    doc.table(&t);

    if !q.positions.is_empty() {
        doc.h3("By which side was correct, and by position");
        let mut t = Table::new([
            "format",
            "correct answer was A's",
            "was B's",
            "correct debater read first",
            "read second",
        ]);
        for p in &q.positions {
            t.row(
                vec![
                    p.format.as_str().into(),
                    share(&p.correct_a),
                    share(&p.correct_b),
                    share(&p.correct_first),
                    share(&p.correct_second),
                ],
                format(p.format),
            );
        }
        doc.table(&t);
    }
    if !q.debaters.is_empty() {
        doc.h3("Debaters");
        let mut t = Table::new([
            "model",
            "wins when correct",
            "wins when incorrect",
            "quotes verified",
            "cut at the word limit",
            "persuasiveness",
            "self-play accuracy",
        ]);
        for d in &q.debaters {
            let rating = d.persuasiveness.as_ref().map_or("–".into(), |r| {
                format!(
                    "{:.0} [{:.0}–{:.0}] ({} debates)",
                    r.rating, r.low, r.high, r.matches
                )
            });
            t.row(
                vec![
                    d.model.clone(),
                    share(&d.wins_when_correct),
                    share(&d.wins_when_incorrect),
                    share(&d.quotes_verified),
                    d.word_limit_violations.to_string(),
                    rating,
                    share(&d.self_play_accuracy),
                ],
                model(&d.model),
            );
        }
        doc.table(&t);
        doc.p(&format!(
            "Correlation of persuasiveness with self-play accuracy across models: {}.",
            q.persuasiveness_accuracy_correlation
                .map_or("– (needs three models with both)".into(), |r| format!(
                    "{r:.2}"
                ))
        ));
    }
    if !q.three_way.is_empty() {
        doc.h3("Three-way baselines: proved, disproved or unknown");
        let mut t = Table::new([
            "format",
            "judge",
            "accuracy",
            "on proved",
            "on disproved",
            "on unknown",
            "labels given (p/d/u)",
        ]);
        for w in &q.three_way {
            let on = |l: Label| w.by_label.get(&l).map_or("–".into(), share);
            let given = |l: Label| w.given.get(&l).copied().unwrap_or(0);
            t.row(
                vec![
                    w.format.as_str().into(),
                    w.judge.clone(),
                    share(&w.accuracy),
                    on(Label::Proved),
                    on(Label::Disproved),
                    on(Label::Unknown),
                    format!(
                        "{}/{}/{}",
                        given(Label::Proved),
                        given(Label::Disproved),
                        given(Label::Unknown)
                    ),
                ],
                judge(&w.judge),
            );
        }
        doc.table(&t);
    }
    doc.h3("Calibration of judges' confidence");
    let mut t = Table::new(["stated confidence", "mean stated", "accuracy"]);
    for b in &q.calibration {
        t.row(
            vec![
                format!("{:.0}–{:.0}", b.low, b.high),
                b.mean_confidence.map_or("–".into(), |c| format!("{c:.0}")),
                share(&b.accuracy),
            ],
            Some(vec![("confidence", format!("{:.0}-{:.0}", b.low, b.high))]),
        );
    }
    doc.table(&t);
    if let Some(w) = &q.both_wrong {
        doc.p(&format!(
            "{} judgments were on items where both answers were wrong: mean confidence {} against {} when one \
             answer was right.",
            w.n,
            w.mean_confidence.map_or("–".into(), |c| format!("{c:.0}")),
            w.mean_confidence_otherwise
                .map_or("–".into(), |c| format!("{c:.0}"))
        ));
    }
}
