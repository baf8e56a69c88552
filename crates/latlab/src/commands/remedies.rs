//! The remedies `latlab tune` measures, as the experiments they belong to declare them
//! (`latlab_rt::remedies`, `latlab_display::remedies`, …): here only gathered, in study order,
//! each with the experiment whose configuration its arms change.

use latlab_display::latency::LatencyConfig;
use latlab_display::pipeline::PipelineConfig;
use latlab_output::tune::{Better, Headline, RemedyInfo};
use latlab_rt::config::RtConfig;
use latlab_stall::pressure::PressureConfig;
use latlab_sys::remedy::{About, Arms};
use latlab_udp::UdpConfig;

/// Which experiment a remedy is measured with, and its arms on that experiment's configuration.
pub enum Plan {
    /// `latlab rt`.
    Rt(Arms<RtConfig>),
    /// `latlab display latency`.
    DisplayLatency(Arms<LatencyConfig>),
    /// `latlab display pipeline`.
    DisplayPipeline(Arms<PipelineConfig>),
    /// `latlab stall pressure`.
    StallPressure(Arms<PressureConfig>),
    /// `latlab udp` (loopback).
    Udp(Arms<UdpConfig>),
}

/// One remedy.
pub struct Remedy {
    /// What it is, as its experiment declares it.
    pub about: About,
    /// The arms.
    pub plan: Plan,
}

impl Remedy {
    /// For the record.
    pub fn info(&self) -> RemedyInfo {
        let a = &self.about;
        RemedyInfo {
            name: a.name.into(),
            study: a.study.into(),
            experiment: a.command.join(" "),
            baseline: a.baseline.into(),
            changes: a.changes.into(),
        }
    }

    /// The headlines: the latencies, then the per-run figures.
    pub fn headlines(&self) -> Vec<Headline> {
        let series = self.about.headlines.iter().map(|(s, l)| Headline::lower(s, l));
        series
            .chain(self.about.scalars.iter().map(|(m, l, b)| match b {
                Better::Higher => Headline::higher_metric(m, l),
                Better::Lower => Headline::lower_metric(m, l),
            }))
            .collect()
    }
}

/// Every remedy, in study order (001, 000, 002, 003).
pub fn all() -> Vec<Remedy> {
    let mut v: Vec<Remedy> = Vec::new();
    v.extend(latlab_rt::remedies::all().into_iter().map(|r| Remedy { about: r.about, plan: Plan::Rt(r.arms) }));
    v.extend(
        latlab_display::remedies::pipeline()
            .into_iter()
            .map(|r| Remedy { about: r.about, plan: Plan::DisplayPipeline(r.arms) }),
    );
    v.extend(latlab_udp::remedies::all().into_iter().map(|r| Remedy { about: r.about, plan: Plan::Udp(r.arms) }));
    v.extend(
        latlab_display::remedies::latency()
            .into_iter()
            .map(|r| Remedy { about: r.about, plan: Plan::DisplayLatency(r.arms) }),
    );
    v.extend(
        latlab_stall::remedies::all().into_iter().map(|r| Remedy { about: r.about, plan: Plan::StallPressure(r.arms) }),
    );
    v
}

/// The remedy called `name`, or an error listing them.
pub fn find(name: &str) -> Result<Remedy, String> {
    let mut all = all();
    match all.iter().position(|r| r.about.name == name) {
        Some(i) => Ok(all.swap_remove(i)),
        None => Err(format!(
            "no remedy called '{name}': one of {} (latlab tune --list says what each does)",
            all.iter().map(|r| r.about.name).collect::<Vec<_>>().join(", ")
        )),
    }
}

/// The `--list` text.
pub fn list() -> String {
    let mut o = String::new();
    for r in all() {
        let a = r.about;
        o.push_str(&format!(
            "{} (study {}, measured with `latlab {}`)\n  baseline: {}\n  remedy:   {}\n  needs:    {}\n  undone:   {}\n\n",
            a.name,
            a.study,
            a.command.join(" "),
            a.baseline,
            a.changes,
            a.needs,
            a.undo
        ));
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use latlab_sys::change::ChangeError;

    #[test]
    fn remedies_have_unique_names_and_say_what_they_need_and_how_they_are_undone() {
        let all = all();
        let mut names: Vec<&str> = all.iter().map(|r| r.about.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len());
        for r in &all {
            let a = &r.about;
            assert!(!a.needs.is_empty() && !a.undo.is_empty(), "{}", a.name);
            assert!(!a.headlines.is_empty() || !a.scalars.is_empty(), "{}", a.name);
        }
        assert!(find("shield").is_ok());
        assert!(find("nope").err().unwrap().contains("none, shield, dma-latency"));
        assert!(list().contains("timer-slack (study 001"));
    }

    #[test]
    fn the_arms_differ_only_in_the_remedy() {
        for r in all() {
            let name = r.about.name;
            match r.plan {
                Plan::Rt(arms) => {
                    if ["none", "shield", "dma-latency"].contains(&name) {
                        continue; // the same configuration: nothing, or a machine change tested in latlab-sys
                    }
                    let (mut a, mut b) = (RtConfig::default(), RtConfig::default());
                    (arms.baseline)(&mut a);
                    let _ = (arms.remedy)(&mut b);
                    assert_ne!(a, b, "{name}");
                }
                Plan::StallPressure(arms) => {
                    let (mut a, mut b) = (PressureConfig::default(), PressureConfig::default());
                    (arms.baseline)(&mut a);
                    match (arms.remedy)(&mut b) {
                        Ok(_) => assert_ne!(a, b, "{name}"),
                        Err(ChangeError::Needs { .. }) => {}
                        Err(e) => panic!("{name}: {e}"),
                    }
                }
                Plan::Udp(arms) => {
                    let (mut a, mut b) = (UdpConfig::default(), UdpConfig::default());
                    (arms.baseline)(&mut a);
                    (arms.remedy)(&mut b).unwrap_or_else(|e| panic!("{name}: {e}"));
                    assert_ne!(a.playout, b.playout, "{name}");
                }
                Plan::DisplayPipeline(arms) => {
                    let (mut a, mut b) = (PipelineConfig::default(), PipelineConfig::default());
                    (arms.baseline)(&mut a);
                    (arms.remedy)(&mut b).unwrap_or_else(|e| panic!("{name}: {e}"));
                    assert!(a.view != b.view || a.orders != b.orders, "{name}: the arms are the same");
                    // Each arm is a client the pipeline accepts.
                    for c in [&a, &b] {
                        c.view.validate().unwrap();
                        c.view.cures.validate(c.crypto).unwrap();
                    }
                }
                Plan::DisplayLatency(arms) => {
                    let (mut a, mut b) = (LatencyConfig::short(), LatencyConfig::short());
                    (arms.baseline)(&mut a);
                    match (arms.remedy)(&mut b) {
                        Ok(_) => assert!(
                            a.spin_sched != b.spin_sched || a.placement != b.placement,
                            "{name}: the arms are the same"
                        ),
                        Err(ChangeError::Needs { .. }) => {}
                        Err(e) => panic!("{name}: {e}"),
                    }
                }
            }
        }
    }
}
