//! Every default of latlab's model (the experiment contract), each with the reason it has that value.

/// A board with at most this many CPUs is small: the suite scales its short configurations
/// down (`Experiment::small`). One CPU shares everything with the load an experiment makes.
pub const SMALL_BOARD_CPUS: usize = 1;

/// A board with less memory than this is small too: the suite's largest run (display capacity,
/// 16 sessions) and the page-out experiments would crowd it.
pub const SMALL_BOARD_MEM_BYTES: u64 = 1 << 30;
