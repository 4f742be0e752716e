//! What a simulated panel judge reads back from a deliberation prompt (written by
//! [`super::prompts`]): its own position in force and the other judges' (verdict,
//! confidence, scores, named calls), and how it moves toward them by its
//! `deliberation_pull`. Every protocol's simulated panel judges use it.

use std::collections::BTreeMap;

/// The text between two headings (to the end when the second is missing).
pub(crate) fn section<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let Some(from) = text.find(start) else {
        return "";
    };
    let rest = &text[from + start.len()..];
    &rest[..rest.find(end).unwrap_or(rest.len())]
}

/// The scores of a `Scores: team_a.consistency 7, …` line.
pub(crate) fn score_line(line: &str) -> Option<Vec<(String, f64)>> {
    let list = line.strip_prefix("Scores: ")?;
    let pairs: Vec<(String, f64)> = list
        .split(", ")
        .filter_map(|pair| {
            let (key, value) = pair.rsplit_once(' ')?;
            Some((key.to_string(), value.parse().ok()?))
        })
        .collect();
    (!pairs.is_empty()).then_some(pairs)
}

/// One judge's position as the deliberation prompt shows it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Position {
    /// `Verdict: …`.
    pub verdict: Option<String>,
    /// `confidence: 0.72` (0–1).
    pub confidence: Option<f64>,
    /// `Scores: key value, …`.
    pub scores: BTreeMap<String, f64>,
    /// `Calls: key value, …`.
    pub calls: BTreeMap<String, String>,
}

/// The judge's own position and the others'.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Context {
    /// Its own evaluation in force, when the panel had one.
    pub own: Option<Position>,
    /// Each other judge's.
    pub others: Vec<Position>,
}

fn position(text: &str) -> Option<Position> {
    let verdict_line = text.lines().find(|l| l.starts_with("Verdict: "))?;
    let (verdict, confidence) = verdict_line
        .trim_start_matches("Verdict: ")
        .split_once("; confidence: ")
        .unwrap_or((verdict_line, ""));
    let calls = text
        .lines()
        .find_map(|l| l.strip_prefix("Calls: "))
        .map(|list| {
            list.split(", ")
                .filter_map(|pair| pair.rsplit_once(' '))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .unwrap_or_default();
    Some(Position {
        verdict: (verdict != "none").then(|| verdict.to_string()),
        confidence: confidence.trim().parse().ok(),
        scores: text
            .lines()
            .find_map(score_line)
            .unwrap_or_default()
            .into_iter()
            .collect(),
        calls,
    })
}

/// The positions in a deliberation prompt.
pub(crate) fn context(prompt: &str) -> Context {
    let own = section(prompt, "### Your evaluation so far", "### The other judges");
    let others = section(
        prompt,
        "### The other judges",
        "Give your updated evaluation",
    );
    Context {
        own: position(own),
        others: others
            .split("\n#### ")
            .skip(1)
            .filter_map(position)
            .collect(),
    }
}

impl Context {
    /// The others' mean score on a dimension.
    pub fn others_mean(&self, key: &str) -> Option<f64> {
        let values: Vec<f64> = self
            .others
            .iter()
            .filter_map(|o| o.scores.get(key).copied())
            .collect();
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    }

    /// The others' mean confidence.
    pub fn others_confidence(&self) -> Option<f64> {
        let values: Vec<f64> = self.others.iter().filter_map(|o| o.confidence).collect();
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    }

    /// The value most of the others give for a call (by `value`), and the share of them
    /// that give it.
    pub fn others_majority(
        &self,
        value: impl Fn(&Position) -> Option<&String>,
    ) -> Option<(String, f64)> {
        let mut counts: BTreeMap<&String, usize> = BTreeMap::new();
        for o in &self.others {
            if let Some(v) = value(o) {
                *counts.entry(v).or_default() += 1;
            }
        }
        let (top, n) = counts.into_iter().max_by_key(|(_, n)| *n)?;
        Some((top.clone(), n as f64 / self.others.len().max(1) as f64))
    }
}

/// A judge with this pull takes the others' majority call when pull × their share reaches
/// one half (a judge with pull 0 never does).
pub(crate) fn yields(pull: f64, share: f64) -> bool {
    pull * share >= 0.5
}

/// `mine` moved the pulled share of the way to `target`.
pub(crate) fn toward(mine: f64, target: f64, pull: f64) -> f64 {
    mine + pull * (target - mine)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_own_and_others_positions() {
        let prompt = "### Your evaluation so far\nVerdict: A; confidence: 0.70\nScores: debater_a.quote_use 7, debater_b.quote_use 3\nRationale: r\n\n\
            ### The other judges\n\n#### y\nVerdict: B; confidence: 0.60\nScores: debater_a.quote_use 4, debater_b.quote_use 8\nCalls: PRO-1.standing REFUTED\nRationale: r\n\n\
            #### z\nVerdict: none; confidence: not given\nScores: \nRationale: (none given)\n\nGive your updated evaluation.";
        let c = context(prompt);
        let own = c.own.as_ref().unwrap();
        assert_eq!(own.verdict.as_deref(), Some("A"));
        assert_eq!(own.confidence, Some(0.7));
        assert_eq!(own.scores["debater_b.quote_use"], 3.0);
        assert_eq!(c.others.len(), 2);
        assert_eq!(c.others[0].calls["PRO-1.standing"], "REFUTED");
        assert_eq!(c.others[1].verdict, None);
        assert_eq!(c.others_mean("debater_a.quote_use"), Some(4.0));
        assert_eq!(
            c.others_majority(|p| p.verdict.as_ref()),
            Some(("B".to_string(), 0.5))
        );
        assert!(yields(1.0, 0.5) && !yields(0.0, 1.0) && !yields(0.6, 0.5));
        assert_eq!(toward(2.0, 8.0, 0.5), 5.0);
    }
}
