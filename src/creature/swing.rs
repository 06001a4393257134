//! Stage 4, swing: feet in the air move along smooth arcs.
//!
//! Along the ground the foot follows a quintic ease from where it lifted to
//! where it lands (zero velocity and acceleration at both ends); above it, an
//! arc that rises quickly and comes down slowly, so the foot touches down
//! softly. The arc is raised where the ground between the two points would
//! come too close. The landing point is chosen at lift-off (see the gait
//! stage); later footholds draw it along at a bounded rate that fades to
//! nothing at touchdown, so a stop or a foothold that moves never makes the
//! foot jump.

use glam::Vec3;

use super::Creature;
use super::footholds::reach_needed;
use super::leg::LegPhase;
use super::spec::FOOTHOLD_STRETCH;
use crate::math::move_towards;
use crate::terrain::Ground;

/// Lowest a swinging foot may pass over the ground at mid-swing (metres).
pub(super) const SWING_CLEARANCE: f32 = 0.02;
/// Fastest the landing point follows a moved foothold at lift-off, as a
/// multiple of the foot's mean speed over its swing; it slows to zero at
/// touchdown.
const CORRECTION_SHARE: f32 = 0.5;
/// A swinging foot stays within this fraction of its leg's reach from the
/// hip (in a solid world, where a swing rounds edges).
pub(super) const SWING_REACH: f32 = 0.97;
/// Further pushes out of the solid [`off_surface`] makes when one was not
/// enough (inside by a convex edge each leaves about 0.3 of the depth).
const OFF_SURFACE_PUSHES: usize = 4;
/// How far short of its clearance (metres) a pushed point may stay.
const OFF_SURFACE_SLACK: f32 = 1e-4;
/// Farthest from the surface a foot may land, metres (the metrics' gap
/// limit is 1 cm).
const LANDING_GAP: f32 = 0.005;
/// A foot nearer its landing point than this (metres) lands without its
/// way there being checked for solid in between.
const BLOCKED_MARGIN: f32 = 0.02;
/// Points along a foot's straight way to its landing point (less one) that
/// are checked for solid in between.
const BLOCKED_SAMPLES: usize = 8;
/// A hanging foot (see [`Leg::hanging`](super::Leg::hanging)) on open ground
/// stays within this fraction of its leg's reach from the hip: bent enough
/// for its knees to stand out of a slope it reaches down.
pub(super) const HANGING_REACH: f32 = 0.85;
/// Fastest a foot in the air follows its path, m/s (the gait keeps swings
/// themselves under [`FOOT_SPEED_LIMIT`](super::spec::FOOT_SPEED_LIMIT)).
/// In a solid world it bounds a swinging foot along its arc: rounding an
/// edge the body turns the arc with it. On open ground it bounds a hanging foot,
/// which is let go where its leg's end was and follows its swing from
/// there (it jumped 73 mm in a step, 9.8 m/s, to the swing's bent start).
const FOOT_FOLLOW_SPEED: f32 = 5.0;

/// Seconds a foot may be kept off its landing point past its swing's end,
/// among shapes, before it swings again (see `advance_swings`).
const STALLED_SWING: f32 = 0.5;
/// How many times over a swing a moved landing point has its arc's
/// clearance checked again, in a world with shapes.
const LIFT_CHECKS: f32 = 8.0;
/// Points along the path checked for clearance.
const CLEARANCE_SAMPLES: usize = 7;
/// Height of the arc: p²(1 − p)³ scaled to peak at 1 (at p = 0.4).
const ARC_SCALE: f32 = 1.0 / (0.16 * 0.216);

/// Fraction of the way along the ground at swing progress `p`: the quintic
/// smootherstep (its steepest slope is 15/8, see
/// [`SWING_PEAK_FACTOR`](super::spec::SWING_PEAK_FACTOR)).
pub fn ease(p: f32) -> f32 {
    let p = p.clamp(0.0, 1.0);
    p * p * p * (p * (6.0 * p - 15.0) + 10.0)
}

/// Height of the arc at swing progress `p`, 0 at both ends and 1 at its peak
/// (p = 0.4): up fast, down slowly, landing with no vertical speed.
pub fn arc(p: f32) -> f32 {
    let p = p.clamp(0.0, 1.0);
    let q = 1.0 - p;
    ARC_SCALE * p * p * q * q * q
}

/// The foot's position at progress `p` of a swing from `from` to `to` with
/// peak `lift` along `up`.
pub fn swing_point(from: Vec3, to: Vec3, up: Vec3, lift: f32, p: f32) -> Vec3 {
    from.lerp(to, ease(p)) + up * (lift * arc(p))
}

/// Fastest a foot moves on a swing of `distance` metres along the ground
/// and `lift` metres high that takes `duration` seconds (the path's steepest
/// point, found by sampling: the ease and the arc peak at different places).
pub fn peak_swing_speed(distance: f32, lift: f32, duration: f32) -> f32 {
    const SAMPLES: usize = 48;
    let mut fastest = 0.0f32;
    for k in 0..=SAMPLES {
        let p = k as f32 / SAMPLES as f32;
        let q = 1.0 - p;
        let along = 30.0 * p * p * q * q * distance;
        let up = ARC_SCALE * p * q * q * (2.0 - 5.0 * p) * lift;
        fastest = fastest.max(along.hypot(up));
    }
    fastest / duration.max(f32::MIN_POSITIVE)
}

/// The arc height a swing from `from` to `to` needs: the gait's
/// `step_height`, or more where the ground between rises closer than
/// [`SWING_CLEARANCE`] to the path; at most `ceiling`.
pub fn needed_lift(
    terrain: &Ground<'_>,
    from: Vec3,
    to: Vec3,
    up: Vec3,
    step_height: f32,
    ceiling: f32,
) -> f32 {
    let mut lift = step_height;
    for k in 1..CLEARANCE_SAMPLES {
        let p = k as f32 / CLEARANCE_SAMPLES as f32;
        let height = arc(p);
        // Near the ends the arc is low by design: the foot is leaving or
        // meeting the ground there.
        if height < 0.25 {
            continue;
        }
        let line = from.lerp(to, ease(p));
        if terrain.has_shapes() {
            // Along the surface's normal, whichever way it faces: a swing
            // from a wall over an edge onto the roof arcs out from the wall.
            let short = SWING_CLEARANCE - terrain.signed_distance(line);
            if short > 0.0 {
                let normal = terrain.normal_at(line);
                lift = lift.max(short / (height * normal.dot(up).max(0.5)));
            }
            continue;
        }
        let ground = terrain.height(line.x, line.z);
        let short = ground + SWING_CLEARANCE - line.y;
        if short > 0.0 {
            lift = lift.max(short / (height * up.y.max(0.1)));
        }
    }
    lift.min(ceiling)
}

/// The share of its leg's reach from the hip a swinging foot stays within
/// at `progress` of its swing: [`SWING_REACH`] for one the gait lifted; a
/// hanging foot [`HANGING_REACH`] at first, widening to [`SWING_REACH`] as
/// it comes down, so it lands where it is (within `SWING_REACH`, as every
/// foot does) without a jump.
fn reach_share(leg: &super::Leg, progress: f32) -> f32 {
    if leg.hanging {
        HANGING_REACH + (SWING_REACH - HANGING_REACH) * ease(progress)
    } else {
        SWING_REACH
    }
}

/// `point`, at least `least` off the surface: pushed out along the nearest
/// surface's normal in a solid world, raised on open ground.
pub(super) fn off_surface(terrain: &Ground<'_>, point: Vec3, least: f32) -> Vec3 {
    if terrain.has_shapes() {
        let d = terrain.signed_distance(point);
        if d < least {
            // Inside by a convex edge the distance is the nearer face's, and
            // a push that far along the gradient (the edge's bisector) leaves
            // 0.29 of the depth inside: a foot followed from a wall's face
            // toward its top stood 12 mm in the top's edge after one. Pushed
            // again, by √2 of what is left (what takes a point on a right
            // edge's bisector out), until it is out within a tenth of a
            // millimetre.
            let mut point = point + terrain.normal_at(point) * (least - d);
            for _ in 0..OFF_SURFACE_PUSHES {
                let d = terrain.signed_distance(point);
                if d >= least - OFF_SURFACE_SLACK {
                    break;
                }
                point += terrain.normal_at(point) * ((least - d) * std::f32::consts::SQRT_2);
            }
            return point;
        }
    } else {
        let lowest = terrain.height(point.x, point.z) + least;
        if point.y < lowest {
            return Vec3::new(point.x, lowest, point.z);
        }
    }
    point
}

/// Where a foot in the air at `previous` goes toward `wanted` in a step of
/// `dt` seconds: all the way, or [`FOOT_FOLLOW_SPEED`] × `dt` of it and
/// kept out of the surface.
fn follow(terrain: &Ground<'_>, previous: Vec3, wanted: Vec3, dt: f32) -> Vec3 {
    let most = FOOT_FOLLOW_SPEED * dt;
    let step = wanted - previous;
    let length = step.length();
    if length > most {
        off_surface(terrain, previous + step * (most / length), 0.0)
    } else {
        wanted
    }
}

/// The farthest of a few points from `from` toward `wanted` (half way, a
/// quarter, an eighth; each raised `least` off the surface) that `fits`,
/// or `from` itself if it does (a foot waiting where it is moves nothing).
fn farthest_that_fits(
    terrain: &Ground<'_>,
    from: Vec3,
    wanted: Vec3,
    least: f32,
    fits: impl Fn(Vec3) -> bool,
) -> Option<Vec3> {
    [0.5, 0.25, 0.125]
        .into_iter()
        .map(|share| off_surface(terrain, from.lerp(wanted, share), least))
        .chain([from])
        .find(|&point| fits(point))
}

/// How far a foot at `from` goes toward `wanted` (raised to `least` off
/// the surface on the way: the ground, or in a solid world the nearest
/// surface) and stays within `reach` of `hip`: the farthest
/// of a few points along the way that does, or `from` itself (where the
/// foot is: waiting there moves nothing) while it is in reach, or else
/// `from` brought back within reach off the ground
/// ([`onto_ground_within_reach`]).
fn reachable_part(
    terrain: &Ground<'_>,
    hip: Vec3,
    reach: f32,
    from: Vec3,
    wanted: Vec3,
    least: f32,
) -> Vec3 {
    let fits = |point: Vec3| point.distance(hip) <= reach;
    if let Some(point) = farthest_that_fits(terrain, from, wanted, least, fits) {
        return point;
    }
    // The body has carried the hip out of reach of where the foot waits:
    // a leg pointing straight at it lays its end in the peak between (an
    // octopod's foot 7 mm into a ridged crest, 18 mm short of its target).
    onto_ground_within_reach(terrain, hip, reach, from, least)
}

/// Share of its reach past which a leg counts as near straight: its bones
/// then lie close to the line from hip to foot.
const NEAR_STRAIGHT: f32 = 0.85;

/// Whether a leg of `reach` from `hip` to `foot` keeps out of the solid
/// for all that can be told from the line between them: bent (nearer than
/// [`NEAR_STRAIGHT`] of its reach), or that line clear.
fn leg_line_clear(terrain: &Ground<'_>, hip: Vec3, foot: Vec3, reach: f32) -> bool {
    foot.distance(hip) <= NEAR_STRAIGHT * reach
        || deepest_along(terrain, hip, foot).0 >= -LANDING_GAP
}

/// How far a foot at `from` goes toward `wanted` (raised `least` off the
/// surface) with its leg clear ([`leg_line_clear`]) and in reach: the
/// farthest of a few points along the way that is, or `from` while it is,
/// or else `from` drawn in to bend the leg.
fn clear_part(
    terrain: &Ground<'_>,
    hip: Vec3,
    reach: f32,
    from: Vec3,
    wanted: Vec3,
    least: f32,
) -> Vec3 {
    let fits =
        |point: Vec3| point.distance(hip) <= reach && leg_line_clear(terrain, hip, point, reach);
    if let Some(point) = farthest_that_fits(terrain, from, wanted, least, fits) {
        return point;
    }
    off_surface(
        terrain,
        within_reach(hip, from, NEAR_STRAIGHT * reach),
        least,
    )
}

/// Times a point is lifted `least` off the ground and drawn back within
/// reach, to find one both off the ground and in reach.
const ONTO_GROUND_STEPS: usize = 3;
/// The share of its reach that point is drawn back within: just short of
/// straight, so the foot moves no farther than it must.
const ONTO_GROUND_REACH: f32 = 0.999;

/// `point` lifted `least` off the surface (open ground's, or the nearest
/// in a solid world) and drawn back within `reach` of `hip` in turn, a few
/// times, and lifted last: where a foot whose leg no longer reaches it
/// goes. Off the surface always, and in reach but for what the last lift
/// adds where the surface rises steeply under it. Lifted alone it stayed
/// out of reach, and the leg's end, short of it, under the ground.
pub(super) fn onto_ground_within_reach(
    terrain: &Ground<'_>,
    hip: Vec3,
    reach: f32,
    point: Vec3,
    least: f32,
) -> Vec3 {
    let mut point = point;
    for _ in 0..ONTO_GROUND_STEPS {
        point = within_reach(
            hip,
            off_surface(terrain, point, least),
            ONTO_GROUND_REACH * reach,
        );
    }
    off_surface(terrain, point, least)
}

/// `point`, brought within `most` of `hip` along the line between them.
pub(super) fn within_reach(hip: Vec3, point: Vec3, most: f32) -> Vec3 {
    let out = point - hip;
    if out.length() > most {
        hip + out.normalize_or_zero() * most
    } else {
        point
    }
}

/// `point`, moved straight out from `hip` to at least `least` from it.
fn beyond_fold(hip: Vec3, point: Vec3, least: f32) -> Vec3 {
    let out = point - hip;
    if out.length() < least {
        hip + out.normalize_or(Vec3::NEG_Y) * least
    } else {
        point
    }
}

/// A swing of the gait's shortest duration from `from` to `to`, lifted as
/// the ground between needs: how a foot that cannot land where it was
/// going (or let go of ground it cannot reach) goes on to another foothold.
/// Where the straight way passes through the solid, the arc goes round it
/// ([`way_round`]) as far as the leg reaches.
pub(super) fn swing_on(
    terrain: &Ground<'_>,
    from: Vec3,
    to: Vec3,
    up: Vec3,
    gait: &super::spec::GaitSpec,
    reach: f32,
) -> LegPhase {
    let (around, lift) = match way_round(terrain, from, to, gait, reach) {
        Some((direction, lift)) => (Some(direction), lift),
        None => (
            None,
            needed_lift(terrain, from, to, up, gait.step_height, 0.5 * reach),
        ),
    };
    LegPhase::Swinging {
        from,
        to,
        progress: 0.0,
        duration: gait.min_step_duration,
        lift,
        around,
        overtime: 0.0,
    }
}

/// Directions across a blocked way tried for the way round the solid.
const WAY_ROUND_DIRECTIONS: usize = 8;
/// Most steps taken out of the solid along one of them.
const WAY_ROUND_STEPS: usize = 16;

/// The deepest of the points at `shares` (fractions, 0–1) of the straight
/// way from `from` to `to`: its signed distance, where it is, and its
/// share (the first of equals; infinitely far, at `from`, for none). What
/// a swing's way and a leg's bones are checked for solid with.
pub(super) fn deepest_sample(
    terrain: &Ground<'_>,
    from: Vec3,
    to: Vec3,
    shares: impl IntoIterator<Item = f32>,
) -> (f32, Vec3, f32) {
    shares
        .into_iter()
        .map(|share| {
            let at = from.lerp(to, share);
            (terrain.signed_distance(at), at, share)
        })
        .fold(
            (f32::INFINITY, from, 0.0),
            |a, b| if b.0 < a.0 { b } else { a },
        )
}

/// The deepest of the points along the straight way from `from` to `to`
/// that are checked for solid ([`BLOCKED_SAMPLES`] less one), as
/// [`deepest_sample`] gives it.
fn deepest_along(terrain: &Ground<'_>, from: Vec3, to: Vec3) -> (f32, Vec3, f32) {
    let shares = (1..BLOCKED_SAMPLES).map(|k| k as f32 / BLOCKED_SAMPLES as f32);
    deepest_sample(terrain, from, to, shares)
}

/// The swing progress at which [`ease`] reaches `share` (0–1).
fn ease_inverse(share: f32) -> f32 {
    let (mut low, mut high) = (0.0f32, 1.0f32);
    for _ in 0..16 {
        let mid = 0.5 * (low + high);
        if ease(mid) < share {
            low = mid;
        } else {
            high = mid;
        }
    }
    0.5 * (low + high)
}

/// For a straight way from `from` to `to` that passes through the solid:
/// the direction across it that leaves the solid soonest from the way's
/// deepest point (over a thin wall's top, not along the wall to its end),
/// and the arc's peak that takes the foot [`SWING_CLEARANCE`] clear of the
/// solid there and along the rest of the way, at most `reach`; `None` when
/// the way is clear, or no direction leaves the solid within `reach` of
/// the way (a stand-in for the leg's reach from its hip). (Fanned from
/// the body's up, or the world's, the directions did worse on an octopod
/// crossing a 0.2 m wall: its hind feet were left on the near face more
/// often.)
fn way_round(
    terrain: &Ground<'_>,
    from: Vec3,
    to: Vec3,
    gait: &super::spec::GaitSpec,
    reach: f32,
) -> Option<(Vec3, f32)> {
    if !terrain.has_shapes() || from.distance(to) <= BLOCKED_MARGIN {
        return None;
    }
    let (depth, deepest, share) = deepest_along(terrain, from, to);
    if depth >= -LANDING_GAP {
        return None;
    }
    let along = (to - from).normalize();
    let (first, second) = along.any_orthonormal_pair();
    let mut best: Option<(f32, Vec3)> = None;
    for k in 0..WAY_ROUND_DIRECTIONS {
        let turn = std::f32::consts::TAU * k as f32 / WAY_ROUND_DIRECTIONS as f32;
        let direction = first * turn.cos() + second * turn.sin();
        // Inside, a step of the depth never passes the way out (nothing
        // of the surface is nearer than that in any direction).
        let mut out = 0.0;
        let mut clear = false;
        for _ in 0..WAY_ROUND_STEPS {
            let d = terrain.signed_distance(deepest + direction * out);
            clear = d >= SWING_CLEARANCE;
            if clear || out > reach {
                break;
            }
            out += (-d).max(0.0) + SWING_CLEARANCE;
        }
        if clear && best.is_none_or(|(least, _)| out < least) {
            best = Some((out, direction));
        }
    }
    let (out, direction) = best?;
    // The arc's height where the way passes its deepest point, and what
    // the rest of the way asks along the same direction.
    let height = arc(ease_inverse(share)).max(0.25);
    let lift = ((out + SWING_CLEARANCE) / height).max(needed_lift(
        terrain,
        from,
        to,
        direction,
        gait.step_height,
        reach,
    ));
    // Higher than the leg reaches, the arc is held at that: the guard
    // slides the foot up the face it meets and over (an octopod's way over
    // a 0.2 m wall asked more, and refused, its foot hung on the near face
    // 97 mm through the wall).
    Some((direction, lift.min(reach)))
}

impl Creature {
    /// Stage 4: moves every swinging foot one step along its arc; returns how
    /// many touched down.
    pub(super) fn advance_swings(&mut self, terrain: &Ground<'_>, dt: f32) -> u32 {
        let gait = &self.spec.gait;
        let up = self.body.up();
        let climber = self.spec.body.surface == super::Surface::Any;
        let mut touchdowns = 0;
        for (leg, frame) in self.legs.iter_mut().zip(&self.shared.frames) {
            let LegPhase::Swinging {
                from,
                mut to,
                progress,
                duration,
                mut lift,
                around,
                mut overtime,
            } = leg.phase
            else {
                continue;
            };
            let rise = around.unwrap_or(up);
            // On open ground a hanging foot (let go where its leg's end
            // was) follows its path no faster than a foot may move; in a
            // solid world every swinging foot does (see below).
            let follows = leg.hanging && !terrain.has_shapes();
            let progress = (progress + dt / duration).min(1.0);
            // Follow a foothold that moved, ever more slowly as the foot comes down.
            // Finite even for a stride no leg spans (a file may ask for
            // one; a hanging foot still swings): faded out at touchdown,
            // an infinite rate would be NaN there.
            let mean_speed = (from.distance(to).max(gait.step_threshold) / duration).min(f32::MAX);
            let rate = CORRECTION_SHARE * mean_speed * (1.0 - ease(progress));
            let moved = move_towards(to, leg.desired, rate * dt);
            if moved != to {
                to = if terrain.has_shapes() {
                    terrain.closest_point(moved)
                } else {
                    terrain.project_down(moved).point
                };
                let ceiling = 0.5 * frame.reach;
                // A solid world's clearance samples cost a distance each:
                // the lift is checked again at every eighth of the swing (the
                // guard below keeps the foot out of the solid between).
                let old_progress = progress - dt / duration;
                let recheck = !terrain.has_shapes()
                    || (old_progress * LIFT_CHECKS).floor() != (progress * LIFT_CHECKS).floor();
                if recheck {
                    lift = lift.max(needed_lift(
                        terrain,
                        from,
                        to,
                        rise,
                        gait.step_height,
                        ceiling,
                    ));
                }
            }
            if progress >= 1.0 {
                // In a solid world the body may round an edge during the
                // swing, leaving the landing point out of reach (or only
                // through the corner): the foot swings on to the foothold
                // it can reach now, rather than plant where its leg cannot
                // stand.
                let hip = self.body.to_world(frame.mount);
                let reach = frame.reach;
                if terrain.has_shapes()
                    && reach_needed(terrain, hip, to) > SWING_REACH * reach
                    && reach_needed(terrain, hip, leg.desired) <= FOOTHOLD_STRETCH * reach
                    && leg.desired.distance(to) > 0.01
                {
                    leg.phase = swing_on(terrain, leg.foot, leg.desired, up, gait, reach);
                    continue;
                }
                // Among shapes the landing point is the nearest surface to
                // where the foothold moved, which round a carved corner can
                // stop short of any surface: a foot lands only on one.
                let off_surface =
                    terrain.has_shapes() && terrain.signed_distance(to).abs() > LANDING_GAP;
                // Nor through the solid: a foot the guards held on a wall's
                // near face, its landing point behind the wall, would land
                // by passing through it (a long-legged climber's foot went
                // 0.62 m through a wall in one step).
                let through_solid = terrain.has_shapes()
                    && leg.foot.distance(to) > BLOCKED_MARGIN
                    && deepest_along(terrain, leg.foot, to).0 < -LANDING_GAP;
                if off_surface
                    || through_solid
                    || leg.hanging && reach_needed(terrain, hip, to) > SWING_REACH * reach
                {
                    // Nothing in reach to land on (a hanging foot still finds
                    // none): it swings on, hanging, rather than land for a
                    // step on ground it cannot stand on. (A foot the gait
                    // lifted lands, and is let go after its solve if it
                    // cannot stand there.)
                    leg.hanging = true;
                    leg.phase = swing_on(terrain, leg.foot, leg.desired, up, gait, reach);
                    continue;
                }
                // A foot bent short of its landing point, or left behind
                // its swing by the speed limit (in a solid world every foot
                // follows it), comes down to it no faster than a foot may
                // move (below), then lands: a long-legged climber's hanging
                // foot, held within its bend, landed 2.7 m away in a step.
                let behind = (follows || terrain.has_shapes())
                    && leg.foot.distance(to) > FOOT_FOLLOW_SPEED * dt;
                // Held off it that long among shapes (the guards drawing it
                // back each step as it comes straight at it round an edge:
                // an octopod stood 30 s on a box's top, a foot on the side
                // face 10 cm from its landing point), it swings again, its
                // arc over whatever is between.
                if behind {
                    overtime += dt;
                    if terrain.has_shapes() && overtime > STALLED_SWING {
                        leg.phase = swing_on(terrain, leg.foot, leg.desired, up, gait, reach);
                        continue;
                    }
                }
                if !behind {
                    leg.foot = to;
                    leg.phase = LegPhase::Grounded;
                    leg.hanging = false;
                    touchdowns += 1;
                    continue;
                }
            }
            let mut foot = swing_point(from, to, rise, lift, progress);
            // A last guard for ground the clearance samples missed.
            let least = SWING_CLEARANCE * arc(progress);
            let hip = self.body.to_world(frame.mount);
            let most = reach_share(leg, progress) * frame.reach;
            if progress >= 1.0 {
                // Still coming down to its landing point: straight to it,
                // as far as a walker's near-straight leg stays out (below).
                foot = to;
            } else if terrain.has_shapes() {
                foot = off_surface(terrain, foot, least);
                // Round an edge the straight line to a far foothold would
                // stretch the leg through the corner: the foot stays within
                // reach of its hip, and the knees can bend out of the solid.
                // Drawn toward the hip, it may be drawn back into the solid
                // it was raised out of (a foot lifting off a roof's front
                // edge, its body hanging under the edge, went 38 mm into
                // the roof): then it is raised out again.
                let within = within_reach(hip, foot, most);
                if within != foot {
                    foot = off_surface(terrain, within, least);
                    // Raised out past the reach again (drawn toward the hip
                    // into a pit's rim, which the guard pushes it back out
                    // of, down the pit's wall), the leg would point straight
                    // at it through the rim (a centipede's leg end 120 mm
                    // in): it goes only as far as the leg reaches, as on
                    // open ground.
                    if foot.distance(hip) > frame.reach {
                        foot = reachable_part(terrain, hip, frame.reach, leg.foot, foot, least);
                    }
                }
            } else {
                // Reaching for ground out of reach (hanging, or a landing
                // point the body has left behind), the leg bends short of
                // it rather than pointing straight at it: a straight leg
                // aimed down a slope lays its knee in the ground. Then the
                // guard, which the bend must not undo.
                // Nor nearer the hip than the leg folds: a body lying on a
                // peak, its hips at the ground, swung a foot by its hip, and
                // the leg, unable to fold that small, laid its end 52 mm in
                // the peak.
                let foot_out = beyond_fold(hip, within_reach(hip, foot, most), frame.cramped);
                foot = off_surface(terrain, foot_out, least);
                // Raised over ground out of reach (a peak between the hip
                // and the foot's path), the foot would leave its leg
                // pointing straight at it through the peak (an octopod's
                // ankle 151 mm in): it goes only as far along as its leg
                // still reaches over the ground, or waits where it is.
                // Bounded by the whole reach, not the bend's share: a raise
                // that takes the foot a little past the bend leaves the
                // knee bent, and slowing those swings changed every run.
                if foot.distance(hip) > frame.reach {
                    foot = reachable_part(terrain, hip, frame.reach, leg.foot, foot, least);
                }
            }
            // Among shapes, in the swing and coming down after it: a
            // walker's leg near straight lies along the line from its hip,
            // and through a rim that line cuts, so does the leg (a
            // centipede's hanging foot slid down a pit's wall, its leg
            // straight through the rim, 80 mm in). The foot goes only as far
            // as that line stays out, or waits. (A climber's leg bends over
            // the edges it rounds.)
            if terrain.has_shapes() && !climber && !leg_line_clear(terrain, hip, foot, frame.reach)
            {
                foot = clear_part(terrain, hip, frame.reach, leg.foot, foot, least);
            }
            // Rounding an edge the body turns fast, and the arc (along its
            // up), the guard and the reach with it; a leg let go starts
            // where its foot was: the foot follows no faster than a foot
            // may move, and never into the surface.
            leg.foot = if terrain.has_shapes() || follows {
                follow(terrain, leg.foot, foot, dt)
            } else {
                foot
            };
            leg.phase = LegPhase::Swinging {
                from,
                to,
                progress,
                duration,
                lift,
                around,
                overtime,
            };
        }
        touchdowns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::creature::boxed;

    #[test]
    fn a_way_through_a_thin_wall_goes_over_its_top() {
        // 0.2 m thick and 3 m tall: a foot 0.3 m under the top on the near
        // face, its foothold as low on the far face.
        let field = boxed([5.0, 1.5, 0.0], [0.2, 3.0, 40.0]);
        let ground = field.world();
        let (from, to) = (Vec3::new(4.9, 2.7, 0.0), Vec3::new(5.1, 2.7, 0.0));
        let gait = crate::config::default_creature().gait;
        {
            let (direction, lift) =
                way_round(&ground, from, to, &gait, 0.6).expect("a way over the top");
            assert!(direction.dot(Vec3::Y) > 0.99, "round by {direction}");
            // Over the wall's middle the arc clears its top. (Every point
            // of this way is over the wall: near its ends the arc meets the
            // faces, and the guard keeps the foot on them.)
            let over = swing_point(from, to, direction, lift, ease_inverse(0.5));
            assert!(over.y > 3.0 + SWING_CLEARANCE * 0.5, "{over}");
            assert!(ground.signed_distance(over) > 0.0, "{over}");
        }
        // Within reach only: a leg of 0.25 m cannot go 0.3 m up and over.
        assert!(way_round(&ground, from, to, &gait, 0.25).is_none());
    }

    #[test]
    fn a_clear_or_short_way_needs_no_way_round() {
        let field = boxed([5.0, 1.5, 0.0], [0.2, 3.0, 40.0]);
        let ground = field.world();
        let gait = crate::config::default_creature().gait;
        // Along the near face, and a step too short to check.
        let near = Vec3::new(4.9, 1.0, 0.0);
        let along_face = near + Vec3::new(0.0, 0.5, 0.3);
        assert!(way_round(&ground, near, along_face, &gait, 0.6).is_none());
        let short = near + Vec3::new(0.01, 0.0, 0.0);
        assert!(way_round(&ground, near, short, &gait, 0.6).is_none());
        // Open ground has no solid to go round.
        let open = crate::terrain::Heightfield::generate(&crate::config::default_terrain());
        let ground = open.world();
        let at = Vec3::new(0.0, ground.height(0.0, 0.0), 0.0);
        let below = at + Vec3::new(0.3, -1.0, 0.0);
        assert!(way_round(&ground, at, below, &gait, 0.6).is_none());
    }

    #[test]
    fn a_point_inside_by_a_convex_edge_is_pushed_all_the_way_out() {
        let spec = crate::config::parse_terrain(
            "wall.toml",
            "name = \"wall\"\n[noise]\nfractal = \"flat\"\n\
             [[shapes]]\nkind = \"box\"\ncenter = [5.0, 1.5, 0.0]\nsize = [1.0, 3.0, 40.0]\n",
        )
        .expect("a wall terrain file is valid");
        let field = crate::terrain::Heightfield::generate(&spec);
        let ground = field.world();
        // 41 mm inside the wall's top front edge (x = 4.5, y = 3), on the
        // bisector of its two faces: one push along the gradient left it
        // 12 mm in.
        let inside = Vec3::new(4.541, 2.959, 0.0);
        assert!((ground.signed_distance(inside) + 0.041).abs() < 1e-4);
        // And deeper: 60 mm on the bisector, and 30 mm in from a corner of
        // the wall's top (three faces), where each push leaves more behind.
        let deeper = Vec3::new(4.56, 2.94, 0.0);
        let by_a_corner = Vec3::new(4.53, 2.97, 19.97);
        for point in [inside, deeper, by_a_corner] {
            assert!(ground.signed_distance(point) < -0.02, "{point}");
            for least in [0.0, 0.02] {
                let out = off_surface(&ground, point, least);
                let d = ground.signed_distance(out);
                assert!(
                    d >= least - OFF_SURFACE_SLACK,
                    "{point} -> {out}: {d} (wanted {least})"
                );
                // Out by the edge, not through the wall.
                assert!(out.distance(point) < 0.2, "{point} -> {out}");
            }
        }
    }

    #[test]
    fn a_swinging_foot_by_its_hip_is_moved_out_to_where_the_leg_folds() {
        let hip = Vec3::new(1.0, 2.0, 3.0);
        // 2 cm out along +X, the leg folding no nearer than 8 cm: 8 cm out.
        let near = beyond_fold(hip, hip + Vec3::new(0.02, 0.0, 0.0), 0.08);
        assert!((near - Vec3::new(1.08, 2.0, 3.0)).length() < 1e-6, "{near}");
        // On the hip itself: straight down.
        let on = beyond_fold(hip, hip, 0.08);
        assert!((on - Vec3::new(1.0, 1.92, 3.0)).length() < 1e-6, "{on}");
        // Farther out already: where it was.
        let far = hip + Vec3::new(0.0, -0.3, 0.1);
        assert_eq!(beyond_fold(hip, far, 0.08), far);
    }

    #[test]
    fn a_foot_raised_out_of_reach_goes_only_as_far_as_its_leg_reaches() {
        let spec = crate::config::parse_terrain(
            "flat.toml",
            "name = \"flat\"\n[noise]\nfractal = \"flat\"\n",
        )
        .expect("a flat terrain file is valid");
        let field = crate::terrain::Heightfield::generate(&spec);
        let ground = field.world();
        let level = ground.height(0.0, 0.0);
        let hip = Vec3::new(0.0, level + 0.5, 0.0);
        let from = Vec3::new(0.5, level + 0.01, 0.0);
        let far = Vec3::new(2.0, level, 0.0);
        // Half-way is out of a 1 m reach; a quarter of the way is not,
        // raised to 2 cm off the ground.
        let part = reachable_part(&ground, hip, 1.0, from, far, 0.02);
        assert!(
            (part - Vec3::new(0.875, level + 0.02, 0.0)).length() < 1e-5,
            "{part}"
        );
        // Nothing along the way in reach: the foot waits where it is
        // while its leg reaches it.
        let short = reachable_part(&ground, hip, 0.71, from, far, 0.02);
        assert_eq!(short, from);
        // Once the hip is carried out of reach of it too, the foot comes
        // back within reach, still off the ground, rather than leave its
        // leg pointing straight at it (the leg's end short of it, and
        // under the ground wherever the ground rises between).
        let back = reachable_part(&ground, hip, 0.6, from, far, 0.02);
        assert!(back.distance(hip) <= 0.6, "{back}");
        assert!(back.y >= level + 0.02 - 1e-6, "{back}");
        assert!(back.distance(from) < 0.2, "{back}");
    }

    #[test]
    fn ease_and_arc_start_and_end_at_rest() {
        assert_eq!(ease(0.0), 0.0);
        assert_eq!(ease(1.0), 1.0);
        assert!((ease(0.5) - 0.5).abs() < 1e-6);
        assert_eq!(arc(0.0), 0.0);
        assert_eq!(arc(1.0), 0.0);
        assert!((arc(0.4) - 1.0).abs() < 1e-5);
        // Slopes at the ends are (numerically) zero: the foot leaves and
        // lands without a jolt.
        let h = 1e-2;
        assert!(ease(h) / h < 2e-3 && (1.0 - ease(1.0 - h)) / h < 2e-3);
        assert!(arc(1.0 - h) / h < 5e-3);
        // The peak slope of the ease is 15/8.
        let steepest = (0..1000)
            .map(|i| (ease((i + 1) as f32 / 1000.0) - ease(i as f32 / 1000.0)) * 1000.0)
            .fold(0.0, f32::max);
        assert!((steepest - 1.875).abs() < 1e-2, "{steepest}");
    }

    #[test]
    fn peak_speed_matches_the_paths_steepest_slope() {
        // Flat swing: 15/8 of the mean speed.
        let flat = peak_swing_speed(0.3, 0.0, 0.2);
        assert!((flat - 1.875 * 0.3 / 0.2).abs() < 1e-3, "{flat}");
        // Straight up and down: the arc's steepest slope, measured.
        let h = 1e-4;
        let steepest = (0..10_000)
            .map(|i| {
                let p = i as f32 / 10_000.0;
                ((arc(p + h) - arc(p)) / h).abs()
            })
            .fold(0.0, f32::max);
        let vertical = peak_swing_speed(0.0, 0.1, 0.2);
        assert!(
            (vertical - steepest * 0.1 / 0.2).abs() < 0.02,
            "{vertical} vs {}",
            steepest * 0.5
        );
        // Both at once is faster than either, slower than their sum.
        let both = peak_swing_speed(0.3, 0.1, 0.2);
        assert!(both > flat && both > vertical && both < flat + vertical);
    }

    #[test]
    fn landing_is_slower_than_lifting() {
        let h = 0.05;
        assert!(arc(h) > 4.0 * arc(1.0 - h));
    }
}
