//! Every default of the desktop engine (screen, workloads, encoder, cache, wire), with the reason it has that value.

/// Screen width: seed 000's baseline 1024×768.
pub const WIDTH: usize = 1024;
/// Screen height.
pub const HEIGHT: usize = 768;
/// Colour depth: seed 000's 16 bpp baseline.
pub const BPP: u32 = 16;
/// Cells per cache (16×16, 32×32, 64×64): seed 000's Network Projector's slot lists "on a
/// sample CEPC" (120, 120, 337). At the 16 bpp baseline that is 3.07 MB (61,440 + 245,760 +
/// 2,760,704 B), twice seed 003's 1.5 MB 8 bpp cache ([`SEED_CACHE_CELLS`]).
pub const CELLS: [usize; 3] = [120, 120, 337];
/// The bitmap cache of `display cache`: seed 003's TSE client, "1.5MB of memory for a bitmap
/// cache" with 119×119 8 bpp frames. RDP 4.0-era clients sized the three caches in bytes
/// (MS-RDPBCGR's revision 1 bitmap cache capability set): 600 cells of 256 B (16×16), 300 of
/// 1 KB (32×32) and 262 of 4 KB (64×64) at 8 bpp, 1,533,952 B. Four 64×64 cells a frame, so
/// 65 frames fit and the seed's cliff at 65/66 is what this geometry predicts.
pub const SEED_CACHE_CELLS: [usize; 3] = [600, 300, 262];
/// Colour depth of `display cache`: the seed's 8 bpp frames.
pub const SEED_CACHE_BPP: u32 = 8;
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
/// How far a typist's key gaps spread about the interval asked for, each way, as a fraction
/// of it: gaps of 0.5–1.5× spread a key over a whole interval, so a server that updates on a
/// timer of any period up to the interval is met at every phase of it (typed every 250 ms, a
/// fixed interval met FreeRDP's 62.5 ms capture at one phase: p50 59 ms against about 37 with
/// the keys jittered).
pub const KEY_GAP_SPREAD: f64 = 0.5;
/// The key gaps' seed: the same run, the same gaps.
pub const KEY_GAP_SEED: u64 = 1;
/// The Office Assistant's frame period, ms: its animations were sequences of frames shown
/// about a tenth of a second each (seed 003's ClipIt; the seed gives no rate).
pub const ASSISTANT_FRAME_MS: u64 = 100;
/// How often the idle assistant blinks, ms (the seed: "blinks his eyes periodically", no
/// period given).
pub const ASSISTANT_BLINK_MS: u64 = 4000;
/// When the save animation starts, ms: at `display ops`' warm-up's end (2 s), so the run
/// counts all of it.
pub const ASSISTANT_SAVE_AT_MS: u64 = 2000;
/// The save animation's length, ms: "lasts for approximately 7 seconds" (seed 003).
pub const ASSISTANT_SAVE_MS: u64 = 7000;
/// The lightweight slide show's time on each slide, ms: the animated show's 2 s, so the two
/// differ only in the animation (seed 000's "lightweight PowerPoint slide shows" are slides
/// without it; the seed gives neither show's pace).
pub const LIGHT_SLIDE_MS: u64 = 2000;
/// Ethernet II header (14) and frame check sequence (4) per frame; preamble and inter-frame
/// gap are not bytes a capture shows, so they are left out, as in the study's traces.
pub const ETHERNET_BYTES: u64 = 18;
/// IPv4 header without options.
pub const IPV4_BYTES: u64 = 20;
/// TCP header with the timestamp option Linux sends by default (20 + 12).
pub const TCP_BYTES: u64 = 32;
/// TCP payload per segment on 1500-byte Ethernet with timestamps (1500 − 20 − 32).
pub const ETHERNET_MSS: u64 = 1_448;
/// Seed of the workload scripts: 1, so two runs with the same settings send the same bytes.
pub const SEED: u64 = 1;
/// Key repeat of a held key: every 50 ms (20 a second), the repeat rate seed 003 measured
/// ("character repeat at a rate of 20cps"). Its scrolling test held Page Down, its menu test
/// the right arrow.
pub const KEY_REPEAT_MS: u64 = 50;
/// How long the Start menu workload's user rests on each item before the next: 300 ms, a
/// deliberate human pace (latlab's choice: the seed's traversal was "human-driven" and does not
/// say how fast; Windows 98 opens a cascade menu after 400 ms of hover by default, and the
/// workload opens it at once, as a user who clicks or waits would see it).
pub const START_MENU_STEP_MS: u64 = 300;
