//! The keys latlab types into a remote desktop, as PC/AT scancodes (set 1, which RDP's
//! keyboard events carry: MS-RDPBCGR 2.2.8.1.2.2.1), for a US keyboard layout.

use super::session::Key;

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
}
