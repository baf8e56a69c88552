//! Figure 6's paper row of `stall net`: round trip unloaded and with the link saturated.

use super::{FIGURE_6, NetConfig, Step};
use latlab_model::numfmt::sig;
use latlab_model::record::{PaperRow, RunRecord};
use latlab_model::stats;
use latlab_model::verdict::Judgement;

/// Figure 6's row: the unloaded step and the saturating one (pooled over its repeats, whose
/// means are `means`), the seed's method (ping's average and variance).
pub(super) fn figure_6(rec: &mut RunRecord, cfg: &NetConfig, pooled: &[(Step, Vec<f64>)]) {
    let sat = cfg.saturating();
    let find = |l: Option<f64>| pooled.iter().find(|(s, _)| Some(s.load) == l);
    let queue = cfg.queue_packets.map_or("1000 packets (the kernel's default)".into(), |q| format!("{q} packets"));
    let ms = |v: &[i64]| stats::summarize(v).map(|x| (x.mean / 1e6, x.stddev / 1e6));
    let (here, judgement) = match (find(Some(0.0)), find(sat)) {
        (Some((idle, _)), Some((s, means))) => match (ms(&idle.rtt), ms(&s.rtt)) {
            (Some((m0, sd0)), Some((m1, sd1))) => {
                let (lo, hi) = super::lowest_and_highest(means);
                let delivered = s.up_bytes as f64 * 8.0 / s.seconds.max(1e-9) / 1e6;
                (
                    format!(
                        "mean {} ms (σ {}) unloaded; {} ms (σ {}) with TCP flows the link paces ({} Mbit/s delivered each way), the mean of {} repeats ranging {}–{} ms",
                        sig(m0),
                        sig(sd0),
                        sig(m1),
                        sig(sd1),
                        sig(delivered),
                        means.len(),
                        sig(lo),
                        sig(hi)
                    ),
                    Judgement::all(vec![
                        Judgement::finding(
                            m0 < 5.0,
                            "low and flat unloaded (held to a mean under 5 ms)",
                            &format!("{} ms", sig(m0)),
                            "the unloaded path is already slow",
                        ),
                        Judgement::within_factor(
                            m1,
                            FIGURE_6.1,
                            2.0,
                            &format!(
                                "what a saturating flow adds is the queue it keeps in front of the link over the link's rate: here {queue} under HTB, with Linux's TCP holding its own queue short; the seed's hub and NICs queued less or more"
                            ),
                        )
                        .of("mean, link saturated"),
                    ]),
                )
            }
            _ => ("no probe answered in a step".into(), Judgement::not_comparable("every probe of a step was lost")),
        },
        _ => (
            "not run".into(),
            Judgement::not_comparable(&format!(
                "the run needs load 0 and a load above the link's rate (above {}): the seed's load saturated its link",
                crate::defaults::NET_SATURATING_ABOVE
            )),
        ),
    };
    rec.paper.push(PaperRow {
        seed: "003".into(),
        figure: "Figure 6: RTT under network load".into(),
        paper_setting: "10 Mbit/s Ethernet hub, synthetic TCP/IP load, 64-byte ping for 60 s per level".into(),
        paper_value: format!(
            "low and flat until saturation; about {} ms at {} Mbit/s of load",
            FIGURE_6.1, FIGURE_6.0
        ),
        here_value: here,
        note: format!(
            "mean and σ as the seed took ping's average and variance (its 'jitter'); a UDP probe every {} ms on absolute deadlines; HTB on veth, queue {queue}; the saturating step offers {} % of the link in TCP each way, so the link, not latlab's pacer, sets the flows' rate; {} s a repeat",
            cfg.probe_interval_ns / 1_000_000,
            sat.map_or(0, |l| (l * 100.0).round() as u64),
            cfg.step_seconds
        ),
        judgement,
    });
}
