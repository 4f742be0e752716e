//! The command-line entry: parse, set up logging, dispatch, and map errors to exit codes
//! (`exit_codes`: 2 for usage and configuration problems, 1 for calls that failed).

mod cli;
mod commands;
mod exit_codes;
mod logging;
mod panics;

use std::process::ExitCode;

use clap::Parser;
use ethics_bowl::config::ConfigError;
use ethics_bowl::engine::PrepareError;
use ethics_bowl::inputs::DilemmaError;
use ethics_bowl::providers::SetupError;
use ethics_bowl::store::StoreError;

use cli::{Cli, Command, DilemmasAction, JudgmentAction};
use commands::UsageError;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                exit_codes::USAGE
            } else {
                exit_codes::SUCCESS
            });
        }
    };
    panics::install(cli.log_file.clone());
    // While the terminal UI owns the screen, log lines go to a file.
    let ui = match &cli.command {
        None => commands::run::can_show_ui(),
        Some(Command::Run { headless, .. }) => !headless && commands::run::can_show_ui(),
        Some(Command::Open { .. } | Command::Annotate { .. }) => commands::run::can_show_ui(),
        _ => false,
    };
    // A run, headless too, logs to the default file: its stderr carries the progress lines,
    // which already say what failed.
    let run = matches!(cli.command, None | Some(Command::Run { .. }));
    let log_file = cli
        .log_file
        .clone()
        .or_else(|| (ui || run).then(commands::default_log_file).flatten());
    if let Err(e) = logging::init(log_file.as_deref()) {
        eprintln!("error: {e}");
        return ExitCode::from(exit_codes::USAGE);
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(exit_codes::FAILED);
        }
    };
    // A panic's report has gone to the log file (see `panics`); the user gets one line.
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        runtime.block_on(dispatch(cli.command))
    }));
    match outcome {
        Ok(Ok(())) => ExitCode::from(exit_codes::SUCCESS),
        Ok(Err(e)) => {
            // The provider layer keeps keys out of every error; this is a second guard.
            let redactor = ethics_bowl::redact::remembered();
            let text = redactor.redact(&message(&e)).into_owned();
            // Into the log file too; on stderr the line below says it once.
            if log_file.is_some() {
                tracing::error!("{text}");
            }
            eprintln!("error: {text}");
            ExitCode::from(exit_code(&e))
        }
        Err(_) => {
            eprintln!("error: {}", panics::stopped(log_file.as_deref()));
            ExitCode::from(exit_codes::PANIC)
        }
    }
}

/// The error and its causes, each cause once: many of our errors already quote their
/// cause in their own message.
fn message(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let part = cause.to_string();
        if !text.contains(&part) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&part);
        }
    }
    text
}

async fn dispatch(command: Option<Command>) -> anyhow::Result<()> {
    let command = command.unwrap_or_else(default_command);
    match command {
        Command::Run {
            config,
            headless,
            theme,
            out,
            resume,
            batch,
            cache,
        } => {
            let ui = (!headless && commands::run::can_show_ui()).then_some(theme);
            let source = commands::run::Source {
                config: config.as_deref(),
                out: out.as_deref(),
                resume: resume.as_deref(),
                batch,
                cache: cache.map(|c| c.setting()),
            };
            commands::run::run(source, ui).await
        }
        Command::Init { dir, force } => commands::init::run(&dir, force),
        Command::Completions { shell } => commands::completions::run(shell),
        Command::Man { out } => commands::man::run(out.as_deref()),
        Command::Open {
            dir,
            theme,
            compare,
        } => commands::open::run(&dir, compare.as_deref(), &theme).await,
        Command::Plan {
            dir,
            detect,
            detect_total,
            json,
        } => commands::plan::run(&dir, detect, detect_total, json),
        Command::Compare { a, b, out, json } => {
            commands::compare::run(&a, &b, out.as_deref(), json)
        }
        Command::Report {
            dir,
            out,
            format,
            json,
        } => commands::report::run(&dir, out.as_deref(), &format, json),
        Command::Judgment {
            action: JudgmentAction::Parse { file, json },
        } => commands::judgment::parse(&file, json),
        Command::Rejudge {
            dir,
            config,
            out,
            batch,
            swap_sides,
            cache,
        } => {
            let options = commands::rejudge::Options {
                batch,
                swap_sides,
                cache: cache.map(|c| c.setting()),
            };
            commands::rejudge::run(&dir, &config, out.as_deref(), options).await
        }
        Command::Rounds {
            dir,
            model,
            role,
            dilemma,
            judge,
            status,
            json,
            round,
            markdown,
        } => commands::rounds::run(
            &dir,
            commands::rounds::Args {
                model: model.as_deref(),
                role,
                dilemma: dilemma.as_deref(),
                judge: judge.as_deref(),
                status,
                json,
                round: round.as_deref(),
                markdown,
            },
        ),
        Command::Dilemmas {
            action:
                Some(DilemmasAction::Convert {
                    input,
                    output,
                    layout,
                }),
            ..
        } => commands::dilemmas::convert(&input, &output, layout),
        Command::Dilemmas {
            file: Some(file),
            json,
            ..
        } => commands::dilemmas::run(&file, json),
        Command::Dilemmas { file: None, .. } => Err(UsageError(
            "give a dilemma document, or use `dilemmas convert IN OUT`".into(),
        )
        .into()),
        Command::Annotations { action } => commands::annotations::run(action),
        Command::Keys { default } => commands::keys::run(default),
        Command::Annotate {
            dir,
            annotator,
            sample,
            strata,
            seed,
            unblind,
            theme,
        } => {
            commands::annotate::run(commands::annotate::Options {
                dir: &dir,
                annotator: &annotator,
                sample,
                strata: strata.map(Into::into),
                seed,
                unblind,
                theme: &theme,
            })
            .await
        }
        Command::Export { dir, format, out } => commands::export::run(&dir, format, out.as_deref()),
        Command::Models { config, json } => commands::models::run(config.as_deref(), json),
        Command::Ask {
            model,
            prompt,
            system,
            config,
        } => commands::ask::run(config.as_deref(), &model, &system, &prompt).await,
    }
}

/// With no command: the sample tournament, in the UI on a terminal.
fn default_command() -> Command {
    Command::Run {
        config: None,
        headless: false,
        theme: None,
        out: None,
        resume: None,
        batch: false,
        cache: None,
    }
}

/// 2 when the user must change how the tool is called or configured, 130 when stopped by
/// Ctrl-C, 1 otherwise.
fn exit_code(e: &anyhow::Error) -> u8 {
    if e.chain()
        .any(|c| c.is::<commands::run::Interrupted>() || c.is::<commands::rejudge::Stopped>())
    {
        return exit_codes::INTERRUPTED;
    }
    let usage = e.chain().any(|c| {
        c.is::<ConfigError>()
            || c.is::<SetupError>()
            || c.is::<UsageError>()
            || c.is::<PrepareError>()
            || c.is::<DilemmaError>()
            || c.downcast_ref::<StoreError>()
                .is_some_and(|e| matches!(e, StoreError::InUse { .. } | StoreError::Newer { .. }))
    });
    if usage {
        exit_codes::USAGE
    } else {
        exit_codes::FAILED
    }
}
