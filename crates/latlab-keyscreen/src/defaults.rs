//! Every default of key to screen (the typist, its surfaces and the local servers), with the reason it has that value.

/// SCHED_FIFO priority of `display latency`'s client threads (typist and receiver) when the
/// server is loaded: 50, the typing probe's level in `latlab stall` (the measuring end must
/// not suffer the load it measures), the middle of the range, below the kernel's own threads.
pub const TYPIST_PRIORITY: i32 = 50;
/// Spinning processes of the `cpu` condition: 10, the load at which seed 003's user "spent
/// more than 50% of his time waiting" (Figure 5).
pub const LATENCY_SPINNERS: usize = 10;
/// Latency a user notices: 100 ms, seed 003's threshold ("latencies exceeding 100ms begin to
/// be noticeable").
pub const NOTICEABLE_MS: u64 = 100;
// ---- `--rdp`: a real RDP server ----------

/// Keys timed per condition on a real server: 100, enough for a p95 and a p99 over a few
/// seconds of typing at 75 wpm.
pub const RDP_KEYS: usize = 100;
/// A key whose glyph is not on the screen 2 s after its intended time is lost (twenty times
/// seed 003's 100 ms threshold: a key that late is not a slow key but a missing one).
pub const RDP_KEY_TIMEOUT_NS: u64 = 2_000_000_000;
/// The screen counts as settled after 300 ms without an update: longer than a caret's blink
/// half-period is not needed, since the detector ignores the caret, but longer than the
/// servers' capture periods (FreeRDP's shadow server polls the X screen every few tens of ms).
pub const RDP_SETTLE_NS: u64 = 300_000_000;
/// Keys timed under `mem` on a real server: 20, each after the whole server was paged out (seed
/// 003 §4.2 timed single keystrokes after page demand; 20 give a median and a spread in well
/// under a minute even when each page-in takes a second).
pub const RDP_MEM_KEYS: usize = 20;
/// Under `mem`, a key goes 50 ms after the page-out returned: long enough for the swap writes to
/// be under way, short enough that the server's own timers (a polling capture, a caret) have
/// little time to fault its pages back in first.
pub const RDP_MEM_KEY_AFTER_NS: u64 = 50_000_000;
/// Keys typed on one line before it is erased with Backspace: 40, inside the narrowest usual
/// terminal (80 columns) after a prompt.
pub const RDP_KEYS_PER_LINE: usize = 40;
/// How long a real server may take to draw its first picture after the connection: 15 s
/// (xrdp starts or attaches to an X session after the login; a Windows logon takes seconds).
pub const RDP_FIRST_PICTURE_NS: u64 = 15_000_000_000;
/// Tries at learning where typing draws before giving up: 3 (a prompt still being drawn or a
/// late echo spoils one try; a field that does not take typing spoils every one).
pub const RDP_LEARN_TRIES: usize = 3;
/// Between the keys of one burst (Backspaces erasing a line; never a timed key): 5 ms. A
/// release and the next press of one key at the same X server time look like auto-repeat to
/// xfreerdp, which then loses keys (two Backspaces sent together erased one, measured).
pub const TYPE_KEY_GAP_NS: u64 = 5_000_000;
/// The account root runs sway and its applications as: `nobody`, which every Linux system has
/// (sway refuses to run as root; latlab makes no account of its own).
pub const TYPE_WAYLAND_USER: &str = "nobody";
/// The shell a terminal started as that account runs when latlab's own `$SHELL` is unset or
/// not a program: `/bin/sh`, which every Linux system has. Without one a terminal runs the
/// account's login shell, `nologin` for `nobody`, and exits at once (foot does, status 1).
pub const TYPE_SHELL_FALLBACK: &str = "/bin/sh";
/// How much of an application's error output a failure to start quotes: its last 5 lines.
pub const TYPE_STDERR_TAIL_LINES: usize = 5;
/// A pause between two screen reads longer than 20 ms is not watching (latlab typing a burst
/// of Backspaces to clear a line, 5 ms a key): the capture rate reported is the rate while the
/// screen was watched, the figure's resolution.
pub const TYPE_WATCH_GAP_NS: u64 = 20_000_000;

/// The busy screen's xterm (`--conditions busy` on `--rdp local`): columns, rows, and its left
/// edge in pixels. 60×40 characters of the fixed 6×13 font (360×520 pixels, about a quarter of
/// the 1024×768 screen) right of the 100-column shell and document, so no key's cell is under it.
pub const BUSY_XTERM: (u32, u32, u32) = (60, 40, 640);
/// A line into the busy xterm every 40 ms: it scrolls at 25 lines a second, a video's frame
/// rate, for as long as the keys are typed.
pub const BUSY_LINE_MS: u64 = 40;
/// A key not shown within 1 s while the server kept sending updates is starved: the server
/// put the screen's other changes before it (remote-desktop users' "input starved behind
/// graphics", FreeRDP's and xrdp's trackers).
pub const STARVED_NS: u64 = 1_000_000_000;
