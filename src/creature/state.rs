//! A running creature and its fixed step: move, find footholds, step, align, solve.

use std::f32::consts::PI;
use std::sync::Arc;

use glam::{Quat, Vec3};

use super::body::{Body, feet_plane_normal, foot_ring};
use super::gait::{GaitRule, StepCandidate, choose_steps};
use super::leg::{Leg, LegPhase, rest_chain};
use super::spec::{FOOTHOLD_STRETCH, SLOW_DOWN_STRETCH};
use super::{CreatureSpec, LegSpec, OrientationSource};
use crate::ik::Chain;
use crate::ik::{SolveParams, SolveReport, Solver, SolverKind, Termination};
use crate::math::{move_towards, rotate_towards, shortest_arc};
use crate::terrain::{GridOrigin, Ground, Heightfield, RayHit};

/// A leg steps at once, whatever its distance to the desired foothold, when
/// its foot is farther than this fraction of its reach from the hip.
const OVERREACH_FRACTION: f32 = 0.92;
/// Lowest a swinging foot may pass over the ground at mid-swing (metres).
const SWING_CLEARANCE: f32 = 0.02;
/// The body slows when a planted foot would be stretched past
/// [`SLOW_DOWN_STRETCH`] of its leg's reach by the body's motion, and stops before any planted foot passes this fraction: a creature
/// cannot outrun its legs (rough ground can keep a tripod busy long enough).
const STOP_STRETCH: f32 = 0.96;

/// How far toward the hip, as fractions of the rest offset, footholds are tried.
const FOOTHOLD_PULLS: [f32; 4] = [1.0, 0.8, 0.6, 0.4];
/// A solve that leaves any bone further than this fraction of the leg's reach
/// from its length is repaired (and counted): legs never visibly stretch.
pub const BONE_REPAIR_FRACTION: f32 = 1e-5;
/// Least gap kept between the body's underside and the ground (metres).
const BODY_CLEARANCE: f32 = 0.005;
/// A creature whose body is farther than this from its frame's origin along
/// x or z moves its frame (see [`Creature::rebase`]): f32 keeps ~4e-6 m of
/// precision out here, far inside every quality limit.
const REBASE_DISTANCE: f32 = 32.0;

/// What the driver is asking for, held until changed.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DriveInput {
    /// Throttle in [-1, 1]; negative walks backwards.
    pub forward: f32,
    /// Rudder in [-1, 1]; positive turns left (counter-clockwise from above).
    pub turn: f32,
}

/// What happened during one creature step, for the metrics.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepEvents {
    /// Feet that touched down.
    pub touchdowns: u32,
    /// Legs lifted after the step.
    pub lifted: usize,
    /// Whether the lifted legs break the gait rule.
    pub gait_violation: bool,
    /// Distance the body moved.
    pub travelled: f32,
    /// Leg solves whose bone lengths had to be repaired.
    pub ik_repairs: u32,
}

/// A creature walking on a terrain.
pub struct Creature {
    spec: Arc<CreatureSpec>,
    /// Body pose.
    pub body: Body,
    /// Legs, in spec order.
    pub legs: Vec<Leg>,
    /// Current driver input.
    pub input: DriveInput,
    start: Body,
    /// Offset of this creature's local frame from the world origin: positions
    /// here stay small however far it walks.
    origin: GridOrigin,
    /// Full-throttle speed: the file's, capped by what the gait can carry.
    walk_speed: f32,
    group_of: Vec<usize>,
    solvers: [Box<dyn Solver>; SolverKind::ALL.len()],
    lifted: Vec<bool>,
    candidates: Vec<StepCandidate>,
    feet: Vec<Vec3>,
    /// Rest pose per leg, shared by every creature of this kind.
    rest: Arc<[Chain]>,
    ring: Vec<usize>,
}

impl std::fmt::Debug for Creature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Creature")
            .field("name", &self.spec.name)
            .field("body", &self.body)
            .field("legs", &self.legs)
            .field("input", &self.input)
            .finish_non_exhaustive()
    }
}

fn solver_slot(kind: SolverKind) -> usize {
    kind.index()
}

impl Creature {
    /// The rest pose of every leg of `spec` (body frame), which every
    /// creature of that kind starts from: solved once, shared by all copies.
    pub fn rest_chains(spec: &CreatureSpec) -> Arc<[Chain]> {
        spec.legs.iter().map(rest_chain).collect()
    }

    /// A creature standing on `terrain` at (x, z), facing `heading` radians
    /// (0 = +X, counter-clockwise from above), feet on the ground; `rest` is
    /// [`Creature::rest_chains`] of `spec`.
    pub fn spawn(
        spec: Arc<CreatureSpec>,
        rest: Arc<[Chain]>,
        terrain: &Heightfield,
        x: f32,
        z: f32,
        heading: f32,
    ) -> Creature {
        let spacing = terrain.spacing();
        let origin = GridOrigin {
            x: (x / spacing).round() as i64,
            z: (z / spacing).round() as i64,
        };
        let (x, z) = (x - origin.x as f32 * spacing, z - origin.z as f32 * spacing);
        let ground = terrain.at(origin).project_down(Vec3::new(x, 0.0, z));
        let body = Body {
            position: ground.point + Vec3::Y * spec.body.height,
            orientation: Quat::from_rotation_y(heading),
            velocity: Vec3::ZERO,
        };
        let group_of = spec.legs.iter().map(|l| l.group).collect();
        let mut creature = Creature {
            body,
            legs: Vec::with_capacity(spec.legs.len()),
            input: DriveInput::default(),
            start: body,
            origin,
            walk_speed: spec.walk_speed(),
            group_of,
            solvers: SolverKind::ALL.map(SolverKind::build),
            lifted: vec![false; spec.legs.len()],
            candidates: Vec::with_capacity(spec.legs.len()),
            feet: Vec::with_capacity(spec.legs.len()),
            rest,
            ring: foot_ring(&spec.legs.iter().map(|l| l.rest).collect::<Vec<_>>()),
            spec,
        };
        creature.place_legs(&terrain.at(origin));
        creature
    }

    /// The creature's description.
    pub fn spec(&self) -> &Arc<CreatureSpec> {
        &self.spec
    }

    /// Where the creature was spawned, in its current local frame.
    pub fn start(&self) -> &Body {
        &self.start
    }

    /// The offset of the creature's local frame from the world origin: every
    /// position it holds is relative to it.
    pub fn origin(&self) -> GridOrigin {
        self.origin
    }

    /// World position of a point given in this creature's frame, in f64
    /// (exact however far the creature walked).
    pub fn to_world_f64(&self, spacing: f32, local: Vec3) -> [f64; 3] {
        let spacing = f64::from(spacing);
        [
            f64::from(local.x) + self.origin.x as f64 * spacing,
            f64::from(local.y),
            f64::from(local.z) + self.origin.z as f64 * spacing,
        ]
    }

    /// Puts the creature back where it was spawned, standing still.
    pub fn reset(&mut self, terrain: &Heightfield) {
        self.body = self.start;
        self.input = DriveInput::default();
        self.rebase(terrain.spacing());
        self.place_legs(&terrain.at(self.origin));
    }

    /// Moves the creature's local frame by whole grid cells when its body has
    /// wandered more than [`REBASE_DISTANCE`] from the frame's origin, so its
    /// coordinates stay small and f32 keeps its precision. Everything the
    /// creature holds moves by the same amount; nothing moves in the world.
    pub fn rebase(&mut self, spacing: f32) {
        let p = self.body.position;
        if !p.is_finite() || (p.x.abs() <= REBASE_DISTANCE && p.z.abs() <= REBASE_DISTANCE) {
            return;
        }
        let cells_x = (p.x / spacing).round() as i64;
        let cells_z = (p.z / spacing).round() as i64;
        let shift = Vec3::new(cells_x as f32 * spacing, 0.0, cells_z as f32 * spacing);
        self.origin.x += cells_x;
        self.origin.z += cells_z;
        self.body.position -= shift;
        self.start.position -= shift;
        for leg in &mut self.legs {
            let root = leg.chain.root();
            leg.chain.set_root(root - shift);
            leg.foot -= shift;
            leg.desired -= shift;
            if let Some(end) = &mut leg.planted_end {
                *end -= shift;
            }
            if let LegPhase::Swinging { from, to, .. } = &mut leg.phase {
                *from -= shift;
                *to -= shift;
            }
        }
    }

    /// Switches every leg that can use `kind` to it; returns how many legs
    /// could not (e.g. two-bone on three-bone legs), which keep their solver.
    pub fn set_solver(&mut self, kind: SolverKind) -> usize {
        let solver = &self.solvers[solver_slot(kind)];
        let mut refused = 0;
        for leg in &mut self.legs {
            if solver.supports(&leg.chain).is_ok() {
                leg.solver = kind;
            } else {
                refused += 1;
            }
        }
        refused
    }

    /// The solver most legs use now.
    pub fn solver(&self) -> SolverKind {
        let mut counts = [0usize; SolverKind::ALL.len()];
        for leg in &self.legs {
            counts[solver_slot(leg.solver)] += 1;
        }
        let best = (0..counts.len())
            .max_by_key(|i| (counts[*i], counts.len() - 1 - *i))
            .unwrap_or(0);
        SolverKind::ALL[best]
    }

    fn place_legs(&mut self, terrain: &Ground<'_>) {
        self.legs.clear();
        for (i, leg_spec) in self.spec.legs.iter().enumerate() {
            let mut chain = self.rest[i].clone();
            chain.rotate_about_root(self.body.orientation);
            chain.set_root(self.body.to_world(leg_spec.mount));
            chain.set_rest_frame(self.body.orientation);
            let hit = self.foothold(terrain, leg_spec, Vec3::ZERO);
            self.legs.push(Leg {
                chain,
                foot: hit.point,
                phase: LegPhase::Grounded,
                desired: hit.point,
                report: SolveReport {
                    iterations: 0,
                    error: 0.0,
                    reached: true,
                    termination: Termination::Reached,
                },
                solver: self.spec.leg_solver(i),
                planted_end: None,
                bone_error: 0.0,
            });
        }
        for i in 0..self.legs.len() {
            // Rest poses are exact, so nothing needs repairing here.
            self.solve_leg(i);
            self.legs[i].planted_end = Some(self.legs[i].chain.end());
        }
    }

    /// The foothold for a leg: a ray from above its rest point along the
    /// body's down, pushed ahead by `ahead`. A hit the leg could not reach (a
    /// gully under the rest point) is retried with the ray pulled toward the
    /// hip, and the most reachable hit wins.
    fn foothold(&self, terrain: &Ground<'_>, leg: &LegSpec, ahead: Vec3) -> RayHit {
        let up = self.body.up();
        let reach = leg.reach();
        let above = reach + self.spec.body.height;
        let length = above + 2.0 * reach + self.spec.body.height;
        let hip = self.body.to_world(leg.mount);
        let mut best: Option<(f32, RayHit)> = None;
        for pull in FOOTHOLD_PULLS {
            let rest = Vec3::new(
                leg.mount.x + (leg.rest.x - leg.mount.x) * pull,
                leg.rest.y,
                leg.mount.z + (leg.rest.z - leg.mount.z) * pull,
            );
            let origin = self.body.to_world(rest) + ahead * pull + up * above;
            let hit = terrain
                .raycast(origin, -up, length)
                // Started inside a hill or pointing away from the ground:
                // fall back to the point straight below.
                .unwrap_or_else(|| terrain.project_down(origin));
            let stretch = hit.point.distance(hip) / reach;
            if stretch <= FOOTHOLD_STRETCH {
                return hit;
            }
            if best.is_none_or(|(s, _)| stretch < s) {
                best = Some((stretch, hit));
            }
        }
        // FOOTHOLD_PULLS is not empty, so some hit was recorded.
        best.map_or_else(|| terrain.project_down(hip), |(_, hit)| hit)
    }

    /// Advances the creature by `dt` seconds.
    pub fn step(&mut self, terrain: &Heightfield, dt: f32) -> StepEvents {
        self.rebase(terrain.spacing());
        let terrain = &terrain.at(self.origin);
        let mut events = StepEvents::default();
        let before = self.body.position;
        self.move_body(dt);
        self.update_footholds(terrain);
        self.start_steps();
        events.touchdowns = self.advance_swings(terrain, dt);
        self.align_body(terrain, dt);
        for i in 0..self.legs.len() {
            events.ik_repairs += u32::from(self.solve_leg(i));
            let leg = &mut self.legs[i];
            if leg.is_grounded() && leg.planted_end.is_none() {
                leg.planted_end = Some(leg.chain.end());
            }
        }
        for (lifted, leg) in self.lifted.iter_mut().zip(&self.legs) {
            *lifted = !leg.is_grounded();
        }
        let rule = GaitRule {
            group_of: &self.group_of,
            lifted: &self.lifted,
            max_lifted: self.spec.gait.max_lifted,
        };
        events.lifted = self.lifted.iter().filter(|l| **l).count();
        events.gait_violation = rule.violated();
        events.travelled = (self.body.position - before).length();
        events
    }

    fn move_body(&mut self, dt: f32) {
        let input = DriveInput {
            forward: self.input.forward.clamp(-1.0, 1.0),
            turn: self.input.turn.clamp(-1.0, 1.0),
        };
        let angle = input.turn * self.spec.body.turn_rate * dt;
        let speed = input.forward * self.walk_speed;
        let scale = self.stride_limit(speed * dt, angle);
        let turn = Quat::from_axis_angle(self.body.up(), angle * scale);
        self.body.orientation = (turn * self.body.orientation).normalize();
        self.body.velocity = self.body.forward() * speed * scale;
        self.body.position += self.body.velocity * dt;
    }

    /// How much of this step's commanded motion the legs allow (0–1): full
    /// speed unless a planted foot would be stretched toward its leg's reach,
    /// then slowing to a stop before it gets there.
    fn stride_limit(&self, advance: f32, angle: f32) -> f32 {
        if advance == 0.0 && angle == 0.0 {
            return 1.0;
        }
        let next = Body {
            position: self.body.position + self.body.forward() * advance,
            orientation: Quat::from_axis_angle(self.body.up(), angle) * self.body.orientation,
            velocity: self.body.velocity,
        };
        let mut scale = 1.0f32;
        for (leg, leg_spec) in self.legs.iter().zip(&self.spec.legs) {
            if !leg.is_grounded() {
                continue;
            }
            let reach = leg_spec.reach();
            let now = leg.foot.distance(self.body.to_world(leg_spec.mount)) / reach;
            let after = leg.foot.distance(next.to_world(leg_spec.mount)) / reach;
            if after > now && after > SLOW_DOWN_STRETCH {
                let room = (STOP_STRETCH - after) / (STOP_STRETCH - SLOW_DOWN_STRETCH);
                scale = scale.min(room.clamp(0.0, 1.0));
            }
        }
        scale
    }

    fn update_footholds(&mut self, terrain: &Ground<'_>) {
        // Lead by the commanded velocity, not the (possibly stride-limited)
        // actual one: feet reach toward where the driver is going, which is
        // what lets a leg holding the body back step out of the way.
        let commanded = self.body.forward() * self.input.forward.clamp(-1.0, 1.0) * self.walk_speed;
        let ahead = commanded * self.spec.gait.lead;
        for i in 0..self.legs.len() {
            let hit = self.foothold(terrain, &self.spec.legs[i], ahead);
            let leg = &mut self.legs[i];
            leg.desired = hit.point;
        }
    }

    fn start_steps(&mut self) {
        let threshold = self.spec.gait.step_threshold;
        self.candidates.clear();
        for (i, leg) in self.legs.iter().enumerate() {
            self.lifted[i] = !leg.is_grounded();
            if !leg.is_grounded() {
                continue;
            }
            let off_target = leg.foot.distance(leg.desired);
            let hip = self.body.to_world(self.spec.legs[i].mount);
            let stretch = leg.foot.distance(hip) / self.spec.legs[i].reach();
            // Stretch alone is no reason to step when the foothold is where
            // the foot already is (a foothold deep in a gully): stepping
            // would land on the same spot, over and over.
            let can_improve = off_target > 0.25 * threshold;
            let urgency = if stretch > OVERREACH_FRACTION && can_improve {
                // About to lose the foot: step before anything else.
                10.0 + stretch
            } else if stretch > SLOW_DOWN_STRETCH && can_improve {
                // Holding the body back (see `stride_limit`): step soon.
                5.0 + stretch
            } else if off_target > threshold {
                off_target / threshold
            } else {
                continue;
            };
            self.candidates.push(StepCandidate { leg: i, urgency });
        }
        if self.candidates.is_empty() {
            return;
        }
        let rule = GaitRule {
            group_of: &self.group_of,
            lifted: &self.lifted,
            max_lifted: self.spec.gait.max_lifted,
        };
        for leg in choose_steps(&rule, &mut self.candidates) {
            let leg = &mut self.legs[leg];
            leg.phase = LegPhase::Swinging {
                from: leg.foot,
                to: leg.desired,
                progress: 0.0,
            };
            leg.planted_end = None;
        }
    }

    fn advance_swings(&mut self, terrain: &Ground<'_>, dt: f32) -> u32 {
        let gait = &self.spec.gait;
        let up = self.body.up();
        let mut touchdowns = 0;
        for leg in &mut self.legs {
            let LegPhase::Swinging { from, progress, .. } = leg.phase else {
                continue;
            };
            // Keep aiming at the latest foothold so the foot lands ahead of a
            // body that kept moving during the swing.
            let to = leg.desired;
            let progress = (progress + dt / gait.step_duration).min(1.0);
            if progress >= 1.0 {
                // Touchdown: re-project onto the surface so the foot stands on it.
                leg.foot = terrain.project_down(to).point;
                leg.phase = LegPhase::Grounded;
                touchdowns += 1;
                continue;
            }
            let eased = progress * progress * (3.0 - 2.0 * progress);
            let lift = (PI * progress).sin();
            let mut foot = from.lerp(to, eased) + up * (gait.step_height * lift);
            let ground = terrain.height(foot.x, foot.z);
            let lowest = ground + SWING_CLEARANCE * lift;
            if foot.y < lowest {
                foot.y = lowest;
            }
            leg.foot = foot;
            leg.phase = LegPhase::Swinging { from, to, progress };
        }
        touchdowns
    }

    fn align_body(&mut self, terrain: &Ground<'_>, dt: f32) {
        let up = self.body.up();
        let below = terrain
            .raycast(
                self.body.position + up * self.spec.body.height,
                -up,
                4.0 * self.spec.body.height + self.spec.max_reach(),
            )
            .unwrap_or_else(|| terrain.project_down(self.body.position));
        let target_up = match self.spec.body.orientation {
            OrientationSource::Ground => terrain.normal(below.point.x, below.point.z),
            OrientationSource::Feet => {
                self.feet.clear();
                self.feet
                    .extend(self.legs.iter().map(|leg| match leg.phase {
                        LegPhase::Grounded => leg.foot,
                        LegPhase::Swinging { to, .. } => to,
                    }));
                feet_plane_normal(&self.feet, &self.ring, up)
                    .unwrap_or_else(|| terrain.normal(below.point.x, below.point.z))
            }
        };
        let target = (shortest_arc(up, target_up) * self.body.orientation).normalize();
        self.body.orientation = rotate_towards(
            self.body.orientation,
            target,
            self.spec.body.max_tilt_rate * dt,
        );

        // Ride height: along the body's down to the ground, corrected at a bounded rate.
        let up = self.body.up();
        let gap = (below.point - self.body.position).dot(-up);
        let wanted = self.body.position - up * (gap - self.spec.body.height);
        self.body.position = move_towards(
            self.body.position,
            wanted,
            self.spec.body.max_height_rate * dt,
        );
        self.keep_body_above_ground(terrain);
    }

    /// A hard guard under the rate-limited ride height: the body's centre
    /// and the corners of its underside never go below the ground (a bump
    /// taller than the ride height, met at speed). Lifts the body straight
    /// up by the deepest shortfall.
    fn keep_body_above_ground(&mut self, terrain: &Ground<'_>) {
        let half = self.spec.body.size * 0.5;
        let mut lift = 0.0f32;
        let mut consider = |p: Vec3, margin: f32| {
            let short = terrain.height(p.x, p.z) + margin - p.y;
            if short > lift {
                lift = short;
            }
        };
        consider(self.body.position, half.y.min(self.spec.body.height) * 0.5);
        for (sx, sz) in [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)] {
            consider(
                self.body
                    .to_world(Vec3::new(sx * half.x, -half.y, sz * half.z)),
                BODY_CLEARANCE,
            );
        }
        if lift > 0.0 {
            self.body.position.y += lift;
        }
    }

    /// Poses leg `i` for its foot; true when the solver left a bone off its
    /// length and the pose was repaired.
    fn solve_leg(&mut self, i: usize) -> bool {
        let leg_spec = &self.spec.legs[i];
        let hip = self.body.to_world(leg_spec.mount);
        let pole = leg_spec.pole.map(|p| self.body.to_world(p));
        let params = SolveParams {
            tolerance: self.spec.solver.tolerance,
            max_iterations: self.spec.solver.max_iterations,
            pole,
            end_direction: None,
        };
        let leg = &mut self.legs[i];
        leg.chain.set_root(hip);
        leg.chain.set_rest_frame(self.body.orientation);
        let solver = &mut self.solvers[solver_slot(leg.solver)];
        leg.report = solver.solve(&mut leg.chain, leg.foot, &params);
        leg.bone_error = leg.chain.bone_length_error();
        let repair = leg.bone_error > BONE_REPAIR_FRACTION * leg.chain.reach();
        if repair {
            leg.chain.restore_bone_lengths();
            leg.bone_error = leg.chain.bone_length_error();
            leg.report.error = leg.chain.end().distance(leg.foot);
            leg.report.reached = leg.report.error <= params.tolerance;
        }
        repair
    }
}
