//! `latlab type`: the arguments into a [`TypeConfig`], progress lines while it runs, the
//! table at the end, the run stored.

use crate::cli::TypeArgs;
use crate::runner::{install_interrupt, out, save, usage};
use latlab_desktop::fb::Area;
use latlab_type::{AppSpec, TypeConfig, metric_name};
use std::path::Path;

/// The configuration these arguments ask for.
pub fn config(a: TypeArgs) -> anyhow::Result<TypeConfig> {
    let apps = if !a.compare.is_empty() {
        a.compare
            .iter()
            .map(|c| {
                let argv: Vec<String> = c.split_whitespace().map(String::from).collect();
                let mut app = AppSpec::new(argv);
                // Two command lines of one program are told apart by their arguments.
                if c.split_whitespace().count() > 1 {
                    app.label = metric_name(c);
                }
                app
            })
            .filter(|a| !a.argv.is_empty())
            .collect()
    } else if !a.command.is_empty() {
        vec![AppSpec::new(a.command)]
    } else {
        Vec::new()
    };
    let mut cfg = TypeConfig { apps, ..TypeConfig::default() };
    cfg.backend = a.display;
    cfg.on = a.on;
    cfg.wayland_user = Some(a.wayland_user);
    cfg.through_rdp = a.through_rdp;
    cfg.conditions = a.conditions;
    cfg.keys = a.keys;
    if let Some(w) = a.wpm {
        if !(1.0..=2000.0).contains(&w) {
            return Err(usage(format!("--wpm {w}: give 1 to 2000 words a minute")).into());
        }
        cfg.interval_ns = (60e9 / (w * 5.0)) as u64;
    }
    if let Some(i) = a.interval {
        cfg.interval_ns = i;
    }
    cfg.timeout_ns = a.timeout;
    cfg.capture_hz = a.capture_hz;
    cfg.spinners = a.spinners;
    cfg.fifo = !a.no_fifo;
    cfg.roi = a.roi.map(|[x, y, w, h]| Area::new(x, y, w, h));
    cfg.refresh_hz = a.refresh_hz;
    cfg.allow_swapfile = !a.no_swapfile;
    cfg.snapshot_dir = a.snapshot;
    cfg.validate().map_err(usage)?;
    Ok(cfg)
}

pub fn run(db: &Path, a: TypeArgs) -> anyhow::Result<i32> {
    let cfg = config(a)?;
    install_interrupt()?;
    let mut progress = |app: &str, cond: &str, m: &latlab_type::Measured| {
        let t = &m.typing;
        let mut v = t.latencies_ns.clone();
        v.sort_unstable();
        let p50 = v.get(v.len() / 2).map_or("-".to_string(), |x| format!("{:.2} ms", *x as f64 / 1e6));
        eprintln!("type: {app} {cond}: {} keys seen, {} lost, p50 {p50}", t.latencies_ns.len(), t.lost);
    };
    let mut rec = latlab_type::run(&cfg, &mut progress).map_err(anyhow::Error::msg)?;
    for w in &rec.warnings {
        eprintln!("warning: {w}");
    }
    if let Some(t) = rec.tables.iter().find(|t| t.name == "type.keys") {
        let (head, rows) = t.formatted();
        let mut widths: Vec<usize> = head.iter().map(String::len).collect();
        for r in &rows {
            for (w, c) in widths.iter_mut().zip(r) {
                *w = (*w).max(c.len());
            }
        }
        let line = |cells: &[String]| {
            cells.iter().zip(&widths).map(|(c, w)| format!("{c:>w$}")).collect::<Vec<_>>().join("  ") + "\n"
        };
        let mut text = line(&head);
        for r in &rows {
            text += &line(r);
        }
        out(&text)?;
    }
    save(db, &mut rec)?;
    Ok(crate::exit::OK)
}
