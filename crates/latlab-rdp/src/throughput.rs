//! Ratio and throughput of a bulk compressor over a set of PDUs, as `latlab codec bench` and
//! the `bulk` benchmark report them: best of several passes, one persistent context per pass.
//! The compressed bytes go into one buffer during the timed pass (no allocation per packet),
//! as `scripts/freerdp-codec-bench.c` does for FreeRDP's.

use crate::bulk::{Compressor, Decompressor, Level};
use crate::{BulkError, CompressionType, PACKET_COMPRESSED};
use std::time::Instant;

/// What one algorithm did on a corpus.
#[derive(Debug, Clone)]
pub struct Measurement {
    /// Bytes in.
    pub bytes_in: usize,
    /// Bytes on the wire (compressed, or as is when flushed).
    pub bytes_out: usize,
    /// PDUs sent compressed (the rest were flushed).
    pub compressed: usize,
    /// Best compression time of the passes, s.
    pub compress_s: f64,
    /// Best decompression time of the passes, s.
    pub decompress_s: f64,
    /// The last pass's stream, (flags, bytes) per PDU, for decoding elsewhere.
    pub stream: Vec<(u8, Vec<u8>)>,
}

impl Measurement {
    /// Bytes in over bytes on the wire.
    pub fn ratio(&self) -> f64 {
        self.bytes_in as f64 / self.bytes_out.max(1) as f64
    }
    /// Compression speed, MB of input per second.
    pub fn compress_mb_s(&self) -> f64 {
        self.bytes_in as f64 / 1e6 / self.compress_s
    }
    /// Decompression speed, MB of output per second.
    pub fn decompress_mb_s(&self) -> f64 {
        self.bytes_in as f64 / 1e6 / self.decompress_s
    }
}

/// Compress and decompress `pdus` `passes` times with `t` at `level`; the best times are kept.
pub fn measure(t: CompressionType, level: Level, pdus: &[Vec<u8>], passes: usize) -> Result<Measurement, BulkError> {
    let (mut best_c, mut best_d) = (f64::MAX, f64::MAX);
    let total: usize = pdus.iter().map(Vec::len).sum();
    // Every packet's wire bytes, end to end, and (flags, end) per packet.
    let mut arena: Vec<u8> = Vec::with_capacity(total + 8 * pdus.len());
    let mut ends: Vec<(u8, usize)> = Vec::with_capacity(pdus.len());
    for _ in 0..passes.max(1) {
        let mut c = Compressor::with_level(t, level)?;
        let mut wire = Vec::with_capacity(64 << 10);
        arena.clear();
        ends.clear();
        let t0 = Instant::now();
        for p in pdus {
            let f = c.compress(p, &mut wire);
            arena.extend_from_slice(&wire);
            ends.push((f, arena.len()));
        }
        best_c = best_c.min(t0.elapsed().as_secs_f64());
        let mut d = Decompressor::new(t)?;
        let t0 = Instant::now();
        let mut at = 0;
        for &(f, end) in &ends {
            std::hint::black_box(d.decompress(&arena[at..end], f)?);
            at = end;
        }
        best_d = best_d.min(t0.elapsed().as_secs_f64());
    }
    let mut at = 0;
    let stream: Vec<(u8, Vec<u8>)> = ends
        .iter()
        .map(|&(f, end)| {
            let w = arena[at..end].to_vec();
            at = end;
            (f, w)
        })
        .collect();
    Ok(Measurement {
        bytes_in: total,
        bytes_out: arena.len(),
        compressed: stream.iter().filter(|s| s.0 & PACKET_COMPRESSED != 0).count(),
        compress_s: best_c,
        decompress_s: best_d,
        stream,
    })
}
