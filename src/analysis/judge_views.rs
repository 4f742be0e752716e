//! What the judges of a folder saw, counted (each judgment's
//! [`crate::domain::JudgeView`]), and the warnings when one protocol's judgments were made
//! under unlike conditions: some judges shown the debaters' model names and others not, or
//! not recorded beside recorded (a folder re-judged with `judge_sees_model_names` changed, a
//! folder of an older build re-judged by a newer one), or two versions of one judge prompt.
//! Judge agreement, judge leniency and the model scores then compare or pool judgments that
//! were not made alike, and the report says so in "Warnings from the run".

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::domain::{Judgment, ProtocolKind, Round};

/// Whether a judgment's judge was shown the model names, as counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Names {
    /// The judge's prompt named the debaters' models.
    Shown,
    /// It did not.
    Hidden,
    /// The judgment does not record it (stored before it was recorded).
    NotRecorded,
}

impl Names {
    /// Of one judgment.
    pub fn of(j: &Judgment) -> Self {
        match &j.view {
            Some(v) if v.judge_sees_model_names => Self::Shown,
            Some(_) => Self::Hidden,
            None => Self::NotRecorded,
        }
    }

    /// How a warning says it of `n` judgments.
    fn phrase(self) -> &'static str {
        match self {
            Self::Shown => "shown the model names",
            Self::Hidden => "not shown the model names",
            Self::NotRecorded => "without a record of what their judge saw",
        }
    }
}

/// The usable judgments of one protocol made under one condition.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeViewCount {
    /// The protocol.
    pub protocol: ProtocolKind,
    /// Whether their judges saw the model names.
    pub names: Names,
    /// The judge prompt's version; none when not recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_version: Option<String>,
    /// How many usable judgments.
    pub judgments: usize,
    /// Their judges (models, or panel judges' ids), sorted.
    pub judges: Vec<String>,
}

/// Every condition the usable judgments of `rounds` were made under, with their counts:
/// by protocol, names shown or not, then prompt version.
pub fn judge_views(rounds: &[Round]) -> Vec<JudgeViewCount> {
    type Key = (ProtocolKind, Names, Option<String>);
    let mut counts: BTreeMap<Key, (usize, BTreeSet<String>)> = BTreeMap::new();
    for round in rounds {
        for j in round.judgments.iter().filter(|j| j.is_usable()) {
            let key = (
                round.kind(),
                Names::of(j),
                j.view.as_ref().map(|v| v.prompt_version.clone()),
            );
            let entry = counts.entry(key).or_default();
            entry.0 += 1;
            entry.1.insert(j.judge_key().to_string());
        }
    }
    counts
        .into_iter()
        .map(
            |((protocol, names, prompt_version), (judgments, judges))| JudgeViewCount {
                protocol,
                names,
                prompt_version,
                judgments,
                judges: judges.into_iter().collect(),
            },
        )
        .collect()
}

/// `12 judgment(s) (judges a, b)`.
fn counted(n: usize, judges: &BTreeSet<&str>) -> String {
    let who: Vec<&str> = judges.iter().copied().collect();
    format!(
        "{n} judgment{} ({} {})",
        if n == 1 { "" } else { "s" },
        if who.len() == 1 { "judge" } else { "judges" },
        who.join(", ")
    )
}

/// The warnings the counts call for: for each protocol whose judgments mix names shown,
/// hidden and not recorded, one naming how many judgments (and which judges) are in each;
/// for each judge prompt answered in more than one version, one naming the versions.
pub fn warnings(views: &[JudgeViewCount]) -> Vec<String> {
    let mut out = Vec::new();
    for kind in ProtocolKind::ALL {
        let ours: Vec<&JudgeViewCount> = views.iter().filter(|v| v.protocol == kind).collect();
        let mut by_names: BTreeMap<Names, (usize, BTreeSet<&str>)> = BTreeMap::new();
        for v in &ours {
            let e = by_names.entry(v.names).or_default();
            e.0 += v.judgments;
            e.1.extend(v.judges.iter().map(String::as_str));
        }
        if by_names.len() > 1 {
            let parts: Vec<String> = by_names
                .iter()
                .map(|(names, (n, judges))| format!("{} {}", counted(*n, judges), names.phrase()))
                .collect();
            out.push(format!(
                "judges saw unlike things: in the {kind} rounds, {}. Judge agreement and judge \
                 leniency across these judges compare unlike conditions, and the model scores \
                 pool them; re-judge with one setting (`judge_sees_model_names`) to compare \
                 like with like",
                parts.join("; ")
            ));
        }
        // One judge prompt (single judges, or panel judges) in several versions.
        let mut by_prompt: BTreeMap<&str, BTreeMap<&str, usize>> = BTreeMap::new();
        for v in &ours {
            if let Some(version) = v.prompt_version.as_deref() {
                let family = version.rsplit_once('-').map_or(version, |(f, _)| f);
                *by_prompt
                    .entry(family)
                    .or_default()
                    .entry(version)
                    .or_default() += v.judgments;
            }
        }
        for (family, versions) in by_prompt.iter().filter(|(_, v)| v.len() > 1) {
            let parts: Vec<String> = versions
                .iter()
                .map(|(version, n)| {
                    format!("{version} ({n} judgment{})", if *n == 1 { "" } else { "s" })
                })
                .collect();
            out.push(format!(
                "judges answered unlike prompts: the {family} prompt in {} versions, {}; \
                 figures that compare these judges compare unlike conditions",
                versions.len(),
                parts.join(", ")
            ));
        }
    }
    out
}

/// The conditions of some counts, for comparing two folders: each (protocol, names, prompt
/// version) present, without the counts.
pub fn conditions(views: &[JudgeViewCount]) -> BTreeSet<(ProtocolKind, Names, Option<&str>)> {
    views
        .iter()
        .map(|v| (v.protocol, v.names, v.prompt_version.as_deref()))
        .collect()
}

/// The counts in one line: `12 judgments (judges a, b) shown the model names, prompt
/// ethics_bowl-judge-1; 3 judgments (judge c) without a record of what their judge saw`.
pub fn describe(views: &[JudgeViewCount]) -> String {
    if views.is_empty() {
        return "no usable judgment".into();
    }
    views
        .iter()
        .map(|v| {
            let judges: BTreeSet<&str> = v.judges.iter().map(String::as_str).collect();
            let prompt = v
                .prompt_version
                .as_deref()
                .map(|p| format!(", prompt {p}"))
                .unwrap_or_default();
            format!(
                "{} {}{prompt}",
                counted(v.judgments, &judges),
                v.names.phrase()
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{JudgeView, Reading, ScheduledRound};

    fn judged(judges: &[(&str, Option<bool>, &str)]) -> Round {
        let mut round = crate::protocols::example_round(&ScheduledRound::example("r", "d"));
        for (judge, names, version) in judges {
            round.judgments.push(crate::domain::Judgment {
                view: names.map(|names| JudgeView {
                    judge_sees_model_names: names,
                    temperature: None,
                    prompt_version: (*version).into(),
                    sides_swapped: false,
                }),
                ..crate::domain::Judgment::new(judge, Reading::empty(round.kind()))
            });
        }
        round
    }

    #[test]
    fn judgments_alike_call_for_no_warning() {
        let rounds = vec![
            judged(&[("a", Some(true), "ethics_bowl-judge-1")]),
            judged(&[("b", Some(true), "ethics_bowl-judge-1")]),
        ];
        let views = judge_views(&rounds);
        assert_eq!(views.len(), 1);
        assert_eq!(views[0].judgments, 2);
        assert_eq!(views[0].judges, ["a", "b"]);
        assert!(warnings(&views).is_empty());
        // Older judgments, all alike: none recorded, nothing mixed.
        assert!(warnings(&judge_views(&[judged(&[("a", None, "")])])).is_empty());
    }

    #[test]
    fn names_shown_hidden_and_not_recorded_are_each_counted_and_named() {
        let rounds = vec![
            judged(&[
                ("a", None, ""),
                ("j1", Some(false), "ethics_bowl-judge-1"),
                ("j2", Some(false), "ethics_bowl-judge-1"),
            ]),
            judged(&[
                ("a", None, ""),
                ("j1", Some(false), "ethics_bowl-judge-1"),
                ("b", Some(true), "ethics_bowl-judge-1"),
            ]),
        ];
        let w = warnings(&judge_views(&rounds));
        assert_eq!(
            w,
            [
                "judges saw unlike things: in the ethics_bowl rounds, 1 judgment (judge b) shown \
              the model names; 3 judgments (judges j1, j2) not shown the model names; 2 \
              judgments (judge a) \
              without a record of what their judge saw. Judge agreement and judge leniency \
              across these judges compare unlike conditions, and the model scores pool them; \
              re-judge with one setting (`judge_sees_model_names`) to compare like with like"
            ]
        );
    }

    #[test]
    fn two_versions_of_one_prompt_are_named_but_a_panel_beside_single_judges_is_not() {
        let rounds = vec![judged(&[
            ("a", Some(true), "ethics_bowl-judge-1"),
            ("b", Some(true), "ethics_bowl-judge-2"),
            ("x", Some(true), "ethics_bowl-panel-1"),
        ])];
        let w = warnings(&judge_views(&rounds));
        assert_eq!(
            w,
            [
                "judges answered unlike prompts: the ethics_bowl-judge prompt in 2 versions, \
              ethics_bowl-judge-1 (1 judgment), ethics_bowl-judge-2 (1 judgment); figures \
              that compare these judges compare unlike conditions"
            ]
        );
    }
}
