//! Connecting to a real RDP server with IronRDP's connector: X.224 negotiation, TLS (the
//! certificate judged by [`crate::trust`] before any credential leaves), NLA/CredSSP, MCS/GCC,
//! licensing and capabilities. What the server presented is kept for the record; each way a
//! connection can fail is its own [`ConnectError`] kind.

use crate::trust::{Credentials, Target, Trust, TrustVerdict, check, fingerprint};
use ironrdp_connector::{ClientConnector, ClientConnectorState, ConnectionResult, ConnectorErrorKind};
use ironrdp_pdu::gcc::{ConnectionType, KeyboardType};
use ironrdp_pdu::rdp::capability_sets::{BitmapCodecs, MajorPlatformType};
use ironrdp_pdu::rdp::client_info::{CompressionType as IronCompression, PerformanceFlags, TimezoneInfo};
use latlab_sys::clock::thread_cpu_now;
use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;
use thiserror::Error;

/// How long the TCP connect and each read of the connection sequence may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a connection failed, by kind: each has its own exit code in the binary.
#[derive(Debug, Error)]
pub enum ConnectError {
    /// Nothing answered: name resolution, refused or timed-out TCP connect.
    #[error("cannot reach {0}: {1}")]
    Unreachable(String, String),
    /// Something answered but does not speak RDP (or dropped the connection at once).
    #[error("{0} does not speak RDP: {1}")]
    NotRdp(String, String),
    /// The server refused the credentials.
    #[error("{0} refused the credentials: {1}")]
    Auth(String, String),
    /// The certificate does not match the known-hosts file (or that file does not read).
    #[error(transparent)]
    Certificate(crate::trust::TrustError),
    /// No credentials were given and none could be asked for.
    #[error(transparent)]
    NoCredentials(crate::trust::TrustError),
    /// The connection sequence failed for another reason.
    #[error("RDP connection to {0} failed: {1}")]
    Protocol(String, String),
}

/// What the client asks for.
#[derive(Debug, Clone)]
pub struct ClientSettings {
    /// Desktop width and height asked for (the server may give another).
    pub desktop: (u16, u16),
    /// Colour depth asked for: 15, 16 or 24 (latlab's decoder draws 8, 16 and 24).
    pub bpp: u32,
    /// Bulk compression offered, if any.
    pub compression: Option<latlab_rdp::CompressionType>,
}

/// The server as it presented itself.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ServerIdentity {
    /// The target as given.
    pub target: String,
    /// The security protocol the server selected (X.224 negotiation): `ssl`, `hybrid` (NLA)…
    pub security: String,
    /// TLS version and cipher suite.
    pub tls: String,
    /// The certificate's subject.
    pub cert_subject: String,
    /// The certificate's SHA-256 fingerprint.
    pub cert_fingerprint: String,
    /// What the known-hosts check found.
    pub trust: String,
    /// Desktop width and height the server gave.
    pub desktop: (u16, u16),
    /// Colour depth of the session.
    pub bpp: u32,
    /// Bulk compression negotiated (`none`, `mppc8`, `mppc64`, `ncrush`, `xcrush`).
    pub compression: String,
    /// Static virtual channels joined.
    pub channels: Vec<String>,
    /// Whether the server accepts fast-path input.
    pub fastpath_input: bool,
    /// The RDP version in the server's core data, if it could be read.
    pub rdp_version: Option<String>,
}

/// Byte and CPU counts of the socket under TLS.
#[derive(Debug, Default, Clone, Copy)]
pub struct WireCounts {
    /// TLS bytes read and written.
    pub bytes_in: u64,
    /// See `bytes_in`.
    pub bytes_out: u64,
    /// CPU time inside the socket reads, nanoseconds (the receive stage).
    pub read_ns: u64,
}

/// The TCP socket, counting what crosses it.
pub struct Wire {
    /// The socket.
    pub tcp: TcpStream,
    /// What crossed it.
    pub counts: WireCounts,
}

impl Read for Wire {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let t = thread_cpu_now();
        let r = self.tcp.read(buf);
        self.counts.read_ns += thread_cpu_now().saturating_sub(t);
        if let Ok(n) = r {
            self.counts.bytes_in += n as u64;
        }
        r
    }
}

impl Write for Wire {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.tcp.write(buf)?;
        self.counts.bytes_out += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.tcp.flush()
    }
}

/// The TLS stream of a connection.
pub type Tls = rustls::StreamOwned<rustls::ClientConnection, Wire>;

/// The TLS stream, noting whether a TPKT (an MCS PDU, after CredSSP's DER messages) was sent.
struct Watch {
    inner: Tls,
    tpkt_sent: bool,
    /// What the server sent after latlab's first TPKT (the MCS Connect Initial), up to the end of
    /// its first frame: the MCS Connect Response, with the server's core data.
    reply: Vec<u8>,
}

/// The most of a server's first MCS frame kept (a Connect Response is a few hundred bytes).
const REPLY_MAX: usize = 16 * 1024;

impl Read for Watch {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let whole =
            self.reply.len() >= 4 && self.reply.len() >= u16::from_be_bytes([self.reply[2], self.reply[3]]) as usize;
        if self.tpkt_sent && !whole && self.reply.len() < REPLY_MAX {
            self.reply.extend_from_slice(&buf[..n.min(REPLY_MAX - self.reply.len())]);
        }
        Ok(n)
    }
}

/// The RDP version a server gave in its core data (MS-RDPBCGR 2.2.1.4.2), read from its MCS
/// Connect Response: "RDP 10.12", "RDP 5.0 to 8.1" (one value for all of those); `None` when
/// `frame` is not one.
pub fn server_rdp_version(frame: &[u8]) -> Option<String> {
    use ironrdp_pdu::x224::{X224, X224Data};
    let data = ironrdp_core::decode::<X224<X224Data<'_>>>(frame).ok()?.0;
    let response = ironrdp_core::decode::<ironrdp_pdu::mcs::ConnectResponse>(data.data.as_ref()).ok()?;
    Some(rdp_version_name(response.conference_create_response.gcc_blocks().core.version.0))
}

/// The name of an `rdpVersion` value.
fn rdp_version_name(v: u32) -> String {
    match v {
        0x0008_0001 => "RDP 4.0".into(),
        0x0008_0004 => "RDP 5.0 to 8.1".into(),
        0x0008_0005 => "RDP 10.0".into(),
        0x0008_0006..=0x0008_00FF => format!("RDP 10.{}", v - 0x0008_0005),
        _ => format!("0x{v:08X} (not a version MS-RDPBCGR names)"),
    }
}

impl Write for Watch {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.tpkt_sent |= buf.first() == Some(&3);
        self.inner.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// An open, activated connection.
pub struct Connection {
    /// The TLS stream.
    pub tls: Tls,
    /// Bytes already read past the connection sequence.
    pub leftover: Vec<u8>,
    /// IronRDP's result of the connection sequence (channels, ids, compression).
    pub result: ConnectionResult,
    /// The server as it presented itself.
    pub server: ServerIdentity,
}

fn to_iron(c: latlab_rdp::CompressionType) -> IronCompression {
    match c {
        latlab_rdp::CompressionType::Mppc8k => IronCompression::K8,
        latlab_rdp::CompressionType::Mppc64k => IronCompression::K64,
        latlab_rdp::CompressionType::Ncrush => IronCompression::Rdp6,
        latlab_rdp::CompressionType::Xcrush => IronCompression::Rdp61,
    }
}

/// latlab's compression type for IronRDP's.
pub fn from_iron(c: IronCompression) -> latlab_rdp::CompressionType {
    match c {
        IronCompression::K8 => latlab_rdp::CompressionType::Mppc8k,
        IronCompression::K64 => latlab_rdp::CompressionType::Mppc64k,
        IronCompression::Rdp6 => latlab_rdp::CompressionType::Ncrush,
        IronCompression::Rdp61 => latlab_rdp::CompressionType::Xcrush,
    }
}

fn config(s: &ClientSettings) -> ironrdp_connector::Config {
    ironrdp_connector::Config {
        desktop_size: ironrdp_connector::DesktopSize { width: s.desktop.0, height: s.desktop.1 },
        monitor_layout: None,
        desktop_scale_factor: 0,
        desktop_physical_size: None,
        desktop_orientation: None,
        device_scale_factor: None,
        monitor_extended_layout: None,
        relative_mouse_input: false,
        enable_tls: true,
        enable_credssp: true,
        enable_standard_rdp_security: false,
        credentials: ironrdp_connector::Credentials::UsernamePassword {
            username: String::new(),
            password: String::new(),
        },
        domain: None,
        client_build: 0,
        client_name: "latlab".to_owned(),
        keyboard_type: KeyboardType::IBM_ENHANCED,
        keyboard_subtype: 0,
        keyboard_functional_keys_count: 12,
        keyboard_layout: 0x0409,
        connection_type: ConnectionType::Lan,
        ime_file_name: String::new(),
        bitmap: Some(ironrdp_connector::BitmapConfig {
            lossy_compression: false,
            color_depth: s.bpp,
            codecs: BitmapCodecs(Vec::new()),
        }),
        dig_product_id: String::new(),
        client_dir: String::new(),
        alternate_shell: String::new(),
        work_dir: String::new(),
        remote_application_mode: false,
        rail_support_level: ironrdp_pdu::rdp::capability_sets::RailSupportLevel::empty(),
        platform: MajorPlatformType::UNIX,
        hardware_id: None,
        request_data: None,
        autologon: true,
        enable_audio_playback: false,
        enable_audio_capture: false,
        performance_flags: PerformanceFlags::default(),
        license_cache: None,
        timezone_info: TimezoneInfo::default(),
        compression_type: s.compression.map(to_iron),
        enable_server_pointer: true,
        pointer_software_rendering: false,
        multitransport_flags: None,
        support_dyn_vc_gfx_protocol: false,
    }
}

/// Kerberos needs a KDC; latlab speaks NTLM inside CredSSP only.
struct NoKdc;
impl ironrdp_connector::sspi::network_client::NetworkClient for NoKdc {
    fn send(&self, _: &ironrdp_connector::sspi::generator::NetworkRequest) -> ironrdp_connector::sspi::Result<Vec<u8>> {
        Err(ironrdp_connector::sspi::Error::new(
            ironrdp_connector::sspi::ErrorKind::NoAuthenticatingAuthority,
            "latlab authenticates with NTLM; Kerberos (a KDC) is not supported",
        ))
    }
}

/// Accepts any certificate during the handshake: RDP servers' certificates are mostly
/// self-signed, and [`check`] judges the fingerprint before any credential is sent.
#[derive(Debug)]
struct AfterHandshake(Arc<rustls::crypto::CryptoProvider>);

impl rustls::client::danger::ServerCertVerifier for AfterHandshake {
    fn verify_server_cert(
        &self,
        _: &rustls::pki_types::CertificateDer<'_>,
        _: &[rustls::pki_types::CertificateDer<'_>],
        _: &rustls::pki_types::ServerName<'_>,
        _: &[u8],
        _: rustls::pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        Ok(rustls::client::danger::ServerCertVerified::assertion())
    }
    fn verify_tls12_signature(
        &self,
        m: &[u8],
        c: &rustls::pki_types::CertificateDer<'_>,
        d: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(m, c, d, &self.0.signature_verification_algorithms)
    }
    fn verify_tls13_signature(
        &self,
        m: &[u8],
        c: &rustls::pki_types::CertificateDer<'_>,
        d: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(m, c, d, &self.0.signature_verification_algorithms)
    }
    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// An error and its causes, joined by ": ", without the source locations IronRDP puts in its
/// contexts (`[read frame by hint @ /root/.cargo/registry/…/connector.rs:234]`: the build
/// machine's paths, nothing a user can act on).
fn chain(e: &ironrdp_connector::ConnectorError) -> String {
    let mut s = format!("{e:#}");
    let mut src = std::error::Error::source(e);
    while let Some(x) = src {
        s.push_str(": ");
        s.push_str(&x.to_string());
        src = x.source();
    }
    without_locations(&s)
}

/// `[what @ path:line] rest` → `what: rest`, wherever it occurs.
fn without_locations(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find(']').map(|c| open + c) else { break };
        let inner = &rest[open + 1..close];
        out.push_str(&rest[..open]);
        match inner.split_once(" @ ") {
            Some((what, _where)) => {
                out.push_str(what);
                out.push(':');
            }
            None => out.push_str(&rest[open..=close]),
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

fn classify(target: &str, e: ironrdp_connector::ConnectorError) -> ConnectError {
    let chain = chain(&e);
    match e.kind() {
        ConnectorErrorKind::Credssp(_) | ConnectorErrorKind::AccessDenied => ConnectError::Auth(target.into(), chain),
        _ if chain.contains("LogonFailure") || chain.contains("logon failure") => {
            ConnectError::Auth(target.into(), chain)
        }
        ConnectorErrorKind::Decode(_) => ConnectError::NotRdp(target.into(), chain),
        _ => ConnectError::Protocol(target.into(), chain),
    }
}

/// Connect, authenticate and activate. `creds` is called only once the certificate passed.
pub fn connect(
    target: &Target,
    trust: &Trust,
    creds: impl FnOnce() -> Result<Credentials, crate::trust::TrustError>,
    settings: &ClientSettings,
) -> Result<Connection, ConnectError> {
    let name = target.to_string();
    let unreachable = |e: &dyn std::fmt::Display| ConnectError::Unreachable(name.clone(), e.to_string());
    let addr = (target.host.as_str(), target.port)
        .to_socket_addrs()
        .map_err(|e| unreachable(&e))?
        .next()
        .ok_or_else(|| unreachable(&"no address"))?;
    let tcp = TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT).map_err(|e| unreachable(&e))?;
    connect_over(tcp, target, trust, creds, settings)
}

/// [`connect`] over a TCP connection already made (through a shaped link's relay, say) to
/// the server `target` names.
pub fn connect_over(
    tcp: TcpStream,
    target: &Target,
    trust: &Trust,
    creds: impl FnOnce() -> Result<Credentials, crate::trust::TrustError>,
    settings: &ClientSettings,
) -> Result<Connection, ConnectError> {
    let name = target.to_string();
    let unreachable = |e: &dyn std::fmt::Display| ConnectError::Unreachable(name.clone(), e.to_string());
    tcp.set_read_timeout(Some(CONNECT_TIMEOUT)).map_err(|e| unreachable(&e))?;
    tcp.set_nodelay(true).map_err(|e| unreachable(&e))?;
    let client_addr = tcp.local_addr().map_err(|e| unreachable(&e))?;

    // Credentials are asked for after the certificate is judged: the connector begins with
    // none (no user name in the X.224 cookie) and is given them before CredSSP.
    let mut framed = ironrdp_blocking::Framed::new(Wire { tcp, counts: WireCounts::default() });
    let mut connector = ClientConnector::new(config(settings), client_addr);
    // Before TLS only the X.224 negotiation runs: a failure there other than a refusal the
    // protocol itself states means the peer does not speak RDP.
    let should_upgrade = ironrdp_blocking::connect_begin(&mut framed, &mut connector).map_err(|e| match e.kind() {
        ConnectorErrorKind::Negotiation(_) => classify(&name, e),
        _ => ConnectError::NotRdp(name.clone(), chain(&e)),
    })?;
    let security = match &connector.state {
        ClientConnectorState::EnhancedSecurityUpgrade { selected_protocol } => format!("{selected_protocol}"),
        other => format!("{other:?}"),
    };
    let wire = framed.into_inner_no_leftover();

    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut tls_config = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| ConnectError::Protocol(name.clone(), e.to_string()))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(AfterHandshake(provider)))
        .with_no_client_auth();
    // CredSSP does not allow TLS session resumption (MS-CSSP 3.1.5).
    tls_config.resumption = rustls::client::Resumption::disabled();
    let server_name = rustls::pki_types::ServerName::try_from(target.host.clone())
        .map_err(|e| ConnectError::Protocol(name.clone(), e.to_string()))?;
    let conn = rustls::ClientConnection::new(Arc::new(tls_config), server_name)
        .map_err(|e| ConnectError::Protocol(name.clone(), e.to_string()))?;
    let mut tls = rustls::StreamOwned::new(conn, wire);
    tls.flush().map_err(|e| ConnectError::Protocol(name.clone(), format!("TLS handshake: {e}")))?;
    while tls.conn.is_handshaking() {
        tls.conn
            .complete_io(&mut tls.sock)
            .map_err(|e| ConnectError::Protocol(name.clone(), format!("TLS handshake: {e}")))?;
    }
    let cert = tls
        .conn
        .peer_certificates()
        .and_then(|c| c.first())
        .ok_or_else(|| ConnectError::Protocol(name.clone(), "the server sent no certificate".into()))?
        .to_vec();
    let fp = fingerprint(&cert);
    let verdict = check(trust, target, &fp).map_err(ConnectError::Certificate)?;
    if verdict == TrustVerdict::Added {
        eprintln!("latlab: trusting {name} on first use: certificate {fp}");
    }
    let tls_name = format!(
        "{:?} {:?}",
        tls.conn.protocol_version().map(|v| format!("{v:?}")).unwrap_or_default(),
        tls.conn.negotiated_cipher_suite().map(|c| format!("{:?}", c.suite())).unwrap_or_default()
    )
    .replace('"', "");
    use x509_cert::der::Decode;
    let parsed = x509_cert::Certificate::from_der(&cert)
        .map_err(|e| ConnectError::Protocol(name.clone(), format!("server certificate: {e}")))?;
    let subject = parsed.tbs_certificate().subject().to_string();
    let public_key = parsed
        .tbs_certificate()
        .subject_public_key_info()
        .subject_public_key
        .as_bytes()
        .ok_or_else(|| ConnectError::Protocol(name.clone(), "certificate public key is not whole bytes".into()))?
        .to_vec();

    let creds = creds().map_err(ConnectError::NoCredentials)?;
    connector.config.credentials =
        ironrdp_connector::Credentials::UsernamePassword { username: creds.user, password: creds.password };
    connector.config.domain = creds.domain;
    let upgraded = ironrdp_blocking::mark_as_upgraded(should_upgrade, &mut connector);
    let nla = connector.should_perform_credssp();
    let mut framed = ironrdp_blocking::Framed::new(Watch { inner: tls, tpkt_sent: false, reply: Vec::new() });
    let outcome = ironrdp_blocking::connect_finalize(
        upgraded,
        connector,
        &mut framed,
        &mut NoKdc,
        target.host.clone().into(),
        public_key,
        None,
    )
    .map_err(|e| {
        // A server that refuses NLA credentials often just closes the connection: if it did
        // so before latlab sent its first MCS PDU, CredSSP is where it stopped.
        let in_credssp = nla && !framed.get_inner().0.tpkt_sent;
        let chain = chain(&e);
        if in_credssp
            && (chain.contains("not enough bytes") || chain.contains("UnexpectedEof") || chain.contains("reset"))
        {
            ConnectError::Auth(name.clone(), format!("the server closed the connection during NLA (CredSSP): {chain}"))
        } else {
            classify(&name, e)
        }
    })?;
    let result = outcome.into_connected().map_err(|e| classify(&name, e))?;
    let (watch, leftover) = framed.into_inner();
    let tls = watch.inner;
    let server = ServerIdentity {
        target: name,
        security,
        tls: tls_name,
        cert_subject: subject,
        cert_fingerprint: fp,
        trust: verdict.name().into(),
        desktop: (result.desktop_size.width, result.desktop_size.height),
        bpp: settings.bpp,
        compression: result.compression_type.map_or("none", |c| from_iron(c).name()).into(),
        channels: result.static_channels.iter().map(|(_, c)| format!("{:?}", c.channel_name())).collect(),
        fastpath_input: !result.input_flags.is_empty(),
        rdp_version: server_rdp_version(&watch.reply),
    };
    Ok(Connection { tls, leftover: leftover.to_vec(), result, server })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ironrdps_source_locations_are_left_out() {
        assert_eq!(
            without_locations(
                "[read frame by hint @ /root/.cargo/registry/src/x/ironrdp-blocking-0.12.0/src/connector.rs:234] custom error: not enough bytes"
            ),
            "read frame by hint: custom error: not enough bytes"
        );
        assert_eq!(
            without_locations("[TPKT version] unsupported version (83)"),
            "[TPKT version] unsupported version (83)"
        );
        assert_eq!(without_locations("no brackets [open"), "no brackets [open");
    }

    #[test]
    fn rdp_versions_are_named_as_ms_rdpbcgr_names_them_and_garbage_is_none() {
        assert_eq!(rdp_version_name(0x0008_0001), "RDP 4.0");
        assert_eq!(rdp_version_name(0x0008_0004), "RDP 5.0 to 8.1");
        assert_eq!(rdp_version_name(0x0008_0005), "RDP 10.0");
        assert_eq!(rdp_version_name(0x0008_0011), "RDP 10.12");
        assert!(rdp_version_name(7).contains("not a version"));
        assert_eq!(server_rdp_version(&[]), None);
        assert_eq!(server_rdp_version(&[3, 0, 0, 7, 2, 0xF0, 0x80]), None);
        assert_eq!(server_rdp_version(&[0x30, 0x82, 1, 2, 3]), None);
    }
}
