//! The `latlab` executable: parse, run, map the outcome to an exit code.
fn main() {
    std::process::exit(latlab::main_exit_code());
}
