//! The files a round produces beside its own (see [`crate::protocols::RoundExtra`]), asked of
//! its protocol's spec after every run and correction of the round.

use crate::domain::Round;
use crate::store::Store;

/// Writes the files the round's protocol derives from it beside its file (a failure is
/// logged: the round file, which holds everything, is already stored).
pub(super) fn save_round_extras(store: &Store, round: &Round) {
    for extra in crate::protocols::spec(round.kind()).round_extras(round) {
        if let Err(e) =
            store.save_round_extra(extra.folder, &round.id, extra.extension, &extra.text)
        {
            tracing::warn!(round = %round.id, folder = extra.folder, error = %e, "file beside the round not written");
        }
    }
}
