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
