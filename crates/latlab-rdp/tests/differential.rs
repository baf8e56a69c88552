//! Differential tests against `ironrdp-bulk` (an independent implementation, used only as a
//! black box): our compressed streams must decompress there and theirs here, packet after
//! packet with persistent history, over thousands of packets of display-like and random data.
//! Inputs are generated here from a seeded generator (provenance: this file).

use ironrdp_bulk::{BulkCompressor, CompressionType as Theirs};
use latlab_rdp::CompressionType;
use latlab_rdp::mppc::{MppcCompressor, MppcDecompressor};

struct Gen(u64);
impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A display-update-like payload: 16 bpp scanlines with flat areas, gradients and "text"
/// (two colours in glyph-like patterns), order records with varying coordinates, and
/// occasionally pure noise.
fn packet(g: &mut Gen, max: usize) -> Vec<u8> {
    let len = 51 + g.below(max as u64 - 51) as usize;
    let mut p = Vec::with_capacity(len);
    match g.below(5) {
        0 => {
            let c = g.next() as u16;
            while p.len() < len {
                let run = 1 + g.below(200);
                let col = if g.below(4) == 0 { g.next() as u16 } else { c };
                for _ in 0..run {
                    p.extend_from_slice(&col.to_le_bytes());
                }
            }
        }
        1 => {
            let (fg, bg) = (g.next() as u16, g.next() as u16);
            let glyphs: Vec<u8> = (0..16).map(|_| g.next() as u8).collect();
            while p.len() < len {
                let row = glyphs[g.below(16) as usize];
                for bit in 0..8 {
                    p.extend_from_slice(&(if row >> bit & 1 == 1 { fg } else { bg }).to_le_bytes());
                }
            }
        }
        2 => {
            let mut v = g.next() as u16;
            while p.len() < len {
                v = v.wrapping_add(1 + g.below(3) as u16);
                p.extend_from_slice(&v.to_le_bytes());
            }
        }
        3 => {
            while p.len() < len {
                // A MemBlt-like record: control, order type, then coordinates and a cache index.
                p.extend_from_slice(&[0x09, 0x0d, (g.below(4) << 4) as u8]);
                for _ in 0..4 {
                    p.extend_from_slice(&(g.below(1024) as u16).to_le_bytes());
                }
                p.push(g.below(3) as u8);
                p.extend_from_slice(&(g.below(120) as u16).to_le_bytes());
            }
        }
        _ => {
            while p.len() < len {
                p.push(g.next() as u8);
            }
        }
    }
    p.truncate(len);
    p
}

/// Equal, or panic naming the first differing byte (never printing whole packets).
fn same(got: &[u8], want: &[u8], what: &str) {
    if got != want {
        let i = got.iter().zip(want).position(|(a, b)| a != b).unwrap_or(got.len().min(want.len()));
        panic!("{what}: {} bytes vs {} expected, first difference at byte {i}", got.len(), want.len());
    }
}

fn theirs(t: CompressionType) -> Theirs {
    match t {
        CompressionType::Mppc8k => Theirs::Rdp4,
        _ => Theirs::Rdp5,
    }
}

#[test]
fn ours_decompress_with_theirs() {
    for t in [CompressionType::Mppc8k, CompressionType::Mppc64k] {
        let mut g = Gen(0x1a71ab ^ t as u64);
        let mut ours = MppcCompressor::new(t).unwrap();
        let mut them = BulkCompressor::new(theirs(t)).unwrap();
        let mut wire = Vec::new();
        let (mut inb, mut outb, mut compressed) = (0usize, 0usize, 0usize);
        // RDP 4.0 packets must fit its 8 KB history to be compressed at all.
        let max = if t == CompressionType::Mppc8k { 8_000 } else { 12_000 };
        for i in 0..2500 {
            let p = packet(&mut g, max);
            let flags = ours.compress(&p, &mut wire);
            inb += p.len();
            outb += wire.len();
            compressed += (flags & latlab_rdp::PACKET_COMPRESSED != 0) as usize;
            let got = them.decompress(&wire, flags as u32).unwrap_or_else(|e| panic!("{t:?} packet {i}: {e:?}"));
            same(got, &p, &format!("{t:?} packet {i} (flags {flags:#x})"));
        }
        assert!(compressed > 1500, "{t:?}: most display-like packets compress ({compressed})");
        assert!(outb < inb, "{t:?}: {outb} bytes out for {inb} in");
    }
}

#[test]
fn theirs_decompress_with_ours() {
    // RDP 5.0 (64 KB). RDP 4.0 from this sender does not decode here yet: after
    // PACKET_AT_FRONT it sends copy-offsets reaching before the start of the history, which
    // MS-RDPBCGR 3.1.8 does not define; left open in the project's issue.
    for t in [CompressionType::Mppc64k] {
        let mut g = Gen(0x5eed ^ t as u64);
        let mut them = BulkCompressor::new(theirs(t)).unwrap();
        let mut ours = MppcDecompressor::new(t).unwrap();
        // RDP 4.0 packets within the spec's 8 KB history (their sender also compresses larger
        // ones in 8K mode, outside the spec; see the crate docs).
        let max = if t == CompressionType::Mppc8k { 8_000 } else { 12_000 };
        for i in 0..2500 {
            let p = packet(&mut g, max);
            let (size, flags) = them.compress(&p).unwrap();
            let wire: Vec<u8> = if flags & 0x20 != 0 { them.compressed_data(size).to_vec() } else { p.clone() };
            let got = ours.decompress(&wire, flags as u8).unwrap_or_else(|e| {
                panic!("{t:?} packet {i} of {} bytes, {} on the wire, flags {flags:#x}: {e}", p.len(), wire.len())
            });
            same(got, &p, &format!("{t:?} packet {i} (flags {flags:#x})"));
        }
    }
}
