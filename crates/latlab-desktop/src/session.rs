//! One display session on virtual time, server and client in one thread: the workload draws
//! each frame, the encoder turns it into update PDUs, the wire frames them (compression,
//! encryption), the client reads and applies them, and its framebuffer is compared with the
//! server's — at every frame when asked, and always at the end. Byte counts depend only on
//! the configuration and the seed.

use crate::decoder::{DecodeError, DecodeTimes, Decoder};
use crate::encoder::{Encoder, EncoderConfig, EncoderStats};
use crate::fb::Framebuffer;
use crate::render::Canvas;
use crate::wire::{Codec, Crypto, Receiver, Sender, WireError, WireTimes, encode_input};
use crate::workload::{FrameOut, WorkloadKind};
use thiserror::Error;

/// What a session runs.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SessionConfig {
    /// Screen width.
    pub width: usize,
    /// Screen height.
    pub height: usize,
    /// Colour depth.
    pub bpp: u32,
    /// The workload.
    pub workload: WorkloadKind,
    /// Seed of the workload's script.
    pub seed: u64,
    /// Virtual frame period, ms.
    pub frame_ms: u64,
    /// Virtual duration, ms.
    pub duration_ms: u64,
    /// Bytes before this virtual time are not counted (warm-up), ms.
    pub warmup_ms: u64,
    /// The encoder's settings.
    pub encoder: EncoderConfig,
    /// Bulk compression.
    pub codec: Codec,
    /// Encryption.
    pub crypto: Crypto,
    /// Compare the screens after every frame (tests), not only at the end.
    pub check_every_frame: bool,
    /// Time the client's stages.
    pub timed: bool,
}

/// Why a session failed.
#[derive(Debug, Error)]
pub enum SessionError {
    /// The client could not read a PDU.
    #[error(transparent)]
    Wire(#[from] WireError),
    /// The client could not apply a PDU.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// The client's screen differs from the server's.
    #[error("the client's framebuffer differs from the server's at frame {0}")]
    Mismatch(u64),
    /// A setting is out of range.
    #[error("{0}")]
    Config(#[from] latlab_model::ConfigError),
}

/// What crossed the wire, counted after the warm-up.
#[derive(Debug, Clone, Default)]
pub struct Traffic {
    /// Display PDUs (server to client).
    pub display_pdus: u64,
    /// Their bytes on the wire (framing, compression, encryption included).
    pub display_bytes: u64,
    /// Update bytes before compression.
    pub update_bytes: u64,
    /// Every display PDU's size on the wire.
    pub display_sizes: Vec<u32>,
    /// When each was sent, virtual ms after the warm-up.
    pub display_at_ms: Vec<u32>,
    /// Input PDUs (client to server).
    pub input_pdus: u64,
    /// Their bytes.
    pub input_bytes: u64,
    /// Every input PDU's size.
    pub input_sizes: Vec<u32>,
    /// Virtual seconds counted.
    pub seconds: f64,
}

/// A finished session.
#[derive(Debug, Clone)]
pub struct SessionResult {
    /// Traffic after the warm-up.
    pub traffic: Traffic,
    /// What the encoder sent (whole session).
    pub encoder: EncoderStats,
    /// Cache hits and misses per cache (whole session).
    pub cache: [(u64, u64); 3],
    /// The caches' reference traces, for the optimum's oracle.
    pub oracle: [Vec<u64>; 3],
    /// Frames simulated.
    pub frames: u64,
    /// Hash of the final screen (equal on both ends).
    pub screen_hash: u64,
    /// Client stage times.
    pub wire_times: WireTimes,
    /// Client decode stage times.
    pub decode_times: DecodeTimes,
}

impl SessionConfig {
    /// `workload` for `duration_ms` at the defaults of [`crate::defaults`]: 1024×768×16,
    /// 20 ms frames, orders with 120/120/337 LRU cells, no compression or encryption, seed 1.
    pub fn standard(workload: WorkloadKind, duration_ms: u64) -> Self {
        Self {
            width: crate::defaults::WIDTH,
            height: crate::defaults::HEIGHT,
            bpp: crate::defaults::BPP,
            workload,
            seed: crate::defaults::SEED,
            frame_ms: crate::defaults::FRAME_MS,
            duration_ms,
            warmup_ms: 0,
            encoder: EncoderConfig {
                orders: true,
                cells: crate::defaults::CELLS,
                policy: crate::policy::PolicyKind::Lru,
                max_pdu: crate::defaults::MAX_PDU,
            },
            codec: Codec::None,
            crypto: Crypto::None,
            check_every_frame: false,
            timed: false,
        }
    }

    /// Check the settings.
    pub fn validate(&self) -> Result<(), SessionError> {
        if crate::fb::bytes_per_pixel(self.bpp).is_none() {
            return Err(SessionError::Config(format!("{} bpp: use 8, 16, 24 or 32", self.bpp).into()));
        }
        if !(64..=4096).contains(&self.width) || !(64..=4096).contains(&self.height) {
            return Err(SessionError::Config(format!("{}×{}: each side 64 to 4096", self.width, self.height).into()));
        }
        if self.frame_ms == 0 || self.duration_ms == 0 {
            return Err(SessionError::Config("frame period and duration must be positive".into()));
        }
        Ok(())
    }
}

/// Run a session; `oracle` feeds the optimum policy (a previous run's [`SessionResult::oracle`]).
pub fn run(cfg: &SessionConfig, oracle: Option<[Vec<u64>; 3]>) -> Result<SessionResult, SessionError> {
    run_with(cfg, oracle, &mut |_| {})
}

/// The display PDUs of a session as they cross the wire, in order (for benchmarks and fuzz
/// seeds).
pub fn record_wire(cfg: &SessionConfig) -> Result<Vec<Vec<u8>>, SessionError> {
    let mut pdus = Vec::new();
    run_with(cfg, None, &mut |p| pdus.push(p.to_vec()))?;
    Ok(pdus)
}

/// Run a session, handing every display PDU on the wire to `sink`.
pub fn run_with(
    cfg: &SessionConfig,
    oracle: Option<[Vec<u64>; 3]>,
    sink: &mut dyn FnMut(&[u8]),
) -> Result<SessionResult, SessionError> {
    cfg.validate()?;
    let mut canvas = Canvas::new(cfg.width, cfg.height);
    let mut screen = Framebuffer::new(cfg.width, cfg.height, cfg.bpp);
    let mut workload = cfg.workload.build(cfg.seed);
    let mut enc = Encoder::new(cfg.width, cfg.height, cfg.bpp, cfg.encoder.clone(), oracle);
    // The run's result carries the oracle for a rerun under the optimum.
    enc.keep_traces();
    let mut dec = Decoder::new(cfg.width, cfg.height, cfg.bpp, cfg.encoder.cells, cfg.timed);
    let mut tx = Sender::new(cfg.codec, cfg.crypto);
    let mut rx = Receiver::new(cfg.codec, cfg.crypto, cfg.timed);
    let mut traffic = Traffic::default();
    let (mut wire, mut update, mut input) = (Vec::new(), Vec::new(), Vec::new());
    let mut out = FrameOut::default();
    let frames = cfg.duration_ms.div_ceil(cfg.frame_ms);
    for k in 0..frames {
        let t = k * cfg.frame_ms;
        let counted = t >= cfg.warmup_ms;
        out.copies.clear();
        out.input.clear();
        out.blits.clear();
        workload.frame(t, &mut canvas, &mut out);
        if !out.input.is_empty() {
            // One input PDU a frame carries what the user did in it.
            for chunk in out.input.chunks(255) {
                input.clear();
                encode_input(chunk, &mut input);
                if counted {
                    traffic.input_pdus += 1;
                    traffic.input_bytes += input.len() as u64;
                    traffic.input_sizes.push(input.len() as u32);
                }
            }
        }
        let damage = canvas.to_fb_area(&mut screen);
        if damage.is_none() && out.copies.is_empty() && out.blits.is_empty() {
            continue;
        }
        for pdu in enc.encode_damage(&screen, damage.unwrap_or_default(), &out.copies, &out.blits) {
            wire.clear();
            let plain = tx.frame(&pdu, &mut wire);
            if counted {
                traffic.display_pdus += 1;
                traffic.display_bytes += wire.len() as u64;
                traffic.update_bytes += plain as u64;
                traffic.display_sizes.push(wire.len() as u32);
                traffic.display_at_ms.push((t - cfg.warmup_ms) as u32);
            }
            sink(&wire);
            rx.read(&wire, &mut update)?;
            dec.apply(&update)?;
        }
        if cfg.check_every_frame && dec.fb != screen {
            return Err(SessionError::Mismatch(k));
        }
    }
    if dec.fb != screen {
        return Err(SessionError::Mismatch(frames));
    }
    traffic.seconds = (frames * cfg.frame_ms).saturating_sub(cfg.warmup_ms) as f64 / 1000.0;
    let m = enc.mirror();
    Ok(SessionResult {
        traffic,
        encoder: enc.stats.clone(),
        cache: std::array::from_fn(|i| (m.caches[i].hits, m.caches[i].misses)),
        oracle: m.oracle(),
        frames,
        screen_hash: screen.hash(),
        wire_times: rx.times,
        decode_times: dec.times,
    })
}

impl From<SessionError> for latlab_model::experiment::ExperimentError {
    fn from(e: SessionError) -> Self {
        match e {
            SessionError::Config(c) => latlab_model::experiment::ExperimentError::Config(c),
            e => latlab_model::experiment::ExperimentError::failed(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::PolicyKind;

    fn small(workload: WorkloadKind, orders: bool, codec: Codec, crypto: Crypto) -> SessionConfig {
        SessionConfig {
            width: 320,
            height: 256,
            bpp: 16,
            workload,
            seed: 3,
            frame_ms: 20,
            duration_ms: 1_500,
            warmup_ms: 0,
            encoder: EncoderConfig { orders, cells: [120, 120, 337], policy: PolicyKind::Lru, max_pdu: 16_000 },
            codec,
            crypto,
            check_every_frame: true,
            timed: false,
        }
    }

    #[test]
    fn every_workload_reaches_the_client_exactly() {
        for name in WorkloadKind::NAMES {
            let w = WorkloadKind::from_name(name).unwrap();
            for orders in [true, false] {
                let cfg = small(w.clone(), orders, Codec::Rdp(latlab_rdp::CompressionType::Ncrush), Crypto::None);
                let r = run(&cfg, None).unwrap_or_else(|e| panic!("{name} orders={orders}: {e}"));
                assert!(r.traffic.display_pdus > 0, "{name}: something was sent");
                // Deterministic: the same seed gives the same bytes.
                let again = run(&cfg, None).unwrap();
                assert_eq!(again.traffic.display_bytes, r.traffic.display_bytes, "{name}");
                assert_eq!(again.screen_hash, r.screen_hash);
            }
        }
    }

    #[test]
    fn every_codec_and_cipher_and_depth() {
        for codec in Codec::ALL {
            for crypto in Crypto::ALL {
                let cfg = small(WorkloadKind::Scroll, true, codec, crypto);
                run(&cfg, None).unwrap_or_else(|e| panic!("{} {}: {e}", codec.name(), crypto.name()));
            }
        }
        for bpp in [8, 24, 32] {
            let mut cfg = small(WorkloadKind::Slideshow, true, Codec::None, Crypto::None);
            cfg.bpp = bpp;
            run(&cfg, None).unwrap();
        }
    }

    #[test]
    fn typing_sends_input_and_small_updates() {
        let r = run(&small(WorkloadKind::Typing { wpm: 100 }, true, Codec::None, Crypto::None), None).unwrap();
        // 100 wpm: 8.8 keys a second (5.29 characters a word), each a press and a release.
        assert!(r.traffic.input_pdus >= 10, "{}", r.traffic.input_pdus);
        assert!(r.encoder.cache_hits + r.encoder.cache_misses > 0);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// A recorded stream with bytes changed, or plain noise, is an error or a picture,
        /// never a panic, on every codec and cipher.
        #[test]
        fn a_damaged_stream_never_panics(
            pick in 0usize..24,
            flips in proptest::collection::vec((0usize..1 << 20, 1u8..=255), 1..8),
            noise in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400),
        ) {
            let (codec, crypto) = (Codec::ALL[pick % 6], Crypto::ALL[pick / 6]);
            let mut cfg = small(WorkloadKind::Scroll, true, codec, crypto);
            cfg.duration_ms = 300;
            let mut pdus = record_wire(&cfg).unwrap();
            let n = pdus.len();
            for (at, x) in &flips {
                let p = &mut pdus[at % n];
                let i = (at / n) % p.len();
                p[i] ^= x;
            }
            pdus.push(noise);
            let mut rx = Receiver::new(codec, crypto, false);
            let mut dec = Decoder::new(cfg.width, cfg.height, cfg.bpp, cfg.encoder.cells, false);
            let mut update = Vec::new();
            for p in &pdus {
                if rx.read(p, &mut update).is_ok() {
                    let _ = dec.apply(&update);
                }
            }
        }
    }

    #[test]
    fn bad_settings_are_refused() {
        let mut cfg = small(WorkloadKind::Cursor, true, Codec::None, Crypto::None);
        cfg.bpp = 12;
        assert!(matches!(run(&cfg, None), Err(SessionError::Config(_))));
    }

    #[test]
    fn every_workload_runs_on_the_smallest_screen_a_hello_may_ask_for() {
        // 64×64 is the least `validate` takes; a document's body is then 10 pixels high.
        for name in WorkloadKind::NAMES {
            let mut cfg = SessionConfig::standard(WorkloadKind::from_name(name).unwrap(), 3_000);
            (cfg.width, cfg.height) = (64, 64);
            cfg.validate().unwrap();
            run(&cfg, None).unwrap_or_else(|e| panic!("{name} on 64×64: {e}"));
        }
    }
}
