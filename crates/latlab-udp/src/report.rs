//! Turns a probe trace into the run record: metrics (documented in
//! `docs/experiments/udp.md`), series, the burst verdict, the de-jitter curve and the
//! seed 002 paper rows.

use crate::UdpConfig;
use crate::analysis::{self, Trace};
use crate::playout::{self, PlayoutLog};
use crate::probe::ProbeCounts;
use latlab_model::numfmt::sig;
use latlab_model::record::{Column, PaperRow, RunRecord, Series, Table, TablePlot, fmt_ns};
use latlab_model::stats::{self, delay};
use latlab_model::verdict::Judgement;

mod paper;

/// Seed 002: the receiver's gaps before each burst, ms — the Omnia 7's ~1,230 and the HTC
/// Mozart's ~1,020, whatever the send interval. Rows and figures read them.
pub const OMNIA_GAP_MS: f64 = 1230.0;
/// See [`OMNIA_GAP_MS`].
pub const MOZART_GAP_MS: f64 = 1020.0;

/// `1230` as the seed writes it, `1,230`.
fn thousands(v: f64) -> String {
    let n = v.round() as u64;
    if n >= 1000 { format!("{},{:03}", n / 1000, n % 1000) } else { n.to_string() }
}

/// Raw series longer than this are stored thinned (every k-th sample) to keep the database
/// and report small; every summary is computed from all samples.
pub const SERIES_CAP: usize = 1_000_000;

/// Store `values` (thinned above [`SERIES_CAP`]) as a series, then sort them in place and
/// record their summary; returns the sorted values. Sorting in place keeps the analysis
/// within a few bytes per packet beyond the trace.
fn summary(rec: &mut RunRecord, name: &str, description: &str, mut values: Vec<i64>) -> Vec<i64> {
    let step = values.len().div_ceil(SERIES_CAP).max(1);
    let description = if step > 1 {
        format!("{description} (every {step}th of {} samples stored; statistics use all)", values.len())
    } else {
        description.to_string()
    };
    rec.series.push(Series {
        name: name.into(),
        unit: "ns".into(),
        description,
        values: values.iter().step_by(step).copied().collect(),
    });
    values.sort_unstable();
    if let Some(s) = stats::summarize_sorted(&values) {
        rec.summary_metrics(name, &s, "ns");
    }
    values
}

/// Fill `rec` from `t`.
pub fn fill(rec: &mut RunRecord, cfg: &UdpConfig, t: &Trace, c: &ProbeCounts, log: Option<&PlayoutLog>) {
    let n = t.sent();
    let received = (0..n).filter(|&k| t.received(k)).count();
    let got = |k: &usize| t.received(*k);
    let iv = t.interval_ns;
    rec.metric("packets.sent", n as u64, "count");
    rec.metric("packets.received", received as u64, "count");
    rec.metric("loss.count", (n - received) as u64, "count");
    rec.metric("loss.ratio", if n == 0 { 0.0 } else { (n - received) as f64 / n as f64 }, "ratio");
    rec.metric("loss.wait", cfg.wait_ns, "ns");
    rec.metric("dup.count", t.duplicates, "count");
    rec.metric("timer.missed", c.timer_missed, "count");
    if n >= 2 {
        let span = t.sent_mono[n - 1].saturating_sub(t.sent_mono[0]).max(1);
        rec.metric("send.rate", (n - 1) as f64 * 1e9 / span as f64, "Hz");
    }
    rec.metric("send.errors", c.send_errors, "count");
    if let Some(sl) = c.timer_slack_ns {
        rec.metric("sender.timer_slack", sl, "ns");
    }
    rec.metric("dropped.malformed", c.malformed, "count");
    rec.metric("dropped.unauthenticated", c.unauthenticated, "count");
    rec.metric("dropped.foreign", c.foreign, "count");

    // Sender fidelity, and the two gap distributions side by side. One figure at a time:
    // each vector is dropped before the next is built.
    let timer = (0..n).map(|k| t.sent_mono[k] as i64 - (t.start_ns + k as u64 * iv) as i64).collect();
    drop(summary(rec, "timer_error", "sender wake-up lateness from each packet's planned send time", timer));
    let calls: Vec<i64> = t.send_call.iter().take(n).copied().collect();
    drop(summary(rec, "send_call", "time from calling sendto to its return, per packet", calls));
    let send_gap = (1..n).map(|k| t.sent_mono[k] as i64 - t.sent_mono[k - 1] as i64).collect();
    let send_sorted = summary(rec, "send_gap", "gap between consecutive sends (sender clock)", send_gap);
    let send_p50 = stats::percentile_sorted(&send_sorted, 50.0);
    drop(send_sorted);
    let recv_gap = analysis::forward_pairs(t).map(|p| p.r).collect();
    let recv_sorted =
        summary(rec, "recv_gap", "gap between consecutive arrivals at the reflector (kernel timestamps)", recv_gap);
    let recv_p50 = stats::percentile_sorted(&recv_sorted, 50.0);
    drop(recv_sorted);

    // Round trip and one-way.
    let rtt = (0..n).filter(got).map(|k| t.rx_client[k] - t.sent_wall[k]).collect();
    drop(summary(rec, "rtt", "round-trip time: reply arrival minus send (both sender realtime)", rtt));
    let owd = |k: usize| t.refl_rx[k] - t.sent_wall[k];
    if t.same_clock {
        let v = (0..n).filter(got).map(owd).collect();
        drop(summary(rec, "owd", "one-way delay sender → reflector (same clock: loopback)", v));
    }
    let fwd = |k: usize| (t.sent_wall[k], t.refl_rx[k]);
    let mut pdv: Vec<i64> = (0..n).filter(got).map(owd).collect();
    delay::rfc5481_pdv_in_place(&mut pdv);
    let pdv_sorted = summary(rec, "pdv", "forward delay minus its minimum (RFC 5481 PDV; needs no clock sync)", pdv);
    let ipdv = delay::rfc3393_ipdv_iter((0..n).map(|k| t.received(k).then(|| fwd(k)))).collect();
    drop(summary(rec, "ipdv", "forward inter-packet delay variation, consecutive packets (RFC 3393, signed)", ipdv));
    let (re, arrived, jitter) = analysis::arrival_order_stats(t);
    if arrived > 0 {
        rec.metric("jitter.rfc3550", jitter, "ns");
    }
    rec.metric("reorder.count", re, "count");
    rec.metric("reorder.ratio", if arrived == 0 { 0.0 } else { re as f64 / arrived as f64 }, "ratio");

    // Bursts.
    let b = analysis::detect_bursts_iter(analysis::forward_pairs(t), iv, send_p50, recv_p50);
    rec.metric("burst.detected", b.detected() as i64, "bool");
    rec.metric("burst.pairs", b.pairs, "count");
    rec.metric("burst.coalesced", b.coalesced, "count");
    rec.metric("burst.coalesced_ratio", b.coalesced_ratio(), "ratio");
    rec.metric("burst.count", b.bursts.len() as u64, "count");
    let sizes: Vec<i64> = b.bursts.iter().map(|x| x.size as i64).collect();
    if let Some(s) = stats::summarize(&sizes) {
        rec.metric("burst.size.p50", s.p50, "count");
        rec.metric("burst.size.max", s.max, "count");
    }
    let holds: Vec<i64> = b.bursts.iter().filter_map(|x| x.hold_gap_ns).collect();
    if let Some(s) = stats::summarize(&holds) {
        rec.metric("burst.hold_gap.p50", s.p50, "ns");
        rec.metric("burst.hold_gap.max", s.max, "ns");
    }
    if let Some(p) = b.release_period_ns {
        rec.metric("burst.release_period", p.round() as i64, "ns");
    }
    rec.tables.push(Table {
        name: "udp.verdict".into(),
        title: "Burst detection (seed 002's pattern)".into(),
        columns: vec![Column::new("verdict", "")],
        rows: vec![vec![b.verdict.clone().into()]],
        plot: None,
    });
    let t0 = b.bursts.first().map(|x| x.start_ns).unwrap_or(0);
    if !b.bursts.is_empty() {
        rec.tables.push(Table {
            name: "udp.bursts".into(),
            title: format!("Bursts (first {} of {})", b.bursts.len().min(50), b.bursts.len()),
            columns: vec![
                Column::new("start", "ns"),
                Column::new("packets", "count"),
                Column::new("hold gap before", "ns"),
            ],
            rows: b
                .bursts
                .iter()
                .take(50)
                .map(|x| {
                    vec![
                        (x.start_ns - t0).into(),
                        x.size.into(),
                        x.hold_gap_ns.map(serde_json::Value::from).unwrap_or_default(),
                    ]
                })
                .collect(),
            plot: None,
        });
    }

    // De-jitter cost.

    if let (Some(p99), Some(max)) = (stats::percentile_sorted(&pdv_sorted, 99.0), pdv_sorted.last()) {
        rec.metric("dejitter.delay_for_1pct_late", p99, "ns");
        rec.metric("dejitter.delay_for_0pct_late", *max, "ns");
        let curve = analysis::dejitter_curve(&pdv_sorted, &analysis::dejitter_delays(*max));
        rec.metric("dejitter.late_ratio_at_0", curve[0].1, "ratio");
        rec.tables.push(Table {
            name: "udp.dejitter".into(),
            title: "De-jitter cost: packets too late when played out by sender timestamp after a playout delay".into(),
            columns: vec![Column::new("playout_delay", "ns"), Column::new("late", "ratio")],
            rows: curve.iter().skip(1).map(|(d, f)| vec![(*d).into(), (*f).into()]).collect(),
            plot: Some(TablePlot { x: "playout_delay".into(), ys: vec!["late".into()], log_x: true, log_y: false }),
        });
    }

    match log {
        Some(log) => live_playout(rec, cfg, log, &pdv_sorted),
        None => rec.config("playout", "not measured: the receiver is a remote reflector"),
    }
    let stretch = analysis::stretch(analysis::forward_pairs(t), iv);
    if let Some(g) = stretch.held_p50 {
        rec.metric("recv_gap.held_p50", g, "ns");
    }
    if let Some(m) = stretch.mean {
        rec.metric("recv_gap.interval_pairs_mean", m, "ns");
    }
    paper::paper_rows(rec, cfg, &b, &stretch, &pdv_sorted);
}

/// The receiver's live playout beside what playing on arrival gave the same packets, and
/// beside the offline curve at the same delay.
fn live_playout(rec: &mut RunRecord, cfg: &UdpConfig, log: &PlayoutLog, pdv_sorted: &[i64]) {
    rec.config("playout", cfg.playout.name());
    let (jitter, latency, late) = playout::figures(log);
    let n = log.packets.len();
    // The delay each played packet waited above the fastest packet's transit, in the offline
    // curve's terms.
    let fastest = log.packets.iter().map(|p| p.arrival - p.sent).min().unwrap_or(0);
    let buffered: Vec<i64> = log.packets.iter().filter_map(|p| p.play.map(|t| t - p.sent - fastest)).collect();
    let on_arrival = playout::arrival_jitter(log);
    let arrival_latency: Vec<i64> = log.packets.iter().map(|p| p.arrival - p.sent).collect();
    let j = summary(
        rec,
        "playout.jitter",
        "playout interval error: consecutive played packets' playout gap against their send gap, absolute (the receiver's live player)",
        jitter,
    );
    let l = summary(
        rec,
        "playout.latency",
        "send to playout, same clock (loopback): the latency the listener hears",
        latency,
    );
    let aj = summary(
        rec,
        "arrival.jitter",
        "the same packets' arrival gap against their send gap, absolute (what playing on arrival gives)",
        on_arrival,
    );
    let mut al = arrival_latency;
    al.sort_unstable();
    let mut bd = buffered;
    bd.sort_unstable();
    rec.metric("playout.late.count", late as u64, "count");
    rec.metric("playout.late_ratio", if n == 0 { 0.0 } else { late as f64 / n as f64 }, "ratio");
    rec.metric("playout.delay.final", log.final_delay, "ns");
    rec.metric("playout.delay.max", log.max_delay, "ns");
    rec.metric("playout.overflowed", log.overflowed, "count");
    let p = |v: &[i64], q: f64| stats::percentile_sorted(v, q).map(|x| fmt_ns(x as f64)).unwrap_or_else(|| "-".into());
    let pct = |x: f64| format!("{} %", sig(100.0 * x));
    let mut rows = vec![
        vec![
            "on arrival (the same packets, as they arrived)".into(),
            p(&aj, 50.0).into(),
            p(&aj, 99.0).into(),
            p(&al, 50.0).into(),
            p(&al, 99.0).into(),
            pct(0.0).into(),
        ],
        vec![
            format!("live playout ({})", cfg.playout.name()).into(),
            p(&j, 50.0).into(),
            p(&j, 99.0).into(),
            p(&l, 50.0).into(),
            p(&l, 99.0).into(),
            pct(if n == 0 { 0.0 } else { late as f64 / n as f64 }).into(),
        ],
    ];
    // The offline curve at the live player's median buffer delay: what a fixed delay of the
    // same size would have lost, from the reflector's kernel timestamps.
    if let Some(d) = stats::percentile_sorted(&bd, 50.0) {
        let off = analysis::dejitter_curve(pdv_sorted, &[d]);
        rec.metric("playout.offline_late_ratio_at_live_delay", off[0].1, "ratio");
        rows.push(vec![
            format!("offline curve, a fixed delay of {} (the live median)", fmt_ns(d as f64)).into(),
            "0 (by construction)".into(),
            "0 (by construction)".into(),
            "-".into(),
            "-".into(),
            pct(off[0].1).into(),
        ]);
    }
    let c = Column::new;
    rec.tables.push(Table {
        name: "udp.playout".into(),
        title: "Seed 002's fix, live: the receiver plays packets by sender timestamp after an adaptive delay (grown at once on a late packet, shrunk slowly), against playing them on arrival; interval error is the playout gap against the send gap".into(),
        columns: vec![
            c("player", ""),
            c("interval error p50", ""),
            c("interval error p99", ""),
            c("latency p50", ""),
            c("latency p99", ""),
            c("late, not played", ""),
        ],
        rows,
        plot: None,
    });
}

/// The padded stream (`padded.*`) beside the main one, and seed 002's row that dummy data in
/// the datagrams changes nothing: the same burst verdict, and median arrival gaps within
/// [`PADDED_SAME_GAP`] of each other.
pub fn fill_padded(rec: &mut RunRecord, cfg: &UdpConfig, main: &Trace, padded: &Trace) {
    let Some(size) = cfg.padded_size else { return };
    let iv = cfg.interval_ns;
    let report = |t: &Trace| {
        let pairs: Vec<analysis::Pair> = analysis::forward_pairs(t).collect();
        analysis::detect_bursts(&pairs, iv)
    };
    let (m, p) = (report(main), report(padded));
    let received = (0..padded.sent()).filter(|&k| padded.received(k)).count();
    rec.metric("padded.size", size as u64, "B");
    rec.metric("padded.sent", padded.sent() as u64, "count");
    rec.metric("padded.received", received as u64, "count");
    rec.metric("padded.coalesced_ratio", p.coalesced_ratio(), "ratio");
    if let Some(g) = p.recv_gap_p50 {
        rec.metric("padded.recv_gap_p50", g, "ns");
    }
    let (Some(gm), Some(gp)) = (m.recv_gap_p50, p.recv_gap_p50) else { return };
    let apart = gp as f64 / gm.max(1) as f64 - 1.0;
    let same = m.detected() == p.detected() && apart.abs() <= PADDED_SAME_GAP;
    let burst = |b: &analysis::BurstReport| if b.detected() { "bursts" } else { "no bursts" };
    let j = Judgement::finding(
        same,
        &format!(
            "padding the datagrams changes nothing: the same burst verdict, and median arrival gaps within {} % of each other",
            sig(100.0 * PADDED_SAME_GAP)
        ),
        &format!("{} against {}, gaps {:+.1} % apart", burst(&m), burst(&p), 100.0 * apart),
        "a datagram's size matters on this path: a larger one takes longer to copy or to clock out",
    );
    let relayed = matches!(&cfg.mode, crate::Mode::Loopback { relay: Some(r), .. } if r.hold_every_ns.is_some());
    rec.paper.push(PaperRow {
        seed: "002".into(),
        figure: "dummy data in the datagrams".into(),
        paper_setting: "Samsung Omnia 7, Windows Phone 7.5 Mango, sending UDP to a PC".into(),
        paper_value: "\"adding dummy data to the datagrams to artificially increase the message size\" did not change the phone's behaviour".into(),
        here_value: format!(
            "{} B: {}, median arrival gap {}; padded to {size} B: {}, {}",
            cfg.size.max(latlab_udp_probe::wire::HEADER),
            burst(&m),
            fmt_ns(gm as f64),
            burst(&p),
            fmt_ns(gp as f64)
        ),
        note: format!(
            "a second stream at the same interval ({}) beside the main one, its datagrams padded with dummy data (padded.*)",
            fmt_ns(iv as f64)
        ),
        judgement: if relayed {
            Judgement::self_check("latlab's relay, which holds both streams on its own period", j)
        } else {
            j
        },
    });
}

/// Median arrival gaps of the main and the padded stream within 10 % of each other count as
/// the same: the seed saw no change at all, and a path that padding changes moves them by
/// the time the extra bytes take to copy or send, which on a slow link is most of a gap.
pub const PADDED_SAME_GAP: f64 = 0.10;

/// The metric name of a sweep interval: `ms<N>` for whole milliseconds, `us<N>` otherwise.
pub fn sweep_key(interval_ns: u64) -> String {
    if interval_ns.is_multiple_of(1_000_000) {
        format!("ms{}", interval_ns / 1_000_000)
    } else {
        format!("us{}", interval_ns / 1_000)
    }
}

/// The interval sweep (`interval_sweep.<key>.*`, a table, and seed 002's row that the release
/// period does not depend on the send interval) from the sweep streams' traces.
pub fn fill_sweep(rec: &mut RunRecord, cfg: &UdpConfig, swept: &[(u64, Trace, ProbeCounts)]) {
    let mut rows = Vec::new();
    let mut found: Vec<(u64, analysis::BurstReport)> = Vec::new();
    for (iv, t, _) in swept {
        let pairs: Vec<analysis::Pair> = analysis::forward_pairs(t).collect();
        let b = analysis::detect_bursts(&pairs, *iv);
        let key = format!("interval_sweep.{}", sweep_key(*iv));
        let received = (0..t.sent()).filter(|&k| t.received(k)).count();
        rec.metric(&format!("{key}.sent"), t.sent() as u64, "count");
        rec.metric(&format!("{key}.received"), received as u64, "count");
        rec.metric(&format!("{key}.coalesced_ratio"), b.coalesced_ratio(), "ratio");
        if let Some(g) = b.recv_gap_p50 {
            rec.metric(&format!("{key}.recv_gap_p50"), g, "ns");
        }
        if let Some(g) = b.send_gap_p50 {
            rec.metric(&format!("{key}.send_gap_p50"), g, "ns");
        }
        if let Some(p) = b.release_period_ns {
            rec.metric(&format!("{key}.release_period"), p.round() as i64, "ns");
        }
        rows.push(vec![
            fmt_ns(*iv as f64).into(),
            format!("{received} of {}", t.sent()).into(),
            b.send_gap_p50.map_or("-".into(), |g| fmt_ns(g as f64)).into(),
            b.recv_gap_p50.map_or("-".into(), |g| fmt_ns(g as f64)).into(),
            format!("{:.0} %", b.coalesced_ratio() * 100.0).into(),
            b.release_period_ns.map_or("none".into(), fmt_ns).into(),
            b.verdict.clone().into(),
        ]);
        found.push((*iv, b));
    }
    let c = Column::new;
    rec.tables.push(Table {
        name: "udp.interval_sweep".into(),
        title: format!(
            "Seed 002's interval sweep: streams sent side by side at each interval; the phone released packets every ~{} s (Omnia 7) whatever the interval",
            OMNIA_GAP_MS / 1000.0
        ),
        columns: vec![
            c("send interval", ""),
            c("received", ""),
            c("send gap p50", ""),
            c("receive gap p50", ""),
            c("coalesced", ""),
            c("release period", ""),
            c("verdict", ""),
        ],
        rows,
        plot: None,
    });
    if found.len() < 2 {
        return;
    }
    let what = match &cfg.mode {
        crate::Mode::Loopback { relay: Some(_), .. } => "loopback through latlab's hold-and-release relay",
        crate::Mode::Loopback { .. } => "loopback",
        crate::Mode::Probe { .. } => "to a remote reflector",
    };
    // Only the streams that lasted long enough to show the seed's pattern are judged.
    let lasted = cfg.duration_ns as f64 / 1e9;
    type Stream<'a> = &'a (u64, analysis::BurstReport);
    let (judged, short): (Vec<Stream>, Vec<Stream>) =
        found.iter().partition(|(iv, _)| time_to_show_the_pattern(*iv).is_some_and(|t| t <= lasted));
    let periods: Vec<f64> =
        judged.iter().filter_map(|(_, b)| b.detected().then_some(b.release_period_ns).flatten()).collect();
    let same = periods.len() == judged.len() && {
        let (lo, hi) = periods.iter().fold((f64::MAX, 0.0f64), |(lo, hi), &p| (lo.min(p), hi.max(p)));
        hi <= lo * (1.0 + SWEEP_SAME_PERIOD)
    };
    let here = found
        .iter()
        .map(|(iv, b)| {
            let got = match (b.detected(), b.release_period_ns) {
                (true, Some(p)) => format!("released every {}", fmt_ns(p)),
                (true, None) => "irregular bursts".into(),
                (false, _) => {
                    format!("no bursts, gaps {}", b.recv_gap_p50.map_or("n/a".into(), |g| fmt_ns(g as f64)))
                }
            };
            format!("{}: {got}", fmt_ns(*iv as f64))
        })
        .collect::<Vec<_>>()
        .join("; ");
    let intervals = judged.iter().map(|(iv, _)| fmt_ns(*iv as f64)).collect::<Vec<_>>().join(", ");
    let too_short = short
        .iter()
        .map(|(iv, _)| match time_to_show_the_pattern(*iv) {
            Some(t) => format!("{} (needs {})", fmt_ns(*iv as f64), fmt_ns(t * 1e9)),
            None => format!("{} (at or above the seed's release period: never)", fmt_ns(*iv as f64)),
        })
        .collect::<Vec<_>>()
        .join(", ");
    let check = Judgement::finding(
        same,
        &format!(
            "the receiver sees the same release period at every send interval ({intervals}; held to periods within {} % of each other)",
            sig(SWEEP_SAME_PERIOD * 100.0)
        ),
        &here,
        "this sender is Linux, whose UDP stack sends each datagram when asked: the receiver's gaps follow each stream's own interval",
    );
    let replayed = matches!(&cfg.mode, crate::Mode::Loopback { relay: Some(r), .. } if r.hold_every_ns.is_some());
    rec.paper.push(PaperRow {
        seed: "002".into(),
        figure: "release period against send interval".into(),
        paper_setting: "Samsung Omnia 7, Windows Phone 7.5 Mango, sending at 1,000, 500 and 100 ms".into(),
        paper_value: format!(
            "the same ~{} ms release at every interval (\"the oscillation between ~1200 and 0 milliseconds, just like before\")",
            thousands(OMNIA_GAP_MS)
        ),
        here_value: here,
        note: format!(
            "{what}; one stream per interval, sent side by side (interval_sweep.*); an interval is judged when its stream lasted long enough for the seed's ~{} ms release to show three times at it{}",
            thousands(OMNIA_GAP_MS),
            if too_short.is_empty() { String::new() } else { format!(" (left out, the run lasted {}: {too_short})", fmt_ns(lasted * 1e9)) }
        ),
        judgement: if judged.len() < 2 {
            Judgement::not_comparable(&format!(
                "{} of the swept intervals lasted long enough to show the seed's pattern ({}); run longer, e.g. `latlab udp --duration 30s --sweep-intervals 1s,500ms,100ms`",
                judged.len(),
                if too_short.is_empty() { "none swept".to_string() } else { format!("too short: {too_short}") }
            ))
        } else if replayed {
            Judgement::self_check("latlab's relay releasing on its own configured period, whatever the interval", check)
        } else {
            check
        },
    });
}

/// How long (seconds) a stream sent every `iv_ns` must last for the seed's pattern (packets
/// released every [`OMNIA_GAP_MS`]) to show: a release holds two packets or more when two
/// sends fall inside one release period, which at an interval below the period happens at a
/// rate of 1/iv − 1/P; the detector needs three such releases to name a period. `None`: at or
/// above the period it never shows.
pub fn time_to_show_the_pattern(iv_ns: u64) -> Option<f64> {
    let (iv, p) = (iv_ns as f64 / 1e9, OMNIA_GAP_MS / 1e3);
    (iv < p).then(|| 3.0 / (1.0 / iv - 1.0 / p))
}

/// Release periods within this fraction of each other count as the same: 10 %, the spread
/// between the seed's 1,230 ms (Omnia 7) and 1,020 ms (Mozart) is 20 %, so two phones would
/// not be taken for one.
pub const SWEEP_SAME_PERIOD: f64 = 0.10;
