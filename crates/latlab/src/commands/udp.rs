//! `latlab udp` (loopback), `udp serve`, `udp probe HOST`, `udp relay`.

use crate::cli::{UdpArgs, UdpCommand, UdpSend};
use crate::runner::{install_interrupt, measure};
use anyhow::Context;
use latlab_sys::interrupt::stop_requested;
use latlab_udp::experiment::Udp;
use latlab_udp::relay::Impairment;
use latlab_udp::{Mode, UdpConfig};
use std::net::SocketAddr;
use std::path::Path;

/// A peer's address (`latlab_udp_probe::resolve`; a name that does not resolve may be the network's
/// fault, so an error, not a usage error).
fn resolve(host: &str) -> anyhow::Result<SocketAddr> {
    Ok(latlab_udp_probe::resolve(host)?)
}

fn config(send: &UdpSend, mode: Mode) -> UdpConfig {
    UdpConfig {
        mode,
        interval_ns: send.interval,
        duration_ns: send.duration,
        size: send.size,
        key: send.key.as_ref().map(|k| k.as_bytes().to_vec()),
        wait_ns: send.wait,
        playout: latlab_udp::defaults::PLAYOUT,
        sweep_intervals_ns: send.sweep_intervals.clone(),
        padded_size: send.padded_size,
    }
}

/// The configuration a loopback `latlab udp` runs with these arguments.
pub fn loopback_config(a: &UdpArgs) -> UdpConfig {
    let relay = if a.relay_hold_every.is_some()
        || a.relay_delay.is_some()
        || a.relay_jitter.is_some()
        || a.relay_loss.is_some()
    {
        Some(Impairment {
            delay_ns: a.relay_delay.unwrap_or(0),
            jitter_ns: a.relay_jitter.unwrap_or(0),
            loss: a.relay_loss.unwrap_or(0.0),
            hold_every_ns: a.relay_hold_every,
            ..Impairment::default()
        })
    } else {
        None
    };
    UdpConfig { playout: a.playout, ..config(&a.send, Mode::Loopback { ipv6: a.ipv6, relay }) }
}

fn wait_for_ctrl_c() -> anyhow::Result<()> {
    install_interrupt()?;
    while !stop_requested() {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    Ok(())
}

pub fn run(db: &Path, a: UdpArgs) -> anyhow::Result<i32> {
    match a.command {
        None => measure::<Udp>(db, loopback_config(&a)),
        Some(UdpCommand::Probe(p)) => {
            let target = resolve(&p.host)?;
            measure::<Udp>(db, config(&p.send, Mode::Probe { target }))
        }
        Some(UdpCommand::Serve(s)) => {
            let bind: SocketAddr = s.bind.parse().with_context(|| format!("--bind '{}' is not ADDR:PORT", s.bind))?;
            let cfg = latlab_udp::reflector::ReflectorConfig {
                key: s.key.map(|k| k.into_bytes()),
                max_pps_per_source: s.max_pps_per_source,
                ..Default::default()
            };
            let r = latlab_udp::reflector::spawn(bind, cfg).with_context(|| format!("cannot listen on {bind}"))?;
            latlab_sys::interrupt::install_status_signal()?;
            eprintln!(
                "udp serve: reflecting on {} (pid {}; SIGUSR1 prints the counters, Ctrl-C or SIGTERM stops)",
                r.addr,
                std::process::id()
            );
            install_interrupt()?;
            while !stop_requested() {
                std::thread::sleep(std::time::Duration::from_millis(100));
                if latlab_sys::interrupt::status_requested() {
                    eprintln!("udp serve: {}", r.stats.line());
                }
            }
            eprintln!("udp serve: stopped: {}", r.stats.line());
            Ok(crate::exit::OK)
        }
        Some(UdpCommand::Relay(r)) => {
            let listen: SocketAddr =
                r.listen.parse().with_context(|| format!("--listen '{}' is not ADDR:PORT", r.listen))?;
            let to = resolve(&r.to)?;
            let imp = Impairment {
                delay_ns: r.delay.unwrap_or(0),
                jitter_ns: r.jitter.unwrap_or(0),
                loss: r.loss,
                rate_bps: r.rate,
                hold_every_ns: r.hold_every,
                seed: r.seed,
            };
            imp.validate().map_err(|e| crate::runner::usage(format!("--{e}")))?;
            let relay =
                latlab_udp::relay::spawn(listen, to, imp, 64).with_context(|| format!("cannot listen on {listen}"))?;
            eprintln!("udp relay: {} → {to} (Ctrl-C stops)", relay.listen);
            wait_for_ctrl_c()?;
            Ok(crate::exit::OK)
        }
    }
}

/// The configuration a loopback `latlab udp` command line makes, for `latlab tune` (`None`:
/// another command, or `udp probe`, `serve`, `relay`).
pub fn tuned(c: crate::cli::Command, _strict: bool) -> anyhow::Result<Option<UdpConfig>> {
    match c {
        crate::cli::Command::Udp(u) if u.command.is_none() => Ok(Some(loopback_config(&u))),
        crate::cli::Command::Udp(_) => {
            anyhow::bail!("the udp remedies are measured with a loopback `latlab udp` run (not probe, serve or relay)")
        }
        _ => Ok(None),
    }
}
