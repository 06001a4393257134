//! Static stability: where the body's centre stands over the support
//! polygon of the planted feet.

use glam::{Vec2, Vec3};

use crate::geometry::ConvexHull;

/// Signed distance (metres) from `centre`, projected along `up`, to the
/// support polygon of `feet` (the convex hull of the planted feet, projected
/// the same way): positive inside, negative outside. `None` with fewer than
/// three feet, where a polygon has no inside and static stability means
/// nothing (a biped balances dynamically).
///
/// `hull` keeps the polygon afterwards (in the plane's coordinates, see
/// [`support_plane`]) and holds the storage between calls.
pub fn support_margin(
    centre: Vec3,
    up: Vec3,
    feet: impl Iterator<Item = Vec3>,
    hull: &mut ConvexHull,
    scratch: &mut Vec<Vec2>,
) -> Option<f32> {
    let (u, v) = support_plane(up);
    scratch.clear();
    scratch.extend(feet.map(|f| {
        let d = f - centre;
        Vec2::new(d.dot(u), d.dot(v))
    }));
    if scratch.len() < 3 {
        return None;
    }
    hull.build(scratch);
    Some(hull.margin(Vec2::ZERO))
}

/// Two unit axes spanning the plane perpendicular to `up`, the coordinates
/// [`support_margin`] measures in. Any pair would do for the margin; a fixed
/// choice keeps the hull's corners meaningful to whoever draws them.
pub fn support_plane(up: Vec3) -> (Vec3, Vec3) {
    up.normalize_or(Vec3::Y).any_orthonormal_pair()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centre_over_a_tripod_is_inside_and_beside_it_outside() {
        // Equilateral, corners 1 m from the centre: 0.5 m to every edge.
        let s = 0.75f32.sqrt();
        let feet = [
            Vec3::new(1.0, -0.3, 0.0),
            Vec3::new(-0.5, -0.3, s),
            Vec3::new(-0.5, -0.3, -s),
        ];
        let (mut hull, mut scratch) = (ConvexHull::default(), Vec::new());
        let inside = support_margin(
            Vec3::ZERO,
            Vec3::Y,
            feet.into_iter(),
            &mut hull,
            &mut scratch,
        )
        .unwrap();
        assert!((inside - 0.5).abs() < 1e-5, "{inside}");
        let outside = support_margin(
            Vec3::new(-1.0, 0.0, 0.0),
            Vec3::Y,
            feet.into_iter(),
            &mut hull,
            &mut scratch,
        )
        .unwrap();
        assert!((outside + 0.5).abs() < 1e-5, "{outside}");
    }

    #[test]
    fn the_projection_follows_the_body_up() {
        // Feet on a wall (up = +X): the same tripod turned on its side.
        let s = 0.75f32.sqrt();
        let feet = [
            Vec3::new(-0.3, 1.0, 0.0),
            Vec3::new(-0.3, -0.5, s),
            Vec3::new(-0.3, -0.5, -s),
        ];
        let (mut hull, mut scratch) = (ConvexHull::default(), Vec::new());
        let m = support_margin(
            Vec3::ZERO,
            Vec3::X,
            feet.into_iter(),
            &mut hull,
            &mut scratch,
        )
        .unwrap();
        assert!((m - 0.5).abs() < 1e-5, "{m}");
    }

    #[test]
    fn two_feet_have_no_support_polygon() {
        let (mut hull, mut scratch) = (ConvexHull::default(), Vec::new());
        let feet = [Vec3::X, -Vec3::X];
        assert_eq!(
            support_margin(
                Vec3::ZERO,
                Vec3::Y,
                feet.into_iter(),
                &mut hull,
                &mut scratch
            ),
            None
        );
    }
}
