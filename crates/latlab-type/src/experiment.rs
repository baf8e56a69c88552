//! `latlab type` under the experiment contract: what the runner checks before anything
//! starts, the line it says, its progress (one step per application and condition), the
//! suite's short run where Xvfb and xterm are installed, and the stdout table.

use crate::config::{AppSpec, Backend, TypeConfig};
use latlab_keyscreen::condition::Condition;
use latlab_model::experiment::{Experiment, ExperimentError, Outcome, RunContext};
use latlab_model::record::RunRecord;
use std::sync::atomic::Ordering;

/// Keystroke to screen on real applications.
pub struct Type;

/// Programs `latlab type` starts, with the Debian packages that hold them: one of these
/// missing is a skip that names its package (any other program missing is the launcher's
/// failure, which says so).
pub const KNOWN: [(&str, &str); 5] =
    [("Xvfb", "xvfb"), ("xterm", "xterm"), ("st", "stterm"), ("sway", "sway"), ("foot", "foot")];

/// The known programs this run would start that are not installed, with their packages.
pub fn not_installed(cfg: &TypeConfig, on_path: impl Fn(&str) -> bool) -> Vec<String> {
    let mut progs: Vec<&str> = Vec::new();
    if cfg.on.is_none() {
        progs.push(match cfg.backend {
            Backend::X11 => "Xvfb",
            Backend::Wayland => "sway",
        });
    }
    progs.extend(cfg.apps.iter().filter_map(|a| a.argv.first().map(String::as_str)));
    progs
        .into_iter()
        .filter_map(|p| KNOWN.iter().find(|(k, _)| *k == p))
        .filter(|(p, _)| !on_path(p))
        .map(|(p, pkg)| format!("{p} (apt-get install {pkg})"))
        .collect()
}

impl Experiment for Type {
    type Config = TypeConfig;
    const NAME: &'static str = "type";
    const DOCS: &'static str = "docs/experiments/type.md";
    const ABOUT: &'static str =
        "keystroke to screen on real applications (seed 003's 100 ms), xterm on latlab's own Xvfb";
    const HEADLINE: &'static [(&'static str, &'static str)] =
        &[("type.*.unloaded.p50", "{}, key to screen p50"), ("type.*.*.p50", "{} under {}, key to screen p50")];

    fn suite_configs(_strict: bool) -> Vec<TypeConfig> {
        vec![TypeConfig {
            apps: vec![AppSpec::new(vec!["xterm".into()])],
            conditions: vec![Condition::Unloaded],
            keys: crate::defaults::TYPE_SUITE_KEYS,
            ..TypeConfig::default()
        }]
    }

    fn validate(cfg: &TypeConfig) -> Result<(), latlab_model::ConfigError> {
        cfg.validate()
    }

    fn steps(cfg: &TypeConfig) -> u64 {
        (cfg.apps.len().max(1) * cfg.conditions.len()) as u64
    }

    fn announce(cfg: &TypeConfig) -> String {
        let apps: Vec<&str> = cfg.apps.iter().map(|a| a.label.as_str()).collect();
        let what = if cfg.through_rdp {
            "xterm through xfreerdp and FreeRDP's shadow server".to_string()
        } else if let Some(on) = &cfg.on {
            format!("the window with the keyboard on {on}")
        } else {
            apps.join(", ")
        };
        format!(
            "type: {what}; {} keys × {} condition(s), a key every {:.0} ms (about {:.0} s a condition)",
            cfg.keys,
            cfg.conditions.len(),
            cfg.interval_ns as f64 / 1e6,
            cfg.keys as f64 * cfg.interval_ns as f64 / 1e9
        )
    }

    fn run(cfg: &TypeConfig, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
        // What the run starts must be here, or it is a skip that says what to install.
        let missing = not_installed(cfg, latlab_keyscreen::local::on_path);
        if !missing.is_empty() {
            return Err(ExperimentError::skipped(format!("not installed: {}", missing.join(", "))));
        }
        let mut said = |app: &str, cond: &str, m: &crate::Measured, partial: &RunRecord| {
            let t = &m.typing;
            let mut v = t.latencies_ns.clone();
            v.sort_unstable();
            let p50 = v.get(v.len() / 2).map_or("-".to_string(), |x| format!("{:.2} ms", *x as f64 / 1e6));
            eprintln!("type: {app} {cond}: {} keys seen, {} lost, p50 {p50}", t.latencies_ns.len(), t.lost);
            ctx.progress.fetch_add(1, Ordering::Relaxed);
            if ctx.checkpoint.due() {
                ctx.checkpoint.save(partial.clone());
            }
        };
        let rec = crate::run(cfg, &mut said).map_err(ExperimentError::failed)?;
        // Said where the progress lines are, as they happen to the user's application.
        for w in &rec.warnings {
            eprintln!("warning: {w}");
        }
        let stdout = keys_table(&rec);
        Ok(Outcome { records: vec![rec], stdout, preface: None })
    }
}

/// The `type.keys` table as aligned text, for stdout.
fn keys_table(rec: &RunRecord) -> Option<String> {
    let t = rec.tables.iter().find(|t| t.name == "type.keys")?;
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
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_known_program_is_named_with_its_package_and_others_are_left_to_the_launcher() {
        let suite = Type::suite_configs(false).remove(0);
        assert_eq!(Type::validate(&suite), Ok(()));
        assert!(not_installed(&suite, |_| true).is_empty());
        assert_eq!(
            not_installed(&suite, |p| p != "xterm" && p != "Xvfb"),
            ["Xvfb (apt-get install xvfb)", "xterm (apt-get install xterm)"]
        );
        let own = TypeConfig { apps: vec![AppSpec::new(vec!["my-editor".into()])], ..suite.clone() };
        assert!(not_installed(&own, |p| p != "my-editor").is_empty(), "the launcher says it");
        let on = TypeConfig { on: Some(":0".into()), ..own };
        assert!(not_installed(&on, |_| false).is_empty(), "a running display needs no Xvfb");
        let wl = TypeConfig { backend: Backend::Wayland, apps: vec![AppSpec::new(vec!["foot".into()])], ..suite };
        assert_eq!(not_installed(&wl, |p| p == "Xvfb"), ["sway (apt-get install sway)", "foot (apt-get install foot)"]);
        assert_eq!(Type::steps(&TypeConfig { conditions: vec![Condition::Unloaded, Condition::Cpu], ..wl }), 2);
    }
}
