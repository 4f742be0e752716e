//! What a person judging in the terminal UI needs before the first round shows: the rounds
//! in the order they are presented (the recorded sample's, or every finished round shuffled
//! from the default seed) and this annotator's judgments of them already stored, so a
//! session resumes at the first round not yet judged and can show a judged one again to
//! change it.

use std::path::Path;

use super::{Annotation, AnnotationError, RoundInfo, sample};

/// The rounds to present, in order: the recorded sample's (`annotations/sample.json`), or,
/// with none recorded, every finished round shuffled from [`sample::DEFAULT_SEED`] (not
/// recorded: a sample is recorded by `annotate --sample` or `annotations template`).
pub fn order(results: &Path, rounds: &[RoundInfo]) -> Result<Vec<String>, AnnotationError> {
    match sample::load_sample(results)? {
        Some(recorded) => Ok(recorded.round_ids),
        None => Ok(sample::draw(rounds, None, None, sample::DEFAULT_SEED)?.round_ids),
    }
}

/// For each round of `round_ids`, `annotator`'s judgment of it as stored (a readable
/// annotation file), or none.
pub fn stored(
    results: &Path,
    annotator: &str,
    round_ids: &[String],
) -> Result<Vec<Option<Annotation>>, AnnotationError> {
    round_ids
        .iter()
        .map(|id| super::load(results, annotator, id))
        .collect()
}

/// The rounds to present ([`order`]) and, for each, `annotator`'s judgment as stored
/// ([`stored`]).
pub fn resume(
    results: &Path,
    annotator: &str,
    rounds: &[RoundInfo],
) -> Result<(Vec<String>, Vec<Option<Annotation>>), AnnotationError> {
    super::check_annotator(annotator)?;
    let ids = order(results, rounds)?;
    let stored = stored(results, annotator, &ids)?;
    Ok((ids, stored))
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
