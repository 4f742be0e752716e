//! A Word file's package: the zip archive's XML parts unpacked within size limits and every
//! one of them parsed, so that damage anywhere in the text a word processor reads (the
//! document, its styles, numbering, settings, relationships…) is reported, naming the part.
//! Images and other binary parts are never unpacked. The relationships lead from the package
//! to its main document and from a part to the parts it uses (the document's styles).
//!
//! Why our own reader rather than docx-rs's: its XML readers wait for an end tag in a loop
//! that never ends when a part is cut off or its tags do not match (the reader returns
//! "end of document" again and again), and its zip reader panics on a bad checksum. Checking
//! parts before handing them over would leave us trusting that no well-formed input can send
//! one of its hundred readers round forever; reading the few elements the loader needs from
//! a tree built in one linear pass (see `xml_tree`) leaves nothing that can loop.

use std::collections::HashMap;
use std::io::{Cursor, Read};

use zip::ZipArchive;
use zip::result::ZipError;

use super::docx_error::DocxError;
use super::xml_tree::{Element, Tree};

/// The most one XML part may unpack to. A long book's `document.xml` is a few MiB.
pub const MAX_PART_BYTES: u64 = 16 << 20;
/// The most all XML parts together may unpack to.
pub const MAX_XML_BYTES: u64 = 64 << 20;

/// Where the package's own relationships are.
const PACKAGE_RELATIONSHIPS: &str = "_rels/.rels";
/// The main document when the relationships do not say.
const DEFAULT_DOCUMENT: &str = "word/document.xml";
/// Relationship types end with these names, in transitional and strict OOXML alike.
const MAIN_DOCUMENT: &str = "officeDocument";

/// One XML part: its name as the archive spells it, and its elements.
#[derive(Debug)]
pub struct Part {
    /// The name in the archive (`word/document.xml`).
    pub name: String,
    /// The parsed text.
    pub tree: Tree,
}

/// The XML parts of a `.docx`, by name (compared as OPC does: without case, with `/`).
#[derive(Debug)]
pub struct Package {
    parts: HashMap<String, Part>,
}

impl Package {
    /// Unpacks and parses every XML part of `bytes`, or says which part is damaged and how.
    pub fn unpack(bytes: &[u8]) -> Result<Package, DocxError> {
        // The zip reader is not ours and reads hostile bytes: a panic in it is an error.
        std::panic::catch_unwind(|| unpack_parts(bytes)).unwrap_or(Err(DocxError::ReaderFailed))
    }

    /// The main document, found through the package's relationships.
    pub fn main_document(&self) -> Result<&Part, DocxError> {
        let name = self
            .part(PACKAGE_RELATIONSHIPS)
            .and_then(|rels| target(rels.tree.root(), "", MAIN_DOCUMENT))
            .unwrap_or_else(|| DEFAULT_DOCUMENT.to_string());
        self.part(&name).ok_or(DocxError::NoDocument { part: name })
    }

    /// The part that `from` names in its relationships with a type ending in `/kind`.
    pub fn related(&self, from: &Part, kind: &str) -> Option<&Part> {
        let (dir, file) = from.name.rsplit_once('/').unwrap_or(("", &from.name));
        let rels_name = if dir.is_empty() {
            format!("_rels/{file}.rels")
        } else {
            format!("{dir}/_rels/{file}.rels")
        };
        let rels = self.part(&rels_name)?;
        self.part(&target(rels.tree.root(), dir, kind)?)
    }

    fn part(&self, name: &str) -> Option<&Part> {
        self.parts.get(&key(name))
    }
}

/// A part name as a lookup key: OPC names ignore case, and some zips use `\` or a leading `/`.
fn key(name: &str) -> String {
    name.replace('\\', "/")
        .trim_start_matches('/')
        .to_lowercase()
}

/// Whether an entry is an XML part (`.xml`, or `.rels` for relationships).
fn is_xml(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.ends_with(".xml") || name.ends_with(".rels")
}

fn unpack_parts(bytes: &[u8]) -> Result<Package, DocxError> {
    let mut archive = ZipArchive::new(Cursor::new(bytes)).map_err(|e| {
        if bytes.starts_with(b"PK") {
            DocxError::Directory { why: e.to_string() }
        } else {
            DocxError::NotZip
        }
    })?;
    let mut parts = HashMap::new();
    let mut total = 0u64;
    for index in 0..archive.len() {
        let Some(name) = archive.name_for_index(index).map(str::to_string) else {
            continue;
        };
        if !is_xml(&name) {
            continue;
        }
        let unpack = |e: ZipError| DocxError::Unpack {
            part: name.clone(),
            why: e.to_string(),
        };
        let entry = archive.by_index(index).map_err(unpack)?;
        let declared = entry.size();
        if declared > MAX_PART_BYTES {
            return Err(too_large(&name));
        }
        if total + declared > MAX_XML_BYTES {
            return Err(DocxError::TooLargeInAll {
                limit: MAX_XML_BYTES,
            });
        }
        // The declared size can lie: read one byte past the limit at most.
        let mut data = Vec::new();
        entry
            .take(MAX_PART_BYTES + 1)
            .read_to_end(&mut data)
            .map_err(|e| unpack(ZipError::Io(e)))?;
        let size = data.len() as u64;
        if size > MAX_PART_BYTES {
            return Err(too_large(&name));
        }
        total += size;
        if total > MAX_XML_BYTES {
            return Err(DocxError::TooLargeInAll {
                limit: MAX_XML_BYTES,
            });
        }
        let tree = Tree::parse_bytes(&data).map_err(|problem| DocxError::Xml {
            part: name.clone(),
            problem,
        })?;
        parts.insert(key(&name), Part { name, tree });
    }
    Ok(Package { parts })
}

fn too_large(name: &str) -> DocxError {
    DocxError::TooLarge {
        part: name.to_string(),
        limit: MAX_PART_BYTES,
    }
}

/// The target of the first internal relationship whose type ends in `/kind`, as a part
/// name: relative to `dir` (the folder of the part the relationships belong to), or
/// absolute with a leading `/`.
fn target(relationships: Element<'_>, dir: &str, kind: &str) -> Option<String> {
    let suffix = format!("/{kind}");
    let relationship = relationships.children().find(|r| {
        r.local_name() == "Relationship"
            && r.attribute("Type").is_some_and(|t| t.ends_with(&suffix))
            && r.attribute("TargetMode") != Some("External")
    })?;
    let target = relationship.attribute("Target")?;
    let joined = match target.strip_prefix('/') {
        Some(absolute) => absolute.to_string(),
        None if dir.is_empty() => target.to_string(),
        None => format!("{dir}/{target}"),
    };
    // Resolve `.` and `..` segments.
    let mut segments: Vec<&str> = Vec::new();
    for segment in joined.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            s => segments.push(s),
        }
    }
    Some(segments.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rels(body: &str) -> Tree {
        Tree::parse(&format!(
            r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">{body}</Relationships>"#
        ))
        .unwrap()
    }

    #[test]
    fn targets_resolve_relative_to_their_folder_or_from_the_root() {
        let t = rels(
            r#"<Relationship Id="r0" Type="http://x/styles" Target="https://example.com/styles" TargetMode="External"/>
               <Relationship Id="r1" Type="http://x/styles" Target="../word/./styles2.xml"/>"#,
        );
        assert_eq!(
            target(t.root(), "word", "styles").as_deref(),
            Some("word/styles2.xml")
        );
        let t = rels(
            r#"<Relationship Id="r1" Type="http://x/officeDocument" Target="/word/document.xml"/>"#,
        );
        assert_eq!(
            target(t.root(), "", MAIN_DOCUMENT).as_deref(),
            Some("word/document.xml")
        );
        assert_eq!(target(t.root(), "", "styles"), None);
    }

    #[test]
    fn part_names_compare_as_opc_does() {
        assert_eq!(key("/Word\\Document.XML"), "word/document.xml");
        assert!(is_xml("word/_rels/document.xml.rels") && is_xml("A.XML"));
        assert!(!is_xml("word/media/image1.png"));
    }

    #[test]
    fn bytes_that_are_not_a_zip_are_not_a_word_document() {
        assert!(matches!(
            Package::unpack(b"just text"),
            Err(DocxError::NotZip)
        ));
        assert!(matches!(
            Package::unpack(b"PK\x03\x04 and then nothing"),
            Err(DocxError::Directory { .. })
        ));
    }
}
