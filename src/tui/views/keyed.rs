//! Sentences that name keys, with the keys in force: `{action}` in a text (the action's name
//! in `keys.toml`, as `{next_hit}`) becomes the first key the user's keymap binds to that
//! action, named as the footer names keys, so no sentence names a default the user rebound.

use std::borrow::Cow;

use crate::tui::keymap::Keymap;
use crate::tui::keys::{Action, Binding};
use crate::tui::user_keys::tables::TABLES;

/// The first key in force for `action`: in `first` (the keys where the sentence is read),
/// else in the first table that binds it.
pub fn key_of(keys: &Keymap, first: &[Binding], action: Action) -> Option<String> {
    keys.first_key(first, action)
        .or_else(|| TABLES.iter().find_map(|t| keys.first_key(t.rows, action)))
}

/// `text` with each `{action}` replaced by its key in force (see [`key_of`]); braces around
/// anything else are left as written.
pub fn fill<'a>(keys: &Keymap, first: &[Binding], text: &'a str) -> Cow<'a, str> {
    if !text.contains('{') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let named = after.find('}').and_then(|close| {
            let key = Action::named(&after[..close]).and_then(|a| key_of(keys, first, a))?;
            Some((close, key))
        });
        match named {
            Some((close, key)) => {
                out.push_str(&key);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::keys::{GLOBAL, ch};
    use crate::tui::screens::search;

    #[test]
    fn an_action_is_named_by_its_key_in_force() {
        let mut keys = Keymap::default();
        let text = "close the list ({next_hit} / {previous_hit} step; {nothing} stays)";
        assert_eq!(
            fill(&keys, search::LIST, text),
            "close the list (n / N step; {nothing} stays)"
        );
        keys.rebind(Action::NextHit, vec![ch('x')]);
        assert_eq!(
            fill(&keys, search::LIST, text),
            "close the list (x / N step; {nothing} stays)"
        );
        assert_eq!(fill(&keys, GLOBAL, "no braces"), "no braces");
        assert_eq!(fill(&keys, GLOBAL, "{ unclosed {quit"), "{ unclosed {quit");
        // JSON in a hint is left as written.
        let json = r#"or {"answer": "A", "confidence": 70}; {save} saves"#;
        assert_eq!(
            fill(&keys, GLOBAL, json),
            r#"or {"answer": "A", "confidence": 70}; Ctrl-S saves"#
        );
    }

    #[test]
    fn a_help_sentence_names_the_key_a_keys_toml_binds() {
        use crate::tui::screens::matrix;
        let row = |keys: &Keymap| {
            let row = matrix::BINDINGS
                .iter()
                .find(|b| b.keys.iter().any(|(_, a)| *a == Action::CompareSummary))
                .unwrap();
            fill(keys, matrix::BINDINGS, row.help).into_owned()
        };
        assert!(row(&Keymap::default()).contains("(Enter opens one)"));
        let keys =
            crate::tui::user_keys::parse("open = \"f2\"\n", std::path::Path::new("keys.toml"))
                .unwrap();
        let shown = row(&keys);
        assert!(shown.contains("(F2 opens one)"), "{shown}");
    }

    #[test]
    fn every_help_text_names_only_actions_some_table_binds() {
        let keys = Keymap::default();
        for table in TABLES {
            for row in table.rows {
                let filled = fill(&keys, table.rows, row.help);
                assert!(
                    !filled.contains('{'),
                    "{}: {:?} names no action bound",
                    table.name,
                    row.help
                );
            }
        }
    }
}
