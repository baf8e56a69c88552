//! Adding an experiment takes its own crate, one registry line and its command-line file:
//! `example/` (the experiment, its docs) and `example/cli.rs` (its arguments) are all there
//! is of it, and the registry line below makes it a subcommand, a suite entry, a report's
//! figure and a documented set of metrics, with no other file of latlab touched.

#[allow(dead_code)]
mod docs;
mod example;

use latlab::registry::Registry;
use latlab_model::record::RunRecord;
use std::collections::BTreeSet;
use std::path::Path;

/// latlab's registry with the example's one line.
fn registry() -> Registry {
    Registry::standard().with_cli::<example::cli::ExampleArgs>()
}

/// `latlab --db DB ARGS` against [`registry`], in this process; its exit code.
fn latlab(db: &Path, args: &[&str]) -> i32 {
    let all = ["latlab", "--db", db.to_str().unwrap()].into_iter().chain(args.iter().copied());
    latlab::run_with(&registry(), all)
}

/// Every run stored in `db`, oldest first.
fn stored(db: &Path) -> Vec<RunRecord> {
    let store = latlab_output::store::Store::open(db).unwrap();
    let mut ids: Vec<i64> = store.list().unwrap().iter().map(|r| r.id).collect();
    ids.sort();
    ids.iter().map(|&id| store.load(id).unwrap()).collect()
}

#[test]
fn a_new_experiment_is_a_subcommand_a_suite_entry_a_figure_and_documented() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("latlab.db");
    // Its subcommand, with its arguments; its `validate` refuses what it must (exit 2).
    assert_eq!(latlab(&db, &["example", "--rounds", "4"]), 0);
    assert_eq!(latlab(&db, &["example", "--rounds", "0"]), 2);
    assert_eq!(latlab(&db, &["example", "--bogus"]), 2, "an unknown option is a usage error");
    // The suite runs it (and only it, as asked), and the report draws its figure.
    let report = dir.path().join("report.html");
    assert_eq!(latlab(&db, &["suite", "--only", "example", "--output", report.to_str().unwrap()]), 0);
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.contains("fig-example-sleeps") && html.contains("How long 1 ms sleeps took"));
    let runs = stored(&db);
    assert_eq!(runs.len(), 2, "one from the subcommand, one from the suite");
    assert!(runs.iter().all(|r| r.experiment == "example" && r.status.as_str() == "complete"));
    assert_eq!(runs[0].config["rounds"], 4);
    assert_eq!(runs[1].config["rounds"], u64::from(example::SUITE_ROUNDS));
    // The runner stores the whole configuration with every record, whichever runner it was.
    assert_eq!(runs[0].config["settings"], serde_json::json!({ "rounds": 4 }));
    assert_eq!(runs[1].config["settings"]["rounds"], u64::from(example::SUITE_ROUNDS));
    // Its docs, named by its crate, document every metric its runs emit, and nothing more.
    let path = docs::doc_of_in(&registry(), "example");
    assert_eq!(path, "crates/latlab/tests/example/example.md");
    let documented = docs::documented(&docs::read_doc(path));
    let emitted: BTreeSet<String> = runs.iter().flat_map(|r| r.metrics.iter().map(|m| m.name.clone())).collect();
    assert_eq!(docs::mismatches(&documented, &emitted, true), Vec::<String>::new());
    // latlab's own registry does not know it.
    assert!(Registry::standard().experiments(false).iter().all(|e| e.name() != "example"));
}
