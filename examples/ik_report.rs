//! Prints the FABRIK report's experiment for every solver: mean iterations,
//! success rate and error, over a fixed set of random cases.
//!
//! `cargo run --release --example ik_report`

use skitter::ik::experiment::{Setup, run};
use skitter::ik::{SolveParams, SolverKind};

fn main() {
    let experiments = [
        (
            "10 x 900 mm, reachable",
            Setup::REPORT_REACHABLE,
            1e-3,
            1000,
        ),
        (
            "10 x 900 mm, unreachable",
            Setup::REPORT_UNREACHABLE,
            1e-3,
            1000,
        ),
        ("3-bone leg", Setup::LEG, 1e-4 * 1.8, 200),
    ];
    println!(
        "{:<26} {:<9} {:>10} {:>9} {:>12} {:>12}",
        "experiment", "solver", "mean iter", "success", "max error", "bone drift"
    );
    for (name, setup, tolerance, max_iterations) in experiments {
        let cases = setup.cases(7, 2000);
        let params = SolveParams {
            tolerance,
            max_iterations,
            ..SolveParams::default()
        };
        for kind in SolverKind::ALL {
            let mut solver = kind.build();
            if solver.supports(&cases[0].chain).is_err() {
                continue;
            }
            let stats = run(solver.as_mut(), &cases, &params);
            println!(
                "{:<26} {:<9} {:>10.2} {:>8.1}% {:>12.3e} {:>12.3e}",
                name,
                kind,
                stats.mean_iterations(),
                stats.success_percent(),
                stats.max_error,
                stats.max_bone_error
            );
        }
    }
}
