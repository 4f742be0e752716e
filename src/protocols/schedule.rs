//! The schedule of the protocols where two models meet over an item (a dilemma, a topic):
//! every round the configuration implies, with stable ids and judges. A protocol whose rounds
//! are shaped otherwise builds its own from the same pairings (the question-answer debate's
//! `qa_debate::schedule`).
//!
//! Ids are derived from the configuration alone (`<dilemma>__<a>__vs__<b>__r<n>`), so the
//! same configuration always yields the same ids, which is what makes resuming work.
//! Rounds are ordered repetition, then dilemma, then pairing, so that rounds next to each
//! other involve different models and one slow provider does not hold up a whole batch.
//! Rotating judges ([`super::rotation`]) spread each ordered pairing over every judge free to
//! score it, as evenly as its rounds allow, so a judge's leniency is not confounded with the
//! pairing it scores, and give a configuration's repetitions different judges where there
//! are enough, so judge agreement can be measured across rounds. Where the configuration
//! leaves a confound all the same, the schedule's warnings name it ([`confounds`]).

use std::collections::{BTreeSet, HashMap};

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
///
/// With `judging = "rotate"` each round has one judge, never one of its teams, planned by
/// [`super::rotation`]: every ordered pairing meets as many different judges as are free to
/// score it, each about equally often, over its dilemmas and repetitions; a configuration's
/// repetitions get different judges while there are enough; each judge sees each model in
/// each role, and judges as many rounds, as evenly as the rest allows.
pub fn build(config: &TournamentConfig, dilemma_ids: &[String]) -> Result<Schedule, String> {
    let pairs = pairings(config);
    let plan = match config.judging {
        JudgingMode::Rotate => Some(
            super::rotation::plan(
                &config.judges,
                &config.models,
                &pairs,
                dilemma_ids.len(),
                config.repetitions,
            )
            .map_err(|(a, b)| {
                format!(
                    "no judge can score {a} vs {b}: every judge ({}) plays in it; add a judge \
                     that does not debate, or use judging = \"all\"",
                    config.judges.join(", ")
                )
            })?,
        ),
        JudgingMode::All | JudgingMode::Panel => None,
    };
    let mut rounds = Vec::new();
    for repetition in 1..=config.repetitions {
        for (d, dilemma) in dilemma_ids.iter().enumerate() {
            for (p, (a, b)) in pairs.iter().enumerate() {
                let judges = match (&plan, config.judging) {
                    (Some(plan), _) => {
                        let at = (repetition as usize - 1) * dilemma_ids.len() + d;
                        plan.judges
                            .get(p)
                            .and_then(|judges| judges.get(at))
                            .map(|j| vec![j.to_string()])
                            .unwrap_or_default()
                    }
                    (None, JudgingMode::Panel) => config.judge_models(),
                    (None, _) => config.judges.clone(),
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
    let mut warnings = match &plan {
        Some(plan) => balance_warnings(config, &plan.seen),
        None => self_judging(config),
    };
    warnings.extend(confounds(config, &rounds));
    Ok(Schedule { rounds, warnings })
}

/// For each judge, the models it could see in a role should be seen about equally often.
fn balance_warnings(
    config: &TournamentConfig,
    seen: &HashMap<(&str, &str, char), u32>,
) -> Vec<String> {
    let mut warnings = Vec::new();
    for judge in &config.judges {
        for role in ['A', 'B'] {
            let counts: Vec<(&String, u32)> = config
                .models
                .iter()
                .filter(|m| *m != judge)
                .map(|m| {
                    let n = seen.get(&(judge.as_str(), m.as_str(), role));
                    (m, n.copied().unwrap_or(0))
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
                    "judge balance: {judge} sees {} {role} {} times but {} only {} times; the rotation \
                     found no equal exposure for this configuration (models, judges, pairings)",
                    max.0, max.1, min.0, min.1
                ));
            }
        }
    }
    warnings
}

/// The most pairings or judges a confound warning names before it says how many more.
const NAMED: usize = 6;

/// The first [`NAMED`] of `items`, joined with semicolons, and how many more.
fn named(items: &[String]) -> String {
    let mut out = items
        .iter()
        .take(NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    if items.len() > NAMED {
        out.push_str(&format!("; and {} more", items.len() - NAMED));
    }
    out
}

/// Where the schedule `rounds` confounds a judge with what it judges, so that the judge's
/// leniency cannot be told apart from the models' quality: an ordered pairing with two
/// rounds or more that only ever one judge scores, and a judge that never scores a model
/// it was free to judge (one playing in a round the judge does not play in), while it
/// scores others. Each kind is one warning, naming where and how to remove it.
pub fn confounds(config: &TournamentConfig, rounds: &[ScheduledRound]) -> Vec<String> {
    let candidates = config.judge_models();
    let mut warnings = Vec::new();
    // Each ordered pairing's rounds and judges, in schedule order.
    let mut by_pairing: Vec<((&str, &str), usize, BTreeSet<&str>)> = Vec::new();
    for r in rounds {
        let key = (r.team_a.as_str(), r.team_b.as_str());
        let i = match by_pairing.iter().position(|(k, _, _)| *k == key) {
            Some(i) => i,
            None => {
                by_pairing.push((key, 0, BTreeSet::new()));
                by_pairing.len() - 1
            }
        };
        by_pairing[i].1 += 1;
        by_pairing[i].2.extend(r.judges.iter().map(String::as_str));
    }
    let free = |(a, b): (&str, &str)| {
        candidates
            .iter()
            .filter(|j| config.judging != JudgingMode::Rotate || (*j != a && *j != b))
            .count()
    };
    let alone: Vec<((&str, &str), usize, &str)> = by_pairing
        .iter()
        .filter(|(_, n, judges)| *n >= 2 && judges.len() == 1)
        .filter_map(|(pair, n, judges)| Some((*pair, *n, *judges.first()?)))
        .collect();
    if let [(_, _, judge), ..] = alone.as_slice()
        && candidates.len() == 1
    {
        warnings.push(format!(
            "judge confound: {judge} is the only judge, so every pairing is scored by {judge} alone and \
             its own preferences cannot be told apart from the models' quality; add judges (ones that \
             do not debate can judge every round)"
        ));
    } else if !alone.is_empty() {
        let listed: Vec<String> = alone
            .iter()
            .map(|((a, b), n, judge)| format!("{a} vs {b}: {judge} in all {n} rounds"))
            .collect();
        let mut fixes = Vec::new();
        if alone.iter().any(|(pair, _, _)| free(*pair) <= 1) {
            fixes.push("add a judge that plays in neither side".to_string());
        }
        if alone.iter().any(|(pair, _, _)| free(*pair) > 1) {
            fixes.push("add repetitions or dilemmas".to_string());
        }
        if config.judging == JudgingMode::Rotate {
            fixes.push(
                "use judging = \"all\" (every judge scores every round; self-judgments are reported apart)"
                    .to_string(),
            );
        }
        warnings.push(format!(
            "judge confound: {} of {} ordered pairings are scored by one judge only ({}), so that \
             judge's leniency cannot be told apart from the pairing's result; {}",
            alone.len(),
            by_pairing.len(),
            named(&listed),
            fixes.join(", or ")
        ));
    }
    // Each judge's models: those it scores, and those it was free to score.
    let mut never = Vec::new();
    for judge in &candidates {
        let mut could: BTreeSet<&str> = BTreeSet::new();
        let mut does: BTreeSet<&str> = BTreeSet::new();
        for r in rounds {
            let players = [r.team_a.as_str(), r.team_b.as_str()];
            let players = players.iter().filter(|p| !p.is_empty() && *p != judge);
            if r.judges.contains(judge) {
                does.extend(players.clone());
            }
            if r.team_a != *judge && r.team_b != *judge {
                could.extend(players);
            }
        }
        let missing: Vec<&str> = could.difference(&does).copied().collect();
        if !does.is_empty() && !missing.is_empty() {
            never.push(format!(
                "{judge} never scores {} (only {})",
                missing.join(", "),
                does.iter().copied().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    if !never.is_empty() {
        warnings.push(format!(
            "judge confound: some judges never score some of the models they are free to judge ({}), \
             so a judge's leniency falls on some models and not others; add repetitions or dilemmas, \
             add judges{}",
            named(&never),
            if config.judging == JudgingMode::Rotate {
                ", or use judging = \"all\""
            } else {
                ""
            }
        ));
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
        // Balanced, but each pairing has one judge free to score it: a confound, said.
        assert!(
            !s.warnings.iter().any(|w| w.starts_with("judge balance")),
            "{:?}",
            s.warnings
        );
        assert_eq!(s.warnings.len(), 1, "{:?}", s.warnings);
        assert!(
            s.warnings[0].starts_with("judge confound: 6 of 6 ordered pairings")
                && s.warnings[0].contains("a vs b: c in all 4 rounds")
                && s.warnings[0].contains("add a judge that plays in neither side")
                && s.warnings[0].contains("judging = \"all\""),
            "{}",
            s.warnings[0]
        );
    }

    /// A tournament of these debaters and judges over all ordered pairings, with `extra`
    /// lines of configuration.
    fn roster(models: &[&str], judges: &[&str], extra: &str) -> TournamentConfig {
        let list = |v: &[&str]| {
            v.iter()
                .map(|s| format!("\"{s}\""))
                .collect::<Vec<_>>()
                .join(", ")
        };
        TournamentConfig::parse(
            &format!(
                "name = \"t\"\ndilemma_file = \"d.md\"\nmodels = [{}]\njudges = [{}]\n{extra}",
                list(models),
                list(judges)
            ),
            Path::new("t.toml"),
        )
        .unwrap()
    }

    fn dilemmas(n: usize) -> Vec<String> {
        (1..=n).map(|i| format!("d{i}")).collect()
    }

    /// Each ordered pairing's judges, in schedule order.
    fn judges_by_pairing(s: &Schedule) -> HashMap<(String, String), Vec<String>> {
        let mut out: HashMap<(String, String), Vec<String>> = HashMap::new();
        for r in &s.rounds {
            out.entry((r.team_a.clone(), r.team_b.clone()))
                .or_default()
                .extend(r.judges.iter().cloned());
        }
        out
    }

    /// Whether the schedule confounds a judge with a pairing (two rounds or more, one
    /// judge) or with the models it scores (a model it could score but never does).
    fn confounded(s: &Schedule) -> bool {
        let by_pairing = judges_by_pairing(s);
        let alone = by_pairing
            .values()
            .any(|judges| judges.len() >= 2 && judges.iter().all(|j| *j == judges[0]));
        let judges: BTreeSet<&String> = s.rounds.iter().flat_map(|r| &r.judges).collect();
        let never = judges.iter().any(|j| {
            let mut does = BTreeSet::new();
            let mut could = BTreeSet::new();
            for r in &s.rounds {
                let players = [&r.team_a, &r.team_b].into_iter().filter(|m| m != j);
                if r.judges.contains(j) {
                    does.extend(players.clone());
                }
                if r.team_a != **j && r.team_b != **j {
                    could.extend(players);
                }
            }
            !does.is_empty() && could.difference(&does).next().is_some()
        });
        alone || never
    }

    #[test]
    fn every_ordered_pairing_meets_as_many_judges_as_are_free_to_score_it() {
        // Three debaters, three judges who do not debate, two dilemmas: each ordered pairing
        // has two rounds, and two different judges.
        let c = roster(&["a", "b", "c"], &["x", "y", "z"], "");
        let s = build(&c, &dilemmas(2)).unwrap();
        let by_pairing = judges_by_pairing(&s);
        assert_eq!(by_pairing.len(), 6);
        for (pairing, judges) in &by_pairing {
            assert_eq!(judges.len(), 2);
            assert_ne!(judges[0], judges[1], "{pairing:?}");
        }
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        assert!(!confounded(&s));
        // Over rosters (judges apart from the debaters, among them, or both), dilemmas and
        // repetitions: each pairing meets min(free judges, rounds) judges, none more than
        // once beyond another; each configuration's repetitions differ while they can; a
        // confound left is always warned of; the same configuration, the same schedule.
        for models in [
            &["m0", "m1"][..],
            &["m0", "m1", "m2"],
            &["m0", "m1", "m2", "m3"],
        ] {
            for outside in [&[][..], &["x0"], &["x0", "x1", "x2"]] {
                for among in [false, true] {
                    let mut judges: Vec<&str> = outside.to_vec();
                    if among {
                        judges.extend(models);
                    }
                    if judges.is_empty() {
                        continue;
                    }
                    for n in 1..=3 {
                        for repetitions in 1..=3 {
                            let c =
                                roster(models, &judges, &format!("repetitions = {repetitions}\n"));
                            let Ok(s) = build(&c, &dilemmas(n)) else {
                                assert!(models.len() == 2 && outside.is_empty());
                                continue;
                            };
                            let at = format!("{models:?} {judges:?} {n} dilemmas × {repetitions}");
                            assert_eq!(build(&c, &dilemmas(n)).unwrap(), s, "{at}");
                            for ((a, b), given) in judges_by_pairing(&s) {
                                assert!(!given.contains(&a) && !given.contains(&b), "{at}");
                                let free = judges.iter().filter(|j| **j != a && **j != b).count();
                                let mut times: HashMap<&String, usize> = HashMap::new();
                                for j in &given {
                                    *times.entry(j).or_default() += 1;
                                }
                                assert_eq!(
                                    times.len(),
                                    free.min(given.len()),
                                    "{at} {a} vs {b}: {given:?}"
                                );
                                let most = times.values().max().unwrap();
                                let least = if times.len() < free {
                                    &0
                                } else {
                                    times.values().min().unwrap()
                                };
                                assert!(most - least <= 1, "{at} {a} vs {b}: {given:?}");
                                // Dilemma d's repetitions are rounds d, d + n, d + 2n, …
                                for d in 0..n {
                                    let mut same: Vec<&String> =
                                        given.iter().skip(d).step_by(n).collect();
                                    let all = same.len();
                                    same.sort_unstable();
                                    same.dedup();
                                    assert_eq!(
                                        same.len(),
                                        free.min(all),
                                        "{at} {a} vs {b}: {given:?}"
                                    );
                                }
                            }
                            if confounded(&s) {
                                assert!(
                                    s.warnings.iter().any(|w| w.starts_with("judge confound")),
                                    "{at}: {:?}",
                                    s.warnings
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_sample_tournament_is_balanced_or_warns_of_its_confound() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-config/tournament.toml");
        let text = std::fs::read_to_string(&path).unwrap();
        let c = TournamentConfig::parse(&text, &path).unwrap();
        // Its document holds seven dilemmas.
        let s = build(&c, &dilemmas(7)).unwrap();
        assert!(confounded(&s), "the sample's judges are its three debaters");
        let confound: Vec<&String> = s
            .warnings
            .iter()
            .filter(|w| w.starts_with("judge confound"))
            .collect();
        assert_eq!(confound.len(), 1, "{:?}", s.warnings);
        assert!(
            confound[0].contains("6 of 6 ordered pairings")
                && confound[0].contains("sim-alpha vs sim-beta: sim-gamma in all 7 rounds"),
            "{}",
            confound[0]
        );
        // A fourth judge outside the pairings lifts it: each pairing meets two judges.
        let text = text.replace(
            "judges = [\"sim-alpha\", \"sim-beta\", \"sim-gamma\"]",
            "judges = [\"sim-alpha\", \"sim-beta\", \"sim-gamma\", \"outside\"]",
        );
        let c = TournamentConfig::parse(&text, &path).unwrap();
        let s = build(&c, &dilemmas(7)).unwrap();
        assert!(!confounded(&s));
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        for judges in judges_by_pairing(&s).values() {
            let distinct: BTreeSet<&String> = judges.iter().collect();
            assert_eq!(distinct.len(), 2, "{judges:?}");
        }
    }

    #[test]
    fn a_confound_the_configuration_cannot_avoid_is_warned_of() {
        // One judge: every pairing is scored by it alone, rotated or not.
        for judging in ["rotate", "all"] {
            let c = roster(
                &["a", "b", "c"],
                &["x"],
                &format!("judging = \"{judging}\"\n"),
            );
            let s = build(&c, &dilemmas(3)).unwrap();
            assert!(confounded(&s));
            assert!(
                s.warnings
                    .iter()
                    .any(|w| w.starts_with("judge confound: x is the only judge")
                        && w.contains("add judges")),
                "{judging}: {:?}",
                s.warnings
            );
        }
        // Two rounds for two outside judges: each scores one pairing, and never the model
        // that plays only in the other.
        let c = roster(
            &["a", "b", "c"],
            &["x", "y"],
            "pairings = [[\"a\", \"b\"], [\"a\", \"c\"]]\n",
        );
        let s = build(&c, &dilemmas(1)).unwrap();
        let never: Vec<&String> = s
            .warnings
            .iter()
            .filter(|w| w.contains("never scores"))
            .collect();
        assert_eq!(never.len(), 1, "{:?}", s.warnings);
        assert!(
            never[0].starts_with("judge confound: some judges never score")
                && (never[0].contains("x never scores c") || never[0].contains("x never scores b"))
                && never[0].contains("add repetitions or dilemmas"),
            "{}",
            never[0]
        );
        // With every judge on every round there is none.
        let c = roster(&["a", "b", "c"], &["x", "y"], "judging = \"all\"\n");
        assert!(build(&c, &dilemmas(2)).unwrap().warnings.is_empty());
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
