//! One measured stretch of the chain on real threads: level 2 and level 1 each apply their
//! CPU, scheduling and timer slack, meet at a barrier, then run their loops; the stimulus
//! starts a little after the barrier so both are asleep in place when pulse 0 fires.

use crate::chain::{self, Level1, STOP, Slots};
use crate::config::RtConfig;
use latlab_sys::clock::{MonotonicClock, Nanos, Periodic, Timebase, set_timer_slack};
use latlab_sys::interrupt::stop_requested;
use latlab_sys::platform::{self, Capability, Sched};
use latlab_sys::wake::SignalKind;
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

/// What a phase has measured so far, handed to a checkpoint while it runs.
#[derive(Debug)]
pub struct Partial {
    /// Level 1's latencies of the pulses so far (all final).
    pub l1: Vec<i64>,
    /// Level 2's of the same pulses (one still being served reads as missed).
    pub l2: Option<Vec<i64>>,
}

/// Who looks at a phase while it runs: every `every`, `look` gets what it measured so far.
/// The waiting thread takes the snapshot; the measuring threads never wait for it.
pub struct Watch<'a> {
    /// Interval between looks.
    pub every: std::time::Duration,
    /// Called with the phase so far.
    pub look: &'a mut dyn FnMut(Partial),
}

/// Run the chain for `pulses` pulses of `period` on real threads. Progress counts pulses.
pub fn run(cfg: &RtConfig, period: Nanos, pulses: usize, progress: &AtomicU64) -> std::io::Result<Raw> {
    run_watched(cfg, period, pulses, progress, None)
}

/// [`run`], with a [`Watch`] called while the phase runs.
pub fn run_watched(
    cfg: &RtConfig,
    period: Nanos,
    pulses: usize,
    progress: &AtomicU64,
    mut watch: Option<Watch<'_>>,
) -> std::io::Result<Raw> {
    let sig = latlab_sys::wake::make(cfg.signal)?;
    let with_l2 = cfg.signal != SignalKind::None;
    let seq = AtomicU64::new(0);
    let barrier = Barrier::new(if with_l2 { 2 } else { 1 });
    let start = AtomicU64::new(0);
    let l2_tid = std::sync::atomic::AtomicI32::new(0);
    let clock = MonotonicClock::new();
    let (l1_slots, l2_slots) =
        (Slots::new(pulses, chain::MISSED), Slots::new(if with_l2 { pulses } else { 0 }, chain::MISSED));
    let done_slots = Slots::new(pulses, chain::MISSED);
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let (l1, l2, caps) = std::thread::scope(|s| {
        let h2 = with_l2.then(|| {
            let (sig, seq, barrier, start, l2_tid, slots) = (sig.as_ref(), &seq, &barrier, &start, &l2_tid, &l2_slots);
            std::thread::Builder::new()
                .name("latlab-rt-l2".into())
                .spawn_scoped(s, move || {
                    let caps = prepare_thread("l2", cfg.l2_cpu, cfg.l2, cfg.timer_slack_ns);
                    l2_tid.store(platform::thread_id(), Ordering::Release);
                    barrier.wait();
                    // Level 1 sets the start before it passes the barrier's second wait.
                    barrier.wait();
                    let sched = Periodic { start: start.load(Ordering::Acquire), interval: period };
                    let lat = chain::level2_into(&clock, sched, slots, seq, sig);
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
                let r = chain::level1_into(
                    &clock,
                    sched,
                    &l1_slots,
                    &done_slots,
                    &seq,
                    sig.as_ref(),
                    progress,
                    &stop_requested,
                );
                let _ = done_tx.send(());
                (r, caps)
            })
            .expect("spawn level 1 thread");
        // Wait for level 1, waking only to look at the phase so far.
        while let Some(w) = watch.as_mut() {
            match done_rx.recv_timeout(w.every) {
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    let k = seq.load(Ordering::Acquire);
                    if k == STOP {
                        break;
                    }
                    // Pulses below the one just published are final for level 1.
                    let n = k as usize;
                    (w.look)(Partial { l1: l1_slots.snapshot(n), l2: with_l2.then(|| l2_slots.snapshot(n)) });
                }
                _ => break,
            }
        }
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
