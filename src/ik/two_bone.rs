//! Analytic two-bone IK by the law of cosines.

use glam::{DVec3, Vec3};

use super::unit_frame::{CoreOutcome, dir_or, solve_in_unit_frame};
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
#[derive(Debug, Clone, Default)]
pub struct TwoBone {
    work: Vec<DVec3>,
}

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
        if chain.bone_count() != 2 {
            return SolveReport {
                iterations: 0,
                error: (chain.end() - target).length(),
                reached: false,
                termination: Termination::UnsupportedChain,
            };
        }
        solve_in_unit_frame(
            chain,
            target,
            params,
            &mut self.work,
            |joints, lengths, problem| {
                if problem.max_iterations == 0 {
                    return CoreOutcome::new(0, Termination::MaxIterations);
                }
                let unreachable =
                    place_two_bones(joints, lengths[0], lengths[1], problem.target, problem.pole);
                let termination = if unreachable {
                    Termination::Unreachable
                } else {
                    Termination::Reached
                };
                CoreOutcome::new(1, termination)
            },
        )
    }
}

/// Places joints 1 and 2 for a target, root at the origin; returns whether the
/// target was out of reach (too far, or too close for unequal bones).
fn place_two_bones(
    joints: &mut [DVec3],
    upper: f64,
    lower: f64,
    target: DVec3,
    pole: Option<DVec3>,
) -> bool {
    let distance = target.length();
    let current_dir = dir_or(joints[2], dir_or(joints[1], DVec3::Y));
    let toward = dir_or(target, current_dir);
    let max_reach = (upper + lower) * (1.0 - EXTENSION_MARGIN);
    let min_reach = (upper - lower).abs();
    // Never zero: the law of cosines divides by it (equal bones, target at the root).
    let clamped = distance.clamp(min_reach, max_reach).max(1e-9);

    // Bend direction: the pole's offset from the root–target line; failing
    // that, the current knee's; failing that, any perpendicular.
    let bend = [pole, Some(joints[1])]
        .into_iter()
        .flatten()
        .map(|hint| hint.reject_from_normalized(toward))
        .find(|offset| offset.length_squared() > 1e-20)
        .map_or_else(|| toward.any_orthonormal_vector(), DVec3::normalize);

    let cos_upper = ((upper * upper + clamped * clamped - lower * lower) / (2.0 * upper * clamped))
        .clamp(-1.0, 1.0);
    let sin_upper = (1.0 - cos_upper * cos_upper).max(0.0).sqrt();
    let knee = (toward * cos_upper + bend * sin_upper) * upper;
    let foot_goal = toward * clamped;
    joints[1] = knee;
    // Re-derive the foot from the knee so the lower bone is exactly its length
    // even after rounding.
    joints[2] = knee + dir_or(foot_goal - knee, toward) * lower;
    distance > max_reach || distance < min_reach
}
