//! Paper-vs-here rows for seed 001: Figure 11 (CE 3.0 and CE .NET, ISR and APP start,
//! loaded and unloaded: max / min / jitter / latency) and Figure 8 (MF-ISR, MF-APP, SF).

use crate::chain::ChainStats;
use crate::config::RtConfig;
use crate::sweep::Thresholds;
use latlab_core::record::{PaperRow, RunRecord, fmt_ns};

const SETTING: &str = "StrongARM SA-1110 206 MHz, 5 kHz GPIO stimulus, oscilloscope";

/// Figure 11 values (max / min / jitter / latency, µs) for (level, phase): CE 3.0, CE .NET.
fn fig11(level: &str, phase: &str) -> (&'static str, &'static str) {
    match (level, phase) {
        ("l1", "unloaded") => ("5.2 / 1.4 / 3.8 / 2.5", "5 / 2 / 3 / 3"),
        ("l2", "unloaded") => ("17.6 / 14.4 / 3.2 / 21", "170 / 24 / 146 / 47"),
        ("l1", _) => ("7 / 2 / 5 / 5", "12.2 / 2.8 / 9.4 / 6.3"),
        _ => ("133 / 16 / 117 / 71", "125 / 46 / 79 / 53"),
    }
}

fn hz(v: f64) -> String {
    if v >= 1000.0 { format!("{:.0} kHz", v / 1000.0) } else { format!("{v:.0} Hz") }
}

/// Add the rows this run can fill.
pub fn rows(
    rec: &mut RunRecord,
    cfg: &RtConfig,
    phases: &[(&str, ChainStats)],
    sweep: Option<(Thresholds, f64, bool)>,
    unloaded: Option<Thresholds>,
) {
    let rate = 1e9 / cfg.period_ns as f64;
    for (phase, s) in phases {
        for (level, ls, paper_name, ours) in [
            ("l1", &s.l1, "ISR start", format!("level 1: {} thread woken by a CLOCK_MONOTONIC timer", cfg.l1)),
            ("l2", &s.l2, "APP start", format!("level 2: {} thread woken by {} from level 1", cfg.l2, cfg.signal)),
        ] {
            let Some(sum) = ls.summary else { continue };
            let (ce3, cenet) = fig11(level, phase);
            rec.paper.push(PaperRow {
                seed: "001".into(),
                figure: format!("Fig. 11, {paper_name}, {phase}: max / min / jitter / latency"),
                paper_setting: if *phase == "loaded" { format!("{SETTING}, Polygons at APP priority") } else { SETTING.into() },
                paper_value: format!("CE 3.0: {ce3} µs · CE .NET: {cenet} µs"),
                here_value: format!(
                    "{} / {} / {} / {}",
                    fmt_ns(sum.max as f64),
                    fmt_ns(sum.min as f64),
                    fmt_ns(sum.jitter as f64),
                    fmt_ns(sum.p50 as f64)
                ),
                note: format!(
                    "{ours}, {} pulses at {}; latency from the intended stimulus time; the paper's 'latency' is compared with our median{}{}",
                    sum.count,
                    hz(rate),
                    if ls.missed > 0 { format!("; {} pulses missed", ls.missed) } else { String::new() },
                    if *phase == "loaded" { format!("; load {}", cfg.load) } else { String::new() },
                ),
            });
        }
    }
    // MF-APP unloaded against loaded: the seed's measure of how the load moves it.
    if let (Some(u), Some((t, _, _))) = (&unloaded, &sweep) {
        let start = cfg.sweep.as_ref().map_or(0.0, |s| s.start_hz);
        // A threshold at the sweep's first rate is only a bound: level 2 missed there already.
        let at = |v: Option<f64>| match v {
            Some(v) if v <= start => format!("≤ {}", hz(v)),
            Some(v) => hz(v),
            None => "not reached".into(),
        };
        let change = match (u.mf_l2_hz, t.mf_l2_hz) {
            (Some(a), Some(b)) if a > start && b > start => {
                format!("{} → {} ({:+.0} %)", hz(a), hz(b), (b / a - 1.0) * 100.0)
            }
            (a, b) => format!("{} → {}", at(a), at(b)),
        };
        rec.paper.push(PaperRow {
            seed: "001".into(),
            figure: "Fig. 8, MF-APP unloaded → loaded".into(),
            paper_setting: format!("{SETTING}, Polygons at top priority"),
            paper_value: "CE 3.0: 28 → 15 kHz (\"more than 50 percent\") · CE .NET: 6.1 → 6 kHz (\"only about 2 percent\")".into(),
            here_value: change,
            note: format!(
                "the same geometric sweep without and then with the load {}; a rate counts as missed above {:.1} % of pulses",
                cfg.load,
                cfg.sweep.as_ref().map_or(0.1, |s| s.miss_threshold * 100.0)
            ),
        });
    }
    if let Some((t, max_rate, load_known)) = sweep {
        let (start, pct) = cfg.sweep.as_ref().map(|s| (s.start_hz, s.miss_threshold * 100.0)).unwrap_or((0.0, 0.1));
        let found = |v: Option<f64>| match v {
            Some(v) if v <= start => format!("≤ {} (missing > {pct:.1} % already at the sweep's first rate)", hz(v)),
            Some(v) => format!("{} (first rate missing > {pct:.1} %)", hz(v)),
            None => format!("not reached up to {}", hz(max_rate)),
        };
        let rows = [
            ("MF-ISR (level 1)", "CE 3.0 loaded: 127 kHz · CE .NET loaded: 47 kHz · CE 2.12: 20 Hz", found(t.mf_l1_hz)),
            ("MF-APP (level 2)", "CE 3.0 loaded: 15 kHz · CE .NET loaded: 6 kHz · CE 2.12: 19 Hz", found(t.mf_l2_hz)),
            (
                "SF (load stops)",
                "CE 3.0 loaded: 85 kHz · CE .NET loaded: 40 kHz · CE 2.12: never",
                if load_known {
                    match t.sf_hz {
                        Some(v) => hz(v),
                        None => format!("not reached up to {} (the load kept running)", hz(max_rate)),
                    }
                } else {
                    "not measured (the load's progress is unknown)".into()
                },
            ),
        ];
        for (what, paper, here) in rows {
            rec.paper.push(PaperRow {
                seed: "001".into(),
                figure: format!("Fig. 8, {what}"),
                paper_setting: format!("{SETTING}, Polygons at top priority"),
                paper_value: paper.into(),
                here_value: here,
                note: format!(
                    "geometric sweep ×{} from {} with the load {} running, all threads on {}",
                    cfg.sweep.as_ref().map(|s| s.factor).unwrap_or(2.0),
                    hz(cfg.sweep.as_ref().map(|s| s.start_hz).unwrap_or(0.0)),
                    cfg.load,
                    match cfg.l1_cpu {
                        Some(c) => format!("CPU {c}"),
                        None => "any CPU".into(),
                    }
                ),
            });
        }
    }
}
