//! Every default of `latlab stall` and `latlab idle`, with the reason it has that value.

/// Time between keystrokes: 50 ms, the study's 20 characters a second of key repeat.
pub const KEY_INTERVAL_NS: u64 = 50_000_000;
/// CPU the interactive server spends per key: 1 ms, an editor inserting a character and
/// drawing it.
pub const WORK_NS: u64 = 1_000_000;
/// Spinning processes per load level: none up to ten per core of a 2-core machine (the
/// study's single CPU reached more than 50 % waiting at 10).
pub const CPU_LOADS: [usize; 7] = [0, 1, 2, 4, 8, 12, 20];
/// Seconds measured per load level (the study: 60; five give 100 keys, enough for a p99
/// of stalls to mean something at the higher loads).
pub const SECONDS: u64 = 5;
/// Time the load runs before the probe starts, so the scheduler has settled.
pub const SETTLE_NS: u64 = 300_000_000;
/// How long after the last key the probe waits for answers before counting them lost.
pub const GRACE_NS: u64 = 2_000_000_000;
/// Real-time priority of the probe's own threads when granted (the user's terminal is on
/// another machine in the study: the probe must not suffer the load it measures).
pub const PROBE_PRIORITY: i32 = 50;
/// A gap in the idle thread's timeline longer than this is an interruption: well above a
/// clock read (tens of ns) and below a timer interrupt's handling (a few µs).
pub const IDLE_THRESHOLD_NS: u64 = 2_000;
/// Seconds the idle watcher runs.
pub const IDLE_SECONDS: u64 = 10;
/// Interruptions kept per run (each 8 bytes: 32 MB, written once before the timed loop so it
/// takes no page faults, and freed after the pass).
pub const IDLE_MAX_EVENTS: usize = 4_000_000;
/// Link rate of the network experiment: 10 Mbit/s, the study's Ethernet.
pub const NET_RATE_BPS: u64 = 10_000_000;
/// Seconds per offered-load step.
pub const NET_STEP_SECONDS: u64 = 5;
/// Time between RTT probes: 20 ms (50 a second, 250 a step).
pub const NET_PROBE_INTERVAL_NS: u64 = 20_000_000;
/// Bin of the network experiment's timeline (RTT and throughput over time): 200 ms, flent's
/// default step, so a flent file from it has flent's own resolution (10 probes a bin at the
/// default probe interval).
pub const NET_TIMELINE_STEP_NS: u64 = 200_000_000;
/// The warm-start server's working set: 256 MiB, an application with a document open
/// (large enough that reading it back from swap is visible, small enough to page out on
/// any machine).
pub const MEM_WORKING_SET_MIB: usize = 256;
/// Pages a keystroke touches in the warm-start servers (`stall mem`, `stall pressure`): 37,
/// 148 KB, Notepad's private committed memory in seed 003's table of applications (§3.2.2;
/// its 1,068 KB is *mapped* memory, shareable code the seed leaves out of an application's
/// own use). A key touches a small fixed set of pages spread over the working set, as
/// Notepad's key path would, not the whole working set: the delay then does not grow with
/// a working-set size latlab chose.
pub const KEY_PAGES: usize = 37;
/// Where a temporary swap file goes: latlab's one choice, a disk-backed directory.
pub use latlab_sys::defaults::SWAP_DIR;
/// Trials of `stall mem`: five pairs of keystrokes give a median that one slow disk read
/// does not move.
pub const MEM_TRIALS: u32 = 5;
/// Idle time between the page-out and the keystroke: 0.5 s lets the page-out settle.
pub const MEM_IDLE_MS: u64 = 500;
/// Load schedulings of `stall`: the default policy, the nicest nice, batch and idle — the
/// seed's question is which of them keeps the typist's echo fast.
pub const CPU_POLICIES: [&str; 4] = ["other", "nice19", "batch", "idle"];
/// Offered loads of `stall net`, fractions of the link: nothing to beyond the link's rate,
/// denser near 100 % where the queue fills.
pub const NET_LOADS: [f64; 8] = [0.0, 0.25, 0.5, 0.75, 0.9, 0.96, 1.0, 1.2];
/// The first load above 1 (more than the link carries) is the saturating step of Figure 6's
/// row: latlab's pacer is then never the limit, writes block, and TCP sends what the link
/// carries, as the seed's synthetic TCP load did (its 9.6 Mbit/s on 10 Mbit/s Ethernet is what
/// a saturating TCP flow delivers there). Offered 96 % paced, the queue would depend on how
/// bursty latlab's pacer is against TCP's headers (two runs here gave 26.5 and 9.83 ms).
pub const NET_SATURATING_ABOVE: f64 = 1.0;
/// Times the saturating step runs, each with new flows from TCP's slow start: three, so the
/// row says how far its mean moves between repeats.
pub const NET_REPEATS: u32 = 3;
/// The memory group of `stall pressure`: 256 MiB, so the seed's "more than physical memory"
/// is built inside a small group and never needs more of the machine than that plus swap.
pub const PRESSURE_LIMIT_MIB: usize = 256;
/// The pressure test's server: 96 MiB, over a third of the group (Notepad was a much larger
/// share of a 1999 machine's 64–128 MB than an editor is of today's).
pub const PRESSURE_SERVER_MIB: usize = 96;
/// Demand levels, server and hog together over the group: 80 % (below: nothing need be
/// paged) and 150 % (above: the seed's "page demand").
pub const PRESSURE_DEMANDS: [f64; 2] = [0.8, 1.5];
/// Keys per demand level: five, as `stall mem`.
pub const PRESSURE_TRIALS: u32 = 5;
/// Idle time before each key while the hog runs: 2 s, time for the hog to push an idle
/// server out (it sweeps its working set many times a second).
pub const PRESSURE_IDLE_MS: u64 = 2_000;
