//! Arguments of `latlab display` (seeds 000 and 003).

use super::{choice, parse_duration_ns};
use clap::{Args, Subcommand};
use latlab_desktop::policy::PolicyKind;
use latlab_desktop::wire::{Codec, Crypto};
use latlab_desktop::workload::WorkloadKind;

/// `latlab display`.
#[derive(Debug, Args)]
pub struct DisplayArgs {
    /// What to run.
    #[command(subcommand)]
    pub command: DisplayCommand,
}

/// Subcommands of `latlab display`.
#[derive(Debug, Subcommand)]
pub enum DisplayCommand {
    /// The bitmap-cache cliff: a looping animation swept across the 64×64 cache's capacity,
    /// bytes per policy (LRU, FIFO, SIEVE, S3-FIFO, ARC, LIRS, and the optimum), then the
    /// banner + ticker pair.
    Cache(DisplayCache),
    /// Traffic per user operation (typing, mouse, menus, scrolling, caret, banner, ticker,
    /// screensaver, animation, slide show): control and display bytes and packets per second,
    /// packet sizes, and TCP/IP/Ethernet header overhead, beside seed 003's figures.
    Ops(DisplayOps),
    /// Client CPU per stage (receive, decrypt, decompress, decode, cache, blit) for the
    /// animated slide show and other workloads over TCP on real time; the throughput limit;
    /// frames dropped by a slower client; sweeps over compression, encryption, orders,
    /// receive buffer and threshold (seed 000).
    Pipeline(DisplayPipeline),
    /// Keystroke to pixels (seed 003, §4): a typist types into the server's editor on
    /// absolute deadlines; each key's latency runs to the moment its glyph shows on the
    /// client's framebuffer. One sweep of conditions: unloaded, CPU load on the server, its
    /// memory paged out between keys, links shaped between network namespaces (10 Mbit/s,
    /// 1 Mbit/s, 56 kbit/s, with bulk transfers). Namespaces and swap files need root; a
    /// condition that is refused is reported and the rest run.
    Latency(DisplayLatency),
    /// Users per server (seed 003): one server process takes N concurrent sessions of a user
    /// mix (typists timed key to pixels, menus, scrolling, an animated page), ramped 1, 2,
    /// 4, … until a typist's p95 passes 100 ms, keys are lost or the link saturates; server
    /// CPU and memory (PSS) per session, bytes per session each way.
    Capacity(DisplayCapacity),
    /// Serve display sessions over TCP to `latlab display view HOST` clients.
    Serve(DisplayServe),
    /// Run one session as the client: against `latlab display serve` on HOST, or with no
    /// HOST against an in-process server over loopback.
    View(DisplayView),
}

/// Three cell counts, `A,B,C`.
fn parse_cells(s: &str) -> Result<[usize; 3], String> {
    let v: Vec<usize> =
        s.split(',').map(|x| x.trim().parse::<usize>()).collect::<Result<_, _>>().map_err(|e| format!("'{s}': {e}"))?;
    <[usize; 3]>::try_from(v).map_err(|v| format!("'{s}': three cell counts (16×16, 32×32, 64×64), not {}", v.len()))
}

/// `latlab display pipeline`.
#[derive(Debug, Args)]
pub struct DisplayPipeline {
    /// The suite's short version (about 40 s) instead of the full one (about 2.5 minutes).
    #[arg(long)]
    pub short: bool,
    /// How long the main slide-show run lasts (`20s`; whole seconds) [default: the full or
    /// --short version's] [at least 1s].
    #[arg(long, value_parser = parse_duration_ns, value_name = "D")]
    pub duration: Option<u64>,
    /// The old spelling of --duration, in seconds.
    #[arg(long, hide = true, conflicts_with = "duration")]
    pub seconds: Option<f64>,
    /// Only the main slide-show run (no workloads, sweeps or paper rows): what `latlab tune`
    /// measures seed 000's cures with.
    #[arg(long)]
    pub main_only: bool,
    /// Bitmap updates instead of orders in every run (seed 000's NPPerfTune).
    #[arg(long)]
    pub bitmaps: bool,
    /// The client's settings and seed 000's cures, for every run.
    #[command(flatten)]
    pub client: ClientArgs,
    /// A real RDP server instead of latlab's own stream.
    #[command(flatten)]
    pub real: RdpArgs,
}

/// The display client's receive settings, speed and seed 000's cures.
#[derive(Debug, Args)]
pub struct ClientArgs {
    /// Receive buffer, bytes (seed 000: 64 KB default, try up to 1 MB).
    #[arg(long, default_value_t = latlab_display_net::defaults::RCVBUF)]
    pub rcvbuf: usize,
    /// Receive threshold, bytes (seed 000: 2 KB default, up to 5 % of the buffer).
    #[arg(long, default_value_t = latlab_display_net::defaults::RCV_THRESHOLD)]
    pub threshold: usize,
    /// Client CPU speed as a fraction of this one's (emulated), e.g. 0.13 for 233 MHz vs 1.8 GHz [above 0, at most 1].
    #[arg(long, default_value_t = latlab_display_net::ViewConfig::default().speed)]
    pub speed: f64,
    /// Cure: decrypt and decompress each PDU where it lies in the receive buffer (no copy
    /// into a data buffer).
    #[arg(long)]
    pub direct: bool,
    /// Cure: skip RC4's MAC check (seed 000's DisableMACCheck; RC4 ciphers only).
    #[arg(long)]
    pub skip_mac: bool,
    /// Cure: decode on a second thread, so receiving and decoding overlap.
    #[arg(long)]
    pub decode_thread: bool,
}

impl ClientArgs {
    /// The client configuration these arguments ask for.
    pub fn view_config(&self) -> latlab_display_net::ViewConfig {
        latlab_display_net::ViewConfig {
            rcvbuf: self.rcvbuf,
            threshold: self.threshold,
            speed: self.speed,
            cures: latlab_display_net::Cures {
                direct: self.direct,
                skip_mac: self.skip_mac,
                decode_thread: self.decode_thread,
            },
            ..Default::default()
        }
    }
}

/// A real RDP server to measure instead of latlab's own stream.
#[derive(Debug, Args, Default)]
pub struct RdpArgs {
    /// Measure a real RDP server: `HOST[:PORT]` (port 3389 by default); `local` for FreeRDP's
    /// shadow server over an Xvfb display running xterm, or `local-xrdp` for xrdp with a
    /// session for an account made for the run (root), started here and stopped after.
    #[arg(long, value_name = "HOST[:PORT]")]
    pub rdp: Option<String>,
    /// File with the server's credentials: `user=`, `password=`, `domain=` lines, mode 600
    /// (else LATLAB_RDP_USER / LATLAB_RDP_PASSWORD / LATLAB_RDP_DOMAIN, else a prompt).
    #[arg(long, value_name = "FILE", requires = "rdp")]
    pub rdp_credentials: Option<std::path::PathBuf>,
    /// Known-hosts file the server's certificate is checked against (trust on first use;
    /// default ~/.config/latlab/rdp_known_hosts).
    #[arg(long, value_name = "FILE", requires = "rdp", conflicts_with = "insecure")]
    pub known_hosts: Option<std::path::PathBuf>,
    /// Accept the server's certificate without checking it.
    #[arg(long, requires = "rdp")]
    pub insecure: bool,
    /// Colour depth asked of the server: 15, 16 or 24.
    #[arg(long, default_value_t = latlab_display::defaults::RDP_BPP, requires = "rdp")]
    pub rdp_bpp: u32,
    /// Bulk compression offered: none, mppc8, mppc64, ncrush, xcrush.
    #[arg(long, default_value = "xcrush", value_parser = latlab_display::rdp::config::parse_compression, requires = "rdp")]
    // Spelled out: clap's derive reads a plain `Option` as "may be left out", not as the value.
    pub rdp_compression: ::std::option::Option<latlab_rdp::CompressionType>,
    /// Keys timed per condition [4–10000].
    #[arg(long, default_value_t = latlab_keyscreen::defaults::RDP_KEYS, requires = "rdp")]
    pub keys: usize,
    /// Where typing draws on the remote screen, X,Y,W,H (default: found from two warm-up keys
    /// anywhere on the screen).
    #[arg(long, value_name = "X,Y,W,H", value_parser = parse_roi, requires = "rdp")]
    pub roi: Option<[usize; 4]>,
    /// Write the screens typing was learned from (rdp-before/one/two.ppm) into DIR, to see
    /// what latlab decoded when the cells are not found.
    #[arg(long, value_name = "DIR", requires = "rdp")]
    pub rdp_snapshot: Option<std::path::PathBuf>,
}

pub(crate) fn parse_roi(s: &str) -> Result<[usize; 4], String> {
    let v: Vec<usize> =
        s.split(',').map(|x| x.trim().parse::<usize>()).collect::<Result<_, _>>().map_err(|e| format!("'{s}': {e}"))?;
    <[usize; 4]>::try_from(v)
        .ok()
        .filter(|r| r[2] > 0 && r[3] > 0)
        .ok_or(format!("'{s}': X,Y,W,H with W and H above 0"))
}

impl RdpArgs {
    /// The configuration of a real-server run in `mode`, if `--rdp` was given.
    pub fn config(
        &self,
        mode: latlab_display::rdp::config::RdpMode,
    ) -> Result<Option<latlab_display::rdp::config::RdpConfig>, String> {
        use latlab_display::rdp::config::{RdpConfig, Server};
        let Some(host) = &self.rdp else { return Ok(None) };
        let server = Server::parse(host).map_err(|e| e.to_string())?;
        Ok(Some(RdpConfig {
            server,
            mode,
            bpp: self.rdp_bpp,
            compression: self.rdp_compression,
            keys: self.keys,
            roi: self.roi,
            snapshot_dir: self.rdp_snapshot.clone(),
            credentials: self.rdp_credentials.clone(),
            known_hosts: if self.insecure {
                None
            } else {
                Some(self.known_hosts.clone().unwrap_or_else(latlab_rdp_peers::trust::default_known_hosts))
            },
            ..RdpConfig::default()
        }))
    }
}

/// `latlab display latency`.
#[derive(Debug, Args)]
pub struct DisplayLatency {
    /// Conditions, comma-separated: unloaded, cpu, mem, or a link rate (10mbit, 1mbit, 56kbit;
    /// add _bulk for competing transfers each way). Default: unloaded, cpu, mem, 10mbit, 1mbit,
    /// 56kbit, 10mbit_bulk (with --rdp: unloaded, cpu; mem only on a server latlab started, --rdp
    /// local or local-xrdp).
    #[arg(long, value_delimiter = ',', value_parser = parse_condition)]
    pub conditions: Vec<latlab_keyscreen::condition::Condition>,
    /// Typing speed, words a minute (5.29 characters a word, as the study counts) [1–1000]:
    /// the mean rate; each gap between keys is drawn uniformly from half to one and a half
    /// times the rate's interval, so a server that updates on a timer is met at every phase.
    #[arg(long, default_value_t = latlab_display::defaults::LATENCY_WPM)]
    pub wpm: u32,
    /// Every gap between keys exactly the rate's interval.
    #[arg(long)]
    pub fixed_interval: bool,
    /// Typing per condition (`20s`, `1m`; above 0, at most 1h): how many keys follow from it and
    /// --wpm [default: 20s]. With --rdp, --keys sets the keys instead.
    #[arg(long, value_parser = parse_duration_ns, value_name = "D")]
    pub duration: Option<u64>,
    /// The old spelling of --duration, in seconds.
    #[arg(long, hide = true, conflicts_with = "duration")]
    pub seconds: Option<f64>,
    /// Page Downs (large updates) per condition [0 or more].
    #[arg(long, default_value_t = latlab_display::defaults::LATENCY_PAGES)]
    pub pages: u32,
    /// Spinning processes of the cpu condition [0–256].
    #[arg(long, default_value_t = latlab_keyscreen::defaults::LATENCY_SPINNERS)]
    pub spinners: usize,
    /// Their scheduling: other, batch, idle, niceN.
    #[arg(long, default_value = "other", value_parser = super::stall::parse_spin)]
    pub spin_policy: latlab_sys::spin::SpinSched,
    /// The server's working set under mem, MiB (touched per key, paged out between keys) [1–16384].
    #[arg(long, default_value_t = latlab_display::defaults::LATENCY_WORKING_SET_MIB)]
    pub working_set: u32,
    /// Never make a temporary swap file for mem.
    #[arg(long)]
    pub no_swapfile: bool,
    /// Bulk compression.
    #[arg(long, value_parser = choice::<Codec>(), default_value = latlab_display_net::defaults::OPS_CODEC)]
    pub codec: Codec,
    /// Encryption.
    #[arg(long, value_parser = choice::<Crypto>(), default_value = latlab_display::defaults::OPS_CRYPTO)]
    pub crypto: Crypto,
    /// Keep the client's threads at the default policy instead of SCHED_FIFO.
    #[arg(long)]
    pub no_fifo: bool,
    /// A real RDP server instead of latlab's own stream.
    #[command(flatten)]
    pub real: RdpArgs,
}

pub(crate) fn parse_condition(s: &str) -> Result<latlab_keyscreen::condition::Condition, latlab_model::ConfigError> {
    latlab_keyscreen::condition::Condition::parse(s)
}

/// `latlab display capacity`.
#[derive(Debug, Args)]
pub struct DisplayCapacity {
    /// The users, `kind=weight` comma-separated; kinds: typist, menu, scroller, banner, reader.
    #[arg(long, default_value = latlab_display::defaults::CAPACITY_MIX, value_parser = latlab_display::capacity::parse_mix)]
    pub mix: latlab_display::capacity::Mix,
    /// Session counts to try, comma-separated, in order [default: 1,2,4,8,16,32,64; with
    /// --rdp: 1,2,4,8].
    #[arg(long, value_delimiter = ',')]
    pub ramp: Vec<usize>,
    /// How long each level runs (`10s`) [1s–1h] [default: 10s].
    #[arg(long, value_parser = parse_duration_ns, value_name = "D")]
    pub duration: Option<u64>,
    /// The old spelling of --duration, in seconds.
    #[arg(long, hide = true, conflicts_with = "duration")]
    pub seconds: Option<f64>,
    /// A link shaped between network namespaces (e.g. 10mbit, 56kbit; needs root); none:
    /// loopback [9.6kbit to 10gbit].
    #[arg(long, value_parser = parse_link)]
    pub link: Option<u64>,
    /// Skip measuring each kind of user's own bandwidth first (one session of each kind, side by
    /// side, twice).
    #[arg(long)]
    pub no_per_kind: bool,
    /// Bulk compression.
    #[arg(long, value_parser = choice::<Codec>(), default_value = latlab_display_net::defaults::OPS_CODEC)]
    pub codec: Codec,
    /// Encryption.
    #[arg(long, value_parser = choice::<Crypto>(), default_value = latlab_display::defaults::OPS_CRYPTO)]
    pub crypto: Crypto,
    /// Colour depth of every session: 8 (seed 003's Terminal Server, 256 colours), 16, 24 or 32.
    #[arg(long, default_value_t = latlab_desktop::defaults::BPP)]
    pub bpp: u32,
    /// Let the server share every CPU with the clients (by default, on a machine with two or
    /// more, the server runs on the last CPU alone and the clients on the others).
    #[arg(long)]
    pub no_pin: bool,
    /// Stop at the last level of --ramp even if it held (by default the ramp goes on doubling,
    /// up to 512 sessions, or 64 with --rdp, until a level breaks).
    #[arg(long)]
    pub ramp_only: bool,
    /// Ramp a real RDP server instead of latlab's own: `local-xrdp` starts xrdp here and makes
    /// one local account per session (removed at the end; needs root, xrdp and xorgxrdp);
    /// every session is a typist at 100 wpm in an xterm, timed key to screen.
    #[arg(long, value_name = "SERVER", value_parser = latlab_display::capacity::RealServer::parse,
          conflicts_with_all = ["mix", "link", "no_per_kind", "codec", "crypto", "bpp"])]
    pub rdp: Option<latlab_display::capacity::RealServer>,
    /// With --rdp, one login every D (`3s`; a level's sessions arrive paced, as a morning's
    /// do, then type together once all are in) [0s or more; 0s: all at once] [default: 3s].
    #[arg(long, value_parser = parse_duration_ns, value_name = "D", requires = "rdp")]
    pub login_every: Option<u64>,
}

fn parse_link(s: &str) -> Result<u64, String> {
    match latlab_keyscreen::condition::Condition::parse(s) {
        Ok(latlab_keyscreen::condition::Condition::Link { rate_bps, bulk: false }) => Ok(rate_bps),
        _ => Err(format!("'{s}': give a link rate such as 10mbit, 1mbit or 56kbit (9.6 kbit/s to 10 Gbit/s)")),
    }
}

/// `latlab display serve`.
#[derive(Debug, Args)]
pub struct DisplayServe {
    /// Address to listen on (loopback unless you choose otherwise) [default: 127.0.0.1:3899,
    /// with --rdp 127.0.0.1:3389].
    #[arg(long)]
    pub listen: Option<String>,
    /// Serve one connection (with --rdp: one session), then exit.
    #[arg(long)]
    pub once: bool,
    /// Time a connection has to send its hello before it is closed (with --rdp: to finish the
    /// connection sequence, TLS and NLA included) [default: 5 s, with --rdp 10 s].
    #[arg(long, value_parser = parse_duration_ns)]
    pub hello_deadline: Option<u64>,
    /// Time a session may go without the client taking (or, typing, sending) a byte [above 0].
    #[arg(long, value_parser = parse_duration_ns, default_value = dur_secs(latlab_display_net::defaults::IDLE_TIMEOUT_SECS))]
    pub idle_timeout: u64,
    /// Longest session a client may ask for [above 0].
    #[arg(long, value_parser = parse_duration_ns, default_value = dur_secs(latlab_display_net::defaults::MAX_SESSION_SECS))]
    pub max_session: u64,
    /// Sessions at once; a client past it is refused ("busy") [1 or more].
    #[arg(long, default_value_t = latlab_display_net::defaults::MAX_SESSIONS)]
    pub max_sessions: usize,
    /// Connections waiting for their hello at once; past it the one waiting longest is closed [1 or more].
    #[arg(long, default_value_t = latlab_display_net::defaults::MAX_WAITING)]
    pub max_waiting: usize,
    #[command(flatten)]
    pub rdp: RdpServeArgs,
}

/// `latlab display serve --rdp`: a real RDP server for real clients (see docs/experiments/rdp-serve.md).
#[derive(Debug, Args)]
pub struct RdpServeArgs {
    /// Speak RDP: any RDP client (mstsc, xfreerdp, Remmina, a thin client) connects, is shown
    /// the script, and each session is stored as a run (mode serve-rdp).
    #[arg(long)]
    pub rdp: bool,
    /// The phases each client is shown, in turn: `echo` (the client's keys echoed into an
    /// editor: input to update) and workloads (typing, scroll, slideshow, banner_ticker…).
    #[arg(long, value_delimiter = ',', value_parser = parse_phase, default_value = latlab_rdp_peers::defaults::RDP_SERVE_SCRIPT, requires = "rdp")]
    pub script: Vec<latlab_rdp_peers::serve::Phase>,
    /// How long each phase lasts (`30s`, `2m`; above 0, at most 1h) [default: 10s].
    #[arg(long, value_parser = parse_duration_ns, value_name = "D", requires = "rdp")]
    pub phase: Option<u64>,
    /// Seconds per phase: the old spelling of --phase (hidden, warned).
    #[arg(long, hide = true, requires = "rdp")]
    pub phase_seconds: Option<f64>,
    /// Desktop width, pixels [64–8192].
    #[arg(long, default_value_t = latlab_desktop::defaults::WIDTH as u16, requires = "rdp")]
    pub width: u16,
    /// Desktop height, pixels [64–8192].
    #[arg(long, default_value_t = latlab_desktop::defaults::HEIGHT as u16, requires = "rdp")]
    pub height: u16,
    /// Colour depth of the session: 16 or 24.
    #[arg(long, default_value_t = latlab_desktop::defaults::BPP as u16, value_parser = parse_rdp_bpp, requires = "rdp")]
    pub bpp: u16,
    /// Send frames back to back as fast as the client takes them (its throughput limit)
    /// instead of on 20 ms deadlines.
    #[arg(long, requires = "rdp")]
    pub flat_out: bool,
    /// Drawing orders and the bitmap cache where the client takes them (else bitmaps only,
    /// the study's NPPerfTune setting, which every client decodes).
    #[arg(long, requires = "rdp")]
    pub orders: bool,
    /// Send updates uncompressed even when the client offers bulk compression.
    #[arg(long, requires = "rdp")]
    pub no_compression: bool,
    /// Offer the graphics pipeline (RDPGFX) on the dynamic channel: a client that opens it
    /// gets each frame's damage as an uncompressed surface region and acknowledges frames,
    /// which gives the frame rate it keeps. `--gfx zgfx` compresses the regions with ZGFX
    /// (RDP 8's bulk compressor, IronRDP's), where that makes them smaller.
    #[arg(long, num_args = 0..=1, default_missing_value = "plain", value_parser = choice::<latlab_rdp_peers::serve::accept::GfxFrames>(), requires = "rdp")]
    pub gfx: Option<latlab_rdp_peers::serve::accept::GfxFrames>,
    /// An account for NLA: offered, with TLS, to clients that ask for it, and TLS logons must
    /// match it. The password comes from the environment variable LATLAB_RDP_PASSWORD.
    /// Without it: TLS only, and any logon is let in (the desktop is latlab's, no shell).
    #[arg(long, requires = "rdp")]
    pub rdp_user: Option<String>,
    /// Where the server's self-signed certificate is kept [default:
    /// $XDG_CONFIG_HOME/latlab/rdp-server].
    #[arg(long, requires = "rdp")]
    pub cert_dir: Option<std::path::PathBuf>,
}

fn parse_rdp_bpp(s: &str) -> Result<u16, String> {
    match s {
        "16" => Ok(16),
        "24" => Ok(24),
        _ => Err(format!("'{s}': give 16 or 24 (8 bpp needs a palette, which latlab's server does not send)")),
    }
}

fn parse_phase(s: &str) -> Result<latlab_rdp_peers::serve::Phase, String> {
    latlab_rdp_peers::serve::Phase::from_name(s).ok_or_else(|| {
        format!("'{s}': give echo or a workload ({})", latlab_desktop::workload::WorkloadKind::NAMES.join(", "))
    })
}

impl DisplayServe {
    /// The server's limits.
    pub fn limits(&self) -> latlab_display_net::Limits {
        use std::time::Duration;
        latlab_display_net::Limits {
            hello_deadline: Duration::from_nanos(
                self.hello_deadline.unwrap_or((latlab_display_net::defaults::HELLO_DEADLINE_SECS * 1e9) as u64),
            ),
            idle_timeout: Duration::from_nanos(self.idle_timeout),
            max_session: Duration::from_nanos(self.max_session),
            max_sessions: self.max_sessions,
            max_waiting: self.max_waiting,
        }
    }
}

/// Seconds as `--help` shows a duration.
fn dur_secs(s: f64) -> String {
    super::dur((s * 1e9) as u64)
}

/// `latlab display view`.
#[derive(Debug, Args)]
pub struct DisplayView {
    /// Server HOST or HOST:PORT; none: an in-process server over loopback.
    pub host: Option<String>,
    /// The workload.
    #[arg(long, value_parser = choice::<WorkloadKind>(), default_value = latlab_display::defaults::VIEW_WORKLOAD)]
    pub workload: WorkloadKind,
    /// How long to run (`10s`; whole seconds) [default: 10s].
    #[arg(long, value_parser = parse_duration_ns, value_name = "D")]
    pub duration: Option<u64>,
    /// The old spelling of --duration, in seconds.
    #[arg(long, hide = true, conflicts_with = "duration")]
    pub seconds: Option<f64>,
    /// Bulk compression.
    #[arg(long, value_parser = choice::<Codec>(), default_value = latlab_display::defaults::VIEW_CODEC)]
    pub codec: Codec,
    /// Encryption.
    #[arg(long, value_parser = choice::<Crypto>(), default_value = latlab_display::defaults::VIEW_CRYPTO)]
    pub crypto: Crypto,
    /// Bitmap updates instead of orders and the bitmap cache.
    #[arg(long)]
    pub bitmaps: bool,
    /// The client's settings and seed 000's cures.
    #[command(flatten)]
    pub client: ClientArgs,
    /// Frames back to back instead of on real time (the throughput limit).
    #[arg(long)]
    pub flat_out: bool,
    /// Check the screens are equal after every frame, not only at the end.
    #[arg(long)]
    pub check_frames: bool,
    /// Screen width [64–4096].
    #[arg(long, default_value_t = latlab_desktop::defaults::WIDTH)]
    pub width: usize,
    /// Screen height [64–4096].
    #[arg(long, default_value_t = latlab_desktop::defaults::HEIGHT)]
    pub height: usize,
    /// Colour depth: 8, 16, 24 or 32.
    #[arg(long, default_value_t = latlab_desktop::defaults::BPP)]
    pub bpp: u32,
    /// Seed of the script [any number].
    #[arg(long, default_value_t = latlab_desktop::defaults::SEED)]
    pub seed: u64,
}

/// `latlab display ops`.
#[derive(Debug, Args)]
pub struct DisplayOps {
    /// Operations, comma-separated (default: all).
    #[arg(long, value_delimiter = ',', value_parser = choice::<WorkloadKind>())]
    pub workloads: Vec<WorkloadKind>,
    /// Virtual time measured per operation (`30s`; whole seconds) [at least 1s] [default: 30s].
    #[arg(long, value_parser = parse_duration_ns, value_name = "D")]
    pub duration: Option<u64>,
    /// The old spelling of --duration, in seconds.
    #[arg(long, hide = true, conflicts_with = "duration")]
    pub seconds: Option<f64>,
    /// Bulk compression.
    #[arg(long, value_parser = choice::<Codec>(), default_value = latlab_display_net::defaults::OPS_CODEC)]
    pub codec: Codec,
    /// Encryption.
    #[arg(long, value_parser = choice::<Crypto>(), default_value = latlab_display::defaults::OPS_CRYPTO)]
    pub crypto: Crypto,
    /// Send bitmap updates instead of orders and the bitmap cache (the study's NPPerfTune).
    #[arg(long)]
    pub bitmaps: bool,
    /// Seed of the scripts [any number].
    #[arg(long, default_value_t = latlab_desktop::defaults::SEED)]
    pub seed: u64,
    /// How long each operation runs on a real server (`--rdp`) [500ms–1h] [default: 10s].
    #[arg(long, value_parser = parse_duration_ns, value_name = "D", requires = "rdp")]
    pub op_duration: Option<u64>,
    /// The old spelling of --op-duration, in seconds.
    #[arg(long, hide = true, conflicts_with = "op_duration", requires = "rdp")]
    pub op_seconds: Option<f64>,
    /// Operations on a real server, comma-separated: idle, typing, mouse, page_down, menu
    /// (default: all).
    #[arg(long, value_delimiter = ',', value_parser = latlab_display::rdp::ops::Op::parse, requires = "rdp")]
    pub rdp_ops: Vec<latlab_display::rdp::ops::Op>,
    /// A real RDP server instead of latlab's own stream.
    #[command(flatten)]
    pub real: RdpArgs,
}

/// `latlab display cache`.
#[derive(Debug, Args)]
pub struct DisplayCache {
    /// Animation frame counts, comma-separated (default: around the geometry's capacity,
    /// 65 frames for the seed's) [each 1 or more].
    #[arg(long, value_delimiter = ',')]
    pub frames: Vec<u32>,
    /// Policies, comma-separated (default: all; opt always runs).
    #[arg(long, value_delimiter = ',', value_parser = choice::<PolicyKind>())]
    pub policies: Vec<PolicyKind>,
    /// Loops measured after one loop of warm-up [1 or more].
    #[arg(long, default_value_t = latlab_display::defaults::CACHE_LOOPS)]
    pub loops: u32,
    /// Cells in the 16×16, 32×32 and 64×64 caches (default: seed 003's 1.5 MB at 8 bpp).
    #[arg(long, value_name = "A,B,C", value_parser = parse_cells, default_value = latlab_desktop::defaults::SEED_CACHE_CELLS.map(|c| c.to_string()).join(","))]
    pub cells: [usize; 3],
    /// Colour depth of the frames and the cache cells: 8, 16, 24 or 32 (a 64×64 cell is 4 KB at 8
    /// bpp, 16 KB at 32).
    #[arg(long, default_value_t = latlab_desktop::defaults::SEED_CACHE_BPP)]
    pub bpp: u32,
    /// Bulk compression.
    #[arg(long, value_parser = choice::<Codec>(), default_value = latlab_display::defaults::VIEW_CODEC)]
    pub codec: Codec,
    /// Skip the banner + ticker runs.
    #[arg(long)]
    pub no_banner: bool,
}
