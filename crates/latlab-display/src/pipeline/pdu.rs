//! Seed 000's instrumented findings on the pipeline: RDP 6.0 decompression per PDU (sizes raw
//! and decompressed, time each) in the animated and the lightweight slide show, the share of
//! bitmap decompression in each, and Mstscax.dll's share of the client's CPU.

use super::*;
use latlab_desktop::pdu_stats::PduStats;

/// The per-PDU metrics of one run under `prefix` (`pipeline.pdu` or `pipeline.light.pdu`).
pub(super) fn pdu_metrics(rec: &mut RunRecord, prefix: &str, r: &Run) {
    let p = &r.client.compressed;
    rec.metric(&format!("{prefix}.per_s"), p.count() as f64 / (r.client.wall_ns.max(1) as f64 / 1e9), "1/s");
    stats_metrics(rec, prefix, p);
}

/// The per-PDU metrics of `p` under `prefix`: count, sizes raw and decompressed, times, ratio.
pub(crate) fn stats_metrics(rec: &mut RunRecord, prefix: &str, p: &PduStats) {
    rec.metric(&format!("{prefix}.count"), p.count(), "count");
    if p.count() == 0 {
        return;
    }
    for (what, h, unit) in
        [("raw_bytes", &p.raw, "bytes"), ("plain_bytes", &p.plain, "bytes"), ("decompress", &p.ns, "ns")]
    {
        rec.metric(&format!("{prefix}.{what}.min"), h.min(), unit);
        rec.metric(&format!("{prefix}.{what}.p50"), h.value_at_quantile(0.5), unit);
        rec.metric(&format!("{prefix}.{what}.p95"), h.value_at_quantile(0.95), unit);
        rec.metric(&format!("{prefix}.{what}.max"), h.max(), unit);
    }
    rec.metric(&format!("{prefix}.ratio"), p.ratio(), "ratio");
}

/// Bitmap decoding's share of the client's own CPU in `r`.
pub(super) fn bitmap_share(r: &Run) -> f64 {
    r.share(r.client.times.bitmap_ns)
}

fn kb(b: u64) -> String {
    format!("{} KB", sig(b as f64 / 1000.0))
}

fn sizes(p: &PduStats) -> String {
    format!(
        "raw {}–{} (p50 {}), decompressed {}–{} (p50 {})",
        kb(p.raw.min()),
        kb(p.raw.max()),
        kb(p.raw.value_at_quantile(0.5)),
        kb(p.plain.min()),
        kb(p.plain.max()),
        kb(p.plain.value_at_quantile(0.5))
    )
}

fn us(ns: u64) -> String {
    format!("{} µs", sig(ns as f64 / 1000.0))
}

/// What makes the PDU figures a simulation: latlab's server compresses latlab's slides, the
/// same bytes on every machine.
const SIMULATED: &str = "latlab's own server compressing latlab's own slides with NCRUSH: the PDU sizes, counts and ratios are the same on every machine";

/// The rows, from the animated show `main` and the lightweight `light`; `cal` and `by_mhz`
/// for Mstscax.dll's share on the calibrated clients.
pub(super) fn pdu_rows(rec: &mut RunRecord, main: &Run, light: Option<&Run>, cal: &Calibration, by_mhz: &[(f64, Run)]) {
    let of = latlab_model::verdict::StudyRows { seed: "000", setting: crate::paper::SETTING_000 };
    let mut row = |figure: &str, paper: &str, here: String, note: String, judgement: Judgement| {
        rec.paper.push(of.row(figure, paper, here, &note, judgement))
    };
    let m = &main.client.compressed;
    if m.count() > 0 {
        let (raw_max, plain_p50) = (m.raw.max() as f64 / 1000.0, m.plain.value_at_quantile(0.5) as f64 / 1000.0);
        row(
            "RDP 6.0 decompression per PDU, resource-intensive slide show",
            "more than a hundred PDUs; raw from hundreds of bytes to about 11 KB, decompressed 5 to 15 KB; 1 to 2 ms each (GetTickCount, a millisecond clock; the client is not named)",
            format!(
                "{} PDUs in {:.0} s; {}; {} each (p50; p95 {}) on this CPU",
                m.count(),
                main.client.wall_ns as f64 / 1e9,
                sizes(m),
                us(m.ns.value_at_quantile(0.5)),
                us(m.ns.value_at_quantile(0.95))
            ),
            "each compressed PDU's size as received and decompressed, and its decompression's CPU time on the receiving thread; see pipeline.pdu.raw_bytes.max, pipeline.pdu.plain_bytes.p50 and pipeline.pdu.decompress.p50".into(),
            Judgement::simulated(
                SIMULATED,
                Judgement::all(vec![
                    Judgement::within_factor(raw_max, 11.0, 2.0, "latlab's server packs its PDUs to sizes of its own")
                        .of("the largest raw PDU"),
                    Judgement::within_range(plain_p50, 5.0, 15.0, 2.0, "latlab's server packs its PDUs to sizes of its own")
                        .of("the median decompressed PDU"),
                ]),
            ),
        );
    }
    if let Some(l) = light.filter(|l| l.client.compressed.count() > 0 && m.count() > 0) {
        let lp = &l.client.compressed;
        let (m_rate, l_rate) = (
            m.count() as f64 / (main.client.wall_ns.max(1) as f64 / 1e9),
            lp.count() as f64 / (l.client.wall_ns.max(1) as f64 / 1e9),
        );
        let (m_raw, l_raw) = (m.raw.value_at_quantile(0.5), lp.raw.value_at_quantile(0.5));
        row(
            "the lightweight slide show's PDUs against the animated show's",
            "lightweight shows: decompression \"usually zero to one milliseconds\" against one to two, \"the data size is much smaller\", far fewer PDUs, and a better compression ratio",
            format!(
                "lightweight: {} PDUs/s, raw p50 {}, ratio {}, {} each (p50); animated: {} PDUs/s, raw p50 {}, ratio {}, {} each",
                sig(l_rate),
                kb(l_raw),
                sig(lp.ratio()),
                us(lp.ns.value_at_quantile(0.5)),
                sig(m_rate),
                kb(m_raw),
                sig(m.ratio()),
                us(m.ns.value_at_quantile(0.5))
            ),
            format!(
                "latlab's slides drawn whole every {} s with nothing animating, against the same slides wiped in with the 25 fps picture window; the decompression times are this CPU's; see pipeline.light.pdu.* beside pipeline.pdu.*",
                latlab_desktop::defaults::LIGHT_SLIDE_MS / 1000
            ),
            Judgement::simulated(
                SIMULATED,
                Judgement::all(vec![
                    Judgement::finding(
                        l_rate < m_rate,
                        "fewer PDUs (held to fewer a second)",
                        &format!("{} against {} a second", sig(l_rate), sig(m_rate)),
                        "",
                    ),
                    Judgement::finding(
                        l_raw < m_raw,
                        "smaller PDUs (held to a smaller median raw PDU)",
                        &format!("raw p50 {} against {}", kb(l_raw), kb(m_raw)),
                        "",
                    ),
                    Judgement::finding(
                        lp.ratio() > m.ratio(),
                        "a better compression ratio (held to more decompressed bytes per raw byte)",
                        &format!("{} against {}", sig(lp.ratio()), sig(m.ratio())),
                        "latlab's still slides compress no better than its animated show",
                    ),
                ]),
            ),
        );
        let (lb, mb) = (100.0 * bitmap_share(l), 100.0 * bitmap_share(main));
        let slow = crate::defaults::PAPER_SLOW_MHZ;
        let at_slow = 100.0 * l.client.times.bitmap_ns as f64 / cal.speed(slow) / l.client.wall_ns.max(1) as f64;
        row(
            "bitmap decompression: the lightweight show against the intensive one",
            "intensive show: no bitmap cache misses and little CPU in bitmap decompression; \"when running a less resource intensive slide show, the CPU spent 15 percent of the time in bitmap decompression\"",
            format!(
                "{} % of the client's CPU in the lightweight show, {} % in the animated one; the lightweight show's bitmaps would take {} % of a {} MHz-equivalent client's time",
                sig(lb),
                sig(mb),
                sig(at_slow.min(100.0)),
                sig(slow)
            ),
            format!(
                "bitmap decoding (RLE, into rows) timed inside the decode stage; the {} MHz figure scales this CPU's time by the calibration ({}× this CPU), so it is shown, not judged; see pipeline.light.bitmap.cpu_share and pipeline.bitmap.cpu_share",
                sig(slow),
                sig(cal.speed(slow))
            ),
            Judgement::finding(
                lb > mb,
                "bitmap decompression takes a larger share of the client's CPU in the lightweight show (held to its share there above the animated show's)",
                &format!("{} % against {} %", sig(lb), sig(mb)),
                "latlab's animated show sends its video frames as bitmaps, so bitmap decoding weighs at least as much there",
            ),
        );
    }
    // Mstscax.dll: the RDP client's own work (decrypting, decompressing, decoding orders and
    // bitmaps, the bitmap cache), not the network stack's reads nor the display driver's drawing.
    let mstscax = |r: &Run| {
        let t = r.client.times;
        t.decrypt_ns + t.decompress_ns + t.decode_ns + t.cache_ns + t.other_ns
    };
    let find = |mhz: f64| by_mhz.iter().find(|(m, _)| (*m - mhz).abs() < 0.5).map(|(_, r)| r);
    let (fast_mhz, slow_mhz) = (crate::defaults::PAPER_FAST_MHZ, crate::defaults::PAPER_SLOW_MHZ);
    if let Some(fast) = find(fast_mhz) {
        let all = |r: &Run, mhz: f64| 100.0 * mstscax(r) as f64 / cal.speed(mhz) / r.client.wall_ns.max(1) as f64;
        let here_fast = all(fast, fast_mhz);
        let slow = find(slow_mhz).map(|r| all(r, slow_mhz).min(100.0));
        row(
            "Mstscax.dll's share of the client CPU",
            "more than 40 % on the 233 MHz CEPC, 12 % on the 1.8 GHz CEPC (animated slide show)",
            format!(
                "{} % of all samples on the 1.8 GHz-equivalent client{}",
                sig(here_fast),
                slow.map_or(String::new(), |s| format!(", {} % on the {} MHz-equivalent", sig(s), sig(slow_mhz)))
            ),
            format!(
                "decrypt + decompress + decode + cache + the thread's other work, of all the calibrated client's time busy or idle, as the decompression row counts it; receive (the network's reads) and blit (the display driver's drawing) are left out, as they are not in the DLL; the {} MHz figure follows from the calibration (that client is busy nearly all the time), so only the 1.8 GHz one is judged",
                sig(slow_mhz)
            ),
            Judgement::within_factor(
                here_fast,
                12.0,
                2.0,
                "latlab's codecs in Rust on this CPU, not CE 6.0's on a CEPC",
            )
            .of("the 1.8 GHz-equivalent share"),
        );
    }
}
