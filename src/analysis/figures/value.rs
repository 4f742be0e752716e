//! A table cell as a value: what it is decides how each renderer shows it (a mean with its
//! n, a share with its interval) and what its CSV field holds (the number alone, at full
//! precision).

use crate::analysis::effects::Estimate;
use crate::analysis::qa::Proportion;
use crate::analysis::show::{cell, num, share};
use crate::analysis::stats::bootstrap::MIN_CLUSTERS;
use crate::analysis::stats::statistic::Statistic;
use crate::analysis::tables::Cell;

/// One cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A name or id the configuration gave (a model, a judge, a dilemma, a round), or words
    /// the tool writes.
    Text(String),
    /// Text a model wrote (a stated principle): escaped as Markdown wherever it is drawn.
    Quote(String),
    /// Words that need attention: a bold lead, then plain words (`**yes** (2 answers)`).
    Strong(String, String),
    /// A count.
    Count(usize),
    /// A mean with its n: `7.50 (n=12)`; the CSV field holds the mean.
    Mean(Cell),
    /// A proportion with its Wilson interval and n: `62% [48–74%] (n=40)`; the CSV field
    /// holds the share.
    Share(Proportion),
    /// A number shown to `decimals` places, `–` when there is none.
    Number(Option<f64>, usize),
    /// An effect with its 95% interval and its exchanges: `+3.2 [1.1, 5.3] (n=28)`; the CSV
    /// field holds the estimate.
    Estimate(Estimate),
    /// Any other statistic with its 95% interval and units, shown in `Style`: `0.904
    /// [0.851, 0.941] (n=40)`; the CSV field holds the value.
    Statistic(Statistic, Style),
    /// A share shown as a whole percentage (`38%`); the CSV field holds the fraction.
    Percent(f64),
    /// Yes or no: `true`/`false` in CSV.
    Flag(bool),
    /// Nothing: an empty cell.
    Empty,
}

impl Value {
    /// A name or words.
    pub fn text(s: impl Into<String>) -> Self {
        Self::Text(s.into())
    }

    /// Bold words.
    pub fn strong(s: impl Into<String>) -> Self {
        Self::Strong(s.into(), String::new())
    }

    /// An optional number, empty in CSV and `–` on show when it is missing.
    pub fn number(v: Option<f64>, decimals: usize) -> Self {
        Self::Number(v, decimals)
    }

    /// How the report, the page and the screen show it.
    pub fn shown(&self) -> String {
        match self {
            Self::Text(s) | Self::Quote(s) => s.clone(),
            Self::Strong(lead, rest) => format!("{lead}{rest}"),
            Self::Count(n) => n.to_string(),
            Self::Mean(c) => cell(c),
            Self::Share(p) => share(p),
            Self::Estimate(e) => estimate(e),
            Self::Statistic(st, style) => statistic(st, *style),
            Self::Number(Some(v), d) => format!("{v:.d$}", d = *d),
            Self::Number(None, _) => "–".into(),
            Self::Percent(v) => format!("{:.0}%", v * 100.0),
            Self::Flag(true) => "yes".into(),
            Self::Flag(false) => "no".into(),
            Self::Empty => String::new(),
        }
    }

    /// Its field in a CSV file.
    pub fn csv(&self) -> String {
        match self {
            Self::Text(s) | Self::Quote(s) => s.clone(),
            Self::Strong(lead, rest) => format!("{lead}{rest}"),
            Self::Count(n) => n.to_string(),
            Self::Mean(c) => num(c.mean),
            Self::Share(p) => num(p.share),
            Self::Estimate(e) => num(Some(e.estimate)),
            Self::Statistic(st, _) => num(st.value),
            Self::Number(v, _) => num(*v),
            Self::Percent(v) => v.to_string(),
            Self::Flag(b) => b.to_string(),
            Self::Empty => String::new(),
        }
    }

    /// Whether it is bold.
    pub fn is_strong(&self) -> bool {
        matches!(self, Self::Strong(..))
    }
}

/// How a [`Value::Statistic`] is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// To this many decimals (a correlation, a coefficient): `0.904 [0.851, 0.941]`.
    Decimals(usize),
    /// Signed, to this many decimals (a difference of means): `+1.25 [-0.40, +2.90]`.
    Signed(usize),
    /// A fraction as a whole percentage: `38% [30–45%]`.
    Percent,
    /// A difference of two fractions in percentage points: `+21 pts [+5, +38]`.
    Points,
}

impl Style {
    /// One number in this style, without its unit.
    fn number(self, v: f64) -> String {
        // Rounded first, so that −0.004 shows as 0.00 (or +0.00), not −0.00.
        let round = |v: f64, d: usize| {
            let k = 10f64.powi(d as i32);
            (v * k).round() / k + 0.0
        };
        match self {
            Self::Decimals(d) => format!("{:.d$}", round(v, d)),
            Self::Signed(d) => format!("{:+.d$}", round(v, d)),
            Self::Percent => format!("{:.0}", round(v * 100.0, 0)),
            Self::Points => format!("{:+.0}", round(v * 100.0, 0)),
        }
    }
}

/// A statistic as shown: its value, its interval, its units (`too few` under
/// [`MIN_CLUSTERS`], where no interval is drawn); `–` when there is no value.
fn statistic(s: &Statistic, style: Style) -> String {
    let Some(v) = s.value else {
        return "–".into();
    };
    let (unit, sep) = match style {
        Style::Percent => ("%", "–"),
        Style::Points => (" pts", ", "),
        _ => ("", ", "),
    };
    let value = format!("{}{unit}", style.number(v));
    match (s.low, s.high) {
        (Some(l), Some(h)) => format!(
            "{value} [{}{sep}{}{}] (n={})",
            style.number(l),
            style.number(h),
            if style == Style::Percent { "%" } else { "" },
            s.n
        ),
        _ if s.n < MIN_CLUSTERS => format!("{value} (n={}, too few for an interval)", s.n),
        _ => format!("{value} (n={}, no interval)", s.n),
    }
}

/// An effect as shown: signed, one decimal, its interval, then its exchanges (`too few`
/// below [`MIN_CLUSTERS`], where no interval is drawn).
fn estimate(e: &Estimate) -> String {
    // Rounded first, so that −0.04 shows as +0.0, not −0.0.
    let tenth = |v: f64| (v * 10.0).round() / 10.0 + 0.0;
    let e = &Estimate {
        estimate: tenth(e.estimate),
        low: e.low.map(tenth),
        high: e.high.map(tenth),
        ..e.clone()
    };
    match (e.low, e.high) {
        (Some(l), Some(h)) => format!("{:+.1} [{l:+.1}, {h:+.1}] (n={})", e.estimate, e.n),
        _ if e.n < MIN_CLUSTERS => {
            format!("{:+.1} (n={}, too few for an interval)", e.estimate, e.n)
        }
        _ => format!("{:+.1} (n={}, no interval)", e.estimate, e.n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_shown_with_its_n_and_written_to_csv_as_the_number() {
        let c = Cell::of(&[7.0, 8.0, 9.0]);
        assert_eq!(Value::Mean(c).shown(), "8.00 [5.52, 10.48] (n=3)");
        assert_eq!(Value::Mean(c).csv(), "8");
        let p = Proportion::new(5, 10);
        assert_eq!(Value::Share(p).shown(), "50% [24–76%] (n=10)");
        assert_eq!(Value::Share(p).csv(), "0.5");
        let e = Estimate {
            estimate: 3.25,
            low: Some(1.04),
            high: Some(5.3),
            n: 28,
            judgments: 109,
        };
        assert_eq!(
            Value::Estimate(e.clone()).shown(),
            "+3.3 [+1.0, +5.3] (n=28)"
        );
        assert_eq!(Value::Estimate(e.clone()).csv(), "3.25");
        let zero = Estimate {
            estimate: -0.04,
            low: Some(-1.7),
            high: Some(1.6),
            ..e
        };
        assert_eq!(Value::Estimate(zero).shown(), "+0.0 [-1.7, +1.6] (n=28)");
        assert_eq!(Value::number(None, 3).shown(), "–");
        assert_eq!(Value::number(None, 3).csv(), "");
        assert_eq!(Value::number(Some(0.12345), 3).shown(), "0.123");
        assert_eq!(Value::Percent(0.375).shown(), "38%");
        let r = Statistic {
            value: Some(0.9041),
            low: Some(0.851),
            high: Some(0.9412),
            n: 40,
        };
        assert_eq!(
            Value::Statistic(r, Style::Decimals(3)).shown(),
            "0.904 [0.851, 0.941] (n=40)"
        );
        assert_eq!(Value::Statistic(r, Style::Decimals(3)).csv(), "0.9041");
        let lift = Statistic {
            value: Some(0.2083),
            low: Some(-0.004),
            high: Some(0.38),
            n: 12,
        };
        assert_eq!(
            Value::Statistic(lift, Style::Points).shown(),
            "+21 pts [+0, +38] (n=12)"
        );
        assert_eq!(
            Value::Statistic(lift, Style::Percent).shown(),
            "21% [0–38%] (n=12)"
        );
        let few = Statistic::without_interval(Some(-0.0004), 4);
        assert_eq!(
            Value::Statistic(few, Style::Signed(2)).shown(),
            "+0.00 (n=4, too few for an interval)"
        );
        assert_eq!(
            Value::Statistic(Statistic::without_interval(None, 40), Style::Points).shown(),
            "–"
        );
        assert_eq!(Value::Flag(true).csv(), "true");
    }
}
