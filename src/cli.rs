//! The command line, as clap definitions.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// Run tournaments in which language models reason about hard questions in front of judge
/// models.
#[derive(Debug, Parser)]
#[command(name = "ethics-bowl", version, about)]
pub struct Cli {
    /// Write log lines to this file instead of stderr.
    #[arg(long, global = true, value_name = "FILE")]
    pub log_file: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the configured models, their endpoints, and whether each key variable is set.
    Models {
        /// The models file (default: the user's models.toml if present, else
        /// sample-config/models.toml).
        #[arg(long, env = "ETHICS_BOWL_MODELS", value_name = "FILE")]
        config: Option<PathBuf>,
    },
    /// Stream one answer from a configured model: check a new key or endpoint.
    Ask {
        /// The model's name in the models file.
        model: String,
        /// The prompt; `-` reads it from standard input.
        prompt: String,
        /// A system prompt.
        #[arg(long, default_value = "You are a helpful assistant.")]
        system: String,
        /// The models file.
        #[arg(long, env = "ETHICS_BOWL_MODELS", value_name = "FILE")]
        config: Option<PathBuf>,
    },
}
