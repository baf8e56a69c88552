//! Seeds 000 and 003's remedies measured with `latlab display` (`latlab tune`): the client cures
//! of seed 000 on the pipeline's slow client, and seed 003 §4.1's ways to keep a typist's
//! server ahead of a CPU load.

use crate::latency::LatencyConfig;
use crate::pipeline::PipelineConfig;
use latlab_display_net::Cures;
use latlab_sys::cgroup::{self, Hierarchy};
use latlab_sys::change::{ChangeError, Undo};
use latlab_sys::remedy::{About, Applied, Arms, Better, Remedy, nothing};

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
    c.view
        .cures
        .validate(c.crypto)
        .map_err(|e| ChangeError::Needs { what: "the cure".into(), needs: e.to_string() })?;
    Ok(nothing())
}

const LATENCY_HEADLINES: &[(&str, &str)] = &[("latency.cpu", "keystroke to pixels under CPU load")];

/// The spinners' policy the §4.1 remedies start from: the normal one, as the seed's load ran.
fn latency_baseline(c: &mut LatencyConfig) {
    c.spin_sched = latlab_sys::spin::SpinSched { policy: latlab_sys::platform::Policy::Other, nice: 0 };
    c.placement = Default::default();
}

/// Every remedy measured with `latlab display pipeline`, in study order.
pub fn pipeline() -> Vec<Remedy<PipelineConfig>> {
    vec![
        Remedy {
            about: About {
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
            },
            arms: Arms { baseline: seed_client, remedy: |c| cure(c, |k| k.direct = true) },
        },
        Remedy {
            about: About {
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
            },
            arms: Arms { baseline: seed_client, remedy: |c| cure(c, |k| k.skip_mac = true) },
        },
        Remedy {
            about: About {
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
            },
            arms: Arms { baseline: seed_client, remedy: |c| cure(c, |k| k.decode_thread = true) },
        },
        Remedy {
            about: About {
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
            },
            arms: Arms {
                baseline: seed_client,
                remedy: |c| {
                    seed_client(c);
                    c.orders = false;
                    Ok(nothing())
                },
            },
        },
        Remedy {
            about: About {
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
            },
            arms: Arms {
                baseline: |c| {
                    seed_client(c);
                    (c.view.rcvbuf, c.view.threshold) =
                        (latlab_display_net::defaults::RCVBUF, latlab_display_net::defaults::RCV_THRESHOLD);
                },
                remedy: |c| {
                    seed_client(c);
                    (c.view.rcvbuf, c.view.threshold) =
                        (crate::defaults::SEED_MAX_RCVBUF, crate::defaults::SEED_MAX_RCV_THRESHOLD);
                    Ok(nothing())
                },
            },
        },
    ]
}

/// Every remedy measured with `latlab display latency`, in study order.
pub fn latency() -> Vec<Remedy<LatencyConfig>> {
    vec![
        Remedy {
            about: About {
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
            },
            arms: Arms {
                baseline: latency_baseline,
                remedy: |c| {
                    latency_baseline(c);
                    c.spin_sched.policy = latlab_sys::platform::Policy::Idle;
                    Ok(nothing())
                },
            },
        },
        Remedy {
            about: About {
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
            },
            arms: Arms {
                baseline: latency_baseline,
                remedy: |c| {
                    latency_baseline(c);
                    let needs = |n: String| ChangeError::Needs { what: "CPU groups".into(), needs: n };
                    if !latlab_sys::platform::is_root() {
                        return Err(needs("root".into()));
                    }
                    let h = cgroup::find("cpu").map_err(|e| needs(e.to_string()))?;
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
            },
        },
        Remedy {
            about: About {
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
            },
            arms: Arms {
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
            },
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_share_leaves_no_group_behind_also_after_a_failure_midway() {
        let h = match cgroup::find("cpu") {
            Ok(h) if latlab_sys::platform::is_root() => h,
            _ => {
                latlab_model::testing::skip("needs root and the cpu controller");
                return;
            }
        };
        let prefix = latlab_sys::leftovers::name("tune");
        let (inter, load) = (h.root().join(format!("{prefix}-interactive")), h.root().join(format!("{prefix}-load")));
        let arms = latency().into_iter().find(|r| r.about.name == "cpu-share").expect("cpu-share").arms;
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
}
