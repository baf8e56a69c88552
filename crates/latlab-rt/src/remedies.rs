//! Seed 001's remedies, measured with `latlab rt` (`latlab tune`): shielding the measured CPU,
//! holding `/dev/cpu_dma_latency`, lifting RT throttling, a 1 ns timer slack, and the A/A run that shows the noise.

use crate::config::RtConfig;
use latlab_sys::change::hold_dma_latency;
use latlab_sys::change::{ChangeError, Undo};
use latlab_sys::remedy::{About, Arms, Better, Remedy, nothing};
use latlab_sys::shield::shield;

const RT_HEADLINES: &[(&str, &str)] = &[
    ("unloaded.l1.latency", "level 1 wake-up, unloaded"),
    ("unloaded.l2.latency", "level 2 wake-up, unloaded"),
    ("loaded.l1.latency", "level 1 wake-up, loaded"),
    ("loaded.l2.latency", "level 2 wake-up, loaded"),
];

/// `rt sweep`'s figures (`latlab tune REMEDY -- sweep …`): higher frequencies are better.
const RT_SCALARS: &[(&str, &str, Better)] = &[
    ("sweep.mf_l1_hz", "MF, level 1 (sweep)", Better::Higher),
    ("sweep.mf_l2_hz", "MF, level 2 (sweep)", Better::Higher),
    ("sweep.sf_hz", "SF (sweep)", Better::Higher),
];

/// Every remedy measured with `latlab rt`, in study order.
pub fn all() -> Vec<Remedy<RtConfig>> {
    vec![
        Remedy {
            about: About {
                name: "none",
                study: "-",
                command: &["rt"],
                default_args: &[],
                baseline: "rt as configured",
                changes: "nothing: the same configuration in both arms (an A/A run: what noise and drift alone give the verdict)",
                needs: "nothing",
                undo: "nothing to undo",
                headlines: RT_HEADLINES,
                scalars: RT_SCALARS,
            },
            arms: Arms { baseline: |_| {}, remedy: |_| Ok(nothing()) },
        },
        Remedy {
            about: About {
                name: "shield",
                study: "001",
                command: &["rt"],
                default_args: &[],
                baseline: "every task and IRQ free to run on the measured CPU",
                changes: "every other movable process into a cpuset without the measured CPU, every movable IRQ pointed at the other CPUs (cset shield / tuna)",
                needs: "root, the cpuset controller (cgroup v1 or v2), a second CPU, rt pinned (not --no-pin)",
                undo: "processes moved back to the root cpuset and the cpuset removed; each IRQ's smp_affinity_list and default_smp_affinity written back",
                headlines: RT_HEADLINES,
                scalars: RT_SCALARS,
            },
            arms: Arms {
                baseline: |_| {},
                remedy: |c| {
                    let Some(cpu) = c.l1_cpu else {
                        return Err(ChangeError::Needs {
                            what: "shielding the measured CPU".into(),
                            needs: "level 1 pinned to a CPU (drop --no-pin)".into(),
                        });
                    };
                    let mut u = Undo::new();
                    let s = shield(&mut u, cpu, &[std::process::id() as i32])?;
                    Ok((u, s.describe()))
                },
            },
        },
        Remedy {
            about: About {
                name: "dma-latency",
                study: "001",
                command: &["rt"],
                default_args: &[],
                baseline: "/dev/cpu_dma_latency not held (CPUs may enter deep idle states)",
                changes: "/dev/cpu_dma_latency held at 0 µs for the run (no deep idle states)",
                needs: "write access to /dev/cpu_dma_latency (root, usually)",
                undo: "the file is closed after the run, which drops the request",
                headlines: RT_HEADLINES,
                scalars: RT_SCALARS,
            },
            arms: Arms {
                baseline: |c| c.hold_cpu_dma_latency = false,
                remedy: |c| {
                    // Held by the guard here, not by rt itself, so a refusal stops the A/B
                    // instead of becoming a warning inside the run.
                    c.hold_cpu_dma_latency = false;
                    let mut u = Undo::new();
                    hold_dma_latency(&mut u).map_err(|e| ChangeError::Needs {
                        what: "holding /dev/cpu_dma_latency".into(),
                        needs: format!("write access to it ({e})"),
                    })?;
                    Ok((u, "/dev/cpu_dma_latency held at 0 µs".into()))
                },
            },
        },
        Remedy {
            about: About {
                name: "rt-throttling",
                study: "001",
                command: &["rt"],
                default_args: &["--load", "hog"],
                baseline: "RT throttling and the fair server as the kernel has them (rt --rt-throttling keep)",
                changes: "RT throttling lifted for the run (sched_rt_runtime_us -1, the measured CPU's fair server off: rt --rt-throttling lift); measured by default with a load that never blocks, which throttling holds",
                needs: "root (the settings are the kernel's)",
                undo: "rt restores both settings after its run (and a killed run's marker lets the next, or latlab clean, put them back)",
                headlines: RT_HEADLINES,
                scalars: RT_SCALARS,
            },
            arms: Arms {
                baseline: |c| c.throttling = crate::throttle::Throttling::Keep,
                remedy: |c| {
                    c.throttling = crate::throttle::Throttling::Lift;
                    Ok(nothing())
                },
            },
        },
        Remedy {
            about: About {
                name: "timer-slack",
                study: "001",
                command: &["rt"],
                default_args: &[],
                baseline: "the default timer slack, 50 µs, on both levels",
                changes: "timer slack 1 ns on both levels (prctl PR_SET_TIMERSLACK)",
                needs: "nothing (a thread sets its own slack)",
                undo: "per thread: the run's threads end with it",
                headlines: RT_HEADLINES,
                scalars: RT_SCALARS,
            },
            arms: Arms {
                baseline: |c| c.timer_slack_ns = 50_000,
                remedy: |c| {
                    c.timer_slack_ns = 1;
                    Ok(nothing())
                },
            },
        },
    ]
}
