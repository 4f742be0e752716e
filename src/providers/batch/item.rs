//! One request in a batch: its id, derived from what it asks so that a resumed run finds
//! it again, and its outcome in a form the journal can keep.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::domain::ErrorKind;
use crate::providers::ProviderError;
use crate::providers::types::{Completion, FinishReason, Usage};

/// A request waiting for, or placed in, a batch.
#[derive(Debug, Clone)]
pub(crate) struct Item {
    /// The request's id in the batch (`custom_id`, Gemini's metadata key).
    pub id: String,
    /// The wire format's request body, without streaming.
    pub body: Value,
    /// The output-token limit the body asks for, to tell an answer cut by it.
    pub max_tokens: u32,
    /// The round the call belongs to, for the journal and for people.
    pub round_id: String,
    /// The call's phase label.
    pub phase: String,
}

/// The id of a request: a digest of the round, the phase, the attempt number and the body.
/// The same call asked again after a restart has the same id, so it is found in the batch it
/// was put in; a retry (the next attempt) gets a new one. Anthropic allows 64 characters of
/// `[A-Za-z0-9_-]`; this is 34.
pub(crate) fn item_id(round_id: &str, phase: &str, attempt: u32, body: &Value) -> String {
    let mut hash = Sha256::new();
    for part in [round_id, phase, &attempt.to_string(), &body.to_string()] {
        hash.update(part.as_bytes());
        hash.update([0u8]);
    }
    let digest = hash.finalize();
    let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("eb{hex}")
}

/// What became of one request, as the journal keeps it and the caller receives it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub(crate) enum ItemOutcome {
    /// An answer.
    Answer {
        /// The answer text.
        text: String,
        /// Tokens, as the provider reported them.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<Usage>,
        /// Why the model stopped.
        finish: FinishReason,
        /// The provider's word for it.
        provider_finish: String,
        /// The provider's request id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request_id: Option<String>,
    },
    /// A failure, classified as the streamed call's would be.
    Error {
        /// What went wrong.
        kind: ErrorKind,
        /// The provider's message.
        message: String,
        /// The HTTP status the provider gave the request, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status: Option<u16>,
        /// The provider's error code.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
        /// Whether asking again may help.
        retryable: bool,
    },
}

impl ItemOutcome {
    /// The outcome of a parsed answer or error.
    pub(crate) fn from_result(result: Result<Completion, ProviderError>) -> Self {
        match result {
            Ok(c) => Self::Answer {
                text: c.text,
                usage: c.usage,
                finish: c.finish_reason,
                provider_finish: c.provider_finish_reason,
                request_id: c.request_id,
            },
            Err(e) => Self::Error {
                kind: e.kind,
                message: e.message,
                status: e.status,
                code: e.code,
                retryable: e.retryable,
            },
        }
    }

    /// A request the batch ended without running (expired, cancelled, missing from the
    /// results): sending it again may work.
    pub(crate) fn unfinished(why: &str) -> Self {
        Self::Error {
            kind: ErrorKind::Http,
            message: why.to_string(),
            status: None,
            code: Some("batch_unfinished".into()),
            retryable: true,
        }
    }

    /// Whether the request failed.
    pub(crate) fn is_error(&self) -> bool {
        matches!(self, Self::Error { .. })
    }

    /// The answer, or the error, as a streamed attempt returns them; `batch` is the
    /// provider's id of the batch that carried it.
    pub(crate) fn into_result(self, batch: &str) -> Result<Completion, ProviderError> {
        match self {
            Self::Answer {
                text,
                usage,
                finish,
                provider_finish,
                request_id,
            } => Ok(Completion {
                text,
                usage,
                usage_estimated: false,
                finish_reason: finish,
                provider_finish_reason: provider_finish,
                request_id,
                batch_id: Some(batch.to_string()),
            }),
            Self::Error {
                kind,
                message,
                status,
                code,
                retryable,
            } => Err(ProviderError {
                kind,
                message: format!("{message} (in batch {batch})"),
                status,
                code,
                request_id: None,
                retry_after: None,
                quota_reset: None,
                retryable,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_are_stable_short_and_differ_by_attempt_and_body() {
        let body = json!({"model": "m", "messages": []});
        let a = item_id("r1", "presentation", 1, &body);
        assert_eq!(a, item_id("r1", "presentation", 1, &body));
        assert_eq!(a.len(), 34);
        assert!(a.chars().all(|c| c.is_ascii_alphanumeric()));
        assert_ne!(a, item_id("r1", "presentation", 2, &body));
        assert_ne!(a, item_id("r2", "presentation", 1, &body));
        assert_ne!(a, item_id("r1", "presentation", 1, &json!({"model": "n"})));
    }

    #[test]
    fn outcomes_round_trip_through_json_and_name_their_batch() {
        let answer = ItemOutcome::Answer {
            text: "hi".into(),
            usage: Some(Usage::new(3, 1)),
            finish: FinishReason::Stop,
            provider_finish: "stop".into(),
            request_id: None,
        };
        let line = serde_json::to_string(&answer).unwrap();
        assert_eq!(serde_json::from_str::<ItemOutcome>(&line).unwrap(), answer);
        let c = answer.into_result("batch_1").unwrap();
        assert_eq!(c.batch_id.as_deref(), Some("batch_1"));
        let e = ItemOutcome::unfinished("the batch expired")
            .into_result("batch_1")
            .unwrap_err();
        assert!(e.retryable && e.message.contains("batch_1"), "{e}");
    }
}
