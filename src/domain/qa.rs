//! The question-answer debate's data: BoardgameQA items, the answers assigned to each side,
//! and what a round records about quotes, word limits and the judge's choice.

use serde::{Deserialize, Serialize};

use super::Team;

/// A BoardgameQA answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Label {
    /// The rules and facts establish the statement.
    Proved,
    /// They establish its negation.
    Disproved,
    /// They establish neither.
    Unknown,
}

impl Label {
    /// The three labels, in the dataset's order.
    pub const ALL: [Label; 3] = [Self::Proved, Self::Disproved, Self::Unknown];

    /// The dataset's word.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Proved => "proved",
            Self::Disproved => "disproved",
            Self::Unknown => "unknown",
        }
    }

    /// The label with this dataset word.
    pub fn parse(word: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.as_str() == word)
    }

    /// The next label around the source notebook's cycle, proved → disproved → unknown →
    /// proved: the wrong answer handed out against this label.
    pub fn next(self) -> Self {
        match self {
            Self::Proved => Self::Disproved,
            Self::Disproved => Self::Unknown,
            Self::Unknown => Self::Proved,
        }
    }

    /// The answer as debaters defend it and judges read it.
    pub fn answer(self) -> &'static str {
        match self {
            Self::Proved => "Yes: the game's state, rules and preferences prove it",
            Self::Disproved => "No: the game's state, rules and preferences disprove it",
            Self::Unknown => {
                "Unknown: the game's state, rules and preferences neither prove nor disprove it"
            }
        }
    }
}

/// One BoardgameQA item, as loaded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QaItem {
    /// `<file stem>-<index>`: stable and filename-safe.
    pub id: String,
    /// The level it belongs to (`Main-depth2`, …), from the config or the file name.
    pub level: String,
    /// Its position in the file (0-based).
    pub index: usize,
    /// The game's state.
    pub facts: String,
    /// The game's rules (`Rule1: …`).
    pub rules: String,
    /// Which rule wins a conflict (often empty).
    pub preferences: String,
    /// The question: the last sentence of the dataset's `example`.
    pub question: String,
    /// The correct answer.
    pub label: Label,
    /// The dataset's proof (never shown to a model; kept for people reading results).
    pub proof: String,
}

/// Which arrangement a round plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QaFormat {
    /// Two debaters, opposite answers, rounds of simultaneous arguments; a blind judge.
    Debate,
    /// One debater argues one answer (correct half the time); a blind judge.
    Consultancy,
    /// Baseline: the judge sees only the question and the two answers.
    Naive,
    /// Baseline: the judge sees the whole game and answers at once.
    Expert,
    /// Baseline: the judge sees the whole game and reasons step by step first.
    ExpertCot,
    /// The source's baseline: the judge sees the whole game and classifies the goal as
    /// proved, disproved or unknown, giving the label only.
    ThreeWay,
    /// The source's baseline: the judge sees the whole game, reasons in `<thinking>`, gives
    /// a formal `<argument>`, then the label (proved, disproved or unknown).
    ThreeWayArgued,
}

impl QaFormat {
    /// Every format, in report order.
    pub const ALL: [QaFormat; 7] = [
        Self::Debate,
        Self::Consultancy,
        Self::Naive,
        Self::Expert,
        Self::ExpertCot,
        Self::ThreeWay,
        Self::ThreeWayArgued,
    ];

    /// The name in files and configs.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Debate => "debate",
            Self::Consultancy => "consultancy",
            Self::Naive => "naive",
            Self::Expert => "expert",
            Self::ExpertCot => "expert_cot",
            Self::ThreeWay => "three_way",
            Self::ThreeWayArgued => "three_way_argued",
        }
    }

    /// How many debaters speak.
    pub fn debaters(self) -> usize {
        match self {
            Self::Debate => 2,
            Self::Consultancy => 1,
            Self::Naive
            | Self::Expert
            | Self::ExpertCot
            | Self::ThreeWay
            | Self::ThreeWayArgued => 0,
        }
    }

    /// Whether the judge reads the game itself.
    pub fn judge_sees_game(self) -> bool {
        matches!(
            self,
            Self::Expert | Self::ExpertCot | Self::ThreeWay | Self::ThreeWayArgued
        )
    }

    /// Whether the judge classifies the goal among the three labels (the source's
    /// baselines) rather than choosing between the two assigned answers.
    pub fn is_three_way(self) -> bool {
        matches!(self, Self::ThreeWay | Self::ThreeWayArgued)
    }
}

/// How the two debaters take their turns within a round of arguments. The `Default` is what
/// a round file without the key means; a tournament's `[qa]` table defaults to `Sequential`,
/// the source notebook's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnOrder {
    /// Both argue at once, each seeing only the earlier rounds.
    #[default]
    Simultaneous,
    /// The debater read first argues first; the other then argues seeing that argument of
    /// the same round.
    Sequential,
}

impl TurnOrder {
    /// Whether both debaters argue at once (left out of round files).
    pub fn is_simultaneous(&self) -> bool {
        *self == Self::Simultaneous
    }
}

/// Which quotes the checker verifies, with case, punctuation and spacing ignored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuoteMatching {
    /// The source notebook's checker: only a whole fact (one sentence of the facts), a whole
    /// rule (`RuleN: …`, with or without its label) or a whole preference (one sentence).
    #[default]
    Whole,
    /// Any contiguous run of whole words of one fact, rule or preference (a rule's
    /// consequent, half a fact): the only rule before the option, so every round file
    /// without the key was checked this way.
    Fragment,
}

impl QuoteMatching {
    /// What a round file without the key was checked by: fragments.
    pub fn stored_before_the_option() -> Self {
        Self::Fragment
    }

    /// Whether fragments verify (left out of round files, which read so without the key).
    pub fn is_fragment(&self) -> bool {
        *self == Self::Fragment
    }
}

/// A debater's part in one round of arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Turn {
    /// The debater (A or B).
    pub side: Team,
    /// The round of arguments (1-based).
    pub round: u32,
    /// 0 for the first reply; 1 for the reply to a correction prompt (structured debate).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub attempt: u32,
}

impl Turn {
    /// A debater's first reply in a round.
    pub fn new(side: Team, round: u32) -> Self {
        Self {
            side,
            round,
            attempt: 0,
        }
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// How the two answers were handed out for one item (balanced across the sample).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Assignment {
    /// Debater A's answer (the consultant's, in consultancy).
    pub answer_a: Label,
    /// Debater B's answer (the alternative, in consultancy).
    pub answer_b: Label,
    /// Whose answer is correct; none when both answers were made wrong on purpose.
    pub correct_side: Option<Team>,
    /// Whose argument the judge reads first in each round.
    pub first: Team,
}

/// One sampled item with its assignment, as recorded in `tournament.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampledItem {
    /// The item's id.
    pub item_id: String,
    /// Its level.
    pub level: String,
    /// Its position in its file.
    pub index: usize,
    /// Its correct label.
    pub label: Label,
    /// The answers handed out.
    pub assignment: Assignment,
}

/// Quote checks and word-limit cuts of one debater over a round.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DebaterRecord {
    /// Quotes found in the game.
    pub verified_quotes: u32,
    /// Quotes not found in the game.
    pub unverified_quotes: u32,
    /// Arguments cut at the word limit.
    pub word_limit_violations: u32,
}

/// What a question-answer round is about and how it went, beside the phases.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QaSetup {
    /// The item.
    pub item_id: String,
    /// Its level.
    pub level: String,
    /// The arrangement.
    pub format: QaFormat,
    /// The question.
    pub question: String,
    /// The game's state (only debaters and expert judges see it).
    pub facts: String,
    /// The game's rules.
    pub rules: String,
    /// The game's preferences.
    pub preferences: String,
    /// The correct label.
    pub label: Label,
    /// The answers handed out.
    pub assignment: Assignment,
    /// Rounds of arguments.
    pub debate_rounds: u32,
    /// Words allowed per argument.
    pub word_limit: u32,
    /// Whether the debaters argue at once or one after the other within a round (absent,
    /// in files, when simultaneous: the default, and every round stored before the option).
    #[serde(default, skip_serializing_if = "TurnOrder::is_simultaneous")]
    pub turn_order: TurnOrder,
    /// How its quotes were checked (absent, in files, for fragments: every round stored
    /// before the option was checked so, and is read back as it was shown to its judge).
    #[serde(
        default = "QuoteMatching::stored_before_the_option",
        skip_serializing_if = "QuoteMatching::is_fragment"
    )]
    pub quote_matching: QuoteMatching,
    /// How the debaters' strength compares with the judge's (`self_play`, `stronger`,
    /// `weaker`, `mixed`), for debates and consultancies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relation: Option<String>,
    /// Debater A's quotes and cuts.
    #[serde(default)]
    pub debater_a: DebaterRecord,
    /// Debater B's quotes and cuts.
    #[serde(default)]
    pub debater_b: DebaterRecord,
}

impl QaSetup {
    /// The answer a side was given.
    pub fn answer(&self, side: Team) -> Label {
        match side {
            Team::A => self.assignment.answer_a,
            Team::B => self.assignment.answer_b,
        }
    }

    /// One debater's record.
    pub fn debater_mut(&mut self, side: Team) -> &mut DebaterRecord {
        match side {
            Team::A => &mut self.debater_a,
            Team::B => &mut self.debater_b,
        }
    }
}

/// A question-answer judge's pick.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct QaChoice {
    /// The side whose answer the judge chose.
    pub side: Team,
    /// The judge's confidence in it, 0–100, when given.
    pub confidence: Option<f64>,
}
