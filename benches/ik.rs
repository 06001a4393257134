//! IK benchmarks: the FABRIK report's experiment and a creature leg, per solver.
//!
//! `cargo bench --bench ik` prints, before the timings, the mean iterations and
//! success rate of every solver over the same cases the timings use.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use skitter::ik::experiment::{Case, Setup, run};
use skitter::ik::{Chain, SolveParams, SolverKind};
use std::hint::black_box;
use std::time::Duration;

const CASES: usize = 512;

struct Experiment {
    name: &'static str,
    setup: Setup,
    params: SolveParams,
    solvers: &'static [SolverKind],
}

fn experiments() -> Vec<Experiment> {
    let report_params = SolveParams {
        tolerance: 1e-3,
        max_iterations: 1000,
        ..SolveParams::default()
    };
    let leg_reach = Setup::LEG.bone_length * Setup::LEG.bones as f32;
    vec![
        Experiment {
            name: "report-10x900mm-reachable",
            setup: Setup::REPORT_REACHABLE,
            params: report_params,
            solvers: &[SolverKind::Fabrik, SolverKind::Gradient, SolverKind::Ccd],
        },
        Experiment {
            name: "report-10x900mm-unreachable",
            setup: Setup::REPORT_UNREACHABLE,
            params: report_params,
            solvers: &[SolverKind::Fabrik, SolverKind::Gradient, SolverKind::Ccd],
        },
        Experiment {
            name: "leg-3-bones",
            setup: Setup::LEG,
            params: SolveParams {
                tolerance: 1e-4 * leg_reach,
                max_iterations: 200,
                ..SolveParams::default()
            },
            solvers: &[SolverKind::Fabrik, SolverKind::Gradient, SolverKind::Ccd],
        },
        Experiment {
            name: "leg-2-bones",
            setup: Setup {
                bones: 2,
                ..Setup::LEG
            },
            params: SolveParams {
                tolerance: 1e-4 * 2.0 * Setup::LEG.bone_length,
                max_iterations: 200,
                pole: Some(glam::Vec3::new(0.0, 10.0, 0.0)),
                ..SolveParams::default()
            },
            solvers: &SolverKind::ALL,
        },
    ]
}

fn print_quality(experiments: &[Experiment]) {
    println!(
        "{:<28} {:<9} {:>10} {:>9} {:>11}",
        "experiment", "solver", "mean iter", "success", "max error"
    );
    for exp in experiments {
        let cases = exp.setup.cases(7, CASES);
        for kind in exp.solvers {
            let stats = run(kind.build().as_mut(), &cases, &exp.params);
            println!(
                "{:<28} {:<9} {:>10.2} {:>8.1}% {:>11.3e}",
                exp.name,
                kind.name(),
                stats.mean_iterations(),
                stats.success_percent(),
                stats.max_error
            );
        }
    }
}

fn bench_solvers(c: &mut Criterion) {
    let experiments = experiments();
    print_quality(&experiments);
    for exp in &experiments {
        let cases: Vec<Case> = exp.setup.cases(7, CASES);
        let mut group = c.benchmark_group(exp.name);
        for kind in exp.solvers {
            let mut solver = kind.build();
            let mut chain: Chain = cases[0].chain.clone();
            let mut next = 0usize;
            group.bench_function(BenchmarkId::from_parameter(kind.name()), |b| {
                b.iter(|| {
                    let case = &cases[next % cases.len()];
                    next += 1;
                    chain.clone_from(&case.chain);
                    black_box(solver.solve(&mut chain, black_box(case.target), &exp.params))
                })
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = bench_solvers
}
criterion_main!(benches);
