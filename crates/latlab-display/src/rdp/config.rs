//! The configuration of `display … --rdp`: which server (`--rdp`, parsed here and only here),
//! what is measured, the conditions, keys and compression, checked before anything connects.

use crate::rdp::ops::Op;
use latlab_keyscreen::condition::Condition;
use latlab_rdp::CompressionType;
use latlab_rdp_peers::connect::ClientSettings;
use latlab_rdp_peers::trust::Target;
use std::path::PathBuf;

/// Which server.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub enum Server {
    /// FreeRDP's shadow server over Xvfb and xterm, started here by latlab.
    Local,
    /// xrdp with a session for an account made for the run, started here by latlab.
    LocalXrdp,
    /// A server the user names.
    Remote(Target),
}

impl Server {
    /// `--rdp`'s value: `local` (FreeRDP's shadow server started here), `local-xrdp` (xrdp
    /// started here), or a server's `HOST[:PORT]`. The one parser of `--rdp` targets.
    pub fn parse(s: &str) -> Result<Self, latlab_model::ConfigError> {
        Ok(match s {
            "local" => Server::Local,
            "local-xrdp" => Server::LocalXrdp,
            h => Server::Remote(Target::parse(h)?),
        })
    }
}

/// `--rdp-compression`'s value: `none`, or a bulk compressor's name.
pub fn parse_compression(s: &str) -> Result<Option<CompressionType>, latlab_model::ConfigError> {
    match s {
        "none" => Ok(None),
        _ => CompressionType::from_name(s)
            .map(Some)
            .ok_or_else(|| format!("--rdp-compression {s}: none, mppc8, mppc64, ncrush or xcrush").into()),
    }
}

/// A compressor as records name it.
fn compression_name<S: serde::Serializer>(c: &Option<CompressionType>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(c.map_or("none", CompressionType::name))
}

/// What is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum RdpMode {
    /// Key to screen under each condition.
    Latency,
    /// Bytes and packets per UI operation.
    Ops,
    /// The client's CPU per stage per MB of the stream.
    Pipeline,
}

/// `display … --rdp`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RdpConfig {
    /// The server.
    pub server: Server,
    /// What to measure.
    pub mode: RdpMode,
    /// Conditions of `latency`: unloaded, cpu and a link rate on any server; mem on a server
    /// latlab started here (`--rdp local`, `local-xrdp`).
    pub conditions: Vec<Condition>,
    /// Keys timed per condition.
    pub keys: usize,
    /// Typing rate, words a minute.
    pub wpm: u32,
    /// How the keys are spaced about the rate's interval (jittered unless `--fixed-interval`).
    pub gaps: latlab_desktop::gaps::KeyGaps,
    /// Spinning processes of `cpu`.
    pub spinners: usize,
    /// Colour depth asked for.
    pub bpp: u32,
    /// Bulk compression offered (none: `None`).
    #[serde(serialize_with = "compression_name")]
    pub compression: Option<CompressionType>,
    /// Seconds per operation of `ops`.
    pub op_seconds: f64,
    /// Page Downs per condition of `latency`.
    pub pages: u32,
    /// The operations of `ops`, in order.
    pub ops: Vec<Op>,
    /// The credentials file, if given (else the environment or a prompt).
    pub credentials: Option<PathBuf>,
    /// The known-hosts file, or none for `--insecure`.
    pub known_hosts: Option<PathBuf>,
    /// Where typing draws, if known.
    pub roi: Option<[usize; 4]>,
    /// Where to write the screens typing was learned from (PPM), if anywhere.
    pub snapshot_dir: Option<PathBuf>,
    /// Whether `mem` may make a temporary swap file when the machine has too little swap.
    pub allow_swapfile: bool,
    /// Where that swap file goes.
    pub swap_dir: PathBuf,
}

impl Default for RdpConfig {
    fn default() -> Self {
        Self {
            server: Server::Local,
            mode: RdpMode::Latency,
            conditions: vec![Condition::Unloaded, Condition::Cpu],
            keys: latlab_keyscreen::defaults::RDP_KEYS,
            wpm: crate::defaults::LATENCY_WPM,
            gaps: latlab_desktop::gaps::KeyGaps::default(),
            spinners: latlab_keyscreen::defaults::LATENCY_SPINNERS,
            bpp: crate::defaults::RDP_BPP,
            compression: Some(CompressionType::Xcrush),
            op_seconds: crate::defaults::RDP_OP_SECONDS,
            pages: crate::defaults::LATENCY_PAGES,
            ops: Op::ALL.to_vec(),
            credentials: None,
            known_hosts: Some(latlab_rdp_peers::trust::default_known_hosts()),
            roi: None,
            snapshot_dir: None,
            allow_swapfile: true,
            swap_dir: PathBuf::from(crate::defaults::SWAP_DIR),
        }
    }
}

impl RdpConfig {
    /// Check the configuration.
    pub fn validate(&self) -> Result<(), latlab_model::ConfigError> {
        for c in &self.conditions {
            match c {
                Condition::Unloaded | Condition::Cpu | Condition::Link { bulk: false, .. } => {}
                Condition::Mem if matches!(self.server, Server::Local | Server::LocalXrdp) => {}
                // latlab starts the animation on FreeRDP's shadow server; on a remote server
                // the user starts one (docs/experiments/rdp.md); xrdp's sessions not yet.
                Condition::Busy if !matches!(self.server, Server::LocalXrdp) => {}
                Condition::Busy => {
                    return Err("--conditions busy: latlab starts the busy screen on --rdp local (FreeRDP's shadow server); on xrdp's sessions not yet. On your own server, start an animation on its screen and give --rdp HOST".into());
                }
                Condition::Mem => {
                    return Err("--conditions mem pages the server's processes out before each key, so it needs \
                                the server on this machine: --rdp local or --rdp local-xrdp"
                        .into());
                }
                other => {
                    return Err(format!(
                        "--rdp measures the conditions unloaded, cpu (spinners on this machine, which load the \
                         server when it runs here), mem (a server latlab started here) and a link rate (the \
                         server reached through a shaped link between namespaces); {} needs competing flows on \
                         that link, which a real server's run does not have yet",
                        other.name()
                    )
                    .into());
                }
            }
        }
        if !(4..=10_000).contains(&self.keys) {
            return Err(format!("--keys {}: from 4 to 10000", self.keys).into());
        }
        if !matches!(self.bpp, 15 | 16 | 24) {
            return Err(format!("--rdp-bpp {}: 15, 16 or 24 (latlab's decoder draws these depths)", self.bpp).into());
        }
        if !(1..=1000).contains(&self.wpm) {
            return Err(format!("--wpm {}: from 1 to 1000", self.wpm).into());
        }
        if self.mode == RdpMode::Ops && self.ops.is_empty() {
            return Err("--rdp-ops: at least one operation".into());
        }
        if !(0.5..=3600.0).contains(&self.op_seconds) {
            return Err(format!("--op-duration {} s: from 0.5 s to 1 h", self.op_seconds).into());
        }
        Ok(())
    }

    pub(crate) fn interval_ns(&self) -> u64 {
        (60e9 / (self.wpm as f64 * latlab_desktop::defaults::CHARS_PER_WORD)) as u64
    }

    pub(crate) fn settings(&self) -> ClientSettings {
        ClientSettings { desktop: latlab_keyscreen::local::SCREEN, bpp: self.bpp, compression: self.compression }
    }
}
