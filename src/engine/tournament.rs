//! The tournament runner: stores the manifest, picks up what is on disk, runs the remaining
//! rounds concurrently, answers commands while it runs, and ends with the summary.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::analysis::Summary;
use crate::config::JudgingMode;
use crate::domain::{Round, RoundStatus, now_rfc3339};
use crate::protocols::panel::Panel;
use crate::protocols::strategy::{Judges, JudgingStrategy};
use crate::store::{Store, StoreError, TournamentRecord, TournamentStatus};

use super::control::Control;
use super::corrections::apply;
use super::events::{Correction, EngineCommand, EngineEvent, ScheduledState};
use super::prepare::Prepared;
use super::round_runner::{RoundContext, run_round};
use super::store_guard::{Lost, StoreGuard};
use super::summary_file::refresh_summary;

/// How a run ended.
#[derive(Debug, Clone)]
pub struct RunReport {
    /// The tournament's results folder.
    pub dir: PathBuf,
    /// How it ended.
    pub status: TournamentStatus,
    /// The summary as stored.
    pub summary: Summary,
    /// What the person must hear after the run, when the UI that showed it as it happened
    /// has closed (batches the provider would not cancel).
    pub notes: Vec<String>,
}

/// The engine could not keep its record.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// A record the run needs at its start or end could not be read or written.
    #[error("the results store failed: {0}")]
    Store(#[from] StoreError),
    /// The store refused a round mid-run (a full disk), or the disk had less free space than
    /// `min_free_space_mb`: no call was started after that, the calls under way finished,
    /// and what could still not be stored is counted.
    #[error("{trouble}; no call was started after it; {}", lost_text(*lost))]
    StoreStopped {
        /// The first refusal (the file and the system's reason) or the free space found.
        trouble: String,
        /// What could not be stored in the end.
        lost: Lost,
    },
}

fn lost_text(lost: Lost) -> String {
    if lost.answers == 0 && lost.rounds == 0 {
        "every answer received was stored".to_string()
    } else {
        format!(
            "{} answer(s) received in {} round(s) could not be stored and are lost",
            lost.answers, lost.rounds
        )
    }
}

/// Writes the decision briefing of a judged structured-debate round beside its file (a
/// failure is logged: the round file, which holds everything, is already stored).
fn save_briefing(store: &Store, round: &Round) {
    let Some(judgment) = crate::protocols::structured_debate::briefing::briefing_judgment(round)
    else {
        return;
    };
    if let Some(text) = crate::protocols::structured_debate::briefing::briefing(round, judgment)
        && let Err(e) = store.save_briefing(&round.id, &text)
    {
        tracing::warn!(round = %round.id, error = %e, "briefing not written");
    }
}

/// Stores a correction and announces the round as stored (or says why it was refused).
fn correction_events(
    store: &Store,
    round_id: &str,
    judge: &str,
    correction: &Correction,
) -> EngineEvent {
    let round = match apply(store, round_id, judge, correction) {
        Ok(round) => round,
        Err(reason) => return EngineEvent::CommandRefused { reason },
    };
    save_briefing(store, &round);
    EngineEvent::RoundStored {
        round: Arc::new(round),
    }
}

/// After a run, or over stored results (`ethics-bowl open`): stores the corrections the
/// review queue sends until the command channel closes. Other commands are refused, since no
/// tournament is running; so is a correction while another process writes the folder (a
/// run), which holds its lock.
pub async fn serve_corrections(
    store: Store,
    events: mpsc::UnboundedSender<EngineEvent>,
    commands: &mut mpsc::UnboundedReceiver<EngineCommand>,
) {
    while let Some(command) = commands.recv().await {
        let out = match command {
            EngineCommand::ApplyCorrection {
                round_id,
                judge,
                correction,
            } => match store.clone().locked() {
                Ok(writable) => correction_events(&writable, &round_id, &judge, &correction),
                Err(e) => EngineEvent::CommandRefused {
                    reason: format!("the correction was not saved: {e}"),
                },
            },
            _ => EngineEvent::CommandRefused {
                reason: "no tournament is running".into(),
            },
        };
        let _ = events.send(out);
    }
}

/// Runs a prepared tournament. Events go to `events`; commands come from `commands` (which
/// stays usable afterwards, e.g. for [`serve_corrections`]).
pub async fn run(
    prepared: Prepared,
    events: mpsc::UnboundedSender<EngineEvent>,
    commands: &mut mpsc::UnboundedReceiver<EngineCommand>,
) -> Result<RunReport, EngineError> {
    let (store, set_aside) = Store::open_for_run(&prepared.dir)?;
    let guard = StoreGuard::new(&prepared.dir, prepared.config.min_free_space_mb);
    // A disk already too full pays for nothing: no call starts.
    if let Some(trouble) = guard.low_space() {
        return Err(EngineError::StoreStopped {
            trouble,
            lost: Lost::default(),
        });
    }
    let set_aside: Vec<String> = set_aside
        .iter()
        .map(|s| {
            format!(
                "{} could not be read ({}); moved to {}, and its round is played again",
                s.from.display(),
                s.reason,
                s.to.display()
            )
        })
        .collect();
    for message in &set_aside {
        tracing::warn!("{message}");
    }
    let previous = store.load_tournament()?;
    let judge_models = prepared.config.judge_models();
    let used: HashSet<&String> = prepared.config.models.iter().chain(&judge_models).collect();
    let mut record = TournamentRecord {
        id: prepared.id.clone(),
        protocol: prepared.protocol.kind(),
        status: TournamentStatus::Running,
        started_at: previous.map_or_else(now_rfc3339, |p| p.started_at),
        finished_at: None,
        config_file: std::fs::canonicalize(&prepared.config_path)
            .unwrap_or_else(|_| prepared.config_path.clone()),
        config: prepared.config.clone(),
        models: prepared
            .models
            .models
            .iter()
            .filter(|m| used.contains(&m.name))
            .cloned()
            .collect(),
        dilemma_ids: prepared.item_ids.clone(),
        schedule: prepared.schedule.rounds.clone(),
        warnings: prepared
            .schedule
            .warnings
            .iter()
            .chain(&prepared.input_warnings)
            .chain(&set_aside)
            .cloned()
            .collect(),
        qa_sample: prepared.qa_sample.clone(),
    };
    store.save_tournament(&record)?;

    let batches = super::batching::start(
        &prepared.registry,
        &prepared.batch_models,
        &prepared.dir,
        super::batching::settings(&prepared.config),
        events.clone(),
    )?;
    let protocol = Arc::clone(&prepared.protocol);
    let ctx = Arc::new(RoundContext {
        protocol: Arc::clone(&protocol),
        judging: match (prepared.config.judging, &prepared.config.panel) {
            (JudgingMode::Panel, Some(config)) => {
                JudgingStrategy::new(Judges::Panel(Panel::new(config.clone())))
            }
            (JudgingMode::Panel, None) | (JudgingMode::All | JudgingMode::Rotate, _) => {
                JudgingStrategy::new(Judges::Single)
            }
        }
        .with_corrections(prepared.config.judge_corrections),
        registry: prepared.registry,
        store: store.clone(),
        control: Control::new(prepared.config.budget_usd, events, guard),
        temperatures: prepared.config.temperatures,
    });

    // What is on disk decides what runs: finished rounds are kept as they are.
    let mut to_run = Vec::new();
    let mut schedule = Vec::new();
    for s in &prepared.schedule.rounds {
        let (round, stored) = match store.load_round(&s.round_id)? {
            Some(round) => (round, true),
            None => match protocol.new_round(s) {
                Ok(round) => (round, false),
                Err(e) => {
                    tracing::error!(round = %s.round_id, error = %e, "round cannot be set up");
                    continue;
                }
            },
        };
        let unfinished = round.status == RoundStatus::Incomplete;
        // A finished round's text waits in the store for whoever opens it; one that waits
        // for a person keeps it (the review queue shows what the judge wrote).
        let text_dropped = round.status == RoundStatus::Complete;
        let round = if unfinished {
            to_run.push(round.clone());
            round
        } else if text_dropped {
            round.without_text()
        } else {
            round
        };
        schedule.push(ScheduledState {
            round: Arc::new(round),
            stored,
            to_run: unfinished,
            text_dropped,
        });
    }
    ctx.control.emit(EngineEvent::Started {
        tournament_id: prepared.id.clone(),
        rounds: schedule,
    });
    for message in set_aside {
        ctx.control.emit(EngineEvent::Warning { message });
    }

    // Rounds start in schedule order as room frees up (the schedule interleaves models, so
    // rounds running together spread over providers).
    // In batch mode every round is in flight, so each wave's calls share one batch.
    let limit = match &batches {
        Some(_) => usize::MAX,
        None => prepared.config.max_concurrency as usize,
    };
    let mut queue: VecDeque<Round> = to_run.into();
    let mut tasks: JoinSet<Round> = JoinSet::new();
    let mut running: HashSet<String> = HashSet::new();
    // Which round each task plays, so that one ending abnormally frees its place.
    let mut round_of_task: HashMap<tokio::task::Id, String> = HashMap::new();
    let mut commands_open = true;
    let mut notes = Vec::new();
    loop {
        while running.len() < limit && !ctx.control.cancel.is_cancelled() {
            let Some(round) = queue.pop_front() else {
                break;
            };
            running.insert(round.id.clone());
            let id = round.id.clone();
            round_of_task.insert(tasks.spawn(run_round(Arc::clone(&ctx), round)).id(), id);
        }
        if tasks.is_empty() && (queue.is_empty() || ctx.control.cancel.is_cancelled()) {
            break;
        }
        tokio::select! {
            command = commands.recv(), if commands_open => match command {
                None => commands_open = false,
                Some(EngineCommand::Pause) => ctx.control.set_paused(true),
                Some(EngineCommand::Resume) => ctx.control.set_paused(false),
                Some(EngineCommand::Cancel) => {
                    ctx.control.cancel.cancel();
                    // Nothing is sent after "stopping": calls waiting for a batch are not
                    // put in one.
                    if let Some(b) = &batches {
                        b.batching.stop_creating();
                    }
                }
                Some(EngineCommand::CancelBatches) => match &batches {
                    Some(b) => {
                        for message in b.batching.cancel_open().await {
                            tracing::error!("{message}");
                            ctx.control.emit(EngineEvent::Warning { message: message.clone() });
                            notes.push(message);
                        }
                    }
                    None => ctx.control.emit(EngineEvent::CommandRefused { reason: "this run has no batches".into() }),
                },
                Some(EngineCommand::RetryRound(id)) => match store.load_round(&id) {
                    Ok(Some(round)) if round.status == RoundStatus::Incomplete && !running.contains(&id) && !queue.iter().any(|r| r.id == id) && !ctx.control.cancel.is_cancelled() => {
                        queue.push_front(round);
                    }
                    Ok(_) => ctx.control.emit(EngineEvent::CommandRefused { reason: format!("round {id} is not an incomplete round at rest") }),
                    Err(e) => ctx.control.emit(EngineEvent::CommandRefused { reason: e.to_string() }),
                },
                Some(EngineCommand::ApplyCorrection { round_id, judge, correction }) => {
                    if running.contains(&round_id) {
                        ctx.control.emit(EngineEvent::CommandRefused { reason: format!("round {round_id} is still running") });
                    } else {
                        ctx.control.emit(correction_events(&store, &round_id, &judge, &correction));
                    }
                }
            },
            Some(joined) = tasks.join_next_with_id() => match joined {
                Ok((task, round)) => {
                    round_of_task.remove(&task);
                    running.remove(&round.id);
                    save_briefing(&store, &round);
                }
                // A round task records its own panics; this is one its record itself broke.
                Err(e) => {
                    if let Some(id) = round_of_task.remove(&e.id()) {
                        running.remove(&id);
                        let message = format!("internal error in round {id}: its task ended abnormally ({e}); please report it");
                        tracing::error!("{message}");
                        ctx.control.emit(EngineEvent::Warning { message });
                        ctx.control.emit(EngineEvent::RoundFinished { round_id: id });
                    }
                }
            },
        }
    }

    if let Some(b) = &batches {
        b.batching.settle().await;
    }
    drop(batches);
    if let Some(trouble) = ctx.control.store.trouble() {
        // The summary and the record are tried (space may be back) but cannot replace
        // the first refusal as what the person must hear.
        if let Err(e) = refresh_summary(&store) {
            tracing::warn!(error = %e, "summary not written");
        }
        record.status = TournamentStatus::Cancelled;
        record.finished_at = Some(now_rfc3339());
        if let Err(e) = store.save_tournament(&record) {
            tracing::warn!(error = %e, "tournament record not written");
        }
        ctx.control.emit(EngineEvent::Finished {
            status: record.status,
        });
        return Err(EngineError::StoreStopped {
            trouble,
            lost: ctx.control.store.lost(),
        });
    }
    let summary = refresh_summary(&store)?;
    record.status = if ctx.control.cancel.is_cancelled() {
        TournamentStatus::Cancelled
    } else if ctx.control.budget_reached() {
        TournamentStatus::BudgetReached
    } else {
        TournamentStatus::Finished
    };
    record.finished_at = Some(now_rfc3339());
    store.save_tournament(&record)?;
    ctx.control.emit(EngineEvent::Finished {
        status: record.status,
    });
    Ok(RunReport {
        dir: prepared.dir,
        status: record.status,
        summary,
        notes,
    })
}
