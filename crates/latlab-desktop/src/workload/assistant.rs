//! The Office Assistant (seed 003 §3.3.3, Office 97's ClipIt): a paper clip with eyes in its
//! own small window, idle but for its eyes blinking now and then, or playing its save
//! animation once (the clip folds itself into a box and tosses its eyes in). Each frame is a
//! whole bitmap of the window, as the assistant's animations were frames blitted whole.

use super::*;
use crate::defaults::{ASSISTANT_BLINK_MS, ASSISTANT_FRAME_MS, ASSISTANT_SAVE_AT_MS, ASSISTANT_SAVE_MS};

/// The assistant's window side, pixels: a 2×2 block of 64×64 cells.
pub const ASSISTANT_SIDE: usize = 128;
const PAPER: Rgb = [255, 255, 204];
const WIRE: Rgb = [140, 140, 155];
const BOX: Rgb = [190, 150, 90];

/// Where the window sits on a `w × h` screen: near the bottom right, cell-aligned.
fn window(w: usize, h: usize) -> Area {
    let x = w.saturating_sub(ASSISTANT_SIDE + 32) / 64 * 64;
    let y = h.saturating_sub(ASSISTANT_SIDE + 32) / 64 * 64;
    Area::new(x, y, ASSISTANT_SIDE.min(w - x), ASSISTANT_SIDE.min(h - y))
}

/// What the character looks like in one frame.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Pose {
    /// 0 the paper clip, 1 folded into a box.
    fold: f32,
    /// 0 eyes open, 1 shut.
    lids: f32,
    /// The eyes' offset from their place on the clip, pixels (tossed into the box).
    eyes: (f32, f32),
}

const STILL: Pose = Pose { fold: 0.0, lids: 0.0, eyes: (0.0, 0.0) };

/// Draw the window with the character in `pose`.
fn draw(c: &mut Canvas, a: Area, p: Pose) {
    c.fill(a, PAPER);
    let (x, y) = (a.x as f32, a.y as f32);
    let lerp = |u: f32, v: f32| u + (v - u) * p.fold;
    // The clip: two nested loops of wire, bent toward a box's outline as it folds.
    let loops = [
        [(44.0, 110.0), (lerp(20.0, 34.0), lerp(40.0, 104.0)), (lerp(92.0, 94.0), lerp(30.0, 104.0)), (84.0, 110.0)],
        [(52.0, 104.0), (lerp(36.0, 40.0), lerp(56.0, 70.0)), (lerp(80.0, 88.0), lerp(50.0, 70.0)), (74.0, 100.0)],
    ];
    for l in loops {
        c.bezier(l.map(|(u, v)| (x + u, y + v)), 3.0, WIRE);
    }
    if p.fold > 0.5 {
        let side = ((p.fold - 0.5) * 2.0 * 40.0) as usize;
        c.fill(Area::new(a.x + 44, a.y + 110 - side.min(40), 40, side.min(40)), BOX);
    }
    // The eyes: white, a pupil, a lid coming down over each.
    for ex in [50.0, 76.0] {
        let (cx, cy) = (x + ex + p.eyes.0, y + 36.0 + p.eyes.1);
        c.circle(cx, cy, 9.0, WHITE);
        c.circle(cx + 2.0, cy + 1.0, 4.0, BLACK);
        let lid = (p.lids * 18.0) as usize;
        if lid > 0 {
            c.fill(Area::new((cx - 9.0) as usize, (cy - 9.0) as usize, 19, lid), WIRE);
        }
    }
}

/// The pose at `t` ms of the idle loop: a blink every [`ASSISTANT_BLINK_MS`] (half shut, shut,
/// half shut, one frame each), otherwise still.
fn idle_pose(t: u64) -> Pose {
    let into = t % ASSISTANT_BLINK_MS;
    let frame = (t >= ASSISTANT_BLINK_MS).then_some(into / ASSISTANT_FRAME_MS);
    let lids = match frame {
        Some(0) | Some(2) => 0.5,
        Some(1) => 1.0,
        _ => 0.0,
    };
    Pose { lids, ..STILL }
}

/// The pose at `t` ms of the save: still until [`ASSISTANT_SAVE_AT_MS`], then for
/// [`ASSISTANT_SAVE_MS`] the clip folds into a box (the first half), its eyes arc up and drop
/// into it, and it unfolds again (the last tenth); still afterwards.
fn save_pose(t: u64) -> Pose {
    let Some(into) = t.checked_sub(ASSISTANT_SAVE_AT_MS).filter(|d| *d < ASSISTANT_SAVE_MS) else {
        return STILL;
    };
    // Quantised to the animation's frames.
    let p = (into / ASSISTANT_FRAME_MS * ASSISTANT_FRAME_MS) as f32 / ASSISTANT_SAVE_MS as f32;
    let fold = if p < 0.5 {
        p * 2.0
    } else if p < 0.9 {
        1.0
    } else {
        (1.0 - p) * 10.0
    };
    let toss = ((p - 0.5) / 0.4).clamp(0.0, 1.0);
    let eyes = if !(0.5..0.9).contains(&p) {
        (0.0, 0.0)
    } else {
        (toss * 6.0, -30.0 * (toss * std::f32::consts::PI).sin() + toss * 60.0)
    };
    Pose { fold, lids: 0.0, eyes }
}

pub(super) struct Assistant {
    save: bool,
    shown: Option<Pose>,
}

impl Assistant {
    /// Idle (`save` false) or playing the save animation once.
    pub(super) fn new(save: bool) -> Self {
        Self { save, shown: None }
    }
}

impl Workload for Assistant {
    fn frame(&mut self, t: u64, c: &mut Canvas, out: &mut FrameOut) {
        let a = window(c.width(), c.height());
        if self.shown.is_none() {
            c.fill(c.full(), DESKTOP);
        }
        let pose = if self.save { save_pose(t) } else { idle_pose(t) };
        if self.shown != Some(pose) {
            draw(c, a, pose);
            out.blits.push(a);
            self.shown = Some(pose);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(save: bool, until_ms: u64) -> Vec<u64> {
        let (mut w, mut c, mut out) = (Assistant::new(save), Canvas::dry(640, 480), FrameOut::default());
        let mut at = Vec::new();
        for t in (0..until_ms).step_by(10) {
            let before = out.blits.len();
            w.frame(t, &mut c, &mut out);
            if out.blits.len() > before {
                at.push(t);
            }
        }
        at
    }

    #[test]
    fn idle_blinks_once_per_period_in_three_frames_and_reopens() {
        let at = frames(false, 2 * ASSISTANT_BLINK_MS + 1000);
        // The first frame; then each blink: half shut, shut, half shut, open again.
        let b = ASSISTANT_BLINK_MS;
        let f = ASSISTANT_FRAME_MS;
        let blink = |s: u64| [s, s + f, s + 2 * f, s + 3 * f];
        let mut want = vec![0];
        want.extend(blink(b));
        want.extend(blink(2 * b));
        assert_eq!(at, want);
    }

    #[test]
    fn the_save_animation_plays_once_for_its_length_a_frame_each_period() {
        let at = frames(true, ASSISTANT_SAVE_AT_MS + ASSISTANT_SAVE_MS + 3000);
        assert_eq!(at[0], 0);
        let during: Vec<&u64> = at[1..].iter().collect();
        assert_eq!(*during[0], ASSISTANT_SAVE_AT_MS + ASSISTANT_FRAME_MS, "the first frame that differs");
        let last = **during.last().unwrap();
        assert!(last <= ASSISTANT_SAVE_AT_MS + ASSISTANT_SAVE_MS, "{last}");
        // Nearly every frame period of the animation draws a new frame (a few poses repeat
        // while the box waits for the eyes).
        let periods = ASSISTANT_SAVE_MS / ASSISTANT_FRAME_MS;
        assert!(during.len() as u64 >= periods / 2 && during.len() as u64 <= periods, "{}", during.len());
    }
}
