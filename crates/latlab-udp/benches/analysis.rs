//! Analysis benchmark: a synthetic 10-million-packet trace (1 ms interval, the study's
//! hold-and-release pattern every 1.23 s, some loss), analysed once; prints the time and the
//! peak memory per packet (trace + analysis). `cargo bench -p latlab-udp --bench analysis`.

use latlab_udp::analysis::Trace;
use latlab_udp::probe::ProbeCounts;
use latlab_udp::{Mode, UdpConfig};
use std::time::Instant;

fn vm_hwm_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok())
        })
        .unwrap_or(0)
        * 1024
}

fn main() {
    let n: usize = std::env::var("PACKETS").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000_000);
    let base = vm_hwm_bytes();
    let iv = 1_000_000u64;
    let mut t = Trace::with_capacity(n, iv, 1_000_000_000, true);
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for k in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let send = 1_000_000_000 + k as u64 * iv + x % 20_000;
        t.sent_mono[k] = send;
        t.sent_wall[k] = send as i64;
        if x.is_multiple_of(1000) {
            continue; // 0.1 % loss
        }
        let arrive = ((send + 30_000) / 1_230_000_000 + 1) * 1_230_000_000 + (x % 5_000);
        t.refl_rx[k] = arrive as i64;
        t.refl_tx[k] = arrive as i64 + 2_000;
        t.rx_client[k] = arrive as i64 + 40_000;
    }
    let after_trace = vm_hwm_bytes();
    let cfg = UdpConfig {
        mode: Mode::Loopback { ipv6: false, relay: None },
        interval_ns: iv,
        duration_ns: n as u64 * iv,
        size: 64,
        key: None,
        wait_ns: 1_000_000_000,
        playout: latlab_udp::defaults::PLAYOUT,
        sweep_intervals_ns: Vec::new(),
        padded_size: None,
    };
    let t0 = Instant::now();
    let rec = latlab_udp::analyze(&cfg, &t, &ProbeCounts::default());
    let secs = t0.elapsed().as_secs_f64();
    let peak = vm_hwm_bytes();
    let period = rec.get_metric("burst.release_period").map(|m| m.value.as_f64() / 1e6).unwrap_or(0.0);
    println!(
        "udp analysis of {n} packets: {secs:.2} s; peak memory {:.1} B/packet (trace {:.1} B/packet); release period found {period:.1} ms",
        (peak - base) as f64 / n as f64,
        (after_trace - base) as f64 / n as f64
    );
}
