//! The help overlay, over the screen showing: that screen's keys (see
//! [`super::Screens::help`]), then the keys every screen shares; any key closes it.

/// The help overlay's state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Help {
    /// It is open.
    pub open: bool,
}
