//! Seed 003 §4.2's remedies, measured with `latlab stall pressure` (`latlab tune`): limiting the
//! memory hog, or protecting the server's working set from reclaim.

use crate::pressure::PressureConfig;
use latlab_sys::cgroup::{self, Hierarchy};
use latlab_sys::change::ChangeError;
use latlab_sys::remedy::{About, Arms, Remedy, nothing};

const PRESSURE_HEADLINES: &[(&str, &str)] = &[
    ("pressure.d150.warm_start", "warm start at 150 % memory demand"),
    ("pressure.d080.warm_start", "warm start at 80 % memory demand"),
];

fn no_mem_remedy(c: &mut PressureConfig) {
    (c.hog_limit_mib, c.server_low_mib) = (None, None);
}

/// Every remedy measured with `latlab stall pressure`.
pub fn all() -> Vec<Remedy<PressureConfig>> {
    vec![
        Remedy {
            about: About {
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
            },
            arms: Arms {
                baseline: no_mem_remedy,
                remedy: |c| {
                    no_mem_remedy(c);
                    c.hog_limit_mib = Some(c.limit_mib.saturating_sub(c.server_mib + c.limit_mib / 16).max(1));
                    Ok(nothing())
                },
            },
        },
        Remedy {
            about: About {
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
            },
            arms: Arms {
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
            },
        },
    ]
}
