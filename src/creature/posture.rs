//! Stage 5, posture: the body's height, tilt and sway follow the feet.
//!
//! The reference is the feet: planted feet where they stand, swinging feet
//! partway between where they lifted and where they will land, by their
//! progress, so the reference never jumps when a foot lifts or lands. The
//! body's up follows the plane through them (or the ground normal, for
//! creatures that take it from the ground), and its height is regulated
//! along its own up above their mean, with the ground under the body as a
//! guard. Each follows through a critically damped spring that also tracks
//! the reference's own motion (no lag on a steady slope), with its
//! acceleration and rate bounded: corrections are smooth, never snapped.
//!
//! Sway moves the body across its path: toward the planted feet in a walk
//! (a biped shifts over its stance foot), or over the support polygon before
//! a step in gaits that keep three or more feet down (planned by the gait
//! stage). A small bob lowers the body while feet swing.

use glam::{Quat, Vec3};

use super::footholds::CEILING_MARGIN;
use super::leg::LegPhase;
use super::spec::{OrientationSource, Surface};
use super::state::StepScratch;
use super::{Body, Creature, feet_plane_normal};
use crate::terrain::{BoxGap, Ground, RayHit, slope_normal};

/// Natural frequency of the height spring, radians/s.
const HEIGHT_FREQUENCY: f32 = 8.0;
/// Most vertical acceleration the height spring applies, m/s².
const HEIGHT_ACCELERATION: f32 = 6.0;
/// Natural frequency of the tilt spring, radians/s.
const TILT_FREQUENCY: f32 = 5.0;
/// Most angular acceleration the tilt spring applies, radians/s².
const TILT_ACCELERATION: f32 = 12.0;
/// Natural frequency of the sway spring, radians/s.
const SWAY_FREQUENCY: f32 = 7.0;
/// Most acceleration the sway spring applies, m/s².
const SWAY_ACCELERATION: f32 = 3.0;
/// A lean nearing the limit of the feet's reach slows at the sway spring's
/// acceleration, starting this many stopping distances early (room for the
/// feet's strain growing faster than linearly, and for the drive braking
/// at the same moment).
const SWAY_BRAKING_MARGIN: f32 = 2.0;
/// How far toward the planted feet's centre a walking body sways (fraction
/// of the way from the centre of all feet).
const SWAY_SHARE: f32 = 0.25;
/// How much the body dips, as a fraction of its ride height, when every leg
/// is at the top of its swing.
const BOB_SHARE: f32 = 0.015;
/// Gap the height spring aims to keep under the body's corners (metres):
/// well above [`BODY_CLEARANCE`], so the hard guard rarely has to act.
pub(super) const SPRING_CLEARANCE: f32 = 0.04;
/// Least gap kept between the body's underside and the ground (metres).
pub(super) const BODY_CLEARANCE: f32 = 0.005;
/// The least gap under a body's underside at its ride height (metres) that
/// lets it stand on its legs: the ground guard keeps twice
/// [`BODY_CLEARANCE`] under it, and the body bobs a little over that. A
/// creature built smaller (a template scaled to a 1.4 cm ride height) was
/// lifted clear of its feet, every leg hanging, and glided.
pub const LEAST_UNDERSIDE_GAP: f32 = 2.0 * BODY_CLEARANCE + 0.002;
/// How near the shapes (metres) the hard guard searches the whole body box
/// for the point nearest them: twice its clearance. (Searching to the
/// spring's clearance, a body held 4–10 cm off a wall by its feet halved its
/// faces a hundred times a step, a fifth of a climb's cost.)
const SHAPES_SEARCH_MARGIN: f32 = 2.0 * BODY_CLEARANCE;
/// A body whose up's world y is at least this stands up (its up within 60°
/// of world up): the height spring and the guard raise it straight up, and
/// stranded it may step off its balance. Below it, it is on its side.
pub(super) const STANDING_UP: f32 = 0.5;
/// How deep in the solid (metres) the guard's pushes may leave the body
/// box before the tilt that put it there is undone (see
/// `Creature::keep_body_clear`). Not at any depth: undoing the tilt of a
/// spider turning between L-shaped walls, 0.3 mm in, took it off its
/// feet for 3.5 s.
const UNFIT_DEPTH: f32 = 0.001;
/// How far from its hip (a share of its reach) the body brings a hanging
/// leg's foothold (see `Creature::lowest_reaching_height`): inside the reach
/// a swing lands within, with room for the body's springs to overshoot.
/// (Not the swing's `HANGING_REACH`, how far a hanging foot itself goes.)
const HANGING_FOOTHOLD_REACH: f32 = 0.9;
/// The height spring rises for a surface only when its normal leans toward
/// the body's up by more than this cosine (about 75°).
const FACING_UP: f32 = 0.25;

/// The corners of the underside of a body box of half-extents `half`.
fn underside_points(body: &Body, half: Vec3) -> [Vec3; 4] {
    [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)]
        .map(|(sx, sz)| body.to_world(Vec3::new(sx * half.x, -half.y, sz * half.z)))
}

/// How far ahead (seconds of motion) the height spring looks for ground
/// rising under the body: about the time it needs to rise over a bump.
const GUARD_LOOKAHEAD: f32 = 0.2;
/// Moments within the lookahead that are checked.
const GUARD_HORIZONS: usize = 1;
/// The cosine (60°) within which the mean normal of the faces a climber's
/// planted feet stand on agrees with its feet's plane.
const FACES_AGREE: f32 = 0.5;
/// How far (as a cosine from its heading: 60°) the faces' mean normal must
/// lean ahead for the body to tilt toward it, over an edge ahead.
const FACES_AHEAD: f32 = 0.5;

/// The body's rates and the state of its springs.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BodyMotion {
    /// Forward speed, m/s (negative walking backwards).
    pub speed: f32,
    /// Turning rate about the body's up, radians/s (positive to the left).
    pub yaw_rate: f32,
    /// The forward speed the driver asks for (after the feet-speed cap), m/s.
    pub speed_command: f32,
    /// The turning rate the driver asks for, radians/s.
    pub turn_command: f32,
    /// How far the body's centre moved over the last step, metres: what it
    /// did (`speed_command` is what the driver asked, `speed` what the drive
    /// allowed; the posture moves the body besides).
    pub headway: f32,
    /// How far the body's centre moved over the last step the way it was
    /// told to go (forward, or back), metres, negative when it moved the
    /// other way: a body rocking in place on its posture's corrections has
    /// headway but, over a swing and back, no progress.
    pub progress: f32,
    /// Seconds in a row the body has stood still against a command to
    /// walk (see `drive.rs::update_reliefs`).
    pub held_for: f32,
    /// Seconds left of the relief a body held still gets: a climber among
    /// walls brakes only for the part of a foot's trail a step would make
    /// up (as it does on open ground), the body may move off its balance,
    /// and a step waiting for balance goes ahead.
    pub held_relief_left: f32,
    /// The share of its commanded speed the body's `progress` fell short
    /// of, averaged over about a second (0 when not commanded to move).
    pub shortfall: f32,
    /// Seconds left during which the body counts as stranded (its average
    /// shortfall passed 95%, after about three seconds of making almost no
    /// headway): feet that no step would help no longer brake it.
    pub stranded_left: f32,
    /// Seconds in a row, to the end of the last step, with no foot planted
    /// (see `Creature::is_footless`).
    pub footless_for: f32,
    /// Speed along the body's up from height regulation, m/s.
    pub lift_rate: f32,
    /// Angular velocity of tilt corrections, radians/s (world axis × rate).
    pub tilt_velocity: Vec3,
    /// Offset of the body across its path (metres, world frame).
    pub sway: Vec3,
    /// Rate of change of `sway`, m/s.
    pub sway_velocity: Vec3,
    /// Where `sway` is heading (set by the gait stage).
    pub sway_target: Vec3,
    height_error: Option<f32>,
    tilt_error: Option<Vec3>,
    sway_error: Option<Vec3>,
}

/// One step of a critically damped spring driving a rate toward closing
/// `error`: acceleration ω²·error + 2ω·(d error/dt), bounded by `max_accel`,
/// with d error/dt taken from the previous error (which carries the
/// reference's own motion, so a steadily moving target is tracked without
/// lag).
fn spring_rate(
    rate: Vec3,
    error: Vec3,
    previous: Option<Vec3>,
    omega: f32,
    max_accel: f32,
    dt: f32,
) -> Vec3 {
    let error_rate = previous.map_or(Vec3::ZERO, |p| (error - p) / dt);
    let accel = (omega * omega * error + 2.0 * omega * error_rate).clamp_length_max(max_accel);
    settled(rate + accel * dt)
}

/// `v` with components below 1e-15 (metres or radians a second: nothing a
/// step can show) set to zero.
///
/// A settling spring's rate decays toward zero geometrically, and squared
/// or multiplied by a step's `dt` such a tail soon lies among the subnormal
/// floats, where every operation costs a microcode assist of about a
/// hundred cycles (a spider settling on a wall stepped 40% slower).
fn settled(v: Vec3) -> Vec3 {
    Vec3::select(v.abs().cmplt(Vec3::splat(1e-15)), Vec3::ZERO, v)
}

impl Creature {
    /// Where each foot counts for the posture: planted feet where they
    /// stand, swinging feet between lift-off and landing by their progress,
    /// hanging feet at their footholds (the ground they look for: the swings
    /// a hanging foot makes in the air jerked the feet's plane about, and
    /// the tilt spring chasing it turned a hexapod over).
    fn reference_feet(&mut self, scratch: &mut StepScratch) {
        scratch.feet.clear();
        scratch
            .feet
            .extend(self.legs.iter().map(|leg| match leg.phase {
                LegPhase::Grounded => leg.foot,
                LegPhase::Swinging { .. } if leg.hanging => leg.desired,
                LegPhase::Swinging {
                    from, to, progress, ..
                } => from.lerp(to, progress),
            }));
    }

    /// A walking body's sway: part of the way toward the centre of its
    /// planted feet, across its path. A swinging foot's weight fades out as
    /// it lifts and back in as it lands, so the target moves smoothly.
    pub(super) fn natural_sway(&self) -> Vec3 {
        let (mut planted, mut weight) = (Vec3::ZERO, 0.0f32);
        let mut all = Vec3::ZERO;
        for leg in &self.legs {
            all += leg.foot;
            let w = match leg.phase {
                LegPhase::Grounded => 1.0,
                LegPhase::Swinging { progress, .. } => {
                    1.0 - (std::f32::consts::PI * progress).sin()
                }
            };
            planted += leg.foot * w;
            weight += w;
        }
        if weight <= f32::EPSILON {
            return Vec3::ZERO;
        }
        let offset = planted / weight - all / self.legs.len() as f32;
        let up = self.body.up();
        let across = self.body.right();
        // Only across the path: leaning forward or back would fight the drive.
        across * (offset - up * offset.dot(up)).dot(across) * SWAY_SHARE
    }

    /// How far the body may move along `up` (negative: down) for every
    /// hanging leg's foothold to come within [`HANGING_FOOTHOLD_REACH`] of its hip,
    /// where moving along `up` can bring it there at all; infinite with no
    /// leg hanging. The ride height over the feet is the mean of their
    /// footholds, which holds a body above a foothold its leg cannot reach
    /// when another foot stands high: a biped with one foot on a ledge 0.83
    /// m up and the other's foothold on the floor stood for good, the
    /// floor 1 m under that hip, its reach 0.75 m. The body moves to make
    /// the foothold reachable instead (its guards still keep it off the
    /// ground). For a ground walker among walls only: on open ground
    /// bringing hanging footholds within reach stalled a centipede on
    /// ridged noise (there a body with no foot down settles onto the ground
    /// instead, `is_footless`, as it now does among walls too once it has
    /// had none for a step's time); a climber lowered so on a knife-edge
    /// wall's top, on its side, was carried up off it by its other springs
    /// and hung in the air for 2.6 s.
    fn lowest_reaching_height(&self, up: Vec3) -> f32 {
        let mut most = f32::INFINITY;
        for (i, leg) in self.legs.iter().enumerate() {
            if !leg.hanging {
                continue;
            }
            let hip = self.body.to_world(self.spec.legs[i].mount);
            let reach = HANGING_FOOTHOLD_REACH * self.shared.frames[i].reach;
            let offset = hip - leg.desired;
            let along = offset.dot(up);
            let across_squared = offset.length_squared() - along * along;
            let room = reach * reach - across_squared;
            if room > 0.0 {
                most = most.min(room.sqrt() - along);
            }
        }
        most
    }

    /// Among shapes, the surface under the body along `-up` from just
    /// under the ceiling over it, when a ceiling hangs lower than the ride
    /// height above it (the ray from there then starts inside the ceiling
    /// and finds nothing, or over it and finds its top). Without it the nearest surface stood in: a
    /// biped walking under a slab 1.3 m up took the slab's underside, 0.6 m
    /// above its body, for the ground, rose to it and walked on with both
    /// feet hanging for 7 s.
    fn surface_below_any_ceiling(
        &self,
        terrain: &Ground<'_>,
        up: Vec3,
        length: f32,
    ) -> Option<RayHit> {
        if !terrain.has_shapes() || terrain.inside(self.body.position) {
            return None;
        }
        let ceiling = terrain.raycast(self.body.position, up, self.spec.body.height)?;
        let start = (ceiling.distance - CEILING_MARGIN).max(0.0);
        terrain.raycast(self.body.position + up * start, -up, length)
    }

    /// Stage 5: tilt, height and sway springs, then the ground guard.
    pub(super) fn update_posture(
        &mut self,
        terrain: &Ground<'_>,
        dt: f32,
        scratch: &mut StepScratch,
    ) {
        self.reference_feet(scratch);
        let up = self.body.up();
        // With no foot down, or adrift on one or two, the body settles
        // straight down onto the ground under it, standing up on it, rather
        // than at its ride height over footholds its hanging feet cannot
        // reach.
        let footless = self.is_footless() || self.is_adrift();
        let below = if footless && terrain.has_shapes() {
            // Straight down among the shapes too (a slab's top, not the
            // ground under it).
            terrain.surface_below(self.body.position)
        } else if footless {
            terrain.project_down(self.body.position)
        } else {
            let length = 4.0 * self.spec.body.height + self.spec.max_reach();
            terrain
                .raycast(self.body.position + up * self.spec.body.height, -up, length)
                // A surface above the body is a ceiling, not the ground
                // under it (the ray started over a slab 1.2 m up, found its
                // top, and a biped rose to the slab's underside).
                .filter(|hit| {
                    !terrain.has_shapes() || (hit.point - self.body.position).dot(up) <= 0.0
                })
                .or_else(|| self.surface_below_any_ceiling(terrain, up, length))
                .unwrap_or_else(|| {
                    if terrain.has_shapes() {
                        terrain.nearest_hit(self.body.position)
                    } else {
                        terrain.project_down(self.body.position)
                    }
                })
        };
        let ground_normal = || {
            if terrain.has_shapes() {
                terrain.normal_at(below.point)
            } else {
                terrain.normal(below.point.x, below.point.z)
            }
        };
        let mut target_up = match self.spec.body.orientation {
            _ if footless => ground_normal(),
            OrientationSource::Ground => ground_normal(),
            OrientationSource::Feet => feet_plane_normal(&scratch.feet, &self.shared.ring, up)
                .map(|normal| self.facing_off_the_feet(terrain, &scratch.feet, normal, up))
                .unwrap_or_else(ground_normal),
        };
        target_up = self.rear_up_to_face(terrain, target_up);
        target_up = self.over_the_edge_underfoot(terrain, target_up);
        // A ground walker never tilts past its steepest ground (the ray
        // under it may meet the side of a wall or a boulder), nor a climber
        // on open ground past a right angle: neither turns over.
        let steepest = self.steepest_tilt(terrain);
        if let Some(steepest) = steepest {
            target_up = within_cone(target_up, Vec3::Y, steepest);
        }

        // Tilt: the rotation taking up onto the target, as a rotation vector.
        let axis = up.cross(target_up);
        let angle = axis.length().atan2(up.dot(target_up));
        // Turned exactly over (a body on its back, its feet's facing
        // flipped), the two ups have no axis between them: it rolls over
        // about its heading.
        let axis = if axis.length_squared() < 1e-12 && up.dot(target_up) < 0.0 {
            self.body.forward()
        } else {
            axis
        };
        let error = axis.normalize_or_zero() * angle;
        let motion = &mut self.motion;
        let rate = spring_rate(
            motion.tilt_velocity,
            error,
            motion.tilt_error,
            TILT_FREQUENCY,
            TILT_ACCELERATION,
            dt,
        );
        // Only tilt: a spin about the body's own up would turn its heading,
        // which is the driver's alone.
        let rate = rate - up * rate.dot(up);
        motion.tilt_velocity = settled(rate.clamp_length_max(self.spec.body.max_tilt_rate));
        motion.tilt_error = Some(error);
        let turn = Quat::from_scaled_axis(motion.tilt_velocity * dt);
        let untilted = self.body.orientation;
        self.body.orientation = crate::math::settled_rotation(turn * self.body.orientation);
        if let Some(steepest) = steepest {
            // The spring aims within the cone but may swing past its edge
            // chasing a target that moves fast: the body stops at the edge.
            let up = self.body.up();
            let kept = within_cone(up, Vec3::Y, steepest);
            if kept != up {
                let back = crate::math::shortest_arc(up, kept);
                self.body.orientation = crate::math::settled_rotation(back * self.body.orientation);
                self.motion.tilt_velocity = Vec3::ZERO;
            }
        }

        // Height along the (new) up above the mean of the reference feet,
        // dipping a little while feet swing.
        let up = self.body.up();
        let centre = if footless {
            below.point
        } else {
            scratch.feet.iter().copied().sum::<Vec3>() / scratch.feet.len().max(1) as f32
        };
        let swinging: f32 = self
            .legs
            .iter()
            .map(|leg| match leg.phase {
                LegPhase::Grounded => 0.0,
                LegPhase::Swinging { progress, .. } => (std::f32::consts::PI * progress).sin(),
            })
            .sum();
        let bob = BOB_SHARE * self.spec.body.height * swinging / self.legs.len() as f32;
        // A footless body among shapes falls straight down, whichever way
        // it faces (on its side off a wall's top it would otherwise "fall"
        // sideways along its up), and rests on what its box reaches down
        // to as it is turned (its width or length, not only its height).
        let (lift_axis, underside) = if footless && terrain.has_shapes() {
            (Vec3::Y, self.box_reach_down())
        } else {
            (up, 0.5 * self.spec.body.size.y)
        };
        let height = (self.body.position - centre).dot(lift_axis);
        let ride = if footless {
            // Down onto its belly: the spring's clearance holds it there.
            underside
        } else {
            self.spec.body.height - bob
        };
        let mut error = ride - height;
        if self.among_walls && self.spec.body.surface == Surface::Ground {
            error = error.min(self.lowest_reaching_height(up));
        }
        // Guard: never let the feet bring the body's underside near the
        // ground under it.
        let gap = (self.body.position - below.point).dot(lift_axis);
        let least = underside + 2.0 * BODY_CLEARANCE;
        error = error.max(least - gap);
        // Nor a corner of the underside, now or a moment ahead: the spring
        // rises over a bump before the hard guard below has to.
        let half = self.spec.body.size * 0.5;
        let solid = terrain.has_shapes();
        let orientation = self.body.orientation;
        // What the feet ask for, before the ground under the body has its say.
        let height_error = error;
        // How high over the ground the gap must be known exactly: below
        // where the ground's shortfall could outweigh what the feet ask for
        // (it also steers which way the spring rises, below). A body on its
        // side rises along the ground's normal, which bounds nothing: exact.
        let margin = if solid {
            SPRING_CLEARANCE
        } else if up.y >= STANDING_UP {
            // Standing up it rises straight up, and a gap `g` asks for
            // (SPRING_CLEARANCE - g) / up.y: no more than the feet do above
            // this.
            SPRING_CLEARANCE - height_error * up.y.min(1.0)
        } else {
            f32::INFINITY
        };
        // The whole box against the noise ground, exactly: a long body
        // rests on a crest between its corners and its hips (the
        // centipede's underside went 188 mm into ridged noise at its
        // corners and 75 mm into the rough ground at its hips).
        let ground_gap = terrain.box_ground_gap(self.body.position, orientation, half, margin);
        // On open ground, how far the box is short of the spring's clearance
        // (across the ground, at its nearest point) and the ground's normal
        // there, which the spring rises along for it.
        let (mut clearance_error, mut clearance_way) = (f32::NEG_INFINITY, up);
        if !solid {
            let mut short_of = |gap: BoxGap| {
                let (axis, per_metre) = clearance_axis(terrain, gap.at, up);
                // Eager by the body's tilt (as when it rose along its up):
                // rising just enough, a centipede on 6 m ridges kept meeting
                // the hard guard and crept at half its speed.
                let short = (SPRING_CLEARANCE - gap.gap) / (per_metre * up.y.clamp(0.5, 1.0));
                if short > clearance_error {
                    (clearance_error, clearance_way) = (short, axis);
                }
            };
            short_of(ground_gap);
            // A moment ahead too, over the whole box: at a creature's top
            // speed a crest between the corners came faster than the
            // spring rose, and the hard guard lifted the body at 29 m/s².
            // (The box swept over the lookahead in one look, cheaper, rose
            // earlier, and octopods on ridged peaks set knees in flanks.)
            for k in 1..=GUARD_HORIZONS {
                let time = GUARD_LOOKAHEAD * k as f32 / GUARD_HORIZONS as f32;
                let ahead = self.body.position + self.body.velocity * time;
                short_of(terrain.box_ground_gap(ahead, orientation, half, margin));
            }
            error = error.max(clearance_error);
        }
        if solid {
            // Along the surface's normal, whichever way it faces (looked up
            // only for a point that is short). A face across the way the
            // spring moves the body (its up; straight up for a falling body)
            // is no reason to rise: a wall met nose first, rising does not
            // take the body off it, and the spring lifted a climber up a
            // wall's face out of its legs' reach.
            let mut shortfall = |p: Vec3, clearance: f32| {
                let short = clearance - terrain.signed_distance(p);
                if short > 0.0 {
                    let facing = terrain.normal_at(p).dot(lift_axis);
                    if facing > FACING_UP {
                        error = error.max(short / facing.max(0.5));
                    }
                }
            };
            // Among shapes, at the point of the box nearest the ground and
            // at its corners and under its hips: rounding a wall's top the
            // body rests on the edge between its corners (the octopod's
            // underside went 54 mm into it).
            shortfall(ground_gap.at, SPRING_CLEARANCE);
            underside_points(&self.body, half)
                .into_iter()
                .for_each(|p| shortfall(p, SPRING_CLEARANCE));
            self.underside_below_hips()
                .for_each(|p| shortfall(p, SPRING_CLEARANCE));
            // And, to the guard's search margin, where the hard guard last
            // found the box nearest the shapes: a wall's top edge the body
            // rests on between its corners and hips. Unseen here, the spring
            // pulled the body onto the edge and the guard pushed it off, a
            // millimetre or two each step for good, and a climber that
            // buzzed there never counted as held still. (Kept the spring's
            // whole clearance off it, the octopod stopped at the ceiling's
            // lip: a body tips round an edge it rests close to.)
            if let Some(contact) = self.last_shapes_contact() {
                shortfall(contact, SHAPES_SEARCH_MARGIN);
            }
            for k in 1..=GUARD_HORIZONS {
                let time = GUARD_LOOKAHEAD * k as f32 / GUARD_HORIZONS as f32;
                let ahead = Body {
                    position: self.body.position + self.body.velocity * time,
                    ..self.body
                };
                underside_points(&ahead, half)
                    .into_iter()
                    .for_each(|p| shortfall(p, SPRING_CLEARANCE));
            }
        }
        let motion = &mut self.motion;
        let rate = spring_rate(
            Vec3::X * motion.lift_rate,
            Vec3::X * error,
            motion.height_error.map(|e| Vec3::X * e),
            HEIGHT_FREQUENCY,
            HEIGHT_ACCELERATION,
            dt,
        )
        .x;
        let max_rate = self.spec.body.max_height_rate;
        motion.lift_rate = rate.clamp(-max_rate, max_rate);
        motion.height_error = Some(error);
        // On open ground, rising for the ground under the body is rising off
        // it as the hard guard does (see `clearance_axis`): along a body
        // tilted up a slope it also pushed the body back down the slope it
        // climbs (an octopod lifted clear of a peak's tip rocked back and
        // forth on it).
        let axis = if !solid {
            let share = ((clearance_error - height_error) / SPRING_CLEARANCE).clamp(0.0, 1.0);
            up.lerp(clearance_way, share).normalize_or(up)
        } else {
            lift_axis
        };
        self.body.position += axis * (motion.lift_rate * dt);

        // Sway across the path toward the gait's target.
        let error = motion.sway_target - motion.sway;
        let rate = spring_rate(
            motion.sway_velocity,
            error,
            motion.sway_error,
            SWAY_FREQUENCY,
            SWAY_ACCELERATION,
            dt,
        );
        motion.sway_velocity = settled(rate - up * rate.dot(up));
        motion.sway_error = Some(error);
        // Brake a lean while it can still stop before a planted foot would
        // be pulled out of reach: look ahead by the distance it needs to
        // stop. Stopping it dead at the limit instead jolted the body (a
        // crawl's lean of 0.2 m/s halted in one step: 17 m/s²).
        self.strains_now(&mut scratch.strains);
        let speed = self.motion.sway_velocity.length();
        if speed > 0.0 {
            let stopping = self.motion.sway_velocity
                * (SWAY_BRAKING_MARGIN * speed / (2.0 * SWAY_ACCELERATION));
            if self.shift_room(stopping, &scratch.strains) < 1.0
                || !self.keeps_support(stopping, scratch)
            {
                let slower = (speed - SWAY_ACCELERATION * dt).max(0.0);
                self.motion.sway_velocity *= slower / speed;
            }
        }
        let mut shift = self.motion.sway_velocity * dt;
        // Leaning never pulls a planted foot out of reach.
        let room = self.shift_room(shift, &scratch.strains);
        if room < 1.0 {
            shift *= room;
            self.motion.sway_velocity = Vec3::ZERO;
        }
        self.motion.sway += shift;
        self.body.position += shift;

        let guarded = self.body;
        if !self.keep_body_above_ground(terrain) {
            // Tilted so the box fits nowhere between the faces about it
            // (pushed out of the floor into the ceiling): a five-legged
            // climber rolling onto a wall under a slab 0.8 m up went
            // 100 mm into the slab. It keeps the tilt it had instead.
            self.body = Body {
                orientation: untilted,
                ..guarded
            };
            self.motion.tilt_velocity = Vec3::ZERO;
            self.keep_body_above_ground(terrain);
        }
    }

    /// The feet's plane's `normal` (turned to agree with the body's `up`),
    /// or its opposite when the surfaces under the feet face the other way:
    /// a body on its back turns back onto its feet. Oriented by the up
    /// alone, a body that rolled past the face its feet stand on kept the
    /// rolled up for good: an octopod toppled backwards off the top of a
    /// thin wall walked on along the wall's face and down to the floor on
    /// its back, its knees 0.26 m in the floor. The surfaces' normals (at
    /// the reference feet the plane is through: a hanging foot's foothold)
    /// are looked up only when the plane is more than 60° off the up or the
    /// body's centre is behind the feet's: never while it stands over them;
    /// and at a wall's foot (feet on the floor behind and on the wall
    /// ahead, the body below the plane through them) floor and wall face
    /// the way the up does, so nothing changes.
    fn facing_off_the_feet(
        &self,
        terrain: &Ground<'_>,
        feet: &[Vec3],
        normal: Vec3,
        up: Vec3,
    ) -> Vec3 {
        if !terrain.has_shapes() || feet.len() < 3 {
            return normal;
        }
        let centre = feet.iter().sum::<Vec3>() / feet.len() as f32;
        if normal.dot(up) >= 0.5 && (self.body.position - centre).dot(up) >= 0.0 {
            return normal;
        }
        let facing: Vec3 = feet.iter().map(|&foot| terrain.normal_at(foot)).sum();
        if facing.dot(normal) < 0.0 {
            -normal
        } else {
            normal
        }
    }

    /// A climber whose legs ahead all hang (nothing ahead to climb onto)
    /// while its planted feet stand on faces turned well away from the
    /// plane through them, toward its heading, tilts halfway toward those
    /// faces' mean normal: over the edge. Up a wall 5 cm thick, front feet
    /// on its top in the plane of back feet on its face, the plane alone
    /// kept the body climbing on past the top into the air until it fell.
    fn over_the_edge_underfoot(&self, terrain: &Ground<'_>, target_up: Vec3) -> Vec3 {
        if self.spec.body.surface != super::Surface::Any || !terrain.has_shapes() {
            return target_up;
        }
        let mut ahead = self
            .legs
            .iter()
            .zip(&self.spec.legs)
            .filter(|(_, spec)| spec.rest.x > 0.0)
            .peekable();
        if ahead.peek().is_none() || !ahead.all(|(leg, _)| leg.hanging) {
            return target_up;
        }
        let faces: Vec3 = self
            .legs
            .iter()
            .filter(|leg| leg.is_grounded())
            .map(|leg| terrain.normal_at(leg.foot))
            .sum();
        let Some(faces) = faces.try_normalize() else {
            return target_up;
        };
        if faces.dot(target_up) >= FACES_AGREE || faces.dot(self.body.forward()) < FACES_AHEAD {
            return target_up;
        }
        (target_up + faces).normalize_or(target_up)
    }

    /// A climber whose nose nears a face ahead (the foot of a wall, a
    /// ceiling's end) rears up toward it: its target up turns toward the
    /// face's normal as the gap closes, at contact by the share of the face
    /// it meets head on (all of one square across its path). Feet ahead find
    /// the face on their own, but a creature with none there (legs only at
    /// its sides and tail) kept its feet on the floor, its up the floor's,
    /// and pressed its nose to the wall for good.
    fn rear_up_to_face(&self, terrain: &Ground<'_>, target_up: Vec3) -> Vec3 {
        if self.spec.body.surface != super::Surface::Any || !terrain.has_shapes() {
            return target_up;
        }
        let forward = self.body.forward();
        let half_length = 0.5 * self.spec.body.size.x;
        let look = self.spec.body.height;
        let look_from =
            |lift: Vec3| terrain.raycast(self.body.position + lift, forward, half_length + look);
        // From the middle of its front, else, once that holds it back (the
        // body making less than half its way), from its top edge: a face
        // whose foot stands clear of the floor (a block over a low gap)
        // meets the top of the nose and not its middle, and an octopod with
        // its middle under such a face pressed its top to it for good.
        // (Taking the nearer of the two whenever both hit reared climbers
        // early at the overhang's ceiling, and two long ones set a knee in
        // it; casting the second ray at every step the first misses cost
        // 1.6% of a spider-step among walls.)
        let held = self.motion.shortfall > 0.5;
        let Some(hit) = look_from(Vec3::ZERO).or_else(|| {
            held.then(|| look_from(self.body.up() * (0.5 * self.spec.body.size.y)))
                .flatten()
        }) else {
            return target_up;
        };
        let normal = terrain.normal_at(hit.point);
        let head_on = -normal.dot(forward);
        if head_on <= 0.0 {
            return target_up;
        }
        let closeness = (1.0 - (hit.distance - half_length) / look).clamp(0.0, 1.0);
        let share = closeness * head_on;
        target_up
            .lerp(normal, share)
            .try_normalize()
            .unwrap_or(target_up)
    }

    /// How far the body may tilt from world up (radians), if anything
    /// bounds it: a ground walker's `max_slope`; a climber on open ground,
    /// where every surface faces up, a right angle (on a sharp peak its
    /// feet's plane could turn over, and it walked upside down above the
    /// ground); nothing for a climber among walls and ceilings.
    fn steepest_tilt(&self, terrain: &Ground<'_>) -> Option<f32> {
        match self.spec.body.surface {
            super::Surface::Ground => Some(self.spec.body.max_slope),
            super::Surface::Any if !terrain.has_shapes() => Some(std::f32::consts::FRAC_PI_2),
            super::Surface::Any => None,
        }
    }

    /// A hard guard under the springs: no point of the body box goes below
    /// the ground (a bump taller than the ride height, met at speed; a flank
    /// steeper than the body's tilt; a crest between its hips), nor its
    /// centre within half its height of it. The box is moved off the ground
    /// at its nearest point (see [`clearance_axis`]), then straight up for
    /// what is left, then the centre lifted straight up if it needs to be.
    ///
    /// False when, among shapes, the pushes leave a point of the box in
    /// the solid (see [`keep_body_clear`](Self::keep_body_clear)).
    pub(super) fn keep_body_above_ground(&mut self, terrain: &Ground<'_>) -> bool {
        if terrain.has_shapes() {
            return self.keep_body_clear(terrain);
        }
        let half = self.spec.body.size * 0.5;
        let orientation = self.body.orientation;
        // The whole box, exactly: every corner (a body tilted less than the
        // slope beside it meets it with a top corner), and every point
        // between (a long body rests on a crest between its hips).
        let mut gap =
            terrain.box_ground_gap(self.body.position, orientation, half, SPRING_CLEARANCE);
        let mut moved = false;
        for attempt in 0..3 {
            let short = BODY_CLEARANCE - gap.gap;
            // Clear, or a NaN gap (a NaN body, which nothing here mends).
            if short <= 0.0 || short.is_nan() {
                break;
            }
            // Off the ground at its nearest point (a move across it may
            // bring the box to another flank: tried twice), then straight
            // up, which raises every point alike and so always clears it.
            let (axis, per_metre) = if attempt < 2 {
                clearance_axis(terrain, gap.at, self.body.up())
            } else {
                (Vec3::Y, 1.0)
            };
            self.body.position += axis * (short / per_metre);
            gap = terrain.box_ground_gap(self.body.position, orientation, half, SPRING_CLEARANCE);
            moved = true;
        }
        let centre = self.body.position;
        let centre_margin = half.y.min(self.spec.body.height) * 0.5;
        let lift = terrain.height(centre.x, centre.z) + centre_margin - centre.y;
        if lift > 0.0 {
            self.body.position.y += lift;
            gap.gap += lift;
            gap.at.y += lift;
            moved = true;
        }
        self.set_ground_under_body(gap, None, None);
        if moved {
            // The spring must not pull it back down at once.
            self.motion.lift_rate = self.motion.lift_rate.max(0.0);
        }
        // Straight up always clears open ground.
        true
    }

    /// The hard guard in a solid world: no corner of the body box, no point
    /// of its underside below a hip, not its points nearest the noise ground
    /// and nearest the shapes, and not its centre, comes nearer any
    /// surface (floor, wall or ceiling) than
    /// [`BODY_CLEARANCE`]; the deepest is pushed out along its surface's
    /// normal, a few times over for corners against two faces at once.
    /// False when those pushes leave a corner of the box, or its point
    /// nearest the shapes, deeper in the solid than [`UNFIT_DEPTH`]:
    /// pushed out of one face into another.
    fn keep_body_clear(&mut self, terrain: &Ground<'_>) -> bool {
        let half = self.spec.body.size * 0.5;
        let centre_margin = half.y.min(self.spec.body.height) * 0.5;
        // A ground walker's centre goes through a doorway carved in a wall
        // (see below). A climber's keeps off the bound as before: rounding
        // a room's doorway, nearer its edges, a spider had no foot down for
        // 0.9 s and an octopod cut a bone 15 mm into the lintel.
        let exact_centre = self.spec.body.surface == Surface::Ground;
        for _ in 0..3 {
            let mut worst: Option<(f32, Vec3)> = None;
            // The least distance of the box's points (not its centre, held
            // to its own margin): the metrics' body clearance, when clear.
            let mut least = f32::INFINITY;
            let mut consider = |p: Vec3, margin: f32, on_box: bool| {
                let distance = terrain.signed_distance(p);
                if on_box {
                    least = crate::math::min_or_nan(least, distance);
                }
                let short = margin - distance;
                // The centre's distance past a carve may be the carve's
                // bound alone (see `Ground::carved_bound_only`); the box's
                // own points keep the bound, which errs away from the solid.
                if short > 0.0
                    && worst.is_none_or(|(w, _)| short > w)
                    && (on_box || !exact_centre || !terrain.carved_bound_only(p, distance))
                {
                    worst = Some((short, p));
                }
            };
            // The points of the box nearest the noise ground (a crest
            // between the corners) and nearest the shapes (a wall's top edge
            // under the body between its hips), seen in the whole world (the
            // ground's may be carved away, or inside a shape).
            let (ground_gap, nearest) = self.body_box_gaps(terrain);
            consider(ground_gap.at, BODY_CLEARANCE, true);
            if let Some(nearest) = nearest {
                consider(nearest.at, BODY_CLEARANCE, true);
            }
            consider(self.body.position, centre_margin, false);
            for corner in body_corners(&self.body, half) {
                consider(corner, BODY_CLEARANCE, true);
            }
            for point in self.underside_below_hips() {
                consider(point, BODY_CLEARANCE, true);
            }
            let Some((short, at)) = worst else {
                self.set_ground_under_body(ground_gap, nearest, Some(least));
                return true;
            };
            let normal = terrain.normal_at(at);
            self.body.position += normal * short;
            // The spring must not pull it straight back.
            if normal.dot(self.body.up()) > 0.0 {
                self.motion.lift_rate = self.motion.lift_rate.max(0.0);
            }
        }
        let (_, nearest) = self.body_box_gaps(terrain);
        let half = self.spec.body.size * 0.5;
        body_corners(&self.body, half)
            .into_iter()
            .chain(nearest.map(|n| n.at))
            .all(|p| terrain.signed_distance(p) >= -UNFIT_DEPTH)
    }
}

impl Creature {
    /// The body box's point nearest the noise ground (exact below the
    /// height spring's clearance, see [`Ground::box_ground_gap`]) and,
    /// among shapes, its point nearest them when within twice the hard
    /// guard's clearance ([`Ground::box_shapes_nearest`]): what the guard
    /// keeps clear and the metrics measure.
    pub(crate) fn body_box_gaps(&self, terrain: &Ground<'_>) -> (BoxGap, Option<BoxGap>) {
        let (body, half) = (&self.body, self.spec.body.size * 0.5);
        (
            terrain.box_ground_gap(body.position, body.orientation, half, SPRING_CLEARANCE),
            terrain.box_shapes_nearest(body.position, body.orientation, half, SHAPES_SEARCH_MARGIN),
        )
    }
}

/// The way a body whose up is `up` moves off open ground at `at`, where it
/// is nearest it, and how much a metre that way raises the body over the
/// ground there: straight up for a body standing up (straight up raises
/// every point of it alike), along the ground's normal for one on its
/// side, tilted past 60–80° (rising straight up from a flank at its side, a
/// climber climbed it a guard's lift at a time, its legs hanging), between
/// the two in between. (Along the normal for upright bodies too, the rough
/// ground's cell-to-cell normals shoved them sideways at 30 m/s², and a
/// centipede on 6 m ridges crept at half its speed.)
fn clearance_axis(terrain: &Ground<'_>, at: Vec3, up: Vec3) -> (Vec3, f32) {
    let on_side = ((STANDING_UP - up.y) / 0.3).clamp(0.0, 1.0);
    if on_side == 0.0 {
        return (Vec3::Y, 1.0);
    }
    // The normal of the one grid cell the exact box gap measured against.
    let normal = slope_normal(terrain.height_and_slope(at.x, at.z).1);
    let axis = Vec3::Y.lerp(normal, on_side).normalize_or(Vec3::Y);
    // On the ground's plane a move `v` raises the body over it by
    // v·normal / normal.y.
    (axis, axis.dot(normal) / normal.y.max(1e-3))
}

/// The eight corners of a body box of half-extents `half`, world frame.
pub fn body_corners(body: &Body, half: Vec3) -> [Vec3; 8] {
    std::array::from_fn(|k| {
        let sign = |bit: usize| if k & bit == 0 { 1.0 } else { -1.0 };
        body.to_world(Vec3::new(
            sign(1) * half.x,
            sign(2) * half.y,
            sign(4) * half.z,
        ))
    })
}

/// `v` (unit), turned toward `axis` (unit) just enough to lie within
/// `angle` radians of it.
fn within_cone(v: Vec3, axis: Vec3, angle: f32) -> Vec3 {
    // Inside by the cosine (no arc cosine for the usual case, well inside).
    let cos = v.dot(axis) / (v.length() * axis.length());
    if cos.is_nan() || cos >= angle.cos() {
        return v;
    }
    // The direction away from the axis in their plane (any, if opposite).
    let across = (v - axis * v.dot(axis))
        .try_normalize()
        .unwrap_or_else(|| axis.any_orthonormal_vector());
    axis * angle.cos() + across * angle.sin()
}
