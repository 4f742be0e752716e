use std::path::Path;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::tables::TABLES;
use super::{parse as parse_file, template};
use crate::config::ConfigError;
use crate::tui::keymap::{Keymap, name};
use crate::tui::keys::{Action, CONFIRM, GLOBAL, Key, ch, ctrl, key};
use crate::tui::screens::{editor, matrix, round};

fn parse(text: &str) -> Result<Keymap, ConfigError> {
    parse_file(text, Path::new("/home/u/.config/ethics-bowl/keys.toml"))
}

fn error(text: &str) -> String {
    match parse(text) {
        Ok(k) => panic!("{text:?} was read as {k:?}"),
        Err(e) => e.to_string(),
    }
}

fn press(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
}

#[test]
fn keys_are_read_as_people_write_them() {
    let cases: &[(&str, Key)] = &[
        ("r", ch('r')),
        ("R", ch('R')),
        ("]", ch(']')),
        ("-", ch('-')),
        ("ctrl-u", ctrl('u')),
        ("Ctrl-U", ctrl('u')),
        ("shift-tab", key(KeyCode::BackTab)),
        ("shift-r", ch('R')),
        ("f1", key(KeyCode::F(1))),
        ("F12", key(KeyCode::F(12))),
        ("enter", key(KeyCode::Enter)),
        ("esc", key(KeyCode::Esc)),
        ("pgdn", key(KeyCode::PageDown)),
        ("pageup", key(KeyCode::PageUp)),
        ("space", ch(' ')),
        ("ctrl-up", Key::new(KeyCode::Up, true)),
    ];
    for (text, want) in cases {
        assert_eq!(name::parse(text).as_ref(), Ok(want), "{text}");
        assert_eq!(
            name::parse(&name::toml_name(*want)).as_ref(),
            Ok(want),
            "{text}"
        );
    }
    for bad in ["", "ctrl-", "f13", "alt-x", "shift-1", "pagedwn", "\u{7}"] {
        assert!(name::parse(bad).is_err(), "{bad:?} was read");
    }
    assert_eq!(name::display(ctrl('s')), "Ctrl-S");
    assert_eq!(name::display(key(KeyCode::PageDown)), "PgDn");
}

#[test]
fn a_good_file_rebinds_its_actions_everywhere_and_leaves_the_rest() {
    let keymap = parse(
        "# mine\nretry = \"x\"\nnext_round = \"}\"\nquit = [\"q\", \"ctrl-q\"]\ndown = [\"down\", \"j\", \"ctrl-n\"]\n",
    )
    .unwrap();
    assert_eq!(
        keymap.action(matrix::BINDINGS, &press('x')),
        Some(Action::Retry)
    );
    assert_eq!(
        keymap.action(matrix::BINDINGS, &press('r')),
        None,
        "r is not retry now"
    );
    assert_eq!(
        keymap.action(matrix::BINDINGS, &press('R')),
        Some(Action::RetryAll)
    );
    assert_eq!(
        keymap.action(round::BINDINGS, &press('}')),
        Some(Action::NextRound)
    );
    assert_eq!(
        keymap.action(round::BINDINGS, &press('[')),
        Some(Action::PreviousRound)
    );
    let ctrl_q = KeyEvent::new(KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert_eq!(keymap.action(GLOBAL, &ctrl_q), Some(Action::Quit));
    // Rebinding replaces the action's keys on the screens that give it their own too.
    assert_eq!(keymap.action(CONFIRM, &press('y')), None);
    assert_eq!(keymap.action(CONFIRM, &ctrl_q), Some(Action::Quit));
    let enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(keymap.action(editor::FIELDS, &enter), None);
    // The help and the footer show the keys in force.
    let footer = keymap.footer(matrix::BINDINGS, true, &[]);
    assert!(
        footer.contains("x retry") && footer.contains("R retry all"),
        "{footer}"
    );
    assert!(
        footer.contains("q Ctrl-Q quit") || footer.contains("q / Ctrl-Q quit"),
        "{footer}"
    );
    assert!(!footer.contains("r retry"), "{footer}");
    let round_footer = keymap.footer(round::BINDINGS, true, &[]);
    assert!(
        round_footer.contains("} / [ next/prev round"),
        "{round_footer}"
    );
    let labels: Vec<_> = round::BINDINGS.iter().map(|b| keymap.label(b)).collect();
    assert!(labels.iter().any(|l| l == "} / ["), "{labels:?}");
    assert!(labels.iter().any(|l| l == "↑ k / ↓ j Ctrl-N"), "{labels:?}");
    assert_eq!(keymap.label(&GLOBAL[1]), "q / Ctrl-Q");
    // An action the file leaves alone keeps its row as written.
    assert_eq!(keymap.label(&GLOBAL[0]), "?");
    assert_eq!(parse("").unwrap(), Keymap::default());
}

#[test]
fn each_mistake_names_the_file_the_entry_and_its_line() {
    let unknown = error("retry = \"x\"\n\nnext_rund = \"}\"\n");
    assert!(
        unknown.contains("keys.toml")
            && unknown.contains("next_rund")
            && unknown.contains("line 3")
            && unknown.contains("did you mean next_round"),
        "{unknown}"
    );
    let bad_key = error("retry = \"ctrl-\"\n");
    assert!(
        bad_key.contains("retry") && bad_key.contains("\"ctrl-\"") && bad_key.contains("line 1"),
        "{bad_key}"
    );
    let in_list = error("\nquit = [\"q\", \"hyper-q\"]\n");
    assert!(
        in_list.contains("quit") && in_list.contains("hyper-q") && in_list.contains("line 2"),
        "{in_list}"
    );
    let not_a_key = error("retry = 3\n");
    assert!(not_a_key.contains("expected a key"), "{not_a_key}");
    let none = error("help = []\n");
    assert!(
        none.contains("help") && none.contains("no key left"),
        "{none}"
    );
    let clash = error("pause = \"p\"\nretry = \"v\"\n");
    assert!(
        clash.contains("retry")
            && clash.contains("line 2")
            && clash.contains("v would both retry and review in the matrix"),
        "{clash}"
    );
    let global = error("help = \"r\"\n");
    assert!(
        global.contains("r would both") && global.contains("help"),
        "{global}"
    );
    let typed = error("save = \"s\"\n");
    assert!(
        typed.contains("s is typed as text in the editor"),
        "{typed}"
    );
    let force = error("force_quit = \"x\"\n");
    assert!(
        force.contains("force_quit") && force.contains("typed as text"),
        "{force}"
    );
    let erase = error("run = \"ctrl-u\"\n");
    assert!(
        erase.contains("erases text in the search prompt"),
        "{erase}"
    );
    let syntax = error("retry = \n");
    assert!(
        syntax.contains("keys.toml") && syntax.contains("line 1"),
        "{syntax}"
    );
}

#[test]
fn the_printed_file_lists_every_action_and_reads_back_unchanged_or_uncommented() {
    let text = template::render(&Keymap::default(), "keys.toml");
    for table in TABLES {
        for (_, action) in table.rows.iter().flat_map(|b| b.keys) {
            assert!(
                Action::ALL.contains(action),
                "{action:?} is not in Action::ALL"
            );
            assert!(
                text.contains(&format!("# {} = ", action.name())),
                "{action:?}"
            );
        }
    }
    assert_eq!(
        parse(&text).unwrap(),
        Keymap::default(),
        "all commented out"
    );
    // Uncommenting every line gives keys that work together.
    let uncommented: String = text
        .lines()
        .map(|l| match l.strip_prefix("# ") {
            Some(rest) if rest.contains(" = ") && !rest.starts_with('(') => rest,
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let all = parse(&uncommented).unwrap();
    assert_eq!(
        all.action(matrix::BINDINGS, &press('r')),
        Some(Action::Retry)
    );
    // The keys in force come back as live lines.
    let mine = parse("retry = \"x\"\nquit = [\"q\", \"ctrl-q\"]\n").unwrap();
    let text = template::render(&mine, "keys.toml");
    assert!(
        text.contains("\nretry = \"x\"\n") && text.contains("\nquit = [\"q\", \"ctrl-q\"]\n"),
        "{text}"
    );
    assert_eq!(parse(&text).unwrap(), mine);
}
