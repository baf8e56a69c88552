//! Every default of latlab as an RDP client and server, with the reason it has that value.

// ---- `display serve --rdp`: latlab as an RDP server for real clients ----------

/// The port `display serve --rdp` listens on when none is given: RDP's own (3389), which every
/// client tries when given a bare host.
pub const RDP_SERVE_PORT: u16 = 3389;
/// The script each client is shown: its own keys echoed (input to update), then seed 000's
/// workloads: typing, scrolling, the slide show (its demanding animation) and the banner
/// with the ticker (seed 003's web page).
pub const RDP_SERVE_SCRIPT: &str = "echo,typing,scroll,slideshow,banner_ticker";
/// Seconds per phase: 10 s is 500 frames at 20 ms, enough for a frame rate and a drop share,
/// and keeps the default script under a minute.
pub const RDP_SERVE_PHASE_SECS: f64 = 10.0;
/// Seconds a client has for the whole connection sequence (TLS, NLA, capabilities). Real
/// clients take well under one on a LAN (they ask for a password before they connect, so no
/// person is waited for inside it); 10 s leaves room for a slow link and a slow client.
pub const RDP_HANDSHAKE_DEADLINE_SECS: f64 = 10.0;
/// `--gfx`: frames the server lets a client's graphics pipeline hold unacknowledged before it
/// drops (coalesces) frames: two, as a compositor double-buffers, so a slow client shows as
/// dropped frames and a lower acknowledged rate rather than as a growing queue.
pub const RDP_GFX_MAX_IN_FLIGHT: usize = 2;
