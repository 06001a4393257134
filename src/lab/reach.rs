//! `lab reach`: the spider thesis' second use case (§4.3, §5): an arm in
//! front of a wall presses a sequence of buttons.
//!
//! As in the thesis' `PressButton` coroutine, the IK target moves linearly
//! from the hand's ready position to the button over a fixed duration, then
//! back, one frame at a time, and the arm is re-solved every frame. The arm
//! has three bones (upper arm, forearm, hand); the elbow is a hinge that
//! bends one way only, the wrist a cone.

use glam::Vec3;
use serde::Serialize;

use super::{LabError, Options, Row, Table, fmt_opt};
use crate::ik::{Chain, JointLimit, SolveParams, SolverKind};
use crate::math::SplitMix64;

/// Buttons pressed unless `--cases` says otherwise.
pub const DEFAULT_BUTTONS: usize = 12;
/// Frames per second of the animation.
pub const FPS: f32 = 60.0;
/// Seconds the target takes from the ready position to a button (and back).
pub const MOVE_SECONDS: f32 = 0.5;
/// A button counts as pressed when the fingertip comes this close, metres.
pub const HIT_RADIUS: f32 = 0.01;
/// Iterations each solver may spend per frame.
pub const ITERATIONS_PER_FRAME: u32 = 20;
/// IK tolerance per frame, metres.
pub const TOLERANCE: f32 = 1e-3;
/// The wall is the plane x = this, metres in front of the shoulder.
pub const WALL_X: f32 = 0.45;
/// Elbow range, degrees: straight to fully bent, never backwards.
pub const ELBOW_DEG: (f32, f32) = (0.0, 150.0);
/// Wrist cone, degrees.
pub const WRIST_DEG: f32 = 70.0;

/// One solver pressing the button sequence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReachRow {
    /// Solver name.
    pub solver: String,
    /// Buttons in the sequence.
    pub buttons: usize,
    /// Buttons the fingertip came within [`HIT_RADIUS`] of.
    pub hit: usize,
    /// Mean time from the start of a press to the fingertip's arrival, over
    /// the buttons hit, seconds (none when no button was hit).
    pub time_mean: Option<f64>,
    /// Largest distance any joint moved between two frames, metres.
    pub joint_jump_max: f64,
    /// Largest joint-limit violation seen in any frame, degrees.
    pub limit_violation_max: f64,
}

impl Row for ReachRow {
    const COLUMNS: &'static [&'static str] = &[
        "solver",
        "buttons",
        "hit",
        "time mean (s)",
        "joint jump max (m)",
        "limit violation max (°)",
    ];

    fn cells(&self) -> Vec<String> {
        vec![
            self.solver.clone(),
            self.buttons.to_string(),
            self.hit.to_string(),
            fmt_opt(self.time_mean, 3),
            format!("{:.4}", self.joint_jump_max),
            format!("{:.3}", self.limit_violation_max),
        ]
    }
}

/// The arm at rest: shoulder at the origin, upper arm hanging forward and
/// down, forearm raised toward the wall, hand pointing at it; elbow and
/// wrist limited.
pub fn arm() -> Result<Chain, LabError> {
    let upper = Vec3::new(0.2, -1.0, 0.0).normalize() * 0.30;
    let fore = Vec3::new(1.0, 0.3, 0.0).normalize() * 0.27;
    let hand = Vec3::new(1.0, 0.1, 0.0).normalize() * 0.09;
    let elbow = upper;
    let wrist = elbow + fore;
    let mut chain = Chain::new(vec![Vec3::ZERO, elbow, wrist, wrist + hand])?;
    // The elbow bends in the plane of upper arm and forearm, toward the
    // forearm: the axis is their cross product, so the rest bend is positive.
    let axis = upper.cross(fore).normalize();
    chain.set_limits(&[
        JointLimit::Hinge {
            axis,
            min: ELBOW_DEG.0.to_radians(),
            max: ELBOW_DEG.1.to_radians(),
        },
        JointLimit::Cone {
            max: WRIST_DEG.to_radians(),
        },
    ])?;
    Ok(chain)
}

/// `count` buttons on the wall from `seed`, each within 90% of the arm's reach.
pub fn buttons(seed: u64, count: usize, reach: f32) -> Vec<Vec3> {
    let mut rng = SplitMix64::new(seed ^ 0xB077);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let button = Vec3::new(WALL_X, rng.range(-0.25, 0.35), rng.range(-0.3, 0.3));
        if button.length() <= 0.9 * reach {
            out.push(button);
        }
    }
    out
}

/// Runs every solver that can pose the arm through the button sequence.
pub fn run(options: &Options) -> Result<Table<ReachRow>, LabError> {
    let count = options.cases_or(DEFAULT_BUTTONS, 10_000)?;
    let arm = arm()?;
    let buttons = buttons(options.seed, count, arm.reach());
    let mut rows = Vec::new();
    for kind in SolverKind::ALL {
        if kind.build().supports(&arm).is_err() {
            continue;
        }
        rows.push(press(kind, &arm, &buttons));
    }
    Ok(Table {
        title: format!(
            "Pressing {count} buttons on a wall (seed {}, arm 0.30 + 0.27 + 0.09 m)",
            options.seed
        ),
        rows,
        notes: vec![format!(
            "Buttons lie on the wall x = {WALL_X} m in front of the shoulder. Each press moves the \
             target linearly from the ready position (the hand at rest) to the button in \
             {MOVE_SECONDS} s and back, at {FPS} frames per second, with {ITERATIONS_PER_FRAME} \
             iterations per frame to {TOLERANCE} m. A button is hit when the fingertip comes within \
             {HIT_RADIUS} m of it while the target is on its way there or arriving. The elbow is a \
             hinge of {}° to {}°, the wrist a {WRIST_DEG}° cone.",
            ELBOW_DEG.0, ELBOW_DEG.1
        )],
    })
}

/// One solver through the whole sequence.
pub fn press(kind: SolverKind, arm: &Chain, buttons: &[Vec3]) -> ReachRow {
    let mut solver = kind.build();
    let mut chain = arm.clone();
    let ready = arm.end();
    let params = SolveParams {
        tolerance: TOLERANCE,
        max_iterations: ITERATIONS_PER_FRAME,
        ..SolveParams::default()
    };
    let frames = (MOVE_SECONDS * FPS).round() as usize;
    let (mut hit, mut time_sum, mut jump_max, mut violation_max) = (0usize, 0f64, 0f32, 0f32);
    let mut frame = |chain: &mut Chain, target: Vec3| {
        let before: Vec<Vec3> = chain.joints().to_vec();
        solver.solve(chain, target, &params);
        for (now, was) in chain.joints().iter().zip(&before) {
            jump_max = jump_max.max(now.distance(*was));
        }
        violation_max = violation_max.max(chain.limit_violation().to_degrees());
    };
    for button in buttons {
        let mut arrived = None;
        for f in 1..=frames {
            let t = f as f32 / frames as f32;
            frame(&mut chain, ready.lerp(*button, t));
            if arrived.is_none() && chain.end().distance(*button) <= HIT_RADIUS {
                arrived = Some(f as f64 / f64::from(FPS));
            }
        }
        if let Some(time) = arrived {
            hit += 1;
            time_sum += time;
        }
        for f in 1..=frames {
            let t = f as f32 / frames as f32;
            frame(&mut chain, button.lerp(ready, t));
        }
    }
    ReachRow {
        solver: kind.name().to_string(),
        buttons: buttons.len(),
        hit,
        time_mean: (hit > 0).then(|| time_sum / hit as f64),
        joint_jump_max: f64::from(jump_max),
        limit_violation_max: f64::from(violation_max),
    }
}
