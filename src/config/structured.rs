//! The `[structured]` table of a structured-debate tournament: the topics file, the weights
//! of the side totals, how a gap between the totals reads, and the closing statement's word
//! limit.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::domain::{ScoreWeights, TotalBands};

/// The `[structured]` table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StructuredConfig {
    /// The topics file, relative to the tournament file.
    pub topics_file: PathBuf,
    /// `"all"` or a list of topic ids.
    #[serde(default)]
    pub topics: super::Selection,
    /// Weights of evidence, logic, responsiveness and honesty in a side's total (by default
    /// the article's FAQ weights: evidence 40%, logic 30%, rebuttal as responsiveness 20%,
    /// and the 10% it gives clarity, which its judge does not score, as honesty).
    #[serde(default)]
    pub weights: ScoreWeights,
    /// How a gap between the side totals reads: under `even_below` evenly matched (a draw),
    /// over `clearly_ahead_above` clearly ahead (by default the article's 1 and 3 points).
    #[serde(default)]
    pub bands: TotalBands,
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
        let b = self.bands;
        if !b.even_below.is_finite()
            || !b.clearly_ahead_above.is_finite()
            || b.even_below <= 0.0
            || b.clearly_ahead_above < b.even_below
        {
            return Some((
                "structured.bands".into(),
                format!(
                    "even_below {} and clearly_ahead_above {} must be points with 0 < even_below <= clearly_ahead_above",
                    b.even_below, b.clearly_ahead_above
                ),
                "e.g. bands = { even_below = 1.0, clearly_ahead_above = 3.0 } (the article's reading)".into(),
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

    #[test]
    fn bands_default_to_the_articles_and_must_be_ordered() {
        let c: StructuredConfig = toml::from_str("topics_file = \"t.toml\"").unwrap();
        assert_eq!(
            (c.bands.even_below, c.bands.clearly_ahead_above),
            (1.0, 3.0)
        );
        let c: StructuredConfig = toml::from_str(
            "topics_file = \"t.toml\"\nbands = { even_below = 0.5, clearly_ahead_above = 2 }",
        )
        .unwrap();
        assert!(c.problem().is_none());
        assert_eq!(c.bands.clearly_ahead_above, 2.0);
        for bad in [
            "{ even_below = 3, clearly_ahead_above = 1 }",
            "{ even_below = 0, clearly_ahead_above = 1 }",
            "{ even_below = nan, clearly_ahead_above = 3 }",
        ] {
            let c: StructuredConfig =
                toml::from_str(&format!("topics_file = \"t.toml\"\nbands = {bad}")).unwrap();
            let (key, message, _) = c.problem().unwrap();
            assert_eq!(key, "structured.bands", "{bad}");
            assert!(message.contains("even_below"), "{message}");
        }
        assert!(
            toml::from_str::<StructuredConfig>(
                "topics_file = \"t.toml\"\nbands = { even = 1, clearly_ahead_above = 3 }"
            )
            .is_err(),
            "a misspelt key is refused"
        );
    }
}
