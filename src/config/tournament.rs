//! The tournament file (`tournament.toml`): who debates, who judges, on which dilemmas, how
//! many times, where results go, and the run's limits.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::domain::ProtocolKind;

use super::{ConfigError, PanelConfig, QaConfig, StructuredConfig};

/// How judges are assigned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JudgingMode {
    /// Every judge scores every exchange alone (one judgment each; the exchange runs once).
    /// `"single"` means the same.
    #[serde(alias = "single")]
    All,
    /// One judge per round, never one of its teams, balanced across models and roles.
    #[default]
    Rotate,
    /// The `[panel]` judges score each exchange and deliberate when they disagree.
    Panel,
}

/// Which dilemmas to play.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Selection {
    /// `"all"`.
    Keyword(String),
    /// A list of ids.
    Ids(Vec<String>),
}

impl Default for Selection {
    fn default() -> Self {
        Self::Keyword("all".into())
    }
}

/// Which pairings to play.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Pairings {
    /// `"all"`: every ordered pair of distinct models; `"adaptive"`: rounds of those pairs
    /// chosen in waves by the ratings so far (see [`crate::design`]).
    Keyword(String),
    /// An explicit list of `[team_a, team_b]` pairs.
    List(Vec<[String; 2]>),
}

impl Default for Pairings {
    fn default() -> Self {
        Self::Keyword("all".into())
    }
}

impl Pairings {
    /// Whether rounds are chosen in waves as the ratings settle (`pairings = "adaptive"`).
    pub fn is_adaptive(&self) -> bool {
        matches!(self, Self::Keyword(k) if k == ADAPTIVE)
    }
}

/// The `pairings` keyword of the adaptive design.
pub const ADAPTIVE: &str = "adaptive";

/// The tournament file as written.
/// Sampling temperatures by role (`[temperatures]`), in place of each model's own: the
/// structured-debate article runs its debaters at 0.5 and its judge at 0.2, and a
/// researcher may want the same for any protocol. Each phase records the temperature sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoleTemperatures {
    /// For every debater's (or team's) call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub debaters: Option<f64>,
    /// For every judge's call, single or on a panel, corrections included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judges: Option<f64>,
}

impl RoleTemperatures {
    /// Checks each is a temperature every provider takes (0 to 2); names the key.
    pub fn check(&self) -> Result<(), (String, String)> {
        for (key, value) in [("debaters", self.debaters), ("judges", self.judges)] {
            if let Some(t) = value
                && !(t.is_finite() && (0.0..=2.0).contains(&t))
            {
                return Err((
                    format!("temperatures.{key}"),
                    format!("{t} is not a temperature between 0 and 2"),
                ));
            }
        }
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TournamentConfig {
    /// The tournament's name; its slug is the results folder's name.
    pub name: String,
    /// The debate format.
    #[serde(default)]
    pub protocol: ProtocolKind,
    /// The models file, relative to this file.
    #[serde(default = "default_models_file")]
    pub models_file: PathBuf,
    /// The dilemma document, relative to this file (Ethics Bowl).
    #[serde(default)]
    pub dilemma_file: PathBuf,
    /// Where results go (a folder per tournament inside it), relative to the working folder.
    #[serde(default = "default_output_dir")]
    pub output_dir: PathBuf,
    /// The debating models.
    pub models: Vec<String>,
    /// The judging models (single judges; a panel lists its own in `[panel]`).
    #[serde(default)]
    pub judges: Vec<String>,
    /// How judges are assigned.
    #[serde(default)]
    pub judging: JudgingMode,
    /// `"all"` or a list of dilemma ids.
    #[serde(default)]
    pub dilemmas: Selection,
    /// `"all"` ordered pairs, or a list.
    #[serde(default)]
    pub pairings: Pairings,
    /// Add rounds in which a model debates itself.
    #[serde(default)]
    pub self_debates: bool,
    /// Rounds per pairing and dilemma.
    #[serde(default = "one")]
    pub repetitions: u32,
    /// Rounds in flight at once (calls are further limited per model).
    #[serde(default = "default_concurrency")]
    pub max_concurrency: u32,
    /// Batch mode: calls of models whose provider has a batch API (openai, anthropic,
    /// google) go through it, at about half the price, with answers within 24 hours
    /// (`--batch` on the command line does the same; a model's own `batch` key wins).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub batch: bool,
    /// The longest wait between two polls of an open batch, in seconds.
    #[serde(default = "default_batch_poll_max_s")]
    pub batch_poll_max_s: f64,
    /// How long no new call may arrive before the calls gathered so far go as one batch,
    /// in seconds (a wave's calls arrive within milliseconds of each other).
    #[serde(default = "default_batch_collect_s")]
    pub batch_collect_s: f64,
    /// The response cache for development: `true` keeps every answer to a request at
    /// temperature 0 and answers the same request again from it without a call;
    /// `"any-temperature"` does so at every temperature (`--cache` on the command line does
    /// the same; see docs/response-cache.md). Off by default.
    #[serde(default, skip_serializing_if = "super::CacheSetting::is_off")]
    pub cache: super::CacheSetting,
    /// The response cache's folder, relative to this file (default:
    /// `$ETHICS_BOWL_CACHE_DIR`, else `$XDG_CACHE_HOME/ethics-bowl/responses`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_dir: Option<PathBuf>,
    /// Temperatures by role, in place of the models' own.
    #[serde(default, skip_serializing_if = "is_default")]
    pub temperatures: RoleTemperatures,
    /// Stop starting calls when the estimated cost would pass this many dollars (with
    /// `pairings = "adaptive"`, also: no wave is started that the rest cannot pay for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_usd: Option<f64>,
    /// The seed of everything a run draws at random that the tournament file does not fix
    /// (the adaptive design's tie-breaks), so a run can be reproduced; 0 when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// `pairings = "adaptive"`: the most rounds the design chooses (every round of the
    /// full schedule when unset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rounds: Option<u32>,
    /// `pairings = "adaptive"`: stop once each model is ordered above the next in the
    /// ranking with this probability (e.g. 0.95); unset, the design runs to `max_rounds`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_when_separated: Option<f64>,
    /// `pairings = "adaptive"`: rounds chosen per wave (the number of models when unset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wave_size: Option<u32>,
    /// Start no call while the disk holding the results has less than this many MiB free:
    /// an answer that cannot be stored is paid for and lost.
    #[serde(
        default = "default_min_free_space_mb",
        skip_serializing_if = "is_default_min_free_space"
    )]
    pub min_free_space_mb: u64,
    /// Team B also takes the consistency test.
    #[serde(default = "yes")]
    pub consistency_test_both_teams: bool,
    /// The judge sees model names (false: "Team A"/"Team B" only).
    #[serde(default = "yes")]
    pub judge_sees_model_names: bool,
    /// Times a judge whose answer is not a complete judgment (unreadable, partial or cut at
    /// the token limit) is asked again, with the parser's problems quoted, before the round
    /// goes to the review queue; 0 turns correction turns off.
    #[serde(default = "one")]
    pub judge_corrections: u32,
    /// The judge panel, when `judging = "panel"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub panel: Option<PanelConfig>,
    /// The question-answer debate's data and rules, when `protocol = "qa_debate"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qa: Option<QaConfig>,
    /// The structured debate's topics and weights, when `protocol = "structured_debate"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<StructuredConfig>,
    /// The terminal UI's theme, unless `--theme` names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
}

fn default_models_file() -> PathBuf {
    PathBuf::from("models.toml")
}
fn default_output_dir() -> PathBuf {
    PathBuf::from("results")
}
fn one() -> u32 {
    1
}
fn default_concurrency() -> u32 {
    16
}
fn is_default(t: &RoleTemperatures) -> bool {
    *t == RoleTemperatures::default()
}
fn default_batch_poll_max_s() -> f64 {
    60.0
}
fn default_batch_collect_s() -> f64 {
    2.0
}
fn default_min_free_space_mb() -> u64 {
    64
}
fn is_default_min_free_space(mb: &u64) -> bool {
    *mb == default_min_free_space_mb()
}
fn yes() -> bool {
    true
}

impl TournamentConfig {
    /// Reads a tournament file; paths in it stay as written (see [`Self::resolve`]).
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        Self::parse(&super::read_file(path)?, path)
    }

    /// Parses the text of a tournament file; `path` is used in messages.
    pub fn parse(text: &str, path: &Path) -> Result<Self, ConfigError> {
        let config: Self = super::typed::from_str(
            text,
            path,
            |_| None,
            "compare with sample-config/tournament.toml; docs/configuration.md lists every key",
        )?;
        config.check(path)?;
        Ok(config)
    }

    fn check(&self, path: &Path) -> Result<(), ConfigError> {
        let bad = |key: &str, message: String, fix: &str| {
            Err(ConfigError::invalid(
                path,
                format!("key \"{key}\""),
                message,
                fix,
            ))
        };
        if crate::domain::slug(&self.name).is_empty() {
            return bad(
                "name",
                "needs letters or digits".into(),
                "give the tournament a name, e.g. \"sample\"",
            );
        }
        if self.models.is_empty() {
            return bad(
                "models",
                "no debating models".into(),
                "list at least two models, or one with self_debates = true",
            );
        }
        // A name listed twice plays (and is paid for) twice while its rounds share one file.
        let lists: [(&str, Vec<String>); 4] = [
            ("models", self.models.clone()),
            ("judges", self.judges.clone()),
            (
                "dilemmas",
                match &self.dilemmas {
                    Selection::Ids(ids) => ids.clone(),
                    Selection::Keyword(_) => Vec::new(),
                },
            ),
            (
                "pairings",
                match &self.pairings {
                    Pairings::List(pairs) => pairs
                        .iter()
                        .map(|[a, b]| format!("[\"{a}\", \"{b}\"]"))
                        .collect(),
                    Pairings::Keyword(_) => Vec::new(),
                },
            ),
        ];
        for (key, list) in &lists {
            if let Some(twice) = first_duplicate(list) {
                return bad(
                    key,
                    format!("lists {twice} twice"),
                    "list each once (use repetitions = N to play a pairing more than once)",
                );
            }
        }
        if matches!(&self.dilemmas, Selection::Ids(ids) if ids.is_empty()) {
            return bad(
                "dilemmas",
                "is an empty list: the tournament would have no rounds".into(),
                "list the dilemma ids to play, or write dilemmas = \"all\"",
            );
        }
        if matches!(&self.pairings, Pairings::List(pairs) if pairs.is_empty()) {
            return bad(
                "pairings",
                "is an empty list: the tournament would have no rounds".into(),
                "list [team_a, team_b] pairs, or write pairings = \"all\"",
            );
        }
        match (self.judging, &self.panel) {
            (JudgingMode::Panel, None) => {
                return bad(
                    "judging",
                    "is \"panel\" but there is no [panel] table".into(),
                    "add [panel] with [[panel.judges]] (see sample-config/panel.toml)",
                );
            }
            (JudgingMode::Panel, Some(panel)) => {
                if let Some((key, message, fix)) = panel.problem() {
                    return bad(&key, message, &fix);
                }
            }
            (_, Some(_)) => {
                return bad(
                    "panel",
                    "is set but judging is not \"panel\"".into(),
                    "write judging = \"panel\", or remove the [panel] table",
                );
            }
            (_, None) if self.judges.is_empty() => {
                return bad(
                    "judges",
                    "no judges".into(),
                    "list at least one judging model, or use judging = \"panel\"",
                );
            }
            _ => {}
        }
        match (self.protocol, &self.structured) {
            (ProtocolKind::StructuredDebate, None) => {
                return bad(
                    "protocol",
                    "is \"structured_debate\" but there is no [structured] table".into(),
                    "add [structured] with topics_file (see sample-config/structured-debate.toml)",
                );
            }
            (ProtocolKind::StructuredDebate, Some(s)) => {
                if let Some((key, message, fix)) = s.problem() {
                    return bad(&key, message, &fix);
                }
            }
            (ProtocolKind::EthicsBowl | ProtocolKind::QaDebate, Some(_)) => {
                return bad(
                    "structured",
                    "is set but protocol is not \"structured_debate\"".into(),
                    "write protocol = \"structured_debate\", or remove the [structured] table",
                );
            }
            (ProtocolKind::EthicsBowl | ProtocolKind::QaDebate, None) => {}
        }
        match (self.protocol, &self.qa) {
            (ProtocolKind::EthicsBowl | ProtocolKind::StructuredDebate, Some(_)) => {
                return bad(
                    "qa",
                    "is set but protocol is not \"qa_debate\"".into(),
                    "write protocol = \"qa_debate\", or remove the [qa] table",
                );
            }
            (ProtocolKind::EthicsBowl, None) if self.dilemma_file.as_os_str().is_empty() => {
                return bad(
                    "dilemma_file",
                    "is missing".into(),
                    "name the dilemma document, e.g. dilemma_file = \"dilemmas.docx\"",
                );
            }
            (ProtocolKind::QaDebate, None) => {
                return bad(
                    "protocol",
                    "is \"qa_debate\" but there is no [qa] table".into(),
                    "add [qa] with datasets (see sample-config/qa-debate.toml)",
                );
            }
            (ProtocolKind::QaDebate, Some(qa)) => {
                if let Some((key, message, fix)) = qa.problem(&self.models, &self.judge_models()) {
                    return bad(&key, message, &fix);
                }
            }
            (ProtocolKind::EthicsBowl | ProtocolKind::StructuredDebate, None) => {}
        }
        if self.repetitions == 0 {
            return bad("repetitions", "is 0".into(), "use 1 or more");
        }
        if self.max_concurrency == 0 {
            return bad("max_concurrency", "is 0".into(), "use 1 or more");
        }
        if let Selection::Keyword(k) = &self.dilemmas
            && k != "all"
        {
            return bad(
                "dilemmas",
                format!("\"{k}\" is neither \"all\" nor a list"),
                "write dilemmas = \"all\" or a list of ids",
            );
        }
        if let Pairings::Keyword(k) = &self.pairings
            && k != "all"
            && k != ADAPTIVE
        {
            return bad(
                "pairings",
                format!("\"{k}\" is neither \"all\", \"adaptive\" nor a list"),
                "write pairings = \"all\", pairings = \"adaptive\" or [[\"a\", \"b\"], …]",
            );
        }
        if let Some((key, message, fix)) = self.adaptive_problem() {
            return bad(key, message, fix);
        }
        if let Err((key, message)) = self.temperatures.check() {
            return bad(
                &key,
                message,
                "use e.g. [temperatures] debaters = 0.5, judges = 0.2",
            );
        }
        if !(self.batch_collect_s.is_finite()
            && self.batch_collect_s > 0.0
            && self.batch_collect_s <= 60.0)
        {
            return bad(
                "batch_collect_s",
                format!(
                    "{} is not more than 0 and at most 60 seconds (0 would send each call in a batch of its own)",
                    self.batch_collect_s
                ),
                "use e.g. batch_collect_s = 2",
            );
        }
        if !super::seconds::in_range(self.batch_poll_max_s, true) {
            return bad(
                "batch_poll_max_s",
                format!(
                    "{} is not a positive number of seconds up to a week (604800)",
                    self.batch_poll_max_s
                ),
                "use e.g. batch_poll_max_s = 60",
            );
        }
        if self.judge_corrections > 3 {
            return bad(
                "judge_corrections",
                format!(
                    "{} correction turns per judge is more than 3",
                    self.judge_corrections
                ),
                "use 0 (off), 1 (the default) or up to 3",
            );
        }
        if let Some(b) = self.budget_usd
            && !(b.is_finite() && b > 0.0)
        {
            return bad(
                "budget_usd",
                format!("{b} is not a positive amount"),
                "use e.g. budget_usd = 10.0, or remove it",
            );
        }
        Ok(())
    }

    /// What is wrong with the adaptive design's keys: each needs `pairings = "adaptive"`,
    /// and each must make sense (key, message, fix).
    fn adaptive_problem(&self) -> Option<(&'static str, String, &'static str)> {
        let set = [
            ("max_rounds", self.max_rounds.is_some()),
            ("stop_when_separated", self.stop_when_separated.is_some()),
            ("wave_size", self.wave_size.is_some()),
        ];
        if !self.pairings.is_adaptive() {
            return set.iter().find(|(_, is)| *is).map(|(key, _)| {
                (
                    *key,
                    "is set but pairings is not \"adaptive\"".to_string(),
                    "write pairings = \"adaptive\", or remove the key",
                )
            });
        }
        if self.max_rounds == Some(0) {
            return Some((
                "max_rounds",
                "is 0: the design could choose no round".into(),
                "use 1 or more, or remove it to allow the full schedule",
            ));
        }
        if self.wave_size == Some(0) {
            return Some((
                "wave_size",
                "is 0: a wave would choose no round".into(),
                "use 1 or more, or remove it (one round per model)",
            ));
        }
        if let Some(p) = self.stop_when_separated
            && !(p.is_finite() && p > 0.5 && p < 1.0)
        {
            return Some((
                "stop_when_separated",
                format!(
                    "{p} is not a probability above 0.5 and below 1 (0.5 is a coin's, 1 is never reached)"
                ),
                "use e.g. stop_when_separated = 0.95, or remove it",
            ));
        }
        if self.models.len() < 2 {
            return Some((
                "pairings",
                "is \"adaptive\" but fewer than two models debate: there is no order to settle"
                    .into(),
                "list two models or more, or write pairings = \"all\"",
            ));
        }
        None
    }

    /// Every judging model: the single judges, or the panel's models.
    pub fn judge_models(&self) -> Vec<String> {
        match (&self.panel, self.judging) {
            (Some(panel), JudgingMode::Panel) => panel.models(),
            _ => self.judges.clone(),
        }
    }

    /// The tournament's id: its name as a slug (the results folder's name).
    pub fn id(&self) -> String {
        crate::domain::slug(&self.name)
    }

    /// A path from the file, taken relative to the file's folder.
    pub fn resolve(config_path: &Path, relative: &Path) -> PathBuf {
        if relative.is_absolute() {
            relative.to_path_buf()
        } else {
            config_path
                .parent()
                .unwrap_or(Path::new("."))
                .join(relative)
        }
    }
}

/// The first entry of `list` that appears again later, quoted.
fn first_duplicate(list: &[String]) -> Option<String> {
    let mut seen = std::collections::HashSet::new();
    list.iter()
        .find(|item| !seen.insert(item.as_str()))
        .map(|item| {
            if item.starts_with('[') {
                item.clone()
            } else {
                format!("\"{item}\"")
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "name = \"Sample Run\"\ndilemma_file = \"dilemmas.md\"\nmodels = [\"a\", \"b\"]\njudges = [\"c\"]\n";

    #[test]
    fn defaults() {
        let c = TournamentConfig::parse(BASE, Path::new("t.toml")).unwrap();
        assert_eq!(c.id(), "sample_run");
        assert_eq!(c.judging, JudgingMode::Rotate);
        assert_eq!(c.dilemmas, Selection::Keyword("all".into()));
        assert!(c.consistency_test_both_teams && c.judge_sees_model_names);
        assert_eq!(
            TournamentConfig::resolve(Path::new("cfg/t.toml"), Path::new("d.md")),
            PathBuf::from("cfg/d.md")
        );
    }

    #[test]
    fn lists_and_errors() {
        let c = TournamentConfig::parse(
            &format!("{BASE}dilemmas = [\"x\"]\npairings = [[\"a\", \"b\"]]\njudging = \"all\"\n"),
            Path::new("t.toml"),
        )
        .unwrap();
        assert_eq!(c.pairings, Pairings::List(vec![["a".into(), "b".into()]]));
        let e =
            TournamentConfig::parse(&format!("{BASE}selfdebates = true\n"), Path::new("t.toml"))
                .unwrap_err()
                .to_string();
        assert!(
            e.starts_with("t.toml, selfdebates: unknown field") && e.contains("(line 5)"),
            "{e}"
        );
        let e = TournamentConfig::parse(
            &format!("{BASE}repetitions = \"twice\"\n"),
            Path::new("t.toml"),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with(
                "t.toml, repetitions: expected a whole number from 0 to 4294967295, found a string (line 5)"
            ),
            "{e}"
        );
        let e = TournamentConfig::parse(&format!("{BASE}repetitions = 0\n"), Path::new("t.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("key \"repetitions\""), "{e}");
        // Listed twice, or listed empty: no round is paid twice, and no run is empty.
        let head = "name = \"x\"\ndilemma_file = \"d.md\"\n";
        let ab = "models = [\"a\", \"b\"]\njudges = [\"c\"]\n";
        for (body, key, says) in [
            (
                "models = [\"a\", \"a\", \"b\"]\njudges = [\"c\"]\n".to_string(),
                "models",
                "lists \"a\" twice",
            ),
            (
                "models = [\"a\", \"b\"]\njudges = [\"c\", \"d\", \"c\"]\n".to_string(),
                "judges",
                "lists \"c\" twice",
            ),
            (
                format!("{ab}dilemmas = [\"x\", \"x\"]\n"),
                "dilemmas",
                "lists \"x\" twice",
            ),
            (
                format!("{ab}pairings = [[\"a\", \"b\"], [\"a\", \"b\"]]\n"),
                "pairings",
                "lists [\"a\", \"b\"] twice",
            ),
            (format!("{ab}dilemmas = []\n"), "dilemmas", "empty list"),
            (format!("{ab}pairings = []\n"), "pairings", "empty list"),
        ] {
            let e = TournamentConfig::parse(&format!("{head}{body}"), Path::new("t.toml"))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(&format!("key \"{key}\"")) && e.contains(says),
                "{body}: {e}"
            );
        }
        let e =
            TournamentConfig::parse(&format!("{BASE}judging = \"some\"\n"), Path::new("t.toml"))
                .unwrap_err()
                .to_string();
        assert!(
            e.contains("judging") || e.contains("unknown variant"),
            "{e}"
        );
    }

    #[test]
    fn adaptive_keys_are_checked_and_named() {
        let c = TournamentConfig::parse(
            &format!(
                "{BASE}pairings = \"adaptive\"\nseed = 9\nmax_rounds = 40\nstop_when_separated = 0.95\nwave_size = 6\n"
            ),
            Path::new("t.toml"),
        )
        .unwrap();
        assert!(c.pairings.is_adaptive());
        assert_eq!(
            (c.seed, c.max_rounds, c.stop_when_separated, c.wave_size),
            (Some(9), Some(40), Some(0.95), Some(6))
        );
        assert!(!Pairings::default().is_adaptive());
        // A seed alone is fine with any pairings; the design's keys need the design.
        assert!(TournamentConfig::parse(&format!("{BASE}seed = 1\n"), Path::new("t.toml")).is_ok());
        for (body, key, says) in [
            (
                "max_rounds = 10\n",
                "max_rounds",
                "pairings is not \"adaptive\"",
            ),
            (
                "wave_size = 4\n",
                "wave_size",
                "pairings is not \"adaptive\"",
            ),
            (
                "stop_when_separated = 0.9\n",
                "stop_when_separated",
                "pairings is not \"adaptive\"",
            ),
            (
                "pairings = \"adaptive\"\nmax_rounds = 0\n",
                "max_rounds",
                "is 0",
            ),
            (
                "pairings = \"adaptive\"\nwave_size = 0\n",
                "wave_size",
                "is 0",
            ),
            (
                "pairings = \"adaptive\"\nstop_when_separated = 1.0\n",
                "stop_when_separated",
                "not a probability above 0.5 and below 1",
            ),
            (
                "pairings = \"adaptive\"\nstop_when_separated = 0.4\n",
                "stop_when_separated",
                "not a probability",
            ),
            (
                "pairings = \"adaptve\"\n",
                "pairings",
                "neither \"all\", \"adaptive\"",
            ),
        ] {
            let e = TournamentConfig::parse(&format!("{BASE}{body}"), Path::new("t.toml"))
                .unwrap_err()
                .to_string();
            assert!(
                e.starts_with("t.toml")
                    && e.contains(&format!("key \"{key}\""))
                    && e.contains(says),
                "{body}: {e}"
            );
        }
        let one = "name = \"x\"\ndilemma_file = \"d.md\"\nmodels = [\"a\"]\njudges = [\"c\"]\npairings = \"adaptive\"\nself_debates = true\n";
        let e = TournamentConfig::parse(one, Path::new("t.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("fewer than two models"), "{e}");
        let e = TournamentConfig::parse(&format!("{BASE}seed = -1\n"), Path::new("t.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("seed"), "{e}");
    }
}
