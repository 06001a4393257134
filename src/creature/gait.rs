//! Stage 3, the gait scheduler: which grounded legs start a step now.
//!
//! The spider thesis' diagonal rule, generalised: legs are arranged in groups,
//! and a leg may lift only while every leg of every other group is grounded,
//! and never more than `max_lifted` legs at once. Which group goes next is
//! either the one with the leg that most needs to step (`order = "urgency"`)
//! or the next in the file's list (`order = "listed"`: a wave). A leg wants
//! to step when its foot is `step_threshold` from its desired foothold (or
//! sooner when stretched); when its group goes, partners that are at least
//! halfway there go with it, so a group lifts and lands together. For gaits
//! that keep three or more feet down, a group lifts only once the body
//! stands over the feet that stay down, with `stability_margin` to spare,
//! now and where the body will be when the group lands; until then the body
//! shifts toward them (see `posture.rs`) and the step waits.

use glam::{Vec2, Vec3};

use super::Creature;
use super::footholds::Foothold;
use super::leg::LegPhase;
use super::spec::FOOT_SPEED_LIMIT;
use super::spec::{GaitOrder, SLOW_DOWN_STRETCH};
use super::stability::support_plane;
use super::state::StepScratch;
use super::swing::{needed_lift, peak_swing_speed};
use crate::geometry::ConvexHull;
use crate::terrain::Ground;

/// A foothold within this many strides of where the leg's last step lifted
/// it from makes a step back (see `hold_back_steps`).
const BACK_STEP: f32 = 0.25;

/// A leg steps at once, whatever its distance to the desired foothold, when
/// its foot is farther than this fraction of its reach from the hip.
const OVERREACH_FRACTION: f32 = 0.92;
/// A leg whose foot is this fraction of `step_threshold` from its foothold
/// lifts with its group, though it would not start a step on its own...
const PARTNER_FRACTION: f32 = 0.5;
/// ...or at any distance, in gaits with fewer than three feet down: there a
/// group lifts and lands as one, and never leaves three feet standing with
/// the body's centre on the edge of their triangle.
const DYNAMIC_PARTNER_FRACTION: f32 = 0.0;
/// A step waits for the body to shift over the feet that stay down at most
/// this many step durations once a foot is holding the body back.
const STABILITY_PATIENCE: f32 = 3.0;
/// Below this fraction of the walking speed (and turning rate), the body
/// counts as standing: listed groups with nothing to do are skipped.
const STANDING_FRACTION: f32 = 0.01;

/// A grounded leg that wants to step, and how badly: 1 or more starts a
/// step; between `PARTNER_FRACTION` and 1 only joins its group's step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepCandidate {
    /// Leg index.
    pub leg: usize,
    /// Larger is more urgent (e.g. distance past the threshold; overreach wins).
    pub urgency: f32,
}

/// The rule's inputs for one decision.
#[derive(Debug, Clone, Copy)]
pub struct GaitRule<'a> {
    /// Group index of every leg.
    pub group_of: &'a [usize],
    /// Whether the gait has lifted each leg (in the air and not hanging:
    /// see [`Leg::is_lifted`](super::Leg::is_lifted)).
    pub lifted: &'a [bool],
    /// Most legs in the air at once.
    pub max_lifted: usize,
}

impl GaitRule<'_> {
    /// Whether `leg` may lift given the legs lifted now.
    pub fn allows(&self, leg: usize, lifted: &[bool]) -> bool {
        let count = lifted.iter().filter(|l| **l).count();
        count < self.max_lifted
            && !lifted[leg]
            && lifted
                .iter()
                .enumerate()
                .all(|(other, up)| !*up || self.group_of[other] == self.group_of[leg])
    }

    /// Whether the legs lifted now break the rule (for the metrics).
    pub fn violated(&self) -> bool {
        let count = self.lifted.iter().filter(|l| **l).count();
        let mut groups = self
            .lifted
            .iter()
            .enumerate()
            .filter(|(_, up)| **up)
            .map(|(leg, _)| self.group_of[leg]);
        let first = groups.next();
        count > self.max_lifted || groups.any(|g| Some(g) != first)
    }
}

/// Picks which candidates start stepping. Returns the chosen legs, most
/// urgent first (ties broken by leg index, so the choice is deterministic).
///
/// Groups step as groups. With no leg in the air, the group of the most
/// urgent candidate steps: all its candidates, up to `max_lifted`. While a
/// group is in the air, more of its legs may join only if no leg of another
/// group is waiting; otherwise the group in the air could keep lifting legs
/// one after another, never be all grounded, and starve the others until a
/// foot fell out of reach.
pub fn choose_steps(rule: &GaitRule<'_>, candidates: &mut [StepCandidate]) -> Vec<usize> {
    candidates.sort_by(|a, b| b.urgency.total_cmp(&a.urgency).then(a.leg.cmp(&b.leg)));
    let stepping_group = match candidates.first().filter(|c| c.urgency >= 1.0) {
        None => return Vec::new(),
        Some(most_urgent) => rule.group_of[most_urgent.leg],
    };
    choose_group(rule, candidates, stepping_group)
}

/// Like [`choose_steps`], but the group that steps is `turn` (the next in
/// the listed order) if one of its legs wants to step; the others wait.
pub fn choose_listed(
    rule: &GaitRule<'_>,
    candidates: &mut [StepCandidate],
    turn: usize,
) -> Vec<usize> {
    candidates.sort_by(|a, b| b.urgency.total_cmp(&a.urgency).then(a.leg.cmp(&b.leg)));
    if !candidates
        .iter()
        .any(|c| c.urgency >= 1.0 && rule.group_of[c.leg] == turn)
    {
        return Vec::new();
    }
    choose_group(rule, candidates, turn)
}

/// The candidates of `group` (sorted, most urgent first) that may lift now.
/// While a group is in the air, more of its legs may join only if no leg
/// of another group is waiting.
fn choose_group(rule: &GaitRule<'_>, candidates: &[StepCandidate], group: usize) -> Vec<usize> {
    let group_in_air = rule
        .lifted
        .iter()
        .position(|up| *up)
        .map(|leg| rule.group_of[leg]);
    if let Some(in_air) = group_in_air {
        let others_wait = candidates
            .iter()
            .any(|c| c.urgency >= 1.0 && rule.group_of[c.leg] != in_air);
        if in_air != group || others_wait {
            return Vec::new();
        }
    }
    let mut lifted = rule.lifted.to_vec();
    let mut chosen = Vec::new();
    for candidate in candidates {
        // A partner joins only a step its group starts now.
        let joins = candidate.urgency >= 1.0 || group_in_air.is_none();
        if rule.group_of[candidate.leg] == group && joins && rule.allows(candidate.leg, &lifted) {
            lifted[candidate.leg] = true;
            chosen.push(candidate.leg);
        }
    }
    chosen
}

impl Creature {
    /// Stage 3: decides which legs lift now and starts their swings.
    pub(super) fn start_steps(&mut self, terrain: &Ground<'_>, dt: f32, scratch: &mut StepScratch) {
        let threshold = self.spec.gait.step_threshold;
        let partner = if self.spec.statically_stable() {
            PARTNER_FRACTION
        } else {
            DYNAMIC_PARTNER_FRACTION
        };
        scratch.candidates.clear();
        // Only on open ground: among walls the drive already relieves a
        // held climber, and stepping every foot there cost knees at edges.
        let held = !self.among_walls && self.is_held();
        // Stranded among walls (no headway for seconds, however it rocks),
        // a foot a step would move still holds the body back (see
        // `strains_now`): it must step, or nothing ever moves again. (A
        // climber's front foot on a tunnel's ceiling, its foothold 11 cm
        // off, trailed its rest point past the brake's limit, short of a
        // partner's share of a stride: the body stood 40 s on a wall's far
        // edge.) On open ground the held rule above does it; stranded
        // there too, a spider on a ridged flank stepped in place for good.
        let stranded = self.among_walls && self.is_stranded();
        for (i, leg) in self.legs.iter().enumerate() {
            scratch.lifted[i] = leg.is_lifted();
            if !leg.is_grounded() {
                continue;
            }
            let off_target = leg.foot.distance(leg.desired);
            let hip = self.body.to_world(self.spec.legs[i].mount);
            let stretch = leg.foot.distance(hip) / self.shared.frames[i].reach;
            // Stretch alone is no reason to step when the foothold is where
            // the foot already is (a foothold deep in a gully): stepping
            // would land on the same spot, over and over.
            let can_improve = self.step_would_move(leg);
            let urgency = if leg.report.error > super::leg::MISSED_FOOT {
                // The leg misses its planted foot within its reach (joint
                // limits, a coarse solver; one out of reach hangs instead):
                // it is not standing, so it steps before anything else.
                20.0 + stretch
            } else if stretch > OVERREACH_FRACTION && can_improve {
                // About to lose the foot: step before anything else.
                10.0 + stretch
            } else if stretch > SLOW_DOWN_STRETCH && can_improve {
                // Holding the body back (see `drive.rs`): step soon.
                5.0 + stretch
            } else if (held || stranded) && can_improve {
                // Held still by its own brakes (or a balance it waits for:
                // deliberately, since standing still gains no balance), the
                // body waits on its feet: any foot a step would move steps
                // now. A foot trailing its rest point, its foothold just
                // short of a stride ahead, held an octopod on a steep ridged
                // peak for good, never due.
                1.0 + off_target / threshold
            } else if off_target > partner * threshold {
                off_target / threshold
            } else {
                continue;
            };
            scratch.candidates.push(StepCandidate { leg: i, urgency });
        }
        self.hold_back_steps(scratch);
        let duration = self.spec.swing_time(self.feet_speed());
        self.plan_stability_shift(duration, scratch);
        if scratch.candidates.is_empty() {
            return;
        }
        let groups = self.spec.gait.groups.len();
        let rule = GaitRule {
            group_of: &self.shared.group_of,
            lifted: &scratch.lifted,
            max_lifted: self.spec.gait.max_lifted,
        };
        let mut chosen = match self.spec.gait.order {
            GaitOrder::Urgency => choose_steps(&rule, &mut scratch.candidates),
            GaitOrder::Listed => {
                let standing = self.motion.speed.abs()
                    <= STANDING_FRACTION * self.shared.walk_speed
                    && self.motion.yaw_rate.abs() <= STANDING_FRACTION * self.spec.body.turn_rate;
                // Standing, a group with nothing to do passes its turn on,
                // or one leg off its foothold would wait forever.
                let anyone = scratch.candidates.iter().any(|c| c.urgency >= 1.0);
                if standing && anyone {
                    while !scratch
                        .candidates
                        .iter()
                        .any(|c| c.urgency >= 1.0 && self.shared.group_of[c.leg] == self.next_group)
                    {
                        self.next_group = (self.next_group + 1) % groups.max(1);
                    }
                }
                choose_listed(&rule, &mut scratch.candidates, self.next_group)
            }
        };
        self.keep_last_foot_down(&mut chosen, dt);
        let Some(&first) = chosen.first() else {
            return;
        };
        if self.keeps_balance() && !self.stable_without(&chosen, duration, scratch) {
            // Wait while the body shifts over the feet that stay down, unless
            // it has waited long enough and a foot is holding it back, or the
            // body stands still against its command, or has made no progress
            // for seconds (stranded): a creature that cannot find its balance
            // must still walk. (Astride a sharp crest the support brake stops
            // the body and no foot is stretched: waiting for a balance the
            // crest does not offer, it never moved again. On a ridged peak an
            // octopod's walk carried it forward and its lean back over the
            // feet it would stand on, 10 cm each way, never still: it made
            // 0.3 m in 40 s.)
            self.stability_wait += dt;
            let urgent = scratch
                .candidates
                .iter()
                .any(|c| c.leg == first && c.urgency >= 5.0);
            // Standing up only: on its side on a flank, a foot lifted off
            // its balance left the octopod hanging by its legs there.
            let stranded_upright =
                self.is_stranded() && self.body.up().y > super::posture::STANDING_UP;
            if !((urgent || self.is_held() || stranded_upright)
                && self.stability_wait > STABILITY_PATIENCE * self.spec.gait.step_duration)
            {
                return;
            }
        }
        self.stability_wait = 0.0;
        if self.spec.gait.order == GaitOrder::Listed && !scratch.lifted.iter().any(|l| *l) {
            self.next_group = (self.shared.group_of[first] + 1) % groups.max(1);
        }
        self.lift(terrain, &chosen, duration, scratch);
    }

    /// Drops the candidates whose step would only take the foot back where
    /// its last step lifted it from, while another leg has a step to take
    /// (a foot about to be lost always steps). On a knife-edge crest a
    /// foothold flips between the crest by the hip and the flank below as
    /// the body rocks, and an octopod leg stepping back and forth between
    /// them kept its other legs from ever stepping, the body braked by
    /// them for good. Alone, such a step is taken: the leg may be the one
    /// holding the body back. Among walls a foot rounding an edge may
    /// rightly step back to the face it left, so there they are dropped
    /// only when the body is told to stand (its drive stopped it before a
    /// face it cannot climb, the crowd in a scene holds it, or the user
    /// stopped it): then no step helps, alone or not. A foot about to be
    /// lost steps whatever the body is told. (A stilt-legged walker
    /// stopped before a ridged flank in a world with a box in it stepped a
    /// foot between the flank's crest and the gully below, and back, twice
    /// a second for good, the body tilting with each step and turning its
    /// foothold's ray from one to the other.)
    fn hold_back_steps(&mut self, scratch: &mut StepScratch) {
        let told_to_stand = self.motion.speed_command == 0.0 && self.motion.turn_command == 0.0;
        if self.among_walls && !told_to_stand {
            return;
        }
        let near = BACK_STEP * self.spec.gait.step_threshold;
        let legs = &self.legs;
        let back = |c: &StepCandidate| {
            let leg = &legs[c.leg];
            c.urgency < 5.0 && leg.desired.distance(leg.lifted_from) <= near
        };
        if told_to_stand || scratch.candidates.iter().any(|c| !back(c)) {
            scratch.candidates.retain(|c| !back(c));
        }
    }

    /// Drops from `chosen` (most urgent first) its least urgent planted
    /// foot when lifting them all would leave no foot planted while another
    /// leg hangs out of reach: the feet the gait meant to stand on are not
    /// there, so the last foot that is stays down while the rest of its
    /// group steps (the hanging legs go on seeking footholds, and the drive
    /// brakes the body as that foot strains). A foot that misses its
    /// foothold holds nothing up, and may step.
    ///
    /// On open ground an octopod on a ridged flank, three legs hanging,
    /// lifted its group of four and left one foot down, which then hung
    /// too: 0.6 s with no foot planted (the spider, a long-legged walker,
    /// 0.3–0.8 s). There the hold lasts only while the body moves: held
    /// still (see [`is_held`](Self::is_held)), or kept so for
    /// [`STABILITY_PATIENCE`] steps' time (a turn in place, braked by
    /// that foot, is never "held"), the foot lifts after all and the body
    /// settles footless onto the ground, which is how it gets on: a biped
    /// on a ridged flank, its other foot hanging over a crest, otherwise
    /// stood on one foot for good, walking or turning.
    ///
    /// Among walls a biped turning beside a slab set a foot on its top, its
    /// other foot hanging, then lifted the foot on the slab too, and rode
    /// the slab's edge 16 s on no foot at all; there the body comes down
    /// until a hanging foot's foothold is in reach instead. Among walls for
    /// ground walkers only: a climber's last foot on a thin wall's side,
    /// held down so, held it there (a spider crossing a 5 cm wall went from
    /// 0.78 of its speed to 0.25).
    fn keep_last_foot_down(&mut self, chosen: &mut Vec<usize>, dt: f32) {
        let ground_walker = self.spec.body.surface == super::Surface::Ground;
        let applies =
            (ground_walker || !self.among_walls) && self.legs.iter().any(|leg| leg.hanging);
        let stands = |i: usize| self.legs[i].stands();
        let last = chosen.iter().rposition(|&i| stands(i));
        let keeping = applies
            && last.is_some()
            && !(0..self.legs.len()).any(|i| !chosen.contains(&i) && stands(i));
        // On open ground only: among walls the body lowers instead.
        let patience = STABILITY_PATIENCE * self.spec.gait.step_duration;
        let lets_go = !self.among_walls && (self.is_held() || self.last_foot_wait > patience);
        if !keeping || lets_go {
            self.last_foot_wait = 0.0;
            return;
        }
        self.last_foot_wait += dt;
        if let Some(last) = last {
            chosen.remove(last);
        }
    }

    /// Whether a step would move `leg`'s foot: its foothold is more than a
    /// quarter stride from where the foot stands.
    pub(super) fn step_would_move(&self, leg: &super::Leg) -> bool {
        leg.foot.distance(leg.desired) > 0.25 * self.spec.gait.step_threshold
    }

    /// How fast the feet move relative to the body now (m/s): the forward
    /// speed plus the turning rate times the widest rest point's radius.
    pub(super) fn feet_speed(&self) -> f32 {
        self.motion.speed.abs() + self.motion.yaw_rate.abs() * self.shared.rest_radius
    }

    /// Where leg `i` would land on a swing of `duration` seconds from its
    /// foot, the arc height it needs, and how fast the foot would peak.
    fn plan_swing(&self, terrain: &Ground<'_>, i: usize, duration: f32) -> (Foothold, f32, f32) {
        let gait = &self.spec.gait;
        let from = self.legs[i].foot;
        let ahead = self.predicted_shift(i, duration);
        let found = self.foothold(terrain, i, ahead, self.legs[i].pull);
        let to = found.hit.point;
        let ceiling = 0.5 * self.shared.frames[i].reach;
        let lift = needed_lift(terrain, from, to, self.body.up(), gait.step_height, ceiling);
        let peak = peak_swing_speed(from.distance(to), lift, duration);
        (found, lift, peak)
    }

    /// Starts the swings of `legs` toward the footholds of their rest points
    /// where the body will be when they land. They take `duration` seconds,
    /// or longer, together, when a long step (a start, a foot the gait kept
    /// waiting) would otherwise carry a foot faster than
    /// [`FOOT_SPEED_LIMIT`]: a group lifts and lands as one.
    fn lift(
        &mut self,
        terrain: &Ground<'_>,
        legs: &[usize],
        duration: f32,
        scratch: &mut StepScratch,
    ) {
        let mut plans: Vec<_> = legs
            .iter()
            .map(|&i| self.plan_swing(terrain, i, duration))
            .collect();
        let fastest = plans.iter().map(|plan| plan.2).fold(0.0, f32::max);
        let mut duration = duration;
        if fastest > FOOT_SPEED_LIMIT {
            // The path's speed scales with 1 / duration; the targets move a
            // little further meanwhile, so plan again for the longer swing.
            duration *= fastest / FOOT_SPEED_LIMIT;
            for (plan, &i) in plans.iter_mut().zip(legs) {
                *plan = self.plan_swing(terrain, i, duration);
            }
        }
        for (&i, (found, lift, _)) in legs.iter().zip(plans) {
            let leg = &mut self.legs[i];
            leg.desired = found.hit.point;
            leg.pull = found.pull;
            leg.phase = LegPhase::Swinging {
                from: leg.foot,
                to: found.hit.point,
                progress: 0.0,
                duration,
                lift,
                around: None,
                overtime: 0.0,
            };
            leg.planted_end = None;
            leg.lifted_from = leg.foot;
            scratch.lifted[i] = true;
        }
    }

    /// Whether the gait keeps the body's centre over the feet that stay
    /// down (leaning over them, and waiting for the lean before a step): a
    /// statically stable gait, but not a climber's among walls once it is
    /// off its feet's floor (on a wall or a ceiling). There its feet grip,
    /// and balance in its own plane means nothing: feet wrapped over a thin
    /// wall's top all stand on one line across that plane, and an octopod
    /// on the wall leant 0.9 m back down toward them, its walk up cancelled
    /// for seconds and, over the top, its footholds sought that far behind.
    fn keeps_balance(&self) -> bool {
        self.spec.statically_stable()
            && !(self.among_walls
                && self.spec.body.surface == super::Surface::Any
                && self.body.up().y < super::posture::STANDING_UP)
    }

    /// Whether the body's centre stands over the feet that stay down when
    /// `lifting` lift, by the gait's margin, now and when they land.
    fn stable_without(
        &mut self,
        lifting: &[usize],
        duration: f32,
        scratch: &mut StepScratch,
    ) -> bool {
        let margin = self.spec.gait.stability_margin;
        let centre = self.body.position;
        let later = centre + self.body.velocity * duration;
        let up = self.body.up();
        let staying = self.support_points(
            self.legs
                .iter()
                .enumerate()
                .filter(|(i, leg)| leg.is_grounded() && !lifting.contains(i))
                .map(|(_, leg)| leg.foot),
        );
        let Some(now) = scratch.support.margin(centre, up, staying) else {
            // Too few feet left to stand on: not a static step.
            return true;
        };
        let (u, v) = support_plane(up);
        let d = later - centre;
        now >= margin && scratch.support.hull.margin(Vec2::new(d.dot(u), d.dot(v))) >= margin
    }

    /// The legs expected to lift next (none while a group is in the air):
    /// the candidates of the group whose turn it is (listed order) or of the
    /// most urgent candidate, as many as may lift at once; in listed order
    /// with no candidate yet, the group's first legs.
    fn plan_next_lift(&mut self, scratch: &mut StepScratch) {
        scratch.next_legs.clear();
        if scratch.lifted.iter().any(|l| *l) {
            return;
        }
        scratch
            .candidates
            .sort_by(|a, b| b.urgency.total_cmp(&a.urgency).then(a.leg.cmp(&b.leg)));
        let group = match self.spec.gait.order {
            GaitOrder::Listed => Some(self.next_group),
            GaitOrder::Urgency => scratch
                .candidates
                .first()
                .map(|c| self.shared.group_of[c.leg]),
        };
        let Some(group) = group else {
            return;
        };
        let max = self.spec.gait.max_lifted;
        scratch.next_legs.extend(
            scratch
                .candidates
                .iter()
                .filter(|c| self.shared.group_of[c.leg] == group)
                .map(|c| c.leg)
                .take(max),
        );
        if scratch.next_legs.is_empty()
            && let Some(members) = self.spec.gait.groups.get(group)
        {
            scratch.next_legs.extend(members.iter().copied().take(max));
        }
    }

    /// For gaits that keep 3+ feet down: where the body should lean to stand
    /// over the feet that stay down during the next step (or the current
    /// one, while a group is in the air, already leaning toward the feet
    /// that will stand for the step after it). Sets the posture's sway
    /// target.
    fn plan_stability_shift(&mut self, duration: f32, scratch: &mut StepScratch) {
        if !self.keeps_balance() {
            self.motion.sway_target = self.natural_sway();
            return;
        }
        // Lean only for a step that is due (or to stand over the feet down
        // while one is in the air): leaning ahead of time would pull the
        // body back against its own walk, and the feet would never fall far
        // enough behind to step.
        let in_air = scratch.lifted.iter().any(|l| *l);
        let due = in_air || scratch.candidates.iter().any(|c| c.urgency >= 1.0);
        if !due {
            self.motion.sway_target = Vec3::ZERO;
            return;
        }
        self.plan_next_lift(scratch);
        let up = self.body.up();
        let (u, v) = support_plane(up);
        // Measured from where the body would be without any shift.
        let centre = self.body.position - self.motion.sway;
        let later = self.body.velocity * duration;
        let points = [Vec2::ZERO, Vec2::new(later.dot(u), later.dot(v))];
        let middle = (points[0] + points[1]) * 0.5;
        // Lean a little more than the gate asks, so the step need not wait
        // for the last millimetre.
        let wanted = 1.5 * self.spec.gait.stability_margin;
        let margin_at = |hull: &ConvexHull, shift: Vec2| {
            points
                .iter()
                .map(|p| hull.margin(*p + shift))
                .fold(f32::INFINITY, f32::min)
        };

        // Only one foot at a time (a crawl): every step stands on a new
        // triangle, and leaning for it only once the foot before has landed
        // halved the crawl's speed. With larger groups, leaning ahead swung
        // the body far back and forth (a five-legged walk leaned 0.2 m toward
        // its tail and was thrown forward when the lean was released).
        let one_at_a_time = self.spec.gait.max_lifted == 1;
        if in_air
            && one_at_a_time
            && let Some(needed) =
                self.next_support_lean(centre, up, middle, wanted, &margin_at, scratch)
        {
            // Lean toward the next step's support, as far as it needs and
            // the feet down now allow, so that step need not wait for the
            // lean (unless the body must first lean over the feet down now).
            let staying =
                self.support_points(self.legs.iter().filter(|l| l.is_grounded()).map(|l| l.foot));
            if scratch.support.margin(centre, up, staying).is_some()
                && margin_at(&scratch.support.hull, Vec2::ZERO) >= wanted
            {
                let hull = &scratch.support.hull;
                let t = bisect(|t| margin_at(hull, needed * t) >= wanted, false);
                let shift = needed * t;
                self.motion.sway_target = u * shift.x + v * shift.y;
                return;
            }
        }

        let staying = self.support_points(
            self.legs
                .iter()
                .enumerate()
                .filter(|(i, leg)| leg.is_grounded() && !scratch.next_legs.contains(i))
                .map(|(_, leg)| leg.foot),
        );
        if scratch.support.margin(centre, up, staying).is_none() {
            self.motion.sway_target = Vec3::ZERO;
            return;
        }
        let corners = scratch.support.hull.corners();
        let centroid = corners.iter().copied().sum::<Vec2>() / corners.len().max(1) as f32;
        let hull = &scratch.support.hull;
        let t = bisect(|t| margin_at(hull, (centroid - middle) * t) >= wanted, true);
        let shift = (centroid - middle) * t;
        self.motion.sway_target = u * shift.x + v * shift.y;
    }

    /// While a group is in the air: the least lean (support-plane
    /// coordinates, toward their centre) that stands the body's path over
    /// the feet that will stand during the step after it (the swinging feet
    /// where they land, without the legs expected to lift next), if it needs
    /// one. `middle` is the middle of the body's path over the step.
    fn next_support_lean(
        &mut self,
        centre: Vec3,
        up: Vec3,
        middle: Vec2,
        wanted: f32,
        margin_at: &impl Fn(&ConvexHull, Vec2) -> f32,
        scratch: &mut StepScratch,
    ) -> Option<Vec2> {
        self.plan_upcoming_lift(scratch);
        if scratch.next_legs.is_empty() {
            return None;
        }
        let next_legs = &scratch.next_legs;
        let standing = self.support_points(
            self.legs
                .iter()
                .enumerate()
                .filter(|(i, _)| !next_legs.contains(i))
                .map(|(_, leg)| match leg.phase {
                    LegPhase::Grounded => leg.foot,
                    LegPhase::Swinging { to, .. } => to,
                }),
        );
        scratch.support.margin(centre, up, standing)?;
        let hull = &scratch.support.hull;
        if margin_at(hull, Vec2::ZERO) >= wanted {
            return None;
        }
        let corners = hull.corners();
        let toward = corners.iter().copied().sum::<Vec2>() / corners.len().max(1) as f32 - middle;
        Some(toward * bisect(|t| margin_at(hull, toward * t) >= wanted, true))
    }

    /// While a group is in the air: the grounded legs expected to lift once
    /// it lands (the next group in listed order; the group of the most
    /// urgent grounded candidate otherwise), into `next_legs`.
    fn plan_upcoming_lift(&mut self, scratch: &mut StepScratch) {
        scratch.next_legs.clear();
        let group = match self.spec.gait.order {
            GaitOrder::Listed => Some(self.next_group),
            GaitOrder::Urgency => scratch
                .candidates
                .iter()
                .max_by(|a, b| a.urgency.total_cmp(&b.urgency).then(b.leg.cmp(&a.leg)))
                .map(|c| self.shared.group_of[c.leg]),
        };
        let Some(members) = group.and_then(|g| self.spec.gait.groups.get(g)) else {
            return;
        };
        let max = self.spec.gait.max_lifted;
        scratch.next_legs.extend(
            members
                .iter()
                .copied()
                .filter(|&i| self.legs[i].is_grounded())
                .take(max),
        );
    }
}

/// The boundary in [0, 1] of a predicate that flips once along it: with
/// `rising`, the least t where `holds` is true (0 if it holds at 0, 1 if not
/// even at 1); otherwise the greatest t where it is still true (1 if it holds
/// at 1, 0 if not even at 0).
fn bisect(holds: impl Fn(f32) -> bool, rising: bool) -> f32 {
    let (start, end) = if rising { (0.0, 1.0) } else { (1.0, 0.0) };
    if holds(start) {
        return start;
    }
    if !holds(end) {
        return end;
    }
    // Invariant: `holds` is false at `lo` and true at `hi`.
    let (mut lo, mut hi) = (start, end);
    for _ in 0..12 {
        let mid = 0.5 * (lo + hi);
        if holds(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

#[cfg(test)]
mod tests {
    use super::bisect;

    #[test]
    fn bisect_finds_where_a_predicate_flips() {
        // Least t where it holds.
        let least = bisect(|t| t >= 0.3, true);
        assert!((0.3..0.3 + 1e-3).contains(&least), "{least}");
        assert_eq!(bisect(|_| true, true), 0.0);
        assert_eq!(bisect(|_| false, true), 1.0);
        // Greatest t where it still holds.
        let greatest = bisect(|t| t <= 0.6, false);
        assert!((0.6 - 1e-3..=0.6).contains(&greatest), "{greatest}");
        assert_eq!(bisect(|_| true, false), 1.0);
        assert_eq!(bisect(|_| false, false), 0.0);
    }

    use super::*;

    /// Spider: legs 0 FL, 1 FR, 2 BL, 3 BR; diagonals {FL, BR} and {FR, BL}.
    const SPIDER_GROUPS: [usize; 4] = [0, 1, 1, 0];

    fn candidates(legs: &[(usize, f32)]) -> Vec<StepCandidate> {
        legs.iter()
            .map(|&(leg, urgency)| StepCandidate { leg, urgency })
            .collect()
    }

    #[test]
    fn a_diagonal_steps_together() {
        let rule = GaitRule {
            group_of: &SPIDER_GROUPS,
            lifted: &[false; 4],
            max_lifted: 2,
        };
        let chosen = choose_steps(&rule, &mut candidates(&[(0, 1.3), (3, 1.2), (1, 1.1)]));
        assert_eq!(chosen, vec![0, 3]);
    }

    #[test]
    fn a_group_in_the_air_may_grow_while_nobody_else_waits() {
        let rule = GaitRule {
            group_of: &SPIDER_GROUPS,
            lifted: &[true, false, false, false],
            max_lifted: 2,
        };
        let chosen = choose_steps(&rule, &mut candidates(&[(3, 1.5)]));
        assert_eq!(chosen, vec![3]);
    }

    #[test]
    fn a_waiting_leg_stops_the_group_in_the_air_from_growing() {
        // Leg 0's group is up and leg 1 (other group) waits, so leg 3 (leg
        // 0's partner) may not keep the group in the air longer.
        let rule = GaitRule {
            group_of: &SPIDER_GROUPS,
            lifted: &[true, false, false, false],
            max_lifted: 2,
        };
        let chosen = choose_steps(&rule, &mut candidates(&[(1, 5.0), (2, 4.0), (3, 9.0)]));
        assert_eq!(chosen, Vec::<usize>::new());
    }

    #[test]
    fn tied_legs_lift_as_a_whole_tripod() {
        let tripods = [0, 1, 1, 0, 0, 1];
        let rule = GaitRule {
            group_of: &tripods,
            lifted: &[false; 6],
            max_lifted: 3,
        };
        let all: Vec<(usize, f32)> = (0..6).map(|leg| (leg, 1.0)).collect();
        assert_eq!(choose_steps(&rule, &mut candidates(&all)), vec![0, 3, 4]);
    }

    #[test]
    fn most_urgent_group_goes_first_and_max_lifted_caps() {
        let rule = GaitRule {
            group_of: &SPIDER_GROUPS,
            lifted: &[false; 4],
            max_lifted: 1,
        };
        let chosen = choose_steps(&rule, &mut candidates(&[(0, 1.3), (2, 1.9), (1, 1.5)]));
        assert_eq!(chosen, vec![2]);
        let rule = GaitRule {
            max_lifted: 2,
            ..rule
        };
        assert_eq!(
            choose_steps(&rule, &mut candidates(&[(0, 1.3), (2, 1.9), (1, 1.5)])),
            vec![2, 1]
        );
    }

    #[test]
    fn ties_break_by_leg_index() {
        let rule = GaitRule {
            group_of: &[0, 1],
            lifted: &[false, false],
            max_lifted: 1,
        };
        assert_eq!(
            choose_steps(&rule, &mut candidates(&[(1, 1.5), (0, 1.5)])),
            vec![0]
        );
    }

    #[test]
    fn partners_join_a_step_but_never_start_one() {
        let rule = GaitRule {
            group_of: &SPIDER_GROUPS,
            lifted: &[false; 4],
            max_lifted: 2,
        };
        // Leg 3 is only halfway to stepping: alone it waits...
        assert!(choose_steps(&rule, &mut candidates(&[(3, 0.6)])).is_empty());
        // ...but it goes with its diagonal partner.
        assert_eq!(
            choose_steps(&rule, &mut candidates(&[(3, 0.6), (0, 1.2)])),
            vec![0, 3]
        );
        // Once the group is in the air it cannot join late.
        let in_air = GaitRule {
            lifted: &[true, false, false, false],
            ..rule
        };
        assert!(choose_steps(&in_air, &mut candidates(&[(3, 0.6)])).is_empty());
    }

    #[test]
    fn listed_order_waits_for_the_group_whose_turn_it_is() {
        // A four-group wave; group 2's turn.
        let groups = [0, 1, 2, 3];
        let rule = GaitRule {
            group_of: &groups,
            lifted: &[false; 4],
            max_lifted: 1,
        };
        // Leg 0 is the most urgent, but it is not its turn.
        assert!(choose_listed(&rule, &mut candidates(&[(0, 5.0), (3, 1.5)]), 2).is_empty());
        assert_eq!(
            choose_listed(&rule, &mut candidates(&[(0, 5.0), (2, 1.1)]), 2),
            vec![2]
        );
    }

    #[test]
    fn violations_are_detected() {
        let ok = GaitRule {
            group_of: &SPIDER_GROUPS,
            lifted: &[true, false, false, true],
            max_lifted: 2,
        };
        assert!(!ok.violated());
        let mixed = GaitRule {
            group_of: &SPIDER_GROUPS,
            lifted: &[true, true, false, false],
            max_lifted: 2,
        };
        assert!(mixed.violated());
        let too_many = GaitRule {
            group_of: &[0, 0, 0],
            lifted: &[true, true, true],
            max_lifted: 2,
        };
        assert!(too_many.violated());
    }
}
