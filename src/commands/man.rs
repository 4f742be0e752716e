//! `ethics-bowl man [--out DIR]`: the manual page, generated from the command line's
//! definition (`clap_mangen`): the command's page on stdout, or with `--out` one page per
//! command and subcommand (`ethics-bowl.1`, `ethics-bowl-run.1`, …) written into DIR.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::CommandFactory;
use clap_mangen::Man;

use crate::cli::Cli;

/// Prints the command's page, or writes every page into `out`.
pub fn run(out: Option<&Path>) -> anyhow::Result<()> {
    let Some(dir) = out else {
        let mut page = Vec::new();
        Man::new(Cli::command())
            .render(&mut page)
            .context("cannot render the manual page")?;
        let mut stdout = std::io::stdout().lock();
        return stdout
            .write_all(&page)
            .and_then(|()| stdout.flush())
            .context("cannot write the manual page to stdout");
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    let mut written = Vec::new();
    write_pages(cmd, dir, &mut written)?;
    for path in &written {
        println!("{}", path.display());
    }
    println!(
        "{} pages; read one with `man {}`, or add {} to MANPATH",
        written.len(),
        dir.join("ethics-bowl.1").display(),
        dir.display()
    );
    Ok(())
}

/// Writes the page of `cmd` and of each subcommand below it, noting each file written.
fn write_pages(cmd: clap::Command, dir: &Path, written: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let page = Man::new(cmd.clone());
    let path = dir.join(page.get_filename());
    let mut bytes = Vec::new();
    page.render(&mut bytes)
        .with_context(|| format!("cannot render {}", path.display()))?;
    std::fs::write(&path, bytes).with_context(|| format!("cannot write {}", path.display()))?;
    written.push(path);
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_pages(sub.clone(), dir, written)?;
    }
    Ok(())
}
