//! Solid shapes a terrain file adds to (or carves out of) the ground: boxes,
//! spheres and vertical cylinders, each with an exact signed distance and
//! an exact ray interval, so the world's queries stay exact with them.

use glam::{Vec2, Vec3};
use serde::Serialize;

/// Which solid a [`Shape`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ShapeKind {
    /// A box, turned by its yaw about +Y.
    Box,
    /// A ball.
    Sphere,
    /// A cylinder whose axis is vertical.
    Cylinder,
}

impl ShapeKind {
    /// Every kind, by its name in terrain files.
    pub const ALL: [(&'static str, ShapeKind); 3] = [
        ("box", ShapeKind::Box),
        ("sphere", ShapeKind::Sphere),
        ("cylinder", ShapeKind::Cylinder),
    ];
}

/// One solid of a terrain, in world coordinates (metres).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Shape {
    /// Which solid.
    pub kind: ShapeKind,
    /// Its centre.
    pub center: Vec3,
    /// Half extents along its own axes: a box's half size; a sphere's radius
    /// in every component; a cylinder's (radius, half height, radius).
    pub half: Vec3,
    /// Turn about +Y, radians (counter-clockwise seen from above).
    pub yaw: f32,
    /// Whether it carves itself out of everything listed before it.
    pub subtract: bool,
    /// sin and cos of `yaw`, computed once (every query turns by them).
    #[serde(skip)]
    turn: (f32, f32),
}

/// Where a ray is inside a shape: from `enter` to `exit` along it (either
/// may lie behind the ray's origin or past its end).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    /// Distance along the ray where it enters.
    pub enter: f32,
    /// Distance along the ray where it leaves.
    pub exit: f32,
}

impl Shape {
    /// A shape of `kind` about `center` with half extents `half` (see
    /// [`Shape::half`]), turned `yaw` radians about +Y, carving when
    /// `subtract`.
    pub fn new(kind: ShapeKind, center: Vec3, half: Vec3, yaw: f32, subtract: bool) -> Shape {
        Shape {
            kind,
            center,
            half,
            yaw,
            subtract,
            turn: yaw.sin_cos(),
        }
    }

    /// A point of the shape's own frame in the world: turned by its yaw,
    /// moved to its centre (the inverse of [`local`](Self::local)).
    pub(crate) fn world_point(&self, local: Vec3) -> Vec3 {
        let (s, c) = self.turn;
        self.center
            + Vec3::new(
                c * local.x + s * local.z,
                local.y,
                c * local.z - s * local.x,
            )
    }

    /// `p` in the shape's own frame: centred, its yaw undone.
    #[inline]
    pub(crate) fn local(&self, p: Vec3) -> Vec3 {
        let q = p - self.center;
        if self.yaw == 0.0 {
            return q;
        }
        let (s, c) = self.turn;
        // Undo a counter-clockwise turn about +Y (seen from above, +X
        // toward −Z).
        Vec3::new(c * q.x - s * q.z, q.y, s * q.x + c * q.z)
    }

    /// A direction in the shape's frame.
    #[inline]
    fn local_direction(&self, d: Vec3) -> Vec3 {
        if self.yaw == 0.0 {
            return d;
        }
        let (s, c) = self.turn;
        Vec3::new(c * d.x - s * d.z, d.y, s * d.x + c * d.z)
    }

    /// Signed distance from the shape's surface: negative inside. Exact for
    /// every kind.
    pub fn distance(&self, p: Vec3) -> f32 {
        let q = self.local(p);
        match self.kind {
            ShapeKind::Box => {
                let d = q.abs() - self.half;
                d.max(Vec3::ZERO).length() + d.max_element().min(0.0)
            }
            ShapeKind::Sphere => q.length() - self.half.x,
            ShapeKind::Cylinder => {
                let d = Vec2::new(
                    Vec2::new(q.x, q.z).length() - self.half.x,
                    q.y.abs() - self.half.y,
                );
                d.max(Vec2::ZERO).length() + d.max_element().min(0.0)
            }
        }
    }

    /// Whether the vertical line through world (`x`, `z`) meets the shape:
    /// (x, z) is on its footprint seen from above.
    pub fn footprint_contains(&self, x: f32, z: f32) -> bool {
        let q = self.local(Vec3::new(x, self.center.y, z));
        match self.kind {
            ShapeKind::Box => q.x.abs() <= self.half.x && q.z.abs() <= self.half.z,
            ShapeKind::Sphere | ShapeKind::Cylinder => {
                Vec2::new(q.x, q.z).length_squared() <= self.half.x * self.half.x
            }
        }
    }

    /// For `p` inside a box or a cylinder whose nearest face is its base:
    /// how deep `p` is below the nearest of its other faces, and that
    /// face's outward normal (world frame). Where the base stands in the
    /// ground (a wall's or a tower's, set on the floor), leaving by it
    /// leads into the ground, not out of the solid. `None` when the base is
    /// not the nearest face, for spheres, and for `p` outside.
    pub fn depth_above_base(&self, p: Vec3) -> Option<(f32, Vec3)> {
        let q = self.local(p);
        let base = self.half.y + q.y;
        let top = self.half.y - q.y;
        if base < 0.0 || top < base {
            return None;
        }
        match self.kind {
            ShapeKind::Box => {
                let below = self.half - q;
                let above = self.half + q;
                if below.x.min(below.z) < base || above.x < base || above.z < base {
                    // Outside, or a side nearer than the base.
                    return None;
                }
                let (mut depth, mut normal) = (top, Vec3::Y);
                for (face, out) in [
                    (below.x, Vec3::X),
                    (above.x, Vec3::NEG_X),
                    (below.z, Vec3::Z),
                    (above.z, Vec3::NEG_Z),
                ] {
                    if face < depth {
                        (depth, normal) = (face, out);
                    }
                }
                Some((depth, self.world_point(normal) - self.center))
            }
            ShapeKind::Cylinder => {
                // A tower on the floor: out by its side or its top.
                let radial = Vec2::new(q.x, q.z);
                let side = self.half.x - radial.length();
                if side < base {
                    return None;
                }
                if top <= side {
                    return Some((top, Vec3::Y));
                }
                // On the axis every way out by the side is as near: any.
                let out = radial.try_normalize().unwrap_or(Vec2::X);
                let normal = Vec3::new(out.x, 0.0, out.y);
                Some((side, self.world_point(normal) - self.center))
            }
            ShapeKind::Sphere => None,
        }
    }

    /// Whether `p` is inside (or on) the shape: where [`Shape::distance`]
    /// is not positive, tested without its square root (the holder of a
    /// point is asked for on every piece of every ray).
    #[inline]
    pub fn contains(&self, p: Vec3) -> bool {
        let q = self.local(p);
        match self.kind {
            ShapeKind::Box => q.abs().cmple(self.half).all(),
            ShapeKind::Sphere => q.length_squared() <= self.half.x * self.half.x,
            ShapeKind::Cylinder => {
                q.y.abs() <= self.half.y && q.x * q.x + q.z * q.z <= self.half.x * self.half.x
            }
        }
    }

    /// The outward unit normal of the surface nearest `p` (the distance's
    /// gradient, by central differences over a millimetre).
    pub fn normal(&self, p: Vec3) -> Vec3 {
        const H: f32 = 1e-3;
        let g = Vec3::new(
            self.distance(p + Vec3::X * H) - self.distance(p - Vec3::X * H),
            self.distance(p + Vec3::Y * H) - self.distance(p - Vec3::Y * H),
            self.distance(p + Vec3::Z * H) - self.distance(p - Vec3::Z * H),
        );
        g.normalize_or(Vec3::Y)
    }

    /// Highest point of the shape (metres).
    pub fn top(&self) -> f32 {
        match self.kind {
            // A turned box's corners stay at the same heights.
            ShapeKind::Box | ShapeKind::Cylinder => self.center.y + self.half.y,
            ShapeKind::Sphere => self.center.y + self.half.x,
        }
    }

    /// Lowest point of the shape (metres).
    pub fn bottom(&self) -> f32 {
        match self.kind {
            ShapeKind::Box | ShapeKind::Cylinder => self.center.y - self.half.y,
            ShapeKind::Sphere => self.center.y - self.half.x,
        }
    }

    /// The corners of a box holding the whole shape, in the world: its own
    /// box for a box; for a ball or a cylinder, the box they are inscribed in.
    pub fn corners(&self) -> [Vec3; 8] {
        std::array::from_fn(|k| {
            let sign = |bit: usize| if k & bit == 0 { -1.0 } else { 1.0 };
            self.world_point(self.half * Vec3::new(sign(1), sign(2), sign(4)))
        })
    }

    /// The smallest x–z rectangle (world, least and greatest corner)
    /// holding the shape seen from above: no vertical line outside it
    /// meets the shape.
    pub fn footprint_bounds(&self) -> (Vec2, Vec2) {
        let centre = Vec2::new(self.center.x, self.center.z);
        let half = match self.kind {
            ShapeKind::Box => {
                let (s, c) = (self.turn.0.abs(), self.turn.1.abs());
                Vec2::new(
                    c * self.half.x + s * self.half.z,
                    s * self.half.x + c * self.half.z,
                )
            }
            ShapeKind::Sphere | ShapeKind::Cylinder => Vec2::splat(self.half.x),
        };
        (centre - half, centre + half)
    }

    /// Radius of a ball about the centre holding the whole shape.
    pub fn bounding_radius(&self) -> f32 {
        match self.kind {
            ShapeKind::Box => self.half.length(),
            ShapeKind::Sphere => self.half.x,
            ShapeKind::Cylinder => Vec2::new(self.half.x, self.half.y).length(),
        }
    }

    /// Where a ray from `origin` along unit `direction` is inside the
    /// shape, if anywhere along its whole line.
    pub fn span(&self, origin: Vec3, direction: Vec3) -> Option<Span> {
        let o = self.local(origin);
        let d = self.local_direction(direction);
        let (enter, exit) = match self.kind {
            ShapeKind::Box => slabs(o, d, self.half, (f32::NEG_INFINITY, f32::INFINITY))?,
            ShapeKind::Sphere => {
                let b = o.dot(d);
                let c = o.length_squared() - self.half.x * self.half.x;
                let disc = b * b - c;
                if disc < 0.0 {
                    return None;
                }
                let root = disc.sqrt();
                (-b - root, -b + root)
            }
            ShapeKind::Cylinder => {
                let r = self.half.x;
                let (ox, oz, dx, dz) = (o.x, o.z, d.x, d.z);
                let a = dx * dx + dz * dz;
                let c = ox * ox + oz * oz - r * r;
                let around = if a <= 1e-12 {
                    // Parallel to the axis: inside the circle all along, or never.
                    if c > 0.0 {
                        return None;
                    }
                    (f32::NEG_INFINITY, f32::INFINITY)
                } else {
                    let b = ox * dx + oz * dz;
                    let disc = b * b - a * c;
                    if disc < 0.0 {
                        return None;
                    }
                    let root = disc.sqrt();
                    ((-b - root) / a, (-b + root) / a)
                };
                let caps = slab(o.y, d.y, self.half.y)?;
                let (enter, exit) = (around.0.max(caps.0), around.1.min(caps.1));
                if enter > exit {
                    return None;
                }
                (enter, exit)
            }
        };
        Some(Span { enter, exit })
    }
}

/// The part of a line `o + t d` between the planes ±`half` of one axis.
#[inline]
fn slab(o: f32, d: f32, half: f32) -> Option<(f32, f32)> {
    if d.abs() <= 1e-12 {
        return (o.abs() <= half).then_some((f32::NEG_INFINITY, f32::INFINITY));
    }
    let inv = 1.0 / d;
    let (a, b) = ((-half - o) * inv, (half - o) * inv);
    Some((a.min(b), a.max(b)))
}

/// The part of a line inside an axis-aligned box of half extents `half`,
/// within `range`.
#[inline]
fn slabs(o: Vec3, d: Vec3, half: Vec3, range: (f32, f32)) -> Option<(f32, f32)> {
    let mut span = range;
    for axis in 0..3 {
        let (a, b) = slab(o[axis], d[axis], half[axis])?;
        span = (span.0.max(a), span.1.min(b));
        if span.0 > span.1 {
            return None;
        }
    }
    Some(span)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(kind: ShapeKind, half: Vec3, yaw: f32) -> Shape {
        Shape::new(kind, Vec3::new(1.0, 2.0, -3.0), half, yaw, false)
    }

    /// A turned box, a ball and a turned pillar.
    fn one_of_each_kind() -> [Shape; 3] {
        [
            shape(ShapeKind::Box, Vec3::new(2.0, 1.0, 0.5), 0.7),
            shape(ShapeKind::Sphere, Vec3::splat(1.5), 0.0),
            shape(ShapeKind::Cylinder, Vec3::new(1.2, 2.0, 1.2), 0.3),
        ]
    }

    #[test]
    fn a_point_taken_into_the_frame_and_back_is_where_it_was() {
        let turned = shape(ShapeKind::Box, Vec3::new(2.0, 1.0, 0.5), 0.7);
        for p in [
            Vec3::ZERO,
            Vec3::new(3.0, -1.0, 2.5),
            Vec3::new(-4.0, 7.0, 0.1),
        ] {
            assert!(
                turned.world_point(turned.local(p)).distance(p) < 1e-5,
                "{p}"
            );
        }
        // A box's face middle is on its surface.
        let face = turned.world_point(Vec3::new(2.0, 0.0, 0.0));
        assert!(turned.distance(face).abs() < 1e-5);
    }

    #[test]
    fn distances_are_exact_on_each_kind() {
        let cube = shape(ShapeKind::Box, Vec3::new(1.0, 2.0, 0.5), 0.0);
        assert!((cube.distance(Vec3::new(3.0, 2.0, -3.0)) - 1.0).abs() < 1e-6);
        assert!((cube.distance(Vec3::new(1.0, 2.0, -3.0)) + 0.5).abs() < 1e-6);
        // Beyond a corner: the distance to the corner.
        let corner = Vec3::new(2.0, 4.0, -2.5);
        let d = cube.distance(corner + Vec3::new(3.0, 4.0, 0.0));
        assert!((d - 5.0).abs() < 1e-5, "{d}");
        let ball = shape(ShapeKind::Sphere, Vec3::splat(2.0), 0.0);
        assert!((ball.distance(Vec3::new(1.0, 7.0, -3.0)) - 3.0).abs() < 1e-6);
        let pillar = shape(ShapeKind::Cylinder, Vec3::new(1.0, 3.0, 1.0), 0.0);
        assert!((pillar.distance(Vec3::new(4.0, 2.0, -3.0)) - 2.0).abs() < 1e-6);
        assert!((pillar.distance(Vec3::new(1.0, 7.0, -3.0)) - 2.0).abs() < 1e-6);
    }

    #[test]
    fn yaw_turns_a_box_counter_clockwise_seen_from_above() {
        // A long box along x, turned 90°: it lies along −z… and +z.
        let beam = shape(ShapeKind::Box, Vec3::new(3.0, 0.5, 0.5), 90f32.to_radians());
        assert!(beam.contains(Vec3::new(1.0, 2.0, -5.5)));
        assert!(beam.contains(Vec3::new(1.0, 2.0, -0.5)));
        assert!(!beam.contains(Vec3::new(3.5, 2.0, -3.0)));
    }

    #[test]
    fn spans_agree_with_distances() {
        let shapes = [
            shape(ShapeKind::Box, Vec3::new(1.0, 2.0, 0.5), 0.4),
            shape(ShapeKind::Sphere, Vec3::splat(1.5), 0.0),
            shape(ShapeKind::Cylinder, Vec3::new(0.8, 1.2, 0.8), 0.0),
        ];
        let origin = Vec3::new(-4.0, 3.0, -1.0);
        for s in shapes {
            for k in 0..40 {
                // A point well inside the shape, whatever its yaw.
                let wobble = Vec3::new((k as f32 * 0.37).sin(), 0.3, (k as f32).cos());
                let target = s.center + wobble * s.half.min_element() * 0.3;
                let d = (target - origin).normalize();
                let Some(span) = s.span(origin, d) else {
                    panic!("{:?} missed its centre", s.kind);
                };
                for t in [span.enter, span.exit] {
                    let on = s.distance(origin + d * t);
                    assert!(on.abs() < 1e-4, "{:?}: {on}", s.kind);
                }
                let inside = origin + d * (0.5 * (span.enter + span.exit));
                assert!(s.contains(inside));
            }
            // A ray that passes far away misses.
            assert!(s.span(origin, Vec3::Y).is_none(), "{:?}", s.kind);
        }
    }

    /// Containment is the distance's sign, tested without its square
    /// root, on a grid of points in and around each kind (a box turned too).
    #[test]
    fn a_shape_contains_exactly_the_points_its_distance_puts_inside() {
        for s in one_of_each_kind() {
            let (mut inside, mut outside) = (0, 0);
            for i in -12..=12 {
                for j in -12..=12 {
                    for k in -12..=12 {
                        let p = s.center + Vec3::new(i as f32, j as f32, k as f32) * 0.2113;
                        let by_distance = s.distance(p) <= 0.0;
                        assert_eq!(s.contains(p), by_distance, "{:?} at {p}", s.kind);
                        if by_distance {
                            inside += 1
                        } else {
                            outside += 1
                        }
                    }
                }
            }
            assert!(
                inside > 500 && outside > 500,
                "{:?}: {inside} {outside}",
                s.kind
            );
        }
    }

    /// The footprint is where a vertical line meets the shape, on a grid
    /// of lines across and around each kind (a box turned too).
    #[test]
    fn the_footprint_is_where_a_vertical_line_meets_the_shape() {
        for s in one_of_each_kind() {
            let (mut inside, mut outside) = (0, 0);
            for i in -40..=40 {
                for k in -40..=40 {
                    let (x, z) = (1.0 + i as f32 * 0.0731, -3.0 + k as f32 * 0.0731);
                    let line = s.span(Vec3::new(x, 50.0, z), -Vec3::Y).is_some();
                    assert_eq!(
                        s.footprint_contains(x, z),
                        line,
                        "{:?} at ({x}, {z})",
                        s.kind
                    );
                    if line { inside += 1 } else { outside += 1 }
                }
            }
            assert!(
                inside > 100 && outside > 100,
                "{:?}: {inside} {outside}",
                s.kind
            );
        }
    }

    /// Near a turned box's base, the way out by another face: its depth
    /// and normal, turned with the box; nowhere near the base, none.
    #[test]
    fn a_point_over_a_boxs_base_leaves_by_its_nearest_other_face() {
        let turned = Shape::new(
            ShapeKind::Box,
            Vec3::ZERO,
            Vec3::new(2.0, 1.0, 0.5),
            0.7,
            false,
        );
        let p = turned.world_point(Vec3::new(0.3, -0.99, 0.2));
        let (depth, normal) = turned.depth_above_base(p).expect("the base is nearest");
        assert!((depth - 0.3).abs() < 1e-5, "{depth}");
        let out = turned.world_point(Vec3::Z) - turned.center;
        assert!((normal - out).length() < 1e-5, "{normal} against {out}");
        // Nearer the top, or outside: the box's own distance stands.
        assert!(
            turned
                .depth_above_base(turned.world_point(Vec3::new(0.0, 0.9, 0.0)))
                .is_none()
        );
        assert!(turned.depth_above_base(Vec3::new(5.0, 0.0, 0.0)).is_none());
        let ball = Shape::new(ShapeKind::Sphere, Vec3::ZERO, Vec3::splat(1.0), 0.0, false);
        assert!(ball.depth_above_base(Vec3::new(0.0, -0.95, 0.0)).is_none());
    }

    #[test]
    fn a_point_over_a_towers_base_leaves_by_its_side_or_top() {
        // Radius 2, 8 tall, standing on y = 0 (a user's tower).
        let tower = Shape::new(
            ShapeKind::Cylinder,
            Vec3::new(7.0, 4.0, 0.0),
            Vec3::new(2.0, 4.0, 2.0),
            0.0,
            false,
        );
        // A knee 77 mm in through the side, a millimetre over the floor:
        // the base is nearest, but the way out is the side.
        let knee = Vec3::new(5.079, 0.001, -0.077);
        assert!((tower.distance(knee) + 0.001).abs() < 1e-4);
        let (depth, normal) = tower.depth_above_base(knee).expect("the base is nearest");
        let radial = Vec2::new(-1.921, -0.077).length();
        assert!((depth - (2.0 - radial)).abs() < 1e-4, "{depth}");
        assert!(normal.y.abs() < 1e-6 && normal.x < -0.99, "{normal}");
        // A squat drum: out by its top, when that is nearer than the side.
        let drum = Shape::new(
            ShapeKind::Cylinder,
            Vec3::ZERO,
            Vec3::new(2.0, 0.1, 2.0),
            0.0,
            false,
        );
        let (depth, normal) = drum
            .depth_above_base(Vec3::new(0.5, -0.09, 0.0))
            .expect("the base is nearest");
        assert!(
            (depth - 0.19).abs() < 1e-5 && normal == Vec3::Y,
            "{depth} {normal}"
        );
        // On the axis, the side is a way out like any other.
        let (depth, _) = tower
            .depth_above_base(Vec3::new(7.0, 0.5, 0.0))
            .expect("the base is nearest");
        assert!((depth - 2.0).abs() < 1e-5, "{depth}");
        // Nearer the side than the base, or outside: the distance stands.
        assert!(tower.depth_above_base(Vec3::new(5.01, 1.0, 0.0)).is_none());
        assert!(tower.depth_above_base(Vec3::new(4.9, 0.5, 0.0)).is_none());
    }

    #[test]
    fn normals_point_out_of_each_face() {
        let cube = shape(ShapeKind::Box, Vec3::new(1.0, 2.0, 0.5), 0.0);
        let n = cube.normal(Vec3::new(2.01, 2.0, -3.0));
        assert!((n - Vec3::X).length() < 1e-3, "{n}");
        let n = cube.normal(Vec3::new(1.0, 3.9, -3.0));
        assert!((n - Vec3::Y).length() < 1e-3, "{n}");
    }
}

/// Which shapes stand near a point of the x–z plane: a grid of square cells
/// over the shapes' footprint, each listing (in file order) the shapes
/// whose footprints (the rectangles holding them seen from above) reach
/// into it. A query then folds only its cell's shapes: a canyon of fifty
/// boulders and slabs costs a few of them a query. A shape not listed
/// meets no vertical line through the cell, so it is farther from any
/// point of the cell than the cell's edge.
#[derive(Debug, Clone, Default)]
pub(crate) struct ShapeIndex {
    /// World x and z of the grid's lowest corner.
    x0: f32,
    z0: f32,
    cell: f32,
    inv_cell: f32,
    columns: usize,
    rows: usize,
    /// Per cell, the range of its list in `entries`.
    ranges: Vec<(u32, u32)>,
    entries: Vec<u32>,
    every: Vec<u32>,
    /// Each shape's bounding radius (in file order), computed once.
    radii: Vec<f32>,
}

/// How far (metres) a shape's footprint is widened in the index.
const FOOTPRINT_PAD: f32 = 1e-3;
/// Most cells along a side of a [`ShapeIndex`].
const MAX_INDEX_SIDE: usize = 128;
/// Edge of an index cell the grid aims for, metres.
const INDEX_CELL: f32 = 4.0;

impl ShapeIndex {
    /// The index of `shapes`.
    pub(crate) fn new(shapes: &[Shape]) -> ShapeIndex {
        let every: Vec<u32> = (0..shapes.len() as u32).collect();
        let radii = shapes.iter().map(Shape::bounding_radius).collect();
        if shapes.is_empty() {
            return ShapeIndex::default();
        }
        // Padded a millimetre: a point on a face, which `contains` takes
        // for inside, may round to just outside the rectangle.
        let footprints: Vec<(Vec2, Vec2)> = shapes
            .iter()
            .map(|s| {
                let (least, most) = s.footprint_bounds();
                (least - FOOTPRINT_PAD, most + FOOTPRINT_PAD)
            })
            .collect();
        let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
        for &(least, most) in &footprints {
            lo = lo.min(least);
            hi = hi.max(most);
        }
        let span = (hi - lo).max(Vec2::splat(1e-3));
        let cell = INDEX_CELL.max(span.max_element() / MAX_INDEX_SIDE as f32);
        let columns = ((span.x / cell).ceil() as usize).clamp(1, MAX_INDEX_SIDE);
        let rows = ((span.y / cell).ceil() as usize).clamp(1, MAX_INDEX_SIDE);
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); columns * rows];
        for (i, &(least, most)) in footprints.iter().enumerate() {
            let first = ((least - lo) / cell).floor().max(Vec2::ZERO);
            let last = ((most - lo) / cell).floor();
            for row in first.y as usize..=(last.y as usize).min(rows - 1) {
                for column in first.x as usize..=(last.x as usize).min(columns - 1) {
                    lists[row * columns + column].push(i as u32);
                }
            }
        }
        let mut ranges = Vec::with_capacity(lists.len());
        let mut entries = Vec::new();
        for list in lists {
            let start = entries.len() as u32;
            entries.extend(list);
            ranges.push((start, entries.len() as u32));
        }
        ShapeIndex {
            x0: lo.x,
            z0: lo.y,
            cell,
            inv_cell: 1.0 / cell,
            columns,
            rows,
            ranges,
            entries,
            every,
            radii,
        }
    }

    /// Whether shape `i`, centred at `centre`, is at least `needed` from
    /// world point `world` by its bounding ball alone (its distance is
    /// never under the centre's less the radius): what lets a fold skip
    /// it. Compared squared, with no square root.
    #[inline(always)]
    pub(crate) fn at_least(&self, i: u32, centre: Vec3, world: Vec3, needed: f32) -> bool {
        let beyond = needed + self.radii[i as usize];
        beyond <= 0.0 || (world - centre).length_squared() >= beyond * beyond
    }

    /// The shapes (indices, in file order) whose footprints reach into
    /// the cell holding world (x, z), and how far (x, z) is from that cell's
    /// edge: no other shape is nearer than that. Outside the grid: none,
    /// and the distance to the grid.
    #[inline]
    pub(crate) fn near(&self, x: f32, z: f32) -> (&[u32], f32) {
        let (u, v) = ((x - self.x0) * self.inv_cell, (z - self.z0) * self.inv_cell);
        // (The sides at most MAX_INDEX_SIDE: exact in any of these types.
        // Casts through u32 are the cheap ones: a 64-bit unsigned cast, to
        // or from a float, cost a look-up more than all the rest.)
        let (columns, rows) = (self.columns as u32 as f32, self.rows as u32 as f32);
        if !(u >= 0.0 && v >= 0.0 && u < columns && v < rows) {
            let du = (-u).max(u - columns).max(0.0);
            let dv = (-v).max(v - rows).max(0.0);
            return (&[], Vec2::new(du, dv).length() * self.cell);
        }
        // In the grid (checked above), so below 2³²: truncates the same.
        let (cu, cv) = (u as u32, v as u32);
        let (fu, fv) = (u - cu as f32, v - cv as f32);
        let (column, row) = (cu as usize, cv as usize);
        let edge = fu.min(1.0 - fu).min(fv).min(1.0 - fv) * self.cell;
        let (start, end) = self.ranges[row * self.columns + column];
        (&self.entries[start as usize..end as usize], edge)
    }

    /// Every shape, in file order.
    #[inline]
    pub(crate) fn every(&self) -> &[u32] {
        &self.every
    }

    /// Calls `visit` with every shape a straight path over the x–z box from
    /// `a` to `b` may meet: each listed cell's shapes when the box covers a
    /// few cells (a shape in two cells comes twice), else every shape.
    pub(crate) fn along(&self, a: Vec2, b: Vec2, mut visit: impl FnMut(u32)) {
        let origin = Vec2::new(self.x0, self.z0);
        let lo = ((a.min(b) - origin) * self.inv_cell).floor();
        let hi = ((a.max(b) - origin) * self.inv_cell).floor();
        let (columns, rows) = (self.columns as f32, self.rows as f32);
        if !(hi.x >= 0.0 && hi.y >= 0.0 && lo.x < columns && lo.y < rows) {
            return;
        }
        let lo = lo.max(Vec2::ZERO);
        let hi = hi.min(Vec2::new(columns - 1.0, rows - 1.0));
        if (hi.x - lo.x + 1.0) * (hi.y - lo.y + 1.0) > 9.0 {
            self.every.iter().for_each(|&i| visit(i));
            return;
        }
        for row in lo.y as usize..=hi.y as usize {
            for column in lo.x as usize..=hi.x as usize {
                let (start, end) = self.ranges[row * self.columns + column];
                self.entries[start as usize..end as usize]
                    .iter()
                    .for_each(|&i| visit(i));
            }
        }
    }
}
