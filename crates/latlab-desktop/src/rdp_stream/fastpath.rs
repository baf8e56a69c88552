//! A real server's fast-path output (MS-RDPBCGR 2.2.9.1.2): the PDU header, each update's
//! header, bulk decompression with latlab's decompressors (MPPC, NCRUSH, XCRUSH) and the
//! reassembly of fragmented updates. Total: a hostile stream is an error naming what was
//! wrong, never a panic; the stage times (decompress) are this thread's CPU time.

use latlab_rdp::CompressionType;
use latlab_rdp::bulk::Decompressor;
use latlab_sys::clock::thread_cpu_now;
use thiserror::Error;

/// Why a fast-path PDU was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum FastPathError {
    /// The bytes end before what their headers promise.
    #[error("fast-path PDU truncated in {0}")]
    Truncated(&'static str),
    /// A field holds a value the protocol does not allow here.
    #[error("fast-path PDU: {0}")]
    Invalid(&'static str),
    /// The server encrypted the PDU with Standard RDP Security, which this client does not
    /// negotiate (it asks for TLS or NLA).
    #[error("fast-path PDU encrypted with Standard RDP Security, which latlab does not negotiate")]
    Encrypted,
    /// Bulk decompression failed.
    #[error("bulk decompression: {0}")]
    Bulk(#[from] latlab_rdp::BulkError),
}

/// The fast-path update codes (MS-RDPBCGR 2.2.9.1.2.1, `updateCode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UpdateCode {
    /// FASTPATH_UPDATETYPE_ORDERS.
    Orders,
    /// FASTPATH_UPDATETYPE_BITMAP.
    Bitmap,
    /// FASTPATH_UPDATETYPE_PALETTE.
    Palette,
    /// FASTPATH_UPDATETYPE_SYNCHRONIZE.
    Synchronize,
    /// FASTPATH_UPDATETYPE_SURFCMDS.
    SurfaceCommands,
    /// Any of the pointer updates (hidden, default, position, colour, cached, new, large).
    Pointer,
    /// A code this client does not know.
    Other(u8),
}

impl UpdateCode {
    fn of(code: u8) -> Self {
        match code {
            0 => Self::Orders,
            1 => Self::Bitmap,
            2 => Self::Palette,
            3 => Self::Synchronize,
            4 => Self::SurfaceCommands,
            5 | 6 | 8 | 9 | 10 | 11 | 12 => Self::Pointer,
            c => Self::Other(c),
        }
    }

    /// The name used in records.
    pub fn name(self) -> &'static str {
        match self {
            Self::Orders => "orders",
            Self::Bitmap => "bitmap",
            Self::Palette => "palette",
            Self::Synchronize => "synchronize",
            Self::SurfaceCommands => "surface_commands",
            Self::Pointer => "pointer",
            Self::Other(_) => "other",
        }
    }
}

const FRAG_SINGLE: u8 = 0;
const FRAG_LAST: u8 = 1;
const FRAG_FIRST: u8 = 2;
const FRAG_NEXT: u8 = 3;
const COMPRESSION_USED: u8 = 0x2;
/// The largest reassembled update accepted (MS-RDPBCGR's Multifragment Update capability lets
/// a server send up to the size the client advertised; this bounds a hostile one).
pub const MAX_REASSEMBLED: usize = 16 << 20;

/// The fast-path reader of one connection: the decompressor's history and a fragment in
/// progress live as long as the connection.
pub struct FastPathReader {
    negotiated: Option<CompressionType>,
    /// Made at the first flagged packet, of the type the server chose (any up to the negotiated).
    decompressor: Option<Decompressor>,
    /// The type the server compresses with, once seen.
    pub used: Option<CompressionType>,
    fragment: Option<(UpdateCode, Vec<u8>)>,
    plain: Vec<u8>,
    /// CPU time spent decompressing, nanoseconds.
    pub decompress_ns: u64,
    /// Bytes before and after decompression, of compressed updates.
    pub compressed_bytes: (u64, u64),
    /// Each compressed packet's sizes and decompression time.
    pub pdus: crate::pdu_stats::PduStats,
}

impl FastPathReader {
    /// A reader for a connection that negotiated `compression` (none: `None`).
    pub fn new(compression: Option<CompressionType>) -> Self {
        Self {
            negotiated: compression,
            decompressor: None,
            used: None,
            fragment: None,
            plain: Vec::new(),
            decompress_ns: 0,
            compressed_bytes: (0, 0),
            pdus: crate::pdu_stats::PduStats::default(),
        }
    }

    /// Make the decompressor for a packet flagged `flags` at the first one.
    fn ensure_decompressor(&mut self, flags: u8) -> Result<(), FastPathError> {
        if self.decompressor.is_none() {
            let negotiated = self
                .negotiated
                .ok_or(FastPathError::Invalid("compression flags on a connection that negotiated no compression"))?;
            let t = CompressionType::ALL
                .into_iter()
                .find(|t| *t as u8 == flags & 0x0F && *t as u8 <= negotiated as u8)
                .ok_or(FastPathError::Invalid("a compression type above the one negotiated"))?;
            self.decompressor = Some(Decompressor::new(t)?);
            self.used = Some(t);
        }
        Ok(())
    }

    /// Read one fast-path output PDU (its whole bytes, header included) and hand each complete
    /// update to `each` with its code and its decompressed, reassembled data.
    pub fn read(
        &mut self,
        pdu: &[u8],
        mut each: impl FnMut(UpdateCode, &[u8]) -> Result<(), FastPathError>,
    ) -> Result<(), FastPathError> {
        let head = *pdu.first().ok_or(FastPathError::Truncated("fpOutputHeader"))?;
        if head & 0x3 != 0 {
            return Err(FastPathError::Invalid("action is not FASTPATH_OUTPUT_ACTION_FASTPATH"));
        }
        if head & 0x80 != 0 {
            return Err(FastPathError::Encrypted);
        }
        let l1 = *pdu.get(1).ok_or(FastPathError::Truncated("length1"))?;
        let (len, mut at) = if l1 & 0x80 != 0 {
            let l2 = *pdu.get(2).ok_or(FastPathError::Truncated("length2"))?;
            ((((l1 & 0x7F) as usize) << 8) | l2 as usize, 3)
        } else {
            (l1 as usize, 2)
        };
        if len != pdu.len() {
            return Err(FastPathError::Invalid("length does not match the PDU"));
        }
        while at < pdu.len() {
            let h = pdu[at];
            at += 1;
            let code = UpdateCode::of(h & 0x0F);
            let frag = (h >> 4) & 0x3;
            let flags = if (h >> 6) & COMPRESSION_USED != 0 {
                let f = *pdu.get(at).ok_or(FastPathError::Truncated("compressionFlags"))?;
                at += 1;
                Some(f)
            } else {
                None
            };
            let size = pdu.get(at..at + 2).ok_or(FastPathError::Truncated("size"))?;
            let size = u16::from_le_bytes([size[0], size[1]]) as usize;
            at += 2;
            let data = pdu.get(at..at + size).ok_or(FastPathError::Truncated("updateData"))?;
            at += size;
            self.update(code, frag, flags, data, &mut each)?;
        }
        Ok(())
    }

    /// Append `data`, decompressed when `flags` say so, to `self.plain`. Every packet the
    /// server flagged goes through the one decompressor of the connection, fast-path or
    /// slow-path (MS-RDPBCGR 3.1.8: one history per direction); flags without compressed,
    /// at-front or flushed say nothing (plain data, and no type).
    fn bulk_into(&mut self, data: &[u8], flags: Option<u8>) -> Result<(), FastPathError> {
        if let Some(f) = flags.filter(|f| f & 0xE0 != 0) {
            let t = thread_cpu_now();
            self.ensure_decompressor(f)?;
            let d = self.decompressor.as_mut().expect("made above");
            let out = d.decompress(data, f)?;
            let n = out.len();
            self.plain.extend_from_slice(out);
            if f & 0x20 != 0 {
                let ns = thread_cpu_now().saturating_sub(t);
                self.decompress_ns += ns;
                self.pdus.record(data.len(), n, ns);
                self.compressed_bytes.0 += data.len() as u64;
                self.compressed_bytes.1 += n as u64;
            }
        } else {
            self.plain.extend_from_slice(data);
        }
        Ok(())
    }

    /// A slow-path packet's data through the connection's decompressor (see `bulk_into`).
    pub fn bulk(&mut self, data: &[u8], flags: u8) -> Result<Vec<u8>, FastPathError> {
        self.plain.clear();
        self.bulk_into(data, Some(flags))?;
        Ok(std::mem::take(&mut self.plain))
    }

    fn update(
        &mut self,
        code: UpdateCode,
        frag: u8,
        flags: Option<u8>,
        data: &[u8],
        each: &mut impl FnMut(UpdateCode, &[u8]) -> Result<(), FastPathError>,
    ) -> Result<(), FastPathError> {
        self.plain.clear();
        self.bulk_into(data, flags)?;
        match frag {
            FRAG_SINGLE => {
                if self.fragment.is_some() {
                    return Err(FastPathError::Invalid("a whole update inside a fragmented one"));
                }
                each(code, &self.plain)
            }
            FRAG_FIRST => {
                if self.fragment.is_some() {
                    return Err(FastPathError::Invalid("a first fragment before the last one ended"));
                }
                self.fragment = Some((code, self.plain.clone()));
                Ok(())
            }
            FRAG_NEXT | FRAG_LAST => {
                let (c, mut buf) = self.fragment.take().ok_or(FastPathError::Invalid("a fragment with no first"))?;
                if c != code {
                    return Err(FastPathError::Invalid("fragments of different updates interleaved"));
                }
                if buf.len() + self.plain.len() > MAX_REASSEMBLED {
                    return Err(FastPathError::Invalid("a fragmented update larger than 16 MiB"));
                }
                buf.extend_from_slice(&self.plain);
                if frag == FRAG_LAST {
                    each(code, &buf)
                } else {
                    self.fragment = Some((c, buf));
                    Ok(())
                }
            }
            _ => unreachable!("two bits"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use latlab_rdp::bulk::Compressor;

    fn pdu(updates: &[(u8, Option<u8>, &[u8])]) -> Vec<u8> {
        let mut body = Vec::new();
        for (h, f, d) in updates {
            body.push(*h);
            if let Some(f) = f {
                body.push(*f);
            }
            body.extend_from_slice(&(d.len() as u16).to_le_bytes());
            body.extend_from_slice(d);
        }
        let len = body.len() + 3;
        let mut out = vec![0, 0x80 | (len >> 8) as u8, len as u8];
        out.extend_from_slice(&body);
        out
    }

    fn collect(r: &mut FastPathReader, p: &[u8]) -> Result<Vec<(UpdateCode, Vec<u8>)>, FastPathError> {
        let mut got = Vec::new();
        r.read(p, |c, d| {
            got.push((c, d.to_vec()));
            Ok(())
        })?;
        Ok(got)
    }

    #[test]
    fn updates_fragments_and_compression() {
        let mut r = FastPathReader::new(Some(CompressionType::Mppc64k));
        // A bitmap in two fragments, then a pointer update, in one PDU.
        let p = pdu(&[(0x21, None, b"abc"), (0x11, None, b"def"), (0x08, None, b"xy")]);
        let got = collect(&mut r, &p).unwrap();
        assert_eq!(got, vec![(UpdateCode::Bitmap, b"abcdef".to_vec()), (UpdateCode::Pointer, b"xy".to_vec())]);
        // A compressed update decompresses with latlab's MPPC.
        let mut c = Compressor::new(CompressionType::Mppc64k).unwrap();
        let plain = b"hello hello hello hello hello".repeat(4);
        let mut z = Vec::new();
        let flags = c.compress(&plain, &mut z);
        assert!(flags & 0x20 != 0, "the sample compresses");
        let p = pdu(&[(0x81, Some(flags), &z)]);
        let got = collect(&mut r, &p).unwrap();
        assert_eq!(got, vec![(UpdateCode::Bitmap, plain.clone())]);
        assert_eq!(r.compressed_bytes, (z.len() as u64, plain.len() as u64));
    }

    #[test]
    fn hostile_pdus_are_errors() {
        let mut r = FastPathReader::new(None);
        assert_eq!(collect(&mut r, &[]), Err(FastPathError::Truncated("fpOutputHeader")));
        assert_eq!(collect(&mut r, &[0x80, 2]), Err(FastPathError::Encrypted));
        assert_eq!(collect(&mut r, &[0, 9, 1]), Err(FastPathError::Invalid("length does not match the PDU")));
        let mut p = pdu(&[(0x01, None, b"abc")]);
        p[4] = 9; // size past the end
        assert_eq!(collect(&mut r, &p), Err(FastPathError::Truncated("updateData")));
        let p = pdu(&[(0x11, None, b"x")]);
        assert_eq!(collect(&mut r, &p), Err(FastPathError::Invalid("a fragment with no first")));
        let p = pdu(&[(0x81, Some(0x21), b"x")]);
        assert!(
            matches!(collect(&mut r, &p), Err(FastPathError::Invalid(_))),
            "compressed with no compression negotiated"
        );
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let mut r = FastPathReader::new(Some(CompressionType::Xcrush));
        let mut x = 0x1234_5678u32;
        for n in 0..2000 {
            let mut p: Vec<u8> = (0..(n % 300))
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    x as u8
                })
                .collect();
            if p.len() >= 3 {
                p[0] &= 0x3C;
                let len = p.len();
                p[1] = 0x80 | (len >> 8) as u8;
                p[2] = len as u8;
            }
            let _ = collect(&mut r, &p);
        }
    }
}
