//! What one keystroke costs latlab's display server: the editor draws the key, the
//! canvas is converted to the session's depth, the update is encoded, compressed and encrypted
//! as `display capacity` sends it, and the hash of the area it changed taken for the client's check — at
//! 8, 16 and 32 bpp on a 1024×768 screen. Target: ≤ 0.3 ms a key (0.3 % of a core per typist
//! at 100 wpm, 8.3 keys a second).

use criterion::{Criterion, criterion_group, criterion_main};
use latlab_desktop::editor::scancode;
use latlab_desktop::session::SessionConfig;
use latlab_desktop::wire::{Codec, Crypto, Sender};
use latlab_desktop::workload::WorkloadKind;
use latlab_display_net::EchoDesk;

fn bench(c: &mut Criterion) {
    let text: Vec<u8> = "the quick brown fox jumps over the lazy dog ".chars().filter_map(scancode).collect();
    let mut g = c.benchmark_group("server_key");
    for bpp in [8, 16, 32] {
        let mut cfg = SessionConfig::standard(WorkloadKind::Typing { wpm: 100 }, 10_000);
        cfg.bpp = bpp;
        cfg.codec = Codec::from_name(latlab_display_net::defaults::OPS_CODEC).unwrap();
        cfg.crypto = Crypto::None;
        let mut desk = EchoDesk::new(&cfg);
        let mut tx = Sender::new(cfg.codec, cfg.crypto);
        let mut out = Vec::new();
        // The first screen goes out before typing starts.
        if let Some(a) = desk.convert() {
            desk.encode(a, &mut tx, &mut out);
        }
        let mut i = 0;
        g.bench_function(format!("{bpp}bpp"), |b| {
            b.iter(|| {
                out.clear();
                desk.key(text[i % text.len()]);
                i += 1;
                let a = desk.convert().unwrap_or_default();
                desk.encode(a, &mut tx, &mut out);
                std::hint::black_box(desk.hash_area(a))
            })
        });
    }
    g.finish();
    // A session's start: its editor drawn and the first screen encoded.
    let mut g = c.benchmark_group("server_session_start");
    g.sample_size(20);
    for bpp in [8, 16, 32] {
        let mut cfg = SessionConfig::standard(WorkloadKind::Typing { wpm: 100 }, 10_000);
        cfg.bpp = bpp;
        cfg.codec = Codec::from_name(latlab_display_net::defaults::OPS_CODEC).unwrap();
        cfg.crypto = Crypto::None;
        g.bench_function(format!("{bpp}bpp"), |b| {
            b.iter(|| {
                let mut desk = EchoDesk::new(&cfg);
                let mut tx = Sender::new(cfg.codec, cfg.crypto);
                let mut out = Vec::new();
                if let Some(a) = desk.convert() {
                    desk.encode(a, &mut tx, &mut out);
                }
                std::hint::black_box(out.len())
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
