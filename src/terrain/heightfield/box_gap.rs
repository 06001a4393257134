//! The least vertical gap between an oriented box and the noise ground,
//! exactly.
//!
//! Checking a body box against the ground at a few points (its corners,
//! under its hips) misses a crest or a peak that rises between them: a
//! long body straddling a ridge, a sharp peak under the middle of a flank.
//! Here the whole box is checked, with no sampling:
//!
//! - Over each grid cell the ground is a bilinear patch,
//!   `h = a + b u + c v + e u v`, whose Hessian `[[0, e], [e, 0]]` is
//!   indefinite: a plane minus the patch has no minimum inside a cell,
//!   only on its boundary.
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
//! An edge between two faces that face up lies over the rest of the box
//! and is skipped.
//!
//! The terrain's shapes are exact distance fields (a carve or a union of
//! them is a bound: never farther than the surface), so within `r` of a
//! point where the shapes' solid is `d` away, nothing is nearer than
//! `d - r`. [`Ground::box_shapes_nearest`] halves each face of the box
//! until every part of it is either farther than the margin asked for or
//! a centimetre across.

use glam::{Quat, Vec3};

use super::{Ground, split};

/// Most grid cells one box edge is walked through (a box kilometres long
/// is checked over its first stretch only, rather than stalling a step).
const MAX_EDGE_CELLS: usize = 4096;
/// Most grid vertices looked at inside one face.
const MAX_FACE_VERTICES: i64 = 65_536;
/// Patches of a face this small (half-diagonal, metres) are not halved
/// further: the nearest point among shapes is found to within it.
const LEAF_RADIUS: f32 = 0.01;
/// Most distances the search among shapes evaluates on one face of a box:
/// a face lying flat inside a shape gives no patch a lower bound to prune
/// it by.
const MAX_FACE_PROBES: usize = 128;
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
    /// shapes are not part of it), exact for the bilinear ground (see the
    /// module's notes) whenever it is below `margin`. A box standing higher
    /// than `margin` over the highest ground of the chunks under it, or of
    /// the grid points of the cells under it, gets that height instead,
    /// with its lowest corner: at least `margin`, and no more than the gap
    /// (the gap itself over level ground).
    pub fn box_ground_gap(
        &self,
        centre: Vec3,
        orientation: Quat,
        half: Vec3,
        margin: f32,
    ) -> BoxGap {
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
        if margin.is_finite()
            && let Some(bound) = self.clearance_bound(centre, axes, margin)
        {
            return bound;
        }
        let mut best = BoxGap::none();
        // Whether the face on side `sign` of axis `k` faces up: every point
        // of it has more of the box below it.
        let faces_up = |k: usize, sign: f32| sign * axes[k].y > -DOWN_FACING * half[k];
        // The twelve edges: for each axis, the four edges along it, but
        // those between two faces that face up, which lie over the box.
        for k in 0..3 {
            let (i, j) = ((k + 1) % 3, (k + 2) % 3);
            for (si, sj) in [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)] {
                if faces_up(i, si) && faces_up(j, sj) {
                    continue;
                }
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

    /// For a box (centre and half-axes) standing higher than `margin` over
    /// the highest ground under its footprint, that height and its lowest
    /// corner, found without a walk: the chunks' tops first (a climber on a
    /// wall, any body over level ground), then the grid points of the
    /// cells under it (no bilinear patch rises above its corners).
    fn clearance_bound(&self, centre: Vec3, axes: [Vec3; 3], margin: f32) -> Option<BoxGap> {
        let extent = axes[0].abs() + axes[1].abs() + axes[2].abs();
        let f = self.field;
        let cell = |v: f32, origin: i64| split(v, f.inv_spacing, origin).0;
        let (lo, hi) = (centre - extent, centre + extent);
        let cells = (
            (cell(lo.x, self.origin.x), cell(lo.z, self.origin.z)),
            (cell(hi.x, self.origin.x) + 1, cell(hi.z, self.origin.z) + 1),
        );
        let clears = |top: &f32| lo.y - top >= margin;
        let top = f.top_over(cells.0, cells.1).filter(clears).or_else(|| {
            let ((i_lo, j_lo), (i_hi, j_hi)) = cells;
            let count = (i_hi - i_lo + 1).saturating_mul(j_hi - j_lo + 1);
            (count <= MAX_FACE_VERTICES)
                .then(|| f.grid_max((i_lo, j_lo), (i_hi, j_hi)))
                .filter(clears)
        })?;
        let lowest = centre
            - axes[0] * axes[0].y.signum()
            - axes[1] * axes[1].y.signum()
            - axes[2] * axes[2].y.signum();
        Some(BoxGap {
            gap: lowest.y - top,
            at: lowest,
        })
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

/// A rectangle of a box's face: its centre and half its two sides.
#[derive(Debug, Clone, Copy)]
struct Patch {
    centre: Vec3,
    u: Vec3,
    v: Vec3,
}

impl Ground<'_> {
    /// The point of the box (centre, orientation and half-extents, local
    /// frame) nearest the solid the terrain's shapes make on their own
    /// (added and carved in file order, without the ground), with its
    /// distance (negative inside), when some part of the box is nearer
    /// than `margin`; `None` when none is, or the terrain has no shapes.
    /// Found to within 1 cm (`LEAF_RADIUS`); see the module's notes. Near a
    /// carve that opens a flat ground, the whole world's solid, the ground
    /// included: the carve's rim is an edge of neither the ground alone nor
    /// the shapes alone, and a spider climbing down into a trench, its
    /// body's edge across the rim between its corners, put it 20 mm in.
    pub fn box_shapes_nearest(
        &self,
        centre: Vec3,
        orientation: Quat,
        half: Vec3,
        margin: f32,
    ) -> Option<BoxGap> {
        if !self.has_shapes() || !centre.is_finite() {
            return None;
        }
        let reach = half.length() + margin;
        let world = centre + self.offset();
        let by_a_rim = self.field.ground_carves.iter().any(|&i| {
            let carve = &self.field.shapes[i as usize];
            carve.distance(world) < reach
        });
        let distance = |p: Vec3| {
            if by_a_rim {
                self.signed_distance(p)
            } else {
                self.shapes_distance(p)
            }
        };
        // Away from every shape (the usual case): one distance.
        if distance(centre) - half.length() >= margin {
            return None;
        }
        let axes = [
            orientation * Vec3::X * half.x,
            orientation * Vec3::Y * half.y,
            orientation * Vec3::Z * half.z,
        ];
        let mut best = BoxGap::none();
        let mut stack = [Patch {
            centre,
            u: Vec3::ZERO,
            v: Vec3::ZERO,
        }; 64];
        for k in 0..3 {
            let (i, j) = ((k + 1) % 3, (k + 2) % 3);
            for sign in [1.0f32, -1.0] {
                stack[0] = Patch {
                    centre: centre + axes[k] * sign,
                    u: axes[i],
                    v: axes[j],
                };
                let (mut depth, mut probes) = (1, 0);
                while depth > 0 && probes < MAX_FACE_PROBES {
                    depth -= 1;
                    let patch = stack[depth];
                    let d = distance(patch.centre);
                    probes += 1;
                    best.consider(d, patch.centre);
                    let radius = (patch.u.length_squared() + patch.v.length_squared()).sqrt();
                    // Nothing in the patch is nearer than `d - radius`: done
                    // with it when that is past the margin, or no better
                    // than the best by more than a leaf can tell.
                    let bound = d - radius;
                    if bound >= margin
                        || bound >= best.gap - LEAF_RADIUS
                        || radius <= LEAF_RADIUS
                        || depth + 2 > stack.len()
                    {
                        continue;
                    }
                    // Halve the longer side.
                    let (long, other) = if patch.u.length_squared() >= patch.v.length_squared() {
                        (patch.u * 0.5, patch.v)
                    } else {
                        (patch.v * 0.5, patch.u)
                    };
                    for centre in [patch.centre + long, patch.centre - long] {
                        stack[depth] = Patch {
                            centre,
                            u: long,
                            v: other,
                        };
                        depth += 1;
                    }
                }
            }
        }
        (best.gap < margin).then_some(best)
    }

    /// The signed distance of `p` from the shapes' own solid (added and
    /// carved in file order, without the ground): a bound, never farther
    /// than the surface.
    fn shapes_distance(&self, p: Vec3) -> f32 {
        let world = p + self.offset();
        let fold = |indices: &[u32]| {
            let mut solid = f32::INFINITY;
            for &i in indices {
                let shape = &self.field.shapes[i as usize];
                // A carve changes the fold only nearer than -solid, an
                // addition only nearer than solid.
                let needed = if shape.subtract { -solid } else { solid };
                if self.field.index.at_least(i, shape.center, world, needed) {
                    continue;
                }
                if shape.subtract {
                    solid = solid.max(-shape.distance(world));
                } else {
                    solid = solid.min(shape.distance(world));
                }
            }
            solid
        };
        // As `Ground::nearest` goes: the cell's shapes, then every shape
        // when the answer is farther than the cell's edge.
        let (near, edge) = self.field.index.near(world.x, world.z);
        let found = fold(near);
        let every = self.field.index.every();
        if found.abs() <= edge || near.len() == every.len() {
            return found;
        }
        fold(every)
    }
}
