//! `ethics-bowl completions SHELL`: the shell's completion script, generated from the
//! command line's definition (`clap_complete`), on stdout.

use std::io::Write;

use anyhow::Context;
use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::Cli;

/// Prints the completion script for `shell`.
pub fn run(shell: Shell) -> anyhow::Result<()> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "ethics-bowl", &mut script);
    let mut out = std::io::stdout().lock();
    out.write_all(&script)
        .and_then(|()| out.flush())
        .context("cannot write the completions to stdout")
}
