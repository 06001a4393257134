//! The lab screen's experiment, step by step: the report's chain tracking
//! its sine trajectory, or the thesis' arm pressing its buttons, with the
//! solver and the joint limits switchable while it runs.
//!
//! This is the experiments' own stepping ([`Tracker`], [`Presser`]) plus
//! what a screen wants to show: the last steps' iterations, error and joint
//! jumps, the fingertip's recent path, which buttons were pressed. Nothing
//! here draws or reads a clock; the screen calls [`LabScene::step`] at
//! [`STEPS_PER_SECOND`].

use std::collections::VecDeque;

use glam::Vec3;

use super::LabError;
use super::constraints::CONE_DEG;
use super::reach::{Presser, arm, arm_limits};
use super::track::{Tracker, Trajectory};
use crate::ik::experiment::Setup;
use crate::ik::{Chain, JointLimit, SolverKind};

/// Steps per second of the lab screen: the thesis' 60 frames a second (a
/// press then takes its 0.5 s each way, and the trajectory's 400-step
/// swing 6.7 s).
pub const STEPS_PER_SECOND: f64 = 60.0;
/// Steps of history kept for the charts: 10 s.
pub const HISTORY_STEPS: usize = 600;
/// Positions of the end effector kept for its trail: 1.5 s.
pub const TRAIL_STEPS: usize = 90;

/// What the lab screen poses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rig {
    /// The report's chain (10 bones, 900 mm) tracking a target on a sine
    /// trajectory (`lab track`).
    Chain,
    /// The thesis' arm pressing buttons on a wall (`lab reach`).
    Arm,
}

impl Rig {
    /// The other rig.
    pub fn other(self) -> Rig {
        match self {
            Rig::Chain => Rig::Arm,
            Rig::Arm => Rig::Chain,
        }
    }

    /// Name for the screen.
    pub fn name(self) -> &'static str {
        match self {
            Rig::Chain => "chain tracking a sine",
            Rig::Arm => "arm pressing buttons",
        }
    }
}

/// One step's figures, for the charts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Steps since the scene started.
    pub step: u64,
    /// Iterations the solver spent.
    pub iterations: u32,
    /// Distance from the end to the target beyond what the chain can do,
    /// millimetres.
    pub error_mm: f32,
    /// Largest distance a joint moved this step, millimetres (0 on a first
    /// step, which is a cold start).
    pub jump_mm: f32,
    /// Whether the solver reached the target.
    pub reached: bool,
}

enum Motion {
    Track(Tracker),
    Press {
        presser: Presser,
        /// Whether each button was hit on the current lap.
        hit: Vec<bool>,
        /// Laps through the whole sequence finished.
        laps: u32,
    },
}

/// The lab screen's experiment and its recent history.
pub struct LabScene {
    rig: Rig,
    seed: u64,
    buttons: Option<Vec<Vec3>>,
    motion: Motion,
    limited: bool,
    steps: u64,
    history: VecDeque<Sample>,
    trail: VecDeque<Vec3>,
    target: Vec3,
}

// Solvers are trait objects without `Debug`; the rig, solver and step say
// where the scene is.
impl std::fmt::Debug for LabScene {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LabScene")
            .field("rig", &self.rig)
            .field("solver", &self.solver())
            .field("limited", &self.limited)
            .field("steps", &self.steps)
            .finish_non_exhaustive()
    }
}

impl LabScene {
    /// `rig` posed by `kind` (or the first solver that can pose it), its
    /// targets from `seed`; the arm presses `buttons` when given, else 12
    /// seeded ones. Joint limits start on.
    pub fn new(
        rig: Rig,
        kind: SolverKind,
        seed: u64,
        buttons: Option<Vec<Vec3>>,
    ) -> Result<LabScene, LabError> {
        let motion = motion(rig, kind, seed, buttons.as_deref(), true)?;
        let mut scene = LabScene {
            rig,
            seed,
            buttons,
            motion,
            limited: true,
            steps: 0,
            history: VecDeque::with_capacity(HISTORY_STEPS),
            trail: VecDeque::with_capacity(TRAIL_STEPS),
            target: Vec3::ZERO,
        };
        scene.target = scene.chain().end();
        Ok(scene)
    }

    /// Sets `rig` up afresh from its start pose with `kind` (or the first
    /// solver that can pose it), keeping the limits setting.
    fn rebuild(&mut self, rig: Rig, kind: SolverKind) -> Result<(), LabError> {
        self.motion = motion(rig, kind, self.seed, self.buttons.as_deref(), self.limited)?;
        self.rig = rig;
        self.steps = 0;
        self.history.clear();
        self.trail.clear();
        self.target = self.chain().end();
        Ok(())
    }

    /// Starts the current rig again from its start pose.
    pub fn restart(&mut self) -> Result<(), LabError> {
        self.rebuild(self.rig, self.solver())
    }

    /// Switches to the other rig, keeping the solver where it can pose it.
    pub fn switch_rig(&mut self) -> Result<(), LabError> {
        self.rebuild(self.rig.other(), self.solver())
    }

    /// Uses the next seed: a new start pose and trajectory, or new buttons
    /// (a button file's buttons stay).
    pub fn next_seed(&mut self) -> Result<(), LabError> {
        self.seed = self.seed.wrapping_add(1);
        self.restart()
    }

    /// The rig shown.
    pub fn rig(&self) -> Rig {
        self.rig
    }

    /// The seed of the start pose, trajectory and seeded buttons.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Whether the joint limits are on.
    pub fn limited(&self) -> bool {
        self.limited
    }

    /// Turns the joint limits on or off; the pose is kept, and the next
    /// step solves with the new setting.
    pub fn set_limited(&mut self, limited: bool) -> Result<(), LabError> {
        let limits = limits(self.rig, limited, self.chain());
        let chain = match &mut self.motion {
            Motion::Track(tracker) => tracker.posing_mut().chain_mut(),
            Motion::Press { presser, .. } => presser.posing_mut().chain_mut(),
        };
        // The arm's hinge axis is read against the rest pose the chain was
        // built in, which a pose change does not touch.
        chain.set_limits(&limits)?;
        self.limited = limited;
        Ok(())
    }

    /// The solver posing the rig.
    pub fn solver(&self) -> SolverKind {
        match &self.motion {
            Motion::Track(tracker) => tracker.posing().kind(),
            Motion::Press { presser, .. } => presser.posing().kind(),
        }
    }

    /// Switches to the next solver in [`SolverKind::ALL`] that can pose the
    /// rig, keeping the pose; returns it.
    pub fn cycle_solver(&mut self) -> SolverKind {
        let mut kind = self.solver();
        for _ in 0..SolverKind::ALL.len() {
            kind = kind.next();
            let switched = match &mut self.motion {
                Motion::Track(tracker) => tracker.posing_mut().set_solver(kind),
                Motion::Press { presser, .. } => presser.posing_mut().set_solver(kind),
            };
            if switched.is_ok() {
                return kind;
            }
        }
        self.solver()
    }

    /// Every solver that can pose the rig, in [`SolverKind::ALL`] order.
    pub fn usable_solvers(&self) -> Vec<SolverKind> {
        SolverKind::ALL
            .into_iter()
            .filter(|k| k.build().supports(self.chain()).is_ok())
            .collect()
    }

    /// The chain as posed by the last step.
    pub fn chain(&self) -> &Chain {
        match &self.motion {
            Motion::Track(tracker) => tracker.posing().chain(),
            Motion::Press { presser, .. } => presser.posing().chain(),
        }
    }

    /// The last step's target (the end's rest position before the first).
    pub fn target(&self) -> Vec3 {
        self.target
    }

    /// Millimetres per unit of the rig's length (the chain is built in
    /// millimetres, the arm in metres).
    pub fn mm_per_unit(&self) -> f32 {
        match self.rig {
            Rig::Chain => 1.0,
            Rig::Arm => 1000.0,
        }
    }

    /// The buttons, which were hit this lap, the one being pressed, and the
    /// laps finished: for the arm only.
    pub fn buttons(&self) -> Option<(&[Vec3], &[bool], usize, u32)> {
        match &self.motion {
            Motion::Press {
                presser, hit, laps, ..
            } => Some((presser.buttons(), hit, presser.current_button(), *laps)),
            Motion::Track(_) => None,
        }
    }

    /// Steps since the rig started.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The last [`HISTORY_STEPS`] steps' figures, oldest first.
    pub fn history(&self) -> &VecDeque<Sample> {
        &self.history
    }

    /// The end effector's last [`TRAIL_STEPS`] positions, oldest first.
    pub fn trail(&self) -> &VecDeque<Vec3> {
        &self.trail
    }

    /// One step: the target moves on and the solver re-solves from the
    /// previous pose. The arm starts its sequence again after the last
    /// button.
    pub fn step(&mut self) {
        let mm = self.mm_per_unit();
        let sample = match &mut self.motion {
            Motion::Track(tracker) => {
                let frame = tracker.step();
                self.target = frame.target;
                Sample {
                    step: self.steps,
                    iterations: frame.report.iterations,
                    error_mm: frame.error * mm,
                    jump_mm: frame.jump.unwrap_or(0.0) * mm,
                    reached: frame.report.reached,
                }
            }
            Motion::Press {
                presser, hit, laps, ..
            } => {
                if presser.finished() {
                    presser.restart();
                    hit.iter_mut().for_each(|h| *h = false);
                    *laps += 1;
                }
                // Not finished (just restarted if it was), and a sequence is
                // never empty, so a frame comes.
                let Some(frame) = presser.step() else {
                    return;
                };
                if frame.arrived.is_some() {
                    hit[frame.button] = true;
                }
                self.target = frame.target;
                Sample {
                    step: self.steps,
                    iterations: frame.report.iterations,
                    error_mm: frame.report.error * mm,
                    jump_mm: frame.jump * mm,
                    reached: frame.report.reached,
                }
            }
        };
        self.steps += 1;
        if self.history.len() == HISTORY_STEPS {
            self.history.pop_front();
        }
        self.history.push_back(sample);
        if self.trail.len() == TRAIL_STEPS {
            self.trail.pop_front();
        }
        let end = self.chain().end();
        self.trail.push_back(end);
    }

    /// The point the screen centres on, the radius it must show, and the
    /// heading its side and front views turn with: for the chain, the side
    /// view looks across the plane its target sways in (as squarely as a
    /// level view can); for the arm, the heading is toward the wall.
    pub fn frame(&self) -> (Vec3, f32, Vec3) {
        let chain = self.chain();
        match &self.motion {
            Motion::Track(tracker) => {
                let n = tracker.trajectory().plane_normal();
                // The side view looks along -(heading × up); this heading
                // makes that the normal's level part.
                let heading = Vec3::new(-n.z, 0.0, n.x);
                (chain.root(), 1.1 * chain.reach(), heading)
            }
            Motion::Press { .. } => (
                chain.root() + Vec3::new(0.5 * super::reach::WALL_X, 0.0, 0.0),
                0.75 * chain.reach(),
                Vec3::X,
            ),
        }
    }

    /// The view that shows the rig best: the side view, unless the chain's
    /// target sways in a nearly level plane, which the top view shows whole.
    pub fn best_view(&self) -> crate::render::ViewKind {
        match &self.motion {
            Motion::Track(tracker) if tracker.trajectory().plane_normal().y.abs() > 0.7 => {
                crate::render::ViewKind::Top
            }
            _ => crate::render::ViewKind::Side,
        }
    }
}

/// The report's chain in the seed's start pose (the one `lab track` uses).
fn chain_start(seed: u64) -> Chain {
    let mut cases = Setup::LAB_REACHABLE.cases(seed, 1);
    // One case was asked for, so there is one.
    cases.remove(0).chain
}

/// The joint limits `rig` carries when `limited`: the `lab constraints`
/// cones on the chain, the elbow hinge and wrist cone on the arm.
fn limits(rig: Rig, limited: bool, chain: &Chain) -> Vec<JointLimit> {
    match (limited, rig) {
        (false, _) => Vec::new(),
        (true, Rig::Arm) => arm_limits().to_vec(),
        (true, Rig::Chain) => vec![
            JointLimit::Cone {
                max: CONE_DEG.to_radians()
            };
            chain.bone_count() - 1
        ],
    }
}

/// `rig` in its start pose, with its limits when `limited`, posed by `kind`
/// or, if `kind` cannot pose it, by the first solver that can.
fn motion(
    rig: Rig,
    kind: SolverKind,
    seed: u64,
    buttons: Option<&[Vec3]>,
    limited: bool,
) -> Result<Motion, LabError> {
    let mut start = match rig {
        Rig::Chain => chain_start(seed),
        Rig::Arm => arm()?,
    };
    start.set_limits(&limits(rig, limited, &start))?;
    // FABRIK poses any chain, so the search always ends.
    let kind = std::iter::once(kind)
        .chain(SolverKind::ALL)
        .find(|k| k.build().supports(&start).is_ok())
        .unwrap_or(SolverKind::Fabrik);
    Ok(match rig {
        Rig::Chain => {
            let trajectory = Trajectory::new(&start, seed);
            Motion::Track(Tracker::new(kind, &start, trajectory))
        }
        Rig::Arm => {
            let buttons = match buttons {
                Some(list) if !list.is_empty() => list.to_vec(),
                _ => super::reach::buttons(seed, super::reach::DEFAULT_BUTTONS, start.reach()),
            };
            Motion::Press {
                hit: vec![false; buttons.len()],
                presser: Presser::new(kind, &start, buttons),
                laps: 0,
            }
        }
    })
}
