//! A prompt in two layers, so that a provider's prompt cache can serve its first: the text
//! every request of its phase shares with the others on the same case (instructions, the
//! dilemma, the game, the question), then the round's own text (what the teams or debaters
//! said). Joined, the layers are the prompt exactly as it was written as one text; the
//! request records where the first ends (see [`ChatRequest::stable_prefix`]).

use crate::providers::ChatRequest;

/// A prompt's shared part and its round's own part.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Layered {
    /// The part shared by every round on the same case, first.
    pub stable: String,
    /// The round's own text, after it.
    pub own: String,
}

impl Layered {
    /// The two parts.
    pub fn new(stable: impl Into<String>, own: impl Into<String>) -> Self {
        Self {
            stable: stable.into(),
            own: own.into(),
        }
    }

    /// A prompt that is the same in every round on its case, whole.
    pub fn shared(stable: impl Into<String>) -> Self {
        Self::new(stable, String::new())
    }

    /// `text` split after `stable`, its start (all of it the round's own when it does not
    /// start so): for prompts written as one text whose shared part is a block of their own.
    pub fn after(text: String, stable: &str) -> Self {
        match text.strip_prefix(stable) {
            Some(own) => Self::new(stable, own),
            None => Self::new(String::new(), text),
        }
    }

    /// The prompt as one text.
    pub fn text(&self) -> String {
        format!("{}{}", self.stable, self.own)
    }

    /// A request of this prompt as its last user turn, after `system`, its shared part
    /// marked as the stable prefix.
    pub fn request(&self, system: impl Into<String>) -> ChatRequest {
        ChatRequest::new(system, self.text()).with_stable_prefix(self.stable.len())
    }
}

/// The longest common start of two texts, in bytes on a character boundary: how much of two
/// rounds' prompts a prefix cache could serve, for the tests of every protocol's layout.
pub fn common_prefix(a: &str, b: &str) -> usize {
    a.char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map_or(a.len().min(b.len()), |((i, _), _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{
        Dilemma, Phase, PhaseType, QaFormat, QuoteMatching, Round, ScheduledRound, Team, Topic,
        TurnOrder,
    };
    use crate::protocols::ethics_bowl::{EthicsBowl, EthicsBowlOptions};
    use crate::protocols::qa_debate::{QaDebate, QaRules};
    use crate::protocols::quoting::QUOTE_NOTE;
    use crate::protocols::strategy::{Judges, JudgingStrategy};
    use crate::protocols::structured_debate::{StructuredDebate, StructuredRules};
    use crate::protocols::{Protocol, Step};

    #[test]
    fn the_layers_join_into_the_prompt_and_mark_where_the_shared_part_ends() {
        let l = Layered::new("The case.\n\n", "Their answer.");
        let r = l.request("system");
        assert_eq!(r.last_user_text(), "The case.\n\nTheir answer.");
        assert_eq!(
            r.stable_split(),
            Some((0, "The case.\n\n", "Their answer."))
        );
        let whole = Layered::shared("All shared.").request("s");
        assert_eq!(whole.stable_split(), Some((0, "All shared.", "")));
        assert_eq!(
            Layered::new("", "All own.").request("s").stable_split(),
            None
        );
        assert_eq!(
            Layered::after("Topic\nSides".into(), "Topic\n"),
            Layered::new("Topic\n", "Sides")
        );
        assert_eq!(
            Layered::after("Sides".into(), "Topic\n"),
            Layered::new("", "Sides")
        );
    }

    /// Every request of a round (each debater's step, then a single judge's), every
    /// debater answering `said`.
    fn requests(p: &dyn Protocol, s: &ScheduledRound, said: &str) -> (Round, Vec<ChatRequest>) {
        let mut round = p.new_round(s).unwrap();
        for _ in 0..20 {
            let due: Vec<Step> = p
                .debate_steps(&round)
                .into_iter()
                .filter(|st| !st.is_done(&round))
                .collect();
            if due.is_empty() {
                break;
            }
            for st in due {
                round.phases.push(Phase {
                    turn: st.turn,
                    correction: st.correction,
                    ..Phase::new(st.phase_type, &st.model, said)
                });
                p.after_phase(&mut round);
            }
        }
        let mut out: Vec<ChatRequest> = p
            .debate_steps(&round)
            .iter()
            .map(|st| p.request(st, &round).unwrap())
            .collect();
        let judge = Step::new(PhaseType::Judgment, "j", &[]);
        out.push(
            JudgingStrategy::new(Judges::Single)
                .request(p, &judge, &round)
                .unwrap(),
        );
        (round, out)
    }

    /// Two rounds on the same case, between other teams saying other things: step by step,
    /// the system prompt, the turns before the last and the marked stable part are the
    /// same, the stable part holds none of the round's own text, and the common prefix of
    /// the two prompts reaches at least the mark. Returns the pairs' stable parts; the panel
    /// judges' material is checked alike.
    fn shared_prefixes(p: &dyn Protocol, case: &str, format: Option<QaFormat>) -> Vec<String> {
        let s = |id: &str, a: &str, b: &str| ScheduledRound {
            team_a: a.into(),
            team_b: b.into(),
            format,
            ..ScheduledRound::example(id, case)
        };
        let (ra, one) = requests(p, &s("r1", "a", "b"), "First round's answer.");
        let (rb, two) = requests(p, &s("r2", "c", "e"), "Second round's answer, unlike.");
        assert_eq!(one.len(), two.len());
        let mut stable = Vec::new();
        // The conversation up to the end of the stable prefix, as one text.
        let prefix = |r: &ChatRequest| {
            r.stable_split().map_or(String::new(), |(at, stable, _)| {
                let before: Vec<&str> = r.turns[..at].iter().map(|t| t.text.as_str()).collect();
                format!("{}\u{0}{}\u{0}{stable}", r.system, before.join("\u{0}"))
            })
        };
        for (x, y) in one.iter().zip(&two) {
            assert_eq!(x.system, y.system, "{}", x.tag.phase);
            let (xs, ys) = (prefix(x), prefix(y));
            assert_eq!(xs, ys, "{}", x.tag.phase);
            assert!(!xs.contains("round's answer"), "{}: {xs}", x.tag.phase);
            if let Some((at, stable, _)) = x.stable_split() {
                let (tx, ty) = (&x.turns[at].text, &y.turns[at].text);
                assert!(common_prefix(tx, ty) >= stable.len(), "{}", x.tag.phase);
            }
            stable.push(
                x.stable_split()
                    .map_or(String::new(), |(_, s, _)| s.to_string()),
            );
        }
        let (ma, mb) = (
            p.panel_material(&ra).unwrap(),
            p.panel_material(&rb).unwrap(),
        );
        assert_eq!(ma.stable, mb.stable);
        assert!(!ma.stable.is_empty() && !ma.stable.contains("round's answer"));
        stable
    }

    #[test]
    fn ethics_bowl_rounds_on_a_dilemma_share_the_case_before_the_teams_text() {
        let p = EthicsBowl::new(
            [Dilemma {
                id: "d".into(),
                title: "D".into(),
                category: "C".into(),
                core_scenario: "A hard case.".into(),
                complications: vec!["It gets harder.".into()],
                questions: vec!["What should be done?".into()],
                asymmetric_features: vec!["One side owes more.".into()],
                consistency_case: "A parallel case.".into(),
                metadata: Default::default(),
            }],
            EthicsBowlOptions {
                consistency_test_both_teams: true,
                judge_sees_model_names: true,
            },
        );
        let stable = shared_prefixes(&p, "d", None);
        // Presentation, response, rebuttal, two consistency tests, the judge.
        assert_eq!(stable.len(), 6);
        assert!(stable[0].contains("A hard case.") && stable[0].contains("What should be done?"));
        assert!(stable[1].contains("A hard case.") && stable[1].contains("One side owes more."));
        assert!(stable.iter().all(|s| !s.is_empty()));
        assert!(stable[1].contains("In your response:\n1. Agree"));
        assert!(stable[2].contains("In your rebuttal:\n1. Acknowledge"));
        // The judge's instructions are shared: the criteria, the readings of the tests and
        // the answer format come before the case; the round's own part is the exchange and
        // a one-sentence reminder.
        let judge = stable.last().unwrap();
        assert!(judge.starts_with("## Your role: judge") && judge.contains("A hard case."));
        for part in [
            "Score each team with a whole number from 1 to 10",
            "- constructive_engagement",
            "say in \"consistency_tests\"",
            "Answer with one JSON object and nothing else",
            "\"overall_analysis\"",
        ] {
            assert!(judge.contains(part), "{part}: {judge}");
        }
        let (_, one) = requests(&p, &ScheduledRound::example("r1", "d"), "Said.");
        let (_, _, own) = one.last().unwrap().stable_split().unwrap();
        assert!(own.starts_with("=== TEAM A (a) PRESENTATION ==="), "{own}");
        let (_, after) = own.split_once("=== END OF ROUND ===\n\n").unwrap();
        assert!(
            after.starts_with("Score both teams") && after.len() < 200,
            "{after}"
        );
        assert!(
            judge.len() > own.len(),
            "most of the judge's prompt is shared"
        );
    }

    #[test]
    fn question_answer_turns_on_an_item_share_the_game_before_the_transcript() {
        let (item, sampled) = crate::protocols::qa_debate::example_item(Team::A);
        let p = QaDebate::new(
            [(item, sampled)],
            QaRules {
                debate_rounds: 2,
                word_limit: 100,
                turn_order: TurnOrder::Sequential,
                quote_matching: QuoteMatching::Whole,
            },
        );
        let stable = shared_prefixes(&p, "t-0", Some(QaFormat::Debate));
        // Two debaters over two rounds, then the judge.
        assert_eq!(stable.len(), 5);
        for debater in &stable[..4] {
            assert!(debater.starts_with("<game>") && debater.contains("The cat has 5 friends."));
        }
        let judge = stable.last().unwrap();
        assert!(judge.contains("Does the cat attack the dog?") && !judge.contains("<game>"));
        assert!(judge.ends_with(&format!("{QUOTE_NOTE}\n\n")), "{judge}");
        // A debater's turns: the game shared, then the transcript, which only grows from a
        // debater's turn to its next, so a later turn starts with the earlier one up to the
        // end of its transcript; the round's request comes after it.
        let s = ScheduledRound {
            format: Some(QaFormat::Debate),
            ..ScheduledRound::example("r1", "t-0")
        };
        let (_, turns) = requests(&p, &s, "Said.");
        let turn = |tag: &str| {
            turns
                .iter()
                .find(|r| r.tag.phase == format!("qa_argument/{tag}"))
                .map(|r| r.last_user_text())
                .unwrap()
        };
        let (first, second) = (turn("B1"), turn("B2"));
        let end = first.find("\n</transcript>").unwrap();
        assert!(
            common_prefix(first, second) >= end,
            "{first}\n---\n{second}"
        );
        assert!(first.find("Now construct") > Some(end), "{first}");
    }

    #[test]
    fn structured_debates_on_a_topic_share_the_opening_and_the_judges_topic() {
        let p = StructuredDebate::new(
            [Topic {
                id: "t".into(),
                proposition: "A ten-person startup should adopt microservices.".into(),
                context: Some("It ships weekly.".into()),
            }],
            StructuredRules::default(),
        );
        let stable = shared_prefixes(&p, "t", None);
        assert!(stable[0].starts_with("Opening statement."), "{}", stable[0]);
        assert!(
            stable
                .iter()
                .filter(|s| s.starts_with("Opening statement."))
                .count()
                >= 2,
            "both sides' openings, and their correction turns after them"
        );
        // Cross-examination and closing: what to do and the reply's form are shared; the
        // sides' arguments follow.
        let stage = |start: &str| stable.iter().find(|s| s.starts_with(start)).unwrap();
        assert!(stage("Cross-examination.").contains("Reply with only this JSON"));
        assert!(!stage("Cross-examination.").contains("opening arguments:"));
        assert!(stage("Closing statement.").contains("3. Final position"));
        assert!(!stage("Closing statement.").contains("The debate so far"));
        let judge = stable.last().unwrap();
        assert!(judge.contains("microservices"), "{judge}");
        // The arguments to assess and the answer format (which name the round's arguments)
        // open the round's own part, before the sides' texts; a reminder closes it.
        let (_, one) = requests(&p, &ScheduledRound::example("r1", "t"), "Said.");
        let (_, _, own) = one.last().unwrap().stable_split().unwrap();
        assert!(own.starts_with("Assess every argument ("), "{own}");
        assert!(own.find("exactly this format") < own.find("## PRO: opening arguments"));
        assert!(own.ends_with("reply in the format given above."), "{own}");
    }

    #[test]
    fn the_common_prefix_stops_at_the_first_difference_on_a_boundary() {
        assert_eq!(common_prefix("abcé1", "abcé2"), 5);
        assert_eq!(common_prefix("abc", "abcdef"), 3);
        assert_eq!(common_prefix("é", "è"), 0);
    }
}
