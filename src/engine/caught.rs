//! Panics the engine catches. A call or round task that panics (a bug) is kept as its round's
//! error and the run goes on, so a panic hook must tell such a panic from one that ends the
//! process: the terminal UI's hook restores the screen only for the latter. While a caught
//! future is polled, its thread is marked.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

thread_local! {
    static CAUGHT: Cell<bool> = const { Cell::new(false) };
}

/// Whether a panic on this thread now will be caught by the engine and kept as a round's
/// error (for panic hooks: the process goes on).
pub fn panic_is_caught() -> bool {
    CAUGHT.with(Cell::get)
}

/// `future`, with its thread marked while it is polled (see [`panic_is_caught`]); boxed, so
/// that it can be polled without unsafe pinning.
pub(crate) fn caught<F: Future>(future: F) -> Caught<F> {
    Caught {
        future: Box::pin(future),
    }
}

/// See [`caught`].
pub(crate) struct Caught<F> {
    future: Pin<Box<F>>,
}

impl<F: Future> Future for Caught<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let outer = CAUGHT.with(|c| c.replace(true));
        // Reset however the poll ends: returning, or unwinding to the catcher.
        let _reset = Reset(outer);
        self.get_mut().future.as_mut().poll(cx)
    }
}

/// Puts the mark back as it was when dropped.
struct Reset(bool);

impl Drop for Reset {
    fn drop(&mut self) {
        let outer = self.0;
        CAUGHT.with(|c| c.set(outer));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_thread_is_marked_only_while_the_future_is_polled() {
        assert!(!panic_is_caught());
        let inside = caught(async { panic_is_caught() }).await;
        assert!(inside);
        assert!(!panic_is_caught());
    }
}
