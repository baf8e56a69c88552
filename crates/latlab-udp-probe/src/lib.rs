//! The UDP probe `latlab udp` and `latlab monitor` both send: its packet (sequence number,
//! send time, optional HMAC), a socket that reads the kernel's receive timestamps, and a peer
//! that sends probes to a reflector and takes their replies; and how a peer's address is read.
//!
//! | file | holds |
//! |---|---|
//! | `defaults.rs` | Every default of the probe, with the reason it has that value |
//! | `peer.rs` | a peer: probes to a reflector, replies with their round trip |
//! | `socket.rs` | a UDP socket with kernel receive timestamps |
//! | `wire.rs` | the probe packet on the wire |
#![forbid(unsafe_code)]

pub mod defaults;
pub mod peer;
pub mod socket;
pub mod wire;

/// Default UDP port of `latlab udp serve` ([`defaults::PORT`]).
pub const DEFAULT_PORT: u16 = defaults::PORT;

/// Why a peer's address could not be found.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    /// The name did not resolve.
    #[error("cannot resolve '{host}'")]
    Lookup {
        /// The name as given.
        host: String,
        /// The resolver's error.
        #[source]
        source: std::io::Error,
    },
    /// The name resolved to nothing.
    #[error("'{0}' resolves to no address")]
    Nothing(String),
}

/// A peer's address from `HOST`, `HOST:PORT`, `V6` or `[V6]:PORT`, with [`DEFAULT_PORT`] when none
/// is given; the first address a name resolves to.
pub fn resolve(host: &str) -> Result<std::net::SocketAddr, ResolveError> {
    use std::net::{SocketAddr, ToSocketAddrs};
    // Already has a port: an IP socket address, `[v6]:port`, or `name:port`.
    let has_port =
        host.parse::<SocketAddr>().is_ok() || host.starts_with('[') || (host.contains(':') && !host.contains("::"));
    let with_port = if has_port {
        host.to_string()
    } else if host.parse::<std::net::Ipv6Addr>().is_ok() {
        format!("[{host}]:{DEFAULT_PORT}")
    } else {
        format!("{host}:{DEFAULT_PORT}")
    };
    with_port
        .to_socket_addrs()
        .map_err(|source| ResolveError::Lookup { host: host.to_string(), source })?
        .next()
        .ok_or_else(|| ResolveError::Nothing(host.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_get_the_default_port() {
        assert_eq!(resolve("127.0.0.1").unwrap().to_string(), "127.0.0.1:4848");
        assert_eq!(resolve("127.0.0.1:9").unwrap().to_string(), "127.0.0.1:9");
        assert_eq!(resolve("::1").unwrap().to_string(), "[::1]:4848");
        assert_eq!(resolve("[::1]:9").unwrap().to_string(), "[::1]:9");
        assert_eq!(resolve("198.18.0.2").unwrap().port(), 4848);
    }
}
