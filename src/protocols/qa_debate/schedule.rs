//! The question-answer debate's schedule: for each item and judge, the baselines, the
//! consultancies and the debates, with ids that name the format, the debaters and the judge.

use crate::config::{JudgingMode, QaConfig, TournamentConfig};
use crate::domain::{QaFormat, ScheduledRound};
use crate::protocols::schedule::{Schedule, pairings};

/// The id of a question-answer round: item, format, debaters and judge.
fn round_id(
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
///
/// `judging = "rotate"` is `all` here: a judge is what the protocol measures (its accuracy
/// with and without debate, on the same items), so every judge judges every item, and
/// every ordered pairing meets every judge whose relation to it `relations` keeps. No
/// rotation, then, can confound a judge with a pairing; a pairing that meets one judge only
/// does so because of the relations asked for, which the accuracy tables report by
/// relation and judge.
pub fn build(config: &TournamentConfig, qa: &QaConfig, item_ids: &[String]) -> Schedule {
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
            round_id: round_id(item, format, debaters, judge, repetition),
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn qa_schedule_filters_relations_and_names_rounds() {
        let c = TournamentConfig::parse(
            "name = \"q\"\nprotocol = \"qa_debate\"\nmodels = [\"big\", \"small\"]\njudges = [\"small\"]\nself_debates = true\n\
             [qa]\ndatasets = [{ file = \"x.json\" }]\nstrength_order = [\"big\", \"small\"]\nrelations = [\"stronger\", \"self_play\"]\nconsultancy = true\n",
            Path::new("t.toml"),
        )
        .unwrap();
        let qa = c.qa.clone().unwrap();
        let s = build(&c, &qa, &["i1".into()]);
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
        let s = build(&c, &qa, &["i1".into()]);
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
}
