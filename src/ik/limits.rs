//! Joint limits (FABRIK report §3.7.2): how far a bone may turn from its
//! parent bone, as a hinge or as a cone.
//!
//! A limit belongs to an inner joint: limit `k` constrains the direction of
//! bone `k + 1` relative to bone `k` (the joint between them is chain joint
//! `k + 1`). The root joint has no parent bone and is never limited.
//!
//! Solvers work on joint positions, which carry no twist, so a hinge's axis
//! needs a convention for the parent bone's frame: it is the chain's rest
//! frame (for a leg, the body's orientation) turned by the shortest rotation
//! taking the parent bone's rest direction onto its current direction. In the
//! rest pose the axis is therefore exactly the one written in the creature
//! file, in the body's frame; as the parent bone swings (a thigh yawing
//! through a stride), the axis swings with it without twisting.
//!
//! Every such convention is singular somewhere (no frame field covers the
//! sphere); this one is singular for a parent bone turned half a turn from
//! its rest direction, where the shortest rotation's axis is undefined and a
//! knee kept "within its limits" can end up bent toward the other side of
//! the body. An axis fixed in the body frame instead (tried, and measured)
//! avoids that but pins each knee to its rest plane, and the spider's feet
//! then missed their footholds by up to 18 cm as its thighs yawed.

use glam::{DQuat, DVec3, Vec3};

use super::IkError;
use super::ccd::shortest_arc;
use super::unit_frame::dir_or;

/// Smallest angle (degrees) a hinge axis must keep from its parent bone's
/// rest direction: nearer, the hinge plane is ill-defined.
pub const MIN_AXIS_ANGLE_DEG: f32 = 1.0;

/// Half the number of arcs [`Limits::place_hinged`] splits its circle into
/// when looking for a hinged joint's place (arcs of 15°: narrower than any
/// two places a hinge allows on one circle).
const HINGE_SWIVEL_SAMPLES: usize = 12;
/// Bisections refining a hinged joint's place on its circle (to 1e-13 rad).
const HINGE_BISECTIONS: usize = 48;

/// A limit on how a bone may turn relative to the bone before it.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum JointLimit {
    /// No limit: a ball joint.
    #[default]
    Free,
    /// The bone turns only about `axis` (see the module docs for how it
    /// follows the parent bone), by a signed angle from the parent's direction between
    /// `min` and `max` radians (right-handed about the axis; 0 is straight).
    Hinge {
        /// Rotation axis in the parent bone's frame (the chain's rest frame, the
        /// body frame for a leg, as the bone rests; see the module docs); need
        /// not be unit length.
        axis: Vec3,
        /// Smallest bend, radians, in [-π, π].
        min: f32,
        /// Largest bend, radians, in [min, π].
        max: f32,
    },
    /// The bone stays within `max` radians of the parent bone's direction.
    Cone {
        /// Largest bend, radians, in [0, π].
        max: f32,
    },
}

impl JointLimit {
    /// Why this limit is not usable, if it is not: non-finite values, a zero
    /// axis, `min > max`, or angles outside [-π, π] (hinge) or [0, π] (cone).
    pub fn check(&self) -> Result<(), String> {
        let pi = std::f32::consts::PI + 1e-6;
        match *self {
            JointLimit::Free => Ok(()),
            JointLimit::Hinge { axis, min, max } => {
                if !axis.is_finite() || axis.length_squared() < 1e-12 {
                    Err(format!(
                        "hinge axis {axis} must be a finite non-zero vector"
                    ))
                } else if !(min.is_finite() && max.is_finite()) {
                    Err("hinge angles must be finite".into())
                } else if min > max {
                    Err(format!(
                        "hinge min {:.1}° is above max {:.1}°",
                        min.to_degrees(),
                        max.to_degrees()
                    ))
                } else if min < -pi || max > pi {
                    Err("hinge angles must lie within -180° to 180°".into())
                } else {
                    Ok(())
                }
            }
            JointLimit::Cone { max } => {
                if (0.0..=pi).contains(&max) {
                    Ok(())
                } else {
                    Err(format!(
                        "cone angle {:.1}° must lie within 0° to 180°",
                        max.to_degrees()
                    ))
                }
            }
        }
    }

    /// Whether this limit restricts anything.
    pub fn is_free(&self) -> bool {
        matches!(self, JointLimit::Free)
    }
}

/// A limit in solver form (`f64`, unit axis, rest parent direction).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum UnitLimit {
    Free,
    Hinge {
        /// The axis in the rest frame, made perpendicular to `rest_parent`.
        axis: DVec3,
        /// The parent bone's rest direction in the rest frame.
        rest_parent: DVec3,
        min: f64,
        max: f64,
    },
    Cone {
        max: f64,
    },
}

impl UnitLimit {
    /// The solver form of `limit` for a parent bone resting along `rest_parent`.
    pub fn new(limit: JointLimit, rest_parent: Vec3, joint: usize) -> Result<UnitLimit, IkError> {
        limit
            .check()
            .map_err(|reason| IkError::InvalidLimit { joint, reason })?;
        Ok(match limit {
            JointLimit::Free => UnitLimit::Free,
            JointLimit::Cone { max } => UnitLimit::Cone {
                max: f64::from(max),
            },
            JointLimit::Hinge { axis, min, max } => {
                let parent = rest_parent.as_dvec3().normalize_or(DVec3::Y);
                let axis = axis.as_dvec3().normalize();
                let off_axis = axis.reject_from_normalized(parent);
                let min_sin = f64::from(MIN_AXIS_ANGLE_DEG).to_radians().sin();
                if off_axis.length() < min_sin {
                    return Err(IkError::InvalidLimit {
                        joint,
                        reason: format!(
                            "hinge axis {axis} is (nearly) along the parent bone's rest direction \
                             {parent}; a hinge axis must be across the bone (at least \
                             {MIN_AXIS_ANGLE_DEG}° from it)"
                        ),
                    });
                }
                UnitLimit::Hinge {
                    axis: off_axis.normalize(),
                    rest_parent: parent,
                    min: f64::from(min),
                    max: f64::from(max),
                }
            }
        })
    }
}

/// A chain's limits as a solve sees them: one per inner joint, and the rest
/// frame that orients hinge axes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits<'a> {
    pub joints: &'a [UnitLimit],
    pub frame: DQuat,
}

/// The angle of `v` about hinge `axis`, measured from `zero` toward
/// `across` (both perpendicular to the axis). A `v` along the axis has no
/// bend in the plane: it counts as straight (0).
fn hinge_angle(v: DVec3, axis: DVec3, zero: DVec3, across: DVec3) -> f64 {
    let in_plane = v.reject_from_normalized(axis);
    if in_plane.length_squared() > 1e-24 {
        in_plane.dot(across).atan2(in_plane.dot(zero))
    } else {
        0.0
    }
}

/// `theta` if it lies in [`min`, `max`], else whichever end is nearer
/// around the circle.
fn clamp_angle(theta: f64, min: f64, max: f64) -> f64 {
    if (min..=max).contains(&theta) {
        theta
    } else if wrap(theta - min).abs() <= wrap(theta - max).abs() {
        min
    } else {
        max
    }
}

/// Signed angle `x` wrapped into (-π, π].
fn wrap(x: f64) -> f64 {
    use std::f64::consts::{PI, TAU};
    let y = (x + PI).rem_euclid(TAU) - PI;
    if y <= -PI { y + TAU } else { y }
}

/// Angle between unit vectors, accurate at every size.
fn angle(a: DVec3, b: DVec3) -> f64 {
    a.cross(b).length().atan2(a.dot(b))
}

impl Limits<'_> {
    /// A hinge's axis for a parent bone along unit `parent` (see the module
    /// docs), made perpendicular to unit `across`.
    fn hinge_axis(&self, axis: DVec3, rest_parent: DVec3, parent: DVec3, across: DVec3) -> DVec3 {
        let turned = shortest_arc(self.frame * rest_parent, parent) * (self.frame * axis);
        dir_or(
            turned.reject_from_normalized(across),
            across.any_orthonormal_vector(),
        )
    }

    /// The nearest direction to unit `child` that limit `index` allows for a
    /// bone after one along unit `parent`.
    pub fn clamp(&self, index: usize, parent: DVec3, child: DVec3) -> DVec3 {
        match self.joints.get(index).copied().unwrap_or(UnitLimit::Free) {
            UnitLimit::Free => child,
            UnitLimit::Cone { max } => {
                let bend = angle(parent, child);
                if bend <= max {
                    return child;
                }
                let side = dir_or(child.reject_from_normalized(parent), {
                    parent.any_orthonormal_vector()
                });
                parent * max.cos() + side * max.sin()
            }
            UnitLimit::Hinge {
                axis,
                rest_parent,
                min,
                max,
            } => {
                let axis = self.hinge_axis(axis, rest_parent, parent, parent);
                let across = axis.cross(parent);
                let theta = hinge_angle(child, axis, parent, across);
                let clamped = clamp_angle(theta, min, max);
                parent * clamped.cos() + across * clamped.sin()
            }
        }
    }

    /// Whether limit `index` is a hinge.
    pub fn is_hinge(&self, index: usize) -> bool {
        matches!(self.joints.get(index), Some(UnitLimit::Hinge { .. }))
    }

    /// Where to put a hinged joint so that both bones around it fit at once:
    /// the point `E` at `parent_len` from `anchor` (the joint before, already
    /// placed) and `child_len` from `next` (the joint after, where the chain
    /// wants it), at which the bone `E → next` lies in hinge `index`'s plane
    /// for the bone `anchor → E`, at an allowed angle. The candidates form a
    /// circle about the `anchor`–`next` line; the one returned is the valid
    /// point nearest around it to `near` (the joint's current place), and the
    /// parent bone must itself keep limit `index - 1` after `grandparent`
    /// (the bone before it, if any). `None` when no point qualifies or the
    /// two bones cannot span the distance.
    ///
    /// FABRIK's passes place one joint at a time; a hinge ties the child
    /// bone's plane to the parent bone's direction, so projecting the child
    /// into the plane after the parent is placed (what [`Limits::clamp`]
    /// does) moves the joint after it off the line the passes converge on,
    /// and the next pass moves it back: the two crawl toward each other by
    /// millimetres per iteration. Choosing the hinged joint with both bones
    /// in view leaves the next joint where the passes put it.
    #[allow(clippy::too_many_arguments)]
    pub fn place_hinged(
        &self,
        index: usize,
        anchor: DVec3,
        next: DVec3,
        parent_len: f64,
        child_len: f64,
        near: DVec3,
        grandparent: Option<DVec3>,
    ) -> Option<DVec3> {
        let UnitLimit::Hinge {
            axis,
            rest_parent,
            min,
            max,
        } = self.joints.get(index).copied()?
        else {
            return None;
        };
        let span = next - anchor;
        let distance = span.length();
        // Strictly inside the two bones' reach, or the circle is a point
        // (or empty) and the ordinary step does as well.
        let slack = 1e-9 * (parent_len + child_len);
        if distance <= (parent_len - child_len).abs() + slack
            || distance >= parent_len + child_len - slack
        {
            return None;
        }
        let line = span / distance;
        let along = (parent_len * parent_len - child_len * child_len + distance * distance)
            / (2.0 * distance);
        let radius = (parent_len * parent_len - along * along).max(0.0).sqrt();
        let centre = anchor + line * along;
        let e1 = dir_or((near - anchor).reject_from_normalized(line), {
            line.any_orthonormal_vector()
        });
        let e2 = line.cross(e1);
        let point = |phi: f64| centre + (e1 * phi.cos() + e2 * phi.sin()) * radius;
        // How far the child bone is out of the hinge plane at swivel `phi`,
        // and its bend in the plane.
        let measure = |phi: f64| {
            let joint = point(phi);
            let parent = (joint - anchor) / parent_len;
            let child = (next - joint) / child_len;
            let hinge = self.hinge_axis(axis, rest_parent, parent, parent);
            let across = hinge.cross(parent);
            (child.dot(hinge), child.dot(across).atan2(child.dot(parent)))
        };
        // Sample the circle, nearest swivels to `near` first, and refine
        // every sign change of the out-of-plane component by bisection.
        use std::f64::consts::TAU;
        let steps = HINGE_SWIVEL_SAMPLES as i32;
        let order = (0..steps).flat_map(|k| [k, -k - 1]);
        for k in order.take(2 * steps as usize) {
            let (mut lo, mut hi) = (
                f64::from(k) * TAU / f64::from(2 * steps),
                f64::from(k + 1) * TAU / f64::from(2 * steps),
            );
            let (mut g_lo, _) = measure(lo);
            let (g_hi, _) = measure(hi);
            if g_lo == 0.0 {
                hi = lo;
            } else if g_hi == 0.0 {
                lo = hi;
            } else if g_lo.signum() == g_hi.signum() {
                continue;
            }
            for _ in 0..HINGE_BISECTIONS {
                if hi - lo <= 1e-13 {
                    break;
                }
                let mid = 0.5 * (lo + hi);
                let (g_mid, _) = measure(mid);
                if g_mid.signum() == g_lo.signum() {
                    lo = mid;
                    g_lo = g_mid;
                } else {
                    hi = mid;
                }
            }
            let phi = 0.5 * (lo + hi);
            let (g, bend) = measure(phi);
            // A sign change across the frame's singularity is no root.
            if g.abs() > 1e-9 || bend < min - 1e-12 || bend > max + 1e-12 {
                continue;
            }
            let joint = point(phi);
            if let Some(grand) = grandparent {
                let parent = (joint - anchor) / parent_len;
                if index == 0 || self.violation(index - 1, grand, parent) > 1e-9 {
                    continue;
                }
            }
            return Some(joint);
        }
        None
    }

    /// The smallest largest-bend of any cone (π when there is none): how
    /// sharply every joint of the chain may bend at once.
    pub fn tightest_bend(&self) -> f64 {
        self.joints
            .iter()
            .map(|l| match l {
                UnitLimit::Cone { max } => *max,
                UnitLimit::Hinge { min, max, .. } => min.abs().max(max.abs()),
                UnitLimit::Free => std::f64::consts::PI,
            })
            .fold(std::f64::consts::PI, f64::min)
    }

    /// The nearest direction to unit `parent` that limit `index` allows
    /// before a bone along unit `child`: the limit read backwards, as
    /// FABRIK's end-to-root pass needs it. A cone is symmetric; a hinge's
    /// axis is taken from the frame `parent` itself gives, so the result
    /// lies in that hinge plane with `child` at an allowed angle from it.
    pub fn clamp_parent(&self, index: usize, child: DVec3, parent: DVec3) -> DVec3 {
        match self.joints.get(index).copied().unwrap_or(UnitLimit::Free) {
            UnitLimit::Free => parent,
            UnitLimit::Cone { .. } => self.clamp(index, child, parent),
            UnitLimit::Hinge {
                axis,
                rest_parent,
                min,
                max,
            } => {
                let axis = self.hinge_axis(axis, rest_parent, parent, child);
                // θ is the turn from the parent to the child about the axis.
                let across = axis.cross(child);
                let theta = -hinge_angle(parent, axis, child, across);
                let clamped = clamp_angle(theta, min, max);
                child * clamped.cos() - across * clamped.sin()
            }
        }
    }

    /// How far (radians) unit `child` is outside limit `index` after `parent`.
    pub fn violation(&self, index: usize, parent: DVec3, child: DVec3) -> f64 {
        angle(child, self.clamp(index, parent, child))
    }

    /// Largest violation over the chain's inner joints, radians.
    pub fn max_violation(&self, joints: &[DVec3]) -> f64 {
        let mut worst: f64 = 0.0;
        for k in 1..joints.len().saturating_sub(1) {
            let parent = dir_or(joints[k] - joints[k - 1], DVec3::Y);
            let child = dir_or(joints[k + 1] - joints[k], parent);
            worst = worst.max(self.violation(k - 1, parent, child));
        }
        worst
    }

    /// Turns every bone from bone `from` on into its limits, keeping each
    /// bone's direction where it is allowed and its length always: a pose
    /// projected joint by joint from the root outward.
    pub fn enforce(&self, joints: &mut [DVec3], lengths: &[f64], from: usize) {
        let start = from.max(1);
        if start + 1 >= joints.len() {
            return;
        }
        let mut old = joints[start];
        for k in start..joints.len() - 1 {
            let parent = dir_or(joints[k] - joints[k - 1], DVec3::Y);
            let child = dir_or(joints[k + 1] - old, parent);
            old = joints[k + 1];
            let allowed = self.clamp(k - 1, parent, child);
            joints[k + 1] = joints[k] + allowed * lengths[k];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(list: &[UnitLimit]) -> Limits<'_> {
        Limits {
            joints: list,
            frame: DQuat::IDENTITY,
        }
    }

    #[test]
    fn cone_clamps_to_its_rim() {
        let list = [UnitLimit::Cone {
            max: 30f64.to_radians(),
        }];
        let l = limits(&list);
        let child = DVec3::new(0.0, 1.0, 0.0);
        let clamped = l.clamp(0, DVec3::X, child);
        assert!((angle(DVec3::X, clamped) - 30f64.to_radians()).abs() < 1e-12);
        assert!(clamped.z.abs() < 1e-12 && clamped.y > 0.0);
        let inside = DVec3::new(1.0, 0.1, 0.0).normalize();
        assert_eq!(l.clamp(0, DVec3::X, inside), inside);
        assert!((l.violation(0, DVec3::X, child) - 60f64.to_radians()).abs() < 1e-12);
    }

    #[test]
    fn hinge_keeps_its_plane_and_range() {
        let hinge = UnitLimit::new(
            JointLimit::Hinge {
                axis: Vec3::Z,
                min: (-10f32).to_radians(),
                max: 90f32.to_radians(),
            },
            Vec3::X,
            0,
        )
        .unwrap();
        let list = [hinge];
        let l = limits(&list);
        // Out of plane: projected back into the x-y plane.
        let tilted = DVec3::new(1.0, 1.0, 1.0).normalize();
        let c = l.clamp(0, DVec3::X, tilted);
        assert!(c.z.abs() < 1e-12);
        assert!((angle(DVec3::X, c) - 45f64.to_radians()).abs() < 1e-9);
        // Beyond min: at -10°; bent backwards past 180°: nearest bound.
        let back = DVec3::new(0.0, -1.0, 0.0);
        let c = l.clamp(0, DVec3::X, back);
        assert!((c.y.atan2(c.x) + 10f64.to_radians()).abs() < 1e-6, "{c}");
        let almost_reversed = DVec3::new(-1.0, 0.3, 0.0).normalize();
        let c = l.clamp(0, DVec3::X, almost_reversed);
        assert!((c.y.atan2(c.x) - 90f64.to_radians()).abs() < 1e-6, "{c}");
        // The axis follows the parent bone as it swings.
        let parent = DVec3::Y;
        let c = l.clamp(0, parent, DVec3::new(-1.0, 0.0, 0.0));
        assert!((c - DVec3::new(-1.0, 0.0, 0.0)).length() < 1e-9, "{c}");
    }

    #[test]
    fn a_hinged_joint_is_placed_where_both_bones_fit() {
        // An elbow hinged about z for an upper arm resting along -y: the
        // forearm turns in the x-y plane, 0° to 150°.
        let hinge = UnitLimit::new(
            JointLimit::Hinge {
                axis: Vec3::Z,
                min: 0.0,
                max: 150f32.to_radians(),
            },
            Vec3::NEG_Y,
            0,
        )
        .unwrap();
        let list = [hinge];
        let l = limits(&list);
        // A wrist off to the side: the upper arm must swing so that the
        // plane its hinge carries holds the forearm.
        let next = DVec3::new(0.5, -0.1, 0.3);
        let near = DVec3::new(0.1, -0.5, 0.0);
        let elbow = l
            .place_hinged(0, DVec3::ZERO, next, 0.5, 0.4, near, None)
            .unwrap();
        assert!((elbow.length() - 0.5).abs() < 1e-9, "{elbow}");
        assert!(((next - elbow).length() - 0.4).abs() < 1e-9, "{elbow}");
        let joints = [DVec3::ZERO, elbow, next];
        assert!(
            l.max_violation(&joints) < 1e-8,
            "{}",
            l.max_violation(&joints)
        );
        // Out of the two bones' span, or with no allowed bend: none.
        let far = DVec3::new(1.0, 0.0, 0.0);
        assert_eq!(
            l.place_hinged(0, DVec3::ZERO, far, 0.5, 0.4, near, None),
            None
        );
        let backwards = UnitLimit::new(
            JointLimit::Hinge {
                axis: Vec3::Z,
                min: 0.0,
                max: 1f32.to_radians(),
            },
            Vec3::NEG_Y,
            0,
        )
        .unwrap();
        let list = [backwards];
        let tight = limits(&list);
        // The two bones must bend about 50° to span 0.7 m; the hinge allows 1°.
        let mid = DVec3::new(0.0, -0.7, 0.0);
        assert_eq!(
            tight.place_hinged(0, DVec3::ZERO, mid, 0.5, 0.4, near, None),
            None
        );
        // Only hinges are placed this way.
        let cones = [UnitLimit::Cone { max: 1.0 }];
        assert_eq!(
            limits(&cones).place_hinged(0, DVec3::ZERO, next, 0.5, 0.4, near, None),
            None
        );
    }

    #[test]
    fn bad_limits_are_refused() {
        let bad = [
            JointLimit::Hinge {
                axis: Vec3::Z,
                min: 1.0,
                max: 0.5,
            },
            JointLimit::Hinge {
                axis: Vec3::ZERO,
                min: 0.0,
                max: 0.5,
            },
            JointLimit::Cone { max: -0.1 },
            JointLimit::Cone { max: f32::NAN },
            JointLimit::Hinge {
                axis: Vec3::X,
                min: 0.0,
                max: 0.5,
            },
        ];
        for limit in bad {
            assert!(UnitLimit::new(limit, Vec3::X, 0).is_err(), "{limit:?}");
        }
    }

    #[test]
    fn enforce_keeps_lengths_and_limits() {
        let list = [UnitLimit::Cone { max: 0.2 }, UnitLimit::Cone { max: 0.2 }];
        let l = limits(&list);
        let mut joints = [
            DVec3::ZERO,
            DVec3::X,
            DVec3::new(1.0, 1.0, 0.0),
            DVec3::new(0.0, 1.0, 0.0),
        ];
        l.enforce(&mut joints, &[1.0, 1.0, 1.0], 1);
        assert!(l.max_violation(&joints) < 1e-12);
        for pair in joints.windows(2) {
            assert!(((pair[1] - pair[0]).length() - 1.0).abs() < 1e-12);
        }
        assert_eq!(joints[1], DVec3::X);
    }
}
