//! What the judge and the opponent see of an argument: the private `<thinking>` removed, the
//! text cut at the word limit, and every `<quote>` checked against the game and shown as
//! `<v_quote>` (verified) or `<u_quote>` (not).
//!
//! The game's units are the source notebook's: each sentence of the facts, each `RuleN: …`
//! of the rules, each sentence of the preferences. With case, punctuation and spacing
//! normalised, a quote is verified ([`QuoteMatching::Whole`], the default, the notebook's
//! checker) only when it *is* one unit: a whole fact, a whole rule (with or without its
//! `RuleN:` label) or a whole preference; or ([`QuoteMatching::Fragment`], this tool's rule
//! before the option) when it is a contiguous run of whole words of one unit, so that a
//! rule's consequent ("then the cat attacks the dog") verifies. Tags a model writes itself as
//! `<v_quote>` are re-checked like any quote, so a debater cannot forge a verification.

use crate::domain::{QaSetup, QuoteMatching};

/// The game's units, normalised, and the rule quotes are checked by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameText {
    /// Each unit as a whole quote must equal it (a rule also without its label).
    whole: Vec<String>,
    /// Each unit padded with spaces, for whole-word fragment matching.
    padded: Vec<String>,
    /// Which quotes verify.
    matching: QuoteMatching,
}

impl GameText {
    /// The units of the facts, each rule, and the preferences, checked as the notebook does
    /// (whole units only).
    pub fn new(facts: &str, rules: &str, preferences: &str) -> Self {
        let mut units: Vec<String> = Vec::new();
        for text in [facts, preferences] {
            units.extend(split_sentences(text).iter().map(|s| normalise(s)));
        }
        let rules: Vec<String> = split_rules(rules).iter().map(|r| normalise(r)).collect();
        let mut whole: Vec<String> = units.clone();
        for rule in &rules {
            whole.push(rule.clone());
            if let Some(body) = without_label(rule) {
                whole.push(body.to_string());
            }
        }
        units.extend(rules);
        let keep = |s: &String| s.trim().len() > 1;
        Self {
            whole: whole.into_iter().filter(keep).collect(),
            padded: units
                .into_iter()
                .filter(keep)
                .map(|s| format!(" {s} "))
                .collect(),
            matching: QuoteMatching::Whole,
        }
    }

    /// The same game, checked by `matching`.
    pub fn with_matching(self, matching: QuoteMatching) -> Self {
        Self { matching, ..self }
    }

    /// A round's game, checked as that round's quotes were (its `quote_matching`).
    pub fn of(setup: &QaSetup) -> Self {
        Self::new(&setup.facts, &setup.rules, &setup.preferences)
            .with_matching(setup.quote_matching)
    }

    /// Whether the quote verifies: it is one unit, or with fragment matching a run of whole
    /// words of one.
    pub fn contains(&self, quote: &str) -> bool {
        let q = normalise(quote);
        if q.is_empty() {
            return false;
        }
        match self.matching {
            QuoteMatching::Whole => self.whole.contains(&q),
            QuoteMatching::Fragment => {
                let q = format!(" {q} ");
                self.padded.iter().any(|s| s.contains(&q))
            }
        }
    }

    /// How many units (sentences and rules) the game has.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.padded.len()
    }
}

/// A normalised rule without its leading `ruleN` label, when it has one.
fn without_label(rule: &str) -> Option<&str> {
    let rest = rule.strip_prefix("rule")?;
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let body = rest[digits..].strip_prefix(' ')?;
    (digits > 0 && !body.is_empty()).then_some(body)
}

/// Lower case, letters and digits kept, everything else one space.
pub fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut gap = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if gap && !out.is_empty() {
                out.push(' ');
            }
            gap = false;
            out.extend(c.to_lowercase());
        } else if c != '\'' && c != '\u{2019}' {
            // An apostrophe joins ("doesn't" stays one word); anything else separates.
            gap = true;
        }
    }
    out
}

/// Sentences end at `.`, `!` or `?` followed by white space or the end.
pub fn split_sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (n, (i, c)) in chars.iter().enumerate() {
        let at_end = chars
            .get(n + 1)
            .is_none_or(|(_, next)| next.is_whitespace());
        if matches!(c, '.' | '!' | '?') && at_end {
            let end = i + c.len_utf8();
            let s = text[start..end].trim();
            if !s.is_empty() {
                out.push(s.to_string());
            }
            start = end;
        }
    }
    let rest = text[start..].trim();
    if !rest.is_empty() {
        out.push(rest.to_string());
    }
    out
}

/// Each `RuleN: …` is one unit, however many sentences it has.
pub fn split_rules(rules: &str) -> Vec<String> {
    let mut starts: Vec<usize> = rules
        .match_indices("Rule")
        .filter(|(i, _)| {
            let rest = &rules[i + 4..];
            let digits = rest.chars().take_while(char::is_ascii_digit).count();
            digits > 0 && rest[digits..].starts_with(':')
        })
        .map(|(i, _)| i)
        .collect();
    if starts.first() != Some(&0) {
        starts.insert(0, 0);
    }
    starts.push(rules.len());
    starts
        .windows(2)
        .map(|w| rules[w[0]..w[1]].trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// An argument as others see it, and what was found in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShownArgument {
    /// The argument with quotes marked, cut at the word limit.
    pub text: String,
    /// The private reasoning (never shown to the judge or the opponent).
    pub thinking: String,
    /// Words before the cut.
    pub words: usize,
    /// Whether it was cut at the word limit.
    pub cut: bool,
    /// Quotes found in the game.
    pub verified: u32,
    /// Quotes not found.
    pub unverified: u32,
}

/// The text between every `<tag>` and `</tag>`, and the text with those blocks removed.
fn take_blocks(text: &str, tag: &str) -> (Vec<String>, String) {
    let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
    let mut blocks = Vec::new();
    let mut rest = String::new();
    let mut s = text;
    while let Some(i) = s.find(&open) {
        rest.push_str(&s[..i]);
        let after = &s[i + open.len()..];
        match after.find(&close) {
            Some(j) => {
                blocks.push(after[..j].trim().to_string());
                s = &after[j + close.len()..];
            }
            None => {
                blocks.push(after.trim().to_string());
                s = "";
            }
        }
    }
    rest.push_str(s);
    (blocks, rest)
}

/// Processes a debater's reply: thinking removed, the `<argument>` kept (or, without one,
/// what is left), forged verification tags turned back into plain quotes, the text cut at
/// `word_limit` words (an open quote is closed), and each quote checked.
pub fn show_argument(raw: &str, word_limit: usize, game: &GameText) -> ShownArgument {
    let (thinking, rest) = take_blocks(raw, "thinking");
    let (arguments, rest) = take_blocks(&rest, "argument");
    let body = if arguments.is_empty() {
        rest.trim().to_string()
    } else {
        arguments.join("\n\n")
    };
    // Only the checker below writes verification tags: any the debater wrote, in any
    // letter case or with attributes, become plain quotes to be checked like the others.
    let body = crate::protocols::quoting::rewrite_tags(&body, &["v_quote", "u_quote"], |tag| {
        if tag.starts_with("</") {
            "</quote>".to_string()
        } else {
            "<quote>".to_string()
        }
    });
    let words = body.split_whitespace().count();
    let cut = words > word_limit;
    let mut body = if cut {
        let end = body
            .split_whitespace()
            .nth(word_limit)
            .map(|w| w.as_ptr() as usize - body.as_ptr() as usize)
            .unwrap_or(body.len());
        body[..end].trim_end().to_string()
    } else {
        body
    };
    if body.matches("<quote>").count() > body.matches("</quote>").count() {
        body.push_str("</quote>");
    }
    let mut text = String::with_capacity(body.len() + 16);
    let (mut verified, mut unverified) = (0, 0);
    let mut s = body.as_str();
    while let Some(i) = s.find("<quote>") {
        text.push_str(&s[..i]);
        let after = &s[i + "<quote>".len()..];
        let (quote, next) = match after.find("</quote>") {
            Some(j) => (&after[..j], &after[j + "</quote>".len()..]),
            None => (after, ""),
        };
        let tag = if game.contains(quote) {
            verified += 1;
            "v_quote"
        } else {
            unverified += 1;
            "u_quote"
        };
        text.push_str(&format!("<{tag}>{}</{tag}>", quote.trim()));
        s = next;
    }
    text.push_str(s);
    if cut {
        text.push_str(" [cut at the word limit]");
    }
    ShownArgument {
        text: text.trim().to_string(),
        thinking: thinking.join("\n\n"),
        words,
        cut,
        verified,
        unverified,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn game() -> GameText {
        GameText::new(
            "The cat has 5 friends. The dog does not eat the bear's food.",
            "Rule1: If the cat has more than 3 friends, then the cat attacks the dog. Rule2: Regarding the bear, if it is named Lucy, then it does not call the owl.",
            "Rule2 is preferred over Rule1.",
        )
    }

    #[test]
    fn splits_facts_rules_and_preferences() {
        let g = game();
        assert_eq!(g.len(), 5);
        assert_eq!(
            split_rules("Rule1: a b. Rule2: c. Rule10: d"),
            vec!["Rule1: a b.", "Rule2: c.", "Rule10: d"]
        );
    }

    #[test]
    fn the_notebooks_checker_verifies_whole_facts_rules_and_preferences_only() {
        let g = game();
        assert!(g.contains("The cat has 5 friends."), "a whole fact");
        assert!(
            g.contains("the CAT has 5 friends"),
            "case and punctuation aside"
        );
        assert!(
            g.contains("  the dog does not eat the bear’s food"),
            "spacing, curly apostrophe"
        );
        assert!(
            g.contains("Rule1: If the cat has more than 3 friends, then the cat attacks the dog."),
            "a whole rule with its label"
        );
        assert!(
            g.contains("if the cat has more than 3 friends then the cat attacks the dog"),
            "a whole rule without its label"
        );
        assert!(
            g.contains("Rule2 is preferred over Rule1"),
            "a whole preference"
        );
        // Fragments: the misleading quotes BoardgameQA invites.
        for fragment in [
            "then the cat attacks the dog",
            "the cat attacks the dog",
            "it does not call the owl",
            "The cat has 5",
            "Rule1: If the cat has more than 3 friends",
            "preferred over Rule1",
        ] {
            assert!(
                !g.contains(fragment),
                "a fragment is unverified: {fragment}"
            );
        }
        assert!(
            !g.contains("The cat has 5 friends. The dog does not eat the bear's food."),
            "two facts in one quote are no one fact"
        );
        assert!(!g.contains("Rule1"), "a label alone");
        assert!(!g.contains("the cat has 6 friends"), "invented");
        assert!(!g.contains("  ...  "), "nothing to quote");
    }

    #[test]
    fn fragment_matching_verifies_any_run_of_whole_words_of_one_unit() {
        let g = game().with_matching(QuoteMatching::Fragment);
        assert!(g.contains("The cat has 5 friends."), "exact");
        assert!(g.contains("then the cat attacks the dog"), "part of a rule");
        assert!(g.contains("Rule2 is preferred over Rule1"), "a preference");
        assert!(!g.contains("the cat has 6 friends"), "invented");
        assert!(
            !g.contains("cat attacks the dog. Rule2"),
            "across two units"
        );
        assert!(!g.contains("at has 5"), "a broken word is not a whole word");
        assert!(!g.contains("  ...  "), "nothing to quote");
    }

    #[test]
    fn a_round_is_checked_by_its_own_rule() {
        let mut setup: QaSetup = serde_json::from_value(serde_json::json!({
            "item_id": "t", "level": "T", "format": "debate", "question": "q?",
            "facts": "The cat has 5 friends.",
            "rules": "Rule1: If the cat has more than 3 friends, then the cat attacks the dog.",
            "preferences": "", "label": "proved",
            "assignment": {"answer_a": "proved", "answer_b": "disproved", "correct_side": "A", "first": "A"},
            "debate_rounds": 3, "word_limit": 150
        }))
        .unwrap();
        assert_eq!(
            setup.quote_matching,
            QuoteMatching::Fragment,
            "a round file from before the option was checked by fragments"
        );
        assert!(GameText::of(&setup).contains("then the cat attacks the dog"));
        setup.quote_matching = QuoteMatching::Whole;
        assert!(!GameText::of(&setup).contains("then the cat attacks the dog"));
        let written = serde_json::to_value(&setup).unwrap();
        assert_eq!(written["quote_matching"], "whole");
    }

    #[test]
    fn argument_is_marked_and_thinking_removed() {
        let raw = "<thinking>They will lie.</thinking><argument>We know <quote>the cat has 5 friends</quote> and <quote>the cat has 9 friends</quote>, and <v_quote>the owl wins</v_quote>.</argument>";
        let shown = show_argument(raw, 150, &game());
        assert_eq!(
            shown.text,
            "We know <v_quote>the cat has 5 friends</v_quote> and <u_quote>the cat has 9 friends</u_quote>, and <u_quote>the owl wins</u_quote>."
        );
        assert_eq!(shown.thinking, "They will lie.");
        assert_eq!((shown.verified, shown.unverified, shown.cut), (1, 2, false));
    }

    #[test]
    fn word_limit_cuts_and_closes_an_open_quote() {
        let raw = "<argument>one two three <quote>the cat has 5 friends</quote> seven</argument>";
        let shown = show_argument(raw, 5, &game());
        assert!(shown.cut && shown.words == 9);
        // What is left of the quote is a fragment: unverified by the notebook's checker.
        assert_eq!(
            shown.text,
            "one two three <u_quote>the cat</u_quote> [cut at the word limit]"
        );
        let fragments = game().with_matching(QuoteMatching::Fragment);
        assert_eq!(
            show_argument(raw, 5, &fragments).text,
            "one two three <v_quote>the cat</v_quote> [cut at the word limit]"
        );
        let at_limit = show_argument("<argument>a b c</argument>", 3, &game());
        assert!(!at_limit.cut && at_limit.text == "a b c");
    }

    #[test]
    fn reply_without_tags_is_the_argument() {
        let shown = show_argument(
            "Plain text, <quote>Rule2 is preferred over Rule1</quote>",
            150,
            &game(),
        );
        assert_eq!(shown.verified, 1);
        assert!(shown.text.starts_with("Plain text"));
    }

    proptest! {
        #[test]
        fn never_panics(raw in ".{0,400}", limit in 0usize..50) {
            let shown = show_argument(&raw, limit, &game());
            prop_assert!(shown.text.split_whitespace().count() <= limit + 6 || !shown.cut);
        }

        #[test]
        fn tags_in_any_order_never_panic(parts in proptest::collection::vec(prop_oneof![
            Just("<quote>"), Just("</quote>"), Just("<thinking>"), Just("</thinking>"),
            Just("<argument>"), Just("</argument>"), Just("<v_quote>"), Just("the cat "), Just("é ")
        ], 0..30), limit in 0usize..20) {
            let raw: String = parts.concat();
            let _ = show_argument(&raw, limit, &game());
        }
    }
}
