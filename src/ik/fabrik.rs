//! FABRIK: forward and backward reaching inverse kinematics (the report's Algorithm 1).

use glam::{DVec3, Vec3, Vec3A};

use super::limits::Limits;
use super::unit_frame::{
    CoreOutcome, UnitProblem, dir_or, end_error, solve_in_unit_frame, straighten_toward,
};
use super::{Chain, SolveParams, SolveReport, Solver, SolverKind, Termination};

/// Unit-frame tolerance down to which `f32` iterations are trustworthy: a few
/// dozen ulps of the chain's reach. Finer tolerances are solved in `f64`.
pub(super) const F32_RESOLUTION: f64 = 32.0 * f32::EPSILON as f64;

/// Forward and backward reaching IK.
///
/// Each iteration pins the end to the target and walks back to the root
/// placing every joint on the line to its neighbour at bone length, then pins
/// the root and walks forward again. An unreachable target is answered in one
/// pass by straightening the chain toward it. With a pole, every inner joint is
/// then swung about the line through its neighbours toward the pole, which
/// moves neither the end nor any bone length.
///
/// Each joint update is a serial chain of a square root and a division, so
/// iterations run in `f32` SIMD lanes, which are shorter on that chain, unless
/// the tolerance is finer than `f32` can resolve for the chain's size (the
/// report's 1e-3 mm on 9 m); then they run in `f64`.
#[derive(Debug, Clone, Default)]
pub struct Fabrik {
    work: Vec<DVec3>,
    fast: Vec<Vec3A>,
    fast_lengths: Vec<f32>,
    /// The best pose seen before a restart or a leap, per precision.
    best: Vec<DVec3>,
    fast_best: Vec<Vec3A>,
    /// The pose at the start of the current progress window, per
    /// precision (see `leap_f32`).
    window_start: Vec<DVec3>,
    fast_window_start: Vec<Vec3A>,
}

impl Solver for Fabrik {
    fn kind(&self) -> SolverKind {
        SolverKind::Fabrik
    }

    fn solve(&mut self, chain: &mut Chain, target: Vec3, params: &SolveParams) -> SolveReport {
        let Self {
            work,
            fast,
            fast_lengths,
            best,
            fast_best,
            window_start,
            fast_window_start,
        } = self;
        solve_in_unit_frame(chain, target, params, work, |joints, lengths, problem| {
            if let Some(limits) = problem.limits {
                constrained_passes(joints, lengths, problem, &limits, best)
            } else if problem.max_iterations == 0 {
                CoreOutcome::new(0, Termination::MaxIterations)
            } else if problem.beyond_reach() {
                straighten_toward(joints, lengths, problem.target);
                CoreOutcome::new(1, Termination::Unreachable)
            } else {
                let buffers = Buffers {
                    fast,
                    fast_lengths,
                    best,
                    fast_best,
                    window_start,
                    fast_window_start,
                };
                reach_iteratively(joints, lengths, problem, buffers)
            }
        })
    }
}

/// FABRIK with joint limits (report §3.7.2): the backward pass, which runs
/// from the root out and so ends every iteration, turns each bone into its
/// joint's limits relative to the bone before it as it is placed, so every
/// pose it leaves keeps the limits. No one-pass answer for unreachable
/// targets here: a straight chain may itself break a limit (a hinge that
/// must stay bent), so those iterate like any other target until they stop
/// improving.
///
/// Limits give the passes poses they cannot leave (a cone-limited chain
/// curled the wrong way round the target); when progress stops short of a
/// reachable target the solve starts again from an arc bent evenly toward
/// the target (see [`arc_toward`]) in another plane, keeping the best pose.
fn constrained_passes(
    joints: &mut [DVec3],
    lengths: &[f64],
    problem: &UnitProblem<'_>,
    limits: &Limits<'_>,
    best: &mut Vec<DVec3>,
) -> CoreOutcome {
    if problem.max_iterations == 0 {
        return CoreOutcome::new(0, Termination::MaxIterations);
    }
    // Start from a pose inside the limits so the first forward pass pulls
    // on a valid chain.
    limits.enforce(joints, lengths, 1);
    let target = problem.target;
    let last = joints.len() - 1;
    let mut error = end_error(joints, target);
    if error <= problem.tolerance {
        return CoreOutcome::new(0, Termination::Reached);
    }
    let reachable = !problem.target_unreachable();
    let toward = target.normalize_or(DVec3::Y);
    best.clear();
    best.extend_from_slice(joints);
    let mut best_error = error;
    let mut since_best = 0;
    let mut restarts = 0;
    let mut iterations = 0;
    let mut termination = Termination::MaxIterations;
    while iterations < problem.max_iterations {
        iterations += 1;
        // Both passes apply the limits (report §3.7.2): the inward one reads
        // each limit backwards, so the chain it hands the outward pass is
        // already nearly valid and the two do not fight.
        joints[last] = target;
        let mut child = DVec3::ZERO;
        for i in (1..last).rev() {
            let mut dir = dir_or(joints[i + 1] - joints[i], toward);
            if i + 1 < last {
                dir = limits.clamp_parent(i, child, dir);
            }
            joints[i] = joints[i + 1] - dir * lengths[i];
            child = dir;
        }
        let mut parent = DVec3::ZERO;
        for i in 0..last {
            // A hinged joint is placed with both of its bones in view, so
            // the joint after it stays where the inward pass put it.
            if i + 1 < last && limits.is_hinge(i) {
                let grandparent = (i > 0).then_some(parent);
                if let Some(joint) = limits.place_hinged(
                    i,
                    joints[i],
                    joints[i + 2],
                    lengths[i],
                    lengths[i + 1],
                    joints[i + 1],
                    grandparent,
                ) {
                    parent = (joint - joints[i]) / lengths[i];
                    joints[i + 1] = joint;
                    continue;
                }
            }
            let mut dir = dir_or(joints[i + 1] - joints[i], toward);
            if i > 0 {
                dir = limits.clamp(i - 1, parent, dir);
            }
            joints[i + 1] = joints[i] + dir * lengths[i];
            parent = dir;
        }
        let previous = error;
        error = end_error(joints, target);
        if error <= problem.tolerance {
            return CoreOutcome::new(iterations, Termination::Reached);
        }
        if error < best_error - problem.floor {
            best_error = error;
            best.clear();
            best.extend_from_slice(joints);
            since_best = 0;
        } else {
            since_best += 1;
        }
        // With limits the two passes can trade error back and forth, so one
        // iteration without progress is no verdict; a window of them is.
        let stuck = previous == error || since_best >= SLOW_WINDOW;
        if stuck {
            if reachable && restarts < CONSTRAINED_RESTARTS {
                arc_toward(joints, lengths, problem, limits, restarts);
                restarts += 1;
                error = end_error(joints, target);
                since_best = 0;
            } else {
                termination = problem.stop_reason(best_error.min(error));
                break;
            }
        }
    }
    if best_error < error {
        joints.copy_from_slice(best);
    }
    CoreOutcome::new(iterations, termination)
}

/// Restarts from fresh arcs a constrained solve may spend.
const CONSTRAINED_RESTARTS: u32 = 8;

/// Lays the chain out as an arc toward the target for restart `attempt`:
/// every joint bent by the same angle, no more than the tightest cone
/// allows, chosen so the arc's chord spans the target's distance, in a plane
/// through the root–target line turned by 45° more each attempt (starting
/// from the pole's side). The arc then keeps the limits (cones exactly;
/// hinges after projection) and leaves FABRIK only a short way to go.
fn arc_toward(
    joints: &mut [DVec3],
    lengths: &[f64],
    problem: &UnitProblem<'_>,
    limits: &Limits<'_>,
    attempt: u32,
) {
    let axis = problem.target.normalize_or(DVec3::Y);
    let first_side = side_of_line(problem);
    let turn = std::f64::consts::FRAC_PI_4 * f64::from(attempt);
    let side = first_side * turn.cos() + axis.cross(first_side) * turn.sin();
    let distance = problem.target.length();
    let bones = lengths.len();
    let steepest = limits.tightest_bend().min(std::f64::consts::PI);
    // The chord of an arc of equal turns shrinks as the turn grows (for
    // turns up to 2π / bones); bisect for the turn that spans the target.
    let chord = |turn: f64| {
        let (mut along, mut across) = (0.0, 0.0);
        let start = -turn * (bones as f64 - 1.0) * 0.5;
        for (i, len) in lengths.iter().enumerate() {
            let angle = start + turn * i as f64;
            along += len * angle.cos();
            across += len * angle.sin();
        }
        (along * along + across * across).sqrt()
    };
    let (mut lo, mut hi) = (0.0, steepest.min(std::f64::consts::TAU / bones as f64));
    for _ in 0..40 {
        let mid = 0.5 * (lo + hi);
        if chord(mid) > distance {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let turn_angle = 0.5 * (lo + hi);
    let start = -turn_angle * (bones as f64 - 1.0) * 0.5;
    for (i, len) in lengths.iter().enumerate() {
        let angle = start + turn_angle * i as f64;
        joints[i + 1] = joints[i] + (axis * angle.cos() + side * angle.sin()) * *len;
    }
    limits.enforce(joints, lengths, 1);
}

/// The solver's reusable scratch space, so a solve allocates nothing once warm.
struct Buffers<'a> {
    fast: &'a mut Vec<Vec3A>,
    fast_lengths: &'a mut Vec<f32>,
    best: &'a mut Vec<DVec3>,
    fast_best: &'a mut Vec<Vec3A>,
    window_start: &'a mut Vec<DVec3>,
    fast_window_start: &'a mut Vec<Vec3A>,
}

/// Iterates in `f32` when the tolerance is one `f32` resolves for a chain
/// this size (every creature leg), in `f64` when it is finer.
fn reach_iteratively(
    joints: &mut [DVec3],
    lengths: &[f64],
    problem: &UnitProblem,
    buffers: Buffers<'_>,
) -> CoreOutcome {
    let Buffers {
        fast,
        fast_lengths,
        best,
        fast_best,
        window_start,
        fast_window_start,
    } = buffers;
    if end_error(joints, problem.target) <= problem.tolerance {
        return CoreOutcome::new(0, Termination::Reached);
    }
    if problem.tolerance < F32_RESOLUTION {
        let scratch = Scratch { best, window_start };
        return passes_f64(joints, lengths, problem, problem.max_iterations, scratch);
    }
    fast.clear();
    fast.extend(joints.iter().map(|p| Vec3A::from(p.as_vec3())));
    fast_lengths.clear();
    fast_lengths.extend(lengths.iter().map(|l| *l as f32));
    let coarse = UnitProblem {
        floor: problem.floor.max(f64::from(f32::EPSILON)),
        ..*problem
    };
    let scratch = Scratch {
        best: fast_best,
        window_start: fast_window_start,
    };
    let outcome = passes_f32(fast, fast_lengths, &coarse, problem.max_iterations, scratch);
    for (p, q) in joints.iter_mut().zip(fast.iter()).skip(1) {
        *p = q.as_dvec3();
    }
    outcome
}

/// Keeps `joints` as the best pose when their `error` beats `best_error`.
fn keep_if_better<V: Copy>(error: f64, best_error: &mut f64, best: &mut Vec<V>, joints: &[V]) {
    if error < *best_error {
        *best_error = error;
        set_pose(best, joints);
    }
}

/// Copies `joints` into `pose` (a buffer a solve of another chain may have
/// left another length).
#[inline]
fn set_pose<V: Copy>(pose: &mut Vec<V>, joints: &[V]) {
    if pose.len() == joints.len() {
        pose.copy_from_slice(joints);
    } else {
        pose.clear();
        pose.extend_from_slice(joints);
    }
}

/// One precision's poses kept aside during a solve.
struct Scratch<'a, V> {
    /// The best pose before a restart or a leap.
    best: &'a mut Vec<V>,
    /// The pose at the start of the current progress window.
    window_start: &'a mut Vec<V>,
}

macro_rules! fabrik_pass {
    ($name:ident, $vec:ty, $scalar:ty) => {
        /// One FABRIK iteration: the end pinned on `target` and each joint
        /// pulled toward its successor, then the root pinned where it is
        /// and each joint pulled toward its predecessor, so every bone ends
        /// at its length.
        ///
        /// The joint just placed is carried in `placed` so the next update
        /// need not wait for it to round-trip memory, and one division gives
        /// length / distance. When two joints coincide a bone has no
        /// direction; carrying on in the direction of the last bone placed
        /// (`fallback`, kept across passes and unnormalised: only the rare
        /// degenerate case pays for that) keeps the chain connected.
        #[inline]
        pub(super) fn $name(
            joints: &mut [$vec],
            lengths: &[$scalar],
            target: $vec,
            fallback: &mut $vec,
        ) {
            let last = joints.len() - 1;
            joints[last] = target;
            let mut placed = target;
            for (joint, length) in joints[1..last].iter_mut().zip(&lengths[1..last]).rev() {
                let offset = *joint - placed;
                let len_sq = offset.length_squared();
                let step = if len_sq > 1e-30 {
                    *fallback = offset;
                    offset * (*length / len_sq.sqrt())
                } else {
                    fallback.normalize_or(<$vec>::Y) * *length
                };
                placed += step;
                *joint = placed;
            }
            let mut placed = joints[0];
            for (joint, length) in joints[1..].iter_mut().zip(lengths) {
                let offset = *joint - placed;
                let len_sq = offset.length_squared();
                let step = if len_sq > 1e-30 {
                    *fallback = -offset;
                    offset * (*length / len_sq.sqrt())
                } else {
                    -fallback.normalize_or(<$vec>::Y) * *length
                };
                placed += step;
                *joint = placed;
            }
        }
    };
}

/// One FABRIK loop over a precision's vector type: the same algorithm for the
/// `f32` and `f64` stages, written once.
macro_rules! fabrik_passes {
    ($name:ident, $vec:ty, $scalar:ty, $pass:ident, $zigzag:ident, $leap:ident) => {
        fn $name(
            joints: &mut [$vec],
            lengths: &[$scalar],
            problem: &UnitProblem,
            max_iterations: u32,
            scratch: Scratch<'_, $vec>,
        ) -> CoreOutcome {
            let Scratch { best, window_start } = scratch;
            let target = <$vec>::from(problem.target.to_array().map(|c| c as $scalar));
            let last = joints.len() - 1;
            let mut error = f64::from(joints[last].distance(target));
            // The passes' direction for a bone with none (see the pass).
            let mut fallback = target;
            let mut iterations = 0;
            let mut nudged = false;
            // Slow-progress watch (see `hopeless`): the error at the start of
            // the current window, the best pose kept before restarting, and
            // how many restarts have been spent.
            let mut checkpoint = error;
            let mut since_checkpoint = 0;
            let mut best_error = f64::INFINITY;
            let mut restarts = 0;
            let reachable = !problem.target_unreachable();
            // The error a leap (see `leap_f32`) was taken from, until the next
            // window shows whether it helped; leaps stop once one has not.
            let mut leapt_from = None;
            let mut may_leap = true;
            // The error and pose a window's leap measures from (see the
            // first pass below).
            let mut leap_base = error;
            while iterations < max_iterations {
                iterations += 1;
                $pass(joints, lengths, target, &mut fallback);
                let previous = error;
                error = f64::from(joints[last].distance(target));
                match problem.verdict(error, previous) {
                    // Joints on one line with the target stay on it under
                    // both passes; bend them off it once and try again.
                    Some(Termination::Stalled) if !nudged && reachable => {
                        nudged = true;
                        let side =
                            <$vec>::from(side_of_line(problem).to_array().map(|c| c as $scalar));
                        for (i, joint) in joints.iter_mut().enumerate().take(last).skip(1) {
                            let sign: $scalar = if i % 2 == 1 { 1.0 } else { -1.0 };
                            *joint += side * (sign * 0.05 * lengths[i]);
                        }
                    }
                    // Stuck in a pose the nudge did not free: start again
                    // from another one, keeping this one in case that is worse.
                    Some(Termination::Stalled) if reachable && restarts < MAX_RESTARTS => {
                        keep_if_better(error, &mut best_error, best, joints);
                        restarts += 1;
                        $zigzag(joints, lengths, problem, restarts);
                        error = f64::INFINITY;
                        nudged = false;
                        checkpoint = error;
                        leap_base = error;
                        since_checkpoint = 0;
                        set_pose(window_start, joints);
                        leapt_from = None;
                        continue;
                    }
                    Some(termination) => {
                        if best_error < error {
                            joints.copy_from_slice(best);
                        }
                        return CoreOutcome::new(iterations, termination);
                    }
                    None => {}
                }
                since_checkpoint += 1;
                if iterations == 1 {
                    set_pose(window_start, joints);
                    leap_base = error;
                }
                if since_checkpoint == SLOW_WINDOW {
                    let left = max_iterations - iterations;
                    let rate = error / checkpoint;
                    // Progress since the first pass: its move from the
                    // caller's pose is no part of the steady approach.
                    let leap_rate = error / leap_base;
                    if let Some(before) = leapt_from.take()
                        && error > before
                    {
                        // The leap overshot: back to the best pose kept (at
                        // worst the one it leapt from), and the passes
                        // alone from there.
                        joints.copy_from_slice(best);
                        error = best_error;
                        may_leap = false;
                    } else if may_leap
                        && reachable
                        // A leap the remaining passes could not judge (nor
                        // undo) is wasted.
                        && left >= SLOW_WINDOW
                        // Not from a pose worse than one kept before a
                        // restart: the passes go back to that one below.
                        && error <= best_error
                        // A two-bone chain has one pose per turn about the
                        // root–target line, and its restarts replayed the
                        // same slow approach on a foot by the hip; a longer
                        // chain leaps once its restarts are spent.
                        && (last == 2 || restarts == MAX_RESTARTS)
                        && (LEAP_RATES.0..LEAP_RATES.1).contains(&rate)
                        && leap_rate < 1.0
                        && hopeless(error, checkpoint, problem.tolerance, left)
                    {
                        keep_if_better(error, &mut best_error, best, joints);
                        $leap(joints, window_start, leap_rate as $scalar);
                        leapt_from = Some(error);
                        // As after a restart: the next pass starts afresh.
                        error = f64::INFINITY;
                    } else if reachable && hopeless(error, checkpoint, problem.tolerance, left) {
                        keep_if_better(error, &mut best_error, best, joints);
                        if restarts < MAX_RESTARTS {
                            restarts += 1;
                            $zigzag(joints, lengths, problem, restarts);
                            error = f64::INFINITY;
                            nudged = false;
                        } else if best_error < error {
                            // Every restart was slower still: carry on from
                            // the best pose, which was at least converging.
                            joints.copy_from_slice(best);
                            error = best_error;
                        }
                    }
                    checkpoint = error;
                    leap_base = error;
                    since_checkpoint = 0;
                    set_pose(window_start, joints);
                }
            }
            if best_error < error {
                joints.copy_from_slice(best);
            }
            CoreOutcome::new(iterations, Termination::MaxIterations)
        }
    };
}

/// Iterations over which progress is measured to decide whether to restart
/// or leap.
///
/// Plain FABRIK can converge toward a pose where part of the chain must be
/// nearly straight or folded flat (typically a target near the root with a
/// long bone folded back over the rest); there each pass gains a fraction
/// of a percent, and the solve runs out of budget although the target is
/// well inside the workspace. The cure is a fresh start from a bent pose.
const SLOW_WINDOW: u32 = 8;
/// Per-window error ratios between which a hopeless solve may leap (see
/// `leap_f32`): steady progress, too slow for the iterations left. Slower
/// than the upper bound it is crawling toward a folded pose, which a
/// restart cures and a leap would only fling further.
const LEAP_RATES: (f64, f64) = (0.2, 0.75);

macro_rules! leap {
    ($name:ident, $vec:ty, $scalar:ty) => {
        /// Moves every inner joint on by the rest of the way its window's
        /// motion (from `start`) predicts, when each window shrinks the
        /// error by `rate`: the sum of the geometric series, `rate / (1 -
        /// rate)` times that motion.
        ///
        /// Near a chain's innermost reach (a two-bone leg's foot by its
        /// hip) the passes converge steadily but slowly on the one pose
        /// that reaches, each gaining a tenth (a leg 5 mm short after 32
        /// iterations): the circles the knee must lie on, about the root
        /// and about the target, meet at a grazing angle. The series' sum
        /// lands near that pose, and the next passes restore the bone
        /// lengths.
        fn $name(joints: &mut [$vec], start: &[$vec], rate: $scalar) {
            let gain = rate / (1.0 - rate);
            let last = joints.len() - 1;
            for (joint, from) in joints[1..last].iter_mut().zip(&start[1..last]) {
                *joint += (*joint - *from) * gain;
            }
        }
    };
}

/// Restart poses, tried in order: the angle (radians) each bone makes with
/// the root–target line, alternately to either side. The first folds the
/// chain tightly (targets near the root, where FABRIK crawls most), the
/// others bend it less.
const ZIGZAG_HALF_BENDS: [f64; 3] = [1.4, 0.8, 1.1];
/// Most restarts from a fresh pose per solve.
const MAX_RESTARTS: u32 = ZIGZAG_HALF_BENDS.len() as u32;

/// Whether the error, shrinking from `checkpoint` to `error` over the last
/// [`SLOW_WINDOW`] iterations, would still be above `tolerance` after `left`
/// more iterations at the same rate.
fn hopeless(error: f64, checkpoint: f64, tolerance: f64, left: u32) -> bool {
    // No progress at all (or NaN): hopeless at any budget.
    if error >= checkpoint || error.is_nan() {
        return true;
    }
    let windows_needed = (tolerance / error).ln() / (error / checkpoint).ln();
    windows_needed * f64::from(SLOW_WINDOW) > f64::from(left)
}

macro_rules! zigzag {
    ($name:ident, $vec:ty, $scalar:ty) => {
        /// Lays the chain out as a zig-zag toward the target for restart
        /// number `attempt` (from 1): each bone turned the attempt's entry of
        /// [`ZIGZAG_HALF_BENDS`] off the root–target line, alternately to
        /// either side, in the pole's plane if there is one. Every joint is
        /// then well bent, so no part of the chain starts near the straight
        /// or folded poses where FABRIK crawls. (Turning the plane would not
        /// give another start: the problem is symmetric about that line.)
        fn $name(joints: &mut [$vec], lengths: &[$scalar], problem: &UnitProblem, attempt: u32) {
            let axis = problem.target.normalize_or(DVec3::Y);
            let side = side_of_line(problem);
            let bend =
                ZIGZAG_HALF_BENDS[attempt.saturating_sub(1) as usize % ZIGZAG_HALF_BENDS.len()];
            let (along, across) = (bend.cos(), bend.sin());
            let up = <$vec>::from(
                (axis * along + side * across)
                    .to_array()
                    .map(|c| c as $scalar),
            );
            let down = <$vec>::from(
                (axis * along - side * across)
                    .to_array()
                    .map(|c| c as $scalar),
            );
            let mut placed = joints[0];
            for (i, length) in lengths.iter().enumerate() {
                placed += if i % 2 == 0 { up } else { down } * *length;
                joints[i + 1] = placed;
            }
        }
    };
}

/// A direction off the root–target line to bend a stuck chain toward: the
/// pole's side when there is a pole, any perpendicular otherwise.
fn side_of_line(problem: &UnitProblem) -> DVec3 {
    let axis = problem.target.normalize_or(DVec3::Y);
    problem
        .pole
        .map(|pole| pole.reject_from_normalized(axis))
        .filter(|offset| offset.length_squared() > 1e-20)
        .map_or_else(|| axis.any_orthonormal_vector(), DVec3::normalize)
}

fabrik_pass!(pass_f32, Vec3A, f32);
fabrik_pass!(pass_f64, DVec3, f64);
fabrik_passes!(passes_f32, Vec3A, f32, pass_f32, zigzag_f32, leap_f32);
fabrik_passes!(passes_f64, DVec3, f64, pass_f64, zigzag_f64, leap_f64);
zigzag!(zigzag_f32, Vec3A, f32);
zigzag!(zigzag_f64, DVec3, f64);
leap!(leap_f32, Vec3A, f32);
leap!(leap_f64, DVec3, f64);
