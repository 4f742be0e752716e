//! Time on task: how long a round was in front of the person judging it and how much there
//! was to read, as the annotate screen records them on each judgment
//! ([`Annotation::seconds_on_round`], [`Annotation::words_shown`]), and the constants the
//! screen's pace and the report's figures share. Researchers record it to plan sessions,
//! to report effort, and to flag judgments saved faster than a person reads.

use std::time::Duration;

use super::{Annotation, Via};

/// The most one stretch between two events of the annotate screen (a key, a save's answer)
/// adds to a round's time: a screen left idle (a break, another window) counts five
/// minutes, not the whole break.
pub const IDLE_CAP: Duration = Duration::from_secs(5 * 60);

/// The reading rate the screen's estimate assumes before a person has judged a round: 250
/// words a minute, an adult's silent reading of non-fiction.
pub const READING_WPM: f64 = 250.0;

/// A judgment saved faster than this many words a minute of the transcript shown is
/// flagged as possibly not read in full: four times the rate [`READING_WPM`] assumes.
pub const FAST_WPM: f64 = 1000.0;

/// A whole number as the report and the docs write it: `1,000`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// [`FAST_WPM`] as written: `1,000`.
pub fn fast_wpm_shown() -> String {
    thousands(FAST_WPM as u64)
}

/// The words of a text as shown: whitespace-separated pieces with a letter or digit in
/// them (a rule or a `·` drawn between them is not a word).
pub fn count_words(text: &str) -> u64 {
    let n = text
        .split_whitespace()
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .count();
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// The median of `values` (none when empty); NaN is left out.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    Some(if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    })
}

/// What a judgment records of the time it took.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TimeOnTask {
    /// Judged at the terminal (the annotate screen), not imported from a spreadsheet.
    pub at_terminal: bool,
    /// Seconds the round was on the screen ([`Annotation::seconds_on_round`]).
    pub seconds: Option<f64>,
    /// Words of the transcript shown ([`Annotation::words_shown`]).
    pub words: Option<u64>,
}

impl TimeOnTask {
    /// What `annotation` records.
    pub fn of(annotation: &Annotation) -> Self {
        Self {
            at_terminal: annotation.via == Via::Tui,
            seconds: annotation.seconds_on_round,
            words: annotation.words_shown,
        }
    }

    /// Words a minute (the words shown over the minutes on the round), when both are
    /// recorded; infinite for a round saved in no measurable time.
    pub fn words_a_minute(&self) -> Option<f64> {
        let (seconds, words) = (self.seconds?, self.words?);
        let words = words as f64;
        Some(if seconds > 0.0 {
            words / (seconds / 60.0)
        } else if words > 0.0 {
            f64::INFINITY
        } else {
            0.0
        })
    }

    /// Saved faster than [`FAST_WPM`]: possibly not read in full.
    pub fn too_fast(&self) -> bool {
        self.words_a_minute().is_some_and(|w| w > FAST_WPM)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(fast_wpm_shown(), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }

    #[test]
    fn words_are_pieces_with_a_letter_or_digit() {
        assert_eq!(
            count_words("━━ Presentation · Team A\nIt is 10 o'clock."),
            7
        );
        assert_eq!(count_words("  ·  — "), 0);
    }

    #[test]
    fn the_median_of_odd_and_even_counts() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
    }

    #[test]
    fn a_reading_rate_needs_both_the_time_and_the_words() {
        let t = |seconds, words| TimeOnTask {
            at_terminal: true,
            seconds,
            words,
        };
        assert_eq!(t(Some(120.0), Some(1000)).words_a_minute(), Some(500.0));
        assert!(!t(Some(120.0), Some(1000)).too_fast());
        assert!(t(Some(30.0), Some(1000)).too_fast(), "2,000 words a minute");
        assert!(t(Some(0.0), Some(10)).too_fast());
        assert_eq!(t(None, Some(10)).words_a_minute(), None);
        assert_eq!(t(Some(10.0), None).words_a_minute(), None);
    }
}
