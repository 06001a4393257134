//! The simulation's own quality figures: one struct read by the stats panel,
//! the headless summary, the tests and the benchmarks.

use crate::math::{max_or_nan, min_or_nan};
use glam::{Vec2, Vec3};
use serde::Serialize;

use super::motion::{CreatureMotion, MotionFigures, MotionMemory, unstable_share};
use crate::creature::{Creature, StepEvents};
use crate::terrain::Heightfield;

/// Counts of positive values on a log scale, for percentiles without keeping
/// every sample (a 1000-creature run makes tens of millions of IK solves).
#[derive(Debug, Clone, PartialEq)]
pub struct LogHistogram {
    counts: Vec<u64>,
    total: u64,
}

/// Smallest value with a bin of its own; anything at or below shares bin 0.
const HISTOGRAM_FLOOR: f32 = 1e-9;
/// Bins per factor of ten: 2.9% wide, so a percentile is known to within 3%.
const BINS_PER_DECADE: f32 = 80.0;
/// Decades covered above the floor (1e-9 to 1e3).
const DECADES: usize = 12;

/// Bins in all: the floor's, one per step over the decades, and the top.
const BINS: usize = DECADES * BINS_PER_DECADE as usize + 2;

impl Default for LogHistogram {
    fn default() -> Self {
        LogHistogram {
            counts: vec![0; BINS],
            total: 0,
        }
    }
}

impl LogHistogram {
    /// Counts one value (NaN and negatives count as the floor).
    pub fn add(&mut self, value: f32) {
        self.add_bin(LogHistogram::bin(value));
    }

    /// The bin a value is counted in (NaN and negatives: the floor's).
    pub fn bin(value: f32) -> u16 {
        if value > HISTOGRAM_FLOOR {
            let position = (value / HISTOGRAM_FLOOR).log10() * BINS_PER_DECADE;
            (position.ceil() as usize).min(BINS - 1) as u16
        } else {
            0
        }
    }

    /// Counts one value already put in its bin ([`LogHistogram::bin`]).
    pub fn add_bin(&mut self, bin: u16) {
        if self.counts.is_empty() {
            self.counts = vec![0; BINS];
        }
        self.counts[usize::from(bin).min(BINS - 1)] += 1;
        self.total += 1;
    }

    /// The value below which a fraction `q` of the counted values lie (the
    /// upper edge of its bin), or 0 when nothing was counted.
    pub fn quantile(&self, q: f64) -> f32 {
        if self.total == 0 {
            return 0.0;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (bin, count) in self.counts.iter().enumerate() {
            seen += count;
            if seen >= rank {
                return HISTOGRAM_FLOOR * 10f32.powf(bin as f32 / BINS_PER_DECADE);
            }
        }
        HISTOGRAM_FLOOR * 10f32.powf(DECADES as f32)
    }

    /// Values counted.
    pub fn len(&self) -> u64 {
        self.total
    }

    /// Whether nothing was counted.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// A histogram with no bins yet (they are made by the first value):
    /// what a chunk's tally holds, since it only lists its step's bins.
    fn unallocated() -> Self {
        LogHistogram {
            counts: Vec::new(),
            total: 0,
        }
    }
}

/// What the metrics remember of one creature between steps: its path length
/// and its previous poses. Kept beside the creature rather than inside
/// [`Metrics`], so chunks of creatures can be measured in parallel.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CreatureTrack {
    /// Path length of the body so far, metres.
    pub odometer: f64,
    /// The previous steps, for rates and accelerations.
    pub(super) motion: MotionMemory,
}

impl CreatureTrack {
    /// Forgets the previous poses (after a teleport such as a reset), keeping
    /// the path length.
    pub fn forget(&mut self) {
        self.motion.forget();
    }
}

/// The extremes of the figures a tally will be merged into, which bound
/// what is worth looking up (see [`Metrics::clear_tally`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Bounds {
    foot_gap_max: f32,
    penetration_max: f32,
    joint_clearance_min: f32,
}

/// Figures accumulated over a run, plus the latest step's, per world.
#[derive(Debug, Clone, PartialEq)]
pub struct Metrics {
    /// Steps taken.
    pub steps: u64,
    /// Feet that touched down.
    pub foot_steps: u64,
    /// Creature-steps in which lifted legs broke the gait rule.
    pub gait_violations: u64,
    /// Most legs of one creature in the air at once.
    pub max_lifted_seen: usize,
    /// Largest movement of a grounded leg's chain end from where it was planted.
    pub foot_slip_max: f32,
    /// Largest distance of a grounded foot (chain end) from the surface.
    pub foot_gap_max: f32,
    /// Longest time (seconds) a creature had no foot planted.
    pub footless_max: f32,
    /// Deepest any joint went below the surface.
    pub penetration_max: f32,
    /// Smallest distance from the body box (its corners, its centre and
    /// its underside below each hip) to the surface; negative: inside the
    /// solid.
    pub body_clearance_min: f32,
    /// Smallest distance from a leg's inner joints (knees: not the hip, not
    /// the foot) to the surface; negative: inside the solid.
    pub joint_clearance_min: f32,
    /// In a world with shapes, smallest distance from a leg's bones
    /// (sampled along them) to the surface; negative: a bone passes
    /// through the solid, its joints out of it. Infinite on open ground,
    /// where it is not measured.
    pub bone_clearance_min: f32,
    /// Creature-seconds with the body's up more than 60° from world up but
    /// not pointing down past −60° (on a wall).
    pub wall_time: f64,
    /// Creature-seconds with the body's up pointing down past −60° (on a
    /// ceiling).
    pub ceiling_time: f64,
    /// Largest IK error.
    pub ik_error_max: f32,
    /// Distribution of IK errors.
    pub ik_errors: LogHistogram,
    /// IK iterations summed over all solves.
    pub ik_iterations: u64,
    /// IK solves.
    pub ik_solves: u64,
    /// Largest bone-length change.
    pub bone_error_max: f32,
    /// Lowest body height above the surface.
    pub body_height_min: f32,
    body_height_sum: f64,
    body_height_samples: u64,
    /// Largest angle between body up and the normal of the surface under
    /// it (degrees): among shapes the first one straight below it, for a
    /// climber along its own down.
    pub tilt_error_max_deg: f32,
    /// Non-finite values seen in poses and IK results.
    pub nan_count: u64,
    /// Leg solves whose bone lengths the simulation had to repair.
    pub ik_repairs: u64,
    /// How the motion looks: accelerations, rates, stability, crossings.
    pub motion: MotionFigures,
    /// The followed creature in the latest step, for live display (the
    /// default in a kind's metrics when another kind holds it).
    pub last: StepFigures,
    /// The histogram bins of this step's IK errors, for a chunk's tally to
    /// hand on: merging them costs one count per solve, where merging
    /// whole histograms would cost every bin per chunk per step.
    step_error_bins: Vec<u16>,
}

/// The followed creature's figures in the latest step, for live display
/// (the stats panel's maxima since it was followed, its sparklines).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepFigures {
    /// Mean IK iterations of its legs' solves.
    pub ik_iterations_mean: f32,
    /// Largest IK error among its legs.
    pub ik_error_max: f32,
    /// Largest distance a planted foot of its moved from where it was put
    /// down (0 with none planted).
    pub foot_slip_max: f32,
    /// Whether its lifted legs broke the gait rule.
    pub gait_violation: bool,
    /// Its margin, body acceleration and tilt rate.
    pub motion: CreatureMotion,
}

impl StepFigures {
    /// What `creature`'s state holds of them: its legs' solves and its
    /// planted feet's slip (not the motion figures, which need its past).
    pub fn of(creature: &Creature) -> StepFigures {
        let legs = &creature.legs;
        let iterations: u32 = legs.iter().map(|leg| leg.report.iterations).sum();
        let mut figures = StepFigures {
            ik_iterations_mean: iterations as f32 / legs.len().max(1) as f32,
            ..StepFigures::default()
        };
        for leg in legs {
            figures.ik_error_max = max_or_nan(figures.ik_error_max, leg.report.error);
            if let (true, Some(planted)) = (leg.is_grounded(), leg.planted_end) {
                figures.foot_slip_max =
                    max_or_nan(figures.foot_slip_max, leg.chain.end().distance(planted));
            }
        }
        figures
    }
}

/// The followed creature's figures over the steps since it was followed
/// (the stats panel's maxima, its share of unstable steps): what the
/// run's figures are for the whole world, for the creature being watched.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FollowedRecord {
    /// Steps recorded.
    pub steps: u64,
    /// Largest distance a planted foot moved from where it was put down.
    pub foot_slip_max: f32,
    /// Largest IK error.
    pub ik_error_max: f32,
    /// Largest body acceleration (m/s²).
    pub body_accel_max: f32,
    /// Largest body tilt rate (degrees a second).
    pub tilt_rate_max: f32,
    /// Steps in which its lifted legs broke the gait rule.
    pub gait_violations: u64,
    /// Steps with three or more feet down.
    pub supported_steps: u64,
    /// Of those, steps with a negative stability margin.
    pub unstable_steps: u64,
}

impl FollowedRecord {
    /// Adds one step's figures of the creature.
    pub fn add(&mut self, step: &StepFigures) {
        self.steps += 1;
        self.foot_slip_max = max_or_nan(self.foot_slip_max, step.foot_slip_max);
        self.ik_error_max = max_or_nan(self.ik_error_max, step.ik_error_max);
        if let Some(accel) = step.motion.body_accel {
            self.body_accel_max = max_or_nan(self.body_accel_max, accel);
        }
        if let Some(rate) = step.motion.tilt_rate {
            self.tilt_rate_max = max_or_nan(self.tilt_rate_max, rate);
        }
        self.gait_violations += u64::from(step.gait_violation);
        if let Some(margin) = step.motion.margin {
            self.supported_steps += 1;
            self.unstable_steps += u64::from(margin < 0.0);
        }
    }

    /// Share of the supported steps that were statically unstable; 0 when
    /// there were none.
    pub fn unstable_fraction(&self) -> f64 {
        unstable_share(self.unstable_steps, self.supported_steps)
    }
}

impl Metrics {
    /// Empty metrics.
    pub fn new() -> Self {
        Metrics::with_parts(LogHistogram::default(), MotionFigures::new())
    }

    /// Empty metrics around a histogram and motion figures (already empty).
    fn with_parts(ik_errors: LogHistogram, motion: MotionFigures) -> Self {
        Metrics {
            steps: 0,
            foot_steps: 0,
            gait_violations: 0,
            max_lifted_seen: 0,
            foot_slip_max: 0.0,
            foot_gap_max: 0.0,
            footless_max: 0.0,
            penetration_max: 0.0,
            body_clearance_min: f32::INFINITY,
            joint_clearance_min: f32::INFINITY,
            bone_clearance_min: f32::INFINITY,
            wall_time: 0.0,
            ceiling_time: 0.0,
            ik_error_max: 0.0,
            ik_errors,
            ik_iterations: 0,
            ik_solves: 0,
            bone_error_max: 0.0,
            body_height_min: f32::INFINITY,
            body_height_sum: 0.0,
            body_height_samples: 0,
            tilt_error_max_deg: 0.0,
            nan_count: 0,
            ik_repairs: 0,
            motion,
            last: StepFigures::default(),
            step_error_bins: Vec::new(),
        }
    }

    /// Mean body height above the surface over the run.
    pub fn body_height_mean(&self) -> f32 {
        if self.body_height_samples == 0 {
            0.0
        } else {
            (self.body_height_sum / self.body_height_samples as f64) as f32
        }
    }

    /// Mean IK iterations per solve over the run.
    pub fn ik_iterations_mean(&self) -> f32 {
        if self.ik_solves == 0 {
            0.0
        } else {
            self.ik_iterations as f32 / self.ik_solves as f32
        }
    }

    /// Records one creature's state after a step of `dt` seconds, against
    /// what its `track` remembers of the previous steps. `first` marks the
    /// creature whose figures the live display shows (it also starts a new
    /// step's live figures).
    pub fn observe(
        &mut self,
        first: bool,
        creature: &Creature,
        track: &mut CreatureTrack,
        events: &StepEvents,
        terrain: &Heightfield,
        dt: f32,
    ) {
        let motion = self
            .motion
            .observe(creature, &mut track.motion, dt, terrain.spacing());
        let terrain = &terrain.at(creature.origin());
        self.foot_steps += u64::from(events.touchdowns);
        self.gait_violations += u64::from(events.gait_violation);
        self.ik_repairs += u64::from(events.ik_repairs);
        self.max_lifted_seen = self.max_lifted_seen.max(events.lifted);
        self.footless_max = max_or_nan(self.footless_max, events.footless_for);
        track.odometer += f64::from(events.travelled);

        let body = &creature.body;
        if !(body.position.is_finite() && body.orientation.is_finite()) {
            self.nan_count += 1;
        }
        let (height, normal) = terrain.distance_and_normal(body.position);
        // Walls and ceilings: where the body's up points.
        let upright = body.up().y;
        if upright < -0.5 {
            self.ceiling_time += f64::from(dt);
        } else if upright < 0.5 {
            self.wall_time += f64::from(dt);
        }
        let half = creature.spec().body.size * 0.5;
        let mut body_clearance = height;
        let solid = terrain.has_shapes();
        // The point of the box nearest the noise ground, found exactly: the
        // ground guard's, when it found it for this pose, else found again.
        // And the point nearest the shapes, when one comes within twice the
        // guard's clearance (exact below that).
        let under = creature.ground_under_body();
        let guard_clearance = under
            .and_then(|under| under.solid_clearance)
            .and_then(|(y, least)| (y == body.position.y).then_some(least));
        let (ground_gap, ground_point, shapes_point) = match under {
            Some(under) => (
                body.position.y + under.gap_below,
                body.position + under.offset,
                under.shapes_offset.map(|offset| body.position + offset),
            ),
            None => {
                let (gap, nearest) = creature.body_box_gaps(terrain);
                (gap.gap, gap.at, nearest.map(|n| n.at))
            }
        };
        if let Some(least) = guard_clearance {
            // The guard's own look-ups at these points, for this pose.
            body_clearance = min_or_nan(body_clearance, least);
        } else if solid {
            // Among shapes, the distance field at those points (the ground's
            // may be carved away), at the corners and under the hips.
            body_clearance = min_or_nan(body_clearance, terrain.signed_distance(ground_point));
            if let Some(point) = shapes_point {
                body_clearance = min_or_nan(body_clearance, terrain.signed_distance(point));
            }
            for point in crate::creature::body_corners(body, half)
                .into_iter()
                .chain(creature.underside_below_hips())
            {
                body_clearance = min_or_nan(body_clearance, terrain.signed_distance(point));
            }
        } else {
            // The vertical gap on the ground's normal there.
            let (_, slope) = terrain.height_and_slope(ground_point.x, ground_point.z);
            let across = ground_gap * crate::terrain::slope_normal(slope).y;
            body_clearance = min_or_nan(body_clearance, across);
        }
        self.body_clearance_min = min_or_nan(self.body_clearance_min, body_clearance);
        self.body_height_min = min_or_nan(self.body_height_min, height);
        self.body_height_sum += f64::from(height);
        self.body_height_samples += 1;
        // The surface the body stands over: on open ground the ground
        // under it; among shapes the first surface straight below it, or
        // for a climber along its own down (the nearest surface to a
        // walker beside a wall is the wall, and read 90° for a body
        // standing level; along its own down, a walker fallen on its side
        // against a wall would read 0°). Over nothing within reach, the
        // nearest surface.
        let under_normal = if solid {
            let down = if creature.spec().body.surface == crate::creature::Surface::Any {
                -body.up()
            } else {
                Vec3::NEG_Y
            };
            terrain
                .raycast(body.position, down, 2.0 * creature.spec().max_reach())
                .map_or(normal, |hit| terrain.normal_at(hit.point))
        } else {
            normal
        };
        let tilt = body.up().angle_between(under_normal).to_degrees();
        self.tilt_error_max_deg = max_or_nan(self.tilt_error_max_deg, tilt);

        // On open ground, one floor under the normal's y for every knee of
        // the creature (see below), over the rectangle holding them.
        let knee_floor = if terrain.has_shapes() {
            0.0
        } else {
            let (mut lo, mut hi) = (Vec2::INFINITY, Vec2::NEG_INFINITY);
            for leg in &creature.legs {
                let joints = leg.chain.joints();
                for knee in joints.iter().take(joints.len() - 1).skip(1) {
                    lo = lo.min(Vec2::new(knee.x, knee.z));
                    hi = hi.max(Vec2::new(knee.x, knee.z));
                }
            }
            if lo.x <= hi.x && lo.y <= hi.y {
                terrain.normal_y_floor(lo, hi)
            } else {
                0.0
            }
        };
        // On open ground, a box clear of the ground below every point of
        // it holds clear every hip mounted on it or inside it: looked up,
        // none would be deeper than anything (the box's gap is exact or a
        // bound under it; the margin is for the hips' rounding).
        let box_clear = !solid && ground_gap > HIPS_CLEAR_GAP;
        let mut iterations = 0u64;
        for (leg, leg_spec) in creature.legs.iter().zip(&creature.spec().legs) {
            let hip_clear = box_clear && leg_spec.mount.abs().cmple(half).all();
            let report = &leg.report;
            if !report.error.is_finite() {
                self.nan_count += 1;
            }
            iterations += u64::from(report.iterations);
            self.ik_error_max = max_or_nan(self.ik_error_max, report.error);
            self.step_error_bins.push(LogHistogram::bin(report.error));
            self.bone_error_max = max_or_nan(self.bone_error_max, leg.bone_error);
            // The ground under the last joint (the foot), for the gap below.
            let mut ground_under_end = f32::NAN;
            let joints = leg.chain.joints();
            let solid = terrain.has_shapes();
            let knees_settled = !solid
                && knees_change_nothing(
                    leg.knee_gap,
                    knee_floor,
                    self.penetration_max,
                    self.joint_clearance_min,
                );
            for (k, joint) in joints.iter().enumerate() {
                if !joint.is_finite() {
                    self.nan_count += 1;
                    self.penetration_max = f32::NAN;
                    continue;
                }
                let inner = k > 0 && k + 1 < joints.len();
                if inner && knees_settled || k == 0 && hip_clear {
                    continue;
                }
                if solid {
                    // Walls and ceilings: the distance field itself. The
                    // knees' the leg's solve measured; the hip is on the
                    // body, whose clearance is measured above.
                    let d = if inner {
                        leg.knee_clearance
                    } else if k == 0 {
                        continue;
                    } else {
                        terrain.signed_distance(*joint)
                    };
                    ground_under_end = d;
                    self.penetration_max = max_or_nan(self.penetration_max, -d);
                    if inner {
                        self.joint_clearance_min = min_or_nan(self.joint_clearance_min, d);
                    }
                    continue;
                }
                let ground = terrain.height(joint.x, joint.z);
                ground_under_end = ground;
                let below = ground - joint.y;
                // The depth is the vertical depth times the normal's y, never
                // more: only a vertical depth beyond the current maximum can
                // raise it, so only then is the normal worth its lookups. A
                // knee's distance is its height times the normal's y too:
                // its height alone bounds it only from above (a knee skipped
                // as standing higher than the least clearance seen could be
                // nearer a slope's flank than that), so the normal's least
                // y there bounds it from below.
                let deeper = below > 0.0 && below > self.penetration_max;
                let knee_may_lower = inner && {
                    // (Below the ground, the nearer the normal to straight
                    // up the deeper: there the height itself is the floor.)
                    let height = -below;
                    let least = if height > 0.0 {
                        height * knee_floor
                    } else {
                        height
                    };
                    // (NaN either side: looked up, so the NaN is kept.)
                    let known = self.joint_clearance_min;
                    least < known || least.is_nan() || known.is_nan()
                };
                if deeper || knee_may_lower {
                    let normal_y = terrain.normal(joint.x, joint.z).y;
                    if deeper {
                        self.penetration_max = max_or_nan(self.penetration_max, below * normal_y);
                    }
                    if knee_may_lower {
                        self.joint_clearance_min =
                            min_or_nan(self.joint_clearance_min, -below * normal_y);
                    }
                }
            }
            if solid {
                self.bone_clearance_min = min_or_nan(self.bone_clearance_min, leg.bone_clearance);
            }
            if leg.is_grounded() && solid {
                let end = leg.chain.end();
                self.foot_gap_max = max_or_nan(self.foot_gap_max, ground_under_end.abs());
                if let Some(planted) = leg.planted_end {
                    self.foot_slip_max = max_or_nan(self.foot_slip_max, end.distance(planted));
                }
                continue;
            }
            if leg.is_grounded() {
                let end = leg.chain.end();
                // The same bound for the gap: the vertical gap first.
                let vertical = (end.y - ground_under_end).abs();
                if vertical.is_nan() || vertical > self.foot_gap_max {
                    self.foot_gap_max =
                        max_or_nan(self.foot_gap_max, terrain.signed_distance(end).abs());
                }
                if let Some(planted) = leg.planted_end {
                    self.foot_slip_max = max_or_nan(self.foot_slip_max, end.distance(planted));
                }
            }
        }
        self.ik_iterations += iterations;
        self.ik_solves += creature.legs.len() as u64;
        if first {
            self.last = StepFigures {
                gait_violation: events.gait_violation,
                motion,
                ..StepFigures::of(creature)
            };
        }
    }

    /// The extremes so far that let [`Metrics::observe`] skip a look-up
    /// (see [`Metrics::clear_tally`]).
    pub(super) fn bounds(&self) -> Bounds {
        Bounds {
            foot_gap_max: self.foot_gap_max,
            penetration_max: self.penetration_max,
            joint_clearance_min: self.joint_clearance_min,
        }
    }

    /// Forgets the step's figures before a chunk of creatures is measured
    /// into this tally (keeping the storage); `steps` is the caller's.
    ///
    /// The tally starts from `known`, the extremes of the figures it will
    /// be merged into: a look-up that cannot pass them is skipped (a foot's
    /// gap and a joint's depth measured only when their vertical gap is
    /// larger, a knee's distance only when the steepest ground there could
    /// bring it below the least clearance). Started from nothing each step,
    /// a tally measured every planted foot and knee every step, for nothing:
    /// merged, `max(known, tally)` is the same figure either way, since
    /// `known` is already in what it merges into.
    pub(super) fn clear_tally(&mut self, known: Bounds) {
        // A world clears a tally per chunk of creatures every step: the
        // scratch storage is kept.
        let mut bins = std::mem::take(&mut self.step_error_bins);
        bins.clear();
        let mut motion = std::mem::take(&mut self.motion);
        motion.clear();
        *self = Metrics {
            step_error_bins: bins,
            foot_gap_max: known.foot_gap_max,
            penetration_max: known.penetration_max,
            joint_clearance_min: known.joint_clearance_min,
            ..Metrics::with_parts(LogHistogram::unallocated(), motion)
        };
    }

    /// An empty tally for one chunk of creatures: it holds no histogram of
    /// its own, only its step's bins.
    pub(super) fn tally() -> Self {
        Metrics::with_parts(LogHistogram::unallocated(), MotionFigures::new())
    }

    /// Adds a tally's figures: one chunk of creatures, measured apart over
    /// the same step. Counts and sums add and extremes combine, so merging
    /// the chunks in a fixed order gives the same figures however many
    /// threads measured them. `other_has_first` says the tally holds the
    /// creature the live display follows: its step figures become `last`.
    pub(super) fn merge_step(&mut self, other: &Metrics, other_has_first: bool) {
        self.foot_steps += other.foot_steps;
        self.gait_violations += other.gait_violations;
        self.max_lifted_seen = self.max_lifted_seen.max(other.max_lifted_seen);
        self.foot_slip_max = max_or_nan(self.foot_slip_max, other.foot_slip_max);
        self.foot_gap_max = max_or_nan(self.foot_gap_max, other.foot_gap_max);
        self.footless_max = max_or_nan(self.footless_max, other.footless_max);
        self.penetration_max = max_or_nan(self.penetration_max, other.penetration_max);
        self.body_clearance_min = min_or_nan(self.body_clearance_min, other.body_clearance_min);
        self.joint_clearance_min = min_or_nan(self.joint_clearance_min, other.joint_clearance_min);
        self.bone_clearance_min = min_or_nan(self.bone_clearance_min, other.bone_clearance_min);
        self.wall_time += other.wall_time;
        self.ceiling_time += other.ceiling_time;
        self.ik_error_max = max_or_nan(self.ik_error_max, other.ik_error_max);
        for &bin in &other.step_error_bins {
            self.ik_errors.add_bin(bin);
        }
        self.ik_iterations += other.ik_iterations;
        self.ik_solves += other.ik_solves;
        self.bone_error_max = max_or_nan(self.bone_error_max, other.bone_error_max);
        self.body_height_min = min_or_nan(self.body_height_min, other.body_height_min);
        self.body_height_sum += other.body_height_sum;
        self.body_height_samples += other.body_height_samples;
        self.tilt_error_max_deg = max_or_nan(self.tilt_error_max_deg, other.tilt_error_max_deg);
        self.nan_count += other.nan_count;
        self.ik_repairs += other.ik_repairs;
        self.motion.merge(&other.motion);
        if other_has_first {
            self.last = other.last;
        }
    }

    /// Starts a step's live figures (`last`): the tally holding the
    /// followed creature replaces them.
    pub(super) fn begin_step(&mut self) {
        self.last = StepFigures::default();
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

/// The headless run's result: what `skitter headless` prints as JSON.
///
/// Distances in metres, angles in degrees, times in seconds. With several
/// creatures, `distance` and `displacement` are means per creature, the `_max`
/// figures are over all of them, and counts are totals.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Creature name.
    pub creature: String,
    /// Terrain name.
    pub terrain: String,
    /// The terrain's seed: runs of one terrain file with different
    /// `--seed`s walk different ground.
    pub seed: u32,
    /// Solver most legs used at the end (in a world of several kinds,
    /// each kind's, joined by commas in kind order).
    pub solver: String,
    /// Creatures simulated.
    pub count: usize,
    /// Steps simulated.
    pub steps: u64,
    /// Step length.
    pub dt: f64,
    /// Simulated time.
    pub seconds: f64,
    /// Full-throttle speed the creature walks at: its file's `speed`, capped
    /// by what the gait can carry (m/s). With several kinds, the slowest
    /// kind's (each kind's own is in `kinds`).
    pub speed: f32,
    /// The most the gait can carry (m/s); `speed` never exceeds it. With
    /// several kinds, the slowest kind's.
    pub speed_cap: f32,
    /// Path length of the body (mean per creature).
    pub distance: f64,
    /// Straight-line distance from start to end (mean per creature).
    pub displacement: f64,
    /// Steps taken (touchdowns).
    pub foot_steps: u64,
    /// Creature-steps whose lifted legs broke the gait rule.
    pub gait_violations: u64,
    /// Most legs of one creature in the air at once.
    pub max_lifted_seen: usize,
    /// Largest movement of a grounded foot's chain end.
    pub foot_slip_max: f32,
    /// Largest distance of a grounded foot from the surface.
    pub foot_gap_max: f32,
    /// Longest stretch (seconds) any creature went with no foot planted:
    /// a hop between footfalls is a fraction of a step; longer, its body
    /// is held up by nothing (feet out of reach of anything to stand on).
    pub footless_seconds_max: f32,
    /// Deepest any joint went below the surface.
    pub penetration_max: f32,
    /// Smallest distance from the body box (its centre, its corners and
    /// its underside below each hip) to the surface (negative: inside the
    /// solid).
    pub body_clearance_min: f32,
    /// Smallest distance from an inner joint (a knee) to the surface
    /// (negative: inside the solid).
    pub joint_clearance_min: f32,
    /// In a world with shapes, smallest distance from a leg's bones to the
    /// surface, sampled along them (negative: a bone passes through the
    /// solid); `None` (JSON `null`) on open ground, where it is not
    /// measured.
    pub bone_clearance_min: Option<f32>,
    /// Seconds (mean per creature) with the body's up more than 60° from
    /// world up, short of pointing down past −60°: on walls.
    pub time_on_walls: f64,
    /// Seconds (mean per creature) with the body's up pointing down past
    /// −60°: on ceilings.
    pub time_on_ceilings: f64,
    /// Largest IK error.
    pub ik_error_max: f32,
    /// 99th percentile IK error (to within 3%, and never above
    /// `ik_error_max`).
    pub ik_error_p99: f32,
    /// Mean IK iterations per leg solve.
    pub ik_iterations_mean: f32,
    /// Largest bone-length change.
    pub bone_error_max: f32,
    /// Lowest body height above the surface.
    pub body_height_min: f32,
    /// Mean body height above the surface.
    pub body_height_mean: f32,
    /// Largest angle between body up and the normal of the surface under
    /// it (degrees): among shapes the first one straight below it, for a
    /// climber along its own down.
    pub tilt_error_max_deg: f32,
    /// Non-finite values seen.
    pub nan_count: u64,
    /// Leg solves whose bone lengths the simulation repaired (a solver left a
    /// bone more than 1e-5 of the reach off its length).
    pub ik_repairs: u64,
    /// Largest body acceleration (second difference of the body centre), m/s².
    pub body_accel_max: f32,
    /// Fastest the body's up direction turned, degrees/s.
    pub tilt_rate_max: f32,
    /// Smallest static stability margin over steps with 3+ feet planted
    /// (metres; negative: the body's centre outside the support polygon);
    /// `null` when no step had 3+ feet down.
    pub stability_margin_min: Option<f32>,
    /// Fraction of steps with 3+ feet planted whose margin was negative.
    pub unstable_fraction: f64,
    /// Creature-steps in which two legs came within 1 cm of each other.
    pub leg_crossings: u64,
    /// Creature-steps in which a leg passed through the body box.
    pub leg_body_intersections: u64,
    /// Fastest any foot moved, m/s.
    pub foot_speed_max: f32,
    /// Fastest a foot was moving over the step it touched down in, m/s.
    pub touchdown_speed_max: f32,
    /// Real time the run took.
    pub wall_seconds: f64,
    /// Mean real time per world step, microseconds.
    pub step_micros_mean: f64,
    /// Simulated seconds per wall-clock second (1.0: real time).
    pub realtime_factor: f64,
    /// The scene file's name, for a run of a scene.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scene: Option<String>,
    /// In a scene's `kinds`, the creature as the scene names it (a
    /// built-in name or a file): two kinds whose files give the same
    /// `name` are told apart by it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// In a run of a scene, each kind's own figures (the fields above are
    /// over all of them; one kind's are the same).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kinds: Vec<Summary>,
}

/// How far above the ground (metres) the body box must stand for the hips
/// on it to go unmeasured (see [`Metrics::observe`]): far more than the
/// rounding of a hip's place on the box, far less than any ride height.
const HIPS_CLEAR_GAP: f32 = 1e-4;

/// Whether a leg's knees on open ground can move neither figure they feed
/// (the deepest joint, `penetration_max`, and the least knee clearance,
/// `joint_clearance_min`), from `gap`, the least height of a knee above
/// the ground that the leg's solve measured for this pose
/// ([`crate::creature::Leg::knee_gap`]: the same look-up, and its
/// subtraction negated, equal in value to what [`Metrics::observe`]
/// computes), and `floor`, the floor under the ground normal's y over the
/// knees. Every knee stands at least `gap` above the ground, so none is
/// deeper than `-gap`, and its clearance is at least `gap` times `floor`
/// (`gap` itself at or under the ground). Two look-ups a knee skipped,
/// most steps (8 of the 17 a spider-step's metrics made). A NaN gap or
/// figure answers no, and the look-ups decide. (The gap is the least over
/// the knees, a minimum that passes over NaN; a finite joint's ground
/// height is never NaN, since heights are finite and coordinates clamped.)
fn knees_change_nothing(gap: f32, floor: f32, penetration_max: f32, clearance_min: f32) -> bool {
    if gap.is_nan() || penetration_max.is_nan() || clearance_min.is_nan() {
        return false;
    }
    let deeper = -gap > 0.0 && -gap > penetration_max;
    let least = if gap > 0.0 { gap * floor } else { gap };
    !deeper && least >= clearance_min
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knees_are_skipped_only_when_no_knee_can_move_a_figure() {
        // 30 cm up on ground no steeper than 25°: nothing to learn.
        assert!(knees_change_nothing(0.3, 0.9, 0.0, 0.05));
        // A knee 1 cm in is deeper than any joint so far.
        assert!(!knees_change_nothing(-0.01, 0.9, 0.0, 0.05));
        // ... but not deeper than one 2 cm in, and no nearer than the
        // least clearance, -2 cm, either.
        assert!(knees_change_nothing(-0.01, 0.9, 0.02, -0.02));
        // 4 cm up, but on ground steep enough (normal y 0.5) to be 2 cm
        // from its flank: nearer than the 5 cm seen so far.
        assert!(!knees_change_nothing(0.04, 0.5, 0.0, 0.05));
        // Unknown figures or gap: the look-ups decide.
        assert!(!knees_change_nothing(f32::NAN, 0.9, 0.0, 0.05));
        assert!(!knees_change_nothing(0.3, 0.9, f32::NAN, 0.05));
        assert!(!knees_change_nothing(0.3, 0.9, 0.0, f32::NAN));
        // No inner joint at all (an infinite gap) over ground of unknown
        // slope (a floor of 0) is not taken as clear either: 0 × ∞ is NaN.
        assert!(!knees_change_nothing(f32::INFINITY, 0.0, 0.0, 0.05));
    }

    #[test]
    fn histogram_quantiles_are_within_a_bin() {
        let mut h = LogHistogram::default();
        assert_eq!(h.quantile(0.99), 0.0);
        for i in 1..=1000 {
            h.add(i as f32 * 1e-6);
        }
        let p99 = h.quantile(0.99);
        assert!((990e-6..=990e-6 * 1.03).contains(&p99), "{p99}");
        let p50 = h.quantile(0.5);
        assert!((500e-6..=500e-6 * 1.03).contains(&p50), "{p50}");
        assert_eq!(h.len(), 1000);
    }

    #[test]
    fn histogram_clamps_tiny_huge_and_nan() {
        let mut h = LogHistogram::default();
        h.add(0.0);
        h.add(f32::NAN);
        h.add(1e9);
        assert_eq!(h.quantile(0.5), HISTOGRAM_FLOOR);
        assert!(h.quantile(1.0) >= 1e3);
    }
}
