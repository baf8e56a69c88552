//! The studies' figures, redrawn from a run's own data with the paper's points on the same
//! axes wherever the units allow, each with a caption saying what to read from it. A run
//! opens with these; the generic per-series plots are folded under it.
//!
//! The paper's points are quoted from the seeds (`shared/seeds/`, summarised in
//! `shared/PAPERS.md`) with the seed's own setting in the legend; where a seed gives a finding
//! but no number, the caption says so and no point is invented.

use latlab_model::figure::{
    BarGroup, Bars, Chart, Curve, Figure, MinTypMax, RangeGroup, Ranges, Style, Xy, col, col_str, mark, metric, pairs,
    paper_curve, table, unit_of,
};
use latlab_model::record::RunRecord;
use std::collections::BTreeSet;

/// The series of an A/B run's arms (`X.baseline` with `X.remedy`): drawn as one overlay.
pub(super) fn ab_pairs(r: &RunRecord) -> BTreeSet<String> {
    let mut paired = BTreeSet::new();
    for a in &r.series {
        let Some(base) = a.name.strip_suffix(".baseline") else { continue };
        if r.get_series(&format!("{base}.remedy")).is_some() {
            paired.insert(a.name.clone());
            paired.insert(format!("{base}.remedy"));
        }
    }
    paired
}

/// Every figure this run's data can draw, the study's first.
pub(super) fn figures(r: &RunRecord) -> Vec<Figure> {
    let mut out: Vec<Option<Figure>> = vec![fig_001_8(r), fig_001_11(r), fig_002_gaps(r), fig_002_dejitter(r)];
    out.extend([fig_003_4(r), fig_003_banner(r), fig_003_ops(r), fig_003_5(r), fig_003_6(r)]);
    out.extend([fig_000_stages(r), fig_000_speed(r), fig_keys(r), fig_capacity(r)]);
    out.extend([fig_004_launch(r), fig_004_preload(r), fig_004_boot(r), fig_004_gantt(r)]);
    out.extend(fig_ab(r));
    out.extend(fig_monitor(r));
    out.into_iter().flatten().collect()
}

/// Seed 001, Figure 8: pulses delivered per level and the load's progress against the
/// stimulus rate; MF where a level starts missing, SF where the load stops.
fn fig_001_8(r: &RunRecord) -> Option<Figure> {
    let t = table(r, "rt.sweep")?;
    let x = col(t, "rate_hz", None)?;
    let mut curves = Vec::new();
    for (c, label, key) in [
        ("l1_delivered", "level 1 (ISR) pulses delivered", "l1"),
        ("l2_delivered", "level 2 (APP) pulses delivered", "l2"),
        ("load_progress", "load progress", "load"),
    ] {
        if let Some(y) = col(t, c, None) {
            curves.push(Curve::line(label, key, pairs(&x, &y)));
        }
    }
    // Figure 8, loaded: MF-ISR / MF-APP / SF. Drawn at 100 % delivered (MF) and at 0 % load
    // progress (SF), where the figure's definitions put them.
    curves.push(paper_curve(
        "paper, CE 3.0 loaded: MF-ISR 127 kHz, MF-APP 15 kHz (at 100 %), SF 85 kHz (at 0 %)",
        "paper",
        vec![(127e3, 1.0), (15e3, 1.0), (85e3, 0.0)],
    ));
    curves.push(paper_curve(
        "paper, CE .NET loaded: MF-ISR 47 kHz, MF-APP 6 kHz, SF 40 kHz",
        "paper-net",
        vec![(47e3, 1.0), (6e3, 1.0), (40e3, 0.0)],
    ));
    let mut x_marks = Vec::new();
    for (m, label, key) in [
        ("sweep.mf_l1_hz", "MF-ISR here", "l1"),
        ("sweep.mf_l2_hz", "MF-APP here", "l2"),
        ("sweep.sf_hz", "SF here", "load"),
    ] {
        if let Some(v) = metric(r, m) {
            x_marks.push(mark(v, format!("{label}: {}", latlab_model::numfmt::value(v.into(), "Hz")), key));
        }
    }
    let chart = Some(Chart::Xy(Xy {
        x_name: "stimulus rate".into(),
        x_unit: "Hz".into(),
        y_name: "delivered / progress".into(),
        y_unit: "ratio".into(),
        log_x: true,
        y_from_zero: true,
        curves,
        x_marks,
        ..Default::default()
    }));
    Figure::new(
        "fig-001-8",
        "Seed 001, Figure 8: pulses delivered and load progress against the stimulus rate, loaded",
        "Read where each level's line leaves 100 %: that rate is its MF (the vertical lines); where the load's progress falls to 0 is SF (its line). The diamonds are the paper's MF and SF on a StrongARM SA-1110 at 206 MHz with Polygons as the load.",
        vec![chart],
    )
}

/// Figure 11's max / min / latency in µs, as the seed prints them (CE 3.0's APP row gives a
/// latency above its max: quoted, not fixed).
const FIG11: [(&str, &str, [MinTypMax; 2]); 4] = [
    ("unloaded", "l1", [(1.4, 2.5, 5.2), (2.0, 3.0, 5.0)]),
    ("unloaded", "l2", [(14.4, 21.0, 17.6), (24.0, 47.0, 170.0)]),
    ("loaded", "l1", [(2.0, 5.0, 7.0), (2.8, 6.3, 12.2)]),
    ("loaded", "l2", [(16.0, 71.0, 133.0), (46.0, 53.0, 125.0)]),
];

/// Seed 001, Figure 11: start latency min–max with the typical value, per level, unloaded and
/// loaded, this machine beside CE 3.0 and CE .NET.
fn fig_001_11(r: &RunRecord) -> Option<Figure> {
    let t = table(r, "rt.phases")?;
    let (phase, level) = (col_str(t, "phase")?, col_str(t, "level")?);
    let (min, p50, max) = (col(t, "min", None)?, col(t, "p50", None)?, col(t, "max", None)?);
    let here: Vec<Option<(f64, f64, f64)>> = FIG11
        .iter()
        .map(|(ph, lv, _)| {
            let i = (0..phase.len()).find(|&i| phase[i] == *ph && level[i] == *lv)?;
            Some((min[i]?, p50[i]?, max[i]?))
        })
        .collect();
    let paper = |k: usize| FIG11.iter().map(|(_, _, v)| Some((v[k].0 * 1e3, v[k].1 * 1e3, v[k].2 * 1e3))).collect();
    let chart = Some(Chart::Ranges(Ranges {
        categories: vec!["ISR unloaded".into(), "APP unloaded".into(), "ISR loaded".into(), "APP loaded".into()],
        groups: vec![
            RangeGroup { label: "here: min–max, bar at the median".into(), key: "here".into(), values: here },
            RangeGroup {
                label: "paper, CE 3.0: min–max, bar at its latency".into(),
                key: "paper".into(),
                values: paper(0),
            },
            RangeGroup { label: "paper, CE .NET".into(), key: "paper-net".into(), values: paper(1) },
        ],
        y_name: "start latency".into(),
        y_unit: "ns".into(),
        log_y: true,
        ..Default::default()
    }));
    Figure::new(
        "fig-001-11",
        "Seed 001, Figure 11: start latency per level, unloaded and loaded",
        "Read the height of each range (the jitter) and its top (the back wall) against the paper's. Here level 1 is a timer-woken thread and level 2 the thread it wakes; there an ISR and an application thread on a StrongARM SA-1110 at 206 MHz, timed by an oscilloscope at 5 kHz.",
        vec![chart],
    )
}

/// Seed 002: receive gaps over time, as a multiple of the send interval, with the release
/// period the detector found and the gaps the paper's phones showed.
fn fig_002_gaps(r: &RunRecord) -> Option<Figure> {
    let s = r.get_series("recv_gap")?;
    let interval = r.config.get("udp")?.get("interval_ns")?.as_f64()?;
    if interval <= 0.0 || s.values.is_empty() {
        return None;
    }
    let step = s.values.len().div_ceil(crate::defaults::REPORT_CURVE_POINTS).max(1);
    let mut t = 0.0;
    let mut pts = Vec::new();
    for (i, g) in s.values.iter().enumerate() {
        t += *g as f64;
        if i % step == 0 {
            pts.push((t, *g as f64 / interval));
        }
    }
    let mut y_marks = vec![mark(1.0, "the send interval", "here")];
    y_marks.push(mark(1.23, "paper: Omnia 7's gaps, ~1,230 ms at a 1,000 ms interval", "paper"));
    y_marks.push(mark(1.02, "paper: HTC Mozart's, ~1,020 ms", "paper-m"));
    let mut x_marks = Vec::new();
    if let Some(p) = metric(r, "burst.release_period").filter(|p| *p > 0.0) {
        for k in 1..=12 {
            let at = p * k as f64;
            if at > t {
                break;
            }
            let label =
                if k == 1 { format!("release period found: {}", latlab_model::numfmt::ns(p)) } else { String::new() };
            x_marks.push(mark(at, label, "l2"));
        }
    }
    let chart = Some(Chart::Xy(Xy {
        x_name: "receive time".into(),
        x_unit: "ns".into(),
        y_name: "gap ÷ send interval".into(),
        curves: vec![Curve { style: Style::Points, ..Curve::line("each receive gap", "here", pts) }],
        x_marks,
        y_marks,
        ..Default::default()
    }));
    Figure::new(
        "fig-002-gaps",
        "Seed 002: receive gaps over time, as a multiple of the send interval",
        format!(
            "Points at 1 are packets arriving as sent ({} apart); a held-then-released pattern shows as long gaps followed by near-zero ones. The dashed lines are the gaps the paper's phones showed (Windows Phone 7, 1,000 ms interval), as multiples of their interval.",
            latlab_model::numfmt::ns(interval)
        ),
        vec![chart],
    )
}

/// Seed 002's fix: how many packets a playout delay leaves late.
fn fig_002_dejitter(r: &RunRecord) -> Option<Figure> {
    let t = table(r, "udp.dejitter")?;
    let pts = pairs(&col(t, "playout_delay", None)?, &col(t, "late", None)?);
    let chart = Some(Chart::Xy(Xy {
        x_name: "playout delay".into(),
        x_unit: "ns".into(),
        y_name: "packets too late".into(),
        y_unit: "ratio".into(),
        y_from_zero: true,
        curves: vec![Curve::line("late at this delay", "here", pts)],
        ..Default::default()
    }));
    Figure::new(
        "fig-002-dejitter",
        "Seed 002's fix: the de-jitter cost curve",
        "Read the delay where the curve reaches the share of late packets you can bear: that is the latency the seed's fix (playing out by sender timestamp) adds. The seed proposes the fix without measuring it, so there is no paper point.",
        vec![chart],
    )
}

/// Seed 003, Figure 4: display bytes/s against the loop length per eviction policy.
fn fig_003_4(r: &RunRecord) -> Option<Figure> {
    let t = table(r, "cache.sweep")?;
    let x = col(t, "frames", None)?;
    let mut curves: Vec<Curve> = t
        .columns
        .iter()
        .filter(|c| c.unit == "B/s")
        .filter_map(|c| Some(Curve::line(c.name.clone(), &c.name, pairs(&x, &col(t, &c.name, None)?))))
        .collect();
    // 0.01 Mbit/s up to 65 frames, 1.00 Mbit/s from 66 (LRU, 1.5 MB cache).
    curves.push(paper_curve(
        "paper, LRU 1.5 MB cache: 0.01 Mbit/s at 65 frames, 1.00 Mbit/s at 66",
        "paper",
        vec![(65.0, 0.01e6 / 8.0), (66.0, 1.0e6 / 8.0)],
    ));
    let mut x_marks = Vec::new();
    if let Some(c) = metric(r, "cache.capacity_frames") {
        x_marks.push(mark(c, format!("cache capacity: {c} frames"), "capacity"));
    }
    if let Some(c) = metric(r, "cache.lru.cliff_at_frames") {
        x_marks.push(mark(c, format!("LRU's cliff here: {c} frames"), "lru"));
    }
    let chart = Some(Chart::Xy(Xy {
        x_name: "loop length (frames)".into(),
        y_name: "display".into(),
        y_unit: "B/s".into(),
        log_y: true,
        curves,
        x_marks,
        ..Default::default()
    }));
    Figure::new(
        "fig-003-4",
        "Seed 003, Figure 4: a looping animation against the bitmap cache, per eviction policy",
        "Read where each policy's line jumps: a loop one frame longer than the cache holds makes LRU (and FIFO) miss every frame, the seed's cliff at 65/66 frames (the diamonds); the others degrade gradually.",
        vec![chart],
    )
}

/// Seed 003: the banner and the ticker, alone and together, per policy.
fn fig_003_banner(r: &RunRecord) -> Option<Figure> {
    let t = table(r, "cache.banner_ticker")?;
    let (w, p, v) = (col_str(t, "workload")?, col_str(t, "policy")?, col(t, "bytes_per_s", None)?);
    let categories = ["banner", "ticker", "banner_ticker"];
    let mut policies: Vec<String> = Vec::new();
    for x in &p {
        if !policies.contains(x) {
            policies.push(x.clone());
        }
    }
    let mut groups: Vec<BarGroup> = policies
        .iter()
        .map(|pol| BarGroup {
            label: pol.clone(),
            key: pol.clone(),
            values: categories
                .iter()
                .map(|c| (0..w.len()).find(|&i| w[i] == *c && p[i] == *pol).and_then(|i| v[i]))
                .collect(),
        })
        .collect();
    // Banner alone 0.01, ticker alone 0.07, together 1.60 Mbit/s.
    groups.push(BarGroup {
        label: "paper: 0.01 / 0.07 / 1.60 Mbit/s (NT 4.0 TSE, LRU)".into(),
        key: "paper".into(),
        values: [0.01, 0.07, 1.60].iter().map(|m| Some(m * 1e6 / 8.0)).collect(),
    });
    let chart = Some(Chart::Bars(Bars {
        categories: vec!["banner".into(), "ticker".into(), "banner + ticker".into()],
        groups,
        y_name: "display".into(),
        y_unit: "B/s".into(),
        log_y: true,
        ..Default::default()
    }));
    Figure::new(
        "fig-003-banner",
        "Seed 003: an animated banner and a news ticker, alone and together",
        "Read the jump from either alone to both together: together they overflow the cache and each evicts the other's frames. Black outlines are the paper's values.",
        vec![chart],
    )
}

/// Seed 003's per-operation display bandwidth: (operation, paper label, paper KB/s values).
const OPS_PAPER: &[(&str, &str, [Option<f64>; 2])] = &[
    ("typing", "typing", [Some(6.26), Some(11.66)]),
    ("menu", "menu", [Some(1.17), None]),
    ("scroll", "scroll", [Some(59.24), Some(192.54)]),
    ("cursor", "cursor", [Some(0.50), None]),
    ("screensaver", "screensaver", [Some(96.42), None]),
    ("banner_ticker", "banner+ticker", [Some(200.0), None]),
];

/// Seed 003: display bandwidth per operation, with the paper's values.
fn fig_003_ops(r: &RunRecord) -> Option<Figure> {
    let t = table(r, "ops.summary")?;
    let ops = col_str(t, "operation")?;
    let kbs = col(t, "display", Some("KB/s"))?;
    let at = |op: &str| (0..ops.len()).find(|&i| ops[i] == op).and_then(|i| kbs[i]);
    let chart = Some(Chart::Bars(Bars {
        categories: OPS_PAPER.iter().map(|o| o.1.to_string()).collect(),
        groups: vec![
            BarGroup { label: "here".into(), key: "here".into(), values: OPS_PAPER.iter().map(|o| at(o.0)).collect() },
            BarGroup {
                label: "paper: Word / Start menu / the one figure given".into(),
                key: "paper".into(),
                values: OPS_PAPER.iter().map(|o| o.2[0]).collect(),
            },
            BarGroup {
                label: "paper: WordPerfect".into(),
                key: "paper-wp".into(),
                values: OPS_PAPER.iter().map(|o| o.2[1]).collect(),
            },
        ],
        y_name: "display".into(),
        y_unit: "KB/s".into(),
        log_y: true,
        ..Default::default()
    }));
    Figure::new(
        "fig-003-ops",
        "Seed 003: display bandwidth per operation",
        "Read each operation's bar against the paper's outlines (NT 4.0 Terminal Server, 10 Mbit/s Ethernet, 1.5 MB LRU bitmap cache). The banner + ticker's paper value is 1.60 Mbit/s; mouse movement is left out, the seed's figure being input traffic, not display.",
        vec![chart],
    )
}

/// Seed 003, Figure 5: the share of time a typist waits against the CPU load, per policy.
fn fig_003_5(r: &RunRecord) -> Option<Figure> {
    let mut curves = Vec::new();
    for (name, label, key) in
        [("cpu.other", "load at SCHED_OTHER", "other"), ("cpu.idle", "load at SCHED_IDLE", "idle")]
    {
        if let Some(t) = table(r, name) {
            curves.push(Curve::line(label, key, pairs(&col(t, "load", None)?, &col(t, "waiting", None)?)));
        }
    }
    if curves.is_empty() {
        return None;
    }
    curves.push(paper_curve(
        "paper: over 50 % waiting at load 10 (Celeron-333, keys at 20/s)",
        "paper",
        vec![(10.0, 50.0)],
    ));
    let chart = Some(Chart::Xy(Xy {
        x_name: "spinning processes".into(),
        y_name: "time waiting".into(),
        y_unit: "%".into(),
        y_from_zero: true,
        curves,
        ..Default::default()
    }));
    Figure::new(
        "fig-003-5",
        "Seed 003, Figure 5: time spent waiting against CPU load, per scheduling policy",
        "Read how fast the waiting share climbs with the load: the paper's typist waited over half the time at a load of 10 (the diamond is that lower bound). The load at SCHED_IDLE is the remedy: its line should stay near zero.",
        vec![chart],
    )
}

/// Seed 003, Figure 6: round trip against offered load on a shaped link.
fn fig_003_6(r: &RunRecord) -> Option<Figure> {
    let t = table(r, "net.sweep")?;
    let x = col(t, "offered", Some("Mbit/s each way"))?;
    let curves = vec![
        Curve::line("RTT p50", "l1", pairs(&x, &col(t, "RTT p50", None)?)),
        Curve::line("RTT p99", "l2", pairs(&x, &col(t, "RTT p99", None)?)),
        paper_curve("paper: ~35 ms at 9.6 Mbit/s offered (10 Mbit/s Ethernet hub)", "paper", vec![(9.6, 35.0)]),
    ];
    let chart = Some(Chart::Xy(Xy {
        x_name: "offered load".into(),
        x_unit: "Mbit/s".into(),
        y_name: "round trip".into(),
        y_unit: "ms".into(),
        y_from_zero: true,
        curves,
        ..Default::default()
    }));
    Figure::new(
        "fig-003-6",
        "Seed 003, Figure 6: round trip against offered load",
        "Read the knee: the round trip stays low and flat until the offered load nears the link's rate, then the queue in front of the link fills. The diamond is the paper's mean near saturation.",
        vec![chart],
    )
}

/// Seed 000: the client's CPU by stage, this machine beside the paper's shares.
fn fig_000_stages(r: &RunRecord) -> Option<Figure> {
    let t = table(r, "pipeline.stages")?;
    let (stages, share) = (col_str(t, "stage")?, col(t, "share", None)?);
    // RDP 6.0 decompression ~30 % (233 MHz) vs 7 % (1.8 GHz); decryption > 15 % vs 3–4 %;
    // memcpy (latlab's blit) 19 % vs 17 %. The seed gives no other stage's share.
    let paper = |stage: &str| -> [Option<f64>; 2] {
        match stage {
            "decompress" => [Some(30.0), Some(7.0)],
            "decrypt" => [Some(15.0), Some(3.5)],
            "blit" => [Some(19.0), Some(17.0)],
            _ => [None, None],
        }
    };
    let groups = stages
        .iter()
        .zip(&share)
        .map(|(s, v)| BarGroup { label: s.clone(), key: s.clone(), values: vec![*v, paper(s)[0], paper(s)[1]] })
        .collect();
    let chart = Some(Chart::Bars(Bars {
        categories: vec!["here".into(), "paper 233 MHz".into(), "paper 1.8 GHz".into()],
        groups,
        y_name: "share of client CPU".into(),
        y_unit: "%".into(),
        stacked: true,
        ..Default::default()
    }));
    Figure::new(
        "fig-000-stages",
        "Seed 000: the display client's CPU by stage",
        "Read which stage dominates each bar. The paper's bars (Network Projector, CE 6.0, 233 MHz and 1.8 GHz CEPC) hold only the stages the seed gives: decompression, decryption and memcpy (latlab's blit); the rest of their CPU is not broken down.",
        vec![chart],
    )
}

/// Seed 000: throughput and dropped frames against the client's speed, one axis each.
fn fig_000_speed(r: &RunRecord) -> Option<Figure> {
    let t = table(r, "pipeline.speed")?;
    let x = col(t, "client", None)?;
    let wire = Some(Chart::Xy(Xy {
        x_name: "client (MHz of the seed's CEPC, calibrated on this machine)".into(),
        y_name: "wire rate".into(),
        y_unit: "MB/s".into(),
        y_from_zero: true,
        curves: vec![
            Curve::line("here", "here", pairs(&x, &col(t, "wire", None)?)),
            paper_curve("paper: 3.7 MB/s at 1.8 GHz, 2.0 MB/s at 233 MHz", "paper", vec![(1800.0, 3.7), (233.0, 2.0)]),
        ],
        ..Default::default()
    }));
    let dropped = Some(Chart::Xy(Xy {
        x_name: "client (MHz of the seed's CEPC, calibrated on this machine)".into(),
        y_name: "frames dropped".into(),
        y_unit: "%".into(),
        y_from_zero: true,
        curves: vec![Curve::line("here", "here", pairs(&x, &col(t, "dropped", None)?))],
        ..Default::default()
    }));
    Figure::new(
        "fig-000-speed",
        "Seed 000: throughput and dropped frames against the client's CPU speed",
        "Read whether the wire rate holds as the client slows (left) and when frames start to drop (right). Each client is emulated on this machine's CPU, calibrated so the 1.8 GHz one is half busy as the seed's was; the paper's points are its 1.8 GHz and 233 MHz CEPCs; the seed says frames dropped at 233 MHz without a figure, so the right has no paper point.",
        vec![wire, dropped],
    )
}

/// Keystroke to pixels through the display pipeline, per condition, with the 100 ms line.
fn fig_keys(r: &RunRecord) -> Option<Figure> {
    let t = table(r, "latency.conditions")?;
    let names = col_str(t, "condition")?;
    let (min, p50, p99) = (col(t, "min", None)?, col(t, "p50", None)?, col(t, "p99", None)?);
    let unit = unit_of(t, "p50");
    let values = (0..names.len()).map(|i| Some((min[i]?, p50[i]?, p99[i]?))).collect();
    // The seed's threshold: latency above ~100 ms is noticeable.
    let threshold = match unit.as_str() {
        "ns" => 100e6,
        "µs" => 100e3,
        "s" => 0.1,
        _ => 100.0,
    };
    let chart = Some(Chart::Ranges(Ranges {
        categories: names,
        groups: vec![RangeGroup { label: "min–p99, bar at the median".into(), key: "here".into(), values }],
        y_name: "keystroke to pixels".into(),
        y_unit: unit.clone(),
        log_y: true,
        y_marks: vec![mark(threshold, "seed 003: above ~100 ms is noticeable", "paper")],
        ..Default::default()
    }));
    Figure::new(
        "fig-keys",
        "Keystroke to pixels, per condition",
        "Read each condition's median and tail against the seed's 100 ms threshold of noticeable delay: a range reaching above 100 ms means some keystrokes were felt.",
        vec![chart],
    )
}

/// Users per server: key latency against sessions, with the 100 ms line.
fn fig_capacity(r: &RunRecord) -> Option<Figure> {
    let t = table(r, "capacity.ramp")?;
    let x = col(t, "sessions", None)?;
    let chart = Some(Chart::Xy(Xy {
        x_name: "sessions".into(),
        y_name: "key latency".into(),
        y_unit: unit_of(t, "key p95"),
        y_from_zero: true,
        curves: vec![
            Curve::line("key p50", "l1", pairs(&x, &col(t, "key p50", None)?)),
            Curve::line("key p95", "l2", pairs(&x, &col(t, "key p95", None)?)),
            Curve::line("worst typist's p95", "hop", pairs(&x, &col(t, "worst typist p95", None)?)),
        ],
        y_marks: vec![mark(100.0, "seed 003: ~100 ms is noticeable", "paper")],
        ..Default::default()
    }));
    Figure::new(
        "fig-capacity",
        "Users per server: key latency as sessions are added",
        "Read the number of sessions where the p95 line crosses the dashed 100 ms line: that is this server's capacity by the seed's criterion.",
        vec![chart],
    )
}

/// Seed 004: launch time cold, warm and with the plan prefetched.
fn fig_004_launch(r: &RunRecord) -> Option<Figure> {
    let states: Vec<(&str, String)> = ["cold", "warm", "prefetch"]
        .iter()
        .filter_map(|s| r.get_series(&format!("launch.{s}")).map(|x| (*s, x.name.clone())))
        .collect();
    ranges_of_series(
        r,
        &states,
        true,
        "fig-004-launch",
        "Seed 004: launch time cold, warm and with the launch plan prefetched",
        "Read the prefetch bar against cold and warm: the seed's Superfetch made launches about twice as fast (the seed gives the ratio, not times; the dashed line is half this machine's cold median, where the paper's 2× would put it).",
    )
}

/// Seed 004: launch after memory pressure, with and without the preloader.
fn fig_004_preload(r: &RunRecord) -> Option<Figure> {
    let states: Vec<(&str, String)> = [("pressured", "after pressure"), ("preloaded", "preloaded"), ("warm", "warm")]
        .iter()
        .filter_map(|(s, label)| r.get_series(&format!("preload.{s}")).map(|x| (*label, x.name.clone())))
        .collect();
    ranges_of_series(
        r,
        &states,
        true,
        "fig-004-preload",
        "Seed 004: a launch after memory pressure, with and without the preloader",
        "Read the preloaded bar against the one after pressure: the seed says starts take approximately double without Superfetch (the dashed line is half this machine's after-pressure median).",
    )
}

/// Seed 004, Figure 1: boot time cold, warm, with the boot plan prefetched, and with the advice
/// applied.
fn fig_004_boot(r: &RunRecord) -> Option<Figure> {
    let states: Vec<(&str, String)> = ["cold", "warm", "prefetch", "recommended"]
        .iter()
        .filter_map(|s| r.get_series(&format!("boot.{s}.target")).map(|x| (*s, x.name.clone())))
        .collect();
    ranges_of_series(
        r,
        &states,
        false,
        "fig-004-1",
        "Seed 004, Figure 1: boot time with and without the boot plan prefetched",
        "Read the prefetch bar against cold: the seed's Figure 1 shows Superfetch shortening boots \"significantly\" without printing its values, so there is no paper point; 'recommended' is the boot with latlab's advice applied.",
    )
}

/// Min–median–max per state of a run's series; with `twice`, half the first state's median
/// dashed (where the seed's "about 2×" would put the faster state).
fn ranges_of_series(
    r: &RunRecord,
    states: &[(&str, String)],
    twice: bool,
    id: &str,
    title: &str,
    caption: &str,
) -> Option<Figure> {
    if states.len() < 2 {
        return None;
    }
    let values: Vec<Option<(f64, f64, f64)>> = states
        .iter()
        .map(|(_, name)| {
            let s = latlab_model::stats::summarize(&r.get_series(name)?.values)?;
            Some((s.min as f64, s.p50 as f64, s.max as f64))
        })
        .collect();
    let first = values.first().copied().flatten()?;
    // The paper's "about 2×" drawn where it would put the faster state: half the first median.
    let half = first.1 / 2.0;
    let chart = Some(Chart::Ranges(Ranges {
        categories: states.iter().map(|(s, _)| s.to_string()).collect(),
        groups: vec![RangeGroup { label: "min–max, bar at the median".into(), key: "here".into(), values }],
        y_name: "time to ready".into(),
        y_unit: "ns".into(),
        log_y: false,
        y_marks: if twice {
            vec![mark(
                half,
                format!("the paper's ~2×: half of {}'s median, {}", states[0].0, latlab_model::numfmt::ns(half)),
                "paper",
            )]
        } else {
            Vec::new()
        },
        ..Default::default()
    }));
    Figure::new(id, title, caption, vec![chart])
}

/// Seed 004: the measured boot as a Gantt chart.
fn fig_004_gantt(r: &RunRecord) -> Option<Figure> {
    let t = r.tables.iter().find(|t| t.name.ends_with(".gantt"))?;
    Figure::new(
        "fig-004-gantt",
        "Seed 004: the boot, service by service (Gantt chart)",
        "Read which services start late because they wait on others, and how the prefetched boot's bars shift left of the cold boot's. The seed's xperf trace gives the same view of Windows' services.",
        vec![Some(Chart::Gantt(t.clone()))],
    )
}

/// An A/B's arms overlaid, with the verdict.
fn fig_ab(r: &RunRecord) -> Vec<Option<Figure>> {
    r.series
        .iter()
        .filter_map(|a| {
            let base = a.name.strip_suffix(".baseline")?;
            let b = r.get_series(&format!("{base}.remedy"))?;
            let verdict = r.config.get(&format!("effect.{base}")).and_then(|v| v.as_str()).unwrap_or("not judged");
            Some(Figure::new(
                &format!("fig-ab-{base}"),
                &format!("{base} — baseline vs remedy (CDF): {verdict}"),
                "Read the gap between the two curves at the percentile you care about: a remedy that helps moves its curve left.",
                vec![Some(Chart::Cdf(vec![a.clone(), b.clone()]))],
            ))
        })
        .collect()
}

/// latlab monitor: the worst wake-up per window over the run.
fn fig_monitor(r: &RunRecord) -> Vec<Option<Figure>> {
    r.tables
        .iter()
        .filter(|t| t.name.starts_with("monitor.") && t.name.ends_with(".windows"))
        .map(|t| {
            Figure::new(
                &format!("fig-{}", t.name.replace('.', "-")),
                &t.title,
                "Read the spikes: each point is one window's worst; a long run's rare events show as isolated peaks above the p99 line.",
                vec![Some(Chart::Sweep(t.clone()))],
            )
        })
        .collect()
}
