//! The schedule of the protocols where two models meet over an item (a dilemma, a topic):
//! every round the configuration implies, with stable ids and judges. A protocol whose rounds
//! are shaped otherwise builds its own from the same pairings (the question-answer debate's
//! `qa_debate::schedule`).
//!
//! Ids are derived from the configuration alone (`<dilemma>__<a>__vs__<b>__r<n>`), so the
//! same configuration always yields the same ids, which is what makes resuming work.
//! Rounds are ordered repetition, then dilemma, then pairing, so that rounds next to each
//! other involve different models and one slow provider does not hold up a whole batch.
//! Rotating judges give a configuration's repetitions different judges where there are
//! enough, so judge agreement can be measured across rounds.

use std::collections::HashMap;

use crate::config::{JudgingMode, Pairings, TournamentConfig};
use crate::domain::ScheduledRound;

/// The schedule, and what the user should hear about it.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    /// Every round.
    pub rounds: Vec<ScheduledRound>,
    /// Imbalances the configuration makes unavoidable.
    pub warnings: Vec<String>,
}

/// The ordered pairs a configuration plays. A protocol whose sides differ in kind (the
/// structured debate's Pro and Con) plays every listed pair both ways, so that side advantage
/// can be measured (see [`super::ProtocolSpec::pairs_both_ways`]).
pub fn pairings(config: &TournamentConfig) -> Vec<(String, String)> {
    match &config.pairings {
        Pairings::List(list) if super::spec(config.protocol).pairs_both_ways() => {
            let mut out: Vec<(String, String)> = Vec::new();
            for [a, b] in list {
                for pair in [(a.clone(), b.clone()), (b.clone(), a.clone())] {
                    if !out.contains(&pair) {
                        out.push(pair);
                    }
                }
            }
            out
        }
        Pairings::List(list) => list.iter().map(|[a, b]| (a.clone(), b.clone())).collect(),
        Pairings::Keyword(_) => {
            let mut out = Vec::new();
            for a in &config.models {
                for b in &config.models {
                    if a != b || config.self_debates {
                        out.push((a.clone(), b.clone()));
                    }
                }
            }
            out
        }
    }
}

/// The most rounds one tournament may schedule: far beyond any real study, and far below
/// what would exhaust memory while the schedule is built.
pub const MAX_ROUNDS: u64 = 1_000_000;

/// How many rounds a schedule over `items` items holds at least: repetitions × items ×
/// pairings (a question-answer schedule adds formats and judges on top), counted without
/// building it.
pub fn least_rounds(config: &TournamentConfig, items: usize) -> u64 {
    let pairs = pairings(config).len().max(1) as u64;
    u64::from(config.repetitions)
        .saturating_mul(items as u64)
        .saturating_mul(pairs)
}

/// The id of a round.
pub fn round_id(dilemma: &str, a: &str, b: &str, repetition: u32) -> String {
    format!("{dilemma}__{a}__vs__{b}__r{repetition}")
}

/// Builds the schedule; an error names a round no judge can score.
pub fn build(config: &TournamentConfig, dilemma_ids: &[String]) -> Result<Schedule, String> {
    let pairs = pairings(config);
    let mut rounds = Vec::new();
    // How often each judge has seen each model in each role, and judged at all.
    let mut seen: HashMap<(String, String, char), u32> = HashMap::new();
    let mut load: HashMap<String, u32> = HashMap::new();
    // How often each judge has judged each configuration (dilemma, Team A, Team B).
    let mut judged: HashMap<(&str, &str, &str, &str), u32> = HashMap::new();
    for repetition in 1..=config.repetitions {
        for dilemma in dilemma_ids {
            for (a, b) in &pairs {
                let judges = match config.judging {
                    JudgingMode::All => config.judges.clone(),
                    JudgingMode::Panel => config.judge_models(),
                    JudgingMode::Rotate => {
                        let pick = config
                            .judges
                            .iter()
                            .filter(|j| *j != a && *j != b)
                            .min_by_key(|j| {
                                let again = judged
                                    .get(&(dilemma.as_str(), a.as_str(), b.as_str(), j.as_str()))
                                    .copied()
                                    .unwrap_or(0);
                                let role_seen = seen.get(&((*j).clone(), a.clone(), 'A')).copied().unwrap_or(0)
                                    + seen.get(&((*j).clone(), b.clone(), 'B')).copied().unwrap_or(0);
                                (again, role_seen, load.get(*j).copied().unwrap_or(0))
                            })
                            .ok_or_else(|| {
                                format!(
                                    "no judge can score {a} vs {b}: every judge ({}) plays in it; add a judge \
                                     that does not debate, or use judging = \"all\"",
                                    config.judges.join(", ")
                                )
                            })?;
                        *seen.entry((pick.clone(), a.clone(), 'A')).or_default() += 1;
                        *seen.entry((pick.clone(), b.clone(), 'B')).or_default() += 1;
                        *load.entry(pick.clone()).or_default() += 1;
                        *judged
                            .entry((dilemma.as_str(), a.as_str(), b.as_str(), pick.as_str()))
                            .or_default() += 1;
                        vec![pick.clone()]
                    }
                };
                rounds.push(ScheduledRound {
                    round_id: round_id(dilemma, a, b, repetition),
                    dilemma_id: dilemma.clone(),
                    repetition,
                    team_a: a.clone(),
                    team_b: b.clone(),
                    judges,
                    format: None,
                    relation: None,
                });
            }
        }
    }
    let warnings = if config.judging == JudgingMode::Rotate {
        balance_warnings(config, &seen)
    } else {
        self_judging(config)
    };
    Ok(Schedule { rounds, warnings })
}

/// For each judge, the models it could see in a role should be seen about equally often.
fn balance_warnings(
    config: &TournamentConfig,
    seen: &HashMap<(String, String, char), u32>,
) -> Vec<String> {
    let mut warnings = Vec::new();
    for judge in &config.judges {
        for role in ['A', 'B'] {
            let counts: Vec<(&String, u32)> = config
                .models
                .iter()
                .filter(|m| *m != judge)
                .map(|m| {
                    (
                        m,
                        seen.get(&(judge.clone(), m.clone(), role))
                            .copied()
                            .unwrap_or(0),
                    )
                })
                .collect();
            let (Some(min), Some(max)) = (
                counts.iter().min_by_key(|c| c.1),
                counts.iter().max_by_key(|c| c.1),
            ) else {
                continue;
            };
            if max.1 > min.1 + 1 {
                let role = if role == 'A' {
                    "presenting"
                } else {
                    "responding"
                };
                warnings.push(format!(
                    "judge balance: {judge} sees {} {role} {} times but {} only {} times; the configuration \
                     (models, judges, pairings) makes equal exposure impossible",
                    max.0, max.1, min.0, min.1
                ));
            }
        }
    }
    warnings
}

fn self_judging(config: &TournamentConfig) -> Vec<String> {
    let judges = config.judge_models();
    let both: Vec<&String> = judges
        .iter()
        .filter(|j| config.models.contains(j))
        .collect();
    if both.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "with judging = \"{}\", {} also judge rounds they play in; the analysis reports self-preference",
        if config.judging == JudgingMode::Panel {
            "panel"
        } else {
            "all"
        },
        both.iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    )]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn config(extra: &str) -> TournamentConfig {
        TournamentConfig::parse(
            &format!("name = \"t\"\ndilemma_file = \"d.md\"\nmodels = [\"a\", \"b\", \"c\"]\njudges = [\"a\", \"b\", \"c\"]\n{extra}"),
            Path::new("t.toml"),
        )
        .unwrap()
    }

    #[test]
    fn every_ordered_pair_times_dilemmas_times_repetitions_with_stable_ids() {
        let c = config("repetitions = 2\n");
        let s = build(&c, &["d1".into(), "d2".into()]).unwrap();
        assert_eq!(s.rounds.len(), 6 * 2 * 2);
        assert_eq!(s.rounds[0].round_id, "d1__a__vs__b__r1");
        assert_eq!(
            build(&c, &["d1".into(), "d2".into()]).unwrap(),
            s,
            "same config, same schedule"
        );
        let c = config("self_debates = true\n");
        assert_eq!(build(&c, &["d1".into()]).unwrap().rounds.len(), 9);
    }

    #[test]
    fn rotating_judges_never_judge_their_own_round_and_balance() {
        let c = config("");
        let s = build(&c, &["d1".into(), "d2".into(), "d3".into(), "d4".into()]).unwrap();
        for r in &s.rounds {
            assert_eq!(r.judges.len(), 1);
            assert!(r.judges[0] != r.team_a && r.judges[0] != r.team_b, "{r:?}");
        }
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    }

    #[test]
    fn rotating_judges_differ_across_a_configurations_repetitions_where_they_can() {
        let c = TournamentConfig::parse(
            "name = \"t\"\ndilemma_file = \"d.md\"\nmodels = [\"a\", \"b\", \"c\"]\n\
             judges = [\"a\", \"b\", \"c\", \"x\"]\nrepetitions = 3\n",
            Path::new("t.toml"),
        )
        .unwrap();
        let s = build(&c, &["d1".into(), "d2".into()]).unwrap();
        assert_eq!(s.rounds.len(), 6 * 2 * 3);
        assert_eq!(s.rounds[0].round_id, "d1__a__vs__b__r1");
        // Each configuration has two eligible judges (x and the model not playing): its
        // first two repetitions get both, the third one of them again.
        let mut by_configuration: HashMap<(String, String, String), Vec<String>> = HashMap::new();
        for r in &s.rounds {
            assert!(r.judges[0] != r.team_a && r.judges[0] != r.team_b, "{r:?}");
            by_configuration
                .entry((r.dilemma_id.clone(), r.team_a.clone(), r.team_b.clone()))
                .or_default()
                .push(r.judges[0].clone());
        }
        assert_eq!(by_configuration.len(), 12);
        for (configuration, judges) in &by_configuration {
            assert_ne!(judges[0], judges[1], "{configuration:?}: {judges:?}");
        }
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        // Four judges for two models: every repetition of a configuration a different judge.
        let c = TournamentConfig::parse(
            "name = \"t\"\ndilemma_file = \"d.md\"\nmodels = [\"a\", \"b\"]\n\
             judges = [\"w\", \"x\", \"y\", \"z\"]\nrepetitions = 4\n",
            Path::new("t.toml"),
        )
        .unwrap();
        let s = build(&c, &["d1".into()]).unwrap();
        for (a, b) in [("a", "b"), ("b", "a")] {
            let mut judges: Vec<&str> = s
                .rounds
                .iter()
                .filter(|r| r.team_a == a && r.team_b == b)
                .map(|r| r.judges[0].as_str())
                .collect();
            judges.sort_unstable();
            assert_eq!(judges, ["w", "x", "y", "z"]);
        }
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    }

    #[test]
    fn impossible_assignments_are_errors_and_imbalance_is_warned() {
        let c = TournamentConfig::parse(
            "name = \"t\"\ndilemma_file = \"d.md\"\nmodels = [\"a\", \"b\"]\njudges = [\"a\"]\n",
            Path::new("t.toml"),
        )
        .unwrap();
        assert!(
            build(&c, &["d".into()])
                .unwrap_err()
                .contains("no judge can score a vs b")
        );
        let c = TournamentConfig::parse(
            "name = \"t\"\ndilemma_file = \"d.md\"\nmodels = [\"a\", \"b\", \"c\"]\njudges = [\"c\", \"x\"]\npairings = [[\"a\", \"b\"], [\"a\", \"c\"]]\nrepetitions = 3\n",
            Path::new("t.toml"),
        )
        .unwrap();
        let s = build(&c, &["d".into()]).unwrap();
        assert!(
            s.warnings.iter().any(|w| w.starts_with("judge balance: x")),
            "{:?}",
            s.warnings
        );
    }

    #[test]
    fn judging_all_gives_every_judge() {
        let s = build(&config("judging = \"all\"\n"), &["d".into()]).unwrap();
        assert!(s.rounds.iter().all(|r| r.judges.len() == 3));
        assert_eq!(s.warnings.len(), 1);
    }
}
