//! The client's display decoder: applies update PDUs to its framebuffer and bitmap cache —
//! OpaqueRect, ScrBlt, MemBlt, Cache Bitmap Rev. 2 and bitmap updates, RLE-decoding bitmaps.
//! Every failure (unknown order, a cell never filled, a bitmap of the wrong size) is an error;
//! nothing panics on a hostile stream.

use crate::cache::CELL_SIDES;
use crate::fb::{Area, Framebuffer};
use latlab_rdp::orders::{OrderState, PrimaryOrder};
use latlab_rdp::updates::{Order, Update, decode_update};
use latlab_sys::clock::thread_cpu_now;
use thiserror::Error;

/// Why a PDU could not be applied.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum DecodeError {
    /// The orders or the bitmap update did not parse.
    #[error("update PDU: {0}")]
    Update(#[from] latlab_rdp::orders::OrderError),
    /// A bitmap did not decode.
    #[error("bitmap: {0}")]
    Rle(#[from] latlab_rdp::rle::RleError),
    /// Anything else wrong with the stream.
    #[error("{0}")]
    Invalid(&'static str),
}

/// One cached bitmap, rows top-down.
#[derive(Debug, Clone)]
struct Cell {
    w: usize,
    h: usize,
    px: Vec<u8>,
}

/// Time spent per decoding stage, nanoseconds of the decoding thread's CPU time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DecodeTimes {
    /// Parsing orders and RLE-decoding bitmaps.
    pub decode_ns: u64,
    /// Of `decode_ns`, decoding bitmaps (RLE or raw, into top-down rows): seed 000's "bitmap
    /// decompression".
    pub bitmap_ns: u64,
    /// Storing cache cells.
    pub cache_ns: u64,
    /// Drawing into the framebuffer.
    pub blit_ns: u64,
    /// Bytes written into the framebuffer or the cache.
    pub bytes_copied: u64,
}

/// The client's state for one connection.
pub struct Decoder {
    /// What the client shows.
    pub fb: Framebuffer,
    cells: [Vec<Option<Cell>>; 3],
    state: OrderState,
    raw: Vec<u8>,
    /// The RLE decoder's pixels, kept between bitmaps.
    scratch: Vec<u32>,
    /// Stage times, when timing is on.
    pub times: DecodeTimes,
    timed: bool,
}

/// Rows of a bottom-up bitmap, top-down.
fn top_down(px: &[u8], w: usize, ps: usize, out: &mut Vec<u8>) {
    out.clear();
    for row in px.chunks_exact((w * ps).max(1)).rev() {
        out.extend_from_slice(row);
    }
}

impl Decoder {
    /// A black `width × height` screen at `bpp` with `cells` cells per cache; `timed` turns on
    /// the per-stage clock (two thread-CPU clock reads per step).
    pub fn new(width: usize, height: usize, bpp: u32, cells: [usize; 3], timed: bool) -> Self {
        Self {
            fb: Framebuffer::new(width, height, bpp),
            cells: std::array::from_fn(|i| vec![None; cells[i].min(0x7FFF)]),
            state: OrderState::default(),
            raw: Vec::new(),
            scratch: Vec::new(),
            times: DecodeTimes::default(),
            timed,
        }
    }

    fn now(&self) -> Option<u64> {
        self.timed.then(thread_cpu_now)
    }

    fn lap(&self, t: Option<u64>) -> u64 {
        t.map_or(0, |t| thread_cpu_now().saturating_sub(t))
    }

    /// Apply one update PDU.
    pub fn apply(&mut self, pdu: &[u8]) -> Result<(), DecodeError> {
        let t = self.now();
        let update = decode_update(pdu, &mut self.state)?;
        self.times.decode_ns += self.lap(t);
        match update {
            Update::Orders(orders) => {
                for o in orders {
                    match o {
                        Order::CacheBitmap(c) => {
                            let t = self.now();
                            let (w, h) = (c.width as usize, c.height as usize);
                            let id = c.cache_id as usize;
                            if id > 2 || w > CELL_SIDES[id] || h > CELL_SIDES[id] || u32::from(c.bpp) != self.fb.bpp {
                                return Err(DecodeError::Invalid("cache bitmap does not fit its cache"));
                            }
                            let px = self.bitmap(c.compressed, &c.data, w, h)?;
                            self.times.decode_ns += self.lap(t);
                            let t = self.now();
                            let slot = self.cells[id]
                                .get_mut(c.cache_index as usize)
                                .ok_or(DecodeError::Invalid("cache index beyond the cache"))?;
                            self.times.bytes_copied += px.len() as u64;
                            *slot = Some(Cell { w, h, px });
                            self.times.cache_ns += self.lap(t);
                        }
                        Order::Primary(p) => {
                            let t = self.now();
                            self.draw(p)?;
                            self.times.blit_ns += self.lap(t);
                        }
                    }
                }
            }
            Update::Bitmap(rects) => {
                for r in rects {
                    let t = self.now();
                    if u32::from(r.bpp) != self.fb.bpp || r.dest[2] < r.dest[0] || r.dest[3] < r.dest[1] {
                        return Err(DecodeError::Invalid("bitmap rectangle"));
                    }
                    let (w, h) = (r.width as usize, r.height as usize);
                    let px = self.bitmap(r.compressed, &r.data, w, h)?;
                    self.times.decode_ns += self.lap(t);
                    let t = self.now();
                    let dw = (r.dest[2] - r.dest[0]) as usize + 1;
                    let dh = (r.dest[3] - r.dest[1]) as usize + 1;
                    self.blit_part(Area::new(r.dest[0] as usize, r.dest[1] as usize, dw.min(w), dh.min(h)), &px, w);
                    self.times.blit_ns += self.lap(t);
                }
            }
        }
        Ok(())
    }

    /// Pixels of a bitmap (RLE or raw, bottom-up on the wire), top-down.
    fn bitmap(&mut self, compressed: Option<bool>, data: &[u8], w: usize, h: usize) -> Result<Vec<u8>, DecodeError> {
        let t = self.now();
        let px = self.bitmap_untimed(compressed, data, w, h);
        self.times.bitmap_ns += self.lap(t);
        px
    }

    fn bitmap_untimed(
        &mut self,
        compressed: Option<bool>,
        data: &[u8],
        w: usize,
        h: usize,
    ) -> Result<Vec<u8>, DecodeError> {
        let ps = self.fb.ps;
        // A bitmap is never larger than the screen it is drawn on: a hostile size must not
        // make the client allocate gigabytes before the data is found short.
        if w.saturating_mul(h) > self.fb.width * self.fb.height {
            return Err(DecodeError::Invalid("a bitmap larger than the screen"));
        }
        let mut out = Vec::with_capacity(w * h * ps);
        match compressed {
            Some(_) => {
                latlab_rdp::rle::decode_into(data, w, h, self.fb.bpp, &mut self.raw, &mut self.scratch)?;
                top_down(&self.raw, w, ps, &mut out);
            }
            None => {
                if data.len() != w * h * ps {
                    return Err(DecodeError::Invalid("raw bitmap of the wrong size"));
                }
                top_down(data, w, ps, &mut out);
            }
        }
        Ok(out)
    }

    /// Blit the top-left `a.w × a.h` of a `stride`-pixel-wide bitmap to `a`.
    fn blit_part(&mut self, a: Area, px: &[u8], stride: usize) {
        let ps = self.fb.ps;
        let c = self.fb.clip(a);
        for r in 0..c.h {
            let src = &px[r * stride * ps..r * stride * ps + c.w * ps];
            let to = ((c.y + r) * self.fb.width + c.x) * ps;
            self.fb.data[to..to + c.w * ps].copy_from_slice(src);
        }
        self.times.bytes_copied += (c.w * c.h * ps) as u64;
    }

    fn draw(&mut self, p: PrimaryOrder) -> Result<(), DecodeError> {
        let area = |r: latlab_rdp::orders::Rect| {
            (r.left >= 0 && r.top >= 0 && r.width >= 0 && r.height >= 0)
                .then(|| Area::new(r.left as usize, r.top as usize, r.width as usize, r.height as usize))
                .ok_or(DecodeError::Invalid("negative rectangle"))
        };
        match p {
            PrimaryOrder::OpaqueRect { rect, color } => {
                let a = area(rect)?;
                let c = self.fb.clip(a);
                self.times.bytes_copied += (c.w * c.h * self.fb.ps) as u64;
                self.fb.fill(a, u32::from_le_bytes([color[0], color[1], color[2], 0]));
            }
            PrimaryOrder::ScrBlt { rect, src, .. } => {
                let a = area(rect)?;
                if src.0 < 0 || src.1 < 0 {
                    return Err(DecodeError::Invalid("negative ScrBlt source"));
                }
                let c = self.fb.clip(a);
                self.times.bytes_copied += (c.w * c.h * self.fb.ps) as u64;
                self.fb.copy_within(a, src.0 as usize, src.1 as usize);
            }
            PrimaryOrder::MemBlt { cache_id, rect, src, cache_index, .. } => {
                let a = area(rect)?;
                let cell = self
                    .cells
                    .get(cache_id as usize & 0xFF)
                    .and_then(|c| c.get(cache_index as usize))
                    .and_then(Option::as_ref)
                    .ok_or(DecodeError::Invalid("MemBlt from an empty or unknown cache cell"))?;
                if src.0 < 0 || src.1 < 0 || src.0 as usize + a.w > cell.w || src.1 as usize + a.h > cell.h {
                    return Err(DecodeError::Invalid("MemBlt beyond its cell"));
                }
                let ps = self.fb.ps;
                let off = (src.1 as usize * cell.w + src.0 as usize) * ps;
                let c = self.fb.clip(a);
                for r in 0..c.h {
                    let s = off + r * cell.w * ps;
                    let to = ((c.y + r) * self.fb.width + c.x) * ps;
                    self.fb.data[to..to + c.w * ps].copy_from_slice(&cell.px[s..s + c.w * ps]);
                }
                self.times.bytes_copied += (c.w * c.h * ps) as u64;
            }
        }
        Ok(())
    }
}
