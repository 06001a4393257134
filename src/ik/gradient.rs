//! Gradient descent over joint rotations, with rest-pose and end-orientation terms.

use glam::{DMat3, DQuat, DVec3, Vec3};

use super::unit_frame::{CoreOutcome, UnitProblem, dir_or, end_error, solve_in_unit_frame};
use super::{Chain, SolveParams, SolveReport, Solver, SolverKind, Termination};

/// Largest rotation one step may apply at a joint (radians): the first-order
/// model behind the step is only trusted this far.
const MAX_STEP_ANGLE: f64 = 0.5;
/// Damping bounds (unit frame, where the metric's entries are of order 1).
const MIN_DAMPING: f64 = 1e-9;
const MAX_DAMPING: f64 = 1e8;

/// Gradient descent on the end-effector distance, with each joint's rotation
/// (three axes per joint) as the parameters.
///
/// The gradient of ½|end − target|² with respect to a small rotation ω at joint
/// j is `(end − pⱼ) × (end − target)`. Each step follows that gradient scaled by
/// the inverse of the task-space metric `(J Jᵀ + λI)⁻¹` — a Levenberg–Marquardt
/// adaptive step: λ shrinks after a step that lowers the error and grows after
/// one that does not, so the solver moves between cautious steepest descent
/// (large λ) and fast Gauss–Newton steps (small λ), and converges to 1e-4 of
/// the reach in a handful of steps instead of the thousands plain Jacobian
/// transpose needs (report, table 4.1).
///
/// Two optional secondary objectives act only in the null space of the
/// position task, so they never cost position accuracy:
/// - `rest_weight` pulls every bone toward its rest direction (the chain's
///   built pose, turned by [`Chain::set_rest_frame`]): the remedy for legs that
///   slowly crumple when only the end position is optimised;
/// - `orientation_weight` turns the last bone toward
///   [`SolveParams::end_direction`] when one is given.
#[derive(Debug, Clone)]
pub struct GradientDescent {
    /// Strength of the pull toward the rest pose (0 disables it).
    pub rest_weight: f64,
    /// Strength of the pull of the last bone toward `end_direction`.
    pub orientation_weight: f64,
    /// Starting damping λ (unit frame).
    pub initial_damping: f64,
    work: Vec<DVec3>,
    buffers: Buffers,
}

/// Scratch space reused across solves.
#[derive(Debug, Clone, Default)]
struct Buffers {
    rest: Vec<DVec3>,
    trial: Vec<DVec3>,
    omega: Vec<DVec3>,
    secondary: Vec<DVec3>,
}

impl Default for GradientDescent {
    fn default() -> Self {
        Self {
            rest_weight: 0.1,
            orientation_weight: 0.5,
            initial_damping: 1e-3,
            work: Vec::new(),
            buffers: Buffers::default(),
        }
    }
}

impl GradientDescent {
    /// A solver with these secondary-objective weights and default damping.
    pub fn with_weights(rest_weight: f64, orientation_weight: f64) -> Self {
        Self {
            rest_weight,
            orientation_weight,
            ..Self::default()
        }
    }
}

impl Solver for GradientDescent {
    fn kind(&self) -> SolverKind {
        SolverKind::Gradient
    }

    fn solve(&mut self, chain: &mut Chain, target: Vec3, params: &SolveParams) -> SolveReport {
        self.buffers.rest.clear();
        self.buffers
            .rest
            .extend(chain.rest_directions().map(Vec3::as_dvec3));
        let tuning = Tuning {
            rest_weight: self.rest_weight.max(0.0),
            orientation_weight: self.orientation_weight.max(0.0),
            initial_damping: self.initial_damping.clamp(MIN_DAMPING, MAX_DAMPING),
        };
        let buffers = &mut self.buffers;
        solve_in_unit_frame(
            chain,
            target,
            params,
            &mut self.work,
            |joints, lengths, problem| descend(joints, lengths, problem, &tuning, buffers),
        )
    }
}

struct Tuning {
    rest_weight: f64,
    orientation_weight: f64,
    initial_damping: f64,
}

fn descend(
    joints: &mut [DVec3],
    lengths: &[f64],
    problem: &UnitProblem,
    tuning: &Tuning,
    buffers: &mut Buffers,
) -> CoreOutcome {
    let bones = lengths.len();
    let target = problem.target;
    let orientation = problem
        .end_direction
        .filter(|_| tuning.orientation_weight > 0.0);
    let has_secondary = tuning.rest_weight > 0.0 || orientation.is_some();
    let Buffers {
        rest,
        trial,
        omega,
        secondary,
    } = buffers;
    trial.clear();
    trial.extend_from_slice(joints);
    omega.clear();
    omega.resize(bones, DVec3::ZERO);
    secondary.clear();
    secondary.resize(bones, DVec3::ZERO);

    let mut damping = tuning.initial_damping;
    // The secondary step shrinks with every rejected step, like the primary
    // one does through the damping, so a bad secondary pull cannot block progress.
    let mut secondary_scale = 1.0;
    let mut error = end_error(joints, target);
    let mut iterations = 0;
    loop {
        // With secondary terms, take at least one step so a pose that is
        // already on target still drifts toward rest (no crumpling over time).
        let done_with_secondary = !has_secondary || iterations > 0;
        if error <= problem.tolerance && done_with_secondary {
            return CoreOutcome::new(iterations, Termination::Reached);
        }
        if iterations >= problem.max_iterations {
            return CoreOutcome::new(iterations, Termination::MaxIterations);
        }
        iterations += 1;

        let end = joints[bones];
        let metric = task_metric(joints, end) + DMat3::from_diagonal(DVec3::splat(damping));
        let metric_inv = metric.inverse();
        let y = metric_inv * (target - end);
        for j in 0..bones {
            omega[j] = (end - joints[j]).cross(y);
        }
        if has_secondary && secondary_scale > 1e-6 {
            let terms = SecondaryTerms {
                rest,
                orientation,
                rest_weight: tuning.rest_weight * secondary_scale,
                orientation_weight: tuning.orientation_weight * secondary_scale,
                // Projected out only to first order, a secondary turn of θ
                // still moves the end by about θ²: keep that below the error.
                max_angle: 0.5 * error.max(problem.tolerance).sqrt(),
            };
            terms.add_to(joints, &metric_inv, secondary, omega);
        }
        limit_step(joints, omega);

        apply_rotations(joints, lengths, omega, trial);
        let trial_error = end_error(trial, target);
        let keeps_tolerance = trial_error <= problem.tolerance && error <= problem.tolerance;
        if trial_error < error || keeps_tolerance {
            joints.copy_from_slice(trial);
            let previous = error;
            error = trial_error;
            damping = (damping * 0.2).max(MIN_DAMPING);
            if secondary_scale > 0.0 {
                secondary_scale = (secondary_scale * 2.0).min(1.0);
            }
            if keeps_tolerance {
                continue;
            }
            match problem.verdict(error, previous) {
                // The secondary pull is only projected out to first order, so
                // on a sharply bent chain it can cancel the position step;
                // position comes first, so drop it rather than stop short.
                Some(Termination::Stalled | Termination::PrecisionLimit)
                    if secondary_scale > 0.0 =>
                {
                    secondary_scale = 0.0;
                }
                Some(termination) => return CoreOutcome::new(iterations, termination),
                None => {}
            }
        } else {
            damping *= 8.0;
            secondary_scale /= 8.0;
            if damping > MAX_DAMPING {
                return CoreOutcome::new(iterations, problem.stop_reason(error));
            }
        }
    }
}

/// Caps the largest joint rotation at [`MAX_STEP_ANGLE`], and bends a chain
/// out of an exactly singular pose where the gradient vanishes.
pub(super) fn limit_step(joints: &[DVec3], omega: &mut [DVec3]) {
    let largest = omega.iter().map(|w| w.length()).fold(0.0, f64::max);
    if largest < 1e-15 {
        // A straight chain aimed along the target line: no rotation changes
        // the end's distance to first order, so bend it slightly to escape.
        let side = dir_or(joints[1] - joints[0], DVec3::Y).any_orthonormal_vector();
        for (j, w) in omega.iter_mut().enumerate() {
            *w = if j == 0 { -side * 0.05 } else { side * 0.1 };
        }
    } else if largest > MAX_STEP_ANGLE {
        let shrink = MAX_STEP_ANGLE / largest;
        for w in omega.iter_mut() {
            *w *= shrink;
        }
    }
}

/// J Jᵀ for the end position: Σⱼ (|rⱼ|² I − rⱼ rⱼᵀ) with rⱼ = end − pⱼ.
pub(super) fn task_metric(joints: &[DVec3], end: DVec3) -> DMat3 {
    let mut metric = DMat3::ZERO;
    for p in &joints[..joints.len() - 1] {
        let r = end - *p;
        let outer = DMat3::from_cols(r * r.x, r * r.y, r * r.z);
        metric += DMat3::from_diagonal(DVec3::splat(r.length_squared())) - outer;
    }
    metric
}

/// The rest-pose and end-orientation objectives of one step.
struct SecondaryTerms<'a> {
    rest: &'a [DVec3],
    orientation: Option<DVec3>,
    rest_weight: f64,
    orientation_weight: f64,
    /// Largest rotation the secondary step may apply at any joint (radians).
    max_angle: f64,
}

impl SecondaryTerms<'_> {
    /// Adds the secondary descent directions to `omega`, projected so that to
    /// first order they do not move the end effector.
    fn add_to(
        &self,
        joints: &[DVec3],
        metric_inv: &DMat3,
        secondary: &mut [DVec3],
        omega: &mut [DVec3],
    ) {
        let bones = secondary.len();
        let end = joints[bones];
        let last_dir = dir_or(joints[bones] - joints[bones - 1], DVec3::Y);
        let orientation_term = self.orientation.map_or(DVec3::ZERO, |want| {
            last_dir.cross(want) * self.orientation_weight
        });
        // A rotation at joint j turns every bone from j on, so the descent
        // direction there is the suffix sum of each bone's own term; and every
        // joint turns the last bone, so each gets the whole orientation term.
        let mut suffix = DVec3::ZERO;
        let mut end_motion = DVec3::ZERO;
        for j in (0..bones).rev() {
            let dir = dir_or(joints[j + 1] - joints[j], DVec3::Y);
            let rest_dir = self.rest.get(j).copied().unwrap_or(dir);
            suffix += dir.cross(rest_dir) * self.rest_weight;
            secondary[j] = suffix + orientation_term;
        }
        let largest = secondary.iter().map(|z| z.length()).fold(0.0, f64::max);
        if largest > self.max_angle {
            let shrink = self.max_angle / largest;
            for z in secondary.iter_mut() {
                *z *= shrink;
            }
        }
        for j in 0..bones {
            end_motion += secondary[j].cross(end - joints[j]);
        }
        // Null-space projection: z − Jᵀ (J Jᵀ + λI)⁻¹ J z.
        let correction = *metric_inv * end_motion;
        for j in 0..bones {
            omega[j] += secondary[j] - (end - joints[j]).cross(correction);
        }
    }
}

/// Rotates bone directions by the accumulated joint rotations and rebuilds the
/// chain from its bone lengths into `out` (so lengths cannot drift).
pub(super) fn apply_rotations(
    joints: &[DVec3],
    lengths: &[f64],
    omega: &[DVec3],
    out: &mut [DVec3],
) {
    let mut accumulated = DQuat::IDENTITY;
    out[0] = joints[0];
    for (j, len) in lengths.iter().enumerate() {
        accumulated = (accumulated * DQuat::from_scaled_axis(omega[j])).normalize();
        let dir = dir_or(joints[j + 1] - joints[j], DVec3::Y);
        out[j + 1] = out[j] + dir_or(accumulated * dir, dir) * *len;
    }
}
