//! The Start menu workload: seed 003's "human-driven depth-first traversal of the Start
//! Button menu tree" with the pointer — each item highlighted in turn, each cascade menu shown
//! and walked before the next item, the pointer moving all the while.

use super::*;

/// Items of the Start menu, top to bottom, and whether each opens a cascade menu (Windows
/// 98's Start menu: Programs, Favorites, Documents, Settings and Find cascade).
const START_ITEMS: [(&str, bool); 8] = [
    ("Programs", true),
    ("Favorites", true),
    ("Documents", true),
    ("Settings", true),
    ("Find", true),
    ("Help", false),
    ("Run...", false),
    ("Shut Down...", false),
];
/// Items of each cascade menu.
const CASCADE_ITEMS: usize = 6;
/// Height of a menu item, pixels.
const ITEM_H: usize = 22;
/// Width of a menu, pixels.
const MENU_W: usize = 170;
/// Height of the taskbar, pixels.
const TASKBAR_H: usize = 28;

/// Where the pointer is in the traversal: the Start item, and the cascade item (`None`: on
/// the Start item itself).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Spot {
    item: usize,
    sub: Option<usize>,
}

pub(super) struct StartMenu {
    started: bool,
    /// The traversal's steps, in order; it starts again from the top when done.
    steps: Vec<Spot>,
    next: usize,
    /// When the next step is due, ms.
    due_ms: u64,
    /// The spot highlighted now, and the cascade shown (its Start item).
    at: Option<Spot>,
    cascade: Option<usize>,
    /// The pointer and where it is heading.
    pointer: (f32, f32),
    target: (f32, f32),
    next_move_ms: u64,
}

impl StartMenu {
    pub(super) fn new(_seed: u64) -> Self {
        let mut steps = Vec::new();
        for (i, (_, cascades)) in START_ITEMS.iter().enumerate() {
            steps.push(Spot { item: i, sub: None });
            if *cascades {
                steps.extend((0..CASCADE_ITEMS).map(|s| Spot { item: i, sub: Some(s) }));
                // Back to the item before going down to the next one.
                steps.push(Spot { item: i, sub: None });
            }
        }
        Self {
            started: false,
            steps,
            next: 0,
            due_ms: 0,
            at: None,
            cascade: None,
            pointer: (20.0, 0.0),
            target: (20.0, 0.0),
            next_move_ms: 0,
        }
    }

    /// The Start menu's area on a `w`×`h` screen: above the taskbar, at the left.
    fn start_area(h: usize) -> Area {
        let mh = START_ITEMS.len() * ITEM_H + 4;
        Area::new(2, h.saturating_sub(TASKBAR_H + mh), MENU_W, mh)
    }

    /// The cascade menu of Start item `i`: to the right of it, kept on the screen.
    fn cascade_area(h: usize, i: usize) -> Area {
        let s = Self::start_area(h);
        let ch = CASCADE_ITEMS * ITEM_H + 4;
        let y = (s.y + 2 + i * ITEM_H).min(h.saturating_sub(TASKBAR_H + ch));
        Area::new(s.x + s.w, y, MENU_W, ch)
    }

    fn item_area(menu: Area, k: usize) -> Area {
        Area::new(menu.x + 2, menu.y + 2 + k * ITEM_H, menu.w - 4, ITEM_H)
    }

    fn draw_item(c: &mut Canvas, menu: Area, k: usize, label: &str, lit: bool, arrow: bool) {
        let a = Self::item_area(menu, k);
        let (bg, fg) = if lit { (SELECT, WHITE) } else { (GREY, BLACK) };
        c.fill(a, bg);
        c.text(a.x as i64 + 8, a.y as i64 + 15, label, 12, fg, a);
        if arrow {
            c.text((a.x + a.w) as i64 - 14, a.y as i64 + 15, ">", 12, fg, a);
        }
    }

    fn draw_menu(c: &mut Canvas, menu: Area, labels: &[(String, bool)], lit: Option<usize>) {
        c.fill(menu, GREY);
        c.fill(Area::new(menu.x, menu.y + menu.h - 1, menu.w, 1), DARK);
        c.fill(Area::new(menu.x + menu.w - 1, menu.y, 1, menu.h), DARK);
        for (k, (l, arrow)) in labels.iter().enumerate() {
            Self::draw_item(c, menu, k, l, lit == Some(k), *arrow);
        }
    }

    fn start_labels() -> Vec<(String, bool)> {
        START_ITEMS.iter().map(|(l, a)| (l.to_string(), *a)).collect()
    }

    fn cascade_labels(i: usize) -> Vec<(String, bool)> {
        (0..CASCADE_ITEMS)
            .map(|k| (format!("{} {}", START_ITEMS[i].0, WORDS[(i * 8 + k) % WORDS.len()]), false))
            .collect()
    }

    /// The desktop under the menus: cleared where a cascade menu was.
    fn clear(c: &mut Canvas, a: Area) {
        c.fill(a, DESKTOP);
    }

    /// Go to `spot`: move the highlight, open or close the cascade menu. A Start item stays
    /// lit while the pointer walks its cascade menu, as Windows keeps the parent lit.
    fn go(&mut self, c: &mut Canvas, spot: Spot) {
        let h = c.height();
        let start = Self::start_area(h);
        if let Some(open) = self.cascade
            && open != spot.item
        {
            Self::clear(c, Self::cascade_area(h, open));
            self.cascade = None;
        }
        if let Some(p) = self.at {
            match p.sub {
                Some(k) if self.cascade == Some(p.item) => {
                    let labels = Self::cascade_labels(p.item);
                    Self::draw_item(c, Self::cascade_area(h, p.item), k, &labels[k].0, false, false);
                }
                Some(_) => {}
                None if p.item != spot.item => {
                    let (l, a) = START_ITEMS[p.item];
                    Self::draw_item(c, start, p.item, l, false, a);
                }
                None => {}
            }
        }
        let menu = Self::cascade_area(h, spot.item);
        match spot.sub {
            None => {
                let (l, a) = START_ITEMS[spot.item];
                Self::draw_item(c, start, spot.item, l, true, a);
                if a && self.cascade != Some(spot.item) {
                    Self::draw_menu(c, menu, &Self::cascade_labels(spot.item), None);
                    self.cascade = Some(spot.item);
                }
            }
            Some(k) => {
                let labels = Self::cascade_labels(spot.item);
                Self::draw_item(c, menu, k, &labels[k].0, true, false);
            }
        }
        self.at = Some(spot);
        let target = match spot.sub {
            Some(k) => Self::item_area(menu, k),
            None => Self::item_area(start, spot.item),
        };
        self.target = ((target.x + target.w / 3) as f32, (target.y + ITEM_H / 2) as f32);
    }
}

impl Workload for StartMenu {
    fn frame(&mut self, t: u64, c: &mut Canvas, out: &mut FrameOut) {
        let (w, h) = (c.width(), c.height());
        if !self.started {
            self.started = true;
            c.fill(c.full(), DESKTOP);
            c.fill(Area::new(0, h.saturating_sub(TASKBAR_H), w, TASKBAR_H), GREY);
            c.text(8, h.saturating_sub(9) as i64, "Start", 12, BLACK, c.full());
            self.pointer = (24.0, h.saturating_sub(TASKBAR_H / 2) as f32);
            self.target = self.pointer;
        }
        // The user's steps: the pointer rests on each item for
        // [`crate::defaults::START_MENU_STEP_MS`]; at the end the menu closes and a click on
        // Start opens it again.
        while self.due_ms <= t {
            self.due_ms += crate::defaults::START_MENU_STEP_MS;
            if self.next == self.steps.len() {
                // Closed: the desktop back under both menus.
                Self::clear(c, Self::start_area(h));
                if let Some(open) = self.cascade.take() {
                    Self::clear(c, Self::cascade_area(h, open));
                }
                self.at = None;
                self.next = 0;
                self.target = (24.0, h.saturating_sub(TASKBAR_H / 2) as f32);
                continue;
            }
            if self.next == 0 {
                // A click on Start opens the menu.
                let (x, y) = (self.pointer.0 as u16, self.pointer.1 as u16);
                out.input.push(Input::Button { flags: 0x9000, x, y });
                out.input.push(Input::Button { flags: 0x1000, x, y });
                Self::draw_menu(c, Self::start_area(h), &Self::start_labels(), None);
            }
            let spot = self.steps[self.next];
            self.next += 1;
            self.go(c, spot);
        }
        // The pointer glides towards its target, at most a move event every 10 ms (the mouse
        // workload's rate) and none while it rests.
        while self.next_move_ms <= t {
            self.next_move_ms += 10;
            let (dx, dy) = (self.target.0 - self.pointer.0, self.target.1 - self.pointer.1);
            if dx == 0.0 && dy == 0.0 {
                continue;
            }
            self.pointer.0 += dx.clamp(-6.0, 6.0);
            self.pointer.1 += dy.clamp(-6.0, 6.0);
            out.input.push(Input::Move { x: self.pointer.0 as u16, y: self.pointer.1 as u16 });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_traversal_is_depth_first_and_starts_again() {
        let m = StartMenu::new(1);
        // Eight items; each of the five with a cascade adds its six items and the way back.
        assert_eq!(m.steps.len(), 8 + 5 * (CASCADE_ITEMS + 1));
        assert_eq!(m.steps[0], Spot { item: 0, sub: None });
        assert_eq!(m.steps[1], Spot { item: 0, sub: Some(0) });
        assert_eq!(m.steps[7], Spot { item: 0, sub: None });
        assert_eq!(m.steps[8], Spot { item: 1, sub: None });
        assert_eq!(*m.steps.last().unwrap(), Spot { item: 7, sub: None });
        // Run through it twice on a small screen and on the smallest: a click opens the menu
        // each time round, the pointer moves, and nothing is drawn off the screen.
        for (w, h) in [(320, 256), (64, 64)] {
            let mut m = StartMenu::new(1);
            let mut c = Canvas::new(w, h);
            let (mut clicks, mut moves) = (0, 0);
            let round = (m.steps.len() as u64 + 1) * crate::defaults::START_MENU_STEP_MS;
            for t in (0..2 * round).step_by(20) {
                let mut out = FrameOut::default();
                m.frame(t, &mut c, &mut out);
                clicks += out.input.iter().filter(|i| matches!(i, Input::Button { flags: 0x9000, .. })).count();
                moves += out.input.iter().filter(|i| matches!(i, Input::Move { .. })).count();
            }
            assert_eq!(clicks, 2, "{w}×{h}");
            assert!(moves > 0, "{w}×{h}");
        }
    }
}
