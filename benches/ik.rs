//! IK benchmarks: the FABRIK report's experiment and a creature leg, per solver,
//! and the library's FABRIK against a plain textbook FABRIK loop.
//!
//! `cargo bench --bench ik` prints, before the timings, the mean iterations and
//! success rate of every solver over the same cases the timings use.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use glam::Vec3A;
use skitter::ik::experiment::{Case, Setup, run};
use skitter::ik::{Chain, SolveParams, SolverKind, solve_tracking};
use std::hint::black_box;
use std::time::Duration;

const CASES: usize = 512;

/// Solvers timed on the report's 10-bone chain.
const REPORT_SOLVERS: &[SolverKind] = &[
    SolverKind::Fabrik,
    SolverKind::Gradient,
    SolverKind::Ccd,
    SolverKind::JacobianTranspose,
    SolverKind::Dls,
];
/// Solvers timed on three-bone legs.
const LEG_SOLVERS: &[SolverKind] = &[
    SolverKind::Fabrik,
    SolverKind::Gradient,
    SolverKind::Ccd,
    SolverKind::JacobianTranspose,
    SolverKind::Dls,
];

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
            solvers: REPORT_SOLVERS,
        },
        Experiment {
            name: "report-10x900mm-unreachable",
            setup: Setup::REPORT_UNREACHABLE,
            tracking: None,
            params: report_params,
            solvers: REPORT_SOLVERS,
        },
        Experiment {
            name: "leg-3-bones",
            setup: Setup::LEG,
            tracking: None,
            params: leg_params(leg_reach),
            solvers: LEG_SOLVERS,
        },
        Experiment {
            // 1% of the reach: 1.8 cm, what a foot target moves in one 1/120 s
            // step at 2 m/s.
            name: "leg-3-bones-tracking",
            setup: Setup::LEG,
            tracking: Some(0.01),
            params: leg_params(leg_reach),
            solvers: LEG_SOLVERS,
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
        "{:<28} {:<18} {:>10} {:>9} {:>11}",
        "experiment", "solver", "mean iter", "success", "max error"
    );
    for exp in experiments {
        let cases = exp.cases();
        for kind in exp.solvers {
            let stats = run(kind.build().as_mut(), &cases, &exp.params);
            println!(
                "{:<28} {:<18} {:>10.2} {:>8.1}% {:>11.3e}",
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
        if exp.tracking.is_some() {
            for kind in [SolverKind::Fabrik, SolverKind::Ccd] {
                bench_tracking_path(&mut group, kind, &cases, &exp.params);
            }
        }
        group.finish();
    }
}

/// A solver as a walking leg runs it: the tracking solve first, the
/// general solver from the start where it hands the solve back.
fn bench_tracking_path(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    kind: SolverKind,
    cases: &[Case],
    params: &SolveParams,
) {
    let mut general = kind.build();
    let answered = cases
        .iter()
        .filter(|case| {
            let mut chain = case.chain.clone();
            solve_tracking(kind, &mut chain, case.target, params).is_some()
        })
        .count();
    println!(
        "{kind} tracking path: {:.1}% of the cases answered without the general solver",
        100.0 * answered as f64 / cases.len() as f64
    );
    let mut chain: Chain = cases[0].chain.clone();
    let mut next = 0usize;
    group.bench_function(format!("{}-tracking-path", kind.name()), |b| {
        b.iter(|| {
            let case = &cases[next % cases.len()];
            next += 1;
            chain.clone_from(&case.chain);
            let target = black_box(case.target);
            black_box(
                solve_tracking(kind, &mut chain, target, params)
                    .unwrap_or_else(|| general.solve(&mut chain, target, params)),
            )
        })
    });
}

/// A textbook FABRIK (the report's Algorithm 1) over the same `Vec3A`
/// arithmetic the library's `f32` path uses: no unit frame, no `f64`, no
/// restarts, no pole. Returns the iterations it ran.
fn plain_fabrik(joints: &mut [Vec3A], lengths: &[f32], target: Vec3A, tolerance: f32) -> u32 {
    let last = joints.len() - 1;
    let root = joints[0];
    let reach: f32 = lengths.iter().sum();
    if root.distance(target) > reach {
        for i in 0..last {
            let lambda = lengths[i] / joints[i].distance(target);
            joints[i + 1] = joints[i] * (1.0 - lambda) + target * lambda;
        }
        return 1;
    }
    let mut iterations = 0;
    while joints[last].distance(target) > tolerance && iterations < 1000 {
        iterations += 1;
        joints[last] = target;
        for i in (0..last).rev() {
            let lambda = lengths[i] / joints[i + 1].distance(joints[i]);
            joints[i] = joints[i + 1] * (1.0 - lambda) + joints[i] * lambda;
        }
        joints[0] = root;
        for i in 0..last {
            let lambda = lengths[i] / joints[i + 1].distance(joints[i]);
            joints[i + 1] = joints[i] * (1.0 - lambda) + joints[i + 1] * lambda;
        }
    }
    iterations
}

/// The library's FABRIK per solve against [`plain_fabrik`] on the same cases
/// and tolerance (ones the `f32` path serves, so both do `f32` work), and the
/// library with a budget of 0 iterations: its fixed cost per solve (the
/// unit-frame setup and write-back) with no iteration at all.
fn bench_fabrik_overhead(c: &mut Criterion) {
    let setups = [
        ("chain-10x90mm", Setup::LAB_REACHABLE),
        ("leg-3-bones", Setup::LEG),
    ];
    for (name, setup) in setups {
        let cases = setup.cases(7, CASES);
        let reach = cases[0].chain.reach();
        let params = SolveParams {
            tolerance: 1e-4 * reach,
            max_iterations: 1000,
            ..SolveParams::default()
        };
        let starts: Vec<Vec<Vec3A>> = cases
            .iter()
            .map(|c| c.chain.joints().iter().map(|p| Vec3A::from(*p)).collect())
            .collect();
        let lengths = cases[0].chain.bone_lengths().to_vec();
        let library = run(SolverKind::Fabrik.build().as_mut(), &cases, &params);
        let mut plain_iterations = 0u64;
        let mut plain_reached = 0;
        for (start, case) in starts.iter().zip(&cases) {
            let mut joints = start.clone();
            let target = Vec3A::from(case.target);
            plain_iterations += u64::from(plain_fabrik(
                &mut joints,
                &lengths,
                target,
                params.tolerance,
            ));
            plain_reached +=
                usize::from(joints[joints.len() - 1].distance(target) <= params.tolerance);
        }
        println!(
            "{name}: library FABRIK {:.2} iterations, {:.1}% reached; plain loop {:.2} iterations, {:.1}% reached",
            library.mean_iterations(),
            library.success_percent(),
            plain_iterations as f64 / cases.len() as f64,
            100.0 * plain_reached as f64 / cases.len() as f64
        );
        let mut group = c.benchmark_group(format!("fabrik-vs-plain/{name}"));
        let mut solver = SolverKind::Fabrik.build();
        let mut chain: Chain = cases[0].chain.clone();
        let mut next = 0usize;
        group.bench_function("library", |b| {
            b.iter(|| {
                let case = &cases[next % cases.len()];
                next += 1;
                chain.clone_from(&case.chain);
                black_box(solver.solve(&mut chain, black_box(case.target), &params))
            })
        });
        let idle = SolveParams {
            max_iterations: 0,
            ..params
        };
        group.bench_function("library-0-iterations", |b| {
            b.iter(|| {
                let case = &cases[next % cases.len()];
                next += 1;
                chain.clone_from(&case.chain);
                black_box(solver.solve(&mut chain, black_box(case.target), &idle))
            })
        });
        let mut joints = starts[0].clone();
        group.bench_function("plain", |b| {
            b.iter(|| {
                let index = next % cases.len();
                next += 1;
                joints.copy_from_slice(&starts[index]);
                let target = Vec3A::from(cases[index].target);
                black_box(plain_fabrik(
                    &mut joints,
                    &lengths,
                    black_box(target),
                    params.tolerance,
                ))
            })
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = bench_solvers, bench_fabrik_overhead
}
criterion_main!(benches);
