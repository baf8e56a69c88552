//! What a served session plays (its phases) and what it measured: per phase and for the
//! whole session.

use super::accept::ClientIdentity;
use super::gfx::AckStats;
use latlab_desktop::workload::WorkloadKind;

/// One phase of the script.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub enum Phase {
    /// The client's keys echoed into an editor as they arrive (input to update).
    Echo,
    /// A workload played on frame deadlines (or flat out).
    Play(WorkloadKind),
}

impl Phase {
    /// Its name in the script and in metrics.
    pub fn name(&self) -> &'static str {
        match self {
            Phase::Echo => "echo",
            Phase::Play(w) => w.name(),
        }
    }
    /// The phase called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        if name == "echo" { Some(Phase::Echo) } else { WorkloadKind::from_name(name).map(Phase::Play) }
    }
}

/// What the server plays to each client.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Plan {
    /// The phases, in turn.
    pub script: Vec<Phase>,
    /// Each phase's length, ms.
    pub phase_ms: u64,
    /// Frame period of a played workload, ms.
    pub frame_ms: u64,
    /// Frames back to back as fast as the client takes them (the throughput limit), instead
    /// of on deadlines.
    pub flat_out: bool,
    /// Drawing orders and the bitmap cache where the client supports them (else bitmaps).
    pub orders: bool,
    /// Bulk-compress with the type the client offered.
    pub compress: bool,
    /// Workload seed.
    pub seed: u64,
    /// Longest stretch the client may take nothing, ns.
    pub idle_ns: u64,
    /// Longest session, ns.
    pub max_ns: u64,
}

/// What one phase did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct PhaseStats {
    /// The phase's name.
    pub name: String,
    /// Frames the workload drew (echo: updates made).
    pub frames: u64,
    /// Frames that carried an update (a frame where nothing changed sends none).
    pub sent: u64,
    /// Frames dropped because the last one was still queued (their damage went with the next).
    pub dropped: u64,
    /// Frames held back while the client had suppressed output.
    pub suppressed: u64,
    /// Fast-path update bytes handed to TLS.
    pub update_bytes: u64,
    /// Update bytes before bulk compression.
    pub plain_bytes: u64,
    /// Wall time, ns.
    pub wall_ns: u64,
    /// Server thread CPU: render, encode (and compress), send (TLS and socket), ns.
    pub render_ns: u64,
    /// See `render_ns`.
    pub encode_ns: u64,
    /// See `render_ns`.
    pub send_ns: u64,
    /// Keys pressed in the phase.
    pub keys: u64,
    /// Frames the client acknowledged during the phase (the graphics pipeline only).
    pub acked: u64,
}

/// Input the client sent, by kind.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct InputCounts {
    /// Fast-path input PDUs.
    pub fastpath_pdus: u64,
    /// Slow-path PDUs (any channel).
    pub slowpath_pdus: u64,
    /// Key presses (scancode or Unicode).
    pub key_down: u64,
    /// Key releases.
    pub key_up: u64,
    /// Pointer events.
    pub mouse: u64,
    /// Synchronize (lock keys) events.
    pub sync: u64,
    /// Other events (QoE, unused).
    pub other: u64,
    /// Suppress Output PDUs (the client minimised or restored).
    pub suppress_output: u64,
    /// Refresh Rect PDUs (the client asked for a repaint).
    pub refresh_rect: u64,
    /// PDUs that did not read (counted and dropped).
    pub malformed: u64,
}

/// A client's whole session, as the server saw it.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ServeRun {
    /// Where it came from.
    pub peer: String,
    /// What it announced.
    pub client: ClientIdentity,
    /// The connection sequence's wall time, ns.
    pub handshake_ns: u64,
    /// Bulk compression used (`none` or the type).
    pub codec: &'static str,
    /// Orders and the bitmap cache used (else bitmaps).
    pub orders: bool,
    /// Why orders were not used when asked for.
    pub orders_refused: Option<String>,
    /// Screen, `WxHxBPP`.
    pub screen: String,
    /// The phases run (the last may be cut short).
    pub phases: Vec<PhaseStats>,
    /// Per key echoed: arrival of its input PDU to the first byte of its update written, ns.
    pub input_to_update_ns: Vec<u64>,
    /// Input by kind.
    pub input: InputCounts,
    /// Bytes by MCS channel and direction: (channel id, from client, to client). The I/O
    /// channel's output is fast-path; fast-path input is counted on it.
    pub channels: Vec<(u16, u64, u64)>,
    /// TLS bytes on the wire, from and to the client.
    pub wire_in: u64,
    /// See `wire_in`.
    pub wire_out: u64,
    /// The graphics pipeline: its state and the client's frame acknowledgements (none when
    /// not offered).
    pub gfx: Option<AckStats>,
    /// How it ended ("script done", or why not).
    pub end: String,
    /// Whether the whole script ran.
    pub complete: bool,
}

impl ServeRun {
    /// One line for people: who, input to update, each phase's frame rate and bytes.
    pub fn summary(&self) -> String {
        let c = &self.client;
        let mut s = format!("{} (build {}, RDP {}, {}, {})", c.name, c.build, c.rdp_version, c.security, self.codec);
        let mut keys = self.input_to_update_ns.clone();
        if !keys.is_empty() {
            keys.sort_unstable();
            let p50 = keys[keys.len() / 2] as f64 / 1e6;
            s += &format!("; input to update p50 {p50:.2} ms over {} keys", keys.len());
        }
        for p in &self.phases {
            let secs = p.wall_ns.max(1) as f64 / 1e9;
            s += &format!(
                "; {} {:.1} fps, {:.0} kB/s, {} dropped",
                p.name,
                p.sent as f64 / secs,
                p.update_bytes as f64 / secs / 1e3,
                p.dropped
            );
        }
        s + &format!("; {}", self.end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_by_name() {
        assert_eq!(Phase::from_name("echo"), Some(Phase::Echo));
        assert_eq!(Phase::from_name("slideshow").map(|p| p.name()), Some("slideshow"));
        assert_eq!(Phase::from_name("nope"), None);
    }
}
