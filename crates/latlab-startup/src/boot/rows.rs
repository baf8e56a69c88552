//! The paper rows of `latlab boot measure` (seed 004): Figure 1 (a boot with and without
//! Superfetch), the study's boot-trace auto-start beside the boot measured here, and
//! Superfetch's random-read rule on the device as it is and throttled.

use crate::boot::file::{BootSpec, StartType};
use crate::boot::run::BootTimes;
use latlab_model::numfmt::sig;
use latlab_model::record::{PaperRow, RunRecord};
use latlab_model::verdict::Judgement;

/// Seed 004 Figure 1: cold against cold + prefetch (the medians, ns, when measured).
pub fn figure1_row(rec: &mut RunRecord, cold: Option<i64>, prefetch: Option<i64>) {
    rec.paper.push(PaperRow {
        seed: "004".into(),
        figure: "Figure 1: boot time with and without Superfetch".into(),
        paper_setting: "Windows Embedded Standard 7 on a rotational HDD".into(),
        paper_value: "\"the Superfetch service clearly makes a significant difference in boot times\" (the figure's values are not in the text)".into(),
        here_value: match (cold, prefetch) {
            (Some(c), Some(p)) => format!("cold {} → cold + prefetch {} ({}×)", ms_text(c), ms_text(p), sig(c as f64 / p.max(1) as f64)),
            _ => "not measured: no boot plan (fanotify refused)".into(),
        },
        note: "medians of interleaved boots; the boot's files evicted file by file; the plan learned from a traced boot".into(),
        judgement: match (cold, prefetch) {
            (Some(c), Some(p)) => Judgement::finding(
                c as f64 / p.max(1) as f64 >= 1.1,
                "prefetching the boot plan shortens a cold boot (held to 10 % or more)",
                &format!("{}×", sig(c as f64 / p.max(1) as f64)),
                "this machine's storage reads the boot's files fast enough that prefetching adds little; the seed turns Superfetch off above about 8 Mb/s of random reads",
            ),
            _ => Judgement::not_comparable("no cold or prefetched boot was measured"),
        },
    });
}

/// Seed 004's boot-trace figure beside this machine's measured boot: the time until every
/// service that starts at boot was ready, as xperf's autoStartDuration spans the services'
/// starts — from the cold boots (the seed's was a real boot from a disk), else the warm ones.
pub fn autostart_row(rec: &mut RunRecord, spec: &BootSpec, runs: &[Vec<BootTimes>]) {
    let (state, k) = if runs[0].is_empty() { ("warm", 1) } else { ("cold", 0) };
    let all: Vec<i64> = runs[k].iter().map(|t| t.all_ns as i64).collect();
    let target: Vec<i64> = runs[k].iter().map(|t| t.target_ns as i64).collect();
    let (Some(all), Some(target)) = (latlab_model::stats::summarize(&all), latlab_model::stats::summarize(&target))
    else {
        return;
    };
    let n = spec.services.iter().filter(|s| s.start != StartType::Disabled).count();
    let source = rec.config.get("boot").and_then(|v| v.as_str()).unwrap_or("a boot file").to_string();
    rec.paper.push(PaperRow {
        seed: "004".into(),
        figure: "boot: services auto-start, this machine's boot measured".into(),
        paper_setting: "Windows Embedded Standard 7's services on 2010 hardware, xperf -a boot".into(),
        paper_value: "autoStartDuration 4,614 ms (8,531–13,146, first start to last ready); PlugPlay \"took 621ms to start\"".into(),
        here_value: format!(
            "{} ({n} services, {state} median): every service ready at {}, the target at {}",
            if source == "built-in" {
                "latlab's built-in synthetic boot".to_string()
            } else {
                format!("the boot of {source}")
            },
            ms_text(all.p50),
            ms_text(target.p50)
        ),
        note: "the same span xperf's autoStartDuration gives, from the first service's start until every service was ready; delayed services included".into(),
        judgement: Judgement::not_comparable_by_design(
            "the seed's figure is Windows' own services; here a boot of other services is measured by the same method, which shows the method, not a reproduction",
        ),
    });
}

/// Seed 004's rule: Superfetch turns itself off above about 8 Mb/s of random reads. Set the
/// device's rate beside the prefetch gain measured on it.
/// `throttled`: the device throttled (`device.throttled.*`, `boot.throttled.*`), else as is.
pub fn superfetch_rule_row(rec: &mut RunRecord, throttled: bool) {
    let t = if throttled { "throttled." } else { "" };
    let (Some(rate), Some(gain)) = (
        rec.get_metric(&format!("device.{t}random_read.bytes_per_s")).map(|m| m.value.as_f64()),
        rec.get_metric(&format!("boot.{t}prefetch.speedup")).map(|m| m.value.as_f64()),
    ) else {
        return;
    };
    let off = rate > crate::defaults::SUPERFETCH_OFF_ABOVE_BYTES_PER_S;
    rec.paper.push(PaperRow {
        seed: "004".into(),
        figure: format!(
            "Superfetch's rule for fast random reads, as latlab infers it{}",
            if throttled { " (this device throttled)" } else { "" }
        ),
        paper_setting: "Windows Embedded Standard 7; random-read throughput as the Windows System Assessment Tool measures it".into(),
        paper_value: "the service \"is turned off when the random read access throughput is measured … to be more than about 8 Mb/second\" (designed \"for rotational media\"): a rule of Windows' design; that prefetching then gains little is latlab's inference from it, not the seed's measurement".into(),
        here_value: format!(
            "{} MB/s of 4 KiB direct random reads ({}); boot-plan prefetch gain here {}×",
            sig(rate / 1e6),
            if off { "Superfetch would be off" } else { "Superfetch would be on" },
            sig(gain)
        ),
        note: "the seed's Mb is megabits: 1 MB/s; the gain is the cold boot over the cold + prefetch boot".into(),
        judgement: if off {
            Judgement::finding(
                gain < 1.1,
                "latlab's inference from the seed's rule: on a device above the threshold, prefetching gains little (held to under 10 %)",
                &format!("{}× at {} MB/s", sig(gain), sig(rate / 1e6)),
                "prefetching still pays here: the boot's reads are many and small, and issuing them ahead overlaps them with the services' CPU work, however fast one read is",
            )
        } else {
            Judgement::finding(
                gain >= 1.1,
                "latlab's inference from the seed's rule: on a device below the threshold, prefetching pays (held to 10 % or more)",
                &format!("{}× at {} MB/s", sig(gain), sig(rate / 1e6)),
                if gain < 1.0 {
                    "prefetching did not pay for this boot: its own reads already go out as few requests, with little CPU work to overlap them with, so reading the plan ahead on a slow device only competes with them"
                } else {
                    "this boot reads too little for prefetching to matter even on this slow device"
                },
            )
        },
    });
}

fn ms_text(ns: i64) -> String {
    latlab_model::record::fmt_ns(ns as f64)
}
