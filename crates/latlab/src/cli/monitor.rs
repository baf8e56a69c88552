//! `latlab monitor`'s command line: its arguments and the configuration they make.

use super::{ExperimentCli, choice, dur, parse_duration_ns};
use clap::Args;
use latlab_monitor::experiment::Monitor;
use latlab_monitor::settings::MonitorConfig;
use latlab_sys::platform::{Policy, Sched};

/// `latlab monitor`'s arguments.
#[derive(Debug, Args)]
pub struct MonitorArgs {
    /// Interval of the timer probe [10µs–1s].
    #[arg(long, value_parser = parse_duration_ns, default_value = dur(latlab_monitor::defaults::INTERVAL_NS))]
    pub interval: u64,
    /// Window length: each window's summary and buckets are stored as it closes [at least 1s and 10 intervals].
    #[arg(long, value_parser = parse_duration_ns, default_value = dur(latlab_monitor::defaults::WINDOW_NS))]
    pub window: u64,
    /// Stop after this long (default: run until Ctrl-C) [above 0].
    #[arg(long, value_parser = parse_duration_ns)]
    pub duration: Option<u64>,
    /// Alternate idle and load, repeating, e.g. `idle=2h,load=3h30m`; the load is --load.
    #[arg(long, default_value = "")]
    pub schedule: String,
    /// Spinners (or polygon threads) during the schedule's load (0: one per CPU) [0–256].
    #[arg(long, default_value_t = 0)]
    pub load_spinners: usize,
    /// The load the schedule switches on: `spinners` (busy processes), `polygons` (seed 001's
    /// drawing threads), `link` (a paced TCP stream over loopback at --load-rate).
    #[arg(long, default_value = "spinners", value_parser = choice::<latlab_monitor::load::LoadKind>())]
    pub load: latlab_monitor::load::LoadKind,
    /// Rate of the `link` load, e.g. 100mbit, 10mbit, 56kbit [9.6kbit to 100gbit].
    #[arg(long, default_value = latlab_monitor::load::format_rate(latlab_monitor::defaults::LINK_LOAD_BPS), value_parser = latlab_monitor::load::parse_rate)]
    pub load_rate: u64,
    /// Real-time priority of the probe (SCHED_FIFO; refused without the privilege, then the
    /// default policy, with a warning) [1–99].
    #[arg(long, default_value_t = latlab_monitor::defaults::RT_PRIORITY)]
    pub priority: i32,
    /// Pin the probe to this CPU.
    #[arg(long)]
    pub cpu: Option<usize>,
    /// Probes to run at once: `rt` (timer wake-ups), `chain` (the thread the timer wakes, as
    /// `latlab rt`'s level 2; needs rt), `idle` (time taken from a lowest-priority thread,
    /// Endo's method), `udp` (round trips to `--peer`).
    #[arg(long, value_delimiter = ',', default_value = "rt", value_parser = choice::<latlab_monitor::settings::Probe>())]
    pub probes: Vec<latlab_monitor::settings::Probe>,
    /// How the timer wakes the chain's second level (`latlab rt --signal`'s paths).
    #[arg(long, default_value = latlab_monitor::defaults::WAKE.name(), value_parser = choice::<latlab_sys::wake::SignalKind>())]
    pub wake: latlab_sys::wake::SignalKind,
    /// The udp probe's peer: a `latlab udp serve` address (host:port).
    #[arg(long, value_name = "ADDR")]
    pub peer: Option<String>,
    /// Interval of the udp probe [1ms–10s].
    #[arg(long, value_parser = parse_duration_ns, default_value = dur(latlab_monitor::defaults::UDP_INTERVAL_NS))]
    pub udp_interval: u64,
    /// How long a udp request waits for its reply before it is counted lost [--udp-interval to 60s].
    #[arg(long, value_parser = parse_duration_ns, default_value = dur(latlab_monitor::defaults::UDP_WAIT_NS))]
    pub udp_wait: u64,
    /// Shared key of the peer (`udp serve --key`): every request carries an HMAC-SHA256.
    #[arg(long)]
    pub key: Option<String>,
    /// A gap longer than this is an interruption of the idle probe [above 0].
    #[arg(long, value_parser = parse_duration_ns, default_value = dur(latlab_monitor::defaults::IDLE_THRESHOLD_NS))]
    pub idle_threshold: u64,
    /// CPU the idle probe watches (default: the last one) [0 to the last CPU].
    #[arg(long)]
    pub idle_cpu: Option<usize>,
    /// Serve the windows in the OpenMetrics text format on http://ADDR/metrics (and
    /// /healthz) for Prometheus to scrape; loopback unless told otherwise.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = latlab_monitor::defaults::METRICS_LISTEN)]
    pub metrics_listen: Option<String>,
}

impl ExperimentCli for MonitorArgs {
    type E = Monitor;
    const HELP: &'static str = "Watch latency for days, as real-time teams run cyclictest on every board they \
        ship: a timer probe on absolute deadlines, measured in windows (default 5 minutes) stored as they \
        close, an optional idle/load schedule, and the windows served in the OpenMetrics format for \
        Prometheus (--metrics-listen). Ctrl-C stops; a run whose process died is resumed by the next one \
        with the same settings.";

    fn config(self, strict: bool) -> MonitorConfig {
        MonitorConfig {
            interval_ns: self.interval,
            window_ns: self.window,
            duration_ns: self.duration,
            schedule: self.schedule,
            load_spinners: self.load_spinners,
            load: self.load,
            load_rate_bps: self.load_rate,
            sched: Sched { policy: Policy::Fifo, priority: self.priority },
            cpu: self.cpu,
            strict,
            probes: self.probes,
            wake: self.wake,
            peer: self.peer,
            key: self.key,
            udp_interval_ns: self.udp_interval,
            udp_wait_ns: self.udp_wait,
            idle_threshold_ns: self.idle_threshold,
            idle_cpu: self.idle_cpu,
            metrics_listen: self.metrics_listen,
        }
    }
}
