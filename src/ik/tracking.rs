//! FABRIK's everyday case made cheap: a leg following its target from the
//! pose it was left in.
//!
//! In a walk nearly every solve is of a chain without joint limits whose
//! target moved a few millimetres since the pose it starts from, and FABRIK
//! reaches it in two or three passes. The general solver pays a fixed toll on
//! every solve for what it guarantees in the rare ones: the move into the
//! `f64` frame scaled to the reach and back (`unit_frame.rs`), the `f32`
//! staging buffers, and the progress watch with its nudge, restarts and leap
//! (`fabrik.rs`). Here the same passes and the same pole bend run in `f32`
//! relative to the root, with no watch. A solve that has not reached its
//! target within [`TRACKING_PASSES`] passes, that stops improving, or whose
//! end lands out of tolerance once written back leaves the chain untouched
//! and says so, for the general solver to do from the start: it returns the
//! same kind of pose, so the two are one solver to the caller.

use glam::{Vec3, Vec3A};

use super::fabrik::{F32_RESOLUTION, pass_f32};
use super::pole::bend_toward_pole_f32;
use super::unit_frame::{aim_within, write_back_rounding};
use super::{Chain, JointLimit, SolveParams, SolveReport, Termination};

/// Passes tried before the solve is handed to the general solver: its
/// progress watch first acts after this many (`SLOW_WINDOW` in `fabrik.rs`),
/// so up to here the two run the same passes.
pub const TRACKING_PASSES: u32 = 8;

/// Most joints a chain solved here may have (its pose lives on the stack).
const MAX_JOINTS: usize = 8;

/// Solves `chain` for `target` as [`super::Fabrik`] would, when the target is
/// within reach, the chain has no joint limits and at most eight joints, and
/// FABRIK's passes reach the target within [`TRACKING_PASSES`] without
/// stalling; `None`, with the chain untouched, otherwise. The pole, if
/// given, bends the inner joints as in the general solver.
pub fn solve_tracking(
    chain: &mut Chain,
    target: Vec3,
    params: &SolveParams,
) -> Option<SolveReport> {
    let joint_count = chain.joints().len();
    let reach = chain.reach();
    if joint_count > MAX_JOINTS
        || params.max_iterations == 0
        || params.end_direction.is_some()
        || !target.is_finite()
        || params.tolerance.is_nan()
        || f64::from(params.tolerance) < F32_RESOLUTION * f64::from(reach)
        || chain.limits().iter().any(|l| *l != JointLimit::Free)
    {
        return None;
    }
    let root = chain.root();
    let to_target = Vec3A::from(target - root);
    let distance = to_target.length();
    // Out of reach FABRIK straightens the chain in one pass; in the hollow
    // round the root of a chain with one long bone it must iterate to its
    // best miss. Both are the general solver's.
    if !(distance < reach && distance > chain.inner_reach()) {
        return None;
    }
    let pole = match params.pole {
        Some(pole) if pole.is_finite() => Some(Vec3A::from(pole - root)),
        _ => None,
    };

    let mut pose = [Vec3A::ZERO; MAX_JOINTS];
    let pose = &mut pose[..joint_count];
    for (p, joint) in pose.iter_mut().zip(chain.joints()) {
        *p = Vec3A::from(*joint - root);
    }
    let lengths = chain.bone_lengths();
    let aim = aim_within(
        params.tolerance,
        write_back_rounding(target, params.tolerance),
    ) as f32;
    // The general solver's floor for progress in `f32`, in metres.
    let floor = f32::EPSILON * reach;
    let last = joint_count - 1;
    let passes_allowed = params.max_iterations.min(TRACKING_PASSES);
    let mut error = pose[last].distance(to_target);
    let mut passes = 0;
    let mut fallback = to_target;
    while error > aim {
        if passes == passes_allowed {
            return None;
        }
        passes += 1;
        pass_f32(pose, lengths, to_target, &mut fallback);
        let previous = error;
        error = pose[last].distance(to_target);
        // Not reached and not improving: the nudge and the restarts that
        // free a stalled chain are the general solver's.
        if error > aim && previous - error <= floor {
            return None;
        }
    }
    if let Some(pole) = pole {
        // The general solver's threshold (1e-40 of the reach squared) is
        // below what `f32` holds; a millionth of a millimetre on a
        // metre-long leg is as far below any visible bend.
        let epsilon_sq = (1e-18 * reach * reach).max(f32::MIN_POSITIVE);
        bend_toward_pole_f32(pose, pole, epsilon_sq);
    }
    let end = root + Vec3::from(pose[last]);
    let end_error = end.distance(target);
    if end_error.is_nan() || end_error > params.tolerance {
        return None;
    }
    let joints = chain.joints_mut();
    for (joint, p) in joints.iter_mut().zip(pose.iter()).skip(1) {
        *joint = root + Vec3::from(*p);
    }
    Some(SolveReport {
        iterations: passes,
        error: end_error,
        reached: true,
        termination: Termination::Reached,
    })
}
