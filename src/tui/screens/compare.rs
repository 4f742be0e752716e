//! The comparison with a second folder (`open A --compare B`): a round's judgments in both
//! side by side, or the comparison's summary; Tab switches, the arrows scroll, `o` opens the
//! round compared, Esc goes back where it was opened. The folders and the comparison are
//! the mirror's.

use crossterm::event::KeyCode;

use crate::tui::keys::{Action, Binding, PAGE_UP_DOWN, UP_DOWN, ch, key};
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
        help: "scroll a line",
        footer: Some("↑↓ PgUp PgDn scroll"),
        keys: UP_DOWN,
    },
    PAGE_UP_DOWN,
    Binding {
        label: "o",
        help: "open the round compared (its verdict tab)",
        footer: None,
        keys: &[(ch('o'), Action::OpenRound)],
    },
    Binding {
        label: "Esc",
        help: "back where the comparison was opened",
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
}

impl CompareScreen {
    /// Opens on the summary, or on round `round` side by side.
    pub fn open(&mut self, summary: bool, round: Option<String>) {
        self.summary = summary;
        self.scroll = 0;
        self.round = round;
    }

    /// Handles one of its keys.
    pub fn act(&mut self, action: Action) -> Outcome {
        match action {
            Action::Back => return Outcome::go(Destination::Back),
            Action::SwitchTab => {
                self.summary = !self.summary;
                self.scroll = 0;
            }
            Action::Up => self.scroll = self.scroll.saturating_sub(1),
            Action::Down => self.scroll += 1,
            Action::PageUp => self.scroll = self.scroll.saturating_sub(PAGE),
            Action::PageDown => self.scroll += PAGE,
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

    /// A: three rounds. B: r1 the same, r2 with a total changed, r3 flipped, r4 only in B.
    fn compared() -> App {
        let a = vec![
            round("r1", "d1", &[("j", 7.0, 6.0)]),
            round("r2", "d2", &[("j", 7.0, 6.0)]),
            round("r3", "d3", &[("j", 7.0, 6.0), ("k", 6.0, 6.0)]),
        ];
        let b = vec![
            round("r1", "d1", &[("j", 7.0, 6.0)]),
            round("r2", "d2", &[("j", 8.0, 6.0)]),
            round("r3", "d3", &[("j", 5.0, 7.0), ("k", 6.0, 6.0)]),
            round("r4", "d4", &[("j", 5.0, 7.0)]),
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
        assert_eq!((c.comparison.pairs.len(), c.comparison.flipped), (4, 1));
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
        assert_eq!(c.comparison.flipped, 2);
    }
}
