//! IK invariants (property tests) and the awkward cases, for every solver.

use glam::Vec3;
use proptest::prelude::*;
use skitter::ik::experiment::{Setup, run};
use skitter::ik::{
    Chain, Dls, GradientDescent, IkError, JointLimit, LANES, LaneJob, SolveParams, SolveReport,
    Solver, SolverKind, TRACKING_PASSES, TRACKING_SWEEPS, Termination, TwoBone, solve_tracking,
    solve_tracking_lanes,
};

mod common;

/// Solvers that can pose `chain`.
fn solvers_for(chain: &Chain) -> Vec<Box<dyn Solver>> {
    SolverKind::ALL
        .into_iter()
        .map(SolverKind::build)
        .filter(|s| s.supports(chain).is_ok())
        .collect()
}

/// The invariants every solve must keep, whatever the target.
fn assert_invariants(
    kind: SolverKind,
    before: &Chain,
    after: &Chain,
    report: &SolveReport,
    params: &SolveParams,
    target: Vec3,
) {
    assert_eq!(after.root(), before.root(), "{kind}: root moved");
    assert!(
        after.joints().iter().all(|p| p.is_finite()),
        "{kind}: non-finite joint {:?}",
        after.joints()
    );
    let scale = before.reach() + before.root().abs().max_element() + target.abs().max_element();
    let tolerance = scale * 4.0 * f32::EPSILON;
    for (i, (pair, len)) in after
        .joints()
        .windows(2)
        .zip(before.bone_lengths())
        .enumerate()
    {
        let actual = (pair[1] - pair[0]).length();
        assert!(
            (actual - len).abs() <= tolerance,
            "{kind}: bone {i} is {actual}, should be {len} (±{tolerance})"
        );
    }
    assert!(
        report.iterations <= params.max_iterations,
        "{kind}: {} iterations > {}",
        report.iterations,
        params.max_iterations
    );
    assert!(report.error.is_finite(), "{kind}: error {}", report.error);
    let actual_error = (after.end() - target).length();
    assert!(
        (report.error - actual_error).abs() <= 1e-6 * scale,
        "{kind}: reported {} vs actual {actual_error}",
        report.error
    );
    assert_eq!(
        report.reached,
        report.error <= params.tolerance,
        "{kind}: reached flag disagrees with error"
    );
}

fn solve_all(
    chain: &Chain,
    target: Vec3,
    params: &SolveParams,
) -> Vec<(SolverKind, Chain, SolveReport)> {
    solvers_for(chain)
        .into_iter()
        .map(|mut solver| {
            let mut posed = chain.clone();
            let report = solver.solve(&mut posed, target, params);
            assert_invariants(solver.kind(), chain, &posed, &report, params, target);
            (solver.kind(), posed, report)
        })
        .collect()
}

fn chain(points: &[[f32; 3]]) -> Chain {
    Chain::new(points.iter().map(|p| Vec3::from_array(*p)).collect()).unwrap()
}

fn leg() -> Chain {
    chain(&[
        [0.0, 0.0, 0.0],
        [0.3, 0.3, 0.0],
        [0.8, 0.2, 0.0],
        [1.0, -0.4, 0.0],
    ])
}

fn arb_vec(range: f32) -> impl Strategy<Value = Vec3> {
    (-range..range, -range..range, -range..range).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

prop_compose! {
    /// A chain of 2–7 bones at `scale`, in an arbitrary (possibly folded) pose.
    fn arb_chain(scale: f32)(
        root in arb_vec(3.0),
        bones in prop::collection::vec((arb_vec(1.0), 0.05f32..1.0), 2..=7),
    ) -> Chain {
        let mut joints = vec![root * scale];
        for (dir, len) in bones {
            let dir = dir.normalize_or(Vec3::X);
            let next = *joints.last().unwrap() + dir * len * scale;
            joints.push(next);
        }
        Chain::new(joints).unwrap()
    }
}

fn params_for(chain: &Chain, pole: Option<Vec3>) -> SolveParams {
    SolveParams {
        tolerance: 1e-4 * chain.reach(),
        max_iterations: 60,
        pole,
        end_direction: None,
    }
}

/// `chain` and a `target_dir` (zero means +Y) at `reach_fraction` of its reach
/// from the root, solved by every solver at 1 and at 10^`scale_exp`: the
/// relative errors agree, and FABRIK and two-bone agree on reaching.
fn check_scale_invariance(scale_exp: i32, chain: &Chain, target_dir: Vec3, reach_fraction: f32) {
    let scale = 10f32.powi(scale_exp);
    let scaled = Chain::new(chain.joints().iter().map(|p| *p * scale).collect()).unwrap();
    let direction = target_dir.normalize_or(Vec3::Y);
    let target = chain.root() + direction * reach_fraction * chain.reach();
    let scaled_target = scaled.root() + direction * reach_fraction * scaled.reach();
    let unit = solve_all(chain, target, &params_for(chain, None));
    let big_or_small = solve_all(&scaled, scaled_target, &params_for(&scaled, None));
    assert_eq!(unit.len(), big_or_small.len());
    for ((kind, _, at_one), (_, _, scaled_report)) in unit.iter().zip(&big_or_small) {
        // The transpose crawls along flat valleys (a target in the hollow
        // around the root); when both runs end on the budget, which side
        // rounding lets the chain fold toward decides how far each got, so
        // only finished transpose solves are compared.
        let unfinished = |r: &SolveReport| r.termination == Termination::MaxIterations;
        if *kind == SolverKind::JacobianTranspose && unfinished(at_one) && unfinished(scaled_report)
        {
            continue;
        }
        let relative = |r: &SolveReport, reach: f32| r.error / reach;
        assert!(
            (relative(at_one, chain.reach()) - relative(scaled_report, scaled.reach())).abs()
                <= 1e-3,
            "{kind} at 1e{scale_exp}: {scaled_report:?} vs {at_one:?}"
        );
        if *kind == SolverKind::Fabrik || *kind == SolverKind::TwoBone {
            assert_eq!(
                at_one.reached, scaled_report.reached,
                "{kind} at 1e{scale_exp}"
            );
        }
    }
}

/// The distance from the root below which `chain` cannot reach: the hollow a
/// bone longer than all the others together leaves around the root.
fn inner_reach(chain: &Chain) -> f32 {
    let longest = chain.bone_lengths().iter().copied().fold(0.0, f32::max);
    (2.0 * longest - chain.reach()).max(0.0)
}

/// FABRIK with 500 iterations reaches a target at `distance` from the root in
/// the direction `target_dir` (zero means +Y); returns the report.
fn fabrik_reach(chain: &Chain, target_dir: Vec3, distance: f32) -> SolveReport {
    let target = chain.root() + target_dir.normalize_or(Vec3::Y) * distance;
    let mut posed = chain.clone();
    let params = SolveParams {
        max_iterations: 500,
        ..params_for(chain, None)
    };
    let report = SolverKind::Fabrik
        .build()
        .solve(&mut posed, target, &params);
    assert_invariants(SolverKind::Fabrik, chain, &posed, &report, &params, target);
    report
}

proptest! {
    #![proptest_config(common::deterministic(256))]

    #[test]
    fn solvers_keep_invariants(
        chain in arb_chain(1.0),
        target_dir in arb_vec(1.0),
        reach_fraction in 0.0f32..2.5,
        pole in prop::option::of(arb_vec(5.0)),
    ) {
        let target = chain.root() + target_dir.normalize_or(Vec3::Y) * reach_fraction * chain.reach();
        solve_all(&chain, target, &params_for(&chain, pole));
    }

    #[test]
    fn solvers_are_scale_invariant(
        scale_exp in prop::sample::select(vec![-6i32, -3, 3, 6]),
        chain in arb_chain(1.0),
        target_dir in arb_vec(1.0),
        reach_fraction in 0.0f32..2.0,
    ) {
        check_scale_invariance(scale_exp, &chain, target_dir, reach_fraction);
    }

    #[test]
    fn fabrik_reaches_reachable_targets(
        chain in arb_chain(1.0),
        target_dir in arb_vec(1.0),
        reach_fraction in 0.0f32..0.9,
    ) {
        // FABRIK slows to a crawl right at the workspace's edges (fully
        // stretched, or folded against the hollow a long bone leaves around
        // the root); this property is about the interior.
        let distance = reach_fraction * chain.reach();
        prop_assume!(distance > inner_reach(&chain) + 0.1 * chain.reach() && distance < 0.9 * chain.reach());
        let report = fabrik_reach(&chain, target_dir, distance);
        prop_assert!(report.reached, "{report:?}");
    }
}

// Cases property tests once found, kept as named tests (the seeds used to be
// in `tests/ik.proptest-regressions`; the chains are the shrunk ones).

/// A target deep inside the hollow of a chain whose first bone is almost its
/// whole reach: nothing reaches it; every solver must say so without moving
/// the root or stretching a bone, and FABRIK gets as close as the hollow allows.
#[test]
fn regression_target_in_the_hollow_of_a_long_first_bone() {
    let folded = chain(&[
        [0.0, 0.0, 0.0],
        [0.8465112, 0.0, 0.0],
        [0.8965112, 0.0, 0.0],
    ]);
    let distance = 0.05 * folded.reach();
    assert!(distance < inner_reach(&folded));
    let report = fabrik_reach(&folded, Vec3::ZERO, distance);
    assert!(!report.reached, "{report:?}");
    let closest = inner_reach(&folded) - distance;
    assert!(
        (report.error - closest).abs() <= 1e-3 * folded.reach(),
        "error {} should be the hollow's depth {closest}",
        report.error
    );
    let params = SolveParams {
        max_iterations: 500,
        ..params_for(&folded, None)
    };
    solve_all(&folded, folded.root() + Vec3::Y * distance, &params);
}

/// The same with three collinear bones, the last longer than the others together.
#[test]
fn regression_target_in_the_hollow_of_a_long_last_bone() {
    let straight = chain(&[
        [0.0, 0.0, 0.0],
        [0.4797228, 0.0, 0.0],
        [0.6948508, 0.0, 0.0],
        [1.5130649, 0.0, 0.0],
    ]);
    let distance = 0.05 * straight.reach();
    assert!(distance < inner_reach(&straight));
    let report = fabrik_reach(&straight, Vec3::ZERO, distance);
    assert!(!report.reached, "{report:?}");
    let closest = inner_reach(&straight) - distance;
    assert!(
        (report.error - closest).abs() <= 1e-3 * straight.reach(),
        "error {} should be the hollow's depth {closest}",
        report.error
    );
}

/// A micrometre-sized straight chain with a short first bone, target in its hollow.
#[test]
fn regression_scale_invariance_short_first_bone_in_the_hollow() {
    let straight = chain(&[[0.0, 0.0, 0.0], [0.05, 0.0, 0.0], [0.84802485, 0.0, 0.0]]);
    check_scale_invariance(-6, &straight, Vec3::ZERO, 0.6232788);
}

/// A micrometre-sized straight chain, target reachable across its axis.
#[test]
fn regression_scale_invariance_straight_two_bones() {
    let straight = chain(&[
        [0.0, 0.0, 0.0],
        [0.72612965, 0.0, 0.0],
        [1.6593575, 0.0, 0.0],
    ]);
    check_scale_invariance(-6, &straight, Vec3::ZERO, 0.1832148);
}

/// Targets near the root that plain FABRIK crawled toward for 500-900
/// iterations: it had converged toward a pose in which part of the chain must
/// be almost straight (a long bone folded back on an outstretched rest), where
/// each pass gains little. The solver now starts again from a folded pose
/// when its rate of progress cannot reach the tolerance within the budget.
/// (Iterations before the fix: 506, 871, 598, 783; after: 34, 58, 28, 20.)
#[test]
fn regression_fabrik_reaches_near_root_targets_of_folded_chains() {
    // (joints, target, most iterations allowed now)
    type Case<'a> = (&'a [[f32; 3]], [f32; 3], u32);
    let cases: [Case; 4] = [
        // The 4-bone chain of the flaky `cargo test`, target at 12% of its reach.
        (
            &[
                [-1.1632811, -1.4097673, -1.1641825],
                [-1.175567, -0.87688047, -1.7789154],
                [-1.270632, -0.7336433, -1.8206567],
                [-1.0225012, -1.158274, -1.9529147],
                [-0.8827134, -1.441897, -1.9710194],
            ],
            [-1.23486, -1.503002, -0.97267634],
            60,
        ),
        (
            &[
                [2.3785343, 2.8985074, 2.7684176],
                [2.8680398, 2.5566852, 3.0737023],
                [2.697539, 2.3488405, 3.3068104],
                [2.6771877, 1.6002707, 3.4122415],
            ],
            [2.5312765, 2.7177382, 2.9169288],
            100,
        ),
        (
            &[
                [-0.83560914, -1.0100965, -0.7505127],
                [-0.07691449, -0.7790979, -0.3281199],
                [-0.16191472, -0.68792593, -0.28540647],
                [-0.7616827, -0.5693191, 0.5048024],
            ],
            [-0.9860945, -1.079732, -0.9549542],
            60,
        ),
        (
            &[
                [1.5025121, -2.4766276, 2.7176824],
                [1.0453415, -2.539529, 2.8343883],
                [0.7580661, -2.9009342, 2.5252414],
                [0.8132657, -2.9220273, 2.5049155],
                [0.8624927, -2.897402, 2.494441],
                [1.2689407, -2.275995, 1.8926917],
            ],
            [1.2859781, -2.5689495, 2.625769],
            60,
        ),
    ];
    for (joints, target, most_iterations) in cases {
        let folded = chain(joints);
        let target = Vec3::from_array(target);
        let offset = target - folded.root();
        let report = fabrik_reach(&folded, offset, offset.length());
        assert!(report.reached, "{report:?}");
        assert!(
            report.iterations <= most_iterations,
            "{} iterations, expected at most {most_iterations}",
            report.iterations
        );
    }
}

/// A two-bone leg's foot by its hip, just outside its innermost reach
/// (0.113 m from the hip; bones 0.24 and 0.32 reach no closer than
/// 0.08): the knee must sit where two nearly tangent spheres meet, and each
/// pass gained a tenth, so FABRIK was still 4.9-5.2 mm short after the
/// centipede's 32 iterations, and restarts only replayed that approach.
/// The passes' steady progress is now extrapolated (a leap).
#[test]
fn regression_fabrik_reaches_a_two_bone_target_by_its_innermost_reach() {
    let target = Vec3::new(0.033, 0.032, -0.103);
    for knee in [Vec3::new(0.2, -0.1, 0.1), Vec3::new(0.0, -0.24, 0.0)] {
        let knee = knee.normalize() * 0.24;
        let leg = chain(&[
            [0.0, 0.0, 0.0],
            knee.to_array(),
            (knee + Vec3::new(0.0, -0.32, 0.0)).to_array(),
        ]);
        let mut posed = leg.clone();
        let params = SolveParams {
            tolerance: 1e-4,
            max_iterations: 32,
            pole: Some(Vec3::new(0.3, 0.6, -0.3)),
            end_direction: None,
        };
        let report = SolverKind::Fabrik
            .build()
            .solve(&mut posed, target, &params);
        assert_invariants(SolverKind::Fabrik, &leg, &posed, &report, &params, target);
        assert!(report.error <= 2e-4, "{report:?}");
    }
}

#[test]
fn reachable_leg_targets_are_reached_by_every_solver() {
    let cases = Setup::LEG.cases(11, 300);
    let reach = cases[0].chain.reach();
    let params = SolveParams {
        tolerance: 1e-4 * reach,
        max_iterations: 200,
        ..SolveParams::default()
    };
    for kind in [
        SolverKind::Fabrik,
        SolverKind::Gradient,
        SolverKind::Ccd,
        SolverKind::Dls,
    ] {
        let stats = run(kind.build().as_mut(), &cases, &params);
        assert_eq!(stats.reached, stats.solves, "{kind}: {stats:?}");
        assert!(stats.max_error <= params.tolerance, "{kind}: {stats:?}");
        assert_eq!(stats.non_finite, 0);
    }
    let two_bone_cases = Setup {
        bones: 2,
        ..Setup::LEG
    }
    .cases(11, 300);
    let stats = run(&mut TwoBone, &two_bone_cases, &params);
    assert_eq!(stats.reached, stats.solves, "two-bone: {stats:?}");
    assert_eq!(
        stats.iterations, 300,
        "two-bone takes exactly one iteration per solve"
    );
}

#[test]
fn gradient_descent_reaches_leg_targets_within_200_iterations() {
    let cases = Setup::LEG.cases(3, 500);
    let params = SolveParams {
        tolerance: 1e-4 * cases[0].chain.reach(),
        max_iterations: 200,
        ..SolveParams::default()
    };
    let stats = run(&mut GradientDescent::default(), &cases, &params);
    assert_eq!(stats.reached, 500, "{stats:?}");
    assert!(stats.mean_iterations() < 20.0, "{stats:?}");
}

#[test]
fn fabrik_matches_the_report_experiment() {
    let cases = Setup::REPORT_REACHABLE.cases(7, 1000);
    let params = SolveParams {
        tolerance: 1e-3,
        max_iterations: 1000,
        ..SolveParams::default()
    };
    let stats = run(SolverKind::Fabrik.build().as_mut(), &cases, &params);
    assert_eq!(stats.success_percent(), 100.0, "{stats:?}");
    assert!(
        stats.mean_iterations() <= 12.5,
        "mean iterations {}",
        stats.mean_iterations()
    );
    assert!(stats.max_bone_error <= 1e-3, "{stats:?}");
}

#[test]
fn fabrik_answers_unreachable_targets_in_one_straight_pass() {
    let cases = Setup::REPORT_UNREACHABLE.cases(7, 200);
    for case in &cases {
        let mut posed = case.chain.clone();
        let report =
            SolverKind::Fabrik
                .build()
                .solve(&mut posed, case.target, &SolveParams::default());
        assert_eq!(report.iterations, 1);
        assert_eq!(report.termination, Termination::Unreachable);
        assert!(!report.reached);
        let dir = case.target.normalize();
        for p in posed.joints() {
            assert!(
                p.cross(dir).length() <= 1e-2,
                "joint {p} off the root–target line"
            );
        }
        assert!((posed.end().length() - case.chain.reach()).abs() <= 1e-2);
    }
}

#[test]
fn target_at_the_root() {
    for chain in [
        leg(),
        chain(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]]),
    ] {
        let params = SolveParams {
            max_iterations: 100,
            ..params_for(&chain, None)
        };
        for (kind, _, report) in solve_all(&chain, chain.root(), &params) {
            assert!(report.error.is_finite(), "{kind}");
        }
    }
    // Equal bones can fold exactly onto the root.
    let equal = chain(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]]);
    let mut posed = equal.clone();
    let report = TwoBone.solve(&mut posed, Vec3::ZERO, &params_for(&equal, None));
    assert!(report.reached, "{report:?}");
}

#[test]
fn target_on_the_chain() {
    let chain = leg();
    let on_chain = chain.joints()[2];
    let params = SolveParams {
        max_iterations: 200,
        ..params_for(&chain, None)
    };
    for (kind, _, report) in solve_all(&chain, on_chain, &params) {
        if kind != SolverKind::Gradient {
            assert!(report.reached, "{kind}: {report:?}");
        }
    }
}

#[test]
fn collinear_straight_chain_with_target_along_its_axis() {
    let straight = chain(&[
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [2.0, 0.0, 0.0],
        [3.0, 0.0, 0.0],
    ]);
    let params = SolveParams {
        max_iterations: 200,
        ..params_for(&straight, None)
    };
    // Closer along the axis: the chain has to bend out of its singular pose.
    for (kind, posed, report) in solve_all(&straight, Vec3::new(1.5, 0.0, 0.0), &params) {
        assert!(report.reached, "{kind}: {report:?} {:?}", posed.joints());
    }
    // Farther along the axis: already as close as it can be.
    for (kind, posed, report) in solve_all(&straight, Vec3::new(5.0, 0.0, 0.0), &params) {
        assert!((report.error - 2.0).abs() < 1e-4, "{kind}: {report:?}");
        assert!(
            (posed.end() - Vec3::new(3.0, 0.0, 0.0)).length() < 1e-4,
            "{kind}"
        );
    }
    let two = chain(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]]);
    let mut posed = two.clone();
    let report = TwoBone.solve(
        &mut posed,
        Vec3::new(1.0, 0.0, 0.0),
        &params_for(&two, None),
    );
    assert!(report.reached, "{report:?}");
}

#[test]
fn pole_on_the_chain_axis_is_harmless() {
    let chain = leg();
    let target = Vec3::new(1.2, -0.2, 0.3);
    let on_axis = chain.root() + (target - chain.root()) * 0.5;
    let params = SolveParams {
        max_iterations: 200,
        ..params_for(&chain, Some(on_axis))
    };
    for (kind, _, report) in solve_all(&chain, target, &params) {
        assert!(report.reached, "{kind}: {report:?}");
    }
}

#[test]
fn pole_decides_which_way_the_knee_bends() {
    let knee_down = chain(&[[0.0, 0.0, 0.0], [0.5, -0.5, 0.0], [1.0, 0.0, 0.0]]);
    for pole in [
        Vec3::new(0.5, 2.0, 0.0),
        Vec3::new(0.5, -2.0, 0.0),
        Vec3::new(0.5, 0.0, 2.0),
    ] {
        let params = SolveParams {
            max_iterations: 100,
            ..params_for(&knee_down, Some(pole))
        };
        for (kind, posed, report) in solve_all(&knee_down, Vec3::new(1.2, 0.0, 0.0), &params) {
            assert!(report.reached, "{kind}");
            let knee_side = posed.joints()[1] - Vec3::new(posed.joints()[1].x, 0.0, 0.0);
            let pole_side = pole - Vec3::new(pole.x, 0.0, 0.0);
            assert!(
                knee_side.normalize().dot(pole_side.normalize()) > 0.99,
                "{kind}: knee {:?} pole {pole}",
                posed.joints()[1]
            );
        }
    }
}

#[test]
fn zero_iterations_leave_the_chain_alone() {
    let chain = leg();
    let params = SolveParams {
        max_iterations: 0,
        ..params_for(&chain, None)
    };
    for (kind, posed, report) in solve_all(&chain, Vec3::new(0.5, -0.5, 0.5), &params) {
        assert_eq!(report.iterations, 0, "{kind}");
        assert_eq!(posed.joints(), chain.joints(), "{kind}");
    }
}

#[test]
fn iteration_budget_is_respected() {
    let cases = Setup::REPORT_REACHABLE.cases(5, 50);
    for budget in [1, 2, 3] {
        let params = SolveParams {
            tolerance: 1e-3,
            max_iterations: budget,
            ..SolveParams::default()
        };
        for kind in [
            SolverKind::Fabrik,
            SolverKind::Gradient,
            SolverKind::Ccd,
            SolverKind::JacobianTranspose,
            SolverKind::Dls,
        ] {
            for case in &cases {
                let mut posed = case.chain.clone();
                let report = kind.build().solve(&mut posed, case.target, &params);
                assert!(report.iterations <= budget, "{kind}: {report:?}");
                if !report.reached && report.termination != Termination::Stalled {
                    assert_eq!(
                        report.termination,
                        Termination::MaxIterations,
                        "{kind}: {report:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn non_finite_targets_leave_the_chain_alone() {
    let chain = leg();
    for target in [Vec3::splat(f32::NAN), Vec3::new(f32::INFINITY, 0.0, 0.0)] {
        for mut solver in solvers_for(&chain) {
            let mut posed = chain.clone();
            let report = solver.solve(&mut posed, target, &SolveParams::default());
            assert_eq!(
                report.termination,
                Termination::InvalidTarget,
                "{}",
                solver.kind()
            );
            assert_eq!(posed.joints(), chain.joints());
        }
    }
}

#[test]
fn far_away_chain_keeps_precision() {
    let offset = Vec3::new(1e4, -2e4, 5e3);
    let far = Chain::new(leg().joints().iter().map(|p| *p + offset).collect()).unwrap();
    let params = SolveParams {
        tolerance: 1e-2,
        max_iterations: 100,
        ..SolveParams::default()
    };
    for (kind, _, report) in solve_all(&far, offset + Vec3::new(0.8, -0.6, 0.2), &params) {
        assert!(report.reached, "{kind}: {report:?}");
    }
}

#[test]
fn impossible_tolerance_is_reported_not_looped() {
    let far = Chain::new(
        leg()
            .joints()
            .iter()
            .map(|p| *p + Vec3::splat(1e5))
            .collect(),
    )
    .unwrap();
    let params = SolveParams {
        tolerance: 1e-9,
        max_iterations: 500,
        ..SolveParams::default()
    };
    for kind in [SolverKind::Fabrik, SolverKind::Ccd] {
        let mut posed = far.clone();
        let report = kind.build().solve(
            &mut posed,
            Vec3::splat(1e5) + Vec3::new(0.8, -0.6, 0.2),
            &params,
        );
        // Rounding may land exactly on the target; otherwise the solver must
        // say it hit the precision floor rather than spend its whole budget.
        assert!(
            matches!(
                report.termination,
                Termination::Reached | Termination::PrecisionLimit
            ),
            "{kind}: {report:?}"
        );
        assert!(
            report.iterations < 100,
            "{kind} looped toward the budget: {report:?}"
        );
    }
}

#[test]
fn two_bone_refuses_other_chains_without_panicking() {
    let three = leg();
    let err = TwoBone
        .try_solve(&mut three.clone(), Vec3::X, &SolveParams::default())
        .unwrap_err();
    assert_eq!(
        err,
        IkError::UnsupportedChain {
            solver: SolverKind::TwoBone,
            expected: 2,
            actual: 3
        }
    );
    assert_eq!(
        err.to_string(),
        "the two-bone solver needs a chain of exactly 2 bones, this one has 3"
    );
    let mut posed = three.clone();
    let report = TwoBone.solve(&mut posed, Vec3::X, &SolveParams::default());
    assert_eq!(report.termination, Termination::UnsupportedChain);
    assert_eq!(posed, three);
    let one = chain(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]);
    assert!(TwoBone.supports(&one).is_err());
}

#[test]
fn two_bone_is_exact_and_stops_short_of_full_extension() {
    let two = chain(&[[0.0, 0.0, 0.0], [0.4, 0.3, 0.0], [1.0, 0.0, 0.0]]);
    let mut posed = two.clone();
    let params = SolveParams {
        tolerance: 1e-6,
        pole: Some(Vec3::Y),
        ..SolveParams::default()
    };
    let report = TwoBone.solve(&mut posed, Vec3::new(0.3, -0.5, 0.4), &params);
    assert!(report.reached && report.iterations == 1, "{report:?}");
    // At exactly full reach the knee keeps a sliver of bend so its plane survives.
    let full = Vec3::new(two.reach(), 0.0, 0.0);
    let report = TwoBone.solve(
        &mut posed,
        full,
        &SolveParams {
            tolerance: 1e-4,
            ..params
        },
    );
    assert!(report.reached, "{report:?}");
    assert!(
        posed.joints()[1].y > 0.0,
        "knee should stay bent toward the pole: {:?}",
        posed.joints()
    );
}

#[test]
fn gradient_rest_term_prevents_crumpling() {
    // Track a foot target around a loop many times; without the rest term the
    // redundant middle joints wander, with it they stay near the rest pose.
    let drift = |rest_weight: f64| {
        let mut solver = GradientDescent::with_weights(rest_weight, 0.0);
        let mut posed = leg();
        let params = SolveParams {
            tolerance: 1e-4,
            max_iterations: 50,
            ..SolveParams::default()
        };
        let mut worst = 0.0f32;
        for step in 0..2000 {
            let angle = step as f32 * 0.05;
            let target = Vec3::new(
                0.9 + 0.25 * angle.cos(),
                -0.3 + 0.2 * (angle * 1.7).sin(),
                0.25 * angle.sin(),
            );
            let report = solver.solve(&mut posed, target, &params);
            assert!(report.reached, "rest weight {rest_weight}: {report:?}");
            let rest: Vec<Vec3> = posed.rest_directions().collect();
            for (i, pair) in posed.joints().windows(2).enumerate() {
                worst = worst.max((pair[1] - pair[0]).normalize().angle_between(rest[i]));
            }
        }
        worst.to_degrees()
    };
    let without = drift(0.0);
    let with = drift(0.1);
    assert!(
        with < without * 0.8,
        "rest term should keep bones nearer rest: {with}° vs {without}°"
    );
}

#[test]
fn gradient_orientation_term_turns_the_last_bone() {
    let mut solver = GradientDescent::default();
    let mut posed = leg();
    let params = SolveParams {
        tolerance: 1e-4,
        max_iterations: 200,
        end_direction: Some(-Vec3::Y),
        ..SolveParams::default()
    };
    let target = Vec3::new(0.9, -0.5, 0.1);
    let mut report = solver.solve(&mut posed, target, &params);
    for _ in 0..50 {
        report = solver.solve(&mut posed, target, &params);
    }
    assert!(report.reached, "{report:?}");
    let last = (posed.end() - posed.joints()[2]).normalize();
    assert!(
        last.dot(-Vec3::Y) > 0.95,
        "last bone {last} should point down"
    );
}

#[test]
fn solvers_are_deterministic() {
    let cases = Setup::LEG.cases(9, 50);
    for kind in SolverKind::ALL {
        let params = SolveParams {
            tolerance: 1e-4,
            max_iterations: 100,
            ..SolveParams::default()
        };
        let a = run(kind.build().as_mut(), &cases, &params);
        let b = run(kind.build().as_mut(), &cases, &params);
        assert_eq!(a, b, "{kind}");
    }
}

// Joint limits and the Jacobian family.

fn arb_limit() -> impl Strategy<Value = JointLimit> {
    (
        0u8..3,
        arb_vec(1.0),
        -180f32..180.0,
        -180f32..180.0,
        0f32..180.0,
    )
        .prop_map(|(kind, axis, a, b, cone)| match kind {
            0 => JointLimit::Free,
            1 => JointLimit::Hinge {
                axis: axis.normalize_or(Vec3::Z),
                min: a.min(b).to_radians(),
                max: a.max(b).to_radians(),
            },
            _ => JointLimit::Cone {
                max: cone.to_radians(),
            },
        })
}

/// Largest limit violation allowed after a solve: the `f32` rounding of the
/// written-back joints, far below a visible bend.
const LIMIT_SLACK: f32 = 1e-3;

proptest! {
    #![proptest_config(common::deterministic(128))]

    /// Whatever the chain, limits, target and pole, every solver returns a
    /// pose inside the limits with the usual invariants; FABRIK and CCD get
    /// there by honouring them, the others by the final projection.
    #[test]
    fn limited_chains_keep_their_limits(
        chain in arb_chain(1.0),
        limits in prop::collection::vec(arb_limit(), 6),
        target_dir in arb_vec(1.0),
        reach_fraction in 0.0f32..2.5,
        pole in prop::option::of(arb_vec(5.0)),
    ) {
        let mut limited = chain.clone();
        let inner = chain.bone_count() - 1;
        // A hinge axis along its parent bone is refused; skip those draws.
        prop_assume!(limited.set_limits(&limits[..inner]).is_ok());
        let target = chain.root() + target_dir.normalize_or(Vec3::Y) * reach_fraction * chain.reach();
        for (kind, posed, _) in solve_all(&limited, target, &params_for(&limited, pole)) {
            let violation = posed.limit_violation();
            prop_assert!(violation <= LIMIT_SLACK, "{kind}: {violation} rad outside {:?}", posed.limits());
        }
    }
}

/// A knee that may only bend forward: the signed bend about its axis.
fn knee_bend(chain: &Chain, axis: Vec3) -> f32 {
    let j = chain.joints();
    let upper = (j[1] - j[0]).normalize();
    let lower = (j[2] - j[1]).normalize();
    upper.cross(lower).dot(axis).atan2(upper.dot(lower))
}

#[test]
fn a_hinged_knee_never_flips_whatever_the_target_or_pole() {
    let rest = chain(&[[0.0, 0.0, 0.0], [0.5, -0.5, 0.0], [1.0, 0.0, 0.0]]);
    let axis = {
        let j = rest.joints();
        (j[1] - j[0]).cross(j[2] - j[1]).normalize()
    };
    let mut limited = rest.clone();
    limited
        .set_limits(&[JointLimit::Hinge {
            axis,
            min: 0.0,
            max: 150f32.to_radians(),
        }])
        .unwrap();
    assert!(knee_bend(&limited, axis) > 1.0, "rest knee bent forward");
    // Targets swept through a leg's workspace (the thigh within a quarter
    // turn of its rest direction either way), many of which an unlimited
    // knee reaches by bending backwards; poles on the wrong side too. (Past
    // a half turn of the thigh the hinge's frame is undefined; see
    // `ik::limits`.)
    let poles = [
        None,
        Some(Vec3::new(0.5, 2.0, 0.0)),
        Some(Vec3::new(0.5, -2.0, 0.3)),
    ];
    for kind in [SolverKind::Fabrik, SolverKind::Ccd, SolverKind::Dls] {
        for pole in poles {
            let mut posed = limited.clone();
            let mut solver = kind.build();
            for step in 0..200 {
                let angle = -std::f32::consts::FRAC_PI_4
                    + std::f32::consts::FRAC_PI_2 * (step as f32 * 0.13).sin();
                let target = Vec3::new(
                    1.3 * angle.cos(),
                    1.3 * angle.sin(),
                    0.3 * (angle * 0.7).sin(),
                ) * (0.2 + 0.7 * (step as f32 * 0.05).sin().abs());
                let params = SolveParams {
                    max_iterations: 100,
                    ..params_for(&posed, pole)
                };
                solver.solve(&mut posed, target, &params);
                let bend = knee_bend(&posed, axis);
                assert!(
                    bend >= -1e-3,
                    "{kind} with pole {pole:?}: knee bent backwards by {bend} rad at {target}"
                );
                assert!(posed.limit_violation() <= LIMIT_SLACK, "{kind}");
            }
        }
    }
}

#[test]
fn the_pole_still_bends_a_limited_knee() {
    let knee_down = chain(&[[0.0, 0.0, 0.0], [0.5, -0.5, 0.0], [1.0, 0.0, 0.0]]);
    let mut limited = knee_down.clone();
    limited
        .set_limits(&[JointLimit::Cone {
            max: 170f32.to_radians(),
        }])
        .unwrap();
    let pole = Vec3::new(0.5, 2.0, 0.0);
    let params = SolveParams {
        max_iterations: 100,
        ..params_for(&limited, Some(pole))
    };
    for kind in [SolverKind::Fabrik, SolverKind::Ccd] {
        let mut posed = limited.clone();
        let report = kind
            .build()
            .solve(&mut posed, Vec3::new(1.2, 0.0, 0.0), &params);
        assert!(report.reached, "{kind}: {report:?}");
        assert!(
            posed.joints()[1].y > 0.3,
            "{kind}: knee {} should swing up to the pole",
            posed.joints()[1]
        );
    }
}

#[test]
fn cone_limited_chains_reach_reachable_targets_with_fabrik() {
    let cases = Setup::LAB_REACHABLE.cases(21, 200);
    let limits = vec![
        JointLimit::Cone {
            max: 50f32.to_radians()
        };
        9
    ];
    let params = SolveParams {
        tolerance: 1e-3,
        max_iterations: 1000,
        ..SolveParams::default()
    };
    let mut reached = 0;
    for case in &cases {
        let mut posed = case.chain.clone();
        posed.set_limits(&limits).unwrap();
        let report = SolverKind::Fabrik
            .build()
            .solve(&mut posed, case.target, &params);
        reached += usize::from(report.reached);
        assert!(posed.limit_violation() <= LIMIT_SLACK, "{report:?}");
        assert!(posed.bone_length_error() <= 1e-3);
    }
    assert!(reached >= 198, "{reached} of 200");
}

#[test]
fn limits_are_checked_when_set() {
    let mut leg = leg();
    let hinge = |min: f32, max: f32| JointLimit::Hinge {
        axis: Vec3::Z,
        min: min.to_radians(),
        max: max.to_radians(),
    };
    let err = leg
        .set_limits(&[hinge(90.0, 10.0), JointLimit::Free])
        .unwrap_err();
    assert!(
        matches!(err, IkError::InvalidLimit { joint: 0, .. }),
        "{err}"
    );
    assert!(
        err.to_string().contains("min 90.0° is above max 10.0°"),
        "{err}"
    );
    let err = leg.set_limits(&[hinge(0.0, 90.0)]).unwrap_err();
    assert!(
        err.to_string()
            .contains("1 limits given for a chain of 2 inner joints"),
        "{err}"
    );
    let err = leg
        .set_limits(&[JointLimit::Free, JointLimit::Cone { max: 4.0 }])
        .unwrap_err();
    assert!(
        matches!(err, IkError::InvalidLimit { joint: 1, .. }),
        "{err}"
    );
    // An axis along the parent bone defines no plane.
    let along = (leg.joints()[1] - leg.joints()[0]).normalize();
    let err = leg
        .set_limits(&[
            JointLimit::Hinge {
                axis: along,
                min: 0.0,
                max: 1.0,
            },
            JointLimit::Free,
        ])
        .unwrap_err();
    assert!(err.to_string().contains("along the parent bone"), "{err}");
    assert!(leg.limits().is_empty(), "a refused list changes nothing");
    leg.set_limits(&[hinge(-10.0, 150.0), JointLimit::Cone { max: 1.0 }])
        .unwrap();
    assert_eq!(leg.limits().len(), 2);
    leg.set_limits(&[]).unwrap();
    assert_eq!(leg.limit_violation(), 0.0);
}

#[test]
fn limited_degenerate_chains_and_targets_at_the_root_stay_finite() {
    let straight = chain(&[
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [2.0, 0.0, 0.0],
        [3.0, 0.0, 0.0],
    ]);
    let mut limited = straight.clone();
    limited
        .set_limits(&[
            JointLimit::Hinge {
                axis: Vec3::Z,
                min: 0.2,
                max: 2.0,
            },
            JointLimit::Cone { max: 0.5 },
        ])
        .unwrap();
    let params = SolveParams {
        max_iterations: 200,
        ..params_for(&limited, None)
    };
    for target in [
        Vec3::ZERO,
        Vec3::new(1.5, 0.0, 0.0),
        Vec3::new(9.0, 0.0, 0.0),
        Vec3::new(-3.0, 0.0, 0.0),
    ] {
        for (kind, posed, _) in solve_all(&limited, target, &params) {
            assert!(posed.limit_violation() <= LIMIT_SLACK, "{kind} to {target}");
        }
    }
}

#[test]
fn jacobian_solvers_reach_leg_targets_and_take_any_damping() {
    let cases = Setup::LEG.cases(5, 100);
    let params = SolveParams {
        tolerance: 1e-4 * cases[0].chain.reach(),
        max_iterations: 2000,
        ..SolveParams::default()
    };
    let transpose = run(
        SolverKind::JacobianTranspose.build().as_mut(),
        &cases,
        &params,
    );
    assert!(transpose.reached >= 95, "{transpose:?}");
    let dls = run(&mut Dls::default(), &cases, &params);
    assert_eq!(dls.reached, 100, "{dls:?}");
    assert!(
        dls.mean_iterations() < transpose.mean_iterations(),
        "{dls:?} vs {transpose:?}"
    );
    for damping in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e6] {
        let stats = run(&mut Dls::with_damping(damping), &cases, &params);
        assert_eq!(stats.non_finite, 0, "damping {damping}");
        assert!(stats.max_bone_error <= 1e-5, "damping {damping}");
    }
}

/// A solve of `start` to `target` by the general solver of `kind`, and by
/// the tracking solve from the same pose.
fn general_and_tracking(
    kind: SolverKind,
    start: &Chain,
    target: Vec3,
    params: &SolveParams,
) -> ((Chain, SolveReport), (Chain, Option<SolveReport>)) {
    let mut general = start.clone();
    let report = kind.build().solve(&mut general, target, params);
    let mut tracked = start.clone();
    let tracking = solve_tracking(kind, &mut tracked, target, params);
    ((general, report), (tracked, tracking))
}

proptest! {
    #![proptest_config(common::deterministic(256))]

    /// Where the tracking solve answers, it answers as the general FABRIK
    /// or CCD does from the same pose: the target reached, every bone its
    /// length, the knees where the general solver puts them (to well under
    /// a millimetre on a metre-long chain) after as many iterations (CCD in
    /// `f32` may need one sweep more or less at the tolerance's edge);
    /// where it does not, the chain is untouched.
    #[test]
    fn the_tracking_solve_agrees_with_its_solver_or_leaves_the_chain_alone(
        kind in prop::sample::select(vec![SolverKind::Fabrik, SolverKind::Ccd]),
        chain in arb_chain(1.0),
        far in arb_vec(50.0),
        step in arb_vec(0.02),
        reach_fraction in 0.2f32..0.95,
        pole in prop::option::of(arb_vec(5.0)),
    ) {
        // Start from a solved pose, as a walking leg does, then move the
        // target a little.
        let mut start = chain.clone();
        start.set_root(far);
        let first = start.root() + (start.end() - start.root()).normalize_or(Vec3::Y)
            * reach_fraction * start.reach();
        let params = params_for(&start, pole.map(|p| p + far));
        kind.build().solve(&mut start, first, &params);
        let target = first + step * start.reach();
        let ((general, report), (tracked, tracking)) =
            general_and_tracking(kind, &start, target, &params);
        match tracking {
            None => prop_assert_eq!(tracked.joints(), start.joints()),
            Some(tracking) => {
                prop_assert!(tracking.reached && report.reached, "{tracking:?} {report:?}");
                prop_assert!(tracking.error <= params.tolerance);
                if kind == SolverKind::Fabrik {
                    prop_assert_eq!(tracking.iterations, report.iterations);
                } else {
                    prop_assert!(tracking.iterations.abs_diff(report.iterations) <= 1);
                }
                prop_assert!(tracked.bone_length_error() <= 1e-5 * tracked.reach());
                for (a, b) in tracked.joints().iter().zip(general.joints()) {
                    prop_assert!(a.distance(*b) <= 1e-4 * tracked.reach(), "{a} vs {b}");
                }
            }
        }
    }
}

#[test]
fn the_tracking_solve_answers_a_leg_following_its_foot() {
    for (kind, most) in [(SolverKind::Fabrik, 3), (SolverKind::Ccd, 12)] {
        let mut chain = leg();
        let params = params_for(&chain, Some(Vec3::new(0.5, 2.0, 0.0)));
        let mut general = chain.clone();
        let mut solver = kind.build();
        for k in 0..50 {
            let target = Vec3::new(0.9 - 0.004 * k as f32, -0.45, 0.002 * k as f32);
            let tracked = solve_tracking(kind, &mut chain, target, &params)
                .unwrap_or_else(|| panic!("{kind} step {k}: handed back"));
            let report = solver.solve(&mut general, target, &params);
            assert!(
                tracked.reached && tracked.error <= 1e-4 * chain.reach(),
                "{tracked:?}"
            );
            assert!(tracked.iterations <= most, "{kind} step {k}: {tracked:?}");
            assert!(
                tracked.iterations.abs_diff(report.iterations) <= 1,
                "{kind} step {k}"
            );
            assert!(chain.bone_length_error() <= 1e-6, "{kind} step {k}");
            // The knee stays on the pole's side (+Y of the hip–foot line).
            assert!(chain.joints()[1].y > 0.0, "{kind}: {:?}", chain.joints());
            for (a, b) in chain.joints().iter().zip(general.joints()) {
                assert!(a.distance(*b) < 1e-4, "{kind} step {k}: {a} vs {b}");
            }
        }
    }
}

#[test]
fn the_tracking_solve_hands_back_what_it_does_not_do() {
    let params = params_for(&leg(), None);
    let untouched = |chain: &Chain, target: Vec3, params: &SolveParams| {
        for kind in SolverKind::ALL {
            let mut tried = chain.clone();
            let answer = solve_tracking(kind, &mut tried, target, params);
            assert!(answer.is_none(), "{kind} {target} {params:?}: {answer:?}");
            assert_eq!(tried.joints(), chain.joints());
        }
    };
    // Only FABRIK and CCD have a tracking solve.
    for kind in SolverKind::ALL {
        let mut tried = leg();
        let answer = solve_tracking(kind, &mut tried, Vec3::new(0.95, -0.4, 0.02), &params);
        let has_one = matches!(kind, SolverKind::Fabrik | SolverKind::Ccd);
        assert_eq!(answer.is_some(), has_one, "{kind}: {answer:?}");
    }
    let leg = leg();
    // Out of reach, at the root, not a number.
    untouched(&leg, Vec3::new(5.0, 0.0, 0.0), &params);
    untouched(&leg, Vec3::ZERO, &params);
    untouched(&leg, Vec3::new(f32::NAN, 0.0, 0.0), &params);
    // A target all but at full stretch, where FABRIK and CCD crawl: more
    // than the tracking budget (FABRIK's watch is at work by then).
    let stretched = Vec3::new(-0.2, -0.9, 0.6).normalize() * (0.9999 * leg.reach());
    untouched(&leg, stretched, &params);
    for (kind, budget) in [
        (SolverKind::Fabrik, TRACKING_PASSES),
        (SolverKind::Ccd, TRACKING_SWEEPS),
    ] {
        let mut general = leg.clone();
        let report = kind.build().solve(&mut general, stretched, &params);
        assert!(report.iterations > budget, "{kind}: {report:?}");
    }
    // No iterations allowed, a tolerance f32 cannot resolve, an end
    // direction (only the gradient solver honours one).
    for params in [
        SolveParams {
            max_iterations: 0,
            ..params
        },
        SolveParams {
            tolerance: 1e-9,
            ..params
        },
        SolveParams {
            end_direction: Some(Vec3::NEG_Y),
            ..params
        },
    ] {
        untouched(&leg, Vec3::new(0.95, -0.4, 0.02), &params);
    }
    // Joint limits, and more joints than it holds.
    let mut limited = leg.clone();
    limited
        .set_limits(&[JointLimit::Cone { max: 1.0 }; 2])
        .unwrap();
    untouched(&limited, Vec3::new(0.95, -0.4, 0.02), &params);
    let long = chain(
        &(0..10)
            .map(|k| [0.1 * k as f32, 0.0, 0.0])
            .collect::<Vec<_>>(),
    );
    untouched(&long, Vec3::new(0.85, 0.05, 0.0), &params_for(&long, None));
}

/// Each lane of `solve_tracking_lanes` against the tracking solve of the
/// same chain on its own: the same report and the same joints, bit for bit.
fn assert_lanes_match_one_by_one(jobs: Vec<(Chain, SolverKind, Vec3, SolveParams)>) {
    let mut alone: Vec<Chain> = jobs.iter().map(|j| j.0.clone()).collect();
    let reports: Vec<Option<SolveReport>> = alone
        .iter_mut()
        .zip(&jobs)
        .map(|(chain, (_, kind, target, params))| solve_tracking(*kind, chain, *target, params))
        .collect();
    let mut chains: Vec<Chain> = jobs.iter().map(|j| j.0.clone()).collect();
    let mut lane_jobs: [Option<LaneJob<'_>>; LANES] = [None, None, None, None];
    for ((slot, chain), (_, kind, target, params)) in
        lane_jobs.iter_mut().zip(chains.iter_mut()).zip(&jobs)
    {
        *slot = Some((chain, *kind, *target, *params));
    }
    let together = solve_tracking_lanes(&mut lane_jobs);
    for (l, (chain, report)) in chains.iter().zip(&reports).enumerate() {
        assert_eq!(together[l], *report, "lane {l}");
        assert_eq!(chain.joints(), alone[l].joints(), "lane {l}");
    }
}

proptest! {
    #![proptest_config(common::deterministic(128))]

    /// Four legs in lanes (any mix of FABRIK and CCD, of targets near and
    /// far) come out as each would alone.
    #[test]
    fn legs_solved_in_lanes_match_each_solved_alone(
        legs in prop::collection::vec(
            (
                prop::sample::select(vec![SolverKind::Fabrik, SolverKind::Ccd]),
                arb_vec(0.6),
                arb_vec(0.05),
                prop::option::of(arb_vec(3.0)),
            ),
            1..=4,
        ),
    ) {
        let jobs = legs
            .into_iter()
            .enumerate()
            .map(|(k, (kind, bend, step, pole))| {
                let mut chain = leg();
                chain.set_root(Vec3::new(k as f32, 0.0, 2.0 * k as f32));
                let target = chain.end() + bend * 0.3 + step;
                let params = params_for(&chain, pole.map(|p| p + chain.root()));
                (chain, kind, target, params)
            })
            .collect();
        assert_lanes_match_one_by_one(jobs);
    }
}

/// Four CCD legs whose targets moved by different amounts take different
/// numbers of sweeps: the one sweeping longest goes on alone once the
/// others are done, and still comes out as it would alone.
#[test]
fn a_ccd_leg_left_sweeping_alone_in_lanes_matches_its_solve_alone() {
    let jobs: Vec<_> = [0.01, 0.05, 0.15, 0.3]
        .into_iter()
        .enumerate()
        .map(|(k, moved)| {
            let mut chain = leg();
            chain.set_root(Vec3::new(k as f32, 0.0, 0.0));
            let target = chain.end() + Vec3::new(-0.6, 0.5, 0.3) * moved;
            let params = params_for(&chain, Some(chain.root() + Vec3::Y));
            (chain, SolverKind::Ccd, target, params)
        })
        .collect();
    let sweeps: Vec<u32> = jobs
        .iter()
        .map(|(chain, kind, target, params)| {
            let mut alone = chain.clone();
            solve_tracking(*kind, &mut alone, *target, params)
                .expect("a tracking solve")
                .iterations
        })
        .collect();
    // One sweeps longer than all the rest (the case the hand-off takes).
    let longest = sweeps.iter().copied().max().unwrap_or(0);
    assert_eq!(
        sweeps.iter().filter(|&&s| s == longest).count(),
        1,
        "{sweeps:?}"
    );
    assert_lanes_match_one_by_one(jobs);
}

#[test]
fn lanes_take_chains_of_any_length_and_solver_and_empty_slots() {
    let job = |chain: Chain, kind: SolverKind, target: [f32; 3]| {
        let params = params_for(&chain, None);
        (chain, kind, Vec3::from_array(target), params)
    };
    let two = chain(&[[0.0, 0.0, 0.0], [0.4, 0.3, 0.0], [0.8, 0.0, 0.0]]);
    assert_lanes_match_one_by_one(vec![
        job(leg(), SolverKind::Fabrik, [0.95, -0.38, 0.03]),
        job(two, SolverKind::Fabrik, [0.7, 0.05, 0.02]),
        job(leg(), SolverKind::Gradient, [0.95, -0.38, 0.03]),
        // Out of reach: handed back.
        job(leg(), SolverKind::Ccd, [9.0, 0.0, 0.0]),
    ]);
    assert_lanes_match_one_by_one(vec![job(leg(), SolverKind::Ccd, [0.95, -0.38, 0.03])]);
    // Lanes of a joint count without code of its own (four bones), with a
    // chain of one bone beside them.
    let four = || {
        chain(&[
            [0.0, 0.0, 0.0],
            [0.2, 0.2, 0.0],
            [0.4, 0.25, 0.05],
            [0.6, 0.1, 0.0],
            [0.75, -0.2, 0.0],
        ])
    };
    for kind in [SolverKind::Fabrik, SolverKind::Ccd] {
        assert_lanes_match_one_by_one(vec![
            job(four(), kind, [0.7, -0.15, 0.05]),
            job(four(), kind, [0.65, -0.25, -0.1]),
            job(
                chain(&[[0.0, 0.0, 0.0], [0.5, 0.0, 0.0]]),
                kind,
                [0.0, 0.5, 0.0],
            ),
            job(four(), kind, [0.8, -0.1, 0.0]),
        ]);
    }
}
