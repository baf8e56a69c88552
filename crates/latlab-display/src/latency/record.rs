//! The latency run's record: per-condition key statistics, the tables and series, and seed
//! 003's rows (echo within 100 ms, the typist's feel under each load) beside them.

use super::*;

fn ms(ns: f64) -> f64 {
    (ns / 1e4).round() / 100.0
}

/// Fill the record from the levels.
pub fn record(rec: &mut RunRecord, cfg: &LatencyConfig, levels: &[Level]) {
    let threshold = latlab_keyscreen::defaults::NOTICEABLE_MS * 1_000_000;
    rec.mode = "latency".into();
    rec.config("conditions", cfg.conditions.iter().map(Condition::name).collect::<Vec<_>>());
    rec.config("wpm", cfg.typist.wpm);
    rec.config("key_gaps", cfg.typist.gaps.describe());
    rec.config("chars_per_word", latlab_desktop::defaults::CHARS_PER_WORD);
    rec.config("seconds_per_condition", cfg.typist.seconds);
    rec.config("pages_per_condition", cfg.typist.pages);
    rec.config("key_timeout_ms", cfg.typist.key_timeout_ms);
    rec.config("screen", format!("{}x{} at {} bpp", cfg.session.width, cfg.session.height, cfg.session.bpp));
    rec.config("codec", cfg.session.codec.name());
    rec.config("crypto", cfg.session.crypto.name());
    rec.config("spinners", cfg.spinners);
    rec.config("spin_sched", cfg.spin_sched.to_string());
    rec.config("working_set_mib", cfg.working_set_mib);
    rec.config("threshold_ms", latlab_keyscreen::defaults::NOTICEABLE_MS);
    let c = Column::new;
    let mut rows = Vec::new();
    let mut page_rows = Vec::new();
    let mut cpu_rows = Vec::new();
    let mut fifo_noted = false;
    let mut by_name = std::collections::BTreeMap::new();
    for l in levels {
        let name = l.condition.name();
        let t = match &l.result {
            Ok(t) => t,
            Err(e) => {
                let e = latlab_model::error::chain(e.as_ref());
                rec.warn(format!("condition {name} not measured: {e}"));
                rows.push(vec![name.clone().into(), serde_json::Value::Null, format!("not measured: {e}").into()]);
                continue;
            }
        };
        if let (Some(f), false) = (&t.fifo, fifo_noted) {
            rec.capabilities.push(f.clone());
            if !f.granted {
                rec.warn(format!(
                    "the client's threads did not get SCHED_FIFO ({}): under CPU load the measuring end shares the CPU with the load",
                    f.advice.clone().unwrap_or_default()
                ));
            }
            fifo_noted = true;
        }
        let k = key_stats(&t.keys, threshold);
        let p = format!("latency.{name}");
        if let Some(s) = &k.summary {
            for (q, v) in [("min", s.min), ("p50", s.p50), ("p95", s.p95), ("p99", s.p99), ("max", s.max)] {
                rec.metric(&format!("{p}.{q}"), v, "ns");
            }
        }
        rec.metric(&format!("{p}.keys"), k.visible, "count");
        rec.metric(&format!("{p}.lost"), k.visible - k.shown, "count");
        rec.metric(&format!("{p}.over_threshold"), k.over_threshold, "ratio");
        rec.metric(&format!("{p}.waiting_share"), k.waiting_share, "ratio");
        for (s, v) in STAGES.iter().zip(k.stages) {
            rec.metric(&format!("{p}.stage.{s}"), v, "ns");
        }
        let wire = t.client.bytes as f64;
        rec.metric(&format!("{p}.display_bytes"), wire, "B");
        if let Some(srv) = &l.server {
            let cpu = cpu_per_key(srv, &t.client.times, (t.keys.len() + t.pages.len()) as u64);
            for ((side, stage), v) in CPU_STAGES.iter().zip(cpu) {
                rec.metric(&format!("{p}.cpu.{side}.{stage}"), v, "ns");
            }
            let mut row: Vec<serde_json::Value> = vec![name.clone().into()];
            row.extend(cpu.iter().map(|v| serde_json::Value::from((v / 100.0).round() / 10.0)));
            cpu_rows.push(row);
        }
        rec.series.push(Series {
            name: p.clone(),
            unit: "ns".into(),
            description: format!(
                "keystroke to pixels under {name}: from each key's intended time to the client's framebuffer showing its glyph, in typing order"
            ),
            values: k.latencies.clone(),
        });
        let q = |f: fn(&stats::Summary) -> i64| k.summary.map_or(serde_json::Value::Null, |s| ms(f(&s) as f64).into());
        let mut row: Vec<serde_json::Value> = vec![
            name.clone().into(),
            k.visible.into(),
            (k.visible - k.shown).into(),
            q(|s| s.min),
            q(|s| s.p50),
            q(|s| s.p95),
            q(|s| s.p99),
            q(|s| s.max),
            ((k.over_threshold * 1000.0).round() / 10.0).into(),
        ];
        row.extend(k.stages.iter().map(|v| serde_json::Value::from(ms(*v))));
        rows.push(row);
        // The pages.
        let pages: Vec<&KeyRecord> = t.pages.iter().filter(|p| p.shown_ns.is_some()).collect();
        if !t.pages.is_empty() {
            let lat: Vec<f64> = pages.iter().filter_map(|p| p.latency_ns()).map(|l| l as f64).collect();
            let bytes: Vec<f64> = t.pages.iter().map(|p| p.update_bytes as f64).collect();
            let mean = |v: &[f64]| if v.is_empty() { f64::NAN } else { v.iter().sum::<f64>() / v.len() as f64 };
            let (l, b) = (mean(&lat), mean(&bytes));
            rec.metric(&format!("{p}.page.latency"), l, "ns");
            rec.metric(&format!("{p}.page.bytes"), b, "B");
            rec.metric(&format!("{p}.page.lost"), (t.pages.len() - pages.len()) as u64, "count");
            let rate = b / (l / 1e6);
            rec.metric(&format!("{p}.page.bytes_per_ms"), rate, "B/ms");
            page_rows.push(vec![
                name.clone().into(),
                t.pages.len().into(),
                (t.pages.len() - pages.len()).into(),
                ((b / 100.0).round() / 10.0).into(),
                ms(l).into(),
                ((rate * 10.0).round() / 10.0).into(),
            ]);
        }
        if let (Some(srv), Condition::Mem) = (&l.server, l.condition) {
            rec.metric(&format!("{p}.resident_after_pageout"), srv.resident_after, "ratio");
            if srv.resident_after > 0.5 {
                rec.warn(format!(
                    "mem: {:.0} % of the working set stayed in memory after each page-out; the delay is understated",
                    100.0 * srv.resident_after
                ));
            }
        }
        if !l.note.is_empty() {
            rec.config(&format!("condition.{name}"), l.note.clone());
        }
        by_name.insert(name, (k, t.pages.clone()));
    }
    let mut columns = vec![
        c("condition", ""),
        c("keys", "count"),
        c("lost", "count"),
        c("min", "ms"),
        c("p50", "ms"),
        c("p95", "ms"),
        c("p99", "ms"),
        c("max", "ms"),
        c("over 100 ms", "%"),
    ];
    columns.extend(STAGES.iter().map(|s| c(&format!("{s} (mean)"), "ms")));
    rec.tables.push(Table {
        name: "latency.conditions".into(),
        title: format!(
            "Keystroke to pixels at {} wpm through the display pipeline ({}, {}), and where the time went per key",
            cfg.typist.wpm,
            cfg.session.codec.name(),
            cfg.session.crypto.name()
        ),
        columns,
        rows,
        plot: None,
    });
    if !cpu_rows.is_empty() {
        let mut columns = vec![c("condition", "")];
        columns.extend(CPU_STAGES.iter().map(|(side, stage)| c(&format!("{side} {stage}"), "µs")));
        rec.tables.push(Table {
            name: "latency.cpu".into(),
            title: "CPU per key by stage, from the pipeline's own stage timers (each thread's CPU time over the session, over the keys and pages typed)".into(),
            columns,
            rows: cpu_rows,
            plot: None,
        });
    }
    if !page_rows.is_empty() {
        rec.tables.push(Table {
            name: "latency.pages".into(),
            title: "A large update (Page Down: a new page of text) from key to the whole page shown".into(),
            columns: vec![
                c("condition", ""),
                c("pages", "count"),
                c("lost", "count"),
                c("update", "KB"),
                c("latency", "ms"),
                c("rate", "B/ms"),
            ],
            rows: page_rows,
            plot: None,
        });
    }
    paper_rows(rec, cfg, &by_name);
}

/// "Latencies exceeding 100ms begin to be noticeable" (seed 003, citing [15]): the bound of a
/// smooth operation in the modem row.
const SMOOTH_MS: f64 = 100.0;

type ByName = std::collections::BTreeMap<String, (KeyStats, Vec<KeyRecord>)>;

fn paper_rows(rec: &mut RunRecord, cfg: &LatencyConfig, by: &ByName) {
    let p95_ms = |k: &KeyStats| k.summary.map_or(f64::NAN, |s| s.p95 as f64 / 1e6);
    let p50_ms = |k: &KeyStats| k.summary.map_or(f64::NAN, |s| s.p50 as f64 / 1e6);
    let method = format!(
        "keystroke to pixels at {} wpm ({} chars a word) through latlab's RDP-style server and client, detected on the client's framebuffer",
        cfg.typist.wpm,
        latlab_desktop::defaults::CHARS_PER_WORD
    );
    // The 100 ms threshold, on the seed's 10 Mbit/s Ethernet.
    if let Some((k, _)) = by.get("10mbit").or_else(|| by.get("unloaded")) {
        let (on, key) =
            if by.contains_key("10mbit") { ("a 10 Mbit/s link", "10mbit") } else { ("loopback", "unloaded") };
        rec.paper.push(PaperRow {
            seed: "003".into(),
            figure: "§4.3 the 100 ms threshold".into(),
            paper_setting: "TSE over 10 Mbit/s Ethernet, no network load; latencies over 100 ms are noticeable [15]".into(),
            paper_value: "remote interaction \"noticeably more sluggish than local\" (subjective)".into(),
            here_value: format!(
                "on {on}: p50 {} ms, p95 {} ms, {} % of keys over 100 ms",
                sig(p50_ms(k)),
                sig(p95_ms(k)),
                sig(100.0 * k.over_threshold)
            ),
            note: format!("{method}; see latency.{key}.p95 and latency.{key}.over_threshold"),
            // The seed compares remote with local, subjectively; the 100 ms figure is a cited
            // threshold, not its finding. latlab has no local-console measurement to set beside
            // the remote one yet, so the row reports the remote figure and judges nothing.
            judgement: Judgement::not_comparable_by_design(&format!(
                "the seed's finding is remote against local at the console (\"noticeably more sluggish\", subjective), and latlab measures no local typing to compare with; the remote p95 here is {} ms, {} the cited 100 ms threshold",
                sig(p95_ms(k)),
                if p95_ms(k) > 100.0 { "over" } else { "under" }
            )),
        });
    }
    // Figure 5 through the pipeline.
    if let (Some((k, _)), Some((u, _))) = (by.get("cpu"), by.get("unloaded")) {
        // The seed's server had one CPU: its load of 10 was 10 per CPU. Spinners here are not
        // pinned, so they spread over every CPU the server may run on.
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let per_cpu = sig(cfg.spinners as f64 / cpus as f64);
        rec.paper.push(PaperRow {
            seed: "003".into(),
            figure: "Fig. 5 time spent waiting under CPU load".into(),
            paper_setting: "NT 4.0 TSE, Notepad, a key held at 20 cps, 10 spinning processes on the server".into(),
            paper_value: "more than 50 % of the time waiting at load 10".into(),
            here_value: format!(
                "{} spinners at {} ({per_cpu} per CPU on {cpus}): {} % of the time waiting (unloaded {} %); p95 {} ms (unloaded {} ms)",
                cfg.spinners,
                cfg.spin_sched,
                sig(100.0 * k.waiting_share),
                sig(100.0 * u.waiting_share),
                sig(p95_ms(k)),
                sig(p95_ms(u))
            ),
            note: format!(
                "{method}; under the CPU load typed at 20 keys a second ({} wpm), the seed's key repeat, the unloaded figure at {} wpm; waiting is the seed's measure: gaps between screen updates beyond the gaps between their keys, over the typing time (latency.cpu.waiting_share)",
                crate::defaults::FIGURE5_WPM,
                cfg.typist.wpm
            ),
            judgement: Judgement::finding(
                k.waiting_share > 0.5,
                "at a load of 10 the user spends more than half the time waiting (held to > 50 %, the seed's words)",
                &format!("{} % waiting", sig(100.0 * k.waiting_share)),
                &format!(
                    "{per_cpu} spinners per CPU here against the seed's 10 on one; Linux's scheduler (EEVDF) wakes the server promptly and gives it its share within milliseconds, where NT 4.0 gave a woken interactive thread no protection from the spinners"
                ),
            ),
        });
    }
    // Figure 6 through the pipeline.
    if let (Some((b, _)), Some((k, _))) = (by.get("10mbit_bulk"), by.get("10mbit")) {
        let added = p50_ms(b) - p50_ms(k);
        // How far the figure moves within the condition: the p50 of each third of its keys,
        // in the order typed (the flows keep running from the first third to the last).
        let shown = &b.latencies;
        let thirds: Vec<String> = shown
            .chunks(shown.len().div_ceil(3).max(1))
            .filter_map(|c| latlab_model::stats::percentile(c, 50.0))
            .map(|p| sig(p as f64 / 1e6))
            .collect();
        rec.paper.push(PaperRow {
            seed: "003".into(),
            figure: "Fig. 6 latency added by a loaded link".into(),
            paper_setting: "10 Mbit/s Ethernet with 9.6 Mbit/s of synthetic TCP traffic; ping, 64 B".into(),
            paper_value: format!("{} ms round trip added", sig(crate::paper::FIGURE_6_DELAY_MS)),
            here_value: format!(
                "keystroke p50 {} ms with TCP flows each way that the link paces (offered {:.0} % of 10 Mbit/s), {} ms without: {added:+.1} ms; p50 of each third of the keys {} ms",
                sig(p50_ms(b)),
                100.0 * crate::defaults::LATENCY_BULK_SHARE, sig(p50_ms(k)),
                thirds.join(", ")
            ),
            note: format!("{method}; the added latency is latency.10mbit_bulk.p50 − latency.10mbit.p50; HTB with its default FIFO queue between namespaces; the flows offer more than the link carries, so it saturates as the seed's did"),
            judgement: Judgement::within_factor(
                added,
                crate::paper::FIGURE_6_DELAY_MS,
                3.0,
                "a saturating flow adds the queue it keeps in front of the link: HTB's default FIFO here, with Linux's TCP holding a local sender's backlog in its socket; the study's hub and NICs queued otherwise",
            )
            .of("added p50"),
        });
    }
    // Over a modem: "few, if any, operations over such a connection will appear smooth" (the
    // seed's argument: 7 bytes a millisecond against a 702-byte average display message, and a
    // visible update is rarely one message). Measured here: a key's echo and a new page, each
    // from its key to the client's screen, against the 100 ms threshold the seed cites.
    if let Some((k, pages)) = by.get("56kbit") {
        let page_ms: Vec<f64> = pages.iter().filter_map(|p| p.latency_ns()).map(|l| l as f64 / 1e6).collect();
        let page_smooth = page_ms.iter().filter(|&&l| l <= SMOOTH_MS).count();
        let key_smooth = 1.0 - k.over_threshold;
        rec.paper.push(PaperRow {
            seed: "003".into(),
            figure: "§4.3 over a 56 kbit/s modem, few operations appear smooth".into(),
            paper_setting: format!(
                "a 56 kbit/s modem (7 bytes per ms), TSE's {}-byte average display message; argued, not measured",
                sig(crate::paper::AVG_DISPLAY_MESSAGE_B)
            ),
            paper_value: "\"few, if any, operations over such a connection will appear smooth\"".into(),
            here_value: format!(
                "keys shown within {SMOOTH_MS:.0} ms: {} % (p50 {} ms); pages: {page_smooth} of {} within {SMOOTH_MS:.0} ms{}",
                sig(100.0 * key_smooth),
                sig(p50_ms(k)),
                page_ms.len(),
                if page_ms.is_empty() {
                    String::new()
                } else {
                    format!(" (mean {} ms)", sig(page_ms.iter().sum::<f64>() / page_ms.len() as f64))
                }
            ),
            note: format!(
                "{method}; the 56kbit condition (HTB between namespaces): a key's echo and a Page Down, each from its key to the client's screen; smooth is shown within the {SMOOTH_MS:.0} ms the seed cites as noticeable"
            ),
            judgement: Judgement::finding(
                key_smooth < 0.5 && page_smooth * 2 < page_ms.len().max(1),
                &format!("most keys and most pages take longer than {SMOOTH_MS:.0} ms (held to: fewer than half of each within it)"),
                &format!("{} % of keys and {page_smooth} of {} pages within it", sig(100.0 * key_smooth), page_ms.len()),
                &format!(
                    "a key's echo here is one cached glyph, a few dozen bytes, not TSE's {}-byte average message: at 7 bytes a millisecond it still shows within 100 ms",
                    sig(crate::paper::AVG_DISPLAY_MESSAGE_B)
                ),
            ),
        });
    }
    // Large updates on 10 Mbit/s and on 56 kbit/s.
    for (name, rate, paper, setting) in [
        ("10mbit", 1250.0, "1.25 KB per ms: updates over 125 KB take over 100 ms", "10 Mbit/s Ethernet"),
        ("56kbit", 7.0, "7 bytes per ms", "a 56 kbit/s modem"),
    ] {
        let Some((_, pages)) = by.get(name) else { continue };
        let shown: Vec<&KeyRecord> = pages.iter().filter(|p| p.shown_ns.is_some()).collect();
        if shown.is_empty() {
            continue;
        }
        let bytes = shown.iter().map(|p| p.update_bytes as f64).sum::<f64>() / shown.len() as f64;
        let lat = shown.iter().filter_map(|p| p.latency_ns()).map(|l| l as f64 / 1e6).sum::<f64>() / shown.len() as f64;
        let per_ms = bytes / lat;
        rec.paper.push(PaperRow {
            seed: "003".into(),
            figure: format!("§4.3 a large update on {setting}"),
            paper_setting: format!("{setting}, arithmetic from the link rate"),
            paper_value: paper.into(),
            here_value: format!(
                "a page of text ({} KB on the wire) showed in {lat:.0} ms: {} bytes per ms",
                sig(bytes / 1000.0),
                sig(per_ms)
            ),
            note: format!(
                "{method}; Page Down from key to the whole new page equal on the client's screen (latency.{name}.page.bytes_per_ms); the time includes encoding, the TCP/IP headers' time on the link and the client's decode; the bytes are the update's payload"
            ),
            // The link is latlab's HTB shaper at the rate latlab set: the row measures back
            // that rate (the seed's own figure is arithmetic from the link rate too).
            judgement: Judgement::self_check(
                &format!("the HTB shaper latlab set to {name}"),
                Judgement::within_factor(
                    per_ms,
                    rate,
                    2.0,
                    "the update's time includes the server's encoding and the client's decoding and TCP's start after idle, not only the link",
                )
                .of("bytes per ms"),
            ),
        });
    }
}
