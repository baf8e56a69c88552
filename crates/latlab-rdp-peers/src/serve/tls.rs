//! The RDP server's TLS identity: a self-signed certificate made on first start and kept (so
//! a client that pinned it once is not asked again), its SHA-256 fingerprint, and the rustls
//! configuration that presents it.

use super::error::ServeError;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// File of the certificate (DER) in the server's directory.
const CERT_FILE: &str = "cert.der";
/// File of its private key (PKCS #8 DER, mode 600).
const KEY_FILE: &str = "key.der";

/// The certificate the server presents.
#[derive(Clone)]
pub struct ServerIdentity {
    /// The certificate, DER.
    pub cert: Vec<u8>,
    /// Its private key, PKCS #8 DER.
    key: Vec<u8>,
    /// The certificate's subjectPublicKey bits (what CredSSP binds to).
    pub public_key: Vec<u8>,
    /// `sha256:` and the certificate's hash in hex (what a client shows to be checked).
    pub fingerprint: String,
    /// The directory it is kept in.
    pub dir: PathBuf,
    /// Made on this start (false: loaded).
    pub created: bool,
}

impl std::fmt::Debug for ServerIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ServerIdentity {{ {} in {} }}", self.fingerprint, self.dir.display())
    }
}

/// The default directory: `$XDG_CONFIG_HOME/latlab/rdp-server`, else
/// `~/.config/latlab/rdp-server` (beside the client's known hosts).
pub fn default_dir() -> PathBuf {
    crate::trust::default_known_hosts().with_file_name("rdp-server")
}

/// The identity kept in `dir`, or a new one made and kept there.
pub fn load_or_create(dir: &Path) -> Result<ServerIdentity, ServeError> {
    let (cert_path, key_path) = (dir.join(CERT_FILE), dir.join(KEY_FILE));
    let (cert, key, created) = if cert_path.exists() || key_path.exists() {
        let read = |p: &Path| {
            std::fs::read(p).map_err(|e| {
                ServeError::certificate(
                    format!("reading {} (remove the directory to make a new certificate)", p.display()),
                    e,
                )
            })
        };
        (read(&cert_path)?, read(&key_path)?, false)
    } else {
        let names = vec!["latlab".to_string(), "localhost".to_string()];
        let made = rcgen::generate_simple_self_signed(names)
            .map_err(|e| ServeError::certificate("making a certificate", e))?;
        let (cert, key) = (made.cert.der().to_vec(), made.signing_key.serialize_der());
        write_private(dir, &cert_path, &cert)?;
        write_private(dir, &key_path, &key)?;
        (cert, key, true)
    };
    let public_key = public_key_of(&cert).map_err(|e| ServeError::Certificate {
        what: format!("reading {}", cert_path.display()),
        source: Some(e.into()),
    })?;
    Ok(ServerIdentity {
        fingerprint: crate::trust::fingerprint(&cert),
        cert,
        key,
        public_key,
        dir: dir.to_path_buf(),
        created,
    })
}

/// Write `data` to `path` readable by its owner only, making `dir` (mode 700) first.
fn write_private(dir: &Path, path: &Path, data: &[u8]) -> Result<(), ServeError> {
    use latlab_sys::ioerr::Doing;
    use std::io::Write;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).doing(format!("making {}", dir.display()))?;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .doing(format!("creating {}", path.display()))?;
    Ok(f.write_all(data).doing(format!("writing {}", path.display()))?)
}

/// The subjectPublicKey bits of a DER certificate.
pub fn public_key_of(cert: &[u8]) -> Result<Vec<u8>, ServeError> {
    use x509_cert::der::Decode;
    let parsed = x509_cert::Certificate::from_der(cert).map_err(|e| ServeError::certificate("not a certificate", e))?;
    parsed.tbs_certificate().subject_public_key_info().subject_public_key.as_bytes().map(<[u8]>::to_vec).ok_or_else(
        || ServeError::Certificate { what: "the certificate's public key is not whole bytes".into(), source: None },
    )
}

impl ServerIdentity {
    /// The rustls configuration presenting this certificate (TLS 1.2 and 1.3, ring).
    pub fn server_config(&self) -> Result<Arc<rustls::ServerConfig>, ServeError> {
        use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.key.clone()));
        let cfg = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| ServeError::certificate("TLS versions", e))?
            .with_no_client_auth()
            .with_single_cert(vec![CertificateDer::from(self.cert.clone())], key)
            .map_err(|e| {
                ServeError::certificate(
                    format!("the kept certificate and key do not go together: remove {}", self.dir.display()),
                    e,
                )
            })?;
        Ok(Arc::new(cfg))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn made_once_then_kept() {
        let dir = std::env::temp_dir().join(format!("latlab-rdp-id-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let a = load_or_create(&dir).unwrap();
        assert!(a.created);
        let b = load_or_create(&dir).unwrap();
        assert!(!b.created);
        assert_eq!(a.fingerprint, b.fingerprint);
        assert!(a.fingerprint.starts_with("sha256:") && a.fingerprint.len() == 7 + 64);
        assert!(!a.public_key.is_empty());
        a.server_config().unwrap();
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.join(KEY_FILE)).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "the key is readable by others: {mode:o}");
        // A broken certificate is named, not replaced.
        std::fs::write(dir.join(CERT_FILE), b"junk").unwrap();
        let e = load_or_create(&dir).unwrap_err().to_string();
        assert!(e.contains("cert.der"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
