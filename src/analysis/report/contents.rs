//! What the report says: the [`Analysis`] of a results folder, each protocol's figures
//! computed from that protocol's rounds.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Serialize;

use crate::analysis::bias::{BiasChecks, bias_checks};
use crate::analysis::calls::{CallCounts, calls_by_model};
use crate::analysis::panels::{PanelFigures, PanelSection, panel_figures, panel_section};
use crate::analysis::qa::{QaFigures, qa_figures};
use crate::analysis::ratings::{Ratings, ratings};
use crate::analysis::structured::{StructuredFigures, structured_figures};
use crate::analysis::tables::{
    ConsistencyByModel, ConsistencyRow, DilemmaDifficulty, FrameworkUsage, JudgeAgreement,
    ModelRole, consistency, consistency_by_model, dilemma_difficulty, framework_usage,
    judge_agreement, model_comparison,
};
use crate::domain::{ProtocolKind, Round, RoundStatus};
use crate::protocols::structured_debate::briefing::briefing;

/// Everything the report says, as `analysis.json` holds it.
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    /// Rounds read.
    pub rounds: usize,
    /// Rounds with every phase run and every judgment usable.
    pub complete_rounds: usize,
    /// Answered calls by model, with answers cut at the token limit and answers with
    /// estimated usage; left out when there are neither (as in results stored before they
    /// were recorded).
    #[serde(skip_serializing_if = "crate::analysis::calls::nothing_to_say")]
    pub calls_by_model: BTreeMap<String, CallCounts>,
    /// Each model's calls by role: failures, retries, tokens, cost and latency.
    pub usage_by_model: Vec<crate::analysis::usage::ModelUsage>,
    /// Model comparison by role.
    pub model_comparison: Vec<ModelRole>,
    /// The Ethics Bowl's judge- and side-adjusted model scores, judge leniencies and side
    /// effect (none without Ethics Bowl rounds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adjusted: Option<crate::analysis::effects::Adjusted>,
    /// Dilemma difficulty, hardest first.
    pub dilemma_difficulty: Vec<DilemmaDifficulty>,
    /// Every consistency test, with flags.
    pub consistency: Vec<ConsistencyRow>,
    /// The consistency tests rolled up per model.
    pub consistency_by_model: Vec<ConsistencyByModel>,
    /// Framework usage by model.
    pub framework_usage: Vec<FrameworkUsage>,
    /// Judge agreement.
    pub judge_agreement: JudgeAgreement,
    /// Bradley–Terry ratings with bootstrap intervals.
    pub ratings: Ratings,
    /// Position and self-preference bias; score distributions.
    pub bias: BiasChecks,
    /// Length: its correlation with the score within each role, and the length-controlled
    /// ratings.
    pub length: crate::analysis::length::LengthFigures,
    /// The ratings with Team A's advantage and each judge's side preference fitted, beside
    /// the raw ones.
    pub side: crate::analysis::side_adjusted::SideFigures,
    /// Ethics Bowl judgments left out of the main tables because their judge is one of the
    /// round's debaters' models (reported apart, as self-preference).
    pub self_judgments: usize,
    /// Judge panels: convergence, agreement before and after, judges' movement.
    pub panels: Option<PanelFigures>,
    /// Ethics Bowl rounds among them (the tables above cover only these).
    pub ethics_bowl_rounds: usize,
    /// Question-answer debates: judge accuracy against the baselines, debaters, calibration.
    pub qa: Option<QaFigures>,
    /// Structured debates: win rates and side totals by side, fallacies, standings,
    /// concessions, side advantage.
    pub structured: Option<StructuredFigures>,
    /// Judge panels of the question-answer debates: the shared figures, and the accuracy of
    /// the panel's answer and of each judge's before and after deliberation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qa_panels: Option<PanelSection>,
    /// Judge panels of the structured debates: the shared figures, and how far judges agree
    /// on each argument's standing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_panels: Option<PanelSection>,
    /// Each judged structured-debate round's decision briefing (round id, Markdown).
    #[serde(skip)]
    pub briefings: Vec<(String, String)>,
    /// The run's warnings, as `tournament.json` records them (judge confounds and balance,
    /// the inputs' problems): the report opens with them. [`analyse`] reads rounds only and
    /// leaves them empty; [`Analysis::with_warnings`] adds them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// What the judges saw: the usable judgments of each protocol by whether their judges
    /// were shown the model names and by prompt version (see
    /// [`crate::analysis::judge_views`]); the report warns when one protocol's mix.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub judge_views: Vec<crate::analysis::judge_views::JudgeViewCount>,
    /// Each model judge (and panel) against each person who judged the same exchanges, and
    /// against their consensus; empty when no person judged (see
    /// [`crate::analysis::human`]). [`analyse`] reads rounds only; [`Analysis::with_people`]
    /// adds people's judgments.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub human_agreement: Vec<crate::analysis::human::HumanAgreement>,
    /// A report card for every judge.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub judge_cards: Vec<crate::analysis::report_card::JudgeCard>,
    /// Who judged, people among themselves, and the model means in people's terms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub human: Option<crate::analysis::human::HumanSummary>,
    /// The tournament's name and the run's dates, which the reports' headings carry; none
    /// without a tournament record. [`analyse`] leaves it empty; [`Analysis::with_run`]
    /// adds it. Not in `analysis.json`, which describes the rounds, not the folder.
    #[serde(skip)]
    pub run: Option<RunTitle>,
    /// Position flips: each judge's flip rate between the exchanges as played and as read
    /// with the sides swapped (see [`crate::analysis::flip`]), for a folder `rejudge
    /// --swap-sides` wrote. [`analyse`] leaves it empty; [`Analysis::with_flips`] adds it.
    /// In `analysis.json` only when there is one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub position_flips: Vec<crate::analysis::flip::FlipRate>,
}

/// What a report's title names: the tournament and when it ran, from `tournament.json`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RunTitle {
    /// The tournament's name (its configuration's `name`, else its id).
    pub name: String,
    /// The day the first run started (`YYYY-MM-DD`, UTC), when recorded.
    pub started: Option<String>,
    /// The day the last run ended, when recorded.
    pub finished: Option<String>,
}

impl RunTitle {
    /// The title of a tournament's record: its name and its run's days.
    pub fn of(record: &crate::store::TournamentRecord) -> Self {
        let name = if record.config.name.trim().is_empty() {
            record.id.clone()
        } else {
            record.config.name.clone()
        };
        // RFC 3339 begins with the date; anything else is left out rather than guessed.
        let day = |t: &str| {
            let d = t.get(..10)?;
            let ok = d.bytes().enumerate().all(|(i, b)| match i {
                4 | 7 => b == b'-',
                _ => b.is_ascii_digit(),
            });
            ok.then(|| d.to_string())
        };
        Self {
            name: crate::sanitize::sanitize(&name),
            started: day(&record.started_at),
            finished: record.finished_at.as_deref().and_then(day),
        }
    }

    /// The run's days: `2026-11-22`, or `2026-11-22 to 2026-11-24` when it ended on a later
    /// day; empty when unrecorded.
    pub fn dates(&self) -> String {
        match (&self.started, &self.finished) {
            (Some(s), Some(f)) if f > s => format!("{s} to {f}"),
            (Some(s), _) => s.clone(),
            (None, Some(f)) => f.clone(),
            (None, None) => String::new(),
        }
    }
}

impl Analysis {
    /// The analysis with the run's warnings.
    pub fn with_warnings(mut self, warnings: Vec<String>) -> Self {
        self.warnings = warnings;
        self
    }

    /// The analysis with people's judgments of its rounds (`blind` of them made with the
    /// model names hidden): judges measured against them.
    pub fn with_people(
        mut self,
        rounds: &[Round],
        people: &[crate::analysis::human::PersonReading],
        blind: usize,
    ) -> Self {
        match crate::analysis::human::human_figures(rounds, people, blind) {
            Some(h) => {
                crate::analysis::report_card::fill_people(&mut self.judge_cards, &h.agreement);
                self.human_agreement = h.agreement;
                self.human = Some(h.summary);
            }
            None => {
                crate::analysis::report_card::fill_people(&mut self.judge_cards, &[]);
                self.human_agreement = Vec::new();
                self.human = None;
            }
        }
        self
    }

    /// The analysis with the position flips of a folder of swapped judgments (see
    /// [`crate::analysis::flip::flips_of`]).
    pub fn with_flips(mut self, flips: Vec<crate::analysis::flip::FlipRate>) -> Self {
        crate::analysis::report_card::fill_flips(&mut self.judge_cards, &flips);
        self.position_flips = flips;
        self
    }

    /// The analysis with the tournament's name and the run's dates, for the headings.
    pub fn with_run(mut self, run: Option<RunTitle>) -> Self {
        self.run = run;
        self
    }

    /// The reports' title: `Tournament analysis: sample, 2026-11-22`, or `Tournament
    /// analysis` alone without a tournament record. Plain text, for each format to escape.
    pub fn title(&self) -> String {
        match &self.run {
            None => "Tournament analysis".into(),
            Some(run) => match run.dates() {
                d if d.is_empty() => format!("Tournament analysis: {}", run.name),
                d => format!("Tournament analysis: {}, {d}", run.name),
            },
        }
    }
}

/// Rounds split by the protocol that ran them, each part in the order given.
struct ByProtocol<'a> {
    ethics_bowl: Cow<'a, [Round]>,
    qa_debate: Cow<'a, [Round]>,
    structured_debate: Cow<'a, [Round]>,
}

impl<'a> ByProtocol<'a> {
    fn split(rounds: &'a [Round]) -> Self {
        let (mut ethics_bowl, mut qa_debate, mut structured_debate) = (vec![], vec![], vec![]);
        for (i, round) in rounds.iter().enumerate() {
            match round.kind() {
                ProtocolKind::EthicsBowl => ethics_bowl.push(i),
                ProtocolKind::QaDebate => qa_debate.push(i),
                ProtocolKind::StructuredDebate => structured_debate.push(i),
            }
        }
        // A tournament plays one protocol: its part is then the whole slice, not a copy.
        let part = |indices: Vec<usize>| -> Cow<'a, [Round]> {
            if indices.len() == rounds.len() {
                Cow::Borrowed(rounds)
            } else {
                Cow::Owned(indices.into_iter().map(|i| rounds[i].clone()).collect())
            }
        };
        Self {
            ethics_bowl: part(ethics_bowl),
            qa_debate: part(qa_debate),
            structured_debate: part(structured_debate),
        }
    }
}

/// The analysis of every round stored in `store`, each model's provider and the run's
/// warnings taken from the tournament's record when there is one: what the UI shows of a tournament whose rounds
/// it does not all hold whole. Files that cannot be read are left out (the UI names them
/// in its log when it opens the folder).
pub fn analyse_store(store: &crate::store::Store) -> Result<Analysis, crate::store::StoreError> {
    // Prompts are never analysed: each round is held without them.
    let (rounds, _unreadable) =
        store.load_rounds_with(&crate::store::RoundFilter::default(), |mut round| {
            for p in &mut round.phases {
                p.prompt = String::new();
                p.system_prompt = String::new();
                p.earlier_turns = Vec::new();
            }
            round
        })?;
    let (people, blind, mut warnings) = people_of(store.dir());
    warnings.splice(0..0, warnings_of(store));
    Ok(analyse(&rounds, &providers_of(store))
        .with_warnings(warnings)
        .with_run(run_of(store))
        .with_flips(crate::analysis::flip::flips_of(store, &rounds))
        .with_people(&rounds, &people, blind))
}

/// People's judgments stored in the results folder `dir`, how many were made blind, and a
/// warning when they cannot be read (a damaged file is named; the judges are then not
/// measured against people, and nothing else changes).
pub fn people_of(
    dir: &std::path::Path,
) -> (
    Vec<crate::analysis::human::PersonReading>,
    usize,
    Vec<String>,
) {
    match crate::annotations::load_all(dir) {
        Ok(annotations) => {
            let (people, blind) =
                crate::analysis::human::PersonReading::of_annotations(&annotations);
            (people, blind, Vec::new())
        }
        Err(e) => (
            Vec::new(),
            0,
            vec![format!(
                "people's judgments: {}; the judges are not measured against people until it is fixed",
                crate::sanitize::sanitize(&e.to_string())
            )],
        ),
    }
}

/// The tournament's name and the run's dates, from its record in `store` (none without one).
pub fn run_of(store: &crate::store::Store) -> Option<RunTitle> {
    store
        .load_tournament()
        .ok()
        .flatten()
        .map(|t| RunTitle::of(&t))
}

/// The run's warnings, from the tournament's record in `store` (none without one).
pub fn warnings_of(store: &crate::store::Store) -> Vec<String> {
    store
        .load_tournament()
        .ok()
        .flatten()
        .map(|t| t.warnings)
        .unwrap_or_default()
}

/// Each model's provider, from the tournament's record in `store` (none when it has none,
/// as the predecessor's folders do): what the same-provider check reads.
pub fn providers_of(store: &crate::store::Store) -> BTreeMap<String, String> {
    store
        .load_tournament()
        .ok()
        .flatten()
        .map(|t| {
            t.models
                .into_iter()
                .map(|m| (m.name, m.provider.to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// Analyses rounds (finished so far: incomplete rounds count only where they have data).
/// `provider_of` names each model's provider, for the same-provider preference check.
pub fn analyse(rounds: &[Round], provider_of: &BTreeMap<String, String>) -> Analysis {
    let by = ByProtocol::split(rounds);
    let all_ethics: &[Round] = &by.ethics_bowl;
    // The main tables count judges of other models only: a judge's scores of its own
    // model's round are reported apart, as self-preference.
    let (independent, self_judgments) = crate::analysis::tables::without_self_judgments(all_ethics);
    let ethics: &[Round] = &independent;
    let tests = consistency(ethics);
    let analysis = Analysis {
        rounds: rounds.len(),
        complete_rounds: rounds
            .iter()
            .filter(|r| r.status == RoundStatus::Complete)
            .count(),
        calls_by_model: calls_by_model(rounds),
        usage_by_model: crate::analysis::usage::usage_by_model(rounds),
        model_comparison: model_comparison(ethics),
        adjusted: (!all_ethics.is_empty()).then(|| crate::analysis::effects::adjusted(all_ethics)),
        dilemma_difficulty: dilemma_difficulty(ethics),
        consistency_by_model: consistency_by_model(&tests),
        consistency: tests,
        framework_usage: framework_usage(all_ethics),
        judge_agreement: judge_agreement(ethics),
        ratings: ratings(ethics),
        bias: bias_checks(all_ethics, provider_of),
        length: crate::analysis::length::length_figures(ethics),
        side: crate::analysis::side_adjusted::side_figures(ethics),
        self_judgments,
        panels: panel_figures(all_ethics),
        ethics_bowl_rounds: all_ethics.len(),
        qa: qa_figures(&by.qa_debate),
        structured: structured_figures(&by.structured_debate),
        qa_panels: panel_section(&by.qa_debate, ProtocolKind::QaDebate),
        structured_panels: panel_section(&by.structured_debate, ProtocolKind::StructuredDebate),
        briefings: briefings(&by.structured_debate),
        warnings: Vec::new(),
        run: None,
        judge_views: crate::analysis::judge_views::judge_views(rounds),
        human_agreement: Vec::new(),
        human: None,
        judge_cards: Vec::new(),
        position_flips: Vec::new(),
    };
    with_cards(analysis, rounds)
}

/// The analysis with a report card for every judge of `rounds`.
fn with_cards(mut analysis: Analysis, rounds: &[Round]) -> Analysis {
    let mut cards = crate::analysis::report_card::cards(rounds);
    crate::analysis::report_card::fill(
        &mut cards,
        analysis.adjusted.as_ref(),
        &analysis.bias,
        &analysis.usage_by_model,
    );
    analysis.judge_cards = cards;
    analysis
}

/// Each judged structured-debate round's decision briefing, from its first usable judgment.
fn briefings(rounds: &[Round]) -> Vec<(String, String)> {
    rounds
        .iter()
        .filter_map(|r| {
            let judgment = crate::protocols::structured_debate::briefing::briefing_judgment(r)?;
            Some((r.id.clone(), briefing(r, judgment)?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tables::fixtures::{judgment, round};
    use crate::domain::Scores;

    #[test]
    fn a_judge_of_its_own_models_round_is_left_out_of_the_main_tables_and_reported_apart() {
        // x and y debate; j judges every round, and x judges one round it plays in,
        // generously to itself.
        let mut rounds = Vec::new();
        for i in 0..4 {
            let mut judges = vec![judgment("j", Scores::uniform(6.0), Scores::uniform(6.0))];
            if i == 0 {
                judges.push(judgment("x", Scores::uniform(10.0), Scores::uniform(1.0)));
            }
            rounds.push(round(&format!("r{i}"), "d", "x", "y", judges));
        }
        let a = analyse(&rounds, &BTreeMap::new());
        assert_eq!(a.self_judgments, 1);
        let x = a
            .model_comparison
            .iter()
            .find(|m| m.model == "x")
            .expect("x is compared");
        assert_eq!(x.total.n, 4, "j's four judgments, not x's own");
        assert_eq!(x.total.mean, Some(42.0));
        assert_eq!(a.ratings.matches, 4);
        assert_eq!(a.bias.position.n, 4);
        assert_eq!(a.judge_agreement.shared_exchanges, 0);
        let own = a
            .bias
            .self_preference
            .iter()
            .find(|p| p.judge == "x" && p.relation == "own model")
            .expect("reported apart");
        assert_eq!(own.difference.mean, Some(28.0), "70 against j's 42");
        // Without it, nothing is left out.
        rounds[0].judgments.truncate(1);
        assert_eq!(analyse(&rounds, &BTreeMap::new()).self_judgments, 0);
    }

    #[test]
    fn the_title_names_the_tournament_and_the_days_it_ran() {
        let run = |started: Option<&str>, finished: Option<&str>| RunTitle {
            name: "sample".into(),
            started: started.map(str::to_string),
            finished: finished.map(str::to_string),
        };
        let a = analyse(&[], &BTreeMap::new());
        assert_eq!(a.title(), "Tournament analysis");
        let titled = |r| a.clone().with_run(Some(r)).title();
        assert_eq!(
            titled(run(Some("2026-11-22"), Some("2026-11-22"))),
            "Tournament analysis: sample, 2026-11-22"
        );
        assert_eq!(
            titled(run(Some("2026-11-22"), Some("2026-11-24"))),
            "Tournament analysis: sample, 2026-11-22 to 2026-11-24"
        );
        assert_eq!(titled(run(None, None)), "Tournament analysis: sample");
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/stored-v0/ethics_bowl");
        let mut record = crate::store::Store::open(&dir)
            .unwrap()
            .load_tournament()
            .unwrap()
            .unwrap();
        assert_eq!(
            RunTitle::of(&record),
            run(Some("2026-11-22"), Some("2026-11-22"))
        );
        // A start that is not RFC 3339 is left out, not guessed; a name with controls is
        // cleaned.
        record.started_at = "yesterday, around noon".into();
        record.finished_at = None;
        record.config.name = "a\u{1b}[31mb".into();
        let title = RunTitle::of(&record);
        assert_eq!(title.started, None);
        assert!(!title.name.contains('\u{1b}'), "{:?}", title.name);
    }
}
