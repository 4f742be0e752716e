//! "Warnings from the run", for every protocol, first in the report: what `tournament.json`
//! recorded as the run was planned and run (judge confounds and balance, an adaptive
//! design's statement: its waves, the share of the full schedule played and the rule that
//! stopped it; the inputs' problems, round files set aside), then what the rounds themselves show (judges who saw
//! unlike things: model names shown to some and not to others, two versions of one judge
//! prompt; see [`crate::analysis::judge_views`]), so that a reader meets them before the
//! figures they qualify.

use super::{Section, Text};

/// The leads of the warnings, shown in bold.
const LEADS: [&str; 5] = [
    "adaptive design",
    "judge confound",
    "judge balance",
    "judges saw unlike things",
    "judges answered unlike prompts",
];

/// One warning, its lead in bold and the rest as quoted text.
fn item(w: &str) -> Text {
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
}

/// The section, when the run recorded any warning (`run`) or its rounds call for one
/// (`from_rounds`).
pub(super) fn section(run: &[String], from_rounds: &[String]) -> Option<Section> {
    if run.is_empty() && from_rounds.is_empty() {
        return None;
    }
    let mut s = Section::new("Warnings from the run");
    if !run.is_empty() {
        let mut lead = Text::plain("As ")
            .code("tournament.json")
            .and(" records them. A ")
            .emphasis("judge confound")
            .and(
                " means a judge's leniency cannot be told apart from the pairing or the models it \
                 scored: the figures that compare those models carry it.",
            );
        if run.iter().any(|w| w.starts_with("adaptive design: ")) {
            lead = lead.and(" An ").emphasis("adaptive design").and(
                " chose its rounds from the results as they came, so the rounds per pairing, side, \
                 item and judge follow its choices rather than a balanced plan.",
            );
        }
        s.paragraph(lead);
        s.list(run.iter().map(|w| item(w)).collect());
    }
    if !from_rounds.is_empty() {
        s.paragraph(Text::plain(
            "From the rounds: what each judgment records of what its judge saw (model names, \
             prompt version). Judgments made under unlike conditions are compared and pooled \
             by the figures below as if alike.",
        ));
        s.list(from_rounds.iter().map(|w| item(w)).collect());
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::figures::markdown;

    #[test]
    fn the_section_leads_each_schedule_warning_in_bold_and_escapes_the_rest() {
        assert_eq!(section(&[], &[]), None);
        let s = section(
            &[
            "judge confound: 6 of 6 ordered pairings are scored by one judge only (a vs b: c in all 7 rounds)".into(),
            "dilemma \"<b>[x]</b>\": no stakeholders; the list is empty".into(),
            ],
            &[],
        )
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

    #[test]
    fn what_the_rounds_show_follows_the_runs_warnings_or_stands_alone() {
        let mixed = "judges saw unlike things: in the ethics_bowl rounds, 2 judgments (judge a) \
                     shown the model names; 2 judgments (judge b) not shown them."
            .to_string();
        let md = markdown(&[section(&[], std::slice::from_ref(&mixed)).unwrap()]);
        assert!(!md.contains("tournament.json"), "{md}");
        assert!(md.contains("From the rounds:"), "{md}");
        assert!(
            md.contains("- **judges saw unlike things**: in the ethics_bowl rounds"),
            "{md}"
        );
        let md = markdown(&[section(&["judge balance: x".into()], &[mixed]).unwrap()]);
        let run = md.find("**judge balance**").unwrap();
        let rounds = md.find("**judges saw unlike things**").unwrap();
        assert!(run < rounds, "{md}");
    }

    #[test]
    fn an_adaptive_design_is_said_with_its_stop_and_what_it_means() {
        let statement =
            "adaptive design: 40 of the full schedule's 84 rounds (48%) were chosen in \
                         5 waves; stopped by stop_when_separated: every adjacent pair is ordered"
                .to_string();
        let md = markdown(&[section(std::slice::from_ref(&statement), &[]).unwrap()]);
        assert!(md.contains("An *adaptive design* chose its rounds"), "{md}");
        assert!(
            md.contains("- **adaptive design**: 40 of the full schedule's 84 rounds"),
            "{md}"
        );
        let md = markdown(&[section(&["judge balance: x".into()], &[]).unwrap()]);
        assert!(!md.contains("adaptive"), "{md}");
    }
}
