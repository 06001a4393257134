//! Small vector helpers shared by the solvers, the terrain and the simulation.
//!
//! Everything here is `f32` (the simulation's precision) and total: no helper
//! returns NaN for finite input.

use glam::{Quat, Vec3};

/// Rotation taking unit vector `from` onto unit vector `to` by the shortest arc.
///
/// Unlike `Quat::from_rotation_arc`, this keeps tiny angles instead of snapping
/// them to identity, which matters for iterative solvers whose last steps are
/// small. Opposite vectors rotate by half a turn about an arbitrary
/// perpendicular axis (any is as short as any other).
#[inline]
pub fn shortest_arc(from: Vec3, to: Vec3) -> Quat {
    let cos = from.dot(to);
    if cos < -1.0 + 1e-6 {
        let axis = from.any_orthonormal_vector();
        return Quat::from_axis_angle(axis, std::f32::consts::PI);
    }
    // (1 + cos, from × to) is the half-angle quaternion scaled by 2cos(θ/2);
    // normalising it is exact for small angles, where acos-based forms lose θ.
    let axis = from.cross(to);
    Quat::from_xyzw(axis.x, axis.y, axis.z, 1.0 + cos).normalize()
}

/// `q` normalised, with components below 1e-12 set to zero first (a turn of
/// at most 2e-12 radians).
///
/// A body's orientation that settles toward an axis keeps components of
/// 1e-20 and less; products of those lie among the subnormal floats, where
/// every operation costs a microcode assist of about a hundred cycles.
#[inline]
pub fn settled_rotation(q: Quat) -> Quat {
    let v = q.to_array().map(|c| if c.abs() < 1e-12 { 0.0 } else { c });
    Quat::from_array(v).normalize()
}

/// The larger of two figures, NaN if either is: a maximum over a run that
/// went NaN must say so, not report the clean values around it.
#[inline]
pub fn max_or_nan(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else {
        a.max(b)
    }
}

/// The smaller of two figures, NaN if either is.
#[inline]
pub fn min_or_nan(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else {
        a.min(b)
    }
}

/// Moves `current` toward `target` by at most `max_delta`, never past it.
#[inline]
pub fn move_towards(current: Vec3, target: Vec3, max_delta: f32) -> Vec3 {
    let delta = target - current;
    let dist = delta.length();
    if dist <= max_delta || dist <= f32::EPSILON {
        target
    } else {
        current + delta * (max_delta / dist)
    }
}

/// Rotates `current` toward `target` by at most `max_angle` radians.
#[inline]
pub fn rotate_towards(current: Quat, target: Quat, max_angle: f32) -> Quat {
    let angle = current.angle_between(target);
    if angle <= max_angle || angle <= 1e-7 {
        target
    } else {
        current.slerp(target, max_angle / angle).normalize()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_arc_keeps_tiny_angles() {
        let from = Vec3::X;
        let to = Vec3::new(1.0, 1e-4, 0.0).normalize();
        let q = shortest_arc(from, to);
        let rotated = q * from;
        assert!((rotated - to).length() < 1e-7, "{rotated:?} vs {to:?}");
        // sin(θ/2) of a 1e-4 rad turn: glam's own arc would give exactly 0 here.
        assert!((q.xyz().length() - 5e-5).abs() < 1e-6, "{q:?}");
    }

    #[test]
    fn shortest_arc_handles_opposite_vectors() {
        let q = shortest_arc(Vec3::Y, -Vec3::Y);
        assert!(((q * Vec3::Y) + Vec3::Y).length() < 1e-6);
        assert!(q.is_finite());
    }

    #[test]
    fn move_towards_stops_at_target() {
        let p = move_towards(Vec3::ZERO, Vec3::X, 0.25);
        assert!((p - Vec3::new(0.25, 0.0, 0.0)).length() < 1e-7);
        assert_eq!(move_towards(Vec3::ZERO, Vec3::X, 2.0), Vec3::X);
    }

    #[test]
    fn rotate_towards_limits_angle() {
        let target = Quat::from_rotation_y(1.0);
        let q = rotate_towards(Quat::IDENTITY, target, 0.25);
        assert!((q.angle_between(Quat::IDENTITY) - 0.25).abs() < 1e-5);
        assert_eq!(rotate_towards(Quat::IDENTITY, target, 2.0), target);
    }
}

/// A tiny deterministic random generator (SplitMix64).
///
/// Used where the library itself needs reproducible randomness (experiment
/// cases, spawn jitter): same seed, same sequence, on every platform.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn next_f32(&mut self) -> f32 {
        // 24 random bits: exactly representable, never reaches 1.
        (self.next_u64() >> 40) as f32 * (1.0 / (1u64 << 24) as f32)
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next_f32()
    }

    /// A uniformly distributed unit vector.
    pub fn unit_vector(&mut self) -> Vec3 {
        loop {
            let v = Vec3::new(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            let len_sq = v.length_squared();
            if len_sq > 1e-4 && len_sq <= 1.0 {
                return v / len_sq.sqrt();
            }
        }
    }
}
