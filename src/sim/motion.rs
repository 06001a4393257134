//! How the motion looks, measured: accelerations, tilt rates, foot speeds,
//! static stability, and legs crossing each other or the body.
//!
//! Each creature's previous steps are remembered in its own frame; when the
//! creature moves its frame ([`Creature::rebase`]) the memory is shifted by
//! the same whole cells, so no figure sees a jump that did not happen.

use glam::{Vec2, Vec3};
use smallvec::SmallVec;

use crate::creature::{Creature, LegPhase, legs_cross, support_margin};
use crate::geometry::ConvexHull;
use crate::math::{max_or_nan, min_or_nan};
use crate::terrain::GridOrigin;

/// What one creature looked like in the previous steps: kept beside the
/// creature (see [`super::CreatureTrack`]), so creatures can be measured in
/// parallel chunks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MotionMemory {
    /// Steps remembered (0, 1 or 2); a reset forgets them.
    depth: u8,
    origin: GridOrigin,
    /// Body centre one and two steps ago.
    body: [Vec3; 2],
    up: Vec3,
    /// Inline for the common leg counts: a swarm holds one memory a
    /// creature, and two heap buffers each were 96 bytes of a spider's.
    ends: SmallVec<[Vec3; 4]>,
    grounded: SmallVec<[bool; 16]>,
}

impl MotionMemory {
    /// Forgets the previous steps (after a teleport such as a reset, whose
    /// jump is not motion).
    pub fn forget(&mut self) {
        self.depth = 0;
    }
}

/// The motion figures of a run (maxima and counts over every creature).
#[derive(Debug, Clone, PartialEq)]
pub struct MotionFigures {
    /// Largest body acceleration (second difference of the body centre), m/s².
    pub body_accel_max: f32,
    /// Fastest the body's up direction turned, degrees/s.
    pub tilt_rate_max: f32,
    /// Fastest any chain end moved in one step, m/s.
    pub foot_speed_max: f32,
    /// Fastest a foot was moving over the step it touched down in, m/s.
    pub touchdown_speed_max: f32,
    /// Smallest static stability margin (metres; negative: the body's centre
    /// was outside its support polygon), over steps with 3+ feet planted;
    /// infinite while no such step was seen.
    pub stability_margin_min: f32,
    /// Creature-steps with 3+ feet planted.
    pub supported_steps: u64,
    /// Of those, steps with a negative stability margin.
    pub unstable_steps: u64,
    /// Creature-steps in which two legs came within 1 cm of each other.
    pub leg_crossings: u64,
    /// Creature-steps in which a leg passed through the body box.
    pub leg_body_intersections: u64,
    hull: ConvexHull,
    projected: Vec<Vec2>,
}

impl Default for MotionFigures {
    fn default() -> Self {
        MotionFigures::new()
    }
}

impl MotionFigures {
    /// Empty figures.
    pub fn new() -> Self {
        MotionFigures {
            body_accel_max: 0.0,
            tilt_rate_max: 0.0,
            foot_speed_max: 0.0,
            touchdown_speed_max: 0.0,
            stability_margin_min: f32::INFINITY,
            supported_steps: 0,
            unstable_steps: 0,
            leg_crossings: 0,
            leg_body_intersections: 0,
            hull: ConvexHull::default(),
            projected: Vec::new(),
        }
    }

    /// Fraction of supported steps (3+ feet down) that were statically
    /// unstable; 0 when there were none.
    pub fn unstable_fraction(&self) -> f64 {
        unstable_share(self.unstable_steps, self.supported_steps)
    }

    /// Forgets the figures, keeping the scratch storage.
    pub fn clear(&mut self) {
        let hull = std::mem::take(&mut self.hull);
        let projected = std::mem::take(&mut self.projected);
        *self = MotionFigures {
            hull,
            projected,
            ..MotionFigures::new()
        };
    }

    /// Adds another tally's figures (a chunk of creatures measured apart):
    /// maxima, minima and counts, so the order of merging does not matter.
    pub fn merge(&mut self, other: &MotionFigures) {
        self.body_accel_max = max_or_nan(self.body_accel_max, other.body_accel_max);
        self.tilt_rate_max = max_or_nan(self.tilt_rate_max, other.tilt_rate_max);
        self.foot_speed_max = max_or_nan(self.foot_speed_max, other.foot_speed_max);
        self.touchdown_speed_max = max_or_nan(self.touchdown_speed_max, other.touchdown_speed_max);
        self.stability_margin_min =
            min_or_nan(self.stability_margin_min, other.stability_margin_min);
        self.supported_steps += other.supported_steps;
        self.unstable_steps += other.unstable_steps;
        self.leg_crossings += other.leg_crossings;
        self.leg_body_intersections += other.leg_body_intersections;
    }

    /// Records a creature after a step of `dt` seconds on a terrain of grid
    /// `spacing`, against its `memory` of the previous steps: what this
    /// step's figures were for it alone (for the live display of the
    /// followed creature).
    pub fn observe(
        &mut self,
        creature: &Creature,
        memory: &mut MotionMemory,
        dt: f32,
        spacing: f32,
    ) -> CreatureMotion {
        let mut own = CreatureMotion::default();
        let body = &creature.body;
        // The leg solve checked each final pose against the body box.
        if creature.legs.iter().any(|leg| leg.enters_body) {
            self.leg_body_intersections += 1;
        }
        if legs_cross(&creature.legs, creature.leg_gaps()) {
            self.leg_crossings += 1;
        }
        let margin = stability_margin(creature, &mut self.hull, &mut self.projected);
        if let Some(margin) = margin {
            self.supported_steps += 1;
            self.unstable_steps += u64::from(margin < 0.0);
            self.stability_margin_min = min_or_nan(self.stability_margin_min, margin);
        }
        own.margin = margin;

        if memory.depth > 0 {
            // The creature's frame may have moved by whole cells since.
            let origin = creature.origin();
            let shift = Vec3::new(
                (origin.x - memory.origin.x) as f32 * spacing,
                0.0,
                (origin.z - memory.origin.z) as f32 * spacing,
            );
            memory.body[0] -= shift;
            memory.body[1] -= shift;
            for end in &mut memory.ends {
                *end -= shift;
            }
            let rate = |distance: f32| distance / dt;
            let up = body.up();
            let tilt = rate(up.angle_between(memory.up).to_degrees());
            self.tilt_rate_max = max_or_nan(self.tilt_rate_max, tilt);
            own.tilt_rate = Some(tilt);
            if memory.depth > 1 {
                let accel =
                    (body.position - 2.0 * memory.body[0] + memory.body[1]).length() / (dt * dt);
                self.body_accel_max = max_or_nan(self.body_accel_max, accel);
                own.body_accel = Some(accel);
            }
            for ((leg, end), grounded) in
                creature.legs.iter().zip(&memory.ends).zip(&memory.grounded)
            {
                let speed = rate(leg.chain.end().distance(*end));
                self.foot_speed_max = max_or_nan(self.foot_speed_max, speed);
                if !grounded && matches!(leg.phase, LegPhase::Grounded) {
                    self.touchdown_speed_max = max_or_nan(self.touchdown_speed_max, speed);
                }
            }
        }
        memory.depth = (memory.depth + 1).min(2);
        memory.origin = creature.origin();
        memory.body[1] = memory.body[0];
        memory.body[0] = body.position;
        memory.up = body.up();
        // A creature keeps its legs: after the first step this overwrites
        // in place (the inline vectors' `extend` cost more than the copy).
        let legs = creature.legs.len();
        memory.ends.resize(legs, Vec3::ZERO);
        memory.grounded.resize(legs, false);
        for ((leg, end), grounded) in creature
            .legs
            .iter()
            .zip(&mut memory.ends)
            .zip(&mut memory.grounded)
        {
            *end = leg.chain.end();
            *grounded = leg.is_grounded();
        }
        own
    }
}

/// One creature's motion figures in one step (see
/// [`MotionFigures::observe`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CreatureMotion {
    /// Its stability margin, with three or more feet down.
    pub margin: Option<f32>,
    /// Its body's acceleration (m/s²), once it has two steps behind it.
    pub body_accel: Option<f32>,
    /// How fast its body tilted (degrees a second), once it has a step
    /// behind it.
    pub tilt_rate: Option<f32>,
}

/// `creature`'s stability margin (metres, positive inside): how far inside
/// the support polygon of its planted feet (where they stand, not where
/// they were put) its body's centre stands, with three or more down.
/// `hull` and `projected` lend the storage.
pub fn stability_margin(
    creature: &Creature,
    hull: &mut ConvexHull,
    projected: &mut Vec<Vec2>,
) -> Option<f32> {
    let body = &creature.body;
    support_margin(
        body.position,
        body.up(),
        creature.support_points(
            creature
                .legs
                .iter()
                .filter(|leg| leg.is_grounded())
                .map(|leg| leg.chain.end()),
        ),
        hull,
        projected,
    )
}

/// The share of `supported` steps that were `unstable`; 0 with none.
pub(super) fn unstable_share(unstable: u64, supported: u64) -> f64 {
    if supported == 0 {
        0.0
    } else {
        unstable as f64 / supported as f64
    }
}
