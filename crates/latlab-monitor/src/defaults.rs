//! Every default of `latlab monitor`, with the reason it has that value.

/// Window length: 5 minutes, OSADL's QA farm's: a maximum per window shows when the worst
/// happened; 288 windows a day stay a small table.
pub const WINDOW_NS: u64 = 300_000_000_000;
/// Interval of the timer probe: 1 ms (1 kHz), enough wake-ups for a window's p99.9 (300,000 in
/// five minutes) at a cost a board can carry for days.
pub const INTERVAL_NS: u64 = 1_000_000;
/// Priority of the probe's thread: 80, as `latlab rt`'s level 1 and cyclictest's `-p80`.
pub const RT_PRIORITY: i32 = latlab_sys::defaults::RT_PRIORITY;
/// Where `--metrics-listen` listens when given no address: loopback, Prometheus's
/// customary exporter port range (9464 is OpenTelemetry's Prometheus exporter's).
pub const METRICS_LISTEN: &str = "127.0.0.1:9464";
/// Closed windows queued between the probe and the writer: 64 (five hours of default
/// windows; a stalled disk must not stall the probe, and a window that finds the queue full
/// is counted as dropped, not waited for).
pub const QUEUE: usize = 64;
/// Rows of the report's per-window plot: 720 (two and a half days of 5-minute windows drawn
/// one by one; a longer run draws each point as the largest of several windows, so the file
/// stays small and no maximum is lost).
pub const PLOT_WINDOWS: usize = 720;
/// Interval of the udp probe: 10 ms (100 packets a second, about 10 KB/s with replies), a
/// rate a board's link carries for days beside its real traffic, and 30,000 round trips per
/// five-minute window for its p99.9.
pub const UDP_INTERVAL_NS: u64 = 10_000_000;
/// How long a udp request waits for its reply before it is counted lost: 3 s (RFC 7680's
/// suggestion for a loss threshold is "a reasonable period", irtt's default is 3× the RTT
/// with a floor; 3 s covers any path latlab is meant for, and a window closes 3 s late).
pub const UDP_WAIT_NS: u64 = 3_000_000_000;
/// A gap longer than this is an interruption of the idle probe: 2 µs, `latlab idle`'s.
pub const IDLE_THRESHOLD_NS: u64 = 2_000;
/// Rate of the `link` load: 100 Mbit/s, a board's Fast Ethernet port filled, which keeps the
/// kernel's network path busy without taking a whole CPU on loopback.
pub const LINK_LOAD_BPS: u64 = 100_000_000;
/// How the timer probe wakes the chain's second level: eventfd, `latlab rt`'s default (one
/// kernel counter, the path a Linux driver's interrupt thread would take to user space).
pub const WAKE: latlab_sys::wake::SignalKind = latlab_sys::wake::SignalKind::Eventfd;
