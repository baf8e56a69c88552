//! A desktop on virtual time, and both ends of its display stream: workloads drawing on a
//! surface, the server's encoder and bitmap-cache mirror with its eviction policies, the wire
//! (shaped as RDP fast-path), the client's decoder and framebuffer, one session end to end in
//! one thread; and the reader of a real RDP server's stream into that framebuffer.
//!
//! | file | holds |
//! |---|---|
//! | `cache.rs` | The server's mirror of the client's bitmap cache |
//! | `decoder.rs` | The client's display decoder |
//! | `defaults.rs` | Every default of the engine, with the reason it has that value |
//! | `editor.rs` | The typist's editor: the document a key edits and the damage it draws |
//! | `encoder.rs` | The server's display encoder |
//! | `fb.rs` | The framebuffer both ends keep |
//! | `gaps.rs` | The gaps between a typist's keys: fixed, or jittered about the asked rate |
//! | `pdu_stats.rs` | Per-PDU sizes and decompression times (seed 000's instrumentation) |
//! | `pixels.rs` | The memory a screen's pixels live in |
//! | `policy.rs` | Eviction policies for the bitmap-cache mirror (`policy/`: ARC, LIRS) |
//! | `rdp_stream/` | A real RDP server's stream read into the framebuffer: fast-path, slow-path, counted |
//! | `render.rs` | The server's drawing surface |
//! | `session.rs` | One display session on virtual time, server and client in one thread |
//! | `wire.rs` | The display stream on the wire, shaped as RDP fast-path, and its Ethernet framing |
//! | `workload.rs` | Scripted, seeded UI workloads on virtual time (`workload/`: animated, the Office Assistant, document, the Start menu) |

pub mod cache;
pub mod decoder;
pub mod defaults;
pub mod editor;
pub mod encoder;
pub mod fb;
pub mod gaps;
pub mod pdu_stats;
pub mod pixels;
pub mod policy;
pub mod rdp_stream;
pub mod render;
pub mod session;
pub mod wire;
pub mod workload;

// The named choices a command line offers: codecs, ciphers, policies, workloads.
latlab_model::choice!(impl wire::Codec, wire::Crypto, policy::PolicyKind);

impl latlab_model::experiment::Choice for workload::WorkloadKind {
    fn names() -> Vec<&'static str> {
        workload::WorkloadKind::NAMES.to_vec()
    }
    fn from_choice(s: &str) -> Option<Self> {
        workload::WorkloadKind::from_name(s)
    }
}
