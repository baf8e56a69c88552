//! `latlab udp` — seed 002, "Windows Phone 7: UDP performance": isochronous UDP interval
//! timing. A sender on absolute deadlines, a reflector that returns kernel receive
//! timestamps, an impairment relay, and an analysis that names the study's pathology —
//! packets held and released in bursts while the sender kept its interval — and prices the
//! study's fix (playout by sender timestamp) as a de-jitter cost curve.

pub mod analysis;
pub mod probe;
pub mod reflector;
pub mod socket;
pub mod wire;
