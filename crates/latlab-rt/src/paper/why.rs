//! Why a row of seed 001 differs: the mechanism that separates this measurement from the
//! paper's (the wake path, how level 2 shares the CPU with the load, RT throttling), how level
//! 2's misses under load fell, and the refusal that makes a loaded row not comparable.

use crate::chain::ChainStats;
use crate::config::RtConfig;
use crate::throttle::State;
use latlab_model::record::{RunRecord, fmt_ns};
use latlab_model::verdict::Judgement;

/// What differs between the paper's measurement and this one, for the `differs` verdicts.
/// Unloaded (`loaded` false), only the wake path and the machine; loaded, also how level 2
/// shares the CPU with the load and, when it was kept, RT throttling.
pub(super) fn mechanism(rec: &RunRecord, cfg: &RtConfig, loaded: bool, throttling: &State) -> String {
    let i = &rec.machine.info;
    let share = match (loaded, cfg.l2.policy, &cfg.load) {
        (true, _, crate::config::LoadSpec::Polygons { pace: Some(p), .. }) => format!(
            "; under load, level 2 runs once the polygons slice in progress ends (at most {} of drawing, then the load rests {})",
            fmt_ns(p.draw_ns as f64),
            fmt_ns(p.rest_ns as f64)
        ),
        (true, latlab_sys::platform::Policy::Rr, _) => {
            "; under load, level 2 waits for the load's SCHED_RR slice to end".to_string()
        }
        (true, latlab_sys::platform::Policy::Fifo, _) => {
            "; level 2 and the load share one SCHED_FIFO priority".to_string()
        }
        (true, ..) => "; level 2 and the load share the CPU under the fair scheduler".to_string(),
        (false, ..) => String::new(),
    };
    // Kept on purpose: a real-time load that uses up the RT bandwidth makes the kernel hold
    // every real-time thread, level 1 too, for the rest of each period.
    let throttle = match (loaded, throttling, &i.rt_throttling) {
        (true, State::Kept, Some(t)) => format!(
            "; RT throttling kept (`--rt-throttling keep`): once the load uses up the RT bandwidth ({} of every {} ms) the kernel holds every real-time thread, level 1 too",
            t.runtime_us / 1000,
            t.period_us / 1000
        ),
        _ => String::new(),
    };
    format!(
        "here a thread woken by a timer through the Linux scheduler ({} preemption{}{}{share}{throttle}), there a GPIO interrupt timed by an oscilloscope on CE",
        i.preemption.as_deref().unwrap_or("unknown"),
        i.cpu_model.as_deref().map(|c| format!(", {c}")).unwrap_or_default(),
        match i.virtualization.as_deref() {
            Some(v) if v.starts_with("vm") => ", under a hypervisor".to_string(),
            _ => String::new(),
        }
    )
}

/// What level 2's misses under load were, from the run's own data: how they fell (runs of
/// consecutive pulses, the longest as a length of time) and, with latlab's paced polygons,
/// that the load's slice, shorter than the period, cannot be their cause; what took the CPU
/// from level 2 is then said to be unexplained, since the run records nothing that names it.
/// `None` when level 2 missed nothing.
pub(super) fn level2_misses(cfg: &RtConfig, s: &ChainStats) -> Option<String> {
    if s.l2.missed == 0 {
        return None;
    }
    let (period, runs) = (cfg.period_ns, s.l2.runs);
    let shape = format!(
        "level 2's {} misses came in {} run(s), the longest {} pulse(s) in a row ({}), while level 1 on its CPU missed {}",
        s.l2.missed,
        runs.count,
        runs.longest,
        fmt_ns((runs.longest * period) as f64),
        s.l1.missed
    );
    Some(match &cfg.load {
        crate::config::LoadSpec::Polygons { pace: Some(p), .. } if p.draw_ns < period => format!(
            "{shape}; one polygons slice ({} of drawing, then {} at rest) is shorter than the period ({}), so the load's slice cannot make level 2 miss: what kept it from the CPU is unexplained by this run (steal, other real-time work and the kernel are candidates its data cannot tell apart)",
            fmt_ns(p.draw_ns as f64),
            fmt_ns(p.rest_ns as f64),
            fmt_ns(period as f64)
        ),
        _ => shape,
    })
}

/// A loaded or swept row measured while RT throttling could not be lifted says nothing about
/// the scheduler: it is not comparable, with the reason.
pub(super) fn unless_refused(throttling: &State, j: Judgement) -> Judgement {
    match throttling {
        State::Refused(why) => Judgement::not_comparable(&format!("{why}; measured all the same")),
        _ => j,
    }
}
