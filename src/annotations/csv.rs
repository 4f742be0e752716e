//! The spreadsheet form of human judgments: long and plain, one judgment's cell per row.
//!
//! - Ethics Bowl: `round_id,team,criterion,score` (team `A` or `B`, the criterion's key as
//!   in round files, score an integer 1–10), fourteen rows per round;
//! - question-answer debate: `round_id,answer,confidence` (answer `A` or `B`, or for a
//!   three-way baseline the label `proved`, `disproved` or `unknown`; confidence 0–100);
//! - structured debate: `round_id,winner` (`pro`, `con` or `tie`), and optionally each
//!   argument's standing in rows of their own: `argument` (`PRO-1`) and `standing`
//!   (`upheld`, `partially_upheld`, `refuted`, `uncertain`), the winner left empty there.
//!
//! Each may add a `justification` column; an `annotator` column (first in exports) says
//! whose each row is. An import is checked whole before anything is written: every problem
//! is reported with its line and column ([`CsvErrors`]).

use std::collections::{BTreeMap, HashMap};

use super::{
    ANNOTATION_SCHEMA_VERSION, Annotation, AnnotationError, ArgumentStanding, CriterionNote,
    HumanJudgment, QaAnswer, RoundInfo, Via, Winner,
};
use crate::domain::{Criterion, Label, ProtocolKind, Scores, Standing, Team};

/// One problem in a spreadsheet, at its line and column (both from 1; the header is line 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvProblem {
    /// The line the row starts on.
    pub line: u64,
    /// The column, counted from 1.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

/// A spreadsheet refused: every problem found, each on its own line as
/// `FILE:LINE:COLUMN: message`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct CsvErrors {
    /// The file's name, as the problems cite it.
    pub file: String,
    /// The problems, by line and column.
    pub problems: Vec<CsvProblem>,
}

impl std::fmt::Display for CsvErrors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.problems.len();
        write!(
            f,
            "{}: {n} problem{} found; nothing was written",
            self.file,
            if n == 1 { "" } else { "s" }
        )?;
        for p in &self.problems {
            write!(f, "\n{}:{}:{}: {}", self.file, p.line, p.column, p.message)?;
        }
        Ok(())
    }
}

/// How an import's judgments are recorded.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// Whose judgments (needed unless the file has an `annotator` column, and then the
    /// column must agree with it).
    pub annotator: Option<String>,
    /// Whether the annotator judged with the debaters' model names hidden.
    pub blind: bool,
    /// When the judgments are stored (RFC 3339).
    pub written_at: String,
}

/// The columns a protocol's rows must have, after `round_id`.
pub fn columns(protocol: ProtocolKind) -> &'static [&'static str] {
    match protocol {
        ProtocolKind::EthicsBowl => &["team", "criterion", "score"],
        ProtocolKind::QaDebate => &["answer", "confidence"],
        ProtocolKind::StructuredDebate => &["winner"],
    }
}

/// The columns a protocol's rows may have besides [`columns`] and the common optional ones:
/// the structured debate's standing rows.
pub fn optional_columns(protocol: ProtocolKind) -> &'static [&'static str] {
    match protocol {
        ProtocolKind::StructuredDebate => &[ARGUMENT, STANDING],
        ProtocolKind::EthicsBowl | ProtocolKind::QaDebate => &[],
    }
}

/// A structured debate's argument id, on a standing row.
const ARGUMENT: &str = "argument";
/// The argument's standing.
const STANDING: &str = "standing";

/// The optional columns.
const ANNOTATOR: &str = "annotator";
const JUSTIFICATION: &str = "justification";
const ROUND_ID: &str = "round_id";

/// The header's columns, by name, with their index.
struct Header {
    protocol: ProtocolKind,
    index: HashMap<String, usize>,
    width: usize,
}

impl Header {
    fn get(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }
}

/// Collects problems.
#[derive(Default)]
struct Problems(Vec<CsvProblem>);

impl Problems {
    fn add(&mut self, line: u64, column: usize, message: impl Into<String>) {
        self.0.push(CsvProblem {
            line,
            column,
            message: message.into(),
        });
    }
}

/// Reads the header: which protocol's columns it has, every required column present, no
/// unknown or repeated one.
fn read_header(record: &csv::StringRecord, line: u64, problems: &mut Problems) -> Option<Header> {
    let names: Vec<String> = record.iter().map(|c| c.trim().to_lowercase()).collect();
    let has = |protocol: ProtocolKind| {
        columns(protocol)
            .iter()
            .any(|c| names.iter().any(|n| n == c))
    };
    let found: Vec<ProtocolKind> = ProtocolKind::ALL.into_iter().filter(|&k| has(k)).collect();
    let protocol = match found.as_slice() {
        [one] => *one,
        [] => {
            problems.add(
                line,
                1,
                "the header names no protocol's columns: give round_id,team,criterion,score \
                 (Ethics Bowl), round_id,answer,confidence (question-answer debate) or \
                 round_id,winner (structured debate)",
            );
            return None;
        }
        _ => {
            problems.add(
                line,
                1,
                "the header mixes the columns of several protocols; a file holds one \
                 protocol's judgments",
            );
            return None;
        }
    };
    let mut index = HashMap::new();
    let mut ok = true;
    let allowed: Vec<&str> = [ANNOTATOR, ROUND_ID, JUSTIFICATION]
        .into_iter()
        .chain(columns(protocol).iter().copied())
        .chain(optional_columns(protocol).iter().copied())
        .collect();
    for (i, name) in names.iter().enumerate() {
        if !allowed.contains(&name.as_str()) {
            problems.add(
                line,
                i + 1,
                format!(
                    "unknown column \"{name}\" (this file's columns: {})",
                    allowed.join(", ")
                ),
            );
            ok = false;
        } else if index.insert(name.clone(), i).is_some() {
            problems.add(line, i + 1, format!("column \"{name}\" appears twice"));
            ok = false;
        }
    }
    for required in std::iter::once(&ROUND_ID).chain(columns(protocol)) {
        if !index.contains_key(*required) {
            problems.add(
                line,
                names.len() + 1,
                format!("the header has no \"{required}\" column"),
            );
            ok = false;
        }
    }
    ok.then_some(Header {
        protocol,
        index,
        width: names.len(),
    })
}

/// One round's judgment being gathered from its rows.
struct Gathering {
    /// The line of its first row, and the column its completeness is reported at.
    line: u64,
    column: usize,
    team_a: Scores,
    team_b: Scores,
    notes: Vec<CriterionNote>,
    /// The judgment, for the protocols with one row per round (the structured debate's
    /// winner row), and the line it was given on.
    single: Option<(HumanJudgment, u64)>,
    /// A structured debate's standings by argument id, with the line each was given on.
    standings: BTreeMap<String, (Standing, Option<String>, u64)>,
}

/// Reads and checks a whole spreadsheet against the rounds of its results folder: every row
/// of a known, finished round of the header's protocol, every cell valid, every Ethics Bowl
/// round complete (seven criteria for each team), nothing twice. Returns the judgments to
/// store, by annotator then round, or every problem found.
pub fn parse(
    file: &str,
    text: &str,
    rounds: &[RoundInfo],
    options: &ImportOptions,
) -> Result<Vec<Annotation>, CsvErrors> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let by_id: HashMap<&str, &RoundInfo> = rounds.iter().map(|r| (r.id.as_str(), r)).collect();
    let mut problems = Problems::default();
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let mut header: Option<Header> = None;
    let mut header_seen = false;
    let mut gathered: BTreeMap<(String, String), Gathering> = BTreeMap::new();
    // Where each Ethics Bowl cell was first given, to name both lines of a duplicate.
    let mut seen: HashMap<(String, String, Team, Criterion), u64> = HashMap::new();
    let mut rows = 0usize;
    for record in reader.records() {
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                let line = e.position().map_or(0, csv::Position::line);
                problems.add(line, 1, format!("not readable as CSV: {e}"));
                continue;
            }
        };
        let line = record.position().map_or(0, csv::Position::line);
        if !header_seen {
            header_seen = true;
            header = read_header(&record, line, &mut problems);
            if header.is_none() {
                break;
            }
            if let Some(h) = &header
                && h.get(ANNOTATOR).is_none()
            {
                if let Some(name) = &options.annotator {
                    if let Err(e) = super::check_annotator(name) {
                        problems.add(line, 1, e.to_string());
                    }
                } else {
                    problems.add(
                        line,
                        1,
                        "whose judgments are these? Pass --annotator NAME, or add an \
                         \"annotator\" column",
                    );
                    break;
                }
            }
            continue;
        }
        let Some(h) = &header else { break };
        if record.iter().all(str::is_empty) {
            continue;
        }
        rows += 1;
        if record.len() > h.width {
            problems.add(
                line,
                h.width + 1,
                format!(
                    "the row has {} cells; the header has {} columns",
                    record.len(),
                    h.width
                ),
            );
        }
        let row = Row {
            record: &record,
            line,
            header: h,
        };
        if let Some((annotator, round, judgment_column)) =
            row.identify(&by_id, options, &mut problems)
        {
            let key = (annotator.clone(), round.id.clone());
            let gathering = gathered.entry(key).or_insert_with(|| Gathering {
                line,
                column: judgment_column,
                team_a: Scores::default(),
                team_b: Scores::default(),
                notes: Vec::new(),
                single: None,
                standings: BTreeMap::new(),
            });
            row.read_judgment(round, &annotator, gathering, &mut seen, &mut problems);
        } else {
            // The cells are still checked, so one pass reports everything.
            row.read_cells_only(&mut problems);
        }
    }
    if header_seen && header.is_some() && rows == 0 && problems.0.is_empty() {
        problems.add(1, 1, "the file has a header but no rows");
    }
    if !header_seen {
        problems.add(1, 1, "the file is empty");
    }
    let protocol = header.as_ref().map(|h| h.protocol);
    let mut annotations = Vec::new();
    for ((annotator, round_id), g) in gathered {
        let judgment = match protocol {
            Some(ProtocolKind::EthicsBowl) => {
                let missing: Vec<String> = [(Team::A, &g.team_a), (Team::B, &g.team_b)]
                    .into_iter()
                    .flat_map(|(team, scores)| {
                        Criterion::ALL
                            .into_iter()
                            .filter(|c| scores.get(*c).is_none())
                            .map(move |c| format!("team {team:?} {}", c.key()))
                    })
                    .collect();
                if !missing.is_empty() {
                    problems.add(
                        g.line,
                        g.column,
                        format!(
                            "round {round_id} ({annotator}) is missing {}: {}; every round \
                             needs all seven criteria for both teams",
                            if missing.len() == 1 {
                                "a score"
                            } else {
                                "scores"
                            },
                            missing.join(", ")
                        ),
                    );
                    continue;
                }
                let mut notes = g.notes;
                notes.sort_by_key(|n| (n.team, n.criterion));
                HumanJudgment::EthicsBowl {
                    team_a: g.team_a,
                    team_b: g.team_b,
                    justifications: notes,
                }
            }
            Some(ProtocolKind::StructuredDebate) => {
                let Some(round) = by_id.get(round_id.as_str()) else {
                    continue;
                };
                match structured(&round_id, &annotator, round, g, header.as_ref()) {
                    Ok(j) => j,
                    Err(Some((line, column, message))) => {
                        problems.add(line, column, message);
                        continue;
                    }
                    Err(None) => continue, // its row's problems are reported
                }
            }
            _ => match g.single {
                Some((j, _)) => j,
                None => continue, // its row's problems are reported
            },
        };
        annotations.push(Annotation {
            schema_version: ANNOTATION_SCHEMA_VERSION,
            annotator,
            written_at: options.written_at.clone(),
            first_written_at: None,
            blind: options.blind,
            via: Via::Csv,
            round_id,
            judgment,
            // A spreadsheet records no time on task.
            seconds_on_round: None,
            words_shown: None,
        });
    }
    if problems.0.is_empty() {
        Ok(annotations)
    } else {
        let mut list = problems.0;
        list.sort_by_key(|p| (p.line, p.column));
        Err(CsvErrors {
            file: file.to_string(),
            problems: list,
        })
    }
}

/// A structured debate's judgment from its gathered rows: the winner row's, with every
/// argument's standing in the round's order when any is given. `Err(None)` when a row's own
/// problem is reported already; `Err(Some(line, column, message))` for a round left
/// incomplete.
fn structured(
    round_id: &str,
    annotator: &str,
    round: &RoundInfo,
    g: Gathering,
    header: Option<&Header>,
) -> Result<HumanJudgment, Option<(u64, usize, String)>> {
    let column = |name: &str| header.and_then(|h| h.get(name)).map_or(1, |i| i + 1);
    let Some((
        HumanJudgment::StructuredDebate {
            winner,
            justification,
            ..
        },
        _,
    )) = g.single
    else {
        return Err((!g.standings.is_empty()).then(|| {
            (
                g.line,
                column("winner"),
                format!(
                    "round {round_id} ({annotator}) has standings but no winner: add a row with \
                     its winner and an empty argument"
                ),
            )
        }));
    };
    let mut standings = Vec::new();
    if !g.standings.is_empty() {
        let missing: Vec<&str> = round
            .arguments
            .iter()
            .filter(|a| !g.standings.contains_key(*a))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Err(Some((
                g.line,
                column(ARGUMENT),
                format!(
                    "round {round_id} ({annotator}) is missing the standing of {}; give every \
                     argument's standing or none",
                    missing.join(", ")
                ),
            )));
        }
        for id in &round.arguments {
            if let Some((standing, reason, _)) = g.standings.get(id) {
                standings.push(ArgumentStanding {
                    arg_id: id.clone(),
                    standing: *standing,
                    reason: reason.clone(),
                });
            }
        }
    }
    Ok(HumanJudgment::StructuredDebate {
        winner,
        standings,
        justification,
    })
}

/// A standing as a spreadsheet writes it: `upheld`, `partially_upheld`, `refuted`,
/// `uncertain`.
pub fn standing_word(standing: Standing) -> String {
    standing.as_str().to_lowercase()
}

/// The standing a cell names, in any case, with `_`, `-` or a space between words.
fn parse_standing(value: &str) -> Option<Standing> {
    let word = value.trim().replace([' ', '-'], "_");
    Standing::ALL
        .into_iter()
        .find(|s| s.as_str().eq_ignore_ascii_case(&word))
}

/// One data row.
struct Row<'a> {
    record: &'a csv::StringRecord,
    line: u64,
    header: &'a Header,
}

impl Row<'_> {
    /// The cell of a column, with its column number; `None` for a column the header lacks.
    fn cell(&self, name: &str) -> Option<(&str, usize)> {
        let i = self.header.get(name)?;
        Some((self.record.get(i).unwrap_or(""), i + 1))
    }

    /// A required cell, or a problem saying it is empty.
    fn required(&self, name: &str, problems: &mut Problems) -> Option<(&str, usize)> {
        let (value, column) = self.cell(name)?;
        if value.is_empty() {
            problems.add(self.line, column, format!("{name} is empty"));
            return None;
        }
        Some((value, column))
    }

    /// Whose judgment and of which round, and the column where a round's completeness is
    /// reported (the protocol's first column).
    fn identify<'r>(
        &self,
        rounds: &HashMap<&str, &'r RoundInfo>,
        options: &ImportOptions,
        problems: &mut Problems,
    ) -> Option<(String, &'r RoundInfo, usize)> {
        let annotator = match self.cell(ANNOTATOR) {
            Some((name, column)) => {
                if name.is_empty() {
                    problems.add(self.line, column, "annotator is empty");
                    None
                } else if let Err(e) = super::check_annotator(name) {
                    problems.add(self.line, column, e.to_string());
                    None
                } else if options
                    .annotator
                    .as_deref()
                    .is_some_and(|given| given != name)
                {
                    problems.add(
                        self.line,
                        column,
                        format!(
                            "annotator \"{name}\" is not \"{}\" given by --annotator",
                            options.annotator.as_deref().unwrap_or_default()
                        ),
                    );
                    None
                } else {
                    Some(name.to_string())
                }
            }
            None => options.annotator.clone(),
        };
        let round = self.required(ROUND_ID, problems).and_then(|(id, column)| {
            let Some(round) = rounds.get(id) else {
                problems.add(
                    self.line,
                    column,
                    format!("unknown round id \"{id}\": no such round in the results folder"),
                );
                return None;
            };
            let protocol = self.header.protocol;
            if round.protocol != protocol {
                problems.add(
                    self.line,
                    column,
                    format!(
                        "round {id} is a {} round; this file's columns are a {protocol} \
                         judgment's",
                        round.protocol
                    ),
                );
                return None;
            }
            if !round.finished {
                problems.add(
                    self.line,
                    column,
                    format!("round {id} is not finished: a person judges a whole exchange"),
                );
                return None;
            }
            if let Err(e) = crate::domain::check_file_id(id) {
                problems.add(self.line, column, e.to_string());
                return None;
            }
            Some(*round)
        });
        let first = columns(self.header.protocol)[0];
        let column = self.header.get(first).map_or(1, |i| i + 1);
        Some((annotator?, round?, column))
    }

    /// Checks the judgment's cells of a row whose round or annotator is wrong.
    fn read_cells_only(&self, problems: &mut Problems) {
        match self.header.protocol {
            ProtocolKind::EthicsBowl => {
                let _ = self.team(problems);
                let _ = self.criterion(problems);
                let _ = self.score(problems);
            }
            ProtocolKind::QaDebate => {
                let _ = self.required("answer", problems);
                let _ = self.confidence(problems);
            }
            ProtocolKind::StructuredDebate => {
                if self.argument().is_some() {
                    let _ = self.standing(problems);
                } else {
                    let _ = self.winner(problems);
                }
            }
        }
    }

    /// A standing row's argument id (none on the winner's row).
    fn argument(&self) -> Option<(&str, usize)> {
        self.cell(ARGUMENT).filter(|(id, _)| !id.is_empty())
    }

    /// A standing row's standing.
    fn standing(&self, problems: &mut Problems) -> Option<Standing> {
        let Some((value, column)) = self.cell(STANDING) else {
            problems.add(
                self.line,
                self.header.width + 1,
                "a row with an argument needs its standing: the header has no \"standing\" column",
            );
            return None;
        };
        if value.is_empty() {
            problems.add(self.line, column, "standing is empty");
            return None;
        }
        let standing = parse_standing(value);
        if standing.is_none() {
            problems.add(
                self.line,
                column,
                format!(
                    "standing \"{value}\" is not upheld, partially_upheld, refuted or uncertain"
                ),
            );
        }
        standing
    }

    /// A standing row of a structured debate: the argument is the round's, given once,
    /// with a standing and no winner.
    fn read_standing(
        &self,
        round: &RoundInfo,
        annotator: &str,
        (id, column): (&str, usize),
        justification: Option<String>,
        into: &mut Gathering,
        problems: &mut Problems,
    ) {
        let standing = self.standing(problems);
        if let Some((winner, winner_column)) = self.cell("winner").filter(|(w, _)| !w.is_empty()) {
            problems.add(
                self.line,
                winner_column,
                format!(
                    "winner \"{winner}\" on a standing row: the winner goes on the round's row \
                     with an empty argument"
                ),
            );
        }
        let Some(arg_id) = round
            .arguments
            .iter()
            .find(|a| a.eq_ignore_ascii_case(id))
            .cloned()
        else {
            problems.add(
                self.line,
                column,
                format!(
                    "round {} has no argument \"{id}\" (its arguments: {})",
                    round.id,
                    if round.arguments.is_empty() {
                        "none".to_string()
                    } else {
                        round.arguments.join(", ")
                    }
                ),
            );
            return;
        };
        if let Some((_, _, first)) = into.standings.get(&arg_id) {
            problems.add(
                self.line,
                column,
                format!(
                    "the standing of {arg_id} in round {} ({annotator}) is already given on line \
                     {first}",
                    round.id
                ),
            );
            return;
        }
        if let Some(standing) = standing {
            into.standings
                .insert(arg_id, (standing, justification, self.line));
        }
    }

    /// Reads the row's part of its round's judgment into `into`.
    fn read_judgment(
        &self,
        round: &RoundInfo,
        annotator: &str,
        into: &mut Gathering,
        seen: &mut HashMap<(String, String, Team, Criterion), u64>,
        problems: &mut Problems,
    ) {
        let justification = self
            .cell(JUSTIFICATION)
            .map(|(text, _)| text.to_string())
            .filter(|t| !t.is_empty());
        match self.header.protocol {
            ProtocolKind::EthicsBowl => {
                let (team, criterion, score) = (
                    self.team(problems),
                    self.criterion(problems),
                    self.score(problems),
                );
                let (Some(team), Some((criterion, column)), Some(score)) = (team, criterion, score)
                else {
                    return;
                };
                let key = (annotator.to_string(), round.id.clone(), team, criterion);
                if let Some(first) = seen.get(&key) {
                    problems.add(
                        self.line,
                        column,
                        format!(
                            "team {team:?}, {} of round {} ({annotator}) is already scored on \
                             line {first}",
                            criterion.key(),
                            round.id
                        ),
                    );
                    return;
                }
                seen.insert(key, self.line);
                let scores = match team {
                    Team::A => &mut into.team_a,
                    Team::B => &mut into.team_b,
                };
                scores.set(criterion, Some(f64::from(score)));
                if let Some(text) = justification {
                    into.notes.push(CriterionNote {
                        team,
                        criterion,
                        text,
                    });
                }
            }
            ProtocolKind::QaDebate => {
                let answer = self.answer(round, problems);
                let confidence = self.confidence(problems);
                if let (Some(answer), Some(confidence)) = (answer, confidence) {
                    self.once(
                        round,
                        annotator,
                        into,
                        problems,
                        HumanJudgment::QaDebate {
                            answer,
                            confidence,
                            justification,
                        },
                    );
                }
            }
            ProtocolKind::StructuredDebate => {
                if let Some(argument) = self.argument() {
                    self.read_standing(round, annotator, argument, justification, into, problems);
                    return;
                }
                if let Some((standing, column)) = self.cell(STANDING).filter(|(s, _)| !s.is_empty())
                {
                    problems.add(
                        self.line,
                        column,
                        format!(
                            "standing \"{standing}\" without an argument: name the argument in \
                             the \"argument\" column"
                        ),
                    );
                }
                if let Some(winner) = self.winner(problems) {
                    self.once(
                        round,
                        annotator,
                        into,
                        problems,
                        HumanJudgment::StructuredDebate {
                            winner,
                            standings: Vec::new(),
                            justification,
                        },
                    );
                }
            }
        }
    }

    /// Records a one-row judgment, refusing a second row for the same round.
    fn once(
        &self,
        round: &RoundInfo,
        annotator: &str,
        into: &mut Gathering,
        problems: &mut Problems,
        judgment: HumanJudgment,
    ) {
        // The Ethics Bowl aside, a round's first row is its judgment's, but a structured
        // debate's winner row may follow its standing rows.
        let first = match &into.single {
            Some((_, line)) => Some(*line),
            None if self.header.protocol != ProtocolKind::StructuredDebate
                && into.line != self.line =>
            {
                Some(into.line)
            }
            None => None,
        };
        if let Some(first) = first {
            problems.add(
                self.line,
                self.cell(ROUND_ID).map_or(1, |(_, c)| c),
                format!(
                    "round {} ({annotator}) is already judged on line {first}",
                    round.id
                ),
            );
        } else {
            into.single = Some((judgment, self.line));
        }
    }

    fn team(&self, problems: &mut Problems) -> Option<Team> {
        let (value, column) = self.required("team", problems)?;
        match value.to_uppercase().as_str() {
            "A" => Some(Team::A),
            "B" => Some(Team::B),
            _ => {
                problems.add(self.line, column, format!("team \"{value}\" is not A or B"));
                None
            }
        }
    }

    fn criterion(&self, problems: &mut Problems) -> Option<(Criterion, usize)> {
        let (value, column) = self.required("criterion", problems)?;
        match Criterion::from_key(&value.to_lowercase()) {
            Some(c) => Some((c, column)),
            None => {
                let keys: Vec<&str> = Criterion::ALL.iter().map(|c| c.key()).collect();
                problems.add(
                    self.line,
                    column,
                    format!(
                        "unknown criterion \"{value}\" (the criteria: {})",
                        keys.join(", ")
                    ),
                );
                None
            }
        }
    }

    fn score(&self, problems: &mut Problems) -> Option<u8> {
        let (value, column) = self.required("score", problems)?;
        match value.parse::<i64>() {
            Ok(n) if (1..=10).contains(&n) => u8::try_from(n).ok(),
            Ok(n) => {
                problems.add(self.line, column, format!("score {n} is out of range 1–10"));
                None
            }
            Err(_) => {
                problems.add(
                    self.line,
                    column,
                    format!("score \"{value}\" is not a whole number from 1 to 10"),
                );
                None
            }
        }
    }

    fn answer(&self, round: &RoundInfo, problems: &mut Problems) -> Option<QaAnswer> {
        let (value, column) = self.required("answer", problems)?;
        if round.three_way {
            match Label::parse(&value.to_lowercase()) {
                Some(label) => Some(QaAnswer::Label(label)),
                None => {
                    problems.add(
                        self.line,
                        column,
                        format!(
                            "answer \"{value}\" is not a label: round {} is a three-way \
                             baseline, answered proved, disproved or unknown",
                            round.id
                        ),
                    );
                    None
                }
            }
        } else {
            match value.to_uppercase().as_str() {
                "A" => Some(QaAnswer::Side(Team::A)),
                "B" => Some(QaAnswer::Side(Team::B)),
                _ => {
                    problems.add(
                        self.line,
                        column,
                        format!("answer \"{value}\" is not A or B"),
                    );
                    None
                }
            }
        }
    }

    fn confidence(&self, problems: &mut Problems) -> Option<f64> {
        let (value, column) = self.required("confidence", problems)?;
        match value.trim_end_matches('%').trim().parse::<f64>() {
            Ok(c) if c.is_finite() && (0.0..=100.0).contains(&c) => Some(c),
            Ok(_) => {
                problems.add(
                    self.line,
                    column,
                    format!("confidence {value} is out of range 0–100"),
                );
                None
            }
            Err(_) => {
                problems.add(
                    self.line,
                    column,
                    format!("confidence \"{value}\" is not a number from 0 to 100"),
                );
                None
            }
        }
    }

    fn winner(&self, problems: &mut Problems) -> Option<Winner> {
        let (value, column) = self.required("winner", problems)?;
        let winner = Winner::parse(&value.to_lowercase());
        if winner.is_none() {
            problems.add(
                self.line,
                column,
                format!("winner \"{value}\" is not pro, con or tie"),
            );
        }
        winner
    }
}

/// Writes CSV rows to a string.
fn write_rows(rows: impl IntoIterator<Item = Vec<String>>) -> Result<String, AnnotationError> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    for row in rows {
        writer.write_record(&row).map_err(csv_failure)?;
    }
    let bytes = writer
        .into_inner()
        .map_err(|e| AnnotationError::Refused(format!("cannot write CSV: {e}")))?;
    String::from_utf8(bytes).map_err(|e| AnnotationError::Refused(format!("cannot write CSV: {e}")))
}

fn csv_failure(e: csv::Error) -> AnnotationError {
    AnnotationError::Refused(format!("cannot write CSV: {e}"))
}

/// The header of a protocol's file, with or without the annotator column.
fn header_row(protocol: ProtocolKind, annotator: bool) -> Vec<String> {
    annotator
        .then_some(ANNOTATOR)
        .into_iter()
        .chain(std::iter::once(ROUND_ID))
        .chain(columns(protocol).iter().copied())
        .chain(optional_columns(protocol).iter().copied())
        .chain(std::iter::once(JUSTIFICATION))
        .map(str::to_string)
        .collect()
}

/// The stored judgments as one long CSV, an `annotator` column first, by annotator and
/// round as given. Judgments of several protocols cannot share a file and are refused.
pub fn export(annotations: &[Annotation]) -> Result<String, AnnotationError> {
    let Some(first) = annotations.first() else {
        return Err(AnnotationError::Refused(
            "no human judgments are stored in this folder (annotations/)".into(),
        ));
    };
    let protocol = first.judgment.kind();
    if let Some(other) = annotations.iter().find(|a| a.judgment.kind() != protocol) {
        return Err(AnnotationError::Refused(format!(
            "the folder holds judgments of two protocols ({protocol} and {}); a file holds \
             one protocol's",
            other.judgment.kind()
        )));
    }
    let mut rows = vec![header_row(protocol, true)];
    for a in annotations {
        let who = || vec![a.annotator.clone(), a.round_id.clone()];
        match &a.judgment {
            HumanJudgment::EthicsBowl {
                team_a,
                team_b,
                justifications,
            } => {
                for (team, scores) in [(Team::A, team_a), (Team::B, team_b)] {
                    for c in Criterion::ALL {
                        let note = justifications
                            .iter()
                            .find(|n| n.team == team && n.criterion == c)
                            .map(|n| n.text.clone())
                            .unwrap_or_default();
                        let mut row = who();
                        row.extend([
                            format!("{team:?}"),
                            c.key().to_string(),
                            scores.get(c).map(|v| v.to_string()).unwrap_or_default(),
                            note,
                        ]);
                        rows.push(row);
                    }
                }
            }
            HumanJudgment::QaDebate {
                answer,
                confidence,
                justification,
            } => {
                let mut row = who();
                row.extend([
                    answer.as_str().to_string(),
                    confidence.to_string(),
                    justification.clone().unwrap_or_default(),
                ]);
                rows.push(row);
            }
            HumanJudgment::StructuredDebate {
                winner,
                standings,
                justification,
            } => {
                let mut row = who();
                row.extend([
                    winner.as_str().to_string(),
                    String::new(),
                    String::new(),
                    justification.clone().unwrap_or_default(),
                ]);
                rows.push(row);
                for s in standings {
                    let mut row = who();
                    row.extend([
                        String::new(),
                        s.arg_id.clone(),
                        standing_word(s.standing),
                        s.reason.clone().unwrap_or_default(),
                    ]);
                    rows.push(row);
                }
            }
        }
    }
    write_rows(rows)
}

/// A blank sheet for these rounds, in this order: every row an annotator fills, the
/// judgment's cells (and the justification) left empty; a structured debate's winner row is
/// followed by one row per argument of the round (`rounds` gives them).
pub fn template(
    protocol: ProtocolKind,
    round_ids: &[String],
    rounds: &[RoundInfo],
) -> Result<String, AnnotationError> {
    let mut rows = vec![header_row(protocol, false)];
    for id in round_ids {
        match protocol {
            ProtocolKind::EthicsBowl => {
                for team in ["A", "B"] {
                    for c in Criterion::ALL {
                        rows.push(vec![
                            id.clone(),
                            team.to_string(),
                            c.key().to_string(),
                            String::new(),
                            String::new(),
                        ]);
                    }
                }
            }
            ProtocolKind::QaDebate => {
                rows.push(vec![
                    id.clone(),
                    String::new(),
                    String::new(),
                    String::new(),
                ]);
            }
            ProtocolKind::StructuredDebate => {
                rows.push(vec![
                    id.clone(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                ]);
                let arguments = rounds
                    .iter()
                    .find(|r| &r.id == id)
                    .map_or(&[][..], |r| r.arguments.as_slice());
                for arg in arguments {
                    rows.push(vec![
                        id.clone(),
                        String::new(),
                        arg.clone(),
                        String::new(),
                        String::new(),
                    ]);
                }
            }
        }
    }
    write_rows(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(id: &str, protocol: ProtocolKind) -> RoundInfo {
        RoundInfo {
            id: id.into(),
            protocol,
            dilemma: "d".into(),
            team_a: "a".into(),
            team_b: "b".into(),
            judge: "j".into(),
            finished: true,
            three_way: false,
            arguments: Vec::new(),
        }
    }

    fn options(annotator: Option<&str>) -> ImportOptions {
        ImportOptions {
            annotator: annotator.map(str::to_string),
            blind: false,
            written_at: "2026-11-27T00:00:00Z".into(),
        }
    }

    /// A full Ethics Bowl sheet for r1: team A scores 1–7, team B 4 everywhere.
    fn ethics_bowl_sheet() -> String {
        let mut text = String::from("round_id,team,criterion,score,justification\n");
        for (i, c) in Criterion::ALL.iter().enumerate() {
            text.push_str(&format!("r1,A,{},{},\"reason, {i}\"\n", c.key(), i + 1));
        }
        for c in Criterion::ALL {
            text.push_str(&format!("r1,B,{},4,\n", c.key()));
        }
        text
    }

    fn problems(result: Result<Vec<Annotation>, CsvErrors>) -> Vec<(u64, usize, String)> {
        result
            .unwrap_err()
            .problems
            .into_iter()
            .map(|p| (p.line, p.column, p.message))
            .collect()
    }

    #[test]
    fn an_ethics_bowl_sheet_is_read_and_exported_back_the_same() {
        let rounds = [round("r1", ProtocolKind::EthicsBowl)];
        let read = parse(
            "s.csv",
            &ethics_bowl_sheet(),
            &rounds,
            &options(Some("ann")),
        )
        .unwrap();
        assert_eq!(read.len(), 1);
        let HumanJudgment::EthicsBowl {
            team_a,
            team_b,
            justifications,
        } = &read[0].judgment
        else {
            panic!("{:?}", read[0].judgment)
        };
        assert_eq!(team_a.get(Criterion::Consistency), Some(2.0));
        assert_eq!(team_b.total(), Some(28.0));
        assert_eq!(justifications.len(), 7);
        let exported = export(&read).unwrap();
        let expected: String = ethics_bowl_sheet()
            .lines()
            .enumerate()
            .map(|(i, l)| {
                if i == 0 {
                    format!("annotator,{l}\n")
                } else {
                    format!("ann,{l}\n")
                }
            })
            .collect();
        assert_eq!(exported, expected);
        // The export reads back as the same judgments, the annotator from its column.
        let again = parse("e.csv", &exported, &rounds, &options(None)).unwrap();
        assert_eq!(again, read);
    }

    #[test]
    fn every_problem_is_reported_with_its_line_and_column() {
        let rounds = [
            round("r1", ProtocolKind::EthicsBowl),
            round("q1", ProtocolKind::QaDebate),
        ];
        let text = ethics_bowl_sheet()
            .replace("r1,A,consistency,2,", "r1,A,consistency,11,")
            .replace("r1,B,framework_awareness,4,\n", "")
            .replace("r1,B,consistency,4", "r1,B,consistancy,4")
            + "nope,A,consistency,5,\nq1,A,consistency,5,\nr1,A,intellectual_honesty,x,\n";
        let found = problems(parse("s.csv", &text, &rounds, &options(Some("ann"))));
        let at: Vec<(u64, usize)> = found.iter().map(|(l, c, _)| (*l, *c)).collect();
        assert_eq!(
            at,
            [(2, 2), (3, 4), (10, 3), (15, 1), (16, 1), (17, 4)],
            "{found:#?}"
        );
        assert!(found[0].2.contains("missing scores: team A consistency"));
        assert!(
            found[0]
                .2
                .contains("team B consistency, team B framework_awareness")
        );
        assert_eq!(found[1].2, "score 11 is out of range 1–10");
        assert!(found[2].2.starts_with("unknown criterion \"consistancy\""));
        assert!(found[3].2.starts_with("unknown round id \"nope\""));
        assert!(found[4].2.contains("is a qa_debate round"));
        assert!(found[5].2.contains("not a whole number"));
    }

    #[test]
    fn a_score_given_twice_and_a_header_without_a_column_are_refused() {
        let rounds = [round("r1", ProtocolKind::EthicsBowl)];
        let text = ethics_bowl_sheet() + "r1,A,consistency,3,\n";
        let found = problems(parse("s.csv", &text, &rounds, &options(Some("ann"))));
        assert_eq!((found[0].0, found[0].1), (16, 3));
        assert!(found[0].2.contains("already scored on line 3"), "{found:?}");

        let found = problems(parse(
            "s.csv",
            "round_id,team,score\nr1,A,4\n",
            &rounds,
            &options(Some("ann")),
        ));
        assert_eq!(
            found,
            [(1, 4, "the header has no \"criterion\" column".into())]
        );
        let found = problems(parse(
            "s.csv",
            "round_id,team,criterion,score,colour\n",
            &rounds,
            &options(Some("ann")),
        ));
        assert_eq!((found[0].0, found[0].1), (1, 5));
        // No annotator at all.
        let found = problems(parse(
            "s.csv",
            &ethics_bowl_sheet(),
            &rounds,
            &options(None),
        ));
        assert!(found[0].2.contains("--annotator"));
        // A path in the annotator column.
        let text = "annotator,round_id,winner\n../x,s1,pro\n";
        let rounds = [round("s1", ProtocolKind::StructuredDebate)];
        let found = problems(parse("s.csv", text, &rounds, &options(None)));
        assert_eq!((found[0].0, found[0].1), (2, 1));
    }

    #[test]
    fn question_answer_and_structured_sheets() {
        let mut three_way = round("q2", ProtocolKind::QaDebate);
        three_way.three_way = true;
        let rounds = [round("q1", ProtocolKind::QaDebate), three_way];
        let text = "round_id,answer,confidence\nq1,b,80\nq2,Unknown,55.5\n";
        let read = parse("q.csv", text, &rounds, &options(Some("ann"))).unwrap();
        assert_eq!(
            read[0].judgment,
            HumanJudgment::QaDebate {
                answer: QaAnswer::Side(Team::B),
                confidence: 80.0,
                justification: None
            }
        );
        assert_eq!(
            export(&read).unwrap(),
            "annotator,round_id,answer,confidence,justification\nann,q1,B,80,\nann,q2,unknown,55.5,\n"
        );
        let bad = "round_id,answer,confidence\nq1,proved,101\nq2,A,5\nq1,A,5\n";
        let found = problems(parse("q.csv", bad, &rounds, &options(Some("ann"))));
        let at: Vec<(u64, usize)> = found.iter().map(|(l, c, _)| (*l, *c)).collect();
        assert_eq!(at, [(2, 2), (2, 3), (3, 2), (4, 1)], "{found:#?}");

        let rounds = [round("s1", ProtocolKind::StructuredDebate)];
        let read = parse(
            "s.csv",
            "round_id,winner,justification\ns1,TIE,close\n",
            &rounds,
            &options(Some("ann")),
        )
        .unwrap();
        assert_eq!(
            read[0].judgment,
            HumanJudgment::StructuredDebate {
                winner: Winner::Tie,
                standings: Vec::new(),
                justification: Some("close".into())
            }
        );
        let found = problems(parse(
            "s.csv",
            "round_id,winner\ns1,maybe\n",
            &rounds,
            &options(Some("ann")),
        ));
        assert_eq!((found[0].0, found[0].1), (2, 2));
    }

    #[test]
    fn a_template_lists_every_row_to_fill_in_order() {
        let sheet = template(ProtocolKind::EthicsBowl, &["r2".into(), "r1".into()], &[]).unwrap();
        let lines: Vec<&str> = sheet.lines().collect();
        assert_eq!(lines[0], "round_id,team,criterion,score,justification");
        assert_eq!(lines.len(), 1 + 28);
        assert_eq!(lines[1], "r2,A,principle_articulation,,");
        assert_eq!(lines[15], "r1,A,principle_articulation,,");
        assert_eq!(
            template(ProtocolKind::QaDebate, &["q".into()], &[]).unwrap(),
            "round_id,answer,confidence,justification\nq,,,\n"
        );
        let mut s = round("s", ProtocolKind::StructuredDebate);
        s.arguments = vec!["PRO-1".into(), "CON-1".into()];
        assert_eq!(
            template(ProtocolKind::StructuredDebate, &["s".into()], &[s]).unwrap(),
            "round_id,winner,argument,standing,justification\ns,,,,\ns,,PRO-1,,\ns,,CON-1,,\n"
        );
    }

    /// A structured debate's round with three arguments.
    fn debate(id: &str) -> RoundInfo {
        RoundInfo {
            arguments: vec!["PRO-1".into(), "PRO-2".into(), "CON-1".into()],
            ..round(id, ProtocolKind::StructuredDebate)
        }
    }

    #[test]
    fn structured_standings_are_read_in_rows_of_their_own_and_exported_back() {
        let rounds = [debate("s1"), debate("s2")];
        let text = "round_id,argument,standing,winner,justification\n\
                    s1,CON-1,refuted,,its figures were wrong\n\
                    s1,,,pro,\n\
                    s1,pro-1,Upheld,,\n\
                    s1,PRO-2,partially upheld,,\n\
                    s2,,,con,\n";
        let read = parse("s.csv", text, &rounds, &options(Some("ann"))).unwrap();
        let HumanJudgment::StructuredDebate {
            winner, standings, ..
        } = &read[0].judgment
        else {
            panic!("{:?}", read[0].judgment)
        };
        assert_eq!(*winner, Winner::Pro);
        let got: Vec<(&str, Standing)> = standings
            .iter()
            .map(|s| (s.arg_id.as_str(), s.standing))
            .collect();
        assert_eq!(
            got,
            [
                ("PRO-1", Standing::Upheld),
                ("PRO-2", Standing::PartiallyUpheld),
                ("CON-1", Standing::Refuted)
            ],
            "in the round's order, ids as the round spells them"
        );
        assert_eq!(
            standings[2].reason.as_deref(),
            Some("its figures were wrong")
        );
        assert!(
            matches!(&read[1].judgment, HumanJudgment::StructuredDebate { standings, .. } if standings.is_empty()),
            "a winner alone is still a judgment"
        );
        let exported = export(&read).unwrap();
        assert_eq!(
            exported.lines().take(3).collect::<Vec<_>>(),
            [
                "annotator,round_id,winner,argument,standing,justification",
                "ann,s1,pro,,,",
                "ann,s1,,PRO-1,upheld,"
            ]
        );
        assert_eq!(
            parse("e.csv", &exported, &rounds, &options(None)).unwrap(),
            read
        );
    }

    #[test]
    fn malformed_standings_are_refused_with_their_line_and_column() {
        let rounds = [debate("s1"), debate("s2"), debate("s3")];
        let text = "round_id,winner,argument,standing\n\
                    s1,pro,,\n\
                    s1,,PRO-1,upheld\n\
                    s1,,PRO-9,upheld\n\
                    s1,,PRO-1,refuted\n\
                    s1,,PRO-2,sort of\n\
                    s2,con,PRO-1,upheld\n\
                    s2,,PRO-2,\n\
                    s3,,CON-1,upheld\n\
                    s3,tie,,refuted\n";
        let found = problems(parse("s.csv", text, &rounds, &options(Some("ann"))));
        let at: Vec<(u64, usize)> = found.iter().map(|(l, c, _)| (*l, *c)).collect();
        assert_eq!(
            at,
            [
                (2, 3),
                (4, 3),
                (5, 3),
                (6, 4),
                (7, 2),
                (7, 2),
                (8, 4),
                (9, 3),
                (10, 4)
            ],
            "{found:#?}"
        );
        assert!(
            found[0].2.contains("missing the standing of PRO-2, CON-1"),
            "{}",
            found[0].2
        );
        assert!(found[1].2.contains("no argument \"PRO-9\""));
        assert!(found[2].2.contains("already given on line 3"));
        assert!(found[3].2.contains("\"sort of\" is not upheld"));
        assert!(found[4].2.contains("the winner goes on the round's row"));
        assert!(
            found[5].2.contains("has standings but no winner"),
            "{}",
            found[5].2
        );
        assert_eq!(found[6].2, "standing is empty");
        assert!(found[7].2.contains("missing the standing of PRO-1, PRO-2"));
        assert!(found[8].2.contains("without an argument"));
    }
}
