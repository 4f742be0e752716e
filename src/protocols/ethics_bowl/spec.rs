//! The Ethics Bowl as a plug-in: its inputs are a dilemma document and the dilemmas the
//! tournament selects; re-judging loads the document again (its judges read the dilemma).

use std::path::Path;
use std::sync::Arc;

use crate::config::TournamentConfig;
use crate::domain::ProtocolKind;
use crate::inputs::load_dilemmas;
use crate::protocols::inputs::{Inputs, InputsError, Picked, invalid, pairings_schedule, select};
use crate::protocols::{Protocol, ProtocolSpec, Rejudging};
use crate::providers::simulated::SimulatedBehaviour;

use super::{EthicsBowl, EthicsBowlOptions, simulated};

/// The Ethics Bowl's spec.
pub struct Spec;

impl ProtocolSpec for Spec {
    fn kind(&self) -> ProtocolKind {
        ProtocolKind::EthicsBowl
    }

    /// The dilemma document and the selected dilemmas.
    fn inputs(&self, config_path: &Path, config: &TournamentConfig) -> Result<Inputs, InputsError> {
        let document = TournamentConfig::resolve(config_path, &config.dilemma_file);
        let loaded = load_dilemmas(&document)?;
        let dilemmas = select(
            loaded.dilemmas,
            &config.dilemmas,
            |d| &d.id,
            Picked {
                config_path,
                key: "dilemmas",
                what: "dilemma",
                file: &document,
            },
        )?;
        let ids: Vec<String> = dilemmas.iter().map(|d| d.id.clone()).collect();
        let schedule = pairings_schedule(config_path, config, &ids)?;
        Ok(Inputs {
            protocol: Arc::new(EthicsBowl::new(
                dilemmas,
                EthicsBowlOptions {
                    consistency_test_both_teams: config.consistency_test_both_teams,
                    judge_sees_model_names: config.judge_sees_model_names,
                },
            )),
            item_ids: ids,
            sample: Vec::new(),
            schedule,
            warnings: loaded.warnings,
        })
    }

    fn stored(&self) -> Box<dyn Protocol> {
        Box::new(EthicsBowl::new([], EthicsBowlOptions::default()))
    }

    /// The protocol with its dilemma document: the judging file's, or the tournament's.
    fn rejudging(&self, from: &Rejudging<'_>) -> Result<Arc<dyn Protocol>, InputsError> {
        let document = match from.dilemma_file {
            Some(file) => TournamentConfig::resolve(from.config_path, file),
            // A record `rejudge` rebuilt for a folder that had none names no document.
            None => match from.source.load_tournament()? {
                Some(record) if !record.config.dilemma_file.as_os_str().is_empty() => {
                    TournamentConfig::resolve(&record.config_file, &record.config.dilemma_file)
                }
                Some(_) | None => {
                    return Err(invalid(
                        from.config_path,
                        "dilemma_file",
                        format!(
                            "{} has no tournament.json that says which dilemmas it played",
                            from.results.display()
                        ),
                        "name the dilemma document: dilemma_file = \"…\"".into(),
                    ));
                }
            },
        };
        Ok(Arc::new(EthicsBowl::new(
            load_dilemmas(&document)?.dilemmas,
            EthicsBowlOptions {
                consistency_test_both_teams: false,
                judge_sees_model_names: from.judge_sees_model_names,
            },
        )))
    }

    fn simulation(&self) -> Box<dyn SimulatedBehaviour> {
        Box::new(simulated::Simulation)
    }
}
