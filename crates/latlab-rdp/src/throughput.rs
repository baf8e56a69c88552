//! Ratio and throughput of a bulk compressor over a set of PDUs, as `latlab codec bench` and
//! the `mppc` benchmark report them: best of several passes, one persistent context per pass.

use crate::bulk::{Compressor, Decompressor};
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

/// Compress and decompress `pdus` `passes` times with `t`; the best times are kept.
pub fn measure(t: CompressionType, pdus: &[Vec<u8>], passes: usize) -> Result<Measurement, BulkError> {
    let (mut best_c, mut best_d) = (f64::MAX, f64::MAX);
    let mut stream = Vec::new();
    for _ in 0..passes.max(1) {
        let mut c = Compressor::new(t)?;
        let mut wire = Vec::new();
        let t0 = Instant::now();
        stream = pdus.iter().map(|p| (c.compress(p, &mut wire), wire.clone())).collect();
        best_c = best_c.min(t0.elapsed().as_secs_f64());
        let mut d = Decompressor::new(t)?;
        let t0 = Instant::now();
        for (f, w) in &stream {
            std::hint::black_box(d.decompress(w, *f)?);
        }
        best_d = best_d.min(t0.elapsed().as_secs_f64());
    }
    Ok(Measurement {
        bytes_in: pdus.iter().map(Vec::len).sum(),
        bytes_out: stream.iter().map(|s| s.1.len()).sum(),
        compressed: stream.iter().filter(|s| s.0 & PACKET_COMPRESSED != 0).count(),
        compress_s: best_c,
        decompress_s: best_d,
        stream,
    })
}
