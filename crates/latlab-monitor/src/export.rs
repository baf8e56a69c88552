//! What `latlab monitor --metrics-listen` serves: the closed windows added up per probe, in
//! the OpenMetrics text format (encoded by `prometheus-client`), and `/healthz`. Metrics:
//!
//! - `latlab_monitor_latency_seconds` — histogram of every sample of every closed window, with
//!   the monitor's fixed buckets (1-2-5 from 1 µs to 10 s);
//! - `latlab_monitor_window_max_seconds`, `latlab_monitor_window_p99_seconds` — gauges of the
//!   last closed window, labelled with its schedule state too;
//! - `latlab_monitor_window_end_timestamp_seconds` — when that window closed;
//! - `latlab_monitor_missed_pulses_total`, `latlab_monitor_lost_packets_total`,
//!   `latlab_monitor_windows_total` — counters;
//! - `latlab_monitor_worst_per_hour_seconds` — the worst case per hour so far (the latency
//!   exceeded on average once an hour), labelled `probability_per_hour` (that it is exceeded in
//!   a given hour: 0.632) and `bound` (`estimate`, `lower_95`, `upper_95`); absent while the
//!   data do not support one (too short a run, a tail that does not fit).
//!
//! Every series is labelled `probe` and `host`. Counts start from zero when the process
//! starts (Prometheus reads a restart as a counter reset); the database keeps every window.

use crate::window::BUCKETS_NS;
use latlab_model::window::WindowRow;
use prometheus_client::encoding::{DescriptorEncoder, NoLabelSet};
use prometheus_client::metrics::MetricType;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// One probe's totals and its last window.
#[derive(Debug, Clone, Default)]
struct ProbeTotals {
    buckets: Vec<u64>,
    count: u64,
    sum_ns: u128,
    missed: u64,
    lost: u64,
    windows: u64,
    last: Option<WindowRow>,
    /// Every window's largest samples (its other fields, not its buckets): the tail.
    tails: Vec<WindowRow>,
    /// The worst case per hour as of this many windows; fitted when scraped (outside the
    /// lock), at most once per window.
    worst: Option<(usize, Option<Bounds>)>,
}

/// A worst case per hour: (estimate, lower, upper) in ns, the upper end absent when open.
type Bounds = (f64, f64, Option<f64>);

impl ProbeTotals {
    /// Whether the worst case per hour needs fitting again (a window was added since).
    fn stale(&self) -> bool {
        self.worst.as_ref().is_none_or(|w| w.0 != self.tails.len())
    }
}

/// The worst case per hour of `tails` (a probe's windows).
fn fit_worst(tails: &[WindowRow]) -> Option<Bounds> {
    let refs: Vec<&WindowRow> = tails.iter().collect();
    latlab_model::worst::per_hour_windows(&refs).ok().map(|(_, w)| (w.level, w.lo, w.hi))
}

/// The exported state, shared between the monitor (which adds windows) and the server.
#[derive(Debug, Clone)]
pub struct Exported {
    host: String,
    probes: Arc<Mutex<BTreeMap<String, ProbeTotals>>>,
}

impl Exported {
    /// Nothing yet, for `host`.
    pub fn new(host: &str) -> Self {
        Self { host: host.to_string(), probes: Arc::default() }
    }

    /// Add a closed window.
    pub fn add(&self, w: &WindowRow) {
        let mut probes = self.probes.lock().unwrap_or_else(|p| p.into_inner());
        let p = probes.entry(w.probe.clone()).or_default();
        if p.buckets.len() < w.buckets.len() {
            p.buckets.resize(w.buckets.len(), 0);
        }
        for (t, b) in p.buckets.iter_mut().zip(&w.buckets) {
            *t += *b as u64;
        }
        p.count += w.count as u64;
        p.sum_ns += w.sum_ns as u128;
        p.missed += w.missed as u64;
        p.lost += w.lost as u64;
        p.windows += 1;
        p.last = Some(w.clone());
        if w.probe != "idle" {
            p.tails.push(WindowRow { buckets: Vec::new(), ..w.clone() });
        }
    }

    /// The OpenMetrics text of everything added so far.
    pub fn text(&self) -> String {
        let mut registry = prometheus_client::registry::Registry::default();
        registry.register_collector(Box::new(self.clone()));
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &registry).expect("writing to a String");
        out
    }
}

fn secs(ns: f64) -> f64 {
    ns / 1e9
}

impl prometheus_client::collector::Collector for Exported {
    fn encode(&self, mut enc: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        // The worst case per hour is fitted outside the lock (a fit takes tens of
        // milliseconds), so the monitor adding a window never waits for a scrape.
        let todo: Vec<(String, usize, Vec<WindowRow>)> = {
            let probes = self.probes.lock().unwrap_or_else(|p| p.into_inner());
            probes.iter().filter(|(_, p)| p.stale()).map(|(n, p)| (n.clone(), p.tails.len(), p.tails.clone())).collect()
        };
        let fitted: Vec<(String, usize, Option<Bounds>)> =
            todo.into_iter().map(|(n, len, tails)| (n, len, fit_worst(&tails))).collect();
        let mut probes = self.probes.lock().unwrap_or_else(|p| p.into_inner());
        for (n, len, r) in fitted {
            if let Some(p) = probes.get_mut(&n) {
                p.worst = Some((len, r));
            }
        }
        let labels =
            |probe: &str| vec![("probe".to_string(), probe.to_string()), ("host".to_string(), self.host.clone())];
        {
            let help = "wake-up latency from the intended time, every sample of every closed window";
            let mut m = enc.encode_descriptor("latlab_monitor_latency_seconds", help, None, MetricType::Histogram)?;
            for (name, p) in probes.iter() {
                let bounds = BUCKETS_NS.iter().map(|&b| secs(b as f64)).chain([f64::INFINITY]);
                let buckets: Vec<(f64, u64)> = bounds.zip(p.buckets.iter().copied()).collect();
                let l = labels(name);
                m.encode_family(&l)?.encode_histogram::<NoLabelSet>(secs(p.sum_ns as f64), p.count, &buckets, None)?;
            }
        }
        for (metric, help, value) in [
            ("latlab_monitor_missed_pulses", "pulses missed (a deadline passed while the probe was late)", 0),
            ("latlab_monitor_lost_packets", "packets lost", 1),
            ("latlab_monitor_windows", "windows closed", 2),
        ] {
            let mut m = enc.encode_descriptor(metric, help, None, MetricType::Counter)?;
            for (name, p) in probes.iter() {
                let v = [p.missed, p.lost, p.windows][value];
                let l = labels(name);
                m.encode_family(&l)?.encode_counter::<NoLabelSet, u64, f64>(&v, None)?;
            }
        }
        for (metric, help, pick) in [
            ("latlab_monitor_window_max_seconds", "largest latency of the last closed window", 0),
            ("latlab_monitor_window_p99_seconds", "99th percentile of the last closed window", 1),
            ("latlab_monitor_window_end_timestamp_seconds", "when the last window closed (Unix time)", 2),
        ] {
            let mut m = enc.encode_descriptor(metric, help, None, MetricType::Gauge)?;
            for (name, p) in probes.iter() {
                let Some(w) = &p.last else { continue };
                let v = secs([w.max_ns, w.p99_ns, w.end_ns][pick] as f64);
                let mut l = labels(name);
                if pick < 2 {
                    l.push(("state".to_string(), w.state.clone()));
                }
                m.encode_family(&l)?.encode_gauge(&v)?;
            }
        }
        {
            let help = "worst case per hour: the latency exceeded on average once an hour, with its 95 % interval (bound), fitted on the run's tail so far; absent when the data do not support it";
            let mut m =
                enc.encode_descriptor("latlab_monitor_worst_per_hour_seconds", help, None, MetricType::Gauge)?;
            let probability = format!("{:.3}", 1.0 - (-latlab_model::defaults::WORST_PER_HOUR).exp());
            for (name, p) in probes.iter() {
                let Some((level, lo, hi)) = p.worst.as_ref().and_then(|w| w.1) else { continue };
                for (bound, v) in [("estimate", Some(level)), ("lower_95", Some(lo)), ("upper_95", hi)] {
                    let Some(v) = v else { continue };
                    let mut l = labels(name);
                    l.push(("probability_per_hour".to_string(), probability.clone()));
                    l.push(("bound".to_string(), bound.to_string()));
                    m.encode_family(&l)?.encode_gauge(&secs(v))?;
                }
            }
        }
        Ok(())
    }
}

/// Serve `/metrics` and `/healthz` on `server` until `stop()` (checked every 100 ms).
pub fn serve(server: &tiny_http::Server, exported: &Exported, stop: &dyn Fn() -> bool) {
    let header = |v: &str| tiny_http::Header::from_bytes(&b"Content-Type"[..], v.as_bytes()).expect("a valid header");
    while !stop() {
        let Ok(Some(req)) = server.recv_timeout(std::time::Duration::from_millis(100)) else { continue };
        let path = req.url().split('?').next().unwrap_or("").to_string();
        let resp = match path.as_str() {
            "/metrics" => tiny_http::Response::from_string(exported.text())
                .with_header(header("application/openmetrics-text; version=1.0.0; charset=utf-8")),
            "/healthz" => tiny_http::Response::from_string("ok\n").with_header(header("text/plain; charset=utf-8")),
            _ => tiny_http::Response::from_string("latlab monitor serves /metrics and /healthz\n")
                .with_status_code(404)
                .with_header(header("text/plain; charset=utf-8")),
        };
        let _ = req.respond(resp);
    }
}

/// A metrics server on its own thread, stopped on drop.
pub struct Serving {
    /// Where it listens.
    pub addr: std::net::SocketAddr,
    stop: Arc<std::sync::atomic::AtomicBool>,
    handle: Option<std::thread::JoinHandle<()>>,
}

/// Serve `exported` on `addr` from a thread of its own.
pub fn spawn(addr: &str, exported: Exported) -> Result<Serving, crate::error::MonitorError> {
    let server = tiny_http::Server::http(addr)
        .map_err(|e| crate::error::MonitorError::system(format!("cannot listen on {addr}"), e))?;
    let bound = server
        .server_addr()
        .to_ip()
        .ok_or_else(|| crate::error::MonitorError::Config(format!("{addr} is not an IP address").into()))?;
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let s2 = stop.clone();
    let handle = std::thread::Builder::new()
        .name("latlab-metrics".into())
        .spawn(move || serve(&server, &exported, &|| s2.load(std::sync::atomic::Ordering::Relaxed)))
        .map_err(|e| crate::error::MonitorError::system("starting the metrics thread".to_string(), e))?;
    Ok(Serving { addr: bound, stop, handle: Some(handle) })
}

impl Drop for Serving {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(start: i64, buckets: Vec<i64>, max: i64) -> WindowRow {
        let count = buckets.iter().sum();
        WindowRow {
            probe: "rt".into(),
            start_ns: start,
            end_ns: start + 300_000_000_000,
            state: "idle".into(),
            count,
            sum_ns: 12_000 * count,
            min_ns: 900,
            p50_ns: 11_000,
            p99_ns: 19_000,
            p999_ns: 20_000,
            max_ns: max,
            missed: 2,
            lost: 0,
            buckets,
            tops: Vec::new(),
        }
    }

    #[test]
    fn the_text_is_openmetrics_with_cumulative_buckets_counters_and_gauges() {
        let e = Exported::new("board-7");
        let mut b = vec![0i64; BUCKETS_NS.len() + 1];
        (b[0], b[3], b[4]) = (1, 5, 4);
        e.add(&window(0, b.clone(), 19_500));
        e.add(&window(300_000_000_000, b, 25_000));
        let t = e.text();
        assert!(t.ends_with("# EOF\n"), "{t}");
        assert!(t.contains("# TYPE latlab_monitor_latency_seconds histogram"), "{t}");
        assert!(t.contains("latlab_monitor_latency_seconds_count{probe=\"rt\",host=\"board-7\"} 20"), "{t}");
        // Cumulative: ≤1 µs 2, ≤10 µs 12, ≤20 µs 20, and every bucket after.
        assert!(
            t.contains("latlab_monitor_latency_seconds_bucket{le=\"0.000001\",probe=\"rt\",host=\"board-7\"} 2"),
            "{t}"
        );
        assert!(
            t.contains("latlab_monitor_latency_seconds_bucket{le=\"0.00001\",probe=\"rt\",host=\"board-7\"} 12"),
            "{t}"
        );
        assert!(
            t.contains("latlab_monitor_latency_seconds_bucket{le=\"+Inf\",probe=\"rt\",host=\"board-7\"} 20"),
            "{t}"
        );
        assert!(t.contains("latlab_monitor_missed_pulses_total{probe=\"rt\",host=\"board-7\"} 4"), "{t}");
        assert!(t.contains("latlab_monitor_windows_total{probe=\"rt\",host=\"board-7\"} 2"), "{t}");
        assert!(
            t.contains("latlab_monitor_window_max_seconds{probe=\"rt\",host=\"board-7\",state=\"idle\"} 0.000025"),
            "{t}"
        );
        assert!(t.contains("latlab_monitor_window_end_timestamp_seconds{probe=\"rt\",host=\"board-7\"} 600.0"), "{t}");
    }

    #[test]
    fn the_worst_case_per_hour_is_a_gauge_with_its_probability_and_bounds() {
        // Windows of 10,000 wake-ups (1 ms apart) of a known exponential tail, each keeping its
        // largest samples as the monitor's windows do.
        let x = latlab_model::synth::exponential_tail(200_000);
        let e = Exported::new("h");
        let mut rows = Vec::new();
        for (k, c) in x.chunks(10_000).enumerate() {
            let mut w = crate::window::Window::new(0, 1, "idle");
            for &v in c {
                w.record(v);
            }
            let start = k as i64 * 10_000_000_000;
            let mut row = window(start, vec![c.len() as i64], w.max_ns as i64);
            (row.end_ns, row.tops) =
                (start + 10_000_000_000, crate::window::Window::tops_in_order(&w.tops[..w.tops_len]));
            e.add(&row);
            rows.push(row);
        }
        let t = e.text();
        let refs: Vec<&WindowRow> = rows.iter().collect();
        let (_, w) = latlab_model::worst::per_hour_windows(&refs).expect("an exponential tail is fitted");
        let at = |bound: &str| {
            format!(
                "latlab_monitor_worst_per_hour_seconds{{probe=\"rt\",host=\"h\",probability_per_hour=\"0.632\",bound=\"{bound}\"}}"
            )
        };
        assert!(t.contains("# TYPE latlab_monitor_worst_per_hour_seconds gauge"), "{t}");
        let line = t.lines().find(|l| l.starts_with(&at("estimate"))).unwrap_or_else(|| panic!("{t}"));
        let v: f64 = line.rsplit(' ').next().unwrap().parse().unwrap();
        assert!((v - w.level / 1e9).abs() < 1e-12, "{line} against {}", w.level);
        assert!(t.contains(&at("lower_95")), "{t}");
        // Windows without their largest samples (stored before they were kept): no gauge.
        let old = Exported::new("h");
        old.add(&window(0, vec![1; BUCKETS_NS.len() + 1], 1_000));
        assert!(!old.text().contains("latlab_monitor_worst_per_hour_seconds{"));
    }

    #[test]
    fn metrics_and_healthz_are_served_over_http() {
        use std::io::{Read, Write};
        let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
        let addr = server.server_addr().to_ip().unwrap();
        let e = Exported::new("h");
        e.add(&window(0, vec![1; BUCKETS_NS.len() + 1], 1_000));
        let stop = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| serve(&server, &e, &|| stop.load(std::sync::atomic::Ordering::Relaxed)));
            let get = |path: &str| {
                let mut c = std::net::TcpStream::connect(addr).unwrap();
                write!(c, "GET {path} HTTP/1.0\r\nHost: x\r\n\r\n").unwrap();
                let mut r = String::new();
                c.read_to_string(&mut r).unwrap();
                r
            };
            let m = get("/metrics");
            assert!(m.starts_with("HTTP/1.0 200") || m.starts_with("HTTP/1.1 200"), "{m}");
            assert!(m.contains("application/openmetrics-text") && m.contains("latlab_monitor_windows_total"), "{m}");
            assert!(get("/healthz").ends_with("ok\n"));
            assert!(get("/nope").contains(" 404 "));
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        });
    }

    /// The Grafana dashboard in the repository queries only what latlab exports: every metric
    /// name in every query is a series of the exposition, and every label it filters or groups
    /// by is one the series carry.
    #[test]
    fn the_grafana_dashboard_queries_only_metrics_and_labels_latlab_exports() {
        let dash: serde_json::Value =
            serde_json::from_str(include_str!("../../../dashboards/latlab-monitor.json")).expect("valid JSON");
        let e = Exported::new("h");
        e.add(&window(0, vec![1; BUCKETS_NS.len() + 1], 1_000));
        let text = e.text();
        let mut names = std::collections::BTreeSet::new();
        let mut labels = std::collections::BTreeSet::new();
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let (name, rest) = line.split_once('{').unwrap_or((line.split(' ').next().unwrap(), ""));
            names.insert(name.to_string());
            for pair in rest.split('}').next().unwrap_or("").split(',') {
                if let Some((k, _)) = pair.split_once('=') {
                    labels.insert(k.to_string());
                }
            }
        }
        fn exprs(v: &serde_json::Value, out: &mut Vec<String>) {
            match v {
                serde_json::Value::Object(m) => {
                    for (k, x) in m {
                        match (k.as_str(), x) {
                            ("expr" | "definition", serde_json::Value::String(s)) => out.push(s.clone()),
                            _ => exprs(x, out),
                        }
                    }
                }
                serde_json::Value::Array(a) => a.iter().for_each(|x| exprs(x, out)),
                _ => {}
            }
        }
        let mut found = Vec::new();
        exprs(&dash, &mut found);
        assert!(found.len() >= 8, "the dashboard has {} queries", found.len());
        let ident = |s: &str| -> Vec<String> {
            s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map(str::to_string).collect()
        };
        let mut used_metrics = std::collections::BTreeSet::new();
        for q in &found {
            let metrics: Vec<String> = ident(q).into_iter().filter(|w| w.starts_with("latlab_")).collect();
            assert!(!metrics.is_empty(), "a query without a latlab metric: {q}");
            for m in metrics {
                assert!(names.contains(&m), "the dashboard queries {m}, which latlab does not export ({names:?})");
                used_metrics.insert(m);
            }
            // Labels in matchers ({host=~…}) and in `by (…)` groupings.
            for part in q.split('{').skip(1) {
                for m in part.split('}').next().unwrap_or("").split(',') {
                    let k = m.split(['=', '!', '~']).next().unwrap_or("").trim();
                    assert!(k.is_empty() || labels.contains(k), "label {k} in {q} is not exported ({labels:?})");
                }
            }
            for part in q.split("by (").skip(1) {
                for k in part.split(')').next().unwrap_or("").split(',') {
                    assert!(labels.contains(k.trim()), "grouping by {} in {q}: not an exported label", k.trim());
                }
            }
        }
        // What the issue asks the dashboard to show: latency heat map, window maxima, missed
        // pulses, lost packets.
        for m in [
            "latlab_monitor_latency_seconds_bucket",
            "latlab_monitor_window_max_seconds",
            "latlab_monitor_missed_pulses_total",
            "latlab_monitor_lost_packets_total",
        ] {
            assert!(used_metrics.contains(m), "the dashboard does not show {m}");
        }
        assert!(found.iter().any(|q| q.contains("latlab_monitor_latency_seconds_bucket")));
        let heat = dash["panels"].as_array().unwrap().iter().any(|p| p["type"] == "heatmap");
        assert!(heat, "no heat map panel");
    }
}
