//! The request and result types every provider shares.

use serde::{Deserialize, Serialize};

use crate::domain::Team;

/// Who spoke a turn of the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The prompt side.
    User,
    /// The model's earlier answers.
    Assistant,
}

/// One turn of the conversation sent to a model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    /// Who spoke it.
    pub role: Role,
    /// What was said.
    pub text: String,
}

/// What the engine knows about a call that the provider may use: the simulated provider
/// seeds its text from it; real providers ignore it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallTag {
    /// The round the call belongs to.
    pub round_id: String,
    /// The phase (`presentation`, `judgment`, …).
    pub phase: String,
    /// Who plays the round, as its configuration says (none outside a round, and in
    /// rounds without two debaters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cast: Option<RoundCast>,
    /// The round's repetition (1-based; none outside a round): never sent, but part of the
    /// response cache's key, so that each repetition of a round stays its own sample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repetition: Option<u32>,
}

/// Who plays a round, from the tournament's configuration, never from the text. Never sent
/// to a provider: a simulated judge reads it to score debaters by their configured `skill`
/// (see [`crate::providers::simulated::truth`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundCast {
    /// The model playing Team A (a question-answer debate's Debater A; a structured
    /// debate's Pro).
    pub team_a: String,
    /// The model playing Team B (Debater B; Con).
    pub team_b: String,
    /// Whose part the judge reads first: Team A, except in a question-answer debate whose
    /// assignment puts Debater B first.
    pub read_first: Team,
    /// Whose answer is correct, in a question-answer debate (none elsewhere, and when both
    /// answers were made wrong on purpose).
    pub correct: Option<Team>,
    /// The round's id (empty outside a round): seeds what every judge of the round shares,
    /// a simulated debater's form in that exchange.
    pub round: String,
}

impl RoundCast {
    /// Team A against Team B, Team A read first, no correct answer.
    pub fn teams(team_a: &str, team_b: &str) -> Self {
        Self {
            team_a: team_a.to_string(),
            team_b: team_b.to_string(),
            read_first: Team::A,
            correct: None,
            round: String::new(),
        }
    }

    /// The model playing `team`.
    pub fn model(&self, team: Team) -> &str {
        match team {
            Team::A => &self.team_a,
            Team::B => &self.team_b,
        }
    }
}

/// The JSON a request asks for, for providers that can enforce it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ResponseSchema {
    /// A short name (`opening_statement`), used as the schema's or tool's name.
    pub name: String,
    /// A JSON Schema whose root is an object, every property required and no others
    /// allowed (what OpenAI's strict mode needs).
    pub schema: serde_json::Value,
}

/// One request: a system prompt and the turns so far, the last being the user's.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChatRequest {
    /// The system prompt.
    pub system: String,
    /// Alternating user/assistant turns ending with a user turn.
    pub turns: Vec<Turn>,
    /// Where the call comes from.
    pub tag: CallTag,
    /// The JSON the answer must be, when the protocol asks for JSON (the prompt says so
    /// too, for providers without structured output).
    pub schema: Option<ResponseSchema>,
    /// An output-token limit for this request in place of the model's `max_tokens` (the
    /// truncation retry asks again with a higher one); every backend honours it.
    pub max_tokens: Option<u32>,
    /// A sampling temperature for this request in place of the model's `temperature` (the
    /// tournament's `[temperatures]` per role); every backend honours it.
    pub temperature: Option<f64>,
    /// Where the part of the conversation that is the same in every request of this phase
    /// on its case (the instructions, the dilemma or game) ends, the round's own text coming
    /// after it; none when the protocol marks none. With the system prompt and the turns
    /// before it, this is the prefix a provider's prompt cache can serve again: Anthropic
    /// requests mark its end with `cache_control`.
    pub stable_prefix: Option<StablePrefix>,
}

/// The end of a request's stable prefix: so many bytes into one of its turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StablePrefix {
    /// The turn it ends in (an index into `turns`).
    pub turn: usize,
    /// How many bytes of that turn's text are stable.
    pub bytes: usize,
}

impl ChatRequest {
    /// A single-question request.
    pub fn new(system: impl Into<String>, user: impl Into<String>) -> Self {
        Self {
            system: system.into(),
            turns: vec![Turn {
                role: Role::User,
                text: user.into(),
            }],
            tag: CallTag::default(),
            schema: None,
            max_tokens: None,
            temperature: None,
            stable_prefix: None,
        }
    }

    /// The same request, the first `bytes` of its last turn (so far) marked as the end of
    /// the stable prefix (see [`ChatRequest::stable_prefix`]); turns added later, such as a
    /// correction, come after it.
    pub fn with_stable_prefix(mut self, bytes: usize) -> Self {
        self.stable_prefix = (bytes > 0).then(|| StablePrefix {
            turn: self.turns.len().saturating_sub(1),
            bytes,
        });
        self
    }

    /// The turn the stable prefix ends in, split there: its index, its stable part and the
    /// rest (empty when the whole turn is stable); none without a mark, or when the mark
    /// falls outside a user turn or off a character boundary.
    pub fn stable_split(&self) -> Option<(usize, &str, &str)> {
        let StablePrefix { turn, bytes } = self.stable_prefix?;
        let t = self.turns.get(turn).filter(|t| t.role == Role::User)?;
        (bytes <= t.text.len() && t.text.is_char_boundary(bytes)).then(|| {
            let (stable, own) = t.text.split_at(bytes);
            (turn, stable, own)
        })
    }

    /// The same request, asking for JSON of this schema.
    pub fn with_schema(mut self, name: &str, schema: serde_json::Value) -> Self {
        self.schema = Some(ResponseSchema {
            name: name.to_string(),
            schema,
        });
        self
    }

    /// The same request tagged with its round and phase (its cast kept).
    pub fn tagged(mut self, round_id: impl Into<String>, phase: impl Into<String>) -> Self {
        self.tag.round_id = round_id.into();
        self.tag.phase = phase.into();
        self
    }

    /// The same request with the round's cast (see [`RoundCast`]).
    pub fn with_cast(mut self, cast: Option<RoundCast>) -> Self {
        self.tag.cast = cast;
        self
    }

    /// The temperature in force: this request's own, or the model's `temperature` (none:
    /// the provider's default).
    pub fn temperature_or(&self, model_temperature: Option<f64>) -> Option<f64> {
        self.temperature.or(model_temperature)
    }

    /// The output-token limit in force: this request's own, or the model's `max_tokens`.
    pub fn token_limit(&self, model_max_tokens: u32) -> u32 {
        self.max_tokens.unwrap_or(model_max_tokens)
    }

    /// The last user turn (the prompt proper).
    pub fn last_user_text(&self) -> &str {
        self.turns
            .iter()
            .rev()
            .find(|t| t.role == Role::User)
            .map_or("", |t| t.text.as_str())
    }
}

/// Tokens a call consumed, as the provider reported them, in one shape for every provider:
/// `input_tokens` is the whole prompt, and the cache counts are parts of it (Anthropic
/// reports its cache reads and writes beside its `input_tokens`; its parser adds them in).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens, every part of the prompt: read from the provider's cache, written to
    /// it, and neither.
    pub input_tokens: u64,
    /// Answer tokens, reasoning included.
    pub output_tokens: u64,
    /// Of `input_tokens`, those read from the provider's prompt cache (OpenAI
    /// `prompt_tokens_details.cached_tokens`, Anthropic `cache_read_input_tokens`, Gemini
    /// `cachedContentTokenCount`): billed at the cached-input price.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached_input_tokens: u64,
    /// Of `input_tokens`, those written to the provider's prompt cache (Anthropic
    /// `cache_creation_input_tokens`; the others charge nothing extra to write): billed at
    /// the cache-write price.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_write_tokens: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    /// A usage without cache counts: what a provider that reports none, or an estimate, gives.
    pub fn new(input_tokens: u64, output_tokens: u64) -> Self {
        Self {
            input_tokens,
            output_tokens,
            ..Self::default()
        }
    }

    /// Prompt tokens billed at the full input price: neither read from the cache nor
    /// written to it.
    pub fn uncached_input_tokens(&self) -> u64 {
        self.input_tokens
            .saturating_sub(self.cached_input_tokens)
            .saturating_sub(self.cache_write_tokens)
    }
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Self) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cached_input_tokens += other.cached_input_tokens;
        self.cache_write_tokens += other.cache_write_tokens;
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// A natural end of the answer.
    Stop,
    /// The output-token cap was reached; the answer may be cut short.
    Length,
    /// The provider withheld or cut the answer on content grounds.
    ContentFilter,
    /// The model refused.
    Refusal,
    /// Anything else, as the provider named it.
    Other(String),
}

/// A finished answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    /// The full answer text.
    pub text: String,
    /// Token usage: as the provider reported it, or estimated when it reported none (see
    /// `usage_estimated`).
    pub usage: Option<Usage>,
    /// `usage` is an estimate: the server sent no usage.
    pub usage_estimated: bool,
    /// Why the model stopped.
    pub finish_reason: FinishReason,
    /// The finish reason as the provider spelled it (`stop`, `end_turn`, `STOP`, …), for
    /// showing to people, who know their provider's words rather than ours.
    pub provider_finish_reason: String,
    /// The provider's request id, for support tickets.
    pub request_id: Option<String>,
    /// The provider's id of the batch that carried the request, when it went in one (batch
    /// mode): priced at the batch discount.
    pub batch_id: Option<String>,
}

/// What a call reports while it runs.
#[derive(Debug)]
pub enum CallEvent<'a> {
    /// A piece of answer text, in order.
    Delta(&'a str),
    /// An attempt failed and another follows after `wait`; text streamed by the failed
    /// attempt (`discarded_chars` of it) is void.
    RetryScheduled {
        /// The attempt that failed (1-based).
        attempt: u32,
        /// How long the next attempt waits.
        wait: std::time::Duration,
        /// Why it failed.
        error: &'a crate::providers::ProviderError,
        /// Characters of streamed text to discard.
        discarded_chars: usize,
    },
}
