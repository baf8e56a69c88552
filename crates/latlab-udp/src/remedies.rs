//! Seed 002's remedy, measured with a loopback `latlab udp` (`latlab tune`): playing packets
//! out by sender timestamp after an adaptive delay, against playing them as they arrive.

use crate::UdpConfig;
use crate::playout::PlayoutMode;
use latlab_sys::change::ChangeError;
use latlab_sys::remedy::{About, Arms, Better, Remedy, nothing};

/// Every remedy measured with `latlab udp`.
pub fn all() -> Vec<Remedy<UdpConfig>> {
    vec![Remedy {
        about: About {
            name: "playout",
            study: "002",
            command: &["udp"],
            default_args: &["--interval", "100ms", "--relay-hold-every", "1230ms", "--duration", "30s", "--wait", "2s"],
            baseline: "the receiver plays each packet as it arrives",
            changes: "the receiver plays each packet at its sender timestamp plus an adaptive delay (grown at once to a late packet's need plus 10 %, shrunk toward each packet's need with a 30 s time constant); late packets are not played",
            needs: "a loopback run (the receiver is latlab's own)",
            undo: "nothing on the machine changes",
            headlines: &[
                ("playout.jitter", "playout interval error (smoothness)"),
                ("playout.latency", "send to playout (latency paid)"),
            ],
            scalars: &[("playout.late_ratio", "packets late, not played", Better::Lower)],
        },
        arms: Arms {
            baseline: |c| c.playout = PlayoutMode::Arrival,
            remedy: |c| {
                if !matches!(c.mode, crate::Mode::Loopback { .. }) {
                    return Err(ChangeError::Needs {
                        what: "a live playout".into(),
                        needs: "a loopback run: a remote reflector's receiver is not latlab's to measure".into(),
                    });
                }
                c.playout = PlayoutMode::Adaptive;
                Ok(nothing())
            },
        },
    }]
}
