//! The packet-file framing `latlab codec` reads and writes: a sequence of records, each
//! `flags` (1 byte: the bulk-compression flags of MS-RDPBCGR 3.1.8.2 — compression type in
//! the low 4 bits, 0x20 compressed, 0x40 at front, 0x80 flushed; 0 for plain data), `length`
//! (4 bytes, little-endian), then `length` bytes of payload. Nothing else: no header, no
//! padding. Reading is total: a truncated or oversized record is an error naming its index.

use std::io::{self, Read, Write};

/// Largest payload a record may carry (a PDU never exceeds 64 KB of bulk data).
pub const MAX_RECORD: usize = 1 << 20;

/// Write one record.
pub fn write_record(w: &mut dyn Write, flags: u8, payload: &[u8]) -> io::Result<()> {
    w.write_all(&[flags])?;
    w.write_all(&(payload.len() as u32).to_le_bytes())?;
    w.write_all(payload)
}

/// Why a packet file does not read: the record that broke it, and how.
#[derive(Debug, thiserror::Error)]
pub enum FramingError {
    /// A record's header is cut short.
    #[error("record {record}: truncated header ({left} bytes left, 5 needed)")]
    Header {
        /// Its index.
        record: usize,
        /// Bytes left.
        left: usize,
    },
    /// A record's length is over the limit.
    #[error("record {record}: length {len} is over the {MAX_RECORD}-byte limit")]
    TooLong {
        /// Its index.
        record: usize,
        /// The length it claims.
        len: usize,
    },
    /// A record's payload is cut short.
    #[error("record {record}: truncated payload ({left} of {len} bytes)")]
    Payload {
        /// Its index.
        record: usize,
        /// Bytes there.
        left: usize,
        /// Bytes it claims.
        len: usize,
    },
    /// The stream could not be read.
    #[error("reading the records")]
    Read(#[source] std::io::Error),
}

/// Read every record of a file's bytes.
pub fn read_records(data: &[u8]) -> Result<Vec<(u8, Vec<u8>)>, FramingError> {
    let mut out = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let i = out.len();
        if rest.len() < 5 {
            return Err(FramingError::Header { record: i, left: rest.len() });
        }
        let flags = rest[0];
        let len = u32::from_le_bytes([rest[1], rest[2], rest[3], rest[4]]) as usize;
        if len > MAX_RECORD {
            return Err(FramingError::TooLong { record: i, len });
        }
        if rest.len() < 5 + len {
            return Err(FramingError::Payload { record: i, left: rest.len() - 5, len });
        }
        out.push((flags, rest[5..5 + len].to_vec()));
        rest = &rest[5 + len..];
    }
    Ok(out)
}

/// Read a whole stream of records.
pub fn read_all(r: &mut dyn Read) -> Result<Vec<(u8, Vec<u8>)>, FramingError> {
    let mut buf = Vec::new();
    r.read_to_end(&mut buf).map_err(FramingError::Read)?;
    read_records(&buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_by_hand_and_errors() {
        let mut v = Vec::new();
        write_record(&mut v, 0x21, b"ab").unwrap();
        write_record(&mut v, 0, b"").unwrap();
        assert_eq!(v, vec![0x21, 2, 0, 0, 0, b'a', b'b', 0, 0, 0, 0, 0]);
        assert_eq!(read_records(&v).unwrap(), vec![(0x21, b"ab".to_vec()), (0, vec![])]);
        assert!(read_records(&v[..4]).unwrap_err().to_string().contains("record 0: truncated header"));
        assert!(read_records(&v[..6]).unwrap_err().to_string().contains("record 0: truncated payload"));
        assert!(read_records(&[0, 0xff, 0xff, 0xff, 0xff]).unwrap_err().to_string().contains("over the"));
    }
}
