//! Drawing orders of the display pipeline, encode and decode:
//! - primary drawing orders OpaqueRect, ScrBlt and MemBlt (MS-RDPEGDI 2.2.2.2.1.1: header
//!   2.2.2.2.1.1.2 with field flags, optional bounds, delta coordinates; orders 2.2.2.2.1.1.2.5
//!   OpaqueRect, 2.2.2.2.1.1.2.7 ScrBlt, 2.2.2.2.1.1.2.9 MemBlt), with the encoder's and
//!   decoder's shared "last order" state: a field is sent only when it changed;
//! - the secondary order Cache Bitmap Revision 2 (2.2.2.2.1.2.3), compressed (interleaved
//!   RLE, optionally after the 8-byte TS_CD_HEADER) and uncompressed;
//!
//! The bitmap update and the bitmap cache capability set are in [`crate::bitmap`].
//!
//! Decoding is total: malformed input returns an [`OrderError`] naming what and where.

use thiserror::Error;

/// Why an order or update could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum OrderError {
    /// The input ends inside a structure.
    #[error("truncated {0}")]
    Truncated(&'static str),
    /// A field holds a value the structure does not allow.
    #[error("invalid {0}")]
    Invalid(&'static str),
    /// An order type this module does not implement.
    #[error("unsupported order type {0:#04x}")]
    Unsupported(u8),
}

pub(crate) struct Rd<'a> {
    d: &'a [u8],
    at: usize,
}

impl<'a> Rd<'a> {
    pub(crate) fn new(d: &'a [u8]) -> Self {
        Self { d, at: 0 }
    }
    pub(crate) fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], OrderError> {
        let s = self.d.get(self.at..self.at + n).ok_or(OrderError::Truncated(what))?;
        self.at += n;
        Ok(s)
    }
    pub(crate) fn u8(&mut self, what: &'static str) -> Result<u8, OrderError> {
        Ok(self.take(1, what)?[0])
    }
    pub(crate) fn u16(&mut self, what: &'static str) -> Result<u16, OrderError> {
        let s = self.take(2, what)?;
        Ok(u16::from_le_bytes([s[0], s[1]]))
    }
    pub(crate) fn u32(&mut self, what: &'static str) -> Result<u32, OrderError> {
        let s = self.take(4, what)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
    /// TWO_BYTE_UNSIGNED_ENCODING (2.2.2.2.1.2.1.2): 7 or 15 bits.
    pub(crate) fn two_byte_unsigned(&mut self, what: &'static str) -> Result<u16, OrderError> {
        let a = self.u8(what)?;
        if a & 0x80 == 0 { Ok(a as u16) } else { Ok(((a & 0x7F) as u16) << 8 | self.u8(what)? as u16) }
    }
    /// FOUR_BYTE_UNSIGNED_ENCODING (2.2.2.2.1.2.1.4): 6 to 30 bits, big-endian.
    pub(crate) fn four_byte_unsigned(&mut self, what: &'static str) -> Result<u32, OrderError> {
        let a = self.u8(what)?;
        let mut v = (a & 0x3F) as u32;
        for _ in 0..a >> 6 {
            v = v << 8 | self.u8(what)? as u32;
        }
        Ok(v)
    }
}

pub(crate) fn put_two_byte_unsigned(o: &mut Vec<u8>, v: u16) -> Result<(), OrderError> {
    match v {
        0..=0x7F => o.push(v as u8),
        0x80..=0x7FFF => o.extend_from_slice(&[0x80 | (v >> 8) as u8, v as u8]),
        _ => return Err(OrderError::Invalid("value over 0x7FFF for a two-byte encoding")),
    }
    Ok(())
}

pub(crate) fn put_four_byte_unsigned(o: &mut Vec<u8>, v: u32) -> Result<(), OrderError> {
    let n = match v {
        0..=0x3F => 0,
        0x40..=0x3FFF => 1,
        0x4000..=0x3F_FFFF => 2,
        0x40_0000..=0x3FFF_FFFF => 3,
        _ => return Err(OrderError::Invalid("value over 0x3FFFFFFF for a four-byte encoding")),
    };
    o.push((n << 6) as u8 | (v >> (8 * n)) as u8 & 0x3F);
    for k in (0..n).rev() {
        o.push((v >> (8 * k)) as u8);
    }
    Ok(())
}

// ---- Primary drawing orders -------------------------------------------------------------

/// controlFlags bits (2.2.2.2.1.1.2).
pub const TS_STANDARD: u8 = 0x01;
/// Secondary order.
pub const TS_SECONDARY: u8 = 0x02;
/// Bounds follow the field flags.
pub const TS_BOUNDS: u8 = 0x04;
/// An orderType byte follows.
pub const TS_TYPE_CHANGE: u8 = 0x08;
/// Coordinates are one-byte deltas.
pub const TS_DELTA_COORDINATES: u8 = 0x10;
/// The bounds did not change (no bounds bytes).
pub const TS_ZERO_BOUNDS_DELTAS: u8 = 0x20;
/// The last field-flags byte is zero and omitted.
pub const TS_ZERO_FIELD_BYTE_BIT0: u8 = 0x40;
/// The last two field-flags bytes are zero and omitted.
pub const TS_ZERO_FIELD_BYTE_BIT1: u8 = 0x80;

/// Primary order types (2.2.2.2.1.1.2, orderType).
pub const TS_ENC_PATBLT_ORDER: u8 = 0x01;
/// ScrBlt.
pub const TS_ENC_SCRBLT_ORDER: u8 = 0x02;
/// OpaqueRect.
pub const TS_ENC_OPAQUERECT_ORDER: u8 = 0x0A;
/// MemBlt.
pub const TS_ENC_MEMBLT_ORDER: u8 = 0x0D;

/// A rectangle: left, top, width, height.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Rect {
    /// Left edge.
    pub left: i16,
    /// Top edge.
    pub top: i16,
    /// Width.
    pub width: i16,
    /// Height.
    pub height: i16,
}

/// The primary orders the display pipeline uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrimaryOrder {
    /// Fill a rectangle with a colour (2.2.2.2.1.1.2.5); colour bytes red, green, blue (or a
    /// palette index in red).
    OpaqueRect {
        /// Where.
        rect: Rect,
        /// Red (or palette index), green, blue.
        color: [u8; 3],
    },
    /// Screen-to-screen copy (2.2.2.2.1.1.2.7), used for scrolling.
    ScrBlt {
        /// Destination.
        rect: Rect,
        /// Raster operation (0xCC: copy).
        rop: u8,
        /// Source top-left.
        src: (i16, i16),
    },
    /// Copy from a bitmap cache cell (2.2.2.2.1.1.2.9).
    MemBlt {
        /// cacheId: bitmap cache (low byte) and colour table (high byte).
        cache_id: u16,
        /// Destination.
        rect: Rect,
        /// Raster operation.
        rop: u8,
        /// Source top-left within the cached bitmap.
        src: (i16, i16),
        /// Cell in the cache.
        cache_index: u16,
    },
}

/// One field of an order's wire layout.
#[derive(Clone, Copy)]
enum Field {
    Coord,
    U8,
    U16,
}

fn layout(order_type: u8) -> Result<&'static [Field], OrderError> {
    use Field::*;
    Ok(match order_type {
        TS_ENC_OPAQUERECT_ORDER => &[Coord, Coord, Coord, Coord, U8, U8, U8],
        TS_ENC_SCRBLT_ORDER => &[Coord, Coord, Coord, Coord, U8, Coord, Coord],
        TS_ENC_MEMBLT_ORDER => &[U16, Coord, Coord, Coord, Coord, U8, Coord, Coord, U16],
        other => return Err(OrderError::Unsupported(other)),
    })
}

/// Field-flag bytes of an order type: (fields + 1) / 8 rounded up (2.2.2.2.1.1.2).
fn flag_bytes(fields: usize) -> usize {
    (fields + 1).div_ceil(8)
}

impl PrimaryOrder {
    fn order_type(&self) -> u8 {
        match self {
            PrimaryOrder::OpaqueRect { .. } => TS_ENC_OPAQUERECT_ORDER,
            PrimaryOrder::ScrBlt { .. } => TS_ENC_SCRBLT_ORDER,
            PrimaryOrder::MemBlt { .. } => TS_ENC_MEMBLT_ORDER,
        }
    }
    fn fields(&self) -> Vec<i32> {
        let r = |r: &Rect| [r.left as i32, r.top as i32, r.width as i32, r.height as i32];
        match self {
            PrimaryOrder::OpaqueRect { rect, color } => {
                let mut v = r(rect).to_vec();
                v.extend(color.iter().map(|&c| c as i32));
                v
            }
            PrimaryOrder::ScrBlt { rect, rop, src } => {
                let mut v = r(rect).to_vec();
                v.extend([*rop as i32, src.0 as i32, src.1 as i32]);
                v
            }
            PrimaryOrder::MemBlt { cache_id, rect, rop, src, cache_index } => {
                let mut v = vec![*cache_id as i32];
                v.extend(r(rect));
                v.extend([*rop as i32, src.0 as i32, src.1 as i32, *cache_index as i32]);
                v
            }
        }
    }
    fn from_fields(t: u8, f: &[i32]) -> Self {
        let rect = |a: usize| Rect {
            left: f[a] as i16,
            top: f[a + 1] as i16,
            width: f[a + 2] as i16,
            height: f[a + 3] as i16,
        };
        match t {
            TS_ENC_OPAQUERECT_ORDER => {
                PrimaryOrder::OpaqueRect { rect: rect(0), color: [f[4] as u8, f[5] as u8, f[6] as u8] }
            }
            TS_ENC_SCRBLT_ORDER => {
                PrimaryOrder::ScrBlt { rect: rect(0), rop: f[4] as u8, src: (f[5] as i16, f[6] as i16) }
            }
            _ => PrimaryOrder::MemBlt {
                cache_id: f[0] as u16,
                rect: rect(1),
                rop: f[5] as u8,
                src: (f[6] as i16, f[7] as i16),
                cache_index: f[8] as u16,
            },
        }
    }
}

/// The "last order" state both ends keep (2.2.2.2.1.1.2): the last order type and, per type,
/// the last value of every field; plus the last bounds.
#[derive(Debug, Clone)]
pub struct OrderState {
    last_type: u8,
    last: [Vec<i32>; 3],
    bounds: [i16; 4],
}

impl Default for OrderState {
    fn default() -> Self {
        Self { last_type: TS_ENC_PATBLT_ORDER, last: [vec![0; 7], vec![0; 7], vec![0; 9]], bounds: [0; 4] }
    }
}

fn slot(t: u8) -> usize {
    match t {
        TS_ENC_OPAQUERECT_ORDER => 0,
        TS_ENC_SCRBLT_ORDER => 1,
        _ => 2,
    }
}

impl OrderState {
    /// Append the encoding of `o` to `out`: only changed fields, coordinates as one-byte
    /// deltas when every changed one fits.
    pub fn encode(&mut self, o: &PrimaryOrder, out: &mut Vec<u8>) {
        let t = o.order_type();
        let lay = layout(t).unwrap_or(&[]);
        let now = o.fields();
        let prev = &self.last[slot(t)];
        let mut flags = 0u32;
        let mut delta = true;
        for (i, f) in lay.iter().enumerate() {
            if now[i] != prev[i] {
                flags |= 1 << i;
                if matches!(f, Field::Coord) && !(-128..=127).contains(&(now[i] - prev[i])) {
                    delta = false;
                }
            }
        }
        let mut control = TS_STANDARD;
        if t != self.last_type {
            control |= TS_TYPE_CHANGE;
        }
        if delta {
            control |= TS_DELTA_COORDINATES;
        }
        let nbytes = flag_bytes(lay.len());
        let mut used = nbytes;
        while used > 0 && (flags >> (8 * (used - 1))) & 0xFF == 0 {
            used -= 1;
        }
        match nbytes - used {
            0 => {}
            1 => control |= TS_ZERO_FIELD_BYTE_BIT0,
            _ => {
                control |= TS_ZERO_FIELD_BYTE_BIT1;
                used = nbytes.saturating_sub(2);
            }
        }
        out.push(control);
        if control & TS_TYPE_CHANGE != 0 {
            out.push(t);
        }
        out.extend_from_slice(&flags.to_le_bytes()[..used]);
        for (i, f) in lay.iter().enumerate() {
            if flags & (1 << i) == 0 {
                continue;
            }
            match f {
                Field::Coord if delta => out.push((now[i] - prev[i]) as i8 as u8),
                Field::Coord => out.extend_from_slice(&(now[i] as i16).to_le_bytes()),
                Field::U8 => out.push(now[i] as u8),
                Field::U16 => out.extend_from_slice(&(now[i] as u16).to_le_bytes()),
            }
        }
        self.last[slot(t)] = now;
        self.last_type = t;
    }

    /// Decode one primary order from the front of `data`; returns it and the bytes it took.
    /// Bounds, when present, update the state (they clip the order; this module reports
    /// them through [`OrderState::bounds`]).
    pub fn decode(&mut self, data: &[u8]) -> Result<(PrimaryOrder, usize), OrderError> {
        let mut r = Rd::new(data);
        let control = r.u8("primary order header")?;
        if control & TS_STANDARD == 0 || control & TS_SECONDARY != 0 {
            return Err(OrderError::Invalid("not a primary order header"));
        }
        let t = if control & TS_TYPE_CHANGE != 0 { r.u8("order type")? } else { self.last_type };
        let lay = layout(t)?;
        let nbytes = flag_bytes(lay.len());
        let mut used = nbytes;
        if control & TS_ZERO_FIELD_BYTE_BIT0 != 0 {
            used = used.saturating_sub(1);
        }
        if control & TS_ZERO_FIELD_BYTE_BIT1 != 0 {
            used = used.saturating_sub(2);
        }
        let mut flags = 0u32;
        for (k, b) in r.take(used, "field flags")?.iter().enumerate() {
            flags |= (*b as u32) << (8 * k);
        }
        if control & TS_BOUNDS != 0 && control & TS_ZERO_BOUNDS_DELTAS == 0 {
            let desc = r.u8("bounds")?;
            for k in 0..4 {
                if desc & (1 << k) != 0 {
                    self.bounds[k] = r.u16("bounds")? as i16;
                } else if desc & (0x10 << k) != 0 {
                    self.bounds[k] = self.bounds[k].wrapping_add(r.u8("bounds")? as i8 as i16);
                }
            }
        }
        let delta = control & TS_DELTA_COORDINATES != 0;
        let mut now = self.last[slot(t)].clone();
        for (i, f) in lay.iter().enumerate() {
            if flags & (1 << i) == 0 {
                continue;
            }
            now[i] = match f {
                Field::Coord if delta => (now[i] as i16).wrapping_add(r.u8("coordinate")? as i8 as i16) as i32,
                Field::Coord => r.u16("coordinate")? as i16 as i32,
                Field::U8 => r.u8("field")? as i32,
                Field::U16 => r.u16("field")? as i32,
            };
        }
        let o = PrimaryOrder::from_fields(t, &now);
        self.last[slot(t)] = now;
        self.last_type = t;
        Ok((o, r.at))
    }

    /// The last bounds received: left, top, right, bottom.
    pub fn bounds(&self) -> [i16; 4] {
        self.bounds
    }
}

// ---- Cache Bitmap Revision 2 ------------------------------------------------------------

/// Secondary order types (2.2.2.2.1.2.1.1).
pub const TS_CACHE_BITMAP_UNCOMPRESSED_REV2: u8 = 0x04;
/// Compressed variant.
pub const TS_CACHE_BITMAP_COMPRESSED_REV2: u8 = 0x05;
const CBR2_HEIGHT_SAME_AS_WIDTH: u16 = 0x01;
const CBR2_PERSISTENT_KEY_PRESENT: u16 = 0x02;
const CBR2_NO_BITMAP_COMPRESSION_HDR: u16 = 0x08;
const CBR2_DO_NOT_CACHE: u16 = 0x10;

/// A Cache Bitmap Revision 2 order (2.2.2.2.1.2.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheBitmapRev2 {
    /// Bitmap cache, 0–4.
    pub cache_id: u8,
    /// 8, 16, 24 or 32.
    pub bpp: u8,
    /// Cell index (0x7FFF: BITMAPCACHE_WAITING_LIST_INDEX).
    pub cache_index: u16,
    /// Pixels.
    pub width: u16,
    /// Pixels.
    pub height: u16,
    /// Persistent cache key (key1, key2).
    pub key: Option<(u32, u32)>,
    /// CBR2_DO_NOT_CACHE.
    pub do_not_cache: bool,
    /// Interleaved-RLE compressed (with or without the TS_CD_HEADER) or raw.
    pub compressed: Option<bool>,
    /// The bitmap data stream.
    pub data: Vec<u8>,
}

fn bpp_id(bpp: u8) -> Result<u16, OrderError> {
    match bpp {
        8 => Ok(3),
        16 => Ok(4),
        24 => Ok(5),
        32 => Ok(6),
        _ => Err(OrderError::Invalid("bits per pixel for a Cache Bitmap Revision 2 order")),
    }
}

impl CacheBitmapRev2 {
    /// The whole secondary order, header included.
    pub fn encode(&self) -> Result<Vec<u8>, OrderError> {
        if self.cache_id > 4 {
            return Err(OrderError::Invalid("cache id over 4"));
        }
        let mut flags = 0u16;
        if self.height == self.width {
            flags |= CBR2_HEIGHT_SAME_AS_WIDTH;
        }
        if self.key.is_some() {
            flags |= CBR2_PERSISTENT_KEY_PRESENT;
        }
        if self.compressed == Some(false) {
            flags |= CBR2_NO_BITMAP_COMPRESSION_HDR;
        }
        if self.do_not_cache {
            flags |= CBR2_DO_NOT_CACHE;
        }
        let extra = self.cache_id as u16 | bpp_id(self.bpp)? << 3 | flags << 7;
        let mut body = Vec::with_capacity(self.data.len() + 24);
        if let Some((k1, k2)) = self.key {
            body.extend_from_slice(&k1.to_le_bytes());
            body.extend_from_slice(&k2.to_le_bytes());
        }
        put_two_byte_unsigned(&mut body, self.width)?;
        if self.height != self.width {
            put_two_byte_unsigned(&mut body, self.height)?;
        }
        let hdr = self.compressed == Some(true);
        put_four_byte_unsigned(&mut body, self.data.len() as u32 + if hdr { 8 } else { 0 })?;
        put_two_byte_unsigned(&mut body, self.cache_index)?;
        if hdr {
            // TS_CD_HEADER: first-row size 0, main body size, scan width, uncompressed size.
            let bytes = (self.bpp as usize).div_ceil(8);
            let scan = (self.width as usize * bytes) as u16;
            body.extend_from_slice(&0u16.to_le_bytes());
            body.extend_from_slice(&(self.data.len() as u16).to_le_bytes());
            body.extend_from_slice(&scan.to_le_bytes());
            body.extend_from_slice(&((scan as usize * self.height as usize) as u16).to_le_bytes());
        }
        body.extend_from_slice(&self.data);
        let order_type =
            if self.compressed.is_some() { TS_CACHE_BITMAP_COMPRESSED_REV2 } else { TS_CACHE_BITMAP_UNCOMPRESSED_REV2 };
        // orderLength is the order's whole length minus 13 (2.2.2.2.1.2.1.1).
        let total = 6 + body.len();
        let order_length = i16::try_from(total as i64 - 13).map_err(|_| OrderError::Invalid("order too long"))?;
        let mut out = Vec::with_capacity(total);
        out.push(TS_STANDARD | TS_SECONDARY);
        out.extend_from_slice(&order_length.to_le_bytes());
        out.extend_from_slice(&extra.to_le_bytes());
        out.push(order_type);
        out.extend_from_slice(&body);
        Ok(out)
    }

    /// Decode one secondary order from the front of `data`; returns it and its length.
    pub fn decode(data: &[u8]) -> Result<(Self, usize), OrderError> {
        let mut r = Rd::new(data);
        if r.u8("secondary order header")? & 0x03 != TS_STANDARD | TS_SECONDARY {
            return Err(OrderError::Invalid("not a secondary order header"));
        }
        let total = r.u16("orderLength")? as i16 as i64 + 13;
        let extra = r.u16("extraFlags")?;
        let order_type = r.u8("orderType")?;
        let compressed = match order_type {
            TS_CACHE_BITMAP_COMPRESSED_REV2 => true,
            TS_CACHE_BITMAP_UNCOMPRESSED_REV2 => false,
            other => return Err(OrderError::Unsupported(other)),
        };
        if total < 6 || total as usize > data.len() {
            return Err(OrderError::Truncated("secondary order (orderLength beyond the data)"));
        }
        let cache_id = (extra & 0x7) as u8;
        let bpp = match (extra >> 3) & 0xF {
            3 => 8,
            4 => 16,
            5 => 24,
            6 => 32,
            _ => return Err(OrderError::Invalid("bitsPerPixelId")),
        };
        let flags = extra >> 7;
        let mut r = Rd::new(&data[..total as usize]);
        r.at = 6;
        let key = if flags & CBR2_PERSISTENT_KEY_PRESENT != 0 { Some((r.u32("key1")?, r.u32("key2")?)) } else { None };
        let width = r.two_byte_unsigned("bitmapWidth")?;
        let height = if flags & CBR2_HEIGHT_SAME_AS_WIDTH != 0 { width } else { r.two_byte_unsigned("bitmapHeight")? };
        let mut len = r.four_byte_unsigned("bitmapLength")? as usize;
        let cache_index = r.two_byte_unsigned("cacheIndex")?;
        let hdr = compressed && flags & CBR2_NO_BITMAP_COMPRESSION_HDR == 0;
        if hdr {
            let h = r.take(8, "TS_CD_HEADER")?;
            let main = u16::from_le_bytes([h[2], h[3]]) as usize;
            if len < 8 || main != len - 8 {
                return Err(OrderError::Invalid("TS_CD_HEADER main body size"));
            }
            len -= 8;
        }
        let data = r.take(len, "bitmapDataStream")?.to_vec();
        let compressed = compressed.then_some(hdr);
        Ok((
            Self {
                cache_id,
                bpp,
                cache_index,
                width,
                height,
                key,
                do_not_cache: flags & CBR2_DO_NOT_CACHE != 0,
                compressed,
                data,
            },
            total as usize,
        ))
    }
}

#[cfg(test)]
mod tests;
