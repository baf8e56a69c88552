//! CPU and disk utilisation over time (seed 004's Figures 2 and 4): a thread samples
//! `/proc/stat` (all CPUs' busy share) and `/proc/diskstats` (one device's sectors read and
//! busy time) every few milliseconds while a boot or a launch runs. The parsers are pure and
//! tested on sample text; a line that does not read is skipped, never a panic.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Cumulative CPU counters: (busy, total) jiffies over all CPUs.
pub fn parse_stat(text: &str) -> Option<(u64, u64)> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line.split_whitespace().skip(1).filter_map(|x| x.parse().ok()).collect();
    if v.len() < 4 {
        return None;
    }
    let total: u64 = v.iter().sum();
    // idle and iowait are not busy; steal and guest are counted in total as the kernel does.
    let idle = v[3] + v.get(4).copied().unwrap_or(0);
    Some((total.saturating_sub(idle), total))
}

/// Cumulative counters of device `name`: (sectors read, ms busy).
pub fn parse_diskstats(text: &str, name: &str) -> Option<(u64, u64)> {
    text.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() < 13 || f[2] != name {
            return None;
        }
        Some((f[5].parse().ok()?, f[12].parse().ok()?))
    })
}

/// One interval's utilisation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// End of the interval, ns from the sampler's start.
    pub t_ns: u64,
    /// Busy share of all CPUs.
    pub cpu_busy: f64,
    /// Bytes read from the device per second (`None`: no device).
    pub read_bps: Option<f64>,
    /// Share of the interval the device was busy (`None`: no device).
    pub disk_busy: Option<f64>,
}

/// A running sampler.
pub struct Sampler {
    stop: Arc<AtomicBool>,
    handle: std::thread::JoinHandle<Vec<Sample>>,
}

impl Sampler {
    /// Start sampling every `interval_ms`, the disk counters of block device `device`.
    pub fn start(device: Option<String>, interval_ms: u64) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = std::thread::spawn(move || {
            let read = || {
                let cpu = std::fs::read_to_string("/proc/stat").ok().and_then(|t| parse_stat(&t));
                let disk = device
                    .as_deref()
                    .and_then(|d| std::fs::read_to_string("/proc/diskstats").ok().and_then(|t| parse_diskstats(&t, d)));
                (cpu, disk)
            };
            let t0 = std::time::Instant::now();
            let mut out = Vec::new();
            let mut last = (read(), 0u64);
            while !flag.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(interval_ms));
                let now = (read(), t0.elapsed().as_nanos() as u64);
                let dt = (now.1 - last.1).max(1) as f64;
                if let (Some((b1, t1)), Some((b0, t0c))) = (now.0.0, last.0.0) {
                    let disk = match (now.0.1, last.0.1) {
                        (Some((s1, m1)), Some((s0, m0))) => Some((
                            (s1.saturating_sub(s0) * 512) as f64 / (dt / 1e9),
                            (m1.saturating_sub(m0) as f64 * 1e6 / dt).min(1.0),
                        )),
                        _ => None,
                    };
                    out.push(Sample {
                        t_ns: now.1,
                        cpu_busy: b1.saturating_sub(b0) as f64 / t1.saturating_sub(t0c).max(1) as f64,
                        read_bps: disk.map(|d| d.0),
                        disk_busy: disk.map(|d| d.1),
                    });
                }
                last = now;
            }
            out
        });
        Self { stop, handle }
    }

    /// Stop and take the samples.
    pub fn finish(self) -> Vec<Sample> {
        self.stop.store(true, Ordering::Relaxed);
        self.handle.join().unwrap_or_default()
    }
}

/// The samples up to `until_ns` (plus one interval) as table `name`, plotted over time, with
/// the mean CPU and disk busy shares as metrics `<prefix>.cpu_busy_mean` and
/// `<prefix>.disk_busy_mean`. `what` names the run for the title. A warning instead when
/// there is no sample.
pub fn record(
    rec: &mut latlab_model::record::RunRecord,
    name: &str,
    prefix: &str,
    what: &str,
    samples: &[Sample],
    until_ns: u64,
    device: Option<&str>,
) {
    use latlab_model::record::{Column, Table, TablePlot};
    let interval = crate::defaults::UTIL_INTERVAL_MS;
    let r1 = |x: f64| serde_json::Value::from((x * 10.0).round() / 10.0);
    let kept: Vec<&Sample> = samples.iter().filter(|s| s.t_ns <= until_ns + interval * 1_000_000).collect();
    if kept.is_empty() {
        rec.warn(format!("{what} was too short for a utilisation sample ({interval} ms)"));
        return;
    }
    let mean = |f: &dyn Fn(&Sample) -> Option<f64>| {
        let v: Vec<f64> = kept.iter().filter_map(|s| f(s)).collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    };
    if let Some(m) = mean(&|s| Some(s.cpu_busy)) {
        rec.metric(&format!("{prefix}.cpu_busy_mean"), m, "ratio");
    }
    if let Some(m) = mean(&|s| s.disk_busy) {
        rec.metric(&format!("{prefix}.disk_busy_mean"), m, "ratio");
    }
    let rows = kept
        .iter()
        .map(|s| {
            vec![
                r1(s.t_ns as f64 / 1e6),
                r1(100.0 * s.cpu_busy),
                s.disk_busy.map_or(serde_json::Value::Null, |b| r1(100.0 * b)),
                s.read_bps.map_or(serde_json::Value::Null, |b| r1(b / 1e6)),
            ]
        })
        .collect();
    let c = Column::new;
    let ys = if device.is_some() { vec!["CPU busy".into(), "disk busy".into()] } else { vec!["CPU busy".into()] };
    rec.tables.push(Table {
        name: name.into(),
        title: format!(
            "CPU and disk utilisation during {what}, sampled every {interval} ms (seed 004's Figures 2 and 4); disk: {}",
            device.unwrap_or("none found under the files read")
        ),
        columns: vec![c("time", "ms"), c("CPU busy", "%"), c("disk busy", "%"), c("disk read", "MB/s")],
        rows,
        plot: Some(TablePlot { x: "time".into(), ys, log_x: false, log_y: false }),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_stat_and_diskstats_read_and_bad_lines_are_skipped() {
        let stat = "cpu  100 5 50 800 40 1 2 3 0 0\ncpu0 50 2 25 400 20 0 1 1 0 0\nintr 1 2\n";
        assert_eq!(parse_stat(stat), Some((100 + 5 + 50 + 1 + 2 + 3, 1001)));
        assert_eq!(parse_stat("cpu  x y\n"), None);
        assert_eq!(parse_stat(""), None);
        let disk = " 253       0 vda 1000 10 20000 500 300 5 4000 200 0 650 700 0 0 0 0\n 253       1 vda1 900 9 18000 450 290 5 3900 190 0 600 640 0 0 0 0\n";
        assert_eq!(parse_diskstats(disk, "vda1"), Some((18000, 600)));
        assert_eq!(parse_diskstats(disk, "vda"), Some((20000, 650)));
        assert_eq!(parse_diskstats(disk, "sdb"), None);
        assert_eq!(parse_diskstats(" 8 0 sda 1 2 notanumber 4 5 6 7 8 9 10 11\n", "sda"), None);
    }

    #[test]
    fn the_sampler_gives_shares_in_range() {
        let s = Sampler::start(None, 1);
        let t = std::time::Instant::now();
        while t.elapsed() < std::time::Duration::from_millis(300) {
            std::hint::black_box(0u64);
        }
        let v = s.finish();
        assert!(!v.is_empty());
        assert!(v.iter().all(|x| (0.0..=1.0).contains(&x.cpu_busy) && x.read_bps.is_none()));
        assert!(v.windows(2).all(|w| w[0].t_ns < w[1].t_ns));
    }
}
