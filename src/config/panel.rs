//! The `[panel]` table of a tournament or judging file: the judges with their personas and
//! weights, and when the panel deliberates.

use serde::{Deserialize, Serialize};

/// One panel judge as configured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PanelJudgeConfig {
    /// The persona's id: unique in the panel, used in files and the UI.
    pub persona_id: String,
    /// Any configured model.
    pub model: String,
    /// What this judge cares about, given to it before the exchange.
    pub persona: String,
    /// Its weight in the aggregate.
    #[serde(default = "one")]
    pub weight: f64,
}

/// A panel of judges that deliberates when it disagrees.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PanelConfig {
    /// The judges.
    pub judges: Vec<PanelJudgeConfig>,
    /// Deliberation rounds at most, after the independent evaluations.
    #[serde(default = "default_rounds")]
    pub max_deliberation_rounds: u32,
    /// The agreement (0–1) at which the panel stops deliberating.
    #[serde(default = "default_convergence")]
    pub convergence_threshold: f64,
    /// A score gap at least this large on one dimension (points on the rubric's 1–10 scale)
    /// counts as a disagreement: 6.75 by default, three quarters of the 9-point range, as the
    /// source's 1.5 points are of its 1–3 scale's 2-point range.
    #[serde(default = "default_dimension_gap")]
    pub dimension_disagreement_threshold: f64,
    /// How many judges must have an evaluation before the panel deliberates (at least 2,
    /// at most the number of judges); with fewer, the panel stops as it stands (after each
    /// round, so a judge whose provider fails can bring it below the minimum).
    #[serde(default = "default_min_evaluations")]
    pub min_evaluations_for_debate: u32,
    /// Seconds each deliberation round may take, from its first call (none: no limit).
    /// When it runs out, the answers given in time count, the late judges' previous
    /// evaluations stand, and the panel deliberates no further.
    #[serde(default)]
    pub deliberation_timeout_s: Option<f64>,
}

fn one() -> f64 {
    1.0
}
fn default_rounds() -> u32 {
    3
}
fn default_convergence() -> f64 {
    0.8
}
/// The source's threshold (1.5 points of the 2-point range of its 1–3 scale) on the 1–10
/// scale: 1.5 ÷ 2 × 9.
const DEFAULT_DIMENSION_GAP: f64 = 1.5 / 2.0 * 9.0;

fn default_dimension_gap() -> f64 {
    DEFAULT_DIMENSION_GAP
}
fn default_min_evaluations() -> u32 {
    crate::domain::DEFAULT_MIN_EVALUATIONS
}

impl PanelConfig {
    /// What is wrong with it, as (key, problem, what to do).
    pub fn problem(&self) -> Option<(String, String, String)> {
        if self.judges.is_empty() {
            return Some((
                "panel.judges".into(),
                "no judges".into(),
                "add [[panel.judges]] entries with persona_id, model, persona and weight".into(),
            ));
        }
        for (i, judge) in self.judges.iter().enumerate() {
            let key = format!("panel.judges[{i}]");
            if crate::domain::check_file_id(&judge.persona_id).is_err() {
                return Some((
                    format!("{key}.persona_id"),
                    format!("\"{}\" is not a usable id", judge.persona_id),
                    "use letters, digits, '-' and '_' only".into(),
                ));
            }
            if self.judges[..i]
                .iter()
                .any(|j| j.persona_id == judge.persona_id)
            {
                return Some((
                    format!("{key}.persona_id"),
                    format!("\"{}\" appears twice", judge.persona_id),
                    "give each judge its own persona_id".into(),
                ));
            }
            if !(judge.weight.is_finite() && judge.weight > 0.0) {
                return Some((
                    format!("{key}.weight"),
                    format!("{} is not a positive number", judge.weight),
                    "use a weight above 0, e.g. 1.0".into(),
                ));
            }
        }
        if !(0.0..=1.0).contains(&self.convergence_threshold) {
            return Some((
                "panel.convergence_threshold".into(),
                format!("{} is outside 0–1", self.convergence_threshold),
                "use e.g. 0.8".into(),
            ));
        }
        if !(self.dimension_disagreement_threshold.is_finite()
            && self.dimension_disagreement_threshold > 0.0)
        {
            return Some((
                "panel.dimension_disagreement_threshold".into(),
                format!(
                    "{} is not a positive gap",
                    self.dimension_disagreement_threshold
                ),
                "use e.g. 6.75 (points on the 1–10 scale: three quarters of its range, the default)"
                    .into(),
            ));
        }
        let judges = self.judges.len();
        if self.min_evaluations_for_debate < 2 {
            return Some((
                "panel.min_evaluations_for_debate".into(),
                format!(
                    "{} is below 2: a deliberation needs two judges",
                    self.min_evaluations_for_debate
                ),
                "use 2 (the default) or more".into(),
            ));
        }
        // A lone judge keeps the default (it never deliberates, as before the setting).
        if self.min_evaluations_for_debate as usize > judges.max(2) {
            return Some((
                "panel.min_evaluations_for_debate".into(),
                format!(
                    "{} is more than the panel's {judges} judge(s): it could never deliberate",
                    self.min_evaluations_for_debate
                ),
                format!("use a number from 2 to {judges}, or add judges"),
            ));
        }
        if let Some(t) = self
            .deliberation_timeout_s
            .filter(|t| !super::seconds::in_range(*t, true))
        {
            return Some((
                "panel.deliberation_timeout_s".into(),
                format!("{t} is not a positive number of seconds up to a week (604800)"),
                "use e.g. deliberation_timeout_s = 300, or leave it out for no limit".into(),
            ));
        }
        None
    }

    /// The time limit of each deliberation round, when there is one.
    pub fn deliberation_timeout(&self) -> Option<std::time::Duration> {
        self.deliberation_timeout_s
            .filter(|t| t.is_finite() && *t > 0.0)
            .map(crate::config::seconds)
    }

    /// The models the panel calls, each once, in order.
    pub fn models(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for j in &self.judges {
            if !out.contains(&j.model) {
                out.push(j.model.clone());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panel(text: &str) -> PanelConfig {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn defaults_and_checks() {
        let p = panel(
            "[[judges]]\npersona_id = \"a\"\nmodel = \"m\"\npersona = \"x\"\n[[judges]]\npersona_id = \"b\"\nmodel = \"m\"\npersona = \"y\"\nweight = 2\n",
        );
        assert_eq!(p.max_deliberation_rounds, 3);
        assert_eq!(p.convergence_threshold, 0.8);
        // The source's 1.5 of the 2-point range of its 1–3 scale, rescaled to the 9-point
        // range of the 1–10 scale.
        assert_eq!(p.dimension_disagreement_threshold, 6.75);
        assert_eq!(DEFAULT_DIMENSION_GAP / 9.0, 1.5 / 2.0);
        assert_eq!(p.min_evaluations_for_debate, 2);
        assert_eq!(p.deliberation_timeout(), None);
        assert_eq!(p.models(), vec!["m".to_string()]);
        assert!(p.problem().is_none());
        for (min, timeout, problem) in [
            (1, None, "below 2"),
            (3, None, "more than the panel's 2 judge(s)"),
            (2, Some(0.0), "not a positive number of seconds"),
            (2, Some(f64::NAN), "not a positive number of seconds"),
        ] {
            let mut bad = p.clone();
            (bad.min_evaluations_for_debate, bad.deliberation_timeout_s) = (min, timeout);
            let (key, message, _) = bad.problem().unwrap();
            assert!(
                key.starts_with("panel.") && message.contains(problem),
                "{key}: {message}"
            );
        }
        let timed = panel(
            "min_evaluations_for_debate = 2\ndeliberation_timeout_s = 90\n[[judges]]\npersona_id = \"a\"\nmodel = \"m\"\npersona = \"x\"\n[[judges]]\npersona_id = \"b\"\nmodel = \"m\"\npersona = \"y\"\n",
        );
        assert!(timed.problem().is_none());
        assert_eq!(
            timed.deliberation_timeout(),
            Some(std::time::Duration::from_secs(90))
        );
        let mut twice = p.clone();
        twice.judges[1].persona_id = "a".into();
        assert!(twice.problem().unwrap().1.contains("twice"));
        let mut weightless = p.clone();
        weightless.judges[0].weight = 0.0;
        assert_eq!(weightless.problem().unwrap().0, "panel.judges[0].weight");
        let mut bad_id = p;
        bad_id.judges[0].persona_id = "../x".into();
        assert!(bad_id.problem().is_some());
    }
}
