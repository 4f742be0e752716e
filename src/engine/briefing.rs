//! The files a round produces beside its own: the structured debate's decision briefing.

use crate::domain::Round;
use crate::store::Store;

/// Writes the decision briefing of a judged structured-debate round beside its file (a
/// failure is logged: the round file, which holds everything, is already stored).
pub(super) fn save_briefing(store: &Store, round: &Round) {
    let Some(judgment) = crate::protocols::structured_debate::briefing::briefing_judgment(round)
    else {
        return;
    };
    if let Some(text) = crate::protocols::structured_debate::briefing::briefing(round, judgment)
        && let Err(e) = store.save_briefing(&round.id, &text)
    {
        tracing::warn!(round = %round.id, error = %e, "briefing not written");
    }
}
