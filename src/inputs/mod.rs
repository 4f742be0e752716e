//! Tournament inputs: dilemma documents (Word or Markdown, read into blocks, then
//! recognised as dilemmas), the Word writer that makes the sample document, and
//! BoardgameQA files for the question-answer debate, and the structured debate's topics.

mod blocks;
mod boardgameqa;
mod dilemma_document;
mod docx;
mod docx_error;
mod docx_package;
mod docx_writer;
mod markdown;
mod topics;
mod xml_tree;

pub use blocks::{Block, BlockKind};
pub use boardgameqa::{LoadedItems, QaDataError, level_of, load_items, sample};
pub use dilemma_document::{DilemmaError, LoadedDilemmas, load_dilemmas, recognise};
pub use docx::blocks as docx_blocks;
pub use docx_error::DocxError;
pub use docx_writer::{DocxLayout, save_docx, write_docx};
pub use topics::load_topics;
pub use xml_tree::XmlError;
