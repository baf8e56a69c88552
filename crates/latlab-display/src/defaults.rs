//! Every default of the display studies (`latlab display`), with the reason it has that value.

/// 64×64 cells one frame of the 468×60 banner takes.
pub const BANNER_CELLS_PER_FRAME: usize = 8;
/// Share of the 64×64 cache the banner's loop fills in `display cache`: 95 %, so it fits
/// alone beside the page's few other cells, as the seed's banner did.
pub const BANNER_CACHE_SHARE: f64 = 0.95;
/// How much LRU's payload rate (headers left out) must rise over its rate at the smallest
/// swept frame count for `display cache` to say the cliff is there: 1.5×. Below the capacity
/// the rate is flat (the page's own traffic, on virtual time); past it every frame misses,
/// which adds at least half again even when the bulk compressor's history still holds a short
/// loop's bitmaps.
pub const CLIFF_JUMP: f64 = 1.5;
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
/// Virtual seconds each `display ops` workload is measured: long enough for the slowest
/// script (a slide every 2 s, a 4 s banner loop) to repeat several times.
pub const OPS_SECONDS: u64 = 30;
/// Virtual warm-up before counting: the first frame paints the whole screen, which is a
/// session's start-up, not the operation's steady cost.
pub const OPS_WARMUP_MS: u64 = 2_000;
/// The largest receive buffer seed 000 recommends trying, 1024 KB (`latlab tune rcvbuf`).
pub const SEED_MAX_RCVBUF: usize = 1024 * 1024;
/// Seed 000's largest recommended threshold, five percent of that buffer (52 KB).
pub const SEED_MAX_RCV_THRESHOLD: usize = SEED_MAX_RCVBUF / 20;
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
/// Loops of `display cache` measured after one loop of warm-up: two.
pub const CACHE_LOOPS: u32 = 2;
/// Conditions of `display latency`, one sweep: unloaded; the server's CPU loaded; its memory
/// paged out between keys; and links shaped between namespaces — seed 003's 10 Mbit/s
/// Ethernet, 1 Mbit/s, its 56 kbit/s modem example, and 10 Mbit/s with competing bulk
/// transfers as in its Figure 6.
pub const LATENCY_CONDITIONS: [&str; 7] = ["unloaded", "cpu", "mem", "10mbit", "1mbit", "56kbit", "10mbit_bulk"];
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
/// The server's working set under `mem`: 32 MiB touched per key and paged out between keys
/// (paged back in from swap at up to 6.6 keys a second; `stall mem` times one larger page-in).
pub const LATENCY_WORKING_SET_MIB: u32 = 32;
/// Where `mem`'s temporary swap file goes: latlab's one choice, a disk-backed directory.
pub use latlab_sys::defaults::SWAP_DIR;
/// Rate each competing bulk flow is offered at, as a share of the link: 120 %, more than the
/// link carries, so the link paces the flows, as seed 003's saturating TCP load was paced by
/// its 10 Mbit/s Ethernet (its 9.6 Mbit/s is what such a flow delivers there). Paced just
/// under the link, the queue would depend on latlab's pacer (`stall net`'s docs).
pub const LATENCY_BULK_SHARE: f64 = 1.2;
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
/// A real server's logins are paced one every 3 s, as load-testing tools pace a morning's
/// arrivals (Login VSI's default launches one session every few seconds), so the limit found
/// is the server's and not a storm of simultaneous logins' (xrdp's sesman starts each session's
/// Xorg and programs in turn: 32 logins in one instant failed here where 16 typed).
pub const CAPACITY_RDP_LOGIN_EVERY_MS: u64 = 3000;
/// The link counts as saturated at 90 % of its rate (TCP/IP headers and HTB's pacing take
/// the rest).
pub const CAPACITY_LINK_FULL: f64 = 0.9;
/// The server's CPU counts as the limit when it used 90 % of the machine's cores.
pub const CAPACITY_CPU_FULL: f64 = 0.9;
/// Colour depth asked of a real server: 16 bpp, the deepest that stays on interleaved RLE
/// (MS-RDPBCGR 2.2.9.1.1.3.1.2.4), the bitmap codec latlab owns; at 32 bpp servers switch to
/// the planar codec (MS-RDPEGDI 2.2.2.5), which latlab does not decode.
pub const RDP_BPP: u32 = 16;
/// Seconds per UI operation of `display ops --rdp`: 10 s, as `display ops` runs each of its own.
pub const RDP_OP_SECONDS: f64 = 10.0;
