//! Damaged Word files, made from the shipped `sample-config/dilemmas.docx`: parts cut off,
//! bytes flipped in each XML part and in the compressed archive, parts swapped, the zip
//! cut or its central directory broken, and decompression bombs. Each case runs on its own
//! thread under a time bound, so that a reader that loops fails the test instead of
//! hanging it; every case must return (a result or an error) within the bound, and no panic
//! may escape. The command line is checked too: exit code 2, the file named, no panic text.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::io::{Cursor, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use ethics_bowl::inputs::{Block, DocxError, docx_blocks};
use proptest::prelude::*;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

/// Longest a case may take; the reader takes milliseconds on the sample even in debug builds.
const BOUND: Duration = Duration::from_secs(2);

fn sample_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-config/dilemmas.docx")
}

/// The sample's entries (name, bytes), in archive order, directories left out.
fn sample_entries() -> Vec<(String, Vec<u8>)> {
    let bytes = std::fs::read(sample_path()).expect("the sample document");
    let mut archive = ZipArchive::new(Cursor::new(bytes)).expect("the sample is a zip");
    (0..archive.len())
        .filter_map(|i| {
            let mut entry = archive.by_index(i).expect("entry");
            if entry.is_dir() {
                return None;
            }
            let mut data = Vec::new();
            entry.read_to_end(&mut data).expect("entry bytes");
            Some((entry.name().to_string(), data))
        })
        .collect()
}

/// The names of the sample's XML parts.
fn xml_parts(entries: &[(String, Vec<u8>)]) -> Vec<String> {
    entries
        .iter()
        .map(|(name, _)| name.clone())
        .filter(|n| n.ends_with(".xml") || n.ends_with(".rels"))
        .collect()
}

/// A zip as Word writes one: every entry deflated.
fn deflated(entries: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    for (name, data) in entries {
        zip.start_file(name.as_str(), options).expect("start entry");
        zip.write_all(data).expect("write entry");
    }
    zip.finish().expect("finish zip").into_inner()
}

/// An entry for [`raw_zip`]: stored bytes, or a deflate stream with a declared size.
enum Raw {
    Stored(Vec<u8>),
    Deflated { stream: Vec<u8>, declared: u32 },
}

/// A zip written byte by byte, so that an entry can declare a size it does not have.
fn raw_zip(entries: &[(&str, Raw)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut directory = Vec::new();
    for (name, raw) in entries {
        let (method, crc, data, declared): (u16, u32, &[u8], u32) = match raw {
            Raw::Stored(data) => (0, crc32(data), data, data.len() as u32),
            // The checksum of a bomb is never reached.
            Raw::Deflated { stream, declared } => (8, 0, stream, *declared),
        };
        let offset = out.len() as u32;
        let fields = |out: &mut Vec<u8>| {
            out.extend(method.to_le_bytes());
            out.extend([0u8; 4]); // time, date
            out.extend(crc.to_le_bytes());
            out.extend((data.len() as u32).to_le_bytes());
            out.extend(declared.to_le_bytes());
            out.extend((name.len() as u16).to_le_bytes());
            out.extend([0u8; 2]); // extra field length
        };
        out.extend(b"PK\x03\x04\x14\x00\x00\x00");
        fields(&mut out);
        out.extend(name.as_bytes());
        out.extend(data);
        directory.extend(b"PK\x01\x02\x14\x00\x14\x00\x00\x00");
        fields(&mut directory);
        directory.extend([0u8; 8]); // comment length, disk, internal and external attributes
        directory.extend([0u8; 2]);
        directory.extend(offset.to_le_bytes());
        directory.extend(name.as_bytes());
    }
    let start = out.len() as u32;
    let count = entries.len() as u16;
    out.extend(&directory);
    out.extend(b"PK\x05\x06\x00\x00\x00\x00");
    out.extend(count.to_le_bytes());
    out.extend(count.to_le_bytes());
    out.extend((directory.len() as u32).to_le_bytes());
    out.extend(start.to_le_bytes());
    out.extend([0u8; 2]);
    out
}

/// A zip of the entries, stored, with correct checksums.
fn stored(entries: &[(String, Vec<u8>)]) -> Vec<u8> {
    let raw: Vec<(&str, Raw)> = entries
        .iter()
        .map(|(name, data)| (name.as_str(), Raw::Stored(data.clone())))
        .collect();
    raw_zip(&raw)
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A deflate stream (one block, fixed codes) that unpacks to `1 + 258 × repeats` spaces
/// from 13 bits per 258 bytes: a space, then matches of length 258 at distance 1.
fn deflate_bomb(repeats: usize) -> Vec<u8> {
    struct Bits {
        out: Vec<u8>,
        acc: u32,
        n: u32,
    }
    impl Bits {
        fn put(&mut self, value: u32, count: u32) {
            for i in 0..count {
                self.acc |= ((value >> i) & 1) << self.n;
                self.n += 1;
                if self.n == 8 {
                    self.out.push(self.acc as u8);
                    (self.acc, self.n) = (0, 0);
                }
            }
        }
        /// Huffman codes go most significant bit first.
        fn code(&mut self, code: u32, len: u32) {
            let reversed = (0..len).fold(0, |r, i| (r << 1) | ((code >> i) & 1));
            self.put(reversed, len);
        }
    }
    let mut bits = Bits {
        out: Vec::new(),
        acc: 0,
        n: 0,
    };
    bits.put(1, 1); // the last block
    bits.put(1, 2); // fixed Huffman codes
    bits.code(0x30 + u32::from(b' '), 8);
    for _ in 0..repeats {
        bits.code(0xc0 + (285 - 280), 8); // length 258
        bits.code(0, 5); // distance 1
    }
    bits.code(0, 7); // end of block
    if bits.n > 0 {
        bits.out.push(bits.acc as u8);
    }
    bits.out
}

/// Reads `bytes` on a thread: the result, or why the case failed (too slow, or a panic).
fn bounded(bytes: Vec<u8>) -> Result<Result<Vec<Block>, DocxError>, String> {
    let (tx, rx) = mpsc::channel();
    let started = Instant::now();
    let worker = std::thread::spawn(move || {
        let _ = tx.send(docx_blocks(&bytes));
    });
    match rx.recv_timeout(BOUND) {
        Ok(result) => {
            let _ = worker.join();
            Ok(result)
        }
        Err(mpsc::RecvTimeoutError::Timeout) => Err(format!(
            "the reader did not return within {BOUND:?} (still running after {:?})",
            started.elapsed()
        )),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err("the reader panicked".into()),
    }
}

/// Damage done to the sample.
#[derive(Debug, Clone)]
enum Damage {
    /// The XML part (by index) cut at a fraction of its length.
    CutPart(usize, f64),
    /// Bytes of the XML part set to values: (fraction of its length, byte).
    FlipInPart(usize, Vec<(f64, u8)>),
    /// Two parts' contents swapped.
    SwapParts(usize, usize),
    /// Bytes of the deflated archive set to values.
    FlipInZip(Vec<(f64, u8)>),
    /// The deflated archive cut.
    CutZip(f64),
    /// Bytes of the stored archive's central directory (and end record) set to values.
    FlipInDirectory(Vec<(f64, u8)>),
}

fn damage() -> impl Strategy<Value = Damage> {
    let flips = || prop::collection::vec((0.0f64..1.0, any::<u8>()), 1..4);
    prop_oneof![
        (0usize..64, 0.0f64..1.0).prop_map(|(p, at)| Damage::CutPart(p, at)),
        (0usize..64, flips()).prop_map(|(p, f)| Damage::FlipInPart(p, f)),
        (0usize..64, 0usize..64).prop_map(|(a, b)| Damage::SwapParts(a, b)),
        flips().prop_map(Damage::FlipInZip),
        (0.0f64..1.0).prop_map(Damage::CutZip),
        flips().prop_map(Damage::FlipInDirectory),
    ]
}

fn at(fraction: f64, len: usize) -> usize {
    ((fraction * len as f64) as usize).min(len.saturating_sub(1))
}

fn flip(bytes: &mut [u8], flips: &[(f64, u8)]) {
    for &(fraction, value) in flips {
        let i = at(fraction, bytes.len());
        bytes[i] = value;
    }
}

/// The damaged file, and what the reader must say about it, if it must fail.
fn damaged(entries: &[(String, Vec<u8>)], damage: &Damage) -> (Vec<u8>, Option<String>) {
    let parts = xml_parts(entries);
    let index_of = |p: usize| {
        let name = &parts[p % parts.len()];
        entries.iter().position(|(n, _)| n == name).unwrap()
    };
    let mut entries = entries.to_vec();
    match damage {
        Damage::CutPart(p, fraction) => {
            let i = index_of(*p);
            let (name, data) = &mut entries[i];
            let cut = at(*fraction, data.len());
            // Cut before the root element's end, the part must be refused for what it is.
            let root_end = data.iter().rposition(|&b| b == b'>').unwrap_or(0);
            let expected = (cut < root_end).then(|| format!("{name} is cut off at byte {cut}"));
            data.truncate(cut);
            (stored(&entries), expected)
        }
        Damage::FlipInPart(p, flips) => {
            let i = index_of(*p);
            flip(&mut entries[i].1, flips);
            (stored(&entries), None)
        }
        Damage::SwapParts(a, b) => {
            let (a, b) = (index_of(*a), index_of(*b));
            let data_a = entries[a].1.clone();
            entries[a].1 = std::mem::replace(&mut entries[b].1, data_a);
            (stored(&entries), None)
        }
        Damage::FlipInZip(flips) => {
            let mut bytes = deflated(&entries);
            flip(&mut bytes, flips);
            (bytes, None)
        }
        Damage::CutZip(fraction) => {
            let mut bytes = deflated(&entries);
            bytes.truncate(at(*fraction, bytes.len()));
            (bytes, Some("not a Word document".into()))
        }
        Damage::FlipInDirectory(flips) => {
            let mut bytes = stored(&entries);
            let directory = bytes
                .windows(4)
                .position(|w| w == b"PK\x01\x02")
                .expect("a central directory");
            flip(&mut bytes[directory..], flips);
            (bytes, None)
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, max_shrink_iters: 32, ..ProptestConfig::default() })]

    #[test]
    fn every_damaged_document_ends_in_time_with_a_result_or_a_clear_error(damage in damage()) {
        let entries = sample_entries();
        let (bytes, expected) = damaged(&entries, &damage);
        let result = bounded(bytes).map_err(TestCaseError::fail)?;
        match (result, expected) {
            (Err(e), Some(expected)) => {
                let message = e.to_string();
                prop_assert!(message.contains(&expected), "{message}\nexpected: {expected}");
            }
            (Ok(_), Some(expected)) => prop_assert!(false, "read, but expected: {expected}"),
            (Err(e), None) => prop_assert!(!e.to_string().is_empty()),
            (Ok(_), None) => {}
        }
    }
}

#[test]
fn the_undamaged_sample_reads_the_same_stored_or_deflated() {
    let entries = sample_entries();
    let original = docx_blocks(&std::fs::read(sample_path()).unwrap()).unwrap();
    assert!(original.len() > 50);
    assert_eq!(docx_blocks(&stored(&entries)).unwrap(), original);
    assert_eq!(docx_blocks(&deflated(&entries)).unwrap(), original);
}

/// The sample with `word/document.xml` replaced by a bomb of `repeats`.
fn with_bomb(part: &str, repeats: usize, declared: u32) -> Vec<u8> {
    let entries = sample_entries();
    let stream = deflate_bomb(repeats);
    let mut raw: Vec<(&str, Raw)> = entries
        .iter()
        .filter(|(name, _)| name != part)
        .map(|(name, data)| (name.as_str(), Raw::Stored(data.clone())))
        .collect();
    raw.push((part, Raw::Deflated { stream, declared }));
    raw_zip(&raw)
}

#[test]
fn decompression_bombs_are_refused_without_unpacking_them() {
    // 65,100 matches unpack to just over 16 MiB from about 106 kB (plus the sample).
    let repeats = 65_100;
    let size = (1 + 258 * repeats) as u32;
    for declared in [size, 4096] {
        let bytes = with_bomb("word/document.xml", repeats, declared);
        assert!(bytes.len() < 200_000, "{}", bytes.len());
        let message = match bounded(bytes) {
            Ok(Err(e)) => e.to_string(),
            Ok(Ok(_)) => panic!("a bomb was read"),
            Err(why) => panic!("declared {declared}: {why}"),
        };
        assert!(
            message.contains("word/document.xml unpacks to more than 16 MiB"),
            "{message}"
        );
    }
}

#[test]
fn a_bomb_in_an_image_is_never_unpacked() {
    let repeats = 65_100;
    let bytes = with_bomb("word/media/image1.png", repeats, (1 + 258 * repeats) as u32);
    let blocks = bounded(bytes).expect("in time").expect("read");
    assert!(blocks.len() > 50);
}

#[test]
fn the_command_refuses_a_cut_document_with_exit_2_and_no_panic_text() {
    let mut entries = sample_entries();
    let (_, document) = entries
        .iter_mut()
        .find(|(name, _)| name == "word/document.xml")
        .unwrap();
    // Cut in the middle of a run: the case that made the old reader spin forever.
    let run = document
        .windows(5)
        .enumerate()
        .skip(document.len() / 2)
        .find(|(_, w)| w == b"<w:r>")
        .map(|(i, _)| i)
        .unwrap();
    let cut = run + 20;
    document.truncate(cut);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cut-off.docx");
    std::fs::write(&file, stored(&entries)).unwrap();

    let mut child = Command::new(env!("CARGO_BIN_EXE_ethics-bowl"))
        .args(["dilemmas"])
        .arg(&file)
        .env_remove("RUST_BACKTRACE")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > BOUND * 5 {
            let _ = child.kill();
            panic!("`ethics-bowl dilemmas` did not end within {:?}", BOUND * 5);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}: word/document.xml is cut off at byte {cut}: the file is damaged; open and \
             re-save it in Word or LibreOffice",
            file.display()
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.stdout.is_empty());
}
