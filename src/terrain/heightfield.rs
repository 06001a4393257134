//! A height grid sampled once from noise, bilinearly interpolated.

use glam::{Vec2, Vec3};

use super::TerrainSpec;

/// Where a ray met the surface. (Its normal costs four more lookups, so it is
/// left to [`Heightfield::normal`] for the callers that need it.)
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RayHit {
    /// The point on the surface.
    pub point: Vec3,
    /// Distance along the ray from its origin.
    pub distance: f32,
}

/// Gap (metres) at which a marching ray counts as touching the surface. The
/// hit is then dropped vertically onto the surface, so this only bounds the
/// hit's sideways error (gap × the ray's horizontal slope), not its height.
const HIT_EPSILON: f32 = 1e-3;
/// Bisection rounds once a ray is known to cross the surface inside a step
/// (only minimum-length steps can cross): 2⁻¹⁶ of a step.
const BISECTION_ROUNDS: usize = 16;
/// Most marching steps one ray may take (grazing rays converge slowly).
const MAX_MARCH_STEPS: usize = 512;

/// Terrain heights on a regular grid over the x–z plane, centred on the origin.
///
/// Noise costs ~0.3 µs a sample; a grid lookup costs nanoseconds, so the noise
/// is sampled once here and everything else reads the grid. Outside the grid
/// the edge heights continue flat.
#[derive(Debug, Clone)]
pub struct Heightfield {
    spec: TerrainSpec,
    columns: usize,
    rows: usize,
    origin: Vec2,
    spacing: f32,
    inv_spacing: f32,
    heights: Vec<f32>,
    min_height: f32,
    max_height: f32,
    /// Upper bound on the surface slope (|∇h|), which bounds how fast a ray can
    /// close its gap to the surface and so how far it may safely step.
    max_slope: f32,
}

impl Heightfield {
    /// Samples `spec`'s noise over its extent.
    pub fn generate(spec: &TerrainSpec) -> Heightfield {
        let spacing = spec.resolution;
        let columns = (spec.size[0] / spacing).ceil() as usize + 1;
        let rows = (spec.size[1] / spacing).ceil() as usize + 1;
        let origin = Vec2::new(-spec.size[0] * 0.5, -spec.size[1] * 0.5);
        let sample = spec.noise.sampler(spec.seed);
        let mut heights = Vec::with_capacity(columns * rows);
        for row in 0..rows {
            let z = f64::from(origin.y) + row as f64 * f64::from(spacing);
            for column in 0..columns {
                let x = f64::from(origin.x) + column as f64 * f64::from(spacing);
                heights.push(sample(x, z) as f32);
            }
        }
        let (min_height, max_height) = heights
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), h| {
                (lo.min(*h), hi.max(*h))
            });
        let mut max_dx = 0.0f32;
        let mut max_dz = 0.0f32;
        for row in 0..rows {
            for column in 0..columns {
                let h = heights[row * columns + column];
                if column + 1 < columns {
                    max_dx = max_dx.max((heights[row * columns + column + 1] - h).abs());
                }
                if row + 1 < rows {
                    max_dz = max_dz.max((heights[(row + 1) * columns + column] - h).abs());
                }
            }
        }
        let max_slope = (max_dx.hypot(max_dz) / spacing) * 1.01 + 1e-6;
        Heightfield {
            spec: spec.clone(),
            columns,
            rows,
            origin,
            spacing,
            inv_spacing: spacing.recip(),
            heights,
            min_height,
            max_height,
            max_slope,
        }
    }

    /// The description this terrain was generated from.
    pub fn spec(&self) -> &TerrainSpec {
        &self.spec
    }

    /// Lowest and highest grid height.
    pub fn height_range(&self) -> (f32, f32) {
        (self.min_height, self.max_height)
    }

    /// The x–z rectangle the grid covers: (min corner, max corner).
    pub fn bounds(&self) -> (Vec2, Vec2) {
        let extent = Vec2::new((self.columns - 1) as f32, (self.rows - 1) as f32) * self.spacing;
        (self.origin, self.origin + extent)
    }

    /// Grid spacing (metres).
    pub fn spacing(&self) -> f32 {
        self.spacing
    }

    /// Surface height at (x, z).
    #[inline]
    pub fn height(&self, x: f32, z: f32) -> f32 {
        let gx = ((x - self.origin.x) * self.inv_spacing).clamp(0.0, (self.columns - 1) as f32);
        let gz = ((z - self.origin.y) * self.inv_spacing).clamp(0.0, (self.rows - 1) as f32);
        // NaN clamps to NaN and `as usize` turns that into 0: a valid cell
        // (the height comes out NaN, which the metrics count).
        let i = (gx as usize).min(self.columns - 2);
        let j = (gz as usize).min(self.rows - 2);
        let tx = gx - i as f32;
        let tz = gz - j as f32;
        let near = j * self.columns + i;
        let far = near + self.columns;
        let h = &self.heights;
        let (h00, h10, h01, h11) = (h[near], h[near + 1], h[far], h[far + 1]);
        let near_h = h00 + (h10 - h00) * tx;
        let far_h = h01 + (h11 - h01) * tx;
        near_h + (far_h - near_h) * tz
    }

    /// Unit surface normal at (x, z), from the height gradient over one grid cell.
    pub fn normal(&self, x: f32, z: f32) -> Vec3 {
        let d = self.spacing;
        let dx = (self.height(x + d, z) - self.height(x - d, z)) / (2.0 * d);
        let dz = (self.height(x, z + d) - self.height(x, z - d)) / (2.0 * d);
        Vec3::new(-dx, 1.0, -dz).normalize()
    }

    /// Signed distance of `p` from the surface, approximated by the vertical
    /// gap projected on the normal (exact on planes): positive above ground.
    pub fn signed_distance(&self, p: Vec3) -> f32 {
        self.distance_and_normal(p).0
    }

    /// [`Heightfield::signed_distance`] and the normal under `p`, sharing the lookups.
    pub fn distance_and_normal(&self, p: Vec3) -> (f32, Vec3) {
        let normal = self.normal(p.x, p.z);
        ((p.y - self.height(p.x, p.z)) * normal.y, normal)
    }

    /// The first point where a ray from `origin` along `direction` meets the
    /// surface within `max_distance`, if any. A ray starting below the surface
    /// hits nothing.
    ///
    /// The ray marches in steps no longer than the vertical gap divided by the
    /// fastest rate the gap can close (from the terrain's maximum slope), so it
    /// cannot step through a hill; a step that crosses the surface is refined
    /// by bisection.
    pub fn raycast(&self, origin: Vec3, direction: Vec3, max_distance: f32) -> Option<RayHit> {
        let direction = direction.try_normalize()?;
        if !origin.is_finite() || max_distance.is_nan() || max_distance <= 0.0 {
            return None;
        }
        let gap = |t: f32| {
            let p = origin + direction * t;
            p.y - self.height(p.x, p.z)
        };
        let horizontal = Vec2::new(direction.x, direction.z).length();
        let closing_rate = (-direction.y).max(0.0) + self.max_slope * horizontal;
        if closing_rate <= 1e-9 {
            return None;
        }
        let min_step = self.spacing * 1e-3;
        let mut t = 0.0f32;
        let mut g = gap(t);
        if g < 0.0 {
            return None;
        }
        for _ in 0..MAX_MARCH_STEPS {
            if g <= HIT_EPSILON {
                return Some(self.hit(origin, direction, t));
            }
            if t >= max_distance {
                return None;
            }
            let next_t = (t + (g / closing_rate).max(min_step)).min(max_distance);
            let next_g = gap(next_t);
            if next_g < 0.0 {
                let (mut above, mut below) = (t, next_t);
                for _ in 0..BISECTION_ROUNDS {
                    let mid = 0.5 * (above + below);
                    if gap(mid) >= 0.0 {
                        above = mid;
                    } else {
                        below = mid;
                    }
                }
                return Some(self.hit(origin, direction, above));
            }
            t = next_t;
            g = next_g;
        }
        None
    }

    /// The surface point below (or above) `p` along the vertical.
    pub fn project_down(&self, p: Vec3) -> RayHit {
        let point = Vec3::new(p.x, self.height(p.x, p.z), p.z);
        RayHit {
            point,
            distance: p.y - point.y,
        }
    }

    fn hit(&self, origin: Vec3, direction: Vec3, t: f32) -> RayHit {
        let point = origin + direction * t;
        // Put the point exactly on the interpolated surface: the march stops
        // within HIT_EPSILON above it, and feet should stand on it, not hover.
        let point = Vec3::new(point.x, self.height(point.x, point.z), point.z);
        RayHit { point, distance: t }
    }
}
