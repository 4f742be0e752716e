//! Line editing every one-line prompt shares (the filter bar, search and jump): Ctrl-U
//! erases the line, Ctrl-W the word before the end, as in a shell.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::keys::Binding;

/// The help entry for [`erase`]'s keys (which a prompt handles before its own).
pub const ERASE: Binding = Binding {
    label: "Ctrl-U / Ctrl-W",
    help: "erase the line / the last word",
    footer: None,
    keys: &[],
};

/// Applies Ctrl-U (erase the line) or Ctrl-W (erase the last word and the spaces after it)
/// to `text`; whether `key` was one of them.
pub fn erase(text: &mut String, key: &KeyEvent) -> bool {
    if !key.modifiers.contains(KeyModifiers::CONTROL) {
        return false;
    }
    match key.code {
        KeyCode::Char('u') => text.clear(),
        KeyCode::Char('w') => {
            let kept = text
                .trim_end()
                .trim_end_matches(|c: char| !c.is_whitespace());
            text.truncate(kept.len());
        }
        _ => return false,
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctrl(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    #[test]
    fn ctrl_w_erases_the_last_word_and_ctrl_u_the_line() {
        let mut text = "a=gpt status=failed  ".to_string();
        assert!(erase(&mut text, &ctrl('w')));
        assert_eq!(text, "a=gpt ");
        assert!(erase(&mut text, &ctrl('w')));
        assert_eq!(text, "");
        assert!(erase(&mut text, &ctrl('w')));
        assert_eq!(text, "");
        let mut text = "judge=é x".to_string();
        assert!(erase(&mut text, &ctrl('u')));
        assert_eq!(text, "");
        assert!(!erase(
            &mut text,
            &KeyEvent::new(KeyCode::Char('w'), KeyModifiers::NONE)
        ));
        assert!(!erase(&mut text, &ctrl('x')));
    }
}
