//! FABRIK: forward and backward reaching inverse kinematics (the report's Algorithm 1).

use glam::{DVec3, Vec3};

use super::pole::bend_toward_pole;
use super::unit_frame::{
    CoreOutcome, UnitProblem, dir_or, end_error, solve_in_unit_frame, straighten_toward,
};
use super::{Chain, SolveParams, SolveReport, Solver, SolverKind, Termination};

/// Forward and backward reaching IK.
///
/// Each iteration pins the end to the target and walks back to the root
/// placing every joint on the line to its neighbour at bone length, then pins
/// the root and walks forward again. An unreachable target is answered in one
/// pass by straightening the chain toward it. With a pole, every inner joint is
/// then swung about the line through its neighbours toward the pole, which
/// moves neither the end nor any bone length.
#[derive(Debug, Clone, Default)]
pub struct Fabrik {
    work: Vec<DVec3>,
}

impl Solver for Fabrik {
    fn kind(&self) -> SolverKind {
        SolverKind::Fabrik
    }

    fn solve(&mut self, chain: &mut Chain, target: Vec3, params: &SolveParams) -> SolveReport {
        solve_in_unit_frame(
            chain,
            target,
            params,
            &mut self.work,
            |joints, lengths, problem| {
                let outcome = if problem.max_iterations == 0 {
                    CoreOutcome::new(0, Termination::MaxIterations)
                } else if problem.target_unreachable() {
                    straighten_toward(joints, lengths, problem.target);
                    CoreOutcome::new(1, Termination::Unreachable)
                } else {
                    reach_iteratively(joints, lengths, problem)
                };
                if let Some(pole) = problem.pole {
                    bend_toward_pole(joints, pole);
                }
                outcome
            },
        )
    }
}

fn reach_iteratively(joints: &mut [DVec3], lengths: &[f64], problem: &UnitProblem) -> CoreOutcome {
    let target = problem.target;
    let last = joints.len() - 1;
    let mut error = end_error(joints, target);
    if error <= problem.tolerance {
        return CoreOutcome::new(0, Termination::Reached);
    }
    // When two joints coincide a bone has no direction; carrying on in the
    // direction of the bone just placed keeps the chain finite and connected.
    let mut fallback = dir_or(target, DVec3::Y);
    let mut iterations = 0;
    while iterations < problem.max_iterations {
        iterations += 1;
        // Forward: end on the target, each joint pulled toward its successor.
        joints[last] = target;
        for i in (1..last).rev() {
            let dir = dir_or(joints[i] - joints[i + 1], fallback);
            fallback = dir;
            joints[i] = joints[i + 1] + dir * lengths[i];
        }
        // Backward: root back in place, each joint pulled toward its predecessor.
        for i in 0..last {
            let dir = dir_or(joints[i + 1] - joints[i], -fallback);
            fallback = -dir;
            joints[i + 1] = joints[i] + dir * lengths[i];
        }
        let previous = error;
        error = end_error(joints, target);
        if let Some(termination) = problem.verdict(error, previous) {
            return CoreOutcome::new(iterations, termination);
        }
    }
    CoreOutcome::new(iterations, Termination::MaxIterations)
}
