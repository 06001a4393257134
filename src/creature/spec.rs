//! A validated creature description: what a creature file means once checked.

use glam::Vec3;
use serde::Serialize;

use crate::ik::{JointLimit, SolverKind};

/// A planted foot stretched past this fraction of its leg's reach by the
/// body's motion slows the body (the stride limiter starts here).
pub const SLOW_DOWN_STRETCH: f32 = 0.88;
/// A foothold farther than this fraction of the reach from the hip is
/// retried closer in (gullies under the rest point); a foot standing on
/// level ground must be within it.
pub const FOOTHOLD_STRETCH: f32 = 0.85;

/// Where the body's up direction comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OrientationSource {
    /// The plane through the feet (for four legs: the cross product of the
    /// diagonals between feet), as the spider thesis does; needs 3+ legs.
    Feet,
    /// The surface normal under the body, from a ray along the body's down.
    Ground,
}

/// Body dimensions and how it moves.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BodySpec {
    /// Length (x), height (y) and width (z) of the body box, metres.
    pub size: Vec3,
    /// Ride height above the ground, metres.
    pub height: f32,
    /// Forward speed at full throttle, m/s.
    pub speed: f32,
    /// Turning speed at full rudder, radians/s.
    pub turn_rate: f32,
    /// Where the up direction comes from.
    pub orientation: OrientationSource,
    /// Fastest the body may re-orient toward the ground, radians/s.
    pub max_tilt_rate: f32,
    /// Fastest the body may correct its ride height, m/s.
    pub max_height_rate: f32,
}

/// How legs are solved unless a leg says otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SolverSpec {
    /// Algorithm.
    pub kind: SolverKind,
    /// IK tolerance, metres.
    pub tolerance: f32,
    /// Iteration budget per solve.
    pub max_iterations: u32,
}

/// When and how legs step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GaitSpec {
    /// A grounded foot farther than this from its desired foothold steps, metres.
    pub step_threshold: f32,
    /// Peak lift of a swinging foot, metres.
    pub step_height: f32,
    /// Time a step takes, seconds.
    pub step_duration: f32,
    /// Footholds are sought this many seconds of motion ahead.
    pub lead: f32,
    /// Most legs in the air at once.
    pub max_lifted: usize,
    /// Leg indices per group; a leg may lift only while every leg of every
    /// other group is grounded.
    pub groups: Vec<Vec<usize>>,
}

/// One leg.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LegSpec {
    /// Unique name.
    pub name: String,
    /// Hip position, body frame (+X forward, +Y up, +Z right), metres.
    pub mount: Vec3,
    /// Rest foot position, body frame, metres.
    pub rest: Vec3,
    /// Bone lengths from hip to foot, metres.
    pub bones: Vec<f32>,
    /// Knee hint, body frame, if any.
    pub pole: Option<Vec3>,
    /// Solver for this leg, overriding the creature's.
    pub solver: Option<SolverKind>,
    /// Index of the gait group this leg belongs to.
    pub group: usize,
    /// Limits of the joints between bones, hip outward (empty: all free).
    pub joints: Vec<JointLimit>,
}

impl LegSpec {
    /// Sum of the bone lengths.
    pub fn reach(&self) -> f32 {
        self.bones.iter().sum()
    }
}

/// A complete, validated creature.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CreatureSpec {
    /// Display name.
    pub name: String,
    /// One-line description, if given.
    pub description: Option<String>,
    /// Body.
    pub body: BodySpec,
    /// Default solver.
    pub solver: SolverSpec,
    /// Gait.
    pub gait: GaitSpec,
    /// Legs, in file order (mirrored legs right after their source).
    pub legs: Vec<LegSpec>,
}

impl CreatureSpec {
    /// The solver a leg uses: its own override, or the creature's.
    pub fn leg_solver(&self, leg: usize) -> SolverKind {
        self.legs[leg].solver.unwrap_or(self.solver.kind)
    }

    /// Whether every leg can be posed by `kind`; otherwise names the first
    /// leg that cannot and why (`source` says who asked, e.g. `--solver`).
    pub fn check_solver(&self, kind: SolverKind, source: &str) -> Result<(), String> {
        let solver = kind.build();
        for leg in &self.legs {
            if let Err(e) = solver.supports(&super::rest_chain(leg)) {
                return Err(format!(
                    "{source} asks for {kind}, but leg `{}` of {} cannot use it: {e}",
                    leg.name, self.name
                ));
            }
        }
        Ok(())
    }

    /// Time a foot stays planted between two of its swings when the gait
    /// groups step in turn (only one group is in the air at a time), seconds.
    pub fn stance_time(&self) -> f32 {
        let groups = self.gait.groups.len();
        let turns = if groups <= 1 {
            // One group: legs take turns only as `max_lifted` forces them to.
            self.legs.len().div_ceil(self.gait.max_lifted.max(1))
        } else {
            groups
        };
        (turns.saturating_sub(1).max(1)) as f32 * self.gait.step_duration
    }

    /// How far a planted foot can travel backwards relative to its hip,
    /// centred on its rest point, before the body must slow for it (metres).
    pub fn stroke(&self, leg: usize) -> f32 {
        let l = &self.legs[leg];
        let standing = Vec3::new(l.rest.x, -self.body.height, l.rest.z) - l.mount;
        let room =
            (SLOW_DOWN_STRETCH * l.reach()).powi(2) - standing.y.powi(2) - standing.z.powi(2);
        // Along x the foot may go ±half-width around the point under the hip;
        // the stroke is the part of that symmetric about the rest point.
        (2.0 * (room.max(0.0).sqrt() - standing.x.abs())).max(0.0)
    }

    /// The fastest the gait can carry the body without feet slipping or
    /// the stride limiter holding it back: every foot's stroke divided by
    /// its time on the ground (m/s). The body never walks faster than this,
    /// whatever `body.speed` says.
    pub fn speed_cap(&self) -> f32 {
        let stance = self.stance_time();
        (0..self.legs.len())
            .map(|i| self.stroke(i) / stance)
            .fold(f32::INFINITY, f32::min)
    }

    /// The speed the creature walks at full throttle: its `speed`, capped
    /// by the gait.
    pub fn walk_speed(&self) -> f32 {
        self.body.speed.min(self.speed_cap())
    }

    /// Two legs on the same side whose feet may cross at full speed: their
    /// names, the gap between their rest points along the body, and the
    /// stride that exceeds it.
    pub fn crossing_legs(&self) -> Option<(String, String, f32, f32)> {
        let stride = self.walk_speed() * self.stance_time();
        for side in [-1.0f32, 1.0] {
            let mut on_side: Vec<&LegSpec> = self
                .legs
                .iter()
                .filter(|l| l.rest.z * side > 1e-6)
                .collect();
            on_side.sort_by(|a, b| a.rest.x.total_cmp(&b.rest.x));
            for pair in on_side.windows(2) {
                let gap = pair[1].rest.x - pair[0].rest.x;
                if stride > gap {
                    return Some((pair[1].name.clone(), pair[0].name.clone(), gap, stride));
                }
            }
        }
        None
    }

    /// The longest leg reach (used to size rays and placement spacing).
    pub fn max_reach(&self) -> f32 {
        self.legs.iter().map(LegSpec::reach).fold(0.0, f32::max)
    }
}
