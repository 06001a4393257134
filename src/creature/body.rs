//! The body's pose and the up direction the feet define.

use glam::{Quat, Vec3};
use serde::Serialize;

/// Where the body is and which way it faces.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Body {
    /// Centre of the body, world frame.
    pub position: Vec3,
    /// Rotation from body frame (+X forward, +Y up, +Z right) to world.
    pub orientation: Quat,
    /// Linear velocity, m/s.
    pub velocity: Vec3,
}

impl Body {
    /// Body's forward axis in world.
    pub fn forward(&self) -> Vec3 {
        self.orientation * Vec3::X
    }

    /// Body's up axis in world.
    pub fn up(&self) -> Vec3 {
        self.orientation * Vec3::Y
    }

    /// Body's right axis in world.
    pub fn right(&self) -> Vec3 {
        self.orientation * Vec3::Z
    }

    /// A body-frame point in world coordinates.
    pub fn to_world(&self, local: Vec3) -> Vec3 {
        self.position + self.orientation * local
    }

    /// A world point in body-frame coordinates.
    pub fn to_local(&self, world: Vec3) -> Vec3 {
        self.orientation.inverse() * (world - self.position)
    }

    /// Heading: angle of the forward axis about world +Y, radians (0 = +X,
    /// positive toward -Z, i.e. counter-clockwise seen from above).
    pub fn heading(&self) -> f32 {
        let f = self.forward();
        (-f.z).atan2(f.x)
    }
}

/// Normal of the plane through `feet`, oriented to agree with `up_hint`.
///
/// The feet are taken in order around the body (by angle about `up_hint`,
/// seen from `centre`) and Newell's method gives the polygon's area-weighted
/// normal; for four feet that is exactly the cross product of the diagonals
/// the spider thesis uses, and it extends to any leg count. Returns `None`
/// for fewer than three feet or a degenerate (collinear) arrangement.
pub fn feet_plane_normal(feet: &[Vec3], centre: Vec3, up_hint: Vec3) -> Option<Vec3> {
    if feet.len() < 3 {
        return None;
    }
    let up = up_hint.try_normalize()?;
    let side = up.any_orthonormal_vector();
    let other = up.cross(side);
    let mut ordered: Vec<(f32, Vec3)> = feet
        .iter()
        .map(|p| {
            let d = *p - centre;
            (d.dot(other).atan2(d.dot(side)), *p)
        })
        .collect();
    ordered.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut normal = Vec3::ZERO;
    for i in 0..ordered.len() {
        let a = ordered[i].1 - centre;
        let b = ordered[(i + 1) % ordered.len()].1 - centre;
        normal += a.cross(b);
    }
    let normal = normal.try_normalize()?;
    Some(if normal.dot(up) < 0.0 {
        -normal
    } else {
        normal
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_feet_on_a_slope_give_its_normal() {
        let slope = |x: f32, z: f32| Vec3::new(x, 0.5 * x, z);
        let feet = [
            slope(1.0, -1.0),
            slope(1.0, 1.0),
            slope(-1.0, -1.0),
            slope(-1.0, 1.0),
        ];
        let n = feet_plane_normal(&feet, Vec3::ZERO, Vec3::Y).unwrap();
        let expected = Vec3::new(-0.5, 1.0, 0.0).normalize();
        assert!((n - expected).length() < 1e-5, "{n}");
    }

    #[test]
    fn matches_the_cross_product_of_diagonals() {
        let feet = [
            Vec3::new(0.6, 0.1, -0.5),
            Vec3::new(0.5, -0.1, 0.6),
            Vec3::new(-0.5, 0.2, -0.4),
            Vec3::new(-0.6, 0.0, 0.5),
        ];
        let n = feet_plane_normal(&feet, Vec3::ZERO, Vec3::Y).unwrap();
        // Diagonals FL→BR and FR→BL.
        let diag = (feet[3] - feet[0]).cross(feet[2] - feet[1]).normalize();
        let diag = if diag.y < 0.0 { -diag } else { diag };
        assert!((n - diag).length() < 1e-5, "{n} vs {diag}");
    }

    #[test]
    fn degenerate_feet_give_none() {
        assert!(feet_plane_normal(&[Vec3::ZERO, Vec3::X], Vec3::ZERO, Vec3::Y).is_none());
        let line = [Vec3::X, Vec3::X * 2.0, Vec3::X * 3.0];
        assert!(feet_plane_normal(&line, Vec3::ZERO, Vec3::Y).is_none());
    }

    #[test]
    fn upside_down_hint_flips_the_normal() {
        let feet = [
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
            Vec3::new(-1.0, 0.0, -1.0),
        ];
        let n = feet_plane_normal(&feet, Vec3::ZERO, -Vec3::Y).unwrap();
        assert!((n + Vec3::Y).length() < 1e-6);
    }

    #[test]
    fn body_frame_round_trips() {
        let body = Body {
            position: Vec3::new(1.0, 2.0, 3.0),
            orientation: Quat::from_rotation_y(0.7),
            velocity: Vec3::ZERO,
        };
        let p = Vec3::new(0.3, -0.2, 0.5);
        assert!((body.to_local(body.to_world(p)) - p).length() < 1e-6);
        assert!((body.heading() - 0.7).abs() < 1e-6);
    }
}
