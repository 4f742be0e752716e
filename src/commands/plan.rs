//! `ethics-bowl plan RESULTS --detect D`: from a pilot run's variance, how many more
//! repetitions (or dilemmas, topics, items) each comparison of its report needs for 80%
//! power to detect a difference of D; a table on stdout, or `--json`. The arithmetic is
//! `ethics_bowl::analysis::power`, the comparisons `ethics_bowl::analysis::plan`.

use std::collections::BTreeMap;
use std::path::Path;

use ethics_bowl::analysis::plan::{
    Comparison, Detect, Outcome, Plan, PlanError, ProtocolPlan, Scale, Setting, Unit, plan,
};
use ethics_bowl::domain::ProtocolKind;
use ethics_bowl::sanitize::sanitize;

use super::UsageError;

/// Plans from the rounds stored in `dir`.
pub fn run(dir: &Path, detect: f64, detect_total: Option<f64>, json: bool) -> anyhow::Result<()> {
    if !dir.is_dir() {
        return Err(UsageError(format!(
            "{}: no such folder; give the results folder of a pilot run (results/<tournament>, \
             as `ethics-bowl run CONFIG` writes it)",
            dir.display()
        ))
        .into());
    }
    let (store, rounds) = super::stored_rounds(dir)?;
    if rounds.is_empty() {
        return Err(UsageError(format!(
            "{}: no rounds to plan from; run the pilot first (ethics-bowl run CONFIG)",
            dir.display()
        ))
        .into());
    }
    let record = match store.load_tournament() {
        Ok(record) => record,
        Err(e) => {
            eprintln!(
                "warning: {e}; the pilot's repetitions and dilemmas are read from its rounds"
            );
            None
        }
    };
    let asked = Detect {
        points: detect,
        side_total: detect_total,
    };
    let plan =
        plan(&rounds, record.as_ref(), asked).map_err(|e| usage(&e, detect, detect_total))?;
    let shares = plan.protocols.iter().any(|p| {
        matches!(
            p.protocol,
            ProtocolKind::QaDebate | ProtocolKind::StructuredDebate
        )
    });
    if shares && detect < 1.0 {
        eprintln!(
            "note: --detect {detect} is a fraction of one accuracy point; for {} points write \
             --detect {}",
            detect * 100.0,
            detect * 100.0
        );
    }
    if json {
        super::json::print_versioned(&plan)?;
    } else {
        print!("{}", text(&plan));
    }
    Ok(())
}

/// A plan refused, said with the flag to change (exit code 2).
fn usage(e: &PlanError, detect: f64, detect_total: Option<f64>) -> UsageError {
    UsageError(match e {
        PlanError::Detect(bad) => format!(
            "--detect {detect}: {bad}; give the difference to detect in points of the 70-point \
             total (Ethics Bowl) or in accuracy or win-rate points (question-answer and \
             structured debates: 10 means 10 percentage points)"
        ),
        PlanError::SideTotal(bad) => format!(
            "--detect-total {}: {bad}; give points of the structured debate's 1–10 side total, \
             e.g. 0.5",
            detect_total.unwrap_or_default()
        ),
        PlanError::NoSideTotals => {
            format!("--detect-total: {e}; leave it out for this folder")
        }
        PlanError::NoRounds => e.to_string(),
    })
}

/// The protocol's name in the table's heading.
fn title(kind: ProtocolKind) -> &'static str {
    match kind {
        ProtocolKind::EthicsBowl => "Ethics Bowl",
        ProtocolKind::QaDebate => "Question-answer debate",
        ProtocolKind::StructuredDebate => "Structured debate",
    }
}

/// Prose lines are wrapped at this width (the tables are not).
const WIDTH: usize = 92;

/// `text` wrapped at [`WIDTH`], each line ended, continuation lines indented by `indent`.
fn wrap(text: &str, indent: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > WIDTH {
            out.push_str(&line);
            out.push('\n');
            line = indent.to_string();
        } else if !line.is_empty() && line != indent {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.trim().is_empty() {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The plan as readable text: per protocol, the pilot, a table, and what to know.
fn text(plan: &Plan) -> String {
    let mut head = format!(
        "Units for {:.0}% power (two-sided α = {}) to detect a difference of D = {}",
        plan.power * 100.0,
        plan.alpha,
        number(plan.detect.points)
    );
    if let Some(t) = plan.detect.side_total {
        head.push_str(&format!(" (side totals: {})", number(t)));
    }
    head.push('.');
    let mut out = wrap(&head, "");
    for p in &plan.protocols {
        out.push('\n');
        out.push_str(&protocol_text(p));
    }
    out.push('\n');
    out.push_str(&wrap(
        "found: the pilot's 95% interval already excludes zero. The estimates are the pilot's, \
         for reading: the plan is for a true difference of D, not for the pilot's estimate \
         (planning for an observed effect only restates the pilot's p-value). It holds the \
         pilot's design (pairings, judges and judgments per unit) and scales the standard \
         error as 1/√units.",
        "",
    ));
    out
}

/// The pilot in words, and D on each scale its comparisons use.
fn pilot_text(p: &ProtocolPlan) -> String {
    let d = &p.design;
    let mut line = format!(
        "{}: the pilot has {} {} ({} judgments)",
        title(p.protocol),
        p.pilot_units,
        p.unit.plural(),
        p.judgments
    );
    match p.unit {
        Unit::Exchange => {
            if let Some(per) = d.units_per_repetition {
                let what = match p.protocol {
                    ProtocolKind::StructuredDebate => "topics",
                    ProtocolKind::EthicsBowl | ProtocolKind::QaDebate => "dilemmas",
                };
                line.push_str(&format!(
                    "; its schedule: repetitions = {} of {per} exchanges{}",
                    d.repetitions,
                    d.dilemmas
                        .map(|n| format!(" over {n} {what}"))
                        .unwrap_or_default()
                ));
            }
        }
        Unit::Item => {
            let levels: Vec<String> = d
                .items_per_level
                .iter()
                .map(|(l, n)| format!("{n} items of {}", sanitize(l)))
                .collect();
            if !levels.is_empty() {
                line.push_str(&format!("; its sample: {}", levels.join(", ")));
            }
        }
    }
    if !d.from_schedule {
        line.push_str(" (read from the rounds: there is no tournament.json)");
    }
    line.push('.');
    let mut scales: Vec<(Scale, f64)> = Vec::new();
    for c in &p.comparisons {
        if !scales.iter().any(|(s, _)| *s == c.scale) {
            scales.push((c.scale, c.detect));
        }
    }
    if !scales.is_empty() {
        let ds: Vec<String> = scales
            .iter()
            .map(|(s, d)| format!("{} {}", number(*d), s.describe()))
            .collect();
        line.push_str(&format!(" D = {}.", ds.join("; ")));
    }
    wrap(&line, "")
}

/// One protocol's section.
fn protocol_text(p: &ProtocolPlan) -> String {
    let mut out = pilot_text(p);
    if !p.comparisons.is_empty() {
        out.push('\n');
        let mut rows = vec![vec![
            "comparison".to_string(),
            "pilot estimate [95% interval]".into(),
            "found".into(),
            "SE".into(),
            "power now".into(),
            format!("{} needed", p.unit.plural()),
            "set".into(),
        ]];
        let mut reasons: BTreeMap<String, Vec<String>> = BTreeMap::new();
        // Per level (none outside the question-answer debate): the comparison that needs
        // the most.
        let mut most: BTreeMap<Option<&str>, (u64, String, &[Setting])> = BTreeMap::new();
        for c in &p.comparisons {
            let label = label(c);
            match &c.outcome {
                Outcome::CannotEstimate { reason } => {
                    reasons
                        .entry(reason.clone())
                        .or_default()
                        .push(label.clone());
                }
                Outcome::More { units, settings } => {
                    let slot = most
                        .entry(c.level.as_deref())
                        .or_insert((0, String::new(), &[]));
                    if *units > slot.0 {
                        *slot = (*units, label.clone(), settings);
                    }
                }
                Outcome::AlreadyEnough => {}
            }
            rows.push(row(c, label));
        }
        out.push_str(&table(&rows));
        out.push('\n');
        for (units, label, settings) in most.values() {
            out.push_str(&wrap(
                &format!(
                    "for all of them: {}; the most any needs is {units} {} ({label})",
                    settings_text(settings),
                    p.unit.plural()
                ),
                "  ",
            ));
        }
        if most.is_empty() && reasons.is_empty() {
            out.push_str("for all of them: the pilot is already enough\n");
        }
        for (reason, labels) in reasons {
            out.push_str(&wrap(
                &format!(
                    "cannot be estimated ({}): {}",
                    labels.join(", "),
                    sanitize(&reason)
                ),
                "  ",
            ));
        }
    }
    for note in &p.notes {
        out.push_str(&wrap(&format!("note: {note}"), "  "));
    }
    out
}

/// The comparison's name in the table.
fn label(c: &Comparison) -> String {
    let mut l = sanitize(&c.label);
    if let Some(judge) = &c.judge {
        let level = c
            .level
            .as_deref()
            .map(|l| format!(", {}", sanitize(l)))
            .unwrap_or_default();
        l = format!("judge {}{level}: {l}", sanitize(judge));
    }
    l
}

/// A number without trailing zeros (3, 2.5, 0.25).
fn number(v: f64) -> String {
    let s = format!("{v:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// One comparison's row.
fn row(c: &Comparison, label: String) -> Vec<String> {
    let places = match c.scale {
        Scale::Total70 | Scale::SideTotal => 2,
        Scale::Accuracy | Scale::WinRate => 1,
    };
    let signed = |v: f64| format!("{v:+.places$}");
    let estimate = match (c.estimate, c.low, c.high) {
        (Some(e), Some(l), Some(h)) => format!("{} [{}, {}]", signed(e), signed(l), signed(h)),
        (Some(e), _, _) => format!("{} [no interval]", signed(e)),
        _ => "–".into(),
    };
    let found = match c.detected {
        Some(true) => "yes",
        Some(false) => "no",
        None => "–",
    };
    let se = c.pilot_se.map_or("–".into(), |s| format!("{s:.places$}"));
    let power = c
        .power_now
        .map_or("–".into(), |p| format!("{:.0}%", p * 100.0));
    let (needed, set) = match &c.outcome {
        Outcome::AlreadyEnough => ("already enough".to_string(), "as in the pilot".to_string()),
        Outcome::More { units, settings } => (units.to_string(), settings_text(settings)),
        Outcome::CannotEstimate { .. } => ("cannot be estimated".into(), "see below".into()),
    };
    vec![label, estimate, found.into(), se, power, needed, set]
}

/// The settings that give the units: the first, then the alternatives.
fn settings_text(settings: &[Setting]) -> String {
    let one = |s: &Setting| {
        if s.more == 0 {
            format!(
                "{} = {} (the pilot's, once all its rounds are judged)",
                s.key, s.value
            )
        } else {
            format!("{} = {} ({} more)", s.key, s.value, s.more)
        }
    };
    match settings {
        [] => "–".into(),
        [first, rest @ ..] => {
            let mut t = one(first);
            for s in rest {
                t.push_str(", or ");
                t.push_str(&one(s));
            }
            t
        }
    }
}

/// Rows as a table, columns padded to their widest cell, the heading underlined.
fn table(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |r: &[String]| {
        let cells: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(s, w)| format!("{s}{}", " ".repeat(w - s.chars().count())))
            .collect();
        format!("  {}\n", cells.join("  ").trim_end())
    };
    let mut out = String::new();
    for (i, r) in rows.iter().enumerate() {
        out.push_str(&line(r));
        if i == 0 {
            let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            out.push_str(&line(&rule));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_pads_its_columns_and_underlines_its_heading() {
        let rows = vec![
            vec!["a".to_string(), "bb".into()],
            vec!["ccc".into(), "d".into()],
        ];
        assert_eq!(table(&rows), "  a    bb\n  ---  --\n  ccc  d\n");
    }

    #[test]
    fn settings_read_as_the_tournament_file_sets_them() {
        let s = |key: &str, value, more| Setting {
            key: key.into(),
            value,
            more,
        };
        assert_eq!(
            settings_text(&[s("repetitions", 4, 3), s("dilemmas", 25, 18)]),
            "repetitions = 4 (3 more), or dilemmas = 25 (18 more)"
        );
        assert_eq!(number(3.0), "3");
        assert_eq!(number(2.5), "2.5");
    }
}
