//! Re-judging stored exchanges (`ethics-bowl rejudge`): new judges, single or a panel, score
//! transcripts already on disk without the debaters being called again, for every protocol
//! (each protocol's judges read what its rounds store; only the Ethics Bowl needs its
//! dilemma document). Added judgments go beside the earlier ones under their own judge ids,
//! each stored as it arrives, so a stopped re-judging resumes like a run. Works on the Python
//! predecessor's folders too.
//!
//! With the sides swapped ([`Sides::Swapped`], `rejudge --swap-sides`), the judges read each
//! exchange with its two sides exchanged in their prompt, and their judgments, mapped back
//! to the sides as played, go to a copy of the folder (`--out`, by default
//! [`swapped_folder`]) whose rounds keep their debate and none of their earlier judgments:
//! every figure of that folder is then about swapped judgments only, and none is ever
//! averaged with the originals as if it were another judge. `analysis::flip` pairs the two
//! folders.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use crate::build_info::ToolInfo;
use crate::config::{ConfigError, JudgingMode, ModelsConfig, PanelConfig, TournamentConfig};
use crate::domain::{ProtocolKind, Round, RoundStatus, ScheduledRound, now_rfc3339};
use crate::protocols::panel::Panel;
use crate::protocols::strategy::{Judges, JudgingStrategy};
use crate::protocols::{Protocol, Rejudging, spec, stored};
use crate::providers::ModelRegistry;
use crate::store::{
    RejudgingRecord, RoundFilter, Store, StoreError, TournamentRecord, TournamentStatus,
};

use super::context::RoundContext;
use super::control::Control;
use super::error::EngineError;
use super::events::{EngineCommand, EngineEvent};
use super::prepare::PrepareError;
use super::scheduler::play;
use super::summary_file::refresh_summary;

/// The judging file (`JUDGING.toml`): who judges, and where the models and dilemmas are.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgingConfig {
    /// The models file, relative to this file.
    #[serde(default = "models_file")]
    pub models_file: PathBuf,
    /// The dilemma document, relative to this file; by default the one the tournament used
    /// (Ethics Bowl rounds only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dilemma_file: Option<PathBuf>,
    /// `"all"` (each judge alone; `"single"` means the same) or `"panel"`.
    #[serde(default = "all")]
    pub judging: JudgingMode,
    /// The single judges.
    #[serde(default)]
    pub judges: Vec<String>,
    /// The panel, when `judging = "panel"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub panel: Option<PanelConfig>,
    /// The judges see model names (false: "Team A" / "Team B" only).
    #[serde(default = "yes")]
    pub judge_sees_model_names: bool,
    /// Rounds judged at once.
    #[serde(default = "concurrency")]
    pub max_concurrency: u32,
    /// Times a judge's incomplete answer (single or on the panel) is sent back before the
    /// round waits for a person, as in the tournament file (0 to 3).
    #[serde(default = "one")]
    pub judge_corrections: u32,
    /// Batch mode: the judges' calls go through their provider's batch API (openai,
    /// anthropic and google judges), as in the tournament file.
    #[serde(default)]
    pub batch: bool,
    /// The longest wait between two polls of an open batch, in seconds.
    #[serde(default = "poll_max")]
    pub batch_poll_max_s: f64,
    /// How long no new call may arrive before the calls gathered go as one batch, in
    /// seconds.
    #[serde(default = "collect")]
    pub batch_collect_s: f64,
    /// The judges' sampling temperature, in place of the models' own (as the tournament
    /// file's `[temperatures] judges`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_temperature: Option<f64>,
    /// The response cache for development, as in the tournament file (`true`,
    /// `"any-temperature"`; off by default).
    #[serde(default, skip_serializing_if = "crate::config::CacheSetting::is_off")]
    pub cache: crate::config::CacheSetting,
    /// The response cache's folder, as in the tournament file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_dir: Option<PathBuf>,
}

fn collect() -> f64 {
    2.0
}

fn poll_max() -> f64 {
    60.0
}

fn models_file() -> PathBuf {
    PathBuf::from("models.toml")
}
fn all() -> JudgingMode {
    JudgingMode::All
}
fn yes() -> bool {
    true
}
fn concurrency() -> u32 {
    8
}
fn one() -> u32 {
    1
}

/// A checked re-judging, ready to run.
pub struct RejudgePlan {
    /// Where the judgments are stored.
    pub store: Store,
    /// The rounds to judge.
    pub rounds: Vec<Round>,
    /// Rounds left alone, with why.
    pub skipped: Vec<(String, String)>,
    ctx_parts: (Arc<dyn Protocol>, JudgingStrategy, ModelRegistry),
    concurrency: usize,
    /// The judges whose calls go through their provider's batch API, and how batches
    /// are polled.
    batch: (Vec<String>, crate::providers::BatchSettings),
    judge_temperature: Option<f64>,
    /// The judging file and its `cache_dir`, for `--cache`.
    cache_source: (PathBuf, Option<PathBuf>),
    /// The folder's `tournament.json` with this re-judging recorded, written as the judging
    /// starts (none when the source has no record and none could be rebuilt).
    record: Option<TournamentRecord>,
}

/// What a re-judging did.
#[derive(Debug, Clone, PartialEq)]
pub struct RejudgeReport {
    /// Rounds judged.
    pub rounds: usize,
    /// Of those, how many still need review or are incomplete.
    pub need_attention: usize,
    /// The folder's summary, rewritten from its rounds afterwards.
    pub summary: crate::analysis::Summary,
    /// Whether a person stopped it ([`EngineCommand::Cancel`]) before every round was judged.
    pub cancelled: bool,
    /// What the person must hear afterwards (open batches the provider would not cancel).
    pub notes: Vec<String>,
    /// Judges' answers this re-judging took from the response cache instead of calling.
    pub reused_from_cache: u64,
    /// Why some judge requests went without the response cache (their temperature), when
    /// any did: said after the rejudge.
    pub cache_passed_over: Option<String>,
}

impl RejudgePlan {
    /// Uses the response cache as `setting` says (`--cache`), in place of the judging
    /// file's `cache`; its folder is still the file's `cache_dir` when it names one.
    pub fn with_cache(self, setting: crate::config::CacheSetting) -> Result<Self, PrepareError> {
        let (path, dir) = &self.cache_source;
        let cache = super::prepare::response_cache(setting, dir.as_deref(), path)?;
        self.ctx_parts.2.use_response_cache(cache);
        Ok(self)
    }
}

fn invalid(path: &Path, key: &str, message: String, fix: &str) -> PrepareError {
    PrepareError::Config(ConfigError::invalid(
        path,
        format!("key \"{key}\""),
        message,
        fix,
    ))
}

/// How the judges of a re-judging read each exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sides {
    /// As it was played.
    #[default]
    AsPlayed,
    /// With its two sides exchanged in the prompt (`rejudge --swap-sides`), to measure how
    /// often a verdict follows the place a side is shown in.
    Swapped,
}

pub use crate::store::swapped_folder;

/// Checks the judging file and the results folder; with `out`, copies the rounds there first
/// so the original folder is never written.
pub fn prepare_rejudge(
    results: &Path,
    config_path: &Path,
    out: Option<&Path>,
    batch: bool,
) -> Result<RejudgePlan, PrepareError> {
    prepare_rejudge_sides(results, config_path, out, batch, Sides::AsPlayed)
}

/// [`prepare_rejudge`], the judges reading the exchanges as `sides` says: swapped, the
/// judging file must name single judges, and the judgments go to `out` (by default
/// [`swapped_folder`]), never into the folder judged, into copies of its rounds without
/// their earlier judgments.
pub fn prepare_rejudge_sides(
    results: &Path,
    config_path: &Path,
    out: Option<&Path>,
    batch: bool,
    sides: Sides,
) -> Result<RejudgePlan, PrepareError> {
    let swap = sides == Sides::Swapped;
    let default_out = swapped_folder(results);
    let out = match out {
        None if swap => Some(default_out.as_path()),
        out => out,
    };
    let text = std::fs::read_to_string(config_path).map_err(|source| {
        PrepareError::Config(ConfigError::Read {
            path: config_path.to_path_buf(),
            source,
        })
    })?;
    let config: JudgingConfig = toml::from_str(&text).map_err(|e| {
        PrepareError::Config(ConfigError::invalid(
            config_path,
            "the file".to_string(),
            e.message().trim().to_string(),
            "compare with sample-config/rejudge-panel.toml",
        ))
    })?;
    if config.judge_corrections > 3 {
        return Err(invalid(
            config_path,
            "judge_corrections",
            format!(
                "{} correction turns per judge is more than 3",
                config.judge_corrections
            ),
            "use 0 (off), 1 (the default) or up to 3",
        ));
    }
    let (strategy, judges) = match (config.judging, &config.panel) {
        (JudgingMode::Panel, Some(panel)) => {
            if let Some((key, message, fix)) = panel.problem() {
                return Err(invalid(config_path, &key, message, &fix));
            }
            (
                JudgingStrategy::new(Judges::Panel(Panel::new(panel.clone())))
                    .with_corrections(config.judge_corrections),
                panel.models(),
            )
        }
        (JudgingMode::Panel, None) => {
            return Err(invalid(
                config_path,
                "judging",
                "is \"panel\" but there is no [panel] table".into(),
                "add [panel] with [[panel.judges]]",
            ));
        }
        (JudgingMode::Rotate, _) => {
            return Err(invalid(
                config_path,
                "judging",
                "\"rotate\" does not apply to re-judging".into(),
                "use \"all\" (each judge scores every exchange) or \"panel\"",
            ));
        }
        (JudgingMode::All, _) if config.judges.is_empty() => {
            return Err(invalid(
                config_path,
                "judges",
                "no judges".into(),
                "list the judging models, or use judging = \"panel\"",
            ));
        }
        (JudgingMode::All, _) => (
            JudgingStrategy::new(Judges::Added(config.judges.clone()))
                .with_corrections(config.judge_corrections),
            config.judges.clone(),
        ),
    };
    if swap && config.judging != JudgingMode::All {
        return Err(invalid(
            config_path,
            "judging",
            "--swap-sides takes single judges, each reading the exchange alone".into(),
            "use judging = \"all\" with the judges listed",
        ));
    }
    let strategy = if swap {
        strategy.with_swapped_sides()
    } else {
        strategy
    };
    if let (true, Some(out)) = (swap, out) {
        let same = match (std::fs::canonicalize(results), std::fs::canonicalize(out)) {
            (Ok(a), Ok(b)) => a == b,
            _ => results == out,
        };
        if same {
            return Err(PrepareError::Folder(StoreError::Io {
                path: out.to_path_buf(),
                source: std::io::Error::other(
                    "--swap-sides writes its judgments to a folder of their own, not into \
                     the folder it judges; give another --out",
                ),
            }));
        }
    }
    let models_path = TournamentConfig::resolve(config_path, &config.models_file);
    let models = ModelsConfig::load(&models_path)?;
    for name in &judges {
        if models.get(name).is_none() {
            return Err(invalid(
                config_path,
                "judges",
                format!(
                    "model \"{name}\" is not defined in {}",
                    models_path.display()
                ),
                &format!(
                    "define it there, or use one of: {}",
                    models.names().join(", ")
                ),
            ));
        }
    }
    let registry = ModelRegistry::build(
        &models,
        judges.iter().map(String::as_str),
        &crate::protocols::simulated_behaviours(),
    )?;
    registry.use_response_cache(super::prepare::response_cache(
        config.cache,
        config.cache_dir.as_deref(),
        config_path,
    )?);
    // A folder with batches still open stays batched: they are collected, not sent again.
    let batch_on =
        config.batch || batch || crate::providers::batch::any_open(&results.join("batches"));
    let (batch_models, batch_warnings) =
        super::batching::batched_models(batch_on, &models, judges.iter().map(String::as_str));
    if batch_on && batch_models.is_empty() {
        return Err(invalid(
            config_path,
            "batch",
            format!(
                "none of the judges ({}) has a batch API here (only openai, anthropic and google do)",
                judges.join(", ")
            ),
            "judge without batch mode, or use judges of those providers",
        ));
    }
    for w in batch_warnings {
        tracing::warn!("{w}");
    }
    if !(config.batch_collect_s.is_finite()
        && config.batch_collect_s > 0.0
        && config.batch_collect_s <= 60.0)
    {
        return Err(invalid(
            config_path,
            "batch_collect_s",
            format!(
                "{} is not more than 0 and at most 60 seconds (0 would send each call in a batch of its own)",
                config.batch_collect_s
            ),
            "use e.g. batch_collect_s = 2",
        ));
    }
    if let Err((_, message)) = (crate::config::RoleTemperatures {
        debaters: None,
        judges: config.judge_temperature,
    })
    .check()
    {
        return Err(invalid(
            config_path,
            "judge_temperature",
            message,
            "use e.g. judge_temperature = 0.2",
        ));
    }
    if !crate::config::seconds_in_range(config.batch_poll_max_s, true) {
        return Err(invalid(
            config_path,
            "batch_poll_max_s",
            format!(
                "{} is not a positive number of seconds up to a week (604800)",
                config.batch_poll_max_s
            ),
            "use e.g. batch_poll_max_s = 60",
        ));
    }
    let batch_settings = crate::providers::BatchSettings {
        poll_max: crate::config::seconds(config.batch_poll_max_s),
        collect: crate::config::seconds(config.batch_collect_s),
        ..Default::default()
    };
    let source = Store::open(results)?;
    // The folder written is this process's alone before anything is read from it.
    let store = match out {
        Some(out) => Store::open_for_writing(out),
        None => source.clone().locked(),
    }
    .map_err(PrepareError::Folder)?;
    let (stored_rounds, errors) = source.load_rounds(&RoundFilter::default())?;
    if let Some(e) = errors.into_iter().next() {
        return Err(PrepareError::Resume(e));
    }
    let protocol = protocol_of(&source, &stored_rounds, &config, config_path, results)?;
    if out.is_some() {
        for round in &stored_rounds {
            if store.load_round(&round.id)?.is_none() {
                if swap {
                    store.save_round(&unjudged(round))?;
                } else {
                    store.save_round(round)?;
                }
            }
        }
    }
    let entry = RejudgingRecord {
        source: std::fs::canonicalize(results).unwrap_or_else(|_| results.to_path_buf()),
        in_place: out.is_none(),
        started_at: now_rfc3339(),
        config_file: std::fs::canonicalize(config_path)
            .unwrap_or_else(|_| config_path.to_path_buf()),
        judging: config.judging,
        judges: judges.clone(),
        panel_judges: match (config.judging, &config.panel) {
            (JudgingMode::Panel, Some(panel)) => {
                panel.judges.iter().map(|j| j.persona_id.clone()).collect()
            }
            _ => Vec::new(),
        },
        judge_sees_model_names: protocol.judge_sees_model_names(),
        judge_temperature: config.judge_temperature,
        swap_sides: swap,
        tool: ToolInfo::current(),
    };
    let record = manifest(&source, &store, &stored_rounds, entry)?;
    let mut rounds = Vec::new();
    let mut skipped = Vec::new();
    for stored_round in stored_rounds {
        let mut round = store.load_round(&stored_round.id)?.unwrap_or(stored_round);
        let unswappable = swap.then(|| protocol.cannot_swap(&round)).flatten();
        if let Some(why) = not_judgeable(protocol.as_ref(), &round, &config).or(unswappable) {
            skipped.push((round.id.clone(), why));
            continue;
        }
        for judge in &judges {
            if !round.judge_models.contains(judge) {
                round.judge_models.push(judge.clone());
            }
        }
        round.error = None;
        rounds.push(round);
    }
    Ok(RejudgePlan {
        store,
        rounds,
        skipped,
        ctx_parts: (protocol, strategy, registry),
        concurrency: config.max_concurrency.max(1) as usize,
        batch: (batch_models, batch_settings),
        judge_temperature: config.judge_temperature,
        cache_source: (config_path.to_path_buf(), config.cache_dir.clone()),
        record,
    })
}

/// A stored round as `--swap-sides` copies it: its debate without its judges' calls,
/// judgments or panel, so the copy holds the swapped judgments alone.
fn unjudged(round: &Round) -> Round {
    let mut round = round.clone();
    round.phases.retain(|p| !p.phase_type.is_judging());
    round.judgments.clear();
    round.scores = None;
    round.panel = None;
    round.judge_models.clear();
    round.status = RoundStatus::Incomplete;
    round.error = None;
    round
}

/// The written folder's `tournament.json` with `entry` added: its own record when it has
/// one (a stopped re-judging taken up again, or re-judging in place), else the source's
/// (`--out`: every reader of the copy finds the tournament's configuration, schedule and
/// warnings as the source has them), else one rebuilt from the rounds (a folder of the
/// Python predecessor has none). Stamped with this build; `entry` is not added again when
/// the last re-judging recorded is the same one, taken up again.
fn manifest(
    source: &Store,
    target: &Store,
    rounds: &[Round],
    entry: RejudgingRecord,
) -> Result<Option<TournamentRecord>, StoreError> {
    let record = match target.load_tournament()? {
        Some(record) => Some(record),
        None => match source.load_tournament()? {
            Some(record) => Some(record),
            None => rebuilt(target.dir(), source.dir(), rounds),
        },
    };
    Ok(record.map(|mut record| {
        record.stamp_tool();
        if !record.rejudgings.last().is_some_and(|r| r.same_as(&entry)) {
            record.rejudgings.push(entry);
        }
        record
    }))
}

/// A record for a folder that has none, from its rounds: the protocol, the models, the
/// items and the schedule as played (with the judges each round had), and a warning that
/// the tournament's configuration is not known. None when no configuration can be made of
/// them (never, in practice).
fn rebuilt(target: &Path, source: &Path, rounds: &[Round]) -> Option<TournamentRecord> {
    let kind = rounds
        .first()
        .map_or_else(ProtocolKind::default, Round::kind);
    let mut models: Vec<String> = Vec::new();
    let mut judges: Vec<String> = Vec::new();
    let mut items: Vec<String> = Vec::new();
    for r in rounds {
        for m in [&r.team_a_model, &r.team_b_model] {
            if !m.is_empty() && !models.contains(m) {
                models.push(m.clone());
            }
        }
        for j in &r.judge_models {
            if !judges.contains(j) {
                judges.push(j.clone());
            }
        }
        if !items.contains(&r.dilemma_id) {
            items.push(r.dilemma_id.clone());
        }
    }
    let id = target.file_name().map_or_else(
        || "rejudged".to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let config: TournamentConfig = serde_json::from_value(serde_json::json!({
        "name": id,
        "protocol": kind,
        "models": models,
        "judges": judges,
    }))
    .map_err(|e| tracing::warn!(error = %e, "no tournament.json could be rebuilt"))
    .ok()?;
    Some(TournamentRecord {
        id,
        protocol: kind,
        status: TournamentStatus::Finished,
        started_at: rounds
            .iter()
            .map(|r| r.timestamp.as_str())
            .min()
            .map_or_else(now_rfc3339, str::to_string),
        finished_at: None,
        config_file: PathBuf::new(),
        config,
        models: Vec::new(),
        dilemma_ids: items,
        schedule: rounds
            .iter()
            .map(|r| ScheduledRound {
                round_id: r.id.clone(),
                dilemma_id: r.dilemma_id.clone(),
                repetition: r.repetition,
                team_a: r.team_a_model.clone(),
                team_b: r.team_b_model.clone(),
                judges: r.judge_models.clone(),
                format: r.qa().map(|q| q.format),
                relation: r.qa().and_then(|q| q.relation.clone()),
            })
            .collect(),
        warnings: vec![format!(
            "tournament.json rebuilt by `rejudge` from the rounds of {}, which has none (a \
             folder of the Python predecessor, or one whose record was lost): the \
             tournament's configuration is not known",
            source.display()
        )],
        qa_sample: Vec::new(),
        design: None,
        tool: None,
        earlier_tools: Vec::new(),
        rejudgings: Vec::new(),
    })
}

/// The protocol the folder's rounds were played in, able to build its judges' requests (its
/// spec's [`crate::protocols::ProtocolSpec::rejudging`]: the Ethics Bowl loads its dilemma
/// document again, the others read everything from the rounds themselves). A folder mixing
/// protocols is refused.
fn protocol_of(
    source: &Store,
    rounds: &[Round],
    config: &JudgingConfig,
    config_path: &Path,
    results: &Path,
) -> Result<Arc<dyn Protocol>, PrepareError> {
    let mut kinds: Vec<ProtocolKind> = rounds.iter().map(Round::kind).collect();
    kinds.sort_by_key(|k| k.to_string());
    kinds.dedup();
    let kind = match kinds.as_slice() {
        [] => return Ok(Arc::from(stored(ProtocolKind::default()))),
        [kind] => *kind,
        several => {
            let names: Vec<String> = several.iter().map(ToString::to_string).collect();
            return Err(PrepareError::Resume(StoreError::Io {
                path: results.to_path_buf(),
                source: std::io::Error::other(format!(
                    "the folder holds rounds of several protocols ({}); re-judge one \
                     tournament's folder at a time",
                    names.join(", ")
                )),
            }));
        }
    };
    Ok(spec(kind).rejudging(&Rejudging {
        config_path,
        results,
        source,
        dilemma_file: config.dilemma_file.as_deref(),
        judge_sees_model_names: config.judge_sees_model_names,
    })?)
}

/// Why a stored round cannot be judged as it is, if it cannot: its exchange is not complete,
/// its dilemma is not loaded, or another panel judged it.
fn not_judgeable(protocol: &dyn Protocol, round: &Round, config: &JudgingConfig) -> Option<String> {
    let mut missing: Vec<&str> = Vec::new();
    let unfinished = protocol
        .debate_steps(round)
        .into_iter()
        .filter(|s| !s.is_done(round))
        .map(|s| s.phase_type);
    let unread = protocol
        .judged_after(round)
        .into_iter()
        .filter(|r| !r.is_in(round))
        .map(|r| r.phase_type);
    for phase in unfinished.chain(unread) {
        if !missing.contains(&phase.as_str()) {
            missing.push(phase.as_str());
        }
    }
    if !missing.is_empty() {
        return Some(format!("no {}", missing.join(", ")));
    }
    // What judges read can be built (the Ethics Bowl's dilemma is loaded).
    if let Err(e) = protocol.panel_material(round) {
        return Some(e.to_string());
    }
    if let (Some(existing), Some(panel)) = (&round.panel, &config.panel) {
        let same = existing
            .judges
            .iter()
            .map(|s| &s.persona_id)
            .eq(panel.judges.iter().map(|j| &j.persona_id));
        if !same {
            return Some("already judged by another panel".into());
        }
    }
    None
}

/// Runs the new judges over the planned rounds through the run's scheduler (pause, cancel,
/// retries, panels, the files beside each round, the same failure handling); events go to
/// `events`, and `commands` are answered until they close.
pub async fn rejudge(
    plan: RejudgePlan,
    events: mpsc::UnboundedSender<EngineEvent>,
    commands: &mut mpsc::UnboundedReceiver<EngineCommand>,
) -> Result<RejudgeReport, EngineError> {
    // The folder says it was re-judged, by what and from where, before the first judgment.
    if let Some(record) = &plan.record {
        plan.store.save_tournament(record)?;
    }
    let (protocol, judging, registry) = plan.ctx_parts;
    let (batch_models, batch_settings) = plan.batch;
    let batches = super::batching::start(
        &registry,
        &batch_models,
        plan.store.dir(),
        batch_settings,
        events.clone(),
    )?;
    // In batch mode every round is judged at once, so the judges' calls share batches.
    let concurrency = match &batches {
        Some(_) => usize::MAX,
        None => plan.concurrency,
    };
    let ctx = Arc::new(RoundContext {
        protocol,
        judging,
        registry,
        store: plan.store.clone(),
        control: Control::new(
            None,
            events,
            super::store_guard::StoreGuard::new(plan.store.dir(), 0),
        ),
        temperatures: crate::config::RoleTemperatures {
            debaters: None,
            judges: plan.judge_temperature,
        },
    });
    let total = plan.rounds.len();
    let mut need_attention = 0;
    let notes = play(
        &ctx,
        plan.rounds.into(),
        concurrency,
        batches.as_ref(),
        commands,
        |round| {
            if round.status != RoundStatus::Complete {
                need_attention += 1;
            }
        },
    )
    .await;
    if let Some(b) = &batches {
        b.batching.settle().await;
    }
    drop(batches);
    if let Some(trouble) = ctx.control.store.trouble() {
        return Err(EngineError::StoreStopped {
            trouble,
            lost: ctx.control.store.lost(),
        });
    }
    let summary = refresh_summary(&plan.store)?;
    Ok(RejudgeReport {
        rounds: total,
        need_attention,
        summary,
        cancelled: ctx.control.cancel.is_cancelled(),
        notes,
        reused_from_cache: ctx.registry.response_cache().map_or(0, |c| c.reused()),
        cache_passed_over: ctx
            .registry
            .response_cache()
            .and_then(|c| c.passed_over_line()),
    })
}
