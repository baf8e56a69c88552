//! latlab's side of a real server's display stream, apart from the socket: fast-path PDUs
//! and slow-path Update PDUs through the connection's one bulk decompressor into latlab's
//! decoder and framebuffer, with what they counted. The fuzz target drives it with any bytes.

use crate::decoder::{DecodeError, Decoder};
use crate::rdp_stream::fastpath::{FastPathError, FastPathReader, UpdateCode};
use crate::rdp_stream::slowpath::{PDUTYPE2_UPDATE, share_data, uncompressed};
use std::collections::BTreeMap;
use std::io;
use thiserror::Error;

/// Why a session ended early.
#[derive(Debug, Error)]
pub enum SessionError {
    /// The socket failed or closed.
    #[error("connection: {0}")]
    Io(#[from] io::Error),
    /// The server closed the session (logoff, another user took it, an error it reported).
    #[error("the server ended the session: {0}")]
    Ended(String),
    /// A fast-path PDU did not parse or decompress.
    #[error(transparent)]
    FastPath(#[from] FastPathError),
    /// An update did not decode.
    #[error("display update: {0}")]
    Decode(#[from] DecodeError),
    /// IronRDP's session layer refused a slow-path frame.
    #[error("slow-path frame: {0}")]
    Slow(String),
    /// The frame header is not RDP.
    #[error("not an RDP frame: {0}")]
    Framing(String),
}

/// What the session counted.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct SessionCounts {
    /// Fast-path output PDUs (the I/O channel's display updates).
    pub fastpath_pdus: u64,
    /// Their bytes (after TLS).
    pub fastpath_bytes: u64,
    /// Bytes of display updates, fast-path PDUs and slow-path Update PDUs together (the
    /// display channel: xrdp sends its bitmaps slow-path).
    pub display_bytes: u64,
    /// Slow-path frames (X.224: control PDUs, slow-path updates and virtual channels).
    pub slowpath_frames: u64,
    /// Their bytes.
    pub slowpath_bytes: u64,
    /// Updates by kind: count and decompressed bytes.
    pub updates: BTreeMap<&'static str, (u64, u64)>,
    /// Updates of a kind latlab's decoder does not draw (drawing orders, surface commands,
    /// palettes, slow-path graphics): counted, not drawn.
    pub not_drawn: u64,
    /// Updates latlab drew on its screen (bitmaps, fast-path or slow-path).
    pub pictures: u64,
    /// Input PDUs sent, and their bytes.
    pub input_pdus: u64,
    /// See `input_pdus`.
    pub input_bytes: u64,
}

/// What a slow-path frame came to.
#[derive(Debug, PartialEq, Eq)]
pub enum Slow {
    /// An Update PDU latlab read itself; whether it drew.
    Drew(bool),
    /// A frame for IronRDP's session layer: as it came (`None`), or rebuilt uncompressed.
    ToSession(Option<Vec<u8>>),
}

/// Decompression, decoding and the screen of one connection.
pub struct DisplayStream {
    fast: FastPathReader,
    /// latlab's decoder and the framebuffer it draws.
    pub decoder: Decoder,
    /// What crossed the session.
    pub counts: SessionCounts,
    io_channel: u16,
}

impl DisplayStream {
    /// A `width × height` screen at `bpp` for a connection that negotiated `compression`, whose
    /// I/O channel is `io_channel`.
    pub fn new(
        width: usize,
        height: usize,
        bpp: u32,
        compression: Option<latlab_rdp::CompressionType>,
        io_channel: u16,
    ) -> Self {
        Self {
            fast: FastPathReader::new(compression),
            decoder: Decoder::new(width, height, bpp, [0; 3], true),
            counts: SessionCounts::default(),
            io_channel,
        }
    }

    /// CPU time in bulk decompression so far, ns.
    pub fn decompress_ns(&self) -> u64 {
        self.fast.decompress_ns
    }

    /// Each compressed packet's sizes and decompression time so far.
    pub fn pdus(&self) -> &crate::pdu_stats::PduStats {
        &self.fast.pdus
    }

    /// The compression the server actually uses, once it sent a compressed packet.
    pub fn compression_used(&self) -> Option<&'static str> {
        self.fast.used.map(|c| c.name())
    }

    /// One fast-path output PDU (its whole bytes); returns whether it drew.
    pub fn fast_path(&mut self, frame: &[u8]) -> Result<bool, SessionError> {
        self.counts.fastpath_pdus += 1;
        self.counts.fastpath_bytes += frame.len() as u64;
        self.counts.display_bytes += frame.len() as u64;
        let mut drew = false;
        let (decoder, counts) = (&mut self.decoder, &mut self.counts);
        self.fast.read(frame, |code, data| {
            let e = counts.updates.entry(code.name()).or_default();
            e.0 += 1;
            e.1 += data.len() as u64;
            match code {
                UpdateCode::Bitmap => {
                    decoder.apply(data).map_err(|e| FastPathError::Invalid(decode_reason(&e)))?;
                    drew = true;
                }
                UpdateCode::Orders | UpdateCode::SurfaceCommands | UpdateCode::Palette | UpdateCode::Other(_) => {
                    counts.not_drawn += 1;
                }
                UpdateCode::Synchronize | UpdateCode::Pointer => {}
            }
            Ok(())
        })?;
        if drew {
            self.counts.pictures += 1;
        }
        Ok(drew)
    }

    /// One slow-path frame: an Update PDU on the I/O channel is read here; anything else goes
    /// on to IronRDP, decompressed first when the server compressed it (every flagged packet
    /// passes the one decompressor, so its history stays the server's).
    pub fn slow_path(&mut self, frame: &[u8]) -> Result<Slow, SessionError> {
        self.counts.slowpath_frames += 1;
        self.counts.slowpath_bytes += frame.len() as u64;
        let Some(sd) = share_data(frame, self.io_channel) else { return Ok(Slow::ToSession(None)) };
        let plain = self.fast.bulk(sd.data, sd.flags)?;
        if sd.pdu_type2 == PDUTYPE2_UPDATE {
            self.counts.display_bytes += frame.len() as u64;
            return self.slow_update(&plain).map(Slow::Drew);
        }
        Ok(Slow::ToSession((sd.flags & 0x20 != 0).then(|| uncompressed(frame, &sd, &plain))))
    }

    /// A slow-path Update PDU's data (updateType first), decompressed: bitmaps are drawn by
    /// latlab's decoder as fast-path ones are.
    fn slow_update(&mut self, plain: &[u8]) -> Result<bool, SessionError> {
        let kind = match plain.first().copied() {
            Some(0) => "slow_orders",
            Some(1) => "slow_bitmap",
            Some(2) => "slow_palette",
            Some(3) => "slow_synchronize",
            _ => "slow_other",
        };
        let e = self.counts.updates.entry(kind).or_default();
        e.0 += 1;
        e.1 += plain.len() as u64;
        match kind {
            "slow_bitmap" => {
                self.decoder.apply(plain)?;
                self.counts.pictures += 1;
                Ok(true)
            }
            "slow_synchronize" => Ok(false),
            _ => {
                self.counts.not_drawn += 1;
                Ok(false)
            }
        }
    }
}

/// The length of the first whole frame in `buf` and whether it is fast-path, once it is all
/// there (`Ok(None)` until then). The first byte's low two bits are the action
/// (MS-RDPBCGR 2.2.9.1.2): 0 a fast-path PDU, whose one- or two-byte length follows; 3 a TPKT
/// (T.123: version 3, a reserved byte, the length big-endian, header included).
pub fn frame_len(buf: &[u8]) -> Result<Option<(bool, usize)>, SessionError> {
    let Some(&first) = buf.first() else { return Ok(None) };
    let (fast, len) = match first & 0x03 {
        0x00 => match crate::wire::pdu_len(buf) {
            Some(len) => (true, len),
            None => return Ok(None),
        },
        0x03 => match buf.get(2..4) {
            Some(b) => (false, u16::from_be_bytes([b[0], b[1]]) as usize),
            None => return Ok(None),
        },
        action => {
            return Err(SessionError::Framing(format!(
                "action {action} in the first byte {first:#04x}: neither fast-path (0) nor TPKT (3)"
            )));
        }
    };
    let header = if fast { 2 } else { 4 };
    if len < header {
        return Err(SessionError::Framing(format!("a frame of {len} bytes is shorter than its {header}-byte header")));
    }
    Ok((len <= buf.len()).then_some((fast, len)))
}

fn decode_reason(e: &DecodeError) -> &'static str {
    match e {
        DecodeError::Update(_) => "a bitmap update did not parse",
        DecodeError::Rle(_) => "an interleaved-RLE bitmap did not decode",
        DecodeError::Invalid(s) => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fb::Area;
    use latlab_rdp::bitmap::{BitmapRect, encode_bitmap_update};

    fn fastpath(update: &[u8]) -> Vec<u8> {
        let n = update.len() + 6;
        let mut f = vec![0, 0x80 | (n >> 8) as u8, n as u8, 0x01];
        f.extend_from_slice(&(update.len() as u16).to_le_bytes());
        f.extend_from_slice(update);
        f
    }

    fn slowpath(update: &[u8]) -> Vec<u8> {
        let mut user = Vec::new();
        user.extend_from_slice(&((18 + update.len()) as u16).to_le_bytes());
        user.extend_from_slice(&[0x17, 0, 0xEA, 0x03, 0xEA, 0x03, 0x01, 0x00, 0, 1]);
        user.extend_from_slice(&(update.len() as u16).to_le_bytes());
        user.extend_from_slice(&[PDUTYPE2_UPDATE, 0, 0, 0]);
        user.extend_from_slice(update);
        let mut f = vec![3, 0, 0, 0, 2, 0xF0, 0x80, 0x68, 0, 1, 0x03, 0xEB, 0x70];
        f.extend_from_slice(&[0x80 | (user.len() >> 8) as u8, user.len() as u8]);
        f.extend_from_slice(&user);
        let n = f.len() as u16;
        f[2..4].copy_from_slice(&n.to_be_bytes());
        f
    }

    fn white(x: u16, y: u16, w: u16, h: u16) -> Vec<u8> {
        encode_bitmap_update(&[BitmapRect {
            dest: [x, y, x + w - 1, y + h - 1],
            width: w,
            height: h,
            bpp: 16,
            compressed: None,
            data: vec![0xFF; w as usize * h as usize * 2],
        }])
    }

    #[test]
    fn both_paths_draw_on_the_one_screen_and_count() {
        let mut d = DisplayStream::new(32, 16, 16, None, 1003);
        assert!(d.fast_path(&fastpath(&white(0, 0, 4, 2))).unwrap());
        assert_eq!(d.decoder.fb.solid(Area::new(0, 0, 4, 2)), Some(0xFFFF));
        let f = slowpath(&white(8, 4, 4, 2));
        assert_eq!(frame_len(&f).unwrap(), Some((false, f.len())));
        assert_eq!(d.slow_path(&f).unwrap(), Slow::Drew(true));
        assert_eq!(d.decoder.fb.solid(Area::new(8, 4, 4, 2)), Some(0xFFFF));
        assert_eq!(d.counts.pictures, 2);
        assert_eq!(d.counts.updates["bitmap"].0, 1);
        assert_eq!(d.counts.updates["slow_bitmap"].0, 1);
        assert_eq!(d.counts.display_bytes, (fastpath(&white(0, 0, 4, 2)).len() + f.len()) as u64);
        // Another channel's frame goes on to IronRDP untouched.
        let mut other = f.clone();
        other[11] = 0xEC;
        assert_eq!(d.slow_path(&other).unwrap(), Slow::ToSession(None));
    }

    #[test]
    fn a_bitmap_larger_than_the_screen_is_an_error_not_an_allocation() {
        let mut d = DisplayStream::new(32, 16, 16, None, 1003);
        let mut huge = white(0, 0, 2, 1);
        // width and height 65535 (TS_BITMAP_DATA's fields 5 and 6), data still 4 bytes.
        huge[12..16].copy_from_slice(&[0xFF, 0xFF, 0xFF, 0xFF]);
        assert!(d.fast_path(&fastpath(&huge)).is_err());
        assert!(d.slow_path(&slowpath(&huge)).is_err());
    }

    #[test]
    fn frames_are_found_by_their_first_bytes() {
        assert_eq!(frame_len(&[]).unwrap(), None);
        // Fast-path, one-byte length 3, whole.
        assert_eq!(frame_len(&[0x00, 0x03, 0xAA]).unwrap(), Some((true, 3)));
        // Fast-path, two-byte length 0x0104: not all there yet.
        assert_eq!(frame_len(&[0x00, 0x81, 0x04, 0]).unwrap(), None);
        // TPKT of 7 bytes, whole, with more behind it.
        assert_eq!(frame_len(&[0x03, 0x00, 0x00, 0x07, 1, 2, 3, 9]).unwrap(), Some((false, 7)));
        assert_eq!(frame_len(&[0x03, 0x00]).unwrap(), None);
        assert!(frame_len(&[0x01, 0x05]).is_err());
        assert!(frame_len(&[0x03, 0x00, 0x00, 0x02]).is_err());
        assert!(frame_len(&[0x00, 0x01]).is_err());
    }
}
