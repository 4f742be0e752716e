//! SVG charts for the report: ratings with their intervals, each model's criteria profile,
//! dilemma difficulty, and the judge-agreement heat map.
//!
//! Drawn here rather than with plotters: plotters lays out text with a font it must load
//! (system fonts through fontconfig, or a font file bundled in the binary), though in SVG
//! the viewer renders the text. These four charts are rectangles, lines and labels, so a
//! few lines of SVG keep the tool free of font dependencies.

use std::fmt::Write as _;

use super::qa::QaFigures;
use super::ratings::Rating;
use super::tables::{DilemmaDifficulty, JudgeAgreement, ModelRole};
use crate::domain::{Criterion, QaFormat};

/// A colour per series, readable on white.
const PALETTE: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
];

/// Text for SVG markup: every key this process read redacted, then the markup characters as
/// entities.
fn escape(s: &str) -> String {
    crate::redact::remembered()
        .redact(s)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// An axis: the span it draws and its ticks, at a "nice" step (1, 2 or 5 times a power of
/// ten), five to eight of them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Axis {
    /// The axis's lowest value (its first tick, or `lo` when the ticks lie inside).
    pub lo: f64,
    /// The axis's highest value.
    pub hi: f64,
    /// The step between ticks.
    pub step: f64,
    /// The ticks, ascending.
    pub ticks: Vec<f64>,
}

impl Axis {
    /// An axis covering `lo..=hi` with five to eight ticks at a 1-2-5 step: the smallest such
    /// step whose ticks, widened outwards to whole steps, number eight or fewer; when that
    /// widening leaves fewer than five, the step below it with only the ticks inside
    /// `lo..=hi` (from nine or more widened ticks at most eight lie inside, and at least
    /// five, as steps grow by at most 2.5). A range of nothing (or not finite) is widened
    /// to one around it first.
    pub fn nice(lo: f64, hi: f64) -> Self {
        let (lo, hi) = match (lo.is_finite(), hi.is_finite()) {
            (true, true) if hi > lo => (lo, hi),
            (true, true) => (lo.min(hi) - 1.0, lo.max(hi) + 1.0),
            (true, false) => (lo - 1.0, lo + 1.0),
            (false, true) => (hi - 1.0, hi + 1.0),
            (false, false) => (0.0, 1.0),
        };
        // A tenth of the range's power of ten: at most a tenth of the range, so the first
        // step tried always gives more than eight ticks.
        let mut power = 10f64.powf((hi - lo).log10().floor() - 1.0);
        let mut previous = power;
        // Small slack, so that 0.30000000000000004 is a multiple of 0.1.
        let eps = 1e-9;
        loop {
            for m in [1.0, 2.0, 5.0] {
                let step = m * power;
                let (first, last) = ((lo / step + eps).floor(), (hi / step - eps).ceil());
                let count = last - first + 1.0;
                if count <= 8.0 {
                    if count >= 5.0 {
                        return Self {
                            lo: first * step,
                            hi: last * step,
                            step,
                            ticks: (0..count as usize)
                                .map(|i| (first + i as f64) * step)
                                .collect(),
                        };
                    }
                    let (first, last) =
                        ((lo / previous - eps).ceil(), (hi / previous + eps).floor());
                    let count = (last - first + 1.0).max(0.0) as usize;
                    return Self {
                        lo,
                        hi,
                        step: previous,
                        ticks: (0..count).map(|i| (first + i as f64) * previous).collect(),
                    };
                }
                previous = step;
            }
            power *= 10.0;
        }
    }

    /// Where `v` falls between `from` and `to` (pixels) on this axis.
    pub fn at(&self, v: f64, from: f64, to: f64) -> f64 {
        from + (v - self.lo) / (self.hi - self.lo) * (to - from)
    }

    /// A tick's label, with as many decimals as the step needs (`1450`, `0.2`, `2.5`).
    pub fn label(&self, v: f64) -> String {
        let decimals = (-self.step.log10().floor()).max(0.0) as usize;
        let text = format!("{v:.decimals$}");
        // `-0` reads as 0.
        if text
            .trim_start_matches('-')
            .chars()
            .all(|c| c == '0' || c == '.')
        {
            text.trim_start_matches('-').to_string()
        } else {
            text
        }
    }
}

struct Svg {
    body: String,
    width: f64,
    height: f64,
}

impl Svg {
    fn new(width: f64, height: f64, title: &str) -> Self {
        let mut s = Self {
            body: String::new(),
            width,
            height,
        };
        s.text(width / 2.0, 22.0, title, "middle", 15.0, "bold");
        s
    }
    fn text(&mut self, x: f64, y: f64, t: &str, anchor: &str, size: f64, weight: &str) {
        let _ = writeln!(
            self.body,
            r#"<text x="{x:.1}" y="{y:.1}" text-anchor="{anchor}" font-size="{size}" font-weight="{weight}">{}</text>"#,
            escape(t)
        );
    }
    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str) {
        let _ = writeln!(
            self.body,
            r#"<rect x="{x:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{fill}"/>"#,
            w.max(0.0),
            h.max(0.0)
        );
    }
    fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str, width: f64) {
        let _ = writeln!(
            self.body,
            r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{stroke}" stroke-width="{width}"/>"#
        );
    }
    fn finish(self) -> String {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n{}</svg>\n",
            self.body,
            w = self.width,
            h = self.height
        )
    }
}

/// Horizontal intervals: each entrant's rating as a dot, its 95% interval as a bar.
pub fn ratings_chart(ratings: &[Rating], title: &str) -> String {
    let (left, right, row) = (260.0, 40.0, 28.0);
    let width = 820.0;
    let height = 70.0 + row * ratings.len().max(1) as f64;
    let mut svg = Svg::new(width, height, title);
    let lo = ratings
        .iter()
        .map(|r| r.low.unwrap_or(r.rating))
        .fold(f64::INFINITY, f64::min)
        .min(1400.0);
    let hi = ratings
        .iter()
        .map(|r| r.high.unwrap_or(r.rating))
        .fold(f64::NEG_INFINITY, f64::max)
        .max(1600.0);
    let axis = Axis::nice(lo, hi);
    let x = |v: f64| axis.at(v, left, width - right);
    let base = height - 25.0;
    // A grid line and a label at each tick; the starting rating (1500) darker.
    for &tick in &axis.ticks {
        let start = (tick - 1500.0).abs() < 1e-9;
        let colour = if start { "#bbbbbb" } else { "#eeeeee" };
        svg.line(x(tick), 40.0, x(tick), base, colour, 1.0);
        svg.text(
            x(tick),
            height - 8.0,
            &axis.label(tick),
            "middle",
            11.0,
            "normal",
        );
    }
    if !axis.ticks.iter().any(|t| (t - 1500.0).abs() < 1e-9) {
        svg.line(x(1500.0), 40.0, x(1500.0), base, "#bbbbbb", 1.0);
    }
    for (i, r) in ratings.iter().enumerate() {
        let y = 50.0 + row * i as f64;
        svg.text(
            left - 10.0,
            y + 4.0,
            &format!("{} ({:.0})", r.entrant, r.rating),
            "end",
            12.0,
            "normal",
        );
        // No bar where there is no interval (too few exchanges): a dot alone.
        if let (Some(low), Some(high)) = (r.low, r.high) {
            svg.line(x(low), y, x(high), y, PALETTE[i % PALETTE.len()], 3.0);
        }
        let _ = writeln!(
            svg.body,
            r#"<circle cx="{:.1}" cy="{y:.1}" r="5" fill="{}"/>"#,
            x(r.rating),
            PALETTE[i % PALETTE.len()]
        );
    }
    svg.finish()
}

/// Judge accuracy per question-answer configuration: a dot at the accuracy and a bar over
/// its Wilson 95% interval, with chance (50%) marked.
pub fn accuracy_chart(q: &QaFigures) -> String {
    let rows: Vec<_> = q
        .configurations
        .iter()
        .filter(|c| c.accuracy.share.is_some())
        .collect();
    let (left, right, row) = (380.0, 40.0, 24.0);
    let width = 900.0;
    let height = 80.0 + row * rows.len().max(1) as f64;
    let mut svg = Svg::new(
        width,
        height,
        "Judge accuracy per configuration (95% Wilson intervals)",
    );
    let axis = Axis::nice(0.0, 1.0);
    let x = |v: f64| axis.at(v, left, width - right);
    let base = height - 25.0;
    for &tick in &axis.ticks {
        svg.line(x(tick), 40.0, x(tick), base, "#dddddd", 1.0);
        svg.text(
            x(tick),
            height - 8.0,
            &format!("{:.0}%", tick * 100.0),
            "middle",
            11.0,
            "normal",
        );
    }
    // Chance: a judge guessing between two answers.
    svg.line(x(0.5), 40.0, x(0.5), base, "#888888", 1.0);
    svg.text(x(0.5), 36.0, "chance", "middle", 10.0, "normal");
    for (i, c) in rows.iter().enumerate() {
        let y = 50.0 + row * i as f64;
        let colour = PALETTE[QaFormat::ALL
            .iter()
            .position(|f| *f == c.format)
            .unwrap_or(0)];
        let label = match c.debaters.as_str() {
            "" => format!("{} · judge {}", c.format.as_str(), c.judge),
            d => format!("{} {d} · judge {}", c.format.as_str(), c.judge),
        };
        svg.text(
            left - 10.0,
            y + 4.0,
            &format!("{label} (n={})", c.accuracy.n),
            "end",
            11.0,
            "normal",
        );
        if let (Some(s), Some(l), Some(h)) = (c.accuracy.share, c.accuracy.low, c.accuracy.high) {
            svg.line(x(l), y, x(h), y, colour, 3.0);
            let _ = writeln!(
                svg.body,
                r#"<circle cx="{:.1}" cy="{y:.1}" r="5" fill="{colour}"/>"#,
                x(s)
            );
        }
    }
    svg.finish()
}

/// Each model's mean per criterion (both roles pooled by judgment count), one line each.
pub fn profile_chart(rows: &[ModelRole]) -> String {
    let (width, height, left, top, bottom) = (820.0, 420.0, 60.0, 50.0, 90.0);
    let mut svg = Svg::new(
        width,
        height,
        "Criteria profile by model (mean score, 1–10)",
    );
    let plot_h = height - top - bottom;
    let axis = Axis::nice(1.0, 10.0);
    let y = |v: f64| axis.at(v, top + plot_h, top);
    let step = (width - left - 180.0) / 6.0;
    for &v in &axis.ticks {
        svg.line(left, y(v), left + step * 6.0, y(v), "#eeeeee", 1.0);
        svg.text(
            left - 8.0,
            y(v) + 4.0,
            &axis.label(v),
            "end",
            11.0,
            "normal",
        );
    }
    // Each criterion's whole label, one word a line ("Principle" over "articulation").
    for (i, c) in Criterion::ALL.iter().enumerate() {
        for (line, word) in c.label().split(' ').enumerate() {
            svg.text(
                left + step * i as f64,
                height - bottom + 20.0 + 14.0 * line as f64,
                word,
                "middle",
                11.0,
                "normal",
            );
        }
    }
    let mut models: Vec<&str> = rows.iter().map(|r| r.model.as_str()).collect();
    models.dedup();
    for (k, model) in models.iter().enumerate() {
        let colour = PALETTE[k % PALETTE.len()];
        let points: Vec<(f64, f64)> = Criterion::ALL
            .iter()
            .enumerate()
            .filter_map(|(i, c)| {
                let cells: Vec<_> = rows
                    .iter()
                    .filter(|r| r.model == *model)
                    .map(|r| r.criteria[c.key()])
                    .collect();
                let n: usize = cells.iter().map(|c| c.n).sum();
                let sum: f64 = cells
                    .iter()
                    .filter_map(|c| c.mean.map(|m| m * c.n as f64))
                    .sum();
                (n > 0).then(|| (left + step * i as f64, y(sum / n as f64)))
            })
            .collect();
        let path: Vec<String> = points
            .iter()
            .map(|(px, py)| format!("{px:.1},{py:.1}"))
            .collect();
        let _ = writeln!(
            svg.body,
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2"/>"#,
            path.join(" ")
        );
        let ly = top + 18.0 * k as f64;
        svg.rect(width - 170.0, ly - 9.0, 12.0, 12.0, colour);
        svg.text(width - 152.0, ly + 2.0, model, "start", 12.0, "normal");
    }
    svg.finish()
}

/// Dilemmas as bars of mean team total, hardest first, with the spread between models.
pub fn difficulty_chart(rows: &[DilemmaDifficulty]) -> String {
    let (left, right, row) = (230.0, 120.0, 26.0);
    let width = 820.0;
    let height = 60.0 + row * rows.len().max(1) as f64;
    let mut svg = Svg::new(
        width,
        height,
        "Dilemma difficulty (mean team total out of 70; spread between models)",
    );
    // Bars start at a shared floor, not at 0 (see `bar_range`), and the axis says where.
    let (lo, hi) = crate::analysis::tables::bar_range(rows);
    let x = |v: f64| ((v - lo).max(0.0) / (hi - lo)) * (width - left - right);
    let bottom = 40.0 + row * rows.len().max(1) as f64;
    // Ticks at a nice step inside the bars' range, and always its floor, where bars start.
    let axis = Axis::nice(lo, hi);
    let mut ticks: Vec<f64> = axis
        .ticks
        .iter()
        .copied()
        .filter(|t| *t >= lo - 1e-9 && *t <= hi + 1e-9)
        .collect();
    if !ticks.iter().any(|t| (t - lo).abs() < 1e-9) {
        ticks.insert(0, lo);
    }
    for tick in ticks {
        svg.line(
            left + x(tick),
            40.0,
            left + x(tick),
            bottom - 6.0,
            "#eeeeee",
            1.0,
        );
        svg.text(
            left + x(tick),
            bottom + 6.0,
            &axis.label(tick),
            "middle",
            11.0,
            "normal",
        );
    }
    for (i, d) in rows.iter().enumerate() {
        let y = 40.0 + row * i as f64;
        svg.text(left - 8.0, y + 13.0, &d.dilemma_id, "end", 12.0, "normal");
        let mean = d.mean_total.mean.unwrap_or(0.0);
        svg.rect(
            left,
            y,
            x(mean),
            row - 6.0,
            if d.separates_models {
                "#d62728"
            } else {
                "#1f77b4"
            },
        );
        let spread = d
            .spread
            .value
            .map(|s| format!(", sd {s:.1}"))
            .unwrap_or_default();
        svg.text(
            left + x(mean) + 6.0,
            y + 13.0,
            &format!("{mean:.1}{spread}"),
            "start",
            11.0,
            "normal",
        );
    }
    svg.finish()
}

/// Pearson correlations between every pair of judges, as a heat map.
pub fn agreement_chart(agreement: &JudgeAgreement) -> String {
    let judges = agreement.judges();
    let (cell, left, top) = (70.0, 220.0, 60.0);
    let width = left + cell * judges.len().max(1) as f64 + 40.0;
    let height = top + cell * judges.len().max(1) as f64 + 120.0;
    let mut svg = Svg::new(
        width.max(420.0),
        height,
        "Judge agreement (Pearson r over shared scores)",
    );
    if judges.is_empty() {
        svg.text(
            width.max(420.0) / 2.0,
            60.0,
            "No exchange was scored by two judges or more.",
            "middle",
            12.0,
            "normal",
        );
        return svg.finish();
    }
    for (i, a) in judges.iter().enumerate() {
        svg.text(
            left - 8.0,
            top + cell * i as f64 + cell / 2.0 + 4.0,
            a,
            "end",
            12.0,
            "normal",
        );
        let _ = writeln!(
            svg.body,
            r#"<text x="{x:.1}" y="{y:.1}" text-anchor="start" font-size="12" transform="rotate(45 {x:.1} {y:.1})">{}</text>"#,
            escape(a),
            x = left + cell * i as f64 + cell / 2.0,
            y = top + cell * judges.len() as f64 + 14.0
        );
        for (j, b) in judges.iter().enumerate() {
            let r = if i == j {
                Some(1.0)
            } else {
                agreement
                    .pairs
                    .iter()
                    .find(|p| (p.a == *a && p.b == *b) || (p.a == *b && p.b == *a))
                    .and_then(|p| p.pearson.value)
            };
            let (fill, label) = match r {
                Some(r) => {
                    // White (r ≤ 0) to deep blue (r = 1).
                    let t = r.clamp(0.0, 1.0);
                    let c = |from: f64, to: f64| (from + (to - from) * t) as u8;
                    (
                        format!(
                            "#{:02x}{:02x}{:02x}",
                            c(255.0, 31.0),
                            c(255.0, 119.0),
                            c(255.0, 180.0)
                        ),
                        format!("{r:.2}"),
                    )
                }
                None => ("#eeeeee".to_string(), "–".to_string()),
            };
            let (x, y) = (left + cell * j as f64, top + cell * i as f64);
            svg.rect(x, y, cell - 2.0, cell - 2.0, &fill);
            svg.text(
                x + cell / 2.0,
                y + cell / 2.0 + 4.0,
                &label,
                "middle",
                12.0,
                "normal",
            );
        }
    }
    svg.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_profile_names_each_criterion_whole() {
        let svg = profile_chart(&[]);
        for c in Criterion::ALL {
            for word in c.label().split(' ') {
                assert!(svg.contains(&format!(">{word}<")), "{word}");
            }
        }
    }
    #[test]
    fn axes_have_five_to_eight_ticks_at_a_one_two_five_step() {
        let mut ranges = vec![
            (1400.0, 1600.0),
            (1351.2, 1622.9),
            (0.0, 1.0),
            (1.0, 10.0),
            (45.0, 60.0),
            (0.1, 14.1),
            (0.0, 15.5),
            (-3.2, 0.7),
            (5.0, 5.0),
            (f64::NAN, 2.0),
        ];
        // A sweep of widths and offsets.
        for i in 1..400 {
            let width = 0.37 * i as f64 * (1.0 + (i % 7) as f64);
            ranges.push((i as f64 * 3.3 - 500.0, i as f64 * 3.3 - 500.0 + width));
        }
        for (lo, hi) in ranges {
            let axis = Axis::nice(lo, hi);
            let n = axis.ticks.len();
            assert!((5..=8).contains(&n), "{lo}..{hi}: {axis:?}");
            let mantissa = axis.step / 10f64.powf(axis.step.log10().floor());
            assert!(
                [1.0, 2.0, 5.0].iter().any(|m| (mantissa - m).abs() < 1e-6),
                "{lo}..{hi}: step {}",
                axis.step
            );
            if lo.is_finite() && hi > lo {
                assert!(
                    axis.lo <= lo + 1e-9 && axis.hi >= hi - 1e-9,
                    "{lo}..{hi}: {axis:?}"
                );
            }
            for t in &axis.ticks {
                assert!(*t >= axis.lo - 1e-9 && *t <= axis.hi + 1e-9, "{axis:?}");
                let k = t / axis.step;
                assert!(
                    (k - k.round()).abs() < 1e-6,
                    "{t} is off the step: {axis:?}"
                );
            }
        }
        assert_eq!(
            Axis::nice(1400.0, 1600.0).ticks,
            [1400.0, 1450.0, 1500.0, 1550.0, 1600.0]
        );
        assert_eq!(Axis::nice(0.0, 1.0).label(0.6000000000000001), "0.6");
        assert_eq!(Axis::nice(-1.0, 1.0).label(-0.0), "0.0");
        assert_eq!(Axis::nice(-10.0, 10.0).label(-0.0), "0");
    }

    #[test]
    fn the_ratings_axis_has_nice_ticks_not_three() {
        let rating = |entrant: &str, low: f64, rating: f64, high: f64| Rating {
            entrant: entrant.into(),
            rating,
            low: Some(low),
            high: Some(high),
            matches: 3,
        };
        let svg = ratings_chart(
            &[
                rating("a", 1420.0, 1530.0, 1640.0),
                rating("b", 1360.0, 1470.0, 1580.0),
            ],
            "Ratings",
        );
        let labels: Vec<&str> = ["1350", "1400", "1450", "1500", "1550", "1600", "1650"]
            .into_iter()
            .filter(|l| svg.contains(&format!(">{l}</text>")))
            .collect();
        assert_eq!(labels.len(), 7, "{svg}");
    }
}
