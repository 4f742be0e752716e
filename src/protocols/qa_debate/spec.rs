//! The question-answer debate as a plug-in: its inputs are the `[qa]` table's BoardgameQA
//! files and the seeded sample drawn from them, played on its own schedule; its rounds hold
//! everything their judges read.

use std::path::Path;
use std::sync::Arc;

use crate::config::TournamentConfig;
use crate::domain::{ProtocolKind, QaItem, Round};
use crate::inputs::{load_items, sample};
use crate::protocols::inputs::{Inputs, InputsError, invalid, schedule_size};
use crate::protocols::{Protocol, ProtocolSpec};
use crate::providers::simulated::SimulatedBehaviour;

use super::{QaDebate, QaRules, schedule, simulated};

/// The question-answer debate's spec.
pub struct Spec;

impl ProtocolSpec for Spec {
    fn kind(&self) -> ProtocolKind {
        ProtocolKind::QaDebate
    }

    /// A debate is won by the debater whose answer the judge chose; a baseline or a
    /// consultancy is no match.
    fn match_score(&self, round: &Round) -> Option<f64> {
        if round.qa()?.format != crate::domain::QaFormat::Debate {
            return None;
        }
        let choice = crate::protocols::spec::deciding(round)?.choice()?;
        Some(crate::protocols::spec::chosen_score(choice.side))
    }

    /// Every dataset file, and the seeded sample.
    fn inputs(&self, config_path: &Path, config: &TournamentConfig) -> Result<Inputs, InputsError> {
        let Some(qa) = &config.qa else {
            return Err(invalid(
                config_path,
                "protocol",
                "is \"qa_debate\" but there is no [qa] table".into(),
                "add [qa] with datasets (see sample-config/qa-debate.toml)".into(),
            ));
        };
        let mut items: Vec<QaItem> = Vec::new();
        let mut warnings = Vec::new();
        for dataset in &qa.datasets {
            let path = TournamentConfig::resolve(config_path, &dataset.file);
            let loaded = load_items(&path, dataset.level.as_deref())?;
            for skipped in loaded.skipped {
                warnings.push(format!("{}: {skipped}; left out", path.display()));
            }
            for item in loaded.items {
                if items.iter().any(|i| i.id == item.id) {
                    return Err(invalid(
                        config_path,
                        "qa.datasets",
                        format!("two files give the item id \"{}\"", item.id),
                        "list each file once (ids come from the file name and the position)".into(),
                    ));
                }
                items.push(item);
            }
        }
        let sampled = sample(&items, qa.sample_per_level, qa.seed, qa.both_wrong_share);
        let ids: Vec<String> = sampled.iter().map(|(item, _)| item.id.clone()).collect();
        schedule_size(config_path, config, ids.len())?;
        let schedule = schedule::build(config, qa, &ids);
        Ok(Inputs {
            sample: sampled.iter().map(|(_, s)| s.clone()).collect(),
            protocol: Arc::new(QaDebate::new(sampled, QaRules::of(qa))),
            item_ids: ids,
            schedule,
            warnings,
        })
    }

    fn stored(&self) -> Box<dyn Protocol> {
        Box::new(QaDebate::default())
    }

    fn simulation(&self) -> Box<dyn SimulatedBehaviour> {
        Box::new(simulated::Simulation)
    }
}
