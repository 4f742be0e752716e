//! What the store records of every attempt at a call: its failure, its kind and the wait
//! that followed, so a round file shows how a phase was obtained.

use serde::{Deserialize, Serialize};

/// What kind of failure a call met.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The server answered with an error status.
    Http,
    /// The connection broke, or another transport failure.
    Connection,
    /// The server could not be reached at all (connection refused, no route): nothing was
    /// sent, so it is retried for as long as `connect_retry_s` allows.
    Unreachable,
    /// The server went silent for longer than the read timeout.
    Timeout,
    /// An error frame arrived inside a successful (200) stream.
    StreamError,
    /// The stream ended before the model said it had finished.
    Truncated,
    /// The server sent something that is not the wire format.
    Malformed,
    /// The provider withheld the answer (safety block, refusal with no text).
    Refused,
    /// The model spent its whole token budget without answering.
    EmptyLength,
    /// A streamed response ended with no data at all (on some servers a context-length
    /// overflow, or a stream ended because another request arrived).
    EmptyStream,
    /// The server rejected the structured-output request (the schema or its dialect).
    SchemaRejected,
    /// The answer was cut at the output-token limit and asked for again with a higher one.
    TokenLimit,
    /// A simulated model's injected transient failure.
    Simulated,
}

/// One attempt of a call, as stored on the phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    /// 1 for the first attempt.
    pub number: u32,
    /// From sending the request to the end of the answer or the failure.
    pub latency_ms: u64,
    /// Why it failed; absent for the attempt that succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The failure's kind; absent on success.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<ErrorKind>,
    /// The wait before the next attempt, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_ms: Option<u64>,
    /// Streamed characters thrown away because the attempt failed part-way.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub discarded_chars: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
