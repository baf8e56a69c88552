//! How level 2 and the polygons load share the CPU at one priority (`--arbitration`); what
//! each choice makes of the two levels' scheduling is `config.rs`'s `Arbitration::level2`.

use serde::Serialize;

latlab_model::choice! {
    /// How level 2 and the polygons load, at one priority, share the CPU (`--arbitration`): the
    /// seed's CE 3.0 → CE .NET change was in exactly this arbitration.
    #[derive(Serialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Arbitration {
        /// Both SCHED_FIFO just below level 1: by sched(7), whoever holds the CPU keeps it
        /// until it blocks or a higher priority arrives.
        Fifo = "fifo",
        /// Both SCHED_RR just below level 1: they take turns in time slices (100 ms by default,
        /// `/proc/sys/kernel/sched_rr_timeslice_ms`). The default: CE's round-robin.
        Rr = "rr",
        /// Both SCHED_OTHER (CFS/EEVDF): the kernel shares the CPU in short slices weighted by
        /// nice; latlab's default before it followed the seed.
        Other = "other",
    }
}
