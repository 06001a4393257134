//! Analytic two-bone IK by the law of cosines.

use glam::{DVec3, Vec3};

use super::unit_frame::dir_or;
use super::{Chain, IkError, SolveParams, SolveReport, Solver, SolverKind, Termination};

/// How far short of full extension the analytic solver stops, as a fraction of
/// the reach. A fully straight limb has no bend plane, so the next solve could
/// not tell which way the knee goes; stopping just short keeps the plane.
pub const EXTENSION_MARGIN: f64 = 1e-5;

/// Analytic solve for chains of exactly two bones (hip–knee–foot).
///
/// The middle joint is placed in the plane through root, target and pole (or,
/// without a pole, the current middle joint), at the angle the law of cosines
/// gives. Exact in one iteration. Chains that are not two bones are refused:
/// [`TwoBone::try_solve`] returns an error, and the [`Solver`] impl leaves the
/// chain untouched and reports [`Termination::UnsupportedChain`].
///
/// Being closed-form it needs none of the iterative solvers' unit frame: it
/// works in `f64` relative to the root, where squares of any `f32` length are
/// finite, so it is exact at every scale.
#[derive(Debug, Clone, Copy, Default)]
pub struct TwoBone;

impl TwoBone {
    /// Solves, or says why this chain cannot be solved analytically.
    pub fn try_solve(
        &mut self,
        chain: &mut Chain,
        target: Vec3,
        params: &SolveParams,
    ) -> Result<SolveReport, IkError> {
        self.supports(chain)?;
        Ok(self.solve(chain, target, params))
    }
}

impl Solver for TwoBone {
    fn kind(&self) -> SolverKind {
        SolverKind::TwoBone
    }

    fn supports(&self, chain: &Chain) -> Result<(), IkError> {
        if chain.bone_count() == 2 {
            Ok(())
        } else {
            Err(IkError::UnsupportedChain {
                solver: SolverKind::TwoBone,
                expected: 2,
                actual: chain.bone_count(),
            })
        }
    }

    fn solve(&mut self, chain: &mut Chain, target: Vec3, params: &SolveParams) -> SolveReport {
        let current_error = (chain.end() - target).length();
        let refuse = |termination| SolveReport {
            iterations: 0,
            error: current_error,
            reached: current_error <= params.tolerance,
            termination,
        };
        if chain.bone_count() != 2 {
            return refuse(Termination::UnsupportedChain);
        }
        if !target.is_finite() {
            return SolveReport {
                error: f32::INFINITY,
                ..refuse(Termination::InvalidTarget)
            };
        }
        if params.max_iterations == 0 {
            return refuse(Termination::MaxIterations);
        }
        let root = chain.root();
        let origin = root.as_dvec3();
        let lengths = chain.bone_lengths();
        let (upper, lower) = (f64::from(lengths[0]), f64::from(lengths[1]));
        let joints = chain.joints_mut();
        let knee_now = joints[1].as_dvec3() - origin;
        let foot_now = joints[2].as_dvec3() - origin;
        let pole = params
            .pole
            .filter(|p| p.is_finite())
            .map(|p| p.as_dvec3() - origin);
        let placed = place_two_bones(
            upper,
            lower,
            target.as_dvec3() - origin,
            [pole, Some(knee_now)],
            foot_now,
        );
        joints[1] = (origin + placed.knee).as_vec3();
        joints[2] = (origin + placed.foot).as_vec3();
        let error = (joints[2] - target).length();
        let reached = error <= params.tolerance;
        let termination = if reached {
            Termination::Reached
        } else if placed.out_of_reach {
            Termination::Unreachable
        } else {
            Termination::PrecisionLimit
        };
        SolveReport {
            iterations: 1,
            error,
            reached,
            termination,
        }
    }
}

struct Placement {
    knee: DVec3,
    foot: DVec3,
    /// The target was too far, or too close for unequal bones.
    out_of_reach: bool,
}

/// Places knee and foot (root at the origin) for `target`, bending toward the
/// first usable hint.
fn place_two_bones(
    upper: f64,
    lower: f64,
    target: DVec3,
    bend_hints: [Option<DVec3>; 2],
    foot_now: DVec3,
) -> Placement {
    let distance = target.length();
    let toward = dir_or(target, dir_or(foot_now, DVec3::Y));
    let max_reach = (upper + lower) * (1.0 - EXTENSION_MARGIN);
    let min_reach = (upper - lower).abs();
    // Never zero: the law of cosines divides by it (equal bones, target at the root).
    let clamped = distance
        .clamp(min_reach, max_reach)
        .max(1e-12 * (upper + lower));

    // Bend direction: the pole's offset from the root–target line; failing
    // that, the current knee's; failing that, any perpendicular.
    let bend = bend_hints
        .into_iter()
        .flatten()
        .map(|hint| hint.reject_from_normalized(toward))
        .find(|offset| offset.length_squared() > 1e-20 * upper * upper)
        .map_or_else(|| toward.any_orthonormal_vector(), DVec3::normalize);

    let cos_upper = ((upper * upper + clamped * clamped - lower * lower) / (2.0 * upper * clamped))
        .clamp(-1.0, 1.0);
    let sin_upper = (1.0 - cos_upper * cos_upper).max(0.0).sqrt();
    let knee = (toward * cos_upper + bend * sin_upper) * upper;
    // Derive the foot from the knee so the lower bone is exactly its length.
    let foot = knee + dir_or(toward * clamped - knee, toward) * lower;
    Placement {
        knee,
        foot,
        out_of_reach: distance > max_reach || distance < min_reach,
    }
}
