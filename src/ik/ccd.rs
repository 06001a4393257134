//! Cyclic coordinate descent, kept for comparison with FABRIK.

use glam::{DQuat, DVec3, Vec3};

use super::limits::Limits;
use super::unit_frame::{
    CoreOutcome, UnitProblem, dir_or, end_error, has_direction, solve_in_unit_frame,
};
use super::{Chain, SolveParams, SolveReport, Solver, SolverKind, Termination};

/// Cyclic coordinate descent: from the joint nearest the end to the root,
/// rotate the rest of the chain about each joint so the end points at the target.
///
/// Rotations use an exact shortest arc rather than glam's `from_rotation_arc`,
/// which snaps small angles to identity and would stall the last, finest sweeps.
#[derive(Debug, Clone, Default)]
pub struct Ccd {
    work: Vec<DVec3>,
}

impl Solver for Ccd {
    fn kind(&self) -> SolverKind {
        SolverKind::Ccd
    }

    fn solve(&mut self, chain: &mut Chain, target: Vec3, params: &SolveParams) -> SolveReport {
        solve_in_unit_frame(chain, target, params, &mut self.work, sweep_until_done)
    }
}

fn sweep_until_done(joints: &mut [DVec3], lengths: &[f64], problem: &UnitProblem) -> CoreOutcome {
    let target = problem.target;
    let last = joints.len() - 1;
    let mut error = end_error(joints, target);
    if error <= problem.tolerance {
        return CoreOutcome::new(0, Termination::Reached);
    }
    let mut iterations = 0;
    if let Some(limits) = problem.limits {
        if problem.max_iterations == 0 {
            return CoreOutcome::new(0, Termination::MaxIterations);
        }
        // Sweeps keep a valid pose valid; start from one.
        limits.enforce(joints, lengths, 1);
        error = end_error(joints, target);
    }
    while iterations < problem.max_iterations {
        iterations += 1;
        for pivot in (0..last).rev() {
            let to_end = joints[last] - joints[pivot];
            let to_target = target - joints[pivot];
            if !(has_direction(to_end) && has_direction(to_target)) {
                continue;
            }
            let rotation = shortest_arc(to_end.normalize(), to_target.normalize());
            if let Some(limits) = problem.limits {
                rotate_within(joints, lengths, pivot, rotation, &limits);
                continue;
            }
            // Rebuild the rotated bones from their lengths so repeated
            // rotations cannot make them drift.
            let mut previous_old = joints[pivot];
            for k in pivot..last {
                let bone = joints[k + 1] - previous_old;
                previous_old = joints[k + 1];
                let dir = dir_or(rotation * bone, DVec3::Y);
                joints[k + 1] = joints[k] + dir * lengths[k];
            }
        }
        let previous = error;
        error = end_error(joints, target);
        if let Some(termination) = problem.verdict(error, previous) {
            return CoreOutcome::new(iterations, termination);
        }
    }
    CoreOutcome::new(iterations, Termination::MaxIterations)
}

/// CCD's turn about `pivot` on a chain with joint limits: bone `pivot` is
/// turned as far toward the rotated direction as its joint's limit allows,
/// then every later bone is turned by the same rotation and projected into
/// its own limit (a hinge's axis follows its parent bone, so a rigid turn
/// alone could carry a later hinge out of its plane).
fn rotate_within(
    joints: &mut [DVec3],
    lengths: &[f64],
    pivot: usize,
    rotation: DQuat,
    limits: &Limits<'_>,
) {
    let last = joints.len() - 1;
    let mut old = joints[pivot];
    for k in pivot..last {
        let bone = joints[k + 1] - old;
        old = joints[k + 1];
        let mut dir = dir_or(rotation * bone, DVec3::Y);
        if k > 0 {
            let parent = dir_or(joints[k] - joints[k - 1], DVec3::Y);
            dir = limits.clamp(k - 1, parent, dir);
        }
        joints[k + 1] = joints[k] + dir * lengths[k];
    }
}

/// Rotation taking unit `from` onto unit `to` by the shortest arc, exact for
/// tiny angles; opposite vectors turn half a turn about any perpendicular.
pub(super) fn shortest_arc(from: DVec3, to: DVec3) -> DQuat {
    let cos = from.dot(to);
    if cos < -1.0 + 1e-12 {
        return DQuat::from_axis_angle(from.any_orthonormal_vector(), std::f64::consts::PI);
    }
    // (from × to, 1 + cos) is the half-angle quaternion scaled by 2cos(θ/2);
    // normalising it keeps small angles that acos-based forms round away.
    let axis = from.cross(to);
    DQuat::from_xyzw(axis.x, axis.y, axis.z, 1.0 + cos).normalize()
}
