//! Token estimates for answers whose server reported no usage (llama-cpp-python never sends
//! usage on a stream), so that costs and `budget_usd` still count those calls.
//!
//! OpenAI model ids (`gpt-*`, `o1`/`o3`/`o4*`, `chatgpt-*`, also behind a gateway prefix
//! such as `openai/gpt-4o`) are counted with their real tokenizer from `tiktoken-rs`:
//! `o200k_base` for GPT-4o, GPT-4.1, GPT-4.5, GPT-5, gpt-oss and the o-series, `cl100k_base`
//! for GPT-4 and GPT-3.5. Every other model is estimated at one token per 4 characters,
//! about right for English with most tokenizers and low for other languages and for code.
//! Either way each message adds [`TOKENS_PER_MESSAGE`] for the chat format's role markers
//! and the reply adds [`REPLY_PRIMING`], as OpenAI's own counting does.

use tiktoken_rs::CoreBPE;

use super::types::{ChatRequest, Usage};

/// Tokens the chat format adds around each message (role and separators).
pub const TOKENS_PER_MESSAGE: u64 = 4;
/// Tokens that open the assistant's reply.
pub const REPLY_PRIMING: u64 = 3;
/// Characters per token assumed for models without a known tokenizer.
pub const CHARS_PER_TOKEN: u64 = 4;

/// How a model's text is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tokenizer {
    /// GPT-4o and later.
    O200k,
    /// GPT-4 and GPT-3.5.
    Cl100k,
    /// Anything else: characters / 4.
    Chars,
}

/// The tokenizer of a provider's model id, when it is an OpenAI model.
fn tokenizer_for(model_id: &str) -> Tokenizer {
    let id = model_id
        .rsplit('/')
        .next()
        .unwrap_or(model_id)
        .to_ascii_lowercase();
    let starts = |prefixes: &[&str]| prefixes.iter().any(|p| id.starts_with(p));
    if starts(&[
        "gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "gpt-oss", "chatgpt-", "o1", "o3", "o4",
    ]) {
        Tokenizer::O200k
    } else if starts(&["gpt-4", "gpt-3.5", "gpt-35"]) {
        Tokenizer::Cl100k
    } else {
        Tokenizer::Chars
    }
}

fn bpe(tokenizer: Tokenizer) -> Option<&'static CoreBPE> {
    match tokenizer {
        Tokenizer::O200k => Some(tiktoken_rs::o200k_base_singleton()),
        Tokenizer::Cl100k => Some(tiktoken_rs::cl100k_base_singleton()),
        Tokenizer::Chars => None,
    }
}

/// Tokens in `text` by the character rule.
fn chars_estimate(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(CHARS_PER_TOKEN)
}

/// What a request and its answer are estimated to have cost in tokens.
fn estimate_with(tokenizer: Tokenizer, system: &str, turns: &[&str], answer: &str) -> Usage {
    let count = |text: &str| match bpe(tokenizer) {
        Some(bpe) => bpe.encode_ordinary(text).len() as u64,
        None => chars_estimate(text),
    };
    let messages = std::iter::once(system).chain(turns.iter().copied());
    let input = messages
        .map(|text| count(text) + TOKENS_PER_MESSAGE)
        .sum::<u64>()
        + REPLY_PRIMING;
    Usage::new(input, count(answer))
}

/// Estimates a call's usage: input from the system prompt and every turn, output from the
/// answer. A real tokenizer runs on a blocking thread (its first use loads the vocabulary);
/// should it fail there, the character rule answers instead.
pub(crate) async fn estimate_usage(model_id: &str, req: &ChatRequest, answer: &str) -> Usage {
    let tokenizer = tokenizer_for(model_id);
    let turns: Vec<&str> = req.turns.iter().map(|t| t.text.as_str()).collect();
    if tokenizer == Tokenizer::Chars {
        return estimate_with(tokenizer, &req.system, &turns, answer);
    }
    let system = req.system.clone();
    let owned: Vec<String> = turns.iter().map(|t| t.to_string()).collect();
    let text = answer.to_string();
    let counted = tokio::task::spawn_blocking(move || {
        let turns: Vec<&str> = owned.iter().map(String::as_str).collect();
        estimate_with(tokenizer, &system, &turns, &text)
    })
    .await;
    counted.unwrap_or_else(|_| estimate_with(Tokenizer::Chars, &req.system, &turns, answer))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::types::{Role, Turn};

    #[test]
    fn model_ids_pick_their_tokenizer() {
        for id in [
            "gpt-4o-mini",
            "gpt-4.1",
            "gpt-5.2",
            "o3-mini",
            "o4-mini",
            "chatgpt-4o-latest",
            "openai/gpt-4o",
            "GPT-4O",
        ] {
            assert_eq!(tokenizer_for(id), Tokenizer::O200k, "{id}");
        }
        for id in ["gpt-4", "gpt-4-turbo", "gpt-3.5-turbo"] {
            assert_eq!(tokenizer_for(id), Tokenizer::Cl100k, "{id}");
        }
        for id in [
            "smollm2",
            "claude-sonnet-4-5",
            "llama3",
            "qwen-max",
            "gemini-2.5-pro",
        ] {
            assert_eq!(tokenizer_for(id), Tokenizer::Chars, "{id}");
        }
    }

    #[test]
    fn the_character_rule_counts_four_characters_a_token_plus_message_overhead() {
        let u = estimate_with(
            Tokenizer::Chars,
            "12345678",
            &["1234", "12345"],
            "123456789",
        );
        // system 2, turns 1 and 2, 4 per message, 3 for the reply.
        assert_eq!(
            u.input_tokens,
            2 + 1 + 2 + 3 * TOKENS_PER_MESSAGE + REPLY_PRIMING
        );
        assert_eq!(u.output_tokens, 3);
        assert_eq!(chars_estimate("éééé"), 1, "characters, not bytes");
        assert_eq!(chars_estimate(""), 0);
    }

    #[test]
    fn openai_models_are_counted_with_their_tokenizer() {
        // "hello world" is two tokens in both vocabularies; special-token text is counted
        // as ordinary text, never as a control token.
        let o = estimate_with(Tokenizer::O200k, "", &["hello world"], "hello world");
        assert_eq!(o.output_tokens, 2);
        assert_eq!(o.input_tokens, 2 + 2 * TOKENS_PER_MESSAGE + REPLY_PRIMING);
        let c = estimate_with(Tokenizer::Cl100k, "", &[], "hello world");
        assert_eq!(c.output_tokens, 2);
        let special = estimate_with(Tokenizer::O200k, "", &[], "<|endoftext|>");
        assert!(special.output_tokens > 1, "{special:?}");
    }

    #[tokio::test]
    async fn a_request_is_estimated_from_system_turns_and_answer() {
        let mut req = ChatRequest::new("You are terse.", "Say hello.");
        req.turns.push(Turn {
            role: Role::Assistant,
            text: "Hello.".into(),
        });
        req.turns.push(Turn {
            role: Role::User,
            text: "Again.".into(),
        });
        let local = estimate_usage("smollm2", &req, "Hello again, friend.").await;
        assert_eq!(
            local,
            Usage::new(4 + 3 + 2 + 2 + 4 * TOKENS_PER_MESSAGE + REPLY_PRIMING, 5)
        );
        let gpt = estimate_usage("gpt-4o", &req, "Hello again, friend.").await;
        assert_eq!(gpt.output_tokens, 5, "Hello / again / , / friend / .");
    }
}
