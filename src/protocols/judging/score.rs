//! A 1–10 score as a judge wrote it (`8`, `"8/10"`, `"8 out of 10"`, `**8**`), for every
//! rubric scored on that scale: the Ethics Bowl's criteria and the structured debate's
//! dimensions.

use serde_json::Value;

/// A 1–10 score as a judge wrote it: a number, or text such as `8/10` or `8 out of 10`.
pub(crate) fn score_value(v: &Value) -> Result<f64, String> {
    match v {
        Value::Number(n) => n
            .as_f64()
            .ok_or_else(|| "not a number".into())
            .and_then(check_range),
        Value::String(s) => score_text(s),
        Value::Null => Err("no score given".into()),
        other => Err(format!("{other} is not a score")),
    }
}

fn check_range(v: f64) -> Result<f64, String> {
    if (1.0..=10.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{v} is outside 1–10"))
    }
}

/// `8`, `8.5`, `8/10`, `8 / 10`, `8 out of 10`, `**8**`; a scale other than 10 is refused.
pub(crate) fn score_text(s: &str) -> Result<f64, String> {
    let t = s
        .trim()
        .trim_matches(|c: char| c == '*' || c == '_' || c == '`')
        .trim();
    let end = t
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.'))
        .map_or(t.len(), |(i, _)| i);
    let number = t[..end].trim_end_matches('.');
    let value: f64 = number
        .parse()
        .map_err(|_| format!("{s:?} is not a score"))?;
    let rest = t[end..].trim_start().trim_start_matches('*').trim_start();
    let scale = rest
        .strip_prefix('/')
        .or_else(|| rest.strip_prefix("out of"))
        .map(|r| {
            let r = r.trim_start();
            let e = r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len());
            r[..e].parse::<u32>().ok()
        });
    match scale {
        Some(Some(10)) | None => check_range(value),
        Some(_) => Err(format!("{s:?} is not on a 1–10 scale")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_text_forms() {
        assert_eq!(score_text("8/10"), Ok(8.0));
        assert_eq!(score_text("8 / 10"), Ok(8.0));
        assert_eq!(score_text("8 out of 10"), Ok(8.0));
        assert_eq!(score_text("**7.5**"), Ok(7.5));
        assert_eq!(score_text("9."), Ok(9.0));
        assert!(score_text("0").is_err());
        assert!(score_text("eight").is_err());
        assert!(score_text("3/5").is_err());
    }
}
