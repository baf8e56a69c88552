//! The conditions key to screen is timed under: unloaded, CPU load, memory paged out, a shaped
//! link with or without competing bulk flows, a busy screen; their names and how they are
//! parsed.

/// One condition a key is timed under.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub enum Condition {
    /// Loopback, nothing else running.
    Unloaded,
    /// Spinning processes on the server's machine.
    Cpu,
    /// The server's working set paged out between keys.
    Mem,
    /// The remote screen busy: something on it changing continuously while the keys are
    /// typed (seed 003's animated page beside the typing; remote-desktop users' "input
    /// starved behind graphics").
    Busy,
    /// A link shaped by HTB between two network namespaces.
    Link {
        /// Its rate, bit/s.
        rate_bps: u64,
        /// A competing bulk transfer each way at a share the experiment sets (`display latency`: `LATENCY_BULK_SHARE` of its defaults) of it.
        bulk: bool,
    },
}

impl Condition {
    /// The name in metrics and on the command line: `unloaded`, `cpu`, `mem`, `busy`, `10mbit`,
    /// `56kbit`, `10mbit_bulk`.
    pub fn name(&self) -> String {
        match self {
            Condition::Unloaded => "unloaded".into(),
            Condition::Cpu => "cpu".into(),
            Condition::Mem => "mem".into(),
            Condition::Busy => "busy".into(),
            Condition::Link { rate_bps, bulk } => {
                let r = if rate_bps % 1_000_000 == 0 {
                    format!("{}mbit", rate_bps / 1_000_000)
                } else {
                    format!("{}kbit", rate_bps / 1000)
                };
                if *bulk { format!("{r}_bulk") } else { r }
            }
        }
    }

    /// Parse a name: the above, or `<N>mbit` / `<N>kbit` with `_bulk` or `+bulk` after it.
    pub fn parse(s: &str) -> Result<Self, latlab_model::ConfigError> {
        let s = s.trim().to_ascii_lowercase();
        Ok(match s.as_str() {
            "unloaded" => Condition::Unloaded,
            "cpu" => Condition::Cpu,
            "mem" => Condition::Mem,
            "busy" => Condition::Busy,
            _ => {
                let (rate, bulk) = match s.strip_suffix("_bulk").or_else(|| s.strip_suffix("+bulk")) {
                    Some(r) => (r, true),
                    None => (s.as_str(), false),
                };
                let (num, scale) = if let Some(n) = rate.strip_suffix("mbit") {
                    (n, 1_000_000)
                } else if let Some(n) = rate.strip_suffix("kbit").or_else(|| rate.strip_suffix('k')) {
                    (n, 1000)
                } else {
                    return Err(format!(
                        "unknown condition '{s}': use unloaded, cpu, mem, busy, or a link rate such as 10mbit, 56kbit, 10mbit_bulk"
                    ).into());
                };
                let n: u64 = num.parse().map_err(|_| format!("'{s}': the rate must be a whole number"))?;
                let rate_bps = n * scale;
                if !(9_600..=10_000_000_000).contains(&rate_bps) {
                    return Err(format!("'{s}': a link from 9.6 kbit/s to 10 Gbit/s").into());
                }
                Condition::Link { rate_bps, bulk }
            }
        })
    }
}
