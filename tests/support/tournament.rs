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

/// A model entry answered by the test server at `server` in OpenAI's wire format, with
/// `extra` keys.
pub fn remote(name: &str, server: &wiremock::MockServer, extra: &str) -> String {
    format!(
        "[[models]]\nname = \"{name}\"\nprovider = \"openai-compatible\"\nmodel = \"x\"\nbase_url = \"{}/v1\"\n{extra}",
        server.uri()
    )
}

/// Writes `models.toml` (with quick retries) and `tournament.toml` (`body` after the name,
/// models file and results folder) into `dir`; returns the tournament file.
pub fn write_tournament(dir: &Path, models: &str, body: &str) -> PathBuf {
    let retry = "[retry]\nmax_attempts = 2\ninitial_backoff_ms = 1\nmax_backoff_ms = 2\n\n";
    std::fs::write(dir.join("models.toml"), format!("{retry}{models}")).expect("write models");
    let path = dir.join("tournament.toml");
    let body = format!(
        "name = \"test\"\nmodels_file = \"models.toml\"\noutput_dir = \"{}\"\n{body}",
        dir.join("results").display()
    );
    std::fs::write(&path, body).expect("write tournament");
    path
}

/// An Ethics Bowl tournament over the sample dilemmas (see [`write_tournament`]).
pub fn write(dir: &Path, models: &str, tournament: &str) -> PathBuf {
    let body = format!(
        "dilemma_file = \"{}\"\n{tournament}",
        sample_dilemmas().display()
    );
    write_tournament(dir, models, &body)
}

/// A path inside the crate (sample configs, sample data).
pub fn manifest(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// Prepares and runs a tournament (results under `out` when given); returns how it ended
/// and every event it sent.
pub async fn run_collecting(
    config: &Path,
    out: Option<&Path>,
) -> (
    ethics_bowl::engine::RunReport,
    Vec<ethics_bowl::engine::EngineEvent>,
) {
    use ethics_bowl::engine;
    let prepared = engine::prepare(config, out).expect("prepares");
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let (_commands, mut commands_rx) = tokio::sync::mpsc::unbounded_channel();
    let report = engine::run(prepared, tx, &mut commands_rx)
        .await
        .expect("runs");
    let mut events = Vec::new();
    while let Ok(e) = rx.try_recv() {
        events.push(e);
    }
    (report, events)
}

/// Every round a run stored (none unreadable).
pub fn stored_rounds(report: &ethics_bowl::engine::RunReport) -> Vec<ethics_bowl::domain::Round> {
    use ethics_bowl::store::{RoundFilter, Store};
    let (rounds, errors) = Store::open(&report.dir)
        .expect("results folder")
        .load_rounds(&RoundFilter::default())
        .expect("rounds load");
    assert!(errors.is_empty(), "{errors:?}");
    rounds
}
