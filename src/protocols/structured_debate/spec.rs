//! The structured debate as a plug-in: its inputs are the `[structured]` table's topics file
//! and the topics it selects; every listed pairing plays both ways (Team A argues Pro); a
//! judged round's decision briefing is written beside it in `briefings/`.

use std::path::Path;
use std::sync::Arc;

use crate::config::TournamentConfig;
use crate::domain::{ProtocolKind, Round};
use crate::inputs::load_topics;
use crate::protocols::inputs::{Inputs, InputsError, Picked, invalid, pairings_schedule, select};
use crate::protocols::{Protocol, ProtocolSpec, RoundExtra};
use crate::providers::simulated::SimulatedBehaviour;

use super::{StructuredDebate, StructuredRules, briefing, simulated};

/// The folder of the decision briefings in a tournament's folder.
const BRIEFINGS: &str = "briefings";

/// The structured debate's spec.
pub struct Spec;

impl ProtocolSpec for Spec {
    fn kind(&self) -> ProtocolKind {
        ProtocolKind::StructuredDebate
    }

    /// The topics file and the selected topics.
    fn inputs(&self, config_path: &Path, config: &TournamentConfig) -> Result<Inputs, InputsError> {
        let Some(s) = &config.structured else {
            return Err(invalid(
                config_path,
                "protocol",
                "is \"structured_debate\" but there is no [structured] table".into(),
                "add [structured] with topics_file (see sample-config/structured-debate.toml)"
                    .into(),
            ));
        };
        let file = TournamentConfig::resolve(config_path, &s.topics_file);
        let all = load_topics(&file)?;
        let topics = select(
            all,
            &s.topics,
            |t| &t.id,
            Picked {
                config_path,
                key: "structured.topics",
                what: "topic",
                file: &file,
            },
        )?;
        let ids: Vec<String> = topics.iter().map(|t| t.id.clone()).collect();
        let schedule = pairings_schedule(config_path, config, &ids)?;
        Ok(Inputs {
            protocol: Arc::new(StructuredDebate::new(
                topics,
                StructuredRules {
                    weights: s.weights,
                    bands: s.bands,
                    closing_word_limit: s.closing_word_limit,
                },
            )),
            item_ids: ids,
            sample: Vec::new(),
            schedule,
            warnings: Vec::new(),
        })
    }

    fn stored(&self) -> Box<dyn Protocol> {
        Box::new(StructuredDebate::default())
    }

    fn simulation(&self) -> Box<dyn SimulatedBehaviour> {
        Box::new(simulated::Simulation)
    }

    /// Pro and Con differ: each listed pair plays both sides.
    fn pairs_both_ways(&self) -> bool {
        true
    }

    fn extra_folders(&self) -> &'static [&'static str] {
        &[BRIEFINGS]
    }

    /// The decision briefing, once the round has a judgment to write it from.
    fn round_extras(&self, round: &Round) -> Vec<RoundExtra> {
        briefing::briefing_judgment(round)
            .and_then(|judgment| briefing::briefing(round, judgment))
            .map(|text| RoundExtra {
                folder: BRIEFINGS,
                extension: "md",
                text,
            })
            .into_iter()
            .collect()
    }
}
