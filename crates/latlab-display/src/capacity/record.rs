//! The capacity run's record: per-level metrics and tables, the users-per-link and
//! users-per-server answers, and the seed's rows beside them.

use super::*;

#[allow(clippy::too_many_arguments)]
pub(super) fn record(
    rec: &mut RunRecord,
    cfg: &CapacityConfig,
    mix: &str,
    levels: &[Level],
    per_kind: &[KindRate],
    users: usize,
    limit: Limit,
    said: &str,
) {
    rec.mode = "capacity".into();
    rec.config("mix", mix);
    rec.config("ramp", &cfg.ramp);
    rec.config("seconds_per_level", cfg.seconds);
    rec.config("link_bps", cfg.link_bps);
    rec.config(
        "server",
        match (cfg.real, &cfg.server_exe) {
            (Some(RealServer::LocalXrdp), _) => {
                "xrdp started here: xrdp, xrdp-sesman and each session's processes (Xorg, two xterms, a shell, less), one local account per session"
            }
            (None, Some(_)) => "its own process (latlab display serve)",
            (None, None) => "in this process",
        },
    );
    rec.config(
        "clients",
        "threads of this process, one per session (on CPUs apart from the server's where client_cpus says so)",
    );
    match cfg.real {
        Some(_) => {
            let (w, h) = (latlab_desktop::defaults::WIDTH, latlab_desktop::defaults::HEIGHT);
            rec.config("screen", format!("{w}x{h}x{} (asked of the server)", crate::defaults::RDP_BPP));
        }
        None => {
            rec.config("codec", cfg.session.codec.name());
            rec.config("crypto", cfg.session.crypto.name());
            rec.config("screen", format!("{}x{}x{}", cfg.session.width, cfg.session.height, cfg.session.bpp));
        }
    }
    rec.config("answer", said);
    rec.metric("capacity.users", users as u64, "count");
    rec.metric(
        &format!(
            "capacity.limit.{}",
            match limit {
                Limit::Cpu => "cpu",
                Limit::Memory => "memory",
                Limit::Link => "link",
                Limit::Logins => "logins",
                Limit::Unclear => "unclear",
                Limit::NotReached => "not_reached",
            }
        ),
        1u64,
        "count",
    );
    let c = Column::new;
    let mut rows = Vec::new();
    let mut prev_pss: Option<(usize, u64)> = None;
    let mut per_session_kib = Vec::new();
    for l in levels {
        let n = l.kinds.len();
        let f = &l.figures;
        let p = format!("capacity.n{n}");
        if let Some(v) = f.worst_p95_ns {
            rec.metric(&format!("{p}.worst_p95"), v, "ns");
        }
        // Keys across every typist of the level.
        let all: Vec<i64> = l.sessions.iter().flat_map(|s| key_latencies(s).0).collect();
        let summary = latlab_model::stats::summarize(&all);
        if let Some(s) = &summary {
            rec.metric(&format!("{p}.p50"), s.p50, "ns");
            rec.metric(&format!("{p}.p95"), s.p95, "ns");
            rec.metric(&format!("{p}.p99"), s.p99, "ns");
        }
        rec.metric(&format!("{p}.lost_keys"), f.lost_keys, "count");
        rec.metric(&format!("{p}.down_bytes_per_session"), f.down_bps / n as f64, "B/s");
        let up: f64 = l.sessions.iter().map(input_bps).sum::<f64>() / n as f64;
        rec.metric(&format!("{p}.up_bytes_per_session"), up, "B/s");
        if let Some(cpu) = f.server_cores {
            rec.metric(&format!("{p}.server_cpu_per_session"), cpu / n as f64, "ratio");
        }
        if let Some(cpu) = f.client_cores {
            rec.metric(&format!("{p}.client_cpu_per_session"), cpu / n as f64, "ratio");
        }
        // What capacity divides: the server's encode CPU per typist (its own thread's time).
        let enc: Vec<f64> = l.sessions.iter().filter_map(typist_encode_share).collect();
        if !enc.is_empty() {
            rec.metric(&format!("{p}.server_encode_per_typist"), enc.iter().sum::<f64>() / enc.len() as f64, "ratio");
        }
        let mut pss_per = None;
        let mut added = None;
        if let Some((before, mid)) = l.pss_kib {
            // Per session the server held: a login that failed holds nothing.
            let live = n - f.no_login;
            let per = mid.saturating_sub(before) as f64 / live.max(1) as f64;
            rec.metric(&format!("{p}.server_pss"), mid, "KiB");
            rec.metric(&format!("{p}.server_pss_per_session"), per, "KiB");
            if broken(f, cfg.link_bps).is_none() {
                per_session_kib.push((live, per));
            }
            pss_per = Some(per);
            if let Some((pn, pp)) = prev_pss.filter(|&(pn, _)| live > pn) {
                let a = (mid as f64 - pp as f64) / (live - pn) as f64;
                rec.metric(&format!("{p}.server_pss_added_per_session"), a, "KiB");
                added = Some(a);
            }
            prev_pss = Some((live, mid));
        }
        let why = broken(f, cfg.link_bps);
        let r1 = |v: f64| (v * 10.0).round() / 10.0;
        let opt = |v: Option<f64>| v.map_or(serde_json::Value::Null, |v| r1(v).into());
        rows.push(vec![
            serde_json::Value::from(n),
            l.kinds.iter().filter(|k| **k == UserKind::Typist).count().into(),
            opt(summary.map(|s| s.p50 as f64 / 1e6)),
            opt(summary.map(|s| s.p95 as f64 / 1e6)),
            opt(f.worst_p95_ns.map(|v| v as f64 / 1e6)),
            f.lost_keys.into(),
            opt(f.server_cores.map(|c| 100.0 * c / n as f64)),
            opt(f.client_cores.map(|c| 100.0 * c / n as f64)),
            opt(pss_per),
            opt(added),
            r1(f.down_bps / n as f64 / 1000.0).into(),
            r1(up / 1000.0).into(),
            f.major_faults.map_or(serde_json::Value::Null, serde_json::Value::from),
            why.or_else(|| outlier(f, cfg.link_bps).map(|o| format!("held; {o}")))
                .unwrap_or_else(|| "held".into())
                .into(),
        ]);
        for s in &l.sessions {
            if let Outcome::Failed(e) | Outcome::NoLogin(e) = s {
                rec.warn(format!("{n} sessions: a session failed: {e}"));
                break;
            }
        }
    }
    rec.tables.push(Table {
        name: "capacity.ramp".into(),
        title: format!(
            "Users per server: {mix} on {}",
            cfg.link_bps.map_or("loopback".into(), |r| format!("{r} bit/s"))
        ),
        columns: vec![
            c("sessions", "count"),
            c("typists", "count"),
            c("key p50", "ms"),
            c("key p95", "ms"),
            c("worst typist p95", "ms"),
            c("lost keys", "count"),
            c("server CPU per session", "% of a core"),
            c("client CPU per session", "% of a core"),
            c("server PSS per session", "KiB"),
            c("PSS a new session adds", "KiB"),
            c("down per session", "KB/s"),
            c("up per session", "KB/s"),
            c("major faults", "count"),
            c("criterion", ""),
        ],
        rows,
        plot: Some(TablePlot {
            x: "sessions".into(),
            ys: vec!["key p95".into(), "worst typist p95".into()],
            log_x: true,
            log_y: false,
        }),
    });
    // Each kind's own rate, and how many fit 10 Mbit/s by bandwidth.
    let ten = 10e6 / 8.0;
    if !per_kind.is_empty() {
        rec.tables.push(Table {
            name: "capacity.kinds".into(),
            title: "Each kind of user, one session each: bandwidth (PDU payload, and on the link with each PDU's TCP/IP/Ethernet headers), and how many would fill 10 Mbit/s on the link".into(),
            columns: vec![
                c("user", ""),
                c("down", "KB/s"),
                c("up", "KB/s"),
                c("down on the link", "KB/s"),
                c("up on the link", "KB/s"),
                c("per 10 Mbit/s", "users"),
            ],
            rows: per_kind
                .iter()
                .map(|r| {
                    let kb = |v: f64| ((v / 100.0).round() / 10.0).into();
                    vec![
                        r.kind.name().into(),
                        kb(r.down),
                        kb(r.up),
                        kb(r.down_link),
                        kb(r.up_link),
                        (ten / (r.down_link + r.up_link).max(1.0)).round().into(),
                    ]
                })
                .collect(),
            plot: None,
        });
        for r in per_kind {
            let k = r.kind.name();
            rec.metric(&format!("capacity.kind.{k}.down_bytes_per_s"), r.down, "B/s");
            rec.metric(&format!("capacity.kind.{k}.up_bytes_per_s"), r.up, "B/s");
            rec.metric(&format!("capacity.kind.{k}.down_link_bytes_per_s"), r.down_link, "B/s");
            rec.metric(&format!("capacity.kind.{k}.up_link_bytes_per_s"), r.up_link, "B/s");
        }
    }
    let fill = |k: UserKind| per_kind.iter().find(|p| p.kind == k).map(|p| ten / (p.down_link + p.up_link).max(1.0));
    let method = format!(
        "one session of each kind of user through latlab's server (run side by side: a session's bytes are fixed by its own script), its steady rate (a run {} s longer less a {} s run, so the session's opening screen is not counted); users per link = 10 Mbit/s over its bytes per second both ways on the link: each PDU's payload and the TCP/IP/Ethernet headers of its segments, as the seed counted (its 232 B per keystroke predicts the 1.56 KB/s it measured); ACKs are not counted",
        sig(cfg.seconds),
        sig(crate::defaults::CAPACITY_OPENING_SECONDS)
    );
    // The seed's users per 10 Mbit/s: (kind, figure, setting, paper, its number, tolerance,
    // what the here side counts and its decimals, the quantity judged, why it may differ).
    let rows = [
        (
            UserKind::Typist,
            "§3.3.2 typists per 10 Mbit/s",
            {
                let (word, wp) = crate::paper::ops_range("typing").unwrap_or_default();
                format!("Word or WordPerfect at 100 wpm, {word:.2}–{wp:.2} KB/s of display traffic each")
            },
            "on the order of 100 users",
            100.0,
            3.0,
            format!("typists at {} wpm", crate::defaults::CAPACITY_WPM),
            0,
            "typists per 10 Mbit/s",
            "latlab's editor sends a glyph and a caret per key, with orders and a cache; the seed does not say what Word or WordPerfect drew per key",
        ),
        (
            UserKind::Banner,
            "§3.3.3 animated page: users to saturate 10 Mbit/s",
            format!(
                "Internet Explorer showing a 468×60 animated banner and a news ticker, {:.2} Mbit/s each",
                crate::paper::BANNER_TICKER_MBPS[2]
            ),
            "5 users saturate the link",
            5.0,
            2.0,
            "users of the banner + ticker page".to_string(),
            1,
            "users per 10 Mbit/s",
            "latlab's banner and ticker cost 2.3–2.7× the sum of each alone, not the seed's 20× (an open difference from display cache)",
        ),
        (
            UserKind::Scroller,
            "§5 heavy use: sessions per 10 Mbit/s",
            "web browsing and document scrolling on 10 Mbit/s Ethernet".to_string(),
            "as few as 10 sessions",
            10.0,
            3.0,
            "scrolling sessions".to_string(),
            0,
            "sessions per 10 Mbit/s",
            "latlab's scroll moves the page with a screen-to-screen copy and draws three new lines; the seed does not say what its browsing and scrolling drew",
        ),
    ];
    for (kind, figure, setting, paper, paper_n, factor, who, decimals, quantity, why) in rows {
        let Some(n) = fill(kind) else { continue };
        rec.paper.push(PaperRow {
            seed: "003".into(),
            figure: figure.into(),
            paper_setting: setting,
            paper_value: paper.into(),
            here_value: format!("{n:.decimals$} {who}"),
            note: format!("{method} (capacity.kind.{}.down_link_bytes_per_s)", kind.name()),
            // The bytes come from latlab's own deterministic workloads: the same on every machine.
            judgement: Judgement::simulated(
                "users per link from latlab's workload bytes with modelled headers",
                Judgement::within_factor(n, paper_n, factor, why).of(quantity),
            ),
        });
    }
    // The largest level that held: the most sessions sharing the server's fixed memory.
    if let Some(&(sessions, per)) = per_session_kib.last() {
        let setting = "NT 4.0 TSE: the five processes of each login, private committed memory";
        rec.paper.push(match cfg.real {
            // A real server's login: its own processes, measured as the seed measured NT's.
            Some(RealServer::LocalXrdp) => PaperRow {
                seed: "003".into(),
                figure: "§3.2.1 memory per user session".into(),
                paper_setting: setting.into(),
                paper_value: "2,212 KB cold to 3,244 KB warm".into(),
                here_value: format!("{per:.0} KiB of PSS per session at {sessions} sessions, xrdp here"),
                note: "every process of xrdp's sessions (each login's Xorg, two xterms, a shell and less, and xrdp's process for the connection) and xrdp and sesman themselves, PSS summed mid-level less xrdp and sesman alone, per session (capacity.nN.server_pss_per_session); PSS counts a shared page's share where the seed counted private committed memory".into(),
                judgement: Judgement::within_range(
                    per,
                    2212.0,
                    3244.0,
                    2.0,
                    "an xrdp login runs its own X server, with a framebuffer and today's libraries, where NT 4.0's logins shared one kernel's window manager",
                )
                .of("KiB of memory per login"),
            },
            None => PaperRow {
                seed: "003".into(),
                figure: "§3.2.1 memory per user session".into(),
                paper_setting: setting.into(),
                paper_value: "2,212 KB cold to 3,244 KB warm".into(),
                here_value: format!(
                    "{per:.0} KiB of server PSS per session at {sessions} sessions, {} bpp",
                    cfg.session.bpp
                ),
                note: "latlab's server keeps, per session, the pages of its screens its typing drew on (the first screen is shared by every session) and its encoder state; its fixed memory (the font, the shared first screen) is measured before the level (capacity.nN.server_pss_per_session); the seed counted a whole Windows login's processes".into(),
                // A latlab session is not a Windows login: nothing here measures what the seed did.
                judgement: Judgement::not_comparable_by_design(&format!(
                    "a latlab session is one screen's buffers and an encoder, not NT 4.0's five login processes; {per:.0} KiB against the seed's 2,212–3,244 KB says nothing about this machine"
                )),
            },
        });
    }
}
