//! `latlab codec`: bulk compression over packet files and a throughput bench on the built-in
//! corpus. Framing: `latlab_rdp::framing` (docs/codec.md).

use super::out;
use crate::cli::{CodecArgs, CodecCommand};
use anyhow::Context;
use latlab_rdp::CompressionType;
use latlab_rdp::bulk::{Compressor, Decompressor};
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
        CodecCommand::Compress(io) => {
            let t = io.algo;
            let input = read(&io.input)?;
            let mut c = Compressor::new(t)?;
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
            let corpora: Vec<Corpus> = match b.corpus {
                crate::cli::Corpora::One(c) => vec![c],
                crate::cli::Corpora::All => Corpus::ALL.to_vec(),
            };
            let mut o = String::new();
            for corpus in corpora {
                bench_corpus(&mut o, corpus, b.packets.max(1), b.passes)?;
            }
            writeln!(
                o,
                "(ratio = corpus bytes / bytes on the wire; compressed = packets sent compressed rather than flushed)"
            )?;
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

/// One table of `codec bench`: every algorithm on `corpus`, and NCRUSH's gain over MPPC-64K.
fn bench_corpus(o: &mut String, corpus: Corpus, packets: usize, passes: usize) -> anyhow::Result<()> {
    let pdus = corpus.pdus(1, packets, CORPUS_MAX_PDU);
    let total: usize = pdus.iter().map(Vec::len).sum();
    writeln!(
        o,
        "corpus '{}': {} display-update PDUs, {:.2} MB (latlab's built-in generator, seed 1)",
        corpus.name(),
        pdus.len(),
        total as f64 / 1e6
    )?;
    writeln!(o, "{:<8} {:>8} {:>12} {:>14} {:>12}", "algo", "ratio", "compressed", "compress MB/s", "decomp MB/s")?;
    let mut ratio = [0.0; 4];
    for (i, t) in CompressionType::ALL.into_iter().enumerate() {
        let m = measure(t, &pdus, passes)?;
        ratio[i] = m.ratio();
        writeln!(
            o,
            "{:<8} {:>8.3} {:>11.1}% {:>14.1} {:>12.1}",
            t.name(),
            m.ratio(),
            m.compressed as f64 * 100.0 / pdus.len() as f64,
            m.compress_mb_s(),
            m.decompress_mb_s()
        )?;
    }
    writeln!(
        o,
        "ncrush vs mppc64: {:+.1}% ratio (fewer bytes on the wire: {:.1}%)\n",
        (ratio[2] / ratio[1] - 1.0) * 100.0,
        (1.0 - ratio[1] / ratio[2]) * 100.0
    )?;
    Ok(())
}
