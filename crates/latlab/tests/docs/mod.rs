//! Holds the docs to the code: reads the metric tables of `docs/experiments/*.md` as name
//! patterns and checks them against the metrics stored runs carry, both ways.
//!
//! A table is a metric table when its header's first cell is `metric` or `name`. Its first
//! column lists names in backticks, comma-separated: `<X>` stands for one name component,
//! `{a,b}` for either, `*` and `…` for the rest of the name; a name starting with `.` replaces
//! as many trailing components of the name before it; items after `series` or `table` are not
//! metrics. A row whose meaning says `with `--…`` or `absent`, and every row of a table whose
//! introducing line says `not in the suite`, is conditional: the suite's short runs need not
//! emit it, but what runs emit must still be documented.

use regex::Regex;
use std::collections::BTreeSet;
use std::path::Path;

/// One documented name.
#[derive(Debug)]
pub struct Documented {
    /// The pattern as written (relative names resolved).
    pub name: String,
    /// Anchored regular expression over metric names.
    pub re: Regex,
    /// Need not appear in every run set (see the module's note).
    pub conditional: bool,
}

fn to_regex(name: &str) -> Regex {
    let mut re = String::from("^");
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '<' => {
                for d in chars.by_ref() {
                    if d == '>' {
                        break;
                    }
                }
                re.push_str("[A-Za-z0-9_]+");
            }
            '{' => {
                let mut alt = String::new();
                for d in chars.by_ref() {
                    if d == '}' {
                        break;
                    }
                    alt.push(d);
                }
                let parts: Vec<String> = alt.split(',').map(|p| regex::escape(p.trim())).collect();
                re.push_str(&format!("(?:{})", parts.join("|")));
            }
            '*' | '…' => re.push_str(".+"),
            c => re.push_str(&regex::escape(&c.to_string())),
        }
    }
    re.push('$');
    Regex::new(&re).expect("a pattern from the docs")
}

/// Resolve `.x.y` against the name before it: replace as many trailing components.
fn resolve(prev: Option<&str>, item: &str) -> String {
    let Some(rel) = item.strip_prefix('.') else { return item.to_string() };
    let Some(prev) = prev else { return item.to_string() };
    let n = rel.split('.').count();
    let parts: Vec<&str> = prev.split('.').collect();
    let keep = parts.len().saturating_sub(n);
    let mut out = parts[..keep].join(".");
    out.push('.');
    out.push_str(rel);
    out
}

/// The documented metric names of one Markdown file.
pub fn documented(markdown: &str) -> Vec<Documented> {
    let tick = Regex::new(r"`([^`]+)`").unwrap();
    let mut out = Vec::new();
    let mut in_table = false;
    let (mut intro, mut table_intro) = ("", "");
    for line in markdown.lines() {
        if !line.starts_with('|') {
            in_table = false;
            if !line.trim().is_empty() {
                intro = line;
            }
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let first = cells.first().copied().unwrap_or("");
        if first == "metric" || first == "name" {
            in_table = true;
            table_intro = intro;
            continue;
        }
        if !in_table || first.starts_with("---") {
            continue;
        }
        let meaning = cells.last().copied().unwrap_or("");
        let conditional = meaning.contains("with `--")
            || meaning.contains("absent")
            || first.contains("with `--")
            || table_intro.contains("not in the suite");
        let mut prev: Option<String> = None;
        // Text before a backticked item says what it is: from `series` or `table` on, the
        // cell's items are not metrics.
        let mut rest = first;
        let mut not_metrics = false;
        while let Some(m) = tick.captures(rest) {
            let whole = m.get(0).unwrap();
            let before = &rest[..whole.start()];
            let item = m.get(1).unwrap().as_str();
            rest = &rest[whole.end()..];
            not_metrics |= before.contains("series") || before.contains("table");
            if not_metrics {
                continue;
            }
            let name = resolve(prev.as_deref(), item);
            out.push(Documented { re: to_regex(&name), name: name.clone(), conditional });
            prev = Some(name);
        }
    }
    out
}

/// What is wrong between the docs and the metrics runs emitted: documented names no run
/// emitted (unless conditional, or `require_all` is false), and emitted names no pattern
/// documents.
pub fn mismatches(docs: &[Documented], emitted: &BTreeSet<String>, require_all: bool) -> Vec<String> {
    let mut bad = Vec::new();
    if require_all {
        for d in docs.iter().filter(|d| !d.conditional) {
            if !emitted.iter().any(|m| d.re.is_match(m)) {
                bad.push(format!("documented but not emitted: {}", d.name));
            }
        }
    }
    for m in emitted {
        if !docs.iter().any(|d| d.re.is_match(m)) {
            bad.push(format!("emitted but not documented: {m}"));
        }
    }
    bad
}

/// The docs file of each experiment (as records name them), from the workspace's root: the
/// one its crate declares (`Experiment::DOCS`), through the registry.
pub fn doc_of(experiment: &str) -> &'static str {
    doc_of_in(&latlab::registry::Registry::standard(), experiment)
}

/// [`doc_of`] in `registry`.
pub fn doc_of_in(registry: &latlab::registry::Registry, experiment: &str) -> &'static str {
    if experiment == "tune" {
        return "docs/tuning.md";
    }
    registry
        .experiments(false)
        .iter()
        .find(|e| e.name() == experiment)
        .map(|e| e.docs())
        .unwrap_or_else(|| panic!("no experiment '{experiment}' in the registry"))
}

/// Read `PATH` (from the workspace's root).
pub fn read_doc(path: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn the_doc_table_reader_resolves_patterns_and_finds_both_kinds_of_mismatch() {
    let md = "| metric | unit | meaning |\n|---|---|---|\n\
        | `cpu.n<N>.stall.mean`, `.stall.p99` | ns | x |\n\
        | `sleep.<case>.{min,max}` | ns | y |\n\
        | `launch.whole.p50` | ns | with `--whole` |\n\
        | series `cpu.n<N>.echo`, `cpu.n<N>.stall` | ns | z |\n\nText `not.a.metric`.\n\n\
        Of a view (not in the suite):\n\n| metric | unit | meaning |\n|---|---|---|\n| `view.frames` | count | f |\n";
    let d = documented(md);
    let names: Vec<&str> = d.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(
        names,
        ["cpu.n<N>.stall.mean", "cpu.n<N>.stall.p99", "sleep.<case>.{min,max}", "launch.whole.p50", "view.frames"]
    );
    assert!(d[3].conditional && d[4].conditional && !d[0].conditional);
    let emitted: BTreeSet<String> =
        ["cpu.n0.stall.mean", "cpu.n20.stall.p99", "sleep.fifo.min", "sleep.other.max"].map(String::from).into();
    assert!(mismatches(&d, &emitted, true).is_empty(), "{:?}", mismatches(&d, &emitted, true));
    // A metric renamed in the code only: both directions report it.
    let renamed: BTreeSet<String> =
        ["cpu.n0.stall.mean", "cpu.n20.stall.p999", "sleep.fifo.min"].map(String::from).into();
    let bad = mismatches(&d, &renamed, true);
    assert!(bad.contains(&"documented but not emitted: cpu.n<N>.stall.p99".to_string()), "{bad:?}");
    assert!(bad.contains(&"emitted but not documented: cpu.n20.stall.p999".to_string()), "{bad:?}");
}

/// The names an rt record carries in every outcome the machine decides (a tail fit made or
/// refused; a sweep's rate found, only bounded at its first rate, or not reached), made by
/// the code that records them, with the outcome injected.
fn rt_outcome_names() -> Vec<BTreeSet<String>> {
    use latlab_rt::sweep::{Step, Thresholds, record_thresholds};
    let tail_fitted = {
        // A long exponential tail (deterministic): the fit is accepted.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let samples: Vec<i64> = (0..200_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let u = ((x >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
                (10_000.0 - 2_000.0 * u.ln()) as i64
            })
            .collect();
        latlab_model::worst::per_hour(&samples, 1_000_000)
    };
    assert!(tail_fitted.is_ok(), "the injected tail was meant to be fitted: {:?}", tail_fitted.as_ref().err());
    let tail_refused = latlab_model::worst::per_hour(&[10_000; 20], 1_000_000);
    assert!(tail_refused.is_err(), "twenty equal samples were meant to be refused");
    let steps: Vec<Step> = [1000.0, 2000.0, 4000.0]
        .map(|rate_hz| Step {
            rate_hz,
            l1_delivered: 1.0,
            l2_delivered: 1.0,
            load_progress: Some(1.0),
            l1_p99: Some(1),
            l2_p99: Some(1),
            pulses: 1000,
        })
        .to_vec();
    let (found, bounded, not_reached) = (Some(2000.0), Some(1000.0), None);
    let mut out = Vec::new();
    for tail in [&tail_fitted, &tail_refused] {
        for (t_unloaded, t_loaded) in [(found, found), (bounded, bounded), (not_reached, not_reached), (found, bounded)]
        {
            let mut rec = latlab_sys::record::begin("rt");
            // The background while the unloaded phase and sweep ran, every figure known.
            let bg = latlab_sys::background::Background {
                pressure: [Some(0.0); 3],
                steal: Some(0.0),
                others_runnable_per_cpu: Some(0.0),
                seconds: 1.0,
            };
            for what in ["unloaded.background", "sweep.unloaded.background"] {
                bg.note(&mut rec, what, "the test");
            }
            for phase in ["unloaded", "loaded"] {
                for level in ["l1", "l2"] {
                    latlab_model::worst::record_metrics(&mut rec, &format!("{phase}.{level}.latency"), tail);
                }
            }
            let unloaded = Thresholds { mf_l1_hz: t_unloaded, mf_l2_hz: t_unloaded, sf_hz: None };
            record_thresholds(&mut rec, "sweep.unloaded", &unloaded, &steps, 1000.0, false);
            let loaded = Thresholds { mf_l1_hz: t_loaded, mf_l2_hz: t_loaded, sf_hz: t_loaded };
            record_thresholds(&mut rec, "sweep", &loaded, &steps, 1000.0, true);
            out.push(rec.metrics.iter().map(|m| m.name.clone()).collect());
        }
    }
    out
}

#[test]
fn rt_metrics_of_every_outcome_are_documented_and_those_of_some_outcomes_are_marked() {
    let docs = documented(&read_doc("docs/experiments/rt.md"));
    let outcomes = rt_outcome_names();
    let all: BTreeSet<String> = outcomes.iter().flatten().cloned().collect();
    // Every name any outcome emits is documented ...
    assert_eq!(mismatches(&docs, &all, false), Vec::<String>::new());
    // ... and a name some outcome leaves out is documented as conditional, so the suite's
    // check (which requires the rest) passes whichever outcome this machine gave.
    for name in &all {
        if outcomes.iter().all(|o| o.contains(name)) {
            continue;
        }
        let rows: Vec<&Documented> = docs.iter().filter(|d| d.re.is_match(name)).collect();
        assert!(rows.iter().all(|d| d.conditional), "{name} is absent in some outcomes but documented as always there");
    }
    // Each outcome alone passes the suite's check for these names: nothing it lacks is required.
    for o in &outcomes {
        let lacking: Vec<String> = mismatches(&docs, o, true)
            .into_iter()
            .filter(|m| {
                let name = m.trim_start_matches("documented but not emitted: ");
                name.contains("worst") || name.contains("tail") || name.starts_with("sweep")
            })
            .collect();
        assert_eq!(lacking, Vec::<String>::new(), "an outcome the machine may give fails the docs check");
    }
}
