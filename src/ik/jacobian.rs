//! The Jacobian family: Jacobian transpose and damped least squares (DLS), the
//! rotation-based methods the FABRIK report measures FABRIK against (§2,
//! Tables 4.1–4.3).
//!
//! Every joint is a ball joint with three rotational degrees of freedom, as
//! in the report's experiment. For a small rotation ωⱼ (axis times angle) at
//! joint j the end moves by ωⱼ × rⱼ, with rⱼ = end − pⱼ; so the Jacobian's
//! transpose applied to a task-space vector e gives ωⱼ = rⱼ × e, and
//! J Jᵀ = Σⱼ (|rⱼ|² I − rⱼ rⱼᵀ), a 3×3 matrix whatever the chain's length.
//! Steps are applied as rotations of the bone directions and the chain is
//! rebuilt from its bone lengths, so lengths cannot drift.

use glam::{DMat3, DVec3, Vec3};

use super::gradient::{apply_rotations, limit_step, task_metric};
use super::unit_frame::{CoreOutcome, UnitProblem, end_error, solve_in_unit_frame};
use super::{Chain, SolveParams, SolveReport, Solver, SolverKind, Termination};

/// Most times one iteration halves a step that does not lower the error.
const MAX_HALVINGS: u32 = 12;
/// Default DLS damping λ, as a fraction of the chain's reach. Larger is
/// steadier near singular poses and slower everywhere (Buss 2004 suggests a
/// value of the order of a tenth of the chain's size).
pub const DEFAULT_DLS_DAMPING: f64 = 0.1;
/// Smallest damping accepted: below it (J Jᵀ + λ²I) can be singular in `f64`.
const MIN_DAMPING: f64 = 1e-6;

/// Scratch space reused across solves.
#[derive(Debug, Clone, Default)]
struct Scratch {
    work: Vec<DVec3>,
    omega: Vec<DVec3>,
    trial: Vec<DVec3>,
}

/// Jacobian transpose: each iteration turns every joint by α Jᵀ e, with the
/// step α = ⟨e, J Jᵀ e⟩ / |J Jᵀ e|² that minimises the linearised error along
/// that direction (Buss's choice). Cheap per iteration, slow to converge near
/// the target, where the remaining error lies along poorly scaled directions.
#[derive(Debug, Clone, Default)]
pub struct JacobianTranspose {
    scratch: Scratch,
}

/// Damped least squares (Levenberg–Marquardt with fixed damping): each
/// iteration turns the joints by Jᵀ (J Jᵀ + λ²I)⁻¹ e. The damping λ keeps
/// steps bounded near singular poses (a straight chain) at the cost of slower
/// convergence; SVD-DLS with one damping for every singular value computes
/// the same step, so it is not a separate solver here.
#[derive(Debug, Clone)]
pub struct Dls {
    /// Damping λ as a fraction of the chain's reach (values below 1e-6 are
    /// raised to it; non-finite values mean the default).
    pub damping: f64,
    scratch: Scratch,
}

impl Default for Dls {
    fn default() -> Self {
        Self::with_damping(DEFAULT_DLS_DAMPING)
    }
}

impl Dls {
    /// A DLS solver with damping `damping` (fraction of the reach).
    pub fn with_damping(damping: f64) -> Self {
        Self {
            damping,
            scratch: Scratch::default(),
        }
    }
}

impl Solver for JacobianTranspose {
    fn kind(&self) -> SolverKind {
        SolverKind::JacobianTranspose
    }

    fn solve(&mut self, chain: &mut Chain, target: Vec3, params: &SolveParams) -> SolveReport {
        let Scratch { work, omega, trial } = &mut self.scratch;
        solve_in_unit_frame(chain, target, params, work, |joints, lengths, problem| {
            let buffers = Buffers { omega, trial };
            iterate(joints, lengths, problem, buffers, transpose_step)
        })
    }
}

impl Solver for Dls {
    fn kind(&self) -> SolverKind {
        SolverKind::Dls
    }

    fn solve(&mut self, chain: &mut Chain, target: Vec3, params: &SolveParams) -> SolveReport {
        let damping = if self.damping.is_finite() {
            self.damping.max(MIN_DAMPING)
        } else {
            DEFAULT_DLS_DAMPING
        };
        let damping_sq = damping * damping;
        let Scratch { work, omega, trial } = &mut self.scratch;
        solve_in_unit_frame(chain, target, params, work, |joints, lengths, problem| {
            let buffers = Buffers { omega, trial };
            iterate(joints, lengths, problem, buffers, |joints, error, omega| {
                dls_step(joints, error, omega, damping_sq);
            })
        })
    }
}

/// The scratch one solve borrows.
struct Buffers<'a> {
    omega: &'a mut Vec<DVec3>,
    trial: &'a mut Vec<DVec3>,
}

/// ωⱼ = α rⱼ × e with the line-search-optimal α.
fn transpose_step(joints: &[DVec3], error: DVec3, omega: &mut [DVec3]) {
    let end = joints[joints.len() - 1];
    let mut motion = DVec3::ZERO;
    for (w, p) in omega.iter_mut().zip(joints) {
        let r = end - *p;
        *w = r.cross(error);
        motion += w.cross(r);
    }
    let motion_sq = motion.length_squared();
    let alpha = if motion_sq > 1e-300 {
        error.dot(motion) / motion_sq
    } else {
        0.0
    };
    for w in omega.iter_mut() {
        *w *= alpha;
    }
}

/// ωⱼ = rⱼ × (J Jᵀ + λ²I)⁻¹ e.
fn dls_step(joints: &[DVec3], error: DVec3, omega: &mut [DVec3], damping_sq: f64) {
    let end = joints[joints.len() - 1];
    let metric = task_metric(joints, end) + DMat3::from_diagonal(DVec3::splat(damping_sq));
    // J Jᵀ is positive semi-definite and λ² ≥ 1e-12 is added to its
    // diagonal, so the matrix is positive definite and invertible.
    let y = metric.inverse() * error;
    for (w, p) in omega.iter_mut().zip(joints) {
        *w = (end - *p).cross(y);
    }
}

/// The loop both methods share: step, rebuild, and keep the step only if it
/// lowers the error, halving it (up to [`MAX_HALVINGS`] times) until it does.
/// Stops when reached, out of budget, or when no halving helps.
///
/// The halving makes both methods descend monotonically, as the report's
/// "linear approximation with a small step" implies; without it the
/// transpose's line-search step, optimal only for the linearised problem,
/// zig-zags, and two runs differing only by rounding drift apart.
fn iterate(
    joints: &mut [DVec3],
    lengths: &[f64],
    problem: &UnitProblem<'_>,
    buffers: Buffers<'_>,
    step: impl Fn(&[DVec3], DVec3, &mut [DVec3]),
) -> CoreOutcome {
    let Buffers { omega, trial } = buffers;
    let target = problem.target;
    let last = joints.len() - 1;
    let mut error = end_error(joints, target);
    if error <= problem.tolerance {
        return CoreOutcome::new(0, Termination::Reached);
    }
    omega.clear();
    omega.resize(lengths.len(), DVec3::ZERO);
    trial.clear();
    trial.extend_from_slice(joints);
    let mut iterations = 0;
    while iterations < problem.max_iterations {
        let end = joints[last];
        step(joints, target - end, omega);
        let largest = omega.iter().map(|w| w.length_squared()).fold(0.0, f64::max);
        if largest < 1e-30 && problem.target_unreachable() && end.dot(target) >= 0.0 {
            // Straight and aimed at a target out of reach: the best pose
            // there is; `limit_step` would only bend it away.
            return CoreOutcome::new(iterations, problem.stop_reason(error));
        }
        iterations += 1;
        limit_step(joints, omega);
        let previous = error;
        let mut accepted = false;
        for _ in 0..=MAX_HALVINGS {
            apply_rotations(joints, lengths, omega, trial);
            let trial_error = end_error(trial, target);
            if trial_error < error {
                joints.copy_from_slice(trial);
                error = trial_error;
                accepted = true;
                break;
            }
            for w in omega.iter_mut() {
                *w *= 0.5;
            }
        }
        if !accepted {
            return CoreOutcome::new(iterations, problem.stop_reason(error));
        }
        if let Some(termination) = problem.verdict(error, previous) {
            return CoreOutcome::new(iterations, termination);
        }
    }
    CoreOutcome::new(iterations, Termination::MaxIterations)
}
