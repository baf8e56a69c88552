//! The glyph detector of key to screen (`display latency --rdp`) on recorded framebuffers:
//! three screens FreeRDP's shadow server sent latlab (an xterm prompt before typing, after
//! one key and after two; `benches/data/`, the top 64 rows of 1024×768, from
//! `--rdp-snapshot`), the cells learned from them, then the detector's check of a key's cell
//! while only the caret is there (the common case: a check per update until the glyph comes)
//! and when the glyph has come. The target: under 0.2 ms per key.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use latlab_desktop::fb::{Area, Framebuffer, pixel_of};
use latlab_keyscreen::typometer::{Detector, learn_cells};
use std::io::Read;

/// A recorded screen (binary PPM, gzip) at 16 bpp, as latlab decodes it.
fn screen(name: &str) -> Framebuffer {
    let path = format!("{}/benches/data/shadow-xterm-{name}.ppm.gz", env!("CARGO_MANIFEST_DIR"));
    let mut raw = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&path).expect(&path)).read_to_end(&mut raw).expect(&path);
    let mut parts = raw.splitn(4, |&b| b == b'\n');
    let (_, dims, _, px) = (parts.next(), parts.next().unwrap(), parts.next(), parts.next().unwrap());
    let dims: Vec<usize> = std::str::from_utf8(dims).unwrap().split(' ').map(|v| v.parse().unwrap()).collect();
    let (w, h) = (dims[0], dims[1]);
    let mut fb = Framebuffer::new(w, h, 16);
    for (i, p) in px.chunks_exact(3).enumerate() {
        fb.fill(Area::new(i % w, i / w, 1, 1), pixel_of(16, p[0], p[1], p[2]));
    }
    fb
}

fn bench(c: &mut Criterion) {
    let (before, one, two) = (screen("before"), screen("one"), screen("two"));
    let roi = Area::new(0, 0, before.width, before.height);
    let cells = learn_cells(&before, &one, &two, roi).expect("the recorded screens show typing");
    let mut caret = Vec::new();
    two.read(cells.cell(2), &mut caret);
    let mut g = c.benchmark_group("glyph_detector");
    g.bench_function("check_caret_only", |b| {
        let mut d = Detector::mixed(caret.clone(), u64::MAX);
        d.expect(0, cells.cell(2), 0);
        let mut out = Vec::new();
        b.iter(|| d.check(&two, 1, &mut out));
        assert!(out.is_empty(), "the caret is not a glyph");
    });
    g.bench_function("check_glyph_found", |b| {
        b.iter_batched(
            || {
                let mut d = Detector::mixed(caret.clone(), u64::MAX);
                d.expect(0, cells.cell(1), 0);
                (d, Vec::with_capacity(1))
            },
            |(mut d, mut out)| {
                d.check(&two, 1, &mut out);
                assert_eq!(out.len(), 1);
            },
            BatchSize::SmallInput,
        )
    });
    g.bench_function("learn_cells", |b| b.iter(|| learn_cells(&before, &one, &two, roi).unwrap()));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
