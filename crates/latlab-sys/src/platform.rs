//! Platform knobs a measurement asks for — scheduling policy and priority, CPU affinity,
//! memory locking, `/dev/cpu_dma_latency`, RT throttling — each returning what was actually
//! obtained, so a refusal becomes a recorded [`Capability`] with advice rather than a crash.

pub use latlab_model::capability::{Capabilities, Capability, CapabilityRefused, RtThrottling};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::fs::File;
use std::io::Write;

/// A scheduling policy as Linux names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    /// SCHED_OTHER (CFS/EEVDF), the default time-sharing policy.
    Other,
    /// SCHED_BATCH.
    Batch,
    /// SCHED_IDLE: runs only when nothing else wants the CPU.
    Idle,
    /// SCHED_FIFO real-time.
    Fifo,
    /// SCHED_RR real-time.
    Rr,
}

impl Policy {
    fn raw(self) -> libc::c_int {
        match self {
            Policy::Other => libc::SCHED_OTHER,
            Policy::Batch => libc::SCHED_BATCH,
            Policy::Idle => libc::SCHED_IDLE,
            Policy::Fifo => libc::SCHED_FIFO,
            Policy::Rr => libc::SCHED_RR,
        }
    }
    fn from_raw(r: libc::c_int) -> Option<Self> {
        Some(match r & !libc::SCHED_RESET_ON_FORK {
            libc::SCHED_OTHER => Policy::Other,
            libc::SCHED_BATCH => Policy::Batch,
            libc::SCHED_IDLE => Policy::Idle,
            libc::SCHED_FIFO => Policy::Fifo,
            libc::SCHED_RR => Policy::Rr,
            _ => return None,
        })
    }
    /// True for the real-time policies, which take a priority 1..=99.
    pub fn is_realtime(self) -> bool {
        matches!(self, Policy::Fifo | Policy::Rr)
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Policy {
    /// Every policy.
    pub const ALL: [Policy; 5] = [Policy::Fifo, Policy::Rr, Policy::Other, Policy::Batch, Policy::Idle];
    /// Its name (`sched_setscheduler`'s without `SCHED_`, lower case).
    pub fn name(self) -> &'static str {
        match self {
            Policy::Other => "other",
            Policy::Batch => "batch",
            Policy::Idle => "idle",
            Policy::Fifo => "fifo",
            Policy::Rr => "rr",
        }
    }
}

impl latlab_model::experiment::Choice for Policy {
    fn names() -> Vec<&'static str> {
        Policy::ALL.map(Policy::name).to_vec()
    }
    fn from_choice(s: &str) -> Option<Self> {
        s.parse().ok()
    }
}

impl std::str::FromStr for Policy {
    type Err = latlab_model::ConfigError;
    fn from_str(s: &str) -> Result<Self, latlab_model::ConfigError> {
        Ok(match s.to_ascii_lowercase().trim_start_matches("sched_") {
            "other" | "normal" => Policy::Other,
            "batch" => Policy::Batch,
            "idle" => Policy::Idle,
            "fifo" => Policy::Fifo,
            "rr" => Policy::Rr,
            _ => return Err(format!("unknown scheduling policy '{s}' (other, batch, idle, fifo, rr)").into()),
        })
    }
}

/// Scheduling of a thread: policy plus real-time priority (0 for non-RT policies).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sched {
    /// The policy.
    pub policy: Policy,
    /// Real-time priority 1..=99 for fifo/rr, 0 otherwise.
    pub priority: i32,
}

impl fmt::Display for Sched {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.policy.is_realtime() {
            write!(f, "{}:{}", self.policy, self.priority)
        } else {
            write!(f, "{}", self.policy)
        }
    }
}

const RT_ADVICE: &str = "run as root, grant CAP_SYS_NICE (setcap cap_sys_nice+ep latlab), or raise \
     the rtprio limit in /etc/security/limits.conf";

/// The kernel's `struct sched_param`: one int. (musl's has more fields, and its
/// `sched_setscheduler` wrapper only returns ENOSYS: the system calls are made directly.)
#[repr(C)]
struct KernelSchedParam {
    sched_priority: libc::c_int,
}

/// The calling thread's current scheduling.
pub fn current_sched() -> Sched {
    let mut param = KernelSchedParam { sched_priority: 0 };
    // SAFETY: the system calls take pid 0 (the calling thread) and, for getparam, a valid
    // out-pointer to a struct of the kernel's layout on the stack.
    let pol = unsafe {
        let p = libc::syscall(libc::SYS_sched_getscheduler, 0);
        libc::syscall(libc::SYS_sched_getparam, 0, &mut param as *mut KernelSchedParam);
        p as i32
    };
    Sched { policy: Policy::from_raw(pol).unwrap_or(Policy::Other), priority: param.sched_priority }
}

fn sched_setscheduler_self(policy: Policy, priority: i32) -> std::io::Result<()> {
    set_sched_of(0, Sched { policy, priority })
}

/// Whether this process runs as root (effective uid 0).
pub fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// Give memory the allocator holds free back to the system (glibc keeps a freed thread arena's
/// pages; the suite calls this between experiments so a small board is not crowded by the
/// previous experiment's threads). A no-op where the allocator returns memory itself (musl).
pub fn return_free_memory() {
    #[cfg(target_env = "gnu")]
    // SAFETY: malloc_trim only walks the allocator's own free lists; it takes no pointers.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Write every page of `v` once, keeping its contents, so a timed loop that later fills it
/// takes no page faults (`vec![0; n]` and fresh capacity are mapped lazily, on first write).
pub fn prefault<T: Copy>(v: &mut [T]) {
    let step = (4096 / std::mem::size_of::<T>().max(1)).max(1);
    for i in (0..v.len()).step_by(step) {
        // black_box: the compiler cannot prove the store redundant and drop it.
        v[i] = std::hint::black_box(v[i]);
    }
}

/// `n` default values, every page already written ([`prefault`]): a buffer for a timed loop.
pub fn prefaulted<T: Copy + Default>(n: usize) -> Vec<T> {
    let mut v = vec![T::default(); n];
    prefault(&mut v);
    v
}

/// Peak resident memory, bytes: of this process, and of the largest child it waited for
/// (`getrusage`'s maximum resident set size).
pub fn peak_memory() -> (Option<u64>, Option<u64>) {
    use nix::sys::resource::{UsageWho, getrusage};
    // Linux reports ru_maxrss in KiB.
    let kib = |who| getrusage(who).ok().map(|u| u.max_rss().max(0) as u64 * 1024);
    (kib(UsageWho::RUSAGE_SELF), kib(UsageWho::RUSAGE_CHILDREN).filter(|&b| b > 0))
}

/// Cap glibc's malloc arenas at [`crate::defaults::MALLOC_ARENAS_PER_CPU`] per CPU, before
/// threads start; a `MALLOC_ARENA_MAX` in the environment wins. musl's allocator has no arenas.
pub fn limit_malloc_arenas() {
    #[cfg(target_env = "gnu")]
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let arenas = (cpus * crate::defaults::MALLOC_ARENAS_PER_CPU).clamp(1, libc::c_int::MAX as usize);
        // SAFETY: mallopt takes two integers and changes only the allocator's tuning.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, arenas as libc::c_int);
        }
    }
}

/// The calling thread's kernel thread id, for [`set_sched_of`] from another thread.
pub fn thread_id() -> i32 {
    nix::unistd::gettid().as_raw()
}

/// Set the scheduling of thread `tid` (0: the calling thread).
pub fn set_sched_of(tid: i32, want: Sched) -> std::io::Result<()> {
    raw_setscheduler(tid, want.policy.raw(), if want.policy.is_realtime() { want.priority } else { 0 })
}

/// `sched_setscheduler(2)` made directly (musl's wrapper refuses with ENOSYS), for thread
/// `tid` (0: the calling thread).
pub fn raw_setscheduler(tid: i32, policy: libc::c_int, priority: libc::c_int) -> std::io::Result<()> {
    let param = KernelSchedParam { sched_priority: priority };
    // SAFETY: `param` is a valid pointer of the kernel's layout for the call's duration; a
    // stale tid fails with ESRCH.
    let rc = unsafe { libc::syscall(libc::SYS_sched_setscheduler, tid, policy, &param as *const KernelSchedParam) };
    if rc == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }
}

/// The kernel's `struct sched_attr` (SCHED_ATTR_SIZE_VER1, 56 bytes).
#[repr(C)]
#[derive(Default)]
struct SchedAttr {
    size: u32,
    sched_policy: u32,
    sched_flags: u64,
    sched_nice: i32,
    sched_priority: u32,
    sched_runtime: u64,
    sched_deadline: u64,
    sched_period: u64,
    sched_util_min: u32,
    sched_util_max: u32,
}

/// Whether this kernel takes a slice request for normal threads (EEVDF's custom slice,
/// Linux 6.12 and later), from a `uname -r` text.
pub fn takes_slice_request(release: &str) -> bool {
    let mut v = release.split(|c: char| !c.is_ascii_digit()).filter_map(|p| p.parse::<u32>().ok());
    let (major, minor) = (v.next().unwrap_or(0), v.next().unwrap_or(0));
    (major, minor) >= (6, 12)
}

/// Ask EEVDF for a `slice_ns` slice for the calling thread (SCHED_OTHER, its nice kept): a
/// shorter slice gives an earlier deadline, so the thread preempts sooner when it wakes. The
/// kernel clamps the request to 0.1–100 ms. Needs Linux 6.12 or later.
pub fn set_slice(slice_ns: u64) -> std::io::Result<()> {
    // SAFETY: getpriority takes two integers and touches no memory (0: the calling thread).
    let nice = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
    let attr = SchedAttr {
        size: std::mem::size_of::<SchedAttr>() as u32,
        sched_policy: libc::SCHED_OTHER as u32,
        sched_nice: nice,
        sched_runtime: slice_ns,
        ..SchedAttr::default()
    };
    // SAFETY: `attr` is a valid, fully initialised sched_attr of the size it states, alive
    // for the call; pid 0 is the calling thread; flags 0.
    let rc = unsafe { libc::syscall(libc::SYS_sched_setattr, 0, &attr as *const SchedAttr, 0) };
    if rc == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }
}

/// Highest real-time priority the kernel accepts for `policy` (`sched_get_priority_max`).
pub fn max_priority(policy: Policy) -> i32 {
    // SAFETY: sched_get_priority_max takes a policy number and touches no memory.
    unsafe { libc::sched_get_priority_max(policy.raw()) }
}

/// Set the calling thread's scheduling; returns the capability record of what it got.
pub fn set_sched(want: Sched) -> Capability {
    let name = format!("sched.{}", want.policy);
    match sched_setscheduler_self(want.policy, want.priority) {
        Ok(()) => {
            let got = current_sched();
            if got == want || (!want.policy.is_realtime() && got.policy == want.policy) {
                Capability::granted(&name, want.to_string(), got.to_string())
            } else {
                Capability::refused(&name, want.to_string(), got.to_string(), "the kernel changed the request")
            }
        }
        Err(e) => {
            let got = current_sched();
            let advice = if e.raw_os_error() == Some(libc::EPERM) {
                format!("permission denied; {RT_ADVICE}")
            } else {
                format!("{e}")
            };
            Capability::refused(&name, want.to_string(), got.to_string(), advice)
        }
    }
}

/// Whether the machine grants SCHED_FIFO to this process, tested on a throw-away thread.
pub fn probe_fifo(priority: i32) -> Capability {
    probe_sched(Sched { policy: Policy::Fifo, priority })
}

/// Whether the machine grants `want` to this process, tested on a throw-away thread.
pub fn probe_sched(want: Sched) -> Capability {
    std::thread::spawn(move || set_sched(want)).join().unwrap_or_else(|_| {
        Capability::refused(&format!("sched.{}", want.policy), "probe", "unknown", "probe thread panicked")
    })
}

/// `cpus` as a CPU set, or the refusal of `req` naming the CPU that cannot be in one.
fn cpu_set(cpus: &[usize], req: &str) -> Result<nix::sched::CpuSet, Capability> {
    let mut set = nix::sched::CpuSet::new();
    for &c in cpus {
        set.set(c).map_err(|e| Capability::refused("affinity", req, "unpinned", format!("cpu {c}: {e}")))?;
    }
    Ok(set)
}

/// Pin the calling thread to the given CPUs.
pub fn set_affinity(cpus: &[usize]) -> Capability {
    use nix::sched::sched_setaffinity;
    let req = format!("cpus {cpus:?}");
    let set = match cpu_set(cpus, &req) {
        Ok(s) => s,
        Err(refused) => return refused,
    };
    match sched_setaffinity(nix::unistd::Pid::from_raw(0), &set) {
        Ok(()) => Capability::granted("affinity", req.clone(), req),
        Err(e) => Capability::refused(
            "affinity",
            req,
            "unpinned",
            format!("{e}; check the CPU numbers against `nproc` and any cpuset the process is in"),
        ),
    }
}

/// The CPUs this thread may run on (its affinity), in order; empty if it cannot be read.
pub fn allowed_cpus() -> Vec<usize> {
    use nix::sched::{CpuSet, sched_getaffinity};
    sched_getaffinity(nix::unistd::Pid::from_raw(0))
        .map(|set| (0..CpuSet::count()).filter(|&c| set.is_set(c).unwrap_or(false)).collect())
        .unwrap_or_default()
}

/// Pin every thread of process `pid` to `cpus` (threads it starts later inherit it).
pub fn set_process_affinity(pid: u32, cpus: &[usize]) -> Capability {
    use nix::sched::sched_setaffinity;
    let req = format!("process {pid} on cpus {cpus:?}");
    let set = match cpu_set(cpus, &req) {
        Ok(s) => s,
        Err(refused) => return refused,
    };
    let tasks: Vec<i32> = std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|d| d.flatten().filter_map(|e| e.file_name().to_str()?.parse().ok()).collect())
        .unwrap_or_default();
    if tasks.is_empty() {
        return Capability::refused("affinity", req, "unpinned", format!("no threads of process {pid} in /proc"));
    }
    for t in tasks {
        if let Err(e) = sched_setaffinity(nix::unistd::Pid::from_raw(t), &set) {
            // A thread that ended meanwhile is not a refusal.
            if e != nix::errno::Errno::ESRCH {
                return Capability::refused("affinity", req, "unpinned", format!("thread {t}: {e}"));
            }
        }
    }
    Capability::granted("affinity", req.clone(), req)
}

/// Holds all of the process's memory locked (`mlockall`) until dropped, then unlocks it:
/// a lock left behind would fault in and pin every later allocation and thread stack of the
/// process (in the suite, every experiment after the one that locked).
#[derive(Debug)]
pub struct MemoryLock {
    locked: bool,
}

impl Drop for MemoryLock {
    fn drop(&mut self) {
        if self.locked {
            let _ = nix::sys::mman::munlockall();
        }
    }
}

/// Lock all current and future memory (`mlockall`), so page faults do not hit timed loops;
/// the lock lasts as long as the guard.
pub fn lock_memory() -> (MemoryLock, Capability) {
    use nix::sys::mman::{MlockAllFlags, mlockall};
    match mlockall(MlockAllFlags::MCL_CURRENT | MlockAllFlags::MCL_FUTURE) {
        Ok(()) => (MemoryLock { locked: true }, Capability::granted("mlockall", "current+future", "locked")),
        Err(e) => (
            MemoryLock { locked: false },
            Capability::refused(
                "mlockall",
                "current+future",
                "unlocked",
                format!("{e}; raise RLIMIT_MEMLOCK (ulimit -l unlimited) or run with CAP_IPC_LOCK"),
            ),
        ),
    }
}

/// Holds `/dev/cpu_dma_latency` open with a requested limit; the kernel restores the
/// default when the file is closed (on drop).
#[derive(Debug)]
pub struct DmaLatencyGuard {
    _file: Option<File>,
}

/// Ask the kernel to keep CPU exit latency at `us` microseconds (0 = no deep C-states)
/// for as long as the returned guard lives.
pub fn hold_cpu_dma_latency(us: i32) -> (DmaLatencyGuard, Capability) {
    let req = format!("{us} µs");
    let path = "/dev/cpu_dma_latency";
    match std::fs::OpenOptions::new().write(true).open(path).and_then(|mut f| {
        f.write_all(&us.to_ne_bytes())?;
        Ok(f)
    }) {
        Ok(f) => (DmaLatencyGuard { _file: Some(f) }, Capability::granted("cpu_dma_latency", req.clone(), req)),
        Err(e) => (
            DmaLatencyGuard { _file: None },
            Capability::refused(
                "cpu_dma_latency",
                req,
                "system default",
                format!(
                    "{path}: {e}; run as root or give write access to {path} — deep idle states may add wake-up latency"
                ),
            ),
        ),
    }
}

/// Read the kernel's RT throttling, `/proc/sys/kernel/sched_rt_{runtime,period}_us`.
pub fn rt_throttling() -> Option<RtThrottling> {
    let rd = |p: &str| std::fs::read_to_string(p).ok()?.trim().parse::<i64>().ok();
    Some(RtThrottling {
        runtime_us: rd("/proc/sys/kernel/sched_rt_runtime_us")?,
        period_us: rd("/proc/sys/kernel/sched_rt_period_us")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_requests_need_linux_6_12() {
        assert!(takes_slice_request("6.18.44-fc-v509"));
        assert!(takes_slice_request("6.12.0"));
        assert!(!takes_slice_request("6.11.9-generic"));
        assert!(!takes_slice_request("5.15.0"));
        assert!(!takes_slice_request("garbage"));
        if takes_slice_request(&crate::machine::kernel_release()) {
            // On a thread of its own, so the test harness's thread keeps its slice.
            let r = std::thread::spawn(|| set_slice(100_000)).join().unwrap();
            assert!(r.is_ok(), "{r:?}");
        }
    }

    #[test]
    fn policy_parses_and_prints() {
        for p in ["other", "batch", "idle", "fifo", "rr", "SCHED_FIFO"] {
            let pol: Policy = p.parse().unwrap();
            assert_eq!(pol.to_string(), p.to_ascii_lowercase().trim_start_matches("sched_"));
        }
        assert!("deadline".parse::<Policy>().is_err());
        assert_eq!(Sched { policy: Policy::Fifo, priority: 80 }.to_string(), "fifo:80");
        assert_eq!(Sched { policy: Policy::Other, priority: 0 }.to_string(), "other");
    }

    #[test]
    fn sched_request_reports_what_was_obtained() {
        // Whatever the machine grants, the record must describe the thread's real state.
        std::thread::spawn(|| {
            let c = set_sched(Sched { policy: Policy::Fifo, priority: 10 });
            let now = current_sched();
            assert_eq!(c.obtained, now.to_string());
            assert_eq!(c.granted, now == Sched { policy: Policy::Fifo, priority: 10 });
            // Back to normal works without privilege.
            let back = set_sched(Sched { policy: Policy::Other, priority: 0 });
            assert!(back.granted, "{back:?}");
        })
        .join()
        .unwrap();
    }

    #[test]
    fn strict_turns_refusal_into_error_and_lenient_keeps_going() {
        let refused = Capability::refused("sched.fifo", "fifo:80", "other", "no CAP_SYS_NICE");
        let mut lenient = Capabilities::new(false);
        assert!(lenient.record(refused.clone()).is_ok());
        assert_eq!(lenient.warnings().len(), 1);
        assert!(lenient.warnings()[0].contains("no CAP_SYS_NICE"));
        let mut strict = Capabilities::new(true);
        let err = strict.record(refused).unwrap_err();
        assert!(err.to_string().contains("--strict"));
        assert!(strict.record(Capability::granted("mlockall", "x", "x")).is_ok());
    }

    #[test]
    fn prefaulting_makes_a_lazy_buffer_resident_and_keeps_it() {
        // The resident size of the mapping holding `p` (a 16 MiB buffer is a mapping of its own).
        let resident = |p: usize| -> u64 {
            let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
            let mut inside = false;
            for l in smaps.lines() {
                let range = l.split_once(' ').and_then(|(r, _)| r.split_once('-'));
                let bounds = range
                    .and_then(|(a, b)| Some((usize::from_str_radix(a, 16).ok()?, usize::from_str_radix(b, 16).ok()?)));
                if let Some((a, b)) = bounds {
                    inside = a <= p && p < b;
                } else if inside && l.starts_with("Rss:") {
                    return l.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 1024;
                }
            }
            panic!("no mapping holds {p:#x}");
        };
        let mut v = vec![0u64; 16 << 20 >> 3];
        let p = v.as_ptr() as usize;
        super::prefault(&mut v);
        assert!(resident(p) >= 16 << 20, "{}", resident(p));
        assert!(v.iter().all(|&x| x == 0));
    }

    #[test]
    fn peak_memory_counts_at_least_what_is_held() {
        let held = std::hint::black_box(vec![7u8; 8 << 20]);
        let (me, _) = super::peak_memory();
        assert!(me.unwrap() >= 8 << 20, "{me:?}");
        drop(held);
    }

    #[test]
    fn affinity_to_a_bad_cpu_is_refused_not_fatal() {
        std::thread::spawn(|| {
            let c = set_affinity(&[100_000]);
            assert!(!c.granted);
            assert!(c.advice.is_some());
        })
        .join()
        .unwrap();
    }

    #[test]
    fn throttling_display() {
        let t = RtThrottling { runtime_us: 950_000, period_us: 1_000_000 };
        assert!(t.is_on());
        assert_eq!(t.to_string(), "on (950 ms per 1000 ms)");
        assert!(!RtThrottling { runtime_us: -1, period_us: 1_000_000 }.is_on());
    }
}
