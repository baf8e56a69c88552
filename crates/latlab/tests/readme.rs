//! The README kept true: its command table against the commands latlab has (every one and
//! every subcommand in a row, no row for a command that does not exist), its exit codes
//! against `latlab_model::exit::ALL`, the record schema it names against the one written, every
//! remedy `latlab tune --list` offers and every per-experiment document named.

use std::collections::BTreeSet;
use std::path::Path;

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md")).unwrap()
}

fn latlab(args: &[&str]) -> String {
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("latlab")).args(args).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The subcommands a `--help` lists (its "Commands:" section), `help` left out.
fn commands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect()
}

/// The first cells of the README's command table (the table under "## Usage" whose header is
/// `| command |`).
fn command_rows(readme: &str) -> Vec<String> {
    readme
        .lines()
        .skip_while(|l| !l.starts_with("| command |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.trim_start_matches('|').split(" | ").next().unwrap_or("").trim().to_string())
        .collect()
}

/// The words of a row's first cell that name commands: `latlab display latency\|ops` gives
/// `display`, `latency`, `ops`.
fn named(cell: &str) -> BTreeSet<String> {
    cell.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| !w.is_empty() && !w.starts_with('-'))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_command_and_subcommand_has_a_row_and_every_row_a_command() {
    let text = readme();
    let rows = command_rows(&text);
    assert!(rows.len() > 20, "the command table was not found: {rows:?}");
    let top = commands(&latlab(&["--help"]));
    assert!(top.contains(&"rt".to_string()) && top.contains(&"type".to_string()), "{top:?}");
    let mut missing = Vec::new();
    for c in &top {
        let of_c: Vec<&String> = rows.iter().filter(|r| r.starts_with(&format!("`latlab {c}"))).collect();
        if of_c.is_empty() {
            missing.push(format!("latlab {c}"));
            continue;
        }
        for sub in commands(&latlab(&[c, "--help"])) {
            if !of_c.iter().any(|r| named(r).contains(&sub)) {
                missing.push(format!("latlab {c} {sub}"));
            }
        }
    }
    assert!(missing.is_empty(), "commands without a row in the README's command table: {missing:?}");
    // And no row names a command latlab does not have.
    let stale: Vec<&String> = rows
        .iter()
        .filter(|r| {
            let first =
                r.trim_start_matches("`latlab ").split(|c: char| !c.is_ascii_alphanumeric()).next().unwrap_or("");
            !top.iter().any(|c| c == first)
        })
        .collect();
    assert!(stale.is_empty(), "rows for commands latlab does not have: {stale:?}");
}

#[test]
fn the_exit_codes_are_the_ones_latlab_gives() {
    let text = readme();
    let table: Vec<(i32, String)> = text
        .lines()
        .skip_while(|l| !l.starts_with("### Exit codes"))
        .skip_while(|l| !l.starts_with("| code |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split(" | ").map(str::trim).collect();
            Some((cells.first()?.parse().ok()?, cells.get(1)?.to_string()))
        })
        .collect();
    let codes: Vec<i32> = table.iter().map(|(c, _)| *c).collect();
    let want: Vec<i32> = latlab_model::exit::ALL.iter().map(|(c, _)| *c).collect();
    assert_eq!(codes, want, "the README's exit codes against latlab_model::exit::ALL");
    for ((code, said), (_, meaning)) in table.iter().zip(latlab_model::exit::ALL) {
        assert!(said.starts_with(meaning), "exit {code}: the README says {said:?}, latlab means {meaning:?}");
    }
}

#[test]
fn the_schema_remedies_and_experiment_docs_it_names_are_latlabs() {
    let text = readme();
    // The record schema.
    let named: BTreeSet<&str> = text.match_indices("latlab.run/").map(|(i, _)| &text[i..i + 12]).collect();
    let want = latlab_model::record::SCHEMA;
    assert!(
        named.iter().all(|s| want.starts_with(s.trim_end_matches(|c: char| !c.is_ascii_digit()))),
        "{named:?} against {want}"
    );
    assert!(text.contains(want), "the README names the schema {want}");
    // Every remedy `latlab tune --list` offers, in the tune row.
    let tune = command_rows(&text).into_iter().find(|r| r.starts_with("`latlab tune")).expect("a tune row");
    let row = text.lines().find(|l| l.starts_with(&format!("| {tune}"))).unwrap();
    let remedies: Vec<String> = latlab(&["tune", "--list"])
        .lines()
        .filter(|l| !l.starts_with(' ') && l.contains(" (study "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    assert!(remedies.len() > 10, "{remedies:?}");
    let unnamed: Vec<&String> = remedies.iter().filter(|r| !row.contains(&format!("`{r}`"))).collect();
    assert!(unnamed.is_empty(), "remedies the README's tune row does not name: {unnamed:?}");
    // Every per-experiment document, linked.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/experiments");
    let unlinked: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| format!("docs/experiments/{}", e.file_name().to_string_lossy()))
        .filter(|p| !text.contains(&format!("({p}")))
        .collect();
    assert!(unlinked.is_empty(), "experiment documents the README does not link: {unlinked:?}");
}

/// `--strict` and `--checkpoint` belong to the commands that measure: the README names the ones
/// that do not take them (`cli::READ_ONLY`), their `--help` leaves them out, a measuring
/// command's lists them, and the old place (before the command) still works with a warning.
#[test]
fn only_measuring_commands_take_strict_and_checkpoint() {
    let text = readme();
    let para = text
        .split("Options of every command that measures")
        .nth(1)
        .and_then(|t| t.split("given after its name").next())
        .expect("the README's paragraph on the measuring options");
    for c in latlab::cli::READ_ONLY {
        assert!(para.contains(&format!("`{c}`")), "the README does not name {c} among the commands without --strict");
        let help = latlab(&[c, "--help"]);
        assert!(help.contains("Usage:"), "{c} --help: {help}");
        assert!(!help.contains("--strict") && !help.contains("--checkpoint"), "{c} --help lists a measuring option");
    }
    for c in [&["rt"][..], &["rt", "sweep"], &["udp"], &["display", "latency"], &["type"], &["selftest"], &["tune"]] {
        let help = latlab(&[c, &["--help"]].concat());
        assert!(
            help.contains("--strict") && help.contains("--checkpoint <DURATION>") && help.contains("--verbose"),
            "{c:?} --help: {help}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("latlab"))
        .current_dir(dir.path())
        .env_remove("LATLAB_DB")
        .args(["--checkpoint", "1", "--strict", "selftest", "--samples", "5"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("1 (bare seconds) is the old spelling, kept for this release: give 1s"), "{err}");
    assert!(err.contains("give it after the command (latlab selftest --strict)"), "{err}");
}
