//! Every default of `latlab type`, with the reason it has that value.

// ---- `latlab type`: keystroke to screen on real applications ----------

/// Keys timed per application and condition: 100, as on a real RDP server ([`latlab_keyscreen::defaults::RDP_KEYS`]).
pub const TYPE_KEYS: usize = latlab_keyscreen::defaults::RDP_KEYS;
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
/// The refresh rate of latlab's headless sway output: 240 Hz. A headless wlroots output paces
/// its frames (and so screen copies) at its refresh: 62 frames a second at the default 60 Hz,
/// 216 at 240 Hz, measured here; the figure's resolution is one frame, 4.2 ms.
pub const TYPE_WAYLAND_REFRESH_HZ: u32 = 240;
/// Keys of the suite's short run: 20 at 100 ms, two seconds of typing into xterm, enough for a
/// median and a lost-key count while the suite stays short.
pub const TYPE_SUITE_KEYS: usize = 20;
