//! Every default of latlab's system mechanics, each with the reason it has that value.

/// Where a temporary swap file goes (`stall mem`, `display latency`'s `mem`): a disk-backed
/// directory, since tmpfs cannot hold swap.
pub const SWAP_DIR: &str = "/var/tmp";

/// Where latlab marks the kernel settings a run changed (RT throttling), with their old
/// values, until it puts them back: `/run`, a tmpfs emptied at boot, as the kernel's settings
/// are reset at boot, so a marker never outlives the change it records.
pub const SETTINGS_DIR: &str = "/run";

/// A stop signal this soon after the first is the same stop said twice, not a second Ctrl-C:
/// `timeout -s INT` signals its child and then the child's whole process group, so latlab
/// gets SIGINT twice within microseconds; a person's second Ctrl-C comes 100 ms or more after
/// the first. 20 ms tells the two apart.
pub const SIGNAL_ECHO: std::time::Duration = std::time::Duration::from_millis(20);

/// How often the background watcher counts runnable tasks during a quiet phase: 10 times a
/// second, a read of `/proc/stat` each (tens of µs), enough for a mean over a phase of seconds.
pub const BACKGROUND_SAMPLE: std::time::Duration = std::time::Duration::from_millis(100);

/// A phase is quiet while some task waited for a CPU less than 10 % of the time (PSI `some`):
/// beyond that, a wake-up is often queued behind other work, and the "unloaded" figures
/// measure that work (seen here: 50 % from other work made the unloaded p99 6× the loaded).
pub const QUIET_CPU_PRESSURE: f64 = 0.10;

/// …and some task waited for memory less than 5 % of the time: reclaim in the way of a
/// wake-up is rarer and costlier than a queued CPU, so the bar is lower.
pub const QUIET_MEMORY_PRESSURE: f64 = 0.05;

/// …and a hypervisor stole less than 5 % of the CPU time: a stolen slice delays whatever ran,
/// and a virtual machine's usual steal is a percent or two.
pub const QUIET_STEAL: f64 = 0.05;

/// …and other tasks were runnable less than a quarter of the time per CPU on average: one
/// other busy task on a CPU in four competes with the measurement for that CPU.
pub const QUIET_RUNNABLE_PER_CPU: f64 = 0.25;

/// Real-time priority for measuring threads: 80, cyclictest's customary `-p80`. Threaded
/// IRQ handlers run at 50, so 80 preempts them, as seed 001's "ISR" level should.
pub const RT_PRIORITY: i32 = 80;

/// Busy-wait tail of the precise sleeper: 50 µs covers the wake-up latency of a typical
/// idle CPU, so the spin rarely starts late, and costs at most 5 % CPU at 1 kHz.
pub const SPIN_TAIL_NS: u64 = 50_000;

/// Timer slack asked for on measuring threads: 1 ns, the smallest the kernel accepts (0
/// means "reset to the default 50 µs").
pub const MEASURE_TIMER_SLACK_NS: u64 = 1;

/// glibc's malloc keeps up to this many arenas per CPU (its own default is 8 per CPU). Every
/// thread that ever allocated keeps free memory in its arena: with the default the suite's
/// display experiments left ~40 MB behind that `malloc_trim` could not hand back (measured:
/// 64 MB resident between experiments with the default, 27 MB with one per CPU). With one
/// arena per CPU, threads on different CPUs still allocate without waiting on each other.
pub const MALLOC_ARENAS_PER_CPU: usize = 1;
