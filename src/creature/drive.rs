//! Stage 1, drive: the driver's throttle and rudder become the body's
//! forward speed and turning rate, and the body moves along its path.
//!
//! Speed and turning rate change no faster than `[body] acceleration` and
//! `turn_acceleration` allow (braking may use twice as much), so starts and
//! stops are smooth. The body also brakes, on the same curve, before a
//! planted foot would be stretched past [`STOP_STRETCH`] of its reach: a
//! creature cannot outrun its legs, and it slows down rather than snapping to
//! a halt when rough ground keeps its gait busy.

use std::sync::Arc;

use glam::{Quat, Vec2, Vec3};

use super::posture::{BODY_CLEARANCE, body_corners};
use super::spec::Surface;
use super::state::StepScratch;
use super::{Body, Creature, support_plane};
use crate::terrain::Ground;

/// No planted foot is carried by the body's motion past this fraction of its
/// leg's reach.
pub(super) const STOP_STRETCH: f32 = 0.96;
/// On open ground, a planted foot already past [`BRAKE_STRETCH`] (its body
/// lifted or tilted by the posture, or a foot landed there) is never
/// carried past this fraction of its leg's reach.
const LOSS_STRETCH: f32 = 0.99;
/// Braking aims to stop with planted feet at this fraction of the reach,
/// short of [`STOP_STRETCH`], so the hard stop is a last resort.
pub(super) const BRAKE_STRETCH: f32 = 0.93;
/// A planted foot may trail its rest point by at most this many
/// `step_threshold`s before the body brakes for it.
const LAG_STEPS: f32 = 2.0;
/// The body's centre brakes before it comes nearer the edge of its planted
/// feet's polygon than this fraction of the gait's stability margin.
const SUPPORT_FLOOR: f32 = 0.5;
/// Room a ground walker keeps between its farthest-forward foot and a wall
/// it stops before, metres.
const OBSTACLE_MARGIN: f32 = 0.15;
/// The lowest a ground walker looks for a face ahead over its feet
/// (metres), whatever its step height.
const LOWEST_LEDGE: f32 = 0.05;
/// Most stairs a wall ray climbs in one look ahead.
const MAX_STAIRS: usize = 12;
/// How far (metres) past a stair's face, and before it, its top and the
/// tread in front of it are looked for.
const STAIR_PROBE: f32 = 0.01;
/// The finest a ground walker looks for a drop ahead (metres), whatever
/// its stride (see `Creature::drop_ahead`).
const MIN_DROP_SPACING: f32 = 0.05;
/// The most points along its path a ground walker looks for a drop at,
/// each step.
const MAX_DROP_SAMPLES: usize = 24;
/// Braking may change speed this many times faster than speeding up.
const BRAKING_FACTOR: f32 = 2.0;
/// A body that moved less than this fraction of its commanded speed over a
/// step stood still...
const HELD_FRACTION: f32 = 0.01;
/// ...and one that stood still this long in a row is held (seconds).
const HELD_DELAY: f32 = 0.005;
/// Seconds over which the body's shortfall against its commanded speed is
/// averaged.
const SHORTFALL_WINDOW: f32 = 1.0;
/// A body whose average shortfall passes this is stranded...
const STRANDED_SHORTFALL: f32 = 0.95;
/// ...for this many seconds, renewed while it stays so.
const STRANDED_RELIEF: f32 = 1.0;

impl Creature {
    /// Stage 1: updates the forward speed and turning rate, then moves and
    /// turns the body by one step of them.
    pub(super) fn drive(&mut self, terrain: &Ground<'_>, dt: f32, scratch: &mut StepScratch) {
        let finite_or_zero = |v: f32| {
            if v.is_finite() {
                v.clamp(-1.0, 1.0)
            } else {
                0.0
            }
        };
        let spec = Arc::clone(&self.spec);
        let body_spec = &spec.body;
        self.update_reliefs(dt);
        let mut throttle = finite_or_zero(self.input.forward);
        if throttle > 0.0 {
            throttle *= finite_or_zero(self.crowding.throttle).max(0.0);
        }
        let rudder =
            finite_or_zero(finite_or_zero(self.input.turn) + finite_or_zero(self.crowding.turn));
        let mut speed_command = throttle * self.shared.walk_speed;
        let mut turn_command = rudder * body_spec.turn_rate;
        // Walking and turning at once, the outer feet move faster than
        // either alone; both give way so no foot outruns the gait.
        let feet = speed_command.abs() + turn_command.abs() * self.shared.rest_radius;
        if feet > self.shared.speed_cap {
            speed_command *= self.shared.speed_cap / feet;
            turn_command *= self.shared.speed_cap / feet;
        }
        if speed_command > 0.0 {
            speed_command = speed_command.min(self.obstacle_speed(terrain));
        }
        if self.is_unsupported(terrain) {
            // No foot on the ground to push with.
            speed_command = 0.0;
            turn_command = 0.0;
        }
        self.motion.speed_command = speed_command;
        self.motion.turn_command = turn_command;
        self.strains_now(&mut scratch.strains);
        let allowed = self
            .stride_allowance(speed_command, turn_command, dt, &scratch.strains)
            .min(self.support_allowance(speed_command, turn_command, dt, scratch));
        self.motion.speed = approach(
            self.motion.speed,
            speed_command * allowed,
            body_spec.acceleration * dt,
        );
        self.motion.yaw_rate = approach(
            self.motion.yaw_rate,
            turn_command * allowed,
            body_spec.turn_acceleration * dt,
        );
        // A last guard for what braking could not foresee (the body's own
        // height and tilt changing under it): never carry a planted foot
        // past the stop.
        let scale = self.overstretch_scale(
            self.motion.speed * dt,
            self.motion.yaw_rate * dt,
            &scratch.strains,
        );
        self.motion.speed *= scale;
        self.motion.yaw_rate *= scale;
        if self.motion.yaw_rate != 0.0 && self.turn_buries_body(terrain, self.motion.yaw_rate * dt)
        {
            // No room to turn: the body goes on straight.
            self.motion.yaw_rate = 0.0;
        }

        // Walking straight there is no turn to build (a sine and a cosine).
        let turned = if self.motion.yaw_rate == 0.0 {
            self.body.orientation
        } else {
            Quat::from_axis_angle(self.body.up(), self.motion.yaw_rate * dt) * self.body.orientation
        };
        self.body.orientation = crate::math::settled_rotation(turned);
        self.body.velocity = self.body.forward() * self.motion.speed;
        self.body.position += self.body.velocity * dt;
    }

    /// Whether the body has stood still against a command to walk for
    /// [`HELD_DELAY`] in a row: a brake, or a balance it waits for, holds it
    /// (a start from standing, its first steps slow, is not held).
    pub(super) fn is_held(&self) -> bool {
        self.motion.held_for >= HELD_DELAY
    }

    /// Whether the body counts as stranded: it made almost no progress the
    /// way it is told to go for about three seconds (see
    /// [`update_reliefs`](Self::update_reliefs)), or did within the last
    /// second.
    pub(super) fn is_stranded(&self) -> bool {
        self.motion.stranded_left > 0.0
    }

    /// Whether turning the body by `angle` radians about its up, where it
    /// stands, would bring a corner of its box nearer the solid than the
    /// guard's clearance and nearer than it is now. The guard after the
    /// drive pushes a buried corner out along the surface's normal, which
    /// between two walls nearer than the box is wide pushes the other
    /// corner in: a biped turning in a 0.4 m slot put a corner 74 mm into
    /// a wall. (Among shapes only; open ground never rises into a turn's
    /// corners faster than the guard lifts the body.)
    fn turn_buries_body(&self, terrain: &Ground<'_>, angle: f32) -> bool {
        if !terrain.has_shapes() {
            return false;
        }
        let half = self.spec.body.size * 0.5;
        let turned = Body {
            orientation: Quat::from_axis_angle(self.body.up(), angle) * self.body.orientation,
            ..self.body
        };
        let now = body_corners(&self.body, half);
        body_corners(&turned, half)
            .into_iter()
            .zip(now)
            .any(|(next, now)| {
                let after = terrain.signed_distance(next);
                after < BODY_CLEARANCE && after < terrain.signed_distance(now)
            })
    }

    /// Before the drive, from the last step's command and headway: the
    /// reliefs that free a body its own brakes hold still for good. Held
    /// (see [`is_held`](Self::is_held)), it gets
    /// [`held_relief_left`](super::BodyMotion::held_relief_left) for a
    /// step's time; making almost no progress the way it is told to go for
    /// about three seconds (however it rocks in place), it is
    /// [`stranded`](super::BodyMotion::stranded_left).
    fn update_reliefs(&mut self, dt: f32) {
        let step = self.spec.gait.step_duration;
        let motion = &mut self.motion;
        let command = motion.speed_command.abs();
        let still = command > 0.0 && motion.headway <= HELD_FRACTION * command * dt;
        motion.held_for = if still { motion.held_for + dt } else { 0.0 };
        motion.held_relief_left = if motion.held_for >= HELD_DELAY {
            step
        } else {
            (motion.held_relief_left - dt).max(0.0)
        };
        let short = if command > 0.0 {
            // Backward counts against, as much as forward counts for: a
            // body rocking to and fro in place makes no progress, however
            // far each swing takes it (and one guard's push back of a few
            // centimetres does not outweigh a second's walk).
            1.0 - (motion.progress / (command * dt)).clamp(-1.0, 1.0)
        } else {
            0.0
        };
        motion.shortfall += (short - motion.shortfall) * (dt / SHORTFALL_WINDOW).min(1.0);
        motion.stranded_left = if motion.shortfall > STRANDED_SHORTFALL {
            STRANDED_RELIEF
        } else {
            (motion.stranded_left - dt).max(0.0)
        };
    }

    /// The fastest a ground walker may walk forward and still stop, at its
    /// braking rate, before a face steeper than its `max_slope` ahead (a
    /// wall) and taller than its feet step up by, or a drop deeper than it
    /// steps down (see [`drop_ahead`](Self::drop_ahead)): its feet and body
    /// keep clear of it. Unbounded for climbers (a wall is more ground to
    /// them) and on open ground.
    fn obstacle_speed(&self, terrain: &Ground<'_>) -> f32 {
        let spec = &self.spec;
        if spec.body.surface == Surface::Any || !terrain.has_shapes() {
            return f32::INFINITY;
        }
        // The rest pose's reach ahead, and a swinging foot's half stride
        // beyond it.
        let margin = self.shared.reach_ahead + 0.5 * spec.gait.step_threshold + OBSTACLE_MARGIN;
        let braking = BRAKING_FACTOR * spec.body.acceleration;
        let stopping = spec.body.speed * spec.body.speed / (2.0 * braking);
        let look = margin + stopping + 1.0;
        let up = self.body.up();
        let mut gap = f32::INFINITY;
        // At the body's height and at the height its feet step up by: a
        // ledge lower than that is ground it steps onto (a curb, a stair),
        // a taller face a wall. (A fixed 0.1 m stopped walkers that lift
        // their feet higher at every stair they could have climbed.)
        // Never above the body's underside, which would meet a ledge the
        // ray passed over, nor at the feet, where a bobbing body starts it
        // in the floor.
        let ledge = spec
            .gait
            .step_height
            .min(spec.body.height - 0.5 * spec.body.size.y)
            .max(LOWEST_LEDGE);
        // Along the lines its legs cover too, not the centre line alone: a
        // long-legged walker went into a 0.4 m slot between walls its legs
        // could not clear, every foot hanging, and lay in it with its legs
        // through them. A lane the same as one before it (hips or legs on
        // the centre line) is looked along once, and one whose start lies
        // beyond a wall beside the body not at all: what is ahead of it
        // there is not in the legs' way. A wall already found within the
        // margin stops the body whatever else is ahead, and one farther
        // than the nearest so far changes nothing: the looks stop there
        // (the same answer at less cost; the lanes had made a walker's
        // step half again as costly).
        let across = self.body.orientation * Vec3::Z;
        let lanes = &self.shared.wall_lanes;
        for (i, &lane) in lanes.iter().enumerate() {
            if gap <= margin {
                return 0.0;
            }
            if lanes[..i].contains(&lane)
                || lane != 0.0
                    && terrain
                        .raycast(self.body.position, across * lane, lane.abs())
                        .is_some()
            {
                continue;
            }
            for lift in [0.0, ledge - spec.body.height] {
                let from = self.body.position + across * lane + up * lift;
                gap = gap.min(self.wall_ahead(terrain, from, look.min(gap), ledge));
            }
        }
        if gap <= margin {
            return 0.0;
        }
        gap = gap.min(self.drop_ahead(terrain, margin + stopping));
        if !gap.is_finite() {
            return f32::INFINITY;
        }
        (2.0 * braking * (gap - margin).max(0.0)).sqrt()
    }

    /// How far a ray from `from` along the body's forward, within `look`
    /// metres, goes before it meets a wall: a face steeper than the
    /// walker's `max_slope` that is not a stair. A stair's face meets the
    /// ray no higher than `ledge` over the tread in front of it, and its
    /// top stands no higher than that either, both treads ground the
    /// walker stands on; the ray goes on from over
    /// it, as high over its top as it was over the tread before (a
    /// staircase of 8 cm risers on 0.4 m treads stopped the biped, which
    /// steps 0.1 m: the ray over its first step met the third, two risers
    /// above it). Infinite with none; a face it may stand on ends the look.
    fn wall_ahead(&self, terrain: &Ground<'_>, from: Vec3, look: f32, ledge: f32) -> f32 {
        let forward = self.body.forward();
        let up = self.body.up();
        let steep = self.spec.body.max_slope.cos();
        // Deep enough to find the tread under a ray at the body's height.
        let depth = self.spec.body.height + ledge + 2.0 * STAIR_PROBE;
        let (mut origin, mut travelled) = (from, 0.0f32);
        for _ in 0..MAX_STAIRS {
            let Some(hit) = terrain.raycast(origin, forward, look - travelled) else {
                return f32::INFINITY;
            };
            if terrain.normal_at(hit.point).y >= steep {
                return f32::INFINITY;
            }
            let wall = travelled + hit.distance;
            let Some(tread) = terrain.raycast(hit.point - forward * STAIR_PROBE, -up, depth) else {
                return wall;
            };
            let height = (hit.point - tread.point).dot(up);
            if height > ledge {
                return wall;
            }
            // From over the face's top, a step over the tread: inside the
            // solid (a taller face) it finds nothing.
            let over = hit.point + forward * STAIR_PROBE + up * (ledge - height + STAIR_PROBE);
            let Some(top) = terrain.raycast(over, -up, ledge + STAIR_PROBE) else {
                return wall;
            };
            // Both treads ground it stands on: a steep curve (a dome's
            // side) is no stair, however small its steps are looked at.
            if (top.point - tread.point).dot(up) > ledge
                || terrain.normal_at(tread.point).y < steep
                || terrain.normal_at(top.point).y < steep
            {
                return wall;
            }
            travelled = wall + STAIR_PROBE;
            if travelled >= look {
                return f32::INFINITY;
            }
            origin = top.point + up * height;
        }
        f32::INFINITY
    }

    /// How far ahead, within `look` metres, a ground walker's path meets a
    /// drop it does not step down, where a shape makes it: the surface
    /// falling, from one look to the next (every `step_threshold` along
    /// the way), deeper than a leg reaches below the body lying on its
    /// belly, or, deeper than a step, onto a face steeper than it stands
    /// on; infinite with none. A well or a pit is an obstacle as a wall is:
    /// a biped walked into a 2 m well and stood at its rim, one foot on the
    /// edge and the other hanging toward the floor far below, for good.
    /// (Before, it walked on across the well's opening as if on a lid.)
    /// Measured from one look to the next, not from the body, and only
    /// where a shape stands (at the look or the one before): noise
    /// ground's flanks are walked as on open ground (on ridged noise 1 m
    /// high a hexapod on a peak saw the valleys as drops and never moved).
    /// A gap no wider than half a leg's reach, the surface back within
    /// reach beyond it, is stepped across (a hexapod over a slot 0.1 m
    /// wide); a wider one is a drop (a biped let across a trench 0.5 m wide
    /// sank into it).
    fn drop_ahead(&self, terrain: &Ground<'_>, look: f32) -> f32 {
        let spec = &self.spec;
        let forward = self.body.forward();
        let up = self.body.up();
        let ride = spec.body.height;
        let spacing = spec.gait.step_threshold.max(MIN_DROP_SPACING);
        let reach = spec.max_reach();
        // The deepest step down: a leg's reach below the body on its belly
        // (the hexapod steps off a 0.4 m ledge, the biped off a 0.5 m one),
        // and no deeper than twice the ride height (the long-legged strider,
        // let down into a trench 1 m deep and 0.5 m wide, cut its rim with a
        // bone 57 mm deep climbing out).
        let deepest = (reach - 0.5 * spec.body.size.y)
            .min(2.0 * ride)
            .max(spec.gait.step_height);
        let Some(under) = terrain.raycast(self.body.position, -up, 2.0 * ride) else {
            // Nothing under the body to measure from (its feet hold it).
            return f32::INFINITY;
        };
        // The surface `distance` ahead, looked for from the ride height over
        // `level`: `Err` when that look starts in the solid (ground rising
        // ahead, or a wall: the wall's own rule sees to those).
        let surface = |distance: f32, level: Vec3| -> Result<Option<Vec3>, ()> {
            let ahead = self.body.position + forward * distance;
            let from = ahead + up * ((level - ahead).dot(up) + ride);
            if terrain.inside(from) {
                return Err(());
            }
            Ok(terrain
                .raycast(from, -up, ride + deepest + MIN_DROP_SPACING)
                .map(|hit| hit.point))
        };
        // Deeper than that, or, deeper than a step, onto a face steeper
        // than it stands on (a crater's bowl steepening to 75° at its rim:
        // a biped walked in and hung on no foot for 3 s).
        let step = spec.gait.step_height.max(LOWEST_LEDGE);
        let steep = spec.body.max_slope.cos();
        let by_shape = |distance: f32| {
            let at = self.body.position + forward * distance;
            terrain.shaped_at(at.x, at.z)
        };
        let falls = |point: Option<Vec3>, level: Vec3, shaped: bool| {
            shaped
                && point.is_none_or(|point| {
                    let fall = (level - point).dot(up);
                    fall > deepest || fall > step && terrain.normal_at(point).y < steep
                })
        };
        let across = ((0.5 * reach) / spacing).floor() as usize;
        let samples = ((look / spacing).ceil() as usize).min(MAX_DROP_SAMPLES);
        let mut level = under.point;
        let mut shaped_before = by_shape(0.0);
        let mut k = 1;
        while k <= samples {
            let distance = k as f32 * spacing;
            let Ok(point) = surface(distance, level) else {
                return f32::INFINITY;
            };
            let shaped = by_shape(distance);
            if !falls(point, level, shaped || shaped_before) {
                // (Noise ground out of the look's depth: measured from the
                // same level on.)
                if let Some(point) = point {
                    level = point;
                }
                shaped_before = shaped;
                k += 1;
                continue;
            }
            // A gap: stepped across when the surface comes back within
            // reach beyond it.
            let back = (k + 1..=k + across).find_map(|j| {
                let beyond = j as f32 * spacing;
                match surface(beyond, level) {
                    Err(()) => Some((j, None)),
                    Ok(point) if !falls(point, level, true) => Some((j, point)),
                    Ok(_) => None,
                }
            });
            match back {
                Some((_, None)) => return f32::INFINITY,
                Some((j, Some(point))) => {
                    level = point;
                    shaped_before = by_shape(j as f32 * spacing);
                    k = j + 1;
                }
                None => return distance,
            }
        }
        f32::INFINITY
    }

    /// The body after moving `advance` metres forward and turning `angle`
    /// radians about its up.
    fn moved(&self, advance: f32, angle: f32) -> Body {
        Body {
            position: self.body.position + self.body.forward() * advance,
            orientation: Quat::from_axis_angle(self.body.up(), angle) * self.body.orientation,
            velocity: self.body.velocity,
        }
    }

    /// How much of a sideways shift `delta` of the body keeps every planted
    /// foot within [`STOP_STRETCH`] (1 when all of it does); `now` is
    /// [`strains_now`](Self::strains_now) for the body as it stands.
    pub(super) fn shift_room(&self, delta: Vec3, now: &Strains) -> f32 {
        self.stop_room(
            &Body {
                position: self.body.position + delta,
                ..self.body
            },
            now,
        )
    }

    /// How much of the way to `next` keeps every planted foot within
    /// [`STOP_STRETCH`], or one already past [`BRAKE_STRETCH`] within
    /// [`LOSS_STRETCH`] (1 when all of it does), taking stretch as linear
    /// along the way.
    fn stop_room(&self, next: &Body, now: &Strains) -> f32 {
        let mut scale = 1.0f32;
        self.for_each_stretch(now, next, |now, after| {
            // A foot already past the brake's aim got there by what the
            // brake does not foresee (the body rising over a crest with that
            // foot down in a gully, a hanging foot landing at the edge of its
            // reach): on open ground the walk brakes for it on its curve now,
            // and stops dead only before carrying it past `LOSS_STRETCH`.
            // Stopping dead at the stop jolted a centipede at 34–40 m/s².
            // Among walls it stops at the stop, as before: carried on round
            // the overhang, an eleven-legged climber's knees went 70 mm into
            // the room's floor.
            let limit = if now < BRAKE_STRETCH || self.among_walls {
                STOP_STRETCH
            } else {
                LOSS_STRETCH
            };
            if after > limit && after > now {
                scale = scale.min(((limit - now) / (after - now)).clamp(0.0, 1.0));
            }
        });
        scale
    }

    /// For every planted foot, two measures of strain, each now and after
    /// the body makes the given motion: how far the foot is from its hip as
    /// a fraction of the leg's reach, and how far it trails its rest point
    /// against the most it may ([`LAG_STEPS`] strides), scaled so that limit
    /// sits at [`BRAKE_STRETCH`]. Trailing matters for a foot kept waiting
    /// by its gait: it can pass under the hip, never stretched, into its
    /// neighbour's path. The two are kept apart because they grow at
    /// different rates: extrapolating their maximum from whichever leads now
    /// would brake too late when the faster one takes over.
    ///
    /// Each (now, after) pair goes to `visit`: a callback rather than an
    /// iterator, since this runs several times a step for every foot and
    /// a flattened iterator of pairs cost a tenth of the whole step. `now`
    /// is [`strains_now`](Self::strains_now), taken once for the body as it
    /// stands rather than again by every caller, with its gauge.
    fn for_each_stretch(&self, now: &Strains, next: &Body, mut visit: impl FnMut(f32, f32)) {
        // A motion that does not turn the body (a sideways lean, a step
        // straight on) moves every hip and rest point by its shift alone:
        // their turns into the body's frame are the ones taken for `now`.
        let same_turn = same_bits(next.orientation, now.orientation);
        for ((leg, frame), strain) in self.legs.iter().zip(&self.shared.frames).zip(&now.legs) {
            let Some(before) = strain.now else {
                continue;
            };
            let (mount, rest) = if same_turn {
                (next.position + strain.mount, next.position + strain.rest)
            } else {
                (next.to_world(frame.mount), next.to_world(frame.rest))
            };
            let after = now.gauge.strain(leg, frame, mount, rest);
            visit(before.0, after.0);
            visit(before.1, after.1);
        }
    }

    /// Each leg's strain (see [`for_each_stretch`](Self::for_each_stretch))
    /// for the body as it stands, into `out`: `None` for a foot in the air,
    /// or, stranded, one no step would help (its foothold is where it
    /// stands), which holds nothing back: carried out of reach, its leg
    /// lets go and looks for ground further on.
    pub(super) fn strains_now(&self, out: &mut Strains) {
        out.gauge = self.strain_gauge();
        out.orientation = self.body.orientation;
        let stranded = self.is_stranded();
        out.legs.clear();
        out.legs.extend(
            self.legs
                .iter()
                .zip(&self.shared.frames)
                .map(|(leg, frame)| {
                    if !leg.is_grounded() || (stranded && !self.step_would_move(leg)) {
                        return LegStrain::default();
                    }
                    let turn = self.body.orientation;
                    let (mount, rest) = (turn * frame.mount, turn * frame.rest);
                    let position = self.body.position;
                    LegStrain {
                        now: Some(
                            out.gauge
                                .strain(leg, frame, position + mount, position + rest),
                        ),
                        mount,
                        rest,
                    }
                }),
        );
    }

    /// What a foot's strain is measured by, this step.
    fn strain_gauge(&self) -> StrainGauge {
        // A climber cresting steep open ground finds its footholds behind
        // its rest points, or to their side (nothing ahead is in reach
        // until its body has tipped over the crest; on a ridged peak the
        // feet gather at its tip): only the part of a foot's trail that a
        // step would make up holds it back. (Counting only the part along
        // the body's path, an octopod kept clear of a peak under its hips
        // crept off it at a third of its speed.) Among walls the edge rays
        // find the face round the edge instead, and the full trail is kept
        // as long as the body moves (held still, only the part along its
        // path counts): a long body with its front feet on the
        // top of a wall and the rest on its face has them trailing rest
        // points in the air past the edge, and the brake held it still for
        // good (the octopod stopped at the top of the wall and on the
        // ceiling). Held still, it is relieved for a step's time.
        StrainGauge {
            up: self.body.up(),
            forward: self.body.forward(),
            sway: self.motion.sway,
            lag_limit: LAG_STEPS * self.spec.gait.step_threshold,
            climber: self.spec.body.surface == super::Surface::Any
                && (!self.among_walls || self.motion.held_relief_left > 0.0),
            among_walls: self.among_walls,
        }
    }

    /// The fraction (0–1) of the commanded motion the body may move at now
    /// and still brake to a stop before a planted foot reaches
    /// [`BRAKE_STRETCH`].
    fn stride_allowance(&self, speed: f32, turn: f32, dt: f32, now: &Strains) -> f32 {
        if speed == 0.0 && turn == 0.0 {
            return 1.0;
        }
        let next = self.moved(speed * dt, turn * dt);
        let braking = self.braking_rate(speed, turn);
        let mut allowed = 1.0f32;
        self.for_each_stretch(now, &next, |now, after| {
            let per_step = after - now;
            if per_step > 0.0 {
                // Seconds of the commanded motion left before the stop.
                let left = (BRAKE_STRETCH - now).max(0.0) / per_step * dt;
                allowed = allowed.min((2.0 * braking * left).sqrt());
            }
        });
        allowed
    }

    /// For gaits that keep three or more feet down: the fraction (0–1) of
    /// the commanded motion the body may move at now and still brake to a
    /// stop before its centre comes within [`SUPPORT_FLOOR`] of the gait's
    /// stability margin of the edge of its planted feet's polygon. The gait leans the body
    /// over its support before a foot lifts; this keeps the walk itself
    /// from carrying the body off it while the foot is in the air.
    fn support_allowance(
        &mut self,
        speed: f32,
        turn: f32,
        dt: f32,
        scratch: &mut StepScratch,
    ) -> f32 {
        // Held still, the body may leave its balance behind: waiting for it
        // (astride a peak no lean stands over) would be waiting for good.
        if speed == 0.0 && turn == 0.0 || self.motion.held_relief_left > 0.0 {
            return 1.0;
        }
        let next = self.moved(speed * dt, turn * dt);
        // The lean moves the body too, in the same step: braking as if the
        // walk alone moved it, a crawl stopped 3 mm inside its support and
        // its lean carried it 1 mm out while a foot was in the air. The
        // walk gives way to the lean, braking for both (the lean has its
        // own brake too, in `update_posture`); braking only for the
        // walk's own part left a foot jumping and a knee 177 mm in on the
        // ridged tests. On open ground only: among walls climbs were clean
        // as they were.
        let sway = if self.among_walls {
            Vec3::ZERO
        } else {
            self.motion.sway_velocity * dt
        };
        let Some((now, after)) =
            self.support_margins(next.position - self.body.position + sway, scratch)
        else {
            return 1.0;
        };
        let per_step = now - after;
        if per_step <= 0.0 {
            return 1.0;
        }
        let floor = SUPPORT_FLOOR * self.spec.gait.stability_margin;
        let left = (now - floor).max(0.0) / per_step * dt;
        (2.0 * self.braking_rate(speed, turn) * left)
            .sqrt()
            .min(1.0)
    }

    /// Whether moving the body by `delta` keeps its centre over its planted
    /// feet (see [`support_allowance`](Self::support_allowance)): true when
    /// it ends at least [`SUPPORT_FLOOR`] of the stability margin inside
    /// their polygon or moves away from its edge, and always for gaits that
    /// do not stand statically.
    pub(super) fn keeps_support(&mut self, delta: Vec3, scratch: &mut StepScratch) -> bool {
        let floor = SUPPORT_FLOOR * self.spec.gait.stability_margin;
        self.support_margins(delta, scratch)
            .is_none_or(|(now, after)| after >= floor || after >= now)
    }

    /// For gaits that keep three or more feet down, with three or more
    /// planted: the body centre's margin inside their polygon now and after
    /// moving by `delta` (metres, positive inside).
    fn support_margins(&mut self, delta: Vec3, scratch: &mut StepScratch) -> Option<(f32, f32)> {
        if !self.spec.statically_stable() {
            return None;
        }
        let up = self.body.up();
        let planted =
            self.support_points(self.legs.iter().filter(|l| l.is_grounded()).map(|l| l.foot));
        let now = scratch.support.margin(self.body.position, up, planted)?;
        let (u, v) = support_plane(up);
        Some((
            now,
            scratch
                .support
                .hull
                .margin(Vec2::new(delta.dot(u), delta.dot(v))),
        ))
    }

    /// How fast (fraction of the commanded motion per second²) the body can
    /// shed the motion `speed`, `turn`: the slower of its linear and angular
    /// braking.
    fn braking_rate(&self, speed: f32, turn: f32) -> f32 {
        let body_spec = &self.spec.body;
        let mut braking = f32::INFINITY;
        if speed != 0.0 {
            braking = braking.min(BRAKING_FACTOR * body_spec.acceleration / speed.abs());
        }
        if turn != 0.0 {
            braking = braking.min(BRAKING_FACTOR * body_spec.turn_acceleration / turn.abs());
        }
        braking
    }

    /// How much of a step's motion keeps every planted foot within
    /// [`STOP_STRETCH`] (1 when all of it does).
    fn overstretch_scale(&self, advance: f32, angle: f32, now: &Strains) -> f32 {
        if advance == 0.0 && angle == 0.0 {
            return 1.0;
        }
        self.stop_room(&self.moved(advance, angle), now)
    }
}

/// Every planted foot's strain for the body as it stands, with what
/// measuring it again for a moved body reuses (see
/// [`Creature::strains_now`]). Lent by the step's scratch space.
#[derive(Debug, Default)]
pub(super) struct Strains {
    /// The gauge the strains were measured by, kept for the moved bodies.
    gauge: StrainGauge,
    /// The body's orientation they were measured in.
    orientation: Quat,
    /// One per leg.
    legs: Vec<LegStrain>,
}

/// One leg's entry in [`Strains`].
#[derive(Debug, Default, Clone, Copy)]
struct LegStrain {
    /// Its strain now, or `None` for a foot that holds nothing back.
    now: Option<(f32, f32)>,
    /// Its mount and rest point turned into the body's orientation, from
    /// the body's position.
    mount: Vec3,
    rest: Vec3,
}

/// Whether two orientations are the same to the bit (then a point turned
/// by one is turned by the other to the bit, whatever the sign of a zero).
fn same_bits(a: Quat, b: Quat) -> bool {
    a.to_array().map(f32::to_bits) == b.to_array().map(f32::to_bits)
}

/// The body's frame and reliefs a foot's strain is measured in (see
/// [`Creature::for_each_stretch`]): the same for every foot and every
/// motion tried in a stage.
#[derive(Debug, Default)]
struct StrainGauge {
    up: Vec3,
    forward: Vec3,
    sway: Vec3,
    lag_limit: f32,
    climber: bool,
    among_walls: bool,
}

impl StrainGauge {
    /// A planted foot's stretch (its distance from its hip as a fraction of
    /// the leg's reach) and its trail (behind its rest point, scaled so the
    /// most it may trail sits at [`BRAKE_STRETCH`]) with the body where its
    /// hip is at `mount` and its rest point at `rest` (world frame).
    fn strain(
        &self,
        leg: &super::Leg,
        frame: &super::state::LegFrame,
        mount: Vec3,
        rest: Vec3,
    ) -> (f32, f32) {
        let stretch = leg.foot.distance(mount) / frame.reach;
        let rest = rest - self.sway;
        let mut trail = (leg.foot - rest).reject_from_normalized(self.up).length();
        if self.climber {
            let short = if self.among_walls {
                (rest - leg.desired).dot(self.forward).max(0.0)
            } else {
                (rest - leg.desired)
                    .reject_from_normalized(self.up)
                    .length()
            };
            trail = (trail - short).max(0.0);
        }
        (stretch, BRAKE_STRETCH * trail / self.lag_limit)
    }
}

/// Moves `current` toward `target` by at most `step` (twice that when
/// slowing toward rest or reversing).
fn approach(current: f32, target: f32, step: f32) -> f32 {
    let braking = target.abs() < current.abs() || target * current < 0.0;
    let step = if braking { BRAKING_FACTOR * step } else { step };
    current + (target - current).clamp(-step, step)
}

#[cfg(test)]
mod tests {
    use super::approach;

    #[test]
    fn speeding_up_is_bounded_and_braking_twice_as_fast() {
        assert_eq!(approach(0.0, 1.0, 0.1), 0.1);
        assert_eq!(approach(0.95, 1.0, 0.1), 1.0);
        assert_eq!(approach(1.0, 0.0, 0.1), 0.8);
        assert_eq!(approach(0.1, -1.0, 0.1), -0.1);
        assert_eq!(approach(-1.0, -1.0, 0.1), -1.0);
    }
}
