//! The least vertical gap between an oriented box and the noise ground,
//! exactly.
//!
//! Checking a body box against the ground at a few points (its corners,
//! under its hips) misses a crest or a peak that rises between them: a
//! long body straddling a ridge, a sharp peak under the middle of a flank.
//! Here the whole box is checked, with no sampling:
//!
//! - Over each grid cell the ground is a bilinear patch `h = a + b u + c v
//!   + e u v`, whose Hessian `[[0, e], [e, 0]]` is indefinite: a plane
//!   minus the patch has no minimum inside a cell, only on its boundary.
//! - Over the box's footprint, the box's lowest points lie on its faces
//!   that face down, each a plane over its own parallelogram. The gap
//!   between such a face and the ground is therefore least on the edges of
//!   the parallelogram (the box's edges), or on a grid line across the
//!   face, where the patch is linear and the least gap is at an end: a grid
//!   vertex inside the face, or where the grid line meets an edge.
//! - Along an edge, inside one cell, the gap is a quadratic in the distance
//!   along it, so its least value is at an end of the piece or at the
//!   parabola's vertex.
//!
//! So the least gap over the whole box is the least over its twelve edges
//! (walked cell by cell) and the grid vertices inside its down-facing faces.

use glam::{Quat, Vec3};

use super::{Ground, split};

/// Most grid cells one box edge is walked through (a box kilometres long
/// is checked over its first stretch only, rather than stalling a step).
const MAX_EDGE_CELLS: usize = 4096;
/// Most grid vertices looked at inside one face.
const MAX_FACE_VERTICES: i64 = 65_536;
/// A face whose normal's y is above this (nearly vertical) has no interior
/// worth checking: its footprint is a sliver, bounded by edges walked anyway.
const DOWN_FACING: f32 = -1e-3;

/// The least vertical gap between a box and the ground below (or above) it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoxGap {
    /// The box's height above the ground where it is least (metres):
    /// negative when the ground reaches into the box. NaN for a box with a
    /// NaN coordinate.
    pub gap: f32,
    /// The point of the box where the gap is least (local frame).
    pub at: Vec3,
}

impl BoxGap {
    fn none() -> BoxGap {
        BoxGap {
            gap: f32::INFINITY,
            at: Vec3::ZERO,
        }
    }

    fn consider(&mut self, gap: f32, at: Vec3) {
        if gap < self.gap {
            *self = BoxGap { gap, at };
        }
    }
}

impl Ground<'_> {
    /// The least vertical gap between the box (centre, orientation and
    /// half-extents, local frame) and the noise ground alone (a terrain's
    /// shapes are not part of it), exact for the bilinear ground: see the
    /// module's notes.
    pub fn box_ground_gap(&self, centre: Vec3, orientation: Quat, half: Vec3) -> BoxGap {
        let axes = [
            orientation * Vec3::X * half.x,
            orientation * Vec3::Y * half.y,
            orientation * Vec3::Z * half.z,
        ];
        if !(centre.is_finite() && axes.iter().all(|a| a.is_finite())) {
            return BoxGap {
                gap: f32::NAN,
                at: centre,
            };
        }
        let mut best = BoxGap::none();
        // The twelve edges: for each axis, the four edges along it.
        for k in 0..3 {
            let (i, j) = ((k + 1) % 3, (k + 2) % 3);
            for (si, sj) in [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)] {
                let mid = centre + axes[i] * si + axes[j] * sj;
                self.edge_gap(mid - axes[k], mid + axes[k], &mut best);
            }
        }
        // The grid vertices inside each down-facing face.
        for k in 0..3 {
            for sign in [1.0f32, -1.0] {
                let normal_y = sign * axes[k].y;
                if normal_y < DOWN_FACING * half[k] {
                    let (i, j) = ((k + 1) % 3, (k + 2) % 3);
                    let corner = centre + axes[k] * sign - axes[i] - axes[j];
                    self.face_vertices_gap(corner, 2.0 * axes[i], 2.0 * axes[j], &mut best);
                }
            }
        }
        best
    }

    /// The least gap along the segment `from`–`to`, cell by cell.
    fn edge_gap(&self, from: Vec3, to: Vec3, best: &mut BoxGap) {
        let f = self.field;
        let inv = f.inv_spacing;
        let d = to - from;
        let (gx, gz) = (from.x * inv, from.z * inv);
        let (dgx, dgz) = (d.x * inv, d.z * inv);
        // A vertical edge: the ground is the same all along it, so its
        // lower end is nearest.
        if dgx.abs() < 1e-6 && dgz.abs() < 1e-6 {
            let low = if from.y <= to.y { from } else { to };
            best.consider(low.y - self.height(low.x, low.z), low);
            return;
        }
        let (i0, _) = split(from.x, inv, 0);
        let (j0, _) = split(from.z, inv, 0);
        let (mut i, mut j) = (i0, j0);
        let boundary = |g: f32, dg: f32, cell: i64| {
            if dg > 0.0 {
                ((cell as f32 + 1.0 - g) / dg, 1.0 / dg)
            } else if dg < 0.0 {
                ((cell as f32 - g) / dg, -1.0 / dg)
            } else {
                (f32::INFINITY, f32::INFINITY)
            }
        };
        let (mut next_x, step_x) = boundary(gx, dgx, i);
        let (mut next_z, step_z) = boundary(gz, dgz, j);
        let mut t = 0.0f32;
        for _ in 0..MAX_EDGE_CELLS {
            let end = next_x.min(next_z).min(1.0);
            let [h00, h10, h01, h11] = f.cell_corners(i + self.origin.x, j + self.origin.z);
            let (e1, e2, e3) = (h10 - h00, h01 - h00, h00 - h10 - h01 + h11);
            // Position in the cell along the piece: u = u0 + du t, v = v0 + dv t.
            let (u0, v0) = (gx - i as f32, gz - j as f32);
            let gap_at = |t: f32| {
                let (u, v) = (u0 + dgx * t, v0 + dgz * t);
                let ground = h00 + e1 * u + e2 * v + e3 * u * v;
                from.y + d.y * t - ground
            };
            for s in [t, end] {
                best.consider(gap_at(s), from + d * s);
            }
            // gap(t) = a t² + b t + c: a least value inside when a > 0.
            let a = -e3 * dgx * dgz;
            if a > 0.0 {
                let b = d.y - e1 * dgx - e2 * dgz - e3 * (u0 * dgz + v0 * dgx);
                let vertex = -b / (2.0 * a);
                if vertex > t && vertex < end {
                    best.consider(gap_at(vertex), from + d * vertex);
                }
            }
            if end >= 1.0 {
                return;
            }
            t = end;
            if next_x <= next_z {
                i += if dgx > 0.0 { 1 } else { -1 };
                next_x += step_x;
            } else {
                j += if dgz > 0.0 { 1 } else { -1 };
                next_z += step_z;
            }
        }
    }

    /// The least gap at the grid vertices strictly inside the face
    /// `corner + s a + t b` (s, t in 0–1), seen from above.
    fn face_vertices_gap(&self, corner: Vec3, a: Vec3, b: Vec3, best: &mut BoxGap) {
        let f = self.field;
        let det = a.x * b.z - a.z * b.x;
        if det.abs() < 1e-12 {
            return;
        }
        let xs = [
            corner.x,
            corner.x + a.x,
            corner.x + b.x,
            corner.x + a.x + b.x,
        ];
        let zs = [
            corner.z,
            corner.z + a.z,
            corner.z + b.z,
            corner.z + a.z + b.z,
        ];
        let range = |values: [f32; 4]| {
            let lo = values.iter().copied().fold(f32::INFINITY, f32::min);
            let hi = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            (split(lo, f.inv_spacing, 0).0, split(hi, f.inv_spacing, 0).0)
        };
        let (i_lo, i_hi) = range(xs);
        let (j_lo, j_hi) = range(zs);
        if (i_hi - i_lo + 1).saturating_mul(j_hi - j_lo + 1) > MAX_FACE_VERTICES {
            return;
        }
        for j in j_lo..=j_hi {
            for i in i_lo..=i_hi {
                let (x, z) = (i as f32 * f.spacing, j as f32 * f.spacing);
                let (px, pz) = (x - corner.x, z - corner.z);
                let s = (px * b.z - pz * b.x) / det;
                let t = (a.x * pz - a.z * px) / det;
                if s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0 {
                    let y = corner.y + a.y * s + b.y * t;
                    let ground = f.cell_corners(i + self.origin.x, j + self.origin.z)[0];
                    best.consider(y - ground, Vec3::new(x, y, z));
                }
            }
        }
    }
}
