//! A real server's slow-path data PDUs on the I/O channel (MS-RDPBCGR 2.2.8.1.1.1: TPKT, X.224
//! data, MCS Send Data Indication, Share Control and Share Data headers): what latlab reads
//! itself — the Update PDUs that carry graphics (xrdp sends its bitmaps this way), through the
//! connection's one bulk decompressor — and the rest handed to IronRDP's session layer, rebuilt
//! uncompressed when the server compressed it. Total: anything unexpected is left to IronRDP.

/// A Share Data PDU found in a slow-path frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShareData<'a> {
    /// `pduType2` (2: Update; others are control PDUs).
    pub pdu_type2: u8,
    /// `compressedType`: the bulk-compression flags and type.
    pub flags: u8,
    /// The PDU's data after the Share Data Header (compressed when `flags` say so).
    pub data: &'a [u8],
    /// Offset of the Share Control Header in the frame.
    share_at: usize,
}

/// Share Data PDU type 2 of an Update PDU (PDUTYPE2_UPDATE).
pub const PDUTYPE2_UPDATE: u8 = 2;

/// The Share Data PDU of `frame` when it is one on `io_channel`; `None` for anything else
/// (virtual channels, MCS control, flow PDUs, something malformed: IronRDP's to judge).
pub fn share_data(frame: &[u8], io_channel: u16) -> Option<ShareData<'_>> {
    if frame.len() < 14 || frame[0] != 3 || frame[4..7] != [2, 0xF0, 0x80] || frame[7] >> 2 != 26 {
        return None;
    }
    let channel = u16::from_be_bytes([frame[10], frame[11]]);
    if channel != io_channel {
        return None;
    }
    let (len, at) = if frame[13] & 0x80 != 0 {
        (((frame[13] & 0x3F) as usize) << 8 | *frame.get(14)? as usize, 15)
    } else {
        (frame[13] as usize, 14)
    };
    let user = frame.get(at..at + len)?;
    if user.len() < 18 || u16::from_le_bytes([user[0], user[1]]) == 0x8000 || user[2] & 0x0F != 7 {
        return None;
    }
    Some(ShareData { pdu_type2: user[14], flags: user[15], data: &user[18..], share_at: at })
}

/// `frame` with its Share Data PDU's data replaced by `plain` and the compression flags
/// cleared, its lengths (TPKT, MCS, Share Control) made to fit: what IronRDP is handed.
pub fn uncompressed(frame: &[u8], sd: &ShareData<'_>, plain: &[u8]) -> Vec<u8> {
    let mut user = frame[sd.share_at..sd.share_at + 18].to_vec();
    let total = (18 + plain.len()) as u16;
    user[0..2].copy_from_slice(&total.to_le_bytes());
    user[12..14].copy_from_slice(&(plain.len() as u16).to_le_bytes());
    user[15] = 0;
    user[16..18].copy_from_slice(&[0, 0]);
    user.extend_from_slice(plain);
    let mut out = Vec::with_capacity(user.len() + 16);
    out.extend_from_slice(&[3, 0, 0, 0]);
    out.extend_from_slice(&frame[4..13]);
    let n = user.len();
    out.extend_from_slice(&[0x80 | (n >> 8) as u8 & 0x3F, n as u8]);
    out.extend_from_slice(&user);
    let len = out.len() as u16;
    out[2..4].copy_from_slice(&len.to_be_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(channel: u16, pdu_type2: u8, flags: u8, data: &[u8]) -> Vec<u8> {
        let mut user = Vec::new();
        user.extend_from_slice(&((18 + data.len()) as u16).to_le_bytes());
        user.extend_from_slice(&[0x17, 0x00, 0xEA, 0x03]); // PDUTYPE_DATAPDU, version 1; source
        user.extend_from_slice(&[0xEA, 0x03, 0x01, 0x00, 0, 1]); // shareId, pad, streamId
        user.extend_from_slice(&(data.len() as u16).to_le_bytes());
        user.extend_from_slice(&[pdu_type2, flags, 0, 0]);
        user.extend_from_slice(data);
        let mut f = vec![3, 0, 0, 0, 2, 0xF0, 0x80, 0x68, 0, 1];
        f.extend_from_slice(&channel.to_be_bytes());
        f.push(0x70);
        f.extend_from_slice(&[0x80 | (user.len() >> 8) as u8, user.len() as u8]);
        f.extend_from_slice(&user);
        let n = f.len() as u16;
        f[2..4].copy_from_slice(&n.to_be_bytes());
        f
    }

    #[test]
    fn finds_update_pdus_on_the_io_channel_only_and_rebuilds_them_uncompressed() {
        let f = frame(1003, PDUTYPE2_UPDATE, 0x21, b"zz");
        let sd = share_data(&f, 1003).unwrap();
        assert_eq!((sd.pdu_type2, sd.flags, sd.data), (2, 0x21, &b"zz"[..]));
        assert!(share_data(&f, 1004).is_none(), "another channel");
        let back = uncompressed(&f, &sd, b"plain data");
        assert_eq!(back, frame(1003, PDUTYPE2_UPDATE, 0, b"plain data"));
        let again = share_data(&back, 1003).unwrap();
        assert_eq!((again.flags, again.data), (0, &b"plain data"[..]));
        assert_eq!(u16::from_be_bytes([back[2], back[3]]) as usize, back.len());
    }

    #[test]
    fn anything_else_is_left_alone_and_nothing_panics() {
        assert!(share_data(&[], 1003).is_none());
        assert!(share_data(&[3, 0, 0, 9, 2, 0xF0, 0x80, 0x64, 0, 1, 3, 0xEB, 0x70, 2, 1, 2], 1003).is_none());
        let f = frame(1003, 2, 0, b"abc");
        for cut in 0..f.len() {
            let _ = share_data(&f[..cut], 1003);
        }
        let mut x = 7u32;
        for _ in 0..5000 {
            let mut g = f.clone();
            for b in g.iter_mut().skip(7) {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                if x.is_multiple_of(5) {
                    *b = x as u8;
                }
            }
            if let Some(sd) = share_data(&g, 1003) {
                let _ = uncompressed(&g, &sd, b"p");
            }
        }
    }
}
