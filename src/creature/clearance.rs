//! Self-intersection checks: legs against legs, legs against the body.

use glam::Vec3;
use smallvec::SmallVec;

use super::{Body, Leg};
use crate::geometry::{inside_box, segment_distance, segment_enters_box};
use crate::ik::Chain;

/// Two legs closer than this (metres) count as crossing, unless one is
/// too small for it (see [`CreatureSpec::leg_gaps`](super::CreatureSpec::leg_gaps)).
pub const LEG_GAP: f32 = 0.01;

/// Whether any two legs' bones come within their gap of each other: the
/// smaller of the two legs' `gaps` (one a leg). First bones of legs
/// mounted at the same point are not compared (they touch by design).
pub fn legs_cross(legs: &[Leg], gaps: &[f32]) -> bool {
    crossing_pair(legs, gaps).is_some()
}

/// The first two legs (indices, in order) whose bones come within their
/// gap of each other, as [`legs_cross`] finds them.
pub fn crossing_pair(legs: &[Leg], gaps: &[f32]) -> Option<(usize, usize)> {
    // Each leg's box once, not once a pair (an octopod has 28 pairs). On
    // the stack for as many legs as any shipped creature has, and not
    // cleared first: zeroing room for a file's most legs was a tenth of
    // this for a spider.
    let boxes: SmallVec<[(Vec3, Vec3); CACHED_BOXES]> =
        legs.iter().map(|leg| bounds(leg.chain.joints())).collect();
    let box_of = |k: usize| boxes[k];
    // Boxes apart by more than the gap along an axis: nothing in one comes
    // within the gap of anything in the other.
    let apart = |(a_min, a_max): (Vec3, Vec3), (b_min, b_max): (Vec3, Vec3), gap: f32| {
        (a_min - gap).cmpgt(b_max).any() || (b_min - gap).cmpgt(a_max).any()
    };
    for (i, a) in legs.iter().enumerate() {
        let a_box = box_of(i);
        for (j, b) in legs.iter().enumerate().skip(i + 1) {
            let gap = gaps[i].min(gaps[j]);
            if apart(a_box, box_of(j), gap) {
                continue;
            }
            let shared_mount = a.chain.root().distance(b.chain.root()) <= gap;
            let (ja, jb) = (a.chain.joints(), b.chain.joints());
            for (ka, sa) in ja.windows(2).enumerate() {
                let sa_box = (sa[0].min(sa[1]), sa[0].max(sa[1]));
                for (kb, sb) in jb.windows(2).enumerate() {
                    if shared_mount && ka == 0 && kb == 0
                        || apart(sa_box, (sb[0].min(sb[1]), sb[0].max(sb[1])), gap)
                    {
                        continue;
                    }
                    if segment_distance(sa[0], sa[1], sb[0], sb[1]) < gap {
                        return Some((i, j));
                    }
                }
            }
        }
    }
    None
}

/// Legs whose boxes [`legs_cross`] keeps on the stack (a creature with
/// more keeps them on the heap for the call).
const CACHED_BOXES: usize = 16;

/// Whether any bone of `leg` passes through the body box (`half` its
/// half-extents). A first bone mounted inside the box must leave it (its
/// far end outside); every other bone must stay out entirely.
pub fn leg_enters_body(body: &Body, half: Vec3, leg: &Leg) -> bool {
    chain_enters_body(body, half, &leg.chain)
}

/// [`leg_enters_body`] for a chain not (yet) a leg's: a pose being tried.
pub fn chain_enters_body(body: &Body, half: Vec3, chain: &Chain) -> bool {
    let joints = chain.joints();
    let local = |p: Vec3| body.to_local(p);
    let root = local(joints[0]);
    let mut previous = root;
    for (k, &joint) in joints.iter().enumerate().skip(1) {
        let p = local(joint);
        let hits = if k == 1 && inside_box(root, half) {
            inside_box(p, half)
        } else {
            segment_enters_box(previous, p, half)
        };
        if hits {
            return true;
        }
        previous = p;
    }
    false
}

fn bounds(points: &[Vec3]) -> (Vec3, Vec3) {
    points
        .iter()
        .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(*p), hi.max(*p))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::creature::LegPhase;
    use crate::ik::{Chain, SolveReport, SolverKind, Termination};
    use glam::Quat;

    fn leg(joints: &[Vec3]) -> Leg {
        let chain = Chain::new(joints.to_vec()).unwrap();
        Leg {
            foot: chain.end(),
            desired: chain.end(),
            pull: 0,
            chain,
            phase: LegPhase::Grounded,
            report: SolveReport {
                iterations: 0,
                error: 0.0,
                reached: true,
                termination: Termination::Reached,
            },
            solver: SolverKind::Fabrik,
            planted_end: None,
            bone_error: 0.0,
            enters_body: false,
            knee_clearance: f32::INFINITY,
            bone_clearance: f32::INFINITY,
            hanging: false,
            knee_gap: f32::INFINITY,
            lifted_from: Vec3::NAN,
        }
    }

    #[test]
    fn crossing_and_apart_legs() {
        let a = leg(&[
            Vec3::new(0.2, 0.0, -0.1),
            Vec3::new(0.4, 0.2, -0.4),
            Vec3::new(0.0, -0.3, -0.6),
        ]);
        let apart = leg(&[
            Vec3::new(-0.2, 0.0, -0.1),
            Vec3::new(-0.4, 0.2, -0.4),
            Vec3::new(-0.6, -0.3, -0.6),
        ]);
        assert!(!legs_cross(&[a.clone(), apart], &[LEG_GAP; 2]));
        // A back leg whose foot reaches forward past the front leg's shin.
        let crossing = leg(&[
            Vec3::new(-0.2, 0.0, -0.1),
            Vec3::new(-0.1, 0.2, -0.4),
            Vec3::new(0.5, -0.3, -0.6),
        ]);
        assert!(legs_cross(&[a, crossing], &[LEG_GAP; 2]));
    }

    /// Two straight legs side by side, 8 mm apart all along.
    fn legs_8_mm_apart() -> [Leg; 2] {
        let straight = |x: f32| {
            leg(&[
                Vec3::new(x, 0.0, 0.0),
                Vec3::new(x, -0.1, -0.3),
                Vec3::new(x, -0.2, -0.6),
            ])
        };
        [straight(0.0), straight(0.008)]
    }

    #[test]
    fn a_pair_of_legs_takes_the_smaller_of_their_gaps() {
        let [a, b] = legs_8_mm_apart();
        assert!(legs_cross(&[a.clone(), b.clone()], &[LEG_GAP; 2]));
        assert!(!legs_cross(&[a.clone(), b.clone()], &[LEG_GAP, 0.005]));
        assert!(!legs_cross(&[a.clone(), b.clone()], &[0.005, LEG_GAP]));
        // Only its own two legs' gaps: a small third leg far off changes
        // nothing between them.
        let far = leg(&[
            Vec3::new(2.0, 0.0, 0.0),
            Vec3::new(2.0, -0.01, -0.03),
            Vec3::new(2.0, -0.02, -0.06),
        ]);
        assert_eq!(
            crossing_pair(&[a, b, far], &[LEG_GAP, LEG_GAP, 0.001]),
            Some((0, 1))
        );
    }

    /// A row of legs side by side, each 0.1 m from the next, plus `extra`.
    fn row_of_legs(count: usize, extra: Option<Leg>) -> Vec<Leg> {
        let mut legs: Vec<Leg> = (0..count)
            .map(|k| {
                let x = 0.1 * k as f32;
                leg(&[
                    Vec3::new(x, 0.0, 0.0),
                    Vec3::new(x, 0.2, -0.3),
                    Vec3::new(x, -0.3, -0.5),
                ])
            })
            .collect();
        legs.extend(extra);
        legs
    }

    #[test]
    fn crossings_are_found_among_any_number_of_legs() {
        // Past the legs whose boxes are kept, and past what a file may
        // have: the last leg's foot reaches back across the first's shin.
        for count in [3, 17, 70] {
            let last = 0.1 * count as f32;
            let crossing = leg(&[
                Vec3::new(last, 0.0, 0.0),
                Vec3::new(last, 0.2, -0.3),
                Vec3::new(0.0, -0.05, -0.4),
            ]);
            let gaps = vec![LEG_GAP; count + 1];
            assert!(!legs_cross(&row_of_legs(count, None), &gaps), "{count}");
            assert!(
                legs_cross(&row_of_legs(count, Some(crossing)), &gaps),
                "{count}"
            );
        }
    }

    #[test]
    fn legs_sharing_a_mount_are_not_crossing_at_the_mount() {
        let a = leg(&[
            Vec3::ZERO,
            Vec3::new(0.3, 0.0, -0.3),
            Vec3::new(0.5, -0.3, -0.5),
        ]);
        let b = leg(&[
            Vec3::ZERO,
            Vec3::new(-0.3, 0.0, -0.3),
            Vec3::new(-0.5, -0.3, -0.5),
        ]);
        assert!(!legs_cross(&[a, b], &[LEG_GAP; 2]));
    }

    #[test]
    fn knees_through_the_body_are_caught() {
        let body = Body {
            position: Vec3::new(1.0, 0.5, 0.0),
            orientation: Quat::from_rotation_y(0.5),
            velocity: Vec3::ZERO,
        };
        let half = Vec3::new(0.25, 0.08, 0.18);
        let world = |p: Vec3| body.to_world(p);
        // Mounted inside, leaves through the side: fine.
        let out = leg(&[
            world(Vec3::new(0.1, 0.0, -0.1)),
            world(Vec3::new(0.2, 0.2, -0.4)),
            world(Vec3::new(0.4, -0.3, -0.5)),
        ]);
        assert!(!leg_enters_body(&body, half, &out));
        // Knee inside the box.
        let knee_in = leg(&[
            world(Vec3::new(0.1, 0.0, -0.1)),
            world(Vec3::new(0.0, 0.0, 0.05)),
            world(Vec3::new(0.0, -0.4, 0.3)),
        ]);
        assert!(leg_enters_body(&body, half, &knee_in));
        // Both joints outside, but the shin cuts through the body.
        let shin_through = leg(&[
            world(Vec3::new(0.1, 0.0, -0.1)),
            world(Vec3::new(0.0, 0.3, -0.3)),
            world(Vec3::new(0.0, -0.3, 0.3)),
        ]);
        assert!(leg_enters_body(&body, half, &shin_through));
    }
}
