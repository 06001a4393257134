//! An unbounded height grid, sampled from noise lazily in chunks.
//!
//! The grid has a point at every `(i, j) × spacing` for whole `i`, `j`, in
//! every direction. Noise costs ~0.3 µs a sample and a grid lookup a few
//! nanoseconds, so heights are sampled once per chunk into a cache. A height
//! depends only on its grid point (never on which chunks were generated
//! first, or whether its chunk is cached at all), so heights are identical
//! whatever order creatures visit the world in.
//!
//! Positions handed to queries are *local*: relative to a [`GridOrigin`], a
//! whole number of grid cells. A creature far from the world's origin keeps
//! its own coordinates small (see `Creature::rebase`), so f32 precision does
//! not depend on where it walks.
//!
//! The terrain file's shapes (see `shapes.rs`) live here too, in world
//! coordinates: [`Ground`]'s queries answer for the solid they make with
//! the heights (the ground, added to and carved in file order), and take
//! the heightfield's own faster paths when there are none.

use std::sync::Arc;

use glam::{Vec2, Vec3};

use super::shapes::ShapeIndex;
use super::{Shape, ShapeKind, Span, TerrainSpec};

mod box_gap;
pub use box_gap::BoxGap;

/// A whole-cell offset of a local frame from the world's origin. Local
/// position `p` in this frame is world position `p + (x, 0, z) × spacing`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct GridOrigin {
    /// Cells along +X.
    pub x: i64,
    /// Cells along +Z.
    pub z: i64,
}

/// Where a ray met the surface. (Its normal costs more lookups, so it is
/// left to [`Ground::normal_at`] for the callers that need it.)
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RayHit {
    /// The point on the surface.
    pub point: Vec3,
    /// Distance along the ray from its origin.
    pub distance: f32,
}

/// Edge of a chunk in metres the chunk size aims for: large enough that the
/// 3×3 chunks around a creature hold every foothold and body ray.
const CHUNK_TARGET_METRES: f32 = 8.0;
/// Bounds on cells per chunk side, whatever the resolution (rounded up to a
/// power of two).
const CHUNK_CELLS_RANGE: (u64, u64) = (8, 256);
/// Memory the chunk cache may use (bytes); it decides the number of slots.
const CACHE_BYTES: usize = 32 << 20;
/// Bounds on chunk slots per cache side, to start with.
const CACHE_SIDE_RANGE: (usize, usize) = (4, 32);
/// Most chunk slots per cache side the cache grows to when creatures spread
/// wider than it holds at once (see [`Heightfield::grow`]): 65 536 slots,
/// 2.6 MB of them empty, a window of 2 km at the usual 8 m chunks.
const MAX_CACHE_SIDE: usize = 256;
/// Grid indices are clamped to this magnitude, so absurd positions (1e30)
/// still give a finite height instead of overflowing an integer.
const MAX_GRID_INDEX: f32 = 1.0e12;
/// Most grid cells one ray may cross (a long grazing ray gives up after this).
const MAX_RAY_CELLS: usize = 100_000;
/// The base of an added box less than this (metres) over the ground under
/// a point inside it is buried in the ground there: a wall's base, set
/// flush with the floor, is no way out of the solid.
const BURIED_FACE: f32 = 1e-5;

type Sampler = Arc<dyn Fn(f64, f64) -> f64 + Send + Sync>;

/// Heights of one square block of grid points, `cells + 1` on a side (the
/// last row and column repeat the first of the next chunk, so every cell's
/// four corners are in one chunk).
#[derive(Clone)]
struct Chunk {
    key: (i64, i64),
    heights: Box<[f32]>,
    /// The highest of `heights`: no ground in the chunk rises above it.
    top: f32,
    /// The largest difference between neighbouring `heights` along x or z:
    /// no slope in the chunk, and no central difference over its cells, is
    /// steeper than it over a grid spacing.
    steepest: f32,
    /// The preparation round that last asked for it.
    round: u64,
}

/// Terrain heights over the whole x–z plane, generated lazily in chunks
/// around where they are needed; bilinearly interpolated between grid points.
///
/// Queries take `&self` and never generate: [`Heightfield::prepare_around`]
/// (a `&mut` phase the world runs before each step) caches the chunks near
/// each creature, and a query outside the cache samples the noise directly,
/// getting exactly the same value, only slower.
#[derive(Clone)]
pub struct Heightfield {
    spec: TerrainSpec,
    spacing: f32,
    inv_spacing: f32,
    sampler: Sampler,
    /// Cells per chunk side: a power of two, so a cell's chunk is a shift
    /// and its place in the chunk a mask (integer division is slow, and
    /// every height lookup needs both).
    chunk_cells: i64,
    chunk_shift: u32,
    /// Direct-mapped cache: chunk (cx, cz) lives in slot (cx mod side, cz mod
    /// side); `side` is a power of two too.
    slots: Vec<Option<Chunk>>,
    side: usize,
    min_height: f32,
    max_height: f32,
    chunks_generated: u64,
    /// The current preparation round (see [`Heightfield::begin_round`]).
    round: u64,
    /// Whether this round evicted a chunk the same round asked for.
    crowded: bool,
    /// The terrain file's shapes, in file order (world coordinates).
    shapes: Arc<[Shape]>,
    /// The highest point of any added shape (−∞ with none).
    shapes_top: f32,
    /// The lowest point of any shape, added or carved (+∞ with none): how
    /// deep a carve can open the ground.
    shapes_bottom: f32,
    /// The least full extent of any added shape (∞ with none): below it,
    /// a view's samples may pass between a thin shape's faces.
    thinnest_added: f32,
    /// Whether any shape carves: only then can the distance past a shape
    /// be a carve's bound rather than exact (see
    /// [`Ground::carved_bound_only`]).
    any_carve: bool,
    /// The carves that open a flat ground: in and
    /// over their openings the ground's distance is what they left of it
    /// (see `Ground::carved_ground`), and the body's box search looks at
    /// the whole world near them, their rims included.
    ground_carves: Arc<[u32]>,
    /// Which shapes stand near each part of the plane.
    index: Arc<ShapeIndex>,
    /// The ground's height everywhere when it is a plane (`fractal =
    /// "flat"`, the usual floor under walls and rooms): height and slope
    /// look-ups skip the grid, the same value without a cell's corners.
    flat: Option<f32>,
}

impl std::fmt::Debug for Heightfield {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Heightfield")
            .field("terrain", &self.spec.name)
            .field("spacing", &self.spacing)
            .field("chunk_cells", &self.chunk_cells)
            .field("cache_side", &self.side)
            .field("chunks_generated", &self.chunks_generated)
            .finish_non_exhaustive()
    }
}

impl Heightfield {
    /// A terrain for `spec`, with the `spec.size` extent around the origin
    /// generated up front (as much of it as the cache holds).
    pub fn generate(spec: &TerrainSpec) -> Heightfield {
        let spacing = spec.resolution;
        let chunk_cells = ((CHUNK_TARGET_METRES / spacing).ceil() as u64)
            .clamp(CHUNK_CELLS_RANGE.0, CHUNK_CELLS_RANGE.1)
            .next_power_of_two() as i64;
        let chunk_bytes = ((chunk_cells + 1) * (chunk_cells + 1)) as usize * 4;
        let fits = ((CACHE_BYTES / chunk_bytes) as f64).sqrt().floor() as usize;
        // The largest power of two within the memory budget, within range.
        let side = (fits.max(1) + 1)
            .next_power_of_two()
            .div_euclid(2)
            .clamp(CACHE_SIDE_RANGE.0, CACHE_SIDE_RANGE.1);
        debug_assert!(chunk_cells.count_ones() == 1 && side.count_ones() == 1);
        let mut field = Heightfield {
            spec: spec.clone(),
            spacing,
            inv_spacing: spacing.recip(),
            sampler: Arc::from(spec.noise.sampler(spec.seed)),
            chunk_cells,
            chunk_shift: chunk_cells.trailing_zeros(),
            slots: vec![None; side * side],
            side,
            min_height: f32::INFINITY,
            max_height: f32::NEG_INFINITY,
            chunks_generated: 0,
            round: 0,
            crowded: false,
            shapes: spec.shapes.iter().copied().collect(),
            index: Arc::new(ShapeIndex::new(&spec.shapes)),
            // The sampler's value, rounded as every cached height is.
            flat: matches!(spec.noise.fractal, super::Fractal::Flat)
                .then_some(spec.noise.base as f32),
            shapes_top: spec
                .shapes
                .iter()
                .filter(|s| !s.subtract)
                .map(Shape::top)
                .fold(f32::NEG_INFINITY, f32::max),
            shapes_bottom: spec
                .shapes
                .iter()
                .map(Shape::bottom)
                .fold(f32::INFINITY, f32::min),
            thinnest_added: spec
                .shapes
                .iter()
                .filter(|s| !s.subtract)
                .map(|s| 2.0 * s.half.min_element())
                .fold(f32::INFINITY, f32::min),
            ground_carves: ground_carves(spec),
            any_carve: spec.shapes.iter().any(|s| s.subtract),
        };
        // The initial extent, capped so it never evicts its own chunks.
        let chunk_metres = chunk_cells as f32 * spacing;
        let most = (side as f32 - 1.0) * 0.5 * chunk_metres;
        let half = (spec.size[0].max(spec.size[1]) * 0.5).min(most);
        field.prepare_around(GridOrigin::default(), Vec3::ZERO, half);
        for chunk in field.slots.iter().flatten() {
            for &h in chunk.heights.iter() {
                field.min_height = field.min_height.min(h);
                field.max_height = field.max_height.max(h);
            }
        }
        field
    }

    /// The description this terrain was generated from.
    pub fn spec(&self) -> &TerrainSpec {
        &self.spec
    }

    /// Lowest and highest height of the extent generated at start (for
    /// colour ramps; the terrain beyond it may go higher or lower), the
    /// tops of added shapes included.
    pub fn height_range(&self) -> (f32, f32) {
        (self.min_height, self.max_height.max(self.shapes_top))
    }

    /// The terrain file's shapes, in file order.
    pub fn shapes(&self) -> &[Shape] {
        &self.shapes
    }

    /// Grid spacing (metres).
    pub fn spacing(&self) -> f32 {
        self.spacing
    }

    /// Chunks sampled from noise so far (a cache statistic).
    pub fn chunks_generated(&self) -> u64 {
        self.chunks_generated
    }

    /// Most chunks the cache holds at once (its memory bound).
    pub fn cache_capacity(&self) -> usize {
        self.slots.len()
    }

    /// Chunks in the cache now.
    pub fn cached_chunks(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    /// Queries in the local frame of `origin`.
    #[inline]
    pub fn at(&self, origin: GridOrigin) -> Ground<'_> {
        Ground {
            field: self,
            origin,
        }
    }

    /// Queries in the world frame (origin at grid point (0, 0)).
    #[inline]
    pub fn world(&self) -> Ground<'_> {
        self.at(GridOrigin::default())
    }

    /// Surface height at world (x, z); see [`Ground::height`].
    pub fn height(&self, x: f32, z: f32) -> f32 {
        self.world().height(x, z)
    }

    /// Unit surface normal at world (x, z); see [`Ground::normal`].
    pub fn normal(&self, x: f32, z: f32) -> Vec3 {
        self.world().normal(x, z)
    }

    /// Signed distance from the surface in the world frame; see [`Ground::signed_distance`].
    pub fn signed_distance(&self, p: Vec3) -> f32 {
        self.world().signed_distance(p)
    }

    /// A ray cast in the world frame; see [`Ground::raycast`].
    pub fn raycast(&self, origin: Vec3, direction: Vec3, max_distance: f32) -> Option<RayHit> {
        self.world().raycast(origin, direction, max_distance)
    }

    /// The surface point below `p` in the world frame; see [`Ground::project_down`].
    pub fn project_down(&self, p: Vec3) -> RayHit {
        self.world().project_down(p)
    }

    /// Caches every chunk within `radius` metres (along x and z) of local
    /// point `centre` in the frame of `origin`, evicting whichever chunks
    /// held their slots. Memory stays bounded by the cache size.
    pub fn prepare_around(&mut self, origin: GridOrigin, centre: Vec3, radius: f32) {
        if !(centre.is_finite() && radius.is_finite()) {
            return;
        }
        let radius = radius.max(0.0);
        let cells = |local: f32, origin: i64| {
            (local * self.inv_spacing).clamp(-MAX_GRID_INDEX, MAX_GRID_INDEX) as i64 + origin
        };
        let chunk = |cell: i64| cell >> self.chunk_shift;
        let x0 = chunk(cells(centre.x - radius, origin.x) - 1);
        let x1 = chunk(cells(centre.x + radius, origin.x) + 1);
        let z0 = chunk(cells(centre.z - radius, origin.z) - 1);
        let z1 = chunk(cells(centre.z + radius, origin.z) + 1);
        // More chunks than slots along a side would evict each other.
        let most = self.side as i64 - 1;
        let (x1, z1) = (x1.min(x0 + most), z1.min(z0 + most));
        let round = self.round;
        for cz in z0..=z1 {
            for cx in x0..=x1 {
                let slot = self.slot(cx, cz);
                match &mut self.slots[slot] {
                    Some(chunk) if chunk.key == (cx, cz) => chunk.round = round,
                    held => {
                        // Evicting what this same round needs: the creatures
                        // stand wider apart than the cache holds.
                        self.crowded |= held.as_ref().is_some_and(|c| c.round == round);
                        let mut chunk = self.sample_chunk(cx, cz);
                        chunk.round = round;
                        self.slots[slot] = Some(chunk);
                        self.chunks_generated += 1;
                    }
                }
            }
        }
    }

    /// Starts a round of [`Heightfield::prepare_around`] calls that must all
    /// be cached at once (a world's step: every creature's surroundings).
    pub fn begin_round(&mut self) {
        self.round += 1;
        self.crowded = false;
    }

    /// Whether this round's preparations evicted chunks the round itself
    /// asked for: the cache is too small for the spread of what it serves,
    /// and every query there falls back to sampling the noise.
    pub fn crowded(&self) -> bool {
        self.crowded
    }

    /// Doubles the cache's side (up to a limit), keeping every chunk it
    /// holds; false when it is already at the limit. Each chunk keeps a
    /// slot of its own: two chunks apart modulo the old side are apart
    /// modulo the new.
    pub fn grow(&mut self) -> bool {
        if self.side >= MAX_CACHE_SIDE {
            return false;
        }
        let side = self.side * 2;
        let old = std::mem::replace(&mut self.slots, vec![None; side * side]);
        self.side = side;
        for chunk in old.into_iter().flatten() {
            let slot = self.slot(chunk.key.0, chunk.key.1);
            self.slots[slot] = Some(chunk);
        }
        true
    }

    /// Grows the cache (up to its limit) until it spans `extent` metres
    /// along x and z with a chunk to spare each side: what a world about to
    /// prepare ground that far apart needs, found before it samples any.
    pub fn fit(&mut self, extent: f32) {
        while (self.side as f32 - 2.0) * self.chunk_metres() < extent && self.grow() {}
    }

    /// The edge of a chunk, metres: the cache holds a window of
    /// [`Heightfield::cache_side`] chunks each way.
    pub fn chunk_metres(&self) -> f32 {
        self.chunk_cells as f32 * self.spacing
    }

    /// Chunk slots per side of the cache.
    pub fn cache_side(&self) -> usize {
        self.side
    }

    #[inline]
    fn slot(&self, cx: i64, cz: i64) -> usize {
        // `side` is a power of two: masking is the Euclidean remainder.
        let mask = self.side as i64 - 1;
        ((cz & mask) * self.side as i64 + (cx & mask)) as usize
    }

    /// The noise at grid point (i, j): the one definition of a height.
    #[inline]
    fn sample(&self, i: i64, j: i64) -> f32 {
        let spacing = f64::from(self.spacing);
        (self.sampler)(i as f64 * spacing, j as f64 * spacing) as f32
    }

    fn sample_chunk(&self, cx: i64, cz: i64) -> Chunk {
        let n = self.chunk_cells;
        let mut heights = Vec::with_capacity(((n + 1) * (n + 1)) as usize);
        for j in 0..=n {
            for i in 0..=n {
                heights.push(self.sample(cx * n + i, cz * n + j));
            }
        }
        let stride = (n + 1) as usize;
        let mut steepest = 0.0f32;
        for (k, &h) in heights.iter().enumerate() {
            if k % stride + 1 < stride {
                steepest = steepest.max((heights[k + 1] - h).abs());
            }
            if let Some(&next_row) = heights.get(k + stride) {
                steepest = steepest.max((next_row - h).abs());
            }
        }
        Chunk {
            key: (cx, cz),
            steepest,
            top: heights.iter().copied().fold(f32::NEG_INFINITY, f32::max),
            heights: heights.into_boxed_slice(),
            round: self.round,
        }
    }

    /// The highest ground over global cells `lo` to `hi` (inclusive), from
    /// the cached chunks holding them; `None` when one is not cached.
    fn top_over(&self, lo: (i64, i64), hi: (i64, i64)) -> Option<f32> {
        self.most_over(lo, hi, f32::NEG_INFINITY, |chunk| chunk.top)
    }

    /// The largest difference between neighbouring grid points over global
    /// cells `lo` to `hi` (inclusive), from the cached chunks holding them;
    /// `None` when one is not cached. (Neighbouring chunks share their
    /// edge's points, so every neighbouring pair lies in one chunk.)
    fn steepest_over(&self, lo: (i64, i64), hi: (i64, i64)) -> Option<f32> {
        self.most_over(lo, hi, 0.0, |chunk| chunk.steepest)
    }

    /// The largest of `least` and `figure` of every chunk holding global
    /// cells `lo` to `hi` (inclusive); `None` when one is not cached.
    fn most_over(
        &self,
        lo: (i64, i64),
        hi: (i64, i64),
        least: f32,
        figure: impl Fn(&Chunk) -> f32,
    ) -> Option<f32> {
        let shift = self.chunk_shift;
        let mut most = least;
        for cz in (lo.1 >> shift)..=(hi.1 >> shift) {
            for cx in (lo.0 >> shift)..=(hi.0 >> shift) {
                let chunk = self.slots[self.slot(cx, cz)].as_ref()?;
                if chunk.key != (cx, cz) {
                    return None;
                }
                most = most.max(figure(chunk));
            }
        }
        Some(most)
    }

    /// The height of the highest grid point (i, j) with `lo` ≤ (i, j) ≤ `hi`
    /// (inclusive), read chunk by chunk: one cache look-up a chunk, not a
    /// point.
    fn grid_max(&self, lo: (i64, i64), hi: (i64, i64)) -> f32 {
        let (shift, n) = (self.chunk_shift, self.chunk_cells);
        let stride = (n + 1) as usize;
        let mut top = f32::NEG_INFINITY;
        for cz in (lo.1 >> shift)..=(hi.1 >> shift) {
            let rows = lo.1.max(cz << shift)..=hi.1.min(((cz + 1) << shift) - 1);
            for cx in (lo.0 >> shift)..=(hi.0 >> shift) {
                let columns = lo.0.max(cx << shift)..=hi.0.min(((cx + 1) << shift) - 1);
                match &self.slots[self.slot(cx, cz)] {
                    Some(chunk) if chunk.key == (cx, cz) => {
                        for j in rows.clone() {
                            let row = (j & (n - 1)) as usize * stride;
                            for i in columns.clone() {
                                top = top.max(chunk.heights[row + (i & (n - 1)) as usize]);
                            }
                        }
                    }
                    _ => {
                        for j in rows.clone() {
                            for i in columns.clone() {
                                top = top.max(self.sample(i, j));
                            }
                        }
                    }
                }
            }
        }
        top
    }

    /// Heights at the four corners of global cell (i, j): (i, j), (i+1, j),
    /// (i, j+1), (i+1, j+1).
    #[inline]
    fn cell_corners(&self, i: i64, j: i64) -> [f32; 4] {
        let n = self.chunk_cells;
        // Arithmetic shifts floor toward -inf, as chunk indices must.
        let (cx, cz) = (i >> self.chunk_shift, j >> self.chunk_shift);
        if let Some(chunk) = &self.slots[self.slot(cx, cz)]
            && chunk.key == (cx, cz)
        {
            let stride = (n + 1) as usize;
            let near = (j & (n - 1)) as usize * stride + (i & (n - 1)) as usize;
            // Two bounds checks for the four corners, not one each (this
            // runs dozens of times a creature-step): each pair is a slice
            // of known length.
            let (near_pair, far_pair) = (
                &chunk.heights[near..near + 2],
                &chunk.heights[near + stride..near + stride + 2],
            );
            return [near_pair[0], near_pair[1], far_pair[0], far_pair[1]];
        }
        self.sampled_corners(i, j)
    }

    /// [`Heightfield::cell_corners`] of a cell outside the cache, from the
    /// noise itself: kept out of line so the cached look-up stays small
    /// enough to inline where it is called.
    #[cold]
    #[inline(never)]
    fn sampled_corners(&self, i: i64, j: i64) -> [f32; 4] {
        [
            self.sample(i, j),
            self.sample(i + 1, j),
            self.sample(i, j + 1),
            self.sample(i + 1, j + 1),
        ]
    }
}

/// The terrain seen from a local frame: every query a creature, the metrics
/// and the renderer make. Cheap to copy.
#[derive(Debug, Clone, Copy)]
pub struct Ground<'a> {
    field: &'a Heightfield,
    origin: GridOrigin,
}

/// Which surface a distance in a world with shapes is to.
#[derive(Debug, Clone, Copy)]
enum Nearest {
    /// The ground, with its normal there.
    Ground(Vec3),
    /// Shape `i` (an index into the terrain's shapes), carved or added.
    Shape(u32, bool),
    /// A face of an added shape, with its outward normal: the one a point
    /// inside leaves by (see [`Shape::exposed_depth`]); or what a carve
    /// left of a flat ground, with the way away from it.
    Face(Vec3),
}

/// The indices of the carves that open `spec`'s ground: on a flat
/// ground, the shapes carved from below its level up to it or past it (a
/// trench, a pit, a well, a crater). Empty on noise ground, whose height
/// inside a footprint may rise past a carve's top.
fn ground_carves(spec: &TerrainSpec) -> Arc<[u32]> {
    if !matches!(spec.noise.fractal, super::Fractal::Flat) {
        return Arc::from([]);
    }
    let level = spec.noise.base as f32;
    spec.shapes
        .iter()
        .enumerate()
        .filter(|(_, s)| opens_ground(s, level))
        .map(|(i, _)| i as u32)
        .collect()
}

/// Whether `shape` opens a flat ground at `level`: carved from below it
/// up to it or past it.
fn opens_ground(shape: &Shape, level: f32) -> bool {
    shape.subtract && shape.bottom() < level && shape.top() > level
}

/// How near the ground's surface (metres) a ray's hit on a shape's face
/// counts as on the ground.
const ON_THE_GROUND: f32 = 1e-3;

/// The distance from world point `world`, `floor` metres above the bottom
/// of `shape` (a carve that opens a flat ground at `level`), to what the
/// carve left of the ground, with the way away from it: the nearer of the
/// rim and the floor inside the footprint (a sphere's: see
/// [`crater_ground`]); `None` outside it.
fn opening_ground(shape: &Shape, level: f32, world: Vec3, floor: f32) -> Option<(f32, Vec3)> {
    let q = shape.local(world);
    // How far inside the footprint, and the way from its nearest side
    // toward the middle, in the shape's frame.
    let (inside, away) = match shape.kind {
        ShapeKind::Box => {
            let (across_x, across_z) = (shape.half.x - q.x.abs(), shape.half.z - q.z.abs());
            if across_x <= across_z {
                (across_x, Vec3::new(-q.x.signum(), 0.0, 0.0))
            } else {
                (across_z, Vec3::new(0.0, 0.0, -q.z.signum()))
            }
        }
        ShapeKind::Cylinder => {
            let out = Vec3::new(q.x, 0.0, q.z);
            let length = out.length();
            (shape.half.x - length, -out.normalize_or(Vec3::X))
        }
        ShapeKind::Sphere => return crater_ground(shape, level, world),
    };
    if inside <= 0.0 {
        return None;
    }
    let above = (world.y - level).max(0.0);
    let rim = Vec2::new(inside, above).length();
    Some(if floor < rim {
        (floor, Vec3::Y)
    } else {
        let local = (away * inside + Vec3::Y * above).normalize_or(Vec3::Y);
        (rim, shape.world_point(local) - shape.center)
    })
}

/// The distance from world point `world` to what a sphere carved through
/// a flat ground at `level` left of it (the ground outside the crater's
/// rim and the bowl under it), with the way away from it: inside the
/// sphere, or over the crater's opening; `None` elsewhere. Nearest is the
/// point of the sphere straight out from its centre when that is in the
/// bowl, else a point of the rim. (Before, the ground's plane stood over
/// the opening as a lid: a biped walked out onto it over a crater 1.3 m
/// deep and stood 30 s with no foot down.)
fn crater_ground(shape: &Shape, level: f32, world: Vec3) -> Option<(f32, Vec3)> {
    let radius = shape.half.x;
    let out = world - shape.center;
    let from_centre = out.length();
    let across = Vec2::new(out.x, out.z).length();
    // The rim's radius: the sphere's section at the ground's level.
    let rim = (radius * radius - (level - shape.center.y).powi(2))
        .max(0.0)
        .sqrt();
    let inside = from_centre < radius;
    if !inside && (world.y < level || across >= rim) {
        return None;
    }
    if inside && shape.center.y + out.y * (radius / from_centre.max(f32::MIN_POSITIVE)) <= level {
        let inward = (-out).normalize_or(Vec3::Y);
        return Some((radius - from_centre, inward));
    }
    // The nearest point of the rim, in the vertical plane through the
    // sphere's axis and `world`.
    let outward = Vec3::new(out.x, 0.0, out.z).normalize_or(Vec3::X);
    let rim_point = Vec3::new(shape.center.x, level, shape.center.z) + outward * rim;
    let away = world - rim_point;
    let distance = away.length();
    Some((distance, away.normalize_or(Vec3::Y)))
}

/// The unit normal of ground whose slope is (dh/dx, dh/dz), as
/// [`Ground::height_and_slope`] gives it for one grid cell.
#[inline]
pub fn slope_normal(slope: Vec2) -> Vec3 {
    Vec3::new(-slope.x, 1.0, -slope.y).normalize_or(Vec3::Y)
}

/// A local coordinate split into a global grid index and the fraction of a
/// cell past it.
#[inline]
fn split(local: f32, inv_spacing: f32, origin: i64) -> (i64, f32) {
    let g = (local * inv_spacing).clamp(-MAX_GRID_INDEX, MAX_GRID_INDEX);
    // `floor` is a libm call on baseline x86-64; a truncating cast is one
    // instruction, corrected by one for negative non-integers.
    let truncated = g as i64;
    let floor = truncated - i64::from((truncated as f32) > g);
    (floor + origin, g - floor as f32)
}

impl<'a> Ground<'a> {
    /// The terrain behind this view.
    pub fn field(&self) -> &'a Heightfield {
        self.field
    }

    /// The frame's offset from the world origin.
    pub fn origin(&self) -> GridOrigin {
        self.origin
    }

    /// The corners of the grid cell holding local (x, z) and the position
    /// inside it (fractions along x and z); `None` for a NaN coordinate.
    #[inline(always)]
    fn patch(&self, x: f32, z: f32) -> Option<([f32; 4], f32, f32)> {
        if x.is_nan() || z.is_nan() {
            return None;
        }
        let f = self.field;
        if let Some(height) = f.flat {
            // Equal corners: any place in the cell gives this height and
            // no slope.
            return Some(([height; 4], 0.0, 0.0));
        }
        let (i, tx) = split(x, f.inv_spacing, self.origin.x);
        let (j, tz) = split(z, f.inv_spacing, self.origin.z);
        Some((f.cell_corners(i, j), tx, tz))
    }

    /// Surface height at local (x, z); NaN in, NaN out.
    #[inline]
    pub fn height(&self, x: f32, z: f32) -> f32 {
        let Some(([h00, h10, h01, h11], tx, tz)) = self.patch(x, z) else {
            return f32::NAN;
        };
        let near = h00 + (h10 - h00) * tx;
        let far = h01 + (h11 - h01) * tx;
        near + (far - near) * tz
    }

    /// Height at local (x, z) and the slope (dh/dx, dh/dz) of the cell's
    /// bilinear patch there: one cell's corners for both.
    #[inline]
    pub fn height_and_slope(&self, x: f32, z: f32) -> (f32, Vec2) {
        let Some(([h00, h10, h01, h11], tx, tz)) = self.patch(x, z) else {
            return (f32::NAN, Vec2::ZERO);
        };
        let near = h00 + (h10 - h00) * tx;
        let far = h01 + (h11 - h01) * tx;
        let inv = self.field.inv_spacing;
        let slope_x = ((h10 - h00) * (1.0 - tz) + (h11 - h01) * tz) * inv;
        let slope_z = (far - near) * inv;
        (near + (far - near) * tz, Vec2::new(slope_x, slope_z))
    }

    /// Unit surface normal at local (x, z), from the height gradient over one grid cell.
    pub fn normal(&self, x: f32, z: f32) -> Vec3 {
        let d = self.field.spacing;
        let dx = (self.height(x + d, z) - self.height(x - d, z)) / (2.0 * d);
        let dz = (self.height(x, z + d) - self.height(x, z - d)) / (2.0 * d);
        Vec3::new(-dx, 1.0, -dz).normalize()
    }

    /// A floor under the y component of [`Ground::normal`] anywhere in the
    /// local rectangle from `lo` to `hi` (x, z): the normal there is never
    /// tilted further from straight up. A point's central differences span
    /// its cell and the next two along each axis, whose slopes are no
    /// steeper than the largest step between neighbouring grid points
    /// there; a little under that bound, for rounding. Zero where that is
    /// not known (the chunks are not cached, or a coordinate is NaN),
    /// nearly one on flat ground.
    pub fn normal_y_floor(&self, lo: Vec2, hi: Vec2) -> f32 {
        let f = self.field;
        if f.flat.is_some() {
            return 1.0 - 1e-3;
        }
        if lo.is_nan() || hi.is_nan() {
            return 0.0;
        }
        let cell = |x: f32, z: f32| {
            (
                split(x, f.inv_spacing, self.origin.x).0,
                split(z, f.inv_spacing, self.origin.z).0,
            )
        };
        let ((i0, j0), (i1, j1)) = (cell(lo.x, lo.y), cell(hi.x, hi.y));
        // Two cells either way: `x ± spacing` may round into the cell
        // past the next.
        let Some(step) = f.steepest_over((i0 - 2, j0 - 2), (i1 + 3, j1 + 3)) else {
            return 0.0;
        };
        let slope = step * f.inv_spacing;
        (1.0 - 1e-3) / (1.0 + 2.0 * slope * slope).sqrt()
    }

    /// Whether a shape (added or carved) makes the surface at local
    /// (x, z) what it is: on a flat ground, everywhere (every ledge and
    /// drop there is a shape's edge); on noise ground, within a shape's
    /// footprint.
    pub fn shaped_at(&self, x: f32, z: f32) -> bool {
        self.has_shapes() && (self.field.flat.is_some() || self.vertical_meets_shape(x, z))
    }

    /// Whether the world holds shapes besides the ground (otherwise every
    /// query is the heightfield's own, the fast path).
    #[inline]
    pub fn has_shapes(&self) -> bool {
        !self.field.shapes.is_empty()
    }

    /// This frame's offset from the world origin, metres.
    #[inline]
    fn offset(&self) -> Vec3 {
        let spacing = self.field.spacing;
        Vec3::new(
            self.origin.x as f32 * spacing,
            0.0,
            self.origin.z as f32 * spacing,
        )
    }

    /// The heightfield's own signed distance at `p` and its normal there:
    /// the vertical gap projected on the normal (exact on planes).
    #[inline]
    fn ground_distance(&self, p: Vec3) -> (f32, Vec3) {
        let normal = self.normal(p.x, p.z);
        ((p.y - self.height(p.x, p.z)) * normal.y, normal)
    }

    /// Signed distance of `p` from the surface: positive in the open,
    /// negative inside the solid. The ground's part is its vertical gap
    /// projected on its normal (exact on planes); each shape's is exact;
    /// they combine in file order (a union takes the nearer surface, a
    /// carve the farther).
    pub fn signed_distance(&self, p: Vec3) -> f32 {
        if !self.has_shapes() {
            return self.ground_distance(p).0;
        }
        self.nearest(p).0
    }

    /// [`Ground::signed_distance`] and the surface's outward normal there
    /// (the gradient of whichever surface the distance came from), sharing
    /// the lookups.
    pub fn distance_and_normal(&self, p: Vec3) -> (f32, Vec3) {
        if !self.has_shapes() {
            return self.ground_distance(p);
        }
        let (d, from) = self.nearest(p);
        let normal = match from {
            Nearest::Ground(normal) => normal,
            Nearest::Face(normal) => normal,
            Nearest::Shape(i, carved) => {
                let n = self.field.shapes[i as usize].normal(p + self.offset());
                if carved { -n } else { n }
            }
        };
        (d, normal)
    }

    /// The signed distance in a world with shapes, and which surface it is
    /// to (a shape's normal costs six distances, so it is left to the
    /// callers that need it).
    fn nearest(&self, p: Vec3) -> (f32, Nearest) {
        let world = p + self.offset();
        let (near, edge) = self.field.index.near(world.x, world.z);
        let found = self.fold_distance(p, world, near);
        // Shapes of other cells are farther than the cell's edge: they
        // cannot change an answer nearer than that. (A cell that lists
        // every shape has none other: the overhang's two shapes reach into
        // all of its cells, and one query in eight folded them twice.)
        // `box_gap::shapes_distance` does the same over the shapes alone.
        let every = self.field.index.every();
        if found.0.abs() <= edge || near.len() == every.len() {
            return found;
        }
        self.fold_distance(p, world, every)
    }

    /// [`Ground::nearest`] over the shapes `indices` (in file order) and
    /// the ground.
    fn fold_distance(&self, p: Vec3, world: Vec3, indices: &[u32]) -> (f32, Nearest) {
        let found = self.fold_shapes(p, world, indices, false);
        if found.0 <= 0.0 && self.in_shape_by_its_base(world, indices) {
            // Inside the solid (or on its surface) and inside an added box
            // or cylinder whose base is a face nearest: that base may stand
            // in the ground (a wall's or a tower's, on the floor), and the
            // way out is then by another face. (Measured by its base, a knee 0.1 m into a
            // wall's base, 6 mm over the floor, read 6 mm deep; a point on
            // the floor 8 mm inside a wall's footprint, exactly on its
            // base's plane, read 0, and a foot stepped there.) Rare, so
            // folded again only then.
            return self.fold_with_bases_buried(p, world, indices);
        }
        found
    }

    /// Whether world point `world` is inside (or on the base of) one of the
    /// added boxes or cylinders among `indices` with the shape's base a
    /// face nearest it.
    /// Asked for every point at or below the surface, feet standing on a
    /// floor among them: kept out of line, but not marked cold.
    #[inline(never)]
    fn in_shape_by_its_base(&self, world: Vec3, indices: &[u32]) -> bool {
        indices.iter().any(|&i| {
            let shape = &self.field.shapes[i as usize];
            !shape.subtract && shape.depth_above_base(world).is_some()
        })
    }

    /// [`Ground::fold_shapes`] with additions' bases in the ground no way
    /// out: the rare fold, kept out of the common one's way.
    #[cold]
    #[inline(never)]
    fn fold_with_bases_buried(&self, p: Vec3, world: Vec3, indices: &[u32]) -> (f32, Nearest) {
        self.fold_shapes(p, world, indices, true)
    }

    /// [`Ground::fold_distance`]'s fold, with additions' bases that stand
    /// in the ground no way out of them when `bases_buried` is set.
    #[inline(always)]
    fn fold_shapes(
        &self,
        p: Vec3,
        world: Vec3,
        indices: &[u32],
        bases_buried: bool,
    ) -> (f32, Nearest) {
        // Folding the shapes in file order (min for an addition, max for a
        // carve) onto the ground's distance x gives min(max(x, lo), hi):
        // the ground's distance is needed only when it falls between the
        // two.
        let (mut lo, mut lo_from) = (f32::NEG_INFINITY, None);
        let (mut hi, mut hi_from) = (f32::INFINITY, None);
        for &i in indices {
            let shape = &self.field.shapes[i as usize];
            // A shape that cannot change either bound is skipped: a carve
            // must come nearer than -lo, an addition nearer than hi. (Never
            // an addition when its base may be buried: the depth past it
            // is no longer its distance.)
            let needed = if shape.subtract {
                -lo
            } else if bases_buried {
                f32::INFINITY
            } else {
                hi
            };
            if self.field.index.at_least(i, shape.center, world, needed) {
                continue;
            }
            let mut ds = shape.distance(world);
            let mut from = Some(Nearest::Shape(i, shape.subtract));
            if bases_buried
                && ds <= 0.0
                && !shape.subtract
                && let Some((depth, normal)) = shape.depth_above_base(world)
                // (The local frame differs from the world's along x and z
                // only.)
                && shape.bottom() <= self.height(p.x, p.z) + BURIED_FACE
            {
                ds = -depth;
                from = Some(Nearest::Face(normal));
            }
            if shape.subtract {
                if -ds > lo {
                    (lo, lo_from) = (-ds, from);
                }
                if -ds > hi {
                    (hi, hi_from) = (-ds, from);
                }
            } else {
                if ds < hi {
                    (hi, hi_from) = (ds, from);
                }
                if ds < lo {
                    (lo, lo_from) = (ds, from);
                }
            }
        }
        // Over a carve's opening or in it, the ground is what the carve
        // left of it (see `carved_ground`).
        if !self.field.ground_carves.is_empty()
            && let Some((ground, normal)) = self.carved_ground(world, indices)
        {
            if let (true, Some(from)) = (ground >= hi, hi_from) {
                return (hi, from);
            }
            if let (true, Some(from)) = (ground <= lo, lo_from) {
                return (lo, from);
            }
            return (ground, Nearest::Face(normal));
        }
        // The ground's distance lies between 0 and its vertical gap; its
        // slope comes with its height, from the same cell.
        let (height, slope) = self.height_and_slope(p.x, p.z);
        let gap = p.y - height;
        if let (true, Some(from)) = (gap.min(0.0) >= hi, hi_from) {
            return (hi, from);
        }
        if let (true, Some(from)) = (gap.max(0.0) <= lo, lo_from) {
            return (lo, from);
        }
        let normal = slope_normal(slope);
        let ground = gap * normal.y;
        if let (true, Some(from)) = (ground >= hi, hi_from) {
            return (hi, from);
        }
        if let (true, Some(from)) = (ground <= lo, lo_from) {
            return (lo, from);
        }
        (ground, Nearest::Ground(normal))
    }

    /// The distance from world point `world`, inside the footprint of a
    /// carve among `indices` that opens the flat ground and above its floor, to what the
    /// carve left of the ground, with the way away from it; `None`
    /// elsewhere. What is left lies past the footprint's edge, at the
    /// ground's level or below, or under the floor: so the distance is the
    /// nearer of the rim (level with `world` or below it) and the floor. A
    /// lower bound where carves overlap (the rim of one may be carved away
    /// by another), and exact for one. The ground's own distance, the gap
    /// to its plane, read a trench's opening as a lid 4 cm under a body
    /// over it (a spider turning off a bridge walked 7 s on it, over a 3 m
    /// trench); and the carve's own, in the trench just under its top,
    /// took that top for a face and pushed the body down 3 cm in a step.
    /// A sphere's crater is the same, its bowl for the floor (see
    /// [`opening_ground`]).
    fn carved_ground(&self, world: Vec3, indices: &[u32]) -> Option<(f32, Vec3)> {
        let level = self.field.flat?;
        let mut found: Option<(f32, Vec3)> = None;
        // Every carve whose footprint holds `world` is among the shapes
        // indexed near it.
        for &i in indices {
            let shape = &self.field.shapes[i as usize];
            let floor = world.y - shape.bottom();
            if floor <= 0.0 || !opens_ground(shape, level) {
                continue;
            }
            if let Some(here) = opening_ground(shape, level, world, floor)
                && found.is_none_or(|(d, _)| here.0 > d)
            {
                found = Some(here);
            }
        }
        found
    }

    /// Every shape's index, the corners of a box holding it in this local
    /// frame, and whether it carves (for views that cull them).
    pub fn shape_hulls(&self) -> impl Iterator<Item = (u32, [Vec3; 8], bool)> + '_ {
        let offset = self.offset();
        self.field
            .shapes
            .iter()
            .enumerate()
            .map(move |(i, s)| (i as u32, s.corners().map(|c| c - offset), s.subtract))
    }

    /// Whether the vertical line through local (x, z) meets any shape:
    /// false means the ground alone is there.
    pub fn vertical_meets_shape(&self, x: f32, z: f32) -> bool {
        let world = Vec3::new(x, 0.0, z) + self.offset();
        let (near, _) = self.field.index.near(world.x, world.z);
        near.iter()
            .any(|&i| self.field.shapes[i as usize].footprint_contains(world.x, world.z))
    }

    /// Whether `p` is inside the solid: the last shape in file order that
    /// holds it decides (added: solid; carved: open); outside every shape,
    /// the ground does.
    pub fn inside(&self, p: Vec3) -> bool {
        if self.has_shapes() {
            let world = p + self.offset();
            if let Some(shape) = self.holder(world) {
                return !shape.subtract;
            }
        }
        p.y < self.height(p.x, p.z)
    }

    /// Whether an added (not carved) shape comes within `within` metres of
    /// `p`: where a view sampling the solid at points `within` apart may
    /// pass between the faces of a thin one.
    pub fn added_shape_within(&self, p: Vec3, within: f32) -> bool {
        if !self.has_shapes() {
            return false;
        }
        let world = p + self.offset();
        let (near, edge) = self.field.index.near(world.x, world.z);
        let candidates = if within <= edge {
            near
        } else {
            self.field.index.every()
        };
        candidates.iter().any(|&i| {
            let shape = &self.field.shapes[i as usize];
            !shape.subtract && shape.distance(world) < within
        })
    }

    /// The thickness of the thinnest added shape (its least full extent),
    /// or infinity with none.
    pub fn thinnest_added_shape(&self) -> f32 {
        self.field.thinnest_added
    }

    /// The last shape in file order that holds world point `world`.
    #[inline]
    fn holder(&self, world: Vec3) -> Option<&'a Shape> {
        let (near, _) = self.field.index.near(world.x, world.z);
        near.iter().rev().find_map(|&i| {
            let shape = &self.field.shapes[i as usize];
            shape.contains(world).then_some(shape)
        })
    }

    /// Whether `distance`, the signed distance at `p` (outside the solid),
    /// is only the bound a carve leaves: the point it measures to, back
    /// down the distance's gradient, is not on the surface. Past a carve
    /// the distance is an added shape's, as if the carve were not there: a
    /// hexapod walking through a doorway carved in a wall had its centre
    /// held 35 mm off the wall's face where the doorway had cut it away,
    /// and stood in the doorway for good. An exact distance's point is on
    /// the surface (a face's, or an edge's between faces).
    pub fn carved_bound_only(&self, p: Vec3, distance: f32) -> bool {
        if !(self.field.any_carve && distance > 0.0) {
            return false;
        }
        let (_, normal) = self.distance_and_normal(p);
        self.signed_distance(p - normal * distance) > ON_THE_GROUND
    }

    /// Unit outward normal of the surface nearest `p`.
    pub fn normal_at(&self, p: Vec3) -> Vec3 {
        self.distance_and_normal(p).1
    }

    /// The point of the surface nearest `p` (a few steps along the
    /// distance's gradient; exact on planes and on every shape's faces; on
    /// open ground, on the ground and never farther than the ground on the
    /// vertical through `p`).
    pub fn closest_point(&self, p: Vec3) -> Vec3 {
        if !p.is_finite() {
            return p;
        }
        let mut q = p;
        let mut converged = false;
        for _ in 0..4 {
            let (d, n) = self.distance_and_normal(q);
            if d.abs() < 1e-5 {
                converged = true;
                break;
            }
            q -= n * d;
        }
        if !self.has_shapes() {
            // The ground's distance is a bound near a sharp crest, and the
            // steps can stop a few centimetres off it (an octopod's foothold
            // 4 cm over a ridged flank, stepped to and never landed on): the
            // ground on the vertical through the last step, or through `p`
            // if that is nearer (the steps may have crossed the crest), both
            // on it.
            let under_step = self.project_down(q).point;
            let under_p = self.project_down(p).point;
            return if under_step.distance(p) <= under_p.distance(p) {
                under_step
            } else {
                under_p
            };
        }
        if converged || self.signed_distance(q).abs() < 1e-3 {
            return q;
        }
        // Where a carve meets an addition the distance is only a bound,
        // and the steps can circle without landing (a room's rim): the
        // nearest of the hits of rays from `p` along its normal and the six
        // axes is on the surface, exactly.
        let (d, n) = self.distance_and_normal(p);
        let start = if d < 0.0 { p + n * (0.01 - d) } else { p };
        let length = d.abs() * 4.0 + 0.5;
        [-n, Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z]
            .into_iter()
            .filter_map(|direction| self.raycast(start, direction, length))
            .min_by(|a, b| a.point.distance(p).total_cmp(&b.point.distance(p)))
            .map_or(q, |hit| hit.point)
    }

    /// The surface point below (or above) `p` along the vertical, on the
    /// ground alone (the fallback for a ray that found nothing).
    pub fn project_down(&self, p: Vec3) -> RayHit {
        let point = Vec3::new(p.x, self.height(p.x, p.z), p.z);
        RayHit {
            point,
            distance: p.y - point.y,
        }
    }

    /// The surface point nearest `p` as a hit at its distance (see
    /// [`closest_point`](Self::closest_point)): where a ray looking for the
    /// surface under something found none.
    pub fn nearest_hit(&self, p: Vec3) -> RayHit {
        let point = self.closest_point(p);
        RayHit {
            point,
            distance: point.distance(p),
        }
    }

    /// The first surface straight below `p`, shapes and ground alike (a
    /// slab's top, not the ground under it), searched down to the lowest
    /// shape's bottom; from inside the solid the nearest surface; with
    /// nothing below, the ground's height there.
    pub fn surface_below(&self, p: Vec3) -> RayHit {
        let depth = p.y - self.below_every_surface(p.x, p.z);
        let hit = if depth.is_finite() && depth > 0.0 {
            self.raycast(p, -Vec3::Y, depth)
        } else {
            None
        };
        hit.unwrap_or_else(|| {
            if self.inside(p) {
                self.nearest_hit(p)
            } else {
                self.project_down(p)
            }
        })
    }

    /// A height (a metre) below every surface at (x, z): below the ground
    /// there and the lowest shape's bottom, where a ray down may stop.
    fn below_every_surface(&self, x: f32, z: f32) -> f32 {
        self.height(x, z).min(self.field.shapes_bottom) - 1.0
    }

    /// The topmost surface at (x, z): a ray down from above everything there
    /// (where creatures are set down).
    pub fn surface_top(&self, x: f32, z: f32) -> RayHit {
        let ground = self.height(x, z);
        let top = ground.max(self.field.shapes_top);
        if !top.is_finite() || !self.has_shapes() {
            return self.project_down(Vec3::new(x, ground, z));
        }
        let above = Vec3::new(x, top + 1.0, z);
        // Down past the ground to the bottom of any carve: the floor of a
        // pit carved deeper than the ground is the surface there (a spider
        // set down over one stood 4 m above its floor, on nothing).
        self.raycast(above, -Vec3::Y, above.y - self.below_every_surface(x, z))
            .unwrap_or_else(|| self.project_down(above))
    }

    /// The first point where a ray from `origin` along `direction` meets the
    /// surface within `max_distance`, if any. A ray starting inside the
    /// solid hits nothing.
    ///
    /// Exact: each shape gives the stretch of the ray inside it
    /// analytically, so the ray splits into pieces where the same shapes
    /// hold it; in each piece the world is solid, open, or the ground (the
    /// last shape holding it decides), and the ground's pieces are walked
    /// cell by cell (see `Ground::ground_hit`).
    pub fn raycast(&self, origin: Vec3, direction: Vec3, max_distance: f32) -> Option<RayHit> {
        let direction = direction.try_normalize()?;
        if !origin.is_finite() || max_distance.is_nan() || max_distance <= 0.0 {
            return None;
        }
        if !self.has_shapes() {
            if origin.y < self.height(origin.x, origin.z) {
                return None;
            }
            return self.ground_hit(origin, direction, 0.0, max_distance);
        }
        if self.inside(origin) {
            return None;
        }
        let world = origin + self.offset();
        let end = world + direction * max_distance;
        // The ground's last hit past the start of its piece, on its surface
        // already: the answer when the ray ends on the ground. (One at the
        // start of a piece is where the ray leaves a shape into the ground,
        // as out of a pit's carve through its floor: on the shape's face.)
        let mut on_ground = None;
        let t = self.first_solid(
            world,
            direction,
            max_distance,
            |visit| {
                self.field
                    .index
                    .along(Vec2::new(world.x, world.z), Vec2::new(end.x, end.z), visit)
            },
            |from, to| {
                let hit = self.ground_hit(origin, direction, from, to);
                on_ground = hit.filter(|hit| hit.distance > from);
                hit.map(|hit| hit.distance)
            },
        )?;
        if let Some(hit) = on_ground {
            // (The ground answered last only when its hit ended the ray.)
            return Some(hit);
        }
        // Into an added shape, or out of a carve into the ground: on the
        // shape's face. Where that face meets the ground's surface (a
        // carve's floor at the ground's level), stand exactly on the
        // ground's interpolated surface. Not below it: out of a crater's
        // bowl, rounded just outside the sphere, the ground's height there
        // stood the hit on the crater's opening, and a biped walked out
        // onto it.
        let point = origin + direction * t;
        let point = if self.holder(point + self.offset()).is_none() && t > 0.0 {
            match self.ground_hit(origin, direction, t, t) {
                Some(hit) if (hit.point.y - point.y).abs() <= ON_THE_GROUND => hit.point,
                _ => point,
            }
        } else {
            point
        };
        Some(RayHit { point, distance: t })
    }

    /// The first distance along a ray (world frame, unit `direction`, from
    /// a point in the open) where it enters the solid, within `max`.
    ///
    /// `shapes` calls its argument with the index of every shape the ray
    /// may meet (a shape may come more than once); the ray's crossings of
    /// their surfaces cut it into pieces in which the same shapes hold it,
    /// and in each the world is solid (an added shape is the last to hold
    /// it), open (a carve is), or the ground's: `ground(from, to)` gives
    /// the first distance in the piece where the ground is met, if any.
    fn first_solid(
        &self,
        world: Vec3,
        direction: Vec3,
        max: f32,
        shapes: impl FnOnce(&mut dyn FnMut(u32)),
        mut ground: impl FnMut(f32, f32) -> Option<f32>,
    ) -> Option<f32> {
        // The crossings, on the stack unless the ray meets very many shapes.
        let mut stack = [0.0f32; 32];
        let mut count = 0usize;
        let mut heap: Vec<f32> = Vec::new();
        shapes(&mut |i| {
            let Some(span) = self.field.shapes[i as usize].span(world, direction) else {
                return;
            };
            for t in [span.enter, span.exit] {
                if t > 0.0 && t < max {
                    if count < stack.len() {
                        stack[count] = t;
                        count += 1;
                    } else {
                        heap.push(t);
                    }
                }
            }
        });
        let crossings: &mut [f32] = if heap.is_empty() {
            &mut stack[..count]
        } else {
            heap.extend_from_slice(&stack[..count]);
            &mut heap
        };
        crossings.sort_unstable_by(f32::total_cmp);
        let mut from = 0.0f32;
        for &to in crossings.iter().chain(std::iter::once(&max)) {
            if to <= from {
                continue;
            }
            let middle = world + direction * (0.5 * (from + to));
            match self.holder(middle) {
                // Entering an added shape (the ray was in the open).
                Some(shape) if !shape.subtract => return Some(from),
                Some(_) => {}
                None => {
                    if let Some(t) = ground(from, to) {
                        return Some(t);
                    }
                }
            }
            from = to;
        }
        None
    }

    /// Where a ray from the camera (local frame, unit `direction`) first
    /// meets the solid, when where it first meets the ground alone is
    /// already known (`ground`, from the renderer's depth buffer; infinite
    /// where it sees no ground): the ground counts as solid from there on.
    /// `shapes` lists the shapes the ray may meet. For views: exact for the
    /// shapes, as exact as the given ground.
    pub fn raycast_over_ground(
        &self,
        origin: Vec3,
        direction: Vec3,
        max: f32,
        ground: f32,
        shapes: &[u32],
    ) -> Option<f32> {
        let world = origin + self.offset();
        self.first_solid(
            world,
            direction,
            max,
            |visit| shapes.iter().for_each(|&i| visit(i)),
            |from, to| (ground < to).then_some(ground.max(from)),
        )
    }

    /// Where a ray from local `origin` along unit `direction` is inside
    /// shape `i` (see [`Shape::span`]).
    pub fn shape_span(&self, i: u32, origin: Vec3, direction: Vec3) -> Option<Span> {
        self.field.shapes[i as usize].span(origin + self.offset(), direction)
    }

    /// Shape `i`'s outward unit normal nearest local `p` (see [`Shape::normal`]).
    pub fn shape_normal(&self, i: u32, p: Vec3) -> Vec3 {
        self.field.shapes[i as usize].normal(p + self.offset())
    }

    /// Where the ray first meets the ground between `from` and `to` along
    /// it (at `from` when it is already below the ground there).
    ///
    /// The ray walks the grid cell by cell; inside a cell the surface is a
    /// bilinear patch, so the gap between ray and surface is a quadratic in
    /// the distance along the ray and its first root is the exact hit. No
    /// bound on the terrain's slope is needed, and nothing steps through a
    /// hill.
    fn ground_hit(&self, origin: Vec3, direction: Vec3, from: f32, to: f32) -> Option<RayHit> {
        let start = origin + direction * from;
        let f = self.field;
        let inv = f64::from(f.inv_spacing);
        let max = f64::from(to - from);
        // Grid coordinates relative to the local frame, in f64 so long rays
        // keep their cell arithmetic exact.
        let (gx, gz) = (f64::from(start.x) * inv, f64::from(start.z) * inv);
        let (dgx, dgz) = (f64::from(direction.x) * inv, f64::from(direction.z) * inv);
        let (oy, dy) = (f64::from(start.y), f64::from(direction.y));
        let (mut i, mut j) = (gx.floor(), gz.floor());
        let boundary = |g: f64, d: f64, cell: f64| {
            if d > 0.0 {
                ((cell + 1.0 - g) / d, 1.0 / d)
            } else if d < 0.0 {
                ((cell - g) / d, -1.0 / d)
            } else {
                (f64::INFINITY, f64::INFINITY)
            }
        };
        let (mut next_x, step_x) = boundary(gx, dgx, i);
        let (mut next_z, step_z) = boundary(gz, dgz, j);
        let mut t = 0.0f64;
        for _ in 0..MAX_RAY_CELLS {
            let exit = next_x.min(next_z).min(max);
            if let Some(hit) = self.cell_hit(i, j, [gx, gz, dgx, dgz, oy, dy], t, exit) {
                let point = start + direction * hit as f32;
                // Stand exactly on the interpolated surface (the root is
                // exact up to rounding).
                let point = Vec3::new(point.x, self.height(point.x, point.z), point.z);
                return Some(RayHit {
                    point,
                    distance: from + hit as f32,
                });
            }
            if exit >= max {
                return None;
            }
            t = exit;
            if next_x <= next_z {
                i += dgx.signum();
                next_x += step_x;
            } else {
                j += dgz.signum();
                next_z += step_z;
            }
        }
        None
    }

    /// The first t in [t0, t1] where the ray meets the patch of local cell
    /// (i, j): the smallest root of gap(t) = ray height − patch height.
    fn cell_hit(&self, i: f64, j: f64, ray: [f64; 6], t0: f64, t1: f64) -> Option<f64> {
        let [gx, gz, dgx, dgz, oy, dy] = ray;
        let f = self.field;
        let corners = f.cell_corners(i as i64 + self.origin.x, j as i64 + self.origin.z);
        // The patch never rises above its highest corner: a ray above that
        // for the whole segment (it is straight, so at both ends) misses.
        let top = f64::from(corners.iter().copied().fold(f32::NEG_INFINITY, f32::max));
        if oy + dy * t0 > top && oy + dy * t1 > top {
            return None;
        }
        let [h00, h10, h01, h11] = corners.map(f64::from);
        let (e1, e2, e3) = (h10 - h00, h01 - h00, h00 - h10 - h01 + h11);
        // u(t) = u0 + du t, v(t) = v0 + dv t: position inside the cell.
        let (u0, v0) = (gx - i, gz - j);
        let c = oy - h00 - e1 * u0 - e2 * v0 - e3 * u0 * v0;
        let b = dy - e1 * dgx - e2 * dgz - e3 * (u0 * dgz + v0 * dgx);
        let a = -e3 * dgx * dgz;
        let gap = |t: f64| (a * t + b) * t + c;
        if gap(t0) <= 0.0 {
            return Some(t0);
        }
        let scale = b.abs().max(c.abs()).max(1e-300);
        let mut first: Option<f64> = None;
        let mut consider = |t: f64| {
            if t.is_finite() && t >= t0 && t <= t1 && first.is_none_or(|f| t < f) {
                first = Some(t);
            }
        };
        if a.abs() <= 1e-12 * scale {
            if b != 0.0 {
                consider(-c / b);
            }
        } else {
            let disc = b * b - 4.0 * a * c;
            if disc >= 0.0 {
                // The numerically stable pair of roots.
                let q = -0.5 * (b + b.signum() * disc.sqrt());
                consider(q / a);
                if q != 0.0 {
                    consider(c / q);
                }
            }
        }
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::ShapeKind;

    /// The shipped canyon (fifty turned slabs and boulders) and a scatter
    /// of long turned slabs, balls and pillars, some carving, crowded into
    /// a few cells of the index.
    fn crowded_worlds() -> Vec<Heightfield> {
        let canyon = crate::config::load_terrain("canyon").expect("shipped terrain");
        let mut scatter = canyon.clone();
        scatter.shapes = (0..40)
            .map(|k| {
                let k = k as f32;
                let kind = [ShapeKind::Box, ShapeKind::Sphere, ShapeKind::Cylinder][k as usize % 3];
                let centre = Vec3::new(
                    (k * 2.39).sin() * 9.0,
                    (k * 0.7).cos(),
                    (k * 1.31).cos() * 9.0,
                );
                let half = match kind {
                    ShapeKind::Box => Vec3::new(4.0 + (k * 0.9).sin(), 1.5, 0.3),
                    ShapeKind::Sphere => Vec3::splat(0.8),
                    ShapeKind::Cylinder => Vec3::new(0.6, 2.0, 0.6),
                };
                Shape::new(kind, centre, half, k * 0.61, k as usize % 4 == 3)
            })
            .collect();
        vec![
            Heightfield::generate(&canyon),
            Heightfield::generate(&scatter),
        ]
    }

    /// The index lists a cell's shapes by their footprints: a distance,
    /// the shape holding a point and a ray found through it are exactly
    /// those found by going through every shape.
    #[test]
    fn the_index_answers_as_every_shape_does() {
        for field in crowded_worlds() {
            let ground = field.world();
            let every = field.index.every();
            let (mut checked, mut held) = (0, 0);
            for i in -60..=60 {
                for k in -60..=60 {
                    for y in [-0.3, 0.2, 1.1, 2.7, 5.5] {
                        let p = Vec3::new(i as f32 * 0.37, y, k as f32 * 0.29);
                        let world = p + ground.offset();
                        let indexed = ground.nearest(p).0;
                        let by_all = ground.fold_distance(p, world, every).0;
                        assert_eq!(indexed, by_all, "distance at {p}");
                        let holder = ground.holder(world).map(|s| s as *const Shape);
                        let by_all = every
                            .iter()
                            .rev()
                            .map(|&i| &field.shapes[i as usize])
                            .find(|s| s.contains(world))
                            .map(|s| s as *const Shape);
                        assert_eq!(holder, by_all, "holder of {p}");
                        held += usize::from(holder.is_some());
                        checked += 1;
                    }
                    // A short ray (the index's cells along it, not every
                    // shape) against one told of every shape.
                    let origin = Vec3::new(i as f32 * 0.37, 2.0, k as f32 * 0.29);
                    let direction = Vec3::new((i as f32).sin(), -0.8, (k as f32).cos()).normalize();
                    if ground.inside(origin) {
                        continue;
                    }
                    let world = origin + ground.offset();
                    let indexed = ground.raycast(origin, direction, 3.0).map(|h| h.distance);
                    let by_all = ground.first_solid(
                        world,
                        direction,
                        3.0,
                        |visit| every.iter().for_each(|&i| visit(i)),
                        |from, to| {
                            ground
                                .ground_hit(origin, direction, from, to)
                                .map(|h| h.distance)
                        },
                    );
                    // (Equal up to rounding: more shapes cut the ray into
                    // more pieces, and the ground's walk starts at each.)
                    let agree = match (indexed, by_all) {
                        (Some(a), Some(b)) => (a - b).abs() <= 1e-5 * a.max(1.0),
                        (a, b) => a == b,
                    };
                    assert!(
                        agree,
                        "ray from {origin} along {direction}: {indexed:?} {by_all:?}"
                    );
                }
            }
            assert!(held > 500, "{held} of {checked} points in a shape");
        }
    }
}
