//! MPPC benchmark on latlab's built-in corpus: ratio, compress and decompress MB/s for
//! latlab-rdp, and ironrdp-bulk's decompression of the same streams for comparison.
//! `cargo bench -p latlab-rdp --bench mppc`

use ironrdp_bulk::{BulkCompressor, CompressionType as Theirs};
use latlab_rdp::CompressionType;
use latlab_rdp::corpus::display_pdus;
use latlab_rdp::mppc::{MppcCompressor, MppcDecompressor};
use std::time::Instant;

fn best<T>(passes: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::MAX;
    let mut last = None;
    for _ in 0..passes {
        let t0 = Instant::now();
        last = Some(f());
        best = best.min(t0.elapsed().as_secs_f64());
    }
    (best, last.expect("at least one pass"))
}

fn main() {
    for (t, theirs, max) in
        [(CompressionType::Mppc8k, Theirs::Rdp4, 8_000), (CompressionType::Mppc64k, Theirs::Rdp5, 16_000)]
    {
        let pdus = display_pdus(1, 2000, max);
        let total: usize = pdus.iter().map(Vec::len).sum();
        let (tc, stream) = best(5, || {
            let mut c = MppcCompressor::new(t).unwrap();
            let mut w = Vec::new();
            pdus.iter().map(|p| (c.compress(p, &mut w), w.clone())).collect::<Vec<_>>()
        });
        let wire: usize = stream.iter().map(|s| s.1.len()).sum();
        let (td, _) = best(5, || {
            let mut d = MppcDecompressor::new(t).unwrap();
            stream.iter().map(|(f, w)| d.decompress(w, *f).unwrap().len()).sum::<usize>()
        });
        let (tt, _) = best(5, || {
            let mut d = BulkCompressor::new(theirs).unwrap();
            stream.iter().map(|(f, w)| d.decompress(w, *f as u32).unwrap().len()).sum::<usize>()
        });
        println!(
            "{t:?}: {:.2} MB corpus, ratio {:.3}; compress {:.1} MB/s; decompress ours {:.1} MB/s, ironrdp-bulk {:.1} MB/s (same stream)",
            total as f64 / 1e6,
            total as f64 / wire as f64,
            total as f64 / 1e6 / tc,
            total as f64 / 1e6 / td,
            total as f64 / 1e6 / tt
        );
    }
}
