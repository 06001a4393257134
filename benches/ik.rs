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
    /// Some(offset): targets near the current end (a leg re-solved each frame).
    tracking: Option<f32>,
    params: SolveParams,
    solvers: &'static [SolverKind],
}

impl Experiment {
    fn cases(&self) -> Vec<Case> {
        match self.tracking {
            Some(offset) => self.setup.tracking_cases(7, CASES, offset),
            None => self.setup.cases(7, CASES),
        }
    }
}

fn experiments() -> Vec<Experiment> {
    let report_params = SolveParams {
        tolerance: 1e-3,
        max_iterations: 1000,
        ..SolveParams::default()
    };
    let leg_reach = Setup::LEG.bone_length * Setup::LEG.bones as f32;
    // Creature legs: tolerance 1e-4 of the leg's reach, the gradient solver's
    // 200-iteration budget.
    let leg_params = |reach: f32| SolveParams {
        tolerance: 1e-4 * reach,
        max_iterations: 200,
        ..SolveParams::default()
    };
    vec![
        Experiment {
            name: "report-10x900mm-reachable",
            setup: Setup::REPORT_REACHABLE,
            tracking: None,
            params: report_params,
            solvers: &[SolverKind::Fabrik, SolverKind::Gradient, SolverKind::Ccd],
        },
        Experiment {
            name: "report-10x900mm-unreachable",
            setup: Setup::REPORT_UNREACHABLE,
            tracking: None,
            params: report_params,
            solvers: &[SolverKind::Fabrik, SolverKind::Gradient, SolverKind::Ccd],
        },
        Experiment {
            name: "leg-3-bones",
            setup: Setup::LEG,
            tracking: None,
            params: leg_params(leg_reach),
            solvers: &[SolverKind::Fabrik, SolverKind::Gradient, SolverKind::Ccd],
        },
        Experiment {
            // 1% of the reach: 1.8 cm, what a foot target moves in one 1/120 s
            // step at 2 m/s.
            name: "leg-3-bones-tracking",
            setup: Setup::LEG,
            tracking: Some(0.01),
            params: leg_params(leg_reach),
            solvers: &[SolverKind::Fabrik, SolverKind::Gradient, SolverKind::Ccd],
        },
        Experiment {
            name: "leg-2-bones",
            setup: Setup {
                bones: 2,
                ..Setup::LEG
            },
            tracking: None,
            params: SolveParams {
                pole: Some(glam::Vec3::new(0.0, 10.0, 0.0)),
                ..leg_params(2.0 * Setup::LEG.bone_length)
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
        let cases = exp.cases();
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
        let cases: Vec<Case> = exp.cases();
        let mut group = c.benchmark_group(exp.name);
        for kind in exp.solvers {
            let mut solver = kind.build();
            let mut chain: Chain = cases[0].chain.clone();
            let mut next = 0usize;
            group.bench_function(BenchmarkId::from_parameter(kind.name()), |b| {
                b.iter(|| {
                    let case = &cases[next % cases.len()];
                    next += 1;
                    // The analytic solve does not depend on the start pose (the
                    // pole fixes the bend plane), so it needs no reset; the
                    // iterative ones must start from the case's pose every time.
                    if *kind != SolverKind::TwoBone {
                        chain.clone_from(&case.chain);
                    }
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
