//! The network lab of `latlab stall net` and `latlab display latency`: two network namespaces
//! joined by a veth pair, each end shaped by HTB to a link rate (addresses from 198.18.0.0/15,
//! RFC 2544's benchmarking range) with segmentation offload off, entered by a thread, and
//! removed when the guard drops — also the leftovers of runs that were killed.
//!
//! HTB is a token bucket: a lone packet after a quiet spell leaves at once, where a real
//! serial link would take its size over the rate (14 ms for 100 bytes at 56 kbit/s); bursts
//! and sustained traffic are paced at the rate.

use crate::ioerr::{Doing, IoFailed};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// Address of the client's end (198.18.0.0/15 is reserved for benchmarking, RFC 2544).
pub const CLIENT_ADDR: &str = "198.18.0.1";
/// Address of the server's end.
pub const SERVER_ADDR: &str = "198.18.0.2";

/// Why the lab could not be made or entered.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    /// Namespaces or shaping are not permitted or not available here.
    #[error("{0}")]
    Refused(String),
    /// A file operation failed.
    #[error(transparent)]
    Io(#[from] IoFailed),
}

fn ip(args: &[&str]) -> Result<(), LabError> {
    run("ip", args)
}

fn run(cmd: &str, args: &[&str]) -> Result<(), LabError> {
    let out = Command::new(cmd)
        .args(args)
        .output()
        .map_err(|e| LabError::Refused(format!("cannot run `{cmd}` ({e}): install iproute2")))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(LabError::Refused(format!(
            "`{cmd} {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }
}

/// Two namespaces and a shaped veth pair between them; dropping removes them.
#[derive(Debug)]
pub struct NetLab {
    /// The client's namespace.
    pub client: String,
    /// The server's namespace.
    pub server: String,
}

impl NetLab {
    /// Create the lab: namespaces `latlab-<pid>-c` and `-s`, veth, addresses, HTB at `rate`.
    pub fn create(rate_bps: u64, queue: Option<u32>) -> Result<Self, LabError> {
        remove_stale();
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let pid = std::process::id();
        let n = SEQ.fetch_add(1, Ordering::Relaxed);
        let lab = NetLab { client: format!("latlab-{pid}-{n}-c"), server: format!("latlab-{pid}-{n}-s") };
        // From here on, an error drops `lab`, which removes whatever was made.
        ip(&["netns", "add", &lab.client]).map_err(|e| match e {
            LabError::Refused(m) => LabError::Refused(format!("{m} — network namespaces need root (CAP_SYS_ADMIN)")),
            e => e,
        })?;
        ip(&["netns", "add", &lab.server])?;
        let (vc, vs) = (format!("ll{pid}x{n}c"), format!("ll{pid}x{n}s"));
        ip(&["link", "add", &vc, "netns", &lab.client, "type", "veth", "peer", "name", &vs, "netns", &lab.server])?;
        let rate = format!("{rate_bps}bit");
        for (ns, dev, addr) in [(&lab.client, &vc, CLIENT_ADDR), (&lab.server, &vs, SERVER_ADDR)] {
            let x = |args: &[&str]| {
                let mut all = vec!["netns", "exec", ns.as_str(), "ip"];
                all.extend_from_slice(args);
                ip(&all)
            };
            x(&["addr", "add", &format!("{addr}/30"), "dev", dev])?;
            // No segmentation offload: HTB would pass a 64 KB GSO super-packet whole (its
            // tokens going negative after), so a burst up to 64 KB would cross a slow link at
            // once; with packets of one MTU the shaper paces bursts as a real link does.
            x(&["link", "set", dev, "gso_max_size", "1500"])?;
            x(&["link", "set", dev, "up"])?;
            x(&["link", "set", "lo", "up"])?;
            let tc = |args: &[&str]| {
                let mut all = vec!["netns", "exec", ns.as_str(), "tc"];
                all.extend_from_slice(args);
                ip(&all)
            };
            tc(&["qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "10"])?;
            tc(&["class", "add", "dev", dev, "parent", "1:", "classid", "1:10", "htb", "rate", &rate, "ceil", &rate])?;
            if let Some(q) = queue {
                tc(&["qdisc", "add", "dev", dev, "parent", "1:10", "handle", "10:", "pfifo", "limit", &q.to_string()])?;
            }
        }
        Ok(lab)
    }

    /// Whether a namespace of this lab still exists.
    pub fn exists(&self) -> bool {
        [&self.client, &self.server].iter().any(|n| std::path::Path::new(&format!("/run/netns/{n}")).exists())
    }
}

impl Drop for NetLab {
    fn drop(&mut self) {
        // Deleting a namespace deletes its veth end, and the pair with it.
        let _ = ip(&["netns", "del", &self.client]);
        let _ = ip(&["netns", "del", &self.server]);
    }
}

/// Remove namespaces left by latlab runs that no longer exist (killed before cleaning up).
fn remove_stale() {
    crate::leftovers::clear(&crate::leftovers::stale_netns(std::path::Path::new("/run/netns")));
}

/// Move the calling thread into namespace `ns`.
pub fn enter(ns: &str) -> Result<(), LabError> {
    let f = std::fs::File::open(format!("/run/netns/{ns}")).doing("opening the namespace")?;
    nix::sched::setns(&f, nix::sched::CloneFlags::CLONE_NEWNET)
        .map_err(|e| LabError::Refused(format!("entering network namespace {ns}: {e} (needs CAP_SYS_ADMIN)")))
}
