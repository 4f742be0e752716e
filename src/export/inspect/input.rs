//! What a round's sample is about, its `input`: the dilemma (from the dilemma document the
//! tournament names, else the first prompt its debaters were given, which quotes it), the
//! question-answer item's question, or the structured debate's proposition.

use std::collections::BTreeMap;

use super::Source;
use crate::config::TournamentConfig;
use crate::domain::{Dilemma, PhaseType, ProtocolKind, Round};

/// The Ethics Bowl's dilemmas from the document the tournament names, when it can be read.
pub fn dilemmas(source: &Source, notes: &mut Vec<String>) -> BTreeMap<String, Dilemma> {
    let Some(record) = &source.record else {
        return BTreeMap::new();
    };
    if record.protocol != ProtocolKind::EthicsBowl
        || record.config.dilemma_file.as_os_str().is_empty()
    {
        return BTreeMap::new();
    }
    let path = TournamentConfig::resolve(&record.config_file, &record.config.dilemma_file);
    match crate::inputs::load_dilemmas(&path) {
        Ok(loaded) => loaded
            .dilemmas
            .into_iter()
            .map(|d| (d.id.clone(), d))
            .collect(),
        Err(e) => {
            notes.push(format!("the dilemma document could not be read ({e})"));
            BTreeMap::new()
        }
    }
}

/// The text a round is about: the dilemma, the question, the proposition.
pub fn of_round(round: &Round, dilemmas: &BTreeMap<String, Dilemma>) -> Option<String> {
    if let Some(setup) = round.qa() {
        return Some(setup.question.clone());
    }
    if let Some(setup) = round.structured() {
        return Some(match &setup.topic.context {
            Some(context) => format!("{}\n\n{context}", setup.topic.proposition),
            None => setup.topic.proposition.clone(),
        });
    }
    dilemmas.get(&round.dilemma_id).map(dilemma_text)
}

/// A dilemma as Markdown: its title, case, complications, questions and parallel case.
fn dilemma_text(d: &Dilemma) -> String {
    let list = |items: &[String]| {
        items
            .iter()
            .map(|i| format!("- {i}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut text = format!("# {}\n\n{}", d.title, d.core_scenario);
    for (heading, items) in [
        ("Complications", &d.complications),
        ("Questions", &d.questions),
        ("Asymmetric features", &d.asymmetric_features),
    ] {
        if !items.is_empty() {
            text.push_str(&format!("\n\n## {heading}\n{}", list(items)));
        }
    }
    if !d.consistency_case.is_empty() {
        text.push_str(&format!("\n\n## Parallel case\n{}", d.consistency_case));
    }
    text
}

/// The first prompt a debater was given (it quotes the dilemma), else the item's id.
pub fn first_prompt(round: &Round) -> String {
    round
        .phase(PhaseType::Presentation, None)
        .or_else(|| round.phases.iter().find(|p| !p.phase_type.is_judging()))
        .map(|p| p.prompt.clone())
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| round.dilemma_id.clone())
}
