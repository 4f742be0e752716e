//! The UI state of stored results (`ethics-bowl open`): the same state a run starts from,
//! built from the stored rounds with no engine, so browsing and watching share every screen
//! and every rule.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use crate::domain::{Round, ScheduledRound};
use crate::engine::{EngineEvent, ScheduledState};

use super::app::App;
use super::mirror::Mode;
use super::msg::Msg;
use super::update::update;

/// Stored rounds in the order the live run showed them: the order of the schedule that
/// `tournament.json` keeps (which follows the dilemma document, the item file and the
/// configuration's order), rounds it does not list after them; by id read as people read
/// it (`#2` before `#10`) where there is no schedule (a folder of the Python tool).
pub fn in_run_order(
    mut rounds: Vec<ScheduledState>,
    schedule: Option<&[ScheduledRound]>,
) -> Vec<ScheduledState> {
    rounds.sort_by(|a, b| natural_cmp(&a.round.id, &b.round.id));
    if let Some(schedule) = schedule {
        let at: HashMap<&str, usize> = schedule
            .iter()
            .enumerate()
            .map(|(i, s)| (s.round_id.as_str(), i))
            .collect();
        // Stable: rounds outside the schedule keep their natural order, after the rest.
        rounds.sort_by_key(|r| at.get(r.round.id.as_str()).copied().unwrap_or(usize::MAX));
    }
    rounds
}

/// Compares two ids with their runs of digits read as numbers: `item-2` before `item-10`.
fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a, b);
    loop {
        let (Some(ca), Some(cb)) = (a.chars().next(), b.chars().next()) else {
            return a.len().cmp(&b.len());
        };
        if ca.is_ascii_digit() && cb.is_ascii_digit() {
            let da = a.len() - a.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let db = b.len() - b.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let (na, nb) = (
                a[..da].trim_start_matches('0'),
                b[..db].trim_start_matches('0'),
            );
            let by_number = na.len().cmp(&nb.len()).then_with(|| na.cmp(nb));
            if by_number != Ordering::Equal {
                return by_number;
            }
            (a, b) = (&a[da..], &b[db..]);
        } else {
            if ca != cb {
                return ca.cmp(&cb);
            }
            (a, b) = (&a[ca.len_utf8()..], &b[cb.len_utf8()..]);
        }
    }
}

/// The state for browsing `rounds`.
pub fn browse(name: &str, rounds: &[Round], now: Instant) -> App {
    let rounds = rounds
        .iter()
        .map(|r| ScheduledState {
            round: Arc::new(r.clone()),
            stored: true,
            to_run: false,
            text_dropped: false,
        })
        .collect();
    browse_schedule(name, rounds, now)
}

/// The state for browsing stored rounds as given, some of them perhaps without their text
/// ([`ScheduledState::text_dropped`]: `open` reads a large folder so, one round whole at a
/// time).
pub fn browse_schedule(name: &str, rounds: Vec<ScheduledState>, now: Instant) -> App {
    let mut app = App::new(name, Mode::Browse, now);
    update(
        &mut app,
        Msg::Engine(EngineEvent::Started {
            tournament_id: name.to_string(),
            rounds,
        }),
    );
    app
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(id: &str) -> ScheduledState {
        let s = ScheduledRound::example(id, "d");
        ScheduledState {
            round: Arc::new(crate::protocols::blank_round(
                &s,
                crate::domain::RoundRecord::EthicsBowl,
            )),
            stored: true,
            to_run: false,
            text_dropped: false,
        }
    }

    fn ids(rounds: &[ScheduledState]) -> Vec<&str> {
        rounds.iter().map(|r| r.round.id.as_str()).collect()
    }

    #[test]
    fn numbers_in_ids_are_read_as_numbers() {
        let rounds = ["q-10__x", "q-1__x", "q-2__x", "q-0__x", "q-11__x", "p__x"]
            .map(state)
            .into();
        assert_eq!(
            ids(&in_run_order(rounds, None)),
            ["p__x", "q-0__x", "q-1__x", "q-2__x", "q-10__x", "q-11__x"]
        );
        assert_eq!(natural_cmp("a01", "a1b"), Ordering::Less);
        assert_eq!(natural_cmp("é2", "é10"), Ordering::Less);
    }

    #[test]
    fn the_schedule_orders_rounds_and_those_it_lacks_come_after() {
        let schedule: Vec<ScheduledRound> = ["zeta", "alpha", "q-10", "q-2"]
            .iter()
            .map(|id| ScheduledRound::example(id, "d"))
            .collect();
        let rounds = ["alpha", "extra-2", "q-2", "zeta", "q-10", "extra-10"]
            .map(state)
            .into();
        assert_eq!(
            ids(&in_run_order(rounds, Some(&schedule))),
            ["zeta", "alpha", "q-10", "q-2", "extra-2", "extra-10"]
        );
    }
}
