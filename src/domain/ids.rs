//! Ids that become file names, and timestamps.

/// An id that cannot safely be used as a file name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("\"{id}\" cannot be used as a file name: {why}")]
pub struct IdError {
    /// The id.
    pub id: String,
    /// What is wrong with it.
    pub why: &'static str,
}

/// Checks that an id is a single, ordinary file name: not empty, no path separators, not
/// `.` or `..`, no control characters, not absurdly long.
pub fn check_file_id(id: &str) -> Result<(), IdError> {
    let why = if id.is_empty() {
        Some("it is empty")
    } else if id.contains(['/', '\\']) {
        Some("it contains a path separator")
    } else if id == "." || id == ".." || id.starts_with('.') {
        Some("it starts with a dot")
    } else if id.chars().any(char::is_control) {
        Some("it contains control characters")
    } else if id.len() > 200 {
        Some("it is longer than 200 bytes")
    } else {
        None
    };
    match why {
        Some(why) => Err(IdError {
            id: id.to_string(),
            why,
        }),
        None => Ok(()),
    }
}

/// A slug of a title: a leading article dropped, apostrophes dropped, lower case, other runs
/// of non-alphanumerics as one underscore. "The Gardener's Dilemma" → `gardeners_dilemma`.
pub fn slug(title: &str) -> String {
    let trimmed = title.trim();
    let lower = trimmed.to_lowercase();
    let body = ["the ", "a ", "an "]
        .iter()
        .find_map(|article| lower.strip_prefix(article))
        .unwrap_or(&lower);
    let mut out = String::new();
    let mut pending_sep = false;
    for c in body.chars() {
        if matches!(c, '\'' | '\u{2019}' | '\u{2018}') {
            continue;
        }
        if c.is_alphanumeric() {
            if pending_sep && !out.is_empty() {
                out.push('_');
            }
            pending_sep = false;
            out.extend(c.to_lowercase());
        } else {
            pending_sep = true;
        }
    }
    out
}

/// Now, as RFC 3339 in UTC.
pub fn now_rfc3339() -> String {
    jiff::Timestamp::now().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        assert_eq!(slug("The Gradient Entity"), "gradient_entity");
        assert_eq!(slug("The Gardener's Dilemma"), "gardeners_dilemma");
        assert_eq!(
            slug("  A Dependent\u{2019}s  Transformation!  "),
            "dependents_transformation"
        );
        assert_eq!(slug("Theory of Everything"), "theory_of_everything");
        assert_eq!(slug("An Unborn: Parameters (v2)"), "unborn_parameters_v2");
    }

    #[test]
    fn file_ids() {
        assert!(check_file_id("gradient_entity__sim-a__vs__sim-b__r1").is_ok());
        for bad in ["", "..", ".hidden", "a/b", "a\\b", "a\nb"] {
            assert!(check_file_id(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn timestamps_are_rfc3339_utc() {
        let t = now_rfc3339();
        assert!(t.ends_with('Z'), "{t}");
        assert!(t.parse::<jiff::Timestamp>().is_ok());
    }
}
