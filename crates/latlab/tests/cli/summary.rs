//! What a measuring command prints: its answer first, the detail when asked.

use super::*;

/// A measuring command's summary opens with its answer (selftest: its verdict, then the
/// headline figures) and leaves the metric list to `show` and `--verbose`.
#[test]
fn a_summary_leads_with_its_verdict_and_lists_every_metric_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let brief = latlab(d)
        .env_remove("LATLAB_VERBOSE")
        .args(["selftest", "--samples", "20", "--no-mlock"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let brief = String::from_utf8(brief).unwrap();
    let lines: Vec<&str> = brief.lines().collect();
    assert_eq!(lines.get(2), Some(&"## In short"), "{brief}");
    assert!(
        lines[4].starts_with("- This machine's timers are fit for ") && lines[4].contains("100 µs wake-up"),
        "{brief}"
    );
    assert!(lines[5].contains("clock read"), "the headline figures follow the verdict: {brief}");
    assert!(brief.contains("metrics: `latlab show 1` lists them (or give the command --verbose)."), "{brief}");
    assert!(!brief.contains("| `clock.resolution` |"), "{brief}");
    let all = latlab(d)
        .env_remove("LATLAB_VERBOSE")
        .args(["selftest", "--samples", "20", "--no-mlock", "--verbose"])
        .assert()
        .success();
    let all = String::from_utf8(all.get_output().stdout.clone()).unwrap();
    assert!(all.contains("| `clock.resolution` |") && all.contains("This machine's timers are"), "{all}");
    // `show` has the verdict too, and every metric.
    let shown = latlab(d).args(["show", "1"]).assert().success();
    let shown = String::from_utf8(shown.get_output().stdout.clone()).unwrap();
    assert!(shown.contains("This machine's timers are") && shown.contains("| `clock.resolution` |"), "{shown}");
}
