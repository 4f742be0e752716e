//! The schedule laid out as the matrix: a row per pairing (or, for question-answer rounds,
//! per configuration and judges), a column per dilemma and repetition, each round in its
//! cell, and the protocol most of its rounds have.

use std::collections::HashMap;

use crate::domain::{ProtocolKind, QaFormat, ScheduledRound};
use crate::engine::ScheduledState;

use super::model::{Design, Mirror};
use super::round_state::RoundState;

/// The protocol a schedule runs: the kind most of its rounds have (a tournament runs one;
/// an empty schedule shows as the Ethics Bowl's).
fn schedule_protocol(rounds: &[ScheduledState]) -> ProtocolKind {
    let mut counts: HashMap<ProtocolKind, usize> = HashMap::new();
    for s in rounds {
        *counts.entry(s.round.kind()).or_default() += 1;
    }
    counts
        .into_iter()
        .max_by_key(|(kind, n)| (*n, *kind))
        .map_or(ProtocolKind::EthicsBowl, |(kind, _)| kind)
}

/// The matrix row a round belongs to: its pairing (Team A, Team B); for a question-answer
/// round, its configuration (format and debaters) and its judges.
fn row_key(round: &RoundState) -> (String, String) {
    let r = &round.stored;
    match r.kind() {
        ProtocolKind::EthicsBowl | ProtocolKind::StructuredDebate => {
            (r.team_a_model.clone(), r.team_b_model.clone())
        }
        ProtocolKind::QaDebate => {
            let who = match r.qa().map(|s| s.format) {
                Some(QaFormat::Debate) => {
                    format!("debate {} v {}", r.team_a_model, r.team_b_model)
                }
                Some(QaFormat::Consultancy) => format!("consult {}", r.team_a_model),
                Some(other) => other.as_str().to_string(),
                None => String::new(),
            };
            (who, round.judges().join(", "))
        }
    }
}

/// The position of `key` in `lines`, added at the end when missing.
fn position<T: PartialEq>(lines: &mut Vec<T>, key: T) -> usize {
    match lines.iter().position(|l| *l == key) {
        Some(at) => at,
        None => {
            lines.push(key);
            lines.len() - 1
        }
    }
}

/// Lays out the matrix from the schedule, each round as it stands (already sanitised).
pub(super) fn lay_out(m: &mut Mirror, rounds: Vec<ScheduledState>) {
    m.rounds.clear();
    m.index.clear();
    m.rows.clear();
    m.columns.clear();
    m.cells.clear();
    m.protocol = schedule_protocol(&rounds);
    m.text_kept.reset();
    m.design = None;
    add(m, rounds);
}

/// Adds rounds to the matrix laid out (an adaptive design's wave), each in its cell.
pub(super) fn add(m: &mut Mirror, rounds: Vec<ScheduledState>) {
    for s in rounds {
        let mut round = RoundState::new(s.round, s.stored);
        round.text_dropped = s.text_dropped;
        let row = position(&mut m.rows, row_key(&round));
        let col = position(
            &mut m.columns,
            (round.stored.dilemma_id.clone(), round.stored.repetition),
        );
        m.index.insert(round.id().to_string(), m.rounds.len());
        m.cells.insert((row, col), m.rounds.len());
        let whole_at_rest = !round.text_dropped && round.at_rest();
        let at = m.rounds.len();
        m.rounds.push(round);
        if whole_at_rest {
            m.text_kept.touch(&mut m.rounds, at);
        }
    }
}

/// The matrix row of a round of the full schedule that has no round yet: as [`row_key`]
/// gives it for the round once set up.
fn scheduled_row_key(r: &ScheduledRound) -> (String, String) {
    match r.format {
        None => (r.team_a.clone(), r.team_b.clone()),
        Some(QaFormat::Debate) => (
            format!("debate {} v {}", r.team_a, r.team_b),
            r.judges.join(", "),
        ),
        Some(QaFormat::Consultancy) => (format!("consult {}", r.team_a), r.judges.join(", ")),
        Some(other) => (other.as_str().to_string(), r.judges.join(", ")),
    }
}

/// Marks the cells of an adaptive design's rounds not chosen (added to the matrix's rows and
/// columns when missing), and whether it stopped.
pub(super) fn mark_design(m: &mut Mirror, not_chosen: &[ScheduledRound], stopped: Option<String>) {
    let mut design = Design {
        not_chosen: Default::default(),
        stopped,
    };
    for r in not_chosen {
        if m.index.contains_key(&r.round_id) {
            continue;
        }
        let row = position(&mut m.rows, scheduled_row_key(r));
        let col = position(&mut m.columns, (r.dilemma_id.clone(), r.repetition));
        design.not_chosen.insert((row, col));
    }
    m.design = Some(design);
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Instant;

    use crate::domain::ScheduledRound;
    use crate::engine::{EngineEvent, ScheduledState};
    use crate::protocols::example_round;
    use crate::tui::mirror::{Mirror, Mode, ingest};

    fn scheduled(id: &str, dilemma: &str, a: &str, b: &str) -> ScheduledRound {
        ScheduledRound {
            team_a: a.into(),
            team_b: b.into(),
            ..ScheduledRound::example(id, dilemma)
        }
    }

    fn state(s: &ScheduledRound) -> ScheduledState {
        ScheduledState {
            round: Arc::new(example_round(s)),
            stored: false,
            to_run: true,
            text_dropped: false,
        }
    }

    #[test]
    fn an_adaptive_designs_rounds_not_chosen_have_cells_until_a_wave_chooses_them() {
        let mut m = Mirror::new("t", Mode::Live, Instant::now());
        let first = scheduled("d1__a__vs__b__r1", "d1", "a", "b");
        let later = scheduled("d2__a__vs__b__r1", "d2", "a", "b");
        let other = scheduled("d1__b__vs__a__r1", "d1", "b", "a");
        ingest(
            &mut m,
            EngineEvent::Started {
                tournament_id: "t".into(),
                rounds: vec![state(&first)],
            },
        );
        ingest(
            &mut m,
            EngineEvent::Design {
                wave: 1,
                rounds: Vec::new(),
                not_chosen: vec![later.clone(), other.clone()],
                stopped: None,
            },
        );
        // The pairing b vs a and the dilemma d2 are laid out with no round in them.
        assert_eq!(m.rows.len(), 2);
        assert_eq!(m.columns.len(), 2);
        let design = m.design.clone().unwrap();
        assert_eq!(design.not_chosen.len(), 2);
        assert!(design.stopped.is_none());
        ingest(
            &mut m,
            EngineEvent::Design {
                wave: 2,
                rounds: vec![state(&later)],
                not_chosen: vec![other],
                stopped: Some("max_rounds: 2 rounds chosen".into()),
            },
        );
        assert_eq!(m.rounds.len(), 2);
        assert!(m.rounds[1].queued);
        assert_eq!(m.cells.len(), 2);
        let design = m.design.clone().unwrap();
        assert_eq!(design.not_chosen.len(), 1);
        assert_eq!(
            design.stopped.as_deref(),
            Some("max_rounds: 2 rounds chosen")
        );
        assert_eq!(m.progress.outset().rounds, 2);
    }
}
