//! The keys latlab types into a remote desktop, as PC/AT scancodes (set 1, which RDP's
//! keyboard events carry: MS-RDPBCGR 2.2.8.1.2.2.1), for a US keyboard layout.

/// A key: its scancode (set 1) and whether it is an extended key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    /// Scancode.
    pub code: u8,
    /// Extended (E0-prefixed) key.
    pub extended: bool,
}

/// The letters a to z, in order.
pub const LETTERS: [u8; 26] = [
    0x1E, 0x30, 0x2E, 0x20, 0x12, 0x21, 0x22, 0x23, 0x17, 0x24, 0x25, 0x26, 0x32, 0x31, 0x18, 0x19, 0x10, 0x13, 0x1F,
    0x14, 0x16, 0x2F, 0x11, 0x2D, 0x15, 0x2C,
];

/// The `i`-th letter typed (a to z, then again).
pub fn letter(i: usize) -> Key {
    Key { code: LETTERS[i % LETTERS.len()], extended: false }
}

/// Left Control.
pub const CTRL: Key = Key { code: 0x1D, extended: false };
/// U (Ctrl-U clears the line in a shell and in a terminal's canonical mode).
pub const U: Key = Key { code: 0x16, extended: false };
/// Backspace.
pub const BACKSPACE: Key = Key { code: 0x0E, extended: false };
/// Enter.
pub const ENTER: Key = Key { code: 0x1C, extended: false };
/// Page Down (extended).
pub const PAGE_DOWN: Key = Key { code: 0x51, extended: true };
/// Page Up (extended).
pub const PAGE_UP: Key = Key { code: 0x49, extended: true };
/// Down arrow (extended).
pub const DOWN: Key = Key { code: 0x50, extended: true };
/// Escape.
pub const ESCAPE: Key = Key { code: 0x01, extended: false };
/// F10 (opens the menu bar in many applications).
pub const F10: Key = Key { code: 0x44, extended: false };

/// The X keysym of a key latlab types (the letters, and the named keys above), for an X
/// server whose keyboard mapping latlab reads rather than assumes.
pub fn keysym(k: Key) -> Option<u32> {
    if !k.extended
        && let Some(i) = LETTERS.iter().position(|&c| c == k.code)
    {
        return Some(u32::from(b'a') + i as u32);
    }
    Some(match (k.code, k.extended) {
        (0x1D, false) => 0xffe3, // Control_L
        (0x0E, false) => 0xff08, // BackSpace
        (0x1C, false) => 0xff0d, // Return
        (0x01, false) => 0xff1b, // Escape
        (0x44, false) => 0xffc7, // F10
        (0x51, true) => 0xff56,  // Next (Page Down)
        (0x49, true) => 0xff55,  // Prior (Page Up)
        (0x50, true) => 0xff54,  // Down
        _ => return None,
    })
}

/// The Linux input event code of a key (what a Wayland virtual keyboard sends): set 1's
/// scancode for the main block; the extended keys have codes of their own.
pub fn evdev(k: Key) -> Option<u32> {
    match (k.code, k.extended) {
        (c, false) if c < 0x54 => Some(u32::from(c)),
        (0x51, true) => Some(109), // KEY_PAGEDOWN
        (0x49, true) => Some(104), // KEY_PAGEUP
        (0x50, true) => Some(108), // KEY_DOWN
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn letters_are_distinct_scancodes() {
        let mut v = super::LETTERS.to_vec();
        v.sort();
        v.dedup();
        assert_eq!(v.len(), 26);
        assert_eq!(super::letter(0).code, 0x1E, "a");
        assert_eq!(super::letter(26), super::letter(0));
    }

    #[test]
    fn every_key_typed_has_a_keysym_and_an_input_code() {
        use super::*;
        for k in (0..26).map(letter).chain([CTRL, U, BACKSPACE, ENTER, PAGE_DOWN, PAGE_UP, DOWN, ESCAPE, F10]) {
            assert!(keysym(k).is_some() && evdev(k).is_some(), "{k:?}");
        }
        assert_eq!(keysym(letter(0)), Some(0x61), "a");
        assert_eq!(keysym(letter(25)), Some(0x7a), "z");
        assert_eq!(evdev(letter(0)), Some(30), "KEY_A");
        assert_eq!(evdev(BACKSPACE), Some(14));
        assert_eq!(evdev(PAGE_DOWN), Some(109));
        assert_eq!(keysym(Key { code: 0x7f, extended: true }), None);
    }
}
