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

/// The order legs stand in around the body (by angle about the body's up,
/// from their rest positions), which [`feet_plane_normal`] walks.
pub fn foot_ring(rest_positions: &[Vec3]) -> Vec<usize> {
    let mut ring: Vec<usize> = (0..rest_positions.len()).collect();
    ring.sort_by(|a, b| {
        let angle = |i: usize| rest_positions[i].z.atan2(rest_positions[i].x);
        angle(*a).total_cmp(&angle(*b))
    });
    ring
}

/// Normal of the plane through the feet, oriented to agree with `up_hint`.
///
/// `ring` lists the feet in order around the body ([`foot_ring`]); Newell's
/// method over that polygon gives its area-weighted normal, which for four
/// feet is exactly the cross product of the diagonals the spider thesis uses,
/// and extends to any leg count. Returns `None` for fewer than three feet or a
/// degenerate (collinear) arrangement.
pub fn feet_plane_normal(feet: &[Vec3], ring: &[usize], up_hint: Vec3) -> Option<Vec3> {
    if ring.len() < 3 {
        return None;
    }
    let centre = ring.iter().map(|i| feet[*i]).sum::<Vec3>() / ring.len() as f32;
    let mut normal = Vec3::ZERO;
    for (k, &i) in ring.iter().enumerate() {
        let next = ring[(k + 1) % ring.len()];
        normal += (feet[i] - centre).cross(feet[next] - centre);
    }
    let normal = normal.try_normalize()?;
    Some(if normal.dot(up_hint) < 0.0 {
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
        let n = feet_plane_normal(&feet, &foot_ring(&feet), Vec3::Y).unwrap();
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
        let n = feet_plane_normal(&feet, &foot_ring(&feet), Vec3::Y).unwrap();
        // Diagonals FL→BR and FR→BL.
        let diag = (feet[3] - feet[0]).cross(feet[2] - feet[1]).normalize();
        let diag = if diag.y < 0.0 { -diag } else { diag };
        assert!((n - diag).length() < 1e-5, "{n} vs {diag}");
    }

    #[test]
    fn degenerate_feet_give_none() {
        assert!(feet_plane_normal(&[Vec3::ZERO, Vec3::X], &[0, 1], Vec3::Y).is_none());
        let line = [Vec3::X, Vec3::X * 2.0, Vec3::X * 3.0];
        assert!(feet_plane_normal(&line, &[0, 1, 2], Vec3::Y).is_none());
    }

    #[test]
    fn upside_down_hint_flips_the_normal() {
        let feet = [
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
            Vec3::new(-1.0, 0.0, -1.0),
        ];
        let n = feet_plane_normal(&feet, &foot_ring(&feet), -Vec3::Y).unwrap();
        assert!((n + Vec3::Y).length() < 1e-6);
    }

    #[test]
    fn ring_orders_legs_around_the_body() {
        // Spider order: front_left, front_right, back_left, back_right.
        let rest = [
            Vec3::new(0.5, -0.3, -0.5),
            Vec3::new(0.5, -0.3, 0.5),
            Vec3::new(-0.5, -0.3, -0.5),
            Vec3::new(-0.5, -0.3, 0.5),
        ];
        assert_eq!(foot_ring(&rest), vec![2, 0, 1, 3]);
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
