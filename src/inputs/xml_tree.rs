//! A small XML element tree for the parts of a Word file, built in one pass over
//! quick-xml's events. Whatever the bytes, building it takes time linear in their length:
//! every event moves the reader forward, the end of the input ends the pass, nesting is
//! capped, and namespace prefixes resolve through one stack per prefix (no scan of the
//! declarations in scope). Damage is an error that says where: a part cut off, a tag that
//! does not match, an undeclared prefix, an unknown entity.

use std::collections::HashMap;

use quick_xml::Reader;
use quick_xml::XmlVersion;
use quick_xml::errors::{Error as ReadError, IllFormedError};
use quick_xml::events::{BytesRef, BytesStart, Event};

/// Elements nested deeper than this are refused: Word nests a few dozen at most, and the
/// code that walks a tree recurses.
pub const MAX_DEPTH: usize = 256;

/// The namespace the `xml:` prefix is bound to without a declaration.
const XML_NAMESPACE: &str = "http://www.w3.org/XML/1998/namespace";

/// What is wrong with an XML part, and where (a byte offset into the part as unpacked).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum XmlError {
    /// The text ends inside markup or with elements still open.
    #[error("is cut off at byte {at}")]
    CutOff {
        /// The part's length: where it stops.
        at: usize,
    },
    /// The text breaks XML's rules before its end.
    #[error("is not well-formed XML at byte {at} ({why})")]
    Malformed {
        /// Where.
        at: usize,
        /// What the reader found.
        why: String,
    },
    /// Elements nest deeper than [`MAX_DEPTH`].
    #[error("nests elements more than {MAX_DEPTH} deep (byte {at})")]
    TooDeep {
        /// Where the element too deep starts.
        at: usize,
    },
    /// The bytes are not UTF-8 (or UTF-16 with a byte-order mark).
    #[error("is not UTF-8 text (byte {at})")]
    NotText {
        /// The first byte that is not.
        at: usize,
    },
}

/// A parsed XML text: its elements, the root first.
#[derive(Debug)]
pub struct Tree {
    elements: Vec<ElementData>,
    namespaces: Vec<String>,
}

#[derive(Debug)]
struct ElementData {
    namespace: Option<usize>,
    local: String,
    attributes: Vec<AttributeData>,
    content: Vec<Content>,
}

#[derive(Debug)]
struct AttributeData {
    namespace: Option<usize>,
    local: String,
    value: String,
}

#[derive(Debug)]
enum Content {
    Element(usize),
    Text(String),
}

/// One element of a [`Tree`], to read its name, attributes, children and text.
#[derive(Debug, Clone, Copy)]
pub struct Element<'t> {
    tree: &'t Tree,
    id: usize,
}

impl Tree {
    /// Parses `bytes` as UTF-8 (a UTF-8 or UTF-16 byte-order mark is honoured). Positions
    /// in errors count the bytes of the part, mark included (for UTF-16, of its text as
    /// UTF-8).
    pub fn parse_bytes(bytes: &[u8]) -> Result<Tree, XmlError> {
        let (text, mark) = decode(bytes)?;
        Tree::parse(&text).map_err(|e| e.shifted(mark))
    }

    /// Parses one XML text into a tree, or says where and why it cannot.
    pub fn parse(text: &str) -> Result<Tree, XmlError> {
        let mut reader = Reader::from_str(text);
        let config = reader.config_mut();
        config.check_end_names = true;
        config.expand_empty_elements = false;
        config.trim_text(false);
        let mut builder = Builder::default();
        loop {
            let at = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
            let event = match reader.read_event() {
                Ok(event) => event,
                Err(e) => {
                    let at = usize::try_from(reader.error_position()).unwrap_or(usize::MAX);
                    return Err(read_error(&e, at, text));
                }
            };
            let malformed = |why: String| XmlError::Malformed { at, why };
            match event {
                Event::Start(e) => builder.open(&e, at)?,
                Event::Empty(e) => {
                    builder.open(&e, at)?;
                    builder.close();
                }
                Event::End(_) => builder.close(),
                Event::Text(t) => {
                    let t = t.xml10_content().map_err(|e| malformed(e.to_string()))?;
                    builder.text(&t, at)?;
                }
                Event::CData(t) => {
                    let t = t.decode().map_err(|e| malformed(e.to_string()))?;
                    builder.text(&t, at)?;
                }
                Event::GeneralRef(r) => builder.text(&entity(&r).map_err(malformed)?, at)?,
                Event::DocType(_) => {
                    return Err(malformed(
                        "a document type declaration, which Word files never have".into(),
                    ));
                }
                Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
                Event::Eof => return builder.finish(text.len()),
            }
        }
    }

    /// The root element.
    pub fn root(&self) -> Element<'_> {
        Element { tree: self, id: 0 }
    }
}

impl<'t> Element<'t> {
    fn data(&self) -> &'t ElementData {
        &self.tree.elements[self.id]
    }

    /// The name without its prefix.
    pub fn local_name(&self) -> &'t str {
        &self.data().local
    }

    /// Whether this element is `local` in one of `namespaces`.
    pub fn is(&self, namespaces: &[&str], local: &str) -> bool {
        let data = self.data();
        data.local == local
            && data
                .namespace
                .is_some_and(|n| namespaces.contains(&self.tree.namespaces[n].as_str()))
    }

    /// The value of the attribute `local` with no prefix.
    pub fn attribute(&self, local: &str) -> Option<&'t str> {
        self.data()
            .attributes
            .iter()
            .find(|a| a.namespace.is_none() && a.local == local)
            .map(|a| a.value.as_str())
    }

    /// The value of the attribute `local` in one of `namespaces`.
    pub fn attribute_in(&self, namespaces: &[&str], local: &str) -> Option<&'t str> {
        self.data()
            .attributes
            .iter()
            .find(|a| {
                a.local == local
                    && a.namespace
                        .is_some_and(|n| namespaces.contains(&self.tree.namespaces[n].as_str()))
            })
            .map(|a| a.value.as_str())
    }

    /// The child elements, in order.
    pub fn children(&self) -> impl Iterator<Item = Element<'t>> + 't {
        let tree = self.tree;
        self.data().content.iter().filter_map(move |c| match c {
            Content::Element(id) => Some(Element { tree, id: *id }),
            Content::Text(_) => None,
        })
    }

    /// The text directly inside this element (not inside its children).
    pub fn text(&self) -> String {
        self.data()
            .content
            .iter()
            .filter_map(|c| match c {
                Content::Text(t) => Some(t.as_str()),
                Content::Element(_) => None,
            })
            .collect()
    }
}

impl XmlError {
    /// The same error with its position moved `by` bytes on.
    fn shifted(self, by: usize) -> XmlError {
        match self {
            XmlError::CutOff { at } => XmlError::CutOff { at: at + by },
            XmlError::Malformed { at, why } => XmlError::Malformed { at: at + by, why },
            XmlError::TooDeep { at } => XmlError::TooDeep { at: at + by },
            XmlError::NotText { at } => XmlError::NotText { at: at + by },
        }
    }
}

/// The text of a part's bytes (UTF-8, with or without a byte-order mark, or UTF-16 with
/// one) and the length of its mark.
fn decode(bytes: &[u8]) -> Result<(String, usize), XmlError> {
    let utf16 = |rest: &[u8], unit: fn([u8; 2]) -> u16| {
        let pairs = rest.chunks_exact(2);
        if !pairs.remainder().is_empty() {
            return Err(XmlError::CutOff { at: bytes.len() });
        }
        let mut text = String::with_capacity(rest.len() / 2);
        for c in char::decode_utf16(pairs.map(|c| unit([c[0], c[1]]))) {
            match c {
                Ok(c) => text.push(c),
                // After the mark, two bytes per unit of what decoded.
                Err(_) => {
                    return Err(XmlError::NotText {
                        at: 2 + 2 * text.encode_utf16().count(),
                    });
                }
            }
        }
        Ok(text)
    };
    match bytes {
        [0xef, 0xbb, 0xbf, rest @ ..] => Ok((utf8(rest, 3)?, 3)),
        [0xff, 0xfe, rest @ ..] => Ok((utf16(rest, u16::from_le_bytes)?, 2)),
        [0xfe, 0xff, rest @ ..] => Ok((utf16(rest, u16::from_be_bytes)?, 2)),
        _ => Ok((utf8(bytes, 0)?, 0)),
    }
}

fn utf8(bytes: &[u8], offset: usize) -> Result<String, XmlError> {
    std::str::from_utf8(bytes)
        .map(str::to_owned)
        .map_err(|e| match e.error_len() {
            // A character begun but not finished: the text stops inside it.
            None => XmlError::CutOff {
                at: offset + bytes.len(),
            },
            Some(_) => XmlError::NotText {
                at: offset + e.valid_up_to(),
            },
        })
}

/// The reader's error as ours: every syntax error is input that ends inside markup.
fn read_error(e: &ReadError, at: usize, text: &str) -> XmlError {
    let cut = match e {
        ReadError::Syntax(_) => true,
        // A `&` with no `;` before the end: cut off inside a reference.
        ReadError::IllFormed(IllFormedError::UnclosedReference) => {
            !text.get(at..).is_some_and(|rest| rest.contains(['<', ';']))
        }
        _ => false,
    };
    if cut {
        XmlError::CutOff { at: text.len() }
    } else {
        XmlError::Malformed {
            at,
            why: e.to_string(),
        }
    }
}

/// A character or predefined entity reference's text; XML has no others without a DTD.
fn entity(r: &BytesRef<'_>) -> Result<String, String> {
    if let Some(c) = r.resolve_char_ref().map_err(|e| e.to_string())? {
        return Ok(c.to_string());
    }
    let name = r.decode().map_err(|e| e.to_string())?;
    let text = match name.as_ref() {
        "lt" => "<",
        "gt" => ">",
        "amp" => "&",
        "apos" => "'",
        "quot" => "\"",
        other => return Err(format!("unknown entity &{other};")),
    };
    Ok(text.to_string())
}

/// Builds the tree from events, resolving namespaces as elements open and close.
#[derive(Default)]
struct Builder {
    elements: Vec<ElementData>,
    namespaces: Vec<String>,
    namespace_ids: HashMap<String, usize>,
    /// Per prefix ("" for the default namespace), its bindings, innermost last; `None`
    /// undeclares the default namespace.
    bindings: HashMap<String, Vec<Option<usize>>>,
    /// The open elements, each with the prefixes it declared.
    open: Vec<(usize, Vec<String>)>,
}

/// A qualified name split at its colon.
fn split(name: &[u8]) -> Result<(&str, &str), String> {
    let name = std::str::from_utf8(name).map_err(|e| e.to_string())?;
    Ok(name.split_once(':').unwrap_or(("", name)))
}

impl Builder {
    fn open(&mut self, start: &BytesStart<'_>, at: usize) -> Result<(), XmlError> {
        let malformed = |why: String| XmlError::Malformed { at, why };
        if self.open.len() >= MAX_DEPTH {
            return Err(XmlError::TooDeep { at });
        }
        if self.open.is_empty() && !self.elements.is_empty() {
            return Err(malformed("a second root element".into()));
        }
        // Declarations first: they apply to the element's own name and attributes.
        let mut declared = Vec::new();
        let mut plain = Vec::new();
        for attribute in start.attributes().with_checks(false) {
            let attribute = attribute.map_err(|e| malformed(e.to_string()))?;
            let (prefix, local) = split(attribute.key.as_ref()).map_err(malformed)?;
            let value = attribute
                .normalized_value(XmlVersion::Implicit1_0)
                .map_err(|e| malformed(e.to_string()))?
                .into_owned();
            match (prefix, local) {
                ("", "xmlns") => declared.push((String::new(), value)),
                ("xmlns", prefix) => declared.push((prefix.to_string(), value)),
                _ => plain.push((prefix.to_string(), local.to_string(), value)),
            }
        }
        let mut prefixes = Vec::with_capacity(declared.len());
        for (prefix, uri) in declared {
            let id = (!uri.is_empty()).then(|| self.namespace_id(&uri));
            self.bindings.entry(prefix.clone()).or_default().push(id);
            prefixes.push(prefix);
        }
        let name = start.name();
        let (prefix, local) = split(name.as_ref()).map_err(malformed)?;
        let namespace = self.resolve(prefix).map_err(malformed)?;
        let mut attributes = Vec::with_capacity(plain.len());
        for (prefix, local, value) in plain {
            // An attribute without a prefix is in no namespace.
            let namespace = if prefix.is_empty() {
                None
            } else {
                self.resolve(&prefix).map_err(malformed)?
            };
            attributes.push(AttributeData {
                namespace,
                local,
                value,
            });
        }
        let id = self.elements.len();
        self.elements.push(ElementData {
            namespace,
            local: local.to_string(),
            attributes,
            content: Vec::new(),
        });
        if let Some(&(parent, _)) = self.open.last() {
            self.elements[parent].content.push(Content::Element(id));
        }
        self.open.push((id, prefixes));
        Ok(())
    }

    /// Ends the innermost element (the reader has checked that the names match).
    fn close(&mut self) {
        if let Some((_, prefixes)) = self.open.pop() {
            for prefix in prefixes {
                if let Some(stack) = self.bindings.get_mut(&prefix) {
                    stack.pop();
                }
            }
        }
    }

    fn text(&mut self, text: &str, at: usize) -> Result<(), XmlError> {
        match self.open.last() {
            Some(&(id, _)) => {
                let content = &mut self.elements[id].content;
                match content.last_mut() {
                    Some(Content::Text(t)) => t.push_str(text),
                    _ => content.push(Content::Text(text.to_string())),
                }
                Ok(())
            }
            None if text.chars().all(|c| matches!(c, ' ' | '\t' | '\r' | '\n')) => Ok(()),
            None => Err(XmlError::Malformed {
                at,
                why: "text outside the root element".into(),
            }),
        }
    }

    fn finish(self, len: usize) -> Result<Tree, XmlError> {
        // Open elements at the end, or no element at all: the text stops too early.
        if !self.open.is_empty() || self.elements.is_empty() {
            return Err(XmlError::CutOff { at: len });
        }
        Ok(Tree {
            elements: self.elements,
            namespaces: self.namespaces,
        })
    }

    fn namespace_id(&mut self, uri: &str) -> usize {
        if let Some(&id) = self.namespace_ids.get(uri) {
            return id;
        }
        let id = self.namespaces.len();
        self.namespaces.push(uri.to_string());
        self.namespace_ids.insert(uri.to_string(), id);
        id
    }

    fn resolve(&mut self, prefix: &str) -> Result<Option<usize>, String> {
        if prefix == "xml" {
            return Ok(Some(self.namespace_id(XML_NAMESPACE)));
        }
        match self.bindings.get(prefix).and_then(|stack| stack.last()) {
            Some(id) => Ok(*id),
            None if prefix.is_empty() => Ok(None),
            None => Err(format!("the prefix \"{prefix}:\" is not declared")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: &str = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";

    fn parse(text: &str) -> Result<Tree, XmlError> {
        Tree::parse(text)
    }

    #[test]
    fn names_attributes_and_text_resolve_through_namespaces() {
        let tree = parse(&format!(
            r#"<?xml version="1.0"?><w:document xmlns:w="{W}"><w:p w:val="a &amp; b" id="7">x&lt;<![CDATA[y]]>&#65;<w:r/></w:p></w:document>"#
        ))
        .unwrap();
        let root = tree.root();
        assert!(root.is(&[W], "document"));
        let p = root.children().next().unwrap();
        assert!(p.is(&[W], "p") && !p.is(&["other"], "p"));
        assert_eq!(p.attribute_in(&[W], "val"), Some("a & b"));
        assert_eq!(p.attribute("id"), Some("7"));
        assert_eq!(p.attribute("val"), None);
        assert_eq!(p.text(), "x<yA");
        assert_eq!(
            p.children().map(|c| c.local_name()).collect::<Vec<_>>(),
            ["r"]
        );
    }

    #[test]
    fn a_prefix_is_bound_only_inside_the_element_that_declares_it() {
        let tree = parse(r#"<a><b xmlns:x="u1"><x:c/></b><b xmlns="u2"><c/></b></a>"#).unwrap();
        let bs: Vec<_> = tree.root().children().collect();
        assert!(bs[0].children().next().unwrap().is(&["u1"], "c"));
        assert!(bs[1].children().next().unwrap().is(&["u2"], "c"));
        let e = parse(r#"<a><b xmlns:x="u1"/><x:c/></a>"#).unwrap_err();
        assert!(
            matches!(e, XmlError::Malformed { ref why, .. } if why.contains("\"x:\"")),
            "{e}"
        );
    }

    #[test]
    fn text_cut_anywhere_is_cut_off_at_its_length() {
        let full = format!(
            r#"<?xml version="1.0"?><w:document xmlns:w="{W}"><w:body><w:p><w:r><w:t xml:space="preserve">a &amp; b</w:t></w:r></w:p></w:body></w:document>"#
        );
        let end = full.rfind('>').unwrap();
        for cut in 0..end {
            match parse(&full[..cut]) {
                Err(XmlError::CutOff { at }) => assert_eq!(at, cut),
                other => panic!("cut at {cut}: {other:?}"),
            }
        }
        assert!(parse(&full).is_ok());
    }

    #[test]
    fn damage_before_the_end_is_malformed_at_its_byte() {
        for (text, at) in [
            ("<a><b></c></a>", 6),
            ("<a></a><b/>", 7),
            ("<a>&nope;</a>", 3),
            ("<a></a>text", 7),
            ("<!DOCTYPE a [<!ENTITY x 'y'>]><a/>", 0),
        ] {
            match parse(text) {
                Err(XmlError::Malformed { at: got, .. }) => assert_eq!(got, at, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
    }

    #[test]
    fn nesting_is_capped() {
        let deep = "<a>".repeat(MAX_DEPTH + 1) + &"</a>".repeat(MAX_DEPTH + 1);
        assert!(matches!(parse(&deep), Err(XmlError::TooDeep { .. })));
        let fine = "<a>".repeat(MAX_DEPTH) + &"</a>".repeat(MAX_DEPTH);
        assert!(parse(&fine).is_ok());
    }

    #[test]
    fn bytes_are_utf8_or_utf16_with_a_mark() {
        assert!(Tree::parse_bytes(b"\xef\xbb\xbf<a/>").is_ok());
        assert_eq!(
            Tree::parse_bytes(b"\xef\xbb\xbf<a>").unwrap_err(),
            XmlError::CutOff { at: 6 }
        );
        let utf16: Vec<u8> = [0xff, 0xfe]
            .into_iter()
            .chain("<a>é</a>".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        assert_eq!(Tree::parse_bytes(&utf16).unwrap().root().text(), "é");
        assert_eq!(
            Tree::parse_bytes(b"<a>\xff</a>").unwrap_err(),
            XmlError::NotText { at: 3 }
        );
        // Cut inside a character ("é" is two bytes).
        assert_eq!(
            Tree::parse_bytes(&"<a>é".as_bytes()[..4]).unwrap_err(),
            XmlError::CutOff { at: 4 }
        );
        assert_eq!(
            Tree::parse_bytes(&utf16[..utf16.len() - 1]).unwrap_err(),
            XmlError::CutOff {
                at: utf16.len() - 1
            }
        );
    }
}
