//! A monitor run's record: the line said as each window closes, and at the end the summary of
//! every stored window per probe (metrics, each window's maximum as a series) with OSADL's two
//! long-run tables.

use crate::defaults as d;
use crate::engine::Totals;
use crate::probes::EchoTotals;
use crate::settings::{MonitorError, Probe};
use crate::window::BUCKETS_NS;
use latlab_model::numfmt::sig;
use latlab_model::record::{Column, RunRecord, RunStatus, Series, Table, TablePlot};
use latlab_model::sink::RunSink;
use latlab_model::window::WindowRow;
use latlab_sys::platform::Capabilities;
use latlab_sys::record::Finish;

/// The line said when a window closes.
pub(crate) fn window_line(n: u64, w: &WindowRow) -> String {
    let us = |v: i64| v as f64 / 1e3;
    match w.probe.as_str() {
        "idle" => format!(
            "monitor: window {n} idle ({}): {} interruptions, {} ms lost, longest {} µs",
            w.state,
            w.count,
            sig(w.sum_ns as f64 / 1e6),
            sig(us(w.max_ns))
        ),
        "udp" => format!(
            "monitor: window {n} udp ({}): {} replies, {} lost, rtt p50 {} µs, p99 {} µs, max {} µs",
            w.state,
            w.count,
            w.lost,
            sig(us(w.p50_ns)),
            sig(us(w.p99_ns)),
            sig(us(w.max_ns))
        ),
        "chain" => format!(
            "monitor: window {n} chain ({}): {} second-level wake-ups, max {} µs, p99 {} µs, {} missed",
            w.state,
            w.count,
            sig(us(w.max_ns)),
            sig(us(w.p99_ns)),
            w.missed
        ),
        _ => format!(
            "monitor: window {n} ({}): {} wake-ups, max {} µs, p99 {} µs, {} missed",
            w.state,
            w.count,
            sig(us(w.max_ns)),
            sig(us(w.p99_ns)),
            w.missed
        ),
    }
}

/// OSADL's two plots of a long run: the maxima (and p99) per window over time, and the
/// histogram of every wake-up with its worst case. Past [`d::PLOT_WINDOWS`] windows, each row
/// holds the largest of as many consecutive windows as keep the rows under it (the maxima are
/// what such a plot is read for).
pub fn long_run_tables(probe: &str, rt: &[&WindowRow]) -> Vec<Table> {
    let Some(first) = rt.first() else { return Vec::new() };
    let per = rt.len().div_ceil(d::PLOT_WINDOWS).max(1);
    // Time in a unit that suits the run's length: seconds, minutes, or hours.
    let span = rt.last().map_or(0, |w| w.end_ns - first.start_ns);
    let (unit, div) = if span >= 7_200_000_000_000 {
        ("h", 3.6e12)
    } else if span >= 120_000_000_000 {
        ("min", 6e10)
    } else {
        ("s", 1e9)
    };
    let rows: Vec<Vec<serde_json::Value>> = rt
        .chunks(per)
        .map(|c| {
            let at = (c[0].start_ns - first.start_ns) as f64 / div;
            let max = c.iter().map(|w| w.max_ns).max().unwrap_or(0);
            let p99 = c.iter().map(|w| w.p99_ns).max().unwrap_or(0);
            let mut states: Vec<&str> = c.iter().map(|w| w.state.as_str()).collect();
            states.dedup();
            let state = if states.len() == 1 { states[0] } else { "mixed" };
            vec![((at * 1e3).round() / 1e3).into(), max.into(), p99.into(), state.into()]
        })
        .collect();
    let every = if per == 1 { String::new() } else { format!(", each point the largest of {per} windows") };
    let windows = Table {
        name: format!("monitor.{probe}.windows"),
        title: format!("{} per window over time (OSADL's maxima plot{every})", capital(what_of(probe))),
        columns: vec![
            Column::new("time since start", unit),
            Column::new("max", "ns"),
            Column::new("p99", "ns"),
            Column::new("state", ""),
        ],
        rows,
        plot: Some(TablePlot {
            x: "time since start".into(),
            ys: vec!["max".into(), "p99".into()],
            log_x: false,
            log_y: true,
        }),
    };
    let mut buckets = vec![0i64; BUCKETS_NS.len() + 1];
    for w in rt {
        for (t, b) in buckets.iter_mut().zip(&w.buckets) {
            *t += b;
        }
    }
    let worst = rt.iter().map(|w| w.max_ns).max().unwrap_or(0);
    let total: i64 = buckets.iter().sum();
    let hist_rows = buckets
        .iter()
        .enumerate()
        .filter(|(_, n)| **n > 0)
        .map(|(i, n)| {
            let le = BUCKETS_NS.get(i).map_or_else(|| worst.max(1), |&b| b as i64);
            vec![le.into(), (*n).into()]
        })
        .collect();
    let histogram = Table {
        name: format!("monitor.{probe}.histogram"),
        title: format!(
            "{} over the whole run: {total} samples, worst {}",
            capital(what_of(probe)),
            latlab_model::record::fmt_ns(worst as f64)
        ),
        columns: vec![Column::new("up to", "ns"), Column::new("samples", "count")],
        rows: hist_rows,
        plot: Some(TablePlot { x: "up to".into(), ys: vec!["samples".into()], log_x: true, log_y: true }),
    };
    vec![windows, histogram]
}

/// The run's final record: its settings, what the machine granted, and the summary of every
/// stored window (earlier processes' too, when resumed) per probe, with each window's maximum
/// as a series and the long-run tables.
pub(crate) fn finish(
    store: &mut dyn RunSink,
    id: i64,
    rec: &mut RunRecord,
    caps: Capabilities,
    done: ProbeDone,
    dropped: u64,
) -> Result<(), MonitorError> {
    let windows = store.windows(id)?;
    rec.capabilities = caps.list;
    rec.metrics.clear();
    rec.series.clear();
    rec.tables.clear();
    rec.metric("monitor.windows", windows.len() as u64, "count");
    rec.metric("monitor.windows_dropped", dropped, "count");
    let mut probes: Vec<&str> = windows.iter().map(|w| w.probe.as_str()).collect();
    probes.dedup();
    let mut worst = Vec::new();
    for probe in Probe::ALL.iter().map(|p| p.name()).filter(|p| probes.contains(p)) {
        let ws: Vec<&WindowRow> = windows.iter().filter(|w| w.probe == probe).collect();
        if probe != "idle" {
            // Beside the run's maximum, its worst case per hour, and the check of one fitted on
            // the run's first half against its second. The idle probe's samples are
            // interruptions, not lateness from an intended time: left out.
            let r = latlab_model::worst::per_hour_windows(&ws);
            latlab_model::worst::record_metrics(rec, &format!("monitor.{probe}"), &r);
            let observed = ws.iter().map(|w| w.max_ns).max().unwrap_or(0);
            let check = latlab_model::worst::split_check_windows(&ws);
            latlab_model::worst::record_check(rec, &format!("monitor.{probe}"), &check);
            let mut row = latlab_model::worst::row(&[probe], observed, &r);
            row.push(match &check {
                Ok(c) => format!(
                    "fitted on the first half: {} ns; the second half exceeded it {} time(s), {:.2} expected (p = {:.2}{})",
                    c.worst.level.round(),
                    c.exceeded,
                    c.expected,
                    c.p_value,
                    if c.holds(0.05) { ", holds" } else { ", exceeded more often than stated" }
                ),
                Err(e) => format!("no check: {e}"),
            }
            .into());
            worst.push(row);
        }
        let sum = |f: fn(&WindowRow) -> i64| ws.iter().map(|w| f(w)).sum::<i64>();
        let m = |what: &str| format!("monitor.{probe}.{what}");
        rec.metric(&m("samples"), sum(|w| w.count), "count");
        match probe {
            "rt" | "chain" => rec.metric(&m("missed"), sum(|w| w.missed), "count"),
            "udp" => {
                rec.metric(&m("lost"), sum(|w| w.lost), "count");
                rec.metric(&m("missed"), sum(|w| w.missed), "count");
                let sent = sum(|w| w.count + w.lost);
                rec.metric(
                    &m("loss_fraction"),
                    if sent > 0 { sum(|w| w.lost) as f64 / sent as f64 } else { 0.0 },
                    "ratio",
                );
            }
            _ => {
                let span: i64 = ws.iter().map(|w| w.end_ns - w.start_ns).sum();
                rec.metric(&m("lost_time"), sum(|w| w.sum_ns), "ns");
                rec.metric(&m("lost_fraction"), sum(|w| w.sum_ns) as f64 / span.max(1) as f64, "ratio");
            }
        }
        if let Some(max) = ws.iter().map(|w| w.max_ns).max() {
            rec.metric(&m("max"), max, "ns");
            rec.metric(&m("window_p99_worst"), ws.iter().map(|w| w.p99_ns).max().unwrap_or(0), "ns");
            let mut maxima: Vec<i64> = ws.iter().map(|w| w.max_ns).collect();
            maxima.sort_unstable();
            rec.metric(&m("window_max_median"), maxima[maxima.len() / 2], "ns");
        }
        rec.series.push(Series {
            name: m("window_max"),
            unit: "ns".into(),
            description: format!(
                "largest {} of each window, in time order (OSADL's maxima per window)",
                what_of(probe)
            ),
            values: ws.iter().map(|w| w.max_ns).collect(),
        });
        rec.tables.extend(long_run_tables(probe, &ws));
    }
    if !worst.is_empty() {
        let mut t = latlab_model::worst::table("monitor.worst", &["probe"], worst);
        t.columns.push(Column::new("first half against second", ""));
        rec.tables.push(t);
    }
    if let Some((t, refused)) = done.udp {
        rec.metric("monitor.udp.sent", t.sent, "count");
        rec.metric("monitor.udp.late_or_duplicate", t.late_or_duplicate, "count");
        rec.metric("monitor.udp.refused", refused, "count");
        rec.metric("monitor.udp.send_errors", t.send_errors, "count");
    }
    let samples = done.rt.map_or(0, |t| t.samples) + done.idle.map_or(0, |t| t.samples);
    if windows.is_empty() && samples == 0 {
        rec.warn("no window closed: the run ended before its first window");
    }
    let interrupted = latlab_sys::interrupt::stop_requested();
    rec.finish(if interrupted { RunStatus::Interrupted } else { RunStatus::Complete });
    store.write(Some(id), rec)?;
    Ok(())
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// What a probe's samples are, for titles.
fn what_of(probe: &str) -> &'static str {
    match probe {
        "idle" => "interruption of the idle thread",
        "udp" => "round trip",
        "chain" => "second-level wake-up latency",
        _ => "wake-up latency",
    }
}

/// What each probe's thread reported at its end.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ProbeDone {
    pub(crate) rt: Option<Totals>,
    pub(crate) chain: Option<Totals>,
    pub(crate) idle: Option<Totals>,
    pub(crate) udp: Option<(EchoTotals, u64)>,
}

impl ProbeDone {
    pub(crate) fn or(self, o: Self) -> Self {
        Self {
            rt: self.rt.or(o.rt),
            chain: self.chain.or(o.chain),
            idle: self.idle.or(o.idle),
            udp: self.udp.or(o.udp),
        }
    }
}
