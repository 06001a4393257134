//! The frame every solver works in: root at the origin, reach scaled to 1, `f64`.
//!
//! Solving there makes every internal threshold relative to the chain's size,
//! keeps full precision for chains far from the world origin, and leaves the
//! only `f32` rounding to the final write-back, which the tolerance accounts
//! for. The wrapper also owns the checks every solver shares (non-finite
//! target, the precision floor, the final error and verdict), so they live in
//! one place.

use glam::{DVec3, Vec3};

use super::limits::Limits;
use super::{Chain, SolveParams, SolveReport, Termination};

/// Squared length below which a unit-frame vector has no usable direction.
pub(super) const DIRECTION_EPSILON_SQ: f64 = 1e-40;

/// Unit vector along `v`, or `fallback` when `v` is too short to have one.
#[inline]
pub(super) fn dir_or(v: DVec3, fallback: DVec3) -> DVec3 {
    let len_sq = v.length_squared();
    if len_sq > DIRECTION_EPSILON_SQ && len_sq.is_finite() {
        v * len_sq.sqrt().recip()
    } else {
        fallback
    }
}

/// Whether `v` is long enough to have a direction.
#[inline]
pub(super) fn has_direction(v: DVec3) -> bool {
    v.length_squared() > DIRECTION_EPSILON_SQ
}

/// A solve as the solver core sees it, in unit-frame coordinates.
#[derive(Debug, Clone, Copy)]
pub(super) struct UnitProblem<'a> {
    /// The target, relative to the root and divided by the reach.
    pub target: DVec3,
    /// Tolerance the core aims for, tightened so that the `f32` write-back
    /// cannot push a reached end past the caller's tolerance.
    pub tolerance: f64,
    /// Smallest error change worth calling progress.
    pub floor: f64,
    /// Iteration budget.
    pub max_iterations: u32,
    /// Pole in unit-frame coordinates, if one was given and is finite.
    pub pole: Option<DVec3>,
    /// Desired last-bone direction (unit), if one was given and is usable.
    pub end_direction: Option<DVec3>,
    /// Closest the end can come to the root: a bone longer than all the others
    /// together leaves a hollow around the root no pose reaches.
    pub inner_reach: f64,
    /// The chain's joint limits, if any joint is limited.
    pub limits: Option<Limits<'a>>,
}

impl UnitProblem<'_> {
    /// Whether the target lies beyond the chain's reach (1 in this frame).
    pub fn beyond_reach(&self) -> bool {
        self.target.length() >= 1.0
    }

    /// Whether no pose puts the end on the target: beyond the reach, or inside
    /// the hollow around the root.
    pub fn target_unreachable(&self) -> bool {
        let distance = self.target.length();
        distance >= 1.0 || distance < self.inner_reach
    }

    /// The shared stopping rule: reached, or no meaningful progress.
    pub fn verdict(&self, error: f64, previous_error: f64) -> Option<Termination> {
        if error <= self.tolerance {
            Some(Termination::Reached)
        } else if previous_error - error <= self.floor {
            Some(self.stop_reason(error))
        } else {
            None
        }
    }

    /// Why a solver that can make no more progress stopped: out of reach, at
    /// the precision floor, or stalled.
    pub fn stop_reason(&self, error: f64) -> Termination {
        if self.target_unreachable() {
            Termination::Unreachable
        } else if error <= 16.0 * self.floor {
            Termination::PrecisionLimit
        } else {
            Termination::Stalled
        }
    }
}

/// What a solver core returns: how many iterations it ran and why it stopped.
#[derive(Debug, Clone, Copy)]
pub(super) struct CoreOutcome {
    pub iterations: u32,
    pub termination: Termination,
}

impl CoreOutcome {
    /// An outcome with these figures.
    pub fn new(iterations: u32, termination: Termination) -> Self {
        Self {
            iterations,
            termination,
        }
    }
}

/// Half the spacing of `f32` values near `magnitude`: the most rounding one
/// coordinate of that size suffers when written back.
fn half_ulp(magnitude: f32) -> f64 {
    let m = magnitude.abs().max(f32::MIN_POSITIVE);
    if !m.is_finite() {
        return f64::INFINITY;
    }
    let next = f32::from_bits(m.to_bits() + 1);
    0.5 * f64::from(next - m)
}

/// The most that writing an end within `tolerance` of `target` back to
/// `f32` can move it: each coordinate rounds by up to half an ulp.
pub(super) fn write_back_rounding(target: Vec3, tolerance: f32) -> f64 {
    (target.abs() + Vec3::splat(tolerance))
        .to_array()
        .map(half_ulp)
        .iter()
        .map(|r| r * r)
        .sum::<f64>()
        .sqrt()
}

/// The error a solve aims for so that an end it reaches stays within
/// `tolerance` once `rounding` (see [`write_back_rounding`]) has moved it.
pub(super) fn aim_within(tolerance: f32, rounding: f64) -> f64 {
    (f64::from(tolerance) - rounding).max(0.25 * f64::from(tolerance))
}

/// Runs `core` on `chain` in the unit frame and turns its outcome into a report.
///
/// The core gets the unit-frame joints in `work` (root at the origin, which
/// it must keep there), the unit bone lengths, and the problem. A pole, if
/// given, is applied here after the core, the same way for every solver; on
/// a chain with joint limits each joint is bent toward the pole only as far
/// as the limits allow, and the pose is then projected into the limits, so
/// even a solver that ignores them returns a pose that keeps them.
pub(super) fn solve_in_unit_frame(
    chain: &mut Chain,
    target: Vec3,
    params: &SolveParams,
    work: &mut Vec<DVec3>,
    core: impl FnOnce(&mut [DVec3], &[f64], &UnitProblem<'_>) -> CoreOutcome,
) -> SolveReport {
    if !target.is_finite() {
        return SolveReport {
            iterations: 0,
            error: f32::INFINITY,
            reached: false,
            termination: Termination::InvalidTarget,
        };
    }
    let tolerance = if params.tolerance >= 0.0 {
        params.tolerance
    } else {
        0.0
    };
    let origin = chain.root().as_dvec3();
    let scale = f64::from(chain.reach());
    let inv_scale = scale.recip();
    let to_unit = |p: Vec3| (p.as_dvec3() - origin) * inv_scale;

    let rounding = write_back_rounding(target, tolerance);
    let core_tolerance = aim_within(tolerance, rounding);
    let problem = UnitProblem {
        target: to_unit(target),
        tolerance: core_tolerance * inv_scale,
        floor: rounding * 1e-3 * inv_scale + 1e-14,
        max_iterations: params.max_iterations,
        pole: params.pole.map(to_unit).filter(|p| p.is_finite()),
        end_direction: params
            .end_direction
            .map(Vec3::as_dvec3)
            .filter(|d| d.is_finite() && d.length_squared() > 1e-12)
            .map(DVec3::normalize),
        // `Chain::inner_reach` in the unit frame, where the reach is 1.
        inner_reach: {
            let longest = chain.unit_lengths().iter().copied().fold(0.0, f64::max);
            (2.0 * longest - 1.0).max(0.0)
        },
        limits: chain.limits_view(),
    };

    work.clear();
    work.extend(chain.joints().iter().map(|p| to_unit(*p)));
    let outcome = core(work, chain.unit_lengths(), &problem);
    match (problem.pole, problem.limits) {
        // After the core, so the bend moves neither the end nor a bone length.
        (Some(pole), None) => super::pole::bend_toward_pole(work, pole),
        (Some(pole), Some(limits)) => {
            super::pole::bend_toward_pole_within(work, pole, &limits);
            limits.enforce(work, chain.unit_lengths(), 1);
        }
        (None, Some(limits)) => limits.enforce(work, chain.unit_lengths(), 1),
        (None, None) => {}
    }
    let root = chain.root();
    let joints = chain.joints_mut();
    joints[0] = root;
    for (p, q) in joints.iter_mut().zip(work.iter()).skip(1) {
        *p = (origin + *q * scale).as_vec3();
    }

    let error = (chain.end() - target).length();
    let reached = error <= tolerance;
    let termination = match outcome.termination {
        _ if reached => Termination::Reached,
        Termination::Reached => Termination::PrecisionLimit,
        other => other,
    };
    SolveReport {
        iterations: outcome.iterations,
        error,
        reached,
        termination,
    }
}

/// Lays the chain out straight from the root toward `target`: the exact
/// answer for a target at or beyond full reach.
pub(super) fn straighten_toward(joints: &mut [DVec3], unit_lengths: &[f64], target: DVec3) {
    let direction = dir_or(target, DVec3::Y);
    for (i, len) in unit_lengths.iter().enumerate() {
        joints[i + 1] = joints[i] + direction * *len;
    }
}

/// Distance from the end effector to the target.
#[inline]
pub(super) fn end_error(joints: &[DVec3], target: DVec3) -> f64 {
    joints
        .last()
        .map_or(f64::INFINITY, |end| end.distance(target))
}
