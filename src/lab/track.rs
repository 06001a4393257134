//! `lab track`: a target on a sine trajectory, in and out of reach, tracked
//! step by step (the FABRIK report's tracking test and Fig. 4.8).
//!
//! Each step the target moves a little and every solver re-solves from its
//! previous pose, as a real-time application does. The report judged the
//! motion by eye ("oscillating motion with discontinuities" for the
//! Jacobian methods); here the same qualities are counted: the largest jump
//! of an inner joint between two steps, and how often an inner joint turns
//! back on its own path.

use std::f32::consts::TAU;

use glam::Vec3;
use serde::Serialize;

use super::posing::Posing;
use super::{LabError, Options, Row, Table};
use crate::ik::experiment::Setup;
use crate::ik::{Chain, SolveParams, SolveReport, SolverKind};
use crate::math::SplitMix64;

/// Steps unless `--cases` says otherwise.
pub const DEFAULT_STEPS: usize = 1000;
/// Iterations each solver may spend per step (a real-time budget).
pub const ITERATIONS_PER_STEP: u32 = 100;
/// Tolerance per step, as a fraction of the reach.
pub const TOLERANCE_FRACTION: f32 = 1e-4;
/// Steps in one period of the target's radial sine.
const RADIAL_PERIOD: f32 = 400.0;
/// Steps in one period of its sideways swing.
const SWING_PERIOD: f32 = 650.0;
/// An inner joint moving less than this fraction of the reach in a step is
/// at rest: its direction is noise, and a turn there is no reversal.
const STILL_FRACTION: f32 = 1e-4;

/// One solver tracking the trajectory.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrackRow {
    /// Solver name.
    pub solver: String,
    /// Steps tracked.
    pub steps: usize,
    /// Mean distance from the end to the target beyond what the chain can
    /// do (zero when the target is reached, or when it is out of reach and
    /// the chain points straight at it), millimetres.
    pub error_mean: f64,
    /// Mean iterations per step.
    pub iterations_mean: f64,
    /// Largest distance an inner joint moved in one step (after the first,
    /// which brings the chain from its start pose), millimetres.
    pub joint_jump_max: f64,
    /// Times an inner joint reversed direction (its step's motion pointing
    /// against the previous step's), over all inner joints and steps.
    pub reversals: u64,
}

impl Row for TrackRow {
    const COLUMNS: &'static [&'static str] = &[
        "solver",
        "error mean (mm)",
        "iterations mean",
        "joint jump max (mm)",
        "reversals",
    ];

    fn cells(&self) -> Vec<String> {
        vec![
            self.solver.clone(),
            format!("{:.3}", self.error_mean),
            format!("{:.2}", self.iterations_mean),
            format!("{:.1}", self.joint_jump_max),
            self.reversals.to_string(),
        ]
    }
}

/// The target trajectory: for step `s`, a point whose distance from the root
/// swings between 30% and 110% of the reach while its direction sways
/// across, about seeded axes.
#[derive(Debug, Clone, Copy)]
pub struct Trajectory {
    root: Vec3,
    reach: f32,
    centre: Vec3,
    across: Vec3,
}

impl Trajectory {
    /// A trajectory for `chain`, its axes drawn from `seed`.
    pub fn new(chain: &Chain, seed: u64) -> Trajectory {
        let mut rng = SplitMix64::new(seed ^ 0x7AC4);
        let centre = rng.unit_vector();
        let across = centre
            .cross(rng.unit_vector())
            .normalize_or(centre.any_orthonormal_vector());
        Trajectory {
            root: chain.root(),
            reach: chain.reach(),
            centre,
            across,
        }
    }

    /// The target at step `s`.
    pub fn at(&self, s: usize) -> Vec3 {
        let s = s as f32;
        let distance = 0.7 + 0.4 * (TAU * s / RADIAL_PERIOD).sin();
        let sway = 0.8 * (TAU * s / SWING_PERIOD).sin();
        let dir = self.centre * sway.cos() + self.across * sway.sin();
        self.root + dir * distance * self.reach
    }

    /// The unit normal of the plane the target sways in (about the root).
    pub fn plane_normal(&self) -> Vec3 {
        self.centre.cross(self.across).normalize_or(Vec3::Y)
    }

    /// How far the end must stay from the target at step `s` at best.
    pub fn unreachable_by(&self, s: usize) -> f32 {
        (self.at(s).distance(self.root) - self.reach).max(0.0)
    }
}

/// Runs every solver that can pose the report's chain along the trajectory.
pub fn run(options: &Options) -> Result<Table<TrackRow>, LabError> {
    let steps = options.cases_or(DEFAULT_STEPS, 1_000_000)?;
    let start = Setup::LAB_REACHABLE
        .cases(options.seed(), 1)
        .remove(0)
        .chain;
    let trajectory = Trajectory::new(&start, options.seed());
    let mut rows = Vec::new();
    for kind in SolverKind::ALL {
        if kind.build().supports(&start).is_err() {
            continue;
        }
        rows.push(track(kind, &start, &trajectory, steps));
    }
    Ok(Table {
        title: format!(
            "Tracking a target on a sine trajectory ({steps} steps, seed {})",
            options.seed()
        ),
        rows,
        notes: vec![format!(
            "The report's chain (10 bones, 900 mm in all) from one seeded start pose; the target's \
             distance from the root swings between 30% and 110% of the reach (period \
             {RADIAL_PERIOD} steps) while it sways ±46° across (period {SWING_PERIOD} steps). Each \
             step allows {ITERATIONS_PER_STEP} iterations to a tolerance of {TOLERANCE_FRACTION} of \
             the reach, starting from the previous step's pose. Reversals count inner-joint moves \
             pointing against the previous step's move (ignoring moves under {STILL_FRACTION} of \
             the reach)."
        )],
    })
}

/// One step of tracking: where the target was and what the solver did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrackFrame {
    /// The step's index from the start of the trajectory.
    pub step: usize,
    /// The target.
    pub target: Vec3,
    /// The solver's report.
    pub report: SolveReport,
    /// Distance left beyond what the chain can do (see [`TrackRow::error_mean`]).
    pub error: f32,
    /// Largest distance an inner joint moved this step; `None` for the
    /// first step, which brings the chain from its start pose (a cold start).
    pub jump: Option<f32>,
    /// Inner joints whose move this step points against their last one.
    pub reversals: u32,
}

/// A chain tracking the trajectory step by step, re-solving from its
/// previous pose: the experiment runs it for its steps, the lab screen one
/// step per tick.
#[derive(Debug)]
pub struct Tracker {
    posing: Posing,
    trajectory: Trajectory,
    params: SolveParams,
    step: usize,
    /// Each inner joint's last move longer than `still`.
    last_move: Vec<Vec3>,
    still: f32,
}

impl Tracker {
    /// `kind` tracking `trajectory` with `start` in its start pose.
    pub fn new(kind: SolverKind, start: &Chain, trajectory: Trajectory) -> Tracker {
        let reach = start.reach();
        Tracker {
            posing: Posing::new(kind, start),
            trajectory,
            params: SolveParams {
                tolerance: TOLERANCE_FRACTION * reach,
                max_iterations: ITERATIONS_PER_STEP,
                ..SolveParams::default()
            },
            step: 0,
            last_move: vec![Vec3::ZERO; start.joints().len().saturating_sub(2)],
            still: STILL_FRACTION * reach,
        }
    }

    /// The chain and its solver.
    pub fn posing(&self) -> &Posing {
        &self.posing
    }

    /// The chain and its solver, to switch the solver or the limits
    /// between steps.
    pub fn posing_mut(&mut self) -> &mut Posing {
        &mut self.posing
    }

    /// The trajectory followed.
    pub fn trajectory(&self) -> &Trajectory {
        &self.trajectory
    }

    /// Steps taken.
    pub fn steps(&self) -> usize {
        self.step
    }

    /// Moves the target one step along the trajectory and solves.
    pub fn step(&mut self) -> TrackFrame {
        let s = self.step;
        self.step += 1;
        let target = self.trajectory.at(s);
        let report = self.posing.solve(target, &self.params);
        let error = (report.error - self.trajectory.unreachable_by(s)).max(0.0);
        let mut frame = TrackFrame {
            step: s,
            target,
            report,
            error,
            jump: None,
            reversals: 0,
        };
        if s == 0 {
            return frame;
        }
        let inner = self.last_move.len();
        let mut jump: f32 = 0.0;
        let (now, before) = (self.posing.chain().joints(), self.posing.before());
        for (i, (now, was)) in now[1..=inner].iter().zip(&before[1..=inner]).enumerate() {
            let step = *now - *was;
            jump = jump.max(step.length());
            if step.length() > self.still {
                if self.last_move[i].length() > self.still && step.dot(self.last_move[i]) < 0.0 {
                    frame.reversals += 1;
                }
                self.last_move[i] = step;
            }
        }
        frame.jump = Some(jump);
        frame
    }
}

/// One solver along the trajectory.
pub fn track(kind: SolverKind, start: &Chain, trajectory: &Trajectory, steps: usize) -> TrackRow {
    let mut tracker = Tracker::new(kind, start, *trajectory);
    let (mut error_sum, mut iterations, mut jump_max, mut reversals) = (0f64, 0u64, 0f32, 0u64);
    for _ in 0..steps {
        let frame = tracker.step();
        iterations += u64::from(frame.report.iterations);
        error_sum += f64::from(frame.error);
        jump_max = jump_max.max(frame.jump.unwrap_or(0.0));
        reversals += u64::from(frame.reversals);
    }
    TrackRow {
        solver: kind.name().to_string(),
        steps,
        error_mean: error_sum / steps as f64,
        iterations_mean: iterations as f64 / steps as f64,
        joint_jump_max: f64::from(jump_max),
        reversals,
    }
}
