//! Arguments of `latlab codec`: RDP bulk compression and RLE on files, corpora, bench.

use super::{at_least_one, named};
use clap::{Args, Subcommand};
use latlab_rdp::CompressionType;
use latlab_rdp::bulk::Level;
use latlab_rdp::corpus::Corpus;
use std::path::PathBuf;

/// `latlab codec`.
#[derive(Debug, Args)]
pub struct CodecArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: CodecCommand,
}

/// Subcommands of `latlab codec`.
#[derive(Debug, Subcommand)]
pub enum CodecCommand {
    /// Compress every packet of a packet file (see docs/codec.md for the framing).
    Compress(CodecCompress),
    /// Decompress every packet of a packet file, with the flags stored beside each.
    Decompress(CodecIo),
    /// Write latlab's built-in corpus of display-update PDUs as a packet file.
    Corpus(CodecCorpus),
    /// Compression ratio and MB/s in and out per algorithm on the built-in corpus.
    Bench(CodecBench),
    /// Compress a raw bitmap (scanlines bottom-up, little-endian pixels) with interleaved RLE.
    RleEncode(RleIo),
    /// Decompress an interleaved-RLE bitmap stream into raw scanlines (bottom-up).
    RleDecode(RleIo),
}

/// Input, output and geometry of `rle-encode` / `rle-decode`.
#[derive(Debug, Args)]
pub struct RleIo {
    /// Bitmap width in pixels [1 or more].
    #[arg(long, value_parser = at_least_one)]
    pub width: usize,
    /// Bitmap height in pixels [1 or more].
    #[arg(long, value_parser = at_least_one)]
    pub height: usize,
    /// Colour depth: 8, 15, 16 or 24.
    #[arg(long, value_parser = named(vec!["8", "15", "16", "24"], |s| s.parse::<u32>().ok()))]
    pub bpp: u32,
    /// File to read.
    #[arg(long = "in")]
    pub input: PathBuf,
    /// File to write.
    #[arg(long = "out")]
    pub output: PathBuf,
}

/// Input and output of `compress` / `decompress`.
#[derive(Debug, Args)]
pub struct CodecIo {
    /// Algorithm: mppc8 (RDP 4.0), mppc64 (RDP 5.0), ncrush (RDP 6.0), xcrush (RDP 6.1).
    #[arg(long, value_parser = named(CompressionType::ALL.map(CompressionType::name).to_vec(), CompressionType::from_name))]
    pub algo: CompressionType,
    /// Packet file to read.
    #[arg(long = "in")]
    pub input: PathBuf,
    /// Packet file to write.
    #[arg(long = "out")]
    pub output: PathBuf,
}

/// `latlab codec compress`.
#[derive(Debug, Args)]
pub struct CodecCompress {
    /// Algorithm, input and output.
    #[command(flatten)]
    pub io: CodecIo,
    /// How hard to search: fast (the default: faster than FreeRDP's compressors, output no
    /// larger), balanced, or best (fewest bytes, slowest). Decompression is the same for all.
    #[arg(long, default_value = "fast", value_parser = named(Level::ALL.map(Level::name).to_vec(), Level::from_name))]
    pub level: Level,
}

/// `latlab codec corpus`.
#[derive(Debug, Args)]
pub struct CodecCorpus {
    /// Packet file to write.
    #[arg(long = "out")]
    pub output: PathBuf,
    /// Number of PDUs [0 or more].
    #[arg(long, default_value_t = latlab_rdp::corpus::DEFAULT_PDUS)]
    pub packets: usize,
    /// Seed of the generator [any number].
    #[arg(long, default_value_t = latlab_rdp::corpus::DEFAULT_SEED)]
    pub seed: u64,
    /// Which corpus: session (a simulated session's real wire PDUs) or synthetic (raw
    /// payload-like patterns, two kinds in five nearly incompressible).
    #[arg(long, default_value = "session", value_parser = named(Corpus::ALL.map(Corpus::name).to_vec(), Corpus::from_name))]
    pub corpus: Corpus,
}

/// `latlab codec bench`.
#[derive(Debug, Args)]
pub struct CodecBench {
    /// Which corpus: session, synthetic, or all (both, one table each).
    #[arg(long, default_value = "all", value_parser = named(corpus_or_all_names(), corpus_or_all), conflicts_with = "input")]
    pub corpus: Corpora,
    /// Bench the packets of this packet file instead of a built-in corpus (the file
    /// `codec corpus` writes, or a capture in the same framing).
    #[arg(long = "in")]
    pub input: Option<PathBuf>,
    /// Number of PDUs in the corpus [1 or more].
    #[arg(long, default_value_t = latlab_rdp::corpus::DEFAULT_PDUS, conflicts_with = "input", value_parser = at_least_one)]
    pub packets: usize,
    /// Passes over the corpus (the best is reported) [1 or more].
    #[arg(long, default_value_t = latlab_rdp::corpus::DEFAULT_PASSES, value_parser = at_least_one)]
    pub passes: usize,
    /// Compression level to bench: fast, balanced, best, or all (each, to show the trade-off).
    #[arg(long, default_value = "all", value_parser = named(level_or_all_names(), level_or_all))]
    pub level: Levels,
    /// Tab-separated lines (corpus, algo, level, bytes in, bytes out, compressed packets,
    /// packets, compress MB/s, decompress MB/s) instead of tables, for scripts.
    #[arg(long)]
    pub tsv: bool,
}

fn level_or_all_names() -> Vec<&'static str> {
    let mut v = Level::ALL.map(Level::name).to_vec();
    v.push("all");
    v
}

fn level_or_all(s: &str) -> Option<Levels> {
    if s == "all" { Some(Levels::All) } else { Level::from_name(s).map(Levels::One) }
}

/// One compression level, or all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Levels {
    /// This one.
    One(Level),
    /// Every level, fastest first.
    All,
}

impl Levels {
    /// The levels meant.
    pub fn list(self) -> Vec<Level> {
        match self {
            Levels::One(l) => vec![l],
            Levels::All => Level::ALL.to_vec(),
        }
    }
}

fn corpus_or_all_names() -> Vec<&'static str> {
    let mut v = Corpus::ALL.map(Corpus::name).to_vec();
    v.push("all");
    v
}

/// One built-in corpus, or all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Corpora {
    /// This one.
    One(Corpus),
    /// Every corpus, one table each.
    All,
}

fn corpus_or_all(s: &str) -> Option<Corpora> {
    if s == "all" { Some(Corpora::All) } else { Corpus::from_name(s).map(Corpora::One) }
}
