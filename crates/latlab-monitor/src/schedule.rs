//! The load schedule of a long run, as OSADL's QA farm runs its boards: stretches idle and
//! stretches under load, repeating, so a run of days covers both states. Written
//! `idle=2h,load=3h30m`; with no schedule the monitor stays idle.

/// A state of the schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Nothing added.
    Idle,
    /// latlab's load running.
    Load,
}

impl State {
    /// Its name in schedules, windows and metrics' labels.
    pub fn name(self) -> &'static str {
        match self {
            State::Idle => "idle",
            State::Load => "load",
        }
    }
}

/// A repeating list of (state, duration).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    steps: Vec<(State, u64)>,
    cycle_ns: u64,
}

impl Default for Schedule {
    /// Idle for ever.
    fn default() -> Self {
        Self { steps: vec![(State::Idle, u64::MAX)], cycle_ns: u64::MAX }
    }
}

impl Schedule {
    /// Parse `idle=2h,load=3h30m` (states `idle` and `load`, durations as `humantime` reads
    /// them, at least 1 s each).
    pub fn parse(s: &str) -> Result<Self, latlab_model::ConfigError> {
        let mut steps = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, dur) =
                part.split_once('=').ok_or_else(|| format!("'{part}': a step is STATE=DURATION, e.g. idle=2h"))?;
            let state = match name.trim() {
                "idle" => State::Idle,
                "load" => State::Load,
                other => return Err(format!("'{other}' is not a state (idle, load)").into()),
            };
            let d = humantime::parse_duration(dur.trim())
                .map_err(|e| format!("'{dur}' is not a duration like 30m or 3h30m: {e}"))?;
            if d.as_secs() < 1 {
                return Err(format!("'{part}': a step lasts at least 1 s").into());
            }
            steps.push((state, d.as_nanos().min(u64::MAX as u128) as u64));
        }
        if steps.is_empty() {
            return Err("an empty schedule (write e.g. idle=2h,load=3h30m)".into());
        }
        let cycle_ns = steps.iter().fold(0u64, |a, s| a.saturating_add(s.1));
        Ok(Self { steps, cycle_ns })
    }

    /// The state at `elapsed_ns` since the run began, and how long it lasts from then.
    pub fn at(&self, elapsed_ns: u64) -> (State, u64) {
        let mut t = elapsed_ns % self.cycle_ns.max(1);
        for &(state, d) in &self.steps {
            if t < d {
                return (state, d - t);
            }
            t -= d;
        }
        (self.steps[0].0, self.steps[0].1)
    }

    /// Whether any step puts load on.
    pub fn has_load(&self) -> bool {
        self.steps.iter().any(|s| s.0 == State::Load)
    }
}

impl std::fmt::Display for Schedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.cycle_ns == u64::MAX {
            return write!(f, "idle");
        }
        let parts: Vec<String> = self
            .steps
            .iter()
            .map(|(s, d)| format!("{}={}", s.name(), humantime::format_duration(std::time::Duration::from_nanos(*d))))
            .collect();
        write!(f, "{}", parts.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: u64 = 3_600_000_000_000;
    const M: u64 = 60_000_000_000;

    #[test]
    fn a_schedule_repeats_its_steps() {
        let s = Schedule::parse("idle=2h, load=3h30m").unwrap();
        assert_eq!(s.to_string(), "idle=2h,load=3h 30m");
        assert!(s.has_load());
        assert_eq!(s.at(0), (State::Idle, 2 * H));
        assert_eq!(s.at(2 * H - 1), (State::Idle, 1));
        assert_eq!(s.at(2 * H), (State::Load, 3 * H + 30 * M));
        // A day and a half later: 36 h = 6 cycles of 5h30 (33 h) + 3 h → 1 h into the load.
        assert_eq!(s.at(36 * H), (State::Load, 2 * H + 30 * M));
        assert_eq!(Schedule::default().at(1_000 * H).0, State::Idle);
        assert!(!Schedule::default().has_load());
    }

    #[test]
    fn bad_schedules_say_what_is_wrong() {
        assert!(Schedule::parse("").unwrap_err().to_string().contains("empty"));
        assert!(Schedule::parse("busy=1h").unwrap_err().to_string().contains("not a state"));
        assert!(Schedule::parse("idle").unwrap_err().to_string().contains("STATE=DURATION"));
        assert!(Schedule::parse("idle=soon").unwrap_err().to_string().contains("not a duration"));
        assert!(Schedule::parse("load=10ms").unwrap_err().to_string().contains("at least 1 s"));
    }
}
