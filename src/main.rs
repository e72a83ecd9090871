//! The `cashkeeper` executable: parse the command line and hand over to the
//! library, which the tests drive directly.

fn main() -> std::process::ExitCode {
    cashkeeper::cli::main()
}
