//! The pipeline run's rows beside seed 000: the client's CPU by stage, the slowest client that
//! keeps up, and what compression, encryption and orders cost, each judged by its rule.

use super::*;

/// The lowest client speed (MHz) that keeps up, with every faster one keeping up too: `Ok`
/// a found speed between two swept ones (the lowest that kept up, and the one below that did
/// not), `Err` a bound (every speed kept up: at most the lowest; none did: above the highest).
fn minimum_speed(by_mhz: &[(f64, f64)], keeps_up: f64) -> Result<(f64, f64), SpeedBound> {
    let mut v: Vec<(f64, f64)> = by_mhz.to_vec();
    v.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut lowest_ok = None;
    for (i, &(mhz, dropped)) in v.iter().enumerate() {
        if dropped > keeps_up {
            return match lowest_ok {
                Some(ok) => Ok((ok, mhz)),
                None => Err(SpeedBound::Above(v[0].0)),
            };
        }
        lowest_ok = Some(mhz);
        if i + 1 == v.len() {
            return Err(SpeedBound::AtMost(mhz));
        }
    }
    Err(SpeedBound::NoRuns)
}

/// What is known of the minimum speed when none was found between two swept ones.
#[derive(Debug, Clone, Copy, PartialEq)]
enum SpeedBound {
    /// Every speed tried kept up: at most the lowest, MHz.
    AtMost(f64),
    /// Not even the fastest kept up: above it, MHz.
    Above(f64),
    /// No speed was run.
    NoRuns,
}

impl std::fmt::Display for SpeedBound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpeedBound::AtMost(m) => write!(f, "≤ {} MHz (every speed tried kept up)", sig(*m)),
            SpeedBound::Above(m) => write!(f, "> {} MHz (not even the fastest kept up)", sig(*m)),
            SpeedBound::NoRuns => f.write_str("no speed was run"),
        }
    }
}

/// Why the slow client's rows are the calibration's: it scales the 1.8 GHz client's half-busy
/// demand linearly by MHz, so the `mhz` client faces that many times its CPU on any machine.
/// (The seed's own figures, 3.7 MB/s half idle at 1.8 GHz and 2.0 MB/s saturated at 233 MHz,
/// imply about 1.85.)
fn slow_demand(mhz: f64) -> String {
    format!(
        "the calibration gives the {} MHz client {} times its CPU in demand on any machine (the 1.8 GHz one half busy, scaled by MHz; the seed's own figures imply about 1.85), so it carries about the inverse of that and a setting frees it only by removing most of the work",
        sig(mhz),
        sig(0.5 * crate::defaults::PAPER_FAST_MHZ / mhz)
    )
}

pub(super) fn paper_rows(
    rec: &mut RunRecord,
    main: &Run,
    cal: &Calibration,
    by_mhz: &[(f64, Run)],
    slowed: Option<&Slowed>,
    saving: Option<(&Run, &Run)>,
) {
    let of = latlab_model::verdict::StudyRows { seed: "000", setting: crate::paper::SETTING_000 };
    let mut row = |figure: &str, paper: &str, here: String, note: &str, judgement: Judgement| {
        rec.paper.push(of.row(figure, paper, here, note, judgement))
    };
    let capacity = 1e9 / main.ns_per_byte().max(1e-9);
    let at_peak = 100.0 * PAPER_PEAK_BYTES_PER_S / capacity;
    // What separates this client from the seed's, for the `differs` verdicts.
    let cpu = "this client is a CPU two decades newer than the 1.8 GHz CEPC, running latlab's codecs in Rust";
    row(
        "peak wire rate of the animated slide show, and the client's CPU",
        "3.7 MB/s on a 1.8 GHz CEPC, CPU idle about 50 %",
        format!(
            "{} MB/s at {} % of a core; 3.7 MB/s would take {} % of a core",
            sig(main.wire_bps() / 1e6),
            sig(100.0 * main.client_cpu()),
            sig(at_peak)
        ),
        "our slide show's 480×360 picture window at 25 fps; share at 3.7 MB/s scaled from CPU per byte",
        Judgement::within_factor(at_peak, 50.0, 2.0, cpu).of("busy share at 3.7 MB/s against the seed's 50 %"),
    );
    // The stage shares on the calibrated 1.8 GHz client, of all its samples (busy or idle), as
    // the seed's profiler counted them on its half-idle CEPC: one denominator on both sides.
    let find = |mhz: f64| by_mhz.iter().find(|(m, _)| (*m - mhz).abs() < 0.5).map(|(_, r)| r);
    if let Some(fast) = find(crate::defaults::PAPER_FAST_MHZ) {
        let speed = cal.speed(crate::defaults::PAPER_FAST_MHZ);
        let t = fast.client.times;
        let all = |ns: u64| 100.0 * ns as f64 / speed / fast.client.wall_ns.max(1) as f64;
        let busy_pct = 100.0 * busy(fast, speed);
        let how = format!(
            "on the client calibrated as the seed's 1.8 GHz CEPC ({}× this CPU, {} % busy: the seed's was about 50 %), share of all its time, busy or idle, as the seed's profiler sampled it",
            sig(speed),
            sig(busy_pct)
        );
        let why = "latlab's codecs in Rust on this CPU, not CE 6.0's on a CEPC";
        // The 1.8 GHz client's share of a stage, as the seed gives it.
        let share = |stage: &str| {
            crate::paper::STAGE_SHARES.iter().find(|s| s.0 == stage).map_or((f64::NAN, f64::NAN), |s| s.2)
        };
        row(
            "decompression's share of the client CPU",
            "RDP 6.0 decompression 7 % (1.8 GHz), about 30 % (233 MHz)",
            format!("{} % of all samples", sig(all(t.decompress_ns))),
            &format!("NCRUSH (RDP 6.0 bulk compression), {how}; compared with the 1.8 GHz figure"),
            Judgement::within_factor(all(t.decompress_ns), share("decompress").0, 2.0, why),
        );
        row(
            "decryption's share of the client CPU",
            "3 to 4 % (1.8 GHz), over 15 % (233 MHz)",
            format!("{} % of all samples", sig(all(t.decrypt_ns))),
            &format!(
                "RC4 with the MAC check, as the study's forced encryption level, {how}; compared with the 1.8 GHz figure"
            ),
            Judgement::within_range(all(t.decrypt_ns), share("decrypt").0, share("decrypt").1, 2.0, why),
        );
        let copy = all(t.receive_ns) + all(t.cache_ns) + all(t.blit_ns);
        row(
            "copying bitmaps (memcpy) on the client",
            "memcpy 17 % (1.8 GHz), 19 % (233 MHz) of the CPU, over the seed's list of copies: receive buffer, TD and x224 buffers, cache line, blit",
            format!(
                "receive {} %, cache {} %, blit {} % of all samples ({} % together)",
                sig(all(t.receive_ns)),
                sig(all(t.cache_ns)),
                sig(all(t.blit_ns)),
                sig(copy)
            ),
            &format!(
                "receive: the socket read into the receive buffer; cache: storing cells; blit: drawing into the framebuffer; {how}"
            ),
            Judgement::within_factor(copy, share("blit").0, 2.0, why).of("receive + cache + blit"),
        );
    }
    let (hits, misses) = (main.server.cache_hits, main.server.cache_misses);
    row(
        "bitmap cache misses during the resource-intensive slide show",
        "none (233 MHz CEPC): bitmap caching was not the bottleneck",
        format!(
            "{misses} misses in the {:.0} s run ({} % of cache lookups hit)",
            main.client.wall_ns as f64 / 1e9,
            sig(100.0 * hits as f64 / (hits + misses).max(1) as f64)
        ),
        "the encoder's counts, whole session; misses depend on what the server draws, not on the client's speed",
        Judgement::not_comparable_by_design(
            "latlab's slide show plays video frames in its picture window, new bitmaps every frame that no cache can hold; the seed's PowerPoint animations re-used theirs, so the miss count says nothing about the cache here",
        ),
    );
    if let Some(sl) = slowed {
        // The compressor and the cipher; the orders are the seed's other finding (below).
        let settings: Vec<&(String, f64, f64)> = sl.busy.iter().filter(|s| s.0 != "bitmaps").collect();
        let least = settings.iter().min_by(|a, b| a.1.total_cmp(&b.1));
        let list = settings.iter().map(|(n, b, _)| format!("{n} {:.0} %", b * 100.0)).collect::<Vec<_>>().join(", ");
        let slowed_how =
            format!("on the client calibrated as the seed's {} MHz CEPC ({}× this CPU)", sig(sl.mhz), sig(sl.speed));
        row(
            "changing the compressor or the cipher on the slow client",
            "\"the distribution of the CPU time did change, but the usage of the CPU was still 100%\" (233 MHz CEPC; RDP 6.0 replaced by MPPC, decompression and decryption changed)",
            format!("slowed client busy: {list}"),
            &format!("the codec and cipher sweeps rerun {slowed_how}; busy is of the slowed CPU"),
            match least {
                Some((name, b, _)) => Judgement::simulated(
                    &slow_demand(sl.mhz),
                    Judgement::finding(
                        *b >= 0.9,
                        "no setting frees the slow client's CPU (held to every one keeping it ≥ 90 % busy)",
                        &format!("least busy: {name} at {:.0} %", b * 100.0),
                        "latlab's codecs cost this client differently from CE 6.0's: a lighter setting leaves the slowed CPU idle",
                    ),
                ),
                None => Judgement::not_comparable("no slowed run"),
            },
        );
        // NPPerfTune: "disable orders from RDP and send bitmaps. This yields better performance
        // in Microsoft PowerPoint scenarios", judged on the frames the slowed client showed.
        let of = |name: &str| sl.busy.iter().find(|s| s.0 == name);
        if let (Some(orders), Some(bitmaps)) = (of("defaults"), of("bitmaps")) {
            let (od, bd) = (orders.2, bitmaps.2);
            let j = if od <= crate::defaults::PIPELINE_KEEPS_UP_DROPPED
                && bd <= crate::defaults::PIPELINE_KEEPS_UP_DROPPED
            {
                Judgement::not_comparable(&format!(
                    "the slowed client kept up with orders and with bitmaps (at most {} % of frames dropped), so neither can show better performance here",
                    sig(100.0 * crate::defaults::PIPELINE_KEEPS_UP_DROPPED)
                ))
            } else {
                Judgement::finding(
                    bd < od,
                    "sending bitmaps instead of orders yields better performance in the slide show (held to fewer frames dropped)",
                    &format!("{:.0} % of frames dropped with bitmaps, {:.0} % with orders", 100.0 * bd, 100.0 * od),
                    "latlab's orders (solid fills, screen-to-screen copies) cost its client less than its bitmaps do, unlike CE 6.0's order decoding",
                )
            };
            row(
                "disabling orders on the slow client (NPPerfTune = 1)",
                "\"disable orders from RDP and send bitmaps. This yields better performance in Microsoft PowerPoint scenarios\"",
                format!(
                    "orders: {:.0} % dropped, {:.0} % busy · bitmaps: {:.0} % dropped, {:.0} % busy",
                    100.0 * od,
                    100.0 * orders.1,
                    100.0 * bd,
                    100.0 * bitmaps.1
                ),
                &format!(
                    "latlab's slide show with and without orders {slowed_how}, emulated by idling in proportion to the work measured here; performance read as frames shown"
                ),
                j,
            );
        }
    }
    // The slower client, judged on ratios: the seed's 233 MHz client carried 2.0 MB/s (or
    // 1.75: its two figures disagree) of the 1.8 GHz one's 3.7, dropping frames.
    if let (Some(fast), Some(slow)) = (find(crate::defaults::PAPER_FAST_MHZ), find(crate::defaults::PAPER_SLOW_MHZ)) {
        let ratio = slow.wire_bps() / fast.wire_bps().max(1e-9);
        let premise = if cal.premise_holds() {
            String::new()
        } else {
            format!(
                "; this CPU is {} % busy with the slide show at full speed, so even unslowed it is busier than the seed's half-idle 1.8 GHz client",
                sig(100.0 * cal.full_speed_busy)
            )
        };
        row(
            "a slower client: throughput and dropped frames",
            "233 MHz against 1.8 GHz: \"14 Mbps or 2.0 MB per second\" against 3.7 MB/s (0.47–0.54 of it; the seed's two figures disagree), frames dropped on the slow one only",
            format!(
                "233 MHz-equivalent: {} MB/s, {:.0} % of frames dropped; 1.8 GHz-equivalent: {} MB/s, {:.0} % dropped; ratio {}",
                sig(slow.wire_bps() / 1e6),
                100.0 * slow.dropped(),
                sig(fast.wire_bps() / 1e6),
                100.0 * fast.dropped(),
                sig(ratio)
            ),
            &format!(
                "both clients emulated by idling in proportion to their work, calibrated so the 1.8 GHz-equivalent is half busy with latlab's slide show as the seed's was ({}× this CPU), the 233 MHz one {}× that{premise}",
                sig(cal.fast_speed),
                sig(crate::defaults::PAPER_SLOW_MHZ / crate::defaults::PAPER_FAST_MHZ)
            ),
            Judgement::simulated(
                &slow_demand(crate::defaults::PAPER_SLOW_MHZ),
                Judgement::all(vec![
                    Judgement::within_range(
                        ratio,
                        // 14 Mbit/s (1.75 MB/s) and 2.0 MB/s: the seed's two readings of one rate.
                        1.75e6 / PAPER_PEAK_BYTES_PER_S,
                        crate::paper::SLOW_BYTES_PER_S / PAPER_PEAK_BYTES_PER_S,
                        2.0,
                        "latlab's client and slide show keep a different pace when starved of CPU",
                    )
                    .of("slow ÷ fast throughput"),
                    Judgement::finding(
                        slow.dropped() > crate::defaults::PIPELINE_KEEPS_UP_DROPPED
                            && fast.dropped() <= crate::defaults::PIPELINE_KEEPS_UP_DROPPED,
                        &format!(
                            "the slow client drops frames, the fast one does not (held to ≤ {} % dropped)",
                            sig(100.0 * crate::defaults::PIPELINE_KEEPS_UP_DROPPED)
                        ),
                        &format!("{:.0} % and {:.0} % dropped", 100.0 * slow.dropped(), 100.0 * fast.dropped()),
                        "the emulated clients' loads differ from the seed's",
                    ),
                ]),
            ),
        );
    }
    // The minimum CPU speed: "about 800 MHz" for the intensive show.
    if by_mhz.len() >= 2 {
        let drops: Vec<(f64, f64)> = by_mhz.iter().map(|(m, r)| (*m, r.dropped())).collect();
        let tried = drops.iter().map(|(m, _)| sig(*m)).collect::<Vec<_>>().join(", ");
        let (here, judgement) = match minimum_speed(&drops, crate::defaults::PIPELINE_KEEPS_UP_DROPPED) {
            Ok((ok, below)) => {
                // Found between two swept speeds: judged when the bracket is no wider than the
                // tolerance, else too coarse to say.
                let j = if ok / below <= 2.0 {
                    Judgement::within_factor(
                        ok,
                        800.0,
                        2.0,
                        "latlab's slide show and codecs load the client differently",
                    )
                    .of("lowest speed that keeps up")
                } else {
                    Judgement::not_comparable(&format!(
                        "between {} and {} MHz: too coarse to judge; the full `latlab display pipeline` sweeps {}",
                        sig(below),
                        sig(ok),
                        crate::defaults::PIPELINE_CLIENT_MHZ.map(sig).join(", ")
                    ))
                };
                (format!("{} MHz-equivalent (≤ {}, > {} MHz)", sig(ok), sig(ok), sig(below)), j)
            }
            Err(bound) => (
                bound.to_string(),
                Judgement::finding(
                    false,
                    "the client needs about 800 MHz to keep up (within 2×)",
                    &bound.to_string(),
                    "latlab's slide show and codecs load the client differently",
                ),
            ),
        };
        row(
            "the minimum client CPU speed for the intensive show",
            "about 800 MHz on a CEPC (\"for most slides, a 300 MHz CPU provides acceptable performance\")",
            here,
            &format!(
                "the slide show on clients calibrated as CEPCs of {tried} MHz; a client keeps up when it drops at most {} % of frames",
                sig(100.0 * crate::defaults::PIPELINE_KEEPS_UP_DROPPED)
            ),
            Judgement::simulated(
                "a property of the calibration: each speed is the 1.8 GHz client's half-busy demand scaled by MHz, so the speed that keeps up is about 900 MHz on any machine",
                judgement,
            ),
        );
    }
    // What RDP 6.0 saves: the slide show's bytes per frame without and with NCRUSH.
    if let Some((none, rdp6)) = saving {
        let per_frame =
            |r: &Run| r.client.bytes as f64 / r.server.frames.saturating_sub(r.server.dropped).max(1) as f64;
        let saved = 100.0 * (per_frame(none) / per_frame(rdp6).max(1e-9) - 1.0);
        row(
            "the bandwidth RDP 6.0 compression saves",
            "between 15 and 200 percent, depending on the data type",
            format!("{} % (bytes per frame sent, uncompressed against NCRUSH)", sig(saved)),
            "latlab's animated slide show, one run with the codec off and the main run with NCRUSH; saving = uncompressed ÷ compressed − 1, as the seed's \"200 percent\" reads",
            Judgement::simulated(
                "latlab's own slide show through its NCRUSH",
                Judgement::within_range(
                    saved,
                    15.0,
                    200.0,
                    2.0,
                    "latlab's slide show compresses differently from PowerPoint's animations",
                ),
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_calibration_makes_the_fast_client_half_busy_and_scales_by_mhz() {
        let c = Calibration::of(0.05);
        assert!((c.fast_speed - 0.1).abs() < 1e-12);
        assert!((c.speed(233.0) - 0.1 * 233.0 / 1800.0).abs() < 1e-12);
        assert!(c.premise_holds());
        // A CPU busier than half at full speed cannot play the 1.8 GHz client slower.
        let c = Calibration::of(0.8);
        assert_eq!(c.fast_speed, 1.0);
        assert!(!c.premise_holds());
    }

    #[test]
    fn the_minimum_speed_is_found_or_bounded() {
        let d = |v: &[(f64, f64)]| minimum_speed(v, 0.01);
        assert_eq!(d(&[(1800.0, 0.0), (800.0, 0.0), (400.0, 0.2), (233.0, 0.5)]), Ok((800.0, 400.0)));
        // Order of the runs does not matter; a faster speed that fails ends the search.
        assert_eq!(d(&[(233.0, 0.5), (1800.0, 0.0), (800.0, 0.005)]), Ok((800.0, 233.0)));
        assert!(d(&[(1800.0, 0.0), (233.0, 0.0)]).unwrap_err().to_string().starts_with("≤ 233"));
        assert!(d(&[(1800.0, 0.3), (233.0, 0.9)]).unwrap_err().to_string().starts_with("> 1800"));
    }
}
