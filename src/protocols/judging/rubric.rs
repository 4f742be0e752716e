//! The Ethics Bowl's rubric reader: a judge's fourteen scores, from the requested JSON first,
//! then from what real models actually send.
//!
//! Readers, tried in turn, best result kept:
//! 1. JSON objects anywhere in the text, read by [`lenient_json`] (code fences, a preamble,
//!    `<thinking>` blocks, comments and trailing commas); keys are matched loosely
//!    (`Team A`, `team_a`, `teamA`; `Principle Articulation`), scores may be numbers or
//!    strings such as `"8/10"` or `"8 out of 10"`, criteria may be an array of
//!    `{criterion, score}`.
//! 2. Markdown tables, criteria as rows or as columns.
//! 3. `Criterion: 8/10` or `Criterion - 8` lines under a Team A / Team B heading.
//!
//! Scores outside 1–10 are refused; half points are kept as given. The result is `Parsed`
//! (all fourteen), `Partial` (some) or `Failed` (none), with the problems listed. It never
//! panics, whatever the input.

use serde_json::Value;

use super::score::{score_text, score_value};
use crate::domain::{Criterion, ParseStatus, Scores, Team};
use crate::protocols::lenient_json::{self, strip_thinking};

/// What the parser read from a judge's answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParsedJudgment {
    /// Team A's scores (missing ones `None`).
    pub team_a: Scores,
    /// Team B's scores.
    pub team_b: Scores,
    /// Team A's justification, if found.
    pub team_a_justification: String,
    /// Team B's justification, if found.
    pub team_b_justification: String,
    /// The overall analysis, if found.
    pub overall_analysis: String,
    /// What could not be read.
    pub problems: Vec<String>,
}

impl ParsedJudgment {
    /// `Parsed` when all fourteen scores are present, `Partial` when some are, else `Failed`.
    pub fn status(&self) -> ParseStatus {
        match self.team_a.count() + self.team_b.count() {
            14 => ParseStatus::Parsed,
            0 => ParseStatus::Failed,
            _ => ParseStatus::Partial,
        }
    }

    fn scores_mut(&mut self, team: Team) -> &mut Scores {
        match team {
            Team::A => &mut self.team_a,
            Team::B => &mut self.team_b,
        }
    }

    fn justification_mut(&mut self, team: Team) -> &mut String {
        match team {
            Team::A => &mut self.team_a_justification,
            Team::B => &mut self.team_b_justification,
        }
    }

    fn count(&self) -> usize {
        self.team_a.count() + self.team_b.count()
    }

    /// Records a score read as text or number; invalid values become problems.
    fn put(&mut self, team: Team, criterion: Criterion, value: Result<f64, String>) {
        match value {
            Ok(v) => {
                if self.scores_mut(team).get(criterion).is_none() {
                    self.scores_mut(team).set(criterion, Some(v));
                }
            }
            Err(why) => self
                .problems
                .push(format!("Team {team:?} {}: {why}", criterion.key())),
        }
    }

    /// Fills what this one lacks from another reading.
    fn merge(&mut self, other: ParsedJudgment) {
        for team in [Team::A, Team::B] {
            let theirs = *match team {
                Team::A => &other.team_a,
                Team::B => &other.team_b,
            };
            for c in Criterion::ALL {
                if self.scores_mut(team).get(c).is_none() {
                    self.scores_mut(team).set(c, theirs.get(c));
                }
            }
        }
        if self.team_a_justification.is_empty() {
            self.team_a_justification = other.team_a_justification;
        }
        if self.team_b_justification.is_empty() {
            self.team_b_justification = other.team_b_justification;
        }
        if self.overall_analysis.is_empty() {
            self.overall_analysis = other.overall_analysis;
        }
        for p in other.problems {
            if !self.problems.contains(&p) {
                self.problems.push(p);
            }
        }
    }
}

/// Reads a judge's answer.
pub fn parse_judgment(text: &str) -> ParsedJudgment {
    let visible = strip_thinking(text);
    let mut best = ParsedJudgment::default();
    let readings = json_readings(&visible)
        .into_iter()
        .chain([read_tables(&visible), read_lines(&visible)]);
    for reading in readings {
        if reading.count() > best.count() {
            let previous = std::mem::replace(&mut best, reading);
            best.merge(previous);
        } else {
            best.merge(reading);
        }
    }
    // Problems about values that another reader found after all are not problems.
    best.problems.retain(|p| !p.is_empty());
    for team in [Team::A, Team::B] {
        let scores = *best.scores_mut(team);
        let missing: Vec<&str> = Criterion::ALL
            .iter()
            .filter(|c| scores.get(**c).is_none())
            .map(|c| c.key())
            .collect();
        if !missing.is_empty() {
            best.problems
                .retain(|p| !p.starts_with(&format!("Team {team:?} missing")));
            best.problems
                .push(format!("Team {team:?} missing: {}", missing.join(", ")));
        }
    }
    let resolved: Vec<String> = best
        .problems
        .iter()
        .filter(|p| {
            Criterion::ALL.iter().any(|c| {
                [Team::A, Team::B].iter().any(|t| {
                    p.starts_with(&format!("Team {t:?} {}:", c.key()))
                        && match t {
                            Team::A => best.team_a.get(*c).is_some(),
                            Team::B => best.team_b.get(*c).is_some(),
                        }
                })
            })
        })
        .cloned()
        .collect();
    best.problems.retain(|p| !resolved.contains(p));
    best
}

// ---------------------------------------------------------------------------------------
// JSON

fn json_readings(text: &str) -> Vec<ParsedJudgment> {
    lenient_json::objects_at(text)
        .into_iter()
        .map(|(start, value)| {
            let mut reading = ParsedJudgment::default();
            walk(&value, team_before(&text[..start]), &mut reading);
            reading
        })
        .filter(|r| r.count() > 0)
        .collect()
}

/// The team named last just before an inner object (`"team_a_scores": {` of an object
/// whose outer braces were cut off).
fn team_before(prefix: &str) -> Option<Team> {
    let tail: String = prefix
        .chars()
        .rev()
        .take(40)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let k = compact(&tail);
    match (k.rfind("teama"), k.rfind("teamb")) {
        (Some(a), Some(b)) => Some(if a > b { Team::A } else { Team::B }),
        (Some(_), None) => Some(Team::A),
        (None, Some(_)) => Some(Team::B),
        (None, None) => None,
    }
}

/// Letters and digits only, lower-cased: `Team A` → `teama`, `principle_articulation` →
/// `principlearticulation`.
fn compact(key: &str) -> String {
    key.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

fn team_of(key: &str) -> Option<Team> {
    let k = compact(key);
    let a = ["teama", "presenting", "presenter"];
    let b = ["teamb", "responding", "respondent", "responder"];
    let has = |words: &[&str]| words.iter().any(|w| k.starts_with(w) || k.contains(w));
    match (has(&a), has(&b)) {
        (true, false) => Some(Team::A),
        (false, true) => Some(Team::B),
        _ => (k == "a")
            .then_some(Team::A)
            .or((k == "b").then_some(Team::B)),
    }
}

fn criterion_of(key: &str) -> Option<Criterion> {
    let k = compact(key);
    let k = k.strip_suffix("score").unwrap_or(&k);
    // Keys are lower-case words joined by underscores: compared without the underscores.
    Criterion::ALL
        .into_iter()
        .find(|c| c.key().chars().filter(|ch| *ch != '_').eq(k.chars()))
}

/// Walks any JSON shape, carrying the team named by the nearest enclosing key.
fn walk(value: &Value, team: Option<Team>, out: &mut ParsedJudgment) {
    match value {
        Value::Object(map) => {
            // A row: {"criterion": "...", "score": 8} or {"criterion": ..., "team_a": 8, ...}.
            let name = ["criterion", "name", "dimension", "category"]
                .iter()
                .find_map(|k| map.get(*k).and_then(Value::as_str))
                .and_then(criterion_of);
            if let Some(c) = name {
                let row_team = map
                    .get("team")
                    .and_then(Value::as_str)
                    .and_then(team_of)
                    .or(team);
                if let (Some(t), Some(v)) = (
                    row_team,
                    ["score", "value", "rating"]
                        .iter()
                        .find_map(|k| map.get(*k)),
                ) {
                    out.put(t, c, score_value(v));
                }
                for (k, v) in map {
                    if let Some(t) = team_of(k)
                        && !v.is_object()
                    {
                        out.put(t, c, score_value(v));
                    }
                }
                return;
            }
            for (key, v) in map {
                let key_team = team_of(key);
                let here = key_team.or(team);
                let ck = compact(key);
                if let (Some(t), Some(c)) = (here, criterion_of(key))
                    && !v.is_object()
                    && !v.is_array()
                {
                    out.put(t, c, score_value(v));
                } else if ck.contains("justification")
                    || ck.contains("rationale")
                    || ck.contains("reasoning")
                {
                    if let (Some(t), Some(s)) = (here, v.as_str()) {
                        *out.justification_mut(t) = s.trim().to_string();
                    }
                } else if ck.starts_with("overall") || ck == "analysis" || ck == "summary" {
                    if let Some(s) = v.as_str() {
                        out.overall_analysis = s.trim().to_string();
                    }
                } else {
                    walk(v, here, out);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                walk(item, team, out);
            }
        }
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------
// Markdown tables

fn cells(line: &str) -> Vec<String> {
    line.trim()
        .trim_matches('|')
        .split('|')
        .map(|c| c.trim().trim_matches('*').trim().to_string())
        .collect()
}

fn read_tables(text: &str) -> ParsedJudgment {
    let mut out = ParsedJudgment::default();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        if !lines[i].trim_start().starts_with('|') {
            i += 1;
            continue;
        }
        let start = i;
        while i < lines.len() && lines[i].trim_start().starts_with('|') {
            i += 1;
        }
        let rows: Vec<Vec<String>> = lines[start..i]
            .iter()
            .map(|l| cells(l))
            .filter(|r| {
                !r.iter()
                    .all(|c| c.chars().all(|ch| matches!(ch, '-' | ':' | ' ')))
            })
            .collect();
        read_table(&rows, &mut out);
    }
    out
}

fn read_table(rows: &[Vec<String>], out: &mut ParsedJudgment) {
    let Some((header, body)) = rows.split_first() else {
        return;
    };
    let team_columns: Vec<(usize, Team)> = header
        .iter()
        .enumerate()
        .filter_map(|(i, h)| team_of(h).map(|t| (i, t)))
        .collect();
    let criterion_columns: Vec<(usize, Criterion)> = header
        .iter()
        .enumerate()
        .filter_map(|(i, h)| criterion_of(h).map(|c| (i, c)))
        .collect();
    if !team_columns.is_empty() {
        for row in body {
            let Some(c) = row.first().and_then(|h| criterion_of(h)) else {
                continue;
            };
            for (i, team) in &team_columns {
                if let Some(cell) = row.get(*i) {
                    out.put(*team, c, score_text(cell));
                }
            }
        }
    } else if !criterion_columns.is_empty() {
        for row in body {
            let Some(team) = row.first().and_then(|h| team_of(h)) else {
                continue;
            };
            for (i, c) in &criterion_columns {
                if let Some(cell) = row.get(*i) {
                    out.put(team, *c, score_text(cell));
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Lines under headings

/// What a heading line introduces.
enum Section {
    Scores(Team),
    Justification(Team),
    Overall,
}

fn heading(line: &str) -> Option<Section> {
    let t = line.trim();
    let is_heading = t.starts_with('#')
        || t.ends_with('{')
        || t.ends_with('[')
        || (t.starts_with("**") && t.ends_with("**"))
        || (t.ends_with(':') && t.len() < 60)
        || (t.len() < 60
            && t.split_whitespace().count() <= 6
            && criterion_of(t).is_none()
            && !t.contains(':'));
    if !is_heading || t.len() > 100 {
        return None;
    }
    // A parenthesis names a model ("Team A Scores (grok-4-1-fast-reasoning)"), which must
    // not decide what the heading introduces.
    let bare = without_parentheses(t);
    let k = compact(&bare);
    let team = team_of(&bare);
    if k.contains("overall") || (k.contains("verdict") && team.is_none()) {
        return Some(Section::Overall);
    }
    match team {
        Some(team)
            if k.contains("justification")
                || k.contains("rationale")
                || k.contains("reasoning") =>
        {
            Some(Section::Justification(team))
        }
        Some(team) => Some(Section::Scores(team)),
        None => None,
    }
}

fn without_parentheses(text: &str) -> String {
    let mut depth = 0usize;
    text.chars()
        .filter(|c| {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth = depth.saturating_sub(1);
                    return false;
                }
                _ => {}
            }
            depth == 0
        })
        .collect()
}

/// `Criterion: 8/10`, `- **Criterion** - 8`, `Criterion = 8`.
fn criterion_line(line: &str) -> Option<(Criterion, Result<f64, String>)> {
    let t = line
        .trim()
        .trim_start_matches(['-', '*', '•', '+', ' ', '#'])
        .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ')')
        .trim_start();
    let sep = t.find([':', '=', '–', '—']).or_else(|| t.find(" - "))?;
    let name = t[..sep].trim().trim_matches('*').trim();
    let c = criterion_of(name)?;
    let value = t[sep..]
        .trim_start_matches([':', '=', '–', '—', '-', ' ', '*'])
        .trim();
    Some((c, score_text(value)))
}

fn read_lines(text: &str) -> ParsedJudgment {
    let mut out = ParsedJudgment::default();
    let mut section: Option<Section> = None;
    for line in text.lines() {
        if let Some((c, value)) = criterion_line(line) {
            if let Some(Section::Scores(team)) = section {
                out.put(team, c, value);
            }
            continue;
        }
        if let Some(s) = heading(line) {
            section = Some(s);
            continue;
        }
        if line.trim_start().starts_with('#') {
            section = None;
            continue;
        }
        let target = match section {
            Some(Section::Justification(team)) => Some(out.justification_mut(team)),
            Some(Section::Overall) => Some(&mut out.overall_analysis),
            _ => None,
        };
        if let Some(target) = target
            && (!target.is_empty() || !line.trim().is_empty())
        {
            target.push_str(line);
            target.push('\n');
        }
    }
    out.team_a_justification = out.team_a_justification.trim().to_string();
    out.team_b_justification = out.team_b_justification.trim().to_string();
    out.overall_analysis = out.overall_analysis.trim().to_string();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const KEYS: [&str; 7] = [
        "principle_articulation",
        "consistency",
        "stakeholder_recognition",
        "uncertainty_integration",
        "framework_awareness",
        "intellectual_honesty",
        "constructive_engagement",
    ];

    fn json_scores(base: u32) -> String {
        let f: Vec<String> = KEYS
            .iter()
            .enumerate()
            .map(|(i, k)| format!("\"{k}\": {}", (base + i as u32) % 10 + 1))
            .collect();
        format!("{{{}}}", f.join(", "))
    }

    fn spec_json() -> String {
        format!(
            r#"{{"team_a_scores": {}, "team_b_scores": {}, "team_a_justification": "A did well", "team_b_justification": "B engaged", "overall_analysis": "Close."}}"#,
            json_scores(0),
            json_scores(3)
        )
    }

    fn expect_complete(text: &str) -> ParsedJudgment {
        let p = parse_judgment(text);
        assert_eq!(p.status(), ParseStatus::Parsed, "{text}\n{p:?}");
        p
    }

    #[test]
    fn plain_spec_json() {
        let p = expect_complete(&spec_json());
        assert_eq!(p.team_a.principle_articulation, Some(1.0));
        assert_eq!(p.team_b.principle_articulation, Some(4.0));
        assert_eq!(p.team_a_justification, "A did well");
        assert_eq!(p.overall_analysis, "Close.");
        assert!(p.problems.is_empty(), "{:?}", p.problems);
    }

    #[test]
    fn fenced_after_preamble_and_thinking() {
        let text = format!(
            "<thinking>Team A: 3/10 maybe? {{\"team_a_scores\": {{}}}}</thinking>\nHere is my evaluation:\n```json\n{}\n```\nThanks.",
            spec_json()
        );
        let p = expect_complete(&text);
        assert_eq!(p.team_a.principle_articulation, Some(1.0));
    }

    #[test]
    fn comments_trailing_commas_title_case_and_string_scores() {
        let text = r#"{
          // scores for the presenter
          "Team A": {"Principle Articulation": "8/10", "Consistency": "7 out of 10", "Stakeholder Recognition": 9,
                     "Uncertainty Integration": 6.5, "Framework Awareness": "8", "Intellectual Honesty": 7, "Constructive Engagement": 8,},
          /* and the respondent */
          "teamB": {"principle-articulation": 6, "consistency": 6, "stakeholder recognition": 7, "uncertainty_integration": 7,
                    "framework_awareness": 5, "intellectual_honesty": 8, "constructive_engagement": 9, "justification": "solid"},
        }"#;
        let p = expect_complete(text);
        assert_eq!(p.team_a.principle_articulation, Some(8.0));
        assert_eq!(p.team_a.consistency, Some(7.0));
        assert_eq!(p.team_a.uncertainty_integration, Some(6.5));
        assert_eq!(p.team_b.framework_awareness, Some(5.0));
        assert_eq!(p.team_b_justification, "solid");
    }

    #[test]
    fn criteria_as_an_array() {
        let rows = |base: u32| -> String {
            let r: Vec<String> = KEYS
                .iter()
                .enumerate()
                .map(|(i, k)| {
                    format!(
                        "{{\"criterion\": \"{k}\", \"score\": {}}}",
                        (base + i as u32) % 10 + 1
                    )
                })
                .collect();
            format!("[{}]", r.join(","))
        };
        let text = format!(
            r#"{{"team_a": {{"scores": {}}}, "team_b": {{"scores": {}}}}}"#,
            rows(1),
            rows(2)
        );
        let p = expect_complete(&text);
        assert_eq!(p.team_a.principle_articulation, Some(2.0));
        let both: Vec<String> = KEYS
            .iter()
            .map(|k| format!("{{\"criterion\": \"{k}\", \"team_a\": 7, \"team_b\": 8}}"))
            .collect();
        let p = expect_complete(&format!("{{\"scores\": [{}]}}", both.join(",")));
        assert_eq!(p.team_b.consistency, Some(8.0));
    }

    #[test]
    fn markdown_table_criteria_as_rows_and_as_columns() {
        let mut rows = String::from("| Criterion | Team A | Team B |\n|---|:-:|:-:|\n");
        for k in KEYS {
            rows.push_str(&format!("| {} | 8 | **7/10** |\n", k.replace('_', " ")));
        }
        let p = expect_complete(&format!("My scores:\n\n{rows}\nOverall fine."));
        assert_eq!(p.team_b.intellectual_honesty, Some(7.0));
        let header: Vec<String> = KEYS.iter().map(|k| k.replace('_', " ")).collect();
        let text = format!(
            "| Team | {} |\n|{}|\n| Team A | 9 | 9 | 9 | 9 | 9 | 9 | 9 |\n| Team B | 6 | 6 | 6 | 6 | 6 | 6 | 6.5 |\n",
            header.join(" | "),
            "---|".repeat(8)
        );
        let p = expect_complete(&text);
        assert_eq!(p.team_a.consistency, Some(9.0));
        assert_eq!(p.team_b.constructive_engagement, Some(6.5));
    }

    #[test]
    fn lines_under_headings_like_the_predecessor() {
        let text = "### Team A Scores (claude)\n- Principle Articulation: 9\n- Consistency: 9\n- Stakeholder Recognition: 8\n- Uncertainty Integration: 10\n- Framework Awareness: 10\n- Intellectual Honesty: 10\n- Constructive Engagement: 10\n\n### Team A Justification\nExcellent work.\n\n**Strengths:**\n- **Intellectual Honesty:** conceded well\n\n### Team B Scores (gpt)\n- Principle Articulation - 10\n- Consistency – 9\n- Stakeholder Recognition: 10/10\n- Uncertainty Integration: 9\n- Framework Awareness: 10\n- Intellectual Honesty: 9\n- Constructive Engagement: 10\n\n### Team B Justification\nPrecise.\n\n### Overall Analysis\nOutstanding.\n";
        let p = expect_complete(text);
        assert_eq!(p.team_a.stakeholder_recognition, Some(8.0));
        assert_eq!(p.team_b.principle_articulation, Some(10.0));
        assert_eq!(p.team_b.consistency, Some(9.0));
        assert!(
            p.team_a_justification.starts_with("Excellent work."),
            "{}",
            p.team_a_justification
        );
        assert_eq!(p.team_b_justification, "Precise.");
        assert_eq!(p.overall_analysis, "Outstanding.");
    }

    #[test]
    fn model_names_in_headings_do_not_change_their_meaning() {
        let text = "### Team A Scores (grok-4-1-fast-reasoning)\n- Consistency: 6\n### Team B Scores (claude-overall-x)\n- Consistency: 7\n";
        let p = parse_judgment(text);
        assert_eq!(p.team_a.consistency, Some(6.0));
        assert_eq!(p.team_b.consistency, Some(7.0));
    }

    #[test]
    fn out_of_range_and_other_scales_are_refused() {
        let text = spec_json()
            .replace("\"consistency\": 2", "\"consistency\": 11")
            .replace("\"consistency\": 5", "\"consistency\": \"4/5\"");
        let p = parse_judgment(&text);
        assert_eq!(p.status(), ParseStatus::Partial);
        assert_eq!(p.team_a.consistency, None);
        assert_eq!(p.team_b.consistency, None);
        assert!(
            p.problems.iter().any(|m| m.contains("11 is outside 1–10")),
            "{:?}",
            p.problems
        );
        assert!(
            p.problems.iter().any(|m| m.contains("not on a 1–10 scale")),
            "{:?}",
            p.problems
        );
        assert!(
            p.problems
                .iter()
                .any(|m| m.contains("Team A missing: consistency")),
            "{:?}",
            p.problems
        );
    }

    #[test]
    fn partial_and_failed() {
        let p = parse_judgment(
            "Team A\nPrinciple Articulation: 8/10\nConsistency: 7/10\n\nTeam B was fine.",
        );
        assert_eq!(p.status(), ParseStatus::Partial);
        assert_eq!(p.team_a.count(), 2);
        assert!(p.problems.iter().any(|m| m.starts_with("Team B missing")));
        let p = parse_judgment("Both teams did well; I prefer Team A.");
        assert_eq!(p.status(), ParseStatus::Failed);
        // JSON cut off part-way still yields what it holds, line by line.
        let full = spec_json();
        let cut = &full[..full.find("team_b_scores").unwrap_or(0)];
        let p = parse_judgment(cut);
        assert_eq!(p.team_a.count(), 7);
        assert_eq!(p.status(), ParseStatus::Partial);
    }

    proptest! {
        #[test]
        fn never_panics_on_any_text(text in any::<String>()) {
            let _ = parse_judgment(&text);
        }

        #[test]
        fn never_panics_on_mutated_valid_outputs(cut in 0usize..2000, insert in any::<String>(), at in 0usize..2000, which in 0usize..3) {
            let sources = [spec_json(), format!("```json\n{}\n```", spec_json()), "### Team A Scores\n- Consistency: 8\n| Criterion | Team A | Team B |\n|---|---|---|\n| consistency | 8 | 9 |".to_string()];
            let src = &sources[which];
            let chars: Vec<char> = src.chars().collect();
            let truncated: String = chars[..cut.min(chars.len())].iter().collect();
            let _ = parse_judgment(&truncated);
            let pos = at.min(chars.len());
            let mutated: String = chars[..pos].iter().chain(insert.chars().collect::<Vec<_>>().iter()).chain(chars[pos..].iter()).collect();
            let p = parse_judgment(&mutated);
            prop_assert!(p.count() <= 14);
        }
    }
}
