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

/// A swing takes at most this share of the time a foot stands between two
/// of its neighbours' swings, so every step leaves a moment with all feet
/// down (the double-support phase of a walk).
pub const SWING_SHARE: f32 = 0.85;
/// Peak speed of a swinging foot over its mean speed: the swing's path is
/// a quintic ease (zero velocity and acceleration at both ends), whose
/// steepest slope is 15/8.
pub const SWING_PEAK_FACTOR: f32 = 1.875;
/// Fastest a swinging foot is allowed to move over the ground, m/s: the
/// speed cap keeps every swing under it.
pub const FOOT_SPEED_LIMIT: f32 = 4.5;
/// A stride may be at most this fraction of the gap between two neighbouring
/// feet on one side, so their feet never pass each other.
pub const CROSSING_SHARE: f32 = 0.7;

/// Neighbouring rest points closer than this along the body (metres) are
/// side by side, not one behind the other.
const MIN_NEIGHBOUR_GAP: f32 = 1e-3;

/// A leg's neighbours on its side of the body: the leg in front of it and
/// the leg behind it, each with the least distance along the body that must
/// separate their feet (see [`CreatureSpec::side_neighbours`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SideNeighbours {
    /// Toward the head: leg index and clearance (metres).
    pub ahead: Option<(usize, f32)>,
    /// Toward the tail: leg index and clearance (metres).
    pub behind: Option<(usize, f32)>,
}

/// The speeds that bound a gait: strokes over stance, swinging feet's
/// speed, and (with neighbouring feet on a side) their spacing.
struct SpeedBounds<'a> {
    strokes: f32,
    swings: f32,
    /// Front leg, back leg, the gap between their rest points, the speed.
    crossing: Option<(&'a LegSpec, &'a LegSpec, f32, f32)>,
}

impl SpeedBounds<'_> {
    fn cap(&self) -> f32 {
        let crossing = self.crossing.map_or(f32::INFINITY, |c| c.3);
        self.strokes.min(self.swings).min(crossing)
    }
}

/// In which order gait groups take their turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GaitOrder {
    /// The group of the leg that most needs to step goes next (reactive).
    Urgency,
    /// Groups step cyclically in the order the file lists them: a
    /// metachronal wave when the groups run from back to front.
    Listed,
}

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

/// Which surfaces a creature walks on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Surface {
    /// Ground up to `max_slope`: steeper faces are obstacles.
    Ground,
    /// Every face: a climber, with no fixed world up (walls, ceilings).
    Any,
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
    /// Most the forward speed may change per second, m/s² (braking may use
    /// twice this).
    pub acceleration: f32,
    /// Most the turning rate may change per second, radians/s².
    pub turn_acceleration: f32,
    /// Which surfaces it walks on.
    pub surface: Surface,
    /// Steepest face a ground walker stands on, radians from level.
    pub max_slope: f32,
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
    /// Time a step takes at walking speeds, seconds: the longest swing.
    pub step_duration: f32,
    /// Shortest a swing may become when the creature walks fast, seconds.
    pub min_step_duration: f32,
    /// Footholds are sought this many seconds of motion ahead.
    pub lead: f32,
    /// Most legs in the air at once.
    pub max_lifted: usize,
    /// Leg indices per group; a leg may lift only while every leg of every
    /// other group is grounded.
    pub groups: Vec<Vec<usize>>,
    /// Which group steps next.
    pub order: GaitOrder,
    /// Least distance (metres) the body's centre keeps inside the support
    /// polygon of the feet that stay down, for gaits that keep 3+ feet down.
    pub stability_margin: f32,
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

/// The share of a small leg's reach that another leg may come within
/// before the two count as crossing (see [`CreatureSpec::leg_gaps`]).
const LEG_GAP_SHARE: f32 = 0.02;

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

    /// Turns the gait takes per cycle: the groups one after another, each in
    /// as many turns as `max_lifted` forces (a group larger than it lifts
    /// in parts: a spider told `max_lifted = 1` walks its two diagonal
    /// pairs in four turns, at well under the speed two would give).
    pub fn turns(&self) -> usize {
        let most = self.gait.max_lifted.max(1);
        if self.gait.groups.len() <= 1 {
            self.legs.len().div_ceil(most)
        } else {
            self.gait
                .groups
                .iter()
                .map(|g| g.len().div_ceil(most))
                .sum()
        }
    }

    /// Whether the gait keeps three or more feet down at every moment, so
    /// the body can stand statically over them.
    pub fn statically_stable(&self) -> bool {
        self.legs.len() >= self.gait.max_lifted + 3
    }

    /// For gaits that keep three or more feet down: the group whose lift
    /// leaves the least room for the body's centre inside the feet that
    /// stay down (standing at rest on level ground), and that room: the
    /// deepest (metres) a lean could bring the centre inside them, at the
    /// centre of their polygon or where it stands, whichever is deeper.
    /// A group that leaves less than the gait's `stability_margin` waits
    /// before each lift for a lean that cannot come (one side's three legs
    /// lifting at once left the other three on a line, and a hexapod
    /// walked at 13% of its speed).
    pub fn weakest_stance(&self) -> Option<(usize, f32)> {
        if !self.statically_stable() {
            return None;
        }
        let (mut hull, mut scratch) = (crate::geometry::ConvexHull::default(), Vec::new());
        self.gait
            .groups
            .iter()
            .enumerate()
            .filter_map(|(g, group)| {
                let down = self
                    .legs
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !group.contains(i))
                    .map(|(_, leg)| leg.rest);
                let at_centre =
                    super::support_margin(Vec3::ZERO, Vec3::Y, down, &mut hull, &mut scratch)?;
                let corners = hull.corners();
                let middle = corners.iter().sum::<glam::Vec2>() / corners.len().max(1) as f32;
                Some((g, at_centre.max(hull.margin(middle))))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// How long a swing takes when the body's feet move at `speed` (m/s)
    /// relative to it: the file's `step_duration` while that leaves time
    /// between swings, shorter as the creature walks faster (a foot then
    /// reaches `step_threshold` sooner), never below `min_step_duration`.
    pub fn swing_time(&self, speed: f32) -> f32 {
        let gait = &self.gait;
        let others = (self.turns().saturating_sub(1)).max(1) as f32;
        let fit = SWING_SHARE * gait.step_threshold / (speed.abs() * others);
        if fit.is_nan() {
            gait.step_duration
        } else {
            fit.clamp(gait.min_step_duration, gait.step_duration)
        }
    }

    /// Time a foot stays planted between two of its swings at full speed,
    /// when the groups step in turn at the shortest swing (seconds).
    pub fn stance_time(&self) -> f32 {
        (self.turns().saturating_sub(1).max(1)) as f32 * self.gait.min_step_duration
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

    /// The fastest the gait can carry the body (m/s), the least of: every
    /// foot's stroke over its shortest time on the ground; the speed at
    /// which swinging feet would pass [`FOOT_SPEED_LIMIT`]; and the speed at
    /// which a stride would reach [`CROSSING_SHARE`] of the gap between
    /// neighbouring feet. The body never walks faster, whatever
    /// `body.speed` says.
    pub fn speed_cap(&self) -> f32 {
        self.speed_bounds().cap()
    }

    /// [`speed_cap`](Self::speed_cap) and, in words, what sets it and what
    /// would raise it (short of a lower speed), if anything.
    pub fn speed_limit(&self) -> (f32, String, Option<&'static str>) {
        let bounds = self.speed_bounds();
        let cap = bounds.cap();
        let stance = self.stance_time();
        match bounds.crossing {
            Some((front, back, gap, speed)) if speed == cap => (
                cap,
                format!(
                    "a stride of {CROSSING_SHARE} of the {gap:.3} m between the feet of `{}` \
                     and `{}` per {stance:.3} s on the ground, so their feet never cross",
                    front.name, back.name
                ),
                Some(
                    "Space those legs, shorten min_step_duration, or use fewer gait groups or a \
                     larger max_lifted",
                ),
            ),
            // It depends on the gait's turns alone (its groups, each in as
            // many turns as `max_lifted` takes): a foot's swing must make
            // up the body's travel while every other turn swings.
            _ if bounds.swings == cap => (
                cap,
                format!(
                    "swinging feet staying under {FOOT_SPEED_LIMIT} m/s while the gait's {} \
                     other turn(s) swing",
                    self.turns().saturating_sub(1).max(1)
                ),
                // Two turns are the fewest that leave feet down. A larger
                // max_lifted only helps a group that lifts in parts.
                (self.turns() > 2).then_some(
                    if self.gait.groups.iter().any(|g| g.len() > self.gait.max_lifted) {
                        "Use fewer gait groups or a larger max_lifted (more feet in the air at once)"
                    } else {
                        "Use fewer gait groups (more legs lifting together)"
                    },
                ),
            ),
            _ => (
                cap,
                format!(
                    "each foot's stroke over its {stance:.3} s on the ground between the \
                     shortest swings (min_step_duration {:.3} s)",
                    self.gait.min_step_duration
                ),
                Some("Shorten min_step_duration, or lengthen or space the legs"),
            ),
        }
    }

    /// The three speeds that bound the gait (see [`speed_cap`](Self::speed_cap)).
    fn speed_bounds(&self) -> SpeedBounds<'_> {
        let stance = self.stance_time();
        let strokes = (0..self.legs.len())
            .map(|i| self.stroke(i) / stance)
            .fold(f32::INFINITY, f32::min);
        // A swing carries the foot over its stride plus the body's travel
        // during the swing; with the dwell between swings that is at most
        // (others / SWING_SHARE + 1) × speed per swing time.
        let others = (self.turns().saturating_sub(1)).max(1) as f32;
        let swings = FOOT_SPEED_LIMIT / (SWING_PEAK_FACTOR * (others / SWING_SHARE + 1.0));
        let crossing = self
            .neighbour_gap()
            .map(|(front, back, gap)| (front, back, gap, CROSSING_SHARE * gap / stance));
        SpeedBounds {
            strokes,
            swings,
            crossing,
        }
    }

    /// The speed the creature walks at full throttle: its `speed`, capped
    /// by the gait.
    pub fn walk_speed(&self) -> f32 {
        self.body.speed.min(self.speed_cap())
    }

    /// The legs of each side (left, right; a leg on the centre line is on
    /// neither) as indices, back to front by their rest points.
    fn sides(&self) -> [Vec<usize>; 2] {
        [-1.0f32, 1.0].map(|side| {
            let mut on_side: Vec<usize> = (0..self.legs.len())
                .filter(|&i| self.legs[i].rest.z * side > 1e-6)
                .collect();
            on_side.sort_by(|&a, &b| self.legs[a].rest.x.total_cmp(&self.legs[b].rest.x));
            on_side
        })
    }

    /// The two closest neighbouring feet along the body on one side (front
    /// leg first) and the gap between their rest points along the body.
    fn neighbour_gap(&self) -> Option<(&LegSpec, &LegSpec, f32)> {
        let mut closest: Option<(&LegSpec, &LegSpec, f32)> = None;
        for on_side in self.sides() {
            for pair in on_side.windows(2) {
                let (back, front) = (&self.legs[pair[0]], &self.legs[pair[1]]);
                let gap = front.rest.x - back.rest.x;
                if closest.is_none_or(|(_, _, g)| gap < g) {
                    closest = Some((front, back, gap));
                }
            }
        }
        closest
    }

    /// Per leg, its neighbours along the body on its side and how far
    /// apart (along the body) its foot must stay from theirs: the share of
    /// the gap between rest points that a stride may not use
    /// (1 − [`CROSSING_SHARE`]), so neighbouring feet never pass each other.
    pub fn side_neighbours(&self) -> Vec<SideNeighbours> {
        let mut neighbours = vec![SideNeighbours::default(); self.legs.len()];
        for on_side in self.sides() {
            for pair in on_side.windows(2) {
                let gap = self.legs[pair[1]].rest.x - self.legs[pair[0]].rest.x;
                // Feet side by side across the body (an inner and an outer
                // row) do not pass each other along it.
                if gap < MIN_NEIGHBOUR_GAP {
                    continue;
                }
                let clearance = (1.0 - CROSSING_SHARE) * gap;
                neighbours[pair[0]].ahead = Some((pair[1], clearance));
                neighbours[pair[1]].behind = Some((pair[0], clearance));
            }
        }
        neighbours
    }

    /// Two legs on the same side whose feet may cross even at a slow walk,
    /// because `step_threshold` (the stride at walking speeds) reaches past
    /// the gap between them: their names, the gap, and the stride.
    pub fn crossing_legs(&self) -> Option<(String, String, f32, f32)> {
        let stride = self.gait.step_threshold;
        self.neighbour_gap()
            .filter(|(_, _, gap)| stride > CROSSING_SHARE * gap)
            .map(|(front, back, gap)| (front.name.clone(), back.name.clone(), gap, stride))
    }

    /// Farthest a rest foot stands from the body's centre across the
    /// ground (metres): how much turning adds to a foot's speed.
    pub fn rest_radius(&self) -> f32 {
        self.legs
            .iter()
            .map(|l| glam::Vec2::new(l.rest.x, l.rest.z).length())
            .fold(0.0, f32::max)
    }

    /// How far around its centre (across the ground, metres) the creature
    /// takes up room: its farthest rest foot, or its body's half length if
    /// that is more. Two creatures closer than their two radii have their
    /// feet among each other's.
    pub fn footprint_radius(&self) -> f32 {
        self.rest_radius()
            .max(self.body.size.x.max(self.body.size.z) * 0.5)
    }

    /// The longest leg reach (used to size rays and placement spacing).
    pub fn max_reach(&self) -> f32 {
        self.legs.iter().map(LegSpec::reach).fold(0.0, f32::max)
    }

    /// Per leg, how near another leg's bones may come to it before the two
    /// count as crossing (metres; a pair takes the smaller of its two):
    /// [`LEG_GAP`](super::LEG_GAP), or a fiftieth of the leg's reach on a
    /// leg too small for a centimetre to mean touching (a mite of 8 cm
    /// legs, its front hips 4 cm apart, was said to cross its front legs).
    /// Per leg, so one short palp does not shrink the gap between long
    /// legs. Every shipped creature keeps 1 cm.
    pub fn leg_gaps(&self) -> Vec<f32> {
        self.legs
            .iter()
            .map(|leg| super::LEG_GAP.min(LEG_GAP_SHARE * leg.reach()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::{CROSSING_SHARE, CreatureSpec};
    use crate::config::{CREATURES, parse_creature};

    fn shipped(name: &str) -> CreatureSpec {
        let file = CREATURES.iter().find(|c| c.name == name).unwrap();
        parse_creature(file.name, file.text).unwrap()
    }

    fn index(spec: &CreatureSpec, name: &str) -> usize {
        spec.legs.iter().position(|l| l.name == name).unwrap()
    }

    #[test]
    fn side_neighbours_pair_each_leg_with_the_legs_beside_it_on_its_side() {
        let spec = shipped("octopod");
        let neighbours = spec.side_neighbours();
        let (l1, l2, l4) = (
            index(&spec, "left_1"),
            index(&spec, "left_2"),
            index(&spec, "left_4"),
        );
        let gap = spec.legs[l1].rest.x - spec.legs[l2].rest.x;
        let clearance = (1.0 - CROSSING_SHARE) * gap;
        // The front leg has nobody ahead; the one behind it is left_2.
        assert_eq!(neighbours[l1].ahead, None);
        assert_eq!(neighbours[l1].behind.map(|(i, _)| i), Some(l2));
        assert!((neighbours[l1].behind.unwrap().1 - clearance).abs() < 1e-6);
        assert_eq!(neighbours[l2].ahead.map(|(i, _)| i), Some(l1));
        assert_eq!(neighbours[l4].behind, None);
        // Never a leg of the other side.
        for (i, n) in neighbours.iter().enumerate() {
            for (j, _) in n.ahead.into_iter().chain(n.behind) {
                assert_eq!(
                    spec.legs[i].rest.z.signum(),
                    spec.legs[j].rest.z.signum(),
                    "{} paired with {}",
                    spec.legs[i].name,
                    spec.legs[j].name
                );
            }
        }
    }

    #[test]
    fn a_biped_has_no_side_neighbours() {
        let spec = shipped("biped");
        assert!(
            spec.side_neighbours()
                .iter()
                .all(|n| n.ahead.is_none() && n.behind.is_none())
        );
    }

    #[test]
    fn feet_side_by_side_across_the_body_are_not_neighbours() {
        let mut spec = shipped("octopod");
        // Move left_2's rest point level with left_1's: an inner and an
        // outer foot, which cannot pass each other along the body.
        let (l1, l2) = (index(&spec, "left_1"), index(&spec, "left_2"));
        spec.legs[l2].rest.x = spec.legs[l1].rest.x;
        let neighbours = spec.side_neighbours();
        assert!(neighbours[l1].behind.is_none_or(|(i, _)| i != l2));
        assert!(neighbours[l2].ahead.is_none_or(|(i, _)| i != l1));
    }
}
