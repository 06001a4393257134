//! `lab reach`: the spider thesis' second use case (§4.3, §5): an arm in
//! front of a wall presses a sequence of buttons.
//!
//! As in the thesis' `PressButton` coroutine, the IK target moves linearly
//! from the hand's ready position to the button over a fixed duration, then
//! back, one frame at a time, and the arm is re-solved every frame. The arm
//! has three bones (upper arm, forearm, hand); the elbow is a hinge that
//! bends one way only, the wrist a cone.

use glam::{Vec2, Vec3};
use serde::Serialize;

use super::posing::Posing;
use super::{LabError, Options, Row, Table, fmt_opt};
use crate::ik::{Chain, JointLimit, SolveParams, SolveReport, SolverKind};
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
/// Iterations a solver may spend reaching one button from the rest pose when
/// the experiment checks which buttons the arm can reach at all.
pub const REACHABILITY_ITERATIONS: u32 = 2000;

/// One solver pressing the button sequence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReachRow {
    /// Solver name.
    pub solver: String,
    /// Buttons in the sequence.
    pub buttons: usize,
    /// Buttons the arm can reach at all, keeping its limits: those some
    /// solver reaches from the rest pose given [`REACHABILITY_ITERATIONS`]
    /// (the same for every row).
    pub reachable: usize,
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
        "reachable",
        "hit",
        "time mean (s)",
        "joint jump max (m)",
        "limit violation max (°)",
    ];

    fn cells(&self) -> Vec<String> {
        vec![
            self.solver.clone(),
            self.buttons.to_string(),
            self.reachable.to_string(),
            self.hit.to_string(),
            fmt_opt(self.time_mean, 3),
            format!("{:.4}", self.joint_jump_max),
            format!("{:.3}", self.limit_violation_max),
        ]
    }
}

/// The arm's bones at rest, shoulder outward: upper arm hanging forward
/// and down, forearm raised toward the wall, hand pointing at it (metres).
fn rest_bones() -> [Vec3; 3] {
    [
        Vec3::new(0.2, -1.0, 0.0).normalize() * 0.30,
        Vec3::new(1.0, 0.3, 0.0).normalize() * 0.27,
        Vec3::new(1.0, 0.1, 0.0).normalize() * 0.09,
    ]
}

/// The limits [`arm`] carries: an elbow hinge that bends one way only, and
/// a wrist cone.
pub fn arm_limits() -> [JointLimit; 2] {
    let [upper, fore, _] = rest_bones();
    [
        JointLimit::Hinge {
            // The elbow bends in the plane of upper arm and forearm, toward
            // the forearm: the axis is their cross product, so the rest bend
            // is positive.
            axis: upper.cross(fore).normalize(),
            min: ELBOW_DEG.0.to_radians(),
            max: ELBOW_DEG.1.to_radians(),
        },
        JointLimit::Cone {
            max: WRIST_DEG.to_radians(),
        },
    ]
}

/// The arm at rest, shoulder at the origin, elbow and wrist limited
/// ([`arm_limits`]).
pub fn arm() -> Result<Chain, LabError> {
    let [upper, fore, hand] = rest_bones();
    let mut chain = Chain::new(vec![Vec3::ZERO, upper, upper + fore, upper + fore + hand])?;
    chain.set_limits(&arm_limits())?;
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

/// Buttons given as (y, z) on the wall (a `--buttons` file), as points.
pub fn buttons_on_wall(on_wall: &[Vec2]) -> Vec<Vec3> {
    on_wall
        .iter()
        .map(|b| Vec3::new(WALL_X, b.x, b.y))
        .collect()
}

/// Whether the arm can put its fingertip on `button` at all, keeping its
/// limits: whether any solver reaches it from the rest pose within
/// [`HIT_RADIUS`], given [`REACHABILITY_ITERATIONS`].
pub fn reachable(arm: &Chain, button: Vec3) -> bool {
    let params = SolveParams {
        tolerance: TOLERANCE,
        max_iterations: REACHABILITY_ITERATIONS,
        ..SolveParams::default()
    };
    SolverKind::ALL.into_iter().any(|kind| {
        let mut solver = kind.build();
        if solver.supports(arm).is_err() {
            return false;
        }
        let mut chain = arm.clone();
        solver.solve(&mut chain, button, &params);
        chain.end().distance(button) <= HIT_RADIUS
    })
}

/// Runs every solver that can pose the arm through `count` seeded buttons,
/// or through `given` ones (from a `--buttons` file) when there are any.
pub fn run(options: &Options, given: Option<&[Vec3]>) -> Result<Table<ReachRow>, LabError> {
    let arm = arm()?;
    let (buttons, source) = match given {
        Some(list) => {
            if options.cases.is_some() {
                return Err(LabError::BadOption {
                    option: "--cases",
                    message: "does not go with --buttons: the file says how many buttons there \
                              are"
                    .into(),
                });
            }
            if options.seed.is_some() {
                return Err(LabError::BadOption {
                    option: "--seed",
                    message: "does not go with --buttons: the seed only places seeded buttons, \
                              and the file places them"
                        .into(),
                });
            }
            if list.is_empty() || list.len() > crate::config::MAX_BUTTONS {
                return Err(LabError::BadOption {
                    option: "--buttons",
                    message: format!(
                        "must list from 1 to {} buttons, got {}",
                        crate::config::MAX_BUTTONS,
                        list.len()
                    ),
                });
            }
            (list.to_vec(), "from the file".to_string())
        }
        None => {
            let count = options.cases_or(DEFAULT_BUTTONS, crate::config::MAX_BUTTONS)?;
            let seed = options.seed();
            (buttons(seed, count, arm.reach()), format!("seed {seed}"))
        }
    };
    let reachable = buttons.iter().filter(|b| reachable(&arm, **b)).count();
    let mut rows = Vec::new();
    for kind in SolverKind::ALL {
        if kind.build().supports(&arm).is_err() {
            continue;
        }
        let mut row = press(kind, &arm, &buttons);
        row.reachable = reachable;
        rows.push(row);
    }
    Ok(Table {
        title: format!(
            "Pressing {} on a wall ({source}, arm 0.30 + 0.27 + 0.09 m)",
            crate::text::counted(buttons.len(), "button")
        ),
        rows,
        notes: vec![
            format!(
                "Buttons lie on the wall x = {WALL_X} m in front of the shoulder. Each press moves \
                 the target linearly from the ready position (the hand at rest) to the button in \
                 {MOVE_SECONDS} s and back, at {FPS} frames per second, with \
                 {ITERATIONS_PER_FRAME} iterations per frame to {TOLERANCE} m. A button is hit \
                 when the fingertip comes within {HIT_RADIUS} m of it while the target is on its \
                 way there or arriving. The elbow is a hinge of {}° to {}°, the wrist a \
                 {WRIST_DEG}° cone.",
                ELBOW_DEG.0, ELBOW_DEG.1
            ),
            format!(
                "Reachable: buttons some solver puts the fingertip on from the rest pose, limits \
                 kept, given {REACHABILITY_ITERATIONS} iterations; a solver can hit no more."
            ),
        ],
    })
}

/// One frame of a press sequence: what the solver was asked and what it did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PressFrame {
    /// The button being pressed (index into the sequence).
    pub button: usize,
    /// Whether the target is on its way to the button (else back to ready).
    pub outward: bool,
    /// Where the target was this frame.
    pub target: Vec3,
    /// The solver's report.
    pub report: SolveReport,
    /// Largest distance any joint moved this frame, metres.
    pub jump: f32,
    /// Largest joint-limit violation after the frame, radians.
    pub violation: f32,
    /// Seconds from the start of the press, if the fingertip reached the
    /// button for the first time this press in this frame.
    pub arrived: Option<f64>,
}

/// An arm pressing a button sequence frame by frame, as the thesis'
/// `PressButton` coroutine does: the experiment runs it to the end, the lab
/// screen one frame per tick.
#[derive(Debug)]
pub struct Presser {
    posing: Posing,
    ready: Vec3,
    buttons: Vec<Vec3>,
    params: SolveParams,
    frames: usize,
    button: usize,
    /// Frames into the current press: 1..=frames out, frames+1..=2·frames back.
    frame: usize,
    arrived: bool,
}

impl Presser {
    /// `kind` posing `arm` (in its ready pose) through `buttons`, from the
    /// first. `buttons` must not be empty.
    pub fn new(kind: SolverKind, arm: &Chain, buttons: Vec<Vec3>) -> Presser {
        Presser {
            posing: Posing::new(kind, arm),
            ready: arm.end(),
            buttons,
            params: SolveParams {
                tolerance: TOLERANCE,
                max_iterations: ITERATIONS_PER_FRAME,
                ..SolveParams::default()
            },
            frames: (MOVE_SECONDS * FPS).round() as usize,
            button: 0,
            frame: 0,
            arrived: false,
        }
    }

    /// The arm and its solver.
    pub fn posing(&self) -> &Posing {
        &self.posing
    }

    /// The arm and its solver, to switch the solver or the limits between
    /// frames.
    pub fn posing_mut(&mut self) -> &mut Posing {
        &mut self.posing
    }

    /// The button sequence.
    pub fn buttons(&self) -> &[Vec3] {
        &self.buttons
    }

    /// The button being pressed now (the next one, between presses).
    pub fn current_button(&self) -> usize {
        self.button
    }

    /// Whether every button has been pressed (and the hand is back).
    pub fn finished(&self) -> bool {
        self.button >= self.buttons.len()
    }

    /// Starts the sequence again from the first button, keeping the pose.
    pub fn restart(&mut self) {
        self.button = 0;
        self.frame = 0;
        self.arrived = false;
    }

    /// Moves the target one frame along the press and solves; `None` once
    /// the sequence is finished.
    pub fn step(&mut self) -> Option<PressFrame> {
        let button = *self.buttons.get(self.button)?;
        self.frame += 1;
        let outward = self.frame <= self.frames;
        let target = if outward {
            self.ready
                .lerp(button, self.frame as f32 / self.frames as f32)
        } else {
            let back = self.frame - self.frames;
            button.lerp(self.ready, back as f32 / self.frames as f32)
        };
        let report = self.posing.solve(target, &self.params);
        let jump = self.posing.jump();
        let end = self.posing.chain().end();
        let arrived = (outward && !self.arrived && end.distance(button) <= HIT_RADIUS)
            .then(|| self.frame as f64 / f64::from(FPS));
        self.arrived |= arrived.is_some();
        let frame = PressFrame {
            button: self.button,
            outward,
            target,
            report,
            jump,
            violation: self.posing.chain().limit_violation(),
            arrived,
        };
        if self.frame == 2 * self.frames {
            self.button += 1;
            self.frame = 0;
            self.arrived = false;
        }
        Some(frame)
    }
}

/// One solver through the whole sequence.
pub fn press(kind: SolverKind, arm: &Chain, buttons: &[Vec3]) -> ReachRow {
    let mut presser = Presser::new(kind, arm, buttons.to_vec());
    let (mut hit, mut time_sum, mut jump_max, mut violation_max) = (0usize, 0f64, 0f32, 0f32);
    while let Some(frame) = presser.step() {
        jump_max = jump_max.max(frame.jump);
        violation_max = violation_max.max(frame.violation.to_degrees());
        if let Some(time) = frame.arrived {
            hit += 1;
            time_sum += time;
        }
    }
    ReachRow {
        solver: kind.name().to_string(),
        buttons: buttons.len(),
        reachable: 0,
        hit,
        time_mean: (hit > 0).then(|| time_sum / hit as f64),
        joint_jump_max: f64::from(jump_max),
        limit_violation_max: f64::from(violation_max),
    }
}
