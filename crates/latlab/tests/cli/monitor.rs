//! `latlab monitor` from the command line: windows, and its metrics documented.

use super::*;

#[test]
fn monitor_runs_windows_and_its_metrics_are_documented() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The udp probe's peer: a keyed `udp serve` in another process.
    let serve =
        spawn_ready(d, &["udp", "serve", "--bind", "127.0.0.1:48491", "--key", "k3y"], "reflecting on 127.0.0.1:48491");
    let out = latlab(d)
        .args([
            "monitor",
            "--window",
            "1s",
            "--duration",
            "2500ms",
            "--schedule",
            "idle=1s,load=1s",
            "--load-spinners",
            "1",
            "--probes",
            "rt,chain,idle,udp",
            "--peer",
            "127.0.0.1:48491",
            "--key",
            "k3y",
            "--udp-wait",
            "500ms",
        ])
        .assert();
    drop(serve);
    out.success()
        .stderr(
            predicate::str::contains("monitor: window 1 (idle)")
                .and(predicate::str::contains("(load)"))
                .and(predicate::str::contains("idle (idle): "))
                .and(predicate::str::contains(" udp (idle): "))
                .and(predicate::str::contains(" chain (idle): ")),
        )
        .stdout(
            predicate::str::contains("`monitor.rt.max`")
                .and(predicate::str::contains("`monitor.idle.lost_fraction`"))
                .and(predicate::str::contains("`monitor.udp.samples`"))
                .and(predicate::str::contains("`monitor.chain.max`"))
                .and(predicate::str::contains("`monitor.udp.refused` | 0")),
        );
    latlab(d)
        .args(["monitor", "--schedule", "busy=1h"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a state"));
    latlab(d).args(["monitor", "--window", "10ms"]).assert().code(2).stderr(predicate::str::contains("at least 1 s"));
    latlab(d).args(["monitor", "--probes", "udp"]).assert().code(2).stderr(predicate::str::contains("needs --peer"));
    latlab(d)
        .args(["monitor", "--probes", "rt,gps"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid value 'gps'").and(predicate::str::contains("rt, chain, idle, udp")));
    latlab(d).args(["monitor", "--priority", "0"]).assert().code(2).stderr(predicate::str::contains("1–99"));
    latlab(d)
        .args(["monitor", "--probes", "chain"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("second level: add rt"));
    metrics_match_the_docs(d, false);
}
