//! What the server end of a session did: frames, PDUs and bytes each way, its CPU by stage,
//! the cache's hits and misses, and an echo session's keys and page-outs.

/// What the server did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerReport {
    /// Frames the workload rendered.
    pub frames: u64,
    /// Frames taken: encoded and sent (those with no change send nothing).
    pub sent: u64,
    /// Frames dropped because the client had not taken the previous ones.
    pub dropped: u64,
    /// Display PDUs written.
    pub display_pdus: u64,
    /// Their bytes.
    pub display_bytes: u64,
    /// Input PDUs received.
    pub input_pdus: u64,
    /// Their bytes.
    pub input_bytes: u64,
    /// Input events received.
    pub input_events: u64,
    /// Input events the script has (what should have arrived).
    pub input_expected: u64,
    /// Input PDUs that did not parse (counted and dropped).
    pub input_malformed: u64,
    /// Server CPU: rendering, ns.
    pub render_ns: u64,
    /// Server CPU: encoding, compressing and encrypting, ns.
    pub encode_ns: u64,
    /// Server CPU: writing, ns.
    pub send_ns: u64,
    /// MemBlt orders whose bitmap was in the client's cache (the encoder's count).
    pub cache_hits: u64,
    /// Cache Bitmap orders sent: bitmaps that were not in the cache.
    pub cache_misses: u64,
    /// `write` calls that moved bytes.
    pub writes: u64,
    /// Wall time of the session, ns.
    pub wall_ns: u64,
    /// Hash of the final screen.
    pub screen_hash: u64,
    /// Echo sessions: keys pressed (key-down events applied).
    pub keys: u64,
    /// Echo sessions with a working set: times it was paged out.
    pub pageouts: u64,
    /// …and the mean fraction of it still resident after a page-out (1: none left memory).
    pub resident_after: f64,
}

impl ServerReport {
    /// One line on the session, as `display serve` prints it when a client leaves.
    pub fn summary(&self) -> String {
        format!(
            "{} frames ({} dropped), {} display PDUs, {} bytes; {} of {} input events; {:.1} % of a core",
            self.frames,
            self.dropped,
            self.display_pdus,
            self.display_bytes,
            self.input_events,
            self.input_expected,
            100.0 * (self.render_ns + self.encode_ns + self.send_ns) as f64 / self.wall_ns.max(1) as f64
        )
    }
}
