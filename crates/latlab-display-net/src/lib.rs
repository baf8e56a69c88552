//! The display pipeline across TCP: the server renders the workload on real time, encodes,
//! frames and writes with Nagle off; the client receives with a configured receive buffer
//! and wake-up threshold (seed 000's NPRecvBufferSize and NPRecvThreshold), decrypts,
//! decompresses, decodes and blits, and accounts its CPU per stage. Input flows the other
//! way on the same connection. `pair` runs both ends in one process over loopback (the
//! default); `serve` and `view` run them on two hosts.
//!
//! The connection: the client sends one hello line with the session's settings; the server
//! answers `OK` or `ERR reason`. Then the server sends fast-path output PDUs and latlab's own
//! TPKT-framed records (first byte 3, which no fast-path PDU has): `F` (frame number and
//! screen hash, when the client asked for per-frame checks), `A` (an echo session's update:
//! the area it changed and that area's hash), `K` and `C` (an echo session's key times and the
//! server's CPU) and `E` (end: frames rendered, sent and dropped, and the final screen hash). The client sends fast-path input PDUs.
//!
//! When the client falls behind, its receive buffer and then the server's send buffer
//! fill; a frame whose deadline comes while the previous frame's bytes are still queued is
//! dropped (the damage accumulates and goes with the next frame sent), as a real server
//! coalesces updates for a slow client.

//!
//! This file holds what both ends share.
//!
//! | file | holds |
//! |---|---|
//! | `client.rs` | the receiving side and its CPU accounting |
//! | `defaults.rs` | Every default of the protocol's two ends, with the reason it has that value |
//! | `desk.rs` | an echo session's screen, lean: started from a picture every session shares |
//! | `echo.rs` | a typed session's server: keys echoed into the editor |
//! | `gate.rs` | `display serve`'s limits and its protocol at latlab's front door (`latlab_sys::door`) |
//! | `hello.rs` | the hello line |
//! | `report.rs` | what the server did |
//! | `seen.rs` | what the client saw: CPU per stage, counts, per-PDU decompression |
//! | `send.rs` | writing without blocking |
//! | `server.rs` | serving a session |
//! | `typist.rs` | typing and timing each key |
//! | `watch.rs` | what the receiver watches for a typist |

mod client;
pub mod defaults;
mod desk;
mod echo;
mod gate;
mod hello;
mod report;
mod seen;
mod send;
mod server;
mod typist;
mod watch;

pub use client::{Cures, MIN_RCVBUF, ViewConfig, input_script, view, view_on, view_scripted};
pub use desk::EchoDesk;
pub use echo::KeyTimes;
pub use gate::{Limits, SessionBounds, serve_bounded};
pub use hello::{hello_line, parse_hello};
pub use latlab_sys::door::DoorStats;
pub use report::ServerReport;
pub use seen::{ClientReport, ClientTimes};
pub use server::serve_connection;
pub use typist::{KeyRecord, TypingReport, TypistConfig, type_on};

use latlab_desktop::decoder::DecodeError;
use latlab_desktop::session::{SessionConfig, SessionError};
use latlab_desktop::wire::WireError;
use latlab_sys::ioerr::{Doing, IoFailed};
use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::fd::AsFd;
use thiserror::Error;

/// The hello's first word and protocol version.
pub(crate) const MAGIC: &str = "LATLAB-DISPLAY/1";
/// Longest hello line accepted.
pub(crate) const MAX_HELLO: usize = 1024;
/// First byte of latlab's own records (a TPKT version; fast-path PDUs have action 0).
pub(crate) const RECORD: u8 = 3;
pub(crate) const RECORD_FRAME: u8 = b'F';
/// An echo session's update: its number, the area it changed (x, y, w, h) and that area's
/// hash, for the client to check what changed without hashing the whole screen each key.
pub(crate) const RECORD_AREA: u8 = b'A';
pub(crate) const RECORD_END: u8 = b'E';
/// Per-key times of an echo session: key number, received, update sent, update bytes.
pub(crate) const RECORD_KEY: u8 = b'K';
/// The server thread's CPU for the session so far, ns: render, encode (bitmaps and orders,
/// bulk compression, encryption), send. Sent just before the end record.
pub(crate) const RECORD_COST: u8 = b'C';

/// Why a connection failed.
#[derive(Debug, Error)]
pub enum NetError {
    /// A socket call failed.
    #[error(transparent)]
    Io(#[from] IoFailed),
    /// The server refused the hello.
    #[error("the server refused the session: {0}")]
    Refused(String),
    /// The peer broke the protocol.
    #[error("protocol: {0}")]
    Protocol(String),
    /// A setting out of range (the view's, the typist's, the server's limits).
    #[error(transparent)]
    Config(#[from] latlab_model::ConfigError),
    /// The session failed as an in-memory one would: a PDU that does not read or apply, a
    /// screen that differs, a setting out of range.
    #[error(transparent)]
    Session(#[from] SessionError),
}

impl From<WireError> for NetError {
    fn from(e: WireError) -> Self {
        NetError::Session(SessionError::Wire(e))
    }
}

impl From<DecodeError> for NetError {
    fn from(e: DecodeError) -> Self {
        NetError::Session(SessionError::Decode(e))
    }
}

/// How the server paces frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Pace {
    /// Each frame at its deadline on the real clock (the user's view).
    RealTime,
    /// Frames back to back, waiting for the client to take each (the throughput limit).
    FlatOut,
    /// No script: the server applies each key the client sends to its editor and sends the
    /// update at once (`display latency`, `display capacity`). With a working set, the server
    /// touches that many MiB on every key and pages them out again once the update is sent.
    Echo {
        /// MiB the server touches per key and pages out between keys; 0: none.
        working_set_mib: u32,
    },
}

// ---- the hello ----------------------------------------------------------------------------

/// Set `SO_RCVLOWAT`, which nix does not wrap: the socket reports readable only once this
/// many bytes are queued (or at end of stream).
pub(crate) fn set_rcvlowat(sock: &impl AsFd, bytes: usize) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let v: libc::c_int = bytes.min(i32::MAX as usize) as libc::c_int;
    // SAFETY: a valid open descriptor, a pointer to a live c_int and its exact size.
    let rc = unsafe {
        libc::setsockopt(
            sock.as_fd().as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVLOWAT,
            (&v as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

/// Wait until `sock` is ready for `events` or `timeout_ms` passes; true when ready.
pub(crate) fn wait(sock: &TcpStream, events: nix::poll::PollFlags, timeout_ms: u64) -> io::Result<bool> {
    use nix::poll::{PollFd, PollTimeout, poll};
    let mut fds = [PollFd::new(sock.as_fd(), events)];
    let t = PollTimeout::try_from(timeout_ms.min(60_000) as i32).unwrap_or(PollTimeout::MAX);
    loop {
        match poll(&mut fds, t) {
            Ok(n) => return Ok(n > 0),
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => return Err(io::Error::from(e)),
        }
    }
}

// ---- the server ------------------------------------------------------------------------

/// Read from a socket another thread may have made non-blocking: wait when it would block.
pub(crate) fn read_blocking(s: &mut TcpStream, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match s.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                wait(s, nix::poll::PollFlags::POLLIN, 1000)?;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            r => return r,
        }
    }
}

/// Write all of `data` to a socket that may be non-blocking.
pub(crate) fn write_blocking(s: &mut TcpStream, mut data: &[u8]) -> io::Result<()> {
    while !data.is_empty() {
        match s.write(data) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => data = &data[n..],
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                wait(s, nix::poll::PollFlags::POLLOUT, 1000)?;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

pub(crate) fn record(out: &mut Vec<u8>, tag: u8, words: &[u64]) {
    let len = 5 + 8 * words.len();
    out.extend_from_slice(&[RECORD, 0]);
    out.extend_from_slice(&(len as u16).to_be_bytes());
    out.push(tag);
    for w in words {
        out.extend_from_slice(&w.to_le_bytes());
    }
}

/// Both ends in one process over loopback: the default.
pub fn pair(cfg: &SessionConfig, pace: Pace, vc: &ViewConfig) -> Result<(ServerReport, ClientReport), NetError> {
    let listener = TcpListener::bind("127.0.0.1:0").doing("listening on loopback")?;
    let addr = listener.local_addr().doing("reading the listening address")?;
    let server = std::thread::spawn(move || -> Result<ServerReport, NetError> {
        let (stream, _) = listener.accept().doing("accepting the client")?;
        serve_connection(stream)
    });
    let client = TcpStream::connect(addr).doing("connecting over loopback").map_err(NetError::from);
    let client = client.and_then(|s| view_on(s, cfg, pace, vc));
    let server = server.join().map_err(|_| NetError::Protocol("the server thread panicked".into()))?;
    let c = client?;
    let s = server?;
    Ok((s, c))
}

impl From<NetError> for latlab_model::experiment::ExperimentError {
    fn from(e: NetError) -> Self {
        latlab_model::experiment::ExperimentError::failed(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use latlab_desktop::encoder::EncoderConfig;
    use latlab_desktop::policy::PolicyKind;
    use latlab_desktop::wire::{Codec, Crypto};
    use latlab_desktop::workload::WorkloadKind;
    use latlab_rdp::CompressionType;
    use std::io::{BufRead, BufReader};

    fn small(workload: WorkloadKind) -> SessionConfig {
        SessionConfig {
            width: 320,
            height: 256,
            bpp: 16,
            workload,
            seed: 5,
            frame_ms: 20,
            duration_ms: 600,
            warmup_ms: 0,
            encoder: EncoderConfig { orders: true, cells: [120, 120, 337], policy: PolicyKind::Lru, max_pdu: 16_000 },
            codec: Codec::Rdp(CompressionType::Ncrush),
            crypto: Crypto::None,
            check_every_frame: true,
            timed: false,
        }
    }

    #[test]
    fn hello_round_trips_and_names_what_is_wrong() {
        for name in WorkloadKind::NAMES {
            let mut cfg = small(WorkloadKind::from_name(name).unwrap());
            cfg.crypto = Crypto::ALL[2];
            let line = hello_line(&cfg, Pace::FlatOut);
            let (back, pace) = parse_hello(line.trim_end()).unwrap();
            assert_eq!(pace, Pace::FlatOut);
            assert_eq!(hello_line(&back, pace), line, "{name}");
            assert_eq!(back.workload, cfg.workload);
        }
        let line = hello_line(&small(WorkloadKind::Cursor), Pace::RealTime);
        let bad = |from: &str, to: &str| parse_hello(&line.replace(from, to)).unwrap_err();
        assert!(bad("LATLAB-DISPLAY/1", "HELLO").contains("not a latlab display hello"));
        assert!(bad("codec=ncrush", "codec=zip").contains("unknown codec 'zip'"));
        assert!(bad("bpp=16", "bpp=12").contains("12 bpp"));
        assert!(bad("cells=120,120,337", "cells=1,2").contains("three"));
        assert!(bad("policy=lru", "policy=opt").contains("offline-only"));
        assert!(bad(" seed=5", "").contains("missing 'seed'"));
        assert!(bad("width=320", "width=wide").contains("'width=wide'"));
    }

    #[test]
    fn the_pair_over_loopback_ends_equal_at_every_frame() {
        for (w, codec, crypto, orders) in [
            (WorkloadKind::Typing { wpm: 100 }, Codec::Rdp(CompressionType::Ncrush), Crypto::None, true),
            (WorkloadKind::Scroll, Codec::Rdp(CompressionType::Mppc8k), Crypto::ALL[1], true),
            (WorkloadKind::Slideshow, Codec::Lz4, Crypto::ALL[3], false),
            (WorkloadKind::Slideshow, Codec::None, Crypto::None, true),
        ] {
            let mut cfg = small(w.clone());
            cfg.codec = codec;
            cfg.crypto = crypto;
            cfg.encoder.orders = orders;
            for pace in [Pace::FlatOut, Pace::RealTime] {
                let (s, c) = pair(&cfg, pace, &ViewConfig::default())
                    .unwrap_or_else(|e| panic!("{} {} {}: {e}", w.name(), codec.name(), crypto.name()));
                assert_eq!(s.frames, 30);
                assert_eq!(s.sent + s.dropped, s.frames);
                assert_eq!(c.server_frames, [s.frames, s.sent, s.dropped]);
                // A mark after every frame sent, each checked against the client's screen.
                assert_eq!(c.frames_checked, s.sent);
                assert_eq!(c.screen_hash, s.screen_hash);
                assert_eq!(c.pdus, s.display_pdus);
                // Every input event the script has reached the server.
                assert_eq!(s.input_events, s.input_expected, "{}", w.name());
                assert_eq!((c.input_pdus, c.input_bytes), (s.input_pdus, s.input_bytes));
                assert_eq!(s.input_expected > 0, w.takes_input());
                assert_eq!(s.input_malformed, 0);
                // The stages add up to no more than the thread's CPU.
                let t = c.times;
                let sum: u64 = t.stages().iter().map(|x| x.1).sum();
                assert!(sum <= t.total_ns + 1, "{t:?}");
            }
        }
    }

    #[test]
    fn flat_out_sends_every_frame_and_the_same_bytes_as_the_virtual_session() {
        let mut cfg = small(WorkloadKind::Menu);
        cfg.check_every_frame = false;
        let (s, c) = pair(&cfg, Pace::FlatOut, &ViewConfig::default()).unwrap();
        assert_eq!(s.dropped, 0);
        let v = latlab_desktop::session::run(&cfg, None).unwrap();
        assert_eq!(s.display_bytes, v.traffic.display_bytes);
        assert_eq!(c.bytes, s.display_bytes + (5 + 24) + (5 + 32), "the PDUs, the cost record and the end record");
        let [render, encode, _] = c.server_cpu_ns.expect("the server's cost record");
        assert!(render + encode > 0 && encode <= s.encode_ns);
        assert_eq!(s.screen_hash, v.screen_hash);
    }

    #[test]
    fn a_slow_client_with_a_small_threshold_still_ends_equal() {
        let cfg = small(WorkloadKind::Slideshow);
        let vc = ViewConfig { speed: 0.2, threshold: 1, rcvbuf: MIN_RCVBUF, ..ViewConfig::default() };
        let (s, c) = pair(&cfg, Pace::RealTime, &vc).unwrap();
        assert_eq!(s.sent + s.dropped, s.frames);
        assert_eq!(c.screen_hash, s.screen_hash);
    }

    #[test]
    fn every_cure_ends_equal_at_every_frame_and_copies_less_where_it_should() {
        let rc4 = Crypto::On(latlab_rdp::security::Protection::Rc4Mac { salted: false });
        let cures = [
            Cures::default(),
            Cures { direct: true, ..Cures::default() },
            Cures { skip_mac: true, ..Cures::default() },
            Cures { decode_thread: true, ..Cures::default() },
            Cures { direct: true, skip_mac: true, ..Cures::default() },
            Cures { decode_thread: true, skip_mac: true, ..Cures::default() },
        ];
        for (w, crypto) in
            [(WorkloadKind::Slideshow, rc4), (WorkloadKind::Scroll, Crypto::ALL[3]), (WorkloadKind::Menu, Crypto::None)]
        {
            let mut cfg = small(w.clone());
            cfg.crypto = crypto;
            let mut copied = Vec::new();
            for cure in cures {
                let vc = ViewConfig { cures: cure, ..ViewConfig::default() };
                if cure.validate(crypto).is_err() {
                    continue;
                }
                for speed in [1.0, 0.3] {
                    let (s, c) = pair(&cfg, Pace::RealTime, &ViewConfig { speed, ..vc })
                        .unwrap_or_else(|e| panic!("{} {} {}: {e}", w.name(), crypto.name(), cure.describe()));
                    assert_eq!(c.frames_checked, s.sent, "{} {}", w.name(), cure.describe());
                    assert_eq!(c.screen_hash, s.screen_hash);
                    assert_eq!(c.pdus, s.display_pdus);
                    let t = c.times;
                    assert!(t.stages().iter().map(|x| x.1).sum::<u64>() <= t.total_ns + 1, "{t:?}");
                }
                // Flat out the stream is the same every time: the bytes copied can be compared.
                let (s, c) = pair(&cfg, Pace::FlatOut, &vc).unwrap();
                assert_eq!(c.screen_hash, s.screen_hash);
                copied.push((cure, c.times.bytes_copied, s.display_bytes));
            }
            // Direct reads copy nothing from the receive buffer: exactly the PDUs' bytes fewer
            // than the seed's client (the decoder's own copies are the same).
            let seed = copied[0].1;
            for (cure, n, pdu_bytes) in &copied {
                if cure.direct {
                    assert_eq!(seed - n, *pdu_bytes, "{} {}", w.name(), cure.describe());
                }
            }
        }
        // Refused combinations, with their reasons.
        let both = Cures { direct: true, decode_thread: true, ..Cures::default() };
        assert!(both.validate(rc4).unwrap_err().to_string().contains("do not combine"));
        let mac = Cures { skip_mac: true, ..Cures::default() };
        assert!(mac.validate(Crypto::ALL[3]).unwrap_err().to_string().contains("RC4"));
        assert!(mac.validate(Crypto::None).is_err());
        let cfg = small(WorkloadKind::Cursor);
        let e = pair(&cfg, Pace::FlatOut, &ViewConfig { cures: mac, ..ViewConfig::default() }).unwrap_err();
        assert!(e.to_string().contains("skip-mac"), "{e}");
    }

    #[test]
    fn bad_settings_and_refusals_are_clear_errors() {
        let cfg = small(WorkloadKind::Cursor);
        for vc in [
            ViewConfig { rcvbuf: 1000, ..ViewConfig::default() },
            ViewConfig { threshold: 0, ..ViewConfig::default() },
            ViewConfig { speed: 0.0, ..ViewConfig::default() },
        ] {
            assert!(vc.validate().is_err());
        }
        // A server that gets garbage answers ERR and the connection ends.
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let server = std::thread::spawn(move || serve_connection(listener.accept().unwrap().0));
        let mut c = TcpStream::connect(addr).unwrap();
        c.write_all(b"GET / HTTP/1.0\n").unwrap();
        let mut answer = String::new();
        c.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("ERR not a latlab display hello"), "{answer}");
        assert!(matches!(server.join().unwrap(), Err(NetError::Protocol(_))));
        // A client asking for an impossible session is refused by the server with its reason.
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let server = std::thread::spawn(move || serve_connection(listener.accept().unwrap().0));
        let mut bad = cfg.clone();
        bad.encoder.max_pdu = 10;
        let e = view(&addr.to_string(), &bad, Pace::FlatOut, &ViewConfig::default()).unwrap_err();
        assert!(matches!(&e, NetError::Refused(r) if r.contains("max_pdu")), "{e}");
        let _ = server.join();
    }

    #[test]
    fn a_hostile_server_stream_is_an_error_not_a_panic() {
        // On the one-thread client and on the two-thread one (an error from either thread,
        // no panic, no hang).
        let threaded = ViewConfig { cures: Cures { decode_thread: true, ..Cures::default() }, ..ViewConfig::default() };
        for vc in [ViewConfig::default(), threaded] {
            for junk in
                [&[0u8, 0x80, 2, 9, 9][..], &[0, 3, 1, 2], &[3, 0, 0, 6, b'Z', 0], &[0x80, 0x85, 0x00, 1, 2, 3, 4, 5]]
            {
                let listener = TcpListener::bind("127.0.0.1:0").unwrap();
                let addr = listener.local_addr().unwrap();
                let junk = junk.to_vec();
                let server = std::thread::spawn(move || {
                    let (mut s, _) = listener.accept().unwrap();
                    let mut line = String::new();
                    BufReader::new(s.try_clone().unwrap()).read_line(&mut line).unwrap();
                    s.write_all(b"OK\n").unwrap();
                    s.write_all(&junk).unwrap();
                });
                assert!(view(&addr.to_string(), &small(WorkloadKind::Cursor), Pace::FlatOut, &vc).is_err());
                server.join().unwrap();
            }
        }
    }
}
