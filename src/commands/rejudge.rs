//! `ethics-bowl rejudge`: new judges on stored exchanges, headless, with a line per round.

use std::path::Path;

use ethics_bowl::engine::{self, Change, EngineEvent, Progress};
use ethics_bowl::sanitize::sanitize;
use tokio::sync::mpsc;

/// Re-judging was stopped by Ctrl-C or SIGTERM (exit code 130).
#[derive(Debug, thiserror::Error)]
#[error(
    "stopped; every judgment that finished is stored in {}. Run the same command again to judge the rest",
    .0.display()
)]
pub struct Stopped(pub std::path::PathBuf);

/// What the command line asks of a re-judging beyond its folders.
pub struct Options {
    /// `--batch`.
    pub batch: bool,
    /// `--swap-sides`.
    pub swap_sides: bool,
    /// `--cache`, in place of the judging file's `cache`.
    pub cache: Option<ethics_bowl::config::CacheSetting>,
}

/// Judges the stored exchanges of `dir` with the judges of `config` (with `swap_sides`, the
/// sides exchanged in their prompts, into a folder of their own).
pub async fn run(
    dir: &Path,
    config: &Path,
    out: Option<&Path>,
    options: Options,
) -> anyhow::Result<()> {
    let Options {
        batch,
        swap_sides,
        cache,
    } = options;
    let sides = if swap_sides {
        engine::Sides::Swapped
    } else {
        engine::Sides::AsPlayed
    };
    let mut plan = engine::prepare_rejudge_sides(dir, config, out, batch, sides)?;
    if let Some(cache) = cache {
        plan = plan.with_cache(cache)?;
    }
    let target = plan.store.dir().to_path_buf();
    for (round, why) in &plan.skipped {
        eprintln!("skipped {round}: {why}");
    }
    eprintln!(
        "judging {} stored exchange(s) in {}",
        plan.rounds.len(),
        target.display()
    );
    let (tx, mut events) = mpsc::unbounded_channel();
    let printer = tokio::spawn(async move {
        let mut progress = Progress::default();
        let mut batch_lines = super::batch_lines::BatchLines::default();
        while let Some(event) = events.recv().await {
            for change in progress.apply(&event) {
                match change {
                    Change::NowWaiting { round_id, item } => {
                        eprintln!("review: {round_id}: {} could not be fully parsed", item.key)
                    }
                    Change::RoundFinished(round) => {
                        eprintln!("{}: {}", round.status.as_str(), round.id)
                    }
                    Change::Started { .. } | Change::Design { .. } => {}
                }
            }
            if let EngineEvent::Batches { open } = &event {
                for line in batch_lines.changes(open) {
                    eprintln!("{line}");
                }
            }
            if let EngineEvent::PhaseFailed {
                round_id,
                model,
                error,
                ..
            } = event
            {
                eprintln!(
                    "failed: {round_id}: {}: {}",
                    sanitize(&model),
                    sanitize(&error)
                );
            }
        }
    });
    // Ctrl-C or SIGTERM stops it as it stops a run: no new calls, what finished is stored.
    let (commands, mut commands_rx) = mpsc::unbounded_channel();
    let stopper = tokio::spawn(async move {
        if super::run::stop_signal().await.is_some() {
            eprintln!("\nstopping: no new calls; calls under way are abandoned…");
            let _ = commands.send(engine::EngineCommand::Cancel);
        }
    });
    let report = engine::rejudge(plan, tx, &mut commands_rx).await;
    stopper.abort();
    let report = report?;
    let _ = printer.await;
    for note in &report.notes {
        eprintln!("warning: {}", sanitize(note));
    }
    println!(
        "judged {} exchange(s); {} need review or are incomplete. Results: {}",
        report.rounds,
        report.need_attention,
        target.display()
    );
    if report.reused_from_cache > 0 {
        println!(
            "{} judge answer(s) reused from the response cache, not new samples",
            report.reused_from_cache
        );
    }
    if let Some(line) = &report.cache_passed_over {
        eprintln!("note: {line}");
    }
    let s = &report.summary;
    println!(
        "the folder now: {} rounds: {} complete, {} need review, {} incomplete, {} not started (summary.json rewritten)",
        s.rounds, s.complete, s.needs_review, s.incomplete, s.not_started
    );
    if swap_sides {
        println!(
            "the sides were swapped in every judge's prompt; the flip rate: ethics-bowl report {}",
            target.display()
        );
    }
    if report.cancelled {
        return Err(Stopped(target).into());
    }
    if report.need_attention > 0 {
        println!(
            "rerun the same command to retry what failed; review with: ethics-bowl open {}",
            target.display()
        );
    }
    Ok(())
}
