//! latlab's exit codes, each with when it is given; [`ExperimentError::exit_code`](crate::experiment::ExperimentError::exit_code)
//! and a stored run's status ([`RunStatus::exit_code`](crate::record::RunStatus::exit_code)) are the only places that choose one.

/// Success.
pub const OK: i32 = 0;
/// An error (message on stderr).
pub const ERROR: i32 = 1;
/// Invalid command line (including a configuration the experiment refuses).
pub const USAGE: i32 = 2;
/// `--strict` and the machine refused a requested capability.
pub const CAPABILITY: i32 = 3;
/// The peer measured (a remote server) is out of reach or does not speak its protocol.
pub const UNREACHABLE: i32 = 4;
/// The peer refused latlab: credentials, or a certificate unlike the known host's.
pub const REFUSED: i32 = 5;
/// Interrupted by Ctrl-C (128 + SIGINT); what was measured is stored as an `interrupted` run.
pub const INTERRUPTED: i32 = 130;

/// Every exit code with what it means, as the README's exit-code table gives them (a test
/// holds the two together).
pub const ALL: [(i32, &str); 7] = [
    (OK, "success"),
    (ERROR, "error"),
    (USAGE, "invalid command line"),
    (CAPABILITY, "`--strict` and the machine refused a requested capability"),
    (UNREACHABLE, "the server measured is out of reach or does not speak its protocol"),
    (REFUSED, "the server refused latlab"),
    (INTERRUPTED, "interrupted"),
];
