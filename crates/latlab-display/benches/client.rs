//! The client's decode rate on the animated slide show's wire stream (seed 000's heaviest
//! case): decrypt, decompress, decode, cache and blit every PDU of 4 s of the 1024×768×16
//! slide show from memory, with no network. The study's peak was 3.7 MB/s on the wire; the
//! share of one core this client needs for it is 3.7 MB/s divided by the rate measured here
//! (printed after the run).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use latlab_desktop::decoder::Decoder;
use latlab_desktop::encoder::EncoderConfig;
use latlab_desktop::policy::PolicyKind;
use latlab_desktop::session::{SessionConfig, record_wire};
use latlab_desktop::wire::{Codec, Crypto, Receiver};
use latlab_desktop::workload::WorkloadKind;
use latlab_display::pipeline::PAPER_PEAK_BYTES_PER_S;
use latlab_rdp::CompressionType;
use latlab_rdp::security::Protection;
use std::time::Instant;

fn stream(codec: Codec, crypto: Crypto) -> (SessionConfig, Vec<Vec<u8>>) {
    let cfg = SessionConfig {
        width: 1024,
        height: 768,
        bpp: 16,
        workload: WorkloadKind::Slideshow,
        seed: 1,
        frame_ms: 20,
        duration_ms: 4_000,
        warmup_ms: 0,
        encoder: EncoderConfig { orders: true, cells: [120, 120, 337], policy: PolicyKind::Lru, max_pdu: 16_000 },
        codec,
        crypto,
        check_every_frame: false,
        timed: false,
    };
    let pdus = record_wire(&cfg).expect("the slide show runs");
    (cfg, pdus)
}

fn decode_all(cfg: &SessionConfig, pdus: &[Vec<u8>]) -> u64 {
    let mut rx = Receiver::new(cfg.codec, cfg.crypto, false);
    let mut dec = Decoder::new(cfg.width, cfg.height, cfg.bpp, cfg.encoder.cells, false);
    let mut update = Vec::new();
    for p in pdus {
        rx.read(p, &mut update).expect("a recorded PDU reads");
        dec.apply(&update).expect("a recorded PDU applies");
    }
    dec.fb.hash()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("client_slideshow");
    g.sample_size(20);
    let mut shares = Vec::new();
    for (name, codec, crypto) in [
        ("ncrush_rc4", Codec::Rdp(CompressionType::Ncrush), Crypto::On(Protection::Rc4Mac { salted: false })),
        ("ncrush_none", Codec::Rdp(CompressionType::Ncrush), Crypto::None),
        ("none_none", Codec::None, Crypto::None),
        ("lz4_chacha20", Codec::Lz4, Crypto::On(Protection::ChaCha20Poly1305)),
    ] {
        let (cfg, pdus) = stream(codec, crypto);
        let bytes: usize = pdus.iter().map(Vec::len).sum();
        g.throughput(Throughput::Bytes(bytes as u64));
        g.bench_function(name, |b| b.iter(|| decode_all(&cfg, &pdus)));
        // One more timed pass of ten decodes for the share printed below.
        let t = Instant::now();
        for _ in 0..10 {
            std::hint::black_box(decode_all(&cfg, &pdus));
        }
        let rate = 10.0 * bytes as f64 / t.elapsed().as_secs_f64();
        shares.push((name, bytes, rate));
    }
    g.finish();
    for (name, bytes, rate) in shares {
        println!(
            "{name}: {:.1} MB of wire in 4 s of slide show; decoded at {:.1} MB/s; 3.7 MB/s takes {:.1} % of a core",
            bytes as f64 / 1e6,
            rate / 1e6,
            100.0 * PAPER_PEAK_BYTES_PER_S / rate
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
