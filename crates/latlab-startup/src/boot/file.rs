//! The `latlab.boot/1` boot description `latlab boot measure` runs: services with a command,
//! what each waits for (`after`), how it signals readiness (it exits, it prints a line, it
//! listens on a TCP port), its start type (auto, delayed, disabled), and the target service
//! whose readiness means "ready for the user". TOML or JSON; a malformed file is an error
//! naming the line and the field.
//!
//! ```toml
//! format = "latlab.boot/1"
//! target = "desktop"
//!
//! [[service]]
//! name = "storage"
//! command = ["/usr/bin/storage-init"]
//! ready = { exit = true }
//!
//! [[service]]
//! name = "desktop"
//! command = ["/usr/bin/shell", "--session"]
//! after = ["storage"]
//! ready = { line = "session ready" }
//! ```

use serde::Deserialize;
use std::collections::HashMap;

/// The format string a boot file must carry.
pub const FORMAT: &str = "latlab.boot/1";

/// How a service says it is ready.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadyWire {
    /// Ready when it exits with status 0 (a one-shot service).
    #[serde(default)]
    pub exit: bool,
    /// Ready when a line of its standard output matches this regular expression.
    pub line: Option<String>,
    /// Ready when something accepts a TCP connection on 127.0.0.1 at this port.
    pub port: Option<u16>,
}

/// How a service signals readiness.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ready {
    /// It exits with status 0.
    Exit,
    /// A line of its standard output matches the regular expression.
    Line(String),
    /// A TCP connection to 127.0.0.1:port succeeds.
    Port(u16),
}

/// When a service starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StartType {
    /// As soon as what it waits for is ready.
    #[default]
    Auto,
    /// After the target is ready (Windows' delayed auto-start: out of the user's way).
    Delayed,
    /// Not started.
    Disabled,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServiceWire {
    name: String,
    command: Vec<String>,
    #[serde(default)]
    after: Vec<String>,
    ready: ReadyWire,
    #[serde(default)]
    start: StartType,
    timeout_ms: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BootWire {
    format: String,
    target: String,
    #[serde(default)]
    jobs: usize,
    #[serde(rename = "service")]
    services: Vec<ServiceWire>,
}

/// One service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceSpec {
    /// Its name.
    pub name: String,
    /// Program and arguments.
    pub command: Vec<String>,
    /// The services it waits for, by index into [`BootSpec::services`].
    pub after: Vec<usize>,
    /// How it signals readiness.
    pub ready: Ready,
    /// When it starts.
    pub start: StartType,
    /// Longest wait for its readiness once started, ms.
    pub timeout_ms: u64,
}

/// A boot description, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BootSpec {
    /// The services, in the file's order.
    pub services: Vec<ServiceSpec>,
    /// The target's index.
    pub target: usize,
    /// Most services starting or running before ready at once (0: no limit).
    pub jobs: usize,
    /// Start the services the target needs before the others when jobs are short (set by
    /// the "start first" recommendation; not a file field).
    pub target_first: bool,
}

/// A malformed boot file: the line (1-based, 0 when unknown) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {what}")]
pub struct BootFileError {
    /// The line.
    pub line: usize,
    /// What is wrong, naming the field.
    pub what: String,
}

/// The line of the first occurrence of `needle` in `text` (1-based; 0 if absent).
fn line_of(text: &str, needle: &str) -> usize {
    text.find(needle).map_or(0, |at| text[..at].matches('\n').count() + 1)
}

/// The line where service `name` is declared (its `name` field), in TOML or JSON.
fn service_line(text: &str, name: &str) -> usize {
    let toml = line_of(text, &format!("name = \"{name}\""));
    if toml > 0 { toml } else { line_of(text, &format!("\"{name}\"")) }
}

impl BootSpec {
    /// Parse a boot file (JSON when it starts with `{`, else TOML) and check it.
    pub fn parse(text: &str) -> Result<Self, BootFileError> {
        let wire: BootWire = if text.trim_start().starts_with('{') {
            serde_json::from_str(text).map_err(|e| BootFileError { line: e.line(), what: e.to_string() })?
        } else {
            toml::from_str(text).map_err(|e| BootFileError {
                line: e.span().map_or(0, |s| text[..s.start.min(text.len())].matches('\n').count() + 1),
                what: e.message().to_string(),
            })?
        };
        Self::check(wire, text)
    }

    fn check(w: BootWire, text: &str) -> Result<Self, BootFileError> {
        let err = |line: usize, what: String| BootFileError { line, what };
        if w.format != FORMAT {
            return Err(err(line_of(text, "format"), format!("format: '{}', expected '{FORMAT}'", w.format)));
        }
        if w.services.is_empty() {
            return Err(err(0, "service: no services".into()));
        }
        let mut index = HashMap::new();
        for (i, s) in w.services.iter().enumerate() {
            if s.name.is_empty()
                || !s.name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
            {
                return Err(err(
                    service_line(text, &s.name),
                    format!("name: '{}': use lower-case letters, digits, '-' and '_'", s.name),
                ));
            }
            if index.insert(s.name.clone(), i).is_some() {
                return Err(err(service_line(text, &s.name), format!("name: '{}' is declared twice", s.name)));
            }
        }
        let mut services = Vec::new();
        for s in &w.services {
            let line = service_line(text, &s.name);
            if s.command.is_empty() || s.command[0].is_empty() {
                return Err(err(line, format!("command: service '{}' has no program", s.name)));
            }
            let ready = match (&s.ready.exit, &s.ready.line, s.ready.port) {
                (true, None, None) => Ready::Exit,
                (false, Some(l), None) if !l.is_empty() => {
                    if let Err(e) = regex::Regex::new(l) {
                        return Err(err(
                            line,
                            format!("ready: service '{}': line is not a regular expression: {e}", s.name),
                        ));
                    }
                    Ready::Line(l.clone())
                }
                (false, None, Some(p)) if p > 0 => Ready::Port(p),
                _ => {
                    return Err(err(
                        line,
                        format!(
                            "ready: service '{}' needs exactly one of exit = true, line = \"text\", port = N",
                            s.name
                        ),
                    ));
                }
            };
            let mut after = Vec::new();
            for a in &s.after {
                match index.get(a) {
                    Some(&j) => after.push(j),
                    None => {
                        return Err(err(
                            line,
                            format!("after: service '{}' waits for '{a}', which is not declared", s.name),
                        ));
                    }
                }
            }
            services.push(ServiceSpec {
                name: s.name.clone(),
                command: s.command.clone(),
                after,
                ready,
                start: s.start,
                timeout_ms: s.timeout_ms.unwrap_or(crate::defaults::BOOT_READY_TIMEOUT_MS),
            });
        }
        let Some(&target) = index.get(&w.target) else {
            return Err(err(line_of(text, "target"), format!("target: '{}' is not a declared service", w.target)));
        };
        let spec = BootSpec { services, target, jobs: w.jobs, target_first: false };
        if let Some(cycle) = spec.cycle() {
            let names: Vec<&str> = cycle.iter().map(|&i| spec.services[i].name.as_str()).collect();
            return Err(err(
                service_line(text, names[0]),
                format!("after: the services wait for each other in a circle: {}", names.join(" → ")),
            ));
        }
        for (i, s) in spec.services.iter().enumerate() {
            for &d in &s.after {
                if spec.services[d].start == StartType::Disabled && s.start != StartType::Disabled {
                    return Err(err(
                        service_line(text, &s.name),
                        format!("after: '{}' waits for '{}', which is disabled", s.name, spec.services[d].name),
                    ));
                }
                let needed = i == spec.target || spec.must_precede_target(i);
                if needed && spec.services[d].start == StartType::Delayed {
                    return Err(err(
                        service_line(text, &s.name),
                        format!(
                            "after: '{}' is needed for the target but waits for '{}', which is delayed until after the target",
                            s.name, spec.services[d].name
                        ),
                    ));
                }
            }
        }
        if spec.services[target].start != StartType::Auto {
            return Err(err(line_of(text, "target"), format!("target: '{}' must start auto", w.target)));
        }
        Ok(spec)
    }

    /// A cycle in `after`, as service indices, if there is one.
    pub fn cycle(&self) -> Option<Vec<usize>> {
        // 0 unvisited, 1 on the stack, 2 done.
        fn visit(s: &BootSpec, i: usize, mark: &mut [u8], stack: &mut Vec<usize>) -> Option<Vec<usize>> {
            mark[i] = 1;
            stack.push(i);
            for &d in &s.services[i].after {
                if mark[d] == 1 {
                    let from = stack.iter().position(|&x| x == d).unwrap_or(0);
                    let mut c = stack[from..].to_vec();
                    c.push(d);
                    return Some(c);
                }
                if mark[d] == 0
                    && let Some(c) = visit(s, d, mark, stack)
                {
                    return Some(c);
                }
            }
            stack.pop();
            mark[i] = 2;
            None
        }
        let mut mark = vec![0u8; self.services.len()];
        (0..self.services.len())
            .find_map(|i| if mark[i] == 0 { visit(self, i, &mut mark, &mut Vec::new()) } else { None })
    }

    /// Does the target (transitively) wait for service `i`?
    pub fn must_precede_target(&self, i: usize) -> bool {
        let mut seen = vec![false; self.services.len()];
        let mut todo = vec![self.target];
        while let Some(x) = todo.pop() {
            if x == i {
                return true;
            }
            for &d in &self.services[x].after {
                if !std::mem::replace(&mut seen[d], true) {
                    todo.push(d);
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
format = "latlab.boot/1"
target = "desktop"

[[service]]
name = "storage"
command = ["true"]
ready = { exit = true }

[[service]]
name = "network"
command = ["sh", "-c", "echo up; sleep 5"]
ready = { line = "up" }

[[service]]
name = "desktop"
command = ["true"]
after = ["storage", "network"]
ready = { exit = true }

[[service]]
name = "indexer"
command = ["true"]
after = ["storage"]
ready = { exit = true }
start = "delayed"
"#;

    #[test]
    fn a_good_file_reads_in_toml_and_json_alike() {
        let s = BootSpec::parse(GOOD).unwrap();
        assert_eq!(s.services.len(), 4);
        assert_eq!(s.target, 2);
        assert_eq!(s.services[2].after, vec![0, 1]);
        assert_eq!(s.services[1].ready, Ready::Line("up".into()));
        assert_eq!(s.services[3].start, StartType::Delayed);
        assert!(s.must_precede_target(0) && !s.must_precede_target(3));
        let json = r#"{"format": "latlab.boot/1", "target": "a", "jobs": 2,
            "service": [{"name": "a", "command": ["true"], "ready": {"port": 8080}}]}"#;
        let j = BootSpec::parse(json).unwrap();
        assert_eq!((j.jobs, &j.services[0].ready), (2, &Ready::Port(8080)));
    }

    #[test]
    fn a_malformed_file_names_the_line_and_the_field() {
        let bad = |from: &str, to: &str| BootSpec::parse(&GOOD.replacen(from, to, 1)).unwrap_err();
        let e = bad("after = [\"storage\", \"network\"]", "after = [\"storage\", \"nfs\"]");
        assert_eq!(e.line, line_of(GOOD, "name = \"desktop\""));
        assert!(e.what.contains("'nfs', which is not declared"), "{e}");
        let e = bad("ready = { line = \"up\" }", "ready = { line = \"up\", port = 80 }");
        assert!(e.what.starts_with("ready: service 'network' needs exactly one"), "{e}");
        let e = bad("command = [\"true\"]\nready", "command = []\nready");
        assert!(e.what.starts_with("command:"), "{e}");
        let e = bad("latlab.boot/1", "latlab.boot/9");
        assert_eq!(e.line, 2);
        let e = bad("target = \"desktop\"", "target = \"nope\"");
        assert!(e.what.starts_with("target:"), "{e}");
        // A type error or an unknown field: the TOML parser's line.
        let e = bad("command = [\"sh\"", "commnd = [\"sh\"");
        assert!(e.line >= 10 && e.what.contains("commnd"), "{e}");
        let e = BootSpec::parse("{\"format\": \"latlab.boot/1\",\n \"target\": 5}").unwrap_err();
        assert_eq!(e.line, 2);
        // A circle, named in order; a delayed service the target needs.
        let e = bad(
            "name = \"storage\"\ncommand = [\"true\"]",
            "name = \"storage\"\nafter = [\"desktop\"]\ncommand = [\"true\"]",
        );
        assert!(e.what.contains("circle: storage → desktop → storage"), "{e}");
        let e = bad("name = \"network\"\ncommand", "name = \"network\"\nstart = \"delayed\"\ncommand");
        assert!(e.what.contains("delayed until after the target"), "{e}");
        let e = bad("name = \"indexer\"", "name = \"storage\"");
        assert!(e.what.contains("declared twice"), "{e}");
    }
}
