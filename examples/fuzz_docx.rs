//! A fuzz run of the Word reader, outside the tests: mutated copies of the shipped sample
//! document (bytes flipped in each XML part, parts cut off, parts swapped, bytes flipped in
//! the compressed archive, the archive cut off), each read on its own thread under a bound.
//! Reports how many were read, refused, hung (over the bound) or panicked, and the slowest.
//!
//! cargo run --release --example fuzz_docx -- [CASES] [SEED]     (defaults: 2000, 1)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a benchmark: a failure stops it

use std::io::{Cursor, Read, Write};
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

/// A case that takes longer than this counts as a hang.
const BOUND: Duration = Duration::from_secs(1);

type Entries = Vec<(String, Vec<u8>)>;

fn entries(bytes: &[u8]) -> Result<Entries, Box<dyn std::error::Error>> {
    let mut archive = ZipArchive::new(Cursor::new(bytes))?;
    let mut out = Vec::new();
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i)?;
        if entry.is_dir() {
            continue;
        }
        let mut data = Vec::new();
        entry.read_to_end(&mut data)?;
        out.push((entry.name().to_string(), data));
    }
    Ok(out)
}

fn zipped(entries: &Entries) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    for (name, data) in entries {
        zip.start_file(name.as_str(), options)?;
        zip.write_all(data)?;
    }
    Ok(zip.finish()?.into_inner())
}

/// One mutated document, and what was done to it.
fn mutate(
    rng: &mut ChaCha8Rng,
    original: &[u8],
    parts: &Entries,
) -> Result<(String, Vec<u8>), Box<dyn std::error::Error>> {
    let xml: Vec<usize> = (0..parts.len())
        .filter(|i| parts[*i].0.ends_with(".xml") || parts[*i].0.ends_with(".rels"))
        .collect();
    let mut parts = parts.clone();
    let pick = xml[rng.random_range(0..xml.len())];
    let name = parts[pick].0.clone();
    Ok(match rng.random_range(0..5) {
        0 => {
            let data = &mut parts[pick].1;
            let flips = rng.random_range(1..=8);
            for _ in 0..flips {
                let at = rng.random_range(0..data.len());
                data[at] ^= 1 << rng.random_range(0..8);
            }
            (format!("{flips} bit flips in {name}"), zipped(&parts)?)
        }
        1 => {
            let data = &mut parts[pick].1;
            let at = rng.random_range(0..data.len());
            data.truncate(at);
            (format!("{name} cut at byte {at}"), zipped(&parts)?)
        }
        2 => {
            // Another part (the sample has several XML parts).
            let other = xml[(xml.iter().position(|i| *i == pick).unwrap_or(0)
                + rng.random_range(1..xml.len()))
                % xml.len()];
            let swapped = parts[other].1.clone();
            parts[pick].1 = swapped;
            (
                format!("{name} replaced by {}", parts[other].0),
                zipped(&parts)?,
            )
        }
        3 => {
            let mut bytes = original.to_vec();
            let flips = rng.random_range(1..=8);
            for _ in 0..flips {
                let at = rng.random_range(0..bytes.len());
                bytes[at] ^= 1 << rng.random_range(0..8);
            }
            (format!("{flips} bit flips in the archive"), bytes)
        }
        _ => {
            let at = rng.random_range(0..original.len());
            (format!("archive cut at byte {at}"), original[..at].to_vec())
        }
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let cases: usize = args.next().map_or(Ok(2000), |a| a.parse())?;
    let seed: u64 = args.next().map_or(Ok(1), |a| a.parse())?;
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-config/dilemmas.docx");
    let original = std::fs::read(&sample)?;
    let parts = entries(&original)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // Panics are counted, not printed: the reader must not panic at all.
    std::panic::set_hook(Box::new(|_| {}));

    let (mut read, mut refused, mut hung, mut panicked) = (0, 0, 0, 0);
    let mut slowest = (Duration::ZERO, String::new());
    let started = Instant::now();
    for _ in 0..cases {
        let (what, bytes) = mutate(&mut rng, &original, &parts)?;
        let (tx, rx) = mpsc::channel();
        let t0 = Instant::now();
        std::thread::spawn(move || {
            let outcome =
                std::panic::catch_unwind(|| ethics_bowl::inputs::docx_blocks(&bytes).is_ok());
            let _ = tx.send(outcome);
        });
        match rx.recv_timeout(BOUND) {
            Ok(Ok(true)) => read += 1,
            Ok(Ok(false)) => refused += 1,
            Ok(Err(_)) => {
                panicked += 1;
                eprintln!("panic: {what}");
            }
            Err(_) => {
                hung += 1;
                eprintln!("over {BOUND:?}: {what}");
            }
        }
        let took = t0.elapsed();
        if took > slowest.0 {
            slowest = (took, what);
        }
    }
    println!(
        "{cases} mutated documents (seed {seed}) in {:.2} s: {read} read, {refused} refused, \
         {hung} over {} s, {panicked} panicked; slowest {:.1} ms ({})",
        started.elapsed().as_secs_f64(),
        BOUND.as_secs(),
        slowest.0.as_secs_f64() * 1000.0,
        slowest.1
    );
    if hung + panicked > 0 {
        std::process::exit(1);
    }
    Ok(())
}
