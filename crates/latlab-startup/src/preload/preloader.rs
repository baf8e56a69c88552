//! The preloader of `latlab startup preload` (seed 004's Superfetch): one pass waits until the
//! machine is idle, then reads the library's top plans into the page cache within a budget,
//! judging idleness as it goes and pausing whenever the machine is busy. It runs against the
//! [`Env`] seam (clock, sleep, how busy everything else keeps the CPUs), so the waiting and
//! pausing are tested on a fake clock with a scripted load.

use crate::plan::merge_close;
use crate::preload::Entry;
use latlab_model::numfmt::sig;
use std::time::Duration;

/// What the preloader needs from the machine: a clock, a sleep, and how busy everything else
/// keeps the CPUs. The real one is [`Machine`]; tests script one.
pub trait Env {
    /// Time since some fixed start.
    fn now(&mut self) -> Duration;
    /// Sleep this long.
    fn sleep(&mut self, d: Duration);
    /// The share of all CPUs' time that everything but this process used since the last call
    /// (`None`: cannot be told, e.g. the first call).
    fn others_busy(&mut self) -> Option<f64>;
    /// Whether to stop (Ctrl-C).
    fn stop(&mut self) -> bool {
        false
    }
}

/// This machine: `/proc/stat` for all CPUs, `/proc/self/stat` for this process's own share.
pub struct Machine {
    t0: std::time::Instant,
    last: Option<(u64, u64, u64)>,
}

impl Default for Machine {
    fn default() -> Self {
        Self { t0: std::time::Instant::now(), last: None }
    }
}

/// This process's CPU time (user + system), clock ticks, from `/proc/self/stat`'s text.
pub fn own_ticks(stat: &str) -> Option<u64> {
    // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15.
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

/// The share of CPU time others used between two readings of (busy, total, own) ticks.
pub fn others_share(before: (u64, u64, u64), after: (u64, u64, u64)) -> Option<f64> {
    let total = after.1.checked_sub(before.1)?;
    if total == 0 {
        return None;
    }
    let busy = after.0.saturating_sub(before.0);
    let own = after.2.saturating_sub(before.2);
    Some((busy.saturating_sub(own) as f64 / total as f64).clamp(0.0, 1.0))
}

impl Env for Machine {
    fn now(&mut self) -> Duration {
        self.t0.elapsed()
    }
    fn sleep(&mut self, d: Duration) {
        std::thread::sleep(d);
    }
    fn others_busy(&mut self) -> Option<f64> {
        let (busy, total) =
            std::fs::read_to_string("/proc/stat").ok().and_then(|t| crate::utilisation::parse_stat(&t))?;
        let own = std::fs::read_to_string("/proc/self/stat").ok().and_then(|t| own_ticks(&t))?;
        let now = (busy, total, own);
        let share = self.last.and_then(|before| others_share(before, now));
        self.last = Some(now);
        share
    }
    fn stop(&mut self) -> bool {
        latlab_sys::interrupt::stop_requested()
    }
}

/// How the preloader behaves.
#[derive(Debug, Clone, PartialEq)]
pub struct PreloadConfig {
    /// Idle: everything else uses less than this share of all CPUs (1.0: always idle, the
    /// preloader never waits).
    pub idle_below: f64,
    /// How often idleness is judged (the window of each judgement).
    pub check_every: Duration,
    /// Longest wait for idleness, in all, before giving up.
    pub give_up_after: Duration,
    /// Most pages read, over all plans.
    pub budget_pages: u64,
    /// Plans read, at most, from the top of the ranking.
    pub top: usize,
}

impl PreloadConfig {
    /// Check the settings (the command line turns an error into exit code 2).
    pub fn validate(&self) -> Result<(), latlab_model::ConfigError> {
        if !(self.idle_below > 0.0 && self.idle_below <= 1.0) {
            return Err(format!("--idle-below must be a share in (0, 1], not {}", self.idle_below).into());
        }
        if self.check_every.is_zero() {
            return Err("--check-every must be at least 1ms".into());
        }
        Ok(())
    }
}

/// What one preloader pass did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PreloadReport {
    /// The commands whose plans were read whole, in rank order.
    pub preloaded: Vec<String>,
    /// Commands left out: their plan did not fit the budget left.
    pub over_budget: Vec<String>,
    /// Pages read.
    pub pages: u64,
    /// Plan files skipped: gone or changed size.
    pub skipped_files: usize,
    /// Times the preloader stopped because the machine was not idle.
    pub pauses: u64,
    /// Time spent waiting for idleness.
    pub waited: Duration,
    /// Time from start to end, waits included.
    pub elapsed: Duration,
    /// Why it ended before reading every plan that fit (gave up waiting, interrupted).
    pub ended_early: Option<String>,
}

impl PreloadConfig {
    /// Whether others using `share` of the CPUs leaves the machine idle.
    fn idle(&self, share: f64) -> bool {
        self.idle_below >= 1.0 || share < self.idle_below
    }
}

/// The default budget, pages: a share of the memory available now
/// ([`crate::defaults::PRELOAD_BUDGET_SHARE`]), so the preloader fills free memory and never
/// pushes out what others use; no limit where `/proc/meminfo` cannot be read.
pub fn default_budget_pages() -> u64 {
    latlab_sys::pageout::meminfo_kib("MemAvailable").map_or(u64::MAX, |kib| {
        (kib as f64 * 1024.0 * crate::defaults::PRELOAD_BUDGET_SHARE) as u64 / crate::pagecache::page_size() as u64
    })
}

/// Bytes read between two checks of the clock (and, when a check is due, of idleness).
const CHUNK: usize = 256 << 10;

/// Wait until the machine is idle. `Err` with why when it gave up or was stopped.
fn wait_idle(cfg: &PreloadConfig, env: &mut dyn Env, r: &mut PreloadReport) -> Result<(), crate::learn::StartupError> {
    loop {
        if env.stop() {
            return Err(crate::learn::StartupError::Needs("interrupted".into()));
        }
        let t = env.now();
        env.sleep(cfg.check_every);
        r.waited += env.now().saturating_sub(t);
        if env.others_busy().is_some_and(|share| cfg.idle(share)) {
            return Ok(());
        }
        if r.waited >= cfg.give_up_after {
            return Err(crate::learn::StartupError::Needs(format!(
                "the machine was not idle (others used {:.0} % of the CPUs or more) within {:.0} s",
                cfg.idle_below * 100.0,
                cfg.give_up_after.as_secs_f64()
            )));
        }
    }
}

/// One pass: wait for idleness, then read the top plans (in rank order, each file's ranges in
/// plan order) while the budget lasts, judging idleness every `check_every` and pausing while
/// the machine is busy. `ranked` is the library's ranking (see [`crate::preload::Library::ranked`]).
pub fn preload(ranked: &[&Entry], cfg: &PreloadConfig, env: &mut dyn Env) -> PreloadReport {
    let mut r = PreloadReport::default();
    let start = env.now();
    env.others_busy(); // Opens the first window.
    if let Err(why) = wait_idle(cfg, env, &mut r) {
        r.ended_early = Some(latlab_model::error::chain(&why));
        r.elapsed = env.now().saturating_sub(start);
        return r;
    }
    let mut last_check = env.now();
    let mut budget = cfg.budget_pages;
    let mut buf = vec![0u8; CHUNK];
    'plans: for e in ranked.iter().take(cfg.top) {
        let name = e.command.join(" ");
        let pages = e.plan.pages();
        if pages > budget {
            r.over_budget.push(name);
            continue;
        }
        budget -= pages;
        let page = e.plan.page_size.max(1);
        for f in &e.plan.files {
            let file = match std::fs::File::open(&f.path) {
                Ok(file) if file.metadata().is_ok_and(|m| m.len() == f.size) => file,
                _ => {
                    r.skipped_files += 1;
                    continue;
                }
            };
            for (first, n) in merge_close(&f.ranges, crate::defaults::REPLAY_MERGE_GAP_PAGES) {
                let (mut at, end) = (first * page, ((first + n) * page).min(f.size));
                while at < end {
                    let want = ((end - at) as usize).min(CHUNK);
                    let got = std::os::unix::fs::FileExt::read_at(&file, &mut buf[..want], at).unwrap_or(0);
                    if got == 0 {
                        break;
                    }
                    at += got as u64;
                    r.pages += (got as u64).div_ceil(page);
                    if env.now().saturating_sub(last_check) >= cfg.check_every {
                        let busy = env.others_busy().is_some_and(|s| !cfg.idle(s));
                        if busy || env.stop() {
                            if !busy {
                                r.ended_early = Some("interrupted".into());
                                break 'plans;
                            }
                            r.pauses += 1;
                            if let Err(why) = wait_idle(cfg, env, &mut r) {
                                r.ended_early = Some(latlab_model::error::chain(&why));
                                break 'plans;
                            }
                        }
                        last_check = env.now();
                    }
                }
            }
        }
        r.preloaded.push(name);
    }
    r.elapsed = env.now().saturating_sub(start);
    r
}

/// One preloader pass's report as text.
pub fn report_text(r: &PreloadReport, page_size: u64) -> String {
    let mut out = format!(
        "preloaded {} plan(s), {} pages ({} MiB) in {} s, {} s of it waiting for idleness, {} pause(s) for a busy machine\n",
        r.preloaded.len(),
        r.pages,
        sig((r.pages * page_size) as f64 / (1u64 << 20) as f64),
        sig(r.elapsed.as_secs_f64()),
        sig(r.waited.as_secs_f64()),
        r.pauses
    );
    for c in &r.preloaded {
        out.push_str(&format!("  read: {c}\n"));
    }
    for c in &r.over_budget {
        out.push_str(&format!("  over the budget, not read: {c}\n"));
    }
    if r.skipped_files > 0 {
        out.push_str(&format!(
            "  {} plan file(s) gone or changed: launch those commands again to relearn\n",
            r.skipped_files
        ));
    }
    if let Some(why) = &r.ended_early {
        out.push_str(&format!("  ended early: {why}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::PlanFile;
    use crate::preload::Library;
    use crate::preload::tests::{H, Scratch, cmd, plan};

    /// A fake machine: the clock moves only when slept or read; the load is scripted.
    struct Scripted {
        t: Duration,
        load: Vec<Option<f64>>,
    }
    impl Env for Scripted {
        fn now(&mut self) -> Duration {
            // Every read of the clock is 30 ms later, as if each chunk took that long.
            self.t += Duration::from_millis(30);
            self.t
        }
        fn sleep(&mut self, d: Duration) {
            self.t += d;
        }
        fn others_busy(&mut self) -> Option<f64> {
            if self.load.is_empty() { Some(0.0) } else { self.load.remove(0) }
        }
    }

    #[test]
    fn the_preloader_waits_for_idle_pauses_when_busy_and_keeps_to_its_budget() {
        let dir = Scratch::new("pass");
        let mut files = Vec::new();
        for i in 0..3 {
            let p = dir.path().join(format!("f{i}"));
            std::fs::write(&p, vec![7u8; 4 << 20]).unwrap();
            files.push(PlanFile { path: p, size: 4 << 20, ranges: vec![(0, 1024)] });
        }
        let mut lib = Library::default();
        lib.launched(&cmd("top"), Some(plan(files[..2].to_vec())), H).unwrap();
        lib.launched(&cmd("top"), None, H).unwrap();
        lib.launched(&cmd("second"), Some(plan(files[2..].to_vec())), H).unwrap();
        let ranked: Vec<&Entry> = lib.ranked(H).into_iter().map(|(e, _)| e).collect();
        let cfg = PreloadConfig {
            idle_below: 0.2,
            check_every: Duration::from_millis(100),
            give_up_after: Duration::from_secs(60),
            budget_pages: 2048,
            top: 10,
        };
        // Busy at first (two windows), then idle, then busy once mid-way, then idle.
        let mut env = Scripted { t: Duration::ZERO, load: vec![None, Some(0.9), Some(0.5), Some(0.05)] };
        env.load.extend([Some(0.0); 3]);
        env.load.extend([Some(0.95), Some(0.1)]);
        let r = preload(&ranked, &cfg, &mut env);
        assert_eq!(r.preloaded, vec!["top".to_string()]);
        assert_eq!(r.over_budget, vec!["second".to_string()], "2048 pages: only the top plan fits");
        assert_eq!(r.pages, 2048);
        assert_eq!(r.pauses, 1, "one pause while reading: {r:?}");
        assert!(r.waited >= Duration::from_millis(300), "{r:?}");
        assert!(r.ended_early.is_none());
        // Never idle: it gives up and reads nothing; unless told 100 % is idle.
        let mut full = Scripted { t: Duration::ZERO, load: vec![Some(1.0); 1000] };
        let r = preload(&ranked, &PreloadConfig { idle_below: 1.0, ..cfg.clone() }, &mut full);
        assert_eq!((r.pages, r.pauses), (2048, 0));
        let mut busy = Scripted { t: Duration::ZERO, load: vec![Some(1.0); 1000] };
        let r = preload(&ranked, &PreloadConfig { give_up_after: Duration::from_secs(1), ..cfg.clone() }, &mut busy);
        assert_eq!(r.pages, 0);
        assert!(r.ended_early.as_deref().unwrap().contains("not idle"), "{r:?}");
        // A changed file is skipped, the rest read.
        std::fs::write(&files[1].path, b"short").unwrap();
        let mut idle = Scripted { t: Duration::ZERO, load: vec![] };
        let r = preload(&ranked, &PreloadConfig { budget_pages: u64::MAX, ..cfg }, &mut idle);
        assert_eq!(r.skipped_files, 1);
        assert_eq!(r.pages, 2048);
        assert_eq!(r.preloaded.len(), 2);
    }

    #[test]
    fn cpu_shares_of_others_come_from_proc_counters() {
        let stat = "4242 (my (odd) name) S 1 2 3 4 5 6 7 8 9 10 120 30 0 0 20 0 1 0";
        assert_eq!(own_ticks(stat), Some(150));
        assert_eq!(others_share((100, 1000, 10), (300, 1400, 60)), Some(150.0 / 400.0));
        assert_eq!(others_share((100, 1000, 10), (100, 1000, 10)), None);
        let mut m = Machine::default();
        assert!(m.others_busy().is_none(), "the first reading opens the window");
        std::thread::sleep(Duration::from_millis(30));
        if let Some(s) = m.others_busy() {
            assert!((0.0..=1.0).contains(&s));
        }
    }
}
