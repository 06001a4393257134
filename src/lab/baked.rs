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

use std::sync::Arc;
use std::time::Instant;

use glam::Vec3;
use serde::Serialize;

use super::{LabError, Options, Row, Table, quantile};
use crate::config::{self, TERRAINS};
use crate::sim::{Command, World};
use crate::terrain::{Ground, Heightfield};

/// Seconds the IK spider walks before recording, to settle into its gait.
pub const WARM_UP_SECONDS: f32 = 3.0;
/// Seconds recorded, from which one gait cycle is cut.
pub const RECORD_SECONDS: f32 = 6.0;
/// Seconds each spider walks on each terrain.
pub const WALK_SECONDS: f32 = 10.0;

/// One spider on one terrain.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BakedRow {
    /// Terrain name.
    pub terrain: String,
    /// `baked` or `ik`.
    pub mode: String,
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
        "gap mean (m)",
        "gap max (m)",
        "slip max (m)",
        "µs/step",
    ];

    fn cells(&self) -> Vec<String> {
        vec![
            self.terrain.clone(),
            self.mode.clone(),
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

/// Records one gait cycle of `creature` walking straight on flat ground.
pub fn record(creature: &str) -> Result<Clip, LabError> {
    let spec = config::load_creature(creature)?;
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
        bodies.push(body.position);
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
    let travelled = bodies[end - 1].x - bodies[start].x;
    let steps_travelled = (end - 1 - start).max(1) as f32 * dt;
    Ok(Clip {
        speed: travelled / steps_travelled,
        ride_height: heights[start..end].iter().sum::<f32>() / (end - start) as f32,
        frames: frames.drain(start..end).collect(),
        dt: seconds / (end - start) as f32,
    })
}

/// Planted-foot quality over a walk: gap to the ground and slip.
#[derive(Debug, Clone, Default)]
struct FootWatch {
    planted_at: Vec<Option<Vec3>>,
    gap_sum: f64,
    gap_count: u64,
    gap_max: f32,
    slip_max: f32,
}

impl FootWatch {
    fn new(legs: usize) -> Self {
        Self {
            planted_at: vec![None; legs],
            ..Self::default()
        }
    }

    fn observe(&mut self, leg: usize, foot: Vec3, planted: bool, ground: &Ground<'_>) {
        if !planted {
            self.planted_at[leg] = None;
            return;
        }
        let gap = ground.signed_distance(foot).abs();
        self.gap_sum += f64::from(gap);
        self.gap_count += 1;
        self.gap_max = self.gap_max.max(gap);
        let at = *self.planted_at[leg].get_or_insert(foot);
        self.slip_max = self.slip_max.max(foot.distance(at));
    }

    fn row(&self, terrain: &str, mode: &str, step_us: f64) -> BakedRow {
        BakedRow {
            terrain: terrain.to_string(),
            mode: mode.to_string(),
            gap_mean: self.gap_sum / self.gap_count.max(1) as f64,
            gap_max: f64::from(self.gap_max),
            slip_max: f64::from(self.slip_max),
            step_us,
        }
    }
}

/// Plays `clip` on `field` for [`WALK_SECONDS`]: the foot figures, and the
/// time per step in microseconds.
pub fn play_baked(clip: &Clip, field: &Heightfield) -> (BakedRow, f64) {
    let ground = field.world();
    let legs = clip.frames[0].legs.len();
    let steps = (WALK_SECONDS / clip.dt).round() as usize;
    let mut watch = FootWatch::new(legs);
    let mut posed: Vec<Vec<Vec3>> = clip.frames[0].legs.clone();
    let mut busy = 0.0;
    for step in 0..steps {
        let begin = Instant::now();
        let frame = &clip.frames[step % clip.frames.len()];
        let x = clip.speed * step as f32 * clip.dt;
        let body = Vec3::new(x, ground.height(x, 0.0) + clip.ride_height, 0.0);
        for (out, local) in posed.iter_mut().zip(&frame.legs) {
            for (p, q) in out.iter_mut().zip(local) {
                *p = body + *q;
            }
        }
        busy += begin.elapsed().as_secs_f64();
        for (leg, joints) in posed.iter().enumerate() {
            let foot = joints[joints.len() - 1];
            watch.observe(leg, foot, frame.planted[leg], &ground);
        }
    }
    (watch.row("", "baked", 0.0), busy * 1e6 / steps as f64)
}

/// Walks the IK spider straight on `field` for [`WALK_SECONDS`].
pub fn walk_ik(creature: &str, field: &Heightfield) -> Result<(BakedRow, f64), LabError> {
    let spec = config::load_creature(creature)?;
    let mut world = World::new(Arc::new(field.clone()), spec, 1);
    let _ = world.apply(Command::Drive {
        forward: 1.0,
        turn: 0.0,
    });
    let steps = (WALK_SECONDS / world.dt()).round() as usize;
    let legs = world.creatures()[0].legs.len();
    let mut watch = FootWatch::new(legs);
    let mut busy = 0.0;
    for _ in 0..steps {
        let begin = Instant::now();
        world.step();
        busy += begin.elapsed().as_secs_f64();
        let creature = &world.creatures()[0];
        let ground = world.terrain().at(creature.origin());
        for (i, leg) in creature.legs.iter().enumerate() {
            watch.observe(i, leg.chain.end(), leg.is_grounded(), &ground);
        }
    }
    Ok((watch.row("", "ik", 0.0), busy * 1e6 / steps as f64))
}

/// Records the spider's clip, then walks both spiders on every shipped terrain.
pub fn run(options: &Options) -> Result<Table<BakedRow>, LabError> {
    let repeats = options.repeats()?;
    let clip = record("spider")?;
    let mut rows = Vec::new();
    for terrain in TERRAINS {
        let field = Heightfield::generate(&config::load_terrain(terrain.name)?);
        let mut times = Vec::with_capacity(repeats);
        let mut row = None;
        for _ in 0..repeats {
            let (r, us) = play_baked(&clip, &field);
            times.push(us);
            row.get_or_insert(r);
        }
        // `repeats` is at least 1, so a row was measured.
        let mut baked = row.expect("at least one playback");
        baked.step_us = quantile(&mut times, 0.5);
        baked.terrain = terrain.name.to_string();
        let mut times = Vec::with_capacity(repeats);
        let mut row = None;
        for _ in 0..repeats {
            let (r, us) = walk_ik("spider", &field)?;
            times.push(us);
            row.get_or_insert(r);
        }
        let mut ik = row.expect("at least one walk");
        ik.step_us = quantile(&mut times, 0.5);
        ik.terrain = terrain.name.to_string();
        rows.push(baked);
        rows.push(ik);
    }
    Ok(Table {
        title: "Baked animation against IK: the spider on every shipped terrain".to_string(),
        rows,
        notes: vec![
            format!(
                "The clip is one gait cycle ({} frames, {:.3} s) of the IK spider walking straight \
                 on flat ground at {:.3} m/s after {WARM_UP_SECONDS} s of warm-up. Both spiders walk \
                 straight for {WALK_SECONDS} s; the baked one rides {:.3} m above the ground under \
                 its centre, upright, with no rays and no IK.",
                clip.frames.len(),
                clip.frames.len() as f32 * clip.dt,
                clip.speed,
                clip.ride_height,
            ),
            format!(
                "Gap is a planted foot's distance from the surface; slip is how far a planted foot \
                 moves from where it was planted. µs/step is the median over {repeats} runs of the \
                 time to pose the spider for one step (baked: place the clip's joints; ik: the \
                 world's whole step with rays, gait and IK). The seed does not enter this \
                 experiment: terrains and the walk are fixed."
            ),
        ],
    })
}
