//! Arguments of `latlab udp`, `udp serve`, `udp probe` and `udp relay` (seed 002).

use super::{dur, parse_duration_ns};
use clap::{Args, Subcommand};

/// `latlab udp`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct UdpArgs {
    /// `serve`, `probe`, `relay`, or nothing for a loopback run.
    #[command(subcommand)]
    pub command: Option<UdpCommand>,
    /// Sending options.
    #[command(flatten)]
    pub send: UdpSend,
    /// Use IPv6 loopback (::1).
    #[arg(long)]
    pub ipv6: bool,
    /// Put an impairment relay between sender and reflector: hold and release every D [above 0].
    #[arg(long, value_parser = parse_duration_ns)]
    pub relay_hold_every: Option<u64>,
    /// Relay: fixed extra delay [0 or more].
    #[arg(long, value_parser = parse_duration_ns)]
    pub relay_delay: Option<u64>,
    /// Relay: uniform extra delay up to D.
    #[arg(long, value_parser = parse_duration_ns)]
    pub relay_jitter: Option<u64>,
    /// Relay: drop this fraction of packets (0–1).
    #[arg(long)]
    pub relay_loss: Option<f64>,
    /// How the receiver plays packets out, measured live: by sender timestamp after an
    /// adaptive delay (seed 002's fix), or as each arrives.
    #[arg(long, value_parser = super::choice::<latlab_udp::playout::PlayoutMode>(), default_value = latlab_udp::defaults::PLAYOUT.name())]
    pub playout: latlab_udp::playout::PlayoutMode,
}

/// Options of a sending run (`latlab udp` and `latlab udp probe`).
#[derive(Debug, Args)]
pub struct UdpSend {
    /// Interval between packets (10us … 60s).
    #[arg(long, default_value = dur(latlab_udp::defaults::INTERVAL_NS), value_parser = parse_duration_ns)]
    pub interval: u64,
    /// How long to send.
    #[arg(long, default_value = dur(latlab_udp::defaults::DURATION_NS), value_parser = parse_duration_ns)]
    pub duration: u64,
    /// Datagram size in bytes (at least the 64-byte header).
    #[arg(long, default_value_t = latlab_udp_probe::defaults::SIZE)]
    pub size: usize,
    /// How long to wait for replies after the last send before counting loss.
    #[arg(long, default_value = dur(latlab_udp::defaults::WAIT_NS), value_parser = parse_duration_ns)]
    pub wait: u64,
    /// Shared key for HMAC-SHA256 on every packet (both ends must use it).
    #[arg(long, env = "LATLAB_UDP_KEY", hide_env_values = true)]
    pub key: Option<String>,
    /// Also send a stream at each of these intervals, side by side with the main one, and
    /// compare their release patterns (seed 002: `1s,500ms,100ms`) [each 10µs–60s].
    #[arg(long, value_delimiter = ',', value_parser = parse_duration_ns)]
    pub sweep_intervals: Vec<u64>,
    /// Also send a stream at the same interval with datagrams padded with dummy data to this
    /// size, and compare its arrivals with the main stream's (seed 002: padding changed
    /// nothing) [64–8972].
    #[arg(long, value_name = "BYTES")]
    pub padded_size: Option<usize>,
}

/// Subcommands of `latlab udp`.
#[derive(Debug, Subcommand)]
pub enum UdpCommand {
    /// Run a reflector for probes from other hosts (until Ctrl-C).
    Serve(UdpServeArgs),
    /// Probe a reflector on another host.
    Probe(UdpProbeArgs),
    /// A deterministic impairment relay: delay, jitter, loss, rate, hold-and-release.
    Relay(UdpRelayArgs),
}

/// `latlab udp serve`.
#[derive(Debug, Args)]
pub struct UdpServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = format!("0.0.0.0:{}", latlab_udp_probe::defaults::PORT))]
    pub bind: String,
    /// Shared key: only probes with a valid HMAC-SHA256 are answered.
    #[arg(long, env = "LATLAB_UDP_KEY", hide_env_values = true)]
    pub key: Option<String>,
    /// Most replies per second to one source.
    #[arg(long, default_value_t = latlab_udp::defaults::MAX_PPS_PER_SOURCE)]
    pub max_pps_per_source: u32,
}

/// `latlab udp probe`.
#[derive(Debug, Args)]
pub struct UdpProbeArgs {
    /// The reflector: HOST or HOST:PORT (default port 4848); IPv6 as `[ADDR]:PORT`.
    pub host: String,
    /// Sending options.
    #[command(flatten)]
    pub send: UdpSend,
}

/// `latlab udp relay`.
#[derive(Debug, Args)]
pub struct UdpRelayArgs {
    /// Address clients send to.
    #[arg(long)]
    pub listen: String,
    /// Address datagrams are forwarded to.
    #[arg(long)]
    pub to: String,
    /// Fixed extra delay [0 or more].
    #[arg(long, value_parser = parse_duration_ns)]
    pub delay: Option<u64>,
    /// Uniform extra delay up to D.
    #[arg(long, value_parser = parse_duration_ns)]
    pub jitter: Option<u64>,
    /// Drop this fraction of packets (0–1).
    #[arg(long, default_value_t = latlab_udp::relay::Impairment::default().loss)]
    pub loss: f64,
    /// Rate limit in bits per second [above 0].
    #[arg(long)]
    pub rate: Option<u64>,
    /// Hold everything and release it every D (seed 002's pattern: 1.23s) [above 0].
    #[arg(long, value_parser = parse_duration_ns)]
    pub hold_every: Option<u64>,
    /// Seed of the random decisions [any number].
    #[arg(long, default_value_t = latlab_udp::relay::Impairment::default().seed)]
    pub seed: u64,
}
