//! `latlab boot analyze`: where a boot's time went, from a boot trace — the XML of
//! `xperf -a boot` that seed 004 reads (`<services autoStart…>` with `<serviceTransition>`
//! per service, and `<timing>` phases where present), or systemd's `systemd-analyze blame`
//! and `systemd-analyze critical-chain` text. The result: services sorted by cost, the
//! total auto-start time, the critical path, and candidates to delay or disable, each with
//! its reason. A malformed file is an error naming the line and what was expected.

use latlab_sys::record::Finish;
use quick_xml::events::{BytesStart, Event};

/// Which format a trace was in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `xperf -a boot` XML.
    Xperf,
    /// `systemd-analyze blame`.
    Blame,
    /// `systemd-analyze critical-chain`.
    CriticalChain,
    /// A boot `latlab boot measure` ran and stored (its median boot).
    Measured,
}

/// One service's start.
#[derive(Debug, Clone, PartialEq)]
pub struct Service {
    /// Its name.
    pub name: String,
    /// Its group (xperf) or unit type (systemd).
    pub group: String,
    /// Time to start, ms.
    pub duration_ms: f64,
    /// When it started, ms from the trace's zero (if known).
    pub started_ms: Option<f64>,
    /// When it was done, ms (if known).
    pub ended_ms: Option<f64>,
    /// Time until its first checkpoint (waiting, before its own work), ms (xperf).
    pub waiting_ms: Option<f64>,
    /// The process hosting it (xperf).
    pub container: String,
    /// Line in the file.
    pub line: usize,
}

/// A parsed boot trace.
#[derive(Debug, Clone, PartialEq)]
pub struct BootTrace {
    /// The format.
    pub format: Format,
    /// The services, in the file's order.
    pub services: Vec<Service>,
    /// Auto-start window (start, end, duration), ms (xperf).
    pub autostart: Option<(f64, f64, f64)>,
    /// Boot phases, ms (xperf `<timing>` attributes).
    pub phases: Vec<(String, f64)>,
    /// The critical chain as printed, target first (systemd critical-chain).
    pub chain: Vec<Service>,
}

/// A malformed trace: where and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {expected}")]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// What was expected there.
    pub expected: String,
}

fn err(line: usize, expected: impl Into<String>) -> ParseError {
    ParseError { line, expected: expected.into() }
}

/// Parse a trace, telling the format from its content.
pub fn parse(text: &str) -> Result<BootTrace, ParseError> {
    let first = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    if first.starts_with('<') {
        parse_xperf(text)
    } else if text.contains('@') && (text.contains("└─") || text.contains("critical") || text.contains(".target @"))
    {
        parse_chain(text)
    } else {
        parse_blame(text)
    }
}

fn line_of(text: &str, pos: u64) -> usize {
    text.as_bytes()[..(pos as usize).min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

fn attr(e: &BytesStart, key: &str, line: usize) -> Result<Option<String>, ParseError> {
    for a in e.attributes() {
        let a = a.map_err(|x| err(line, format!("well-formed attributes ({x})")))?;
        if a.key.as_ref() == key.as_bytes() {
            let v = a
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map_err(|x| err(line, format!("a valid attribute value ({x})")))?;
            return Ok(Some(v.to_string()));
        }
    }
    Ok(None)
}

fn num(e: &BytesStart, key: &str, line: usize, what: &str) -> Result<Option<f64>, ParseError> {
    match attr(e, key, line)? {
        None => Ok(None),
        Some(v) => v
            .trim()
            .parse::<f64>()
            .map(Some)
            .map_err(|_| err(line, format!("{what}: {key} as a number of ms, found \"{v}\""))),
    }
}

fn parse_xperf(text: &str) -> Result<BootTrace, ParseError> {
    let mut r = quick_xml::Reader::from_str(text);
    r.config_mut().check_end_names = true;
    let mut t = BootTrace {
        format: Format::Xperf,
        services: Vec::new(),
        autostart: None,
        phases: Vec::new(),
        chain: Vec::new(),
    };
    let mut in_services = false;
    loop {
        let pos = r.buffer_position();
        let ev =
            r.read_event().map_err(|e| err(line_of(text, r.error_position()), format!("well-formed XML ({e})")))?;
        let line = line_of(text, pos)
            + text[pos as usize..].chars().take_while(|c| c.is_whitespace()).filter(|&c| c == '\n').count();
        match ev {
            Event::Start(e) | Event::Empty(e) => match e.name().as_ref() {
                b"services" => {
                    in_services = true;
                    let s = num(&e, "autoStartStartTime", line, "<services>")?;
                    let en = num(&e, "autoStartEndTime", line, "<services>")?;
                    let d = num(&e, "autoStartDuration", line, "<services>")?;
                    match (s, en, d) {
                        (Some(s), Some(en), Some(d)) => t.autostart = Some((s, en, d)),
                        (None, None, None) => {}
                        _ => {
                            return Err(err(
                                line,
                                "<services> with autoStartStartTime, autoStartEndTime and autoStartDuration together",
                            ));
                        }
                    }
                }
                b"serviceTransition" => {
                    if !in_services {
                        return Err(err(line, "<serviceTransition> inside <services>"));
                    }
                    let name = attr(&e, "name", line)?
                        .ok_or_else(|| err(line, "<serviceTransition> with a name attribute"))?;
                    if attr(&e, "transition", line)?.is_some_and(|x| x != "start") {
                        continue;
                    }
                    let what = format!("<serviceTransition name=\"{name}\">");
                    let total = num(&e, "totalTransitionTimeDelta", line, &what)?
                        .ok_or_else(|| err(line, format!("{what} with totalTransitionTimeDelta")))?;
                    if total < 0.0 {
                        return Err(err(line, format!("{what}: a non-negative totalTransitionTimeDelta")));
                    }
                    t.services.push(Service {
                        group: attr(&e, "group", line)?.unwrap_or_default(),
                        duration_ms: total,
                        started_ms: num(&e, "startedAt", line, &what)?,
                        ended_ms: num(&e, "endedAt", line, &what)?,
                        waiting_ms: num(&e, "firstCheckpointTimeDelta", line, &what)?,
                        container: attr(&e, "container", line)?.unwrap_or_default(),
                        name,
                        line,
                    });
                }
                b"timing" => {
                    for a in e.attributes() {
                        let a = a.map_err(|x| err(line, format!("well-formed attributes ({x})")))?;
                        let v = a
                            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                            .map_err(|x| err(line, format!("a valid attribute value ({x})")))?;
                        if let Ok(ms) = v.trim().parse::<f64>() {
                            t.phases.push((String::from_utf8_lossy(a.key.as_ref()).to_string(), ms));
                        }
                    }
                }
                _ => {}
            },
            Event::End(e) if e.name().as_ref() == b"services" => in_services = false,
            Event::Eof => break,
            _ => {}
        }
    }
    if t.services.is_empty() && t.autostart.is_none() {
        return Err(err(1, "an xperf boot trace: a <services> element with <serviceTransition> entries"));
    }
    Ok(t)
}

/// A systemd duration: `1min 2.345s`, `523ms`, `12us`, `1h 2min 3s`.
pub fn parse_duration_ms(s: &str) -> Option<f64> {
    let mut total = 0.0;
    let mut any = false;
    for tok in s.split_whitespace() {
        let split = tok.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
        let (n, unit) = tok.split_at(split);
        let n: f64 = n.parse().ok()?;
        total += n * match unit {
            "h" => 3_600_000.0,
            "min" => 60_000.0,
            "s" => 1_000.0,
            "ms" => 1.0,
            "us" | "µs" => 0.001,
            _ => return None,
        };
        any = true;
    }
    any.then_some(total)
}

fn unit_type(name: &str) -> String {
    name.rsplit_once('.').map(|(_, t)| t.to_string()).unwrap_or_default()
}

fn parse_blame(text: &str) -> Result<BootTrace, ParseError> {
    let mut t = BootTrace {
        format: Format::Blame,
        services: Vec::new(),
        autostart: None,
        phases: Vec::new(),
        chain: Vec::new(),
    };
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        // "<duration> <unit>": the unit is the last word, the duration everything before.
        let (dur, name) = line.rsplit_once(char::is_whitespace).ok_or_else(|| {
            err(i + 1, format!("\"<time> <unit>\" as systemd-analyze blame prints, found \"{line}\""))
        })?;
        let ms = parse_duration_ms(dur).ok_or_else(|| {
            err(
                i + 1,
                format!("a time like 1.234s, 523ms or 1min 2.345s before the unit name, found \"{}\"", dur.trim()),
            )
        })?;
        t.services.push(Service {
            name: name.to_string(),
            group: unit_type(name),
            duration_ms: ms,
            started_ms: None,
            ended_ms: None,
            waiting_ms: None,
            container: String::new(),
            line: i + 1,
        });
    }
    if t.services.is_empty() {
        return Err(err(1, "systemd-analyze blame output: lines of \"<time> <unit>\""));
    }
    Ok(t)
}

fn parse_chain(text: &str) -> Result<BootTrace, ParseError> {
    let mut t = BootTrace {
        format: Format::CriticalChain,
        services: Vec::new(),
        autostart: None,
        phases: Vec::new(),
        chain: Vec::new(),
    };
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_start_matches(|c: char| c.is_whitespace() || "└├│─|`-".contains(c)).trim_end();
        if line.is_empty() || line.starts_with("The time ") {
            continue;
        }
        let (name, rest) = line.split_once(" @").ok_or_else(|| {
            err(i + 1, format!("\"<unit> @<time> [+<time>]\" as critical-chain prints, found \"{}\"", raw.trim()))
        })?;
        let (at, took) = match rest.split_once(" +") {
            Some((a, b)) => (a, Some(b)),
            None => (rest, None),
        };
        let at_ms = parse_duration_ms(at).ok_or_else(|| err(i + 1, format!("a time after '@', found \"{at}\"")))?;
        let took_ms = match took {
            Some(x) => {
                Some(parse_duration_ms(x).ok_or_else(|| err(i + 1, format!("a time after '+', found \"{x}\"")))?)
            }
            None => None,
        };
        let s = Service {
            name: name.trim().to_string(),
            group: unit_type(name.trim()),
            duration_ms: took_ms.unwrap_or(0.0),
            started_ms: Some(at_ms - took_ms.unwrap_or(0.0)),
            ended_ms: Some(at_ms),
            waiting_ms: None,
            container: String::new(),
            line: i + 1,
        };
        if took_ms.is_some() {
            t.services.push(s.clone());
        }
        t.chain.push(s);
    }
    if t.chain.is_empty() {
        return Err(err(1, "systemd-analyze critical-chain output: lines of \"<unit> @<time> [+<time>]\""));
    }
    Ok(t)
}

/// A candidate to delay or disable.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The service.
    pub name: String,
    /// Its start time, ms.
    pub ms: f64,
    /// Why.
    pub reason: String,
}

/// What the analysis found.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// Services by cost, largest first.
    pub by_cost: Vec<Service>,
    /// Total auto-start time, ms: the trace's window (xperf), the chain's end (critical
    /// chain), or the sum of start times (blame, which runs services in parallel).
    pub autostart_ms: f64,
    /// The critical path, first to last.
    pub critical_path: Vec<Service>,
    /// Candidates to delay or disable.
    pub candidates: Vec<Candidate>,
}

/// Services known to cost much and rarely to be needed, with the advice.
const KNOWN: &[(&str, &str)] = &[
    (
        "nfsclnt",
        "NFS for Client: seed 004 saw it add 20–45 s to boot intermittently; disable it when no NFS share is used",
    ),
    ("nfs-client", "NFS client: disable when no NFS share is mounted at boot"),
    ("wait-online", "waits for the network to be fully up; disable it unless something at boot needs the network"),
    (
        "NetworkManager-wait-online",
        "waits for the network to be fully up; disable it unless something at boot needs the network",
    ),
    ("plymouth", "the boot splash: it only draws"),
    ("apt-daily", "package-list refresh: a timer can run it after boot"),
    ("man-db", "manual-page index: can run after boot"),
];

/// Why a service of this name is known to cost much and rarely be needed, if it is.
pub fn known_costly(name: &str) -> Option<&'static str> {
    KNOWN.iter().find(|(k, _)| name.to_ascii_lowercase().contains(&k.to_ascii_lowercase())).map(|x| x.1)
}

/// Analyse a parsed trace.
pub fn analyze(t: &BootTrace) -> Analysis {
    let mut by_cost = t.services.clone();
    by_cost.sort_by(|a, b| b.duration_ms.total_cmp(&a.duration_ms));
    let autostart_ms = match (t.format, t.autostart) {
        (Format::Xperf, Some((_, _, d))) => d,
        (Format::CriticalChain, _) => t.chain.first().and_then(|s| s.ended_ms).unwrap_or(0.0),
        // Until every service was ready: the boot's own window.
        (Format::Measured, _) => t.services.iter().filter_map(|s| s.ended_ms).fold(0.0, f64::max),
        // The seed's figure is a span, first start to last ready (its XML's 8,531–13,146 ms):
        // where the trace has the times, the span; a bare list of durations (blame) can only
        // be summed, which overstates a parallel boot.
        _ => {
            let starts = t.services.iter().filter_map(|s| s.started_ms).fold(f64::INFINITY, f64::min);
            let ends = t.services.iter().filter_map(|s| s.ended_ms).fold(f64::NEG_INFINITY, f64::max);
            if starts.is_finite() && ends.is_finite() && ends >= starts {
                ends - starts
            } else {
                t.services.iter().map(|s| s.duration_ms).sum()
            }
        }
    };
    let critical_path = match t.format {
        Format::CriticalChain => t.chain.iter().rev().filter(|s| s.duration_ms > 0.0).cloned().collect(),
        // The runner's own chain of waits, target first as critical-chain prints it.
        Format::Measured => t.chain.iter().rev().cloned().collect(),
        _ => xperf_path(&t.services),
    };
    let mut candidates = Vec::new();
    let known = known_costly;
    let total = autostart_ms.max(1e-9);
    for s in &by_cost {
        let share = s.duration_ms / total;
        let reason = if let Some(r) = known(&s.name) {
            Some(r.to_string())
        } else if share >= 0.10 {
            let waits = s.waiting_ms.filter(|w| *w >= 0.5 * s.duration_ms).map_or(String::new(), |w| {
                format!("; {w:.0} ms of it before its first checkpoint (it waits on something)")
            });
            Some(format!(
                "{:.0} % of the auto-start time{waits}: delay it (delayed-auto, or After= a later target) or set it to start on demand if nothing at boot needs it",
                100.0 * share
            ))
        } else {
            None
        };
        let reason = reason.map(|r| {
            if t.format == Format::Xperf {
                format!(
                    "{r}; first check it is not boot-critical (`sc qc {}`: ERROR_CONTROL 3 CRITICAL with START_TYPE 0 BOOT_START means it must stay)",
                    s.name
                )
            } else {
                r
            }
        });
        if let Some(reason) = reason {
            candidates.push(Candidate { name: s.name.clone(), ms: s.duration_ms, reason });
        }
    }
    Analysis { by_cost, autostart_ms, critical_path, candidates }
}

/// The chain that ends last: from the service that ended last, back through the service
/// that ended most recently before each one started.
fn xperf_path(services: &[Service]) -> Vec<Service> {
    let timed: Vec<&Service> = services.iter().filter(|s| s.started_ms.is_some() && s.ended_ms.is_some()).collect();
    let mut path = Vec::new();
    let Some(mut cur) =
        timed.iter().copied().max_by(|a, b| a.ended_ms.unwrap_or(0.0).total_cmp(&b.ended_ms.unwrap_or(0.0)))
    else {
        return path;
    };
    loop {
        path.push(cur.clone());
        let start = cur.started_ms.unwrap_or(0.0);
        match timed
            .iter()
            .copied()
            .filter(|s| s.ended_ms.is_some_and(|e| e <= start + 1.0) && s.name != cur.name)
            .max_by(|a, b| a.ended_ms.unwrap_or(0.0).total_cmp(&b.ended_ms.unwrap_or(0.0)))
        {
            Some(prev) if path.len() < services.len() => cur = prev,
            _ => break,
        }
    }
    path.reverse();
    path
}

/// The study's excerpt, bundled so the suite needs nothing installed.
pub const SAMPLE_XPERF: &str = include_str!("../../samples/xperf-boot-excerpt.xml");

/// The verdict on an xperf trace's auto-start against seed 004's: a trace whose figures are
/// the seed's own (its excerpt, read back) is a check of the reader, as the suite's `boot`
/// row calls the same reading, never a finding about a machine.
fn xperf_judgement(a: &Analysis) -> latlab_model::verdict::Judgement {
    use latlab_model::verdict::Judgement;
    let plugplay = a.by_cost.iter().find(|s| s.name == "PlugPlay").map(|s| s.duration_ms);
    if a.autostart_ms.round() == 4614.0 && plugplay.is_some_and(|ms| ms.round() == 621.0) {
        return Judgement::self_check(
            "latlab's xperf reader on the seed's own excerpt",
            Judgement::finding(
                true,
                "the reader gives the seed's own figures from the seed's excerpt (held to the millisecond)",
                "the same figures",
                "the xperf reader is wrong",
            ),
        );
    }
    Judgement::within_factor(a.autostart_ms, 4614.0, 2.0, "another machine's boot, with its own set of services")
        .of("auto-start")
}

/// A record of one analysis (`source`: the file's name).
pub fn record(source: &str, t: &BootTrace, a: &Analysis) -> latlab_model::record::RunRecord {
    use latlab_model::record::{Column, PaperRow, RunStatus, Table};
    let mut rec = latlab_sys::record::begin("boot");
    rec.mode = "analyze".into();
    rec.config("file", source);
    rec.config(
        "format",
        match t.format {
            Format::Xperf => "xperf -a boot XML",
            Format::Blame => "systemd-analyze blame",
            Format::CriticalChain => "systemd-analyze critical-chain",
            Format::Measured => "a boot measured by latlab boot measure",
        },
    );
    rec.metric("boot.autostart_ms", a.autostart_ms, "ms");
    rec.metric("boot.services", t.services.len() as u64, "count");
    if let Some(s) = a.by_cost.first() {
        rec.metric("boot.slowest_ms", s.duration_ms, "ms");
        rec.config("slowest", &s.name);
    }
    let path_ms: f64 = a.critical_path.iter().map(|s| s.duration_ms).sum();
    rec.metric("boot.critical_path_ms", path_ms, "ms");
    rec.metric("boot.candidates", a.candidates.len() as u64, "count");
    for (name, ms) in &t.phases {
        rec.metric(&format!("boot.phase.{}", name.to_ascii_lowercase()), *ms, "ms");
    }
    let c = Column::new;
    let ms = |x: Option<f64>| x.map_or(serde_json::Value::Null, serde_json::Value::from);
    rec.tables.push(Table {
        name: "boot.services".into(),
        title: format!("Services by start time, largest first (total auto-start {:.0} ms)", a.autostart_ms),
        columns: vec![
            c("service", ""),
            c("group", ""),
            c("took", "ms"),
            c("share", "%"),
            c("waiting", "ms"),
            c("started at", "ms"),
            c("line", ""),
        ],
        rows: a
            .by_cost
            .iter()
            .map(|s| {
                vec![
                    s.name.clone().into(),
                    s.group.clone().into(),
                    s.duration_ms.into(),
                    ((1000.0 * s.duration_ms / a.autostart_ms.max(1e-9)).round() / 10.0).into(),
                    ms(s.waiting_ms),
                    ms(s.started_ms),
                    // 0: not from a file (a measured boot).
                    if s.line == 0 { serde_json::Value::Null } else { (s.line as u64).into() },
                ]
            })
            .collect(),
        plot: None,
    });
    rec.tables.push(Table {
        name: "boot.critical_path".into(),
        title: format!("The critical path, first to last ({path_ms:.0} ms of starting)"),
        columns: vec![c("service", ""), c("started at", "ms"), c("ended at", "ms"), c("took", "ms")],
        rows: a
            .critical_path
            .iter()
            .map(|s| vec![s.name.clone().into(), ms(s.started_ms), ms(s.ended_ms), s.duration_ms.into()])
            .collect(),
        plot: None,
    });
    rec.tables.push(Table {
        name: "boot.candidates".into(),
        title: "Candidates to delay or disable, and why".into(),
        columns: vec![c("service", ""), c("took", "ms"), c("reason", "")],
        rows: a.candidates.iter().map(|x| vec![x.name.clone().into(), x.ms.into(), x.reason.clone().into()]).collect(),
        plot: None,
    });
    if t.format == Format::Xperf {
        rec.paper.push(PaperRow {
            seed: "004".into(),
            figure: "boot trace: services auto-start".into(),
            paper_setting: "Windows Embedded Standard 7, xperf -a boot".into(),
            paper_value: "autoStartDuration 4,614 ms (8,531–13,146); PlugPlay \"took 621ms to start\"".into(),
            here_value: format!(
                "{:.0} ms auto-start; slowest {} {:.0} ms",
                a.autostart_ms,
                a.by_cost.first().map_or("none", |s| s.name.as_str()),
                a.by_cost.first().map_or(0.0, |s| s.duration_ms)
            ),
            note: format!("this file: {source}"),
            judgement: xperf_judgement(a),
        });
    }
    rec.finish(RunStatus::Complete);
    rec
}

#[cfg(test)]
mod tests;
