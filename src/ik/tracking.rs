//! The everyday solve made cheap: a leg following its target from the pose
//! it was left in, by FABRIK or CCD.
//!
//! In a walk nearly every solve is of a chain without joint limits whose
//! target moved a few millimetres since the pose it starts from: FABRIK
//! reaches it in two or three passes, CCD in about six sweeps. The general
//! solvers pay a fixed toll on every solve for what they guarantee in the
//! rare ones: the move into the `f64` frame scaled to the reach and back
//! (`unit_frame.rs`), FABRIK's `f32` staging buffers and its progress watch
//! with its nudge, restarts and leap (`fabrik.rs`). Here the same passes (or sweeps) and the same pole bend
//! run in `f32` relative to the root, with no watch. A solve that has not
//! reached its target within its budget, that stops improving, or whose
//! end lands out of tolerance once written back leaves the chain untouched
//! and says so, for the general solver to do from the start: it returns the
//! same kind of pose, so the two are one solver to the caller.

use glam::{Vec3, Vec3A};

use super::ccd::turn_f32;
use super::fabrik::{F32_RESOLUTION, pass_f32};
use super::pole::bend_toward_pole_f32;
use super::unit_frame::{aim_within, write_back_rounding};
use super::{Chain, JointLimit, SolveParams, SolveReport, SolverKind, Termination};

/// FABRIK passes tried before the solve is handed to the general solver:
/// its progress watch first acts after this many (`SLOW_WINDOW` in
/// `fabrik.rs`), so up to here the two run the same passes.
pub const TRACKING_PASSES: u32 = 8;

/// CCD sweeps tried before the solve is handed to the general solver. CCD
/// has no progress watch; a leg's tracking solve takes six sweeps on
/// average in a walk, nine on the IK bench's tracking cases, where 16
/// answered 84% of them and 32 answer 97% (the rest cost both solves).
/// Each `f32` turn rounds the bones past its pivot a little; they are laid
/// out at their lengths again at the end.
pub const TRACKING_SWEEPS: u32 = 32;

/// Most joints a chain solved here may have (its pose lives on the stack).
pub(super) const MAX_JOINTS: usize = 8;

/// Solves `chain` for `target` as the general solver of `kind` would, for
/// FABRIK and CCD, when the target is within reach, the chain has no joint
/// limits and at most eight joints, and the solver reaches the target
/// within [`TRACKING_PASSES`] passes (FABRIK) or [`TRACKING_SWEEPS`] sweeps
/// (CCD) without stalling; `None`, with the chain untouched, otherwise.
/// The pole, if given, bends the inner joints as in the general solver.
pub fn solve_tracking(
    kind: SolverKind,
    chain: &mut Chain,
    target: Vec3,
    params: &SolveParams,
) -> Option<SolveReport> {
    let mut tracked = Tracked::new(kind, chain, target, params)?;
    let iterations = tracked.iterate()?;
    tracked.finish(chain, iterations)
}

/// One chain's tracking solve, set up: its pose relative to its root, and
/// what its passes and its finish go by.
#[derive(Debug, Clone, Copy)]
pub(super) struct Tracked {
    /// FABRIK or CCD.
    pub kind: SolverKind,
    /// The chain's root, world frame.
    pub root: Vec3,
    /// The target, world frame.
    pub target: Vec3,
    /// The target relative to the root.
    pub to_target: Vec3A,
    /// The joints relative to the root; the first `joint_count` are used.
    pub pose: [Vec3A; MAX_JOINTS],
    pub joint_count: usize,
    /// Bone lengths; the first `joint_count - 1` are used.
    pub lengths: [f32; MAX_JOINTS],
    /// The error the passes aim for: the tolerance less the write-back's
    /// rounding.
    pub aim: f32,
    /// The least improvement a pass must make.
    pub floor: f32,
    /// Passes (FABRIK) or sweeps (CCD) allowed.
    pub budget: u32,
    /// Squared length below which an offset has no direction.
    pub epsilon_sq: f32,
    /// The pole relative to the root, if one was given and is finite.
    pub pole: Option<Vec3A>,
    /// The caller's tolerance, which the written-back end must meet.
    pub tolerance: f32,
}

impl Tracked {
    /// The solve of `chain` for `target`, if it is one the tracking solve
    /// takes (see [`solve_tracking`]).
    pub fn new(
        kind: SolverKind,
        chain: &Chain,
        target: Vec3,
        params: &SolveParams,
    ) -> Option<Tracked> {
        let budget = match kind {
            SolverKind::Fabrik => TRACKING_PASSES,
            SolverKind::Ccd => TRACKING_SWEEPS,
            _ => return None,
        };
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
        // Out of reach FABRIK straightens the chain in one pass; in the
        // hollow round the root of a chain with one long bone it must
        // iterate to its best miss. Both are the general solver's.
        if !(distance < reach && distance > chain.inner_reach()) {
            return None;
        }
        let mut pose = [Vec3A::ZERO; MAX_JOINTS];
        for (p, joint) in pose.iter_mut().zip(chain.joints()) {
            *p = Vec3A::from(*joint - root);
        }
        let mut lengths = [0.0; MAX_JOINTS];
        lengths[..joint_count - 1].copy_from_slice(chain.bone_lengths());
        Some(Tracked {
            kind,
            root,
            target,
            to_target,
            pose,
            joint_count,
            lengths,
            aim: aim_within(
                params.tolerance,
                write_back_rounding(target, params.tolerance),
            ) as f32,
            // The general solvers' floor for progress in `f32`, in metres.
            floor: f32::EPSILON * reach,
            budget: params.max_iterations.min(budget),
            // The general solvers' threshold for a direction (1e-40 of the
            // reach squared) is below what `f32` holds; a millionth of a
            // millimetre on a metre-long leg is as far below anything that
            // shows.
            epsilon_sq: (1e-18 * reach * reach).max(f32::MIN_POSITIVE),
            pole: match params.pole {
                Some(pole) if pole.is_finite() => Some(Vec3A::from(pole - root)),
                _ => None,
            },
            tolerance: params.tolerance,
        })
    }

    /// The passes (or sweeps) until the target is within the aim: how many
    /// it took, or `None` when the budget ran out or a pass stopped
    /// improving (what frees a stalled chain, a nudge or restarts, is the
    /// general solver's).
    pub fn iterate(&mut self) -> Option<u32> {
        let error = self.pose[self.joint_count - 1].distance(self.to_target);
        self.iterate_on(0, error)
    }

    /// [`Tracked::iterate`] from a pose `done` passes (or sweeps) along,
    /// whose end is `error` from the target: how many it took in all.
    pub fn iterate_on(&mut self, done: u32, error: f32) -> Option<u32> {
        let last = self.joint_count - 1;
        let pose = &mut self.pose[..self.joint_count];
        let lengths = &self.lengths[..last];
        let mut error = error;
        let mut iterations = done;
        let mut fallback = self.to_target;
        while error > self.aim {
            if iterations == self.budget {
                return None;
            }
            iterations += 1;
            if self.kind == SolverKind::Fabrik {
                pass_f32(pose, lengths, self.to_target, &mut fallback);
            } else if !sweep(pose, self.to_target, self.epsilon_sq) {
                return None;
            }
            let previous = error;
            error = pose[last].distance(self.to_target);
            if error > self.aim && previous - error <= self.floor {
                return None;
            }
        }
        Some(iterations)
    }

    /// Bends the pose toward the pole and writes it into `chain`, with a
    /// report of `iterations`; `None`, with the chain untouched, when the
    /// end written back is out of tolerance.
    pub fn finish(&mut self, chain: &mut Chain, iterations: u32) -> Option<SolveReport> {
        let last = self.joint_count - 1;
        let pose = &mut self.pose[..self.joint_count];
        if self.kind == SolverKind::Ccd {
            // Turns keep the bones at the lengths they start with, but each
            // rounds them a little: a rigid turn in `f64` kept them to
            // 1e-16, and the sweeps here left a leg's bones a micrometre
            // out. Laid out at their lengths again, the end moves by as
            // much; if that takes it out of the aim, the general solver
            // does it.
            lay_out_bones(pose, &self.lengths[..last]);
            let laid_out = pose[last].distance(self.to_target);
            if laid_out.is_nan() || laid_out > self.aim {
                return None;
            }
        }
        if let Some(pole) = self.pole {
            bend_toward_pole_f32(pose, pole, self.epsilon_sq);
        }
        let end = self.root + Vec3::from(pose[last]);
        let end_error = end.distance(self.target);
        if end_error.is_nan() || end_error > self.tolerance {
            return None;
        }
        let joints = chain.joints_mut();
        for (joint, p) in joints.iter_mut().zip(pose.iter()).skip(1) {
            *joint = self.root + Vec3::from(*p);
        }
        Some(SolveReport {
            iterations,
            error: end_error,
            reached: true,
            termination: Termination::Reached,
        })
    }
}

/// Puts every joint at its bone's length from the one before, keeping the
/// bones' directions; the poses laid out here come from turns of bones at
/// their lengths, so none has collapsed.
fn lay_out_bones(pose: &mut [Vec3A], lengths: &[f32]) {
    for (k, length) in lengths.iter().enumerate() {
        let bone = pose[k + 1] - pose[k];
        pose[k + 1] = pose[k] + bone * (*length / bone.length());
    }
}

/// One CCD sweep, from the joint nearest the end to the root; `false` when
/// a turn would be within about 0.1° of a half turn (the general CCD's,
/// which turns those by a quaternion).
fn sweep(pose: &mut [Vec3A], target: Vec3A, epsilon_sq: f32) -> bool {
    let last = pose.len() - 1;
    for pivot in (0..last).rev() {
        let to_end = pose[last] - pose[pivot];
        let to_target = target - pose[pivot];
        if to_end.length_squared() <= epsilon_sq || to_target.length_squared() <= epsilon_sq {
            continue;
        }
        if !turn_f32(pose, pivot, to_end, to_target) {
            return false;
        }
    }
    true
}
