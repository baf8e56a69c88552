//! What a level of the ramp measured, when latency broke, and what limits the server: its
//! CPU, the link or neither; the ramp that runs levels until one breaks, and the answer in
//! words.

use super::{CapacityConfig, Level};
use std::sync::atomic::{AtomicU64, Ordering};

/// Why the ramp stopped, or what limits it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// The server's CPU was busy when latency broke.
    Cpu,
    /// The server's memory was paged.
    Memory,
    /// The link was saturated.
    Link,
    /// Sessions could not log in (the server refused or did not answer them in time) while
    /// its CPU, memory and link were not at their end.
    Logins,
    /// Latency broke, and none of the three was at its end (the clients, sharing the
    /// machine, or the scheduler).
    Unclear,
    /// No level broke: the highest level tried held.
    NotReached,
}

impl Limit {
    /// In words.
    pub fn name(self) -> &'static str {
        match self {
            Limit::Cpu => "CPU",
            Limit::Memory => "memory",
            Limit::Link => "the link",
            Limit::Logins => "logins (the server did not take every session's login in time)",
            Limit::Unclear => "unclear (no resource at its end)",
            Limit::NotReached => "none up to the highest level tried",
        }
    }
}

/// One level's figures, as the stopping rule sees them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Figures {
    /// Sessions.
    pub sessions: usize,
    /// The level's p95 over every key of every typist together, ns, which judges the level as
    /// load-testing tools judge theirs (`None`: no typist, or no key shown).
    pub level_p95_ns: Option<u64>,
    /// The worst typist's own p95, ns: shown, and named as an outlier when it alone is over
    /// the threshold; it does not break the level by itself.
    pub worst_p95_ns: Option<u64>,
    /// Keys lost across typists.
    pub lost_keys: u64,
    /// Sessions that failed (logins included).
    pub failed: usize,
    /// Of those, sessions that never logged in.
    pub no_login: usize,
    /// Display bytes per second, all sessions.
    pub down_bps: f64,
    /// Server CPU, cores busy (`None`: not measurable).
    pub server_cores: Option<f64>,
    /// The clients' CPU (this process), cores busy.
    pub client_cores: Option<f64>,
    /// Server pages swapped in (major faults) during the level.
    pub major_faults: Option<u64>,
}

/// What breaks a level: its reason, or `None` when it holds.
pub fn broken(f: &Figures, link_bps: Option<u64>) -> Option<String> {
    let threshold = latlab_keyscreen::defaults::NOTICEABLE_MS * 1_000_000;
    if f.failed > 0 && f.no_login == f.failed {
        return Some(format!("{} of {} logins failed", f.failed, f.sessions));
    }
    if f.failed > 0 {
        return Some(format!("{} sessions failed", f.failed));
    }
    if let Some(p) = f.level_p95_ns.filter(|&p| p > threshold) {
        return Some(format!("the level's p95 was {:.0} ms", p as f64 / 1e6));
    }
    if f.lost_keys > 0 {
        return Some(format!("{} keys never showed", f.lost_keys));
    }
    if let Some(r) = link_bps.filter(|&r| f.down_bps * 8.0 >= crate::defaults::CAPACITY_LINK_FULL * r as f64) {
        return Some(format!("the link carried {:.0} % of its rate", 100.0 * f.down_bps * 8.0 / r as f64));
    }
    None
}

/// A typist whose own p95 is over the threshold in a level that held: the outlier, in words.
pub fn outlier(f: &Figures, link_bps: Option<u64>) -> Option<String> {
    let threshold = latlab_keyscreen::defaults::NOTICEABLE_MS * 1_000_000;
    let worst = f.worst_p95_ns.filter(|&p| p > threshold)?;
    broken(f, link_bps).is_none().then(|| {
        format!(
            "one typist's own p95 was {:.0} ms while the level's was {:.1} ms: an outlier, not the level",
            worst as f64 / 1e6,
            f.level_p95_ns.unwrap_or(0) as f64 / 1e6
        )
    })
}

/// The answer: the most users a level held, the fewest a level broke at above it (the
/// answer's uncertainty: the limit lies between), and what limits them (`cores`: the CPUs
/// the server may use). Levels come in the order run (a ramp up, then, when its first level
/// broke, steps down).
pub fn answer(levels: &[Figures], link_bps: Option<u64>, cores: usize) -> (usize, Limit) {
    let held = levels.iter().filter(|f| broken(f, link_bps).is_none()).map(|f| f.sessions).max().unwrap_or(0);
    let Some(f) =
        levels.iter().filter(|f| f.sessions > held && broken(f, link_bps).is_some()).min_by_key(|f| f.sessions)
    else {
        return (held, Limit::NotReached);
    };
    let limit = if link_bps.is_some_and(|r| f.down_bps * 8.0 >= crate::defaults::CAPACITY_LINK_FULL * r as f64) {
        Limit::Link
    } else if f.major_faults.is_some_and(|m| m > 0) {
        Limit::Memory
    } else if f.server_cores.is_some_and(|c| c >= crate::defaults::CAPACITY_CPU_FULL * cores as f64) {
        Limit::Cpu
    } else if f.no_login > 0 {
        Limit::Logins
    } else {
        Limit::Unclear
    };
    (held, limit)
}

/// The smallest level above `held` that broke: the answer's upper bound.
pub fn broke_at(levels: &[Figures], link_bps: Option<u64>, held: usize) -> Option<usize> {
    levels.iter().filter(|f| f.sessions > held && broken(f, link_bps).is_some()).map(|f| f.sessions).min()
}

/// The levels to try below a first level of `n` that broke: halving down to one.
pub fn step_down(n: usize) -> impl Iterator<Item = usize> {
    std::iter::successors(Some(n / 2), |&m| Some(m / 2)).take_while(|&m| m >= 1)
}

/// Run the levels of `cfg`'s ramp with `level` (given a level's sessions) until one breaks, or
/// Ctrl-C.
pub(super) fn ramp(
    cfg: &CapacityConfig,
    progress: &AtomicU64,
    mut level: impl FnMut(usize) -> Result<Level, crate::DisplayError>,
) -> Result<Vec<Level>, crate::DisplayError> {
    // Run `counts` in turn until one whose breaking is `until` (or Ctrl-C).
    let mut levels: Vec<Level> = Vec::new();
    let mut run = |counts: Vec<usize>, until: bool, levels: &mut Vec<Level>| -> Result<(), crate::DisplayError> {
        for n in counts {
            if latlab_sys::interrupt::stop_requested() {
                break;
            }
            let lvl = level(n)?;
            let stop = broken(&lvl.figures, cfg.link_bps).is_some() == until;
            levels.push(lvl);
            progress.fetch_add(1, Ordering::Relaxed);
            if stop {
                break;
            }
        }
        Ok(())
    };
    run(cfg.levels(), true, &mut levels)?;
    // A first level that broke answers nothing: step down, halving, until a level holds.
    if let [first] = levels.as_slice()
        && broken(&first.figures, cfg.link_bps).is_some()
    {
        let down = step_down(first.figures.sessions).collect();
        run(down, false, &mut levels)?;
    }
    Ok(levels)
}

/// The answer in words: `server` takes `users` `who` before the level's p95 passes 100 ms
/// (the level at `broke` did not: the answer lies between), and what limits it.
pub(super) fn say(server: &str, users: usize, broke: Option<usize>, who: &str, limit: Limit) -> String {
    let ms = latlab_keyscreen::defaults::NOTICEABLE_MS;
    match (limit, broke) {
        (Limit::NotReached, _) | (_, None) => format!(
            "{server} took {users} {who}, the highest level tried, with the level's 95th percentile under {ms} ms; no limit was found up to there"
        ),
        (l, Some(b)) => format!(
            "{server} takes {users} {who} before the level's 95th percentile passes {ms} ms ({b} did not: the limit lies between), and the limit is {}",
            l.name()
        ),
    }
}
