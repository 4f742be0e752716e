//! Every exit code the binary returns, in one place; docs/guide.md's "Exit codes" table
//! lists the same codes, and a test below holds the two together.

/// Done: the command succeeded, a run whose rounds are all complete or waiting for review,
/// the UI quit with `q`, `--help`, or the reader of stdout went away (`… | head`).
pub const SUCCESS: u8 = 0;
/// The command ran but did not succeed: a run left rounds incomplete, `judgment parse`
/// read fewer than every score, `ask` failed after its retries, a write failed.
pub const FAILED: u8 = 1;
/// The user must change how the tool is called or configured, or its input.
pub const USAGE: u8 = 2;
/// A panic: a bug, its report in the log file.
pub const PANIC: u8 = 101;
/// Stopped by Ctrl-C or a signal; the same command resumes.
pub const INTERRUPTED: u8 = 130;

/// Every code above.
#[cfg(test)]
const ALL: [u8; 5] = [SUCCESS, FAILED, USAGE, PANIC, INTERRUPTED];

#[cfg(test)]
mod tests {
    use super::*;

    /// The codes in the first column of the "Exit codes" section's table.
    fn documented() -> Vec<u8> {
        let guide = include_str!("../docs/guide.md");
        let section = guide
            .split("\n## Exit codes\n")
            .nth(1)
            .expect("docs/guide.md has an Exit codes section");
        let section = section.split("\n## ").next().unwrap_or(section);
        section
            .lines()
            .filter_map(|l| l.strip_prefix("| "))
            .filter_map(|l| l.split(" |").next())
            .filter_map(|code| code.trim().parse().ok())
            .collect()
    }

    #[test]
    fn the_guide_lists_exactly_the_codes_the_binary_returns() {
        let mut code = ALL.to_vec();
        code.sort_unstable();
        let mut docs = documented();
        docs.sort_unstable();
        assert_eq!(
            docs, code,
            "docs/guide.md#exit-codes against src/exit_codes.rs"
        );
    }
}
