//! Judges against people: each model judge's (and panel's) agreement with the people who
//! judged the same exchanges, people among themselves, and the Ethics Bowl's model means in
//! people's terms (`human_agreement.csv`, `human_calibrated.csv`), and each person's time on
//! task (`human_pace.csv`).

use super::{Link, LinkKey, Section, Style, Table, Value};
use crate::analysis::human::pace::AnnotatorPace;
use crate::analysis::human::{CalibratedRate, Figure, HumanAgreement, HumanSummary};
use crate::analysis::stats::bootstrap::MIN_CLUSTERS;
use crate::analysis::stats::statistic::Statistic;
use crate::annotations::pace::{IDLE_CAP, fast_wpm_shown};
use crate::domain::ProtocolKind;

/// A figure as a cell.
fn cell(f: &Figure, style: Style) -> Value {
    Value::Statistic(Statistic::from(*f), style)
}

/// The section; none when no person judged a round of the folder.
pub(super) fn section(rows: &[HumanAgreement], summary: Option<&HumanSummary>) -> Option<Section> {
    let h = summary?;
    let mut s = Section::new("Judges against people");
    s.plain(format!(
        "{} {} ({}) judged {} round{} ({} of {} judgment{} blind, the debaters' model names hidden). \
         Each judge is compared with each person on the exchanges both judged{}: Krippendorff's alpha \
         ({}), Cohen's kappa with quadratic weights and Spearman's rho on the totals, the judge's \
         totals minus the person's (its leniency relative to people), and the share of the same \
         verdicts. Intervals: 95% percentile bootstrap resampling exchanges; n counts exchanges, and \
         an interval needs {MIN_CLUSTERS}. A model judgment corrected by hand in the review queue is \
         a correction, not a person's judgment, and is never counted here ({} such correction{}).",
        h.annotators.len(),
        if h.annotators.len() == 1 { "person" } else { "people" },
        h.annotators.join(", "),
        h.rounds,
        if h.rounds == 1 { "" } else { "s" },
        h.blind,
        h.judgments,
        if h.judgments == 1 { "" } else { "s" },
        if h.annotators.len() >= 2 {
            ", and with their consensus (scores averaged, the majority's verdict)"
        } else {
            ""
        },
        "interval scale on the Ethics Bowl's criterion scores, nominal on the other protocols' verdicts",
        h.corrections_by_hand,
        if h.corrections_by_hand == 1 { "" } else { "s" },
    ));
    if h.unmatched > 0 {
        s.plain(format!(
            "{} person's judgment{} of rounds this folder does not hold {} left out.",
            h.unmatched,
            if h.unmatched == 1 { "" } else { "s" },
            if h.unmatched == 1 { "is" } else { "are" },
        ));
    }
    let mut t = Table::new(
        "Agreement with people",
        [
            "judge",
            "against",
            "alpha",
            "kappa (totals)",
            "Spearman (totals)",
            "judge minus people",
            "same verdict",
        ],
    );
    let mut tidy = Vec::new();
    for r in rows {
        t.row(
            vec![
                Value::text(&r.judge),
                Value::text(&r.annotator),
                cell(&r.alpha, Style::Decimals(2)),
                cell(&r.kappa, Style::Decimals(2)),
                cell(&r.spearman, Style::Decimals(2)),
                cell(&r.mean_difference, Style::Signed(2)),
                cell(&r.verdict_agreement, Style::Percent),
            ],
            Link::judge(&r.judge),
        );
        for (name, f) in [
            ("alpha", &r.alpha),
            ("kappa", &r.kappa),
            ("spearman", &r.spearman),
            ("mean_difference", &r.mean_difference),
            ("verdict_agreement", &r.verdict_agreement),
        ] {
            tidy.push(vec![
                Value::text(&r.judge),
                Value::text(&r.annotator),
                Value::text(name),
                Value::number(f.estimate, 4),
                Value::number(f.low, 4),
                Value::number(f.high, 4),
                Value::Count(f.n),
            ]);
        }
    }
    s.table(t.with_tidy(
        "human_agreement.csv",
        [
            "judge",
            "annotator",
            "statistic",
            "estimate",
            "low",
            "high",
            "exchanges",
        ],
        tidy,
    ));
    if rows.iter().any(|r| r.standings.is_some()) {
        s.plain(
            "The structured debate's arguments: how often each judge gave an argument the \
             standing people gave it (upheld, partially upheld, refuted, uncertain), and \
             Krippendorff's alpha (nominal) over the arguments. n counts arguments; an \
             exchange's arguments are read together, so the intervals resample exchanges \
             (debates).",
        );
        s.table(standings_table(rows));
    }
    match &h.among_people {
        Some(f) => s.plain(format!(
            "People among themselves (alpha over the exchanges two or more judged; the ceiling a \
             judge can reach): {}.",
            cell(f, Style::Decimals(2)).shown()
        )),
        None => s.plain(
            "One person judged: how far people agree among themselves (the ceiling a judge can \
             reach) needs two who judged the same rounds.",
        ),
    }
    if !h.pace.is_empty() {
        time_on_task(&mut s, &h.pace);
    }
    if !h.calibrated_rates.is_empty() || !h.not_calibrated.is_empty() {
        s.plain(format!(
            "Rates in people's terms: the question-answer debate's accuracy per format (the \
             share of rounds whose right answer was chosen) and each debater's win rate in \
             debates (the share of rounds whose answer was chosen), the structured debate's \
             win rates (a win 1, a tie a half). Each is the judges' rate over every round, \
             corrected by how people and the judges differed on the rounds people judged \
             (prediction-powered inference, power-tuned); in a round, the judges' value is \
             the mean of its usable judgments and people's the mean of the people who judged \
             it. The interval is cluster-robust, counting items (question-answer: an item's \
             rounds share it) or rounds (structured), and needs {MIN_CLUSTERS} of them that \
             people judged; it assumes the rounds people judged were drawn at random, as \
             `annotate --sample` and `annotations template` draw them."
        ));
        if !h.calibrated_rates.is_empty() {
            s.table(rates_table(&h.calibrated_rates));
        }
        for why in &h.not_calibrated {
            s.plain(format!("Not in people's terms: {why}."));
        }
    }
    if !h.calibrated.is_empty() {
        let mut t = Table::new(
            "Model means in people's terms",
            [
                "model",
                "judges' mean total",
                "people's terms (prediction-powered)",
                "exchanges people judged",
                "judged by models only",
            ],
        );
        let mut tidy = Vec::new();
        for c in &h.calibrated {
            let people = Statistic {
                value: Some(c.people.estimate),
                low: c.people.low,
                high: c.people.high,
                n: c.people.labelled,
            };
            t.row(
                vec![
                    Value::text(&c.model),
                    Value::Mean(c.judges),
                    Value::Statistic(people, Style::Decimals(2)),
                    Value::Count(c.people.labelled),
                    Value::Count(c.people.unlabelled),
                ],
                Link::player(&c.model),
            );
            tidy.push(vec![
                Value::text(&c.model),
                Value::number(c.judges.mean, 4),
                Value::number(Some(c.people.estimate), 4),
                Value::number(c.people.low, 4),
                Value::number(c.people.high, 4),
                Value::Count(c.people.labelled),
                Value::Count(c.people.unlabelled),
                Value::number(Some(c.people.lambda), 4),
            ]);
        }
        s.plain(format!(
            "Each model's mean team total (of 70) as the model judges gave it on every exchange, and \
             in people's terms: the judges' mean corrected by how people and the judges differed on \
             the exchanges people judged (prediction-powered inference, power-tuned; Angelopoulos et \
             al. 2023). Its 95% interval is valid whatever the judges' bias and needs {MIN_CLUSTERS} \
             exchanges people judged; n counts them. A judge that tracks people narrows it below \
             people's own mean's; one that does not is given no weight."
        ));
        s.table(t.with_tidy(
            "human_calibrated.csv",
            [
                "model",
                "judges_mean",
                "people_estimate",
                "low",
                "high",
                "labelled_exchanges",
                "unlabelled_exchanges",
                "lambda",
            ],
            tidy,
        ));
    }
    Some(s)
}

/// Each person's time on task (`human_pace.csv`), what has none, and the judgments saved
/// faster than [`FAST_WPM`](crate::annotations::pace::FAST_WPM) words a minute by round.
fn time_on_task(s: &mut Section, paces: &[AnnotatorPace]) {
    s.heading("Time on task");
    s.plain(format!(
        "As the annotate screen records it: the time each round was on the \
         screen, summed over every visit (a change saved later adds its visits; each stretch \
         between two keys counts at most {} minutes, so a break is not counted whole), and the \
         words of the transcript shown (the setup and the debaters' phases). Medians with a \
         distribution-free 95% interval (order statistics; from 6 rounds); n counts rounds. A \
         judgment saved faster than {fast} words a minute was possibly not read in full: it \
         is flagged here and still counted in every figure above. Judgments imported from a \
         spreadsheet, or saved before time on task was recorded, have no time.",
        IDLE_CAP.as_secs() / 60,
        fast = fast_wpm_shown(),
    ));
    let mut t = Table::new(
        "Time on task",
        [
            "annotator",
            "judgments",
            "at the terminal",
            "minutes a round (median)",
            "words a minute (median)",
            &format!("faster than {} words a minute", fast_wpm_shown()),
        ],
    );
    let mut tidy = Vec::new();
    let none = || Value::text("no time recorded");
    for p in paces {
        let fast = p.too_fast.len();
        let rated = p.words_a_minute.n;
        t.row(
            vec![
                Value::text(&p.annotator),
                Value::Count(p.judgments),
                Value::Count(p.at_terminal),
                if p.timed > 0 {
                    Value::Statistic(p.minutes, Style::Decimals(1))
                } else {
                    none()
                },
                if rated > 0 {
                    Value::Statistic(p.words_a_minute, Style::Decimals(0))
                } else {
                    none()
                },
                match (rated, fast) {
                    (0, _) => none(),
                    (_, 0) => Value::text(format!("0 of {rated}")),
                    _ => Value::Strong(fast.to_string(), format!(" of {rated}")),
                },
            ],
            None,
        );
        tidy.push(vec![
            Value::text(&p.annotator),
            Value::Count(p.judgments),
            Value::Count(p.at_terminal),
            Value::Count(p.timed),
            Value::number(p.minutes.value, 4),
            Value::number(p.minutes.low, 4),
            Value::number(p.minutes.high, 4),
            Value::Count(rated),
            Value::number(p.words_a_minute.value, 1),
            Value::number(p.words_a_minute.low, 1),
            Value::number(p.words_a_minute.high, 1),
            Value::Count(fast),
        ]);
    }
    s.table(t.with_tidy(
        "human_pace.csv",
        [
            "annotator",
            "judgments",
            "at_terminal",
            "timed_rounds",
            "median_minutes",
            "minutes_low",
            "minutes_high",
            "rated_rounds",
            "median_words_a_minute",
            "words_a_minute_low",
            "words_a_minute_high",
            "too_fast",
        ],
        tidy,
    ));
    for p in paces.iter().filter(|p| p.timed < p.judgments) {
        let untimed = p.judgments - p.timed;
        let imported = p.judgments - p.at_terminal;
        let mut why = Vec::new();
        if imported > 0 {
            why.push(format!("{imported} imported from a spreadsheet"));
        }
        match untimed.saturating_sub(imported) {
            0 => {}
            k => why.push(format!(
                "{k} saved at the terminal before time on task was recorded, or changed from \
                 such a judgment"
            )),
        }
        s.plain(format!(
            "{}: {untimed} of {} judgment{} without a time ({}).",
            p.annotator,
            p.judgments,
            if p.judgments == 1 { "" } else { "s" },
            why.join("; "),
        ));
    }
    for p in paces.iter().filter(|p| !p.too_fast.is_empty()) {
        s.plain(format!(
            "{}: saved faster than {} words a minute: {}. To leave them out, remove their \
             files (annotations/{}/<round>.json) and run the report again.",
            p.annotator,
            fast_wpm_shown(),
            p.too_fast.join(", "),
            p.annotator,
        ));
    }
}

/// The structured debate's argument standings, judge against people
/// (`human_standings.csv`).
fn standings_table(rows: &[HumanAgreement]) -> Table {
    let mut t = Table::new(
        "Argument standings against people",
        [
            "judge",
            "against",
            "same standing",
            "alpha (nominal)",
            "arguments",
            "debates",
        ],
    );
    let mut tidy = Vec::new();
    for r in rows {
        let Some(st) = &r.standings else { continue };
        t.row(
            vec![
                Value::text(&r.judge),
                Value::text(&r.annotator),
                cell(&st.same, Style::Percent),
                cell(&st.alpha, Style::Decimals(2)),
                Value::Count(st.same.n),
                Value::Count(st.rounds),
            ],
            Link::judge(&r.judge),
        );
        for (name, f) in [("same_standing", &st.same), ("alpha", &st.alpha)] {
            tidy.push(vec![
                Value::text(&r.judge),
                Value::text(&r.annotator),
                Value::text(name),
                Value::number(f.estimate, 4),
                Value::number(f.low, 4),
                Value::number(f.high, 4),
                Value::Count(f.n),
                Value::Count(st.rounds),
            ]);
        }
    }
    t.with_tidy(
        "human_standings.csv",
        [
            "judge",
            "annotator",
            "statistic",
            "estimate",
            "low",
            "high",
            "arguments",
            "debates",
        ],
        tidy,
    )
}

/// The question-answer and structured debates' rates in people's terms
/// (`human_calibrated_rates.csv`).
fn rates_table(rates: &[CalibratedRate]) -> Table {
    let mut t = Table::new(
        "Rates in people's terms",
        [
            "protocol",
            "measure",
            "of",
            "judges' rate",
            "people's terms (prediction-powered)",
            "people judged",
            "judged by models only",
        ],
    );
    let mut tidy = Vec::new();
    for r in rates {
        let judges = Statistic {
            value: r.judges.mean,
            low: r.judges.low,
            high: r.judges.high,
            n: r.judges.clusters,
        };
        let people = Statistic {
            value: Some(r.people.estimate),
            low: r.people.low,
            high: r.people.high,
            n: r.people.labelled,
        };
        // The rounds it counts: the format's, or the model's as a debater (in debates, for
        // the question-answer debate).
        let link = match (r.protocol, r.measure) {
            (ProtocolKind::QaDebate, "accuracy") => Link::protocol(r.protocol.as_str())
                .map(|l| l.and(LinkKey::Format, r.subject.clone())),
            (ProtocolKind::QaDebate, _) => {
                Link::player(&r.subject).map(|l| l.and(LinkKey::Format, "debate"))
            }
            _ => Link::player(&r.subject).map(|l| l.and(LinkKey::Protocol, r.protocol.as_str())),
        };
        t.row(
            vec![
                Value::text(r.protocol.as_str()),
                Value::text(r.measure),
                Value::text(&r.subject),
                Value::Statistic(judges, Style::Percent),
                Value::Statistic(people, Style::Percent),
                Value::text(format!("{} {}", r.people.labelled, r.units)),
                Value::text(format!("{} {}", r.people.unlabelled, r.units)),
            ],
            link,
        );
        tidy.push(vec![
            Value::text(r.protocol.as_str()),
            Value::text(r.measure),
            Value::text(&r.subject),
            Value::text(r.units),
            Value::number(r.judges.mean, 4),
            Value::number(r.judges.low, 4),
            Value::number(r.judges.high, 4),
            Value::number(Some(r.people.estimate), 4),
            Value::number(r.people.low, 4),
            Value::number(r.people.high, 4),
            Value::Count(r.people.labelled),
            Value::Count(r.people.unlabelled),
            Value::number(Some(r.people.lambda), 4),
        ]);
    }
    t.with_tidy(
        "human_calibrated_rates.csv",
        [
            "protocol",
            "measure",
            "of",
            "units",
            "judges_rate",
            "judges_low",
            "judges_high",
            "people_estimate",
            "low",
            "high",
            "labelled_units",
            "unlabelled_units",
            "lambda",
        ],
        tidy,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::human::pace::median_with_interval;

    /// One annotator at the terminal with one round read at 2,000 words a minute, one who
    /// imported a spreadsheet: the table gives each figure with its n, flags the fast
    /// round by id without dropping it, and says "no time recorded" where there is none.
    #[test]
    fn the_time_on_task_table() {
        let pace = vec![
            AnnotatorPace {
                annotator: "ann".into(),
                judgments: 4,
                at_terminal: 4,
                timed: 3,
                minutes: median_with_interval(&[4.0, 3.0, 0.5]),
                words_a_minute: median_with_interval(&[250.0, 300.0, 2000.0]),
                too_fast: vec!["r3".into()],
            },
            AnnotatorPace {
                annotator: "bea".into(),
                judgments: 2,
                at_terminal: 0,
                timed: 0,
                minutes: median_with_interval(&[]),
                words_a_minute: median_with_interval(&[]),
                too_fast: Vec::new(),
            },
        ];
        let summary = HumanSummary {
            annotators: vec!["ann".into(), "bea".into()],
            pace,
            ..HumanSummary::default()
        };
        let s = section(&[], Some(&summary)).unwrap();
        let table = s.tables().find(|t| t.name == "Time on task").unwrap();
        assert_eq!(
            table.columns[5], "faster than 1,000 words a minute",
            "{:?}",
            table.columns
        );
        let shown = |row: usize| -> Vec<String> {
            table.rows[row].cells.iter().map(Value::shown).collect()
        };
        assert_eq!(
            shown(0),
            [
                "ann",
                "4",
                "4",
                "3.0 (n=3, too few for an interval)",
                "300 (n=3, too few for an interval)",
                "1 of 3",
            ]
        );
        assert!(table.rows[0].cells[5].is_strong(), "the flag stands out");
        assert_eq!(
            shown(1),
            [
                "bea",
                "2",
                "0",
                "no time recorded",
                "no time recorded",
                "no time recorded",
            ]
        );
        let tidy = table.tidy.as_ref().unwrap();
        assert_eq!(tidy.file, "human_pace.csv");
        let csv: Vec<String> = tidy.rows[0].iter().map(Value::csv).collect();
        assert_eq!(csv[0..5], ["ann", "4", "4", "3", "3"]);
        assert_eq!(csv[11], "1");
        let md = crate::analysis::figures::markdown::markdown(&[s]);
        assert!(
            md.contains("ann: saved faster than 1,000 words a minute: r3. To leave them out"),
            "{md}"
        );
        assert!(
            md.contains("ann: 1 of 4 judgments without a time (1 saved at the terminal before"),
            "{md}"
        );
        assert!(
            md.contains("bea: 2 of 2 judgments without a time (2 imported from a spreadsheet)."),
            "{md}"
        );
        assert!(md.contains("at most 5 minutes"), "{md}");
    }
}
