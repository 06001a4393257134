//! Analytic two-bone IK by the law of cosines.

use glam::{Vec3, Vec3A};

use super::{Chain, IkError, SolveParams, SolveReport, Solver, SolverKind, Termination};

/// How far short of full extension the analytic solver stops, as a fraction of
/// the reach. A fully straight limb has no bend plane, so the next solve could
/// not tell which way the knee goes; stopping just short keeps the plane.
pub const EXTENSION_MARGIN: f32 = 1e-5;

/// Analytic solve for chains of exactly two bones (hip–knee–foot).
///
/// The middle joint is placed in the plane through root, target and pole (or,
/// without a pole, the current middle joint), at the angle the law of cosines
/// gives. Exact in one iteration. Chains that are not two bones are refused:
/// [`TwoBone::try_solve`] returns an error, and the [`Solver`] impl leaves the
/// chain untouched and reports [`Termination::UnsupportedChain`].
///
/// Being closed-form it needs none of the iterative solvers' machinery: it
/// works relative to the root in units of the reach, where squares stay
/// finite at every scale.
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
        let refuse = |chain: &Chain, termination| {
            let error = if target.is_finite() {
                (chain.end() - target).length()
            } else {
                f32::INFINITY
            };
            SolveReport {
                iterations: 0,
                error,
                reached: error <= params.tolerance,
                termination,
            }
        };
        if chain.bone_count() != 2 {
            return refuse(chain, Termination::UnsupportedChain);
        }
        if !target.is_finite() {
            return refuse(chain, Termination::InvalidTarget);
        }
        if params.max_iterations == 0 {
            return refuse(chain, Termination::MaxIterations);
        }
        // Relative to the root and in units of the reach: squares stay finite
        // at any scale, and f32 resolves a solve exact to ~1e-7 of the reach.
        let root = chain.root();
        let reach = chain.reach();
        let inv = reach.recip();
        let unit = |p: Vec3| Vec3A::from((p - root) * inv);
        let lengths = chain.bone_lengths();
        let (upper, lower) = (lengths[0] * inv, lengths[1] * inv);
        let joints = chain.joints_mut();
        let (knee_now, foot_now) = (unit(joints[1]), unit(joints[2]));
        let pole = params.pole.filter(|p| p.is_finite()).map(unit);
        let placed = place_two_bones(upper, lower, unit(target), [pole, Some(knee_now)], foot_now);
        joints[1] = root + Vec3::from(placed.knee) * reach;
        joints[2] = root + Vec3::from(placed.foot) * reach;
        // The law of cosines knows no joint limits: a limited knee is turned
        // back into its range, and the solve says it stopped short.
        let limited = chain.project_into_limits();
        let error = (chain.end() - target).length();
        let reached = error <= params.tolerance;
        let termination = if reached {
            Termination::Reached
        } else if limited {
            Termination::Stalled
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
    knee: Vec3A,
    foot: Vec3A,
    /// The target was too far, or too close for unequal bones.
    out_of_reach: bool,
}

/// Unit vector along `v`, or `fallback` when `v` is too short to have one.
#[inline]
fn dir_or(v: Vec3A, fallback: Vec3A) -> Vec3A {
    let len_sq = v.length_squared();
    if len_sq > 1e-24 && len_sq.is_finite() {
        v * len_sq.sqrt().recip()
    } else {
        fallback
    }
}

/// Places knee and foot (root at the origin, reach 1) for `target`, bending
/// toward the first usable hint.
fn place_two_bones(
    upper: f32,
    lower: f32,
    target: Vec3A,
    bend_hints: [Option<Vec3A>; 2],
    foot_now: Vec3A,
) -> Placement {
    let distance = target.length();
    let toward = dir_or(target, dir_or(foot_now, Vec3A::Y));
    let max_reach = (upper + lower) * (1.0 - EXTENSION_MARGIN);
    let min_reach = (upper - lower).abs();
    // Never zero: the law of cosines divides by it (equal bones, target at the root).
    let clamped = distance.clamp(min_reach, max_reach).max(1e-6);

    // Bend direction: the pole's offset from the root–target line; failing
    // that, the current knee's; failing that, any perpendicular.
    // Hints are scaled to unit size first (a pole 1e20 away would overflow
    // the squared length), and the normalised bend is made perpendicular a
    // second time: rejecting a huge hint cancels almost all of it, and a bend
    // that leans along `toward` would put the knee off its bone's length.
    let bend = bend_hints
        .into_iter()
        .flatten()
        .filter_map(|hint| {
            let size = hint.abs().max_element();
            (size.is_finite() && size > 0.0).then(|| (hint / size).reject_from_normalized(toward))
        })
        .find(|offset| offset.length_squared() > 1e-12)
        .map(|offset| {
            let bend = offset.normalize();
            (bend - toward * bend.dot(toward)).normalize()
        })
        .filter(|bend| bend.is_finite())
        .unwrap_or_else(|| toward.any_orthonormal_vector());

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
