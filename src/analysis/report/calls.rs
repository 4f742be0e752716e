//! The report's caveat on the calls themselves, for every protocol: answers cut at the
//! output-token limit and usage the server did not report, by model, as a Markdown table
//! and `calls_by_model.csv`. Results with neither (and results stored before either was
//! recorded) get no section, so their report reads as before.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::files::{Format, ReportError, write_csv};
use crate::analysis::calls::CallCounts;

/// Whether any answer was cut or any usage estimated: the only case with something to say.
pub(super) fn nothing_to_say(by_model: &BTreeMap<String, CallCounts>) -> bool {
    by_model
        .values()
        .all(|c| c.truncated_phases == 0 && c.estimated_usage_phases == 0)
}

/// Appends the section to a report, when there is something to say.
pub(super) fn markdown(s: &mut String, by_model: &BTreeMap<String, CallCounts>) {
    if nothing_to_say(by_model) {
        return;
    }
    let all = CallCounts::total(by_model.values());
    let _ = writeln!(s, "## Answers cut short and estimated usage\n");
    if all.truncated_phases > 0 {
        let _ = writeln!(
            s,
            "{} of {} answers ended at the output-token limit and may stop mid-thought. \
             A larger `max_tokens` for the model (models file) avoids it; each cut phase has `\"truncated\": true` in its round file.\n",
            all.truncated_phases, all.calls
        );
    }
    if all.usage_estimated {
        let models: Vec<&str> = by_model
            .iter()
            .filter(|(_, c)| c.usage_estimated)
            .map(|(m, _)| m.as_str())
            .collect();
        let _ = writeln!(
            s,
            "The server reported no token usage for {} answers (models: {}): their tokens, and the cost from them, are estimates, \
             and so are the totals that include them.\n",
            all.estimated_usage_phases,
            models.join(", ")
        );
    }
    let _ = writeln!(
        s,
        "| model | answers | cut at the token limit | usage estimated |"
    );
    let _ = writeln!(s, "|---|---|---|---|");
    for (model, c) in by_model {
        let estimated = match c.estimated_usage_phases {
            0 => "no".to_string(),
            n => format!("**yes** ({n} answers)"),
        };
        let cut = match c.truncated_phases {
            0 => "0".to_string(),
            n => format!("**{n}**"),
        };
        let _ = writeln!(s, "| {model} | {} | {cut} | {estimated} |", c.calls);
    }
    let _ = writeln!(s);
}

/// `calls_by_model.csv`: one row per model, when the section has something to say.
pub(super) fn files(
    by_model: &BTreeMap<String, CallCounts>,
    out: &Path,
    formats: &[Format],
) -> Result<Vec<PathBuf>, ReportError> {
    if !formats.contains(&Format::Csv) || nothing_to_say(by_model) {
        return Ok(Vec::new());
    }
    let rows = by_model
        .iter()
        .map(|(model, c)| {
            vec![
                model.clone(),
                c.calls.to_string(),
                c.truncated_phases.to_string(),
                c.estimated_usage_phases.to_string(),
            ]
        })
        .collect();
    Ok(vec![write_csv(
        out.join("calls_by_model.csv"),
        &[
            "model",
            "answers",
            "truncated_phases",
            "estimated_usage_phases",
        ],
        rows,
    )?])
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
        }
    }

    #[test]
    fn the_section_names_cut_answers_and_estimated_models_and_is_absent_without_them() {
        let mut by_model = BTreeMap::new();
        by_model.insert("a".to_string(), counts(10, 2, 0));
        by_model.insert("b".to_string(), counts(8, 0, 8));
        let mut s = String::new();
        markdown(&mut s, &by_model);
        assert!(
            s.contains("2 of 18 answers ended at the output-token limit"),
            "{s}"
        );
        assert!(s.contains("for 8 answers (models: b)"), "{s}");
        assert!(s.contains("| a | 10 | **2** | no |"), "{s}");
        assert!(s.contains("| b | 8 | 0 | **yes** (8 answers) |"), "{s}");

        let out = tempfile::tempdir().unwrap();
        let written = files(&by_model, out.path(), &[Format::Csv]).unwrap();
        let csv = std::fs::read_to_string(&written[0]).unwrap();
        assert_eq!(
            csv,
            "model,answers,truncated_phases,estimated_usage_phases\na,10,2,0\nb,8,0,8\n"
        );

        let plain: BTreeMap<String, CallCounts> =
            [("a".to_string(), counts(10, 0, 0))].into_iter().collect();
        let mut s = String::new();
        markdown(&mut s, &plain);
        assert!(s.is_empty(), "{s}");
        assert!(
            files(&plain, out.path(), &[Format::Csv])
                .unwrap()
                .is_empty()
        );
    }
}
