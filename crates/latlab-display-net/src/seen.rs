//! What the display client saw: its CPU per stage, its counts, and each compressed PDU's
//! sizes and decompression time.

use latlab_desktop::decoder::Decoder;
use latlab_desktop::pdu_stats::PduStats;
use latlab_desktop::wire::Receiver;

/// Client CPU per stage, ns of the receiving thread's CPU time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClientTimes {
    /// Waiting for and reading from the socket (the system calls' CPU, not the waiting), and
    /// copying each PDU into the data buffer (or handing it to the decoding thread).
    pub receive_ns: u64,
    /// Decrypting.
    pub decrypt_ns: u64,
    /// Bulk decompression.
    pub decompress_ns: u64,
    /// Parsing orders, RLE-decoding bitmaps.
    pub decode_ns: u64,
    /// Storing cache cells.
    pub cache_ns: u64,
    /// Drawing into the framebuffer.
    pub blit_ns: u64,
    /// Of `decode_ns`, decoding bitmaps (RLE or raw): seed 000's "bitmap decompression".
    pub bitmap_ns: u64,
    /// Everything else on the thread (framing, bookkeeping, frame checks).
    pub other_ns: u64,
    /// The thread's CPU time in all.
    pub total_ns: u64,
    /// Bytes written into the framebuffer or the cache.
    pub bytes_copied: u64,
}

impl ClientTimes {
    /// The stages, named as in metrics.
    pub fn stages(&self) -> [(&'static str, u64); 7] {
        [
            ("receive", self.receive_ns),
            ("decrypt", self.decrypt_ns),
            ("decompress", self.decompress_ns),
            ("decode", self.decode_ns),
            ("cache", self.cache_ns),
            ("blit", self.blit_ns),
            ("other", self.other_ns),
        ]
    }
}

/// What the client saw.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClientReport {
    /// Display PDUs applied.
    pub pdus: u64,
    /// Bytes received.
    pub bytes: u64,
    /// TCP segments the display PDUs would take on Ethernet, each PDU framed on its own
    /// ([`latlab_desktop::wire::framing`]): the header count behind bytes on the link.
    pub segments: u64,
    /// `read` calls that returned data.
    pub reads: u64,
    /// Wake-ups (the socket became readable, or the wait timed out).
    pub wakeups: u64,
    /// Per-frame checks passed.
    pub frames_checked: u64,
    /// CPU per stage.
    pub times: ClientTimes,
    /// Each compressed PDU's sizes and decompression time.
    pub compressed: PduStats,
    /// Wall time from the server's OK to its end record, ns.
    pub wall_ns: u64,
    /// Input PDUs sent.
    pub input_pdus: u64,
    /// Their bytes.
    pub input_bytes: u64,
    /// The TCP segments they would take on Ethernet, each PDU framed on its own.
    pub input_segments: u64,
    /// The server's counts from its end record: frames rendered, sent, dropped.
    pub server_frames: [u64; 3],
    /// Hash of the final screen (checked equal to the server's).
    pub screen_hash: u64,
    /// The server thread's CPU for the session from its cost record, ns: render, encode,
    /// send (`None` from a server that did not send one).
    pub server_cpu_ns: Option<[u64; 3]>,
}

/// The wire's and the decoder's stage times and per-PDU figures into the report.
pub(crate) fn fill_times(rep: &mut ClientReport, rx: &Receiver, dec: &Decoder) {
    rep.compressed = rx.pdus.clone();
    let t = &mut rep.times;
    t.receive_ns += rx.times.copy_ns;
    t.decrypt_ns = rx.times.decrypt_ns;
    t.decompress_ns = rx.times.decompress_ns;
    t.decode_ns = dec.times.decode_ns;
    t.bitmap_ns = dec.times.bitmap_ns;
    t.cache_ns = dec.times.cache_ns;
    t.blit_ns = dec.times.blit_ns;
    t.bytes_copied = dec.times.bytes_copied + rx.times.bytes_copied;
    let staged = t.receive_ns + t.decrypt_ns + t.decompress_ns + t.decode_ns + t.cache_ns + t.blit_ns;
    t.other_ns = t.total_ns.saturating_sub(staged);
}
