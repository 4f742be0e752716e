//! The schedule: every round the configuration implies, with stable ids and judges.
//!
//! Ids are derived from the configuration alone (`<dilemma>__<a>__vs__<b>__r<n>`), so the
//! same configuration always yields the same ids, which is what makes resuming work.
//! Rounds are ordered repetition, then dilemma, then pairing, so that rounds next to each
//! other involve different models and one slow provider does not hold up a whole batch.
//! Rotating judges give a configuration's repetitions different judges where there are
//! enough, so judge agreement can be measured across rounds.

use std::collections::HashMap;

use crate::config::{JudgingMode, Pairings, QaConfig, TournamentConfig};
use crate::domain::ProtocolKind;
use crate::domain::QaFormat;
use crate::domain::ScheduledRound;

/// The schedule, and what the user should hear about it.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    /// Every round.
    pub rounds: Vec<ScheduledRound>,
    /// Imbalances the configuration makes unavoidable.
    pub warnings: Vec<String>,
}

/// The ordered pairs a configuration plays. A structured debate plays every listed pair
/// both ways (Team A argues Pro), so that side advantage can be measured.
pub fn pairings(config: &TournamentConfig) -> Vec<(String, String)> {
    match &config.pairings {
        Pairings::List(list) if config.protocol == ProtocolKind::StructuredDebate => {
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

/// The id of a question-answer round: item, format, debaters and judge.
pub fn qa_round_id(
    item: &str,
    format: QaFormat,
    debaters: &[&str],
    judge: &str,
    repetition: u32,
) -> String {
    let who = match debaters {
        [a, b] => format!("__{a}__vs__{b}"),
        [a] => format!("__{a}"),
        _ => String::new(),
    };
    format!(
        "{item}__{}{who}__judge__{judge}__r{repetition}",
        format.as_str()
    )
}

/// The question-answer schedule: for each repetition, item and judge, the baselines, the
/// consultancies and the debates whose debater–judge relation the `[qa]` table asks for.
/// A panel is one judge here (named `panel` in round ids), related to the debaters through
/// all its models.
pub fn build_qa(config: &TournamentConfig, qa: &QaConfig, item_ids: &[String]) -> Schedule {
    let pairs = pairings(config);
    let judges: Vec<(String, Vec<String>)> = match config.judging {
        JudgingMode::Panel => vec![("panel".to_string(), config.judge_models())],
        JudgingMode::All | JudgingMode::Rotate => config
            .judges
            .iter()
            .map(|j| (j.clone(), vec![j.clone()]))
            .collect(),
    };
    let mut rounds = Vec::new();
    let mut push = |item: &str,
                    format: QaFormat,
                    debaters: &[&str],
                    (judge, models): &(String, Vec<String>),
                    repetition: u32| {
        let models: Vec<&str> = models.iter().map(String::as_str).collect();
        let relation = (!debaters.is_empty()).then(|| qa.relation(debaters, &models).to_string());
        if relation.as_ref().is_some_and(|r| !qa.relations.contains(r)) {
            return;
        }
        rounds.push(ScheduledRound {
            round_id: qa_round_id(item, format, debaters, judge, repetition),
            dilemma_id: item.to_string(),
            repetition,
            team_a: debaters.first().map_or_else(String::new, |d| d.to_string()),
            team_b: debaters.get(1).map_or_else(String::new, |d| d.to_string()),
            judges: models.iter().map(|m| m.to_string()).collect(),
            format: Some(format),
            relation,
        });
    };
    for repetition in 1..=config.repetitions {
        for item in item_ids {
            for judge in &judges {
                for format in &qa.baselines {
                    push(item, *format, &[], judge, repetition);
                }
                if qa.consultancy {
                    for m in &config.models {
                        push(item, QaFormat::Consultancy, &[m], judge, repetition);
                    }
                }
                for (a, b) in &pairs {
                    push(item, QaFormat::Debate, &[a, b], judge, repetition);
                }
            }
        }
    }
    let mut warnings = Vec::new();
    if !rounds.iter().any(|r| r.format == Some(QaFormat::Debate)) {
        warnings.push(format!(
            "no debate matches qa.relations ({}) with these models, pairings and judges; only \
             baselines will run",
            qa.relations.join(", ")
        ));
    }
    Schedule { rounds, warnings }
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
    fn qa_schedule_filters_relations_and_names_rounds() {
        let c = TournamentConfig::parse(
            "name = \"q\"\nprotocol = \"qa_debate\"\nmodels = [\"big\", \"small\"]\njudges = [\"small\"]\nself_debates = true\n\
             [qa]\ndatasets = [{ file = \"x.json\" }]\nstrength_order = [\"big\", \"small\"]\nrelations = [\"stronger\", \"self_play\"]\nconsultancy = true\n",
            Path::new("t.toml"),
        )
        .unwrap();
        let qa = c.qa.clone().unwrap();
        let s = build_qa(&c, &qa, &["i1".into()]);
        let ids: Vec<&str> = s.rounds.iter().map(|r| r.round_id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "i1__naive__judge__small__r1",
                "i1__expert__judge__small__r1",
                "i1__expert_cot__judge__small__r1",
                "i1__consultancy__big__judge__small__r1",
                "i1__consultancy__small__judge__small__r1",
                "i1__debate__big__vs__big__judge__small__r1",
                "i1__debate__small__vs__small__judge__small__r1",
            ],
            "mixed pairs (big vs small) are left out"
        );
        assert_eq!(s.rounds[5].relation.as_deref(), Some("stronger"));
        assert_eq!(s.rounds[6].relation.as_deref(), Some("self_play"));
        assert!(s.warnings.is_empty());
    }

    #[test]
    fn a_qa_panel_is_one_judge_related_through_all_its_models() {
        let c = TournamentConfig::parse(
            "name = \"q\"\nprotocol = \"qa_debate\"\nmodels = [\"big\", \"mid\"]\njudging = \"panel\"\n\
             [qa]\ndatasets = [{ file = \"x.json\" }]\nstrength_order = [\"big\", \"mid\", \"small\"]\nbaselines = [\"naive\"]\n\
             [panel]\n[[panel.judges]]\npersona_id = \"x\"\nmodel = \"small\"\npersona = \"p\"\n\
             [[panel.judges]]\npersona_id = \"y\"\nmodel = \"mid\"\npersona = \"p\"\n",
            Path::new("t.toml"),
        )
        .unwrap();
        let qa = c.qa.clone().unwrap();
        let s = build_qa(&c, &qa, &["i1".into()]);
        let rounds: Vec<(&str, Option<&str>)> = s
            .rounds
            .iter()
            .map(|r| (r.round_id.as_str(), r.relation.as_deref()))
            .collect();
        assert_eq!(
            rounds,
            [
                ("i1__naive__judge__panel__r1", None),
                ("i1__debate__big__vs__mid__judge__panel__r1", Some("mixed")),
                ("i1__debate__mid__vs__big__judge__panel__r1", Some("mixed")),
            ]
        );
        assert!(s.rounds.iter().all(|r| r.judges == ["small", "mid"]));
    }

    #[test]
    fn judging_all_gives_every_judge() {
        let s = build(&config("judging = \"all\"\n"), &["d".into()]).unwrap();
        assert!(s.rounds.iter().all(|r| r.judges.len() == 3));
        assert_eq!(s.warnings.len(), 1);
    }
}
