//! The experiments `latlab suite` runs, in order. Each experiment issue adds its entry here
//! (the binary is the only crate that knows every experiment crate).

use latlab_core::platform::CapabilityRefused;
use latlab_core::record::RunRecord;
use latlab_core::selftest::{self, SelftestConfig};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

/// What the suite passes to every experiment.
#[derive(Debug, Clone, Copy)]
pub struct SuiteContext {
    /// Turn refused capabilities into errors.
    pub strict: bool,
}

/// A registered experiment.
pub struct Experiment {
    /// Experiment (subcommand) name.
    pub name: &'static str,
    /// One line on what it measures.
    pub about: &'static str,
    /// Steps its short run will report through the progress counter.
    pub steps: fn(&SuiteContext) -> u64,
    /// Run the short version (one or more stored runs).
    pub run_short: fn(&SuiteContext, Arc<AtomicU64>) -> Result<Vec<RunRecord>, SuiteError>,
    /// Metrics shown in the suite summary (name, label).
    pub headline: &'static [(&'static str, &'static str)],
}

fn selftest_short(ctx: &SuiteContext) -> SelftestConfig {
    SelftestConfig { strict: ctx.strict, ..SelftestConfig::short() }
}

fn rt_short(ctx: &SuiteContext) -> latlab_rt::config::RtConfig {
    latlab_rt::config::RtConfig { strict: ctx.strict, ..latlab_rt::config::RtConfig::suite() }
}

/// Every experiment, in the order the suite runs them.
pub fn experiments() -> Vec<Experiment> {
    vec![
        Experiment {
            name: "selftest",
            about: "clock and timer trustworthiness, scheduling granted",
            steps: |ctx| selftest_short(ctx).total_steps(),
            run_short: |ctx, progress| Ok(vec![selftest::run(&selftest_short(ctx), Some(progress))?]),
            headline: &[
                ("clock.read_cost.mean", "clock read"),
                ("sleep.other.1ms.p99", "1 ms sleep p99 (default)"),
                ("sleep.fifo.100us.p99", "100 µs sleep p99 (FIFO)"),
                ("sleep.fifo.100us.max", "100 µs sleep max (FIFO)"),
            ],
        },
        Experiment {
            name: "rt",
            about: "wake-up chain determinism, unloaded and loaded, with a quick MF/SF sweep (seed 001)",
            steps: |ctx| rt_short(ctx).total_steps(),
            run_short: |ctx, progress| {
                latlab_rt::run(&rt_short(ctx), progress).map(|o| vec![o.record]).map_err(|e| match e {
                    latlab_rt::RtError::Capability(c) => SuiteError::Capability(c),
                    other => SuiteError::Other(other.to_string()),
                })
            },
            headline: &[
                ("unloaded.l1.latency.p99", "L1 p99"),
                ("loaded.l2.latency.p99", "L2 p99 loaded"),
                ("sweep.mf_l1_hz", "MF-L1"),
                ("sweep.mf_l2_hz", "MF-L2"),
                ("sweep.sf_hz", "SF"),
            ],
        },
        Experiment {
            name: "udp",
            about: "UDP interval timing on loopback, then seed 002's hold-and-release pattern through the relay",
            steps: |_| udp_short().iter().map(|c| c.count() as u64).sum(),
            run_short: |_, progress| {
                let mut out = Vec::new();
                for cfg in udp_short() {
                    out.push(latlab_udp::run(&cfg, progress.clone()).map_err(|e| SuiteError::Other(e.to_string()))?);
                    if latlab_core::interrupt::stop_requested() {
                        break;
                    }
                }
                Ok(out)
            },
            headline: &[
                ("rtt.p50", "RTT p50"),
                ("timer_error.p99", "timer error p99"),
                ("loss.ratio", "loss"),
                ("burst.release_period", "release period"),
                ("dejitter.delay_for_1pct_late", "de-jitter for 1 % late"),
            ],
        },
        Experiment {
            name: "display",
            about: "remote display (seeds 000, 003): traffic per operation, the bitmap-cache cliff per eviction policy with banner + ticker, and the client's CPU per stage over TCP",
            steps: |_| {
                use latlab_display::{cache_exp::CacheConfig, ops::OpsConfig, pipeline::PipelineConfig};
                OpsConfig::short().steps() + CacheConfig::short().steps() + PipelineConfig::short().steps()
            },
            run_short: |_, progress| {
                use latlab_display::{cache_exp, ops, pipeline};
                let err = |e: &dyn std::fmt::Display| SuiteError::Other(e.to_string());
                let mut out = vec![ops::run_ops(&ops::OpsConfig::short(), progress.clone()).map_err(|e| err(&e))?];
                if !latlab_core::interrupt::stop_requested() {
                    out.push(
                        cache_exp::run_cache(&cache_exp::CacheConfig::short(), progress.clone())
                            .map_err(|e| err(&e))?,
                    );
                }
                if !latlab_core::interrupt::stop_requested() {
                    out.push(
                        pipeline::run_pipeline(&pipeline::PipelineConfig::short(), progress).map_err(|e| err(&e))?,
                    );
                }
                Ok(out)
            },
            headline: &[
                ("ops.typing.display_bps", "typing 100 wpm, display"),
                ("ops.typing.keystroke_wire_bytes", "one keystroke on the wire"),
                ("cache.lru.cliff_ratio", "LRU cliff (bytes at capacity+1 / at capacity)"),
                ("cache.best_policy_vs_opt", "best policy vs optimum at capacity+1"),
                ("cache.banner_ticker.lru.excess_ratio", "banner+ticker vs the sum alone (LRU)"),
                ("pipeline.client.share_at_paper_peak", "client CPU at 3.7 MB/s (share of a core)"),
                ("pipeline.decompress.cpu_share", "decompression's share of client CPU"),
            ],
        },
        Experiment {
            name: "stall",
            about: "typing probe stalls and echo latency under CPU load at two policies, idle lost time, RTT under network load between namespaces (seed 003)",
            steps: |_| latlab_stall::cpu::CpuConfig::short().steps(),
            run_short: |_, progress| {
                let err = |e: &dyn std::fmt::Display| SuiteError::Other(e.to_string());
                let mut out = vec![
                    latlab_stall::cpu::run_cpu(&latlab_stall::cpu::CpuConfig::short(), progress)
                        .map_err(|e| err(&e))?,
                ];
                if !latlab_core::interrupt::stop_requested() {
                    out.push(
                        latlab_stall::idle::run_idle(&latlab_stall::idle::IdleConfig::short()).map_err(|e| err(&e))?,
                    );
                }
                if !latlab_core::interrupt::stop_requested() {
                    use latlab_stall::mem::{MemConfig, MemError, run_mem};
                    match run_mem(&MemConfig::short()) {
                        Ok(r) => out.push(r),
                        Err(MemError::NoSwap(why)) => {
                            let msg = format!("warm-start test skipped: {why}");
                            eprintln!("stall: {msg}");
                            out[0].warn(msg);
                        }
                        Err(e) => return Err(err(&e)),
                    }
                }
                if !latlab_core::interrupt::stop_requested() {
                    use latlab_stall::net::{NetConfig, NetError, run_net};
                    match run_net(&NetConfig::short(), Arc::new(AtomicU64::new(0))) {
                        Ok(r) => out.push(r),
                        // Namespaces need root: a clear skip, kept in the CPU run's warnings.
                        Err(NetError::Refused(why)) => {
                            let msg = format!("network sweep skipped: {why}");
                            eprintln!("stall: {msg}");
                            out[0].warn(msg);
                        }
                        Err(e) => return Err(err(&e)),
                    }
                }
                Ok(out)
            },
            headline: &[
                ("cpu.n20.waiting_fraction", "waiting at 20 spinners"),
                ("cpu.n20.stall.p99", "stall p99 at 20"),
                ("cpu.n20.echo.p99", "echo p99 at 20"),
                ("cpu.idle.n20.echo.p99", "echo p99 at 20 idle-policy spinners"),
                ("idle.lost_fraction", "idle lost time"),
                ("mem.warm_start.after_pageout", "warm start after page-out"),
                ("net.load0.rtt.p50", "RTT unloaded"),
                ("net.load96.rtt.p50", "RTT at 96 % offered"),
            ],
        },
        Experiment {
            name: "boot",
            about: "boot-trace analysis of the bundled xperf excerpt from seed 004 (services by cost, critical path, candidates)",
            steps: |_| 1,
            run_short: |_, progress| {
                use latlab_startup::boot::{SAMPLE_XPERF, analyze, parse, record};
                let t = parse(SAMPLE_XPERF).map_err(|e| SuiteError::Other(format!("the bundled sample: {e}")))?;
                progress.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Ok(vec![record("bundled: seed 004's xperf excerpt", &t, &analyze(&t))])
            },
            headline: &[("boot.autostart_ms", "auto-start"), ("boot.slowest_ms", "slowest service")],
        },
        Experiment {
            name: "startup",
            about: "launch plans (seed 004): record and measure the built-in file-heavy launch cold, warm and cold + prefetch",
            steps: |_| latlab_startup::measure::builtin_steps(latlab_startup::defaults::SUITE_RUNS, false),
            run_short: |_, progress| {
                use latlab_startup::defaults::{FIXTURE_PARENT, SUITE_FIXTURE, SUITE_RUNS, prefetch_threads};
                use latlab_startup::record::StartupError;
                let exe = std::env::current_exe().map_err(|e| SuiteError::Other(format!("latlab's own path: {e}")))?;
                let app = vec![exe.display().to_string(), "startup".into(), "fixture-app".into()];
                let parent = std::path::Path::new(FIXTURE_PARENT);
                match latlab_startup::measure::builtin(
                    &app,
                    parent,
                    SUITE_FIXTURE,
                    SUITE_RUNS,
                    prefetch_threads(),
                    false,
                    &progress,
                ) {
                    Ok(recs) => Ok(recs),
                    Err(e @ (StartupError::Refused(_) | StartupError::InMemory(_))) => {
                        // Nothing to measure here: say why in a stored run rather than fail the suite.
                        let msg = format!("startup skipped: {e}");
                        eprintln!("{msg}");
                        let mut rec = latlab_core::record::RunRecord::begin("startup");
                        rec.config("experiment", "skipped");
                        rec.warn(msg);
                        rec.finish(latlab_core::record::RunStatus::Failed);
                        Ok(vec![rec])
                    }
                    Err(e) => Err(SuiteError::Other(format!("startup: {e}"))),
                }
            },
            headline: &[
                ("launch.cold.p50", "cold launch"),
                ("launch.warm.p50", "warm launch"),
                ("launch.prefetch.p50", "cold + prefetch launch"),
                ("launch.prefetch_speedup", "prefetch speedup over cold"),
                ("plan.fraction_of_whole", "plan pages / whole files"),
            ],
        },
    ]
}

/// The suite's udp runs: 5 s at 1 ms on clean loopback, then the study's pattern — a 100 ms
/// sender through a relay that holds packets and releases them every 1.23 s, for 7.5 s
/// (six releases) plus 2 s to collect the last ones.
fn udp_short() -> Vec<latlab_udp::UdpConfig> {
    use latlab_udp::{Mode, UdpConfig};
    vec![
        UdpConfig {
            mode: Mode::Loopback { ipv6: false, relay: None },
            interval_ns: 1_000_000,
            duration_ns: 5_000_000_000,
            size: 64,
            key: None,
            wait_ns: 500_000_000,
        },
        UdpConfig::study_pattern(7_500_000_000),
    ]
}

/// Why a suite experiment could not run.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    /// `--strict` and a capability was refused.
    #[error(transparent)]
    Capability(#[from] CapabilityRefused),
    /// Anything else, with its message.
    #[error("{0}")]
    Other(String),
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_are_unique_and_valid() {
        let e = super::experiments();
        let mut names: Vec<_> = e.iter().map(|x| x.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), e.len());
        assert!(names.iter().all(|n| latlab_core::record::valid_name(n)));
    }
}
