//! `ethics-bowl run`: a whole tournament, in the terminal UI or headless (a progress bar on
//! stderr, warnings as they happen), ending with a summary table. Ctrl-C (or quitting the UI
//! while calls are in flight) stops new calls and says how to resume.

use std::path::{Path, PathBuf};

use ethics_bowl::analysis::Summary;
use ethics_bowl::domain::{ProtocolKind, RoundStatus};
use ethics_bowl::engine::{self, Change, EngineCommand, EngineEvent, Progress, WaitingKind};
use ethics_bowl::sanitize::sanitize;
use ethics_bowl::store::{Store, TournamentStatus};
use ethics_bowl::tui::{App, Mode};
use indicatif::{ProgressBar, ProgressStyle};
use tokio::sync::mpsc;

/// The run was stopped by the user (exit code 130).
#[derive(Debug, thiserror::Error)]
#[error("stopped; everything finished is stored. Resume with: ethics-bowl run --resume {}", .0.display())]
pub struct Interrupted(pub PathBuf);

/// The sample tournament, run when no file is given.
pub const SAMPLE: &str = "sample-config/tournament.toml";

/// Whether a terminal UI can be shown: stdin and stdout are terminals.
pub fn can_show_ui() -> bool {
    use std::io::IsTerminal;
    std::io::stdout().is_terminal() && std::io::stdin().is_terminal()
}

/// Runs the tournament: in the terminal UI with `ui` (holding the `--theme` given, if
/// any), else headless.
pub async fn run(
    config: Option<&Path>,
    out: Option<&Path>,
    resume: Option<&Path>,
    ui: Option<Option<String>>,
) -> anyhow::Result<()> {
    let prepared = match resume {
        Some(dir) => engine::prepare_resume(dir)?,
        None => engine::prepare(config.unwrap_or(Path::new(SAMPLE)), out)?,
    };
    for w in prepared
        .schedule
        .warnings
        .iter()
        .chain(&prepared.input_warnings)
    {
        eprintln!("warning: {w}");
    }
    let dir = prepared.dir.clone();
    let protocol = prepared.config.protocol;
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let (commands, mut commands_rx) = mpsc::unbounded_channel();
    let name = prepared.id.clone();
    if let Some(theme) = ui {
        let theme_name = theme
            .or_else(|| prepared.config.theme.clone())
            .unwrap_or_else(|| "default".into());
        let theme = super::theme(&theme_name)?;
        let serve_events = events_tx.clone();
        // After the rounds, the engine goes on storing the review queue's corrections
        // until the UI closes.
        let engine = tokio::spawn(async move {
            let report = engine::run(prepared, events_tx, &mut commands_rx).await;
            if let Ok(r) = &report
                && r.status != TournamentStatus::Cancelled
                && let Ok(store) = Store::open(&r.dir)
            {
                engine::serve_corrections(store, serve_events, &mut commands_rx).await;
            }
            report
        });
        let app = App::new(&name, Mode::Live, std::time::Instant::now());
        ethics_bowl::tui::terminal::run(app, theme, events, commands).await?;
        // Quitting while calls were in flight cancelled them; otherwise the run is over.
        let report = engine.await??;
        print_summary(&report.summary, protocol, &dir);
        return match report.status {
            TournamentStatus::Cancelled => Err(Interrupted(dir).into()),
            _ => Ok(()),
        };
    }
    let engine =
        tokio::spawn(async move { engine::run(prepared, events_tx, &mut commands_rx).await });
    let stop = commands.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("\nstopping: no new calls; calls under way are abandoned…");
            let _ = stop.send(EngineCommand::Cancel);
        }
    });

    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} rounds  {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut progress = Progress::default();
    let status_line = |progress: &Progress| {
        let t = progress.totals();
        format!(
            "{} calls in flight, {} in / {} out tokens, ${:.4}, {} to review",
            progress.under_way(),
            t.input_tokens,
            t.output_tokens,
            t.cost_usd,
            progress.waiting()
        )
    };
    while let Some(event) = events.recv().await {
        for change in progress.apply(&event) {
            match change {
                Change::Started {
                    rounds,
                    stored,
                    finished,
                    waiting,
                } => {
                    bar.set_length(rounds as u64);
                    bar.set_position(finished as u64);
                    let resumed = if stored > 0 {
                        format!(
                            " (resumed: {stored} stored, {} to run, {waiting} waiting for review)",
                            rounds - finished
                        )
                    } else {
                        String::new()
                    };
                    bar.println(format!(
                        "tournament {name}: {rounds} rounds{resumed}, results in {}",
                        dir.display()
                    ));
                }
                Change::NowWaiting { round_id, item } => bar.println(match item.kind {
                    WaitingKind::Judgment(_) => {
                        format!("review: {round_id}: {} could not be fully parsed", item.key)
                    }
                    WaitingKind::Reply => {
                        format!(
                            "review: {round_id}: the {} reply could not be read",
                            item.key
                        )
                    }
                }),
                Change::RoundFinished(round) => {
                    bar.inc(1);
                    if let (RoundStatus::Incomplete, Some(e)) = (round.status, &round.error) {
                        bar.println(format!("incomplete: {}: {}", round.id, e.message));
                    }
                }
            }
        }
        match event {
            EngineEvent::RetryScheduled {
                round_id,
                phase_type,
                attempt,
                wait,
                error,
                ..
            } => bar.println(format!(
                "retry: {round_id} {} attempt {attempt} failed ({error}); next in {:.1} s",
                phase_type.as_str(),
                wait.as_secs_f64()
            )),
            EngineEvent::BudgetReached {
                spent_usd,
                budget_usd,
            } => {
                bar.println(format!(
                    "budget reached: ${spent_usd:.4} of ${budget_usd:.2}; no new calls"
                ));
            }
            EngineEvent::Warning { message } => {
                bar.println(format!("warning: {}", sanitize(&message)));
            }
            EngineEvent::PhaseStarted { .. }
            | EngineEvent::PhaseFailed { .. }
            | EngineEvent::RoundStored { .. } => bar.set_message(status_line(&progress)),
            _ => {}
        }
    }
    bar.finish_and_clear();
    let report = engine.await??;
    print_summary(&report.summary, protocol, &dir);
    match report.status {
        TournamentStatus::Cancelled => Err(Interrupted(dir).into()),
        TournamentStatus::BudgetReached => {
            eprintln!(
                "stopped at the budget; raise budget_usd and resume with: ethics-bowl run --resume {}",
                dir.display()
            );
            Ok(())
        }
        _ => Ok(()),
    }
}

use ethics_bowl::analysis::qa_share as share;

fn print_summary(s: &Summary, protocol: ProtocolKind, dir: &Path) {
    println!(
        "\n{} rounds: {} complete, {} need review, {} incomplete; {} judgments; {} in / {} out tokens; ${:.4}",
        s.rounds,
        s.complete,
        s.needs_review,
        s.incomplete,
        s.judgments,
        s.tokens.0,
        s.tokens.1,
        s.cost_usd
    );
    match protocol {
        ProtocolKind::StructuredDebate => {
            println!("\n{:<18} {:>10} {:>10}", "model", "judgments", "win rate");
            for (model, (wins, n)) in &s.structured_wins {
                let rate = if *n == 0 {
                    "-".to_string()
                } else {
                    format!("{:.0}%", wins * 100.0 / *n as f64)
                };
                println!("{model:<18} {n:>10} {rate:>10}");
            }
            println!("\nresults: {}", dir.display());
            println!(
                "report:  ethics-bowl report {} (decision briefings in report/briefings/)",
                dir.display()
            );
        }
        ProtocolKind::QaDebate => {
            println!(
                "\n{:<14} {:>30}",
                "judge accuracy", "95% Wilson interval, n"
            );
            for (format, p) in &s.qa_accuracy {
                println!("{:<14} {:>30}", format.as_str(), share(p));
            }
            println!("\nresults: {}", dir.display());
            println!("report:  ethics-bowl report {}", dir.display());
        }
        ProtocolKind::EthicsBowl => {
            println!(
                "\n{:<18} {:>5} {:>10} {:>12} {:>12}",
                "model", "n", "mean /70", "presenting", "responding"
            );
            let mean = |m: Option<f64>| m.map_or("-".into(), |v| format!("{v:.1}"));
            let mut rows: Vec<_> = s.models.iter().collect();
            rows.sort_by(|a, b| {
                b.1.total
                    .mean
                    .unwrap_or(0.0)
                    .total_cmp(&a.1.total.mean.unwrap_or(0.0))
            });
            for (name, m) in rows {
                println!(
                    "{:<18} {:>5} {:>10} {:>12} {:>12}",
                    name,
                    m.total.n,
                    mean(m.total.mean),
                    mean(m.presenting.as_ref().and_then(|r| r.total.mean)),
                    mean(m.responding.as_ref().and_then(|r| r.total.mean))
                );
            }
            println!("\nresults: {}", dir.display());
            if s.needs_review > 0 {
                println!(
                    "rounds to review: ethics-bowl rounds {} --status needs-review",
                    dir.display()
                );
            }
        }
    }
}
