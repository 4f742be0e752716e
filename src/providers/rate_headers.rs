//! Reading the rate-limit headers providers send on every response (success and 429), so the
//! adaptive limiter knows how much quota is left and when it comes back.
//!
//! OpenAI and xAI send `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`, the resets as
//! Go durations (`6m0s`, `1s`, `120ms`); Anthropic sends
//! `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}`,
//! the resets as RFC 3339 times. Gemini sends none. Values that do not parse are ignored:
//! the headers only steer the pace, never the answer.

use std::time::Duration;

use reqwest::header::HeaderMap;

/// One quota as a response reported it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct QuotaReport {
    /// The quota's size.
    pub limit: Option<u64>,
    /// What is left of it.
    pub remaining: Option<u64>,
    /// How long until it is whole again.
    pub reset: Option<Duration>,
}

impl QuotaReport {
    fn is_empty(&self) -> bool {
        self.limit.is_none() && self.remaining.is_none() && self.reset.is_none()
    }

    /// The share left, when both numbers are known.
    fn share_left(&self) -> Option<f64> {
        let limit = self.limit.filter(|l| *l > 0)?;
        Some(self.remaining? as f64 / limit as f64)
    }
}

/// The request and token quotas one response reported.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct RateReport {
    /// Requests.
    pub requests: Option<QuotaReport>,
    /// Tokens: for Anthropic, the tightest of its total, input and output token quotas.
    pub tokens: Option<QuotaReport>,
}

impl RateReport {
    /// Reads whichever provider's headers are present.
    pub(crate) fn from_headers(headers: &HeaderMap) -> Self {
        let openai = |kind: &str| {
            quota(
                headers,
                &format!("x-ratelimit-limit-{kind}"),
                &format!("x-ratelimit-remaining-{kind}"),
                &format!("x-ratelimit-reset-{kind}"),
                parse_go_duration,
            )
        };
        let anthropic = |kind: &str| {
            quota(
                headers,
                &format!("anthropic-ratelimit-{kind}-limit"),
                &format!("anthropic-ratelimit-{kind}-remaining"),
                &format!("anthropic-ratelimit-{kind}-reset"),
                until_rfc3339,
            )
        };
        let requests = openai("requests").or_else(|| anthropic("requests"));
        let tokens = openai("tokens").or_else(|| {
            ["tokens", "input-tokens", "output-tokens"]
                .into_iter()
                .filter_map(anthropic)
                .min_by(|a, b| tightness(a).total_cmp(&tightness(b)))
        });
        Self { requests, tokens }
    }

    /// How long until the quotas this response says are spent (none left) are whole again:
    /// the longer of their resets, or `None` when no spent quota names a reset.
    pub(crate) fn spent_reset(&self) -> Option<Duration> {
        [self.requests, self.tokens]
            .into_iter()
            .flatten()
            .filter(|q| q.remaining == Some(0))
            .filter_map(|q| q.reset)
            .max()
    }

    /// True when the response carried no rate-limit header at all.
    pub(crate) fn is_empty(&self) -> bool {
        self.requests.is_none() && self.tokens.is_none()
    }
}

/// How close a quota is to running out, for choosing the tightest: the share left, or the
/// remaining count itself when the limit is unknown.
fn tightness(q: &QuotaReport) -> f64 {
    q.share_left()
        .or(q.remaining.map(|r| r as f64))
        .unwrap_or(f64::INFINITY)
}

fn quota(
    headers: &HeaderMap,
    limit: &str,
    remaining: &str,
    reset: &str,
    parse_reset: fn(&str) -> Option<Duration>,
) -> Option<QuotaReport> {
    let text = |name: &str| headers.get(name)?.to_str().ok().map(str::trim);
    let number = |name: &str| text(name)?.parse::<u64>().ok();
    let report = QuotaReport {
        limit: number(limit),
        remaining: number(remaining),
        reset: text(reset).and_then(parse_reset),
    };
    (!report.is_empty()).then_some(report)
}

/// A Go duration as OpenAI writes it: `6m0s`, `1s`, `120ms`, `59.9s`, `1h2m`, `250us`.
pub(crate) fn parse_go_duration(text: &str) -> Option<Duration> {
    let mut rest = text.trim();
    if rest.is_empty() {
        return None;
    }
    if rest == "0" {
        return Some(Duration::ZERO);
    }
    let mut seconds = 0.0f64;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let value: f64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 1e-3,
            "us" | "µs" | "μs" => 1e-6,
            "ns" => 1e-9,
            _ => return None,
        };
        rest = &rest[unit_len..];
        seconds += value * scale;
    }
    header_wait(seconds)
}

/// The longest wait a server's header or body is taken to name: a week and a second, one
/// second past the longest `max_retry_after_s` allows. A longer one (a 30-digit
/// `Retry-After`, `1e20`, `inf`) reads as this, which every limit then treats as longer than
/// allowed, instead of overflowing a `Duration` or an `Instant`.
pub(crate) const LONGEST_NAMED_WAIT: Duration = Duration::from_secs(7 * 24 * 3600 + 1);

/// A wait of `seconds` read from outside, clamped to [`LONGEST_NAMED_WAIT`]; `None` for a
/// negative number or NaN, which name no wait.
pub(crate) fn header_wait(seconds: f64) -> Option<Duration> {
    if seconds.is_nan() || seconds < 0.0 {
        return None;
    }
    Some(
        Duration::try_from_secs_f64(seconds)
            .map_or(LONGEST_NAMED_WAIT, |d| d.min(LONGEST_NAMED_WAIT)),
    )
}

/// The time from now until an RFC 3339 timestamp (zero when it has passed).
fn until_rfc3339(text: &str) -> Option<Duration> {
    let at: jiff::Timestamp = text.parse().ok()?;
    let left = at.duration_since(jiff::Timestamp::now());
    Some(Duration::try_from(left).map_or(Duration::ZERO, |d| d.min(LONGEST_NAMED_WAIT)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderName, HeaderValue};

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(k, v)| {
                (
                    HeaderName::from_bytes(k.as_bytes()).unwrap(),
                    HeaderValue::from_str(v).unwrap(),
                )
            })
            .collect()
    }

    #[test]
    fn go_durations() {
        let ms = |n| Some(Duration::from_millis(n));
        assert_eq!(parse_go_duration("6m0s"), ms(360_000));
        assert_eq!(parse_go_duration("1s"), ms(1000));
        assert_eq!(parse_go_duration("120ms"), ms(120));
        assert_eq!(parse_go_duration("59.9s"), ms(59_900));
        assert_eq!(parse_go_duration("1h2m3s"), ms(3_723_000));
        assert_eq!(parse_go_duration("250us"), Some(Duration::from_micros(250)));
        assert_eq!(parse_go_duration("0"), Some(Duration::ZERO));
        for bad in ["", "soon", "5", "1x", "ms", "-1s"] {
            assert_eq!(parse_go_duration(bad), None, "{bad}");
        }
    }

    #[test]
    fn openai_headers() {
        let r = RateReport::from_headers(&headers(&[
            ("x-ratelimit-limit-requests", "60"),
            ("x-ratelimit-remaining-requests", "59"),
            ("x-ratelimit-reset-requests", "1s"),
            ("x-ratelimit-limit-tokens", "150000"),
            ("x-ratelimit-remaining-tokens", "149984"),
            ("x-ratelimit-reset-tokens", "6m0s"),
        ]));
        assert_eq!(
            r.requests,
            Some(QuotaReport {
                limit: Some(60),
                remaining: Some(59),
                reset: Some(Duration::from_secs(1)),
            })
        );
        let t = r.tokens.unwrap();
        assert_eq!(t.remaining, Some(149_984));
        assert_eq!(t.reset, Some(Duration::from_secs(360)));
    }

    #[test]
    fn anthropic_headers_take_the_tightest_token_quota() {
        let soon = (jiff::Timestamp::now() + jiff::SignedDuration::from_secs(30)).to_string();
        let r = RateReport::from_headers(&headers(&[
            ("anthropic-ratelimit-requests-limit", "50"),
            ("anthropic-ratelimit-requests-remaining", "0"),
            ("anthropic-ratelimit-requests-reset", &soon),
            ("anthropic-ratelimit-input-tokens-limit", "40000"),
            ("anthropic-ratelimit-input-tokens-remaining", "30000"),
            ("anthropic-ratelimit-output-tokens-limit", "8000"),
            ("anthropic-ratelimit-output-tokens-remaining", "400"),
            (
                "anthropic-ratelimit-output-tokens-reset",
                "2020-01-01T00:00:00Z",
            ),
        ]));
        let q = r.requests.unwrap();
        assert_eq!(q.remaining, Some(0));
        let reset = q.reset.unwrap();
        assert!(reset > Duration::from_secs(25) && reset <= Duration::from_secs(30));
        let t = r.tokens.unwrap();
        assert_eq!((t.limit, t.remaining), (Some(8000), Some(400)));
        assert_eq!(t.reset, Some(Duration::ZERO), "a past reset is now");
    }

    #[test]
    fn no_or_broken_headers_report_nothing() {
        assert!(RateReport::from_headers(&HeaderMap::new()).is_empty());
        let r = RateReport::from_headers(&headers(&[
            ("x-ratelimit-remaining-requests", "many"),
            ("x-ratelimit-reset-requests", "later"),
        ]));
        assert!(r.is_empty());
    }

    /// Header values as a broken or hostile server might send them: numbers of any size and
    /// sign, exponents, NaN and infinities, every duration unit, dates, text.
    fn header_value() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let number = prop_oneof![
            any::<f64>().prop_map(|n| n.to_string()),
            any::<i64>().prop_map(|n| n.to_string()),
            "[0-9]{1,40}",
            "-?[0-9]{0,30}\\.?[0-9]{0,30}(e[+-]?[0-9]{1,4})?",
            prop::sample::select(vec!["NaN", "inf", "-inf", "infinity", "1e308", "-0"])
                .prop_map(String::from),
        ];
        let unit = prop::sample::select(vec!["", "h", "m", "s", "ms", "us", "µs", "ns", "d", "x"]);
        prop_oneof![
            (number.clone(), unit.clone()).prop_map(|(n, u)| format!("{n}{u}")),
            (number.clone(), unit.clone(), number, unit)
                .prop_map(|(a, u, b, v)| format!("{a}{u}{b}{v}")),
            "[0-9]{1,6}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,12})?(Z|[+-][0-9]{2}:[0-9]{2})",
            "[A-Za-z]{3}, [0-9]{2} [A-Za-z]{3} [0-9]{4,6} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT",
            "[ -~]{0,40}",
        ]
    }

    proptest::proptest! {
        /// No value of any rate-limit or retry header panics a reader, and every wait read
        /// stays within the longest a server may name.
        #[test]
        fn no_header_value_panics_or_names_an_unbounded_wait(value in header_value(), which in 0usize..8) {
            let name = [
                "retry-after",
                "retry-after-ms",
                "x-ratelimit-reset-requests",
                "x-ratelimit-reset-tokens",
                "anthropic-ratelimit-requests-reset",
                "anthropic-ratelimit-tokens-reset",
                "x-ratelimit-remaining-requests",
                "anthropic-ratelimit-output-tokens-reset",
            ][which];
            let Ok(value) = HeaderValue::from_str(&value) else {
                return Ok(());
            };
            let mut map = HeaderMap::new();
            map.insert(HeaderName::from_static(name), value);
            for remaining in ["x-ratelimit-remaining-requests", "anthropic-ratelimit-requests-remaining"] {
                map.insert(HeaderName::from_static(remaining), HeaderValue::from_static("0"));
            }
            let report = RateReport::from_headers(&map);
            for quota in [report.requests, report.tokens].into_iter().flatten() {
                proptest::prop_assert!(quota.reset.is_none_or(|r| r <= LONGEST_NAMED_WAIT));
            }
            let wait = crate::providers::error::retry_after_from_headers(&map);
            proptest::prop_assert!(wait.is_none_or(|w| w <= LONGEST_NAMED_WAIT));
            proptest::prop_assert!(parse_go_duration(map.get(name).and_then(|v| v.to_str().ok()).unwrap_or("")).is_none_or(|d| d <= LONGEST_NAMED_WAIT));
        }

        /// Any number of seconds converts without panicking, within a week and a second.
        #[test]
        fn any_number_of_seconds_is_a_bounded_wait(n in proptest::num::f64::ANY) {
            proptest::prop_assert!(header_wait(n).is_none_or(|d| d <= LONGEST_NAMED_WAIT));
        }
    }
}
