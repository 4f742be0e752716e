//! The comparison with a second folder (`open DIR --compare OTHER`): a round's judgments in
//! both side by side, or the comparison's summary with the list of flipped verdicts; Tab
//! switches, the arrows scroll (in the summary they select a flipped verdict, which Enter
//! opens side by side and Esc returns to), `]`/`[` step through the rounds with a flipped
//! verdict, `o` opens the round compared, Esc goes back where it was opened. The folders
//! and the comparison are the mirror's.

use crossterm::event::KeyCode;

use crate::tui::keys::{Action, Binding, PAGE_UP_DOWN, UP_DOWN, ch, key};
use crate::tui::mirror::Compared;
use crate::tui::msg::{Destination, Opening, Outcome, RoundAt};

/// The compare screen's keys.
pub const BINDINGS: &[Binding] = &[
    Binding {
        label: "Tab",
        help: "this round / the summary of the comparison",
        footer: Some("Tab round/summary"),
        keys: &[(key(KeyCode::Tab), Action::SwitchTab)],
    },
    Binding {
        label: "↑ ↓ / k j",
        help: "scroll a line; in the summary, select a flipped verdict",
        footer: Some("↑↓ PgUp PgDn scroll"),
        keys: UP_DOWN,
    },
    PAGE_UP_DOWN,
    Binding {
        label: "Enter",
        help: "in the summary: open the selected flipped verdict's round side by side ({back} returns to the list)",
        footer: Some("Enter open flipped"),
        keys: &[(key(KeyCode::Enter), Action::Open)],
    },
    Binding {
        label: "] / [",
        help: "next / previous round with a flipped verdict, side by side",
        footer: Some("] [ next/prev flipped"),
        keys: &[
            (ch(']'), Action::NextRound),
            (ch('['), Action::PreviousRound),
        ],
    },
    Binding {
        label: "o",
        help: "open the round compared (its verdict tab)",
        footer: None,
        keys: &[(ch('o'), Action::OpenRound)],
    },
    Binding {
        label: "Esc",
        help: "back where the comparison was opened (to the list, from a round opened from it)",
        footer: Some("Esc back"),
        keys: &[
            (key(KeyCode::Esc), Action::Back),
            (key(KeyCode::Backspace), Action::Back),
        ],
    },
];

/// Lines a page scrolls.
const PAGE: usize = 20;

/// The compare screen's state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompareScreen {
    /// The summary instead of the round.
    pub summary: bool,
    /// Lines scrolled.
    pub scroll: usize,
    /// The round whose judgments show side by side.
    pub round: Option<String>,
    /// The flipped verdict selected in the summary's list (an index into
    /// [`Compared::flips`]).
    pub flip: usize,
    /// The round showing was opened from the summary's list (or stepped to with `]`/`[`):
    /// Esc returns to the list.
    pub from_list: bool,
}

impl CompareScreen {
    /// Opens on the summary, or on round `round` side by side.
    pub fn open(&mut self, summary: bool, round: Option<String>) {
        self.summary = summary;
        self.scroll = 0;
        self.round = round;
        self.from_list = false;
    }

    /// Shows round `id` side by side, opened from the list of flipped verdicts.
    fn show_flipped(&mut self, id: &str) {
        self.summary = false;
        self.scroll = 0;
        self.round = Some(id.to_string());
        self.from_list = true;
    }

    /// Handles one of its keys, over the comparison `compared`.
    pub fn act(&mut self, action: Action, compared: &Compared) -> Outcome {
        let flips = compared.flips();
        match action {
            Action::Back if self.from_list && !self.summary => {
                self.summary = true;
                self.scroll = 0;
                self.from_list = false;
            }
            Action::Back => return Outcome::go(Destination::Back),
            Action::SwitchTab => {
                self.summary = !self.summary;
                self.scroll = 0;
                self.from_list = false;
            }
            Action::Up if self.summary && !flips.is_empty() => {
                self.flip = self.flip.min(flips.len() - 1).saturating_sub(1);
            }
            Action::Down if self.summary && !flips.is_empty() => {
                self.flip = (self.flip + 1).min(flips.len() - 1);
            }
            Action::Up => self.scroll = self.scroll.saturating_sub(1),
            Action::Down => self.scroll += 1,
            Action::PageUp => self.scroll = self.scroll.saturating_sub(PAGE),
            Action::PageDown => self.scroll += PAGE,
            Action::Open if self.summary => match flips.get(self.flip) {
                Some(p) => self.show_flipped(&p.round_id),
                None => return Outcome::notice("no verdict flipped: nothing to open".into()),
            },
            Action::NextRound => return self.step(compared, true),
            Action::PreviousRound => return self.step(compared, false),
            Action::OpenRound if !self.summary => {
                if let Some(id) = &self.round {
                    return Outcome::go(Destination::Round(RoundAt {
                        id: id.clone(),
                        scores: true,
                        opening: Opening::Top,
                    }));
                }
            }
            _ => {}
        }
        Outcome::default()
    }

    /// Shows the next (or previous) round with a flipped verdict side by side, from the
    /// round showing (from the list's selection in the summary); at either end, says so.
    fn step(&mut self, compared: &Compared, forward: bool) -> Outcome {
        let rounds = compared.flipped_rounds();
        if rounds.is_empty() {
            return Outcome::notice("no verdict flipped: no round to step to".into());
        }
        let flips = compared.flips();
        let current = if self.summary {
            flips.get(self.flip).map(|p| p.round_id.as_str())
        } else {
            self.round.as_deref()
        };
        let at = current.and_then(|id| rounds.iter().position(|r| *r == id));
        let next = match at {
            // From the list, the selected round itself comes first.
            Some(p) if self.summary => Some(p),
            Some(p) if forward => (p + 1 < rounds.len()).then_some(p + 1),
            Some(p) => p.checked_sub(1),
            None if forward => Some(0),
            None => Some(rounds.len() - 1),
        };
        let Some(next) = next else {
            return Outcome::notice(format!(
                "no {} round with a flipped verdict",
                if forward { "next" } else { "previous" }
            ));
        };
        let id = rounds[next];
        self.show_flipped(id);
        if let Some(i) = flips.iter().position(|p| p.round_id == id) {
            self.flip = i;
        }
        Outcome::notice(format!(
            "flipped round {} of {}: {id}",
            next + 1,
            rounds.len()
        ))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Instant;

    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    use crate::domain::{Judgment, Reading, Round, RoundRecord, ScheduledRound, Scores};
    use crate::engine::EngineEvent;
    use crate::tui::app::{App, Screen};
    use crate::tui::browse;
    use crate::tui::mirror::Mark;
    use crate::tui::msg::Msg;
    use crate::tui::update::update;

    fn round(id: &str, d: &str, judges: &[(&str, f64, f64)]) -> Round {
        let mut r = crate::protocols::blank_round(
            &ScheduledRound {
                judges: judges.iter().map(|(j, _, _)| j.to_string()).collect(),
                ..ScheduledRound::example(id, d)
            },
            RoundRecord::EthicsBowl,
        );
        for (judge, a, b) in judges {
            r.put_judgment(Judgment::new(
                judge,
                Reading::Rubric {
                    team_a: Scores::uniform(*a),
                    team_b: Scores::uniform(*b),
                },
            ));
        }
        r.status = r.settled_status();
        r
    }

    fn press(app: &mut App, code: KeyCode) {
        update(app, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }

    /// A: four rounds. B: r1 the same, r2 with a total changed, r3 and r5 flipped, r4 only
    /// in B.
    fn compared() -> App {
        let a = vec![
            round("r1", "d1", &[("j", 7.0, 6.0)]),
            round("r2", "d2", &[("j", 7.0, 6.0)]),
            round("r3", "d3", &[("j", 7.0, 6.0), ("k", 6.0, 6.0)]),
            round("r5", "d5", &[("j", 6.0, 7.0)]),
        ];
        let b = vec![
            round("r1", "d1", &[("j", 7.0, 6.0)]),
            round("r2", "d2", &[("j", 8.0, 6.0)]),
            round("r3", "d3", &[("j", 5.0, 7.0), ("k", 6.0, 6.0)]),
            round("r4", "d4", &[("j", 5.0, 7.0)]),
            round("r5", "d5", &[("j", 7.0, 6.0)]),
        ];
        let mut app = browse("t", &a, Instant::now());
        app.mirror.set_compare("runs/a", "runs/b", b);
        app
    }

    #[test]
    fn rounds_judged_in_both_are_marked_by_what_changed() {
        let app = compared();
        let c = app.mirror.compare.as_ref().expect("compare");
        assert_eq!(c.mark("r1"), Some(Mark::Same));
        assert_eq!(c.mark("r2"), Some(Mark::Changed));
        assert_eq!(c.mark("r3"), Some(Mark::Flipped));
        assert_eq!(c.mark("r4"), None);
        assert_eq!((c.comparison.pairs.len(), c.comparison.flipped), (5, 2));
        assert_eq!(c.flipped_rounds(), ["r3", "r5"]);
        let r3 = &app.mirror.rounds[app.mirror.index["r3"]].stored;
        let rows = c.judge_rows(r3);
        assert_eq!(rows.len(), 2);
        assert!(
            rows.iter()
                .all(|r| r.a.is_some() && r.b.is_some() && r.pair.is_some())
        );
        // B keeps judgments, not phases.
        assert!(c.b_round("r3").is_some_and(|r| r.phases.is_empty()));
    }

    #[test]
    fn v_opens_the_round_side_by_side_tab_the_summary_and_esc_goes_back() {
        let mut app = compared();
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.screen(), Screen::Round { scores: false });
        press(&mut app, KeyCode::Char('v'));
        assert_eq!(app.screen(), Screen::Compare { summary: false });
        press(&mut app, KeyCode::Down);
        assert_eq!(Some(app.screens.compare.scroll), Some(1));
        press(&mut app, KeyCode::Tab);
        assert_eq!(app.screen(), Screen::Compare { summary: true });
        assert_eq!(Some(app.screens.compare.scroll), Some(0));
        press(&mut app, KeyCode::Esc);
        assert_eq!(app.screen(), Screen::Round { scores: false });
        press(&mut app, KeyCode::Esc);
        press(&mut app, KeyCode::Char('c'));
        assert_eq!(app.screen(), Screen::Compare { summary: true });
        press(&mut app, KeyCode::Esc);
        assert_eq!(app.screen(), Screen::Matrix);
    }

    #[test]
    fn without_a_second_folder_the_keys_say_how_to_set_one() {
        let mut app = browse(
            "t",
            &[round("r1", "d1", &[("j", 7.0, 6.0)])],
            Instant::now(),
        );
        press(&mut app, KeyCode::Char('c'));
        assert_eq!(app.screen(), Screen::Matrix);
        assert!(
            app.notice
                .as_deref()
                .is_some_and(|n| n.contains("--compare"))
        );
    }

    #[test]
    fn a_correction_stored_in_a_is_compared_again() {
        let mut app = compared();
        update(
            &mut app,
            Msg::Engine(EngineEvent::RoundStored {
                round: Arc::new(round("r1", "d1", &[("j", 5.0, 7.0)])),
            }),
        );
        let c = app.mirror.compare.as_ref().expect("compare");
        assert_eq!(c.mark("r1"), Some(Mark::Flipped));
        assert_eq!(c.comparison.flipped, 3);
    }

    #[test]
    fn enter_opens_the_selected_flipped_verdict_esc_returns_to_the_list_and_brackets_step() {
        let mut app = compared();
        press(&mut app, KeyCode::Char('c'));
        assert_eq!(app.screen(), Screen::Compare { summary: true });
        // The arrows select in the list of flipped verdicts, within its ends.
        press(&mut app, KeyCode::Down);
        press(&mut app, KeyCode::Down);
        assert_eq!(app.screens.compare.flip, 1);
        press(&mut app, KeyCode::Up);
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.screen(), Screen::Compare { summary: false });
        assert_eq!(app.screens.compare.round.as_deref(), Some("r3"));
        // Esc: back to the list, where it was.
        press(&mut app, KeyCode::Esc);
        assert_eq!(app.screen(), Screen::Compare { summary: true });
        assert_eq!(app.screens.compare.flip, 0);
        // `]` from the list opens the selected round, then the next flipped one.
        press(&mut app, KeyCode::Char(']'));
        assert_eq!(app.screens.compare.round.as_deref(), Some("r3"));
        press(&mut app, KeyCode::Char(']'));
        assert_eq!(app.screens.compare.round.as_deref(), Some("r5"));
        assert_eq!(app.screens.compare.flip, 1, "the list follows");
        assert!(app.notice.as_deref().is_some_and(|n| n.contains("2 of 2")));
        press(&mut app, KeyCode::Char(']'));
        assert_eq!(app.screens.compare.round.as_deref(), Some("r5"));
        assert!(
            app.notice
                .as_deref()
                .is_some_and(|n| n.contains("no next round with a flipped verdict"))
        );
        press(&mut app, KeyCode::Char('['));
        assert_eq!(app.screens.compare.round.as_deref(), Some("r3"));
        press(&mut app, KeyCode::Esc);
        assert_eq!(app.screen(), Screen::Compare { summary: true });
        press(&mut app, KeyCode::Esc);
        assert_eq!(app.screen(), Screen::Matrix);
    }

    #[test]
    fn runs_are_named_by_their_folders_told_apart_by_their_parents() {
        use crate::tui::mirror::run_names;
        let names = |a: &str, b: &str| {
            let (a, b) = run_names(a, b);
            (a.to_string(), b.to_string())
        };
        assert_eq!(names("results/a", "results/b"), ("a".into(), "b".into()));
        assert_eq!(
            names("/x/exp1/sample/", "/x/exp2/sample"),
            ("exp1/sample".into(), "exp2/sample".into())
        );
        assert_eq!(
            names("sample", "other/sample"),
            ("sample".into(), "other/sample".into())
        );
        assert_eq!(
            names("./runs/s", "runs/s"),
            ("runs/s".into(), "runs/s (again)".into())
        );
    }
}
