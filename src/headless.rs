//! Headless runs: the simulation without a terminal, as fast as it goes, with
//! a JSON summary at the end and an optional JSON-lines trace of every step.

use std::io::Write;
use std::num::NonZeroU64;
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;

use crate::config::{Scene, Script, steps_for};
use crate::creature::{CreatureSpec, LegPhase};
use crate::ik::SolverKind;
use crate::sim::{Command, Spawn, Summary, ThreadsError, Timeline, World};
use crate::terrain::{Heightfield, TerrainSpec};

/// How long to run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RunLength {
    /// Simulated seconds: the run's length without a script; with one, the
    /// most it lasts (a longer script stops there, a shorter one ends the run).
    Seconds(f64),
    /// World steps, script or not (after a script ends the creature stands).
    Steps(u64),
    /// `steps` world steps, but no more than `seconds` simulated seconds.
    StepsWithin {
        /// World steps.
        steps: u64,
        /// The cap, in simulated seconds.
        seconds: f64,
    },
}

/// Default length of a run given neither a length nor a script.
pub const DEFAULT_SECONDS: f64 = 10.0;

/// Everything a headless run needs.
#[derive(Debug, Clone)]
pub struct HeadlessRun {
    /// The creature.
    pub creature: CreatureSpec,
    /// The terrain.
    pub terrain: TerrainSpec,
    /// Solver for every leg, overriding the creature file.
    pub solver: Option<SolverKind>,
    /// Run length; without one, the script's length (or 10 s).
    pub length: Option<RunLength>,
    /// Driver inputs over time; without one, walk forward throughout.
    pub script: Option<Script>,
    /// Copies of the creature.
    pub count: usize,
    /// A scene to run instead of `count` copies of `creature` on `terrain`:
    /// its kinds with their own scripts and solvers (`solver` and `script`
    /// then apply to the kinds that have none of their own).
    pub scene: Option<Scene>,
    /// Threads to step the creatures on (the figures do not depend on it).
    pub threads: usize,
}

/// Why a headless run could not start or finish.
#[derive(Debug, thiserror::Error)]
pub enum HeadlessError {
    /// A solver cannot pose some leg of the creature.
    #[error("{0}")]
    Solver(String),
    /// Writing the trace failed.
    #[error("cannot write the trace: {0}")]
    Trace(#[from] std::io::Error),
    /// The simulation threads could not start.
    #[error(transparent)]
    Threads(#[from] ThreadsError),
    /// Its drive scripts end before the first step (`forward 0s`, a lone
    /// `reset`): a run of no steps has no figures to report.
    #[error(
        "the drive script runs no steps (it lasts under half of one 1/120 s step); give an item a \
         duration, e.g. `forward 5s`, or the run its steps with --steps (the creature stands \
         once the script ends)"
    )]
    NoSteps,
}

impl HeadlessRun {
    /// The kinds of creature this run holds: the scene's, or the one
    /// creature; with the script each follows, if it has one of its own.
    fn kinds(&self) -> Vec<(&CreatureSpec, Option<&Script>)> {
        match &self.scene {
            Some(scene) => scene
                .kinds
                .iter()
                .map(|kind| (&kind.creature, kind.script.as_ref()))
                .collect(),
            None => vec![(&self.creature, None)],
        }
    }

    /// Checks that every requested solver can pose every leg of the kinds
    /// it applies to.
    fn check_solvers(&self) -> Result<(), HeadlessError> {
        for (creature, own_script) in self.kinds() {
            if let Some(kind) = self.solver {
                creature
                    .check_solver(kind, "--solver")
                    .map_err(HeadlessError::Solver)?;
            }
            if own_script.is_none()
                && let Some(script) = &self.script
            {
                script
                    .check_solvers(creature)
                    .map_err(|e| HeadlessError::Solver(e.to_string()))?;
            }
        }
        Ok(())
    }

    /// The world at its start: every creature placed, solvers set.
    fn world(&self) -> Result<World, HeadlessError> {
        let (terrain, spawns) = match &self.scene {
            Some(scene) => (
                &scene.terrain,
                scene
                    .kinds
                    .iter()
                    .map(|kind| Spawn {
                        spec: kind.creature.clone(),
                        spots: kind.spots.clone(),
                    })
                    .collect(),
            ),
            None => (
                &self.terrain,
                vec![Spawn::grid(
                    self.creature.clone(),
                    self.count.max(1),
                    glam::Vec2::ZERO,
                    0.0,
                )],
            ),
        };
        let terrain = Arc::new(Heightfield::generate(terrain));
        let mut world = World::from_spawns(terrain, spawns).with_threads(self.threads)?;
        if let Some(kind) = self.solver {
            // Checked by `check_solvers`: every leg supports it.
            let _ = world.apply(Command::SetSolver(kind));
        }
        // `--solver` is every leg's, a scene kind's own `solver` included,
        // as in the viewer (headless had let the kind's win).
        let kinds = self.scene.iter().flat_map(|s| &s.kinds);
        for (index, kind) in kinds.enumerate().filter(|_| self.solver.is_none()) {
            if let Some(solver) = kind.solver {
                // The scene loader checked it against this kind's legs.
                let _ = world.apply_to_kind(index, Command::SetSolver(solver));
            }
        }
        Ok(world)
    }

    /// What drives each kind, and how many steps the run lasts.
    fn timelines(&self, dt: f32) -> (Vec<Timeline>, u64) {
        // Through whole microseconds, like script items, so `--seconds 4`
        // and a 4 s script are the same number of steps. The cast saturates
        // (negative or NaN gives 0 steps).
        let to_steps = |seconds: f64| steps_for((seconds * 1e6).round() as u64, dt);
        let kinds = self.kinds();
        let timelines: Vec<Timeline> = kinds
            .iter()
            .map(|(_, own)| match own.or(self.script.as_ref()) {
                Some(script) => Timeline::from_script(script, dt),
                None => Timeline::constant(Command::Drive {
                    forward: 1.0,
                    turn: 0.0,
                }),
            })
            .collect();
        let scripted = kinds
            .iter()
            .any(|(_, own)| own.is_some() || self.script.is_some());
        // A scripted run lasts as long as its longest script.
        let natural = if scripted {
            kinds
                .iter()
                .zip(&timelines)
                .filter(|((_, own), _)| own.is_some() || self.script.is_some())
                .map(|(_, timeline)| timeline.end())
                .max()
                .unwrap_or(0)
        } else {
            to_steps(DEFAULT_SECONDS)
        };
        let total = match self.length {
            None => natural,
            Some(RunLength::Steps(n)) => n,
            Some(RunLength::Seconds(s)) if scripted => natural.min(to_steps(s)),
            Some(RunLength::Seconds(s)) => to_steps(s),
            Some(RunLength::StepsWithin { steps, seconds }) => steps.min(to_steps(seconds)),
        };
        (timelines, total)
    }
}

/// Runs the simulation; writes one JSON line per step to `trace` if given.
pub fn run(spec: &HeadlessRun, trace: Option<&mut dyn Write>) -> Result<Summary, HeadlessError> {
    run_with_trace_every(spec, trace, NonZeroU64::MIN)
}

/// Runs the simulation; writes one JSON line every `every` steps (after
/// steps `every`, `2 × every`, …) to `trace` if given.
pub fn run_with_trace_every(
    spec: &HeadlessRun,
    mut trace: Option<&mut dyn Write>,
    every: NonZeroU64,
) -> Result<Summary, HeadlessError> {
    spec.check_solvers()?;
    let mut world = spec.world()?;
    let (mut timelines, total) = spec.timelines(world.dt());
    if total == 0 {
        return Err(HeadlessError::NoSteps);
    }
    let started = Instant::now();
    for _ in 0..total {
        for (kind, timeline) in timelines.iter_mut().enumerate() {
            // Checked above: scripted solvers fit every leg, so nothing is refused.
            let _ = timeline.apply_due_to_kind(&mut world, kind);
        }
        world.step();
        if let Some(out) = trace
            .as_deref_mut()
            .filter(|_| world.metrics().steps.is_multiple_of(every.get()))
        {
            serde_json::to_writer(&mut *out, &TraceLine::of(&world))
                .map_err(std::io::Error::from)?;
            out.write_all(b"\n")?;
        }
    }
    if let Some(out) = trace {
        out.flush()?;
    }
    let mut summary = world.summary(started.elapsed().as_secs_f64());
    if let Some(scene) = &spec.scene {
        summary.scene = Some(scene.name.clone());
        // A script reads `kinds` from every scene's summary: one kind's
        // figures are the whole scene's.
        if summary.kinds.is_empty() {
            summary.kinds = vec![summary.clone()];
        }
        for (part, kind) in summary.kinds.iter_mut().zip(&scene.kinds) {
            part.scene = None;
            part.source = Some(kind.source.clone());
        }
    }
    Ok(summary)
}

/// Most foot slip a good run shows (metres): a planted foot moving more
/// than a millimetre is visibly skating.
pub const FOOT_SLIP_LIMIT: f32 = 0.001;
/// Most gap between a planted foot and the ground (metres): a centimetre.
pub const FOOT_GAP_LIMIT: f32 = 0.01;
/// Most change in a bone's length (metres).
pub const BONE_ERROR_LIMIT: f32 = 1e-4;
/// Most gait violations (a leg lifting while the gait forbids it): none.
pub const GAIT_VIOLATION_LIMIT: u64 = 0;

/// Every quality limit `summary` breaks, one line each naming the figure,
/// its value and the limit (empty for a good run). A NaN figure counts as
/// broken.
pub fn quality_breaches(summary: &Summary) -> Vec<String> {
    /// A figure in metres: its name, how to read it, its limit.
    type MetresLimit = (&'static str, fn(&Summary) -> f32, f32);
    let mut breaches = Vec::new();
    // In a scene of several kinds, which broke it (`creatures[0]`, from
    // the file `bug.toml`): the figure over all named none.
    let which = |broke: &dyn Fn(&Summary) -> bool| {
        if summary.kinds.len() < 2 {
            return String::new();
        }
        let kinds: Vec<String> = summary
            .kinds
            .iter()
            .enumerate()
            .filter(|(_, kind)| broke(kind))
            .map(|(i, kind)| {
                let source = kind.source.as_deref().unwrap_or(&kind.creature);
                format!("creatures[{i}] {source}")
            })
            .collect();
        format!(" (by {})", kinds.join(", "))
    };
    let metres: [MetresLimit; 3] = [
        ("foot_slip_max", |s| s.foot_slip_max, FOOT_SLIP_LIMIT),
        ("foot_gap_max", |s| s.foot_gap_max, FOOT_GAP_LIMIT),
        ("bone_error_max", |s| s.bone_error_max, BONE_ERROR_LIMIT),
    ];
    for (name, figure, limit) in metres {
        let broke = |s: &Summary| figure(s).is_nan() || figure(s) > limit;
        if broke(summary) {
            breaches.push(format!(
                "{name} {} m is over the limit of {limit} m{}",
                figure(summary),
                which(&broke)
            ));
        }
    }
    let broke = |s: &Summary| s.gait_violations > GAIT_VIOLATION_LIMIT;
    if broke(summary) {
        breaches.push(format!(
            "gait_violations {} is over the limit of {GAIT_VIOLATION_LIMIT}{}",
            summary.gait_violations,
            which(&broke)
        ));
    }
    breaches
}

/// Most body acceleration a natural walk shows (m/s²).
pub const BODY_ACCEL_LIMIT: f32 = 10.0;
/// Fastest a natural body tilts (degrees/s).
pub const TILT_RATE_LIMIT: f32 = 90.0;
/// Fastest a foot may be moving as it touches down (m/s): a soft landing.
pub const TOUCHDOWN_SPEED_LIMIT: f32 = 0.5;
/// Fastest any foot may move (m/s).
pub const FOOT_SPEED_LIMIT: f32 = 6.0;
/// Most of the steps with three or more feet down that may be statically
/// unstable.
pub const UNSTABLE_FRACTION_LIMIT: f64 = 0.01;

/// Every natural-motion limit `summary` breaks, one line each (empty for a
/// run that moves naturally): body acceleration, tilt rate, foot and
/// touchdown speeds, static stability, legs crossing each other or the
/// body. `--strict` does not check these (they are about how the motion
/// looks, not whether it is sound); the tests do.
pub fn motion_breaches(summary: &Summary) -> Vec<String> {
    let mut breaches = Vec::new();
    let mut over = |name: &str, value: f64, limit: f64, unit: &str| {
        if value.is_nan() || value > limit {
            breaches.push(format!(
                "{name} {value} {unit} is over the limit of {limit} {unit}"
            ));
        }
    };
    over(
        "body_accel_max",
        summary.body_accel_max.into(),
        BODY_ACCEL_LIMIT.into(),
        "m/s²",
    );
    over(
        "tilt_rate_max",
        summary.tilt_rate_max.into(),
        TILT_RATE_LIMIT.into(),
        "deg/s",
    );
    over(
        "touchdown_speed_max",
        summary.touchdown_speed_max.into(),
        TOUCHDOWN_SPEED_LIMIT.into(),
        "m/s",
    );
    over(
        "foot_speed_max",
        summary.foot_speed_max.into(),
        FOOT_SPEED_LIMIT.into(),
        "m/s",
    );
    over(
        "unstable_fraction",
        summary.unstable_fraction,
        UNSTABLE_FRACTION_LIMIT,
        "",
    );
    over("leg_crossings", summary.leg_crossings as f64, 0.0, "steps");
    over(
        "leg_body_intersections",
        summary.leg_body_intersections as f64,
        0.0,
        "steps",
    );
    breaches
}

/// One step of the trace: every creature's pose, feet and IK reports.
#[derive(Debug, Serialize)]
pub struct TraceLine {
    /// Step number (1 after the first step).
    pub step: u64,
    /// Simulated time.
    pub t: f64,
    /// Creatures.
    pub creatures: Vec<TraceCreature>,
}

/// A creature in the trace.
#[derive(Debug, Serialize)]
pub struct TraceCreature {
    /// Body centre, world coordinates.
    pub position: [f64; 3],
    /// Body orientation quaternion (x, y, z, w).
    pub orientation: [f32; 4],
    /// Legs.
    pub legs: Vec<TraceLeg>,
}

/// A leg in the trace.
#[derive(Debug, Serialize)]
pub struct TraceLeg {
    /// Leg name.
    pub name: String,
    /// `grounded`, `swinging` (lifted by the gait) or `hanging` (let go
    /// of ground it could not reach, looking for some).
    pub state: &'static str,
    /// Swing progress 0–1 (0 when grounded).
    pub progress: f32,
    /// Foot position, world coordinates.
    pub foot: [f64; 3],
    /// Desired foothold, world coordinates.
    pub desired: [f64; 3],
    /// Chain end after IK, world coordinates.
    pub end: [f64; 3],
    /// Every joint of the chain after IK, hip first, world coordinates.
    pub joints: Vec<[f64; 3]>,
    /// Solver used.
    pub solver: String,
    /// IK iterations.
    pub iterations: u32,
    /// IK error (metres).
    pub error: f32,
    /// Whether IK reached the foot.
    pub reached: bool,
}

impl TraceLine {
    /// The world's current state as a trace line.
    pub fn of(world: &World) -> TraceLine {
        let spacing = world.terrain().spacing();
        TraceLine {
            step: world.metrics().steps,
            t: world.time(),
            creatures: world
                .creatures()
                .iter()
                .map(|c| TraceCreature {
                    position: c.to_world_f64(spacing, c.body.position),
                    orientation: c.body.orientation.to_array(),
                    legs: c
                        .legs
                        .iter()
                        .zip(&c.spec().legs)
                        .map(|(leg, leg_spec)| TraceLeg {
                            name: leg_spec.name.clone(),
                            state: if leg.is_grounded() {
                                "grounded"
                            } else if leg.hanging {
                                "hanging"
                            } else {
                                "swinging"
                            },
                            progress: match leg.phase {
                                LegPhase::Grounded => 0.0,
                                LegPhase::Swinging { progress, .. } => progress,
                            },
                            foot: c.to_world_f64(spacing, leg.foot),
                            desired: c.to_world_f64(spacing, leg.desired),
                            end: c.to_world_f64(spacing, leg.chain.end()),
                            joints: leg
                                .chain
                                .joints()
                                .iter()
                                .map(|j| c.to_world_f64(spacing, *j))
                                .collect(),
                            solver: leg.solver.to_string(),
                            iterations: leg.report.iterations,
                            error: leg.report.error,
                            reached: leg.report.reached,
                        })
                        .collect(),
                })
                .collect(),
        }
    }
}
