//! Bitmaps on the wire outside drawing orders, encode and decode:
//! - the bitmap update (MS-RDPBCGR 2.2.9.1.1.3.1.2, TS_UPDATE_BITMAP_DATA / TS_BITMAP_DATA);
//! - the Revision 2 bitmap cache capability set (MS-RDPBCGR 2.2.7.1.4.2): cell counts per
//!   cache; cell sizes are fixed by the cache index (16×16 to 256×256 pixels).
//!
//! Decoding is total: malformed input returns an [`OrderError`] naming what and where.

use crate::orders::{OrderError, Rd};

// ---- Bitmap update ----------------------------------------------------------------------

/// One TS_BITMAP_DATA rectangle (MS-RDPBCGR 2.2.9.1.1.3.1.2.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BitmapRect {
    /// Inclusive destination bounds: left, top, right, bottom.
    pub dest: [u16; 4],
    /// Bitmap width (a multiple of 4 when compressed).
    pub width: u16,
    /// Bitmap height.
    pub height: u16,
    /// Colour depth.
    pub bpp: u16,
    /// Interleaved RLE (`Some(with TS_CD_HEADER)`) or raw.
    pub compressed: Option<bool>,
    /// Bitmap data.
    pub data: Vec<u8>,
}

const UPDATETYPE_BITMAP: u16 = 0x0001;
const BITMAP_COMPRESSION: u16 = 0x0001;
const NO_BITMAP_COMPRESSION_HDR: u16 = 0x0400;

/// Encode a TS_UPDATE_BITMAP_DATA (updateType, numberRectangles, rectangles).
pub fn encode_bitmap_update(rects: &[BitmapRect]) -> Vec<u8> {
    let mut o = Vec::new();
    o.extend_from_slice(&UPDATETYPE_BITMAP.to_le_bytes());
    o.extend_from_slice(&(rects.len() as u16).to_le_bytes());
    for r in rects {
        for v in r.dest.iter().chain([&r.width, &r.height, &r.bpp]) {
            o.extend_from_slice(&v.to_le_bytes());
        }
        let flags = match r.compressed {
            None => 0,
            Some(true) => BITMAP_COMPRESSION,
            Some(false) => BITMAP_COMPRESSION | NO_BITMAP_COMPRESSION_HDR,
        };
        o.extend_from_slice(&flags.to_le_bytes());
        let hdr = r.compressed == Some(true);
        o.extend_from_slice(&((r.data.len() + if hdr { 8 } else { 0 }) as u16).to_le_bytes());
        if hdr {
            let scan = r.width * r.bpp.div_ceil(8);
            for v in [0, r.data.len() as u16, scan, scan.wrapping_mul(r.height)] {
                o.extend_from_slice(&v.to_le_bytes());
            }
        }
        o.extend_from_slice(&r.data);
    }
    o
}

/// Decode a TS_UPDATE_BITMAP_DATA.
pub fn decode_bitmap_update(data: &[u8]) -> Result<Vec<BitmapRect>, OrderError> {
    let mut r = Rd::new(data);
    if r.u16("updateType")? != UPDATETYPE_BITMAP {
        return Err(OrderError::Invalid("updateType is not UPDATETYPE_BITMAP"));
    }
    let n = r.u16("numberRectangles")? as usize;
    let mut out = Vec::with_capacity(n.min(data.len() / 18));
    for _ in 0..n {
        let mut v = [0u16; 9];
        for x in &mut v {
            *x = r.u16("TS_BITMAP_DATA")?;
        }
        let flags = v[7];
        let mut len = v[8] as usize;
        let compressed = (flags & BITMAP_COMPRESSION != 0).then_some(flags & NO_BITMAP_COMPRESSION_HDR == 0);
        if compressed == Some(true) {
            let h = r.take(8, "TS_CD_HEADER")?;
            if len < 8 || u16::from_le_bytes([h[2], h[3]]) as usize != len - 8 {
                return Err(OrderError::Invalid("TS_CD_HEADER main body size"));
            }
            len -= 8;
        }
        out.push(BitmapRect {
            dest: [v[0], v[1], v[2], v[3]],
            width: v[4],
            height: v[5],
            bpp: v[6],
            compressed,
            data: r.take(len, "bitmapDataStream")?.to_vec(),
        });
    }
    Ok(out)
}

// ---- Bitmap cache capability set, revision 2 --------------------------------------------

/// CAPSTYPE_BITMAPCACHE_REV2.
pub const CAPSTYPE_BITMAPCACHE_REV2: u16 = 0x0013;

/// TS_BITMAPCACHE_CAPABILITYSET_REV2 (MS-RDPBCGR 2.2.7.1.4.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BitmapCacheRev2Caps {
    /// PERSISTENT_KEYS_EXPECTED_FLAG.
    pub persistent_keys: bool,
    /// ALLOW_CACHE_WAITING_LIST_FLAG.
    pub waiting_list: bool,
    /// Per cache (at most 5): cell count and whether it is persistent.
    pub caches: Vec<(u32, bool)>,
}

impl BitmapCacheRev2Caps {
    /// Largest bitmap a cell of cache `i` holds, in pixels per side (16, 32, 64, 128, 256).
    pub fn cell_side(i: usize) -> u16 {
        16 << i.min(4)
    }

    /// The 40-byte capability set, header included.
    pub fn encode(&self) -> Result<Vec<u8>, OrderError> {
        if self.caches.len() > 5 {
            return Err(OrderError::Invalid("more than 5 bitmap caches"));
        }
        let mut o = Vec::with_capacity(40);
        o.extend_from_slice(&CAPSTYPE_BITMAPCACHE_REV2.to_le_bytes());
        o.extend_from_slice(&40u16.to_le_bytes());
        let flags = self.persistent_keys as u16 | (self.waiting_list as u16) << 1;
        o.extend_from_slice(&flags.to_le_bytes());
        o.push(0);
        o.push(self.caches.len() as u8);
        for i in 0..5 {
            let (n, p) = self.caches.get(i).copied().unwrap_or((0, false));
            if n > 0x7FFF_FFFF {
                return Err(OrderError::Invalid("cell count over 31 bits"));
            }
            o.extend_from_slice(&(n | (p as u32) << 31).to_le_bytes());
        }
        o.extend_from_slice(&[0; 12]);
        Ok(o)
    }

    /// Decode the capability set.
    pub fn decode(data: &[u8]) -> Result<Self, OrderError> {
        let mut r = Rd::new(data);
        if r.u16("capabilitySetType")? != CAPSTYPE_BITMAPCACHE_REV2 {
            return Err(OrderError::Invalid("not CAPSTYPE_BITMAPCACHE_REV2"));
        }
        if r.u16("lengthCapability")? != 40 {
            return Err(OrderError::Invalid("lengthCapability is not 40"));
        }
        let flags = r.u16("CacheFlags")?;
        r.u8("pad2")?;
        let n = r.u8("NumCellCaches")? as usize;
        if n > 5 {
            return Err(OrderError::Invalid("NumCellCaches over 5"));
        }
        let mut caches = Vec::with_capacity(n);
        for i in 0..5 {
            let v = r.u32("BitmapCacheCellInfo")?;
            if i < n {
                caches.push((v & 0x7FFF_FFFF, v >> 31 == 1));
            }
        }
        r.take(12, "Pad3")?;
        Ok(Self { persistent_keys: flags & 1 != 0, waiting_list: flags & 2 != 0, caches })
    }
}
