//! The `[qa]` table of a question-answer debate tournament: which BoardgameQA files, how
//! many items per level, the debate's rules, the baselines, and the models' strength order.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::domain::{QaFormat, QuoteMatching, TurnOrder};

/// One dataset file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QaDataset {
    /// A BoardgameQA JSON file, relative to the tournament file.
    pub file: PathBuf,
    /// Its level (`Main-depth2`, …); by default the file name without the split
    /// (`Main-depth2-test.json` → `Main-depth2`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
}

/// The `[qa]` table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QaConfig {
    /// The dataset files (several files of one level are pooled).
    pub datasets: Vec<QaDataset>,
    /// Items sampled per level, stratified by label; 0 takes every item.
    #[serde(default)]
    pub sample_per_level: usize,
    /// Seeds the sample, so a run can be reproduced exactly.
    #[serde(default)]
    pub seed: u64,
    /// Rounds of arguments.
    #[serde(default = "default_rounds")]
    pub debate_rounds: u32,
    /// Words allowed per argument (longer arguments are cut and the cut recorded); 300 by
    /// default, the source notebook's.
    #[serde(default = "default_word_limit")]
    pub word_limit: u32,
    /// Whether the two debaters argue one after the other in each round (`sequential`, the
    /// default, the source notebook's: the debater read first argues first, and the other
    /// sees that argument of the round) or at once (`simultaneous`).
    #[serde(default = "default_turn_order")]
    pub turn_order: TurnOrder,
    /// Which quotes the checker verifies: `whole` (the default, the source notebook's
    /// checker: a whole fact, rule or preference) or `fragment` (any run of whole words of
    /// one, this tool's rule before the option).
    #[serde(default)]
    pub quote_matching: QuoteMatching,
    /// Share of items (0–1) on which both answers are wrong, to see whether judges notice.
    #[serde(default)]
    pub both_wrong_share: f64,
    /// The baselines run on the same items by the same judges: `naive`, `expert` and
    /// `expert_cot` choose between the two answers; the source's `three_way` and
    /// `three_way_argued` classify the goal as proved, disproved or unknown.
    #[serde(default = "default_baselines")]
    pub baselines: Vec<QaFormat>,
    /// Also run consultancy (one debater, correct half the time).
    #[serde(default)]
    pub consultancy: bool,
    /// Models from strongest to weakest: says whether debaters are stronger or weaker than
    /// their judge.
    #[serde(default)]
    pub strength_order: Vec<String>,
    /// Which debater–judge relations to run: `self_play`, `stronger`, `weaker`, `mixed`.
    #[serde(default = "default_relations")]
    pub relations: Vec<String>,
}

fn default_rounds() -> u32 {
    3
}
fn default_word_limit() -> u32 {
    300
}
fn default_turn_order() -> TurnOrder {
    TurnOrder::Sequential
}
fn default_baselines() -> Vec<QaFormat> {
    vec![QaFormat::Naive, QaFormat::Expert, QaFormat::ExpertCot]
}
fn default_relations() -> Vec<String> {
    RELATIONS.iter().map(|r| r.to_string()).collect()
}

/// Every relation between debaters and judge.
pub const RELATIONS: [&str; 4] = ["self_play", "stronger", "weaker", "mixed"];

impl QaConfig {
    /// The first thing wrong with the table: (key, message, fix).
    pub fn problem(
        &self,
        models: &[String],
        judges: &[String],
    ) -> Option<(String, String, String)> {
        let bad = |key: &str, message: String, fix: &str| {
            Some((format!("qa.{key}"), message, fix.to_string()))
        };
        if self.datasets.is_empty() {
            return bad(
                "datasets",
                "lists no file".into(),
                "add datasets = [{ file = \"qa-sample.json\" }]",
            );
        }
        if self.debate_rounds == 0 || self.word_limit == 0 {
            return bad(
                "debate_rounds",
                "debate_rounds and word_limit must be at least 1".into(),
                "use e.g. debate_rounds = 3, word_limit = 300",
            );
        }
        if !(0.0..=1.0).contains(&self.both_wrong_share) {
            return bad(
                "both_wrong_share",
                format!("{} is not between 0 and 1", self.both_wrong_share),
                "use 0 (never) to 1 (every item)",
            );
        }
        if let Some(f) = self
            .baselines
            .iter()
            .find(|f| matches!(f, QaFormat::Debate | QaFormat::Consultancy))
        {
            return bad(
                "baselines",
                format!("\"{}\" is not a baseline", f.as_str()),
                "use \"naive\", \"expert\", \"expert_cot\", \"three_way\" or \"three_way_argued\" \
                 (consultancy has its own key)",
            );
        }
        if let Some(r) = self
            .relations
            .iter()
            .find(|r| !RELATIONS.contains(&r.as_str()))
        {
            return bad(
                "relations",
                format!("\"{r}\" is not a relation"),
                "use self_play, stronger, weaker or mixed",
            );
        }
        let needs_order = self
            .relations
            .iter()
            .any(|r| r != "self_play" && r != "mixed");
        if needs_order
            && let Some(m) = models
                .iter()
                .chain(judges)
                .find(|m| !self.strength_order.contains(m))
        {
            return bad(
                "strength_order",
                format!("does not rank \"{m}\""),
                "list every debating and judging model, strongest first",
            );
        }
        None
    }

    /// How debaters compare with their judges (one judge, or a panel's models):
    /// `self_play` when every debater and judge is one model, `stronger`/`weaker` when every
    /// debater ranks above/below every judge, `mixed` otherwise.
    pub fn relation(&self, debaters: &[&str], judges: &[&str]) -> &'static str {
        let rank = |m: &str| self.strength_order.iter().position(|s| s == m);
        if debaters
            .iter()
            .chain(judges)
            .all(|m| Some(m) == judges.first())
        {
            return "self_play";
        }
        let (Some(debater_ranks), Some(judge_ranks)) = (
            debaters.iter().map(|d| rank(d)).collect::<Option<Vec<_>>>(),
            judges.iter().map(|j| rank(j)).collect::<Option<Vec<_>>>(),
        ) else {
            return "mixed";
        };
        let (Some(best_judge), Some(worst_judge)) =
            (judge_ranks.iter().min(), judge_ranks.iter().max())
        else {
            return "mixed";
        };
        if debater_ranks.iter().all(|r| r < best_judge) {
            "stronger"
        } else if debater_ranks.iter().all(|r| r > worst_judge) {
            "weaker"
        } else {
            "mixed"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> QaConfig {
        toml::from_str(
            "datasets = [{ file = \"x.json\" }]\nstrength_order = [\"big\", \"mid\", \"small\"]",
        )
        .unwrap()
    }

    #[test]
    fn relations_follow_the_strength_order() {
        let c = config();
        assert_eq!(c.relation(&["mid", "mid"], &["mid"]), "self_play");
        assert_eq!(c.relation(&["big", "big"], &["small"]), "stronger");
        assert_eq!(c.relation(&["small", "mid"], &["big"]), "weaker");
        assert_eq!(c.relation(&["big", "small"], &["mid"]), "mixed");
        assert_eq!(c.relation(&["mid"], &["small"]), "stronger");
        // A panel: against every judge's model.
        assert_eq!(c.relation(&["big"], &["mid", "small"]), "stronger");
        assert_eq!(c.relation(&["mid"], &["mid", "small"]), "mixed");
        assert_eq!(c.relation(&["small", "small"], &["big", "mid"]), "weaker");
    }

    #[test]
    fn defaults_are_the_source_notebooks() {
        let c = config();
        assert_eq!(
            (
                c.debate_rounds,
                c.word_limit,
                c.turn_order,
                c.quote_matching
            ),
            (3, 300, TurnOrder::Sequential, QuoteMatching::Whole)
        );
        let c: QaConfig = toml::from_str(
            "datasets = [{ file = \"x.json\" }]\nquote_matching = \"fragment\"\nturn_order = \"simultaneous\"",
        )
        .unwrap();
        assert_eq!(
            (c.quote_matching, c.turn_order),
            (QuoteMatching::Fragment, TurnOrder::Simultaneous)
        );
    }

    #[test]
    fn an_unknown_quote_matching_is_an_error_naming_the_key() {
        let text = "name = \"x\"\nprotocol = \"qa_debate\"\nmodels = [\"a\", \"b\"]\n\
                    judges = [\"c\"]\n[qa]\ndatasets = [{ file = \"x.json\" }]\n\
                    quote_matching = \"exact\"\n";
        let e = crate::config::TournamentConfig::parse(text, std::path::Path::new("t.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("qa.quote_matching") && e.contains("whole") && e.contains("fragment"),
            "{e}"
        );
    }

    #[test]
    fn problems_name_the_key() {
        let c = config();
        assert!(
            c.problem(&["big".into()], &["small".into()]).is_none(),
            "valid"
        );
        let (key, message, _) = c.problem(&["other".into()], &[]).unwrap();
        assert_eq!(key, "qa.strength_order");
        assert!(message.contains("other"));
        let c = QaConfig {
            baselines: vec![QaFormat::Debate],
            ..config()
        };
        assert_eq!(c.problem(&[], &[]).unwrap().0, "qa.baselines");
    }
}
