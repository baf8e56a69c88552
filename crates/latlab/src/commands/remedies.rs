//! The remedies `latlab tune` measures: for each, its study, the experiment it is measured
//! with, what the baseline is, what the remedy changes, the headline series judged, and the
//! two arms as changes to the experiment's configuration (the remedy's arm may also change
//! the machine, under an [`Undo`] guard dropped right after its run).

use latlab_display::latency::LatencyConfig;
use latlab_display::net::Cures;
use latlab_display::pipeline::PipelineConfig;
use latlab_output::tune::{Better, Headline, RemedyInfo};
use latlab_rt::config::RtConfig;
use latlab_stall::pressure::PressureConfig;
use latlab_sys::cgroup::{self, Hierarchy};
use latlab_sys::change::{ChangeError, Undo, hold_dma_latency};
use latlab_sys::shield::shield;
use latlab_udp::UdpConfig;
use latlab_udp::playout::PlayoutMode;

/// A machine change made for the remedy's run: the guard, and what it did (for the record).
pub type Applied = (Undo, String);

/// The arms of an A/B on configuration `C`.
pub struct Arms<C> {
    /// Make `C` the baseline.
    pub baseline: fn(&mut C),
    /// Make `C` the remedy, changing the machine if the remedy does.
    pub remedy: fn(&mut C) -> Result<Applied, ChangeError>,
}

/// Which experiment a remedy is measured with.
pub enum Plan {
    /// `latlab rt`.
    Rt(Arms<RtConfig>),
    /// `latlab display latency`.
    DisplayLatency(Arms<LatencyConfig>),
    /// `latlab display pipeline`.
    DisplayPipeline(Arms<PipelineConfig>),
    /// `latlab stall pressure`.
    StallPressure(Arms<PressureConfig>),
    /// `latlab udp` (loopback).
    Udp(Arms<UdpConfig>),
}

/// One remedy.
pub struct Remedy {
    /// The name `latlab tune` takes.
    pub name: &'static str,
    /// Study and section.
    pub study: &'static str,
    /// The command it is measured with (words after `latlab`).
    pub command: &'static [&'static str],
    /// That command's options when none are given after `--`.
    pub default_args: &'static [&'static str],
    /// The baseline.
    pub baseline: &'static str,
    /// What the remedy changes.
    pub changes: &'static str,
    /// What it needs.
    pub needs: &'static str,
    /// How it is undone.
    pub undo: &'static str,
    /// The series judged, lower is better: (name, label).
    pub headlines: &'static [(&'static str, &'static str)],
    /// Metrics judged with one value a run, and which way is better (judged when the options
    /// run them, e.g. MF and SF with `-- sweep`).
    pub scalars: &'static [(&'static str, &'static str, Better)],
    /// The arms.
    pub plan: Plan,
}

impl Remedy {
    /// For the record.
    pub fn info(&self) -> RemedyInfo {
        RemedyInfo {
            name: self.name.into(),
            study: self.study.into(),
            experiment: self.command.join(" "),
            baseline: self.baseline.into(),
            changes: self.changes.into(),
        }
    }

    /// The headlines: the latencies, then the per-run figures.
    pub fn headlines(&self) -> Vec<Headline> {
        let series = self.headlines.iter().map(|(s, l)| Headline::lower(s, l));
        series
            .chain(self.scalars.iter().map(|(m, l, b)| match b {
                Better::Higher => Headline::higher_metric(m, l),
                Better::Lower => Headline::lower_metric(m, l),
            }))
            .collect()
    }
}

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

/// Seed 000's figures on its slow client: CPU per byte, frames dropped, throughput.
const PIPELINE_SCALARS: &[(&str, &str, Better)] = &[
    ("pipeline.client.ns_per_byte", "client CPU per byte received", Better::Lower),
    ("pipeline.dropped_fraction", "frames dropped", Better::Lower),
    ("pipeline.wire_bytes_per_s", "throughput on the wire", Better::Higher),
];

/// The main slide-show run only, on a client slowed until it saturates, as seed 000's 233 MHz
/// client was (100 % busy, frames dropped): at 0.13× (233 MHz of 1.8 GHz) this machine's
/// client is about 90 % busy and drops no frames; at 0.04× it is 94 % busy and drops about a
/// quarter (a faster machine needs a lower speed: `-- --main-only --speed 0.02`).
const PIPELINE_ARGS: &[&str] = &["--main-only", "--speed", "0.04"];

/// The seed's client: no cures, orders, its default buffer and threshold.
fn seed_client(c: &mut PipelineConfig) {
    c.view.cures = Cures::default();
    c.orders = true;
}

fn cure(c: &mut PipelineConfig, f: fn(&mut Cures)) -> Result<Applied, ChangeError> {
    seed_client(c);
    f(&mut c.view.cures);
    c.view.cures.validate(c.crypto).map_err(|e| ChangeError::Needs { what: "the cure".into(), needs: e })?;
    Ok(nothing())
}

const LATENCY_HEADLINES: &[(&str, &str)] = &[("latency.cpu", "keystroke to pixels under CPU load")];

const PRESSURE_HEADLINES: &[(&str, &str)] = &[
    ("pressure.d150.warm_start", "warm start at 150 % memory demand"),
    ("pressure.d080.warm_start", "warm start at 80 % memory demand"),
];

fn no_mem_remedy(c: &mut PressureConfig) {
    (c.hog_limit_mib, c.server_low_mib) = (None, None);
}

/// The spinners' policy the §4.1 remedies start from: the normal one, as the seed's load ran.
fn latency_baseline(c: &mut LatencyConfig) {
    c.spin_sched = latlab_sys::spin::SpinSched { policy: latlab_sys::platform::Policy::Other, nice: 0 };
    c.placement = Default::default();
}

fn nothing() -> Applied {
    (Undo::new(), String::new())
}

/// Every remedy, in study order.
pub fn all() -> Vec<Remedy> {
    vec![
        Remedy {
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
            plan: Plan::Rt(Arms { baseline: |_| {}, remedy: |_| Ok(nothing()) }),
        },
        Remedy {
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
            plan: Plan::Rt(Arms {
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
            }),
        },
        Remedy {
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
            plan: Plan::Rt(Arms {
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
            }),
        },
        Remedy {
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
            plan: Plan::Rt(Arms {
                baseline: |c| c.timer_slack_ns = 50_000,
                remedy: |c| {
                    c.timer_slack_ns = 1;
                    Ok(nothing())
                },
            }),
        },
        Remedy {
            name: "direct",
            study: "000",
            command: &["display", "pipeline"],
            default_args: PIPELINE_ARGS,
            baseline: "the seed's client: each PDU copied from the receive buffer into a data buffer, then decrypted and decompressed",
            changes: "each PDU decrypted in place and decompressed straight from the receive buffer (no copy)",
            needs: "nothing (a client code path)",
            undo: "nothing on the machine changes",
            headlines: &[],
            scalars: PIPELINE_SCALARS,
            plan: Plan::DisplayPipeline(Arms { baseline: seed_client, remedy: |c| cure(c, |k| k.direct = true) }),
        },
        Remedy {
            name: "skip-mac",
            study: "000",
            command: &["display", "pipeline"],
            default_args: PIPELINE_ARGS,
            baseline: "the seed's client: RC4 with its MAC checked on every PDU",
            changes: "the MAC check skipped (the seed's DisableMACCheck); RC4 still decrypts",
            needs: "an RC4 cipher (the default, the seed's)",
            undo: "nothing on the machine changes",
            headlines: &[],
            scalars: PIPELINE_SCALARS,
            plan: Plan::DisplayPipeline(Arms { baseline: seed_client, remedy: |c| cure(c, |k| k.skip_mac = true) }),
        },
        Remedy {
            name: "decode-thread",
            study: "000",
            command: &["display", "pipeline"],
            default_args: PIPELINE_ARGS,
            baseline: "the seed's client: one thread receives, decrypts, decompresses, decodes and draws",
            changes: "a second thread decrypts, decompresses, decodes and draws while the first receives (each thread slowed: two slow cores)",
            needs: "nothing (a client code path); it overlaps only with a second CPU",
            undo: "nothing on the machine changes",
            headlines: &[],
            scalars: PIPELINE_SCALARS,
            plan: Plan::DisplayPipeline(Arms {
                baseline: seed_client,
                remedy: |c| cure(c, |k| k.decode_thread = true),
            }),
        },
        Remedy {
            name: "bitmaps",
            study: "000",
            command: &["display", "pipeline"],
            default_args: PIPELINE_ARGS,
            baseline: "the server sends orders and uses the bitmap cache",
            changes: "bitmap updates only (the seed's NPPerfTune = 1)",
            needs: "nothing",
            undo: "nothing on the machine changes",
            headlines: &[],
            scalars: PIPELINE_SCALARS,
            plan: Plan::DisplayPipeline(Arms {
                baseline: seed_client,
                remedy: |c| {
                    seed_client(c);
                    c.orders = false;
                    Ok(nothing())
                },
            }),
        },
        Remedy {
            name: "rcvbuf",
            study: "000",
            command: &["display", "pipeline"],
            default_args: PIPELINE_ARGS,
            baseline: "the seed's defaults: a 64 KB receive buffer, woken at 2 KB queued",
            changes: "the seed's largest recommended settings: a 1024 KB buffer, woken at 52 KB (5 % of it)",
            needs: "nothing (SO_RCVBUF up to net.core.rmem_max; the kernel caps it silently)",
            undo: "per socket: the session's socket closes with it",
            headlines: &[],
            scalars: PIPELINE_SCALARS,
            plan: Plan::DisplayPipeline(Arms {
                baseline: |c| {
                    seed_client(c);
                    (c.view.rcvbuf, c.view.threshold) =
                        (latlab_display::defaults::RCVBUF, latlab_display::defaults::RCV_THRESHOLD);
                },
                remedy: |c| {
                    seed_client(c);
                    (c.view.rcvbuf, c.view.threshold) =
                        (latlab_display::defaults::SEED_MAX_RCVBUF, latlab_display::defaults::SEED_MAX_RCV_THRESHOLD);
                    Ok(nothing())
                },
            }),
        },
        Remedy {
            name: "playout",
            study: "002",
            command: &["udp"],
            default_args: &["--interval", "100ms", "--relay-hold-every", "1230ms", "--duration", "30s", "--wait", "2s"],
            baseline: "the receiver plays each packet as it arrives",
            changes: "the receiver plays each packet at its sender timestamp plus an adaptive delay (grown at once to a late packet's need plus 10 %, shrunk toward each packet's need with a 30 s time constant); late packets are not played",
            needs: "a loopback run (the receiver is latlab's own)",
            undo: "nothing on the machine changes",
            headlines: &[
                ("playout.jitter", "playout interval error (smoothness)"),
                ("playout.latency", "send to playout (latency paid)"),
            ],
            scalars: &[("playout.late_ratio", "packets late, not played", Better::Lower)],
            plan: Plan::Udp(Arms {
                baseline: |c| c.playout = PlayoutMode::Arrival,
                remedy: |c| {
                    if !matches!(c.mode, latlab_udp::Mode::Loopback { .. }) {
                        return Err(ChangeError::Needs {
                            what: "a live playout".into(),
                            needs: "a loopback run: a remote reflector's receiver is not latlab's to measure".into(),
                        });
                    }
                    c.playout = PlayoutMode::Adaptive;
                    Ok(nothing())
                },
            }),
        },
        Remedy {
            name: "idle-load",
            study: "003 §4.1",
            command: &["display", "latency"],
            default_args: &["--conditions", "cpu"],
            baseline: "the spinning load at the normal policy (SCHED_OTHER, nice 0)",
            changes: "the spinning load at SCHED_IDLE",
            needs: "nothing (any user may lower its own processes' policy)",
            undo: "the spinners end with each run",
            headlines: LATENCY_HEADLINES,
            scalars: &[],
            plan: Plan::DisplayLatency(Arms {
                baseline: latency_baseline,
                remedy: |c| {
                    latency_baseline(c);
                    c.spin_sched.policy = latlab_sys::platform::Policy::Idle;
                    Ok(nothing())
                },
            }),
        },
        Remedy {
            name: "cpu-share",
            study: "003 §4.1",
            command: &["display", "latency"],
            default_args: &["--conditions", "cpu"],
            baseline: "the server thread and the load in the same CPU group",
            changes: "the server in its own CPU group with 8 times the share of the load's group (v1 cpu.shares 8192 vs 1024, v2 cpu.weight 800 vs 100)",
            needs: "root and the cpu controller (cgroup v1 or v2)",
            undo: "both groups' processes moved back to the root group and the groups removed",
            headlines: LATENCY_HEADLINES,
            scalars: &[],
            plan: Plan::DisplayLatency(Arms {
                baseline: latency_baseline,
                remedy: |c| {
                    latency_baseline(c);
                    let needs = |n: String| ChangeError::Needs { what: "CPU groups".into(), needs: n };
                    if !latlab_sys::platform::is_root() {
                        return Err(needs("root".into()));
                    }
                    let h = cgroup::find("cpu").map_err(needs)?;
                    let prefix = latlab_sys::leftovers::name("tune");
                    let mut u = Undo::new();
                    let mut made = Vec::new();
                    for (name, factor) in [("interactive", 8.0), ("load", 1.0)] {
                        let g = match cgroup::create(&mut u, &h, "cpu", &format!("{prefix}-{name}")) {
                            Ok(g) => g,
                            Err(e) => return Err(u.fail("making the CPU groups", e)),
                        };
                        let (file, value) = cgroup::cpu_share(&h, factor);
                        if let Err(e) = g.set(file, &value) {
                            return Err(u.fail("setting the shares", e));
                        }
                        made.push(g);
                    }
                    let join = match h {
                        Hierarchy::V1(_) => "tasks",
                        Hierarchy::V2(_) => "cgroup.procs",
                    };
                    c.placement.server_join = Some(made[0].dir.join(join));
                    c.placement.load_join = Some(made[1].dir.join("cgroup.procs"));
                    let what = format!(
                        "cgroup {} cpu groups {} (server) and {} (load)",
                        h.version(),
                        made[0].dir.display(),
                        made[1].dir.display()
                    );
                    Ok((u, what))
                },
            }),
        },
        Remedy {
            name: "slice",
            study: "003 §4.1",
            command: &["display", "latency"],
            default_args: &["--conditions", "cpu"],
            baseline: "the server thread at the default EEVDF slice",
            changes: "the server thread asks for a 0.1 ms slice (sched_setattr sched_runtime), so it preempts sooner on waking",
            needs: "Linux 6.12 or later (EEVDF's custom slices)",
            undo: "per thread: the server thread ends with each run",
            headlines: LATENCY_HEADLINES,
            scalars: &[],
            plan: Plan::DisplayLatency(Arms {
                baseline: latency_baseline,
                remedy: |c| {
                    latency_baseline(c);
                    let release = latlab_sys::machine::kernel_release();
                    if !latlab_sys::platform::takes_slice_request(&release) {
                        return Err(ChangeError::Needs {
                            what: "a custom slice".into(),
                            needs: format!("Linux 6.12 or later (this is {release})"),
                        });
                    }
                    c.placement.server_slice_ns = Some(100_000);
                    Ok(nothing())
                },
            }),
        },
        Remedy {
            name: "mem-limit-hog",
            study: "003 §4.2",
            command: &["stall", "pressure"],
            default_args: &[],
            baseline: "a server and a memory hog sharing one memory group, the hog unlimited within it",
            changes: "the hog's own group limited to what the server leaves free (the group less the server's working set, less 1/16 of the group)",
            needs: "root and the memory controller (cgroup v1 or v2), swap (a temporary file is made when missing)",
            undo: "the groups are removed after every run, remedy or not",
            headlines: PRESSURE_HEADLINES,
            scalars: &[],
            plan: Plan::StallPressure(Arms {
                baseline: no_mem_remedy,
                remedy: |c| {
                    no_mem_remedy(c);
                    c.hog_limit_mib = Some(c.limit_mib.saturating_sub(c.server_mib + c.limit_mib / 16).max(1));
                    Ok(nothing())
                },
            }),
        },
        Remedy {
            name: "mem-protect",
            study: "003 §4.2",
            command: &["stall", "pressure"],
            default_args: &[],
            baseline: "a server and a memory hog sharing one memory group, neither protected",
            changes: "the server's working set protected from reclaim (memory.low = its working set plus 1/16 of the group)",
            needs: "root, the memory controller on cgroup v2 (v1 has no memory.low), swap",
            undo: "the groups are removed after every run, remedy or not",
            headlines: PRESSURE_HEADLINES,
            scalars: &[],
            plan: Plan::StallPressure(Arms {
                baseline: no_mem_remedy,
                remedy: |c| {
                    no_mem_remedy(c);
                    if let Ok(Hierarchy::V1(p)) = cgroup::find("memory") {
                        return Err(ChangeError::Needs {
                            what: "protecting the server's memory".into(),
                            needs: format!(
                                "cgroup v2's memory.low; the memory controller here is v1 ({}) — try mem-limit-hog",
                                p.display()
                            ),
                        });
                    }
                    c.server_low_mib = Some(c.server_mib + c.limit_mib / 16);
                    Ok(nothing())
                },
            }),
        },
    ]
}

/// The remedy called `name`, or an error listing them.
pub fn find(name: &str) -> Result<Remedy, String> {
    let mut all = all();
    match all.iter().position(|r| r.name == name) {
        Some(i) => Ok(all.swap_remove(i)),
        None => Err(format!(
            "no remedy called '{name}': one of {} (latlab tune --list says what each does)",
            all.iter().map(|r| r.name).collect::<Vec<_>>().join(", ")
        )),
    }
}

/// The `--list` text.
pub fn list() -> String {
    let mut o = String::new();
    for r in all() {
        o.push_str(&format!(
            "{} (study {}, measured with `latlab {}`)\n  baseline: {}\n  remedy:   {}\n  needs:    {}\n  undone:   {}\n\n",
            r.name,
            r.study,
            r.command.join(" "),
            r.baseline,
            r.changes,
            r.needs,
            r.undo
        ));
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cpu-share groups have fixed names: one test at a time makes them.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

    #[test]
    fn remedies_have_unique_names_and_say_what_they_need_and_how_they_are_undone() {
        let all = all();
        let mut names: Vec<&str> = all.iter().map(|r| r.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len());
        for r in &all {
            assert!(!r.needs.is_empty() && !r.undo.is_empty(), "{}", r.name);
            assert!(!r.headlines.is_empty() || !r.scalars.is_empty(), "{}", r.name);
        }
        assert!(find("shield").is_ok());
        assert!(find("nope").err().unwrap().contains("none, shield, dma-latency"));
        assert!(list().contains("timer-slack (study 001"));
    }

    #[test]
    fn cpu_share_leaves_no_group_behind_also_after_a_failure_midway() {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let h = match cgroup::find("cpu") {
            Ok(h) if latlab_sys::platform::is_root() => h,
            _ => {
                latlab_model::testing::skip("needs root and the cpu controller");
                return;
            }
        };
        let prefix = latlab_sys::leftovers::name("tune");
        let (inter, load) = (h.root().join(format!("{prefix}-interactive")), h.root().join(format!("{prefix}-load")));
        let Plan::DisplayLatency(arms) = find("cpu-share").unwrap().plan else {
            panic!("cpu-share is a display latency remedy")
        };
        let mut c = LatencyConfig::short();
        let (undo, what) = (arms.remedy)(&mut c).unwrap();
        assert!(inter.is_dir() && load.is_dir(), "{what}");
        assert!(c.placement.server_join.as_ref().unwrap().starts_with(&inter));
        drop(undo);
        assert!(!inter.exists() && !load.exists());
        // Injected failure: the second group is already there (as a killed run would leave
        // it). The first is removed again; the one found is not touched.
        std::fs::create_dir(&load).unwrap();
        let e = (arms.remedy)(&mut LatencyConfig::short()).unwrap_err();
        assert!(e.to_string().contains("already exists"), "{e}");
        assert!(!inter.exists(), "the group made before the failure is removed");
        assert!(load.is_dir());
        std::fs::remove_dir(&load).unwrap();
    }

    #[test]
    fn the_arms_differ_only_in_the_remedy() {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        for r in all() {
            match r.plan {
                Plan::Rt(arms) => {
                    if ["none", "shield", "dma-latency"].contains(&r.name) {
                        continue; // the same configuration: nothing, or a machine change tested in latlab-core
                    }
                    let (mut a, mut b) = (RtConfig::default(), RtConfig::default());
                    (arms.baseline)(&mut a);
                    let _ = (arms.remedy)(&mut b);
                    assert_ne!(a, b, "{}", r.name);
                }
                Plan::StallPressure(arms) => {
                    let (mut a, mut b) = (PressureConfig::default(), PressureConfig::default());
                    (arms.baseline)(&mut a);
                    match (arms.remedy)(&mut b) {
                        Ok(_) => assert_ne!(a, b, "{}", r.name),
                        Err(ChangeError::Needs { .. }) => {}
                        Err(e) => panic!("{}: {e}", r.name),
                    }
                }
                Plan::Udp(arms) => {
                    let (mut a, mut b) = (UdpConfig::default(), UdpConfig::default());
                    (arms.baseline)(&mut a);
                    (arms.remedy)(&mut b).unwrap_or_else(|e| panic!("{}: {e}", r.name));
                    assert_ne!(a.playout, b.playout, "{}", r.name);
                }
                Plan::DisplayPipeline(arms) => {
                    let (mut a, mut b) = (PipelineConfig::default(), PipelineConfig::default());
                    (arms.baseline)(&mut a);
                    (arms.remedy)(&mut b).unwrap_or_else(|e| panic!("{}: {e}", r.name));
                    assert!(a.view != b.view || a.orders != b.orders, "{}: the arms are the same", r.name);
                    // Each arm is a client the pipeline accepts.
                    for c in [&a, &b] {
                        c.view.validate().unwrap();
                        c.view.cures.validate(c.crypto).unwrap();
                    }
                }
                Plan::DisplayLatency(arms) => {
                    let (mut a, mut b) = (LatencyConfig::short(), LatencyConfig::short());
                    (arms.baseline)(&mut a);
                    match (arms.remedy)(&mut b) {
                        Ok(_) => assert!(
                            a.spin_sched != b.spin_sched || a.placement != b.placement,
                            "{}: the arms are the same",
                            r.name
                        ),
                        Err(ChangeError::Needs { .. }) => {}
                        Err(e) => panic!("{}: {e}", r.name),
                    }
                }
            }
        }
    }
}
