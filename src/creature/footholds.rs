//! Stage 2, footholds: where each foot should stand.
//!
//! A ray from above the leg's rest point, along the body's down, finds the
//! ground. The rest point is first carried forward by the body's predicted
//! motion (its velocity and turning) over the gait's `lead`, plus, for a foot
//! in the air, the rest of its swing: the foot lands where its rest point
//! will be when it lands. A hit the leg could not reach (a gully under the
//! rest point) is retried with the ray pulled toward the hip; which pull won
//! is remembered, and a leg changes pull only past a margin, so footholds do
//! not flip back and forth between two retries as the body moves.

use glam::{Quat, Vec3, Vec3Swizzles};

use super::Creature;
use super::leg::LegPhase;
use super::spec::{FOOTHOLD_STRETCH, Surface};
use crate::terrain::{Ground, RayHit};

/// How far toward the hip, as fractions of the rest offset, footholds are tried.
const FOOTHOLD_PULLS: [f32; 4] = [1.0, 0.8, 0.6, 0.4];
/// A leg keeps its current pull until its stretch passes
/// [`FOOTHOLD_STRETCH`] by this much, and returns to a pull nearer the rest
/// point only when that one is this much inside it (fractions of the reach).
const PULL_HYSTERESIS: f32 = 0.03;

/// A foothold and the pull that found it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Foothold {
    /// The ground hit.
    pub hit: RayHit,
    /// Index into the pulls (0 = under the rest point).
    pub pull: usize,
}

impl Creature {
    /// How far ahead of leg `leg`'s rest point its foothold is sought: where
    /// the rest point will be after `swing` seconds of the body's actual
    /// motion (the rest of a swing), then the gait's `lead` seconds of the
    /// motion the driver asks for. Leading by the command, not the actual
    /// (possibly held back) motion, is what lets a leg that holds the body
    /// back step out of the way. The foot never lands nearer the feet of
    /// its neighbours along the body than their clearance: fast, or after a
    /// turn, a foot led by the body would otherwise land past its
    /// neighbour's trailing foot, and their legs would cross.
    pub(super) fn predicted_shift(&self, leg: usize, swing: f32) -> Vec3 {
        let up = self.body.up();
        let spec = &self.spec.legs[leg];
        let lead = self.spec.gait.lead;
        let offset = self.body.orientation * Vec3::new(spec.rest.x, 0.0, spec.rest.z);
        let angle = self.motion.yaw_rate * swing + self.motion.turn_command * lead;
        let forward = self.body.forward();
        let travel = self.body.velocity * swing + forward * (self.motion.speed_command * lead);
        // Walking straight, no turn to predict (and its sine and cosine
        // cost more than the rest together).
        let shift = if angle == 0.0 {
            travel
        } else {
            travel + (Quat::from_axis_angle(up, angle) * offset - offset)
        };
        shift + forward * self.neighbour_correction(leg, shift, forward)
    }

    /// How far along `forward` to move leg `leg`'s foothold, its rest point
    /// moved by `shift`, so it keeps its clearance from where its
    /// neighbours' feet stand (or, in the air, will land).
    fn neighbour_correction(&self, leg: usize, shift: Vec3, forward: Vec3) -> f32 {
        let neighbours = self.shared.neighbours[leg];
        if neighbours.ahead.is_none() && neighbours.behind.is_none() {
            return 0.0;
        }
        let along = |point: Vec3| (point - self.body.position).dot(forward);
        let foot_of = |i: usize| match self.legs[i].phase {
            LegPhase::Grounded => self.legs[i].foot,
            LegPhase::Swinging { to, .. } => to,
        };
        let target = along(self.body.to_world(self.spec.legs[leg].rest) + shift);
        let highest = neighbours.ahead.map_or(f32::INFINITY, |(i, clearance)| {
            along(foot_of(i)) - clearance
        });
        let lowest = neighbours
            .behind
            .map_or(f32::NEG_INFINITY, |(i, clearance)| {
                along(foot_of(i)) + clearance
            });
        let allowed = if lowest <= highest {
            target.clamp(lowest, highest)
        } else {
            // Squeezed between two neighbours: split the difference.
            0.5 * (lowest + highest)
        };
        allowed - target
    }

    /// The foothold for leg `leg` with its rest point moved by `ahead`,
    /// preferring pull `preferred` (see the module documentation).
    ///
    /// A climber whose rays down find nothing it can reach (a wall in
    /// front, the ground falling away past an edge) sweeps on around the
    /// rest point: a ray from the hip toward it finds a wall ahead, and a
    /// ray bending back under the body from below it finds the face round
    /// a convex edge; failing those, it takes the surface nearest the rest
    /// point. Offered only footholds out of reach but through the solid,
    /// a leg takes what it takes when none is found: a climber among walls
    /// the surface nearest its hip, a walker the surface below its hip.
    /// A ground walker takes no face steeper than its `max_slope`, and
    /// among walls no ledge higher above its hip than its ride height:
    /// a strider stopped at a 1 m box, turning, set a foot on the box's
    /// top, 0.55 m over its hip, and tipped its body onto the box's edge,
    /// a knee 177 mm in.
    pub(super) fn foothold(
        &self,
        terrain: &Ground<'_>,
        leg: usize,
        ahead: Vec3,
        preferred: usize,
    ) -> Foothold {
        let leg_spec = &self.spec.legs[leg];
        let up = self.body.up();
        let reach = self.shared.frames[leg].reach;
        let above = reach + self.spec.body.height;
        let length = above + 2.0 * reach + self.spec.body.height;
        let hip = self.body.to_world(leg_spec.mount);
        let climber = self.spec.body.surface == Surface::Any;
        let walls = terrain.has_shapes();
        let mut best: Option<(f32, Foothold)> = None;
        // Where pull `pull` puts the rest point, and the stretch it may take.
        let rest_at = |pull: usize| {
            let fraction = FOOTHOLD_PULLS[pull];
            let rest = Vec3::new(
                leg_spec.mount.x + (leg_spec.rest.x - leg_spec.mount.x) * fraction,
                leg_spec.rest.y,
                leg_spec.mount.z + (leg_spec.rest.z - leg_spec.mount.z) * fraction,
            );
            // From the body's path, not its lean: leaning over the feet must
            // not move the footholds it leans toward.
            let rest = self.body.to_world(rest) - self.motion.sway + ahead * fraction;
            let limit = match pull.cmp(&preferred) {
                std::cmp::Ordering::Less => FOOTHOLD_STRETCH - PULL_HYSTERESIS,
                std::cmp::Ordering::Equal => FOOTHOLD_STRETCH + PULL_HYSTERESIS,
                std::cmp::Ordering::Greater => FOOTHOLD_STRETCH,
            };
            (rest, limit)
        };
        // Past a crest the leg does not arch over (open ground), a foothold
        // is never taken, nor kept as the best: the leg would reach it only
        // through the crest. The one least far over is kept apart, for a
        // leg with nowhere else to go but under its own hip (below).
        let mut past_crest: Option<(f32, Foothold)> = None;
        // Keeps `hit` as the best so far; true when it is within `limit`.
        let mut consider = |hit: RayHit, pull: usize, limit: f32| {
            let stretch = reach_needed(terrain, hip, hit.point) / reach;
            let over_crest = if walls {
                0.0
            } else {
                crest_excess(terrain, hip, hit.point, reach)
            };
            if over_crest > 0.0 {
                let way_over = stretch + 2.0 * over_crest / reach;
                if past_crest.is_none_or(|(s, _)| way_over < s) {
                    past_crest = Some((way_over, Foothold { hit, pull }));
                }
                return false;
            }
            if best.is_none_or(|(s, _)| stretch < s) {
                best = Some((stretch, Foothold { hit, pull }));
            }
            stretch <= limit
        };
        // Among walls (a world with shapes), a climber looks ahead and round
        // edges at each pull before pulling in further: a wall ahead is
        // ground to climb, not a reason to shorten its stride. On open
        // ground it does so only when no pull finds ground below within
        // reach (cliffs), so gullies are still stepped over as before.
        let sweep_each_pull = climber && walls;
        // The highest above its hip a ground walker steps up onto a shape:
        // as high as it rides, as it steps down as deep (see
        // `Creature::drop_ahead`). Noise ground's flanks are stepped up as
        // on open ground (on ridged noise 1 m high, with a shape far off, a
        // hexapod otherwise stopped at the first steep rise).
        let step_up = self.spec.body.height;
        for pull in 0..FOOTHOLD_PULLS.len() {
            let (rest, limit) = rest_at(pull);
            let origin = rest + up * above;
            let down = terrain.raycast(origin, -up, length);
            // Among walls, a ray that found a surface above the hip may
            // have a ceiling over the hip's level to start under; so may a
            // ground walker's that started inside the solid (a slab lower
            // over the rest point than the ray's start). A climber's rays
            // from inside the solid go on to the sweep round edges
            // instead: restarted under the solid, a spider climbing a
            // pillar 1 m thick took footholds round its far side and cut a
            // bone 53 mm into it.
            let down = match down {
                Some(hit) if walls && (hit.point - hip).dot(up) > 0.0 => {
                    under_any_ceiling(terrain, (Some(hit), rest, hip, up), above, length)
                }
                None if walls && !climber && terrain.inside(origin) => {
                    under_any_ceiling(terrain, (None, rest, hip, up), above, length)
                }
                other => other,
            }
            .filter(|hit| {
                !walls
                    || climber
                    || (hit.point - hip).dot(up) <= step_up
                    || !terrain.shaped_at(hit.point.x, hit.point.z)
            });
            if let Some(hit) = self.usable(terrain, down, climber)
                && consider(hit, pull, limit)
            {
                return Foothold { hit, pull };
            }
            if down.is_none() && !walls {
                // Started inside a hill or pointing away from the ground:
                // fall back to the point straight below.
                let hit = terrain.project_down(origin);
                if consider(hit, pull, limit) {
                    return Foothold { hit, pull };
                }
            }
            if sweep_each_pull
                && let Some(hit) = self.sweep(terrain, (hip, rest, reach), &mut |hit| {
                    consider(hit, pull, limit)
                })
            {
                return Foothold { hit, pull };
            }
        }
        if climber && !sweep_each_pull {
            for pull in 0..FOOTHOLD_PULLS.len() {
                let (rest, limit) = rest_at(pull);
                if let Some(hit) = self.sweep(terrain, (hip, rest, reach), &mut |hit| {
                    consider(hit, pull, limit)
                }) {
                    return Foothold { hit, pull };
                }
            }
        }
        if climber {
            // Lying across a knife-edge crest, every ray from above the rest
            // points can pass the flanks and find the valley far below: the
            // surface nearest the rest point is then the one to reach for,
            // or, out of reach, to hang toward.
            for pull in 0..FOOTHOLD_PULLS.len() {
                let (rest, limit) = rest_at(pull);
                let point = terrain.closest_point(rest);
                let hit = RayHit {
                    point,
                    distance: rest.distance(point),
                };
                if point.is_finite() && consider(hit, pull, limit) {
                    return Foothold { hit, pull };
                }
            }
        }
        // Footholds no leg reaches but through the solid are no better
        // than none: a leg hung toward the first of them, the far face of
        // a tower it was climbing, through the tower.
        let best = best.filter(|(stretch, _)| stretch.is_finite());
        // On open ground a leg with nothing this side of a crest reaches for
        // the ground under its hip, unless that is nearer than it folds
        // (its body lying on a peak's top): then past the crest after all.
        let cramped = || {
            let under = terrain.project_down(hip).point;
            hip.distance(under) < self.shared.frames[leg].cramped
        };
        let best = if best.is_none() && !walls && cramped() {
            past_crest
        } else {
            best
        };
        best.map_or_else(
            || Foothold {
                // Nothing anywhere (or nothing but through the solid): for
                // a climber among walls the surface nearest the hip;
                // otherwise the ground below it. (Not a
                // ground walker's nearest surface: by a wall, its rest
                // points inside the wall, that is the wall's face, and a
                // five-legged walker turning along a wall stood its feet
                // on it, tilted to its steepest, for good.)
                hit: RayHit {
                    point: if walls && climber {
                        terrain.closest_point(hip)
                    } else if walls {
                        // Straight down among the shapes (a platform under
                        // the hip, a pit's floor), the ground's alone past
                        // them.
                        terrain
                            .raycast(hip, Vec3::NEG_Y, length)
                            .map_or_else(|| terrain.project_down(hip).point, |hit| hit.point)
                    } else {
                        terrain.project_down(hip).point
                    },
                    distance: 0.0,
                },
                pull: 0,
            },
            |(_, found)| found,
        )
    }

    /// A climber's further rays for the leg of `reach` mounted at `hip`
    /// whose rest point (pulled) is `rest`, in order, each hit handed to
    /// `accept`: the first it accepts. A ray from the hip toward the rest point finds a
    /// wall between them (the ray down would start inside it or find the
    /// ground beyond it); rays from below the rest point back toward the
    /// body under the hip, at a few depths, find the face round a convex
    /// edge (a thin lip or a deep wall).
    fn sweep(
        &self,
        terrain: &Ground<'_>,
        (hip, rest, reach): (Vec3, Vec3, f32),
        accept: &mut dyn FnMut(RayHit) -> bool,
    ) -> Option<RayHit> {
        let up = self.body.up();
        let level = rest + up * (hip - rest).dot(up);
        if let Some(hit) = terrain.raycast(hip, level - hip, hip.distance(level) + 0.5 * reach)
            && accept(hit)
        {
            return Some(hit);
        }
        for share in EDGE_DEPTHS {
            let depth = share * (self.spec.body.height + 0.5 * reach);
            let below = rest - up * depth;
            let under_hip = hip - up * (hip - below).dot(up);
            if below.distance(under_hip) <= 1e-3 || terrain.inside(below) {
                continue;
            }
            if let Some(hit) =
                terrain.raycast(below, under_hip - below, below.distance(under_hip) + reach)
                && accept(hit)
            {
                return Some(hit);
            }
        }
        None
    }

    /// `hit`, unless the creature cannot stand there: a ground walker
    /// stands on no face steeper than its `max_slope`.
    fn usable(&self, terrain: &Ground<'_>, hit: Option<RayHit>, climber: bool) -> Option<RayHit> {
        let hit = hit?;
        if climber || !terrain.has_shapes() {
            return Some(hit);
        }
        let normal = terrain.normal_at(hit.point);
        (normal.y >= self.spec.body.max_slope.cos()).then_some(hit)
    }

    /// Stage 2: every leg's desired foothold, for where its rest point will
    /// be after the lead (and, in the air, after the rest of its swing).
    pub(super) fn update_footholds(&mut self, terrain: &Ground<'_>) {
        for i in 0..self.legs.len() {
            let time = match self.legs[i].phase {
                LegPhase::Grounded => 0.0,
                LegPhase::Swinging {
                    progress, duration, ..
                } => (1.0 - progress) * duration,
            };
            let ahead = self.predicted_shift(i, time);
            let found = self.foothold(terrain, i, ahead, self.legs[i].pull);
            let leg = &mut self.legs[i];
            leg.desired = found.hit.point;
            leg.pull = found.pull;
        }
    }
}

/// A foothold ray's `hit` above the hip (or no hit, the ray having
/// started inside the solid), from `above` metres over the rest point
/// `rest` along `up`, when a ceiling hangs between the rest point (at the
/// hip's level) and where the ray started: then the ray again from just
/// under that ceiling. Started over a slab that the body walks under, the
/// ray found the slab's top: an octopod in a 0.7 m crawl space took
/// footholds on it and on the floor both, rolled onto its side and laid a
/// knee 220 mm into the floor. Started inside a thicker slab, it found
/// nothing, and a five-legged walker under a slab 1.2 m up drew its feet
/// in under its hips and crept. A rest point inside the solid (a step
/// taller than the hip) looks up from nowhere: the hit stands (for a
/// ground walker, only so high: see `Creature::foothold`).
fn under_any_ceiling(
    terrain: &Ground<'_>,
    (hit, rest, hip, up): (Option<RayHit>, Vec3, Vec3, Vec3),
    above: f32,
    length: f32,
) -> Option<RayHit> {
    let hip_height = (hip - rest).dot(up);
    let level = rest + up * hip_height;
    match terrain.raycast(level, up, above - hip_height) {
        Some(ceiling) if ceiling.distance > CEILING_MARGIN => {
            // As far below the rest point as the first ray went.
            let start = hip_height + ceiling.distance - CEILING_MARGIN;
            terrain.raycast(
                level + up * (start - hip_height),
                -up,
                start + length - above,
            )
        }
        _ => hit,
    }
}

/// How far under a ceiling (metres) a ray for the surface under a
/// creature starts again: a foothold ray here, the ray for the ground under
/// the body in `posture.rs`.
pub(super) const CEILING_MARGIN: f32 = 0.01;

/// How much leg it takes to put a foot at `point` from `hip`: the straight
/// distance, or in a solid world, when that line passes through the solid
/// (a foothold round an edge), the way over the edge: to where the line
/// meets the surface, and from there to the foot. Infinite when the line
/// leaves the solid by a face turned away from the one it entered by
/// ([`OPPOSED_FACES`]), the foot's own face or one the line crosses on its
/// way out: the far face of a thin wall from a hip beside its near one,
/// or the floor beyond a beam, which no leg reaches but through the solid
/// (a spider beside a 0.2 m beam, its hip below the beam's top, swung a
/// foot over it for 5 s with a bone 77 mm through it, never landing).
pub(super) fn reach_needed(terrain: &Ground<'_>, hip: Vec3, point: Vec3) -> f32 {
    let line = point - hip;
    let length = line.length();
    if terrain.has_shapes()
        && length > 2.0 * EDGE_SLACK
        && let Some(hit) = terrain.raycast(hip, line, length - EDGE_SLACK)
    {
        let entered = terrain.normal_at(hit.point);
        // Back along the line from the foot toward the hip: the face the
        // line leaves the solid by, when open space lies between it and
        // the foot. A foot in the corner at that face's foot (the floor
        // just behind a 5 cm wall) starts the ray inside the wall: then
        // from just off the foot's own face, alongside. The foot's own face
        // when neither finds one (the line goes into the solid at the foot).
        let back = -line / length;
        let on_foot = terrain.normal_at(point);
        let most = length - hit.distance;
        let left = terrain
            .raycast(point + back * EDGE_SLACK, back, most)
            .or_else(|| terrain.raycast(point + on_foot * EDGE_SLACK, back, most))
            .map_or(on_foot, |exit| terrain.normal_at(exit.point));
        if entered.dot(left) < OPPOSED_FACES {
            return f32::INFINITY;
        }
        return hit.distance + hit.point.distance(point);
    }
    length
}

/// Shares of the line from a hip to a foothold on open ground at which the
/// ground is looked for above the line (see [`crest_excess`]).
const CREST_SAMPLES: [f32; 5] = [1.0 / 6.0, 2.0 / 6.0, 0.5, 4.0 / 6.0, 5.0 / 6.0];

/// How far the open ground between `hip` and `point` rises above the
/// highest a leg of `reach`, folded in the middle, arches over the straight
/// line between them (metres; 0 when it arches over all of it): a crest
/// the leg reaches past only through it. Taken as just the straight line, a foothold past a
/// knife edge 0.6 m beyond it was within reach, and an octopod's ankle
/// swung 0.44 m into the crest on its way there (6 m ridges).
fn crest_excess(terrain: &Ground<'_>, hip: Vec3, point: Vec3, reach: f32) -> f32 {
    let arch = arch_over(hip, point, reach);
    // Most of the time the ground's steepest slope between them already
    // keeps it under the arch (the foothold is on the ground, and the
    // ground rises from it no faster than that slope): no heights looked
    // up. (A floor of zero, not known, gives an infinite slope.)
    let (lo, hi) = (hip.xz().min(point.xz()), hip.xz().max(point.xz()));
    let floor = terrain.normal_y_floor(lo, hi);
    let slope = (1.0 / (floor * floor) - 1.0).max(0.0).sqrt();
    let across = hip.xz().distance(point.xz());
    let under_arch = |share: f32| {
        let on_line = hip.lerp(point, share);
        point.y + slope * (1.0 - share) * across - on_line.y <= arch
    };
    if CREST_SAMPLES.iter().all(|&share| under_arch(share)) {
        return 0.0;
    }
    rise_over_arch(terrain, hip, point, arch)
}

/// How high a leg of `reach`, folded in the middle, arches over the
/// straight line from `hip` to `point` (metres).
fn arch_over(hip: Vec3, point: Vec3, reach: f32) -> f32 {
    let span = hip.distance(point);
    (0.25 * (reach * reach - span * span)).max(0.0).sqrt()
}

/// The most the ground rises above an `arch` over the line from `hip` to
/// `point`, at [`CREST_SAMPLES`] (0 when it nowhere does): each height
/// looked up.
fn rise_over_arch(terrain: &Ground<'_>, hip: Vec3, point: Vec3, arch: f32) -> f32 {
    CREST_SAMPLES.iter().fold(0.0, |most: f32, &share| {
        let on_line = hip.lerp(point, share);
        most.max(terrain.height(on_line.x, on_line.z) - on_line.y - arch)
    })
}

/// The cosine between two faces' normals below which a foot on one is out
/// of reach of a hip whose line to it meets the other (about 140°): round
/// a convex edge a leg bends over the edge (90° on a box), but the way
/// round a thin wall or a block's far side goes over its top, and the
/// straight line's length says nothing of it (an octopod on a 0.2 m wall's
/// far face took footholds on the near face, 0.44 m away by the line and
/// 0.87 m over the top, and stood on them with its legs through the wall).
const OPPOSED_FACES: f32 = -0.75;

/// Depths below a climber's rest point (as shares of its ride height and
/// half its reach) from which rays bend back round a convex edge.
const EDGE_DEPTHS: [f32; 3] = [0.3, 0.6, 1.0];

/// How near the foothold a line from the hip may meet the surface and
/// still count as reaching it straight (metres).
const EDGE_SLACK: f32 = 0.02;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::creature::boxed;

    /// Ridged noise 6 m high read on its lattice: a spike on the origin.
    fn spiked() -> crate::terrain::Heightfield {
        let spec = crate::config::parse_terrain(
            "ridges.toml",
            "name = \"ridges\"\n[noise]\nfractal = \"ridged\"\nfrequency = 0.04\n\
             amplitude = 6.0\noctaves = 4\noffset = [0.0, 0.0]\n",
        )
        .expect("a ridged terrain file is valid");
        crate::terrain::Heightfield::generate(&spec)
    }

    #[test]
    fn a_foothold_past_a_spike_is_past_a_crest_and_one_down_its_flank_is_not() {
        let field = spiked();
        let ground = field.world();
        let top = ground.height(0.0, 0.0);
        // A hip beside the spike's tip, 0.3 m under it; a foothold as far
        // the other side, on the ground: the tip stands between them.
        let hip = Vec3::new(-0.4, top - 0.3, 0.0);
        let beyond = Vec3::new(0.4, ground.height(0.4, 0.0), 0.0);
        let excess = crest_excess(&ground, hip, beyond, 1.0);
        assert!(excess > 0.1, "{excess}");
        // Down the flank on its own side, the leg arches over nothing.
        let below = Vec3::new(-0.8, ground.height(-0.8, 0.0), 0.0);
        assert_eq!(crest_excess(&ground, hip, below, 1.0), 0.0);
    }

    #[test]
    fn the_slope_bound_never_skips_a_crest_the_heights_show() {
        let field = spiked();
        let ground = field.world();
        let looked_up =
            |hip, point, reach| rise_over_arch(&ground, hip, point, arch_over(hip, point, reach));
        let mut crests = 0;
        for i in -6..=6 {
            for k in -6..=6 {
                let (x, z) = (i as f32 * 0.37, k as f32 * 0.29);
                let hip = Vec3::new(x, ground.height(x, z) + 0.25, z);
                for (dx, dz) in [(0.6, 0.0), (-0.5, 0.3), (0.1, -0.7)] {
                    let (px, pz) = (x + dx, z + dz);
                    let point = Vec3::new(px, ground.height(px, pz), pz);
                    let excess = crest_excess(&ground, hip, point, 0.8);
                    assert_eq!(excess, looked_up(hip, point, 0.8), "{hip} -> {point}");
                    crests += usize::from(excess > 0.0);
                }
            }
        }
        // The spike's flanks put some of these lines through the ground.
        assert!(crests > 0);
    }

    /// Fails unless the foot at `on_top`, round an edge from `hip`, is in
    /// reach by the way over that edge: no shorter than the straight line.
    #[track_caller]
    fn assert_goes_over_the_edge(ground: &Ground<'_>, hip: Vec3, on_top: Vec3) {
        let over = reach_needed(ground, hip, on_top);
        assert!(
            over.is_finite() && over >= hip.distance(on_top) - 1e-5,
            "{over}"
        );
    }

    #[test]
    fn a_foot_on_a_thin_walls_far_face_is_out_of_reach_of_a_hip_by_its_near_face() {
        // 0.2 m thick, 3 m tall: faces at x = 4.9 and 5.1, top at y = 3.
        let field = boxed([5.0, 1.5, 0.0], [0.2, 3.0, 40.0]);
        let ground = field.world();
        let hip = Vec3::new(5.34, 2.72, 0.0);
        // By the line, 0.44 m; over the top, 0.87 m.
        let behind = Vec3::new(4.9, 2.7, 0.0);
        assert_eq!(reach_needed(&ground, hip, behind), f32::INFINITY);
        // A foot on the top, round the near edge: the way over that edge.
        let on_top = Vec3::new(5.0, 3.0, 0.0);
        assert_goes_over_the_edge(&ground, hip, on_top);
        // And one on the hip's own face, straight.
        let beside = Vec3::new(5.1, 2.4, 0.0);
        assert!((reach_needed(&ground, hip, beside) - hip.distance(beside)).abs() < 1e-6);
    }

    #[test]
    fn the_floor_beyond_a_beam_is_out_of_reach_of_a_hip_below_its_top() {
        // A beam 0.2 m wide and 1 m tall on the floor: faces at z = ±0.1.
        let field = boxed([6.0, 0.5, 0.0], [8.0, 1.0, 0.2]);
        let ground = field.world();
        let hip = Vec3::new(2.6, 0.93, 0.4);
        // 1.14 m by the line, through the beam; over its top, far more.
        let beyond = Vec3::new(2.65, 0.0, -0.26);
        assert_eq!(reach_needed(&ground, hip, beyond), f32::INFINITY);
        // Its top, round the near edge: the way over that edge.
        assert_goes_over_the_edge(&ground, hip, Vec3::new(2.6, 1.0, 0.0));
        // The floor in the corner behind a wall, 1 cm off its far face: the
        // line back from the foot starts inside the wall.
        let wall = boxed([5.0, 1.5, 0.0], [0.2, 3.0, 40.0]);
        let walled = wall.world();
        let corner = Vec3::new(5.11, 0.0, 0.0);
        assert_eq!(
            reach_needed(&walled, Vec3::new(4.6, 0.8, 0.0), corner),
            f32::INFINITY
        );
        // And the floor on the hip's side, straight.
        let near = Vec3::new(2.6, 0.0, 0.5);
        assert!((reach_needed(&ground, hip, near) - hip.distance(near)).abs() < 1e-6);
    }
}
