//! The world: a terrain and its creatures, advanced by a fixed step.

use std::sync::Arc;

use glam::{Vec2, Vec3};

use super::{Command, CommandError, Metrics, Summary};
use crate::creature::{Creature, CreatureSpec, DriveInput};
use crate::ik::{Chain, SolverKind};
use crate::terrain::{GridOrigin, Heightfield};

/// The default step: 1/120 s.
pub const DEFAULT_DT: f32 = 1.0 / 120.0;

/// How far around a creature (metres along x and z) its rays and metrics may
/// look: the terrain there is cached before each step.
fn reach_radius(spec: &CreatureSpec) -> f32 {
    let body = spec.body.size.max_element();
    let lead = spec.body.speed * spec.gait.lead;
    3.0 * spec.max_reach() + body + lead + 4.0 * spec.body.height + 1.0
}

/// A terrain and the creatures walking on it.
///
/// Deterministic: the same terrain, creature, spawn count and command
/// sequence give the same trajectory, step for step. Nothing inside a step
/// reads a clock, iterates an unordered container, or depends on threads.
#[derive(Debug)]
pub struct World {
    terrain: Arc<Heightfield>,
    spec: Arc<CreatureSpec>,
    creatures: Vec<Creature>,
    dt: f32,
    metrics: Metrics,
}

impl World {
    /// A world with `count` copies of the creature, spaced on a square grid
    /// around the world's origin, all facing +X.
    pub fn new(terrain: Arc<Heightfield>, spec: CreatureSpec, count: usize) -> World {
        let spec = Arc::new(spec);
        let rest = Creature::rest_chains(&spec);
        let count = count.max(1);
        let spacing = 2.0 * spec.max_reach() + spec.body.size.x.max(spec.body.size.z) + 0.5;
        let side = (count as f32).sqrt().ceil() as usize;
        let spots: Vec<(Vec2, f32)> = (0..count)
            .map(|i| {
                let cell = Vec2::new((i % side) as f32, (i / side) as f32)
                    - Vec2::splat((side - 1) as f32 * 0.5);
                (cell * spacing, 0.0)
            })
            .collect();
        World::spawning(terrain, spec, rest, &spots)
    }

    /// A world with one creature standing at world (x, z) = `at`, facing
    /// `heading` radians (0 = +X, counter-clockwise seen from above).
    pub fn with_one_at(
        terrain: Arc<Heightfield>,
        spec: CreatureSpec,
        at: Vec2,
        heading: f32,
    ) -> World {
        let spec = Arc::new(spec);
        let rest = Creature::rest_chains(&spec);
        World::spawning(terrain, spec, rest, &[(at, heading)])
    }

    /// A world with a creature at each (position, heading) of `spots`.
    fn spawning(
        mut terrain: Arc<Heightfield>,
        spec: Arc<CreatureSpec>,
        rest: Arc<[Chain]>,
        spots: &[(Vec2, f32)],
    ) -> World {
        let radius = reach_radius(&spec);
        let field = Arc::make_mut(&mut terrain);
        for (at, _) in spots {
            field.prepare_around(GridOrigin::default(), Vec3::new(at.x, 0.0, at.y), radius);
        }
        let creatures = spots
            .iter()
            .map(|(at, heading)| {
                Creature::spawn(spec.clone(), rest.clone(), &terrain, at.x, at.y, *heading)
            })
            .collect();
        World {
            terrain,
            spec,
            creatures,
            dt: DEFAULT_DT,
            metrics: Metrics::new(spots.len()),
        }
    }

    /// Changes the step length (seconds); only sensible before the first step.
    pub fn with_dt(mut self, dt: f32) -> World {
        if dt.is_finite() && dt > 0.0 {
            self.dt = dt;
        }
        self
    }

    /// The step length in seconds.
    pub fn dt(&self) -> f32 {
        self.dt
    }

    /// Simulated time so far, seconds.
    pub fn time(&self) -> f64 {
        self.metrics.steps as f64 * f64::from(self.dt)
    }

    /// The terrain.
    pub fn terrain(&self) -> &Arc<Heightfield> {
        &self.terrain
    }

    /// The creature description every creature here shares.
    pub fn spec(&self) -> &Arc<CreatureSpec> {
        &self.spec
    }

    /// The creatures.
    pub fn creatures(&self) -> &[Creature] {
        &self.creatures
    }

    /// The creatures, to change them between steps (teleport, perturb,
    /// inject a fault in a test); the world steps them as it finds them.
    pub fn creatures_mut(&mut self) -> &mut [Creature] {
        &mut self.creatures
    }

    /// Caches the terrain within `radius` metres of world point `centre`
    /// (along x and z), for whatever else walks on this world's ground (the
    /// viewer's baked spider); creatures get theirs cached by [`World::step`].
    pub fn prepare_terrain_around(&mut self, centre: Vec3, radius: f32) {
        Arc::make_mut(&mut self.terrain).prepare_around(GridOrigin::default(), centre, radius);
    }

    /// Figures so far.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// The solver most legs of the first creature use.
    pub fn solver(&self) -> SolverKind {
        self.creatures
            .first()
            .map_or(self.spec.solver.kind, Creature::solver)
    }

    /// Carries out a command for every creature.
    pub fn apply(&mut self, command: Command) -> Result<(), CommandError> {
        match command {
            Command::Drive { forward, turn } => {
                let input = DriveInput {
                    forward: if forward.is_finite() {
                        forward.clamp(-1.0, 1.0)
                    } else {
                        0.0
                    },
                    turn: if turn.is_finite() {
                        turn.clamp(-1.0, 1.0)
                    } else {
                        0.0
                    },
                };
                for creature in &mut self.creatures {
                    creature.input = input;
                }
            }
            Command::Stop => {
                for creature in &mut self.creatures {
                    creature.input = DriveInput::default();
                }
            }
            Command::SetSolver(kind) => {
                let mut refused = 0;
                let mut legs = 0;
                for creature in &mut self.creatures {
                    refused += creature.set_solver(kind);
                    legs += creature.legs.len();
                }
                if refused > 0 {
                    return Err(CommandError::SolverRefused {
                        solver: kind,
                        refused,
                        legs,
                    });
                }
            }
            Command::Reset => {
                for creature in &mut self.creatures {
                    creature.reset(&self.terrain);
                }
                self.metrics.motion.forget();
            }
        }
        Ok(())
    }

    /// Advances every creature by one fixed step and records the metrics.
    pub fn step(&mut self) {
        let radius = reach_radius(&self.spec);
        // The only owner in a running world, so this does not copy; queries
        // during the step then only read.
        let terrain = Arc::make_mut(&mut self.terrain);
        // A creature may move its frame during its step (`Creature::rebase`),
        // but origin + position is the same world point either way.
        for creature in &self.creatures {
            terrain.prepare_around(creature.origin(), creature.body.position, radius);
        }
        for (index, creature) in self.creatures.iter_mut().enumerate() {
            let events = creature.step(&self.terrain, self.dt);
            self.metrics
                .observe(index, creature, &events, &self.terrain, self.dt);
        }
        self.metrics.steps += 1;
    }

    /// The run's figures so far, with the real time it took.
    pub fn summary(&self, wall_seconds: f64) -> Summary {
        let m = &self.metrics;
        let count = self.creatures.len();
        let mean =
            |values: &mut dyn Iterator<Item = f64>| values.sum::<f64>() / count.max(1) as f64;
        Summary {
            creature: self.spec.name.clone(),
            terrain: self.terrain.spec().name.clone(),
            solver: self.solver().to_string(),
            count,
            steps: m.steps,
            dt: f64::from(self.dt),
            seconds: self.time(),
            speed: self.spec.walk_speed(),
            speed_cap: self.spec.speed_cap(),
            distance: mean(&mut m.odometer.iter().copied()),
            displacement: mean(
                &mut self
                    .creatures
                    .iter()
                    .map(|c| f64::from(c.body.position.distance(c.start().position))),
            ),
            foot_steps: m.foot_steps,
            gait_violations: m.gait_violations,
            max_lifted_seen: m.max_lifted_seen,
            foot_slip_max: m.foot_slip_max,
            foot_gap_max: m.foot_gap_max,
            penetration_max: m.penetration_max,
            ik_error_max: m.ik_error_max,
            ik_error_p99: m.ik_errors.quantile(0.99),
            ik_iterations_mean: m.ik_iterations_mean(),
            bone_error_max: m.bone_error_max,
            // Infinite only when nothing was observed yet; NaN stays NaN.
            body_height_min: if m.body_height_min.is_infinite() {
                0.0
            } else {
                m.body_height_min
            },
            body_height_mean: m.body_height_mean(),
            tilt_error_max_deg: m.tilt_error_max_deg,
            nan_count: m.nan_count,
            ik_repairs: m.ik_repairs,
            body_accel_max: m.motion.body_accel_max,
            tilt_rate_max: m.motion.tilt_rate_max,
            stability_margin_min: Some(m.motion.stability_margin_min)
                .filter(|margin| !margin.is_infinite()),
            unstable_fraction: m.motion.unstable_fraction(),
            leg_crossings: m.motion.leg_crossings,
            leg_body_intersections: m.motion.leg_body_intersections,
            foot_speed_max: m.motion.foot_speed_max,
            touchdown_speed_max: m.motion.touchdown_speed_max,
            wall_seconds,
            step_micros_mean: if m.steps == 0 {
                0.0
            } else {
                wall_seconds * 1e6 / m.steps as f64
            },
        }
    }
}
