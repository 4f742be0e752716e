//! Reads a question-answer judge's choice and confidence from what models actually send:
//! the requested JSON object (`answer`, `confidence`: its keys are read before any prose in
//! its reasoning or rationale), or `Answer: A` / `Confidence: 80` lines, with Markdown
//! emphasis, brackets, "Debater A", a percentage or a 0–1 probability. Otherwise the last
//! answer given wins (models reason first, then answer). Only the judge's own part of the
//! answer is read: JSON answers quoted from the debaters are left out, and an answer whose
//! JSON answers disagree is not read at all (see [`own`](crate::protocols::judging::own)).

use serde_json::Value;

use crate::domain::{Label, QaChoice, Team};
use crate::protocols::judging::own::{Claims, JudgeAnswer, OwnText, Quoted, own_text};
use crate::protocols::judging::score_value;
use crate::protocols::lenient_json;

/// What was read, and what could not be.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadVerdict {
    /// The side chosen, when found.
    pub side: Option<Team>,
    /// The confidence (0–100), when found and valid.
    pub confidence: Option<f64>,
    /// What is missing or invalid, for the review queue.
    pub problems: Vec<String>,
}

impl ReadVerdict {
    /// The choice, when a side was found.
    pub fn choice(&self) -> Option<QaChoice> {
        self.side.map(|side| QaChoice {
            side,
            confidence: self.confidence,
        })
    }
}

/// The text after the last occurrence of `key` (case-insensitive) that is followed by a
/// separator, on the same line.
fn after_last_key<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let lower = text.to_lowercase();
    // Lower-casing can change byte lengths outside ASCII; only trust positions when it did not.
    if lower.len() != text.len() {
        return None;
    }
    let mut found = None;
    for (i, _) in lower.match_indices(key) {
        let rest = &text[i + key.len()..];
        let rest = rest.trim_start_matches(['*', '_', '"', '\'', ' ']);
        if rest.starts_with([':', '=', '-']) || rest.to_lowercase().starts_with("is ") {
            found = Some(rest);
        }
    }
    found.map(|r| r.lines().next().unwrap_or(""))
}

/// A side named at the start of a value (`A`, `(B)`, `**Debater A**`, `"b"`).
fn side_in(value: &str) -> Option<Team> {
    let v = value
        .trim_start_matches([':', '=', '-', ' ', '*', '_', '"', '\'', '(', '['])
        .trim_start();
    let v = v
        .strip_prefix("is ")
        .or_else(|| v.strip_prefix("Is "))
        .unwrap_or(v)
        .trim_start_matches([' ', '*', '_', '"', '\'', '(', '[']);
    let lower = v.to_lowercase();
    let v = ["debater ", "answer ", "option ", "side "]
        .iter()
        .find_map(|p| lower.strip_prefix(p))
        .unwrap_or(&lower);
    let mut chars = v.chars();
    let side = match chars.next()? {
        'a' => Team::A,
        'b' => Team::B,
        _ => return None,
    };
    chars
        .next()
        .is_none_or(|c| !c.is_alphanumeric())
        .then_some(side)
}

/// The first number in a value, as a confidence from 0 to 100 (`0.8` means 80).
fn confidence_in(value: &str) -> Result<f64, String> {
    let start = value
        .find(|c: char| c.is_ascii_digit())
        .ok_or_else(|| format!("no number after \"confidence\" ({})", value.trim()))?;
    let number: String = value[start..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let n: f64 = number
        .trim_end_matches('.')
        .parse()
        .map_err(|_| format!("\"{number}\" is not a number"))?;
    let percent = value[start + number.len()..].trim_start().starts_with('%');
    let n = if !percent && n <= 1.0 && number.contains('.') {
        n * 100.0
    } else {
        n
    };
    if (0.0..=100.0).contains(&n) {
        Ok(n)
    } else {
        Err(format!("confidence {n} is not between 0 and 100"))
    }
}

/// The `answer` and the `confidence` (as text) of the reply's JSON objects, when it has them.
fn json_keys(raw: &str) -> (Option<Team>, Option<String>) {
    let objects = lenient_json::objects(raw);
    let answer = objects
        .iter()
        .find_map(|o| o.get("answer").and_then(Value::as_str))
        .and_then(side_in);
    let confidence = objects
        .iter()
        .find_map(|o| o.get("confidence"))
        .map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        });
    (answer, confidence)
}

/// What one JSON object of a reply says alone: the answer (a side or a label), the
/// confidence, and the debaters' scores a panel judge gives (`debater_a_scores`).
fn claims(_before: &str, value: &Value) -> Claims {
    let mut out = Claims::new();
    if let Some(answer) = value
        .get("answer")
        .or_else(|| value.get("label"))
        .and_then(Value::as_str)
    {
        let side = side_in(answer).map(|side| match side {
            Team::A => "A",
            Team::B => "B",
        });
        if let Some(named) = side.or_else(|| label_in(answer).map(Label::as_str)) {
            out.insert("answer".into(), named.to_string());
        }
    }
    let confidence = value.get("confidence").map(|v| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    });
    if let Some(Ok(c)) = confidence.as_deref().map(confidence_in) {
        out.insert("confidence".into(), c.to_string());
    }
    for (key, scores) in value.as_object().into_iter().flatten() {
        let Some(scores) = scores.as_object().filter(|_| key.ends_with("_scores")) else {
            continue;
        };
        for (dimension, v) in scores {
            if let Ok(v) = score_value(v) {
                out.insert(format!("{key}.{dimension}"), v.to_string());
            }
        }
    }
    out
}

/// The judge's own part of a reply (see [`own`](crate::protocols::judging::own)), each
/// JSON object read as the readers here read it.
pub fn own_reply(answer: JudgeAnswer<'_>, quoted: &Quoted<'_>) -> Result<OwnText, String> {
    own_text(answer, quoted, claims)
}

/// Reads a reply written outside any round (a person's correction in the review editor):
/// its JSON answers must agree, and none is a quotation, since there is nothing to quote.
pub fn read_verdict(raw: &str) -> ReadVerdict {
    read_own_verdict(JudgeAnswer::free_text(raw), &Quoted::none())
}

/// Reads a judge's reply in a round: its own part (answers quoted from the debaters left
/// out; nothing read when its answers disagree, with the reason).
pub fn read_own_verdict(answer: JudgeAnswer<'_>, quoted: &Quoted<'_>) -> ReadVerdict {
    match own_reply(answer, quoted) {
        Ok(own) => {
            let mut read = read_text(&own.text);
            let complete =
                read.side.is_some() && read.confidence.is_some() && read.problems.is_empty();
            own.explain(complete, &mut read.problems);
            read
        }
        Err(reason) => ReadVerdict {
            side: None,
            confidence: None,
            problems: vec![reason],
        },
    }
}

/// Reads the text of a reply.
fn read_text(raw: &str) -> ReadVerdict {
    let mut problems = Vec::new();
    let (json_answer, json_confidence) = json_keys(raw);
    let side = json_answer
        .or_else(|| after_last_key(raw, "answer").and_then(side_in))
        .or_else(|| {
            // A reply whose last non-empty line is just the letter.
            raw.lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .filter(|l| l.trim().len() <= 12)
                .and_then(side_in)
        });
    if side.is_none() {
        problems.push("no answer (expected a line \"Answer: A\" or \"Answer: B\")".into());
    }
    let confidence = match json_confidence
        .as_deref()
        .or_else(|| after_last_key(raw, "confidence"))
    {
        Some(value) => match confidence_in(value) {
            Ok(c) => Some(c),
            Err(e) => {
                problems.push(e);
                None
            }
        },
        None => {
            problems.push("no confidence (expected a line \"Confidence: 0-100\")".into());
            None
        }
    };
    ReadVerdict {
        side,
        confidence,
        problems,
    }
}

/// What was read from a three-way baseline's reply, and what could not be.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadLabel {
    /// The label given, when found.
    pub label: Option<Label>,
    /// What is missing, for the review queue.
    pub problems: Vec<String>,
}

/// A label named at the start of a value (`proved`, `"Disproved"`, `**unknown**`).
fn label_in(value: &str) -> Option<Label> {
    let v = value
        .trim_start_matches([':', '=', '-', ' ', '*', '_', '"', '\'', '(', '['])
        .trim_start();
    let v = v
        .strip_prefix("is ")
        .or_else(|| v.strip_prefix("Is "))
        .unwrap_or(v)
        .trim_start_matches([' ', '*', '_', '"', '\'', '(', '[']);
    let word: String = v
        .chars()
        .take_while(|c| c.is_alphabetic())
        .collect::<String>()
        .to_lowercase();
    Label::parse(&word)
}

/// Reads a three-way baseline's reply, its own part (see [`read_own_verdict`]): the JSON
/// object's `answer` (or `label`), else the last `Answer: …` line, else a last line that is
/// just the label.
pub fn read_label(answer: JudgeAnswer<'_>, quoted: &Quoted<'_>) -> ReadLabel {
    let own = match own_reply(answer, quoted) {
        Ok(own) => own,
        Err(reason) => {
            return ReadLabel {
                label: None,
                problems: vec![reason],
            };
        }
    };
    let raw = own.text.as_str();
    let objects = lenient_json::objects(raw);
    let label = objects
        .iter()
        .find_map(|o| o.get("answer").or_else(|| o.get("label")))
        .and_then(Value::as_str)
        .and_then(label_in)
        .or_else(|| after_last_key(raw, "answer").and_then(label_in))
        .or_else(|| {
            raw.lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .filter(|l| l.trim().len() <= 14)
                .and_then(label_in)
        });
    let mut problems = if label.is_none() {
        vec!["no label (expected \"answer\": \"proved\", \"disproved\" or \"unknown\")".into()]
    } else {
        Vec::new()
    };
    own.explain(label.is_some(), &mut problems);
    ReadLabel { label, problems }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn read(raw: &str) -> (Option<Team>, Option<f64>) {
        let v = read_verdict(raw);
        (v.side, v.confidence)
    }

    #[test]
    fn the_requested_lines() {
        assert_eq!(
            read("Reasoning…\nAnswer: A\nConfidence: 80"),
            (Some(Team::A), Some(80.0))
        );
        assert_eq!(
            read("answer: b\nconfidence: 55%"),
            (Some(Team::B), Some(55.0))
        );
    }

    #[test]
    fn what_models_send() {
        assert_eq!(
            read("**Answer:** (B)\n**Confidence:** 0.7"),
            (Some(Team::B), Some(70.0))
        );
        assert_eq!(
            read("Final answer: Debater A\nConfidence - 90/100"),
            (Some(Team::A), Some(90.0))
        );
        assert_eq!(
            read("{\"answer\": \"B\", \"confidence\": 65}"),
            (Some(Team::B), Some(65.0))
        );
        assert_eq!(
            read("My answer is A. Confidence: 1"),
            (Some(Team::A), Some(1.0))
        );
        assert_eq!(
            read("The answer: A seems weak.\nAnswer: B\nConfidence: 60"),
            (Some(Team::B), Some(60.0)),
            "the last answer wins"
        );
        assert_eq!(read("Thinking it over.\n\nB"), (Some(Team::B), None));
        assert_eq!(
            read(
                "{\"answer\": \"A\", \"confidence\": 0.8, \"rationale\": \"The answer is B, says the liar.\"}"
            ),
            (Some(Team::A), Some(80.0)),
            "a JSON answer's own keys come before its prose"
        );
    }

    #[test]
    fn what_is_not_an_answer() {
        let v = read_verdict("Answer: Both are plausible.\nConfidence: 150");
        assert_eq!(v.side, None);
        assert_eq!(v.confidence, None);
        assert_eq!(v.problems.len(), 2, "{:?}", v.problems);
        assert_eq!(
            read("Answer: Absolutely A").0,
            None,
            "a word starting with a is not A"
        );
        assert!(read_verdict("").problems.len() == 2);
    }

    #[test]
    fn json_answers_that_disagree_are_not_read() {
        let v = read_verdict(
            "Debater B insists: {\"answer\": \"B\", \"confidence\": 99}\nMy verdict: {\"answer\": \"A\", \"confidence\": 70}",
        );
        assert_eq!((v.side, v.confidence), (None, None));
        assert_eq!(
            v.problems,
            [
                "the answer holds 2 judgments that disagree (answer: B against A); one may be \
              quoted from a debater, so none was read: pick one by hand"
            ]
        );
        // The same answer twice, written two ways, reads as one.
        assert_eq!(
            read(
                "{\"answer\": \"A\", \"confidence\": 70}\nAgain: {\"confidence\": \"70%\", \"answer\": \"Debater A\"}"
            ),
            (Some(Team::A), Some(70.0))
        );
        let label = read_label(
            JudgeAnswer::free_text("{\"answer\": \"proved\"} or rather {\"answer\": \"unknown\"}"),
            &Quoted::none(),
        );
        assert_eq!(label.label, None);
        assert!(label.problems[0].contains("(answer: proved against unknown)"));
    }

    #[test]
    fn three_way_labels() {
        let label = |raw: &str| read_label(JudgeAnswer::free_text(raw), &Quoted::none()).label;
        assert_eq!(label("{\"answer\": \"unknown\"}"), Some(Label::Unknown));
        assert_eq!(
            label(
                "{\"thinking\": \"The answer is proved, it seems.\", \"argument\": \"Rule1 applies.\", \"answer\": \"disproved\"}"
            ),
            Some(Label::Disproved),
            "the answer key, not the prose"
        );
        assert_eq!(label("Reasoning.\n**Answer:** Proved"), Some(Label::Proved));
        assert_eq!(label("After all that:\ndisproved"), Some(Label::Disproved));
        assert_eq!(label("Answer: A"), None);
        assert_eq!(
            read_label(JudgeAnswer::free_text("Answer: provable"), &Quoted::none())
                .problems
                .len(),
            1
        );
    }

    proptest! {
        #[test]
        fn never_panics(raw in "\\PC{0,300}") {
            let _ = read_verdict(&raw);
        }

        /// Several JSON answers among words: read when they all agree, never when two
        /// disagree.
        #[test]
        fn several_json_answers_are_read_only_when_they_agree(
            answers in prop::collection::vec(
                (prop::sample::select(vec!["A", "B"]), prop::sample::select(vec![70u8, 80])),
                1..4,
            ),
            junk in "[ .\n]{0,6}",
        ) {
            let text: String = answers
                .iter()
                .map(|(a, c)| format!("{{\"answer\": \"{a}\", \"confidence\": {c}}}{junk}"))
                .collect();
            let v = read_verdict(&text);
            let (a, c) = answers[0];
            if answers.iter().all(|x| *x == (a, c)) {
                let side = if a == "A" { Team::A } else { Team::B };
                prop_assert_eq!((v.side, v.confidence), (Some(side), Some(f64::from(c))));
            } else {
                prop_assert_eq!((v.side, v.confidence), (None, None));
            }
        }

        /// Several answer objects (cut, nested, repeated) among words: no panic.
        #[test]
        fn never_panics_on_several_objects(
            parts in prop::collection::vec(
                (prop::sample::select(vec!["A", "B", "Debater A", "proved", "x", ""]),
                 prop::sample::select(vec!["70", "\"0.8\"", "150", "null", "{}"]),
                 "[ a-z{}\n\"]{0,6}"),
                0..6,
            ),
        ) {
            let text: String = parts
                .iter()
                .map(|(a, c, junk)| format!("{{\"answer\": \"{a}\", \"confidence\": {c}}}{junk}"))
                .collect();
            let _ = read_verdict(&text);
            let _ = read_label(JudgeAnswer::free_text(&text), &Quoted::none());
        }

        #[test]
        fn mutations_of_a_valid_reply_never_panic(cut in 0usize..40, insert in "\\PC{0,10}") {
            let valid = "Answer: A\nConfidence: 80";
            let at = valid.char_indices().nth(cut % valid.len()).map_or(0, |(i, _)| i);
            let raw = format!("{}{insert}{}", &valid[..at], &valid[at..]);
            let _ = read_verdict(&raw);
        }
    }
}
