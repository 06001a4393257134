//! Geometric queries the controller and the metrics share: distances between
//! segments, segments against a box, and margins of support polygons.
//!
//! Everything is `f32` and total: degenerate input (zero-length segments,
//! collinear or repeated points) gives a finite, meaningful answer.

use glam::{Vec2, Vec3};

/// Shortest distance between segments `a0–a1` and `b0–b1`.
///
/// The closest-point parameters are clamped to the segments in the usual
/// way (the segment pair's 2 × 2 system, then each parameter against the
/// other's clamp); a segment of zero length is a point.
pub fn segment_distance(a0: Vec3, a1: Vec3, b0: Vec3, b1: Vec3) -> f32 {
    let d1 = a1 - a0;
    let d2 = b1 - b0;
    let r = a0 - b0;
    let a = d1.length_squared();
    let e = d2.length_squared();
    let f = d2.dot(r);
    let tiny = f32::EPSILON;
    let (s, t) = if a <= tiny && e <= tiny {
        (0.0, 0.0)
    } else if a <= tiny {
        (0.0, (f / e).clamp(0.0, 1.0))
    } else {
        let c = d1.dot(r);
        if e <= tiny {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else {
            let b = d1.dot(d2);
            let denom = a * e - b * b;
            // Parallel segments (denom 0): any s works; take the start.
            let mut s = if denom > tiny * a * e {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let mut t = (b * s + f) / e;
            if t < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            }
            (s, t)
        }
    };
    (a0 + d1 * s).distance(b0 + d2 * t)
}

/// Whether `p` is strictly inside the axis-aligned box of half-extents
/// `half` centred on the origin.
pub fn inside_box(p: Vec3, half: Vec3) -> bool {
    p.abs().cmplt(half).all()
}

/// Whether segment `p0–p1` passes through the inside of the axis-aligned box
/// of half-extents `half` centred on the origin (slab clipping; touching a
/// face from outside does not count).
pub fn segment_enters_box(p0: Vec3, p1: Vec3, half: Vec3) -> bool {
    let d = p1 - p0;
    let (mut enter, mut leave) = (0.0f32, 1.0f32);
    for axis in 0..3 {
        let (start, delta, h) = (p0[axis], d[axis], half[axis]);
        if delta.abs() <= f32::EPSILON {
            if start.abs() >= h {
                return false;
            }
            continue;
        }
        let t0 = (-h - start) / delta;
        let t1 = (h - start) / delta;
        enter = enter.max(t0.min(t1));
        leave = leave.min(t0.max(t1));
        if enter >= leave {
            return false;
        }
    }
    true
}

/// A convex polygon (counter-clockwise, no collinear points) built from a
/// point set, kept between uses so a per-step query allocates nothing: the
/// support polygon of the planted feet for the stability margin, and what the
/// top view draws.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConvexHull {
    sorted: Vec<Vec2>,
    hull: Vec<Vec2>,
}

impl ConvexHull {
    /// Rebuilds the hull of `points` (Andrew's monotone chain).
    pub fn build(&mut self, points: &[Vec2]) {
        self.sorted.clear();
        self.sorted.extend_from_slice(points);
        self.sorted
            .sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
        self.sorted.dedup();
        self.hull.clear();
        if self.sorted.len() < 3 {
            self.hull.extend_from_slice(&self.sorted);
            return;
        }
        for &p in &self.sorted {
            push_convex(&mut self.hull, p, 0);
        }
        // The last point of each half is the first of the other.
        self.hull.pop();
        let upper = self.hull.len();
        for &p in self.sorted.iter().rev() {
            push_convex(&mut self.hull, p, upper);
        }
        self.hull.pop();
        let hull = &mut self.hull;
        // All points on one line: both halves are the same two ends.
        if hull.len() == 2 && hull[0] == hull[1] {
            hull.pop();
        }
    }

    /// The hull's corners, counter-clockwise (one or two points for a
    /// degenerate set).
    pub fn corners(&self) -> &[Vec2] {
        &self.hull
    }

    /// Signed distance from `point` to the hull: positive inside (distance
    /// to the nearest edge), negative outside. A hull with no inside (fewer
    /// than three points, or all on one line) gives minus the distance to it
    /// (0 on it); an empty one gives minus infinity.
    pub fn margin(&self, point: Vec2) -> f32 {
        let hull = &self.hull[..];
        match hull.len() {
            0 => f32::NEG_INFINITY,
            1 => -point.distance(hull[0]),
            _ => {
                let mut inside = hull.len() >= 3;
                let mut nearest = f32::INFINITY;
                for (k, &a) in hull.iter().enumerate() {
                    let b = hull[(k + 1) % hull.len()];
                    let edge = b - a;
                    // Counter-clockwise: inside is to the left of every edge.
                    if edge.perp_dot(point - a) <= 0.0 {
                        inside = false;
                    }
                    let t = ((point - a).dot(edge) / edge.length_squared().max(f32::MIN_POSITIVE))
                        .clamp(0.0, 1.0);
                    nearest = nearest.min(point.distance(a + edge * t));
                }
                if inside { nearest } else { -nearest }
            }
        }
    }
}

/// Adds `p` to a monotone-chain half hull that starts at index `start`,
/// first dropping corners that would not turn left.
fn push_convex(hull: &mut Vec<Vec2>, p: Vec2, start: usize) {
    let turn = |o: Vec2, a: Vec2, b: Vec2| (a - o).perp_dot(b - o);
    while hull.len() >= start + 2 && turn(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0 {
        hull.pop();
    }
    hull.push(p);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crossing_segments_touch_and_parallel_ones_keep_their_gap() {
        let d = segment_distance(
            Vec3::new(-1.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, -1.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
        );
        assert!(d.abs() < 1e-6, "{d}");
        let d = segment_distance(
            Vec3::ZERO,
            Vec3::X,
            Vec3::new(0.5, 0.3, 0.0),
            Vec3::new(2.0, 0.3, 0.0),
        );
        assert!((d - 0.3).abs() < 1e-6, "{d}");
        // Skew lines one above the other.
        let d = segment_distance(
            Vec3::ZERO,
            Vec3::X,
            Vec3::new(0.5, 0.2, -1.0),
            Vec3::new(0.5, 0.2, 1.0),
        );
        assert!((d - 0.2).abs() < 1e-6, "{d}");
    }

    #[test]
    fn segment_ends_and_points_are_handled() {
        // Closest points beyond the segments' ends: end to end.
        let d = segment_distance(
            Vec3::ZERO,
            Vec3::X,
            Vec3::new(2.0, 1.0, 0.0),
            Vec3::new(3.0, 1.0, 0.0),
        );
        assert!((d - 2f32.sqrt()).abs() < 1e-6, "{d}");
        // Zero-length segments are points.
        let d = segment_distance(Vec3::Y, Vec3::Y, Vec3::ZERO, Vec3::X);
        assert!((d - 1.0).abs() < 1e-6, "{d}");
        let d = segment_distance(Vec3::Y, Vec3::Y, Vec3::Z, Vec3::Z);
        assert!((d - 2f32.sqrt()).abs() < 1e-6, "{d}");
    }

    #[test]
    fn segments_through_outside_and_touching_a_box() {
        let half = Vec3::new(1.0, 0.5, 0.5);
        assert!(segment_enters_box(
            Vec3::new(-2.0, 0.0, 0.0),
            Vec3::new(2.0, 0.0, 0.0),
            half
        ));
        assert!(segment_enters_box(
            Vec3::ZERO,
            Vec3::new(0.1, 0.1, 0.1),
            half
        ));
        assert!(!segment_enters_box(
            Vec3::new(-2.0, 1.0, 0.0),
            Vec3::new(2.0, 1.0, 0.0),
            half
        ));
        // Along a face from outside: not inside.
        assert!(!segment_enters_box(
            Vec3::new(-2.0, 0.5, 0.0),
            Vec3::new(2.0, 0.5, 0.0),
            half
        ));
        // Ends short of the box.
        assert!(!segment_enters_box(
            Vec3::new(-3.0, 0.0, 0.0),
            Vec3::new(-1.5, 0.0, 0.0),
            half
        ));
        // Diagonal past a corner.
        assert!(!segment_enters_box(
            Vec3::new(0.0, 2.0, 0.0),
            Vec3::new(2.0, 0.0, 0.0),
            half
        ));
        assert!(inside_box(Vec3::new(0.9, 0.0, 0.0), half));
        assert!(!inside_box(Vec3::new(1.0, 0.0, 0.0), half));
    }

    #[test]
    fn margins_inside_outside_and_degenerate() {
        let mut hull = ConvexHull::default();
        let square = [
            Vec2::new(-1.0, -1.0),
            Vec2::new(1.0, -1.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(-1.0, 1.0),
            Vec2::ZERO,
        ];
        hull.build(&square);
        assert!((hull.margin(Vec2::ZERO) - 1.0).abs() < 1e-6);
        assert!((hull.margin(Vec2::new(0.5, 0.0)) - 0.5).abs() < 1e-6);
        assert!((hull.margin(Vec2::new(3.0, 0.0)) + 2.0).abs() < 1e-6);
        assert_eq!(
            hull.corners().len(),
            4,
            "interior point dropped from the hull"
        );
        // A line of feet has no inside.
        hull.build(&[
            Vec2::new(-1.0, 0.0),
            Vec2::new(0.0, 0.0),
            Vec2::new(1.0, 0.0),
        ]);
        assert_eq!(hull.corners().len(), 2);
        assert_eq!(hull.margin(Vec2::ZERO), 0.0);
        assert!((hull.margin(Vec2::new(0.0, 0.5)) + 0.5).abs() < 1e-6);
        // Repeated points and a single point.
        hull.build(&[Vec2::ONE, Vec2::ONE, Vec2::ONE]);
        assert!((hull.margin(Vec2::ZERO) + 2f32.sqrt()).abs() < 1e-6);
        hull.build(&[]);
        assert_eq!(hull.margin(Vec2::ZERO), f32::NEG_INFINITY);
    }

    #[test]
    fn triangle_margin_is_the_inradius_at_the_incentre() {
        let mut hull = ConvexHull::default();
        let tri = [
            Vec2::new(0.0, 0.0),
            Vec2::new(4.0, 0.0),
            Vec2::new(0.0, 3.0),
        ];
        // 3-4-5 triangle: inradius 1 at (1, 1); order of the input does not matter.
        for order in [[0, 1, 2], [2, 1, 0], [1, 0, 2]] {
            let pts = order.map(|i| tri[i]);
            hull.build(&pts);
            assert!((hull.margin(Vec2::ONE) - 1.0).abs() < 1e-6);
        }
    }
}
