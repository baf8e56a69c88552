//! `latlab display cache`: the bitmap-cache cliff (seed 003, Figure 4). A looping animation
//! whose frames fit the 64×64 cache costs almost nothing once loaded; one frame more and LRU
//! misses on every frame. The sweep runs the loop at frame counts around the cache's
//! capacity under every policy — Belady's optimum, from the reference trace of the same run,
//! is the bound — and then the banner + ticker pair (each alone fits, together they do not).

use latlab_desktop::cache::Geometry;
use latlab_desktop::policy::PolicyKind;
use latlab_desktop::session::{SessionConfig, SessionError, SessionResult, run};
use latlab_desktop::wire::Codec;
use latlab_desktop::workload::WorkloadKind;
use latlab_model::numfmt::sig;
use latlab_model::record::{Column, PaperRow, RunRecord, Table, TablePlot};
use latlab_model::verdict::Judgement;
use latlab_sys::record::Finish;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// What the cache experiment sweeps.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CacheConfig {
    /// Animation frame counts to run.
    pub frame_counts: Vec<u32>,
    /// Policies (the optimum is always added last).
    pub policies: Vec<PolicyKind>,
    /// Loops measured after one loop of warm-up.
    pub loops: u32,
    /// The caches' cells and colour depth for the animation sweep (default: seed 003's
    /// 1.5 MB at 8 bpp).
    pub geometry: Geometry,
    /// The same for the banner + ticker runs (default: the seed's 1.5 MB 8 bpp geometry of
    /// Figure 4, as its pair ran).
    pub banner_geometry: Geometry,
    /// The same pass again at another geometry, said beside the row (latlab's 16 bpp one).
    pub banner_aside: Option<Geometry>,
    /// Bulk compression.
    pub codec: Codec,
    /// Also run banner, ticker, and both.
    pub banner_ticker: bool,
}

/// Frames of the banner in the banner + ticker runs: the default, or as many as fill
/// [`crate::defaults::BANNER_CACHE_SHARE`] of a smaller 64×64 cache, so the banner alone fits.
pub fn banner_frames(g: &Geometry) -> u32 {
    let d = latlab_desktop::defaults::BANNER_FRAMES;
    let fit =
        (g.cells[2] as f64 * crate::defaults::BANNER_CACHE_SHARE) as usize / crate::defaults::BANNER_CELLS_PER_FRAME;
    d.min(fit.max(1) as u32)
}

/// Frame counts around a capacity of `c` frames: far below, just below, at, just above and
/// far above (the full sweep).
pub fn frames_around(c: u32) -> Vec<u32> {
    let mut v =
        vec![c / 2, c.saturating_sub(20), c.saturating_sub(4), c - 1, c, c + 1, c + 2, c + 4, c + 10, c + 20, 2 * c];
    v.retain(|&n| n >= 1);
    v.sort_unstable();
    v.dedup();
    v
}

/// The first swept frame count at which LRU's rate is [`crate::defaults::CLIFF_JUMP`] times
/// or more its rate at the smallest count: where the cliff is, measured (`None` when it never
/// jumps).
pub fn cliff_at(lru: &[(u32, f64)]) -> Option<u32> {
    let mut v = lru.to_vec();
    v.sort_by_key(|x| x.0);
    let base = v.first()?.1.max(1e-9);
    v.iter().find(|x| x.1 >= crate::defaults::CLIFF_JUMP * base).map(|x| x.0)
}

impl CacheConfig {
    /// The full sweep.
    pub fn full() -> Self {
        let geometry = Geometry::seed_003();
        Self {
            frame_counts: frames_around(geometry.capacity_frames()),
            policies: PolicyKind::ALL.to_vec(),
            loops: crate::defaults::CACHE_LOOPS,
            geometry,
            banner_geometry: geometry,
            banner_aside: Some(Geometry { cells: latlab_desktop::defaults::CELLS, bpp: latlab_desktop::defaults::BPP }),
            codec: Codec::from_name(crate::defaults::VIEW_CODEC).expect("a codec"),
            banner_ticker: true,
        }
    }

    /// The suite's short version: at and around the capacity.
    pub fn short() -> Self {
        let c = Geometry::seed_003().capacity_frames();
        Self { frame_counts: vec![c - 4, c, c + 1, c + 4], loops: 1, ..Self::full() }
    }

    fn policies(&self) -> Vec<PolicyKind> {
        let mut p: Vec<PolicyKind> = self.policies.iter().copied().filter(|&p| p != PolicyKind::Opt).collect();
        if !p.contains(&PolicyKind::Lru) {
            p.insert(0, PolicyKind::Lru);
        }
        p.push(PolicyKind::Opt);
        p
    }

    /// Sessions this sweep runs (for progress).
    pub fn steps(&self) -> u64 {
        let per = self.policies().len() as u64;
        let passes = 1 + u64::from(self.banner_aside.is_some());
        per * self.frame_counts.len() as u64 + if self.banner_ticker { passes * (2 + per) } else { 0 }
    }

    fn session(&self, workload: WorkloadKind, policy: PolicyKind, warmup_ms: u64, measure_ms: u64) -> SessionConfig {
        let g =
            if matches!(workload, WorkloadKind::BannerTicker { .. }) { self.banner_geometry } else { self.geometry };
        self.session_at(g, workload, policy, warmup_ms, measure_ms)
    }

    fn session_at(
        &self,
        g: Geometry,
        workload: WorkloadKind,
        policy: PolicyKind,
        warmup_ms: u64,
        measure_ms: u64,
    ) -> SessionConfig {
        let mut s = SessionConfig::standard(workload, warmup_ms + measure_ms);
        s.warmup_ms = warmup_ms;
        (s.encoder.cells, s.bpp) = (g.cells, g.bpp);
        s.encoder.policy = policy;
        s.codec = self.codec;
        s
    }
}

/// Run `workload` under every policy (LRU first: its trace feeds the optimum).
fn per_policy(
    cfg: &CacheConfig,
    workload: &WorkloadKind,
    warmup_ms: u64,
    measure_ms: u64,
    progress: &AtomicU64,
) -> Result<Vec<(PolicyKind, SessionResult)>, SessionError> {
    let mut out: Vec<(PolicyKind, SessionResult)> = Vec::new();
    for p in cfg.policies() {
        let oracle = (p == PolicyKind::Opt).then(|| out[0].1.oracle.clone());
        let r = run(&cfg.session(workload.clone(), p, warmup_ms, measure_ms), oracle)?;
        progress.fetch_add(1, Ordering::Relaxed);
        out.push((p, r));
    }
    Ok(out)
}

/// Display bytes a second on the link: each PDU's TCP segments with their TCP/IP and Ethernet
/// headers, as the seed's tcpdump counted every other figure of §3.3 (a swap message is a
/// small PDU whose headers weigh as much as it does, so payload alone would overstate the
/// cliff).
fn bps(r: &SessionResult) -> f64 {
    let wire: u64 = r.traffic.display_sizes.iter().map(|&n| n as u64 + latlab_desktop::wire::framing(n as u64).1).sum();
    wire as f64 / r.traffic.seconds.max(1e-9)
}

/// Run the sweep into a record.
pub fn run_cache(cfg: &CacheConfig, progress: Arc<AtomicU64>) -> Result<RunRecord, SessionError> {
    let mut rec = latlab_sys::record::begin("display");
    rec.mode = "cache".into();
    rec.config("frame_counts", &cfg.frame_counts);
    rec.config("policies", cfg.policies().iter().map(|p| p.name()).collect::<Vec<_>>());
    rec.config("cells", cfg.geometry.cells);
    rec.config("bpp", cfg.geometry.bpp);
    rec.config("cache_bytes", cfg.geometry.bytes());
    rec.config("codec", cfg.codec.name());
    rec.config("loops_measured", cfg.loops);
    let cap = cfg.geometry.capacity_frames();
    rec.metric("cache.capacity_frames", cap as u64, "count");
    rec.metric("cache.bytes", cfg.geometry.bytes().unwrap_or(0) as u64, "B");
    let delay = latlab_desktop::defaults::ANIMATION_DELAY_MS;
    let policies = cfg.policies();
    let mut rows = Vec::new();
    let mut at: std::collections::BTreeMap<u32, Vec<(PolicyKind, f64)>> = Default::default();
    // The cliff is found on the payload: the headers of the small swap messages a fitting
    // loop still sends would dilute the rise (the rates reported are on the link).
    let mut lru_payload: Vec<(u32, f64)> = Vec::new();
    for &n in &cfg.frame_counts {
        let w = WorkloadKind::Animation { frames: n, delay_ms: delay };
        let loop_ms = n as u64 * delay;
        let res = per_policy(cfg, &w, loop_ms, cfg.loops.max(1) as u64 * loop_ms, &progress)?;
        let mut row = vec![serde_json::Value::from(n)];
        for (p, r) in &res {
            let b = bps(r);
            if *p == PolicyKind::Lru {
                lru_payload.push((n, r.traffic.display_bytes as f64 / r.traffic.seconds.max(1e-9)));
            }
            rec.metric(&format!("cache.{}.n{n}.bytes_per_s", p.name()), b, "B/s");
            row.push(((b * 10.0).round() / 10.0).into());
            at.entry(n).or_default().push((*p, b));
        }
        rows.push(row);
    }
    let mut columns = vec![Column::new("frames", "count")];
    columns.extend(policies.iter().map(|p| Column { name: p.name().into(), unit: "B/s".into() }));
    rec.tables.push(Table {
        name: "cache.sweep".into(),
        title: format!(
            "Looping 119×119 animation, {delay} ms a frame: display bytes/s on the link (TCP/IP and Ethernet headers included) after one loop of warm-up, by frame count and policy (the 64×64 cache holds {cap} frames)"
        ),
        columns,
        rows,
        plot: Some(TablePlot {
            x: "frames".into(),
            ys: policies.iter().map(|p| p.name().to_string()).collect(),
            log_x: false,
            log_y: true,
        }),
    });
    // The cliff and each policy against the optimum, one frame past the capacity.
    let get = |n: u32, p: PolicyKind| at.get(&n).and_then(|v| v.iter().find(|x| x.0 == p)).map(|x| x.1);
    let cliff = cliff_at(&lru_payload);
    if let Some(c) = cliff {
        rec.metric("cache.lru.cliff_at_frames", c as u64, "count");
    }
    if let (Some(fit), Some(over)) = (get(cap, PolicyKind::Lru), get(cap + 1, PolicyKind::Lru)) {
        rec.metric("cache.lru.cliff_ratio", over / fit.max(1e-9), "×");
        let g = &cfg.geometry;
        let measured = match cliff {
            Some(c) if c == cap + 1 => format!("LRU jumps first at {c} frames, as predicted"),
            Some(c) => format!("LRU jumps first at {c} frames, not at the predicted {}", cap + 1),
            None => "LRU never jumps in this sweep".to_string(),
        };
        let jump = over / fit.max(1e-9);
        // The cache is simulated frame by frame: the same figures on every machine.
        let judgement = Judgement::simulated(
            "latlab's bitmap cache model, frame by frame",
            Judgement::all(vec![
                Judgement::finding(
                    cliff == Some(cap + 1),
                    &format!(
                        "the cliff sits where the geometry predicts, at {} frames (held to that very frame)",
                        cap + 1
                    ),
                    &cliff.map_or("no cliff".into(), |c| format!("first jump at {c}")),
                    "the cache is not filled in the order the arithmetic assumes",
                ),
                Judgement::finding(
                    jump >= 10.0,
                    "one frame past it costs at least ten times more (the seed's 100×, held to an order of magnitude)",
                    &format!("{jump:.0}×"),
                    "latlab's frames compress or cache differently from TSE's",
                ),
            ]),
        );
        rec.paper.push(PaperRow {
            seed: "003".into(),
            figure: "Figure 4: looping animation and the LRU bitmap cache".into(),
            paper_setting: "119×119 8 bpp frames, 1.5 MB LRU cache, NT 4.0 TSE, 10 Mbit/s".into(),
            paper_value: {
                let [(n, fit), (m, over)] = crate::paper::FIGURE_4;
                format!("{fit:.2} Mbit/s up to {n} frames, {over:.2} Mbit/s from {m}")
            },
            here_value: format!(
                "{} Mbit/s at {cap} frames, {} Mbit/s at {} ({:.0}×)", sig(fit * 8e-6), sig(over * 8e-6),
                cap + 1,
                over / fit.max(1e-9)
            ),
            note: format!(
                "display bytes on the link, headers included; {} bpp, {}/{}/{} cells = {} B (RDP 4.0's revision-1 caps for 1.5 MB at 8 bpp by default); four 64×64 cells a frame, so n/m predicts the cliff at {cap}/{}; {measured}",
                g.bpp,
                g.cells[0],
                g.cells[1],
                g.cells[2],
                g.bytes().unwrap_or(0),
                cap + 1
            ),
            judgement,
        });
        if let Some(opt) = get(cap + 1, PolicyKind::Opt) {
            let mut best: Option<(PolicyKind, f64)> = None;
            for &p in &policies {
                if let Some(b) = get(cap + 1, p) {
                    rec.metric(&format!("cache.{}.bytes_vs_opt", p.name()), b / opt.max(1e-9), "ratio");
                    if p != PolicyKind::Lru && p != PolicyKind::Opt && best.is_none_or(|x| b < x.1) {
                        best = Some((p, b));
                    }
                }
            }
            if let Some((p, b)) = best {
                rec.metric("cache.best_policy_vs_opt", b / opt.max(1e-9), "ratio");
                rec.config("best_policy", p.name());
            }
        }
    }
    if cfg.banner_ticker {
        let aside = match cfg.banner_aside {
            Some(g) => Some((g, banner_pass(cfg, g, "cache.aside.", &mut rec, &progress)?.excess())),
            None => None,
        };
        banner_ticker(cfg, aside, &mut rec, &progress)?;
    }
    rec.finish(latlab_model::record::RunStatus::Complete);
    Ok(rec)
}

/// What one banner + ticker pass measured (LRU): banner alone, ticker alone, both; frames.
struct BannerPass {
    lone: [f64; 2],
    lru_both: f64,
    frames: u32,
    /// The pair's LRU trace, bytes on the link per second.
    trace: Vec<f64>,
}

/// Bytes on the link in each whole second of a session's counted time (a last part-second is
/// left out).
fn per_second(r: &SessionResult) -> Vec<f64> {
    let n = r.traffic.seconds.floor() as usize;
    let mut bins = vec![0.0; n];
    for (&size, &at) in r.traffic.display_sizes.iter().zip(&r.traffic.display_at_ms) {
        if let Some(b) = bins.get_mut(at as usize / 1000) {
            *b += (size as u64 + latlab_desktop::wire::framing(size as u64).1) as f64;
        }
    }
    bins
}

/// Figure 3's plateaus: the mean of the seconds above the trace's mean, and that over the
/// mean (`None` for fewer than [`PLATEAU_MIN_SECONDS`] seconds, or a flat trace).
pub(crate) fn plateaus(trace: &[f64]) -> Option<(f64, f64)> {
    if trace.len() < PLATEAU_MIN_SECONDS {
        return None;
    }
    let mean = trace.iter().sum::<f64>() / trace.len() as f64;
    let high: Vec<f64> = trace.iter().copied().filter(|&b| b > mean).collect();
    if high.is_empty() || mean <= 0.0 {
        return None;
    }
    let level = high.iter().sum::<f64>() / high.len() as f64;
    Some((level, level / mean))
}

/// The fewest seconds a trace needs before its plateaus mean anything.
const PLATEAU_MIN_SECONDS: usize = 4;

impl BannerPass {
    fn excess(&self) -> f64 {
        self.lru_both / (self.lone[0] + self.lone[1]).max(1e-9)
    }
}

/// Banner alone, ticker alone (LRU), and both under every policy, at geometry `g`; metrics
/// named under `prefix` (`cache.` for the row's pass), and its table for the row's pass.
fn banner_pass(
    cfg: &CacheConfig,
    g: Geometry,
    prefix: &str,
    rec: &mut RunRecord,
    progress: &AtomicU64,
) -> Result<BannerPass, SessionError> {
    let frames = banner_frames(&g);
    let warm = frames as u64 * 100;
    let measure = 2 * warm;
    let kind = |banner, ticker| WorkloadKind::BannerTicker { banner, ticker, banner_frames: frames };
    let mut rows = Vec::new();
    let mut lone = [0.0; 2];
    for (i, (b, t)) in [(true, false), (false, true)].into_iter().enumerate() {
        let w = kind(b, t);
        let r = run(&cfg.session_at(g, w.clone(), PolicyKind::Lru, warm, measure), None)?;
        progress.fetch_add(1, Ordering::Relaxed);
        lone[i] = bps(&r);
        rec.metric(&format!("{prefix}{}.lru.bytes_per_s", w.name()), lone[i], "B/s");
        rows.push(vec![w.name().into(), "lru".into(), ((lone[i] * 10.0).round() / 10.0).into()]);
    }
    let mut lru_both = 0.0;
    let mut trace = Vec::new();
    // Belady's optimum replays the first policy's (LRU's) request stream, as in the sweep.
    let mut oracle = None;
    for p in cfg.policies() {
        let r = run(
            &cfg.session_at(g, kind(true, true), p, warm, measure),
            if p == PolicyKind::Opt { oracle.clone() } else { None },
        )?;
        progress.fetch_add(1, Ordering::Relaxed);
        if oracle.is_none() {
            oracle = Some(r.oracle.clone());
        }
        let b = bps(&r);
        if p == PolicyKind::Lru {
            lru_both = b;
            trace = per_second(&r);
        }
        rec.metric(&format!("{prefix}banner_ticker.{}.bytes_per_s", p.name()), b, "B/s");
        rows.push(vec!["banner_ticker".into(), p.name().into(), ((b * 10.0).round() / 10.0).into()]);
    }
    let pass = BannerPass { lone, lru_both, frames, trace };
    rec.metric(&format!("{prefix}banner_ticker.lru.excess_ratio"), pass.excess(), "×");
    if prefix == "cache." {
        rec.tables.push(Table {
            name: "cache.banner_ticker".into(),
            title: format!(
                "468×60 banner ({frames} frames) and news ticker at {} bpp, {}/{}/{} cells: display bytes/s on the link alone and together",
                g.bpp, g.cells[0], g.cells[1], g.cells[2]
            ),
            columns: vec![Column::new("workload", ""), Column::new("policy", ""), Column::new("bytes_per_s", "B/s")],
            rows,
            plot: None,
        });
    }
    Ok(pass)
}

/// Seed 003's banner-and-ticker finding: together far more than the two alone (1.60 Mbit/s
/// against 0.08, 20×), because together they overflow the bitmap cache. Any unit.
fn banner_ticker_judgement(together: f64, ticker: f64, banner: f64) -> Judgement {
    let x = together / (ticker + banner).max(1e-9);
    Judgement::finding(
        x >= 10.0,
        "together costs far more than the two alone (the seed's 20×, held to ≥ 10×)",
        &format!("{x:.1}×"),
        "the two together still fit latlab's bitmap cache at this geometry",
    )
}

/// The banner + ticker row, at the seed's geometry; `aside` is the same pass at latlab's
/// 16 bpp geometry, said in the note.
fn banner_ticker(
    cfg: &CacheConfig,
    aside: Option<(Geometry, f64)>,
    rec: &mut RunRecord,
    progress: &AtomicU64,
) -> Result<(), SessionError> {
    let BannerPass { lone, lru_both, frames, trace } = banner_pass(cfg, cfg.banner_geometry, "cache.", rec, progress)?;
    rec.paper.push(PaperRow {
        seed: "003".into(),
        figure: "animated banner + news ticker".into(),
        paper_setting: "web page, NT 4.0 TSE, LRU cache".into(),
        paper_value: {
            let [b, t, both] = crate::paper::BANNER_TICKER_MBPS;
            format!("banner alone {b:.2}, ticker alone {t:.2}, together {both:.2} Mbit/s")
        },
        here_value: format!(
            "banner {}, ticker {}, together {} Mbit/s (LRU)",
            sig(lone[0] * 8e-6),
            sig(lone[1] * 8e-6),
            sig(lru_both * 8e-6)
        ),
        note: format!(
            "the ticker's new cells push the banner's loop out of an LRU cache; display bytes on the link, headers included; {} bpp, {}/{}/{} cells (the 1.5 MB geometry of Figure 4), {frames} banner frames{}",
            cfg.banner_geometry.bpp,
            cfg.banner_geometry.cells[0],
            cfg.banner_geometry.cells[1],
            cfg.banner_geometry.cells[2],
            match aside {
                Some((g, x)) => format!(
                    "; aside, at {} bpp with {}/{}/{} cells the pair costs {}× the sum alone (cache.aside.banner_ticker.lru.excess_ratio)",
                    g.bpp,
                    g.cells[0],
                    g.cells[1],
                    g.cells[2],
                    sig(x)
                ),
                None => String::new(),
            }
        ),
        judgement: Judgement::simulated(
            "latlab's bitmap cache model, frame by frame",
            banner_ticker_judgement(lru_both, lone[1], lone[0]),
        ),
    });
    if let Some((level, over)) = plateaus(&trace) {
        rec.metric("cache.banner_ticker.lru.plateau_bytes_per_s", level, "B/s");
        rec.metric("cache.banner_ticker.lru.plateau_ratio", over, "×");
        let [_, _, mean] = crate::paper::BANNER_TICKER_MBPS;
        let paper = crate::paper::BANNER_TICKER_PLATEAU_MBPS;
        rec.paper.push(PaperRow {
            seed: "003".into(),
            figure: "Figure 3: the banner + ticker trace's plateaus".into(),
            paper_setting: "web page, NT 4.0 TSE, LRU cache".into(),
            paper_value: format!(
                "plateaus of higher activity average {paper:.2} Mbit/s against the trace's {mean:.2} ({}×), periodic with the ticker",
                sig(paper / mean)
            ),
            here_value: format!(
                "plateaus {} Mbit/s, {}× the trace's {} Mbit/s (LRU, {} one-second bins)",
                sig(level * 8e-6),
                sig(over),
                sig(lru_both * 8e-6),
                trace.len()
            ),
            note: "the pair's LRU session at the seed's geometry, its display bytes on the link per second; a plateau is a second above the trace's mean, as the seed's \"plateaus of higher activity\" stand above its average; see cache.banner_ticker.lru.plateau_bytes_per_s and cache.banner_ticker.lru.plateau_ratio".into(),
            judgement: Judgement::simulated(
                "latlab's bitmap cache model, frame by frame",
                Judgement::all(vec![
                    Judgement::within_factor(level * 8e-6, paper, 2.0, "the pair's level is the row above's")
                        .of("the plateaus' level"),
                    Judgement::within_factor(over, paper / mean, 1.5, "latlab's ticker and banner beat against each other with a period of their own")
                        .of("plateau over mean"),
                ]),
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plateaus_are_the_seconds_above_the_mean_and_need_a_trace() {
        // Mean 2; the seconds above it are 3 and 3: level 3, 1.5× the mean.
        assert_eq!(plateaus(&[1.0, 3.0, 1.0, 3.0]), Some((3.0, 1.5)));
        assert_eq!(plateaus(&[1.0, 3.0, 1.0]), None, "too short");
        assert_eq!(plateaus(&[2.0; 6]), None, "flat: no plateau");
        assert_eq!(plateaus(&[0.0; 6]), None);
    }

    #[test]
    fn the_sweep_straddles_the_capacity() {
        assert_eq!(frames_around(65), vec![32, 45, 61, 64, 65, 66, 67, 69, 75, 85, 130]);
        assert_eq!(frames_around(3), vec![1, 2, 3, 4, 5, 6, 7, 13, 23]);
        let short = CacheConfig::short();
        assert_eq!(short.frame_counts, vec![61, 65, 66, 69], "around the seed's 65");
    }

    #[test]
    fn the_cliff_is_the_first_rise_by_half_again() {
        let rates = [(66, 4000.0), (61, 20.0), (65, 22.0), (69, 4100.0)];
        assert_eq!(cliff_at(&rates), Some(66));
        assert_eq!(cliff_at(&[(10, 188.0), (11, 357.0)]), Some(11));
        assert_eq!(cliff_at(&[(10, 5.0), (20, 6.0)]), None);
        assert_eq!(cliff_at(&[]), None);
    }

    /// The cliff where a geometry predicts it: the seed's (65/66), and a small one (10/11).
    #[test]
    fn lru_thrashes_one_frame_past_the_geometrys_capacity() {
        for (g, frames) in
            [(Geometry::seed_003(), vec![64, 65, 66]), (Geometry { cells: [60, 60, 40], bpp: 16 }, vec![9, 10, 11])]
        {
            let cap = g.capacity_frames();
            let cfg = CacheConfig {
                frame_counts: frames,
                policies: vec![PolicyKind::Lru],
                loops: 1,
                geometry: g,
                banner_ticker: false,
                ..CacheConfig::short()
            };
            let rec = run_cache(&cfg, Arc::new(AtomicU64::new(0))).unwrap();
            let m = |n: &str| rec.get_metric(n).map(|m| m.value.as_f64());
            assert_eq!(m("cache.capacity_frames"), Some(cap as f64));
            assert_eq!(m("cache.lru.cliff_at_frames"), Some((cap + 1) as f64), "{g:?}");
            assert!(rec.paper[0].note.contains("as predicted"), "{}", rec.paper[0].note);
        }
    }

    #[test]
    fn the_banner_fits_alone_in_any_cache() {
        assert_eq!(banner_frames(&Geometry::seed_003()), 31, "31 × 8 = 248 of 262 cells");
        assert_eq!(banner_frames(&Geometry { cells: [120, 120, 337], bpp: 16 }), 40);
        assert_eq!(
            banner_frames(&Geometry { cells: [120, 120, 4000], bpp: 16 }),
            latlab_desktop::defaults::BANNER_FRAMES
        );
    }
}
