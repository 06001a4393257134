//! A leg's running state (its chain, its foot, whether it is stepping), and
//! the pipeline's last stage: posing every leg by inverse kinematics.

use std::cell::RefCell;

use glam::Vec3;

use super::drive::{BRAKE_STRETCH, STOP_STRETCH};
use super::footholds::reach_needed;
use super::swing::{
    HANGING_REACH, SWING_CLEARANCE, SWING_REACH, deepest_sample, off_surface,
    onto_ground_within_reach, swing_on, within_reach,
};
use super::{Body, Creature, CreatureSpec, LegSpec, chain_enters_body, leg_enters_body};
use crate::ik::{
    Chain, Fabrik, IkError, JointLimit, LANES, LaneJob, SolveParams, SolveReport, Solver,
    SolverKind, Termination, solve_tracking, solve_tracking_lanes,
};
use crate::terrain::Ground;

/// A solve that leaves any bone further than this fraction of the leg's reach
/// from its length is repaired (and counted): legs never visibly stretch.
pub const BONE_REPAIR_FRACTION: f32 = 1e-5;

/// Least distance (metres) the inner joints keep from the surface (of a
/// solid world, or open ground) before the leg is solved again with its
/// pole pushed out.
const KNEE_CLEARANCE: f32 = 0.005;
/// Solves tried to bring a dipping knee out (alternately from the current
/// pose and from the rest pose).
const KNEE_ATTEMPTS: usize = 4;

/// Most inner joints a leg may have for their distances to be kept on the
/// stack between the knee guard and the bones' check (more are looked up
/// again).
const CULLED_JOINTS: usize = 8;

/// The signed distances of `chain`'s inner joints (not the hip, not the
/// foot), in order, into `out`: how many there are, or `None` when more
/// than `out` holds.
fn inner_joint_distances(
    terrain: &Ground<'_>,
    chain: &Chain,
    out: &mut [f32; CULLED_JOINTS],
) -> Option<usize> {
    let joints = chain.joints();
    let inner = joints.get(1..joints.len().saturating_sub(1))?;
    if inner.len() > out.len() {
        return None;
    }
    for (slot, joint) in out.iter_mut().zip(inner) {
        *slot = terrain.signed_distance(*joint);
    }
    Some(inner.len())
}

/// [`deepest_joint`] from the inner joints' `distances` (in order).
fn deepest_of(chain: &Chain, distances: &[f32]) -> Option<(f32, Vec3)> {
    distances
        .iter()
        .zip(&chain.joints()[1..])
        .map(|(&d, &j)| (d, j))
        .min_by(|a, b| a.0.total_cmp(&b.0))
}

/// The inner joint (not the hip, not the foot) nearest the surface or
/// deepest in it: its signed distance and where it is.
fn deepest_joint(terrain: &Ground<'_>, chain: &Chain) -> Option<(f32, Vec3)> {
    let joints = chain.joints();
    let inner = joints.get(1..joints.len().saturating_sub(1))?;
    inner
        .iter()
        .map(|&j| (terrain.signed_distance(j), j))
        .min_by(|a, b| a.0.total_cmp(&b.0))
}

/// The deepest point the knee guard measures a pose of `chain` by: its
/// deepest inner joint ([`deepest_joint`]), or with `bones` (the least a
/// knee may stand at) the deepest of those and of the bones (samples along
/// every bone, [`MENDED_BONE_SAMPLES`], and [`bones_clearance_culled`] for
/// a foot `planted` or not), `None` for a pose whose knees stand lower
/// than that: a pose that takes its bones out of the solid by putting its
/// knees in is no better.
fn guarded_depth(
    terrain: &Ground<'_>,
    chain: &Chain,
    bones: Option<f32>,
    planted: bool,
) -> Option<(f32, Vec3)> {
    let knees = deepest_joint(terrain, chain)?;
    let Some(least_knee) = bones else {
        return Some(knees);
    };
    if knees.0 < least_knee {
        return None;
    }
    let mut bones = deepest_bone_sample(terrain, chain);
    // The fixed samples miss an edge cut between them (an octopod's middle
    // bone 12 mm into a wall's top edge read 8 mm clear); the culled look
    // finds it. Its measure stops at 0 by the hip and a planted foot, which
    // on their own are no cut.
    let culled = bones_clearance_culled(terrain, chain, planted, None, None);
    if culled.0 < bones.0.min(0.0) {
        bones = culled;
    }
    Some(if bones.0 < knees.0 { bones } else { knees })
}

/// An inner joint this far above open ground is clear of it on any slope
/// under 84° (metres).
const CLEAR_ABOVE: f32 = 0.05;

/// The least height of an inner joint of `chain` above the open ground
/// under it (infinite with no inner joint): one height look-up a joint.
fn lowest_knee_gap(terrain: &Ground<'_>, chain: &Chain) -> f32 {
    let joints = chain.joints();
    joints[1..joints.len() - 1]
        .iter()
        .map(|j| j.y - terrain.height(j.x, j.z))
        .fold(f32::INFINITY, f32::min)
}

/// Whether an inner joint of `chain` stands within [`KNEE_CLEARANCE`] of
/// open ground, the exact distance taken only for the joints under
/// [`CLEAR_ABOVE`].
fn knee_near_ground(terrain: &Ground<'_>, chain: &Chain) -> bool {
    let joints = chain.joints();
    joints[1..joints.len() - 1].iter().any(|j| {
        j.y - terrain.height(j.x, j.z) < CLEAR_ABOVE && terrain.signed_distance(*j) < KNEE_CLEARANCE
    })
}

/// Poles tried round the line from hip to foot when those out of the
/// surface leave a knee in it.
const POLE_SWEEP: usize = 8;

/// [`folded_clear_of`] gives up once no joint moves farther than this many
/// tolerances in a pass.
const FOLD_SETTLED: f32 = 0.1;

/// A leg's rest pose (`rest`, in the body frame about its hip) set on the
/// body as it stands, its hip at `hip`: where a solve starts afresh.
pub(super) fn rest_pose(rest: &Chain, body: &Body, hip: Vec3) -> Chain {
    let mut chain = rest.clone();
    chain.rotate_about_root(body.orientation);
    chain.set_root(hip);
    chain.set_rest_frame(body.orientation);
    chain
}

/// How much farther from its hip than the leg folds to, as a fraction of
/// its reach, a foot must be for the leg to reach it readily (see
/// `LegFrame::cramped`): a planted foot its leg misses nearer is let go
/// (`let_go_if_out_of_reach`), a swinging foot is kept that far out, and a
/// foothold under the hip that near is not taken.
pub(super) const CRAMPED_MARGIN: f32 = 0.05;

/// Shares of its reach a swinging foot is drawn in to, in turn, when its
/// knees find no room out of the surface.
const DRAWN_IN_REACH: [f32; 3] = [0.85, 0.7, 0.55];

/// How far (fractions of the leg's reach) a swinging foot is lifted along
/// the surface's normal, in turn (then brought within reach of its hip),
/// when drawing it in found no room for its knees: a
/// foot already folded under its body only folds tighter drawn in (an
/// octopod on its side on a ridged peak laid a knee 137 mm in the ground).
const LIFTED_OUT: [f32; 3] = [0.15, 0.3, 0.45];

/// Farthest (metres) a swinging foot is drawn in or lifted out in one step:
/// what a foot in the air may move in a step (5 m/s at 120 steps a second).
const DRAW_IN_STEP: f32 = 0.042;

/// Least gap a drawn-in swinging foot keeps from the surface (metres).
const DRAWN_IN_CLEARANCE: f32 = 0.03;

/// Passes of [`folded_clear_of`].
const FOLD_PASSES: usize = 96;

/// Where along a bone (fractions of it, from the joint it hangs from)
/// [`folded_clear_of`] looks for the bone in the solid, to push its joint
/// out by: every eighth.
const FOLD_BONE_SAMPLES: [f32; 7] = [0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875];

/// A pose of `chain` (no joint limits) reaching `foot` within `tolerance`
/// with every inner joint [`KNEE_CLEARANCE`] out of the surface, from
/// FABRIK passes that push each inner joint out along the surface's normal,
/// and out of the body box (`half` its half-extents) through its nearest
/// face, as they place it (and back onto its bone's length); `None` when
/// the passes find none. With `bones`, each joint is pushed out far enough
/// that the deepest of the samples along the bone it ends
/// ([`FOLD_BONE_SAMPLES`]) comes out too, and a pose is clear only with
/// every bone out ([`bones_clearance_culled`], the foot planted).
fn folded_clear_of(
    terrain: &Ground<'_>,
    chain: &Chain,
    foot: Vec3,
    tolerance: f32,
    (body, half): (&Body, Vec3),
    bones: bool,
) -> Option<Chain> {
    if !chain.limits().is_empty() {
        return None;
    }
    let lengths = chain.bone_lengths();
    let mut joints = chain.joints().to_vec();
    let last = joints.len() - 1;
    let to_body = body.orientation.inverse();
    let in_body = |p: Vec3| to_body * (p - body.position);
    let out_of_body = |p: Vec3| {
        let local = in_body(p);
        let depth = half - local.abs();
        if depth.min_element() <= 0.0 {
            return p;
        }
        // Out through the face it is nearest.
        let axis = if depth.x <= depth.y && depth.x <= depth.z {
            Vec3::X
        } else if depth.y <= depth.z {
            Vec3::Y
        } else {
            Vec3::Z
        };
        let push = (depth.dot(axis) + KNEE_CLEARANCE) * local.dot(axis).signum();
        body.to_world(local + axis * push)
    };
    let out_of_solid = |p: Vec3| {
        let p = out_of_body(p);
        let (d, normal) = terrain.distance_and_normal(p);
        if d < KNEE_CLEARANCE {
            p + normal * (2.0 * KNEE_CLEARANCE - d)
        } else {
            p
        }
    };
    // Each joint placed `length` from `anchor`, toward where it was, then
    // out of the solid and back onto the bone's sphere.
    let place = |anchor: Vec3, toward: Vec3, length: f32| {
        let onto_bone = |p: Vec3| anchor + (p - anchor).normalize_or(Vec3::Y) * length;
        let at = onto_bone(out_of_solid(onto_bone(toward)));
        if !bones {
            return at;
        }
        // A point of the bone `share` of the way from its anchor moves that
        // share of the joint's push.
        let (d, cut, share) = deepest_sample(terrain, anchor, at, FOLD_BONE_SAMPLES);
        if d >= KNEE_CLEARANCE {
            return at;
        }
        let normal = terrain.normal_at(cut);
        onto_bone(at + normal * ((2.0 * KNEE_CLEARANCE - d) / share))
    };
    let mut before = joints.clone();
    for _ in 0..FOLD_PASSES {
        before.copy_from_slice(&joints);
        joints[last] = foot;
        for k in (1..last).rev() {
            joints[k] = place(joints[k + 1], joints[k], lengths[k]);
        }
        for k in 0..last {
            joints[k + 1] = if k + 1 < last {
                place(joints[k], joints[k + 1], lengths[k])
            } else {
                joints[k] + (joints[k + 1] - joints[k]).normalize_or(Vec3::Y) * lengths[k]
            };
        }
        // Put back on its bone's length, a joint pushed out of the body
        // can fall back in: only a pose clear of both will do.
        let clear = joints[1..last].iter().all(|j| {
            terrain.signed_distance(*j) >= KNEE_CLEARANCE
                && !crate::geometry::inside_box(in_body(*j), half)
        });
        if clear && joints[last].distance(foot) <= tolerance {
            let mut posed = chain.clone();
            posed.set_pose(&joints).ok()?;
            if !bones || bones_clearance_culled(terrain, &posed, true, None, None).0 >= 0.0 {
                return Some(posed);
            }
        }
        // Settled short of a clear pose: further passes would repeat it.
        let moved = joints
            .iter()
            .zip(&before)
            .map(|(a, b)| a.distance(*b))
            .fold(0.0f32, f32::max);
        if moved < FOLD_SETTLED * tolerance {
            return None;
        }
    }
    None
}

/// For a foot behind the solid from its leg's `hip` (the line between
/// them meets the solid short of the foot's own surface): where that line
/// meets the solid, off the surface and within reach of the hip. `None`
/// for a foot the hip sees.
fn near_side_of_solid(terrain: &Ground<'_>, hip: Vec3, reach: f32, foot: Vec3) -> Option<Vec3> {
    let toward = foot - hip;
    // Short of the foot's own surface: a foot on it is not behind it.
    let hit = terrain.raycast(hip, toward, toward.length() - SWING_CLEARANCE)?;
    let direction = toward.try_normalize()?;
    Some(onto_ground_within_reach(
        terrain,
        hip,
        SWING_REACH * reach,
        hit.point - direction * SWING_CLEARANCE,
        SWING_CLEARANCE,
    ))
}

/// Where along a leg's last bone (fractions of it, from the foot) it is
/// checked for cutting through the solid round a convex edge: a foot on a
/// roof by its edge, its ankle hanging past the edge below the roof's
/// plane, has every joint out of the solid and the bone between them
/// through the corner (a spider's went 53 mm into the overhang's back edge).
const FOOT_BONE_SAMPLES: [f32; 2] = [0.15, 0.5];
/// Deepest (metres) a sample of the last bone may lie in the solid before
/// the leg's pose is mended.
const BONE_CUT: f32 = 0.002;
/// Least sines of the angle a mended last bone rises at from the face its
/// foot is on, tried in turn (about 10°, then along the face): on that
/// face's open side it clears the edge.
const FOOT_BONE_RISES: [f32; 2] = [0.17, 0.0];
/// FABRIK passes that bring the rest of the leg to a mended ankle.
const ANKLE_PASSES: usize = 32;

/// The least signed distance of the samples along `chain`'s last bone
/// ([`FOOT_BONE_SAMPLES`]) and the sample it is at; infinite for a chain
/// without an inner joint, or when every sample lies within `ankle` (the
/// distance of the joint before the foot, when known) of that joint.
fn foot_bone_clearance(terrain: &Ground<'_>, chain: &Chain, ankle: Option<f32>) -> (f32, Vec3) {
    let [_, .., before_foot, foot] = chain.joints() else {
        return (f32::INFINITY, Vec3::ZERO);
    };
    // Those within the ankle's own distance of it are clear.
    let room = ankle.unwrap_or(0.0);
    let length = before_foot.distance(*foot);
    let uncertain = FOOT_BONE_SAMPLES
        .into_iter()
        .filter(|share| (1.0 - share) * length > room);
    let (depth, at, _) = deepest_sample(terrain, *foot, *before_foot, uncertain);
    (depth, at)
}

/// Where along every bone (fractions of it) a mended pose is checked:
/// both halves, for a middle bone may cut an edge anywhere.
const MENDED_BONE_SAMPLES: [f32; 3] = [0.15, 0.5, 0.85];

/// The deepest of the samples along every bone of `chain` (at
/// [`MENDED_BONE_SAMPLES`] of each): its signed distance and where it is
/// (infinitely far, at the origin, with no bone). What a mended pose must
/// improve, not only at its last bone, and what the knee guard measures
/// bones by.
fn deepest_bone_sample(terrain: &Ground<'_>, chain: &Chain) -> (f32, Vec3) {
    chain
        .joints()
        .windows(2)
        .map(|bone| {
            let (d, at, _) = deepest_sample(terrain, bone[1], bone[0], MENDED_BONE_SAMPLES);
            (d, at)
        })
        .fold(
            (f32::INFINITY, Vec3::ZERO),
            |a, b| if b.0 < a.0 { b } else { a },
        )
}

/// Most times the bones' check halves a stretch of a bone it cannot tell
/// is clear.
const BONE_CHECK_HALVINGS: u32 = 7;
/// Of [`BONE_CHECK_HALVINGS`], those left once a stretch is halved only
/// where it may pass deeper than [`KNEE_CLEARANCE`]: a bone grazing a
/// surface is looked up at no more than 2⁴ − 1 points, and one that may
/// cut it is followed down to where it does (at 2 cm a stretch left an
/// octopod's bone 8 mm into a wall's edge read 2 mm).
const BONE_CHECK_DEEP_HALVINGS: u32 = 3;
/// A stretch of bone this short (metres) is no longer halved but where it
/// may pass deeper than [`KNEE_CLEARANCE`].
const BONE_CHECK_RESOLUTION: f32 = 0.04;
/// A stretch of bone this short (metres) the bones' check takes at its
/// ends' distances: no point of it lies more than half of it deeper.
const BONE_CHECK_FINE_RESOLUTION: f32 = 0.004;
/// Where along a planted foot's last bone (a fraction of it, from the
/// foot) the bones' check starts: the foot stands on the surface, where no
/// stretch can be shown clear, so the stretch from here to the ankle is
/// checked as the other bones are. This near the foot the bone still cuts
/// a corner the foot stands by (a foot on a wall's top by its edge, its
/// bone going down past the edge, cut the corner 13 mm deep 2 cm from it).
const BY_FOOT_SHARE: f32 = 0.06;

/// The least signed distance along `chain`'s bones (infinite with none),
/// found cheaply. Every joint out of the solid does not keep the bones out:
/// a leg across a convex edge, or astride a thin wall, passes through. A
/// distance changes no faster than the point moves, so a stretch of bone
/// no longer than the sum of its ends' distances is clear; a stretch that
/// may not be is halved and its middle looked up
/// (down to [`BONE_CHECK_RESOLUTION`], and further only where it may pass
/// deeper than [`KNEE_CLEARANCE`]: [`stretch_clearance`]). The hip, on the
/// body, counts as 0. A
/// `planted` foot stands on the surface, where every stretch is uncertain:
/// its last bone is checked from [`BY_FOOT_SHARE`] of it (`foot_bone` is
/// the least of [`FOOT_BONE_SAMPLES`] when a climber's bone check has it).
/// The inner joints' distances are `inner` when the caller has them, in
/// order.
pub(super) fn bones_clearance_culled(
    terrain: &Ground<'_>,
    chain: &Chain,
    planted: bool,
    inner: Option<&[f32]>,
    foot_bone: Option<f32>,
) -> (f32, Vec3) {
    let joints = chain.joints();
    let last = joints.len().saturating_sub(2);
    let deeper = |a: (f32, Vec3), b: (f32, Vec3)| if b.0 < a.0 { b } else { a };
    let mut least = (f32::INFINITY, joints[0]);
    let mut from = 0.0f32;
    for (k, bone) in joints.windows(2).enumerate() {
        if k == last && planted {
            // Every stretch by a planted foot is uncertain (its distance
            // is 0): the last bone is checked from a little way up it.
            let known = (foot_bone.unwrap_or(f32::INFINITY), bone[1]);
            let by_foot = bone[1].lerp(bone[0], BY_FOOT_SHARE);
            let at_by_foot = terrain.signed_distance(by_foot);
            least = deeper(least, deeper(known, (at_by_foot, by_foot)));
            least = deeper(
                least,
                stretch_clearance(
                    terrain,
                    (bone[0], from),
                    (by_foot, at_by_foot),
                    BONE_CHECK_HALVINGS,
                ),
            );
            break;
        }
        let to = if k == last {
            terrain.signed_distance(bone[1]).max(0.0)
        } else {
            let d = match inner {
                Some(distances) => distances[k],
                None => terrain.signed_distance(bone[1]),
            };
            least = deeper(least, (d, bone[1]));
            d
        };
        least = deeper(
            least,
            stretch_clearance(terrain, (bone[0], from), (bone[1], to), BONE_CHECK_HALVINGS),
        );
        from = to;
    }
    least
}

/// The least distance found along the stretch between two points, each
/// given with its distance (or a lower bound of it), and where it was
/// found; infinite for a stretch its ends show clear. A stretch they
/// cannot show clear is halved `halvings` times at most: past the first
/// few, or below [`BONE_CHECK_RESOLUTION`], only where a point of it may
/// lie deeper than [`KNEE_CLEARANCE`] (what a cut is), down to
/// [`BONE_CHECK_FINE_RESOLUTION`].
fn stretch_clearance(
    terrain: &Ground<'_>,
    (a, at_a): (Vec3, f32),
    (b, at_b): (Vec3, f32),
    halvings: u32,
) -> (f32, Vec3) {
    let length = a.distance(b);
    if at_a.max(0.0) + at_b.max(0.0) >= length {
        return (f32::INFINITY, a);
    }
    // The deepest a point between the ends can be, by the same rule.
    let could_be = 0.5 * (at_a + at_b - length);
    let coarse = halvings <= BONE_CHECK_DEEP_HALVINGS || length <= BONE_CHECK_RESOLUTION;
    if halvings == 0
        || length <= BONE_CHECK_FINE_RESOLUTION
        || coarse && could_be >= -KNEE_CLEARANCE
    {
        return if at_b < at_a { (at_b, b) } else { (at_a, a) };
    }
    let middle = a.midpoint(b);
    let at_middle = terrain.signed_distance(middle);
    let first = stretch_clearance(terrain, (a, at_a), (middle, at_middle), halvings - 1);
    let second = stretch_clearance(terrain, (middle, at_middle), (b, at_b), halvings - 1);
    [(at_middle, middle), first, second]
        .into_iter()
        .fold((f32::INFINITY, a), |m, x| if x.0 < m.0 { x } else { m })
}

/// A pose of `chain` (no joint limits, at least three bones: with two, the
/// knee is the ankle and only its own sphere holds it) whose last bone
/// leaves `foot` on the open side of the plane through it with `normal`
/// (a face the foot is on), rising at least `least_rise` (a sine) from it,
/// its other bones brought to that ankle by FABRIK from where they are;
/// `None` when the bone already rises so or the rest of the leg cannot
/// reach the ankle within `tolerance`. The ankle turns from where it is
/// as little as the rise asks or, `toward_hip`, from the line to the hip:
/// the ankle nearest the hip, for a leg too stretched to reach the other.
fn ankle_over_edge(
    chain: &Chain,
    foot: Vec3,
    normal: Vec3,
    least_rise: f32,
    toward_hip: bool,
    tolerance: f32,
) -> Option<Chain> {
    if !chain.limits().is_empty() || chain.joints().len() < 4 {
        return None;
    }
    let lengths = chain.bone_lengths();
    let mut joints = chain.joints().to_vec();
    let last = joints.len() - 1;
    let along = (joints[last - 1] - foot).normalize_or(normal);
    if along.dot(normal) >= least_rise {
        return None;
    }
    let aim = if toward_hip {
        (joints[0] - foot).normalize_or(along)
    } else {
        along
    };
    let rise = aim.dot(normal);
    // Turned toward the normal in the plane it shares with it, as little
    // as the rise asks.
    let direction = if rise >= least_rise {
        aim
    } else {
        let across = (aim - normal * rise).normalize_or(normal.any_orthonormal_vector());
        across * (1.0 - least_rise * least_rise).sqrt() + normal * least_rise
    };
    let ankle = foot + direction * lengths[last - 1];
    let hip = joints[0];
    for _ in 0..ANKLE_PASSES {
        joints[last - 1] = ankle;
        for k in (0..last - 1).rev() {
            joints[k] =
                joints[k + 1] + (joints[k] - joints[k + 1]).normalize_or(Vec3::Y) * lengths[k];
        }
        joints[0] = hip;
        for k in 0..last - 1 {
            joints[k + 1] =
                joints[k] + (joints[k + 1] - joints[k]).normalize_or(Vec3::Y) * lengths[k];
        }
        if joints[last - 1].distance(ankle) <= tolerance {
            break;
        }
    }
    joints[last] =
        joints[last - 1] + (foot - joints[last - 1]).normalize_or(-direction) * lengths[last - 1];
    if joints[last].distance(foot) > tolerance {
        return None;
    }
    let mut posed = chain.clone();
    posed.set_pose(&joints).ok()?;
    Some(posed)
}

/// Whether a foot is planted or in the air.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LegPhase {
    /// Planted: the foot does not move.
    Grounded,
    /// In the air, travelling from `from` to `to` (see `swing.rs`).
    Swinging {
        /// Where the step started.
        from: Vec3,
        /// Where it will land: chosen at lift-off for where the body will be,
        /// then drawn toward later footholds at a bounded, fading rate.
        to: Vec3,
        /// 0 at lift-off, 1 at touchdown.
        progress: f32,
        /// How long this swing takes, seconds (fixed at lift-off).
        duration: f32,
        /// Peak height of the arc above the line from `from` to `to`, metres
        /// (the gait's step height, raised where the ground between demands).
        lift: f32,
        /// The way round the solid for a swing whose straight way passes
        /// through it (a foot on a thin wall's near face, its foothold on
        /// the far face): the arc rises along it, not along the body's up.
        around: Option<Vec3>,
        /// Seconds since the swing's end that the foot has not yet landed
        /// (coming down to its landing point, or held off it).
        overtime: f32,
    },
}

/// One leg of a running creature.
#[derive(Debug, Clone)]
pub struct Leg {
    /// Hip-to-foot chain in world coordinates (joint 0 is the hip).
    pub chain: Chain,
    /// Where the foot is (planted position, or current point of the swing arc).
    pub foot: Vec3,
    /// Planted or stepping.
    pub phase: LegPhase,
    /// Where the foot wants to be: the latest ray hit ahead of the rest point.
    pub desired: Vec3,
    /// Which pull toward the hip found the current foothold (0 = the rest
    /// point itself); kept so footholds do not flip between retries.
    pub pull: usize,
    /// The IK report from the latest solve.
    pub report: SolveReport,
    /// The solver this leg uses now.
    pub solver: SolverKind,
    /// Chain end right after the foot was planted: grounded feet must stay here.
    pub planted_end: Option<Vec3>,
    /// Largest bone-length error of the chain after the latest solve (and
    /// repair): measured once, read by the metrics.
    pub bone_error: f32,
    /// Whether the pose the last solve left passes through the body box:
    /// what the metrics count as a leg–body intersection (checked once,
    /// here, where the solve already looks).
    pub enters_body: bool,
    /// In a world with shapes, how far the nearest inner joint (knee,
    /// ankle: not the hip, not the foot) stands from the surface after the
    /// last solve, negative inside (measured once, here, for the metrics);
    /// infinite on open ground, where the metrics measure it themselves.
    pub knee_clearance: f32,
    /// In a world with shapes, how far the bones of the pose the last
    /// solve left stand from the surface, negative inside
    /// ([`bones_clearance_culled`]); infinite on open ground. A planted
    /// foot whose leg passes through the solid is let go; the metrics read
    /// it.
    pub bone_clearance: f32,
    /// Whether the foot is in the air because its leg cannot reach the
    /// ground, not because the gait lifted it: the body moved its planted
    /// foot out of reach, or there was nothing in reach to land on. It
    /// swings on toward its foothold until one is in reach, outside the
    /// gait's turns (it holds nothing up, so it neither waits for them nor
    /// keeps other legs waiting).
    pub hanging: bool,
    /// On open ground, the least height of an inner joint above the ground
    /// under it after the last solve (infinite with no inner joint): a
    /// planted foot's let-go looks up the knees' distance into the ground
    /// only when it shows one below it, and the metrics look up no knee
    /// when it shows none can change their figures.
    pub knee_gap: f32,
    /// Where the foot stood when the gait last lifted it (NaN before its
    /// first step).
    pub lifted_from: Vec3,
}

/// A planted foot its leg misses by more than this (metres) does not
/// stand: it steps before anything else.
pub(super) const MISSED_FOOT: f32 = 0.005;

impl Leg {
    /// Whether the foot is planted.
    pub fn is_grounded(&self) -> bool {
        matches!(self.phase, LegPhase::Grounded)
    }

    /// Whether the gait lifted this foot: in the air and not hanging. What
    /// the gait's rule counts.
    pub fn is_lifted(&self) -> bool {
        !self.is_grounded() && !self.hanging
    }

    /// Whether the foot is planted and its leg reaches it: one its leg
    /// misses by more than `MISSED_FOOT` (joint limits, a coarse solver)
    /// holds nothing up.
    pub fn stands(&self) -> bool {
        self.is_grounded() && self.report.error <= MISSED_FOOT
    }
}

/// The leg's rest pose in the body frame: hip at `mount`, foot at `rest`,
/// knee bent toward the pole (or up and out when there is none).
///
/// The rest pose is both the first pose and what the gradient solver's
/// rest term pulls toward.
pub fn rest_chain(leg: &LegSpec) -> Chain {
    // The config loader builds every leg with `try_rest_chain` and refuses
    // the file if it fails, so a validated leg always makes a chain.
    try_rest_chain(leg).expect("validated leg makes a chain")
}

/// [`rest_chain`], or why these bones cannot make a chain at this mount
/// (e.g. a bone too short to move a joint off its neighbour in f32).
pub fn try_rest_chain(leg: &LegSpec) -> Result<Chain, IkError> {
    let outward = Vec3::new(0.0, 0.0, leg.rest.z - leg.mount.z).normalize_or(Vec3::Z);
    let pole = leg
        .pole
        .unwrap_or(leg.mount + (Vec3::Y + outward) * leg.reach());
    let start_dir = (pole - leg.mount).normalize_or(Vec3::Y);
    let mut joints = Vec::with_capacity(leg.bones.len() + 1);
    joints.push(leg.mount);
    for bone in &leg.bones {
        let next = *joints.last().unwrap_or(&leg.mount) + start_dir * *bone;
        joints.push(next);
    }
    let mut chain = Chain::new(joints)?;
    let params = SolveParams {
        tolerance: 1e-6 * leg.reach(),
        max_iterations: 500,
        pole: Some(pole),
        end_direction: None,
    };
    let report = Fabrik::default().solve(&mut chain, leg.rest, &params);
    debug_assert!(
        report.reached || report.termination != Termination::MaxIterations,
        "rest pose of {} not reached: {report:?}",
        leg.name
    );
    // Re-build from the solved pose so its bone directions become the rest
    // directions (and the frame the joint limits' hinge axes are read in).
    let mut rest = Chain::new(chain.joints().to_vec())?;
    rest.set_limits(&leg.joints)?;
    Ok(rest)
}

thread_local! {
    /// One solver of each kind per thread, built when first asked for. A
    /// solver holds only scratch space, which each solve writes before it
    /// reads, so every creature stepped on a thread shares these (a creature
    /// holding its own cost it half a kilobyte).
    static SOLVERS: RefCell<[Option<Box<dyn Solver>>; SolverKind::ALL.len()]> =
        RefCell::new(Default::default());
}

/// Runs `work` with this thread's solver of `kind`.
pub(super) fn with_solver<R>(kind: SolverKind, work: impl FnOnce(&mut dyn Solver) -> R) -> R {
    SOLVERS.with_borrow_mut(|solvers| {
        let solver = solvers[kind.index()].get_or_insert_with(|| kind.build());
        work(solver.as_mut())
    })
}

/// Solves `chain` for `target` with this thread's solver of `kind`.
///
/// FABRIK honours joint limits by clamping each joint as it places it,
/// and a joint held at its limit can stop it short of a target the leg
/// reaches by bending another: an ankle at the edge of a 60° cone left a
/// walking spider's foot 0.24 m off its target (the README's own limits
/// example). Where limits stop it short, CCD, which turns one joint at a
/// time, finishes from its pose, and the better of the two is kept.
fn solve_with(
    kind: SolverKind,
    chain: &mut Chain,
    target: Vec3,
    params: &SolveParams,
) -> SolveReport {
    if let Some(report) = solve_tracking(kind, chain, target, params) {
        return report;
    }
    let report = with_solver(kind, |solver| solver.solve(chain, target, params));
    // The limits are looked at only for a solve FABRIK left short.
    if kind != SolverKind::Fabrik
        || report.reached
        || chain.limits().iter().all(|l| *l == JointLimit::Free)
    {
        return report;
    }
    let mut finished = chain.clone();
    let finish = with_solver(SolverKind::Ccd, |solver| {
        solver.solve(&mut finished, target, params)
    });
    if finish.error < report.error {
        *chain = finished;
        SolveReport {
            iterations: report.iterations + finish.iterations,
            ..finish
        }
    } else {
        report
    }
}

/// Whether a guard's pose `chain`, solved with `report`, may replace a
/// leg's pose solved with `current`: it keeps its bones, and misses its
/// point by no more than the pose it replaces misses its own (or the
/// tolerance). (A solver 3 mm short of a nearly straight leg's foot
/// missed every drawn-in point by more than the tolerance too, and none
/// was kept.)
fn may_replace(
    chain: &Chain,
    report: &SolveReport,
    current: &SolveReport,
    params: &SolveParams,
) -> bool {
    chain.bone_length_error() <= BONE_REPAIR_FRACTION * chain.reach()
        && report.error <= current.error.max(params.tolerance)
}

/// One leg's solve this step as [`Creature::track_legs`] set it up: its
/// hip and what the solve is asked (worked out once a step, not again by
/// [`Creature::solve_leg`]), and the tracking solve's report when that
/// posed the leg.
#[derive(Debug, Clone, Copy)]
pub(super) struct LegSolve {
    /// The leg's index.
    pub leg: usize,
    pub hip: Vec3,
    pub params: SolveParams,
    pub tracked: Option<SolveReport>,
}

/// Leg `i`'s hip, where its chain is rooted this step, and what its solve
/// is asked, for a creature of `spec` whose body is `body`.
fn solve_params(spec: &CreatureSpec, body: &Body, i: usize) -> (Vec3, SolveParams) {
    let leg_spec = &spec.legs[i];
    let params = SolveParams {
        tolerance: spec.solver.tolerance,
        max_iterations: spec.solver.max_iterations,
        pole: leg_spec.pole.map(|p| body.to_world(p)),
        end_direction: None,
    };
    (body.to_world(leg_spec.mount), params)
}

/// A planted foot its leg misses by more than this (metres), out of its
/// reach, is not standing: the leg lets go and hangs (see
/// [`Leg::hanging`]).
const HANGING_FOOT: f32 = 0.0005;

impl Creature {
    /// Leg `i`'s hip, where its chain is rooted this step, and what its
    /// solve is asked.
    fn leg_solve_params(&self, i: usize) -> (Vec3, SolveParams) {
        solve_params(&self.spec, &self.body, i)
    }

    /// Before the legs' solves: roots every chain at its hip and runs the
    /// tracking solves of the legs, four at a time in SIMD lanes
    /// ([`solve_tracking_lanes`]); `tracked[i]` is leg `i`'s solve as set
    /// up (see [`Creature::solve_leg`]), with its report, or no report
    /// where its own solver must pose it. The same poses as solving
    /// each leg on its own, bit for bit: the octopod's step (CCD, six
    /// sweeps a leg) costs 9% less; FABRIK's two passes gain about what
    /// gathering the lanes costs.
    ///
    /// Lanes run until their slowest leg is done, so with more legs than
    /// lanes planted feet (which moved least since the last pose) share
    /// lanes, and feet in the air share theirs: an octopod's lanes each
    /// held two of either, and every planted leg waited on a swinging one.
    /// Only when that takes no more calls than the legs in order: four legs
    /// or fewer fill one call, and five planted legs and one in the air
    /// would take three calls where two do.
    pub(super) fn track_legs(&mut self, tracked: &mut Vec<LegSolve>) {
        tracked.clear();
        let orientation = self.body.orientation;
        let (spec, body) = (&self.spec, &self.body);
        let calls = |legs: usize| legs.div_ceil(LANES);
        let planted = self.legs.iter().filter(|leg| leg.is_grounded()).count();
        let by_feet = self.legs.len() > LANES
            && calls(planted) + calls(self.legs.len() - planted) == calls(self.legs.len());
        // Each pass takes the legs whose feet are planted (`Some(true)`),
        // in the air (`Some(false)`), or all of them (`None`).
        let passes: &[Option<bool>] = if by_feet {
            &[Some(true), Some(false)]
        } else {
            &[None]
        };
        for &pass in passes {
            let mut legs = self
                .legs
                .iter_mut()
                .enumerate()
                .filter(|(_, leg)| pass.is_none_or(|planted| leg.is_grounded() == planted));
            loop {
                let mut jobs: [Option<LaneJob<'_>>; LANES] = [None, None, None, None];
                let mut solves: [Option<LegSolve>; LANES] = [None; LANES];
                let mut count = 0;
                for (slot, (i, leg)) in jobs.iter_mut().zip(legs.by_ref()) {
                    let (hip, params) = solve_params(spec, body, i);
                    leg.chain.set_root(hip);
                    leg.chain.set_rest_frame(orientation);
                    *slot = Some((&mut leg.chain, leg.solver, leg.foot, params));
                    solves[count] = Some(LegSolve {
                        leg: i,
                        hip,
                        params,
                        tracked: None,
                    });
                    count += 1;
                }
                if count == 0 {
                    break;
                }
                let reports = solve_tracking_lanes(&mut jobs);
                for (solve, report) in solves[..count].iter().zip(reports) {
                    if let Some(solve) = solve {
                        tracked.push(LegSolve {
                            tracked: report,
                            ..*solve
                        });
                    }
                }
            }
        }
        // The passes took planted legs and lifted ones apart: back in
        // the legs' order.
        tracked.sort_unstable_by_key(|solve| solve.leg);
    }

    /// After leg `i`'s solve: a planted foot its leg cannot stand on is let
    /// go: one it no longer reaches (the body rounded an edge away from
    /// it, or was set down out of its reach), one the body carried in by
    /// the hip to about the nearest the leg reaches and the leg misses, or
    /// one it reaches only with a knee left in the ground. It swings from
    /// where the leg's end is toward its foothold, hanging, so it is never
    /// counted as standing where it cannot.
    ///
    /// The leg is posed again for the start of that swing: bent short of
    /// its reach among walls, or for a knee stuck in the ground (the knee
    /// must come out now); on open ground otherwise at its end, the swing
    /// bending it as the foot follows. Returns whether that solve repaired
    /// a bone. `last_pose` is the leg's pose as the last step left it, when
    /// known (see [`Creature::solve_leg`]).
    pub(super) fn let_go_if_out_of_reach(
        &mut self,
        terrain: &Ground<'_>,
        i: usize,
        last_pose: Option<&[Vec3]>,
    ) -> bool {
        let leg = &self.legs[i];
        if !leg.is_grounded() {
            return false;
        }
        // Twice the solver's tolerance at least: a file may ask for a
        // coarse one (up to a hundredth of its shortest bone).
        let missed = HANGING_FOOT.max(2.0 * self.spec.solver.tolerance);
        // A foot well in reach that the solver missed stays planted (a
        // sloppy solver shows as slip); one stretched past where the body
        // stops for it (where a straight leg converges slowly) or out of
        // reach is let go. So is a foot the leg reaches only with a knee
        // left in the surface past its clearance, however bent: no pose the
        // guard found keeps its knees out, so it is no foothold. (It was let
        // go only when nearly straight, or buried past 15 mm: an octopod on
        // its side on a ridged flank held a knee 10 mm in, and among walls
        // a seven-legged climber's tail leg, its foot on the far face of
        // the wall, one 11 mm in.)
        let reach = self.shared.frames[i].reach;
        let hip = leg.chain.root();
        let needed = reach_needed(terrain, hip, leg.foot);
        let knee = if terrain.has_shapes() {
            leg.knee_clearance
        } else if leg.knee_gap < -KNEE_CLEARANCE {
            // A knee under the ground: how far into it, exactly (on a
            // steep flank the height below it is more).
            deepest_joint(terrain, &leg.chain).map_or(leg.knee_gap, |(depth, _)| depth)
        } else {
            leg.knee_gap
        };
        let missed_it = leg.report.error > missed;
        let out_of_reach = missed_it && needed > STOP_STRETCH * reach;
        // So is a foot the leg misses that the body has carried in by its
        // hip to within a little of the nearest the leg reaches (the
        // solvers converge slowly there: a centipede's two-bone leg 5 mm
        // short of a foot 3 mm outside that reach, on a ridged peak).
        let cramped = missed_it && hip.distance(leg.foot) < self.shared.frames[i].cramped;
        let knee_stuck = knee < -KNEE_CLEARANCE;
        // So is one the leg reaches only with a bone through the solid, its
        // joints out (an octopod that had come over a 0.2 m wall and down
        // its far face stood on feet left on the near face, its legs
        // through the wall; walkers stood astride beams and slabs so).
        let bone_stuck = leg.bone_clearance < -KNEE_CLEARANCE;
        // So is one the leg misses with no pose out of the body: the body
        // has come over it (a two-bone leg, its hip carried in over its
        // foot, missed it by up to 17 mm from the rest pose and from its
        // last, and the foot slipped as much).
        let under_body = missed_it && leg.enters_body;
        // Among walls, a body held still by a foot stretched past the brake
        // whose foothold is where it stands (no step would move it) waits
        // on it until its shortfall makes it stranded: a twelve-legged
        // climber on a wall's face stood 1.5 s at a time. Such a foot is
        // no help where it is: it lets go, and steps once the body moves.
        let holding = self.among_walls
            && self.is_held()
            && needed > BRAKE_STRETCH * reach
            && !self.step_would_move(leg);
        let for_its_joints_or_reach =
            out_of_reach || cramped || knee_stuck || under_body || holding;
        if !(for_its_joints_or_reach || bone_stuck) {
            return false;
        }
        // Drawn in along a line through a bump, the foot would start its
        // swing inside it (a spider's 214 mm deep for a step): it starts
        // just off the surface instead, as a drawn-in swinging foot does.
        let from = off_surface(
            terrain,
            within_reach(hip, leg.chain.end(), HANGING_REACH * reach),
            DRAWN_IN_CLEARANCE,
        );
        let phase = swing_on(
            terrain,
            from,
            leg.desired,
            self.body.up(),
            &self.spec.gait,
            reach,
        );
        // On open ground a foot let go because its leg no longer reaches it
        // stays where the leg's end is and follows its swing from there no
        // faster than a foot may move (it jumped 73 mm in a step, 9.8 m/s,
        // to the bent start), unless the knee guard draws it in after this
        // solve. One let go for a knee stuck in the ground starts bent at
        // once: the knee must come out now. So does one let go for a bone
        // through the solid among walls, but for its bone alone it starts
        // where it stands: drawn in, a stilt-legged walker's foot jumped
        // 0.44 m through a wall's edge.
        let continuous = (!terrain.has_shapes() || !for_its_joints_or_reach) && !knee_stuck;
        let start = if continuous {
            // Where the leg's end is, lifted onto the ground and back within
            // the leg's reach: lifted alone, it was out of reach (that is
            // why it was let go), and the leg's end stayed under the ground
            // for the step (a centipede's foot 17 mm into a ridged flank).
            onto_ground_within_reach(terrain, hip, reach, leg.chain.end(), 0.0)
        } else {
            from
        };
        let leg = &mut self.legs[i];
        leg.foot = start;
        leg.phase = phase;
        leg.planted_end = None;
        leg.hanging = true;
        self.solve_leg(terrain, i, None, last_pose)
    }

    /// Poses leg `i` for its foot; true when the solver left a bone off its
    /// length and the pose was repaired. `set_up` is its solve as
    /// [`Creature::track_legs`] set it up for the body as it stands, with
    /// the tracking solve's report when that posed it; `last_pose` its
    /// joints as the last step left them, when known (among walls).
    pub(super) fn solve_leg(
        &mut self,
        terrain: &Ground<'_>,
        i: usize,
        set_up: Option<&LegSolve>,
        last_pose: Option<&[Vec3]>,
    ) -> bool {
        // (The body has not moved since the set-up: the same hip and pole.)
        let (hip, params, tracked) = match set_up {
            Some(solve) => (solve.hip, solve.params, solve.tracked),
            None => {
                let (hip, params) = self.leg_solve_params(i);
                (hip, params, None)
            }
        };
        let leg = &mut self.legs[i];
        leg.chain.set_root(hip);
        leg.chain.set_rest_frame(self.body.orientation);
        let kind = leg.solver;
        leg.report = match tracked {
            Some(report) => report,
            None => solve_with(kind, &mut leg.chain, leg.foot, &params),
        };
        // Solvers start from the previous pose, and a foot drawn in close
        // can leave a knee folded over the body. Start again from the rest
        // pose, whose knees stand out: its solution is the natural one.
        let half = self.spec.body.size * 0.5;
        let mut enters_body = leg_enters_body(&self.body, half, leg);
        if enters_body {
            let mut fresh = rest_pose(&self.shared.rest[i], &self.body, hip);
            let report = solve_with(kind, &mut fresh, leg.foot, &params);
            leg.chain = fresh;
            leg.report = report;
            enters_body = leg_enters_body(&self.body, half, leg);
        }
        leg.bone_error = leg.chain.bone_length_error();
        let repair = leg.bone_error > BONE_REPAIR_FRACTION * leg.chain.reach();
        if repair {
            leg.chain.restore_bone_lengths();
            leg.bone_error = leg.chain.bone_length_error();
            leg.report.error = leg.chain.end().distance(leg.foot);
            leg.report.reached = leg.report.error <= params.tolerance;
            enters_body = leg_enters_body(&self.body, half, leg);
        }
        leg.enters_body = enters_body;
        if terrain.has_shapes() {
            // Even a pose through the body: the guard prefers poses out of
            // it, so one it finds mends both (a tail hip mounted behind
            // the body, set down by a corner, left an ankle 170 mm in).
            // The inner joints' distances, looked up once for the knee
            // guard and, while the pose stands as it was, for the bones.
            let mut inner = [0.0f32; CULLED_JOINTS];
            let known = inner_joint_distances(terrain, &self.legs[i].chain, &mut inner);
            let first = known.and_then(|count| deepest_of(&self.legs[i].chain, &inner[..count]));
            let knees = self.keep_knees_out(terrain, i, &params, first, None, None);
            self.legs[i].knee_clearance = knees;
            let climber = self.spec.body.surface == super::Surface::Any;
            let as_it_was = first.is_some_and(|(depth, _)| depth >= KNEE_CLEARANCE);
            // The joint before the foot, its distance when the pose stands
            // as it was.
            let ankle = known
                .filter(|_| as_it_was)
                .and_then(|count| count.checked_sub(1).map(|k| inner[k]));
            let foot_bone = climber
                .then(|| self.keep_foot_bone_out(terrain, i, &params, ankle))
                .flatten();
            // The knee guard leaves a pose whose deepest knee stood clear as
            // it was (a climber's mended one is measured again).
            let unchanged = (!climber || foot_bone.is_some()) && as_it_was;
            let inner = known.filter(|_| unchanged).map(|count| &inner[..count]);
            let leg = &mut self.legs[i];
            leg.bone_clearance =
                bones_clearance_culled(terrain, &leg.chain, leg.is_grounded(), inner, foot_bone).0;
            if leg.bone_clearance < -KNEE_CLEARANCE {
                // A leg that passes through the solid with its joints out
                // (its knee flipped under a roof its foot stands on, a
                // hanging foot reaching round a slab's edge, a leg astride
                // a beam) is guarded as one with a knee in is, its bones
                // measured too and its knees kept as far out as they were
                // (or clear). (A planted foot still through is let go.)
                let knees = leg.knee_clearance.min(KNEE_CLEARANCE);
                let before = leg.knee_clearance.min(leg.bone_clearance);
                let guarded =
                    self.keep_knees_out(terrain, i, &params, None, Some(knees), last_pose);
                if guarded > before {
                    let leg = &mut self.legs[i];
                    leg.knee_clearance =
                        deepest_joint(terrain, &leg.chain).map_or(f32::INFINITY, |(d, _)| d);
                    leg.bone_clearance =
                        bones_clearance_culled(terrain, &leg.chain, leg.is_grounded(), None, None)
                            .0;
                }
            }
            self.after_knee_guard(i, enters_body);
        } else {
            // On open ground too (a foot down a steep flank can fold a knee
            // into the slope above it). The metrics measure these knees
            // themselves, from the lowest gap kept here.
            let mut gap = lowest_knee_gap(terrain, &self.legs[i].chain);
            if gap < CLEAR_ABOVE && knee_near_ground(terrain, &self.legs[i].chain) {
                self.keep_knees_out(terrain, i, &params, None, None, None);
                gap = lowest_knee_gap(terrain, &self.legs[i].chain);
                self.after_knee_guard(i, enters_body);
            }
            self.legs[i].knee_gap = gap;
        }
        repair
    }

    /// A climber's leg whose last bone cuts through the solid round a
    /// convex edge (see [`FOOT_BONE_SAMPLES`]) takes its ankle over the
    /// edge ([`ankle_over_edge`]), kept only if that leaves the deepest
    /// sample of its bones ([`deepest_bone_sample`]) shallower, the knees no
    /// deeper (or clear) and the leg out of the body. Returns the least of
    /// the last bone's samples for a pose it left as it was (`None` for
    /// one it mended).
    fn keep_foot_bone_out(
        &mut self,
        terrain: &Ground<'_>,
        i: usize,
        params: &SolveParams,
        ankle: Option<f32>,
    ) -> Option<f32> {
        let leg = &self.legs[i];
        let (cut, deepest) = foot_bone_clearance(terrain, &leg.chain, ankle);
        if cut >= -BONE_CUT {
            return Some(cut);
        }
        let half = self.spec.body.size * 0.5;
        let worst = deepest_bone_sample(terrain, &leg.chain).0;
        // The face the foot is on, or, for a foot at the edge itself, the
        // face the bone passes under (a foot on a thin wall's far top edge
        // reads the far face's normal, its leg coming over the top).
        let faces = [terrain.normal_at(leg.foot), terrain.normal_at(deepest)];
        // Rising less asks less reach of the rest of the leg: a foot on a
        // thin wall's top, its hip down the wall's face, reaches an ankle
        // just over the edge, not one well above it.
        let tries = faces.into_iter().flat_map(|normal| {
            [false, true]
                .into_iter()
                .flat_map(move |toward_hip| FOOT_BONE_RISES.map(|rise| (normal, rise, toward_hip)))
        });
        for (normal, least_rise, toward_hip) in tries {
            let Some(posed) = ankle_over_edge(
                &leg.chain,
                leg.foot,
                normal,
                least_rise,
                toward_hip,
                params.tolerance,
            ) else {
                continue;
            };
            let knees = deepest_joint(terrain, &posed).map_or(f32::INFINITY, |(d, _)| d);
            if deepest_bone_sample(terrain, &posed).0 <= worst
                || knees < leg.knee_clearance.min(KNEE_CLEARANCE)
                || chain_enters_body(&self.body, half, &posed)
            {
                continue;
            }
            let error = posed.end().distance(leg.foot);
            let leg = &mut self.legs[i];
            leg.chain = posed;
            leg.report.error = error;
            leg.report.reached = error <= params.tolerance;
            leg.knee_clearance = knees;
            // Checked out of the body just now: a pose through it that the
            // knee guard took as its last resort is gone.
            leg.enters_body = false;
            return None;
        }
        Some(cut)
    }

    /// What the knee guard may have changed: the bone error, and whether a
    /// pose that `entered_body` still does. (A pose out of the body stays
    /// out: the guard takes one through the body only as its last resort,
    /// and then marks the leg itself.)
    fn after_knee_guard(&mut self, i: usize, entered_body: bool) {
        let half = self.spec.body.size * 0.5;
        let leg = &mut self.legs[i];
        leg.bone_error = leg.chain.bone_length_error();
        if entered_body {
            leg.enters_body = leg_enters_body(&self.body, half, leg);
        }
    }

    /// A pose whose inner joints (knees, ankles) dip into the surface (a leg
    /// reaching round an edge, or down a steep flank) is solved again with
    /// its pole out of the surface at the deepest joint, from the current
    /// pose and from the rest pose, and last folded clear of it
    /// ([`folded_clear_of`]); the pose whose deepest joint stands farthest
    /// out is kept, provided it reaches the foot as well, keeps its bones
    /// and stays out of the body. A foot in the air still left with its
    /// knees in is drawn in, or, behind the solid from its hip, moved to
    /// its near side; a knee still in past its clearance takes the best
    /// pose found through the body as the last resort.
    /// Returns the clearance of the deepest inner joint of the pose kept.
    /// `first` is the current pose's deepest inner joint when the caller
    /// has looked it up already. With `bones` (the least a knee may stand
    /// at) the guard measures poses by their bones too, for a pose whose
    /// joints stand out and a bone passes through the solid
    /// ([`guarded_depth`]).
    fn keep_knees_out(
        &mut self,
        terrain: &Ground<'_>,
        i: usize,
        params: &SolveParams,
        first: Option<(f32, Vec3)>,
        bones: Option<f32>,
        last_pose: Option<&[Vec3]>,
    ) -> f32 {
        // The pose as it stands is measured whatever its knees (no floor
        // for them): it is what the guard's poses must improve on.
        let as_it_stands = bones.map(|_| f32::NEG_INFINITY);
        let planted = self.legs[i].is_grounded();
        let Some((mut depth, mut deepest)) =
            first.or_else(|| guarded_depth(terrain, &self.legs[i].chain, as_it_stands, planted))
        else {
            return f32::INFINITY;
        };
        if depth >= KNEE_CLEARANCE {
            return depth;
        }
        let half = self.spec.body.size * 0.5;
        let reach = self.legs[i].chain.reach();
        let kind = self.legs[i].solver;
        let (hip, foot) = (self.legs[i].chain.root(), self.legs[i].foot);
        let (across, other) = (foot - hip).normalize_or(Vec3::Y).any_orthonormal_pair();
        // The pose with its knees farthest out that passes through the
        // body: the last resort (see below).
        let mut through_body: Option<(f32, Chain, SolveReport)> = None;
        let sweeps = if bones.is_some() { 2 } else { 1 };
        let up = self.body.up();
        // The pose the last step left, carried with the hip: what the guard
        // chose then (the tracking solve bends the knees back toward their
        // pole each step, and the guard's other poses need not find it
        // again: a long-legged climber's tail foot, clear over a roof's
        // edge one step, was let go through it the next, 0.28 m in).
        let mut last = last_pose.and_then(|joints| {
            let mut chain = self.legs[i].chain.clone();
            chain.set_pose(joints).ok()?;
            chain.set_root(hip);
            Some(chain)
        });
        let extra = usize::from(last.is_some());
        for attempt in 0..extra + KNEE_ATTEMPTS + POLE_SWEEP * sweeps {
            let leg = &self.legs[i];
            let (chain, report) = match last.take() {
                // Solved from where it was, unbent: it stays near it.
                Some(mut chain) => {
                    let unbent = SolveParams {
                        pole: None,
                        ..*params
                    };
                    let report = solve_with(kind, &mut chain, leg.foot, &unbent);
                    (chain, report)
                }
                None => {
                    let attempt = attempt - extra;
                    let from_rest = attempt % 2 == 1 || attempt >= KNEE_ATTEMPTS;
                    let pole = if attempt < KNEE_ATTEMPTS {
                        deepest + terrain.normal_at(deepest) * reach
                    } else {
                        // Out of the surface failed: bend the knees every
                        // way round the line from hip to foot (a leg
                        // crammed under its body by a corner has its room
                        // on a side no normal points to).
                        let k = attempt - KNEE_ATTEMPTS;
                        let turn =
                            std::f32::consts::TAU * (k % POLE_SWEEP) as f32 / POLE_SWEEP as f32;
                        let way = across * turn.cos() + other * turn.sin();
                        // For its bones, the same way raised along the
                        // body's up: a long leg folded short under its hip
                        // in a narrow slot sags below the floor bent level.
                        let way = if k < POLE_SWEEP {
                            way
                        } else {
                            (way + up).normalize_or(way)
                        };
                        hip.midpoint(foot) + way * reach
                    };
                    let mut chain = if from_rest {
                        rest_pose(&self.shared.rest[i], &self.body, hip)
                    } else {
                        leg.chain.clone()
                    };
                    let pushed = SolveParams {
                        pole: Some(pole),
                        ..*params
                    };
                    let report = solve_with(kind, &mut chain, leg.foot, &pushed);
                    (chain, report)
                }
            };
            if !may_replace(&chain, &report, &leg.report, params) {
                continue;
            }
            let Some((d, joint)) = guarded_depth(terrain, &chain, bones, planted) else {
                continue;
            };
            if d <= depth {
                continue;
            }
            if chain_enters_body(&self.body, half, &chain) {
                if through_body.as_ref().is_none_or(|(best, ..)| d > *best) {
                    through_body = Some((d, chain, report));
                }
            } else {
                self.legs[i].chain = chain;
                self.legs[i].report = report;
                depth = d;
                deepest = joint;
                if depth >= KNEE_CLEARANCE {
                    return depth;
                }
            }
        }
        // A leg folded against a face (its foot on the face, its hip close
        // by) can have its ankle on the wrong side of the foot, where no
        // pole swings it out: passes that push each joint out of the solid
        // as they place it find the fold on the open side.
        let leg = &self.legs[i];
        if let Some(chain) = folded_clear_of(
            terrain,
            &leg.chain,
            leg.foot,
            params.tolerance,
            (&self.body, half),
            bones.is_some(),
        ) && let Some((d, _)) = guarded_depth(terrain, &chain, bones, planted)
            && d > depth
            && !chain_enters_body(&self.body, half, &chain)
        {
            let error = chain.end().distance(leg.foot);
            let leg = &mut self.legs[i];
            leg.chain = chain;
            leg.report.error = error;
            leg.report.reached = error <= params.tolerance;
            depth = d;
        }
        let foot = self.legs[i].foot;
        if depth < KNEE_CLEARANCE && !self.legs[i].is_grounded() {
            depth = self.draw_swinging_foot_in(terrain, i, params, depth, bones);
        }
        // Past its clearance in the solid, a foot in the air may be behind
        // it from the hip. (Not for its bones alone: the near side is a
        // jump, and a stilt-legged walker's foot jumped 1.9 m through a
        // wall to it.)
        if depth < -KNEE_CLEARANCE
            && bones.is_none()
            && !self.legs[i].is_grounded()
            && terrain.has_shapes()
        {
            depth = self.take_near_side_of_solid(terrain, i, params, depth);
        }
        // Still in the solid past its clearance, and every pose out of it
        // passes through the body (a rear leg crammed between its body's
        // tail and a wall it has come down: a knee 125 mm into the wall):
        // through its own body is the lesser fault. Only for the foot the
        // poses were solved for (drawing a swinging foot in, or taking the
        // near side, may have moved it).
        if depth < -KNEE_CLEARANCE
            && self.legs[i].foot == foot
            && let Some((d, chain, report)) = through_body
            && d > depth
        {
            let leg = &mut self.legs[i];
            leg.chain = chain;
            leg.report = report;
            leg.enters_body = true;
            depth = d;
        }
        depth
    }

    /// A foot in the air behind the solid from its hip, which no pose of
    /// its leg reaches with its knees out of the solid (left under a
    /// ceiling while the body went round the lintel onto the roof: it hung
    /// there 15 s, sliding along the ceiling, its knee 0.29 m in the roof),
    /// takes the near side instead: where the line from the hip meets the
    /// solid, off the surface and within reach, and swings on from there
    /// to its foothold. Kept only if it brings the knees farther out;
    /// returns the clearance of the deepest inner joint of the pose kept.
    fn take_near_side_of_solid(
        &mut self,
        terrain: &Ground<'_>,
        i: usize,
        params: &SolveParams,
        depth: f32,
    ) -> f32 {
        let leg = &self.legs[i];
        let (hip, reach, kind) = (leg.chain.root(), leg.chain.reach(), leg.solver);
        let Some(near_side) = near_side_of_solid(terrain, hip, reach, leg.foot) else {
            return depth;
        };
        let mut chain = rest_pose(&self.shared.rest[i], &self.body, hip);
        let report = solve_with(kind, &mut chain, near_side, params);
        let Some((d, _)) = deepest_joint(terrain, &chain) else {
            return depth;
        };
        if d <= depth || !may_replace(&chain, &report, &leg.report, params) {
            return depth;
        }
        let phase = swing_on(
            terrain,
            near_side,
            leg.desired,
            self.body.up(),
            &self.spec.gait,
            reach,
        );
        let enters_body = chain_enters_body(&self.body, self.spec.body.size * 0.5, &chain);
        let leg = &mut self.legs[i];
        leg.foot = near_side;
        leg.phase = phase;
        leg.hanging = true;
        leg.chain = chain;
        leg.report = report;
        leg.enters_body = enters_body;
        d
    }

    /// A foot in the air whose leg found no pose with its knees out of the
    /// surface is drawn in toward the hip, where the leg bends and its
    /// knees stand higher, or, failing that, lifted off the surface (a
    /// foot folded under its body) along its normal under the foot or, on
    /// open ground, at the deepest joint, by at most [`DRAW_IN_STEP`] a step;
    /// the swing goes on from there.
    /// (Stretched nearly straight past a bump, a swinging spider leg laid
    /// its knee 29 mm into it.) Returns the clearance of the deepest inner
    /// joint of the pose kept, or with `bones`, of its joints and its bones
    /// together ([`guarded_depth`]).
    fn draw_swinging_foot_in(
        &mut self,
        terrain: &Ground<'_>,
        i: usize,
        params: &SolveParams,
        mut depth: f32,
        bones: Option<f32>,
    ) -> f32 {
        let half = self.spec.body.size * 0.5;
        let leg = &self.legs[i];
        let (hip, reach, kind) = (leg.chain.root(), leg.chain.reach(), leg.solver);
        let start = self.legs[i].foot;
        let normal_at_foot = terrain.distance_and_normal(start).1;
        // Drawn in toward the hip first; then, for a foot already folded
        // under the body (drawing in folds it tighter), lifted off the
        // surface instead.
        let drawn_in = DRAWN_IN_REACH.map(|share| (within_reach(hip, start, share * reach), share));
        // Lifted along the surface's normal at the foot; on open ground,
        // then along it at the deepest joint: a foot folded close under its
        // hip beside a steep flank, lifted along its own normal, drags its
        // ankle along the flank, not out of it. (Among shapes the deepest
        // joint's face may be a wall's far side: a stubby walker in a slot
        // lifted its foot that way and laid a knee 68 mm into the wall.)
        let normal_at_deepest = (!terrain.has_shapes())
            .then(|| deepest_joint(terrain, &leg.chain))
            .flatten()
            .map(|(_, joint)| terrain.normal_at(joint));
        let lifted = std::iter::once(normal_at_foot)
            .chain(normal_at_deepest)
            .flat_map(|normal| {
                LIFTED_OUT.map(|lift| {
                    let share = SWING_REACH;
                    (
                        within_reach(hip, start + normal * (lift * reach), share * reach),
                        share,
                    )
                })
            });
        let up = self.body.up();
        let candidates = drawn_in
            .into_iter()
            .map(|c| (c, true))
            .chain(lifted.map(|c| (c, false)));
        for ((mut foot, share), drawn) in candidates {
            // Drawn in along a line through a bump, it comes up out of it.
            let (d, normal) = terrain.distance_and_normal(foot);
            if d < DRAWN_IN_CLEARANCE {
                foot = within_reach(hip, foot + normal * (DRAWN_IN_CLEARANCE - d), share * reach);
            }
            // A step's way toward it at most: the foot is in the air, and
            // moved all the way at once it jumped 0.35 m in a step (42 m/s).
            foot = start + (foot - start).clamp_length_max(DRAW_IN_STEP);
            if foot == self.legs[i].foot || terrain.signed_distance(foot) < KNEE_CLEARANCE {
                continue;
            }
            let mut chain = rest_pose(&self.shared.rest[i], &self.body, hip);
            let mut report = solve_with(kind, &mut chain, foot, params);
            // A foot drawn in under the body's side bends the leg's knees
            // up through the body: bent out from its side instead they can
            // clear both (an octopod's swinging ankle was left 23 mm in a
            // ridged flank, every pose out of it through the body). Not
            // for a lifted foot: a pose far out that way is a jump of the
            // foot, back to its path the next step.
            if drawn
                && chain_enters_body(&self.body, half, &chain)
                && let Some(side) = (hip - self.body.position)
                    .reject_from_normalized(up)
                    .try_normalize()
            {
                let outward = SolveParams {
                    pole: Some(hip + (side + up) * reach),
                    ..*params
                };
                chain = rest_pose(&self.shared.rest[i], &self.body, hip);
                report = solve_with(kind, &mut chain, foot, &outward);
            }
            // A pose short of its point leaves the foot at its end (below):
            // no farther from where it was than a step's way either (a
            // stilt-legged walker's foot, its solve short, jumped 0.44 m
            // through a wall's edge).
            if !may_replace(&chain, &report, &self.legs[i].report, params)
                || chain_enters_body(&self.body, half, &chain)
                || chain.end().distance(start) > DRAW_IN_STEP + params.tolerance
            {
                continue;
            }
            let Some((d, _)) = guarded_depth(terrain, &chain, bones, false) else {
                continue;
            };
            if d > depth {
                let leg = &mut self.legs[i];
                // A pose short of its new point by more than the tolerance
                // puts the foot where the leg's end is, not where it missed.
                leg.foot = if report.error > params.tolerance {
                    chain.end()
                } else {
                    foot
                };
                leg.chain = chain;
                leg.report = report;
                depth = d;
                if depth >= KNEE_CLEARANCE {
                    break;
                }
            }
        }
        depth
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A three-bone leg whose foot stands on a roof (y = 0) 5 cm from its
    /// edge at x = 0, its hip past the edge and below the roof's plane, its
    /// ankle hanging under that plane: the last bone cuts the corner.
    fn leg_round_an_edge() -> Chain {
        let hip = Vec3::new(0.25, -0.3, 0.0);
        let knee = Vec3::new(0.35, -0.05, 0.0);
        let foot = Vec3::new(-0.05, 0.0, 0.0);
        let ankle = foot + (Vec3::new(0.3, -0.1, 0.0)).normalize() * 0.3;
        Chain::new(vec![hip, knee, ankle, foot]).unwrap()
    }

    #[test]
    fn a_bone_through_a_thin_wall_is_found_with_every_joint_out() {
        // A leg astride a 0.2 m wall, 3 m tall: hip and knee by the far
        // face, ankle over the top, foot on the near face.
        let field = crate::creature::boxed([5.0, 1.5, 0.0], [0.2, 3.0, 40.0]);
        let ground = field.world();
        let astride = Chain::new(vec![
            Vec3::new(5.4, 2.5, 0.0),
            Vec3::new(5.45, 2.75, 0.0),
            Vec3::new(5.2, 2.85, 0.0),
            Vec3::new(4.9, 2.75, 0.0),
        ])
        .expect("four joints make a chain");
        assert!(deepest_joint(&ground, &astride).is_some_and(|(d, _)| d > 0.0));
        let cut = bones_clearance_culled(&ground, &astride, true, None, None).0;
        assert!(cut < -0.04, "{cut}");
        // The knees' distances given, the same figure.
        let mut inner = [0.0; CULLED_JOINTS];
        let count = inner_joint_distances(&ground, &astride, &mut inner).expect("two knees");
        assert_eq!(count, 2);
        assert_eq!(
            bones_clearance_culled(&ground, &astride, true, Some(&inner[..count]), None).0,
            cut
        );
        // Standing on the far face, its ankle out from it, the leg is clear.
        let beside = Chain::new(vec![
            Vec3::new(5.4, 2.5, 0.0),
            Vec3::new(5.45, 2.75, 0.0),
            Vec3::new(5.3, 2.95, 0.0),
            Vec3::new(5.1, 2.8, 0.0),
        ])
        .expect("four joints make a chain");
        let clear = bones_clearance_culled(&ground, &beside, true, None, None).0;
        assert!((-1e-4..0.3).contains(&clear), "{clear}");
    }

    #[test]
    fn the_ankle_is_taken_over_the_edge_with_the_foot_and_bones_kept() {
        let chain = leg_round_an_edge();
        let foot = chain.end();
        for least_rise in FOOT_BONE_RISES {
            for toward_hip in [false, true] {
                let posed = ankle_over_edge(&chain, foot, Vec3::Y, least_rise, toward_hip, 1e-4)
                    .expect("the hip reaches an ankle over the edge");
                let joints = posed.joints();
                let rise = (joints[2] - foot).normalize().dot(Vec3::Y);
                // The ankle lands within the tolerance of its aim, 0.3 m
                // from the foot: the rise within about a thousandth.
                assert!(
                    rise >= least_rise - 1e-3,
                    "rises {rise}, asked {least_rise}"
                );
                assert!(posed.end().distance(foot) <= 1e-4);
                assert!(posed.bone_length_error() <= 1e-5);
                assert_eq!(joints[0], chain.root());
            }
        }
    }

    #[test]
    fn an_ankle_already_rising_or_out_of_the_hips_reach_is_left() {
        let chain = leg_round_an_edge();
        let foot = chain.end();
        // Measured from a face it already rises from, nothing to mend.
        assert!(ankle_over_edge(&chain, foot, Vec3::X, 0.17, false, 1e-4).is_none());
        // A hip far below the edge cannot bring the ankle over it: the
        // nearest ankle over the roof's plane is 0.66 m from the hip, its
        // two bones 0.52 m long.
        let ankle = foot + Vec3::new(0.3, -0.1, 0.0).normalize() * 0.3;
        let low = Chain::new(vec![
            Vec3::new(0.35, -0.6, 0.0),
            Vec3::new(0.3, -0.35, 0.0),
            ankle,
            foot,
        ])
        .unwrap();
        for toward_hip in [false, true] {
            assert!(ankle_over_edge(&low, foot, Vec3::Y, 0.17, toward_hip, 1e-4).is_none());
        }
    }

    #[test]
    fn a_leg_of_two_bones_or_with_limits_is_not_mended() {
        let two = Chain::new(vec![
            Vec3::new(0.3, -0.2, 0.0),
            Vec3::new(0.2, -0.05, 0.0),
            Vec3::new(-0.05, 0.0, 0.0),
        ])
        .unwrap();
        assert!(ankle_over_edge(&two, two.end(), Vec3::Y, 0.0, true, 1e-4).is_none());
        let mut limited = leg_round_an_edge();
        limited
            .set_limits(&[JointLimit::Cone { max: 3.0 }, JointLimit::Cone { max: 3.0 }])
            .unwrap();
        let foot = limited.end();
        assert!(ankle_over_edge(&limited, foot, Vec3::Y, 0.0, true, 1e-4).is_none());
    }
    /// A leg over the 3 m wall's top edge (the wall's far face at x = 5.5,
    /// its top at y = 3), its middle bone passing under the edge.
    fn leg_under_a_walls_edge() -> Chain {
        Chain::new(vec![
            Vec3::new(5.669, 2.777, -0.198),
            Vec3::new(5.537, 2.973, -0.243),
            Vec3::new(5.263, 3.053, -0.337),
            Vec3::new(4.984, 3.0, -0.432),
        ])
        .expect("four joints make a chain")
    }

    #[test]
    fn a_middle_bone_cutting_an_edge_between_the_samples_is_measured_cut() {
        // The octopod's hind leg on the shipped wall, its foot on the top:
        // the bone from knee to ankle passes 12 mm under the edge, where
        // none of the fixed samples lies.
        let field = crate::creature::boxed([5.0, 1.5, 0.0], [1.0, 3.0, 40.0]);
        let ground = field.world();
        let leg = leg_under_a_walls_edge();
        let exact = leg
            .joints()
            .windows(2)
            .flat_map(|bone| (0..=200).map(|k| bone[0].lerp(bone[1], k as f32 / 200.0)))
            .map(|p| ground.signed_distance(p))
            .fold(f32::INFINITY, f32::min);
        assert!((-0.015..-0.009).contains(&exact), "{exact}");
        // The fixed samples read it 5 mm shallower or more; the culled look
        // finds it to within a millimetre, and where it is: by the edge.
        assert!(deepest_bone_sample(&ground, &leg).0 > exact + 0.005);
        let (culled, at) = bones_clearance_culled(&ground, &leg, true, None, None);
        assert!((culled - exact).abs() < 0.001, "{culled} against {exact}");
        assert!(at.distance(Vec3::new(5.5, 3.0, at.z)) < 0.02, "{at}");
        // So the knee guard measures such a pose by its bone, not by its
        // joints or the samples.
        let guarded = guarded_depth(&ground, &leg, Some(KNEE_CLEARANCE), true);
        assert!(guarded.is_some_and(|(d, _)| d <= culled), "{guarded:?}");
        assert!(guarded_depth(&ground, &leg, None, true).is_some_and(|(d, _)| d > 0.0));
    }
}
