//! The doctor's check of timer slack.

use super::*;

/// Timer slack.
pub struct TimerSlack;

impl Check for TimerSlack {
    fn inspect(&self, m: &Machine) -> Finding {
        timer_slack(m.src)
    }
}

fn timer_slack(src: &dyn Source) -> Finding {
    let f = Finding::new(
        "timer-slack",
        "Timer slack",
        "a SCHED_OTHER thread's timers may fire up to its slack late (50 µs by default) so the kernel can group wake-ups; the kernel ignores slack for real-time threads",
    );
    let slack = trim(src.read("/proc/self/timerslack_ns")).and_then(|s| s.parse::<u64>().ok());
    let mut f = match slack {
        Some(s) if s > 1_000 => f.with(
            Severity::Note,
            format!("{:.0} µs for a new thread (inherited)", s as f64 / 1000.0),
            "prctl(PR_SET_TIMERSLACK, 1) in a latency-sensitive SCHED_OTHER thread (latlab rt sets 1 ns for its own)",
        ),
        Some(s) => f.with(Severity::Fine, format!("{s} ns"), "nothing"),
        None => f.with(Severity::Note, "not readable", "prctl(PR_GET_TIMERSLACK)"),
    };
    if f.severity == Severity::Note && slack.is_some() {
        f.toggle = Some(Toggle {
            remedy: "timer-slack",
            // Level 1 at the ordinary policy (slack applies to it), unloaded.
            setup: |c| {
                (c.l1, c.l2) = crate::config::levels(
                    latlab_sys::platform::Policy::Other,
                    latlab_sys::defaults::RT_PRIORITY,
                    crate::defaults::ARBITRATION,
                    None,
                    None,
                );
                c.load = crate::config::LoadSpec::None;
            },
            headline: "unloaded.l1.latency",
            stat: Stat::P99,
        });
    }
    f
}
