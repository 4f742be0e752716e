//! Writing small tournaments into a temporary folder.

use std::path::{Path, PathBuf};

/// The sample dilemma document, shared by every test tournament.
pub fn sample_dilemmas() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-config/dilemmas.md")
}

/// A simulated model entry.
pub fn sim(name: &str, quality: f64, tokens_per_second: f64, malformed: f64) -> String {
    format!(
        "[[models]]\nname = \"{name}\"\nprovider = \"simulated\"\nmodel = \"{name}\"\nprice = {{ input_per_mtok = 1.0, output_per_mtok = 2.0 }}\n\
         [models.simulated]\nquality = {quality}\ntokens_per_second = {tokens_per_second}\nmalformed_judgment_rate = {malformed}\nfailure_rate = 0.0\n"
    )
}

/// Writes `models.toml` and `tournament.toml` into `dir`; returns the tournament file.
pub fn write(dir: &Path, models: &str, tournament: &str) -> PathBuf {
    let retry = "[retry]\nmax_attempts = 2\ninitial_backoff_ms = 1\nmax_backoff_ms = 2\n\n";
    std::fs::write(dir.join("models.toml"), format!("{retry}{models}")).expect("write models");
    let path = dir.join("tournament.toml");
    let body = format!(
        "name = \"test\"\nmodels_file = \"models.toml\"\ndilemma_file = \"{}\"\noutput_dir = \"{}\"\n{tournament}",
        sample_dilemmas().display(),
        dir.join("results").display()
    );
    std::fs::write(&path, body).expect("write tournament");
    path
}
