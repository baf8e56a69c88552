//! Every default of `latlab startup`, with the reason it has that value.

use crate::fixture::FixtureSpec;

/// Launches per state: 9, the default — enough for a median with a spread, few
/// enough that a slow application's 27 launches stay bearable.
pub const RUNS: usize = 9;
/// Launches per state in the suite: 3 (a median of three, in seconds of wall time).
pub const SUITE_RUNS: usize = 3;
/// Prefetch threads: one per two CPUs. A replay thread only submits reads
/// (`POSIX_FADV_WILLNEED` does not wait for them), so one thread keeps a device's queue
/// full; more threads mostly take CPU from the launch they are meant to speed up and
/// scatter the plan's order. Measured on 2 vCPUs (virtio disk): 1 thread 1.15× of warm,
/// 2 threads 1.29×, 4 threads 1.27×.
pub fn prefetch_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| (n.get() / 2).max(1))
}
/// Replay reads two ranges of a file as one when at most 16 pages (64 KiB) apart: one
/// larger request costs less than two small ones on any device.
pub const REPLAY_MERGE_GAP_PAGES: u64 = 16;
/// Longest one launch may take: 120 s (a large application from a rotating disk is
/// well inside it; a hung one is killed and reported).
pub const TIMEOUT_S: f64 = 120.0;
/// How often `startup io` reads every process's counters: 50 ms — a process alive that long
/// gets its own row; shorter ones are counted in their parent's (the kernel adds a reaped
/// child's I/O to its parent).
pub const IO_INTERVAL_MS: u64 = 50;
/// Where the built-in launch's data set is written: /var/tmp, which is on disk on most
/// systems (/tmp often is tmpfs, where nothing can be evicted).
pub const FIXTURE_PARENT: &str = "/var/tmp";
/// The built-in launch: 128 files of 1 MiB, of which it reads a 32 KiB header and a 64 KiB
/// section each (about a tenth, like a program touching part of its libraries and
/// resources), parsing every byte read 8 times (its CPU work per byte).
pub const FIXTURE: FixtureSpec = FixtureSpec { files: 128, file_kib: 1024, header_kib: 32, section_kib: 64, passes: 8 };
/// The suite's built-in launch: a quarter of the data, so three rounds take seconds.
pub const SUITE_FIXTURE: FixtureSpec =
    FixtureSpec { files: 48, file_kib: 512, header_kib: 32, section_kib: 64, passes: 2 };
/// `startup record --builtin`'s data set: the suite's, since a recording is about which files
/// are opened and in what order, not about how long the launch takes (and it runs under
/// emulation in the board check).
pub const RECORD_FIXTURE: FixtureSpec = SUITE_FIXTURE;
/// Processes `startup io` lists (the totals count all): 30 fit a screen.
pub const IO_TOP: usize = 30;
/// Where `startup record` writes the plan: the current directory, named for what it is.
pub const PLAN_FILE: &str = "latlab-plan.json";
/// Longest a boot service may take from its start to its readiness: 60 s (a real service
/// that takes longer is broken or waiting for something the file does not say), unless its
/// `timeout_ms` says otherwise.
pub const BOOT_READY_TIMEOUT_MS: u64 = 60_000;
/// After a boot, services still running get SIGTERM and this long before SIGKILL: 1 s.
pub const BOOT_STOP_GRACE_MS: u64 = 1_000;
/// How often the boot runner checks for readiness: every 200 µs, so a service's ready time
/// is known to well under a millisecond while the checks cost little CPU.
pub const BOOT_POLL_US: u64 = 200;
/// Rounds of `boot measure` (each a cold, a warm and a prefetched boot): 5, a median with a
/// spread in well under a minute for the built-in boot.
pub const BOOT_RUNS: usize = 5;
/// Rounds in the suite: 3.
pub const SUITE_BOOT_RUNS: usize = 3;
/// Each built-in boot service's data: 64 files of 512 KiB, a 32 KiB header and a 64 KiB
/// section read from each and parsed 4 times: 6 MiB read per service, 30 MiB in all
/// (160 MiB written), so a cold boot reads enough for the disk to show and still takes
/// well under a second.
pub const BOOT_FIXTURE: FixtureSpec =
    FixtureSpec { files: 64, file_kib: 512, header_kib: 32, section_kib: 64, passes: 4 };
/// The suite's: 32 files of 256 KiB, a 16 KiB header and a 32 KiB section, parsed twice
/// (1.5 MiB read per service), so its rounds take about a second.
pub const SUITE_BOOT_FIXTURE: FixtureSpec =
    FixtureSpec { files: 32, file_kib: 256, header_kib: 16, section_kib: 32, passes: 2 };
/// How often the utilisation of a profiled boot is sampled: every 20 ms. `/proc/stat` counts
/// CPU time in clock ticks (10 ms at the usual CLK_TCK of 100), so a shorter interval would
/// show each CPU as 0 or 100 % busy; 20 ms gives two ticks per CPU per sample.
pub const UTIL_INTERVAL_MS: u64 = 20;
/// The random-read measurement (Superfetch's rule): a 64 MiB file, larger than any disk
/// cache in front of the device's own, read 4 KiB at a time at random offsets for up to 4,000
/// reads or 1 s, whichever comes first.
pub const RANDREAD_FILE_MIB: usize = 64;
/// See [`RANDREAD_FILE_MIB`].
pub const RANDREAD_MAX_READS: u64 = 4_000;
/// See [`RANDREAD_FILE_MIB`].
pub const RANDREAD_MAX_MS: u64 = 1_000;
/// Seed 004: Superfetch is turned off where random reads exceed "about 8 Mb/second": Mb is
/// megabits, so 1 MB/s (8 × 10⁶ bits ÷ 8).
pub const SUPERFETCH_OFF_ABOVE_BYTES_PER_S: f64 = 8e6 / 8.0;
/// Launch plans the preload library keeps: 123, the number the seed's Superfetch kept ("up
/// to 123 process launch plans").
pub const PRELOAD_CAPACITY: usize = 123;
/// Half-life of a launch's weight in the preload ranking: 72 h. A program used every working
/// day keeps a score near its daily use; one unused for a week falls to a fifth of it, below
/// a program used once yesterday.
pub const PRELOAD_HALF_LIFE_H: f64 = 72.0;
/// Where the preload library is kept: the current directory, named for what it is (like the
/// plan file).
pub const PRELOAD_LIBRARY: &str = "latlab-preload.json";
/// The machine is idle for the preloader when everything else uses under 20 % of all CPUs:
/// a desktop at rest uses a few per cent, a launch or a build uses most of a CPU.
pub const PRELOAD_IDLE_BELOW: f64 = 0.20;
/// Idleness is judged every 250 ms: `/proc/stat` counts in 10 ms ticks, so a window holds 25
/// ticks per CPU, and a launch that starts is noticed within a quarter of a second.
pub const PRELOAD_CHECK_MS: u64 = 250;
/// The preloader waits for idleness at most 60 s in all, then gives up and says so.
pub const PRELOAD_GIVE_UP_S: u64 = 60;
/// The preloader reads at most a quarter of the memory available when it starts: it fills
/// free memory, never pushes out what others use.
pub const PRELOAD_BUDGET_SHARE: f64 = 0.25;
/// Plans the preloader reads at most, from the top of the ranking: all the library keeps.
pub const PRELOAD_TOP: usize = PRELOAD_CAPACITY;
/// The preload measurement's built-in applications: 4 data sets, so the ranking has a top and
/// a bottom.
pub const PRELOAD_APPS: usize = 4;
/// Rounds of the preload measurement (each: pressure then a launch without the preloader, and
/// pressure, the preloader, a launch).
pub const PRELOAD_RUNS: usize = 5;
/// The suite's rounds.
pub const SUITE_PRELOAD_RUNS: usize = 3;
/// The suite's preloader waits for idleness at most 10 s a pass: the suite is one of many
/// things a machine may be doing (in CI, compiles beside it), and three passes of the full
/// 60 s made it the suite's longest entry (163 s, measured in CI). A pass that gives up reads
/// nothing, and the paper row then says the machine was busy instead of judging.
pub const SUITE_PRELOAD_GIVE_UP_S: u64 = 10;
/// The preload measurement's memory pressure lowers its applications' memory group to 1 MiB
/// (then restores it): the kernel's reclaim then evicts all but a few hundred of their pages.
pub const PRELOAD_SQUEEZE_MIB: u64 = 1;
/// The preload measurement's applications: 32 files of 256 KiB each, a 16 KiB header and a
/// 32 KiB section read and parsed twice (1.5 MiB read per launch), like the suite's boot.
pub const PRELOAD_FIXTURE: FixtureSpec =
    FixtureSpec { files: 32, file_kib: 256, header_kib: 16, section_kib: 32, passes: 2 };
/// The slowest `--throttle-mbps` a boot measurement takes: 0.01 MB/s (10 KB/s). Slower, the
/// built-in boot's 1.5 MiB per service takes minutes per run: a mistyped unit, not a disk.
pub const MIN_THROTTLE_BYTES_PER_S: u64 = 10_000;
/// Pages two learning runs of one launch must share for seed 004's "you only have to execute
/// each process one time" to hold: 95 % of the pages in either plan (the kernel's readahead
/// may round a range differently between two cold launches; a plan that moved more than that
/// would need more than one run).
pub const RELEARN_PAGE_SHARE: f64 = 0.95;
