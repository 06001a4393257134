//! Cyclic coordinate descent, kept for comparison with FABRIK.

use glam::{DQuat, DVec3, Vec3, Vec3A};

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
    if problem.limits.is_none() && problem.max_iterations > 0 {
        // The chain comes from `f32` joints whose bones are their lengths
        // only to about 1e-7; rigid turns would keep that error, so the
        // bones are laid out at their lengths first. Each turn then keeps
        // them to rounding, about 1e-16.
        for k in 0..last {
            let dir = dir_or(joints[k + 1] - joints[k], DVec3::Y);
            joints[k + 1] = joints[k] + dir * lengths[k];
        }
        error = end_error(joints, target);
    }
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
            if let Some(limits) = problem.limits {
                let rotation = shortest_arc(to_end.normalize(), to_target.normalize());
                rotate_within(joints, lengths, pivot, rotation, &limits);
                continue;
            }
            turn_about(joints, pivot, to_end, to_target);
        }
        let previous = error;
        error = end_error(joints, target);
        if let Some(termination) = problem.verdict(error, previous) {
            return CoreOutcome::new(iterations, termination);
        }
    }
    CoreOutcome::new(iterations, Termination::MaxIterations)
}

/// CCD's turn about `pivot` on a chain without limits: every joint past it
/// turns rigidly by the shortest arc taking `to_end` onto `to_target`
/// (neither zero).
fn turn_about(joints: &mut [DVec3], pivot: usize, to_end: DVec3, to_target: DVec3) {
    if turn_f64(joints, pivot, to_end, to_target) {
        return;
    }
    // Nearly opposite: the normalised quaternion stays rigid (and turns
    // half a turn about any perpendicular when exactly opposite).
    let origin = joints[pivot];
    let rotation = shortest_arc(to_end.normalize(), to_target.normalize());
    for joint in &mut joints[pivot + 1..] {
        *joint = origin + rotation * (*joint - origin);
    }
}

macro_rules! rodrigues_turn {
    ($name:ident, $vec:ty, $scalar:ty) => {
        /// CCD's turn about `pivot` on a chain without limits, unless
        /// `to_end` and `to_target` (neither zero) are within about 0.1° of
        /// opposite; returns whether it turned.
        ///
        /// This is CCD's whole cost, so the rotation is applied in
        /// Rodrigues' form for two unit vectors, `v·c + w×v + w(w·v)/(1 +
        /// c)` with `c` their cosine and `w` their cross product: one square
        /// root and no quaternion, where normalising both directions, the
        /// arc's quaternion and every rotated bone took ten. It is exact for
        /// tiny angles, like [`shortest_arc`]. Near a half turn it divides
        /// by almost nothing, which would turn the cosine's rounding into a
        /// stretch: those turns are the caller's.
        ///
        /// The form is written with the unnormalised dot `d` and cross `W`
        /// of the two vectors and `s` the product of their lengths (`c =
        /// d/s`, `w = W/s`): `(v·d + W×v)/s + W(W·v)/(s(s + d))`. Both
        /// quotients come from the one reciprocal `r = 1/(s(s + d))`, since
        /// `1/s = r(s + d)`: the turn's serial path holds one square root
        /// and one division, not two divisions.
        #[inline]
        pub(super) fn $name(
            joints: &mut [$vec],
            pivot: usize,
            to_end: $vec,
            to_target: $vec,
        ) -> bool {
            let lengths = (to_end.length_squared() * to_target.length_squared()).sqrt();
            let dot = to_end.dot(to_target);
            if dot < (-1.0 + 1e-6) * lengths {
                return false;
            }
            let origin = joints[pivot];
            let cross = to_end.cross(to_target);
            let r = (lengths * (lengths + dot)).recip();
            let inv_lengths = r * (lengths + dot);
            for joint in &mut joints[pivot + 1..] {
                let v = *joint - origin;
                *joint =
                    origin + (v * dot + cross.cross(v)) * inv_lengths + cross * (cross.dot(v) * r);
            }
            true
        }
    };
}

rodrigues_turn!(turn_f64, DVec3, f64);
rodrigues_turn!(turn_f32, Vec3A, f32);

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

#[cfg(test)]
mod tests {
    use super::*;

    /// After a turn the end lies along the target's direction from the
    /// pivot (to within `aim`), and every joint past the pivot keeps its
    /// distance from it and from its neighbours (the turn is rigid).
    fn assert_rigid_turn(before: &[DVec3], pivot: usize, target: DVec3, aim: f64) {
        let mut joints = before.to_vec();
        let origin = joints[pivot];
        let last = joints.len() - 1;
        let to_end = joints[last] - origin;
        turn_about(&mut joints, pivot, to_end, target - origin);
        let along = (joints[last] - origin).normalize();
        let wanted = (target - origin).normalize();
        assert!(along.distance(wanted) < aim, "{along:?} vs {wanted:?}");
        for k in pivot..last {
            let old = before[k + 1].distance(before[k]);
            let new = joints[k + 1].distance(joints[k]);
            assert!((old - new).abs() < 1e-14, "bone {k}: {old} became {new}");
        }
        assert_eq!(joints[..=pivot], before[..=pivot]);
    }

    #[test]
    fn a_turn_is_rigid_and_points_the_end_at_the_target() {
        let joints = [
            DVec3::ZERO,
            DVec3::new(0.3, 0.2, 0.1),
            DVec3::new(0.5, -0.1, 0.3),
            DVec3::new(0.6, -0.4, 0.2),
        ];
        for (target, aim) in [
            (DVec3::new(0.2, -0.6, -0.3), 1e-12),
            // A tiny turn: the form must not round it away.
            (joints[3] + DVec3::new(1e-9, 0.0, 0.0), 1e-12),
            // Exactly opposite the end, seen from the pivot, and nearly so
            // (a half turn about any perpendicular is within 1e-7 of it).
            (-joints[3], 1e-12),
            (-joints[3] + DVec3::new(0.0, 1e-7, 0.0), 1e-6),
            (-joints[3] + DVec3::new(0.0, 0.0, 1e-3), 1e-12),
        ] {
            for pivot in 0..3 {
                assert_rigid_turn(&joints, pivot, target, aim);
            }
        }
    }
}
