//! A real server reached through a shaped link: latlab's client connects from the client
//! namespace of a [`NetLab`] to a relay listening in its server namespace, and the relay
//! carries each byte on to the server over this machine's own network. Every byte between
//! client and server crosses the shaped veth, whatever the server is (one started here, or
//! one across the network). Sockets keep the namespace they were made in, so each end is made
//! inside its namespace and the thread goes back home at once.

use latlab_sys::netlab::{NetLab, SERVER_ADDR, enter};
use std::io;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

/// Run `f` with this thread in network namespace `ns`, then return to the one it was in.
pub fn in_netns<T>(ns: &str, f: impl FnOnce() -> T) -> io::Result<T> {
    let home = std::fs::File::open("/proc/thread-self/ns/net")?;
    enter(ns).map_err(|e| io::Error::other(e.to_string()))?;
    let r = f();
    nix::sched::setns(&home, nix::sched::CloneFlags::CLONE_NEWNET).map_err(io::Error::from)?;
    Ok(r)
}

/// The relay in a lab's server namespace.
pub struct Relay {
    /// Where the client connects (in the server namespace).
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

fn pump(mut from: TcpStream, mut to: TcpStream) {
    let _ = io::copy(&mut from, &mut to);
    let _ = to.shutdown(Shutdown::Write);
    let _ = from.shutdown(Shutdown::Read);
}

impl Relay {
    /// Listen in `lab`'s server namespace and carry each connection to `upstream`.
    pub fn start(lab: &NetLab, upstream: &str) -> io::Result<Self> {
        let up: SocketAddr = upstream
            .to_socket_addrs()?
            .next()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, format!("{upstream}: no address")))?;
        let listener = in_netns(&lab.server, || TcpListener::bind((SERVER_ADDR, 0)))??;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let quit = stop.clone();
        let accept = std::thread::spawn(move || {
            while !quit.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((c, _)) => {
                        let _ = c.set_nonblocking(false);
                        let Ok(s) = TcpStream::connect_timeout(&up, Duration::from_secs(10)) else {
                            let _ = c.shutdown(Shutdown::Both);
                            continue;
                        };
                        let _ = (c.set_nodelay(true), s.set_nodelay(true));
                        if let (Ok(c2), Ok(s2)) = (c.try_clone(), s.try_clone()) {
                            std::thread::spawn(move || pump(c, s));
                            std::thread::spawn(move || pump(s2, c2));
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => std::thread::sleep(Duration::from_millis(20)),
                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                }
            }
        });
        Ok(Self { addr, stop, accept: Some(accept) })
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.accept.take() {
            let _ = t.join();
        }
    }
}

/// A TCP connection to `addr` made from network namespace `ns`.
pub fn connect_from(ns: &str, addr: SocketAddr, timeout: Duration) -> io::Result<TcpStream> {
    in_netns(ns, || TcpStream::connect_timeout(&addr, timeout))?
}
