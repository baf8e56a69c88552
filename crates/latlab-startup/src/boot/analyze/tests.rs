//! Tests of `analyze.rs`.

use super::*;

const EXCERPT: &str = SAMPLE_XPERF;

#[test]
fn the_studys_excerpt_parses_and_analyses() {
    let t = parse(EXCERPT).unwrap();
    assert_eq!(t.format, Format::Xperf);
    assert_eq!(t.autostart, Some((8531.0, 13146.0, 4614.0)));
    let names: Vec<&str> = t.services.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["PlugPlay", "Power", "DcomLaunch", "RpcEptMapper", "RpcSs", "eventlog"]);
    assert_eq!(t.services[0].duration_ms, 621.0);
    assert_eq!(t.services[0].line, 6);
    let a = analyze(&t);
    assert_eq!(a.autostart_ms, 4614.0);
    assert_eq!(a.by_cost[0].name, "PlugPlay");
    assert_eq!(a.by_cost.iter().map(|s| s.duration_ms).collect::<Vec<_>>(), [621.0, 292.0, 80.0, 68.0, 65.0, 31.0]);
    // PlugPlay is 13 % of the window: a candidate; eventlog (6 %) is not.
    assert_eq!(a.candidates.len(), 1);
    assert_eq!(a.candidates[0].name, "PlugPlay");
    // The path that ends last: PlugPlay → Power → … → eventlog, back to back.
    let path: Vec<&str> = a.critical_path.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(path.first(), Some(&"PlugPlay"));
    assert_eq!(path.last(), Some(&"eventlog"));
}

#[test]
fn systemd_blame_and_critical_chain_parse() {
    let blame = "     1min 2.345s NetworkManager-wait-online.service\n  5.800s apt-daily.service\n    523ms systemd-udevd.service\n     87us foo.mount\n";
    let t = parse(blame).unwrap();
    assert_eq!(t.format, Format::Blame);
    assert_eq!(t.services[0].duration_ms, 62_345.0);
    assert!((t.services[3].duration_ms - 0.087).abs() < 1e-12);
    assert_eq!(t.services[2].group, "service");
    let a = analyze(&t);
    assert!(a.candidates[0].reason.contains("network"), "{:?}", a.candidates);
    assert!(a.candidates.iter().any(|c| c.name == "apt-daily.service"));
    let chain = "The time when unit became active or started is printed after the \"@\" character.\n\
The time the unit took to start is printed after the \"+\" character.\n\n\
graphical.target @7.434s\n\
└─multi-user.target @7.433s\n  └─docker.service @5.823s +1.609s\n    └─network-online.target @5.820s\n      └─NetworkManager-wait-online.service @1.2s +4.619s\n";
    let t = parse(chain).unwrap();
    assert_eq!(t.format, Format::CriticalChain);
    assert_eq!(t.chain.len(), 5);
    assert_eq!(t.services.len(), 2);
    let a = analyze(&t);
    assert_eq!(a.autostart_ms, 7434.0);
    let path: Vec<&str> = a.critical_path.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(path, ["NetworkManager-wait-online.service", "docker.service"]);
    assert!((a.critical_path[1].started_ms.unwrap() - 4214.0).abs() < 1e-9);
}

#[test]
fn malformed_traces_name_the_line_and_what_was_expected() {
    let bad_number = EXCERPT.replace("totalTransitionTimeDelta=\"80\"", "totalTransitionTimeDelta=\"eighty\"");
    let e = parse(&bad_number).unwrap_err();
    assert_eq!(e.line, 10, "{e}");
    assert!(e.expected.contains("Power") && e.expected.contains("eighty"), "{e}");
    let missing = EXCERPT.replace("totalTransitionTimeDelta=\"31\" ", "");
    let e = parse(&missing).unwrap_err();
    assert!(e.expected.contains("DcomLaunch") && e.expected.contains("totalTransitionTimeDelta"), "{e}");
    let unclosed = EXCERPT.replace("</services>", "</service>");
    let e = parse(&unclosed).unwrap_err();
    assert!(e.expected.contains("well-formed XML"), "{e}");
    assert!(e.line >= 30, "{e}");
    let e = parse("<results><other/></results>").unwrap_err();
    assert!(e.expected.contains("<services>"), "{e}");
    let e = parse("  1.5s ok.service\n  fast slow.service\n").unwrap_err();
    assert_eq!(e.line, 2);
    assert!(e.expected.contains("1.234s"), "{e}");
    let e = parse("graphical.target @7.434s\n└─multi-user.target @soon\n").unwrap_err();
    assert_eq!(e.line, 2);
    assert!(e.expected.contains("after '@'"), "{e}");
    assert!(parse("").is_err());
}

#[test]
fn durations_parse_like_systemd_prints_them() {
    assert_eq!(parse_duration_ms("1h 2min 3.5s"), Some(3_723_500.0));
    assert_eq!(parse_duration_ms("250ms"), Some(250.0));
    assert!((parse_duration_ms("7µs").unwrap() - 0.007).abs() < 1e-12);
    assert_eq!(parse_duration_ms("3 s"), None);
    assert_eq!(parse_duration_ms(""), None);
}

#[test]
fn the_seeds_own_excerpt_is_a_check_of_the_reader_as_in_the_suite() {
    let t = parse(EXCERPT).unwrap();
    let rec = record("xperf-boot-excerpt.xml", &t, &analyze(&t));
    let row = &rec.paper[0];
    assert_eq!(row.judgement.verdict, latlab_model::verdict::Verdict::SelfCheck, "{}", row.judgement.basis);
    assert_eq!(row.judgement.check_passed, Some(true));
    assert!(!row.paper_value.contains("slowest"), "the seed says PlugPlay took 621 ms, not that it was the slowest");
}
