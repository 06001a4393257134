//! FABRIK: forward and backward reaching inverse kinematics (the report's Algorithm 1).

use glam::{DVec3, Vec3, Vec3A};

use super::unit_frame::{
    CoreOutcome, UnitProblem, end_error, solve_in_unit_frame, straighten_toward,
};
use super::{Chain, SolveParams, SolveReport, Solver, SolverKind, Termination};

/// Unit-frame tolerance down to which `f32` iterations are trustworthy: a few
/// dozen ulps of the chain's reach. Finer tolerances are solved in `f64`.
const F32_RESOLUTION: f64 = 32.0 * f32::EPSILON as f64;

/// Forward and backward reaching IK.
///
/// Each iteration pins the end to the target and walks back to the root
/// placing every joint on the line to its neighbour at bone length, then pins
/// the root and walks forward again. An unreachable target is answered in one
/// pass by straightening the chain toward it. With a pole, every inner joint is
/// then swung about the line through its neighbours toward the pole, which
/// moves neither the end nor any bone length.
///
/// Each joint update is a serial chain of a square root and a division, so
/// iterations run in `f32` SIMD lanes, which are shorter on that chain, unless
/// the tolerance is finer than `f32` can resolve for the chain's size (the
/// report's 1e-3 mm on 9 m); then they run in `f64`.
#[derive(Debug, Clone, Default)]
pub struct Fabrik {
    work: Vec<DVec3>,
    fast: Vec<Vec3A>,
    fast_lengths: Vec<f32>,
}

impl Solver for Fabrik {
    fn kind(&self) -> SolverKind {
        SolverKind::Fabrik
    }

    fn solve(&mut self, chain: &mut Chain, target: Vec3, params: &SolveParams) -> SolveReport {
        let Self {
            work,
            fast,
            fast_lengths,
        } = self;
        solve_in_unit_frame(chain, target, params, work, |joints, lengths, problem| {
            if problem.max_iterations == 0 {
                CoreOutcome::new(0, Termination::MaxIterations)
            } else if problem.beyond_reach() {
                straighten_toward(joints, lengths, problem.target);
                CoreOutcome::new(1, Termination::Unreachable)
            } else {
                reach_iteratively(joints, lengths, problem, fast, fast_lengths)
            }
        })
    }
}

/// Iterates in `f32` when the tolerance is one `f32` resolves for a chain
/// this size (every creature leg), in `f64` when it is finer.
fn reach_iteratively(
    joints: &mut [DVec3],
    lengths: &[f64],
    problem: &UnitProblem,
    fast: &mut Vec<Vec3A>,
    fast_lengths: &mut Vec<f32>,
) -> CoreOutcome {
    if end_error(joints, problem.target) <= problem.tolerance {
        return CoreOutcome::new(0, Termination::Reached);
    }
    if problem.tolerance < F32_RESOLUTION {
        return passes_f64(joints, lengths, problem, problem.max_iterations);
    }
    fast.clear();
    fast.extend(joints.iter().map(|p| Vec3A::from(p.as_vec3())));
    fast_lengths.clear();
    fast_lengths.extend(lengths.iter().map(|l| *l as f32));
    let coarse = UnitProblem {
        floor: problem.floor.max(f64::from(f32::EPSILON)),
        ..*problem
    };
    let outcome = passes_f32(fast, fast_lengths, &coarse, problem.max_iterations);
    for (p, q) in joints.iter_mut().zip(fast.iter()).skip(1) {
        *p = q.as_dvec3();
    }
    outcome
}

/// One FABRIK loop over a precision's vector type: the same algorithm for the
/// `f32` and `f64` stages, written once.
macro_rules! fabrik_passes {
    ($name:ident, $vec:ty, $scalar:ty) => {
        fn $name(
            joints: &mut [$vec],
            lengths: &[$scalar],
            problem: &UnitProblem,
            max_iterations: u32,
        ) -> CoreOutcome {
            let target = <$vec>::from(problem.target.to_array().map(|c| c as $scalar));
            let last = joints.len() - 1;
            let mut error = f64::from(joints[last].distance(target));
            // When two joints coincide a bone has no direction; carrying on in
            // the direction of the last bone placed keeps the chain connected
            // (kept unnormalised: only the rare degenerate case pays for that).
            let mut fallback = target;
            let mut iterations = 0;
            let mut nudged = false;
            while iterations < max_iterations {
                iterations += 1;
                // Forward: end on the target, each joint pulled toward its
                // successor. The joint just placed is carried in `placed` so
                // the next update need not wait for it to round-trip memory,
                // and one division gives length / distance.
                joints[last] = target;
                let mut placed = target;
                for (joint, length) in joints[1..last].iter_mut().zip(&lengths[1..last]).rev() {
                    let offset = *joint - placed;
                    let len_sq = offset.length_squared();
                    let step = if len_sq > 1e-30 {
                        fallback = offset;
                        offset * (*length / len_sq.sqrt())
                    } else {
                        fallback.normalize_or(<$vec>::Y) * *length
                    };
                    placed += step;
                    *joint = placed;
                }
                // Backward: root in place, each joint pulled toward its predecessor.
                let mut placed = joints[0];
                for (joint, length) in joints[1..].iter_mut().zip(lengths) {
                    let offset = *joint - placed;
                    let len_sq = offset.length_squared();
                    let step = if len_sq > 1e-30 {
                        fallback = -offset;
                        offset * (*length / len_sq.sqrt())
                    } else {
                        -fallback.normalize_or(<$vec>::Y) * *length
                    };
                    placed += step;
                    *joint = placed;
                }
                let previous = error;
                error = f64::from(joints[last].distance(target));
                match problem.verdict(error, previous) {
                    // Joints on one line with the target stay on it under
                    // both passes; bend them off it once and try again.
                    Some(Termination::Stalled) if !nudged && !problem.target_unreachable() => {
                        nudged = true;
                        let side =
                            <$vec>::from(side_of_line(problem).to_array().map(|c| c as $scalar));
                        for (i, joint) in joints.iter_mut().enumerate().take(last).skip(1) {
                            let sign: $scalar = if i % 2 == 1 { 1.0 } else { -1.0 };
                            *joint += side * (sign * 0.05 * lengths[i]);
                        }
                    }
                    Some(termination) => return CoreOutcome::new(iterations, termination),
                    None => {}
                }
            }
            CoreOutcome::new(iterations, Termination::MaxIterations)
        }
    };
}

/// A direction off the root–target line to bend a stuck chain toward: the
/// pole's side when there is a pole, any perpendicular otherwise.
fn side_of_line(problem: &UnitProblem) -> DVec3 {
    let axis = problem.target.normalize_or(DVec3::Y);
    problem
        .pole
        .map(|pole| pole.reject_from_normalized(axis))
        .filter(|offset| offset.length_squared() > 1e-20)
        .map_or_else(|| axis.any_orthonormal_vector(), DVec3::normalize)
}

fabrik_passes!(passes_f32, Vec3A, f32);
fabrik_passes!(passes_f64, DVec3, f64);
