//! `latlab codec`: bulk compression over packet files and a throughput bench on the built-in
//! corpus. Framing: `latlab_rdp::framing` (docs/codec.md).

use crate::cli::{CodecArgs, CodecCommand};
use crate::runner::out;
use anyhow::Context;
use latlab_rdp::CompressionType;
use latlab_rdp::bulk::{Compressor, Decompressor, Level};
use latlab_rdp::corpus::Corpus;
use latlab_rdp::framing::{read_records, write_record};
use latlab_rdp::throughput::measure;
use std::fmt::Write as _;
use std::io::Write;

/// Largest PDU in the built-in corpus: a fast-path update fragment stays under 16 KB.
const CORPUS_MAX_PDU: usize = 16_000;

fn read(path: &std::path::Path) -> anyhow::Result<Vec<(u8, Vec<u8>)>> {
    let data = std::fs::read(path).with_context(|| format!("cannot read '{}'", path.display()))?;
    read_records(&data).map_err(|e| anyhow::anyhow!("'{}' is not a packet file: {e}", path.display()))
}

fn write_file(path: &std::path::Path, records: &[(u8, Vec<u8>)]) -> anyhow::Result<()> {
    let f = std::fs::File::create(path).with_context(|| format!("cannot create '{}'", path.display()))?;
    let mut w = std::io::BufWriter::new(f);
    for (flags, p) in records {
        write_record(&mut w, *flags, p)?;
    }
    w.flush().with_context(|| format!("cannot write '{}'", path.display()))
}

pub fn run(a: CodecArgs) -> anyhow::Result<i32> {
    match a.command {
        CodecCommand::Compress(cc) => {
            let io = cc.io;
            let t = io.algo;
            let input = read(&io.input)?;
            let mut c = Compressor::with_level(t, cc.level)?;
            let mut wire = Vec::new();
            let mut outp = Vec::with_capacity(input.len());
            let (mut bin, mut bout) = (0usize, 0usize);
            for (_, p) in &input {
                let flags = c.compress(p, &mut wire);
                bin += p.len();
                bout += wire.len();
                outp.push((flags, wire.clone()));
            }
            write_file(&io.output, &outp)?;
            eprintln!("{} packets, {bin} → {bout} bytes (ratio {:.3})", input.len(), bin as f64 / bout.max(1) as f64);
        }
        CodecCommand::Decompress(io) => {
            let t = io.algo;
            let input = read(&io.input)?;
            let mut d = Decompressor::new(t)?;
            let mut outp = Vec::with_capacity(input.len());
            for (i, (flags, p)) in input.iter().enumerate() {
                let got = d.decompress(p, *flags).with_context(|| format!("packet {i} (flags {flags:#04x})"))?;
                outp.push((0u8, got.to_vec()));
            }
            write_file(&io.output, &outp)?;
            eprintln!("{} packets decompressed", input.len());
        }
        CodecCommand::Corpus(c) => {
            let pdus = c.corpus.pdus(c.seed, c.packets, CORPUS_MAX_PDU);
            let recs: Vec<(u8, Vec<u8>)> = pdus.into_iter().map(|p| (0u8, p)).collect();
            write_file(&c.output, &recs)?;
            eprintln!("wrote {} PDUs to {}", recs.len(), c.output.display());
        }
        CodecCommand::Bench(b) => {
            let sets: Vec<(String, Vec<Vec<u8>>)> = match &b.input {
                Some(path) => {
                    let pdus: Vec<Vec<u8>> = read(path)?.into_iter().map(|(_, p)| p).collect();
                    anyhow::ensure!(!pdus.is_empty(), "'{}' holds no packets", path.display());
                    vec![(path.display().to_string(), pdus)]
                }
                None => {
                    let corpora = match b.corpus {
                        crate::cli::Corpora::One(c) => vec![c],
                        crate::cli::Corpora::All => Corpus::ALL.to_vec(),
                    };
                    corpora
                        .into_iter()
                        .map(|c| (c.name().to_string(), c.pdus(1, b.packets.max(1), CORPUS_MAX_PDU)))
                        .collect()
                }
            };
            let mut o = String::new();
            if b.tsv {
                writeln!(
                    o,
                    "corpus\talgo\tlevel\tbytes_in\tbytes_out\tcompressed\tpackets\tcompress_mb_s\tdecompress_mb_s"
                )?;
            }
            for (name, pdus) in &sets {
                bench_set(&mut o, name, pdus, &b.level.list(), b.passes, b.tsv)?;
            }
            if !b.tsv {
                writeln!(
                    o,
                    "(ratio = corpus bytes / bytes on the wire; compressed = packets sent compressed rather than flushed; decomp = decoding the stream that level wrote)"
                )?;
            }
            out(&o)?;
        }
        CodecCommand::RleEncode(io) => {
            let bpp = io.bpp;
            let raw = std::fs::read(&io.input).with_context(|| format!("cannot read '{}'", io.input.display()))?;
            let enc = latlab_rdp::rle::encode(&raw, io.width, io.height, bpp).with_context(|| {
                format!("'{}' as a {}×{} {bpp} bpp bitmap", io.input.display(), io.width, io.height)
            })?;
            std::fs::write(&io.output, &enc).with_context(|| format!("cannot write '{}'", io.output.display()))?;
            eprintln!("{} → {} bytes (ratio {:.3})", raw.len(), enc.len(), raw.len() as f64 / enc.len().max(1) as f64);
        }
        CodecCommand::RleDecode(io) => {
            let bpp = io.bpp;
            let src = std::fs::read(&io.input).with_context(|| format!("cannot read '{}'", io.input.display()))?;
            let raw = latlab_rdp::rle::decode(&src, io.width, io.height, bpp).with_context(|| {
                format!("'{}' is not a {}×{} {bpp} bpp RLE bitmap", io.input.display(), io.width, io.height)
            })?;
            std::fs::write(&io.output, &raw).with_context(|| format!("cannot write '{}'", io.output.display()))?;
            eprintln!("{} → {} bytes", src.len(), raw.len());
        }
    }
    Ok(crate::exit::OK)
}

/// One table of `codec bench` (or its lines with `tsv`): every algorithm at every level on
/// `pdus`, and NCRUSH's gain over MPPC-64K at the first level.
fn bench_set(
    o: &mut String,
    name: &str,
    pdus: &[Vec<u8>],
    levels: &[Level],
    passes: usize,
    tsv: bool,
) -> anyhow::Result<()> {
    let total: usize = pdus.iter().map(Vec::len).sum();
    if !tsv {
        writeln!(
            o,
            "corpus '{name}': {} display-update PDUs, {:.2} MB{}",
            pdus.len(),
            total as f64 / 1e6,
            if Corpus::from_name(name).is_some() { " (latlab's built-in generator, seed 1)" } else { "" }
        )?;
        writeln!(
            o,
            "{:<8} {:<9} {:>8} {:>12} {:>14} {:>12}",
            "algo", "level", "ratio", "compressed", "compress MB/s", "decomp MB/s"
        )?;
    }
    let mut ratio = [0.0; 4];
    for (i, t) in CompressionType::ALL.into_iter().enumerate() {
        for (j, &level) in levels.iter().enumerate() {
            let m = measure(t, level, pdus, passes)?;
            if j == 0 {
                ratio[i] = m.ratio();
            }
            if tsv {
                writeln!(
                    o,
                    "{name}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.1}\t{:.1}",
                    t.name(),
                    level.name(),
                    m.bytes_in,
                    m.bytes_out,
                    m.compressed,
                    pdus.len(),
                    m.compress_mb_s(),
                    m.decompress_mb_s()
                )?;
                continue;
            }
            writeln!(
                o,
                "{:<8} {:<9} {:>8.3} {:>11.1}% {:>14.1} {:>12.1}",
                t.name(),
                level.name(),
                m.ratio(),
                m.compressed as f64 * 100.0 / pdus.len() as f64,
                m.compress_mb_s(),
                m.decompress_mb_s()
            )?;
        }
    }
    if !tsv {
        writeln!(
            o,
            "ncrush vs mppc64 ({}): {:+.1}% ratio (fewer bytes on the wire: {:.1}%)\n",
            levels[0].name(),
            (ratio[2] / ratio[1] - 1.0) * 100.0,
            (1.0 - ratio[1] / ratio[2]) * 100.0
        )?;
    }
    Ok(())
}
