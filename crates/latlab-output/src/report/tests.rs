//! Report tests: the document parses, every SVG is well-formed, nothing is fetched.

use super::*;
use latlab_model::figure::{Chart, Figure};
use latlab_model::record::{Column, PaperRow, RunStatus, Series, Table, TablePlot};
use latlab_sys::record::Finish;
use quick_xml::events::Event;

/// Parse `xml` with quick-xml end to end; returns the number of `<svg>` elements.
pub(crate) fn check_well_formed(xml: &str) -> Result<usize, latlab_model::ConfigError> {
    let mut r = quick_xml::Reader::from_str(xml);
    r.config_mut().check_end_names = true;
    let mut depth = 0i64;
    let mut svgs = 0;
    loop {
        match r.read_event() {
            Ok(Event::Start(e)) => {
                depth += 1;
                if e.name().as_ref() == b"svg" {
                    svgs += 1;
                }
            }
            Ok(Event::End(_)) => depth -= 1,
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) => return Err(format!("at byte {}: {e}", r.error_position()).into()),
        }
    }
    if depth != 0 {
        return Err(format!("unbalanced elements (depth {depth} at end)").into());
    }
    Ok(svgs)
}

fn sample_run() -> RunRecord {
    let mut r = latlab_sys::record::begin("selftest");
    r.id = Some(7);
    r.metric("sleep.other.1ms.p99", 51_234i64, "ns");
    r.metric("clock.resolution", 1i64, "ns");
    r.metric("sleep.other.1ms.mode1.centre", 51_500i64, "ns");
    r.metric("sleep.other.1ms.mode1.share", 0.97, "ratio");
    r.metric("sleep.other.1ms.back_wall", 52_990i64, "ns");
    r.series.push(Series {
        name: "sleep.other.1ms".into(),
        unit: "ns".into(),
        description: "lateness <of> each & every wake-up".into(),
        values: (0..5000).map(|i| 50_000 + (i * 7919) % 3000 + if i == 4000 { 900_000 } else { 0 }).collect(),
    });
    r.series.push(Series { name: "one".into(), unit: "ns".into(), description: "single".into(), values: vec![5] });
    r.tables.push(Table {
        name: "sleep.sweep".into(),
        title: "Sleep lateness against period".into(),
        columns: vec![Column::new("period", "ns"), Column::new("p50", "ns"), Column::new("p99", "ns")],
        rows: vec![
            vec![1_000_000.into(), 55_000.into(), 70_000.into()],
            vec![100_000.into(), 52_000.into(), 66_000.into()],
            vec![50_000.into(), 51_000.into(), 64_000.into()],
        ],
        plot: Some(TablePlot { x: "period".into(), ys: vec!["p50".into(), "p99".into()], log_x: true, log_y: false }),
    });
    r.paper.push(PaperRow {
        seed: "001".into(),
        figure: "Fig. 11 CE 3.0 ISR max".into(),
        paper_setting: "SA-1110 206 MHz".into(),
        paper_value: "5.2 µs".into(),
        here_value: "12.0 µs".into(),
        note: "timer wake-up <not an ISR>".into(),
        judgement: latlab_model::verdict::Judgement::within_factor(12.0, 5.2, 2.0, "a timer <wake-up>, not an ISR"),
    });
    r.warn("sched.fifo: asked for fifo:80, got other — permission denied");
    r.finish(RunStatus::Interrupted);
    r
}

#[test]
fn report_is_well_formed_with_every_plot() {
    let html = render(&[sample_run()]).unwrap();
    let svgs = check_well_formed(&html).expect("report must be well-formed");
    // 1 sweep + 3 per series × 2 series.
    assert_eq!(svgs, 7, "plots found: {svgs}");
    // Each SVG on its own is well-formed too.
    let mut rest = html.as_str();
    let mut n = 0;
    while let Some(i) = rest.find("<svg") {
        let end = rest[i..].find("</svg>").unwrap() + i + 6;
        check_well_formed(&rest[i..end]).unwrap();
        n += 1;
        rest = &rest[end..];
    }
    assert_eq!(n, 7);
    // Escaped user text, the paper row, the warning and the status are all there.
    assert!(html.contains("lateness &lt;of&gt; each &amp; every wake-up"));
    assert!(html.contains("timer wake-up &lt;not an ISR&gt;"));
    assert!(html.contains("5.2 µs") && html.contains("12.0 µs"));
    // The modes and the back wall the run found are marked on the series' histogram.
    assert!(html.contains("mode 1: 51.5 µs (97 %)"), "mode mark");
    assert!(html.contains("back wall (p99.9): 53 µs"), "back-wall mark");
    // The verdict, its rule and the tally are shown, escaped like everything else.
    assert!(html.contains(r#"<span class="v-differs">differs</span>"#), "verdict cell");
    assert!(
        html.contains("here ÷ paper = 2.31 (tolerance: within 2× either way); a timer &lt;wake-up&gt;, not an ISR")
    );
    assert!(html.contains("1 paper row measured this machine: 0 reproduced, 1 differs, 0 not comparable here"));
    assert!(html.contains("id=\"study-lines\""));
    assert!(html.contains("warning: sched.fifo"));
    assert!(html.contains("(interrupted)"));
}

#[test]
fn report_fetches_nothing() {
    let html = render(&[sample_run()]).unwrap();
    for bad in ["<script", "<link", "src=", "url(", "@import", "<img"] {
        assert!(!html.contains(bad), "report contains {bad}");
    }
}

#[test]
fn report_of_nothing_and_of_empty_runs() {
    let html = render(&[]).unwrap();
    assert_eq!(check_well_formed(&html).unwrap(), 0);
    let mut r = latlab_sys::record::begin("selftest");
    r.finish(RunStatus::Failed);
    let html = render(&[r]).unwrap();
    assert_eq!(check_well_formed(&html).unwrap(), 0);
    assert!(html.contains("No run in this report has a paper row yet."));
}

#[test]
fn ticks_and_log_rule() {
    assert_eq!(plots::tick(&5000.0), "5000");
    assert_eq!(plots::tick(&0.30000000000000004), "0.3");
    assert_eq!(plots::tick(&2.5), "2.5");
    assert_eq!(plots::tick(&12.26), "12.3");
    assert_eq!(plots::tick(&40.0), "40");
    assert_eq!(plots::tick(&0.0001), "0.0001");
    assert_eq!(plots::tick(&0.00025), "0.00025");
    assert_eq!(plots::tick(&0.05), "0.05");
    assert!(plots::wants_log_axis(40, 40, 30_000));
    assert!(!plots::wants_log_axis(40, 40, 1_000));
    assert!(!plots::wants_log_axis(0, 40, 30_000));
}

#[test]
fn axis_units() {
    assert_eq!(plots::axis_unit("ns", 500.0).label, "ns");
    assert_eq!(plots::axis_unit("ns", 50_000.0).label, "µs");
    assert_eq!(plots::axis_unit("ns", 5e6).div, 1e6);
    assert_eq!(plots::axis_unit("count", 5e6).div, 1.0);
}

#[test]
fn a_long_table_folds_away_and_a_short_one_does_not() {
    let mut r = sample_run();
    r.tables.push(Table {
        name: "net.timeline".into(),
        title: "Over time".into(),
        columns: vec![Column::new("time", "s")],
        rows: (0..30).map(|i| vec![(i as f64 / 5.0).into()]).collect(),
        plot: None,
    });
    let html = render(&[r]).unwrap();
    check_well_formed(&html).unwrap();
    let long = html.find("<h3>Over time</h3>").unwrap();
    assert!(html[long..].trim_start_matches("<h3>Over time</h3>").trim_start().starts_with("<details>"));
    assert!(html.contains("<summary>30 rows</summary>"));
    let short = html.find("<h3>Sleep lateness against period</h3>").unwrap();
    let after = html[short..].trim_start_matches("<h3>Sleep lateness against period</h3>").trim_start();
    assert!(after.starts_with("<table>"), "{}", &after[..40]);
}

#[test]
fn an_ab_is_one_cdf_overlay_with_its_verdict() {
    let mut r = latlab_sys::record::begin("tune");
    for (arm, shift) in [("baseline", 0), ("remedy", 500)] {
        r.series.push(Series {
            name: format!("loaded.l1.latency.{arm}"),
            unit: "ns".into(),
            description: arm.into(),
            values: (0..200).map(|i| 1_000 + shift + i).collect(),
        });
    }
    r.config("effect.loaded.l1.latency", "hurts");
    r.finish(RunStatus::Complete);
    let html = render(&[r]).unwrap();
    // One chart for the pair, not three per arm.
    assert_eq!(check_well_formed(&html).unwrap(), 1);
    assert!(html.contains("loaded.l1.latency — baseline vs remedy (CDF): hurts"), "title with the verdict");
}

#[test]
fn a_gantt_table_is_drawn_as_bars_per_state_with_the_service_names() {
    let c = Column::new;
    let t = Table {
        name: "boot.gantt".into(),
        title: "boot".into(),
        columns: vec![
            c("service", ""),
            c("cold start", "ms"),
            c("cold ready", "ms"),
            c("warm start", "ms"),
            c("warm ready", "ms"),
        ],
        rows: vec![
            vec!["storage".into(), 0.1.into(), 60.0.into(), 0.1.into(), 30.0.into()],
            vec!["session".into(), 60.0.into(), 118.0.into(), 30.0.into(), 57.0.into()],
            vec![
                "updater".into(),
                serde_json::Value::Null,
                serde_json::Value::Null,
                serde_json::Value::Null,
                serde_json::Value::Null,
            ],
        ],
        plot: None,
    };
    let chart = plots::gantt(&t).expect("drawn");
    let svg = &chart.svg;
    assert_eq!(check_well_formed(svg), Ok(1));
    for name in ["storage", "session", "updater"] {
        assert!(svg.contains(name), "{name} missing");
    }
    // The states are named in the legend (HTML, under the plot), in their fixed colours.
    let legend: Vec<(&str, &str)> = chart.legend.iter().map(|l| (l.label.as_str(), l.colour.as_str())).collect();
    assert_eq!(legend, [("cold", "#d62728"), ("warm", "#2ca02c")]);
    // Per state: a bar for each of the two services with times.
    let rects = |colour: &str| svg.lines().filter(|l| l.contains("<rect") && l.contains(colour)).count();
    assert_eq!((rects("#D62728"), rects("#2CA02C")), (2, 2), "{svg}");
    // Only tables named *.gantt, and only with start/ready pairs.
    assert!(plots::gantt(&Table { name: "boot.other".into(), ..t.clone() }).is_none());
    let mut r = latlab_sys::record::begin("boot");
    r.tables.push(t);
    r.finish(RunStatus::Complete);
    // Declared as a figure by its experiment, the Gantt chart is drawn as one.
    let gantt = |r: &RunRecord| -> Vec<Figure> {
        Figure::new("fig-004-gantt", "the boot", "", vec![Some(Chart::Gantt(r.tables[0].clone()))])
            .into_iter()
            .collect()
    };
    let html = render_with(&[r], &[], &gantt).unwrap();
    assert!(html.contains("data-figure=\"fig-004-gantt\""), "the Gantt chart is a figure of the run");
}

fn host_run(i: usize, p99: i64) -> RunRecord {
    let mut r = latlab_sys::record::begin("rt");
    r.id = Some(100 + i as i64);
    r.machine.info.hostname = Some(format!("board-{i:02}"));
    r.machine.info.machine_id = Some(format!("id-{i}"));
    r.series.push(Series {
        name: "l1.unloaded".into(),
        unit: "ns".into(),
        description: "wake-up latency".into(),
        values: (0..200).map(|k| 1_000 + k * p99 / 200).collect(),
    });
    r.paper.push(PaperRow {
        seed: "001".into(),
        figure: "Fig 11 L1 max".into(),
        paper_setting: "CEPC".into(),
        paper_value: "32 µs".into(),
        here_value: format!("{} µs", p99 / 1000),
        note: String::new(),
        judgement: Default::default(),
    });
    r
}

#[test]
fn runs_of_several_hosts_are_compared_with_the_papers_row_and_one_overlay() {
    let runs: Vec<RunRecord> = (0..3).map(|i| host_run(i, 10_000 * (i as i64 + 1))).collect();
    let html = render(&runs).unwrap();
    check_well_formed(&html).unwrap();
    assert!(html.contains("<h2 id=\"hosts\">Hosts</h2>"), "no hosts section");
    assert!(html.contains("rt on 3 hosts"));
    // The paper's figure in its own row above the hosts', each host's figure beside its name.
    let paper_at = html.find("<td class=\"num\">paper</td>").expect("the paper's row");
    let host_at = html.find("<td class=\"num\">board-00</td>").expect("a host's row");
    assert!(paper_at < host_at);
    assert!(html.contains("32 µs") && html.contains("30 µs"));
    assert!(html.contains("l1.unloaded on 3 hosts (CDF)"));
    // Every run is drawn in full, titled with its host.
    assert!(html.contains("rt #101 on board-01"));
    // One host alone: no comparison.
    let one = render(&runs[..1]).unwrap();
    assert!(!one.contains("id=\"hosts\""));
}

#[test]
fn a_fleet_is_compared_whole_but_only_a_few_hosts_are_drawn_in_full() {
    let n = crate::defaults::REPORT_DETAIL_HOSTS + 5;
    let runs: Vec<RunRecord> = (0..n).map(|i| host_run(i, 5_000 + 1_000 * i as i64)).collect();
    let html = render(&runs).unwrap();
    check_well_formed(&html).unwrap();
    assert!(html.contains(&format!("rt on {n} hosts")));
    assert!(html.contains(&format!("board-{:02}", n - 1)), "the last host is a row of the comparison");
    let drawn = html.matches("<section class=\"run\"").count();
    assert_eq!(drawn, crate::defaults::REPORT_DETAIL_HOSTS);
    assert!(html.contains("drawn in full after it"));
    assert!(html.contains(&format!("overlays {} of the {n} hosts", crate::defaults::REPORT_OVERLAY_HOSTS)));
}

/// The texts of an SVG, trimmed.
fn svg_texts(svg: &str) -> Vec<String> {
    svg_texts_at(svg, false)
}

/// The texts of an SVG, trimmed, optionally with their position (`text@x,y`).
fn svg_texts_at(svg: &str, with_position: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find("<text") {
        let body = &rest[i..];
        let (Some(open), Some(close)) = (body.find('>'), body.find("</text>")) else { break };
        out.push(body[open + 1..close].trim().to_string());
        if with_position {
            // The opening tag's x and y: the same label at two places is two labels.
            let tag = &body[..open];
            let attr = |a: &str| tag.split(&format!(" {a}=\"")).nth(1).and_then(|v| v.split('"').next()).unwrap_or("");
            let last = out.last_mut().unwrap();
            *last = format!("{last}@{},{}", attr("x"), attr("y"));
        }
        rest = &body[close..];
    }
    out
}

#[test]
fn log_axes_label_decades_only_and_never_twice() {
    // Heavy-tailed: a log value axis and log counts.
    let mut values: Vec<i64> = (0..5_000).map(|i| 1_000 + i % 200).collect();
    values.extend([50_000, 400_000, 3_000_000]);
    let s = Series { name: "lat".into(), unit: "ns".into(), description: String::new(), values };
    let chart = plots::histogram(&s, &[]).expect("drawn");
    let numbers: Vec<f64> = svg_texts(&chart.svg).iter().filter_map(|t| t.parse::<f64>().ok()).collect();
    assert!(numbers.len() >= 4, "axes are labelled: {numbers:?}");
    for n in &numbers {
        let l = n.log10();
        assert!((l - l.round()).abs() < 1e-9, "{n} is not a decade: {numbers:?}");
    }
    let mut texts = svg_texts_at(&chart.svg, true);
    let before = texts.len();
    texts.sort();
    texts.dedup();
    assert_eq!(texts.len(), before, "a label drawn twice");
    assert_eq!(plots::log_tick(&20.0), "");
    assert_eq!(plots::log_tick(&1000.0), "1000");
    // Less than a decade: no log axis (it would carry no label at all).
    assert!(!plots::log_spans_a_decade(3.0, 20.0));
}

#[test]
fn fewer_than_three_points_are_points_and_more_a_line() {
    let chart = |n: usize| {
        plots::xy(&plots::Xy {
            x_name: "x".into(),
            y_name: "y".into(),
            curves: vec![plots::Curve::line("c", "here", (0..n).map(|i| (i as f64, i as f64)).collect())],
            ..Default::default()
        })
        .unwrap()
    };
    // The axes are polylines too: look for one in the curve's colour.
    let curve = |svg: &str| svg.lines().any(|l| l.contains("<polyline") && l.contains("#1F77B4"));
    assert!(!curve(&chart(2).svg), "two points joined by a line");
    assert!(curve(&chart(3).svg), "three points not joined");
    assert!(chart(2).svg.contains("<circle"), "two points not drawn as points");
}

#[test]
fn one_unit_per_axis_a_second_unit_gets_its_own_chart() {
    let t = Table {
        name: "speed".into(),
        title: "wire and drops against speed".into(),
        columns: vec![Column::new("speed", ""), Column::new("wire", "B/s"), Column::new("dropped", "ratio")],
        rows: vec![vec![1.0.into(), 5e6.into(), 0.0.into()], vec![0.5.into(), 4e6.into(), 0.1.into()]],
        plot: Some(TablePlot {
            x: "speed".into(),
            ys: vec!["wire".into(), "dropped".into()],
            log_x: false,
            log_y: false,
        }),
    };
    let charts = plots::sweep(&t);
    assert_eq!(charts.len(), 2);
    assert!(charts[0].svg.contains("wire (MB/s)"), "the first chart's axis is in MB/s");
    assert!(charts[1].svg.contains("dropped (%)"));
    assert!(!charts[0].svg.contains("dropped"));
}

#[test]
fn a_key_keeps_its_colour_in_every_plot_and_titles_stay_out_of_the_svg() {
    let legend_colour =
        |c: &plots::Chart, label: &str| c.legend.iter().find(|l| l.label == label).unwrap().colour.clone();
    let line = plots::xy(&plots::Xy {
        curves: vec![
            plots::Curve::line("lru", "lru", vec![(1.0, 1.0), (2.0, 2.0), (3.0, 1.0)]),
            plots::Curve::line("fifo", "fifo", vec![(1.0, 2.0), (2.0, 3.0), (3.0, 2.0)]),
        ],
        ..Default::default()
    })
    .unwrap();
    let bars = plots::bars(&plots::Bars {
        categories: vec!["a".into()],
        groups: vec![
            plots::BarGroup { label: "fifo".into(), key: "fifo".into(), values: vec![Some(1.0)] },
            plots::BarGroup { label: "lru".into(), key: "lru".into(), values: vec![Some(2.0)] },
        ],
        ..Default::default()
    })
    .unwrap();
    assert_eq!(legend_colour(&line, "lru"), legend_colour(&bars, "lru"));
    assert_eq!(legend_colour(&line, "fifo"), legend_colour(&bars, "fifo"));
    assert_ne!(legend_colour(&line, "lru"), legend_colour(&line, "fifo"));
    assert_eq!(plots::colour("a-host-name"), plots::colour("a-host-name"));
    // Long category labels are shortened to fit their axis.
    assert_eq!(plots::short("a very long service name").chars().count(), 14);
    assert!(plots::short("a very long service name").ends_with('…'));
    // The figure's title is HTML (it wraps); no SVG carries it.
    let html = render(&[sample_run()]).unwrap();
    for svg in html.split("<svg").skip(1) {
        let svg = &svg[..svg.find("</svg>").unwrap()];
        assert!(!svg.contains("histogram"), "a title inside a plot");
    }
}

/// Two study figures as an experiment declares them: a sweep with the paper's points, and
/// ranges with a paper group (the renderer is under test, not the study's figures).
fn rt_figures(r: &RunRecord) -> Vec<Figure> {
    use latlab_model::figure::{Curve, RangeGroup, Ranges, Xy, col, pairs, table};
    let t = table(r, "rt.sweep").unwrap();
    let x = col(t, "rate_hz", None).unwrap();
    let sweep = Xy {
        x_name: "stimulus rate".into(),
        x_unit: "Hz".into(),
        y_name: "delivered".into(),
        y_unit: "ratio".into(),
        curves: vec![
            Curve::line("level 1", "l1", pairs(&x, &col(t, "l1_delivered", None).unwrap())),
            Curve::paper("paper, CE 3.0 loaded: MF-ISR 127 kHz", vec![(127e3, 1.0)]),
        ],
        ..Default::default()
    };
    let ranges = Ranges {
        categories: vec!["ISR".into()],
        groups: vec![
            RangeGroup { label: "here".into(), key: "here".into(), values: vec![Some((2e3, 5e3, 4e4))] },
            RangeGroup { label: "paper, CE .NET".into(), key: "paper-net".into(), values: vec![Some((2e3, 3e3, 5e3))] },
        ],
        y_name: "start latency".into(),
        y_unit: "ns".into(),
        ..Default::default()
    };
    [
        Figure::new("fig-001-8", "Figure 8", "read it", vec![Some(Chart::Xy(sweep))]),
        Figure::new("fig-001-11", "Figure 11", "read it", vec![Some(Chart::Ranges(ranges))]),
    ]
    .into_iter()
    .flatten()
    .collect()
}

fn rt_run() -> RunRecord {
    let mut r = latlab_sys::record::begin("rt");
    r.id = Some(7);
    let c = Column::new;
    r.tables.push(Table {
        name: "rt.sweep".into(),
        title: "sweep".into(),
        columns: vec![
            c("rate_hz", "Hz"),
            c("l1_delivered", "ratio"),
            c("l2_delivered", "ratio"),
            c("load_progress", "ratio"),
        ],
        rows: [1e3, 1e4, 1e5]
            .iter()
            .map(|&f| vec![f.into(), 1.0.into(), (1e3 / f).into(), (1.0 - f / 2e5).into()])
            .collect(),
        plot: None,
    });
    let mut rows = Vec::new();
    for phase in ["unloaded", "loaded"] {
        for level in ["l1", "l2"] {
            rows.push(vec![phase.into(), level.into(), 2_000.into(), 5_000.into(), 40_000.into()]);
        }
    }
    r.tables.push(Table {
        name: "rt.phases".into(),
        title: "phases".into(),
        columns: vec![c("phase", ""), c("level", ""), c("min", "ns"), c("p50", "ns"), c("max", "ns")],
        rows,
        plot: None,
    });
    r.metric("sweep.mf_l2_hz", 2_000.0, "Hz");
    r.paper.push(PaperRow {
        seed: "001".into(),
        figure: "Fig. 8, MF-APP (level 2)".into(),
        paper_setting: "StrongARM".into(),
        paper_value: "15 kHz".into(),
        here_value: "2 kHz".into(),
        note: String::new(),
        judgement: latlab_model::verdict::Judgement::within_range(2e3, 6e3, 15e3, 2.0, "a timer"),
    });
    r.finish(RunStatus::Complete);
    r
}

#[test]
fn the_first_screen_answers_and_a_run_opens_with_its_studys_figures() {
    let html = render_with(&[rt_run()], &[("sweep.mf_l2_hz", "MF-APP")], &rt_figures).unwrap();
    check_well_formed(&html).unwrap();
    // The machine line, then the verdict table before any other table.
    let machine = html.find("id=\"machine\"").unwrap();
    let verdicts = html.find("id=\"verdict-table\"").unwrap();
    assert!(machine < verdicts);
    assert_eq!(html.find("<table"), Some(verdicts - "<table class=\"verdicts\" ".len()));
    assert!(html[verdicts..].contains("<span class=\"v-differs\">differs</span>"));
    // One headline line per run, from the experiment's headline figures.
    assert!(html.contains("MF-APP 2 kHz"), "headline");
    // Figures 8 and 11 with the paper's points named in their legends, before the tables.
    let f8 = html.find("data-figure=\"fig-001-8\"").expect("Figure 8");
    let f11 = html.find("data-figure=\"fig-001-11\"").expect("Figure 11");
    assert!(html[f8..].contains("paper, CE 3.0 loaded: MF-ISR 127 kHz"));
    assert!(html[f11..].contains("paper, CE .NET"));
    let first_run_table = html.find("<h3>sweep</h3>").unwrap();
    assert!(f8 < first_run_table && f11 < first_run_table);
    // The generic plots are folded away.
    assert!(html.contains("<details class=\"generic\">") || !html.contains("generic plots"));
    // The table of contents links each figure.
    assert!(html.contains("href=\"#run-7-fig-001-8\""));
}

/// Texts of an SVG whose estimated box (0.6 em per character, as wide as sans-serif digits
/// run) leaves the `W`×`H` plot, with where each would end.
fn texts_outside(svg: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find("<text") {
        let body = &rest[i..];
        let (Some(open), Some(close)) = (body.find('>'), body.find("</text>")) else { break };
        let tag = &body[..open];
        let attr = |a: &str| tag.split(&format!(" {a}=\"")).nth(1).and_then(|v| v.split('"').next()).unwrap_or("");
        let text = body[open + 1..close].trim();
        let (x, size) = (attr("x").parse::<f64>().unwrap_or(0.0), attr("font-size").parse::<f64>().unwrap_or(12.0));
        let width = text.chars().count() as f64 * 0.6 * size;
        let (left, right) = match attr("text-anchor") {
            "middle" => (x - width / 2.0, x + width / 2.0),
            "end" => (x - width, x),
            _ => (x, x + width),
        };
        let rotated = tag.contains("rotate(");
        if !text.is_empty() && !rotated && (left < 0.0 || right > plots::W as f64) {
            out.push(format!("{text:?} spans {left:.0}..{right:.0} of 0..{}", plots::W));
        }
        rest = &body[close..];
    }
    out
}

#[test]
fn a_huge_outlier_keeps_every_tick_label_inside_its_plot() {
    // A wake-up held 2 s by the real-time throttle among 10 µs ones, with a zero (so no log
    // axis): the CI run on e65b253 drew "2000000" (µs) half outside the histogram.
    for min in [0i64, 1_000] {
        let mut values: Vec<i64> = (0..2_000).map(|i| 10_000 + i % 500).collect();
        values.extend([min, 2_000_000_000]);
        let s = Series { name: "sleep.fifo_spin.1ms".into(), unit: "ns".into(), description: String::new(), values };
        let charts = [plots::histogram(&s, &[]), plots::cdf(&[&s]), plots::time_series(&s)];
        for chart in charts.into_iter().map(|c| c.expect("drawn")) {
            assert_eq!(texts_outside(&chart.svg), Vec::<String>::new(), "min {min}:\n{}", chart.svg);
        }
    }
    assert_eq!(plots::tick(&2_000_000.0), "2M");
    assert_eq!(plots::tick(&12_500.0), "12.5k");
    assert_eq!(plots::tick(&-40_000.0), "-40k");
    assert_eq!(plots::log_tick(&1e6), "10⁶");
    assert_eq!(plots::log_tick(&1e-4), "10⁻⁴");
    assert_eq!(plots::log_tick(&0.001), "0.001");
}
