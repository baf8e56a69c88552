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
/// Frame period of the virtual clock: 20 ms (50 Hz), finer than any workload's events that
/// matter to bandwidth (typing at 100 wpm is one key every 120 ms).
pub const FRAME_MS: u64 = 20;
/// Largest update PDU: under the 16 KB a fast-path update fragment carries.
pub const MAX_PDU: usize = 16_000;
/// Typing speed: seed 003's 100 words a minute.
pub const TYPING_WPM: u32 = 100;
/// Caret blink half-period: Windows' default 530 ms, rounded.
pub const CARET_BLINK_MS: u64 = 500;
/// Frames of the looping animation by default: inside the 64×64 cache (84 frames of four
/// cells fit in 337 cells).
pub const ANIMATION_FRAMES: u32 = 60;
/// Time each animation frame shows: 100 ms, a 10 fps GIF.
pub const ANIMATION_DELAY_MS: u64 = 100;
/// Banner frames: 40 frames of eight 64×64 cells (320 cells) fit the 337-cell cache alone,
/// but not with the ticker's stream of new cells beside them (seed 003's non-linearity).
pub const BANNER_FRAMES: u32 = 40;
