//! Adaptive pairing against the square: seeded tournaments of eight simulated models with
//! known skills (seven dilemmas, every ordered pair: 392 rounds; three rotating judges of
//! position bias 0, 0.3 and 0.8 points a criterion), each ranked by the design's
//! Bradley–Terry fit with side and judge terms after every wave of rounds, for the adaptive
//! design (the tool's own pick rule, `design::next_wave`), a uniform random subset of the
//! same size, a balanced subset (every pair alike), an oracle that knows the true skills,
//! and the full round-robin. Prints mean Kendall τ with the true order and the share of
//! tournaments whose top model is right at each budget, the figures at 40% of the rounds
//! with 95% bootstrap intervals over tournaments, checks the target (adaptive reaches the
//! full round-robin's mean τ within 0.02 with at most 40% of its rounds, and beats the
//! uniform subset at every budget), and writes the curve as an SVG.
//!
//! cargo run --release --example bench_adaptive [TOURNAMENTS] [SVG] [SKILL_STEP]
//!
//! Defaults: 100 tournaments, docs/adaptive-curve.svg, skills 0.07 apart (adjacent models
//! win about 65% of their rounds; `tests/adaptive_benchmark.rs` uses the closer field of
//! docs/adaptive-curve-close.svg, 0.035 apart, about 58%).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a benchmark: a failure stops it

#[path = "../tests/support/adaptive_study.rs"]
#[allow(dead_code)] // the closer field's step is the test's
mod adaptive_study;

use adaptive_study::{Curve, Row, Score, Tournament, bootstrap_mean, curve, one};

fn main() {
    let mut args = std::env::args().skip(1);
    let tournaments: u64 = args.next().map_or(100, |a| a.parse().expect("a count"));
    let svg = args
        .next()
        .unwrap_or_else(|| "docs/adaptive-curve.svg".to_string());
    let skill_step: f64 = args.next().map_or(0.07, |a| a.parse().expect("a number"));
    let started = std::time::Instant::now();
    let all: Vec<_> = (0..tournaments)
        .map(|seed| one(seed, 8, skill_step))
        .collect();
    let c = curve(&all);
    println!(
        "{tournaments} tournaments of 8 models {skill_step} apart in skill, 7 dilemmas, {} rounds in full; {:.1} s",
        c.full_rounds,
        started.elapsed().as_secs_f64()
    );
    println!(
        "{:>7} {:>6} {:>8} {:>8} {:>8} {:>8} {:>8} {:>6} {:>6} {:>6} {:>6} {:>6}",
        "rounds",
        "share",
        "τ adapt",
        "τ unif",
        "τ bal",
        "τ orcl",
        "τ seeing",
        "top a",
        "top u",
        "top b",
        "top o",
        "top s"
    );
    for r in &c.rows {
        println!(
            "{:>7} {:>5.0}% {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>5.0}% {:>5.0}% {:>5.0}% {:>5.0}% {:>5.0}%",
            r.rounds,
            100.0 * r.rounds as f64 / c.full_rounds as f64,
            r.adaptive,
            r.uniform,
            r.balanced,
            r.oracle,
            r.seeing,
            100.0 * r.adaptive_top,
            100.0 * r.uniform_top,
            100.0 * r.balanced_top,
            100.0 * r.oracle_top,
            100.0 * r.seeing_top
        );
    }
    let full: Vec<f64> = all.iter().map(|t| t.full.tau).collect();
    let [lo, hi] = bootstrap_mean(&full);
    println!(
        "full round-robin: τ {:.3} (95% interval {lo:.3} to {hi:.3}, n = {tournaments} tournaments), top right in {:.0}%; by the report's fit without side or judge terms τ {:.3}",
        c.full_tau,
        100.0 * c.full_top,
        c.full_plain_tau
    );
    forty(&c, &all);
    for (name, pick) in [
        ("adaptive", (|r: &Row| r.adaptive) as fn(&Row) -> f64),
        ("oracle allocation", |r: &Row| r.oracle),
        ("seeing oracle", |r: &Row| r.seeing),
        ("balanced", |r: &Row| r.balanced),
    ] {
        reach(&c, name, pick);
    }
    let below: Vec<usize> = c
        .rows
        .iter()
        .filter(|r| r.rounds < c.full_rounds && r.adaptive <= r.uniform)
        .map(|r| r.rounds)
        .collect();
    if below.is_empty() {
        println!("adaptive beats the uniform subset at every budget below the full schedule: met");
    } else {
        println!("adaptive does not beat the uniform subset at {below:?} rounds: NOT met");
    }
    std::fs::write(&svg, chart(&c, tournaments, skill_step)).expect("the SVG is written");
    println!("wrote {svg}");
}

/// The figures at the largest budget within 40% of the rounds: each design's mean τ and the
/// full round-robin's lead over it (paired by tournament), with 95% bootstrap intervals.
fn forty(c: &Curve, all: &[Tournament]) {
    let k = c
        .rows
        .iter()
        .rposition(|r| r.rounds as f64 <= 0.4 * c.full_rounds as f64)
        .expect("a budget within 40%");
    let rounds = c.rows[k].rounds;
    println!(
        "at {rounds} rounds ({:.0}%), n = {} tournaments, 95% bootstrap intervals:",
        100.0 * rounds as f64 / c.full_rounds as f64,
        all.len()
    );
    type Scores = fn(&Tournament) -> &[Score];
    let designs: [(&str, Scores); 5] = [
        ("adaptive", |t| &t.adaptive),
        ("uniform", |t| &t.uniform),
        ("balanced", |t| &t.balanced),
        ("oracle allocation", |t| &t.oracle),
        ("seeing oracle", |t| &t.seeing),
    ];
    for (name, scores) in designs {
        let tau: Vec<f64> = all.iter().map(|t| scores(t)[k].tau).collect();
        let lead: Vec<f64> = all.iter().map(|t| t.full.tau - scores(t)[k].tau).collect();
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        let [lo, hi] = bootstrap_mean(&tau);
        let [dlo, dhi] = bootstrap_mean(&lead);
        println!(
            "  {name:<17} τ {:.3} ({lo:.3} to {hi:.3}); full round-robin ahead by {:.3} ({dlo:.3} to {dhi:.3})",
            mean(&tau),
            mean(&lead)
        );
    }
}

/// Where a design first comes within 0.02 of the full round-robin's mean τ.
fn reach(c: &Curve, name: &str, pick: fn(&Row) -> f64) {
    match c.rows.iter().find(|r| pick(r) >= c.full_tau - 0.02) {
        Some(r) => println!(
            "{name} reaches the full round-robin's τ within 0.02 at {} rounds ({:.0}% of {}): target ≤ 40% {}",
            r.rounds,
            100.0 * r.rounds as f64 / c.full_rounds as f64,
            c.full_rounds,
            if r.rounds as f64 <= 0.4 * c.full_rounds as f64 {
                "met"
            } else {
                "NOT met"
            }
        ),
        None => {
            println!("{name} never reaches the full round-robin's τ within 0.02: target NOT met")
        }
    }
}

/// The curve: mean τ against rounds, adaptive and uniform, the full round-robin's τ as a
/// line, and 40% of the rounds marked.
fn chart(c: &Curve, tournaments: u64, skill_step: f64) -> String {
    let (w, h, left, right, top, bottom) = (640.0, 400.0, 60.0, 20.0, 40.0, 50.0);
    let lo = c
        .rows
        .iter()
        .map(|r| {
            r.adaptive
                .min(r.uniform)
                .min(r.balanced)
                .min(r.oracle)
                .min(r.seeing)
        })
        .fold(f64::INFINITY, f64::min)
        .min(c.full_tau)
        .max(-1.0);
    let y_lo = (lo * 10.0).floor() / 10.0;
    let y_hi = 1.0;
    let x_hi = c.full_rounds as f64;
    let x = |v: f64| left + (w - left - right) * v / x_hi;
    let y = |v: f64| top + (h - top - bottom) * (y_hi - v) / (y_hi - y_lo);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
         font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">Ranking accuracy against rounds \
         ({tournaments} seeded tournaments of 8 models, skills {skill_step} apart)</text>\n",
        w / 2.0
    );
    let mut tick = y_lo;
    while tick <= y_hi + 1e-9 {
        s += &format!(
            "<line x1=\"{left}\" x2=\"{}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{tick:.1}</text>\n",
            w - right,
            y(tick),
            y(tick),
            left - 6.0,
            y(tick) + 4.0
        );
        tick += 0.1;
    }
    let mut xt = 0.0;
    while xt <= x_hi + 1e-9 {
        s += &format!(
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{xt:.0}</text>\n",
            x(xt),
            h - bottom + 16.0
        );
        xt += 56.0;
    }
    s += &format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">rounds played (of {})</text>\n\
         <text x=\"16\" y=\"{}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {})\">mean Kendall τ with the true order</text>\n",
        (left + w - right) / 2.0,
        h - 12.0,
        c.full_rounds,
        (top + h - bottom) / 2.0,
        (top + h - bottom) / 2.0
    );
    let forty = 0.4 * x_hi;
    s += &format!(
        "<line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{top}\" y2=\"{}\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>\
         <text x=\"{:.1}\" y=\"{}\" fill=\"#666\">40%</text>\n",
        x(forty),
        x(forty),
        h - bottom,
        x(forty) + 4.0,
        top + 12.0
    );
    s += &format!(
        "<line x1=\"{left}\" x2=\"{}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#444\" stroke-dasharray=\"6 3\"/>\n",
        w - right,
        y(c.full_tau),
        y(c.full_tau)
    );
    let line = |pick: &dyn Fn(&Row) -> f64, colour: &str| {
        let points: Vec<String> = c
            .rows
            .iter()
            .map(|r| format!("{:.1},{:.1}", x(r.rounds as f64), y(pick(r))))
            .collect();
        format!(
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" points=\"{}\"/>\n",
            points.join(" ")
        )
    };
    s += &line(&|r| r.adaptive, "#1f77b4");
    s += &line(&|r| r.uniform, "#d62728");
    s += &line(&|r| r.balanced, "#2ca02c");
    s += &line(&|r| r.oracle, "#9467bd");
    s += &line(&|r| r.seeing, "#ff7f0e");
    let legend = [
        ("#1f77b4", "adaptive (pairings = \"adaptive\")", ""),
        ("#ff7f0e", "seeing oracle (knows the truth)", ""),
        ("#9467bd", "oracle allocation (knows skills)", ""),
        ("#2ca02c", "balanced subset", ""),
        ("#d62728", "uniform random subset", ""),
        ("#444", "full round-robin (392 rounds)", "6 3"),
    ];
    for (k, (colour, label, dash)) in legend.iter().enumerate() {
        let ly = h - bottom - 108.0 + 16.0 * k as f64;
        s += &format!(
            "<line x1=\"{}\" x2=\"{}\" y1=\"{ly}\" y2=\"{ly}\" stroke=\"{colour}\" stroke-width=\"2\" stroke-dasharray=\"{dash}\"/>\
             <text x=\"{}\" y=\"{}\">{}</text>\n",
            w - 300.0,
            w - 276.0,
            w - 270.0,
            ly + 4.0,
            label.replace('"', "&quot;")
        );
    }
    s += "</svg>\n";
    s
}
