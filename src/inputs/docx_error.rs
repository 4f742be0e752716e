//! What can be wrong with a Word file, said so that the user knows what to do: every
//! message names the part of the file that is damaged and where, when it is known.

use super::xml_tree::XmlError;

/// What to do about a damaged file.
const REPAIR: &str = "the file is damaged; open and re-save it in Word or LibreOffice";

/// Why a `.docx` cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum DocxError {
    /// Not a zip archive at all.
    #[error(
        "not a Word document: a .docx file is a zip archive and this one is not (an old .doc \
         file, or one protected by a password?); save it from Word, LibreOffice or Google Docs \
         as .docx, or use the Markdown source"
    )]
    NotZip,
    /// A zip archive whose directory cannot be read.
    #[error(
        "not a Word document that can be read: its zip directory is missing or damaged \
         ({why}), as when a save or a download is cut off; {REPAIR}"
    )]
    Directory {
        /// What the zip reader found.
        why: String,
    },
    /// A part that cannot be unpacked (a checksum that does not match, a broken stream).
    #[error("{part} cannot be unpacked ({why}): {REPAIR}")]
    Unpack {
        /// The part's name in the archive.
        part: String,
        /// What the zip reader found.
        why: String,
    },
    /// A part that unpacks to more than the limit: damaged, or a zip bomb.
    #[error(
        "{part} unpacks to more than {} MiB, far beyond the text of any document; it was not \
         unpacked (the file is damaged, or made to exhaust memory)", limit >> 20
    )]
    TooLarge {
        /// The part's name in the archive.
        part: String,
        /// The limit, in bytes.
        limit: u64,
    },
    /// All the XML parts together unpack to more than the limit.
    #[error(
        "its XML parts unpack to more than {} MiB in all, far beyond the text of any document; \
         they were not unpacked (the file is damaged, or made to exhaust memory)", limit >> 20
    )]
    TooLargeInAll {
        /// The limit, in bytes.
        limit: u64,
    },
    /// An XML part that is not well-formed: cut off, or damaged.
    #[error("{part} {problem}: {REPAIR}")]
    Xml {
        /// The part's name in the archive.
        part: String,
        /// What is wrong and where.
        problem: XmlError,
    },
    /// The main document part is missing.
    #[error("it has no {part}, the part that holds a Word document's text: {REPAIR}")]
    NoDocument {
        /// The part the package names as its main document.
        part: String,
    },
    /// The main document is some other kind of file (a spreadsheet, a presentation).
    #[error(
        "its main part {part} is a <{root}>, not a Word document's text (a spreadsheet or a \
         presentation renamed .docx?); save the dilemmas from Word, LibreOffice or Google Docs \
         as .docx"
    )]
    NotWordprocessing {
        /// The main part.
        part: String,
        /// Its root element's name.
        root: String,
    },
    /// The zip reader itself failed on the file.
    #[error("the zip reader failed on it: {REPAIR}")]
    ReaderFailed,
}
