//! `summary.json` rewritten from the store: the one place every count comes from. Called
//! after anything changes stored rounds (the end of a run or resume, a hand correction, a
//! rejudge), so the file, the printed summary and `report` read the same rounds.

use std::collections::HashSet;

use crate::analysis::{Summary, summarize, summary_fields};
use crate::domain::Round;
use crate::store::{RoundFilter, Store, StoreError};

/// Summarises the tournament's stored rounds (those of its schedule; every round for a
/// folder without a tournament record), counts the scheduled rounds with nothing stored as
/// not started, and writes `summary.json`. Rounds are read one file at a time and only the
/// fields the summary reads are kept of each (see [`summary_fields`]), so the end of a
/// large run holds their numbers, not their texts.
pub fn refresh_summary(store: &Store) -> Result<Summary, StoreError> {
    let (rounds, _) = store.load_rounds_with(&RoundFilter::default(), summary_fields)?;
    let schedule: Option<Vec<String>> = store
        .load_tournament()?
        .map(|t| t.schedule.into_iter().map(|r| r.round_id).collect());
    let summary = match schedule {
        Some(ids) => of_schedule(&ids, rounds),
        None => summarize(&rounds),
    };
    store.save_summary(&summary)?;
    Ok(summary)
}

/// The summary of the scheduled rounds among `rounds`, the rest counted as not started.
fn of_schedule(ids: &[String], rounds: Vec<Round>) -> Summary {
    let scheduled: HashSet<&String> = ids.iter().collect();
    let ours: Vec<Round> = rounds
        .into_iter()
        .filter(|r| scheduled.contains(&r.id))
        .collect();
    let mut summary = summarize(&ours);
    summary.not_started = scheduled.len().saturating_sub(ours.len());
    summary.rounds += summary.not_started;
    summary
}

/// Rewrites `summary.json` after a change outside a run's end (a correction, a rejudge); a
/// failure is logged, since the round files, which hold everything, are already stored.
pub fn refresh_or_warn(store: &Store) {
    if let Err(e) = refresh_summary(store) {
        tracing::warn!(dir = %store.dir().display(), error = %e, "summary.json not rewritten");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ScheduledRound;

    fn round(id: &str) -> Round {
        let s = ScheduledRound::example(id, "d");
        crate::protocols::example_round(&s)
    }

    #[test]
    fn rounds_with_nothing_stored_count_as_not_started_and_others_are_left_out() {
        let ids: Vec<String> = (0..42).map(|i| format!("r{i}")).collect();
        let stored: Vec<Round> = (0..29)
            .map(|i| round(&format!("r{i}")))
            .chain([round("not-in-the-schedule")])
            .collect();
        let s = of_schedule(&ids, stored);
        assert_eq!((s.rounds, s.incomplete, s.not_started), (42, 29, 13));
        assert_eq!(s.unfinished.len(), 29);
    }
}
