//! A moral dilemma, as the tournament's input document describes it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One dilemma: the scenario the teams discuss and the parallel case that tests consistency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dilemma {
    /// A slug of the title, stable across runs (`gradient_entity`).
    pub id: String,
    /// The title as written.
    pub title: String,
    /// The category line's main value (`Moral Status & Self-Disagreement`).
    pub category: String,
    /// The situation, in prose.
    pub core_scenario: String,
    /// Facts that make it harder, one per item.
    #[serde(default)]
    pub complications: Vec<String>,
    /// The questions the presenting team should address.
    #[serde(default)]
    pub questions: Vec<String>,
    /// Asymmetries of power, knowledge or standing between the parties.
    #[serde(default)]
    pub asymmetric_features: Vec<String>,
    /// The parallel case for the consistency test.
    pub consistency_case: String,
    /// Other labelled values on the category line (`Structure: Symmetric`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, String>,
}
