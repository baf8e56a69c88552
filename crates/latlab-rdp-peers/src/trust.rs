//! Whom latlab's RDP client talks to and as whom: the target (`HOST[:PORT]`), the credentials
//! (a file, the environment or a prompt, never only the command line) and the server's
//! certificate checked against a file of known hosts (trust on first use) or, with
//! `--insecure`, accepted unseen.

use sha2::{Digest, Sha256};
use std::fmt;
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};

/// The RDP port servers listen on unless told otherwise (MS-RDPBCGR 1.3.1.1: TCP 3389).
pub const DEFAULT_PORT: u16 = 3389;
/// The environment variables credentials are read from.
pub const ENV_USER: &str = "LATLAB_RDP_USER";
/// See [`ENV_USER`].
pub const ENV_PASSWORD: &str = "LATLAB_RDP_PASSWORD";
/// See [`ENV_USER`].
pub const ENV_DOMAIN: &str = "LATLAB_RDP_DOMAIN";

/// A server: host name or address, and port.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Target {
    /// Host name or address as given (an IPv6 address without its brackets).
    pub host: String,
    /// TCP port.
    pub port: u16,
}

impl Target {
    /// Parse `HOST`, `HOST:PORT`, `[V6]` or `[V6]:PORT`.
    pub fn parse(s: &str) -> Result<Self, latlab_model::ConfigError> {
        let bad = || format!("--rdp {s:?}: expected HOST[:PORT] (an IPv6 address in brackets)");
        let (host, port) = if let Some(rest) = s.strip_prefix('[') {
            let (h, tail) = rest.split_once(']').ok_or_else(bad)?;
            match tail {
                "" => (h, None),
                t => (h, Some(t.strip_prefix(':').ok_or_else(bad)?)),
            }
        } else {
            match s.rsplit_once(':') {
                Some((h, p)) if !h.contains(':') => (h, Some(p)),
                Some(_) => return Err(bad().into()),
                None => (s, None),
            }
        };
        if host.is_empty() || host.contains(char::is_whitespace) {
            return Err(bad().into());
        }
        let port = match port {
            None => DEFAULT_PORT,
            Some(p) => p.parse::<u16>().ok().filter(|p| *p != 0).ok_or_else(bad)?,
        };
        Ok(Self { host: host.to_owned(), port })
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

/// A user name, password and optional domain. The password is never stored or printed.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    /// User name (may be empty for a server that asks for none).
    pub user: String,
    /// Password.
    pub password: String,
    /// Windows domain, if any.
    pub domain: Option<String>,
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Credentials {{ user: {:?}, domain: {:?}, password: <hidden> }}", self.user, self.domain)
    }
}

/// Where the credentials came from, for the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CredentialSource {
    /// `--rdp-credentials FILE`.
    File,
    /// The `LATLAB_RDP_*` variables.
    Environment,
    /// Asked on the terminal.
    Prompt,
}

impl From<latlab_keyscreen::local::Account> for Credentials {
    fn from(a: latlab_keyscreen::local::Account) -> Self {
        Self { user: a.user, password: a.password, domain: None }
    }
}

/// Why credentials or a certificate could not be trusted or found.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    /// A credentials or known-hosts file could not be read or written.
    #[error(transparent)]
    Io(#[from] latlab_sys::ioerr::IoFailed),
    /// A credentials or known-hosts file that does not read, or that others can read.
    #[error("{0}")]
    File(String),
    /// The certificate differs from the one known for the host.
    #[error("{0}")]
    Changed(String),
    /// No credentials were given and none could be asked for.
    #[error("{0}")]
    NoCredentials(String),
}

impl Credentials {
    /// Read a credentials file: `user=`, `password=` and optional `domain=` lines (`#` starts a
    /// comment). A file others can read is refused: it holds a password.
    pub fn from_file(path: &Path) -> Result<Self, TrustError> {
        use latlab_sys::ioerr::Doing;
        use std::os::unix::fs::PermissionsExt;
        let meta = std::fs::metadata(path).doing(format!("credentials file {}", path.display()))?;
        if meta.permissions().mode() & 0o077 != 0 {
            return Err(TrustError::File(format!(
                "credentials file {} can be read by others (mode {:o}): chmod 600 it",
                path.display(),
                meta.permissions().mode() & 0o777
            )));
        }
        let text = std::fs::read_to_string(path).doing(format!("credentials file {}", path.display()))?;
        Self::parse(&text).map_err(|e| TrustError::File(format!("credentials file {}: {e}", path.display())))
    }

    /// Parse the text of a credentials file.
    pub fn parse(text: &str) -> Result<Self, latlab_model::ConfigError> {
        let (mut user, mut password, mut domain) = (None, None, None);
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (k, v) = line.split_once('=').ok_or(format!("line {}: expected key=value", n + 1))?;
            let slot = match k.trim() {
                "user" | "username" => &mut user,
                "password" => &mut password,
                "domain" => &mut domain,
                other => return Err(format!("line {}: unknown key {other:?} (user, password, domain)", n + 1).into()),
            };
            *slot = Some(v.trim().to_owned());
        }
        Ok(Self {
            user: user.ok_or("no user= line")?,
            password: password.ok_or("no password= line")?,
            domain: domain.filter(|d| !d.is_empty()),
        })
    }

    /// The credentials from `LATLAB_RDP_USER` / `_PASSWORD` / `_DOMAIN`, if the first two are set.
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Option<Self> {
        Some(Self {
            user: get(ENV_USER)?,
            password: get(ENV_PASSWORD)?,
            domain: get(ENV_DOMAIN).filter(|d| !d.is_empty()),
        })
    }

    /// Find credentials: the file if given, else the environment, else a prompt on the terminal
    /// (refused when stdin is not a terminal, so a script never hangs).
    pub fn resolve(file: Option<&Path>) -> Result<(Self, CredentialSource), TrustError> {
        use latlab_sys::ioerr::Doing;
        if let Some(f) = file {
            return Ok((Self::from_file(f)?, CredentialSource::File));
        }
        if let Some(c) = Self::from_env(|k| std::env::var(k).ok()) {
            return Ok((c, CredentialSource::Environment));
        }
        use std::io::IsTerminal;
        if !io::stdin().is_terminal() {
            return Err(TrustError::NoCredentials(format!(
                "no RDP credentials: give --rdp-credentials FILE (user=, password=, domain= lines, mode 600) \
                 or set {ENV_USER} and {ENV_PASSWORD}"
            )));
        }
        let mut err = io::stderr();
        write!(err, "RDP user: ").and_then(|_| err.flush()).doing("asking for the RDP user")?;
        let mut user = String::new();
        io::stdin().lock().read_line(&mut user).doing("reading the RDP user")?;
        let password = rpassword::prompt_password("RDP password: ").doing("reading the RDP password")?;
        Ok((Self { user: user.trim().to_owned(), password, domain: None }, CredentialSource::Prompt))
    }
}

/// How the server's certificate is judged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trust {
    /// Checked against this known-hosts file; an unknown server is added (trust on first use).
    KnownHosts(PathBuf),
    /// Accepted unseen (`--insecure`).
    Insecure,
    /// Only this certificate (`sha256:` fingerprint): a server latlab started here, whose
    /// certificate it read from the server's own files; nothing is written to a known-hosts file.
    Pinned(String),
}

/// What the known-hosts check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrustVerdict {
    /// The certificate is the one on file.
    Known,
    /// The server was not on file; its certificate was added.
    Added,
    /// `--insecure`: not checked.
    Unchecked,
    /// The certificate latlab read from the server it started.
    Pinned,
}

impl TrustVerdict {
    /// The name in records.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Known => "known_host",
            Self::Added => "trusted_on_first_use",
            Self::Unchecked => "insecure_unchecked",
            Self::Pinned => "pinned_local_server",
        }
    }
}

/// The default known-hosts file: `$XDG_CONFIG_HOME/latlab/rdp_known_hosts`, else
/// `~/.config/latlab/rdp_known_hosts`.
pub fn default_known_hosts() -> PathBuf {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
        .unwrap_or_else(|| PathBuf::from("."));
    base.join("latlab").join("rdp_known_hosts")
}

/// Whether a known-hosts file can be read and, for a server not on it yet, added to: checked
/// before a run measures, so a run does not end at its first connection for want of a file.
pub fn check_usable(path: &Path) -> Result<(), TrustError> {
    use latlab_sys::ioerr::{Doing, IoFailed};
    match std::fs::read_to_string(path) {
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(IoFailed::new(format!("known hosts {}", path.display()), e).into()),
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).doing(format!("known hosts: making {}", dir.display()))?;
    let target = if path.exists() { path } else { dir };
    nix::unistd::access(target, nix::unistd::AccessFlags::W_OK).map_err(|e| {
        TrustError::File(format!(
            "known hosts: {} cannot be written ({e}): give --known-hosts a file you may write, or --insecure",
            target.display()
        ))
    })
}

/// The fingerprint of the first certificate in a PEM file (a server's own certificate, which
/// latlab pins for a server it started).
pub fn pem_fingerprint(path: &Path) -> Result<String, TrustError> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    let der = CertificateDer::from_pem_file(path)
        .map_err(|e| TrustError::File(format!("the server's certificate {}: {e}", path.display())))?;
    Ok(fingerprint(&der))
}

/// The SHA-256 fingerprint of a DER certificate, as `sha256:` and lowercase hex.
pub fn fingerprint(der: &[u8]) -> String {
    let d = Sha256::digest(der);
    let mut s = String::from("sha256:");
    for b in d {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// Check `fp` for `target` against the policy; a mismatch is an error that says what to do.
pub fn check(trust: &Trust, target: &Target, fp: &str) -> Result<TrustVerdict, TrustError> {
    use latlab_sys::ioerr::{Doing, IoFailed};
    let path = match trust {
        Trust::Insecure => return Ok(TrustVerdict::Unchecked),
        Trust::Pinned(want) if want == fp => return Ok(TrustVerdict::Pinned),
        Trust::Pinned(want) => {
            return Err(TrustError::Changed(format!(
                "{target} is not the server latlab started: its certificate is {fp}, the server's own file says {want}"
            )));
        }
        Trust::KnownHosts(p) => p,
    };
    let key = target.to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(IoFailed::new(format!("known hosts {}", path.display()), e).into()),
    };
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (host, known) = line.split_once(char::is_whitespace).ok_or_else(|| {
            TrustError::File(format!("known hosts {} line {}: expected HOST:PORT sha256:HEX", path.display(), n + 1))
        })?;
        if host == key {
            return if known.trim() == fp {
                Ok(TrustVerdict::Known)
            } else {
                Err(TrustError::Changed(format!(
                    "the certificate of {key} changed: it is {fp}, and {} line {} says {}. If the server \
                     was reinstalled, delete that line; otherwise someone may be in between",
                    path.display(),
                    n + 1,
                    known.trim()
                )))
            };
        }
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).doing(format!("known hosts {}", dir.display()))?;
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .doing(format!("known hosts {}", path.display()))?;
    writeln!(f, "{key} {fp}").doing(format!("known hosts {}", path.display()))?;
    Ok(TrustVerdict::Added)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets() {
        assert_eq!(Target::parse("srv").unwrap(), Target { host: "srv".into(), port: 3389 });
        assert_eq!(Target::parse("10.0.0.1:13389").unwrap().port, 13389);
        assert_eq!(Target::parse("[::1]:5").unwrap(), Target { host: "::1".into(), port: 5 });
        assert_eq!(Target::parse("[::1]").unwrap().to_string(), "[::1]:3389");
        for bad in ["", ":1", "a:b", "a:0", "::1", "[::1", "[::1]x", "a b"] {
            assert!(Target::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn credentials_file_env_and_secrecy() {
        let c = Credentials::parse("# me\nuser = alice\npassword=p=w\ndomain=\n").unwrap();
        assert_eq!((c.user.as_str(), c.password.as_str(), c.domain.clone()), ("alice", "p=w", None));
        assert!(!format!("{c:?}").contains("p=w"), "the password is never printed");
        assert!(Credentials::parse("user=a\n").unwrap_err().to_string().contains("password"));
        assert!(Credentials::parse("user=a\npassword=b\nshell=x\n").unwrap_err().to_string().contains("line 3"));
        let env = |k: &str| match k {
            ENV_USER => Some("bob".into()),
            ENV_PASSWORD => Some("pw".into()),
            _ => None,
        };
        assert_eq!(Credentials::from_env(env).unwrap().user, "bob");
        assert!(Credentials::from_env(|_| None).is_none());
        let dir = std::env::temp_dir().join(format!("latlab-cred-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("c");
        std::fs::write(&f, "user=a\npassword=b\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(Credentials::from_file(&f).unwrap_err().to_string().contains("chmod 600"));
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(Credentials::from_file(&f).unwrap().user, "a");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn trust_on_first_use_then_mismatch() {
        let dir = std::env::temp_dir().join(format!("latlab-kh-{}", std::process::id()));
        let kh = Trust::KnownHosts(dir.join("sub").join("known"));
        let t = Target::parse("srv:3390").unwrap();
        let fp = fingerprint(b"cert one");
        assert_eq!(check(&kh, &t, &fp).ok(), Some(TrustVerdict::Added));
        assert_eq!(check(&kh, &t, &fp).ok(), Some(TrustVerdict::Known));
        let other = Target::parse("srv").unwrap();
        assert_eq!(
            check(&kh, &other, &fingerprint(b"two")).ok(),
            Some(TrustVerdict::Added),
            "another port is another host"
        );
        let err = check(&kh, &t, &fingerprint(b"cert two")).unwrap_err().to_string();
        assert!(err.contains("changed") && err.contains("line 1"), "{err}");
        assert_eq!(check(&Trust::Insecure, &t, "x").ok(), Some(TrustVerdict::Unchecked));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
