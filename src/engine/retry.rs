//! Retrying rounds when no run is under way (after a run, or over stored results in `open`):
//! the tournament is prepared again from the tournament file `tournament.json` records (and
//! so the models file that file names), and only the rounds asked for are played, through
//! the same runner and scheduler as a run, so they are announced queued, running and done.

use tokio::sync::mpsc;

use crate::domain::RoundStatus;
use crate::store::{RoundFilter, Store};

use super::events::{EngineCommand, EngineEvent};
use super::prepare::prepare_resume;
use super::tournament::{Plays, run_with};

/// Plays again the incomplete rounds `only` names (every incomplete round when `None`) of
/// the tournament stored in `store`; commands that come meanwhile (pause, cancel, another
/// retry) are answered by the run. What cannot be done is said as a refusal.
pub(crate) async fn retry(
    store: &Store,
    only: Option<Vec<String>>,
    events: &mpsc::UnboundedSender<EngineEvent>,
    commands: &mut mpsc::UnboundedReceiver<EngineCommand>,
) {
    let refuse = |reason: String| {
        let _ = events.send(EngineEvent::CommandRefused { reason });
    };
    let incomplete: Vec<String> = match store.load_rounds(&RoundFilter::default()) {
        Ok((rounds, _)) => rounds
            .into_iter()
            .filter(|r| r.status == RoundStatus::Incomplete)
            .map(|r| r.id)
            .collect(),
        Err(e) => return refuse(e.to_string()),
    };
    let ids = match only {
        Some(ids) => {
            if let Some(id) = ids.iter().find(|id| !incomplete.contains(id)) {
                return refuse(format!("round {id} is not an incomplete round at rest"));
            }
            Some(ids)
        }
        None if incomplete.is_empty() => {
            return refuse("no incomplete round to run again".into());
        }
        None => None,
    };
    let prepared = match prepare_resume(store.dir()) {
        Ok(p) => p,
        Err(e) => return refuse(format!("the rounds cannot be run again: {e}")),
    };
    if let Err(e) = run_with(
        prepared,
        Plays::Again(ids.as_deref()),
        events.clone(),
        commands,
    )
    .await
    {
        refuse(format!("the rounds could not be run again: {e}"));
    }
}
