//! Pole targets: bending inner joints toward a hint point (spider thesis §4.1).

use glam::{DVec3, Vec3A};

use super::limits::Limits;
use super::unit_frame::{DIRECTION_EPSILON_SQ, dir_or};

/// Swings every inner joint about the line through its two neighbours so that
/// it lies on the side of that line facing `pole`.
///
/// The joint keeps its distance to both neighbours (it turns on a circle about
/// their axis), so bone lengths and the end effector are untouched. Joints on
/// their neighbours' axis (a straight chain) and poles on that axis give no
/// side to turn toward and are left as they are.
pub(super) fn bend_toward_pole(joints: &mut [DVec3], pole: DVec3) {
    for i in 1..joints.len().saturating_sub(1) {
        bend_joint(joints, i, pole);
    }
}

/// [`bend_toward_pole`] on a chain with joint limits: each joint is bent only
/// when the bend leaves every joint it affects (its own and its neighbours')
/// no further outside its limits than before, so the pole never costs a limit.
pub(super) fn bend_toward_pole_within(joints: &mut [DVec3], pole: DVec3, limits: &Limits<'_>) {
    for i in 1..joints.len().saturating_sub(1) {
        let before = joints[i];
        let worst_before = local_violation(joints, i, limits);
        bend_joint(joints, i, pole);
        if local_violation(joints, i, limits) > worst_before + 1e-12 {
            joints[i] = before;
        }
    }
}

/// The largest limit violation at the joints moving joint `i` can affect:
/// `i - 1`, `i` and `i + 1` (their bend angles, and the hinge frame of
/// `i + 1`, which follows bone `i`).
fn local_violation(joints: &[DVec3], i: usize, limits: &Limits<'_>) -> f64 {
    let last = joints.len() - 1;
    let mut worst: f64 = 0.0;
    for k in i.saturating_sub(1).max(1)..=(i + 1).min(last - 1) {
        let parent = dir_or(joints[k] - joints[k - 1], DVec3::Y);
        let child = dir_or(joints[k + 1] - joints[k], parent);
        worst = worst.max(limits.violation(k - 1, parent, child));
    }
    worst
}

macro_rules! bend_joint {
    ($name:ident, $vec:ty, $scalar:ty) => {
        /// Swings joint `i` about the line through its neighbours toward
        /// `pole`. Offsets whose squared length is not above `epsilon_sq`
        /// have no direction to go by.
        #[inline]
        pub(super) fn $name(joints: &mut [$vec], i: usize, pole: $vec, epsilon_sq: $scalar) {
            let before = joints[i - 1];
            let axis = joints[i + 1] - before;
            let axis_sq = axis.length_squared();
            if axis_sq <= epsilon_sq {
                return;
            }
            // Offsets from the axis without normalising it: one division
            // here and one square root below, where unit vectors and two
            // lengths took three roots.
            let inv_axis_sq = axis_sq.recip();
            let joint_rel = joints[i] - before;
            let along = axis * (joint_rel.dot(axis) * inv_axis_sq);
            let joint_off = joint_rel - along;
            let pole_rel = pole - before;
            let pole_off = pole_rel - axis * (pole_rel.dot(axis) * inv_axis_sq);
            let (joint_sq, pole_sq) = (joint_off.length_squared(), pole_off.length_squared());
            if joint_sq <= epsilon_sq || pole_sq <= epsilon_sq {
                return;
            }
            // Same height along the axis, same radius about it, pole's side.
            joints[i] = before + along + pole_off * (joint_sq / pole_sq).sqrt();
        }
    };
}

bend_joint!(bend_joint_f64, DVec3, f64);
bend_joint!(bend_joint_f32, Vec3A, f32);

/// Swings joint `i` about the line through its neighbours toward `pole`.
fn bend_joint(joints: &mut [DVec3], i: usize, pole: DVec3) {
    bend_joint_f64(joints, i, pole, DIRECTION_EPSILON_SQ);
}

/// [`bend_toward_pole`] in `f32`, for a chain solved relative to its root
/// (see `tracking.rs`), with the smallest usable squared offset given.
pub(super) fn bend_toward_pole_f32(joints: &mut [Vec3A], pole: Vec3A, epsilon_sq: f32) {
    for i in 1..joints.len().saturating_sub(1) {
        bend_joint_f32(joints, i, pole, epsilon_sq);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bends_knee_toward_pole_keeping_lengths() {
        let mut joints = [
            DVec3::ZERO,
            DVec3::new(1.0, -1.0, 0.0),
            DVec3::new(2.0, 0.0, 0.0),
        ];
        bend_toward_pole(&mut joints, DVec3::new(1.0, 5.0, 0.0));
        assert!((joints[1] - DVec3::new(1.0, 1.0, 0.0)).length() < 1e-12);
        assert_eq!(joints[2], DVec3::new(2.0, 0.0, 0.0));
    }

    #[test]
    fn pole_on_axis_or_straight_chain_is_left_alone() {
        let straight = [DVec3::ZERO, DVec3::X, DVec3::X * 2.0];
        let mut joints = straight;
        bend_toward_pole(&mut joints, DVec3::Y);
        assert_eq!(joints, straight);
        let bent = [DVec3::ZERO, DVec3::new(1.0, 1.0, 0.0), DVec3::X * 2.0];
        let mut joints = bent;
        bend_toward_pole(&mut joints, DVec3::X * 7.0);
        assert_eq!(joints, bent);
    }
}
