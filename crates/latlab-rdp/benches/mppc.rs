//! MPPC benchmark on latlab's built-in corpus: ratio, compress and decompress MB/s for
//! latlab-rdp, and ironrdp-bulk's decompression of the same streams for comparison.
//! `cargo bench -p latlab-rdp --bench mppc`

use ironrdp_bulk::{BulkCompressor, CompressionType as Theirs};
use latlab_rdp::CompressionType;
use latlab_rdp::corpus::display_pdus;
use latlab_rdp::throughput::measure;
use std::time::Instant;

fn main() {
    for (t, theirs, max) in
        [(CompressionType::Mppc8k, Theirs::Rdp4, 8_000), (CompressionType::Mppc64k, Theirs::Rdp5, 16_000)]
    {
        let pdus = display_pdus(1, 2000, max);
        let m = measure(t, &pdus, 5).unwrap();
        let mut tt = f64::MAX;
        for _ in 0..5 {
            let mut d = BulkCompressor::new(theirs).unwrap();
            let t0 = Instant::now();
            for (f, w) in &m.stream {
                std::hint::black_box(d.decompress(w, *f as u32).unwrap());
            }
            tt = tt.min(t0.elapsed().as_secs_f64());
        }
        println!(
            "{t:?}: {:.2} MB corpus, ratio {:.3}; compress {:.1} MB/s; decompress ours {:.1} MB/s, ironrdp-bulk {:.1} MB/s (same stream)",
            m.bytes_in as f64 / 1e6,
            m.ratio(),
            m.compress_mb_s(),
            m.decompress_mb_s(),
            m.bytes_in as f64 / 1e6 / tt
        );
    }
}
