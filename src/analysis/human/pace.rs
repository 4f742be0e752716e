//! Time on task per annotator: how many rounds they judged at the terminal, the median
//! minutes a round and words a minute, and the judgments saved faster than 1,000 words a
//! minute ([`crate::annotations::pace::FAST_WPM`]; flagged, never dropped: the agreement
//! figures count them, and a researcher who wants them out removes their files). The
//! medians' intervals are distribution-free: the order statistics a binomial(n, ½)
//! brackets with at least 95% coverage (the sign test's interval; Conover, *Practical
//! Nonparametric Statistics*); n counts rounds, each of an annotator's judgments being of
//! its own round.

use std::collections::BTreeMap;

use serde::Serialize;

use super::PersonReading;
use crate::analysis::stats::statistic::Statistic;
use crate::annotations::pace::median;

/// One annotator's time on task.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnnotatorPace {
    /// Who.
    pub annotator: String,
    /// Their judgments of rounds this folder holds.
    pub judgments: usize,
    /// Of those, made at the terminal (the annotate screen).
    pub at_terminal: usize,
    /// Of those, with their time recorded: the rounds behind `minutes`.
    pub timed: usize,
    /// Median minutes a round, n = `timed`; no value when none is timed.
    pub minutes: Statistic,
    /// Median words a minute (the words shown over the minutes on the round), n = the
    /// rounds with both recorded.
    pub words_a_minute: Statistic,
    /// The rounds saved faster than 1,000 words a minute
    /// ([`crate::annotations::pace::FAST_WPM`]): possibly not read in full. Still counted
    /// in every agreement figure.
    pub too_fast: Vec<String>,
}

/// Each annotator's time on task, by name, from their readings of rounds the folder holds
/// (`holds`).
pub fn paces(people: &[PersonReading], holds: impl Fn(&str) -> bool) -> Vec<AnnotatorPace> {
    let mut by: BTreeMap<&str, Vec<&PersonReading>> = BTreeMap::new();
    for p in people.iter().filter(|p| holds(&p.round_id)) {
        by.entry(&p.annotator).or_default().push(p);
    }
    by.into_iter()
        .map(|(annotator, theirs)| {
            let minutes: Vec<f64> = theirs
                .iter()
                .filter_map(|p| p.time.seconds)
                .map(|s| s / 60.0)
                .collect();
            let rates: Vec<f64> = theirs
                .iter()
                .filter_map(|p| p.time.words_a_minute())
                .collect();
            let mut too_fast: Vec<String> = theirs
                .iter()
                .filter(|p| p.time.too_fast())
                .map(|p| p.round_id.clone())
                .collect();
            too_fast.sort();
            AnnotatorPace {
                annotator: annotator.to_string(),
                judgments: theirs.len(),
                at_terminal: theirs.iter().filter(|p| p.time.at_terminal).count(),
                timed: minutes.len(),
                minutes: median_with_interval(&minutes),
                words_a_minute: median_with_interval(&rates),
                too_fast,
            }
        })
        .collect()
}

/// The median of `values` with its distribution-free 95% interval: the `k`-th smallest and
/// `k`-th largest values, `k` the largest with P(B < k) ≤ 2.5% for B ~ binomial(n, ½) (none
/// under six values, where no `k` reaches 95%). Infinite values (a round saved in no time)
/// order as the largest; a median or bound that is one is left out.
pub fn median_with_interval(values: &[f64]) -> Statistic {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let finite = |x: f64| Some(x).filter(|x| x.is_finite());
    let k = order_statistic(n);
    Statistic {
        value: median(&v).and_then(finite),
        low: k.and_then(|k| finite(v[k - 1])),
        high: k.and_then(|k| finite(v[n - k])),
        n,
    }
}

/// The largest `k` ≥ 1 with P(B ≤ k − 1) ≤ 0.025 for B ~ binomial(`n`, ½): the interval
/// `[x₍ₖ₎, x₍ₙ₋ₖ₊₁₎]` then covers the median with at least 95%. Each term is computed in
/// logs, so a large `n` does not underflow ½ⁿ to nothing.
fn order_statistic(n: usize) -> Option<usize> {
    let mut log_p = -(n as f64) * std::f64::consts::LN_2;
    let mut cdf = 0.0;
    let mut k = None;
    for i in 0..n.div_ceil(2) {
        cdf += log_p.exp();
        if cdf > 0.025 {
            break;
        }
        k = Some(i + 1);
        log_p += ((n - i) as f64).ln() - ((i + 1) as f64).ln();
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::human::Reading;
    use crate::annotations::pace::TimeOnTask;

    fn person(annotator: &str, round: &str, time: TimeOnTask) -> PersonReading {
        PersonReading {
            annotator: annotator.into(),
            round_id: round.into(),
            reading: Reading::winner(None),
            time,
        }
    }

    #[test]
    fn the_order_statistics_of_a_medians_interval() {
        // n = 6: P(B = 0) = 1/64 ≤ 2.5%, P(B ≤ 1) = 7/64 is not.
        assert_eq!(order_statistic(5), None);
        assert_eq!(order_statistic(6), Some(1));
        // n = 20: the 6th and 15th values (P(B ≤ 5) = 2.07%).
        assert_eq!(order_statistic(20), Some(6));
        // n = 100: the 40th and 61st (P(B ≤ 39) = 1.76%, P(B ≤ 40) = 2.84%).
        assert_eq!(order_statistic(100), Some(40));
        // n = 5000: ½ⁿ underflows, each term in logs does not (2431, computed exactly).
        assert_eq!(order_statistic(5000), Some(2431), "no underflow");
        let s = median_with_interval(&(1..=20).map(f64::from).collect::<Vec<_>>());
        assert_eq!(
            (s.value, s.low, s.high, s.n),
            (Some(10.5), Some(6.0), Some(15.0), 20)
        );
        let few = median_with_interval(&[1.0, 2.0, 3.0]);
        assert_eq!((few.value, few.low, few.n), (Some(2.0), None, 3));
        assert_eq!(median_with_interval(&[]).value, None);
    }

    /// An annotator at the terminal: their minutes and words a minute with n, and the round
    /// read faster than 1,000 words a minute flagged by id; one who imported a
    /// spreadsheet: judgments counted, no time; a round the folder does not hold: left out.
    #[test]
    fn each_annotators_time_on_task() {
        let at = |seconds: f64, words: u64| TimeOnTask {
            at_terminal: true,
            seconds: Some(seconds),
            words: Some(words),
        };
        let mut people = vec![
            person("ann", "r1", at(240.0, 1000)),
            person("ann", "r2", at(180.0, 900)),
            person("ann", "r3", at(30.0, 1000)),
            person("ann", "elsewhere", at(1.0, 1000)),
            // Judged at the terminal before time was recorded.
            person(
                "ann",
                "r4",
                TimeOnTask {
                    at_terminal: true,
                    ..TimeOnTask::default()
                },
            ),
        ];
        for r in ["r1", "r2"] {
            people.push(person("bea", r, TimeOnTask::default()));
        }
        let paces = paces(&people, |id| id != "elsewhere");
        assert_eq!(paces.len(), 2);
        let ann = &paces[0];
        assert_eq!(
            (ann.judgments, ann.at_terminal, ann.timed),
            (4, 4, 3),
            "{ann:?}"
        );
        assert_eq!(ann.minutes.value, Some(3.0));
        assert_eq!(ann.minutes.n, 3);
        // 250, 300 and 2,000 words a minute.
        assert_eq!(ann.words_a_minute.value, Some(300.0));
        assert_eq!(ann.words_a_minute.n, 3);
        assert_eq!(ann.too_fast, ["r3"]);
        let bea = &paces[1];
        assert_eq!((bea.judgments, bea.at_terminal, bea.timed), (2, 0, 0));
        assert_eq!((bea.minutes.value, bea.minutes.n), (None, 0));
        assert!(bea.too_fast.is_empty());
    }
}
