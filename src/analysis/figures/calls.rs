//! "Answers cut short and estimated usage", for every protocol: answers cut at the
//! output-token limit and usage the server did not report, by model, and
//! `calls_by_model.csv`, with how many answers the response cache gave instead of a call.
//! Results with none of these (and results stored before they were recorded) get no
//! section, so their report reads as before.

use std::collections::BTreeMap;

use super::{Link, Section, Table, Text, Value};
use crate::analysis::calls::{CallCounts, nothing_to_say};

/// The section, when some answer was cut or some usage estimated.
pub(super) fn section(by_model: &BTreeMap<String, CallCounts>) -> Option<Section> {
    if nothing_to_say(by_model) {
        return None;
    }
    let all = CallCounts::total(by_model.values());
    let mut s = Section::new("Answers cut short and estimated usage");
    if all.truncated_phases > 0 {
        s.paragraph(
            Text::plain(format!(
                "{} of {} answers ended at the output-token limit and may stop mid-thought. A larger ",
                all.truncated_phases, all.calls
            ))
            .code("max_tokens")
            .and(" for the model (models file) avoids it; each cut phase has ")
            .code("\"truncated\": true")
            .and(" in its round file."),
        );
    }
    if all.usage_estimated {
        let models: Vec<&str> = by_model
            .iter()
            .filter(|(_, c)| c.usage_estimated)
            .map(|(m, _)| m.as_str())
            .collect();
        s.plain(format!(
            "The server reported no token usage for {} answers (models: {}): their tokens, and the cost \
             from them, are estimates, and so are the totals that include them.",
            all.estimated_usage_phases,
            models.join(", ")
        ));
    }
    if all.reused_phases > 0 {
        s.paragraph(
            Text::plain(format!(
                "{} of {} answers were reused from the response cache (",
                all.reused_phases, all.calls
            ))
            .code("cache = true")
            .and(
                ", for development): they are the answers of earlier calls, not new samples, \
                 so every figure built on them rests on those earlier draws; each has ",
            )
            .code("\"reused_from_cache\"")
            .and(" in its round file. Report a run made without the cache."),
        );
    }
    let mut t = Table::new(
        "Answers cut short",
        [
            "model",
            "answers",
            "cut at the token limit",
            "usage estimated",
        ],
    );
    let mut tidy = Vec::new();
    for (model, c) in by_model {
        let estimated = match c.estimated_usage_phases {
            0 => Value::text("no"),
            n => Value::Strong("yes".into(), format!(" ({n} answers)")),
        };
        let cut = match c.truncated_phases {
            0 => Value::Count(0),
            n => Value::strong(n.to_string()),
        };
        t.row(
            vec![Value::text(model), Value::Count(c.calls), cut, estimated],
            Link::model(model),
        );
        tidy.push(vec![
            Value::text(model),
            Value::Count(c.calls),
            Value::Count(c.truncated_phases),
            Value::Count(c.estimated_usage_phases),
        ]);
    }
    s.table(t.with_tidy(
        "calls_by_model.csv",
        [
            "model",
            "answers",
            "truncated_phases",
            "estimated_usage_phases",
        ],
        tidy,
    ));
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(calls: usize, truncated: usize, estimated: usize) -> CallCounts {
        CallCounts {
            calls,
            truncated_phases: truncated,
            estimated_usage_phases: estimated,
            usage_estimated: estimated > 0,
            reused_phases: 0,
        }
    }

    #[test]
    fn the_section_names_cut_answers_and_estimated_models_and_is_absent_without_them() {
        let mut by_model = BTreeMap::new();
        by_model.insert("a".to_string(), counts(10, 2, 0));
        by_model.insert("b".to_string(), counts(8, 0, 8));
        let section = section(&by_model).unwrap();
        let s = super::super::markdown(std::slice::from_ref(&section));
        assert!(
            s.contains("2 of 18 answers ended at the output-token limit"),
            "{s}"
        );
        assert!(s.contains("for 8 answers (models: b)"), "{s}");
        assert!(s.contains("| a | 10 | **2** | no |"), "{s}");
        assert!(s.contains("| b | 8 | 0 | **yes** (8 answers) |"), "{s}");
        let tidy = section.tables().next().unwrap().tidy.clone().unwrap();
        let rows: Vec<Vec<String>> = tidy
            .rows
            .iter()
            .map(|r| r.iter().map(Value::csv).collect())
            .collect();
        assert_eq!(rows, [["a", "10", "2", "0"], ["b", "8", "0", "8"]]);

        let plain: BTreeMap<String, CallCounts> =
            [("a".to_string(), counts(10, 0, 0))].into_iter().collect();
        assert!(super::section(&plain).is_none());
    }

    #[test]
    fn answers_reused_from_the_response_cache_are_said_not_to_be_new_samples() {
        let reused = CallCounts {
            reused_phases: 6,
            ..counts(10, 0, 0)
        };
        let by_model: BTreeMap<String, CallCounts> =
            [("a".to_string(), reused)].into_iter().collect();
        let section = section(&by_model).unwrap();
        let s = super::super::markdown(std::slice::from_ref(&section));
        assert!(
            s.contains("6 of 10 answers were reused from the response cache")
                && s.contains("not new samples"),
            "{s}"
        );
    }
}
