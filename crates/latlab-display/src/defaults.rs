//! Every default of `latlab display`, with the reason it has that value.

/// Screen width: seed 000's baseline 1024×768.
pub const WIDTH: usize = 1024;
/// Screen height.
pub const HEIGHT: usize = 768;
/// Colour depth: seed 000's 16 bpp baseline.
pub const BPP: u32 = 16;
/// Cells per cache (16×16, 32×32, 64×64): seed 000's Network Projector, about 1.5 MB at
/// 16 bpp as in seed 003's cache.
pub const CELLS: [usize; 3] = [120, 120, 337];
/// The bitmap cache of `display cache`: seed 003's TSE client, "1.5MB of memory for a bitmap
/// cache" with 119×119 8 bpp frames. RDP 4.0-era clients sized the three caches in bytes
/// (MS-RDPBCGR's revision 1 bitmap cache capability set): 600 cells of 256 B (16×16), 300 of
/// 1 KB (32×32) and 262 of 4 KB (64×64) at 8 bpp, 1,533,952 B. Four 64×64 cells a frame, so
/// 65 frames fit and the seed's cliff at 65/66 is what this geometry predicts.
pub const SEED_CACHE_CELLS: [usize; 3] = [600, 300, 262];
/// Colour depth of `display cache`: the seed's 8 bpp frames.
pub const SEED_CACHE_BPP: u32 = 8;
/// 64×64 cells one frame of the 468×60 banner takes.
pub const BANNER_CELLS_PER_FRAME: usize = 8;
/// Share of the 64×64 cache the banner's loop fills in `display cache`: 95 %, so it fits
/// alone beside the page's few other cells, as the seed's banner did.
pub const BANNER_CACHE_SHARE: f64 = 0.95;
/// How much LRU's rate must rise over its rate at the smallest swept frame count for
/// `display cache` to say the cliff is there: 1.5×. Below the capacity the rate is flat (the
/// page's own traffic, on virtual time); past it every frame misses, which adds at least half
/// again even when the bulk compressor's history still holds a short loop's bitmaps.
pub const CLIFF_JUMP: f64 = 1.5;
/// Frame period of the virtual clock: 20 ms (50 Hz), finer than any workload's events that
/// matter to bandwidth (typing at 100 wpm is one key every 113 ms).
pub const FRAME_MS: u64 = 20;
/// Largest update PDU: under the 16 KB a fast-path update fragment carries.
pub const MAX_PDU: usize = 16_000;
/// Typing speed: seed 003's 100 words a minute.
pub const TYPING_WPM: u32 = 100;
/// Characters per word when typing: 5.29, the count seed 003 assumes ("If we assume 5.29
/// characters per word"); 100 wpm is then a key every 113 ms.
pub const CHARS_PER_WORD: f64 = 5.29;
/// Seed 000's fast client, 1.8 GHz, in MHz: the unit of the calibrated client speeds.
pub const PAPER_FAST_MHZ: f64 = 1800.0;
/// Seed 000's slow client, 233 MHz ("the CPU is never idle").
pub const PAPER_SLOW_MHZ: f64 = 233.0;
/// How busy seed 000's 1.8 GHz CEPC was at the slide show's peak: "the CPU is idle about 50
/// percent of the time". `display pipeline` calibrates its emulated client so that, at this
/// machine's measured cost, the 1.8 GHz-equivalent is this busy with latlab's slide show; the
/// other speeds scale from it by MHz.
pub const PAPER_FAST_BUSY: f64 = 0.5;
/// Client speeds swept, in MHz of the seed's CEPC: its two clients, its "about 800 MHz"
/// minimum, the 300–400 MHz of the projectors of the day.
pub const PIPELINE_CLIENT_MHZ: [f64; 5] = [1800.0, 800.0, 400.0, 300.0, 233.0];
/// A client keeps up when it drops at most this share of frames (the seed's "frame dropping
/// and jittering were noticeable" on the slow ones; one frame in a hundred is not).
pub const PIPELINE_KEEPS_UP_DROPPED: f64 = 0.01;
/// Caret blink half-period (the time to invert it): 200 ms, the fastest notch of Windows 98's
/// keyboard control panel ("blinks 5 times per second", Microsoft KB Q247054). Seed 003's
/// 0.50 KB/s caret was measured "at the maximum blink rate"; Windows' default is 530 ms.
pub const CARET_BLINK_MS: u64 = 200;
/// Frames of the looping animation by default: inside the 64×64 cache (84 frames of four
/// cells fit in 337 cells).
pub const ANIMATION_FRAMES: u32 = 60;
/// Time each animation frame shows: 100 ms, a 10 fps GIF.
pub const ANIMATION_DELAY_MS: u64 = 100;
/// Banner frames: 40 frames of eight 64×64 cells (320 cells) fit the 337-cell cache alone,
/// but not with the ticker's stream of new cells beside them (seed 003's non-linearity).
pub const BANNER_FRAMES: u32 = 40;
/// The slide show's animated picture window: 480×360, a 4:3 video inset on a slide.
pub const VIDEO_W: usize = 480;
/// Its height.
pub const VIDEO_H: usize = 360;
/// Its frame period: 40 ms (25 fps, PAL video).
pub const VIDEO_FRAME_MS: u64 = 40;
/// Virtual seconds each `display ops` workload is measured: long enough for the slowest
/// script (a slide every 2 s, a 4 s banner loop) to repeat several times.
pub const OPS_SECONDS: u64 = 30;
/// Virtual warm-up before counting: the first frame paints the whole screen, which is a
/// session's start-up, not the operation's steady cost.
pub const OPS_WARMUP_MS: u64 = 2_000;
/// Bulk compression of `display ops`: MPPC-8K, RDP 4.0's, the Terminal Server study's.
pub const OPS_CODEC: &str = "mppc8";
/// Ethernet II header (14) and frame check sequence (4) per frame; preamble and inter-frame
/// gap are not bytes a capture shows, so they are left out, as in the study's traces.
pub const ETHERNET_BYTES: u64 = 18;
/// IPv4 header without options.
pub const IPV4_BYTES: u64 = 20;
/// TCP header with the timestamp option Linux sends by default (20 + 12).
pub const TCP_BYTES: u64 = 32;
/// TCP payload per segment on 1500-byte Ethernet with timestamps (1500 − 20 − 32).
pub const ETHERNET_MSS: u64 = 1_448;
/// The client's receive buffer: seed 000's NPRecvBufferSize default, 64 KB.
pub const RCVBUF: usize = 64 * 1024;
/// The client's receive threshold: seed 000's NPRecvThreshold default, 2 KB.
pub const RCV_THRESHOLD: usize = 2 * 1024;
/// The server's kernel send buffer (`SO_SNDBUF`), bytes: what seed 000's peak rate (3.7 MB/s)
/// sends in seed 003's noticeable 100 ms, halved because the kernel doubles the value for its
/// bookkeeping. A server queues no more than a user would not notice, so a client that cannot
/// keep up shows as frames dropped (seed 000's 233 MHz CEPC) rather than as seconds of frames
/// queued in the kernel (Linux autotunes a loopback send buffer up to 4 MB: three seconds of
/// the slide show for the 233 MHz client, shown late and drained after the session ended).
pub const SERVER_SNDBUF: usize = (crate::paper::PEAK_BYTES_PER_S as usize / 1000 * NOTICEABLE_MS as usize) / 2;
/// The largest receive buffer seed 000 recommends trying, 1024 KB (`latlab tune rcvbuf`).
pub const SEED_MAX_RCVBUF: usize = 1024 * 1024;
/// Seed 000's largest recommended threshold, five percent of that buffer (52 KB).
pub const SEED_MAX_RCV_THRESHOLD: usize = SEED_MAX_RCVBUF / 20;
/// Longest the client waits for the threshold to fill before reading what is there: one
/// frame period, so a quiet stream is never held back longer than a frame.
pub const RCV_MAX_WAIT_MS: u64 = FRAME_MS;
/// The TCP port `display serve` listens on when none is given (unassigned by IANA).
pub const PORT: u16 = 3899;
/// Workload of `display view`: the animated slide show, seed 000's heaviest (3.7 MB/s).
pub const VIEW_WORKLOAD: &str = "slideshow";
/// Seconds of `display view`: 10 s covers five slides.
pub const VIEW_SECONDS: u64 = 10;
/// Bulk compression of `display view`, `display cache` and `display pipeline`: NCRUSH,
/// RDP 6.0's, the Network Projector study's.
pub const VIEW_CODEC: &str = "ncrush";
/// Encryption of `display view`: RC4 with a MAC (the study's server forced encryption on).
pub const VIEW_CRYPTO: &str = "rc4";
/// Encryption of `display ops`: none (the Terminal Server study's traces carried none).
pub const OPS_CRYPTO: &str = "none";
/// Seed of the workload scripts: 1, so two runs with the same settings send the same bytes.
pub const SEED: u64 = 1;
/// Loops of `display cache` measured after one loop of warm-up: two.
pub const CACHE_LOOPS: u32 = 2;
/// SCHED_FIFO priority of `display latency`'s client threads (typist and receiver) when the
/// server is loaded: 50, the typing probe's level in `latlab stall` (the measuring end must
/// not suffer the load it measures), the middle of the range, below the kernel's own threads.
pub const TYPIST_PRIORITY: i32 = 50;
/// Conditions of `display latency`, one sweep: unloaded; the server's CPU loaded; its memory
/// paged out between keys; and links shaped between namespaces — seed 003's 10 Mbit/s
/// Ethernet, 1 Mbit/s, its 56 kbit/s modem example, and 10 Mbit/s with competing bulk
/// transfers as in its Figure 6.
pub const LATENCY_CONDITIONS: [&str; 7] = ["unloaded", "cpu", "mem", "10mbit", "1mbit", "56kbit", "10mbit_bulk"];
/// Key repeat of the scrolling workload: Page Down every 50 ms (20 a second), the repeat rate
/// seed 003 measured for a held key ("character repeat at a rate of 20cps"); its scrolling
/// test held Page Down.
pub const SCROLL_REPEAT_MS: u64 = 50;
/// Typing speed of `display latency`: seed 003's typist at "approximately 75wpm".
pub const LATENCY_WPM: u32 = 75;
/// Typing speed of `display latency`'s CPU-load condition, seed 003's Figure 5: a key held
/// down, "engaging character repeat at a rate of 20cps": 20 × 60 ÷ 5.29 ≈ 227 words a minute.
pub const FIGURE5_WPM: u32 = 227;
/// Seconds of typing per condition: 20 s at 75 wpm is 132 keys, enough for a p95 and a p99
/// (of about 110 visible keys) per condition while the sweep stays near three minutes.
pub const LATENCY_SECONDS: f64 = 20.0;
/// Page Downs (large updates) per condition: two, so a slow link's page is seen twice.
pub const LATENCY_PAGES: u32 = 2;
/// A key not shown 10 s after its intended time is lost: past the seed's worst warm start
/// (11.9 s is a page-in, counted by `stall mem`), far past anything a user waits for.
pub const LATENCY_KEY_TIMEOUT_MS: u64 = 10_000;
/// A page not shown in 60 s is lost: a page of text is tens of KB, several seconds at 7 bytes
/// per ms on the 56 kbit/s link.
pub const LATENCY_PAGE_TIMEOUT_MS: u64 = 60_000;
/// Spinning processes of the `cpu` condition: 10, the load at which seed 003's user "spent
/// more than 50% of his time waiting" (Figure 5).
pub const LATENCY_SPINNERS: usize = 10;
/// The server's working set under `mem`: 32 MiB touched per key and paged out between keys
/// (paged back in from swap at up to 6.6 keys a second; `stall mem` times one larger page-in).
pub const LATENCY_WORKING_SET_MIB: u32 = 32;
/// Where `mem`'s temporary swap file goes: latlab's one choice, a disk-backed directory.
pub use latlab_sys::defaults::SWAP_DIR;
/// Rate of each competing bulk flow, as a share of the link: 96 %, seed 003's 9.6 Mbit/s load
/// on 10 Mbit/s Ethernet (Figure 6's heaviest point).
pub const LATENCY_BULK_SHARE: f64 = 0.96;
/// Latency a user notices: 100 ms, seed 003's threshold ("latencies exceeding 100ms begin to
/// be noticeable").
pub const NOTICEABLE_MS: u64 = 100;
/// Wake-up threshold of `display latency`'s client: 1 byte, an interactive client that reads
/// whatever arrives. Seed 000's projector default (2 KB, waiting up to a frame) would hold a
/// key's few hundred bytes for up to 20 ms.
pub const LATENCY_RCV_THRESHOLD: usize = 1;
/// Typing speed of `display capacity`'s typists: 100 wpm, the rate of seed 003's display
/// figures ("For a user typing at 100wpm, Word generated 6.26KBps") from which it reckons "on
/// the order of 100 users" per 10 Mbit/s.
pub const CAPACITY_WPM: u32 = 100;
/// The user mix of `display capacity`: seed 003's office — typists at 100 wpm, with an
/// occasional user in the menus and one scrolling (8 : 1 : 1).
pub const CAPACITY_MIX: &str = "typist=8,menu=1,scroller=1";
/// Session counts of the ramp: doubling from one to 64 (seed 003 reasons about 5, 10 and 100
/// users; 64 sessions' clients and server already fill a two-core machine).
pub const CAPACITY_RAMP: [usize; 7] = [1, 2, 4, 8, 16, 32, 64];
/// The most sessions a ramp tries: 512 (after the ramp, levels double up to it until one
/// breaks; a lean typist session holds under half a MiB and 0.2 % of a core here, so two
/// cores hold hundreds, and 512 client threads are what one process should start).
pub const CAPACITY_MAX_SESSIONS: usize = 512;
/// Seconds per level: 10 s, 66 keys per typist, so each typist has a p95.
pub const CAPACITY_SECONDS: f64 = 10.0;
/// The session that warms the server up before the ramp when no per-kind pass does: 1 s (the
/// validation's shortest level), long enough to make the server's one-time memory.
pub const CAPACITY_WARMUP_SECONDS: f64 = 1.0;
/// The per-kind pass's shorter run: 1 s, time for every kind's opening screen (a session's
/// first frame paints it: tens of KB, under 0.1 s even on 10 Mbit/s), so the longer run,
/// this plus a level's seconds, differs from it by steady traffic alone.
pub const CAPACITY_OPENING_SECONDS: f64 = 1.0;
/// `display capacity --rdp local-xrdp`: the ramp against xrdp, 1, 2, 4 and 8 sessions, then
/// doubling while levels hold up to [`CAPACITY_RDP_MAX_SESSIONS`]. An xrdp session is a whole
/// X login (Xorg, two xterms, a shell and `less`), tens of MiB and a second or more of
/// start-up each, so a real server's ramp starts where latlab's stand-in is still idle.
pub const CAPACITY_RDP_RAMP: [usize; 4] = [1, 2, 4, 8];
/// The most sessions a ramp against xrdp tries: 64 (each is an account, a login and an Xorg;
/// two cores are full long before, and a larger ramp mostly measures logins).
pub const CAPACITY_RDP_MAX_SESSIONS: usize = 64;
/// How long a level against xrdp waits for its sessions' logins: 20 s (the one-session wait of
/// `display latency --rdp local-xrdp`) and 2 s more per session, since sesman starts each
/// session's Xorg and programs one after another on the same CPUs.
pub const CAPACITY_RDP_LOGIN_SECS: f64 = 20.0;
/// See [`CAPACITY_RDP_LOGIN_SECS`].
pub const CAPACITY_RDP_LOGIN_SECS_PER_SESSION: f64 = 2.0;
/// The link counts as saturated at 90 % of its rate (TCP/IP headers and HTB's pacing take
/// the rest).
pub const CAPACITY_LINK_FULL: f64 = 0.9;
/// The server's CPU counts as the limit when it used 90 % of the machine's cores.
pub const CAPACITY_CPU_FULL: f64 = 0.9;

/// `display serve`: seconds a connection may take to send its hello. latlab's client sends it
/// at once; 5 s leaves room for a slow link and a busy client, and frees an idle connection
/// long before thousands can pile up.
pub const HELLO_DEADLINE_SECS: f64 = 5.0;
/// `display serve`: seconds a session may go without the client taking a byte (or, in an
/// echo session, sending one): a viewer that stopped reading or went away without closing.
/// Longer than any stall the studies measured (seconds), short enough to free its thread.
pub const IDLE_TIMEOUT_SECS: f64 = 30.0;
/// `display serve`: the longest session a hello may ask for (and an echo session may last):
/// one hour, the studies' longest runs being minutes.
pub const MAX_SESSION_SECS: f64 = 3600.0;
/// `display serve`: sessions at once. Each costs two threads and a screen's buffers (a few
/// MB); 64 is past the capacity experiment's largest sweep on a small server.
pub const MAX_SESSIONS: usize = 64;
/// `display serve`: connections waiting for their hello at once; past it the one waiting
/// longest is closed, so idle connections cannot keep a real viewer out. A waiting connection
/// holds a socket and nothing else until its first bytes (then at most a 1 KiB hello).
pub const MAX_WAITING: usize = 256;

// ---- `display serve --rdp`: latlab as an RDP server for real clients (issue #39) ------------

/// The port `display serve --rdp` listens on when none is given: RDP's own (3389), which every
/// client tries when given a bare host.
pub const RDP_SERVE_PORT: u16 = 3389;
/// The script each client is shown: its own keys echoed (input to update), then seed 000's
/// workloads: typing, scrolling, the slide show (its demanding animation) and the banner
/// with the ticker (seed 003's web page).
pub const RDP_SERVE_SCRIPT: &str = "echo,typing,scroll,slideshow,banner_ticker";
/// Seconds per phase: 10 s is 500 frames at 20 ms, enough for a frame rate and a drop share,
/// and keeps the default script under a minute.
pub const RDP_SERVE_PHASE_SECS: f64 = 10.0;
/// Seconds a client has for the whole connection sequence (TLS, NLA, capabilities). Real
/// clients take well under one on a LAN (they ask for a password before they connect, so no
/// person is waited for inside it); 10 s leaves room for a slow link and a slow client.
pub const RDP_HANDSHAKE_DEADLINE_SECS: f64 = 10.0;

/// `--gfx`: frames the server lets a client's graphics pipeline hold unacknowledged before it
/// drops (coalesces) frames: two, as a compositor double-buffers, so a slow client shows as
/// dropped frames and a lower acknowledged rate rather than as a growing queue.
pub const RDP_GFX_MAX_IN_FLIGHT: usize = 2;

// ---- `--rdp`: a real RDP server (issue #38) ---------------------------------------------

/// Keys timed per condition on a real server: 100, enough for a p95 and a p99 over a few
/// seconds of typing at 75 wpm.
pub const RDP_KEYS: usize = 100;
/// Colour depth asked of a real server: 16 bpp, the deepest that stays on interleaved RLE
/// (MS-RDPBCGR 2.2.9.1.1.3.1.2.4), the bitmap codec latlab owns; at 32 bpp servers switch to
/// the planar codec (MS-RDPEGDI 2.2.2.5), which latlab does not decode.
pub const RDP_BPP: u32 = 16;
/// Seconds per UI operation of `display ops --rdp`: 10 s, as `display ops` runs each of its own.
pub const RDP_OP_SECONDS: f64 = 10.0;
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

// ---- `latlab type`: keystroke to screen on real applications (issue #40) ------------------

/// Keys timed per application and condition: 100, as on a real RDP server ([`RDP_KEYS`]).
pub const TYPE_KEYS: usize = RDP_KEYS;
/// From one key to the next: 100 ms (a fast typist, 120 words a minute), long enough that each
/// key's glyph is normally on the screen before the next key goes, so keys are not timed in one
/// shared frame.
pub const TYPE_INTERVAL_NS: u64 = 100_000_000;
/// Screen reads a second: 2000, a figure resolved to 0.5 ms (typometer-class tools resolve a
/// frame, 16 ms) while latlab and the X server spend a tenth of a core each on the reads, not
/// the whole core a flat-out poll takes from the application measured (`--capture-hz 0`).
pub const TYPE_CAPTURE_HZ: u32 = 2000;
/// How long an application may take to show its window, and its first drawing to settle: 20 s
/// (an RDP client connects, logs on and draws the remote desktop first).
pub const TYPE_WINDOW_TIMEOUT_NS: u64 = 20_000_000_000;
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
/// The refresh rate of latlab's headless sway output: 240 Hz. A headless wlroots output paces
/// its frames (and so screen copies) at its refresh: 62 frames a second at the default 60 Hz,
/// 216 at 240 Hz, measured here; the figure's resolution is one frame, 4.2 ms.
pub const TYPE_WAYLAND_REFRESH_HZ: u32 = 240;
/// A pause between two screen reads longer than 20 ms is not watching (latlab typing a burst
/// of Backspaces to clear a line, 5 ms a key): the capture rate reported is the rate while the
/// screen was watched, the figure's resolution.
pub const TYPE_WATCH_GAP_NS: u64 = 20_000_000;
