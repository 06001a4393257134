//! A running creature and its fixed step.
//!
//! The step is a pipeline; each stage has its own file and reads what the
//! earlier ones left:
//!
//! 1. **drive** (`drive.rs`): the driver's throttle and rudder become a
//!    forward speed and a turning rate, changed no faster than the body's
//!    accelerations allow and slowed before a planted foot runs out of reach;
//!    the body moves along its path.
//! 2. **footholds** (`footholds.rs`): a ray per leg finds where its foot
//!    should land, ahead of where the body will be when it lands.
//! 3. **gait** (`gait.rs`): which legs lift now: the group rule, the order
//!    of the groups, and for statically stable gaits whether the body stands
//!    over the feet that stay down.
//! 4. **swing** (`swing.rs`): swinging feet move along smooth arcs that clear
//!    the ground and land softly on their (blended) targets.
//! 5. **posture** (`posture.rs`): the body's height, tilt and sway follow the
//!    feet through critically damped springs; a guard keeps it off the ground.
//! 6. **legs** (`leg.rs`): every leg is posed by inverse kinematics.

use std::sync::Arc;

use glam::{Quat, Vec2, Vec3};

use super::footholds::Foothold;
use super::leg::{CRAMPED_MARGIN, Leg, LegPhase};
use super::posture::BodyMotion;
use super::{Body, CreatureSpec, GaitRule, foot_ring};
use crate::geometry::ConvexHull;
use crate::ik::{Chain, SolveReport, SolverKind, Termination};
use crate::terrain::{GridOrigin, Ground, Heightfield};

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

/// How the creatures around this one ask it to give way, set by the world
/// before each step: its throttle is scaled down and its rudder turned away
/// so it does not walk through them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Crowding {
    /// Share of a forward throttle kept, in [0, 1] (1: nobody in the way).
    pub throttle: f32,
    /// Rudder added, in [-1, 1] (positive turns left).
    pub turn: f32,
}

impl Default for Crowding {
    fn default() -> Self {
        Crowding {
            throttle: 1.0,
            turn: 0.0,
        }
    }
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
    /// Seconds since a foot was last planted, after the step (0 with one
    /// down).
    pub footless_for: f32,
}

/// A creature walking on a terrain.
pub struct Creature {
    pub(super) spec: Arc<CreatureSpec>,
    /// Body pose.
    pub body: Body,
    /// Legs, in spec order.
    pub legs: Vec<Leg>,
    /// Current driver input.
    pub input: DriveInput,
    /// How the creatures around it ask it to give way (the world's).
    pub crowding: Crowding,
    pub(super) start: Body,
    /// Offset of this creature's local frame from the world origin: positions
    /// here stay small however far it walks.
    pub(super) origin: GridOrigin,
    /// The body's rates and the springs' state (see `posture.rs`).
    pub(super) motion: BodyMotion,
    /// The group whose turn is next when groups step in listed order.
    pub(super) next_group: usize,
    /// How long a step has waited for the body to stand over its support, s.
    pub(super) stability_wait: f32,
    /// How long the gait has kept a last planted foot down while other legs
    /// hang, s (see `Creature::keep_last_foot_down`).
    pub(super) last_foot_wait: f32,
    /// What every creature of this kind shares: rest poses, groups,
    /// neighbours, the feet's ring.
    pub(super) shared: Arc<KindShared>,
    /// Whether the terrain it walks has shapes (walls, roofs): set each
    /// step, for the stages that treat edges apart.
    pub(super) among_walls: bool,
    /// What the ground guard last looked up under the body, for the
    /// metrics to take rather than look again (see [`GroundUnderBody`]).
    ground_under_body: GroundUnderBody,
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

/// The least gap between the body box and the noise ground as the ground
/// guard last found it (see [`Ground::box_ground_gap`]), and the body's
/// (x, z) and orientation it was found for. On open ground the guard only
/// lifts the body, which changes every vertical gap by the lift and moves
/// nothing across the ground, so it holds until the body moves across or
/// turns.
///
/// [`Ground::box_ground_gap`]: crate::terrain::Ground::box_ground_gap
#[derive(Debug, Clone, Copy)]
pub(crate) struct GroundUnderBody {
    /// The least vertical gap between the box and the ground, less the y
    /// of the body's position (so the guard's lift leaves it unchanged):
    /// add `body.position.y` for the gap.
    pub gap_below: f32,
    /// Where on the box the gap is least, from the body's position.
    pub offset: Vec3,
    /// Where the box comes nearest the terrain's shapes, from the body's
    /// position, when it comes within twice the guard's clearance of them
    /// (see [`Ground::box_shapes_nearest`]).
    ///
    /// [`Ground::box_shapes_nearest`]: crate::terrain::Ground::box_shapes_nearest
    pub shapes_offset: Option<Vec3>,
    /// Among shapes, when the hard guard left the box clear: the body's
    /// height then, and the least distance of the box's points it checked
    /// (those nearest the ground and the shapes, the corners, the underside
    /// below the hips), which the metrics take instead of looking them up
    /// again. It holds only at that height: unlike the gap below, a
    /// distance changes as the body rises.
    pub solid_clearance: Option<(f32, f32)>,
    at: (Vec2, Quat),
}

/// How near the ground (metres) the body box counts as resting on it: twice
/// the least gap the ground guard keeps.
const RESTING_GAP: f32 = 0.01;
/// How near the ground (metres) a footless body box counts as lying on it,
/// and may crawl: twice the clearance the height spring keeps it at.
const LYING_GAP: f32 = 2.0 * super::posture::SPRING_CLEARANCE;

/// What every creature of one kind shares and never changes, derived once
/// from its spec: a thousand creatures of a kind hold one.
#[derive(Debug)]
pub struct KindShared {
    /// The rest pose of every leg (body frame), which every creature of the
    /// kind starts from: solved once.
    pub(super) rest: Box<[Chain]>,
    /// Each leg's gait group.
    pub(super) group_of: Box<[usize]>,
    /// Per leg, its neighbours along its side of the body.
    pub(super) neighbours: Box<[super::SideNeighbours]>,
    /// The rest points' order round the body, for the feet plane.
    pub(super) ring: Box<[usize]>,
    /// Each leg's mount and rest point, laid out for the hot loops.
    pub(super) frames: Box<[LegFrame]>,
    /// Full-throttle speed: the file's, capped by what the gait can carry.
    pub(super) walk_speed: f32,
    /// How near each leg may come to another before they count as
    /// crossing ([`CreatureSpec::leg_gaps`]).
    pub(super) leg_gaps: Box<[f32]>,
    /// The gait's speed cap, which the feet's speed (walking plus turning)
    /// never exceeds.
    pub(super) speed_cap: f32,
    /// The rest radius (how much turning adds to a foot's speed).
    pub(super) rest_radius: f32,
    /// How far ahead of the body's centre the rest pose reaches (its
    /// farthest-forward joint, or the body's front), metres: the room a
    /// ground walker keeps before a wall.
    pub(super) reach_ahead: f32,
    /// Body-frame offsets across the path (+z, right) of the lines a ground
    /// walker looks for walls along: its centre line, then either side its
    /// widest hip and the widest point midway between a hip and its rest
    /// foot (see `Creature::obstacle_speed`).
    pub(super) wall_lanes: [f32; 5],
}

/// A leg's mount and rest point (body frame), its reach and how near its
/// hip it reaches readily.
///
/// glam reads a `Vec3` from memory as four lanes and computes on all four;
/// in `LegSpec` the lane after `rest` is an `Option` tag, whose bits are a
/// subnormal float, and each operation on a subnormal costs a microcode
/// assist of about a hundred cycles (it once took half a spider-step).
/// Here every vector is followed by a normal float.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub(super) struct LegFrame {
    /// Hip position, body frame.
    pub mount: Vec3,
    /// Rest foot position, body frame.
    pub rest: Vec3,
    /// Sum of the bone lengths.
    pub reach: f32,
    /// The nearest its hip a foot may be for the leg to reach it readily:
    /// as near as the leg folds, plus [`CRAMPED_MARGIN`] of its reach
    /// (nearer, the solvers converge slowly or not at all).
    pub cramped: f32,
}

/// A creature step's scratch space, lent by the thread stepping it to the
/// stages that need it: every vector in it is cleared or written whole
/// before the step reads it, so nothing in it outlives a step. Not held by
/// the creature: its empty vectors alone were 192 bytes of each one.
#[derive(Debug, Default)]
pub(super) struct StepScratch {
    /// Which legs are in the air, this step.
    pub lifted: Vec<bool>,
    /// This step's candidates to lift (see `gait.rs`).
    pub candidates: Vec<super::StepCandidate>,
    /// Feet positions for the feet plane (see `posture.rs`).
    pub feet: Vec<Vec3>,
    /// The legs expected to lift next, this step (see `gait.rs`).
    pub next_legs: Vec<usize>,
    /// The support polygon for stability decisions.
    pub support: SupportScratch,
    /// This step's leg solves as set up, in the legs' order, with their
    /// tracking solves' reports (see `Creature::track_legs`).
    pub tracked: Vec<super::leg::LegSolve>,
    /// Every leg's strain for the body as it stands (none for a foot that
    /// holds nothing back), with the gauge it was measured by and the hips
    /// and rest points turned for it (see `Creature::strains_now` in
    /// `drive.rs`).
    pub strains: super::drive::Strains,
    /// Among walls, every leg's pose as the last step left it, the legs'
    /// joints one after another: what the bones' guard tries first (see
    /// `Creature::solve_leg`).
    pub last_poses: Vec<Vec3>,
}

/// The support polygon of a step's stability decisions and the space to
/// build it in.
#[derive(Debug, Default)]
pub(super) struct SupportScratch {
    /// The last polygon built.
    pub hull: ConvexHull,
    /// Its points before their hull.
    projected: Vec<Vec2>,
}

impl SupportScratch {
    /// [`support_margin`](super::support_margin) of `feet` about `centre`,
    /// its polygon left in [`hull`](Self::hull).
    pub fn margin(
        &mut self,
        centre: Vec3,
        up: Vec3,
        feet: impl Iterator<Item = Vec3>,
    ) -> Option<f32> {
        super::support_margin(centre, up, feet, &mut self.hull, &mut self.projected)
    }
}

thread_local! {
    /// The scratch space lent to each creature stepped on this thread.
    static SCRATCH: std::cell::RefCell<StepScratch> = std::cell::RefCell::default();
}

impl KindShared {
    /// The shared part of every creature of `spec`.
    pub fn new(spec: &CreatureSpec) -> Arc<KindShared> {
        let rest: Box<[Chain]> = spec.legs.iter().map(super::rest_chain).collect();
        let reach_ahead = rest
            .iter()
            .flat_map(|chain| chain.joints().iter().map(|j| j.x))
            .fold(0.5 * spec.body.size.x, f32::max);
        let widest = |z: &dyn Fn(&crate::creature::LegSpec) -> f32| {
            spec.legs.iter().map(|l| z(l).abs()).fold(0.0, f32::max)
        };
        let hips = widest(&|l| l.mount.z);
        let mid_legs = widest(&|l| 0.5 * (l.mount.z + l.rest.z));
        let frames = spec
            .legs
            .iter()
            .zip(&rest)
            .map(|(l, chain)| LegFrame {
                mount: l.mount,
                rest: l.rest,
                reach: l.reach(),
                // From the chain every leg of the kind is built from:
                // its bones, measured between its joints, are the
                // lengths the solvers keep.
                cramped: chain.inner_reach() + CRAMPED_MARGIN * l.reach(),
            })
            .collect();
        Arc::new(KindShared {
            rest,
            group_of: spec.legs.iter().map(|l| l.group).collect(),
            neighbours: spec.side_neighbours().into_boxed_slice(),
            ring: foot_ring(&spec.legs.iter().map(|l| l.rest).collect::<Vec<_>>())
                .into_boxed_slice(),
            frames,
            walk_speed: spec.walk_speed(),
            leg_gaps: spec.leg_gaps().into_boxed_slice(),
            speed_cap: spec.speed_cap(),
            rest_radius: spec.rest_radius(),
            reach_ahead,
            wall_lanes: [0.0, -hips, hips, -mid_legs, mid_legs],
        })
    }
}

impl Creature {
    /// Records the least gap between the body box and the ground the
    /// ground guard found, the box's point nearest the shapes, and among
    /// shapes the least distance of the points the guard checked (see
    /// [`GroundUnderBody`]), for the body's pose now.
    pub(super) fn set_ground_under_body(
        &mut self,
        gap: crate::terrain::BoxGap,
        shapes: Option<crate::terrain::BoxGap>,
        solid_clearance: Option<f32>,
    ) {
        let position = self.body.position;
        self.ground_under_body = GroundUnderBody {
            gap_below: gap.gap - position.y,
            offset: gap.at - position,
            shapes_offset: shapes.map(|nearest| nearest.at - position),
            solid_clearance: solid_clearance.map(|least| (position.y, least)),
            at: self.ground_key(),
        };
    }

    /// The least gap the ground guard found under the body, when it found it
    /// for the body's pose now (the same place across, the same orientation).
    pub(crate) fn ground_under_body(&self) -> Option<&GroundUnderBody> {
        let under = &self.ground_under_body;
        (under.at == self.ground_key()).then_some(under)
    }

    /// The point of the body box, as it stands now, where the hard guard
    /// last found it nearest the terrain's shapes (when within twice its
    /// clearance): the same point of the box, carried with its turns since.
    pub(crate) fn last_shapes_contact(&self) -> Option<Vec3> {
        let under = &self.ground_under_body;
        let offset = under.shapes_offset?;
        let local = under.at.1.inverse() * offset;
        local.is_finite().then(|| self.body.to_world(local))
    }

    /// The open ground the body box rests on, when the ground guard last
    /// found it within [`RESTING_GAP`] of the box: it holds the body up as a
    /// foot does, so the support polygons count it (a body lifted clear of a
    /// peak's tip, its feet down the flanks, stands over the tip). Among
    /// shapes the body may rest on a wall or a roof the guard does not
    /// record, so none is counted there.
    pub(crate) fn resting_point(&self) -> Option<Vec3> {
        if self.among_walls {
            return None;
        }
        let gap = self.gap_under_body();
        (gap <= RESTING_GAP)
            .then(|| self.body.position + self.ground_under_body.offset - Vec3::Y * gap)
    }

    /// Whether the body has had no foot planted for longer than a step
    /// takes: not a hop or a run between footfalls, but feet that find
    /// nothing to land on. It settles onto the ground under it (see
    /// `update_posture`) until they find footing. Among walls too: a
    /// spider whose feet all hung over a 5 cm wall's top, its body up the
    /// wall's face, walked on up into the air 3.5 m above the wall's top.
    pub(crate) fn is_footless(&self) -> bool {
        self.motion.footless_for > self.spec.gait.step_duration
    }

    /// Whether the body stands on one or two feet while more legs hang out
    /// of reach of the ground than the gait ever lifts at once: its feet
    /// make no plane to stand by, and riding at its height over the feet
    /// left down carries it away from the ground its hanging feet look for.
    /// It settles onto the ground under it as a footless body does (see
    /// `update_posture`). (Cresting a knife edge of ridged noise with one
    /// foot on its tip and three hanging, tilted as on the flank it had
    /// climbed, a spider rode on up past the tip into the air, a metre clear
    /// of any ground, and hung 1.4 s with no foot down; settling, 0.3 s.)
    pub(super) fn is_adrift(&self) -> bool {
        let hanging = self.legs.iter().filter(|leg| leg.hanging).count();
        let standing = self.legs.iter().filter(|leg| leg.stands()).count();
        hanging > self.spec.gait.max_lifted && standing < 3
    }

    /// Whether nothing holds the body up: footless (see
    /// [`is_footless`](Self::is_footless)) and not lying on the ground
    /// either. It has no traction to walk or turn with. (Its feet hanging
    /// out of reach of a ridged peak's flanks, a spider walked off the peak
    /// into the air and on, 7 m over the ground, for 38 s.)
    ///
    /// Among shapes the gap is looked for straight down to the first
    /// surface (a slab's top, not the ground under it), not to the nearest
    /// one: a wall beside a falling body holds nothing up.
    pub(crate) fn is_unsupported(&self, terrain: &Ground<'_>) -> bool {
        if !self.is_footless() {
            return false;
        }
        if self.among_walls {
            let below = terrain.surface_below(self.body.position);
            return below.point.y.is_nan()
                || self.body.position.y - below.point.y - self.box_reach_down() > LYING_GAP;
        }
        self.gap_under_body() > LYING_GAP
    }

    /// The least vertical gap between the body box and the open ground the
    /// ground guard last found, at the body's height now (the guard's
    /// records hold across a lift; across a move or a turn they are the
    /// last step's, which is where the body stood when the drive asks).
    fn gap_under_body(&self) -> f32 {
        self.body.position.y + self.ground_under_body.gap_below
    }

    /// How far the body box reaches below its centre, along world up,
    /// however it is turned (on its side off a wall's face, its width).
    pub(super) fn box_reach_down(&self) -> f32 {
        let half = self.spec.body.size * 0.5;
        let o = self.body.orientation;
        (o * Vec3::X).y.abs() * half.x
            + (o * Vec3::Y).y.abs() * half.y
            + (o * Vec3::Z).y.abs() * half.z
    }

    /// `feet`, with the ground the body rests on (see
    /// [`resting_point`](Self::resting_point)) when the feet alone already
    /// make a support polygon: resting adds support, and never makes a
    /// polygon, and with it a balance to keep, where the feet alone have
    /// none (a centipede astride a peak, two feet down and ten hanging,
    /// stood four seconds longer waiting on one).
    pub(crate) fn support_points<I>(&self, feet: I) -> impl Iterator<Item = Vec3> + use<I>
    where
        I: Iterator<Item = Vec3> + Clone,
    {
        let resting = if feet.clone().count() >= 3 {
            self.resting_point()
        } else {
            None
        };
        feet.chain(resting)
    }

    /// The points of the body box's underside below each hip (world
    /// frame): the mount's place across the body, kept within the box's
    /// footprint, on the underside whatever the mount's height. With the
    /// box's corners, they are where the body meets a crest or an edge: a
    /// long body across a ridge, or any body rounding a wall's top, rests
    /// on it between its corners.
    pub(crate) fn underside_below_hips(&self) -> impl Iterator<Item = Vec3> + '_ {
        let half = self.spec.body.size * 0.5;
        self.shared.frames.iter().map(move |frame| {
            self.body.to_world(Vec3::new(
                frame.mount.x.clamp(-half.x, half.x),
                -half.y,
                frame.mount.z.clamp(-half.z, half.z),
            ))
        })
    }

    /// What the places across the ground under the body depend on: the
    /// body's (x, z) and its orientation.
    fn ground_key(&self) -> (Vec2, Quat) {
        let p = self.body.position;
        (Vec2::new(p.x, p.z), self.body.orientation)
    }

    /// A creature standing on `terrain` at (x, z), facing `heading` radians
    /// (0 = +X, counter-clockwise from above), feet on the ground; `shared`
    /// is [`KindShared::new`] of `spec`.
    pub fn spawn(
        spec: Arc<CreatureSpec>,
        shared: Arc<KindShared>,
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
        let ground = terrain.at(origin).surface_top(x, z);
        let body = Body {
            position: ground.point + Vec3::Y * spec.body.height,
            orientation: Quat::from_rotation_y(heading),
            velocity: Vec3::ZERO,
        };
        let mut creature = Creature {
            body,
            legs: Vec::with_capacity(spec.legs.len()),
            input: DriveInput::default(),
            crowding: Crowding::default(),
            start: body,
            origin,
            motion: BodyMotion::default(),
            next_group: 0,
            stability_wait: 0.0,
            last_foot_wait: 0.0,
            shared,
            among_walls: !terrain.shapes().is_empty(),
            ground_under_body: GroundUnderBody {
                gap_below: f32::NAN,
                offset: Vec3::NAN,
                shapes_offset: None,
                solid_clearance: None,
                at: (Vec2::NAN, Quat::NAN),
            },
            spec,
        };
        creature.place_legs(&terrain.at(origin));
        // Where it stands once its legs are placed (the ground guard may
        // have raised it): the start its displacement is measured from and
        // a reset returns to. (From the pose before, a creature told to
        // stop reported more displacement than path.)
        creature.start = creature.body;
        creature
    }

    /// The creature's description.
    pub fn spec(&self) -> &Arc<CreatureSpec> {
        &self.spec
    }

    /// How near each of its legs may come to another before they count as
    /// crossing (its kind's [`CreatureSpec::leg_gaps`], worked out once).
    pub fn leg_gaps(&self) -> &[f32] {
        &self.shared.leg_gaps
    }

    /// Where the creature stood once set down (its legs placed), in its
    /// current local frame.
    pub fn start(&self) -> &Body {
        &self.start
    }

    /// The offset of the creature's local frame from the world origin: every
    /// position it holds is relative to it.
    pub fn origin(&self) -> GridOrigin {
        self.origin
    }

    /// Whether a step is being held back for the body to stand over the
    /// feet that stay down (see `Creature::start_steps`): a gait that waits
    /// often walks slower than its speed asks.
    pub fn is_waiting_for_balance(&self) -> bool {
        self.stability_wait > 0.0
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
        self.crowding = Crowding::default();
        self.motion = BodyMotion::default();
        self.next_group = 0;
        self.stability_wait = 0.0;
        self.last_foot_wait = 0.0;
        self.rebase(terrain.spacing());
        self.place_legs(&terrain.at(self.origin));
    }

    /// Moves the creature's local frame by whole grid cells when its body has
    /// wandered more than `REBASE_DISTANCE` from the frame's origin, so its
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
            leg.lifted_from -= shift;
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
        super::leg::with_solver(kind, |solver| {
            let mut refused = 0;
            for leg in &mut self.legs {
                if solver.supports(&leg.chain).is_ok() {
                    leg.solver = kind;
                } else {
                    refused += 1;
                }
            }
            refused
        })
    }

    /// The solver most legs use now.
    pub fn solver(&self) -> SolverKind {
        let mut counts = [0usize; SolverKind::ALL.len()];
        for leg in &self.legs {
            counts[leg.solver.index()] += 1;
        }
        let best = (0..counts.len())
            .max_by_key(|i| (counts[*i], counts.len() - 1 - *i))
            .unwrap_or(0);
        SolverKind::ALL[best]
    }

    /// Stands the creature where it is: feet on their footholds, the body
    /// at its ride height above them (not above the ground under its centre,
    /// which on rough ground can leave feet out of reach), its underside
    /// clear of the ground, legs posed.
    fn place_legs(&mut self, terrain: &Ground<'_>) {
        self.set_legs_on_footholds(terrain);
        let mean = self.legs.iter().map(|l| l.foot.y).sum::<f32>() / self.legs.len().max(1) as f32;
        let settled = mean + self.spec.body.height;
        if settled.is_finite() && (settled - self.body.position.y).abs() > 1e-4 {
            self.body.position.y = settled;
            // Set down upright, it has no other tilt to fall back on.
            let _fits = self.keep_body_above_ground(terrain);
            self.set_legs_on_footholds(terrain);
        }
        for i in 0..self.legs.len() {
            // Rest poses are exact, so nothing needs repairing here.
            self.solve_leg(terrain, i, None, None);
            // Set down where its foothold is out of reach (astride a sharp
            // crest), a leg starts out hanging, looking for ground.
            let _repaired = self.let_go_if_out_of_reach(terrain, i, None);
            if self.legs[i].is_grounded() {
                self.legs[i].planted_end = Some(self.legs[i].chain.end());
            }
        }
    }

    fn set_legs_on_footholds(&mut self, terrain: &Ground<'_>) {
        self.legs.clear();
        for (i, leg_spec) in self.spec.legs.iter().enumerate() {
            let chain = super::leg::rest_pose(
                &self.shared.rest[i],
                &self.body,
                self.body.to_world(leg_spec.mount),
            );
            let Foothold { hit, pull } = self.foothold(terrain, i, Vec3::ZERO, 0);
            self.legs.push(Leg {
                chain,
                foot: hit.point,
                phase: LegPhase::Grounded,
                desired: hit.point,
                pull,
                report: SolveReport {
                    iterations: 0,
                    error: 0.0,
                    reached: true,
                    termination: Termination::Reached,
                },
                solver: self.spec.leg_solver(i),
                planted_end: None,
                bone_error: 0.0,
                enters_body: false,
                knee_clearance: f32::INFINITY,
                bone_clearance: f32::INFINITY,
                hanging: false,
                knee_gap: f32::INFINITY,
                lifted_from: Vec3::NAN,
            });
        }
    }

    /// Advances the creature by `dt` seconds: the pipeline in the module
    /// documentation, in order.
    pub fn step(&mut self, terrain: &Heightfield, dt: f32) -> StepEvents {
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut scratch) => self.step_stages(terrain, dt, &mut scratch),
            // Lent already (a creature stepped inside another's step, which
            // nothing does today): fresh space rather than a panic.
            Err(_) => self.step_stages(terrain, dt, &mut StepScratch::default()),
        })
    }

    /// [`Creature::step`]'s stages, with the scratch space lent.
    fn step_stages(
        &mut self,
        terrain: &Heightfield,
        dt: f32,
        scratch: &mut StepScratch,
    ) -> StepEvents {
        scratch.lifted.clear();
        scratch.lifted.resize(self.spec.legs.len(), false);
        self.rebase(terrain.spacing());
        let terrain = &terrain.at(self.origin);
        self.among_walls = terrain.has_shapes();
        let mut events = StepEvents::default();
        let before = self.body.position;
        self.drive(terrain, dt, scratch);
        self.update_footholds(terrain);
        self.start_steps(terrain, dt, scratch);
        events.touchdowns = self.advance_swings(terrain, dt);
        self.update_posture(terrain, dt, scratch);
        scratch.last_poses.clear();
        if self.among_walls {
            for leg in &self.legs {
                scratch.last_poses.extend_from_slice(leg.chain.joints());
            }
        }
        self.track_legs(&mut scratch.tracked);
        let mut first_joint = 0;
        for i in 0..self.legs.len() {
            let joints = self.legs[i].chain.joints().len();
            let last_pose = scratch.last_poses.get(first_joint..first_joint + joints);
            first_joint += joints;
            let set_up = scratch.tracked.get(i).filter(|solve| solve.leg == i);
            let repaired = self.solve_leg(terrain, i, set_up, last_pose);
            events.ik_repairs += u32::from(repaired);
            events.ik_repairs += u32::from(self.let_go_if_out_of_reach(terrain, i, last_pose));
            let leg = &mut self.legs[i];
            if leg.is_grounded() && leg.planted_end.is_none() {
                leg.planted_end = Some(leg.chain.end());
            }
        }
        for (lifted, leg) in scratch.lifted.iter_mut().zip(&self.legs) {
            *lifted = leg.is_lifted();
        }
        let rule = GaitRule {
            group_of: &self.shared.group_of,
            lifted: &scratch.lifted,
            max_lifted: self.spec.gait.max_lifted,
        };
        events.lifted = scratch.lifted.iter().filter(|l| **l).count();
        events.gait_violation = rule.violated();
        let moved = self.body.position - before;
        events.travelled = moved.length();
        self.motion.headway = moved.length();
        self.motion.progress = moved.dot(self.body.forward()) * self.motion.speed_command.signum();
        self.motion.footless_for = if self.legs.iter().any(|leg| leg.is_grounded()) {
            0.0
        } else {
            self.motion.footless_for + dt
        };
        events.footless_for = self.motion.footless_for;
        events
    }
}
