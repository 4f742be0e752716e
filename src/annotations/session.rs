//! What a person judging in the terminal UI needs before the first round shows: the rounds
//! in the order they are presented (the recorded sample's, or every finished round shuffled
//! from the default seed) and which of them this annotator has judged already, so a session
//! resumes at the first round not yet judged.

use std::path::Path;

use super::{AnnotationError, RoundInfo, sample};

/// The rounds to present, in order: the recorded sample's (`annotations/sample.json`), or,
/// with none recorded, every finished round shuffled from [`sample::DEFAULT_SEED`] (not
/// recorded: a sample is recorded by `annotate --sample` or `annotations template`).
pub fn order(results: &Path, rounds: &[RoundInfo]) -> Result<Vec<String>, AnnotationError> {
    match sample::load_sample(results)? {
        Some(recorded) => Ok(recorded.round_ids),
        None => Ok(sample::draw(rounds, None, None, sample::DEFAULT_SEED)?.round_ids),
    }
}

/// For each round of `round_ids`, whether `annotator` has judged it (a stored, readable
/// annotation file).
pub fn judged(
    results: &Path,
    annotator: &str,
    round_ids: &[String],
) -> Result<Vec<bool>, AnnotationError> {
    round_ids
        .iter()
        .map(|id| super::load(results, annotator, id).map(|a| a.is_some()))
        .collect()
}

/// The rounds to present ([`order`]) and, for each, whether `annotator` judged it
/// ([`judged`]).
pub fn resume(
    results: &Path,
    annotator: &str,
    rounds: &[RoundInfo],
) -> Result<(Vec<String>, Vec<bool>), AnnotationError> {
    super::check_annotator(annotator)?;
    let ids = order(results, rounds)?;
    let done = judged(results, annotator, &ids)?;
    Ok((ids, done))
}

/// Where a session starts: the first round not yet judged (none when every one is).
pub fn first_unjudged(done: &[bool]) -> Option<usize> {
    done.iter().position(|d| !d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_resumes_at_the_first_round_not_judged() {
        assert_eq!(first_unjudged(&[true, true, false, true, false]), Some(2));
        assert_eq!(first_unjudged(&[true, true]), None);
        assert_eq!(first_unjudged(&[]), None);
    }
}
