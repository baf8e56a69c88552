//! Running a boot described by a [`BootSpec`]: services start in dependency order, as many at
//! once as the spec allows; each is watched for its readiness (it exits with 0, it prints its
//! line, its port accepts); delayed services start once the target is ready. Every service
//! started is stopped and reaped at the end — also on an error, a failed service or Ctrl-C —
//! by the [`Fleet`] guard.
//!
//! The decisions are pure and tested on a fake clock: [`Boot::startable`] (what may start
//! now) and [`critical_path`] (the chain of waits that set the target's time).

use crate::boot::file::{BootSpec, Ready, StartType};
use latlab_model::numfmt::sig;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;

/// Where one service is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Not started.
    Waiting,
    /// Started at this time, not yet ready.
    Starting(u64),
    /// Started and ready at these times.
    Ready(u64, u64),
    /// Disabled: never started.
    Skipped,
}

/// The boot's bookkeeping: each service's state, on whatever clock the caller keeps.
#[derive(Debug, Clone)]
pub struct Boot<'a> {
    spec: &'a BootSpec,
    /// Each service's state.
    pub states: Vec<State>,
}

impl<'a> Boot<'a> {
    /// A boot about to begin.
    pub fn new(spec: &'a BootSpec) -> Self {
        let states = spec
            .services
            .iter()
            .map(|s| if s.start == StartType::Disabled { State::Skipped } else { State::Waiting })
            .collect();
        Self { spec, states }
    }

    /// The target's ready time, once it is.
    pub fn target_ready(&self) -> Option<u64> {
        match self.states[self.spec.target] {
            State::Ready(_, r) => Some(r),
            _ => None,
        }
    }

    /// The services that may start now, in the file's order: waiting, everything they wait
    /// for ready, delayed ones only after the target, and no more than `jobs` starting at once.
    pub fn startable(&self) -> Vec<usize> {
        let starting = self.states.iter().filter(|s| matches!(s, State::Starting(_))).count();
        let room = if self.spec.jobs == 0 { usize::MAX } else { self.spec.jobs.saturating_sub(starting) };
        let target_up = self.target_ready().is_some();
        let mut ready: Vec<usize> = self
            .spec
            .services
            .iter()
            .enumerate()
            .filter(|(i, s)| {
                self.states[*i] == State::Waiting
                    && (s.start != StartType::Delayed || target_up)
                    && s.after.iter().all(|&d| matches!(self.states[d], State::Ready(..)))
            })
            .map(|(i, _)| i)
            .collect();
        if self.spec.target_first {
            // What the target needs first; the file's order otherwise (a stable sort).
            ready.sort_by_key(|&i| !(i == self.spec.target || self.spec.must_precede_target(i)));
        }
        ready.truncate(room);
        ready
    }

    /// Service `i` started at `t`.
    pub fn started(&mut self, i: usize, t: u64) {
        self.states[i] = State::Starting(t);
    }

    /// Service `i` became ready at `t`.
    pub fn ready(&mut self, i: usize, t: u64) {
        if let State::Starting(s) = self.states[i] {
            self.states[i] = State::Ready(s, t);
        }
    }

    /// Is every service that will run ready?
    pub fn done(&self) -> bool {
        self.states.iter().all(|s| matches!(s, State::Ready(..) | State::Skipped))
    }
}

/// The critical path to the target: from the target back, each step the service it waited
/// for that was ready last (the one that set its start), until a service that waited for
/// nothing. Returned first to last. `times[i]` is service i's (start, ready), if it ran.
pub fn critical_path(spec: &BootSpec, times: &[Option<(u64, u64)>]) -> Vec<usize> {
    let mut path = vec![spec.target];
    let mut at = spec.target;
    while let Some(&d) =
        spec.services[at].after.iter().filter(|&&d| times[d].is_some()).max_by_key(|&&d| times[d].map(|t| t.1))
    {
        path.push(d);
        at = d;
    }
    path.reverse();
    path
}

/// What to change in a boot, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Advice {
    /// Delay this service until after the target: the target does not need it, yet it ran
    /// while the target's chain was starting.
    Delay(usize),
    /// Start what the target needs before the rest: with a jobs limit, a service the target
    /// needs waited for a free job while one it does not need ran.
    TargetFirst,
    /// Disable this service: it is known to cost much and rarely be needed (the seed's NFS
    /// client), the target does not need it, and nothing waits for it.
    Disable(usize),
}

/// Recommendations from one measured boot, each with its reason (ms from the boot's start).
pub fn recommend(spec: &BootSpec, t: &BootTimes) -> Vec<(Advice, String)> {
    let ms = |ns: u64| ns as f64 / 1e6;
    let target = &spec.services[spec.target].name;
    let needed = |i: usize| i == spec.target || spec.must_precede_target(i);
    let mut out = Vec::new();
    for (i, s) in spec.services.iter().enumerate() {
        let Some((start, ready)) = t.services[i] else { continue };
        let waited_for = spec.services.iter().any(|o| o.start != StartType::Disabled && o.after.contains(&i));
        if let (false, false, Some(why)) = (needed(i), waited_for, crate::boot::analyze::known_costly(&s.name)) {
            out.push((
                Advice::Disable(i),
                format!("disable '{}': '{target}' does not need it and nothing waits for it; {why}", s.name),
            ));
            continue;
        }
        if s.start == StartType::Auto && !needed(i) && start < t.target_ns {
            out.push((
                Advice::Delay(i),
                format!(
                    "delay '{}': '{target}' does not need it, yet it ran from {} to {} ms, before '{target}' was ready at {} ms",
                    s.name, sig(ms(start)), sig(ms(ready)), sig(ms(t.target_ns))
                ),
            ));
        }
    }
    if spec.jobs > 0 && !spec.target_first {
        // A needed service that started later than its waits were ready: it waited for a job.
        let waited = spec.services.iter().enumerate().find_map(|(i, s)| {
            let (start, _) = t.services[i]?;
            let free = s.after.iter().filter_map(|&d| t.services[d].map(|x| x.1)).max().unwrap_or(0);
            (needed(i) && start > free + 1_000_000).then(|| (i, start - free))
        });
        if let Some((i, w)) = waited {
            out.push((
                Advice::TargetFirst,
                format!(
                    "start what '{target}' needs first: '{}' waited {} ms for one of the {} jobs",
                    spec.services[i].name,
                    sig(ms(w)),
                    spec.jobs
                ),
            ));
        }
    }
    out
}

/// The boot with the recommendations applied.
pub fn apply(spec: &BootSpec, advice: &[(Advice, String)]) -> BootSpec {
    let mut s = spec.clone();
    for (a, _) in advice {
        match a {
            Advice::Delay(i) => s.services[*i].start = StartType::Delayed,
            Advice::TargetFirst => s.target_first = true,
            Advice::Disable(i) => s.services[*i].start = StartType::Disabled,
        }
    }
    s
}

/// Why a boot failed.
#[derive(Debug, thiserror::Error)]
pub enum BootError {
    /// A service could not be started.
    #[error("service '{name}': cannot start `{program}`: {source}")]
    Spawn {
        /// The service.
        name: String,
        /// Its program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// A service failed before it was ready.
    #[error("service '{0}': {1}")]
    Failed(String, String),
    /// Interrupted.
    #[error("interrupted")]
    Interrupted,
}

/// The services started, stopped and reaped when dropped (SIGTERM to each process group, then
/// SIGKILL to what is left after [`crate::defaults::BOOT_STOP_GRACE_MS`]).
#[derive(Default)]
pub struct Fleet {
    children: Vec<(usize, Child)>,
}

impl Fleet {
    /// Stop and reap every service; returns how many were still running.
    pub fn stop_all(&mut self) -> usize {
        use nix::sys::signal::{Signal, killpg};
        use nix::unistd::Pid;
        let mut running = 0;
        for (_, c) in &mut self.children {
            if matches!(c.try_wait(), Ok(None)) {
                running += 1;
                let _ = killpg(Pid::from_raw(c.id() as i32), Signal::SIGTERM);
            }
        }
        let deadline =
            std::time::Instant::now() + std::time::Duration::from_millis(crate::defaults::BOOT_STOP_GRACE_MS);
        while std::time::Instant::now() < deadline
            && self.children.iter_mut().any(|(_, c)| matches!(c.try_wait(), Ok(None)))
        {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        for (_, c) in &mut self.children {
            if matches!(c.try_wait(), Ok(None)) {
                let _ = killpg(Pid::from_raw(c.id() as i32), Signal::SIGKILL);
            }
            let _ = c.wait();
        }
        self.children.clear();
        running
    }
}

impl Drop for Fleet {
    fn drop(&mut self) {
        self.stop_all();
    }
}

/// One boot's times, ns from its start (`None`: not started, disabled).
#[derive(Debug, Clone, PartialEq)]
pub struct BootTimes {
    /// Each service's (start, ready).
    pub services: Vec<Option<(u64, u64)>>,
    /// The target's ready time.
    pub target_ns: u64,
    /// Every service ready.
    pub all_ns: u64,
    /// Services still running at the end (stopped then).
    pub stopped: usize,
}

/// Run the boot once: start, watch, and at the end stop and reap everything.
pub fn run_once(spec: &BootSpec) -> Result<BootTimes, BootError> {
    let t0 = std::time::Instant::now();
    let now = || t0.elapsed().as_nanos() as u64;
    let mut boot = Boot::new(spec);
    let mut fleet = Fleet::default();
    let (lines_tx, lines_rx) = mpsc::channel::<usize>();
    let mut deadline = vec![u64::MAX; spec.services.len()];
    let poll = std::time::Duration::from_micros(crate::defaults::BOOT_POLL_US);
    loop {
        if latlab_sys::interrupt::stop_requested() {
            return Err(BootError::Interrupted);
        }
        for i in boot.startable() {
            let s = &spec.services[i];
            let mut cmd = Command::new(&s.command[0]);
            latlab_sys::leftovers::mark(&mut cmd);
            cmd.args(&s.command[1..]).stdin(Stdio::null()).stderr(Stdio::null()).process_group(0);
            cmd.stdout(if matches!(s.ready, Ready::Line(_)) { Stdio::piped() } else { Stdio::null() });
            let mut child = cmd.spawn().map_err(|source| BootError::Spawn {
                name: s.name.clone(),
                program: s.command[0].clone(),
                source,
            })?;
            boot.started(i, now());
            deadline[i] = now() + s.timeout_ms * 1_000_000;
            if let (Ready::Line(pattern), Some(out)) = (&s.ready, child.stdout.take()) {
                // Checked when the file was read.
                let re = regex::Regex::new(pattern).expect("checked by BootSpec::parse");
                let tx = lines_tx.clone();
                // Reads the service's output to its end (so it never blocks on a full pipe).
                std::thread::spawn(move || {
                    let mut told = false;
                    for line in BufReader::new(out).lines().map_while(Result::ok) {
                        if !told && re.is_match(&line) {
                            told = tx.send(i).is_ok();
                        }
                    }
                });
            }
            fleet.children.push((i, child));
        }
        // Readiness.
        while let Ok(i) = lines_rx.try_recv() {
            boot.ready(i, now());
        }
        for (i, child) in &mut fleet.children {
            let i = *i;
            if !matches!(boot.states[i], State::Starting(_)) {
                continue;
            }
            let s = &spec.services[i];
            match child.try_wait() {
                Ok(Some(st)) if s.ready == Ready::Exit && st.success() => boot.ready(i, now()),
                Ok(Some(st)) => {
                    return Err(BootError::Failed(s.name.clone(), format!("exited ({st}) before it was ready")));
                }
                Ok(None) => {
                    if let Ready::Port(p) = s.ready {
                        let addr = std::net::SocketAddr::from(([127, 0, 0, 1], p));
                        if std::net::TcpStream::connect_timeout(&addr, poll).is_ok() {
                            boot.ready(i, now());
                        }
                    }
                }
                Err(e) => return Err(BootError::Failed(s.name.clone(), format!("cannot be watched: {e}"))),
            }
            if matches!(boot.states[i], State::Starting(_)) && now() > deadline[i] {
                return Err(BootError::Failed(
                    s.name.clone(),
                    format!("not ready within {} ms ({:?})", s.timeout_ms, s.ready),
                ));
            }
        }
        if boot.done() {
            break;
        }
        std::thread::sleep(poll);
    }
    let all_ns = now();
    let stopped = fleet.stop_all();
    let services = boot
        .states
        .iter()
        .map(|s| match *s {
            State::Ready(a, b) => Some((a, b)),
            _ => None,
        })
        .collect();
    Ok(BootTimes { services, target_ns: boot.target_ready().unwrap_or(all_ns), all_ns, stopped })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boot::file::BootSpec;

    fn spec(jobs: usize) -> BootSpec {
        let text = format!(
            r#"format = "latlab.boot/1"
target = "ui"
jobs = {jobs}
[[service]]
name = "a"
command = ["true"]
ready = {{ exit = true }}
[[service]]
name = "b"
command = ["true"]
ready = {{ exit = true }}
[[service]]
name = "ui"
command = ["true"]
after = ["a", "b"]
ready = {{ exit = true }}
[[service]]
name = "late"
command = ["true"]
after = ["a"]
start = "delayed"
ready = {{ exit = true }}
[[service]]
name = "off"
command = ["true"]
start = "disabled"
ready = {{ exit = true }}
"#
        );
        BootSpec::parse(&text).unwrap()
    }

    #[test]
    fn dependency_order_parallelism_and_delayed_starts_on_a_fake_clock() {
        let s = spec(0);
        let mut b = Boot::new(&s);
        assert_eq!(b.states[4], State::Skipped);
        assert_eq!(b.startable(), vec![0, 1], "both roots at once");
        b.started(0, 0);
        b.started(1, 0);
        assert!(b.startable().is_empty());
        b.ready(0, 30);
        assert!(b.startable().is_empty(), "ui waits for b too; late waits for the target");
        b.ready(1, 50);
        assert_eq!(b.startable(), vec![2]);
        b.started(2, 50);
        b.ready(2, 80);
        assert_eq!(b.target_ready(), Some(80));
        assert_eq!(b.startable(), vec![3], "delayed: after the target");
        b.started(3, 80);
        b.ready(3, 90);
        assert!(b.done());
        // One job at a time: the roots start one after the other.
        let s1 = spec(1);
        let mut b = Boot::new(&s1);
        assert_eq!(b.startable(), vec![0]);
        b.started(0, 0);
        assert!(b.startable().is_empty());
        b.ready(0, 10);
        assert_eq!(b.startable(), vec![1]);
    }

    #[test]
    fn recommendations_delay_what_the_target_does_not_need_and_put_its_needs_first() {
        let text = r#"format = "latlab.boot/1"
target = "ui"
jobs = 1
[[service]]
name = "telemetry"
command = ["true"]
ready = { exit = true }
[[service]]
name = "fs"
command = ["true"]
ready = { exit = true }
[[service]]
name = "ui"
command = ["true"]
after = ["fs"]
ready = { exit = true }
"#;
        let s = BootSpec::parse(text).unwrap();
        // One job: telemetry ran first (0–40 ms), fs waited for it (40–60), ui 60–70.
        let ms = 1_000_000;
        let t = BootTimes {
            services: vec![Some((0, 40 * ms)), Some((40 * ms, 60 * ms)), Some((60 * ms, 70 * ms))],
            target_ns: 70 * ms,
            all_ns: 70 * ms,
            stopped: 0,
        };
        let advice = recommend(&s, &t);
        assert_eq!(advice.len(), 2, "{advice:?}");
        assert_eq!(advice[0].0, Advice::Delay(0));
        assert!(advice[0].1.contains("'ui' does not need it"), "{}", advice[0].1);
        assert_eq!(advice[1].0, Advice::TargetFirst);
        assert!(advice[1].1.contains("'fs' waited 40 ms"), "{}", advice[1].1);
        let better = apply(&s, &advice);
        assert_eq!(better.services[0].start, StartType::Delayed);
        // Applied: fs starts first, telemetry only after the target.
        let mut b = Boot::new(&better);
        assert_eq!(b.startable(), vec![1]);
        b.started(1, 0);
        b.ready(1, 20);
        assert_eq!(b.startable(), vec![2]);
        b.started(2, 20);
        b.ready(2, 30);
        assert_eq!(b.startable(), vec![0]);
        // A known-costly service nothing needs is disabled, not delayed.
        let nfs = text.replace("name = \"telemetry\"", "name = \"nfs-client\"");
        let s3 = BootSpec::parse(&nfs).unwrap();
        let advice = recommend(&s3, &t);
        assert_eq!(advice[0].0, Advice::Disable(0), "{advice:?}");
        assert!(advice[0].1.starts_with("disable 'nfs-client'"), "{}", advice[0].1);
        assert_eq!(apply(&s3, &advice).services[0].start, StartType::Disabled);
        // A boot where everything that starts is needed: no advice.
        let t2 =
            BootTimes { services: vec![None, Some((0, 20)), Some((20, 30))], target_ns: 30, all_ns: 30, stopped: 0 };
        assert!(recommend(&better, &t2).is_empty());
    }

    #[test]
    fn the_critical_path_follows_the_last_ready_wait() {
        let s = spec(0);
        let times = vec![Some((0, 30)), Some((0, 50)), Some((50, 80)), Some((80, 90)), None];
        assert_eq!(critical_path(&s, &times), vec![1, 2]);
        let times = vec![Some((0, 70)), Some((0, 50)), Some((70, 80)), None, None];
        assert_eq!(critical_path(&s, &times), vec![0, 2]);
    }

    #[test]
    fn a_real_boot_runs_in_order_and_leaves_nothing_running() {
        // A line-ready service that keeps running, a port-ready one (this test listens for
        // it), a one-shot, and the target after all three.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let text = format!(
            r#"format = "latlab.boot/1"
target = "ui"
[[service]]
name = "net"
command = ["sh", "-c", "echo starting; echo up; exec sleep 30"]
ready = {{ line = "up" }}
[[service]]
name = "db"
command = ["sleep", "30"]
ready = {{ port = {port} }}
[[service]]
name = "fs"
command = ["sh", "-c", "exit 0"]
ready = {{ exit = true }}
[[service]]
name = "ui"
command = ["true"]
after = ["net", "db", "fs"]
ready = {{ exit = true }}
"#
        );
        let s = BootSpec::parse(&text).unwrap();
        let t = run_once(&s).unwrap();
        let (ui_start, ui_ready) = t.services[3].unwrap();
        for d in 0..3 {
            assert!(t.services[d].unwrap().1 <= ui_start, "ui started before {d} was ready: {t:?}");
        }
        assert_eq!(t.target_ns, ui_ready);
        assert_eq!(t.stopped, 2, "net and db were still running and were stopped");
        // A service that fails before it is ready: an error naming it, and the others reaped.
        let failing = text.replace("exit 0", "exit 3");
        let e = run_once(&BootSpec::parse(&failing).unwrap()).unwrap_err();
        assert!(e.to_string().starts_with("service 'fs': exited"), "{e}");
        let missing = text.replace("\"sh\", \"-c\", \"exit 0\"", "\"/nonexistent/latlab-no-such-program\"");
        let e = run_once(&BootSpec::parse(&missing).unwrap()).unwrap_err();
        assert!(e.to_string().contains("cannot start"), "{e}");
        // No `sleep 30` of ours is left: every service was reaped.
        let ours = std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| e.ok())
            .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
            .filter(|st| {
                st.contains("(sleep)") && st.split_whitespace().nth(3) == Some(&std::process::id().to_string())
            })
            .count();
        assert_eq!(ours, 0, "a service of this test is still alive");
        drop(listener);
    }
}
