//! `lab baked`: the spider thesis' baked-animation spider (§5.1, §5.3)
//! against the IK spider, on every shipped terrain.
//!
//! The clip is recorded from the IK spider itself walking straight on flat
//! ground: one gait cycle of every leg's joints in the body frame, with which
//! feet are planted. Playback needs no rays and no IK: the body glides along
//! +X at the clip's mean speed, riding the recorded height above the ground
//! under its centre (as a character controller keeps a baked character on
//! the ground), upright, and each frame's joints are placed where the clip
//! says. On flat ground that is the walk it was recorded from; on hills the
//! planted feet float above or sink into slopes and glide as the body
//! climbs, which is what the thesis saw.
//!
//! [`Playback`] is that spider, step by step: the experiment walks it, and
//! the viewer shows it (`skitter run --baked`, or the `p` key).

use std::f32::consts::TAU;
use std::sync::Arc;
use std::time::Instant;

use glam::{Quat, Vec2, Vec3};
use serde::Serialize;

use super::{LabError, Options, Row, Table, quantile};
use crate::config::{self, TERRAINS};
use crate::creature::{Body, CreatureSpec};
use crate::math::SplitMix64;
use crate::sim::{Command, World};
use crate::terrain::{GridOrigin, Ground, Heightfield};

/// Seconds the IK spider walks before recording, to settle into its gait.
pub const WARM_UP_SECONDS: f32 = 3.0;
/// Seconds recorded, from which one gait cycle is cut.
pub const RECORD_SECONDS: f32 = 6.0;
/// Seconds each spider walks on each terrain.
pub const WALK_SECONDS: f32 = 10.0;
/// Walks per terrain unless `--cases` says otherwise.
pub const DEFAULT_WALKS: usize = 3;
/// Most walks per terrain.
pub const MAX_WALKS: usize = 1000;
/// Walks start at most this far from the terrain's origin along x and z,
/// metres: inside every shipped terrain's generated extent (200 m square)
/// with room for a 10 s walk.
pub const START_RANGE: f32 = 60.0;

/// One spider on one terrain, over every walk.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BakedRow {
    /// Terrain name.
    pub terrain: String,
    /// `baked` or `ik`.
    pub mode: String,
    /// Walks measured (each from its own seeded start and heading).
    pub walks: usize,
    /// Mean distance of planted feet from the ground surface, metres.
    pub gap_mean: f64,
    /// Largest distance of a planted foot from the ground surface, metres.
    pub gap_max: f64,
    /// Largest distance a planted foot moved from where it was planted, metres.
    pub slip_max: f64,
    /// Time per simulation step (playback, or the world's step), microseconds.
    pub step_us: f64,
}

impl Row for BakedRow {
    const COLUMNS: &'static [&'static str] = &[
        "terrain",
        "mode",
        "walks",
        "gap mean (m)",
        "gap max (m)",
        "slip max (m)",
        "µs/step",
    ];

    fn cells(&self) -> Vec<String> {
        vec![
            self.terrain.clone(),
            self.mode.clone(),
            self.walks.to_string(),
            format!("{:.4}", self.gap_mean),
            format!("{:.4}", self.gap_max),
            format!("{:.4}", self.slip_max),
            format!("{:.2}", self.step_us),
        ]
    }
}

/// One frame of the clip: every leg's joints in the body frame, and whether
/// its foot is planted.
#[derive(Debug, Clone, PartialEq)]
pub struct ClipFrame {
    /// Joints per leg, hip first, body frame.
    pub legs: Vec<Vec<Vec3>>,
    /// Planted flag per leg.
    pub planted: Vec<bool>,
}

/// A walk cycle recorded from the IK spider.
#[derive(Debug, Clone, PartialEq)]
pub struct Clip {
    /// Frames at the world's step rate.
    pub frames: Vec<ClipFrame>,
    /// Seconds per frame.
    pub dt: f32,
    /// Mean forward speed over the cycle, m/s.
    pub speed: f32,
    /// Mean height of the body above the ground, metres.
    pub ride_height: f32,
}

/// Records one gait cycle of the built-in or file creature `creature`
/// walking straight on flat ground (see [`record_spec`]).
pub fn record(creature: &str) -> Result<Clip, LabError> {
    record_spec(config::load_creature(creature)?)
}

/// Records one gait cycle of `spec` walking straight on flat ground: after
/// [`WARM_UP_SECONDS`], [`RECORD_SECONDS`] are recorded and cut from one
/// lift-off of the first leg to its next (the whole recording when the
/// first leg never lifts twice).
pub fn record_spec(spec: CreatureSpec) -> Result<Clip, LabError> {
    let flat = config::load_terrain("flat")?;
    let mut world = World::new(Arc::new(Heightfield::generate(&flat)), spec, 1);
    // A drive command is always accepted.
    let _ = world.apply(Command::Drive {
        forward: 1.0,
        turn: 0.0,
    });
    let dt = world.dt();
    for _ in 0..(WARM_UP_SECONDS / dt).round() as usize {
        world.step();
    }
    let mut frames = Vec::new();
    let mut bodies = Vec::new();
    let mut heights = Vec::new();
    for _ in 0..(RECORD_SECONDS / dt).round() as usize {
        world.step();
        let creature = &world.creatures()[0];
        let body = creature.body;
        let ground = world.terrain().at(creature.origin());
        heights.push(body.position.y - ground.height(body.position.x, body.position.z));
        // In the world frame (the creature's frame moves when it rebases).
        bodies.push(Vec3::from_array(
            creature
                .to_world_f64(world.terrain().spacing(), body.position)
                .map(|c| c as f32),
        ));
        frames.push(ClipFrame {
            legs: creature
                .legs
                .iter()
                .map(|leg| {
                    leg.chain
                        .joints()
                        .iter()
                        .map(|p| body.to_local(*p))
                        .collect()
                })
                .collect(),
            planted: creature.legs.iter().map(|leg| leg.is_grounded()).collect(),
        });
    }
    // One cycle: from one lift-off of the first leg to its next.
    let lift_offs: Vec<usize> = (1..frames.len())
        .filter(|&i| frames[i - 1].planted[0] && !frames[i].planted[0])
        .collect();
    let (start, end) = match lift_offs.as_slice() {
        [a, b, ..] => (*a, *b),
        _ => (0, frames.len()),
    };
    let seconds = (end - start) as f32 * dt;
    let travelled = bodies[end - 1].distance(bodies[start]);
    let steps_travelled = (end - 1 - start).max(1) as f32 * dt;
    Ok(Clip {
        speed: travelled / steps_travelled,
        ride_height: heights[start..end].iter().sum::<f32>() / (end - start) as f32,
        frames: frames.drain(start..end).collect(),
        dt: seconds / (end - start) as f32,
    })
}

/// Planted-foot quality over a walk: gap to the ground and slip.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FootWatch {
    planted_at: Vec<Option<Vec3>>,
    gap_sum: f64,
    gap_count: u64,
    /// Largest gap of a planted foot so far, metres.
    pub gap_max: f32,
    /// Largest gap of a planted foot in the last step observed, metres.
    pub gap_now: f32,
    /// Largest slip of a planted foot so far, metres.
    pub slip_max: f32,
}

impl FootWatch {
    /// A watch over `legs` feet, none planted yet.
    pub fn new(legs: usize) -> Self {
        Self {
            planted_at: vec![None; legs],
            ..Self::default()
        }
    }

    /// Starts a new step's observations (for [`FootWatch::gap_now`]).
    pub fn begin_step(&mut self) {
        self.gap_now = 0.0;
    }

    /// Observes foot `leg` at `foot`: a planted foot's distance from the
    /// ground and its drift from where it was planted.
    pub fn observe(&mut self, leg: usize, foot: Vec3, planted: bool, ground: &Ground<'_>) {
        if !planted {
            self.planted_at[leg] = None;
            return;
        }
        let gap = ground.signed_distance(foot).abs();
        self.gap_sum += f64::from(gap);
        self.gap_count += 1;
        self.gap_max = self.gap_max.max(gap);
        self.gap_now = self.gap_now.max(gap);
        let at = *self.planted_at[leg].get_or_insert(foot);
        self.slip_max = self.slip_max.max(foot.distance(at));
    }

    /// Forgets where the feet were planted (a walk begins elsewhere), keeping
    /// the figures.
    pub fn lift_all(&mut self) {
        self.planted_at.iter_mut().for_each(|p| *p = None);
    }

    /// Mean gap of planted feet so far, metres (0 before any).
    pub fn gap_mean(&self) -> f64 {
        self.gap_sum / self.gap_count.max(1) as f64
    }

    fn row(&self, terrain: &str, mode: &str, walks: usize, step_us: f64) -> BakedRow {
        BakedRow {
            terrain: terrain.to_string(),
            mode: mode.to_string(),
            walks,
            gap_mean: self.gap_mean(),
            gap_max: f64::from(self.gap_max),
            slip_max: f64::from(self.slip_max),
            step_us,
        }
    }
}

/// The baked spider's pose at one step, in the world frame.
#[derive(Debug, Clone, PartialEq)]
pub struct BakedPose {
    /// The body: position, heading (upright), velocity.
    pub body: Body,
    /// Joints per leg, hip first.
    pub legs: Vec<Vec<Vec3>>,
    /// Whether the clip has each foot planted.
    pub planted: Vec<bool>,
}

/// The baked spider walking: the clip played at its own rate while the body
/// glides over the ground at the clip's speed times a throttle, turning at
/// a rudder's rate. At throttle 1 and no turn the feet move as recorded; any
/// other speed makes planted feet glide, as the thesis saw when a baked
/// character's speed and clip do not match. No rays and no IK: the ground
/// is read once a step, under the body's centre.
#[derive(Debug, Clone)]
pub struct Playback {
    clip: Arc<Clip>,
    frame: usize,
    position: Vec2,
    heading: f32,
    pose: BakedPose,
    watch: FootWatch,
}

impl Playback {
    /// The clip's first frame at world (x, z) = `at`, facing `heading`
    /// radians (0 = +X, counter-clockwise seen from above).
    pub fn new(clip: Arc<Clip>, at: Vec2, heading: f32, ground: &Ground<'_>) -> Playback {
        let legs = clip.frames.first().map_or(0, |f| f.legs.len());
        let mut playback = Playback {
            pose: BakedPose {
                body: Body {
                    position: Vec3::ZERO,
                    orientation: Quat::IDENTITY,
                    velocity: Vec3::ZERO,
                },
                legs: clip
                    .frames
                    .first()
                    .map_or_else(Vec::new, |f| f.legs.clone()),
                planted: vec![true; legs],
            },
            clip,
            frame: 0,
            position: at,
            heading,
            watch: FootWatch::new(legs),
        };
        playback.pose_frame(ground, Vec3::ZERO);
        playback
    }

    /// The clip played.
    pub fn clip(&self) -> &Clip {
        &self.clip
    }

    /// The pose after the last step.
    pub fn pose(&self) -> &BakedPose {
        &self.pose
    }

    /// The planted feet's gap and slip so far.
    pub fn feet(&self) -> &FootWatch {
        &self.watch
    }

    /// Seconds per step: the clip's frame time.
    pub fn dt(&self) -> f32 {
        self.clip.dt
    }

    /// One step: the clip's next frame (unless `throttle` is 0: standing,
    /// the clip holds its frame), the body `throttle` × the clip's speed
    /// further along its heading, turned by `turn_rate` radians/s, then the
    /// feet measured against `ground`.
    pub fn step(&mut self, ground: &Ground<'_>, throttle: f32, turn_rate: f32) {
        self.advance(ground, throttle, turn_rate);
        self.observe_feet(ground);
    }

    /// The posing half of [`Playback::step`]: all a baked character costs.
    pub fn advance(&mut self, ground: &Ground<'_>, throttle: f32, turn_rate: f32) {
        let dt = self.clip.dt;
        if throttle != 0.0 && !self.clip.frames.is_empty() {
            self.frame = (self.frame + 1) % self.clip.frames.len();
        }
        if turn_rate.is_finite() {
            self.heading = (self.heading + turn_rate * dt).rem_euclid(TAU);
        }
        let forward = Vec2::new(self.heading.cos(), -self.heading.sin());
        let speed = if throttle.is_finite() {
            throttle * self.clip.speed
        } else {
            0.0
        };
        self.position += forward * speed * dt;
        let velocity = Vec3::new(forward.x, 0.0, forward.y) * speed;
        self.pose_frame(ground, velocity);
    }

    /// The measuring half of [`Playback::step`]: the planted feet's gap and
    /// slip against `ground`.
    pub fn observe_feet(&mut self, ground: &Ground<'_>) {
        self.watch.begin_step();
        for (leg, joints) in self.pose.legs.iter().enumerate() {
            if let Some(foot) = joints.last() {
                self.watch
                    .observe(leg, *foot, self.pose.planted[leg], ground);
            }
        }
    }

    /// Places the current frame's joints around the body.
    fn pose_frame(&mut self, ground: &Ground<'_>, velocity: Vec3) {
        let Some(frame) = self.clip.frames.get(self.frame) else {
            return;
        };
        let (x, z) = (self.position.x, self.position.y);
        self.pose.body = Body {
            position: Vec3::new(x, ground.height(x, z) + self.clip.ride_height, z),
            orientation: Quat::from_rotation_y(self.heading),
            velocity,
        };
        let body = self.pose.body;
        for (out, local) in self.pose.legs.iter_mut().zip(&frame.legs) {
            for (p, q) in out.iter_mut().zip(local) {
                *p = body.to_world(*q);
            }
        }
        self.pose.planted.clone_from(&frame.planted);
    }
}

/// Seeded starts for `walks` walks: (x, z) within [`START_RANGE`] of the
/// origin, and a heading.
pub fn starts(seed: u64, walks: usize) -> Vec<(Vec2, f32)> {
    let mut rng = SplitMix64::new(seed ^ 0xBA4E);
    (0..walks)
        .map(|_| {
            let at = Vec2::new(
                rng.range(-START_RANGE, START_RANGE),
                rng.range(-START_RANGE, START_RANGE),
            );
            (at, rng.range(0.0, TAU))
        })
        .collect()
}

/// Plays `clip` on `field` for [`WALK_SECONDS`] from each of `starts`,
/// straight at the clip's speed: the foot figures over every walk, and the
/// time per step (posing only) in microseconds.
pub fn play_baked(
    clip: &Arc<Clip>,
    field: &Heightfield,
    starts: &[(Vec2, f32)],
) -> (FootWatch, f64) {
    let ground = field.world();
    let legs = clip.frames.first().map_or(0, |f| f.legs.len());
    let steps = (WALK_SECONDS / clip.dt).round() as usize;
    let mut watch = FootWatch::new(legs);
    let mut busy = 0.0;
    for (at, heading) in starts {
        let mut playback = Playback::new(clip.clone(), *at, *heading, &ground);
        std::mem::swap(&mut playback.watch, &mut watch);
        playback.watch.lift_all();
        for _ in 0..steps {
            let begin = Instant::now();
            playback.advance(&ground, 1.0, 0.0);
            busy += begin.elapsed().as_secs_f64();
            playback.observe_feet(&ground);
        }
        std::mem::swap(&mut playback.watch, &mut watch);
    }
    (watch, busy * 1e6 / (steps * starts.len()).max(1) as f64)
}

/// Walks the IK `spec` straight on `field` for [`WALK_SECONDS`] from each of
/// `starts`: the foot figures over every walk, and the time per world step
/// in microseconds.
pub fn walk_ik(
    spec: &CreatureSpec,
    field: &Heightfield,
    starts: &[(Vec2, f32)],
) -> (FootWatch, f64) {
    let mut watch = FootWatch::new(spec.legs.len());
    let mut busy = 0.0;
    let mut steps_taken = 0usize;
    for (at, heading) in starts {
        let mut world = World::with_one_at(Arc::new(field.clone()), spec.clone(), *at, *heading);
        let _ = world.apply(Command::Drive {
            forward: 1.0,
            turn: 0.0,
        });
        let steps = (WALK_SECONDS / world.dt()).round() as usize;
        watch.lift_all();
        for _ in 0..steps {
            let begin = Instant::now();
            world.step();
            busy += begin.elapsed().as_secs_f64();
            let creature = &world.creatures()[0];
            let ground = world.terrain().at(creature.origin());
            watch.begin_step();
            for (i, leg) in creature.legs.iter().enumerate() {
                watch.observe(i, leg.chain.end(), leg.is_grounded(), &ground);
            }
        }
        steps_taken += steps;
    }
    (watch, busy * 1e6 / steps_taken.max(1) as f64)
}

/// Records the spider's clip, then walks both spiders on every shipped
/// terrain from `--cases` seeded starts each.
pub fn run(options: &Options) -> Result<Table<BakedRow>, LabError> {
    let repeats = options.repeats()?;
    let walks = options.cases_or(DEFAULT_WALKS, MAX_WALKS)?;
    let seed = options.seed();
    let spec = config::load_creature("spider")?;
    let clip = Arc::new(record_spec(spec.clone())?);
    let starts = starts(seed, walks);
    let mut rows = Vec::new();
    for terrain in TERRAINS {
        let terrain_spec = config::load_terrain(terrain.name)?;
        // The baked clip replays a walk on the ground's height: a terrain
        // with walls and ceilings is no comparison for it.
        if !terrain_spec.shapes.is_empty() {
            continue;
        }
        let mut field = Heightfield::generate(&terrain_spec);
        // Cache the ground along every walk, so neither spider pays for
        // noise sampling in its timed steps.
        let walk_length = WALK_SECONDS * clip.speed.max(spec.walk_speed()) + 2.0;
        for (at, _) in &starts {
            field.prepare_around(
                GridOrigin::default(),
                Vec3::new(at.x, 0.0, at.y),
                walk_length,
            );
        }
        let mut times = Vec::with_capacity(repeats);
        let mut baked = None;
        for _ in 0..repeats {
            let (watch, us) = play_baked(&clip, &field, &starts);
            times.push(us);
            baked.get_or_insert(watch);
        }
        let baked_us = quantile(&mut times, 0.5);
        let mut times = Vec::with_capacity(repeats);
        let mut ik = None;
        for _ in 0..repeats {
            let (watch, us) = walk_ik(&spec, &field, &starts);
            times.push(us);
            ik.get_or_insert(watch);
        }
        let ik_us = quantile(&mut times, 0.5);
        // `repeats` is at least 1 (checked above), so both were measured.
        let (baked, ik) = (baked.expect("a playback ran"), ik.expect("a walk ran"));
        rows.push(baked.row(terrain.name, "baked", walks, baked_us));
        rows.push(ik.row(terrain.name, "ik", walks, ik_us));
    }
    Ok(Table {
        title: format!(
            "Baked animation against IK: the spider on every shipped terrain (seed {seed}, {walks} \
             walks each)"
        ),
        rows,
        notes: vec![
            format!(
                "The clip is one gait cycle ({} frames, {:.3} s) of the IK spider walking straight \
                 on flat ground at {:.3} m/s after {WARM_UP_SECONDS} s of warm-up. On each terrain \
                 both spiders walk straight for {WALK_SECONDS} s from each of {walks} starts drawn \
                 from the seed (within {START_RANGE} m of the origin, any heading); the baked one \
                 rides {:.3} m above the ground under its centre, upright, with no rays and no IK.",
                clip.frames.len(),
                clip.frames.len() as f32 * clip.dt,
                clip.speed,
                clip.ride_height,
            ),
            format!(
                "Gap is a planted foot's distance from the surface; slip is how far a planted foot \
                 moves from where it was planted. µs/step is the median over {repeats} runs of the \
                 time to pose the spider for one step (baked: place the clip's joints; ik: the \
                 world's whole step with rays, gait and IK)."
            ),
        ],
    })
}
