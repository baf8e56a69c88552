//! `latlab type`'s screen reads on a 1024×768 Xvfb (target: capture and detection
//! at 2 kHz or more, a figure resolved to 0.5 ms): one MIT-SHM read of the whole screen, one of
//! the 13-pixel line typing draws on (what is read while keys are awaited), and the detector's
//! check of a key's cell on a 32-bit screen. Needs Xvfb; says so and measures nothing without.

use criterion::{Criterion, criterion_group, criterion_main};
use latlab_desktop::fb::{Area, Framebuffer};
use latlab_keyscreen::launch::OwnXvfb;
use latlab_keyscreen::typist::Surface;
use latlab_keyscreen::typometer::Detector;
use latlab_keyscreen::x11::X11Surface;

fn bench(c: &mut Criterion) {
    let xvfb = match OwnXvfb::start(1024, 768) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("x11_capture: {e}: nothing measured");
            return;
        }
    };
    let mut x = X11Surface::connect(&xvfb.display, 0).expect("latlab's own Xvfb");
    let screen = x.screen_area();
    x.aim(screen, None).expect("aim at the screen");
    let mut g = c.benchmark_group("x11_capture");
    g.bench_function("shm_read_1024x768", |b| b.iter(|| x.read().unwrap()));
    x.watch(Some(Area::new(0, 300, 1024, 13)));
    g.bench_function("shm_read_line_1024x13", |b| b.iter(|| x.read().unwrap()));
    let mut fb = Framebuffer::xrgb(1024, 768);
    let cell = Area::new(100, 300, 6, 13);
    let caret = {
        fb.fill(cell, 0xffffff);
        let mut v = Vec::new();
        fb.read(cell, &mut v);
        v
    };
    let mut d = Detector::mixed(caret, u64::MAX);
    g.bench_function("detector_check_caret_only", |b| b.iter(|| d.inked(&fb, cell)));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
