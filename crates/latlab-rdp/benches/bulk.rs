//! Criterion benchmarks of latlab-rdp on the built-in corpora (`latlab_rdp::corpus`): compress
//! throughput per bulk algorithm and level, decompress throughput per algorithm,
//! ironrdp-bulk's decompression of the very same streams for comparison, and the interleaved
//! RLE codec on screen-like bitmaps. The compression ratio per algorithm is printed first
//! (criterion measures time only).
//! `cargo bench -p latlab-rdp --bench bulk`

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ironrdp_bulk::BulkCompressor;
#[path = "../tests/common/mod.rs"]
mod common;
use common::theirs;

use latlab_rdp::CompressionType;
use latlab_rdp::bulk::{Compressor, Decompressor, Level};
use latlab_rdp::corpus::{Corpus, Gen, screen_bitmap};
use latlab_rdp::throughput::measure;

/// The ratio ironrdp-bulk's own compressor reaches on the same PDUs (skipped for XCRUSH, whose
/// compressor in 0.1.0 can overflow on these inputs; see tests/differential.rs).
fn their_ratio(t: CompressionType, pdus: &[Vec<u8>]) -> Option<f64> {
    if t == CompressionType::Xcrush {
        return None;
    }
    let mut c = BulkCompressor::new(theirs(t)).ok()?;
    let (mut inb, mut outb) = (0, 0);
    for p in pdus {
        let (size, flags) = c.compress(p).ok()?;
        inb += p.len();
        outb += if flags & 0x20 != 0 { size } else { p.len() };
    }
    Some(inb as f64 / outb.max(1) as f64)
}

fn bulk(c: &mut Criterion) {
    for corpus in Corpus::ALL {
        bulk_on(c, corpus);
    }
}

fn bulk_on(c: &mut Criterion, corpus: Corpus) {
    let pdus = corpus.pdus(1, 1000, 16_000);
    let bytes: usize = pdus.iter().map(Vec::len).sum();
    let mut g = c.benchmark_group(format!("bulk-{}", corpus.name()));
    g.throughput(Throughput::Bytes(bytes as u64)).sample_size(10);
    for t in CompressionType::ALL {
        let m = measure(t, Level::default(), &pdus, 1).unwrap();
        eprintln!(
            "{} {}: ratio {:.3} on {:.2} MB ({} of {} PDUs compressed)",
            corpus.name(),
            t.name(),
            m.ratio(),
            bytes as f64 / 1e6,
            m.compressed,
            pdus.len()
        );
        if let Some(r) = their_ratio(t, &pdus) {
            eprintln!("{} {}: ironrdp-bulk's compressor, ratio {r:.3} (for reference)", corpus.name(), t.name());
        }
        for level in Level::ALL {
            g.bench_function(BenchmarkId::new(format!("compress-{}", level.name()), t.name()), |b| {
                let mut out = Vec::new();
                b.iter(|| {
                    let mut c = Compressor::with_level(t, level).unwrap();
                    for p in &pdus {
                        std::hint::black_box(c.compress(p, &mut out));
                    }
                })
            });
        }
        g.bench_function(BenchmarkId::new("decompress", t.name()), |b| {
            b.iter(|| {
                let mut d = Decompressor::new(t).unwrap();
                for (f, w) in &m.stream {
                    std::hint::black_box(d.decompress(w, *f).unwrap());
                }
            })
        });
        g.bench_function(BenchmarkId::new("decompress-ironrdp-bulk", t.name()), |b| {
            b.iter(|| {
                let mut d = BulkCompressor::new(theirs(t)).unwrap();
                for (f, w) in &m.stream {
                    std::hint::black_box(d.decompress(w, *f as u32).unwrap());
                }
            })
        });
    }
    g.finish();
}

fn rle(c: &mut Criterion) {
    let mut g = c.benchmark_group("rle");
    for bpp in [8u32, 16, 24] {
        let mut rng = Gen::new(9);
        let bitmaps: Vec<Vec<u8>> = (0..64).map(|_| screen_bitmap(&mut rng, 64, 64, bpp)).collect();
        let raw: usize = bitmaps.iter().map(Vec::len).sum();
        let enc: Vec<Vec<u8>> = bitmaps.iter().map(|b| latlab_rdp::rle::encode(b, 64, 64, bpp).unwrap()).collect();
        let encb: usize = enc.iter().map(Vec::len).sum();
        eprintln!("rle {bpp} bpp: ratio {:.2} on 64 screen-like 64×64 tiles", raw as f64 / encb as f64);
        g.throughput(Throughput::Bytes(raw as u64));
        g.bench_function(BenchmarkId::new("encode", bpp), |b| {
            b.iter(|| bitmaps.iter().map(|x| latlab_rdp::rle::encode(x, 64, 64, bpp).unwrap().len()).sum::<usize>())
        });
        g.bench_function(BenchmarkId::new("decode", bpp), |b| {
            b.iter(|| enc.iter().map(|x| latlab_rdp::rle::decode(x, 64, 64, bpp).unwrap().len()).sum::<usize>())
        });
    }
    g.finish();
}

criterion_group!(benches, bulk, rle);
criterion_main!(benches);
