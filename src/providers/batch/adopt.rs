//! Finding a batch whose create answer was lost: the run died between the create call
//! and the journal's `submitted` line, or the answer never came back (a timeout, a reset
//! connection, a 5xx). The provider may hold the batch anyway; if its list shows it, it is
//! adopted and polled instead of sending its requests (and paying for them) twice.
//!
//! OpenAI and Gemini batches carry our tag (OpenAI's metadata, Gemini's display name), so a
//! listed batch is ours exactly when its tag is. Anthropic's Message Batches have no
//! metadata or name, and list no custom ids until they end, so a listed batch is taken for
//! ours only when it is the one batch (not in any of the tournament's journals, so not
//! another model's on the same account) with as many requests as ours, created from a
//! little before our create call to half an hour after it; two such batches are ambiguous
//! and nothing is adopted. A wrong pick (another program's batch on the account, of the same
//! size and time) cannot hand a call someone else's answer (results are matched by our
//! request ids, digests of the request): it only delays the calls, as the requests missing
//! from the picked batch's results go again when it ends. A batch taken so is journaled as
//! `guessed` and never cancelled by us.

use std::collections::HashSet;

use jiff::{SignedDuration, Timestamp};

use super::api::Listed;
use crate::domain::ErrorKind;
use crate::providers::ProviderError;

/// How far before our create call the provider's clock may put a batch's creation.
const BEFORE: SignedDuration = SignedDuration::from_mins(5);
/// How far after our create call the provider may have created it.
const AFTER: SignedDuration = SignedDuration::from_mins(30);

/// A batch the journal recorded as submitting, never as submitted.
#[derive(Debug, Clone)]
pub(crate) struct Lost<'a> {
    /// The tag it was created with.
    pub tag: &'a str,
    /// When its create call was about to go.
    pub at: Option<Timestamp>,
    /// How many requests it holds.
    pub requests: usize,
}

/// A fresh tag for a batch about to be created: our local id and 64 random bits, so that no
/// other batch (another tournament folder, another machine on the same account) has it.
pub(crate) fn new_tag(local: &str) -> String {
    format!("ethics-bowl-{local}-{:016x}", rand::random::<u64>())
}

/// Whether a failed create call may have created the batch all the same: the request may
/// have reached the provider and the answer been lost (a timeout, a broken connection, a
/// server error, an answer that could not be read).
pub(crate) fn may_have_created(error: &ProviderError) -> bool {
    match error.kind {
        ErrorKind::Timeout | ErrorKind::Connection | ErrorKind::Malformed => true,
        ErrorKind::Http => error.status.is_none_or(|s| s >= 500),
        _ => false,
    }
}

/// The listed batch that is `lost`, if one is (see the module doc); `tagged` says whether
/// the provider's batches carry our tag, `known` are the batches the journals already have.
pub(crate) fn find<'a>(
    listed: &'a [Listed],
    lost: &Lost<'_>,
    tagged: bool,
    known: &HashSet<String>,
) -> Option<&'a Listed> {
    let fresh = listed.iter().filter(|b| !known.contains(&b.remote));
    if tagged {
        return fresh
            .into_iter()
            .find(|b| b.tag.as_deref() == Some(lost.tag));
    }
    let at = lost.at?;
    let mut candidates = fresh.filter(|b| {
        b.total == lost.requests as u64
            && b.created
                .is_some_and(|c| c >= at - BEFORE && c <= at + AFTER)
    });
    let first = candidates.next()?;
    if candidates.next().is_some() {
        tracing::warn!(
            batch = %first.remote,
            "more than one batch at the provider could be the one whose create answer was lost; none is taken, its requests are sent again"
        );
        return None;
    }
    Some(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(remote: &str, tag: Option<&str>, created: &str, total: u64) -> Listed {
        Listed {
            remote: remote.into(),
            tag: tag.map(str::to_string),
            created: created.parse().ok(),
            total,
        }
    }

    #[test]
    fn a_tagged_batch_is_found_by_its_tag_alone() {
        let list = [
            listed("batch_3", Some("ethics-bowl-b1-ff"), "", 2),
            listed("batch_2", Some("ethics-bowl-b0-aa"), "", 9),
            listed("batch_1", None, "", 2),
        ];
        let lost = Lost {
            tag: "ethics-bowl-b0-aa",
            at: None,
            requests: 2,
        };
        let known = HashSet::new();
        assert_eq!(
            find(&list, &lost, true, &known).map(|b| b.remote.as_str()),
            Some("batch_2")
        );
        let other = Lost {
            tag: "ethics-bowl-b0-bb",
            ..lost.clone()
        };
        assert!(find(&list, &other, true, &known).is_none());
        let known: HashSet<String> = ["batch_2".to_string()].into();
        assert!(
            find(&list, &lost, true, &known).is_none(),
            "a batch the journal has"
        );
    }

    #[test]
    fn an_untagged_batch_is_taken_only_when_size_and_time_single_it_out() {
        let at: Timestamp = "2026-11-23T08:00:00Z".parse().unwrap();
        let lost = Lost {
            tag: "ethics-bowl-b0-aa",
            at: Some(at),
            requests: 3,
        };
        let known = HashSet::new();
        let one = [
            listed("m4", None, "2026-11-23T09:00:00Z", 3),
            listed("m3", None, "2026-11-23T08:00:02Z", 3),
            listed("m2", None, "2026-11-23T08:00:01Z", 4),
            listed("m1", None, "2026-11-23T07:00:00Z", 3),
        ];
        assert_eq!(
            find(&one, &lost, false, &known).map(|b| b.remote.as_str()),
            Some("m3"),
            "too late, too many, too early are passed over"
        );
        let two = [
            listed("m5", None, "2026-11-23T08:10:00Z", 3),
            listed("m3", None, "2026-11-23T08:00:02Z", 3),
        ];
        assert!(find(&two, &lost, false, &known).is_none(), "ambiguous");
        let known: HashSet<String> = ["m5".to_string()].into();
        assert_eq!(
            find(&two, &lost, false, &known).map(|b| b.remote.as_str()),
            Some("m3"),
            "a batch the journal has is not a candidate"
        );
        let untimed = Lost { at: None, ..lost };
        assert!(find(&one, &untimed, false, &HashSet::new()).is_none());
    }

    #[test]
    fn only_failures_that_may_have_reached_the_provider_are_looked_up() {
        let http = |status| ProviderError {
            status: Some(status),
            ..ProviderError::new(ErrorKind::Http, "x", true)
        };
        assert!(may_have_created(&http(500)));
        assert!(may_have_created(&http(503)));
        assert!(!may_have_created(&http(400)));
        assert!(!may_have_created(&http(429)));
        assert!(may_have_created(&ProviderError::new(
            ErrorKind::Timeout,
            "x",
            true
        )));
        assert!(!may_have_created(&ProviderError::new(
            ErrorKind::Unreachable,
            "x",
            true
        )));
    }

    #[test]
    fn tags_are_unique_and_name_the_local_batch() {
        let a = new_tag("b3");
        assert!(a.starts_with("ethics-bowl-b3-"), "{a}");
        assert_ne!(a, new_tag("b3"));
    }
}
