//! The tournament runner: stores the manifest, picks up what is on disk, runs the remaining
//! rounds concurrently, answers commands while it runs, and ends with the summary.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::mpsc;

use crate::analysis::Summary;
use crate::config::JudgingMode;
use crate::domain::{Round, RoundStatus, now_rfc3339};
use crate::protocols::panel::Panel;
use crate::protocols::strategy::{Judges, JudgingStrategy};
use crate::store::{Store, TournamentRecord, TournamentStatus};

use super::context::RoundContext;
use super::control::Control;
use super::corrections::correction_events;
use super::error::EngineError;
use super::events::{EngineCommand, EngineEvent, ScheduledState};
use super::prepare::Prepared;
use super::scheduler::play;
use super::store_guard::{Lost, StoreGuard};
use super::summary_file::refresh_summary;
use super::waves::Waves;

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

/// After a run, or over stored results (`ethics-bowl open`): stores the corrections the
/// review queue sends until the command channel closes, and plays again the rounds a retry
/// names (see [`super::retry`]), with the tournament and models files `tournament.json`
/// records. Pause and cancel are refused while no round runs; so is a correction or a
/// retry while another process writes the folder (a run), which holds its lock.
pub async fn serve_corrections(
    store: Store,
    events: mpsc::UnboundedSender<EngineEvent>,
    commands: &mut mpsc::UnboundedReceiver<EngineCommand>,
) {
    while let Some(command) = commands.recv().await {
        let out = match command {
            EngineCommand::RetryRound(id) => {
                super::retry::retry(&store, Some(vec![id]), &events, commands).await;
                continue;
            }
            EngineCommand::RetryIncomplete => {
                super::retry::retry(&store, None, &events, commands).await;
                continue;
            }
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

/// Which of a tournament's rounds a run plays.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Plays<'a> {
    /// A run or a resume: every unfinished round, announced with `Started`.
    Schedule,
    /// A retry after a run or over stored results: these incomplete rounds (every one when
    /// `None`), announced with `Queued`.
    Again(Option<&'a [String]>),
}

/// Runs a prepared tournament. Events go to `events`; commands come from `commands` (which
/// stays usable afterwards, e.g. for [`serve_corrections`]).
pub async fn run(
    prepared: Prepared,
    events: mpsc::UnboundedSender<EngineEvent>,
    commands: &mut mpsc::UnboundedReceiver<EngineCommand>,
) -> Result<RunReport, EngineError> {
    run_with(prepared, Plays::Schedule, events, commands).await
}

/// Runs the rounds of a prepared tournament that `plays` names.
pub(crate) async fn run_with(
    prepared: Prepared,
    plays: Plays<'_>,
    events: mpsc::UnboundedSender<EngineEvent>,
    commands: &mut mpsc::UnboundedReceiver<EngineCommand>,
) -> Result<RunReport, EngineError> {
    let (store, set_aside) =
        Store::open_for_run(&prepared.dir, &crate::protocols::extra_folders())?;
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
    // An adaptive design plays the rounds it has chosen, choosing more in waves as they
    // end; a first run chooses its first wave here, from no results.
    let mut waves = prepared.config.pairings.is_adaptive().then(|| {
        Waves::new(
            &prepared.config,
            &prepared.schedule.rounds,
            previous.as_ref().and_then(|p| p.design.clone()),
        )
    });
    let grows = matches!(plays, Plays::Schedule);
    if let Some(w) = waves.as_mut()
        && grows
    {
        w.reopen();
        // A first run has nothing stored to see; a resumed one sees its stored rounds as
        // they are read below, before any wave is chosen.
        if w.record.waves.is_empty() {
            w.next(false);
        }
    }
    let scheduled = match &waves {
        Some(w) => w.chosen(),
        None => prepared.schedule.rounds.clone(),
    };
    let schedule_warnings = match &waves {
        Some(w) => w.warnings(&prepared.config),
        None => prepared.schedule.warnings.clone(),
    };
    let judge_models = prepared.config.judge_models();
    let used: HashSet<&String> = prepared.config.models.iter().chain(&judge_models).collect();
    let mut record = TournamentRecord {
        id: prepared.id.clone(),
        protocol: prepared.protocol.kind(),
        status: TournamentStatus::Running,
        started_at: previous
            .as_ref()
            .map_or_else(now_rfc3339, |p| p.started_at.clone()),
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
        schedule: scheduled.clone(),
        warnings: schedule_warnings
            .iter()
            .chain(&prepared.input_warnings)
            .chain(&set_aside)
            .cloned()
            .collect(),
        qa_sample: prepared.sample.clone(),
        // The builds that ran it before, and the re-judgings written into the folder, stay.
        tool: previous.as_ref().and_then(|p| p.tool.clone()),
        earlier_tools: previous
            .as_ref()
            .map(|p| p.earlier_tools.clone())
            .unwrap_or_default(),
        design: waves.as_ref().map(|w| w.record.clone()),
        rejudgings: previous.map(|p| p.rejudgings).unwrap_or_default(),
    };
    record.stamp_tool();
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
    for s in &scheduled {
        let (round, stored) = match store.load_round(&s.round_id)? {
            Some(round) => {
                if let Some(w) = waves.as_mut().filter(|_| grows) {
                    w.see(&round);
                }
                (round, true)
            }
            None => match protocol.new_round(s) {
                Ok(round) => (round, false),
                Err(e) => {
                    tracing::error!(round = %s.round_id, error = %e, "round cannot be set up");
                    continue;
                }
            },
        };
        let unfinished = round.status == RoundStatus::Incomplete
            && match plays {
                Plays::Schedule | Plays::Again(None) => true,
                Plays::Again(Some(ids)) => ids.contains(&round.id),
            };
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
    match plays {
        Plays::Schedule => ctx.control.emit(EngineEvent::Started {
            tournament_id: prepared.id.clone(),
            rounds: schedule,
        }),
        // The consumer knows the schedule already: only what runs again is news.
        Plays::Again(_) => ctx.control.emit(EngineEvent::Queued {
            round_ids: to_run.iter().map(|r| r.id.clone()).collect(),
        }),
    }
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
    if let Some(w) = waves.as_ref().filter(|_| grows) {
        ctx.control.emit(design_event(w, Vec::new()));
    }
    let mut notes = Vec::new();
    let mut queue: std::collections::VecDeque<Round> = to_run.into();
    loop {
        notes.extend(
            play(&ctx, queue, limit, batches.as_ref(), commands, |round| {
                if let Some(w) = waves.as_mut() {
                    w.see(round);
                }
            })
            .await,
        );
        // The next wave, once this one has ended, unless the run is stopping.
        let Some(w) = waves.as_mut().filter(|_| grows) else {
            break;
        };
        if ctx.control.cancel.is_cancelled() || ctx.control.store.trouble().is_some() {
            break;
        }
        let chosen = w.next(ctx.control.budget_reached());
        record.schedule = w.chosen();
        record.warnings = w
            .warnings(&prepared.config)
            .into_iter()
            .chain(prepared.input_warnings.iter().cloned())
            .collect();
        record.design = Some(w.record.clone());
        store.save_tournament(&record)?;
        let mut added = Vec::new();
        queue = std::collections::VecDeque::new();
        for s in &chosen {
            match protocol.new_round(s) {
                Ok(round) => {
                    queue.push_back(round.clone());
                    added.push(ScheduledState {
                        round: Arc::new(round),
                        stored: false,
                        to_run: true,
                        text_dropped: false,
                    });
                }
                Err(e) => {
                    tracing::error!(round = %s.round_id, error = %e, "round cannot be set up")
                }
            }
        }
        ctx.control.emit(design_event(w, added));
        if queue.is_empty() {
            break;
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

/// What the consumers hear of an adaptive design's wave or stop: the rounds it adds and
/// those of the full schedule it has not chosen.
fn design_event(w: &Waves, rounds: Vec<ScheduledState>) -> EngineEvent {
    EngineEvent::Design {
        wave: u32::try_from(w.record.waves.len()).unwrap_or(u32::MAX),
        rounds,
        not_chosen: w.not_chosen(),
        stopped: w.stopped(),
    }
}
