//! One measured stretch of the chain on real threads: level 2 and level 1 each apply their
//! CPU, scheduling and timer slack, meet at a barrier, then run their loops; the stimulus
//! starts a little after the barrier so both are asleep in place when pulse 0 fires.

use crate::chain::{self, Level1};
use crate::config::RtConfig;
use crate::signal::{self, SignalKind};
use latlab_core::clock::{MonotonicClock, Nanos, Periodic, Timebase, set_timer_slack};
use latlab_core::interrupt::stop_requested;
use latlab_core::platform::{self, Capability, Sched};
use std::sync::Barrier;
use std::sync::atomic::{AtomicU64, Ordering};

/// Lead time between both threads being ready and the first pulse.
const LEAD_NS: Nanos = 2_000_000;

/// The raw result of one stretch.
#[derive(Debug, Clone)]
pub struct Raw {
    /// Level 1's per-pulse record.
    pub l1: Level1,
    /// Level 2's per-pulse latencies (None without level 2).
    pub l2: Option<Vec<i64>>,
    /// What the threads got.
    pub capabilities: Vec<Capability>,
}

/// Apply a level's CPU, scheduling and timer slack on the calling thread; the capability
/// records are named `<level>.<knob>` (e.g. `l1.sched.fifo`).
fn prepare_thread(level: &str, cpu: Option<usize>, sched: Sched, slack: Nanos) -> Vec<Capability> {
    let mut caps = Vec::new();
    if let Some(c) = cpu {
        caps.push(platform::set_affinity(&[c]));
    }
    caps.push(platform::set_sched(sched));
    caps.push(match set_timer_slack(slack) {
        Ok(got) => Capability::granted("timer_slack", format!("{slack} ns"), format!("{got} ns")),
        Err(e) => Capability::refused("timer_slack", format!("{slack} ns"), "default", e.to_string()),
    });
    caps.into_iter().map(|c| Capability { name: format!("{level}.{}", c.name), ..c }).collect()
}

/// Run the chain for `pulses` pulses of `period` on real threads. Progress counts pulses.
pub fn run(cfg: &RtConfig, period: Nanos, pulses: usize, progress: &AtomicU64) -> std::io::Result<Raw> {
    let sig = signal::make(cfg.signal)?;
    let with_l2 = cfg.signal != SignalKind::None;
    let seq = AtomicU64::new(0);
    let barrier = Barrier::new(if with_l2 { 2 } else { 1 });
    let start = AtomicU64::new(0);
    let l2_tid = std::sync::atomic::AtomicI32::new(0);
    let clock = MonotonicClock::new();
    let (l1, l2, caps) = std::thread::scope(|s| {
        let h2 = with_l2.then(|| {
            let (sig, seq, barrier, start, l2_tid) = (sig.as_ref(), &seq, &barrier, &start, &l2_tid);
            std::thread::Builder::new()
                .name("latlab-rt-l2".into())
                .spawn_scoped(s, move || {
                    let caps = prepare_thread("l2", cfg.l2_cpu, cfg.l2, cfg.timer_slack_ns);
                    l2_tid.store(platform::thread_id(), Ordering::Release);
                    barrier.wait();
                    // Level 1 sets the start before it passes the barrier's second wait.
                    barrier.wait();
                    let sched = Periodic { start: start.load(Ordering::Acquire), interval: period };
                    let lat = chain::level2(&clock, sched, pulses, seq, sig);
                    (lat, caps)
                })
                .expect("spawn level 2 thread")
        });
        let h1 = std::thread::Builder::new()
            .name("latlab-rt-l1".into())
            .spawn_scoped(s, || {
                let caps = prepare_thread("l1", cfg.l1_cpu, cfg.l1, cfg.timer_slack_ns);
                barrier.wait();
                let t0 = clock.now() + LEAD_NS;
                start.store(t0, Ordering::Release);
                barrier.wait();
                let sched = Periodic { start: t0, interval: period };
                let r = chain::level1(&clock, sched, pulses, &seq, sig.as_ref(), progress, &stop_requested);
                (r, caps)
            })
            .expect("spawn level 1 thread");
        let (l1, mut caps) = h1.join().expect("level 1 thread panicked");
        // Level 1 has sent its stop. A real-time level 2 at the load's priority may wait
        // behind a FIFO load that never blocks: raise it to level 1's priority so it can
        // drain and end. Nothing is measured after the stop, so this changes no figure.
        if cfg.l2.policy.is_realtime() && cfg.l1.policy.is_realtime() && cfg.l1.priority > cfg.l2.priority {
            let _ = platform::set_sched_of(l2_tid.load(Ordering::Acquire), cfg.l1);
        }
        let l2 = h2.map(|h| {
            let (lat, c2) = h.join().expect("level 2 thread panicked");
            caps.extend(c2);
            lat
        });
        (l1, l2, caps)
    });
    Ok(Raw { l1, l2, capabilities: caps })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::analyze;

    #[test]
    fn a_short_phase_on_real_threads_adds_up() {
        // Unpinned, default policies that need no privilege: counts only, never values.
        let cfg = RtConfig {
            l1: Sched { policy: platform::Policy::Other, priority: 0 },
            l2: Sched { policy: platform::Policy::Other, priority: 0 },
            l1_cpu: None,
            l2_cpu: None,
            ..RtConfig::default()
        };
        let p = AtomicU64::new(0);
        let raw = run(&cfg, 500_000, 100, &p).unwrap();
        let s = analyze(&raw.l1.latency, raw.l2.as_deref(), raw.l1.pulses);
        assert_eq!(s.pulses, 100);
        assert_eq!(s.l1.served + s.l1.missed, 100);
        assert_eq!(p.load(Ordering::Relaxed), 100);
        assert!(s.l2.served > 0);
        assert!(raw.capabilities.iter().any(|c| c.name == "l1.sched.other"));
        assert!(raw.capabilities.iter().any(|c| c.name == "l2.sched.other"));
        // Level 1 only.
        let raw = run(&RtConfig { signal: SignalKind::None, ..cfg }, 500_000, 20, &p).unwrap();
        assert!(raw.l2.is_none());
        assert_eq!(raw.l1.pulses, 20);
    }
}
