//! Every default of latlab's own display protocol across TCP (client buffers, the server's limits), with the reason it has that value.

/// Bulk compression of `display ops`: MPPC-8K, RDP 4.0's, the Terminal Server study's.
pub const OPS_CODEC: &str = "mppc8";
/// The client's receive buffer: seed 000's NPRecvBufferSize default, 64 KB.
pub const RCVBUF: usize = 64 * 1024;
/// The client's receive threshold: seed 000's NPRecvThreshold default, 2 KB.
pub const RCV_THRESHOLD: usize = 2 * 1024;
/// The server's kernel send buffer (`SO_SNDBUF`), bytes: what seed 000's peak rate (3.7 MB/s)
/// sends in seed 003's noticeable 100 ms, halved because the kernel doubles the value for its
/// bookkeeping. A server queues no more than a user would not notice, so a client that cannot
/// keep up shows as frames dropped (seed 000's 233 MHz CEPC) rather than as seconds of frames
/// queued in the kernel (Linux autotunes a loopback send buffer up to 4 MB: three seconds of
/// the slide show for the 233 MHz client, shown late and drained after the session ended).
/// 3.7 MB/s × 100 ms / 2 (the display study checks this against its paper values).
pub const SERVER_SNDBUF: usize = 185_000;
/// Longest the client waits for the threshold to fill before reading what is there: one
/// frame period, so a quiet stream is never held back longer than a frame.
pub const RCV_MAX_WAIT_MS: u64 = latlab_desktop::defaults::FRAME_MS;
/// `display serve`: seconds a connection may take to send its hello. latlab's client sends it
/// at once; 5 s leaves room for a slow link and a busy client, and frees an idle connection
/// long before thousands can pile up.
pub const HELLO_DEADLINE_SECS: f64 = 5.0;
/// `display serve`: seconds a session may go without the client taking a byte (or, in an
/// echo session, sending one): a viewer that stopped reading or went away without closing.
/// Longer than any stall the studies measured (seconds), short enough to free its thread.
pub const IDLE_TIMEOUT_SECS: f64 = 30.0;
/// `display serve`: the longest session a hello may ask for (and an echo session may last):
/// one hour, the studies' longest runs being minutes.
pub const MAX_SESSION_SECS: f64 = 3600.0;
/// `display serve`: sessions at once. Each costs two threads and a screen's buffers (a few
/// MB); 64 is past the capacity experiment's largest sweep on a small server.
pub const MAX_SESSIONS: usize = 64;
/// `display serve`: connections waiting for their hello at once; past it the one waiting
/// longest is closed, so idle connections cannot keep a real viewer out. A waiting connection
/// holds a socket and nothing else until its first bytes (then at most a 1 KiB hello).
pub const MAX_WAITING: usize = 256;
