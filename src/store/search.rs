//! Search over the stored rounds, the truth the UI reads back: which rounds hold a text in
//! their answers, judges' corrections, errors, ids, models or dilemma (item, topic), found
//! case-insensitively. Parsing every round file would take far too long for a key press, so
//! the raw bytes are searched first (an ASCII-lowercased copy, for the query written the way
//! the store escapes JSON strings), and only files that hold it are walked, up to their last
//! occurrence, to tell which field each occurrence is in: keys never match, only values.
//! Files are read on a few threads at once.

use std::io::Read;
use std::ops::Range;
use std::path::PathBuf;

use memchr::memmem;
use serde::Deserialize;

use super::{Store, StoreError};
use crate::domain::{PhaseType, Turn};

/// Characters of context a snippet keeps before its match.
const BEFORE: usize = 30;
/// Characters a snippet holds in all, its match included, when the text is long enough.
const SNIPPET: usize = 90;
/// Below this many files one thread reads them all.
const FILES_PER_THREAD: usize = 32;
/// Deeper JSON than this is not a round file; the walk gives up on it.
const MAX_DEPTH: usize = 64;

/// A search as typed, prepared once for every file.
#[derive(Debug, Clone)]
pub struct SearchQuery {
    text: String,
    /// What the raw (ASCII-lowercased) bytes of a file must hold for the file to be walked:
    /// the longest ASCII run of the query as the store escapes it, lowercased; empty when
    /// the query has none, and then every file is walked.
    needle: Vec<u8>,
    prompts: bool,
}

impl SearchQuery {
    /// A query for `text` in answers, corrections, errors, ids, models and dilemmas.
    pub fn new(text: &str) -> Self {
        let escaped = crate::safe_json::to_vec_pretty(&text).unwrap_or_default();
        // Without its quotes; an empty text escapes to `""`.
        let inner = escaped
            .get(1..escaped.len().saturating_sub(1))
            .unwrap_or(&[]);
        let needle = inner
            .split(|b| !b.is_ascii())
            .max_by_key(|run| run.len())
            .unwrap_or(&[])
            .to_ascii_lowercase();
        Self {
            text: text.to_string(),
            needle,
            prompts: false,
        }
    }

    /// Searches the prompts (and system prompts) as well.
    pub fn with_prompts(mut self, prompts: bool) -> Self {
        self.prompts = prompts;
        self
    }

    /// The text searched for.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Where the query occurs in `haystack` (byte ranges, in order, not overlapping).
    pub fn find_in(&self, haystack: &str) -> Vec<Range<usize>> {
        find_ignore_case(haystack, &self.text)
    }
}

/// Which of a round's own fields matched.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RoundFields {
    /// The round's id.
    pub id: bool,
    /// A model: Team A's, Team B's or a judge's.
    pub model: bool,
    /// The dilemma (question-answer item, debate topic): its id or its text.
    pub dilemma: bool,
}

impl RoundFields {
    /// The fields as people read them ("round id, model").
    pub fn describe(self) -> String {
        [
            (self.id, "round id"),
            (self.model, "model"),
            (self.dilemma, "dilemma"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, name)| *name)
        .collect::<Vec<_>>()
        .join(", ")
    }
}

/// Where in a round a hit is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HitPlace {
    /// The round's own fields.
    Round(RoundFields),
    /// A phase of the transcript: its answer (or why its call failed), or its prompt.
    Phase {
        /// The phase's place in the transcript (0-based, the order the phases finished).
        index: usize,
        /// Which phase.
        phase_type: PhaseType,
        /// Who answered (see [`crate::domain::speaker`]).
        speaker: String,
        /// The hit is in the prompt sent, not the answer.
        prompt: bool,
    },
    /// A person's correction of a judge's text.
    Correction {
        /// The judge corrected.
        judge: String,
    },
    /// Why the round stopped.
    Error,
}

impl HitPlace {
    /// The place as people read it ("Rebuttal · sim-alpha", "round id").
    pub fn describe(&self) -> String {
        match self {
            Self::Round(fields) => fields.describe(),
            Self::Phase {
                phase_type,
                speaker,
                prompt,
                ..
            } => format!(
                "{}{} · {speaker}",
                phase_type.title(),
                if *prompt { " prompt" } else { "" }
            ),
            Self::Correction { judge } => format!("correction · {judge}"),
            Self::Error => "error".into(),
        }
    }
}

/// A short piece of text around a match, sanitised, in three parts so the match can be
/// shown apart.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snippet {
    /// Text before the match (with `…` when cut).
    pub before: String,
    /// The match as written.
    pub matched: String,
    /// Text after it (with `…` when cut).
    pub after: String,
}

impl Snippet {
    /// The snippet of `text` around `found` (a byte range of `text` on character
    /// boundaries), on one line, sanitised.
    pub fn around(text: &str, found: Range<usize>) -> Self {
        let floor = |mut at: usize| {
            at = at.min(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            at
        };
        let found = floor(found.start)..floor(found.end.max(found.start));
        let (head, rest) = text.split_at(found.start);
        let (matched, tail) = rest.split_at(found.end - found.start);
        let skip = head.chars().count().saturating_sub(BEFORE);
        let mut before: String = head.chars().skip(skip).collect();
        if skip > 0 {
            before.insert(0, '…');
        }
        let room = SNIPPET
            .saturating_sub(BEFORE + matched.chars().count())
            .max(10);
        let mut after: String = tail.chars().take(room).collect();
        if tail.chars().nth(room).is_some() {
            after.push('…');
        }
        Self {
            before: one_line(&before),
            matched: one_line(matched),
            after: one_line(&after),
        }
    }

    /// The whole snippet as one text.
    #[cfg(test)]
    pub fn text(&self) -> String {
        format!("{}{}{}", self.before, self.matched, self.after)
    }
}

/// Sanitised, with every run of whitespace (newlines included) as one space.
fn one_line(text: &str) -> String {
    let clean = crate::sanitize::sanitize(text);
    let mut out = String::with_capacity(clean.len());
    let mut space = false;
    for c in clean.chars() {
        if c.is_whitespace() {
            space = true;
        } else {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push(c);
        }
    }
    if space && !out.is_empty() {
        out.push(' ');
    }
    if text.starts_with(char::is_whitespace) && !out.is_empty() {
        out.insert(0, ' ');
    }
    out
}

/// One place in one round that holds the query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    /// The round.
    pub round_id: String,
    /// Where in it.
    pub place: HitPlace,
    /// How many times the query occurs there.
    pub count: usize,
    /// The text around the first occurrence.
    pub snippet: Snippet,
}

/// Where `needle` occurs in `haystack`, ignoring case, as byte ranges of `haystack` in order
/// and not overlapping. An ASCII needle is matched ASCII-case-insensitively (byte for byte,
/// fast); any other by the characters' lowercase forms.
pub fn find_ignore_case(haystack: &str, needle: &str) -> Vec<Range<usize>> {
    if needle.is_empty() {
        return Vec::new();
    }
    if needle.is_ascii() {
        let lower = haystack.as_bytes().to_ascii_lowercase();
        let n = needle.as_bytes().to_ascii_lowercase();
        return memmem::find_iter(&lower, &n)
            .map(|s| s..s + n.len())
            .collect();
    }
    // Lowercase forms may differ in length: each byte of the folded text remembers the
    // character it came from.
    let mut folded = String::with_capacity(haystack.len());
    let mut origin: Vec<usize> = Vec::with_capacity(haystack.len());
    for (i, c) in haystack.char_indices() {
        for l in c.to_lowercase() {
            folded.push(l);
            origin.resize(folded.len(), i);
        }
    }
    let n: String = needle.chars().flat_map(char::to_lowercase).collect();
    let char_end = |at: usize| {
        let start = origin[at];
        start + haystack[start..].chars().next().map_or(0, char::len_utf8)
    };
    let mut out: Vec<Range<usize>> = Vec::new();
    for s in memmem::find_iter(folded.as_bytes(), n.as_bytes()) {
        let range = origin[s]..char_end(s + n.len() - 1);
        // Two matches within one character's lowercase form count once.
        if out.last().is_none_or(|last| last.end <= range.start) {
            out.push(range);
        }
    }
    out
}

impl Store {
    /// Every place in the stored rounds that holds `query`, round files in name order and
    /// places in the order the file holds them (a round's own fields first), at most
    /// `limit` of them. Files that cannot be read or are not JSON are skipped (listings name
    /// them); only a folder that cannot be listed is an error.
    pub fn search(&self, query: &SearchQuery, limit: usize) -> Result<Vec<SearchHit>, StoreError> {
        let paths = self.round_files()?;
        Ok(search_files(&paths, query, limit))
    }
}

/// [`Store::search`] over the given files, on a few threads.
pub fn search_files(paths: &[PathBuf], query: &SearchQuery, limit: usize) -> Vec<SearchHit> {
    if query.text.is_empty() || limit == 0 {
        return Vec::new();
    }
    let finder = memmem::Finder::new(&query.needle);
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(paths.len().div_ceil(FILES_PER_THREAD))
        .max(1);
    let chunk = paths.len().div_ceil(threads).max(1);
    let parts: Vec<Vec<SearchHit>> = if threads == 1 {
        vec![search_chunk(paths, query, &finder, limit)]
    } else {
        std::thread::scope(|scope| {
            let workers: Vec<_> = paths
                .chunks(chunk)
                .map(|part| {
                    let finder = &finder;
                    scope.spawn(move || search_chunk(part, query, finder, limit))
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().unwrap_or_default())
                .collect()
        })
    };
    let mut hits: Vec<SearchHit> = parts.into_iter().flatten().collect();
    hits.truncate(limit);
    hits
}

fn search_chunk(
    paths: &[PathBuf],
    query: &SearchQuery,
    finder: &memmem::Finder<'_>,
    limit: usize,
) -> Vec<SearchHit> {
    let mut hits = Vec::new();
    let mut raw = Vec::new();
    let mut lower = Vec::new();
    for path in paths {
        if hits.len() >= limit {
            break;
        }
        raw.clear();
        // Only regular files (or links to them): opening a FIFO would wait forever.
        if !std::fs::metadata(path).is_ok_and(|m| m.file_type().is_file()) {
            continue;
        }
        let read = std::fs::File::open(path).and_then(|mut f| f.read_to_end(&mut raw));
        if read.is_err() {
            continue;
        }
        let fallback_id = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        hits.extend(search_bytes_with(
            &raw,
            &mut lower,
            query,
            finder,
            &fallback_id,
        ));
    }
    hits
}

/// The hits in one round file's bytes (`fallback_id` names the round when the file holds no
/// id). Bytes that are not a round file give no hit.
pub fn search_bytes(raw: &[u8], query: &SearchQuery, fallback_id: &str) -> Vec<SearchHit> {
    let finder = memmem::Finder::new(&query.needle);
    search_bytes_with(raw, &mut Vec::new(), query, &finder, fallback_id)
}

fn search_bytes_with(
    raw: &[u8],
    lower: &mut Vec<u8>,
    query: &SearchQuery,
    finder: &memmem::Finder<'_>,
    fallback_id: &str,
) -> Vec<SearchHit> {
    if query.text.is_empty() {
        return Vec::new();
    }
    let every_string = query.needle.is_empty();
    let occurrences: Vec<usize> = if every_string {
        Vec::new()
    } else {
        lower.clear();
        lower.extend_from_slice(raw);
        lower.make_ascii_lowercase();
        finder.find_iter(lower).collect()
    };
    if !every_string && occurrences.is_empty() {
        return Vec::new();
    }
    let stop_after = if every_string {
        usize::MAX
    } else {
        occurrences.last().copied().unwrap_or(0)
    };
    let mut visitor = FileSearch {
        query,
        raw,
        needle_len: query.needle.len(),
        every_string,
        occurrences,
        next: 0,
        id: None,
        phase_starts: Vec::new(),
        judgment_starts: Vec::new(),
        round: None,
        found: Vec::new(),
    };
    let mut walk = Walk {
        raw,
        pos: 0,
        path: Vec::new(),
        visitor: &mut visitor,
        stop_after,
    };
    match walk.value(0) {
        Ok(()) | Err(Halt::Done) => {}
        Err(Halt::Invalid) => return Vec::new(),
    }
    visitor.finish(fallback_id)
}

/// Why a walk stopped early.
enum Halt {
    /// Past the last occurrence: nothing more to find.
    Done,
    /// Not JSON.
    Invalid,
}

/// A step of the path from the file's root to a value.
#[derive(Debug, Clone, Copy)]
enum Seg<'a> {
    /// An object's key, as written.
    Key(&'a [u8]),
    /// An array's index.
    Index(usize),
}

/// What a walk reports.
trait Visitor<'a> {
    /// A string value (not a key) at `path`; `range` includes its quotes.
    fn string(&mut self, path: &[Seg<'a>], range: Range<usize>);
    /// An object begins at `start` at `path`.
    fn object(&mut self, path: &[Seg<'a>], start: usize);
}

/// A walk over JSON bytes that reads no value, only where strings and objects are.
struct Walk<'a, 'v, V> {
    raw: &'a [u8],
    pos: usize,
    path: Vec<Seg<'a>>,
    visitor: &'v mut V,
    stop_after: usize,
}

impl<'a, V: Visitor<'a>> Walk<'a, '_, V> {
    fn peek(&self) -> Result<u8, Halt> {
        self.raw.get(self.pos).copied().ok_or(Halt::Invalid)
    }

    fn whitespace(&mut self) {
        while self
            .raw
            .get(self.pos)
            .is_some_and(|b| matches!(b, b' ' | b'\n' | b'\r' | b'\t'))
        {
            self.pos += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<(), Halt> {
        if depth > MAX_DEPTH {
            return Err(Halt::Invalid);
        }
        self.whitespace();
        if self.pos > self.stop_after {
            return Err(Halt::Done);
        }
        match self.peek()? {
            b'{' => self.object(depth),
            b'[' => self.array(depth),
            b'"' => {
                let range = self.string()?;
                self.visitor.string(&self.path, range);
                Ok(())
            }
            _ => self.scalar(),
        }
    }

    fn object(&mut self, depth: usize) -> Result<(), Halt> {
        self.visitor.object(&self.path, self.pos);
        self.pos += 1;
        self.whitespace();
        if self.peek()? == b'}' {
            self.pos += 1;
            return Ok(());
        }
        loop {
            self.whitespace();
            if self.peek()? != b'"' {
                return Err(Halt::Invalid);
            }
            let key = self.string()?;
            self.whitespace();
            if self.peek()? != b':' {
                return Err(Halt::Invalid);
            }
            self.pos += 1;
            self.path
                .push(Seg::Key(&self.raw[key.start + 1..key.end - 1]));
            self.value(depth + 1)?;
            self.path.pop();
            self.whitespace();
            match self.peek()? {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(Halt::Invalid),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<(), Halt> {
        self.pos += 1;
        self.whitespace();
        if self.peek()? == b']' {
            self.pos += 1;
            return Ok(());
        }
        let mut index = 0;
        loop {
            self.path.push(Seg::Index(index));
            self.value(depth + 1)?;
            self.path.pop();
            index += 1;
            self.whitespace();
            match self.peek()? {
                b',' => self.pos += 1,
                b']' => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(Halt::Invalid),
            }
        }
    }

    /// A string from its opening quote; returns its range, quotes included.
    fn string(&mut self) -> Result<Range<usize>, Halt> {
        let start = self.pos;
        let mut at = start + 1;
        loop {
            let rest = self.raw.get(at..).ok_or(Halt::Invalid)?;
            at += memchr::memchr(b'"', rest).ok_or(Halt::Invalid)?;
            // A quote after an odd number of backslashes is escaped (quotes are rarer in
            // text than the escapes of newlines, so this stops less often than looking for
            // both).
            let mut k = at;
            while k > start + 1 && self.raw[k - 1] == b'\\' {
                k -= 1;
            }
            if (at - k).is_multiple_of(2) {
                self.pos = at + 1;
                return Ok(start..at + 1);
            }
            at += 1;
        }
    }

    fn scalar(&mut self) -> Result<(), Halt> {
        let start = self.pos;
        while self
            .raw
            .get(self.pos)
            .is_some_and(|b| !matches!(b, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t'))
        {
            self.pos += 1;
        }
        if self.pos == start {
            Err(Halt::Invalid)
        } else {
            Ok(())
        }
    }
}

/// What a string value at a path is, for the search.
enum Field {
    Round(RoundFields),
    Phase { index: usize, prompt: bool },
    Correction(usize),
    Error,
}

fn field(path: &[Seg<'_>], prompts: bool) -> Option<Field> {
    use Seg::{Index, Key};
    let round = |id, model, dilemma| Some(Field::Round(RoundFields { id, model, dilemma }));
    match path {
        [Key(b"id")] => round(true, false, false),
        [Key(b"team_a_model" | b"team_b_model" | b"judge_model")]
        | [Key(b"judge_models"), Index(_)] => round(false, true, false),
        [Key(b"dilemma_id")]
        | [Key(b"qa"), Key(b"question")]
        | [
            Key(b"structured"),
            Key(b"topic"),
            Key(b"proposition" | b"context"),
        ] => round(false, false, true),
        [Key(b"phases"), Index(i), Key(b"response" | b"error")] => Some(Field::Phase {
            index: *i,
            prompt: false,
        }),
        [Key(b"phases"), Index(i), Key(b"prompt" | b"system_prompt")]
        | [Key(b"phases"), Index(i), Key(b"earlier_turns"), Index(_)]
            if prompts =>
        {
            Some(Field::Phase {
                index: *i,
                prompt: true,
            })
        }
        [Key(b"judgments"), Index(j), Key(b"corrected_text")] => Some(Field::Correction(*j)),
        [Key(b"error"), Key(b"message")] => Some(Field::Error),
        _ => None,
    }
}

/// What a phase's object says about who answered it.
#[derive(Deserialize)]
struct PhaseMeta {
    phase_type: PhaseType,
    #[serde(default)]
    model_id: String,
    #[serde(default)]
    judge_id: Option<String>,
    #[serde(default)]
    deliberation_round: Option<u32>,
    #[serde(default)]
    turn: Option<Turn>,
    #[serde(default)]
    correction: u32,
}

#[derive(Deserialize)]
struct JudgmentMeta {
    #[serde(default)]
    judge_model: String,
    #[serde(default)]
    persona_id: Option<String>,
}

/// Reads one JSON value from `start` (the rest of the file is not looked at).
fn meta_at<'de, T: Deserialize<'de>>(raw: &'de [u8], start: usize) -> Option<T> {
    let mut de = serde_json::Deserializer::from_slice(raw.get(start..)?);
    T::deserialize(&mut de).ok()
}

/// A match found in a field, before it is named.
struct Found {
    field: Field,
    count: usize,
    snippet: Snippet,
}

/// The search of one file, as its walk reports strings.
struct FileSearch<'q, 'a> {
    query: &'q SearchQuery,
    raw: &'a [u8],
    needle_len: usize,
    every_string: bool,
    /// Where the needle occurs in the raw bytes, in order.
    occurrences: Vec<usize>,
    /// The first occurrence not yet passed.
    next: usize,
    id: Option<String>,
    phase_starts: Vec<usize>,
    judgment_starts: Vec<usize>,
    /// The round's own fields that matched, with the first one's snippet.
    round: Option<(RoundFields, usize, Snippet)>,
    found: Vec<Found>,
}

impl<'a> Visitor<'a> for FileSearch<'_, 'a> {
    fn string(&mut self, path: &[Seg<'a>], range: Range<usize>) {
        let is_id = matches!(path, [Seg::Key(b"id")]);
        let candidate = self.every_string || {
            while self
                .occurrences
                .get(self.next)
                .is_some_and(|&o| o < range.start)
            {
                self.next += 1;
            }
            self.occurrences
                .get(self.next)
                .is_some_and(|&o| o + self.needle_len <= range.end)
        };
        if !candidate && !is_id {
            return;
        }
        let Some(field) = field(path, self.query.prompts) else {
            return;
        };
        let Ok(text) = serde_json::from_slice::<String>(&self.raw[range]) else {
            return;
        };
        if is_id {
            self.id = Some(text.clone());
        }
        let matches = self.query.find_in(&text);
        let Some(first) = matches.first() else {
            return;
        };
        let snippet = Snippet::around(&text, first.clone());
        match field {
            Field::Round(fields) => match &mut self.round {
                Some((all, count, _)) => {
                    all.id |= fields.id;
                    all.model |= fields.model;
                    all.dilemma |= fields.dilemma;
                    *count += matches.len();
                }
                None => self.round = Some((fields, matches.len(), snippet)),
            },
            field => self.found.push(Found {
                field,
                count: matches.len(),
                snippet,
            }),
        }
    }

    fn object(&mut self, path: &[Seg<'a>], start: usize) {
        match path {
            [Seg::Key(b"phases"), Seg::Index(i)] if *i == self.phase_starts.len() => {
                self.phase_starts.push(start);
            }
            [Seg::Key(b"judgments"), Seg::Index(j)] if *j == self.judgment_starts.len() => {
                self.judgment_starts.push(start);
            }
            _ => {}
        }
    }
}

impl FileSearch<'_, '_> {
    /// The hits, named: a round's own fields first, then the rest in file order.
    fn finish(self, fallback_id: &str) -> Vec<SearchHit> {
        let round_id = self.id.unwrap_or_else(|| fallback_id.to_string());
        let raw = self.raw;
        let mut hits = Vec::with_capacity(self.found.len() + 1);
        if let Some((fields, count, snippet)) = self.round {
            hits.push(SearchHit {
                round_id: round_id.clone(),
                place: HitPlace::Round(fields),
                count,
                snippet,
            });
        }
        for f in self.found {
            let place = match f.field {
                Field::Round(fields) => HitPlace::Round(fields),
                Field::Phase { index, prompt } => {
                    let Some(meta) = self
                        .phase_starts
                        .get(index)
                        .and_then(|&s| meta_at::<PhaseMeta>(raw, s))
                    else {
                        continue;
                    };
                    let mut speaker = crate::domain::speaker(
                        &meta.model_id,
                        meta.judge_id.as_deref(),
                        meta.deliberation_round,
                        meta.turn,
                    );
                    if meta.correction > 0 {
                        speaker.push_str(" · correction");
                    }
                    HitPlace::Phase {
                        index,
                        phase_type: meta.phase_type,
                        speaker: crate::sanitize::sanitize(&speaker),
                        prompt,
                    }
                }
                Field::Correction(j) => {
                    let judge = self
                        .judgment_starts
                        .get(j)
                        .and_then(|&s| meta_at::<JudgmentMeta>(raw, s))
                        .map(|m| m.persona_id.unwrap_or(m.judge_model))
                        .unwrap_or_default();
                    HitPlace::Correction {
                        judge: crate::sanitize::sanitize(&judge),
                    }
                }
                Field::Error => HitPlace::Error,
            };
            hits.push(SearchHit {
                round_id: round_id.clone(),
                place,
                count: f.count,
                snippet: f.snippet,
            });
        }
        hits
    }
}

#[cfg(test)]
mod tests;
