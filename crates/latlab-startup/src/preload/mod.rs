//! The library of `latlab startup preload` (seed 004's Superfetch proper): launch plans for
//! many commands (up to 123, as the seed's Superfetch kept), each ranked by how often and how
//! recently it was launched; the preloader that reads them is [`crate::preload::preloader`].
//!
//! The library is a JSON file (`"schema": "latlab.preload/1"`). The ranking is a launch
//! count decayed with a half-life ([`crate::defaults::PRELOAD_HALF_LIFE_H`]): each launch adds
//! 1 to a score that halves every half-life, so a program used daily outranks one used often
//! long ago. Ranking and capacity are pure, tested on given times.

use crate::plan::Plan;
use serde::{Deserialize, Serialize};
use std::path::Path;

pub mod measure;
pub mod preloader;

/// The library format's name and version.
pub const SCHEMA: &str = "latlab.preload/1";

/// One command the library knows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The command, program first.
    pub command: Vec<String>,
    /// Launches counted.
    pub launches: u64,
    /// The decayed launch count at `last_ms`.
    pub score: f64,
    /// The last launch, ms since the Unix epoch.
    pub last_ms: u64,
    /// Its launch plan.
    pub plan: Plan,
}

/// The library.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Library {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// Most entries kept; the lowest-ranked goes when a new one would pass it.
    pub capacity: usize,
    /// Half-life of a launch's weight, hours.
    pub half_life_h: f64,
    /// The commands.
    pub entries: Vec<Entry>,
}

/// Why a library could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum LibraryError {
    /// Not JSON of the library's shape.
    #[error("'{file}', line {line}, column {column}: {msg}")]
    Syntax {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        msg: String,
    },
    /// Another schema, or values that cannot be.
    #[error("'{file}': {msg}")]
    Invalid {
        /// The file.
        file: String,
        /// What is wrong.
        msg: String,
    },
    /// Reading or writing failed.
    #[error("'{file}': {source}")]
    Io {
        /// The file.
        file: String,
        /// Why.
        source: std::io::Error,
    },
}

impl Default for Library {
    fn default() -> Self {
        Self {
            schema: SCHEMA.into(),
            capacity: crate::defaults::PRELOAD_CAPACITY,
            half_life_h: crate::defaults::PRELOAD_HALF_LIFE_H,
            entries: Vec::new(),
        }
    }
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

impl Library {
    /// Read the library at `path`; a file that does not exist is an empty library.
    pub fn load(path: &Path) -> Result<Self, LibraryError> {
        let file = path.display().to_string();
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(source) => return Err(LibraryError::Io { file, source }),
        };
        Self::from_json(&text, &file)
    }

    /// From JSON, checked (`file` names it in errors).
    pub fn from_json(text: &str, file: &str) -> Result<Self, LibraryError> {
        let lib: Library = serde_json::from_str(text).map_err(|e| LibraryError::Syntax {
            file: file.into(),
            line: e.line(),
            column: e.column(),
            // serde's text ends with the place, which the error already gives.
            msg: e.to_string().trim_end_matches(&format!(" at line {} column {}", e.line(), e.column())).to_string(),
        })?;
        let bad = |msg: String| LibraryError::Invalid { file: file.into(), msg };
        if lib.schema != SCHEMA {
            return Err(bad(format!("schema \"{}\": this latlab reads \"{SCHEMA}\"", lib.schema)));
        }
        if lib.capacity == 0 || !(lib.half_life_h > 0.0 && lib.half_life_h.is_finite()) {
            return Err(bad("capacity must be at least 1 and half_life_h a positive number of hours".into()));
        }
        for (i, e) in lib.entries.iter().enumerate() {
            if e.command.is_empty() || !(e.score >= 0.0 && e.score.is_finite()) {
                return Err(bad(format!("entry {}: an empty command or a score that is not a number ≥ 0", i + 1)));
            }
            // The plan's own checks (schema, ranges).
            Plan::from_json(&e.plan.to_json()).map_err(|p| bad(format!("entry {} ({}): {p}", i + 1, e.command[0])))?;
        }
        Ok(lib)
    }

    /// Write the library to `path` (to a temporary file beside it, then renamed, so a crash
    /// never leaves half a library).
    pub fn save(&self, path: &Path) -> Result<(), LibraryError> {
        let io = |source| LibraryError::Io { file: path.display().to_string(), source };
        let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
        let text = serde_json::to_string_pretty(self).expect("a library always serializes");
        std::fs::write(&tmp, text).map_err(io)?;
        std::fs::rename(&tmp, path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            io(e)
        })
    }

    /// The score of `e` at `now_ms`: its score decayed since its last launch.
    pub fn score_at(&self, e: &Entry, now_ms: u64) -> f64 {
        let hours = now_ms.saturating_sub(e.last_ms) as f64 / 3.6e6;
        e.score * 0.5f64.powf(hours / self.half_life_h)
    }

    /// The entry for `command`.
    pub fn find(&self, command: &[String]) -> Option<&Entry> {
        self.entries.iter().find(|e| e.command == command)
    }

    /// Whether `command` needs its plan learned: no entry, or a file of its plan that changed
    /// size or is gone (the seed: a plan does not change "unless the files being accessed …
    /// change").
    pub fn needs_plan(&self, command: &[String]) -> bool {
        self.find(command)
            .is_none_or(|e| e.plan.files.iter().any(|f| std::fs::metadata(&f.path).map_or(true, |m| m.len() != f.size)))
    }

    /// Count one launch of `command` at `now_ms`, with its plan when one was (re)learned.
    /// A new command past the capacity pushes out the lowest-ranked of the others, which is
    /// returned.
    /// A command with no entry and no plan is an error: there is nothing to preload.
    pub fn launched(
        &mut self,
        command: &[String],
        plan: Option<Plan>,
        now_ms: u64,
    ) -> Result<Option<Entry>, crate::learn::StartupError> {
        if let Some(k) = self.entries.iter().position(|e| e.command == command) {
            let score = self.score_at(&self.entries[k], now_ms) + 1.0;
            let e = &mut self.entries[k];
            e.score = score;
            e.last_ms = e.last_ms.max(now_ms);
            e.launches += 1;
            if let Some(p) = plan {
                e.plan = p;
            }
            return Ok(None);
        }
        let plan = plan.ok_or_else(|| {
            crate::learn::StartupError::Needs(format!("'{}' has no plan in the library yet", command.join(" ")))
        })?;
        self.entries.push(Entry { command: command.to_vec(), launches: 1, score: 1.0, last_ms: now_ms, plan });
        if self.entries.len() <= self.capacity {
            return Ok(None);
        }
        // The lowest-ranked of the others goes (never the command just launched); among
        // equals, the longest unused.
        let k = (0..self.entries.len() - 1)
            .min_by(|&a, &b| {
                let (x, y) = (&self.entries[a], &self.entries[b]);
                self.score_at(x, now_ms).total_cmp(&self.score_at(y, now_ms)).then(x.last_ms.cmp(&y.last_ms))
            })
            .unwrap_or(0);
        Ok(Some(self.entries.remove(k)))
    }

    /// The entries by rank at `now_ms`, highest first, each with its score then.
    pub fn ranked(&self, now_ms: u64) -> Vec<(&Entry, f64)> {
        let mut v: Vec<(&Entry, f64)> = self.entries.iter().map(|e| (e, self.score_at(e, now_ms))).collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.last_ms.cmp(&a.0.last_ms)));
        v
    }
}

/// `latlab startup preload launch`: launch `spec` through the library at `path` — its plan is
/// learned (a traced launch, then one from evicted files) the first time or when a file of it
/// changed, else the command is launched once — and count the launch. Returns what was done,
/// in words.
pub fn launch_through(
    path: &Path,
    spec: &crate::launch::LaunchSpec,
    tracer: crate::trace::TracerChoice,
) -> Result<String, crate::learn::StartupError> {
    use crate::learn::StartupError;
    let mut lib = Library::load(path).map_err(|e| StartupError::Preload(e.to_string()))?;
    let (plan, did) = if lib.needs_plan(&spec.command) {
        let l = crate::learn::learn(&crate::learn::RecordConfig { launch: spec.clone(), tracer })?;
        let did =
            format!("learned its plan ({} files, {} pages, {} tracer)", l.plan.files.len(), l.plan.pages(), l.tracer);
        (Some(l.plan), did)
    } else {
        let l = crate::launch::launch(spec, std::time::Instant::now(), false)?;
        (None, format!("launched (ready in {})", latlab_model::record::fmt_ns(l.ready_ns as f64)))
    };
    let gone = lib.launched(&spec.command, plan, now_ms())?;
    lib.save(path).map_err(|e| StartupError::Preload(e.to_string()))?;
    let e = lib.find(&spec.command).expect("just counted");
    let mut out = format!("{}: {did}; {} launches counted, in {}", spec.command.join(" "), e.launches, path.display());
    if let Some(g) = gone {
        out.push_str(&format!(
            "; the library was full ({}), so '{}' (the lowest-ranked) was dropped",
            lib.capacity,
            g.command.join(" ")
        ));
    }
    Ok(out)
}

/// The library's ranking as a text table (rank, score, launches, last launch, plan size,
/// command).
pub fn ranking_text(lib: &Library, now_ms: u64) -> String {
    let mut out = format!(
        "{} of at most {} plans; score = launches, each halving every {} h\n",
        lib.entries.len(),
        lib.capacity,
        lib.half_life_h
    );
    out.push_str("rank  score  launches  last launch  plan pages  command\n");
    for (i, (e, s)) in lib.ranked(now_ms).iter().enumerate() {
        let ago = now_ms.saturating_sub(e.last_ms) as f64 / 3.6e6;
        out.push_str(&format!(
            "{:>4}  {:>5.2}  {:>8}  {:>8.1} h ago  {:>10}  {}\n",
            i + 1,
            s,
            e.launches,
            ago,
            e.plan.pages(),
            e.command.join(" ")
        ));
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::plan::PlanFile;

    /// A plan of these files (no command).
    pub(crate) fn plan(files: Vec<PlanFile>) -> Plan {
        Plan { schema: crate::plan::SCHEMA.into(), command: vec![], page_size: 4096, files }
    }
    /// A one-word command.
    pub(crate) fn cmd(s: &str) -> Vec<String> {
        vec![s.to_string()]
    }
    /// An hour, ms.
    pub(crate) const H: u64 = 3_600_000;

    /// A scratch directory, removed when dropped.
    pub(crate) struct Scratch(std::path::PathBuf);
    impl Scratch {
        pub(crate) fn new(tag: &str) -> Self {
            let d = std::env::temp_dir().join(format!("latlab-preload-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&d);
            std::fs::create_dir_all(&d).unwrap();
            Self(d)
        }
        pub(crate) fn path(&self) -> &Path {
            &self.0
        }
    }
    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn launches_rank_by_how_often_and_how_recently() {
        let mut lib = Library { half_life_h: 24.0, ..Library::default() };
        // "daily" launched once a day for 5 days; "burst" 6 times ten days ago.
        let t0 = 1_000 * H;
        for k in 0..6 {
            lib.launched(&cmd("burst"), Some(plan(vec![])), t0 + k).unwrap();
        }
        for d in 6..11 {
            lib.launched(&cmd("daily"), Some(plan(vec![])), t0 + d * 24 * H).unwrap();
        }
        let now = t0 + 10 * 24 * H;
        let r = lib.ranked(now);
        assert_eq!(r[0].0.command, cmd("daily"), "{r:?}");
        assert_eq!(r[1].0.launches, 6);
        // 6 launches decayed over 10 half-lives: 6/1024.
        assert!((r[1].1 - 6.0 / 1024.0).abs() < 1e-3, "{}", r[1].1);
        // A launch of a command with no plan yet is refused; with one entry it counts.
        assert!(lib.launched(&cmd("new"), None, now).is_err());
        lib.launched(&cmd("burst"), None, now).unwrap();
        assert_eq!(lib.find(&cmd("burst")).unwrap().launches, 7);
    }

    #[test]
    fn past_the_capacity_the_lowest_ranked_goes() {
        let mut lib = Library { capacity: 3, ..Library::default() };
        for (i, n) in ["a", "b", "c"].iter().enumerate() {
            for k in 0..=i as u64 {
                lib.launched(&cmd(n), Some(plan(vec![])), 10 * H + k).unwrap();
            }
        }
        let gone = lib.launched(&cmd("d"), Some(plan(vec![])), 11 * H).unwrap().unwrap();
        assert_eq!(gone.command, cmd("a"));
        assert_eq!(lib.entries.len(), 3);
        assert_eq!(Library::default().capacity, 123, "the seed's Superfetch kept up to 123 plans");
        // The command just launched stays, however often the others were.
        let mut one = Library { capacity: 1, ..Library::default() };
        for k in 0..5 {
            one.launched(&cmd("old"), Some(plan(vec![])), 10 * H + k).unwrap();
        }
        assert_eq!(one.launched(&cmd("new"), Some(plan(vec![])), 11 * H).unwrap().unwrap().command, cmd("old"));
        assert!(one.find(&cmd("new")).is_some());
    }

    #[test]
    fn a_library_round_trips_and_a_broken_one_names_the_place() {
        let dir = Scratch::new("lib");
        let p = dir.path().join("lib.json");
        assert_eq!(Library::load(&p).unwrap(), Library::default(), "no file: empty");
        let mut lib = Library::default();
        lib.launched(&cmd("x"), Some(plan(vec![PlanFile { path: "/x".into(), size: 9, ranges: vec![(0, 1)] }])), H)
            .unwrap();
        lib.save(&p).unwrap();
        assert_eq!(Library::load(&p).unwrap(), lib);
        std::fs::write(&p, "{\n \"schema\": \"latlab.preload/1\",\n \"capacity\": \"many\"\n}").unwrap();
        let e = Library::load(&p).unwrap_err().to_string();
        assert!(e.contains("line 3"), "{e}");
        let other = serde_json::to_string(&Library { schema: "x/9".into(), ..Library::default() }).unwrap();
        assert!(Library::from_json(&other, "f").unwrap_err().to_string().contains("schema \"x/9\""));
        let mut bad = lib.clone();
        bad.entries[0].plan.files[0].ranges = vec![(0, 0)];
        let e = Library::from_json(&serde_json::to_string(&bad).unwrap(), "f").unwrap_err().to_string();
        assert!(e.contains("entry 1 (x)"), "{e}");
    }
}
