//! The `[structured]` table of a structured-debate tournament: the topics file, the weights
//! of the side totals, and the closing statement's word limit.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::domain::ScoreWeights;

/// The `[structured]` table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StructuredConfig {
    /// The topics file, relative to the tournament file.
    pub topics_file: PathBuf,
    /// `"all"` or a list of topic ids.
    #[serde(default)]
    pub topics: super::Selection,
    /// Weights of evidence, logic, responsiveness and honesty in a side's total.
    #[serde(default)]
    pub weights: ScoreWeights,
    /// Words allowed in a closing statement (longer is a violation the judge sees).
    #[serde(default = "default_closing_words")]
    pub closing_word_limit: usize,
}

fn default_closing_words() -> usize {
    200
}

impl StructuredConfig {
    /// The first thing wrong with the table: (key, message, fix).
    pub fn problem(&self) -> Option<(String, String, String)> {
        let w = self.weights;
        let all = [w.evidence, w.logic, w.responsiveness, w.honesty];
        if all.iter().any(|v| !v.is_finite() || *v < 0.0)
            || (all.iter().sum::<f64>() - 1.0).abs() > 1e-6
        {
            return Some((
                "structured.weights".into(),
                format!(
                    "evidence {} + logic {} + responsiveness {} + honesty {} must be non-negative and sum to 1",
                    w.evidence, w.logic, w.responsiveness, w.honesty
                ),
                "e.g. weights = { evidence = 0.4, logic = 0.3, responsiveness = 0.2, honesty = 0.1 }".into(),
            ));
        }
        if self.closing_word_limit == 0 {
            return Some((
                "structured.closing_word_limit".into(),
                "is 0".into(),
                "use e.g. 200".into(),
            ));
        }
        if let super::Selection::Keyword(k) = &self.topics
            && k != "all"
        {
            return Some((
                "structured.topics".into(),
                format!("\"{k}\" is neither \"all\" nor a list"),
                "write topics = \"all\" or a list of ids".into(),
            ));
        }
        None
    }
}

/// The topics file: `[[topics]]` with `id`, `proposition` and optional `context`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopicsFile {
    /// The topics, in order.
    pub topics: Vec<crate::domain::Topic>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_must_sum_to_one() {
        let c: StructuredConfig = toml::from_str("topics_file = \"t.toml\"").unwrap();
        assert_eq!(c.weights, ScoreWeights::default());
        assert!(c.problem().is_none());
        let c: StructuredConfig = toml::from_str(
            "topics_file = \"t.toml\"\nweights = { evidence = 0.5, logic = 0.5, responsiveness = 0.5, honesty = 0 }",
        )
        .unwrap();
        assert_eq!(c.problem().unwrap().0, "structured.weights");
    }
}
