//! The summary printed at the end of a run, from the same [`Summary`] as `summary.json`.

use std::path::Path;

use ethics_bowl::analysis::Summary;
use ethics_bowl::analysis::mean_with_interval as cell;
use ethics_bowl::analysis::qa_share as share;
use ethics_bowl::analysis::tables::Cell;
use ethics_bowl::domain::ProtocolKind;

/// Prints the summary: every state's count, tokens and cost, then the protocol's table.
pub fn print_summary(s: &Summary, protocol: ProtocolKind, dir: &Path) {
    // The one vocabulary: a round left incomplete failed (with its error, listed after
    // the summary) or waits to run (not begun, or stopped part-way).
    let failed = s.unfinished.iter().filter(|u| u.error.is_some()).count();
    let queued = (s.incomplete + s.not_started).saturating_sub(failed);
    println!(
        "\n{} rounds: {} done, {} needs review, {} failed, {} queued; {} judgments; {} in / {} out tokens; {}",
        s.rounds,
        s.complete,
        s.needs_review,
        failed,
        queued,
        s.judgments,
        s.tokens.0,
        s.tokens.1,
        cost(s)
    );
    for line in caveats(s) {
        println!("{line}");
    }
    match protocol {
        ProtocolKind::StructuredDebate => {
            if let Some(side) = &s.structured_sides {
                println!(
                    "\nPro won {}, Con {}, {} ties of {} judgments (Pro's share of decided: {})",
                    side.pro_wins,
                    side.con_wins,
                    side.ties,
                    side.judgments,
                    share(&side.pro_share)
                );
            }
            println!(
                "\n{:<18} {:>10} {:>10} {:>12} {:>12}",
                "model", "judgments", "win rate", "total as Pro", "as Con"
            );
            let mean = |m: Option<f64>| m.map_or("-".into(), |v| format!("{v:.2}"));
            for (model, m) in &s.structured_models {
                let rate = m
                    .win_rate
                    .value
                    .map_or("-".to_string(), |w| format!("{:.0}%", w * 100.0));
                println!(
                    "{model:<18} {:>10} {rate:>10} {:>12} {:>12}",
                    m.judgments,
                    mean(m.pro_total.mean),
                    mean(m.con_total.mean)
                );
            }
            println!("\nresults: {}", dir.display());
            println!(
                "report:  ethics-bowl report {} (decision briefings in report/briefings/)",
                dir.display()
            );
        }
        ProtocolKind::QaDebate => {
            println!(
                "\n{:<14} {:>30}",
                "judge accuracy", "95% Wilson interval, n"
            );
            for (format, p) in &s.qa_accuracy {
                println!("{:<14} {:>30}", format.as_str(), share(p));
            }
            for (judge, formats) in &s.qa_accuracy_by_judge {
                println!("\njudge {judge}");
                for (format, p) in formats {
                    println!("  {:<12} {:>30}", format.as_str(), share(p));
                }
            }
            println!("\nresults: {}", dir.display());
            println!("report:  ethics-bowl report {}", dir.display());
        }
        ProtocolKind::EthicsBowl => {
            // Each mean with its 95% interval, n counting exchanges (the judges of one
            // debate count once), as the report gives them.
            println!(
                "\n{:<18} {:<28} {:<28} {:<28}",
                "model", "mean /70", "presenting", "responding"
            );
            let shown = |c: Option<&Cell>| c.map_or_else(|| "–".to_string(), cell);
            let mut rows: Vec<_> = s.models.iter().collect();
            rows.sort_by(|a, b| {
                b.1.total
                    .mean
                    .unwrap_or(0.0)
                    .total_cmp(&a.1.total.mean.unwrap_or(0.0))
            });
            for (name, m) in rows {
                println!(
                    "{:<18} {:<28} {:<28} {:<28}",
                    name,
                    shown(Some(&m.total)),
                    shown(m.presenting.as_ref().map(|r| &r.total)),
                    shown(m.responding.as_ref().map(|r| &r.total))
                );
            }
            println!(
                "(raw means with 95% intervals; n counts exchanges; `ethics-bowl report` adjusts for judges and sides)"
            );
            println!("\nresults: {}", dir.display());
            if s.needs_review > 0 {
                println!(
                    "rounds to review: ethics-bowl rounds {} --status needs-review",
                    dir.display()
                );
            }
        }
    }
}

/// What the counts above rest on: answers cut at the token limit and usage the server did
/// not report, each with the models concerned, and answers reused from the response cache.
fn caveats(s: &Summary) -> Vec<String> {
    let models = |pick: fn(&ethics_bowl::analysis::calls::CallCounts) -> usize| {
        s.calls_by_model
            .iter()
            .filter(|(_, c)| pick(c) > 0)
            .map(|(m, c)| format!("{m} {}", pick(c)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut lines = Vec::new();
    if s.truncated_phases > 0 {
        lines.push(format!(
            "{} answers cut at the token limit ({}); a larger max_tokens avoids it",
            s.truncated_phases,
            models(|c| c.truncated_phases)
        ));
    }
    if s.usage_estimated {
        lines.push(format!(
            "tokens and cost are estimates in part: no usage reported for {} answers ({})",
            s.estimated_usage_phases,
            models(|c| c.estimated_usage_phases)
        ));
    }
    if s.reused_from_cache > 0 {
        lines.push(reused_line(s));
    }
    lines
}

/// How many answers came from the response cache.
fn reused_line(s: &Summary) -> String {
    format!(
        "{} answers reused from the response cache, not new samples (the {} in / {} out tokens \
         their first calls used are not in the tokens and cost above)",
        s.reused_from_cache, s.reused_tokens.0, s.reused_tokens.1
    )
}

/// The estimated cost, said to be partial when some models have no price, with the prompt
/// tokens a provider's cache served and what that saved, when it served any.
fn cost(s: &Summary) -> String {
    let cost = if s.cost_is_partial {
        format!(
            "${:.4} (partial: no price for {})",
            s.cost_usd,
            s.unpriced_models.join(", ")
        )
    } else {
        format!("${:.4}", s.cost_usd)
    };
    if s.cached_input_tokens > 0 {
        format!(
            "{cost}; {} input tokens cached, saving ${:.4}",
            s.cached_input_tokens, s.cache_saved_usd
        )
    } else {
        cost
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ethics_bowl::analysis::calls::CallCounts;

    #[test]
    fn the_cost_says_what_the_cache_served_and_saved_when_it_served_any() {
        let mut s = Summary {
            cost_usd: 0.5,
            ..Summary::default()
        };
        assert_eq!(cost(&s), "$0.5000");
        s.cached_input_tokens = 1200;
        s.cache_saved_usd = 0.125;
        assert_eq!(
            cost(&s),
            "$0.5000; 1200 input tokens cached, saving $0.1250"
        );
    }

    #[test]
    fn cut_answers_and_estimated_usage_get_a_line_each_naming_the_models() {
        let mut s = Summary::default();
        assert!(caveats(&s).is_empty());
        let counts = |truncated_phases, estimated_usage_phases| CallCounts {
            calls: 4,
            truncated_phases,
            estimated_usage_phases,
            usage_estimated: estimated_usage_phases > 0,
            reused_phases: 0,
        };
        s.calls_by_model.insert("a".into(), counts(2, 0));
        s.calls_by_model.insert("b".into(), counts(1, 4));
        s.truncated_phases = 3;
        s.estimated_usage_phases = 4;
        s.usage_estimated = true;
        assert_eq!(
            caveats(&s),
            [
                "3 answers cut at the token limit (a 2, b 1); a larger max_tokens avoids it",
                "tokens and cost are estimates in part: no usage reported for 4 answers (b 4)"
            ]
        );
    }

    #[test]
    fn answers_reused_from_the_response_cache_get_a_line() {
        let mut s = Summary::default();
        assert!(caveats(&s).is_empty());
        s.reused_from_cache = 12;
        s.reused_tokens = (3400, 560);
        assert_eq!(
            caveats(&s),
            [
                "12 answers reused from the response cache, not new samples (the 3400 in / 560 out \
                 tokens their first calls used are not in the tokens and cost above)"
            ]
        );
    }
}
