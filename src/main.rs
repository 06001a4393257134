//! The `skitter` binary: parse the command line and dispatch.

mod cli;
mod viewer;

use clap::Parser;

fn main() -> std::process::ExitCode {
    cli::Cli::parse().run()
}
