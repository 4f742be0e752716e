//! Debate formats: each says which calls a round makes, in what order, with which prompts,
//! and how the result is scored. The engine drives them through the `Protocol` trait.

pub mod ethics_bowl;
pub mod judging;
