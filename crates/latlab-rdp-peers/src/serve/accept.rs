//! A real client's connection sequence, accepted: IronRDP's acceptor (sans-IO state machines)
//! driven on a blocking socket within a deadline, TLS with the kept certificate, NLA
//! (CredSSP/NTLM) when the server has an account and the client asks for it, and what the
//! client announced about itself (name, build, RDP version, screen, colour depth, bulk
//! compression, capability sets) read from the PDUs it sent.

use super::tls::ServerIdentity;
use bytes::BytesMut;
use ironrdp_acceptor::{Acceptor, AcceptorResult, BeginResult, DesktopSize};
use ironrdp_async::{FramedRead, FramedWrite, NetworkClient, StreamWrapper};
use ironrdp_pdu::nego::SecurityProtocol;
use ironrdp_pdu::rdp::capability_sets::{self as caps, CapabilitySet};
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Duration;

/// The TLS stream of an accepted client.
pub type Tls = rustls::StreamOwned<rustls::ServerConnection, TcpStream>;

/// Plaintext the client sent during the sequence kept for reading its announcements (the
/// Connect Initial and Client Info come within the first few KiB).
const TEE_MAX: usize = 64 * 1024;

latlab_model::choice! {
    /// How the graphics pipeline's frames go (`--gfx`): plain regions, or compressed with ZGFX
    /// (MS-RDPEGFX 2.2.5).
    pub enum GfxFrames {
        /// Uncompressed regions.
        Plain = "plain",
        /// ZGFX-compressed regions.
        Zgfx = "zgfx",
    }
}
latlab_model::serialize_by_name!(GfxFrames);

/// What the server offers a client.
#[derive(Debug, Clone)]
pub struct AcceptConfig {
    /// Desktop width, pixels.
    pub width: u16,
    /// Desktop height, pixels.
    pub height: u16,
    /// The session's colour depth (the server's Bitmap capability set).
    pub bpp: u16,
    /// The account NLA checks (and TLS logons must match); none: TLS only, any logon.
    pub account: Option<ironrdp_pdu::rdp::client_info::Credentials>,
    /// Time the whole sequence may take.
    pub deadline: Duration,
    /// Offer the graphics pipeline (RDPGFX) on drdynvc: `Some(zgfx)`, its frames
    /// ZGFX-compressed when true; none: fast-path bitmaps (or orders) only.
    pub gfx: Option<GfxFrames>,
}

/// What the client announced.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ClientIdentity {
    /// Client name (GCC core data).
    pub name: String,
    /// Client build number.
    pub build: u32,
    /// RDP version it speaks (`4`, `5+`, `10.x`…).
    pub rdp_version: String,
    /// Desktop it asked for.
    pub desktop: (u16, u16),
    /// Highest colour depth it asked for.
    pub color_depth: u16,
    /// Bulk compression it offered in Client Info (the highest type it can decompress), if any.
    #[serde(serialize_with = "compression_name")]
    pub compression: Option<latlab_rdp::CompressionType>,
    /// Security the connection uses (`tls` or `nla`).
    pub security: &'static str,
    /// User name it logged on with (never the password).
    pub user: String,
    /// The capability sets it confirmed, by name.
    pub capabilities: Vec<String>,
    /// Fast-path input it can send.
    pub fastpath_input: bool,
    /// Surface commands, bitmap codecs and frame acknowledgement it announced.
    pub codecs: Vec<String>,
}

/// An accepted client: its TLS stream (blocking), what the acceptor settled and what the
/// client said.
pub struct Accepted {
    /// The TLS stream.
    pub tls: Tls,
    /// Bytes already read past the sequence.
    pub leftover: BytesMut,
    /// Channels, capabilities, input that came with the sequence.
    pub result: AcceptorResult,
    /// What the client announced.
    pub client: ClientIdentity,
    /// The graphics pipeline's shared state, when offered.
    pub gfx: Option<Arc<std::sync::Mutex<super::gfx::Shared>>>,
}

/// Why a client was not accepted.
#[derive(Debug, thiserror::Error)]
pub enum AcceptError {
    /// The client did not finish within the deadline.
    #[error("the client did not finish the connection sequence within {0:.0?}")]
    Deadline(Duration),
    /// TLS failed.
    #[error("TLS: {0}")]
    Tls(String),
    /// The sequence failed (a refused logon, a protocol the server does not offer…).
    #[error("connection sequence: {0}")]
    Sequence(String),
}

/// A stream read and written in place, keeping the first 64 KiB it reads.
pub struct Teed<S> {
    inner: S,
    kept: Vec<u8>,
}

impl<S: Read> Read for Teed<S> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let room = TEE_MAX.saturating_sub(self.kept.len()).min(n);
        self.kept.extend_from_slice(&buf[..room]);
        Ok(n)
    }
}

impl<S: Write> Write for Teed<S> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// IronRDP's framing on a blocking stream: each future is ready when made.
pub struct Blocking<S>(S);

impl<S: Read> FramedRead for Blocking<S> {
    type ReadFut<'r>
        = std::future::Ready<io::Result<usize>>
    where
        Self: 'r;
    fn read<'a>(&'a mut self, buf: &'a mut BytesMut) -> Self::ReadFut<'a> {
        let mut chunk = [0u8; 16 * 1024];
        std::future::ready(self.0.read(&mut chunk).inspect(|&n| buf.extend_from_slice(&chunk[..n])))
    }
}

impl<S: Write> FramedWrite for Blocking<S> {
    type WriteAllFut<'w>
        = std::future::Ready<io::Result<()>>
    where
        Self: 'w;
    fn write_all<'a>(&'a mut self, buf: &'a [u8]) -> Self::WriteAllFut<'a> {
        std::future::ready(self.0.write_all(buf).and_then(|_| self.0.flush()))
    }
}

impl<S> StreamWrapper for Blocking<S> {
    type InnerStream = S;
    fn from_inner(stream: S) -> Self {
        Blocking(stream)
    }
    fn into_inner(self) -> S {
        self.0
    }
    fn get_inner(&self) -> &S {
        &self.0
    }
    fn get_inner_mut(&mut self) -> &mut S {
        &mut self.0
    }
}

/// NLA here is NTLM against the server's own account: there is no KDC to reach.
struct NoNetwork;

impl NetworkClient for NoNetwork {
    fn send(
        &mut self,
        _: &ironrdp_connector::sspi::generator::NetworkRequest,
    ) -> impl Future<Output = ironrdp_connector::ConnectorResult<Vec<u8>>> {
        std::future::ready(Err(ironrdp_connector::general_err!("this server does not reach a Kerberos KDC")))
    }
}

/// The capability sets the server announces (Demand Active).
pub fn capabilities(cfg: &AcceptConfig) -> Vec<CapabilitySet> {
    let mut order =
        caps::Order::new(caps::OrderFlags::NEGOTIATE_ORDER_SUPPORT, caps::OrderSupportExFlags::empty(), 0, 0);
    for i in [caps::OrderSupportIndex::PatBlt, caps::OrderSupportIndex::ScrBlt, caps::OrderSupportIndex::MemBlt] {
        order.set_support_flag(i, true);
    }
    vec![
        CapabilitySet::General(caps::General {
            extra_flags: caps::GeneralExtraFlags::FASTPATH_OUTPUT_SUPPORTED,
            refresh_rect_support: true,
            suppress_output_support: true,
            ..Default::default()
        }),
        CapabilitySet::Bitmap(caps::Bitmap {
            pref_bits_per_pix: cfg.bpp,
            desktop_width: cfg.width,
            desktop_height: cfg.height,
            desktop_resize_flag: false,
            drawing_flags: caps::BitmapDrawingFlags::empty(),
        }),
        CapabilitySet::Order(order),
        CapabilitySet::Pointer(caps::Pointer { color_pointer_cache_size: 0, pointer_cache_size: 0 }),
        CapabilitySet::Input(caps::Input {
            input_flags: caps::InputFlags::SCANCODES
                | caps::InputFlags::MOUSEX
                | caps::InputFlags::UNICODE
                | caps::InputFlags::FASTPATH_INPUT
                | caps::InputFlags::FASTPATH_INPUT_2,
            keyboard_layout: 0,
            keyboard_type: None,
            keyboard_subtype: 0,
            keyboard_function_key: 0,
            keyboard_ime_filename: String::new(),
        }),
        CapabilitySet::VirtualChannel(caps::VirtualChannel {
            flags: caps::VirtualChannelFlags::NO_COMPRESSION,
            chunk_size: None,
        }),
        CapabilitySet::MultiFragmentUpdate(caps::MultifragmentUpdate { max_request_size: 8 * 1024 * 1024 }),
    ]
}

/// Accept `tcp`'s client: the whole sequence, within `cfg.deadline` of `started` (when TCP
/// accepted it); `early` is what the front door already read of it (its Connection Request).
pub fn accept(
    tcp: TcpStream,
    early: &[u8],
    started: std::time::Instant,
    cfg: &AcceptConfig,
    id: &ServerIdentity,
    tls: &Arc<rustls::ServerConfig>,
) -> Result<Accepted, AcceptError> {
    let limit = Some(cfg.deadline.saturating_sub(started.elapsed()).max(Duration::from_millis(1)));
    let io = |e: io::Error| -> AcceptError {
        if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) {
            AcceptError::Deadline(cfg.deadline)
        } else {
            AcceptError::Sequence(e.to_string())
        }
    };
    // Each read and write is bounded by the deadline; the whole sequence by the checks between steps.
    tcp.set_read_timeout(limit).map_err(io)?;
    tcp.set_write_timeout(limit).map_err(io)?;
    let _ = tcp.set_nodelay(true);
    let mut security = SecurityProtocol::SSL;
    if cfg.account.is_some() {
        security |= SecurityProtocol::HYBRID | SecurityProtocol::HYBRID_EX;
    }
    let size = DesktopSize { width: cfg.width, height: cfg.height };
    let mut acceptor = Acceptor::new(security, size, capabilities(cfg), cfg.account.clone());
    let gfx = cfg.gfx.map(|frames| {
        let (drdynvc, shared) = super::gfx::channel(frames == GfxFrames::Zgfx);
        acceptor.attach_static_channel(drdynvc);
        shared
    });
    let seq = |e: ironrdp_connector::ConnectorError| -> AcceptError {
        if started.elapsed() >= cfg.deadline {
            AcceptError::Deadline(cfg.deadline)
        } else {
            AcceptError::Sequence(e.report().to_string())
        }
    };
    let framed = ironrdp_async::Framed::<Blocking<TcpStream>>::new_with_leftover(tcp, BytesMut::from(early));
    let tcp = match pollster::block_on(ironrdp_acceptor::accept_begin(framed, &mut acceptor)).map_err(seq)? {
        BeginResult::ShouldUpgrade(tcp) => tcp,
        BeginResult::Continue(_) => {
            return Err(AcceptError::Sequence(
                "the client asked for Standard RDP Security, which this server does not offer: use TLS or NLA".into(),
            ));
        }
    };
    let conn = rustls::ServerConnection::new(tls.clone()).map_err(|e| AcceptError::Tls(e.to_string()))?;
    let mut stream = rustls::StreamOwned::new(conn, tcp);
    while stream.conn.is_handshaking() {
        stream.conn.complete_io(&mut stream.sock).map_err(|e| match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => AcceptError::Deadline(cfg.deadline),
            _ => AcceptError::Tls(e.to_string()),
        })?;
    }
    acceptor.mark_security_upgrade_as_done();
    let mut framed = ironrdp_async::Framed::<Blocking<Teed<Tls>>>::new(Teed { inner: stream, kept: Vec::new() });
    let nla = acceptor.should_perform_credssp();
    if nla {
        pollster::block_on(ironrdp_acceptor::accept_credssp(
            &mut framed,
            &mut acceptor,
            &mut NoNetwork,
            ironrdp_connector::ServerName::new("rdp-client"),
            id.public_key.clone(),
            None,
        ))
        .map_err(seq)?;
    }
    let (framed, result) = pollster::block_on(ironrdp_acceptor::accept_finalize(framed, &mut acceptor)).map_err(seq)?;
    let (teed, leftover) = framed.into_inner();
    let mut client = announced(&teed.kept);
    client.security = if nla { "nla" } else { "tls" };
    if client.user.is_empty()
        && let Some(c) = &result.credentials
    {
        client.user = c.username.clone();
    }
    client.capabilities = result.capabilities.iter().map(capability_name).map(str::to_string).collect();
    for c in &result.capabilities {
        match c {
            CapabilitySet::Input(i) => {
                client.fastpath_input =
                    i.input_flags.intersects(caps::InputFlags::FASTPATH_INPUT | caps::InputFlags::FASTPATH_INPUT_2)
            }
            CapabilitySet::SurfaceCommands(_) => client.codecs.push("surface-commands".into()),
            CapabilitySet::FrameAcknowledge(_) => client.codecs.push("frame-acknowledge".into()),
            CapabilitySet::BitmapCodecs(b) => {
                for codec in &b.0 {
                    client.codecs.push(format!("{:?}", codec.property).split('(').next().unwrap_or("?").to_lowercase());
                }
            }
            _ => {}
        }
    }
    Ok(Accepted { tls: teed.inner, leftover, result, client, gfx })
}

/// A capability set's name.
pub fn capability_name(c: &CapabilitySet) -> &'static str {
    match c {
        CapabilitySet::General(_) => "general",
        CapabilitySet::Bitmap(_) => "bitmap",
        CapabilitySet::Order(_) => "order",
        CapabilitySet::BitmapCache(_) => "bitmap-cache",
        CapabilitySet::BitmapCacheRev2(_) => "bitmap-cache-rev2",
        CapabilitySet::Pointer(_) => "pointer",
        CapabilitySet::Sound(_) => "sound",
        CapabilitySet::Input(_) => "input",
        CapabilitySet::Brush(_) => "brush",
        CapabilitySet::GlyphCache(_) => "glyph-cache",
        CapabilitySet::OffscreenBitmapCache(_) => "offscreen-bitmap-cache",
        CapabilitySet::VirtualChannel(_) => "virtual-channel",
        CapabilitySet::Control(_) => "control",
        CapabilitySet::WindowActivation(_) => "window-activation",
        CapabilitySet::Share(_) => "share",
        CapabilitySet::Font(_) => "font",
        CapabilitySet::BitmapCacheHostSupport(_) => "bitmap-cache-host-support",
        CapabilitySet::DesktopComposition(_) => "desktop-composition",
        CapabilitySet::MultiFragmentUpdate(_) => "multifragment-update",
        CapabilitySet::LargePointer(_) => "large-pointer",
        CapabilitySet::SurfaceCommands(_) => "surface-commands",
        CapabilitySet::BitmapCodecs(_) => "bitmap-codecs",
        CapabilitySet::FrameAcknowledge(_) => "frame-acknowledge",
        CapabilitySet::ColorCache(_) => "color-cache",
        CapabilitySet::DrawNineGridCache(_) => "draw-nine-grid-cache",
        CapabilitySet::DrawGdiPlus(_) => "draw-gdi-plus",
        CapabilitySet::Rail(_) => "rail",
        CapabilitySet::WindowList(_) => "window-list",
        CapabilitySet::BitmapCacheV3(_) => "bitmap-cache-v3",
    }
}

/// What the client announced in the PDUs it sent (`kept`: the plaintext after TLS). CredSSP
/// messages (DER) are stepped over; a PDU that does not read is skipped.
pub fn announced(kept: &[u8]) -> ClientIdentity {
    use ironrdp_core::decode;
    use ironrdp_pdu::x224::{X224, X224Data};
    use ironrdp_pdu::{gcc, mcs};
    let mut id = ClientIdentity::default();
    let mut at = 0;
    while at + 4 <= kept.len() {
        let len = match kept[at] {
            3 => u16::from_be_bytes([kept[at + 2], kept[at + 3]]) as usize,
            0x30 => match der_len(&kept[at..]) {
                Some(n) => n,
                None => break,
            },
            _ => break,
        };
        if len < 4 || at + len > kept.len() {
            break;
        }
        let pdu = &kept[at..at + len];
        at += len;
        if pdu[0] != 3 {
            continue;
        }
        if let Ok(x) = decode::<X224<X224Data<'_>>>(pdu)
            && let Ok(ci) = decode::<mcs::ConnectInitial>(x.0.data.as_ref())
        {
            let core = &ci.conference_create_request.gcc_blocks().core;
            id.name = core.client_name.trim_end_matches('\0').to_string();
            id.build = core.client_build;
            id.rdp_version = match core.version {
                gcc::RdpVersion::V4 => "4".into(),
                gcc::RdpVersion::V5_PLUS => "5+".into(),
                v if v.0 >= gcc::RdpVersion::V10.0 => format!("10.{}", v.0 - gcc::RdpVersion::V10.0),
                v => format!("{:#x}", v.0),
            };
            id.desktop = (core.desktop_width, core.desktop_height);
            id.color_depth = core.optional_data.high_color_depth.map(|d| d as u16).unwrap_or(8);
            continue;
        }
        if let Ok(sd) = decode::<X224<mcs::SendDataRequest<'_>>>(pdu)
            && let Ok(info) = decode::<ironrdp_pdu::rdp::ClientInfoPdu>(sd.0.user_data.as_ref())
        {
            let ci = &info.client_info;
            id.user = ci.credentials.username.clone();
            if ci.flags.contains(ironrdp_pdu::rdp::client_info::ClientInfoFlags::COMPRESSION) {
                use ironrdp_pdu::rdp::client_info::CompressionType as C;
                use latlab_rdp::CompressionType as L;
                id.compression = Some(match ci.compression_type {
                    C::K8 => L::Mppc8k,
                    C::K64 => L::Mppc64k,
                    C::Rdp6 => L::Ncrush,
                    C::Rdp61 => L::Xcrush,
                });
            }
        }
    }
    id
}

fn compression_name<S: serde::Serializer>(c: &Option<latlab_rdp::CompressionType>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(c.map_or("none", |c| c.name()))
}

/// The whole length of a DER element at the start of `b`.
fn der_len(b: &[u8]) -> Option<usize> {
    let l = *b.get(1)? as usize;
    if l < 0x80 {
        return Some(2 + l);
    }
    let n = l & 0x7F;
    if n == 0 || n > 3 {
        return None;
    }
    let mut v = 0usize;
    for i in 0..n {
        v = v << 8 | *b.get(2 + i)? as usize;
    }
    Some(2 + n + v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn der_lengths() {
        assert_eq!(der_len(&[0x30, 0x05]), Some(7));
        assert_eq!(der_len(&[0x30, 0x82, 0x01, 0x00]), Some(4 + 256));
        assert_eq!(der_len(&[0x30, 0x80]), None);
        assert_eq!(der_len(&[0x30]), None);
    }

    #[test]
    fn nothing_readable_is_an_empty_identity() {
        let id = announced(&[3, 0, 0, 9, 1, 2, 3, 4, 5, 0x30, 0x82]);
        assert_eq!(id.name, "");
        assert_eq!(id.compression, None);
        assert_eq!(announced(&[]).build, 0);
    }
}
