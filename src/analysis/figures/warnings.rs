//! "Warnings from the run", for every protocol, first in the report: what `tournament.json`
//! recorded as the run was planned and run (judge confounds and balance, the inputs'
//! problems, round files set aside), so that a reader meets them before the figures they
//! qualify.

use super::{Section, Text};

/// The leads of the schedule's warnings, shown in bold.
const LEADS: [&str; 2] = ["judge confound", "judge balance"];

/// The section, when the run recorded any warning.
pub(super) fn section(warnings: &[String]) -> Option<Section> {
    if warnings.is_empty() {
        return None;
    }
    let mut s = Section::new("Warnings from the run");
    s.paragraph(
        Text::plain("As ")
            .code("tournament.json")
            .and(" records them. A ")
            .emphasis("judge confound")
            .and(
                " means a judge's leniency cannot be told apart from the pairing or the models it \
                 scored: the figures that compare those models carry it.",
            ),
    );
    s.list(
        warnings
            .iter()
            .map(|w| {
                let w = crate::sanitize::sanitize(w);
                match LEADS
                    .iter()
                    .find(|lead| w.starts_with(&format!("{lead}: ")))
                {
                    Some(lead) => Text::default()
                        .strong(*lead)
                        .quote(w[lead.len()..].to_string()),
                    None => Text::default().quote(w),
                }
            })
            .collect(),
    );
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::figures::markdown;

    #[test]
    fn the_section_leads_each_schedule_warning_in_bold_and_escapes_the_rest() {
        assert_eq!(section(&[]), None);
        let s = section(&[
            "judge confound: 6 of 6 ordered pairings are scored by one judge only (a vs b: c in all 7 rounds)".into(),
            "dilemma \"<b>[x]</b>\": no stakeholders; the list is empty".into(),
        ])
        .unwrap();
        let md = markdown(&[s]);
        assert!(
            md.starts_with("## Warnings from the run\n\nAs `tournament.json` records them."),
            "{md}"
        );
        assert!(
            md.contains("- **judge confound**: 6 of 6 ordered pairings are scored by one judge only (a vs b: c in all 7 rounds)\n"),
            "{md}"
        );
        assert!(
            md.contains(
                "- dilemma \"&lt;b&gt;\\[x]&lt;/b&gt;\": no stakeholders; the list is empty\n"
            ),
            "{md}"
        );
    }
}
