//! Seeds 000 and 003's figures from `display` runs, one set per mode: operations' bandwidth,
//! the cache cliff and the banner, the client's stages and speeds, keystroke latency and users
//! per server.

use latlab_model::figure::{
    BarGroup, Bars, Chart, Curve, Figure, RangeGroup, Ranges, Xy, col, col_str, mark, metric, pairs, paper_curve,
    table, unit_of,
};
use latlab_model::record::RunRecord;

/// `display ops`: display bandwidth per operation.
pub fn ops(r: &RunRecord) -> Vec<Figure> {
    fig_003_ops(r).into_iter().collect()
}

/// `display cache`: Figure 4's cliff per policy, and the banner with the ticker.
pub fn cache(r: &RunRecord) -> Vec<Figure> {
    [fig_003_4(r), fig_003_banner(r)].into_iter().flatten().collect()
}

/// `display pipeline`: the client's CPU by stage, and against its speed.
pub fn pipeline(r: &RunRecord) -> Vec<Figure> {
    [fig_000_stages(r), fig_000_speed(r)].into_iter().flatten().collect()
}

/// `display latency`: keystroke to pixels per condition.
pub fn latency(r: &RunRecord) -> Vec<Figure> {
    fig_keys(r).into_iter().collect()
}

/// `display capacity`: key latency as sessions are added.
pub fn capacity(r: &RunRecord) -> Vec<Figure> {
    fig_capacity(r).into_iter().collect()
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
    let [(n, fit), (m, over)] = crate::paper::FIGURE_4;
    curves.push(paper_curve(
        &format!("paper, LRU 1.5 MB cache: {fit:.2} Mbit/s at {n} frames, {over:.2} Mbit/s at {m}"),
        "paper",
        crate::paper::FIGURE_4.iter().map(|(f, mbps)| (*f, mbps * 1e6 / 8.0)).collect(),
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
        "Read where each policy's line jumps: a loop one frame longer than the cache holds makes LRU (and FIFO) miss every frame, the seed's cliff one frame past its cache (the diamonds); the others degrade gradually.",
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
    let [b, t, both] = crate::paper::BANNER_TICKER_MBPS;
    groups.push(BarGroup {
        label: format!("paper: {b:.2} / {t:.2} / {both:.2} Mbit/s (NT 4.0 TSE, LRU)"),
        key: "paper".into(),
        values: crate::paper::BANNER_TICKER_MBPS.iter().map(|m| Some(m * 1e6 / 8.0)).collect(),
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

/// Seed 003's display bandwidth per operation: (operation, label, the paper's KB/s: Word or
/// the one figure given, WordPerfect), from `crate::paper`.
fn ops_paper() -> Vec<(&'static str, &'static str, [Option<f64>; 2])> {
    use crate::paper::{BANNER_TICKER_MBPS, OPS_DISPLAY_KBS, START_MENU_DISPLAY_KBS};
    let op = |name: &'static str| {
        let (_, a, b) = OPS_DISPLAY_KBS.iter().find(|o| o.0 == name).copied().unwrap_or((name, f64::NAN, None));
        [Some(a), b]
    };
    vec![
        ("typing", "typing", op("typing")),
        // The word processors' menus: the seed gives their traffic in all, not their display.
        ("menu", "menus", [None, None]),
        ("start_menu", "Start menu", [Some(START_MENU_DISPLAY_KBS), None]),
        ("scroll", "scroll", op("scroll")),
        ("cursor", "cursor", op("cursor")),
        ("screensaver", "screensaver", op("screensaver")),
        ("banner_ticker", "banner+ticker", [Some(BANNER_TICKER_MBPS[2] * 1e6 / 8.0 / 1e3), None]),
    ]
}

/// Seed 003: display bandwidth per operation, with the paper's values.
fn fig_003_ops(r: &RunRecord) -> Option<Figure> {
    let t = table(r, "ops.summary")?;
    let ops = col_str(t, "operation")?;
    let kbs = col(t, "display", Some("KB/s"))?;
    let at = |op: &str| (0..ops.len()).find(|&i| ops[i] == op).and_then(|i| kbs[i]);
    let chart = Some(Chart::Bars(Bars {
        categories: ops_paper().iter().map(|o| o.1.to_string()).collect(),
        groups: vec![
            BarGroup {
                label: "here".into(),
                key: "here".into(),
                values: ops_paper().iter().map(|o| at(o.0)).collect(),
            },
            BarGroup {
                label: "paper: Word / Start menu / the one figure given".into(),
                key: "paper".into(),
                values: ops_paper().iter().map(|o| o.2[0]).collect(),
            },
            BarGroup {
                label: "paper: WordPerfect".into(),
                key: "paper-wp".into(),
                values: ops_paper().iter().map(|o| o.2[1]).collect(),
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
        format!(
            "Read each operation's bar against the paper's outlines (NT 4.0 Terminal Server, 10 Mbit/s Ethernet, 1.5 MB LRU bitmap cache). The banner + ticker's paper value is {:.2} Mbit/s; mouse movement is left out, the seed's figure being input traffic, not display.",
            crate::paper::BANNER_TICKER_MBPS[2]
        ),
        vec![chart],
    )
}

/// Seed 000: the client's CPU by stage, this machine beside the paper's shares.
fn fig_000_stages(r: &RunRecord) -> Option<Figure> {
    let t = table(r, "pipeline.stages")?;
    let (stages, share) = (col_str(t, "stage")?, col(t, "share", None)?);
    // The seed's shares at 233 MHz and 1.8 GHz (a range's middle); no other stage's.
    let paper = |stage: &str| -> [Option<f64>; 2] {
        crate::paper::STAGE_SHARES
            .iter()
            .find(|s| s.0 == stage)
            .map_or([None, None], |(_, slow, (lo, hi))| [Some(*slow), Some((lo + hi) / 2.0)])
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
        curves: vec![Curve::line("here", "here", pairs(&x, &col(t, "wire", None)?)), {
            use crate::paper::{PEAK_BYTES_PER_S, SLOW_BYTES_PER_S};
            let (fast, slow) = (PEAK_BYTES_PER_S / 1e6, SLOW_BYTES_PER_S / 1e6);
            paper_curve(
                &format!("paper: {fast} MB/s at 1.8 GHz, {slow:.1} MB/s at 233 MHz"),
                "paper",
                vec![(crate::defaults::PAPER_FAST_MHZ, fast), (crate::defaults::PAPER_SLOW_MHZ, slow)],
            )
        }],
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
