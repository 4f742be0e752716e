//! A round as its file holds it. The file keeps the spec's field names (`id`,
//! `dilemma_id`, `team_a_model`, `team_b_model`, `judge_model`, `phases`, `scores`,
//! `timestamp`), names its protocol as a string and its protocol's record under that
//! protocol's key (`qa`, `structured`), and carries a schema version. Reading checks that
//! the three agree, so a file cannot be read as the wrong protocol.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::{
    Judgment, PanelRecord, Phase, ProtocolKind, QaSetup, Round, RoundError, RoundRecord,
    RoundStatus, StructuredSetup,
};

/// The schema written today. 1: files before the version was written (read the same way);
/// 2: the version is written and the protocol name must be one this build knows.
pub const ROUND_SCHEMA_VERSION: u32 = 2;

#[derive(Serialize, Deserialize)]
struct RoundFile<'a> {
    #[serde(default = "first_schema")]
    schema_version: u32,
    id: Cow<'a, str>,
    #[serde(default = "ethics_bowl")]
    protocol: Cow<'a, str>,
    dilemma_id: Cow<'a, str>,
    #[serde(default = "one")]
    repetition: u32,
    team_a_model: Cow<'a, str>,
    team_b_model: Cow<'a, str>,
    #[serde(default)]
    judge_model: Cow<'a, str>,
    #[serde(default)]
    judge_models: Cow<'a, [String]>,
    #[serde(default)]
    phases: Cow<'a, [Phase]>,
    #[serde(default)]
    scores: Option<Cow<'a, Judgment>>,
    #[serde(default)]
    judgments: Cow<'a, [Judgment]>,
    status: RoundStatus,
    #[serde(default)]
    error: Option<Cow<'a, RoundError>>,
    #[serde(default, skip_serializing_if = "<[RoundError]>::is_empty")]
    earlier_errors: Cow<'a, [RoundError]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    panel: Option<Cow<'a, PanelRecord>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    qa: Option<Cow<'a, QaSetup>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    structured: Option<Cow<'a, StructuredSetup>>,
    timestamp: Cow<'a, str>,
}

fn first_schema() -> u32 {
    1
}
fn ethics_bowl() -> Cow<'static, str> {
    Cow::Borrowed(ProtocolKind::EthicsBowl.as_str())
}
fn one() -> u32 {
    1
}

impl Serialize for Round {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (qa, structured) = match &self.record {
            RoundRecord::EthicsBowl => (None, None),
            RoundRecord::QaDebate(setup) => (Some(Cow::Borrowed(&**setup)), None),
            RoundRecord::StructuredDebate(setup) => (None, Some(Cow::Borrowed(&**setup))),
        };
        RoundFile {
            schema_version: ROUND_SCHEMA_VERSION,
            id: Cow::Borrowed(&self.id),
            protocol: Cow::Borrowed(self.kind().as_str()),
            dilemma_id: Cow::Borrowed(&self.dilemma_id),
            repetition: self.repetition,
            team_a_model: Cow::Borrowed(&self.team_a_model),
            team_b_model: Cow::Borrowed(&self.team_b_model),
            judge_model: Cow::Borrowed(&self.judge_model),
            judge_models: Cow::Borrowed(&self.judge_models),
            phases: Cow::Borrowed(&self.phases),
            scores: self.scores.as_ref().map(Cow::Borrowed),
            judgments: Cow::Borrowed(&self.judgments),
            status: self.status,
            error: self.error.as_ref().map(Cow::Borrowed),
            earlier_errors: Cow::Borrowed(&self.earlier_errors),
            panel: self.panel.as_ref().map(Cow::Borrowed),
            qa,
            structured,
            timestamp: Cow::Borrowed(&self.timestamp),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Round {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let file = RoundFile::deserialize(deserializer)?;
        Round::try_from(file).map_err(serde::de::Error::custom)
    }
}

impl TryFrom<RoundFile<'_>> for Round {
    type Error = String;

    fn try_from(f: RoundFile<'_>) -> Result<Self, String> {
        if f.schema_version > ROUND_SCHEMA_VERSION {
            return Err(format!(
                "schema version {} is newer than this build reads ({ROUND_SCHEMA_VERSION}): \
                 use a newer ethics-bowl",
                f.schema_version
            ));
        }
        let kind: ProtocolKind = f.protocol.parse().map_err(|e| format!("{e}"))?;
        let held: Vec<&str> = [
            f.qa.as_ref().map(|_| "qa"),
            f.structured.as_ref().map(|_| "structured"),
        ]
        .into_iter()
        .flatten()
        .collect();
        // Each protocol's record, when the file holds it and no other.
        let (record, must_hold) = match (kind, f.qa, f.structured) {
            (ProtocolKind::EthicsBowl, qa, structured) => (
                (qa.is_none() && structured.is_none()).then_some(RoundRecord::EthicsBowl),
                "no protocol record",
            ),
            (ProtocolKind::QaDebate, qa, structured) => (
                qa.filter(|_| structured.is_none())
                    .map(|qa| RoundRecord::QaDebate(Box::new(qa.into_owned()))),
                "exactly a \"qa\" record",
            ),
            (ProtocolKind::StructuredDebate, qa, structured) => (
                structured
                    .filter(|_| qa.is_none())
                    .map(|s| RoundRecord::StructuredDebate(Box::new(s.into_owned()))),
                "exactly a \"structured\" record",
            ),
        };
        let record = record.ok_or_else(|| {
            format!(
                "a {kind} round must hold {must_hold} and holds {}",
                if held.is_empty() {
                    "none".to_string()
                } else {
                    held.join(" and ")
                }
            )
        })?;
        if let Some(p) = f
            .phases
            .iter()
            .find(|p| p.phase_type.protocol().is_some_and(|owner| owner != kind))
        {
            return Err(format!(
                "a {kind} round holds a \"{}\" phase, which only {} rounds have",
                p.phase_type.as_str(),
                p.phase_type
                    .protocol()
                    .map_or("judging", ProtocolKind::as_str)
            ));
        }
        let fit = |j: Judgment| -> Result<Judgment, String> {
            let judge = j.judge_key().to_string();
            Ok(Judgment {
                reading: j
                    .reading
                    .fit(kind)
                    .map_err(|e| format!("judge {judge}: {e}"))?,
                ..j
            })
        };
        let scores = f.scores.map(|j| fit(j.into_owned())).transpose()?;
        // A panel's verdict is stored once, as `scores`.
        let panel = f.panel.map(|p| PanelRecord {
            verdict: scores.clone(),
            ..p.into_owned()
        });
        Ok(Round {
            id: f.id.into_owned(),
            dilemma_id: f.dilemma_id.into_owned(),
            repetition: f.repetition,
            team_a_model: f.team_a_model.into_owned(),
            team_b_model: f.team_b_model.into_owned(),
            judge_model: f.judge_model.into_owned(),
            judge_models: f.judge_models.into_owned(),
            phases: f.phases.into_owned(),
            scores,
            judgments: f
                .judgments
                .into_owned()
                .into_iter()
                .map(fit)
                .collect::<Result<_, _>>()?,
            status: f.status,
            error: f.error.map(Cow::into_owned),
            earlier_errors: f.earlier_errors.into_owned(),
            panel,
            record,
            timestamp: f.timestamp.into_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ethics_bowl_file() -> serde_json::Value {
        serde_json::json!({
            "id": "d__a__vs__b__r1",
            "dilemma_id": "d",
            "team_a_model": "a",
            "team_b_model": "b",
            "judge_model": "j",
            "phases": [{"phase_type": "presentation", "model_id": "a", "prompt": "p",
                        "response": "r", "timestamp": "t"}],
            "scores": null,
            "judgments": [{"judge_model": "j", "parse_status": "failed", "raw_response": "?"}],
            "status": "needs_review",
            "timestamp": "t"
        })
    }

    #[test]
    fn a_file_without_version_or_protocol_is_an_ethics_bowl_round_and_gains_both() {
        let round: Round = serde_json::from_value(ethics_bowl_file()).unwrap();
        assert_eq!(round.kind(), ProtocolKind::EthicsBowl);
        assert!(matches!(
            round.judgments[0].reading,
            crate::domain::Reading::Rubric { .. }
        ));
        let written = serde_json::to_value(&round).unwrap();
        assert_eq!(written["schema_version"], ROUND_SCHEMA_VERSION);
        assert_eq!(written["protocol"], "ethics_bowl");
    }

    #[test]
    fn phases_and_records_of_another_protocol_are_refused() {
        let mut file = ethics_bowl_file();
        file["protocol"] = "structured_debate".into();
        let err = serde_json::from_value::<Round>(file.clone()).unwrap_err();
        assert!(
            err.to_string().contains("exactly a \"structured\" record"),
            "{err}"
        );

        file["protocol"] = "ethics_bowl".into();
        file["phases"][0]["phase_type"] = "opening".into();
        let err = serde_json::from_value::<Round>(file.clone()).unwrap_err();
        assert!(
            err.to_string().contains("holds a \"opening\" phase"),
            "{err}"
        );

        file["phases"][0]["phase_type"] = "presentation".into();
        file["schema_version"] = 99.into();
        let err = serde_json::from_value::<Round>(file).unwrap_err();
        assert!(err.to_string().contains("newer than this build"), "{err}");
    }

    #[test]
    fn an_unread_judgment_takes_its_rounds_rubric() {
        let judgment = crate::domain::Reading::empty(ProtocolKind::EthicsBowl);
        assert_eq!(
            judgment.fit(ProtocolKind::QaDebate),
            Ok(crate::domain::Reading::Choice(None))
        );
        let read = crate::domain::Reading::Choice(Some(crate::domain::QaChoice {
            side: crate::domain::Team::A,
            confidence: Some(70.0),
        }));
        assert!(read.fit(ProtocolKind::EthicsBowl).is_err());
    }
}
