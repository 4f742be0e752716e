//! Tournament inputs: dilemma documents (read into blocks, then recognised as dilemmas).

mod blocks;
mod dilemma_document;
mod markdown;

pub use blocks::{Block, BlockKind};
pub use dilemma_document::{DilemmaError, LoadedDilemmas, load_dilemmas, recognise};
