//! Seed 003's stall figures: time waiting against CPU load (Figure 5) and round trip against
//! offered load (Figure 6).

use latlab_model::figure::{Chart, Curve, Figure, Xy, col, pairs, paper_curve, table};
use latlab_model::record::RunRecord;

/// `stall cpu`: Figure 5.
pub fn cpu(r: &RunRecord) -> Vec<Figure> {
    fig_003_5(r).into_iter().collect()
}

/// `stall net`: Figure 6.
pub fn net(r: &RunRecord) -> Vec<Figure> {
    fig_003_6(r).into_iter().collect()
}

/// Seed 003, Figure 5: the share of time a typist waits against the CPU load, per policy.
fn fig_003_5(r: &RunRecord) -> Option<Figure> {
    let mut curves = Vec::new();
    for (name, label, key) in
        [("cpu.other", "load at SCHED_OTHER", "other"), ("cpu.idle", "load at SCHED_IDLE", "idle")]
    {
        if let Some(t) = table(r, name) {
            curves.push(Curve::line(label, key, pairs(&col(t, "load", None)?, &col(t, "waiting", None)?)));
        }
    }
    if curves.is_empty() {
        return None;
    }
    let (load, waiting) = crate::cpu::FIGURE_5;
    curves.push(paper_curve(
        &format!("paper: over {waiting} % waiting at load {load} (Celeron-333, keys at 20/s)"),
        "paper",
        vec![(load, waiting)],
    ));
    let chart = Some(Chart::Xy(Xy {
        x_name: "spinning processes".into(),
        y_name: "time waiting".into(),
        y_unit: "%".into(),
        y_from_zero: true,
        curves,
        ..Default::default()
    }));
    Figure::new(
        "fig-003-5",
        "Seed 003, Figure 5: time spent waiting against CPU load, per scheduling policy",
        "Read how fast the waiting share climbs with the load: the paper's typist waited over half the time at a load of 10 (the diamond is that lower bound). The load at SCHED_IDLE is the remedy: its line should stay near zero.",
        vec![chart],
    )
}

/// Seed 003, Figure 6: round trip against offered load on a shaped link.
fn fig_003_6(r: &RunRecord) -> Option<Figure> {
    let t = table(r, "net.sweep")?;
    let x = col(t, "offered", Some("Mbit/s each way"))?;
    let curves = vec![
        Curve::line("RTT p50", "l1", pairs(&x, &col(t, "RTT p50", None)?)),
        Curve::line("RTT p99", "l2", pairs(&x, &col(t, "RTT p99", None)?)),
        {
            let (mbps, ms) = crate::net::FIGURE_6;
            paper_curve(
                &format!("paper: ~{ms} ms at {mbps} Mbit/s offered (10 Mbit/s Ethernet hub)"),
                "paper",
                vec![(mbps, ms)],
            )
        },
    ];
    let chart = Some(Chart::Xy(Xy {
        x_name: "offered load".into(),
        x_unit: "Mbit/s".into(),
        y_name: "round trip".into(),
        y_unit: "ms".into(),
        y_from_zero: true,
        curves,
        ..Default::default()
    }));
    Figure::new(
        "fig-003-6",
        "Seed 003, Figure 6: round trip against offered load",
        "Read the knee: the round trip stays low and flat until the offered load nears the link's rate, then the queue in front of the link fills. The diamond is the paper's mean near saturation.",
        vec![chart],
    )
}
