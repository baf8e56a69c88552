//! `latlab stall net`: round-trip time under network load (seed 003, §4.3, Figure 6). Two
//! network namespaces joined by a veth pair, each end shaped by HTB to the link rate (10
//! Mbit/s, the study's Ethernet); latlab's own TCP flows in both directions offer a load
//! from nothing to more than the link carries, step by step, while a UDP probe on absolute
//! deadlines measures the round trip. Everything created is removed afterwards — on
//! success, error, panic or Ctrl-C (the guard's `Drop`).

use latlab_model::record::{Column, RunRecord, RunStatus, Series, Table, TablePlot};
use latlab_model::stats;
use latlab_sys::clock::{clock_nanosleep_abs, monotonic_now};
use latlab_sys::ioerr::{Doing, IoFailed};
use latlab_sys::record::Finish;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// Seed 003, Figure 6: (offered load in Mbit/s on the 10 Mbit/s hub, mean round trip in ms)
/// near saturation — about 35 ms at 9.6 Mbit/s. The row and the figure both read it.
pub const FIGURE_6: (f64, f64) = (9.6, 35.0);

pub use crate::netlab::{CLIENT_ADDR, NetLab, SERVER_ADDR};
use crate::netlab::{LabError, enter};
use latlab_model::numfmt::sig;
const PROBE_PORT: u16 = 4901;
const LOAD_PORT: u16 = 4902;

/// Why the experiment could not run.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    /// Namespaces or shaping are not permitted or not available here.
    #[error("{0}")]
    Refused(String),
    /// A socket failed.
    #[error(transparent)]
    Io(#[from] IoFailed),
    /// A setting is out of range.
    #[error("{0}")]
    Config(#[from] latlab_model::ConfigError),
}

impl From<LabError> for NetError {
    fn from(e: LabError) -> Self {
        match e {
            LabError::Refused(m) => NetError::Refused(m),
            LabError::Io(e) => NetError::Io(e),
        }
    }
}

/// What the network sweep runs.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct NetConfig {
    /// Link rate, bit/s (each direction).
    pub rate_bps: u64,
    /// Offered load per step, as a fraction of the link rate, in each direction.
    pub loads: Vec<f64>,
    /// Seconds per step.
    pub step_seconds: u64,
    /// Time between probes, ns.
    pub probe_interval_ns: u64,
    /// The bottleneck queue in packets (pfifo under HTB); `None`: the kernel's default
    /// (the veth's txqueuelen, 1000 packets).
    pub queue_packets: Option<u32>,
    /// Times the saturating step (the first load above the link's rate) runs, each with new
    /// flows.
    pub repeats: u32,
}

impl NetConfig {
    /// The full sweep: 0 to 120 % of 10 Mbit/s.
    pub fn full() -> Self {
        Self {
            rate_bps: crate::defaults::NET_RATE_BPS,
            loads: crate::defaults::NET_LOADS.to_vec(),
            step_seconds: crate::defaults::NET_STEP_SECONDS,
            probe_interval_ns: crate::defaults::NET_PROBE_INTERVAL_NS,
            queue_packets: None,
            repeats: crate::defaults::NET_REPEATS,
        }
    }
    /// The suite's: nothing, half the link, and the saturating step three times, 2 s each.
    pub fn short() -> Self {
        Self { loads: vec![0.0, 0.5, 1.2], step_seconds: 2, ..Self::full() }
    }
    /// The saturating load: the first above the link's rate.
    pub fn saturating(&self) -> Option<f64> {
        self.loads.iter().copied().find(|&l| l > crate::defaults::NET_SATURATING_ABOVE)
    }
    /// The steps in the order they run: every load once, the saturating one `repeats` times.
    pub fn plan(&self) -> Vec<f64> {
        let sat = self.saturating();
        let mut v = Vec::new();
        for &l in &self.loads {
            let n = if Some(l) == sat { self.repeats.max(1) } else { 1 };
            v.extend(std::iter::repeat_n(l, n as usize));
        }
        v
    }
    /// Check the settings.
    pub fn validate(&self) -> Result<(), NetError> {
        if !(100_000..=10_000_000_000).contains(&self.rate_bps) {
            return Err(NetError::Config("link rate: 100 kbit/s to 10 Gbit/s".into()));
        }
        if self.loads.is_empty() || self.loads.iter().any(|&l| !(0.0..=4.0).contains(&l)) {
            return Err(NetError::Config("loads: fractions of the link from 0 to 4".into()));
        }
        if self.queue_packets == Some(0) {
            return Err(NetError::Config("--queue: at least 1 packet".into()));
        }
        if !(1..=20).contains(&self.repeats) {
            return Err(NetError::Config("--repeats: 1 to 20".into()));
        }
        if self.step_seconds == 0 || !(1_000_000..=1_000_000_000).contains(&self.probe_interval_ns) {
            return Err(NetError::Config("--step: at least 1s; --probe-interval: 1 ms to 1 s".into()));
        }
        Ok(())
    }
}

/// The server side: a UDP reflector and a TCP load endpoint, until `stop`. `received` counts
/// the upload bytes that arrived.
fn serve(
    ns: String,
    stop: Arc<AtomicBool>,
    received: Arc<AtomicU64>,
    ready: std::sync::mpsc::Sender<Result<(), NetError>>,
) {
    let setup = (|| -> Result<(UdpSocket, TcpListener), NetError> {
        enter(&ns)?;
        let u = UdpSocket::bind((SERVER_ADDR, PROBE_PORT)).doing("binding the reflector")?;
        u.set_read_timeout(Some(Duration::from_millis(100))).doing("reflector")?;
        let t = TcpListener::bind((SERVER_ADDR, LOAD_PORT)).doing("binding the load port")?;
        t.set_nonblocking(true).doing("load port")?;
        Ok((u, t))
    })();
    let (udp, tcp) = match setup {
        Ok(x) => {
            let _ = ready.send(Ok(()));
            x
        }
        Err(e) => {
            let _ = ready.send(Err(e));
            return;
        }
    };
    let acceptor = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                match tcp.accept() {
                    Ok((s, _)) => {
                        let (stop, received) = (stop.clone(), received.clone());
                        std::thread::spawn(move || load_endpoint(s, &stop, &received));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        })
    };
    let mut buf = [0u8; 64];
    while !stop.load(Ordering::Relaxed) {
        if let Ok((n, from)) = udp.recv_from(&mut buf) {
            let _ = udp.send_to(&buf[..n], from);
        }
    }
    let _ = acceptor.join();
}

/// One load connection at the server: `U` (the client sends; count and discard) or `D` +
/// rate (send).
fn load_endpoint(mut s: TcpStream, stop: &AtomicBool, received: &AtomicU64) {
    let mut hdr = [0u8; 9];
    if s.read_exact(&mut hdr).is_err() {
        return;
    }
    let rate = u64::from_le_bytes(hdr[1..9].try_into().expect("8 bytes"));
    let _ = s.set_read_timeout(Some(Duration::from_millis(200)));
    let mut buf = vec![0u8; 64 * 1024];
    if hdr[0] == b'D' {
        latlab_sys::load::paced_write(&mut s, rate, stop);
    } else {
        while !stop.load(Ordering::Relaxed) {
            match s.read(&mut buf) {
                Ok(0) => return,
                Ok(n) => {
                    received.fetch_add(n as u64, Ordering::Relaxed);
                }
                Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
                Err(_) => return,
            }
        }
    }
}

/// One probe sample: when it was sent (ns since the run began) and its round trip.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Sample {
    /// Sent, ns after the first probe's deadline.
    at: u64,
    rtt: Option<u64>,
    /// Upload bytes the server had received, all steps so far, when the probe was sent.
    up: u64,
    /// Bytes the download flows had delivered, likewise.
    down: u64,
}

/// What the probing thread returns.
struct Probed {
    steps: Vec<Step>,
    samples: Vec<Sample>,
    /// Wall-clock time of the first probe's deadline.
    start_unix_ns: u64,
}

/// One step's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Offered load, fraction of the link, each direction.
    pub load: f64,
    /// Round trips, ns.
    pub rtt: Vec<i64>,
    /// Probes lost.
    pub lost: u64,
    /// Bytes the upload flow delivered.
    pub up_bytes: u64,
    /// Seconds.
    pub seconds: f64,
}

/// Run the sweep: create the lab, serve, step the load, probe, clean up.
pub fn run_net(cfg: &NetConfig, progress: Arc<AtomicU64>) -> Result<RunRecord, NetError> {
    cfg.validate()?;
    let mut rec = latlab_sys::record::begin("stall");
    rec.mode = "net".into();
    rec.config("server", SERVER_ADDR);
    rec.config("rate_bps", cfg.rate_bps);
    rec.config("loads", &cfg.loads);
    rec.config("repeats_of_the_saturating_step", cfg.repeats);
    rec.config("step_seconds", cfg.step_seconds);
    rec.config("probe_interval_ns", cfg.probe_interval_ns);
    rec.config("queue_packets", cfg.queue_packets.map_or("kernel default".to_string(), |q| q.to_string()));
    let lab = NetLab::create(cfg.rate_bps, cfg.queue_packets)?;
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = std::sync::mpsc::channel();
    let received = Arc::new(AtomicU64::new(0));
    let server = {
        let (ns, stop, received) = (lab.server.clone(), stop.clone(), received.clone());
        std::thread::spawn(move || serve(ns, stop, received, tx))
    };
    let ready =
        rx.recv_timeout(Duration::from_secs(5)).map_err(|_| NetError::Refused("the server did not start".into()))?;
    let result = ready.and_then(|()| client(&lab.client, cfg, &received, &progress));
    stop.store(true, Ordering::Relaxed);
    let _ = server.join();
    let Probed { steps, samples, start_unix_ns } = result?;
    rec.config("timeline_start_unix_ns", start_unix_ns);
    drop(lab);
    record(&mut rec, cfg, &steps, &samples);
    rec.finish(if latlab_sys::interrupt::stop_requested() { RunStatus::Interrupted } else { RunStatus::Complete });
    Ok(rec)
}

fn client(ns: &str, cfg: &NetConfig, received: &AtomicU64, progress: &AtomicU64) -> Result<Probed, NetError> {
    // A thread of its own, so only it enters the client's namespace.
    std::thread::scope(|sc| {
        sc.spawn(|| probe_and_load(ns, cfg, received, progress))
            .join()
            .unwrap_or_else(|_| Err(NetError::Refused("the probe thread panicked".into())))
    })
}

fn probe_and_load(ns: &str, cfg: &NetConfig, up_bytes: &AtomicU64, progress: &AtomicU64) -> Result<Probed, NetError> {
    {
        enter(ns)?;
        let udp = UdpSocket::bind((CLIENT_ADDR, 0)).doing("binding the probe")?;
        udp.connect((SERVER_ADDR, PROBE_PORT)).doing("probe")?;
        udp.set_read_timeout(Some(Duration::from_millis(50))).doing("probe")?;
        let per_step = cfg.step_seconds * 1_000_000_000 / cfg.probe_interval_ns;
        let plan = cfg.plan();
        let total = per_step as usize * plan.len();
        // The receiver stamps replies into a table indexed by sequence number.
        let replies: Arc<Vec<AtomicU64>> = Arc::new((0..total).map(|_| AtomicU64::new(0)).collect());
        let done = Arc::new(AtomicBool::new(false));
        let receiver = {
            let (u, replies, done) = (udp.try_clone().doing("probe")?, replies.clone(), done.clone());
            std::thread::spawn(move || {
                let mut buf = [0u8; 16];
                while !done.load(Ordering::Relaxed) {
                    if let Ok(16) = u.recv(&mut buf) {
                        let now = monotonic_now();
                        let k = u64::from_le_bytes(buf[..8].try_into().expect("8")) as usize;
                        if let Some(r) = replies.get(k) {
                            let _ = r.compare_exchange(0, now, Ordering::Relaxed, Ordering::Relaxed);
                        }
                    }
                }
            })
        };
        // Load bytes delivered so far (upload: counted by the server), read at each probe for
        // the timeline.
        let down_bytes = Arc::new(AtomicU64::new(0));
        let mut load_at = vec![(0u64, 0u64); total];
        let start = monotonic_now();
        let start_unix_ns =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
        let mut sent_at = vec![0u64; total];
        let mut steps = Vec::new();
        let server = SocketAddr::new(SERVER_ADDR.parse().expect("a literal address"), LOAD_PORT);
        let mut k = 0usize;
        for &load in &plan {
            if latlab_sys::interrupt::stop_requested() {
                break;
            }
            let rate = (load * cfg.rate_bps as f64) as u64;
            let step_stop = Arc::new(AtomicBool::new(false));
            let mut flows = Vec::new();
            let up_before = up_bytes.load(Ordering::Relaxed);
            if rate > 0 {
                for dir in [b'U', b'D'] {
                    let mut s =
                        TcpStream::connect_timeout(&server, Duration::from_secs(2)).doing("opening a load flow")?;
                    let mut hdr = vec![dir];
                    hdr.extend_from_slice(&rate.to_le_bytes());
                    s.write_all(&hdr).doing("load flow")?;
                    let st = step_stop.clone();
                    let down_bytes = down_bytes.clone();
                    flows.push(std::thread::spawn(move || {
                        if dir == b'U' {
                            latlab_sys::load::paced_write(&mut s, rate, &st);
                        } else {
                            let mut buf = vec![0u8; 64 * 1024];
                            let _ = s.set_read_timeout(Some(Duration::from_millis(200)));
                            while !st.load(Ordering::Relaxed) {
                                match s.read(&mut buf) {
                                    Ok(0) => break,
                                    Ok(n) => {
                                        down_bytes.fetch_add(n as u64, Ordering::Relaxed);
                                    }
                                    Err(_) => {}
                                }
                            }
                            let _ = s.shutdown(std::net::Shutdown::Both);
                        }
                    }));
                }
            }
            let step_start = k;
            for _ in 0..per_step {
                let deadline = start + k as u64 * cfg.probe_interval_ns;
                clock_nanosleep_abs(deadline);
                let mut p = [0u8; 16];
                p[..8].copy_from_slice(&(k as u64).to_le_bytes());
                sent_at[k] = monotonic_now();
                let _ = udp.send(&p);
                load_at[k] = (up_bytes.load(Ordering::Relaxed), down_bytes.load(Ordering::Relaxed));
                k += 1;
            }
            step_stop.store(true, Ordering::Relaxed);
            for f in flows {
                let _ = f.join();
            }
            // Delivered, as the server counted it: what the sender wrote includes what still sat
            // in its socket buffer, which above the link rate is a lot.
            let up = up_bytes.load(Ordering::Relaxed) - up_before;
            steps.push((load, step_start, k, up));
            progress.fetch_add(1, Ordering::Relaxed);
        }
        std::thread::sleep(Duration::from_millis(500));
        done.store(true, Ordering::Relaxed);
        let _ = receiver.join();
        let samples: Vec<Sample> = (0..k)
            .map(|i| {
                let r = replies[i].load(Ordering::Relaxed);
                Sample {
                    at: sent_at[i] - start,
                    rtt: (r > sent_at[i]).then(|| r - sent_at[i]),
                    up: load_at[i].0,
                    down: load_at[i].1,
                }
            })
            .collect();
        let steps = steps
            .into_iter()
            .map(|(load, a, b, up)| {
                let s = &samples[a..b];
                Step {
                    load,
                    rtt: s.iter().filter_map(|x| x.rtt.map(|r| r as i64)).collect(),
                    lost: s.iter().filter(|x| x.rtt.is_none()).count() as u64,
                    up_bytes: up,
                    seconds: cfg.step_seconds as f64,
                }
            })
            .collect();
        Ok(Probed { steps, samples, start_unix_ns })
    }
}

/// One bin of the timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct Bin {
    /// Start, seconds after the first probe's deadline.
    pub t: f64,
    /// Offered load of the step the bin begins in, fraction of the link.
    pub load: f64,
    /// Mean round trip of the bin's answered probes, ms (None: every probe lost).
    pub rtt_ms: Option<f64>,
    /// Probes lost in the bin.
    pub lost: u64,
    /// Upload and download rates over the bin, Mbit/s (None: too few probes to tell).
    pub up_mbps: Option<f64>,
    /// See `up_mbps`.
    pub down_mbps: Option<f64>,
}

/// The probes in bins of `bin_ns`: mean RTT, losses, and the load flows' rates, from the
/// byte counters read at each probe (from a bin's first probe to the next bin's first, or
/// to the bin's own last probe at the end). `per_step` probes belong to each of `loads`.
fn timeline(samples: &[Sample], loads: &[f64], per_step: usize, bin_ns: u64) -> Vec<Bin> {
    let mut bins = Vec::new();
    let mut i = 0;
    while i < samples.len() {
        let b = samples[i].at / bin_ns;
        let j = i + samples[i..].iter().take_while(|s| s.at / bin_ns == b).count();
        let answered: Vec<u64> = samples[i..j].iter().filter_map(|s| s.rtt).collect();
        let (first, end) = (samples[i], samples.get(j).copied().unwrap_or(samples[j - 1]));
        let dt = end.at.saturating_sub(first.at);
        let rate = |a: u64, b: u64| (dt > 0).then(|| b.saturating_sub(a) as f64 * 8.0 / (dt as f64 / 1e9) / 1e6);
        bins.push(Bin {
            t: (b * bin_ns) as f64 / 1e9,
            load: loads.get(i / per_step.max(1)).copied().unwrap_or(0.0),
            rtt_ms: (!answered.is_empty())
                .then(|| answered.iter().map(|&r| r as f64).sum::<f64>() / answered.len() as f64 / 1e6),
            lost: (j - i - answered.len()) as u64,
            up_mbps: rate(first.up, end.up),
            down_mbps: rate(first.down, end.down),
        });
        i = j;
    }
    bins
}

/// The timeline as a table (one row per bin), for the report and for `export --format flent`.
fn timeline_table(bins: &[Bin], bin_ns: u64) -> Table {
    let c = Column::new;
    let num = |v: Option<f64>, scale: f64| v.map_or(serde_json::Value::Null, |x| ((x * scale).round() / scale).into());
    Table {
        name: TIMELINE.into(),
        title: format!("Round trip and load over time, in {} ms bins", bin_ns / 1_000_000),
        columns: vec![
            c("time", "s"),
            c("offered", "% of link"),
            c("RTT mean", "ms"),
            c("lost", "probes"),
            c("upload", "Mbit/s"),
            c("download", "Mbit/s"),
        ],
        rows: bins
            .iter()
            .map(|b| {
                vec![
                    num(Some(b.t), 1000.0),
                    ((b.load * 100.0).round() as u64).into(),
                    num(b.rtt_ms, 1000.0),
                    b.lost.into(),
                    num(b.up_mbps, 1000.0),
                    num(b.down_mbps, 1000.0),
                ]
            })
            .collect(),
        plot: Some(TablePlot {
            x: "time".into(),
            ys: vec!["upload".into(), "download".into()],
            log_x: false,
            log_y: false,
        }),
    }
}

/// Name of the timeline table in a `stall` run of the network experiment.
pub use latlab_model::record::FLENT_TIMELINE as TIMELINE;

/// The lowest and highest of the repeats' mean round trips (ms): the spread Figure 6's row
/// states and the metrics record.
fn lowest_and_highest(means: &[f64]) -> (f64, f64) {
    means.iter().fold((f64::MAX, f64::MIN), |(a, b), &m| (a.min(m), b.max(m)))
}

fn record(rec: &mut RunRecord, cfg: &NetConfig, steps: &[Step], samples: &[Sample]) {
    let mut rows = Vec::new();
    let pct = |l: f64| (l * 100.0).round() as u64;
    // A load run more than once (the saturating step) is one row: its probes pooled, and the
    // spread of its repeats' means beside them.
    let mut pooled: Vec<(Step, Vec<f64>)> = Vec::new();
    for s in steps {
        let mean = stats::summarize(&s.rtt).map(|x| x.mean / 1e6);
        match pooled.iter_mut().find(|(p, _)| p.load == s.load) {
            Some((p, means)) => {
                p.rtt.extend_from_slice(&s.rtt);
                p.lost += s.lost;
                p.up_bytes += s.up_bytes;
                p.seconds += s.seconds;
                means.extend(mean);
            }
            None => pooled.push((s.clone(), mean.into_iter().collect())),
        }
    }
    for (s, means) in &pooled {
        let p = format!("net.load{}", pct(s.load));
        if means.len() > 1 {
            let (lo, hi) = lowest_and_highest(means);
            rec.metric(&format!("{p}.repeats"), means.len() as u64, "count");
            rec.metric(&format!("{p}.rtt.mean_lowest_repeat"), lo * 1e6, "ns");
            rec.metric(&format!("{p}.rtt.mean_highest_repeat"), hi * 1e6, "ns");
        }
        let sum = stats::summarize(&s.rtt);
        if let Some(x) = &sum {
            rec.metric(&format!("{p}.rtt.p50"), x.p50, "ns");
            rec.metric(&format!("{p}.rtt.p99"), x.p99, "ns");
            rec.metric(&format!("{p}.rtt.max"), x.max, "ns");
            rec.metric(&format!("{p}.rtt.spread_p99"), x.p99 - x.min, "ns");
            // The seed's measures: ping's average and variance (its "jitter"), as a std dev.
            rec.metric(&format!("{p}.rtt.mean"), x.mean, "ns");
            rec.metric(&format!("{p}.rtt.stddev"), x.stddev, "ns");
        }
        rec.metric(&format!("{p}.lost"), s.lost, "count");
        let mbps = s.up_bytes as f64 * 8.0 / s.seconds / 1e6;
        rec.metric(&format!("{p}.up_mbps"), mbps, "Mbit/s");
        rows.push(vec![
            pct(s.load).into(),
            ((s.load * cfg.rate_bps as f64 / 1e5).round() / 10.0).into(),
            ((mbps * 100.0).round() / 100.0).into(),
            sum.as_ref().map_or(serde_json::Value::Null, |x| ((x.p50 as f64 / 1e4).round() / 100.0).into()),
            sum.as_ref().map_or(serde_json::Value::Null, |x| ((x.p99 as f64 / 1e4).round() / 100.0).into()),
            s.lost.into(),
        ]);
    }
    let c = Column::new;
    rec.tables.push(Table {
        name: "net.sweep".into(),
        title: format!(
            "UDP round trip across a {} Mbit/s HTB-shaped veth link, against TCP load offered in both directions",
            sig(cfg.rate_bps as f64 / 1e6)
        ),
        columns: vec![
            c("offered", "% of link"),
            c("offered", "Mbit/s each way"),
            c("upload delivered", "Mbit/s"),
            c("RTT p50", "ms"),
            c("RTT p99", "ms"),
            c("lost", "probes"),
        ],
        rows,
        plot: Some(TablePlot {
            x: "offered".into(),
            ys: vec!["RTT p50".into(), "RTT p99".into()],
            log_x: false,
            log_y: true,
        }),
    });
    let bin_ns = crate::defaults::NET_TIMELINE_STEP_NS.max(cfg.probe_interval_ns);
    let per_step = (cfg.step_seconds * 1_000_000_000 / cfg.probe_interval_ns) as usize;
    rec.config("timeline_step_ns", bin_ns);
    rec.tables.push(timeline_table(&timeline(samples, &cfg.plan(), per_step, bin_ns), bin_ns));
    // RTT over time, with the load steps visible in it (lost probes left out).
    rec.series.push(Series {
        name: "net.rtt".into(),
        unit: "ns".into(),
        description: "every probe's round trip in send order, through all the load steps".into(),
        values: samples.iter().filter_map(|s| s.rtt.map(|r| r as i64)).collect(),
    });
    row::figure_6(rec, cfg, &pooled);
}

mod row;
#[cfg(test)]
mod tests;
