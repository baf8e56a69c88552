//! `display ops --rdp`: UI operations driven by input on a real server, and what each moved
//! on the wire per direction and channel, headers included (seed 003 §3.3's method).

use latlab_keyscreen::keys;
use latlab_model::experiment::ExperimentError;
use latlab_model::record::RunRecord;
use latlab_rdp_peers::session::{RdpSession, SessionError};
use latlab_rdp_peers::typing::settle;
use latlab_sys::clock::{monotonic_now, thread_cpu_now};

/// A UI operation driven by input (seed 003 §3.3's operations a remote desktop can be sent).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Op {
    /// No input: what a blinking caret and clocks cost.
    Idle,
    /// Letters at the typing rate (erased with Backspace every line).
    Typing,
    /// The mouse moving in a circle at 50 events a second.
    Mouse,
    /// Page Down twice a second (scrolls a focused document; a shell prompt ignores it).
    PageDown,
    /// Keyboard menu navigation: F10, Down arrows, Escape (menus of a focused application).
    Menu,
}

impl Op {
    /// Every operation, in order.
    pub const ALL: [Op; 5] = [Op::Idle, Op::Typing, Op::Mouse, Op::PageDown, Op::Menu];
    /// The operation a name stands for.
    pub fn parse(s: &str) -> Result<Op, latlab_model::ConfigError> {
        Op::ALL
            .into_iter()
            .find(|o| o.name() == s.trim())
            .ok_or_else(|| format!("unknown operation '{s}': {}", Op::ALL.map(|o| o.name()).join(", ")).into())
    }

    /// The name in metrics.
    pub fn name(self) -> &'static str {
        match self {
            Op::Idle => "idle",
            Op::Typing => "typing",
            Op::Mouse => "mouse",
            Op::PageDown => "page_down",
            Op::Menu => "menu",
        }
    }
}

/// What one operation moved, for the paper rows.
#[derive(Debug, Clone, Copy, Default)]
pub struct OpFigure {
    /// Seconds it ran.
    pub seconds: f64,
    /// Bytes on the wire each way, headers included.
    pub down_wire: u64,
    /// See `down_wire`.
    pub up_wire: u64,
    /// Display update bytes (after TLS).
    pub display: u64,
    /// Input PDUs sent (a key press and release is one).
    pub inputs: u64,
}

/// Header bytes a TCP segment carries on the wire: IPv4 (20) and TCP with timestamps (32), as
/// seed 003 counted TCP/IP headers (Ethernet's framing not included).
pub const TCP_IP_HEADER: u64 = 52;

/// One operation `op` for `op_seconds` on session `s`: its bytes each way, its PDUs and the
/// client's CPU.
pub fn ops(rec: &mut RunRecord, op_seconds: f64, s: &mut RdpSession, op: Op) -> Result<OpFigure, ExperimentError> {
    settle(s, latlab_keyscreen::defaults::RDP_SETTLE_NS, 5_000_000_000).map_err(failed)?;
    let before = s.tcp().map_err(ExperimentError::failed)?;
    let (db0, sp0, in0) =
        (s.counts().display_bytes, s.counts().slowpath_bytes + s.counts().fastpath_bytes, s.counts().input_bytes);
    let start = monotonic_now();
    // The session is one thread: its CPU is all latlab's client does (TLS, IronRDP's control
    // PDUs, decompressing, decoding, drawing, input), the figure set beside another client's.
    let cpu0 = thread_cpu_now();
    let end = start + (op_seconds * 1e9) as u64;
    let step = match op {
        Op::Idle => end - start,
        // Seed 003's display figures are for a typist at 100 wpm.
        Op::Typing => (60e9 / (crate::defaults::CAPACITY_WPM as f64 * latlab_desktop::defaults::CHARS_PER_WORD)) as u64,
        Op::Mouse => 20_000_000,
        // Page Down held, at the key repeat the seed measured (20 a second).
        Op::PageDown => latlab_desktop::defaults::KEY_REPEAT_MS * 1_000_000,
        Op::Menu => 500_000_000,
    };
    let (mut i, mut typed) = (0u64, 0usize);
    loop {
        let due = start + i * step;
        if due >= end {
            break;
        }
        s.pump_until(due, &mut |_, _| {}).map_err(failed)?;
        match op {
            Op::Idle => {}
            Op::Typing => {
                if typed == latlab_keyscreen::defaults::RDP_KEYS_PER_LINE {
                    s.type_keys(&vec![keys::BACKSPACE; typed]).map_err(failed)?;
                    typed = 0;
                } else {
                    s.type_keys(&[keys::letter(typed)]).map_err(failed)?;
                    typed += 1;
                }
            }
            Op::Mouse => {
                let a = i as f64 * 0.2;
                s.mouse_to((400.0 + 150.0 * a.cos()) as u16, (300.0 + 150.0 * a.sin()) as u16).map_err(failed)?;
            }
            Op::PageDown => {
                s.type_keys(&[keys::PAGE_DOWN]).map_err(failed)?;
            }
            Op::Menu => {
                let k = match i % 4 {
                    0 => keys::F10,
                    3 => keys::ESCAPE,
                    _ => keys::DOWN,
                };
                s.type_keys(&[k]).map_err(failed)?;
            }
        }
        i += 1;
    }
    s.pump_until(end, &mut |_, _| {}).map_err(failed)?;
    if typed > 0 {
        s.type_keys(&vec![keys::BACKSPACE; typed]).map_err(failed)?;
    }
    let secs = (monotonic_now() - start) as f64 / 1e9;
    let cpu = thread_cpu_now() - cpu0;
    let after = s.tcp().map_err(ExperimentError::failed)?;
    let p = format!("rdp.ops.{}", op.name());
    let (segs_in, segs_out) = (after.segs_in - before.segs_in, after.segs_out - before.segs_out);
    let (bin, bout) = (after.bytes_in - before.bytes_in, after.bytes_out - before.bytes_out);
    rec.metric(&format!("{p}.down_bytes_per_s"), (bin + segs_in * TCP_IP_HEADER) as f64 / secs, "B/s");
    rec.metric(&format!("{p}.up_bytes_per_s"), (bout + segs_out * TCP_IP_HEADER) as f64 / secs, "B/s");
    rec.metric(&format!("{p}.down_packets_per_s"), segs_in as f64 / secs, "1/s");
    rec.metric(&format!("{p}.up_packets_per_s"), segs_out as f64 / secs, "1/s");
    let display = s.counts().display_bytes - db0;
    let all = s.counts().slowpath_bytes + s.counts().fastpath_bytes - sp0;
    rec.metric(&format!("{p}.display_bytes_per_s"), display as f64 / secs, "B/s");
    rec.metric(&format!("{p}.control_bytes_per_s"), all.saturating_sub(display) as f64 / secs, "B/s");
    rec.metric(&format!("{p}.input_bytes_per_s"), (s.counts().input_bytes - in0) as f64 / secs, "B/s");
    rec.metric(&format!("{p}.retransmits"), after.retrans - before.retrans, "count");
    rec.metric(&format!("{p}.client_cpu"), cpu as f64 / secs / 1e9, "ratio");
    if bin > 0 {
        rec.metric(&format!("{p}.client_cpu_per_mb"), cpu as f64 / (bin as f64 / 1e6), "ns/MB");
    }
    Ok(OpFigure {
        seconds: secs,
        down_wire: bin + segs_in * TCP_IP_HEADER,
        up_wire: bout + segs_out * TCP_IP_HEADER,
        display: s.counts().display_bytes - db0,
        inputs: if op == Op::Idle { 0 } else { i },
    })
}

fn failed(e: SessionError) -> ExperimentError {
    ExperimentError::failed(e)
}
