//! Tests of `measure.rs`.

#[test]
fn the_plan_keeps_only_what_was_opened_before_the_target() {
    let dir =
        std::path::Path::new(crate::defaults::FIXTURE_PARENT).join(format!("latlab-plan-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = |n: &str| {
        let p = dir.join(n);
        std::fs::write(&p, b"x").unwrap();
        p
    };
    let o =
        |path: PathBuf, at_ns| crate::trace::Opened { path, pid: 1, comm: String::new(), resident_before: 0, at_ns };
    let opened = vec![o(file("a"), 10), o(file("b"), 20), o(file("late"), 31)];
    let early = before_target(&opened, 30);
    let evictable = crate::pagecache::evictable(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    if evictable {
        assert_eq!(early, vec![dir.join("a"), dir.join("b")]);
    } else {
        // In memory: nothing can be evicted, so nothing is planned either.
        assert!(early.is_empty());
    }
}

use super::*;
use crate::boot::stored::analyze_stored;

#[test]
fn the_builtin_boot_is_measured_and_leaves_nothing_behind() {
    let parent = std::path::Path::new(crate::defaults::FIXTURE_PARENT);
    if !crate::pagecache::evictable(parent) {
        latlab_model::testing::skip("/var/tmp is in memory");
        return;
    }
    // The services read their data set whole with cat (the fixture application is
    // latlab's binary, which a library test does not have).
    let cfg = BootMeasureConfig {
        source: BootSource::Builtin {
            app: vec!["sh".into(), "-c".into(), "cat \"$0\"/part-* > /dev/null".into()],
            parent: parent.into(),
            spec: FixtureSpec { files: 4, file_kib: 64, header_kib: 8, section_kib: 16, passes: 1 },
        },
        runs: 1,
        threads: 1,
        apply_recommendations: true,
        throttle: crate::device::Limit { bytes_per_s: Some(50_000_000), iops: Some(5_000) },
    };
    let progress = AtomicU64::new(0);
    let before: Vec<_> = std::fs::read_dir(parent).unwrap().filter_map(|e| e.ok()).map(|e| e.file_name()).collect();
    let rec = run_boot_measure(&cfg, &progress).unwrap();
    assert_eq!(progress.load(Ordering::Relaxed), steps(1, true, true));
    assert_eq!(rec.status, RunStatus::Complete);
    let gantt = rec.tables.iter().find(|t| t.name == "boot.gantt").unwrap();
    assert_eq!(gantt.rows.len(), 6);
    assert_eq!(gantt.rows[5][1], "disabled");
    // Telemetry is not needed by the session: the advice delays it, and the recommended
    // boot was measured.
    let advice = rec.tables.iter().find(|t| t.name == "boot.recommendations").unwrap();
    assert!(advice.rows.iter().any(|r| r[0].as_str().unwrap().starts_with("delay 'telemetry'")), "{:?}", advice.rows);
    assert!(rec.get_metric("boot.recommended.gain").is_some());
    // The stored run analysed again, nothing re-measured: the same advice, the critical
    // path ending at the target, and the target never a candidate to delay or disable.
    let a = analyze_stored(&rec, 7).unwrap();
    let again = a.tables.iter().find(|t| t.name == "boot.recommendations").unwrap();
    assert!(again.rows.iter().any(|r| r[0].as_str().unwrap().starts_with("delay 'telemetry'")), "{again:?}");
    let path = a.tables.iter().find(|t| t.name == "boot.critical_path").unwrap();
    assert_eq!(path.rows.last().unwrap()[0], "session");
    let cands = a.tables.iter().find(|t| t.name == "boot.candidates").unwrap();
    assert!(cands.rows.iter().all(|r| !["session", "storage", "network"].contains(&r[0].as_str().unwrap())));
    assert_eq!(a.config["measured_run"], 7);
    let mut other = rec.clone();
    other.mode = "analyze".into();
    assert!(analyze_stored(&other, 8).unwrap_err().to_string().contains("not `boot measure`"));
    let mut old = rec.clone();
    old.config.remove("boot_spec");
    assert!(analyze_stored(&old, 9).unwrap_err().to_string().contains("measure it again"));
    let path = rec.config["critical_path"].as_array().unwrap();
    assert_eq!(path.last().and_then(|v| v.as_str()), Some("session"));
    assert!(["storage", "network"].contains(&path[0].as_str().unwrap()), "{path:?}");
    assert!(rec.get_metric("boot.warm.target.p50").is_some());
    assert!(rec.get_metric("boot.service.session.warm_ready").is_some());
    // Figure 1, and Superfetch's rule where the device's random reads were measured and
    // prefetching was.
    let rule =
        rec.get_metric("device.random_read.bytes_per_s").is_some() && rec.get_metric("boot.prefetch.speedup").is_some();
    let throttled_rule = rec.get_metric("device.throttled.random_read.bytes_per_s").is_some()
        && rec.get_metric("boot.throttled.prefetch.speedup").is_some();
    assert_eq!(rec.paper.len(), 2 + usize::from(rule) + usize::from(throttled_rule));
    assert!(rec.paper.iter().any(|p| p.figure.starts_with("boot: services auto-start")));
    if latlab_sys::platform::is_root() {
        // With fanotify: a plan, and all three states.
        assert!(rec.get_metric("boot.plan.files").is_some_and(|m| m.value.as_f64() >= 1.0));
        assert!(rec.get_metric("boot.prefetch.speedup").is_some());
        // And on the throttled device, where the machine has a blkio or io controller.
        if latlab_sys::cgroup::find("blkio").or_else(|_| latlab_sys::cgroup::find("io")).is_ok() {
            assert!(rec.get_metric("boot.throttled.cold.target.p50").is_some(), "{:?}", rec.warnings);
            assert!(rec.get_metric("boot.throttled.prefetch.speedup").is_some());
            let name = format!("latlab-throttle-{}", std::process::id());
            let h = latlab_sys::cgroup::find("blkio").or_else(|_| latlab_sys::cgroup::find("io"));
            assert!(!h.unwrap().root().join(name).exists(), "the throttle group is removed");
        }
    }
    // The data sets are removed.
    let after: Vec<_> = std::fs::read_dir(parent).unwrap().filter_map(|e| e.ok()).map(|e| e.file_name()).collect();
    let new: Vec<_> =
        after.iter().filter(|n| !before.contains(n) && n.to_string_lossy().starts_with("latlab-launch-")).collect();
    assert!(new.is_empty(), "{new:?}");
    // A boot file that does not read: the file and the line.
    let bad = std::env::temp_dir().join(format!("latlab-boot-bad-{}.toml", std::process::id()));
    std::fs::write(&bad, "format = \"latlab.boot/1\"\ntarget = 3\n").unwrap();
    let e = run_boot_measure(
        &BootMeasureConfig {
            source: BootSource::File(bad.clone()),
            runs: 1,
            threads: 1,
            apply_recommendations: false,
            throttle: crate::device::Limit::default(),
        },
        &progress,
    )
    .unwrap_err();
    assert!(e.to_string().contains("line 2"), "{e}");
    std::fs::remove_file(&bad).unwrap();
}
