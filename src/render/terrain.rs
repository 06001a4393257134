//! Terrain drawing for each kind of view.

use glam::Vec3;
use rayon::ThreadPool;
use rayon::prelude::*;

use super::camera::{Projection, ViewKind};
use super::grid::{Cell, Grid, Ink, Rows};
use crate::terrain::Ground;

/// Height between the plan view's contour lines (metres).
const CONTOUR_INTERVAL: f32 = 0.25;
/// The plan view's height ramp, low to high: light characters, so the
/// creature's lines stay readable over any ground.
const HEIGHT_RAMP: &[char] = &[' ', '.', ',', ':', ';', '=', '+'];
/// Brightness ramp for the lit perspective surface (donut-style), dark to bright.
const LIGHT_RAMP: &[char] = &['.', ',', '-', '~', ':', ';', '=', '!', '*', '#', '$', '@'];
/// Direction light comes from (normalised when used): low, for contrast.
const SUN: Vec3 = Vec3::new(0.7, 0.5, 0.4);
/// Half-size of the square patch of terrain the chase camera draws (metres, at zoom 1).
const PATCH_HALF_SIZE: f32 = 24.0;
/// Most vertices along one side of that patch.
const PATCH_VERTICES: usize = 97;

fn ramp(chars: &[char], level: f32) -> char {
    let i = (level.clamp(0.0, 1.0) * (chars.len() - 1) as f32).round() as usize;
    chars[i.min(chars.len() - 1)]
}

fn brightness(level: f32) -> Ink {
    Ink::Ground((level.clamp(0.0, 1.0) * 7.0).round() as u8)
}

/// Ground samples across the depth band of a side or front view.
const BAND_SAMPLES: usize = 5;

/// Draws the terrain as the projection's view shows it. `band` is how far
/// (metres) the subject reaches toward and away from a side or front view's
/// viewer: its feet stand on ground anywhere across that depth. Work that
/// splits by rows runs on `pool` when there is one; the grid does not
/// depend on it.
pub fn draw_terrain(
    grid: &mut Grid,
    terrain: &Ground<'_>,
    projection: &Projection,
    band: f32,
    pool: Option<&ThreadPool>,
) {
    match projection.kind {
        ViewKind::Top => {
            plan(grid, terrain, projection);
            if terrain.has_shapes() {
                plan_shapes(grid, terrain, projection);
            }
        }
        ViewKind::Side | ViewKind::Front => {
            profile(grid, terrain, projection, band);
            if terrain.has_shapes() {
                section(grid, terrain, projection);
            }
        }
        ViewKind::Perspective => {
            let far = surface(grid, terrain, projection, pool);
            if terrain.has_shapes() {
                perspective_solids(grid, terrain, projection, far, pool);
            }
        }
    }
}

/// The perspective view of a solid world: over the rastered ground, every
/// cell whose ray may meet a shape is cast through the distance field
/// (exact for the shapes; the ground where the raster put it), and what it
/// meets first is lit from its normal: walls, roofs and the inside of
/// carved rooms show, and carved ground opens. Rows are independent: on
/// `pool` they are painted in parallel (the grid is the same either way).
fn perspective_solids(
    grid: &mut Grid,
    terrain: &Ground<'_>,
    projection: &Projection,
    far: f32,
    pool: Option<&ThreadPool>,
) {
    // Which shapes can cover which cells: the rectangles of their boxes'
    // images. With each, the nearest depth any of it stands at, and whether
    // it carves (a carve can open ground that stands in front of it).
    let mut rects: Vec<ShapeRect> = terrain
        .shape_hulls()
        .filter_map(|(shape, corners, carves)| {
            projection
                .hull_rect(&corners, far)
                .map(|(rect, nearest)| ShapeRect {
                    shape,
                    rect,
                    nearest,
                    carves,
                })
        })
        .collect();
    if rects.is_empty() {
        return;
    }
    // Nearest first, so a cell's search stops at the first shape that
    // cannot come before what it has found.
    rects.sort_by(|a, b| a.nearest.total_cmp(&b.nearest));
    let solids = SolidsView {
        terrain,
        projection,
        far,
        sun: SUN.normalize(),
        rects: &rects,
    };
    let paint = |scratch: &mut RowScratch, mut rows: Rows<'_>| {
        for (row, cells) in rows.each_row() {
            solids.paint_row(row, cells, scratch);
        }
    };
    match pool {
        // A row each: rows that meet no shape cost nothing, so runs of
        // several would leave a thread idle.
        Some(pool) => pool.install(|| grid.par_runs(1).for_each_init(RowScratch::default, paint)),
        None => paint(&mut RowScratch::default(), grid.all_rows()),
    }
}

/// A shape as the perspective view sees it: the screen rectangle its
/// bounding box's image covers (columns, then rows: x0, x1, y0, y1), the
/// nearest depth any of it stands at, and whether it carves.
#[derive(Debug, Clone, Copy)]
struct ShapeRect {
    shape: u32,
    rect: [f32; 4],
    nearest: f32,
    carves: bool,
}

impl ShapeRect {
    fn covers(&self, x: f32) -> bool {
        x >= self.rect[0] && x <= self.rect[1]
    }
}

/// What painting one row of [`perspective_solids`] needs, shared by every row.
struct SolidsView<'a, 'g> {
    terrain: &'a Ground<'g>,
    projection: &'a Projection,
    far: f32,
    sun: Vec3,
    /// Nearest first.
    rects: &'a [ShapeRect],
}

/// One row's working lists, kept from row to row.
#[derive(Default)]
struct RowScratch {
    /// The shapes whose rectangles span the row: each cell tests only those.
    in_row: Vec<ShapeRect>,
    /// The shapes under one cell, for a cast through a carve.
    candidates: Vec<u32>,
}

impl SolidsView<'_, '_> {
    /// Paints row `row` (its `cells`, over the rastered ground).
    fn paint_row(&self, row: usize, cells: &mut [Cell], scratch: &mut RowScratch) {
        let (terrain, projection, far) = (self.terrain, self.projection, self.far);
        let y = row as f32 + 0.5;
        let RowScratch { in_row, candidates } = scratch;
        in_row.clear();
        in_row.extend(
            self.rects
                .iter()
                .filter(|r| y >= r.rect[2] && y <= r.rect[3]),
        );
        if in_row.is_empty() {
            return;
        }
        for (col, slot) in cells.iter_mut().enumerate() {
            let x = col as f32 + 0.5;
            let rastered = slot.depth;
            let carved = in_row.iter().any(|r| r.carves && r.covers(x));
            // Added shapes wholly behind the rastered ground are hidden
            // unless a carve opens that ground.
            if !carved && !in_row.iter().any(|r| r.nearest < rastered && r.covers(x)) {
                continue;
            }
            let direction = projection.ray(x, y);
            let along = direction.dot(projection.forward).max(1e-6);
            let ground = rastered / along;
            // What the ray meets first: how far along it, and which shape
            // (none: the ground).
            let hit = if carved {
                // A carve may open the ground onto shapes behind it: the
                // full cast, over every shape under the cell.
                candidates.clear();
                candidates.extend(in_row.iter().filter(|r| r.covers(x)).map(|r| r.shape));
                terrain
                    .raycast_over_ground(
                        projection.origin,
                        direction,
                        2.0 * far,
                        ground,
                        candidates,
                    )
                    .map(|t| {
                        let under = in_row.iter().filter(|r| r.covers(x));
                        let shapes = under.map(|r| (r.shape, r.carves));
                        (t, face_at(terrain, shapes, projection.origin, direction, t))
                    })
            } else {
                // Only added shapes and the ground, all solid: the nearest
                // entry among them (from the camera when it is inside one).
                let mut first = (ground, None);
                for r in in_row.iter() {
                    if r.nearest >= first.0 * along {
                        break;
                    }
                    if !r.covers(x) {
                        continue;
                    }
                    if let Some(span) = terrain.shape_span(r.shape, projection.origin, direction)
                        && span.exit >= 0.0
                        && span.enter.max(0.0) < first.0
                        && span.enter < 2.0 * far
                    {
                        first = (span.enter.max(0.0), Some((r.shape, false)));
                    }
                }
                first.0.is_finite().then_some(first)
            };
            *slot = match hit {
                // The ground as rastered.
                Some((t, _)) if ground.is_finite() && (t - ground).abs() <= 1e-3 * t.max(1.0) => {
                    continue;
                }
                Some((t, shape)) => {
                    let point = projection.origin + direction * t;
                    let normal = match shape {
                        Some((i, carve)) => {
                            let n = terrain.shape_normal(i, point);
                            if carve { -n } else { n }
                        }
                        None => terrain.normal_at(point),
                    };
                    // Sunlight, and a fill light from the camera so faces
                    // turned from the sun (a ceiling) still show their shape.
                    let light = 0.65 * normal.dot(self.sun).max(0.0)
                        + 0.35 * (-normal.dot(direction)).max(0.0);
                    let depth = t * along;
                    let fog = (1.0 - depth / far).clamp(0.2, 1.0);
                    let level = 0.15 + 0.8 * light * fog;
                    Cell {
                        ch: ramp(LIGHT_RAMP, level),
                        ink: brightness(level),
                        depth,
                    }
                }
                // The ground there was carved away and nothing lies behind.
                None if carved && ground.is_finite() => Cell::EMPTY,
                None => continue,
            };
        }
    }
}

/// Which shape's face a ray cast through the solid met at `t`, and whether
/// that shape carves (its face then looks inward): the shape whose own
/// crossing the cast stopped at, an added shape entered or a carve left.
/// `None` when it met the ground or the camera stands inside the solid.
fn face_at(
    terrain: &Ground<'_>,
    mut shapes: impl Iterator<Item = (u32, bool)>,
    origin: Vec3,
    direction: Vec3,
    t: f32,
) -> Option<(u32, bool)> {
    shapes.find_map(|(i, carves)| {
        let span = terrain.shape_span(i, origin, direction)?;
        let crossing = if carves { span.exit } else { span.enter };
        (crossing == t).then_some((i, carves))
    })
}

/// Solid shapes seen from above: `%` where a shape's top is the surface,
/// `&` where that top is a roof with open space under it (a room, an
/// overhang), `_` where a carve opens the ground (a pit, a trench, a
/// crater), `#`-free so the inspected leg stays apart. A shape's top is
/// drawn at its depth, so what stands on it shows over it and what is
/// below its edge is hidden; a roof is drawn behind everything, so a
/// creature in the room or on the ceiling under it shows through it (the
/// view follows that creature, and would otherwise show only the roof).
/// An opening is drawn at the depth of what the carve left, so a creature
/// down in it shows (the ground's own height stood over it, and a spider
/// in a crater vanished from the view).
fn plan_shapes(grid: &mut Grid, terrain: &Ground<'_>, projection: &Projection) {
    for row in 0..grid.height() {
        for col in 0..grid.width() {
            let p = projection.unproject(col as f32 + 0.5, row as f32 + 0.5);
            if !terrain.vertical_meets_shape(p.x, p.z) {
                continue;
            }
            let ground = terrain.height(p.x, p.z);
            let top = terrain.surface_top(p.x, p.z).point;
            if top.y < ground - 0.02 {
                grid.put(
                    col,
                    row,
                    Cell {
                        ch: '_',
                        ink: brightness(0.3),
                        depth: (top - projection.origin).dot(projection.forward),
                    },
                );
                continue;
            }
            if top.y <= ground + 0.02 {
                continue;
            }
            let roofed = !terrain.inside(Vec3::new(p.x, ground + 0.3, p.z));
            if roofed {
                grid.put(
                    col,
                    row,
                    Cell {
                        ch: '&',
                        ink: brightness(0.45),
                        depth: f32::MAX,
                    },
                );
            } else {
                grid.plot(
                    col as i32,
                    row as i32,
                    Cell {
                        ch: '%',
                        ink: brightness(0.75),
                        depth: (top - projection.origin).dot(projection.forward),
                    },
                );
            }
        }
    }
}

/// Side and front views of a solid world: the section through the focus,
/// solid drawn as solid (`%` for shapes, the ground's fill where a shape
/// carves none), open space left open, so walls and ceilings show as such.
///
/// A cell is looked at at its centre, and, near a shape thinner than a
/// cell, at up to [`SECTION_SAMPLES`] points along each side: a 5 cm wall
/// fell between the centres of 10 cm cells, and the side view showed a
/// spider climbing nothing.
fn section(grid: &mut Grid, terrain: &Ground<'_>, projection: &Projection) {
    let thinnest = terrain.thinnest_added_shape();
    let corner = projection.unproject(0.0, 0.0);
    let cell_width = projection.unproject(1.0, 0.0).distance(corner);
    let cell_height = projection.unproject(0.0, 1.0).distance(corner);
    // Points no farther apart than the thinnest shape, so one falls in it.
    let samples = |side: f32| (side / thinnest).ceil().clamp(1.0, SECTION_SAMPLES);
    let (across, down) = (samples(cell_width), samples(cell_height));
    let half_diagonal = 0.5 * cell_width.hypot(cell_height);
    let shape_solid = |p: Vec3| terrain.inside(p) && p.y >= terrain.height(p.x, p.z);
    for row in 0..grid.height() {
        for col in 0..grid.width() {
            let (x, y) = (col as f32, row as f32);
            let p = projection.unproject(x + 0.5, y + 0.5);
            let solid = terrain.inside(p);
            let ground = p.y < terrain.height(p.x, p.z);
            let shape = (solid && !ground)
                || (across > 1.0 || down > 1.0)
                    && terrain.added_shape_within(p, half_diagonal)
                    && (0..down as usize).any(|j| {
                        (0..across as usize).any(|i| {
                            shape_solid(projection.unproject(
                                x + (i as f32 + 0.5) / across,
                                y + (j as f32 + 0.5) / down,
                            ))
                        })
                    });
            let cell = if shape {
                Cell {
                    ch: '%',
                    ink: brightness(0.6),
                    depth: 0.0,
                }
            } else if ground && !solid {
                // Carved out of the ground: open.
                Cell {
                    ch: ' ',
                    ink: brightness(0.0),
                    depth: 0.0,
                }
            } else {
                continue;
            };
            grid.plot(col as i32, row as i32, cell);
        }
    }
}

/// Most points a section cell is looked at along each side (see
/// [`section`]), near a thin shape only: a shape thinner than an eighth of
/// a cell may still fall between them.
const SECTION_SAMPLES: f32 = 8.0;

/// Plan view: each cell's character (and ink) from a ramp by height, with
/// contour lines every [`CONTOUR_INTERVAL`] drawn as `~` on sunlit slopes and
/// `"` on shaded ones, so both height and shape read at a glance. Neither is
/// a character legs are drawn with, so they stay apart without colour.
fn plan(grid: &mut Grid, terrain: &Ground<'_>, projection: &Projection) {
    let (lo, hi) = terrain.field().height_range();
    let span = (hi - lo).max(1e-3);
    let sun = SUN.normalize();
    let mut band_above = vec![i64::MIN; grid.width()];
    for row in 0..grid.height() {
        let mut band_left = i64::MIN;
        for (col, above) in band_above.iter_mut().enumerate() {
            let p = projection.unproject(col as f32 + 0.5, row as f32 + 0.5);
            let h = terrain.height(p.x, p.z);
            let band = (h / CONTOUR_INTERVAL).floor() as i64;
            let contour =
                (band_left != i64::MIN && band != band_left) || (row > 0 && band != *above);
            band_left = band;
            *above = band;
            let level = if hi - lo < 1e-3 { 0.0 } else { (h - lo) / span };
            let ch = if contour {
                if terrain.normal(p.x, p.z).dot(sun) > 0.75 {
                    '~'
                } else {
                    '"'
                }
            } else {
                ramp(HEIGHT_RAMP, level)
            };
            let depth = (Vec3::new(p.x, h, p.z) - projection.origin).dot(projection.forward);
            // Contours a shade darker, so they show in half-block pixels too.
            let shade = 0.15 + 0.85 * level - if contour { 0.2 } else { 0.0 };
            grid.plot(
                col as i32,
                row as i32,
                Cell {
                    ch,
                    ink: brightness(shade),
                    depth,
                },
            );
        }
    }
}

/// Side and front views: the ground across the subject's depth band. Its
/// highest point in each column is the surface line (drawn by slope), down
/// to its lowest is a light band (`,`), and below that the fill: a foot
/// planted anywhere across the band stands on the line or inside the band,
/// never below it, as a profile through the focus alone would draw a foot
/// on lower ground beside it.
fn profile(grid: &mut Grid, terrain: &Ground<'_>, projection: &Projection, band: f32) {
    let width = grid.width();
    let band = if band.is_finite() { band.max(0.0) } else { 0.0 };
    // (top row, bottom row) of the ground across the band, per column edge.
    let rows: Vec<(f32, f32)> = (0..=width + 1)
        .map(|i| {
            let centre = projection.unproject(i as f32 - 0.5, 0.0);
            let mut span = (f32::INFINITY, f32::NEG_INFINITY);
            for k in 0..BAND_SAMPLES {
                let along = band * (2.0 * k as f32 / (BAND_SAMPLES - 1) as f32 - 1.0);
                let p = centre + projection.forward * along;
                let ground = Vec3::new(p.x, terrain.height(p.x, p.z), p.z);
                if let Some((_, row, _)) = projection.project(ground) {
                    span = (span.0.min(row), span.1.max(row));
                }
            }
            span
        })
        .collect();
    for col in 0..width {
        let (left, (here, bottom), right) = (rows[col].0, rows[col + 1], rows[col + 2].0);
        if !here.is_finite() {
            continue;
        }
        let top = here.round().max(0.0) as usize;
        let fill_from = bottom.round().max(0.0) as usize + 1;
        let rise = left - right; // rows grow downward
        let edge = if rise > 0.6 {
            '/'
        } else if rise < -0.6 {
            '\\'
        } else {
            '_'
        };
        for row in top..grid.height() {
            let (ch, level) = if row == top {
                (edge, 0.9)
            } else if row < fill_from {
                (',', 0.55)
            } else {
                (if (row + col) % 2 == 0 { ':' } else { '.' }, 0.3)
            };
            grid.plot(
                col as i32,
                row as i32,
                Cell {
                    ch,
                    ink: brightness(level),
                    depth: 0.0,
                },
            );
        }
    }
}

/// Perspective view: the terrain patch around the focus as lit triangles in a
/// depth buffer, brightness by sun · normal and fading with distance.
/// Returns how far (depth) the view reaches: the patch's far edge.
fn surface(
    grid: &mut Grid,
    terrain: &Ground<'_>,
    projection: &Projection,
    pool: Option<&ThreadPool>,
) -> f32 {
    let zoom_out = (projection.origin - projection.origin.with_y(0.0))
        .length()
        .max(1.0);
    let half = PATCH_HALF_SIZE.max(zoom_out * 6.0).min(200.0);
    let step = (2.0 * half / (PATCH_VERTICES - 1) as f32).max(terrain.field().spacing());
    let n = ((2.0 * half / step) as usize + 1).min(PATCH_VERTICES);
    let centre =
        projection.origin + projection.forward.with_y(0.0).normalize_or(Vec3::X) * (half * 0.6);
    let sun = SUN.normalize();
    let far = half * 2.0;
    // Heights on the patch's vertices and a ring of one around them, read
    // once: each vertex's normal comes from its neighbours' heights.
    let ring = n + 2;
    let at = |i: usize, j: usize| {
        let x = centre.x - half + (i as f32 - 1.0) * step;
        let z = centre.z - half + (j as f32 - 1.0) * step;
        (x, z)
    };
    let mut heights = vec![0.0f32; ring * ring];
    fill_rows(pool, &mut heights, ring, |j, row| {
        for (i, height) in row.iter_mut().enumerate() {
            let (x, z) = at(i, j);
            *height = terrain.height(x, z);
        }
    });
    let mut verts: Vec<Option<Vertex>> = vec![None; n * n];
    fill_rows(pool, &mut verts, n, |j, row| {
        let j = j + 1;
        for (i, vert) in row.iter_mut().enumerate() {
            let i = i + 1;
            let (x, z) = at(i, j);
            let h = |i: usize, j: usize| heights[j * ring + i];
            let p = Vec3::new(x, h(i, j), z);
            let normal = Vec3::new(
                h(i - 1, j) - h(i + 1, j),
                2.0 * step,
                h(i, j - 1) - h(i, j + 1),
            )
            .normalize();
            let light = normal.dot(sun).max(0.0);
            *vert = projection.project(p).map(|(c, r, d)| {
                let fog = (1.0 - d / far).clamp(0.2, 1.0);
                (c, r, d, 0.9 * light * fog)
            });
        }
    });
    // Each cell of the patch as two triangles, in a fixed order: where two
    // stand at the same depth, the later one shows.
    let quad = |k: usize| {
        let (i, j) = (k % (n - 1), k / (n - 1));
        let corners = (
            verts[j * n + i],
            verts[j * n + i + 1],
            verts[(j + 1) * n + i],
            verts[(j + 1) * n + i + 1],
        );
        match corners {
            (Some(a), Some(b), Some(c), Some(d)) => Some((a, b, c, d)),
            _ => None,
        }
    };
    let quads = (n - 1) * (n - 1);
    let draw = |rows: &mut Rows<'_>, (a, b, c, d): (Vertex, Vertex, Vertex, Vertex)| {
        triangle(rows, a, b, c);
        triangle(rows, b, d, c);
    };
    match pool {
        Some(pool) if grid.height() > 0 => {
            // Runs of rows drawn apart, each with the cells whose image
            // reaches it (in the same order): the same grid as drawn whole.
            let rows_each = grid.height().div_ceil(RASTER_RUNS).max(1);
            let mut runs: Vec<Vec<u32>> = vec![Vec::new(); grid.height().div_ceil(rows_each)];
            for k in 0..quads {
                let Some((a, b, c, d)) = quad(k) else {
                    continue;
                };
                let (top, bottom) = [a, b, c, d]
                    .iter()
                    .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), v| {
                        (lo.min(v.1), hi.max(v.1))
                    });
                if !(top.is_finite() && bottom.is_finite()) {
                    continue;
                }
                let last = runs.len() - 1;
                let first_run = (top.floor().max(0.0) as usize / rows_each).min(last);
                let last_run = (bottom.ceil().max(0.0) as usize / rows_each).min(last);
                for run in &mut runs[first_run..=last_run] {
                    run.push(k as u32);
                }
            }
            pool.install(|| {
                grid.par_runs(rows_each)
                    .zip(runs.par_iter())
                    .for_each(|(mut rows, run)| {
                        for &k in run {
                            if let Some(corners) = quad(k as usize) {
                                draw(&mut rows, corners);
                            }
                        }
                    })
            });
        }
        _ => {
            let mut rows = grid.all_rows();
            for corners in (0..quads).filter_map(quad) {
                draw(&mut rows, corners);
            }
        }
    }
    far
}

/// A vertex of the perspective view's ground on screen: column, row,
/// depth and light.
type Vertex = (f32, f32, f32, f32);

/// How many runs of rows the perspective view's ground is drawn in, on a
/// pool: enough that a run of near rows (few large triangles) and one of
/// far rows (many small ones) even out across threads.
const RASTER_RUNS: usize = 8;

/// Fills `buffer`, rows of `row_len`, with `fill(row index, row)`: on
/// `pool` when there is one, row by row in parallel.
fn fill_rows<T: Send>(
    pool: Option<&ThreadPool>,
    buffer: &mut [T],
    row_len: usize,
    fill: impl Fn(usize, &mut [T]) + Sync,
) {
    let row_len = row_len.max(1);
    match pool {
        Some(pool) => pool.install(|| {
            buffer
                .par_chunks_mut(row_len)
                .enumerate()
                .for_each(|(j, row)| fill(j, row))
        }),
        None => buffer
            .chunks_mut(row_len)
            .enumerate()
            .for_each(|(j, row)| fill(j, row)),
    }
}

/// Fills a screen-space triangle (column, row, depth, light) into the grid.
fn triangle(rows: &mut Rows<'_>, a: Vertex, b: Vertex, c: Vertex) {
    let area = (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0);
    if area.abs() < 1e-6 || !area.is_finite() {
        return;
    }
    let min_x = a.0.min(b.0).min(c.0).floor().max(0.0);
    let max_x = a.0.max(b.0).max(c.0).ceil().min(rows.width() as f32 - 1.0);
    let min_y = a.1.min(b.1).min(c.1).floor().max(rows.first() as f32);
    let max_y = a.1.max(b.1).max(c.1).ceil().min(rows.end() as f32 - 1.0);
    if min_x > max_x || min_y > max_y {
        return;
    }
    let inv = 1.0 / area;
    for y in min_y as i32..=max_y as i32 {
        let py = y as f32 + 0.5;
        for x in min_x as i32..=max_x as i32 {
            let px = x as f32 + 0.5;
            let w0 = ((b.0 - px) * (c.1 - py) - (b.1 - py) * (c.0 - px)) * inv;
            let w1 = ((c.0 - px) * (a.1 - py) - (c.1 - py) * (a.0 - px)) * inv;
            let w2 = 1.0 - w0 - w1;
            if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                continue;
            }
            let depth = w0 * a.2 + w1 * b.2 + w2 * c.2;
            let light = w0 * a.3 + w1 * b.3 + w2 * c.3;
            rows.plot(
                x,
                y,
                Cell {
                    ch: ramp(LIGHT_RAMP, light),
                    ink: brightness(light),
                    depth,
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::camera::{Camera, Framing};
    use crate::terrain::{Heightfield, NoiseSpec, TerrainSpec};

    fn rough() -> Heightfield {
        Heightfield::generate(&TerrainSpec {
            name: "rough".into(),
            seed: 3,
            size: [40.0, 40.0],
            resolution: 0.5,
            noise: NoiseSpec {
                source: crate::terrain::NoiseSource::Perlin,
                fractal: crate::terrain::Fractal::Ridged,
                frequency: 0.1,
                amplitude: 0.8,
                octaves: 5,
                lacunarity: 2.0,
                persistence: 0.5,
                base: 0.0,
                offset: [0.0; 2],
            },
            shapes: Vec::new(),
        })
    }

    /// The perspective view's culling is exact: every cell shows what a
    /// cast through every shape the view draws (each whose box reaches
    /// within its far depth) meets first (a shape at its depth, the
    /// rastered ground, or the opening a carve leaves), on the shipped
    /// solid worlds and on one of every kind of shape, with the camera
    /// outside, beside and inside them.
    #[test]
    fn the_perspective_view_shows_what_a_cast_through_every_shape_meets() {
        use crate::terrain::{Shape, ShapeKind};
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .expect("a pool of two threads starts");
        let mut own = rough().spec().clone();
        let shape = |kind, center: [f32; 3], half: [f32; 3], yaw: f32, subtract| {
            Shape::new(kind, center.into(), half.into(), yaw.to_radians(), subtract)
        };
        own.shapes = vec![
            shape(
                ShapeKind::Box,
                [6.0, 1.0, 1.0],
                [1.0, 2.0, 3.0],
                30.0,
                false,
            ),
            shape(ShapeKind::Sphere, [9.0, 1.5, -2.0], [1.5; 3], 0.0, false),
            shape(
                ShapeKind::Cylinder,
                [12.0, 0.0, 3.0],
                [1.2, 2.5, 1.2],
                0.0,
                true,
            ),
            shape(
                ShapeKind::Cylinder,
                [4.0, 0.5, -3.0],
                [0.6, 3.0, 0.6],
                0.0,
                false,
            ),
            shape(ShapeKind::Box, [8.0, 0.0, 0.0], [0.5, 0.8, 0.5], 0.0, true),
        ];
        let shipped = ["wall", "overhang", "canyon"]
            .map(|name| crate::config::load_terrain(name).expect("a shipped terrain"));
        let mut cells_with_shapes = 0;
        for spec in shipped.iter().chain([&own]) {
            let field = Heightfield::generate(spec);
            let ground = field.world();
            for (focus, heading) in [
                (Vec3::new(0.0, 0.5, 0.0), Vec3::X),
                (Vec3::new(4.0, 1.5, 1.0), Vec3::new(0.6, 0.0, -0.8)),
                (Vec3::new(7.0, 0.5, 0.0), Vec3::X),
                (Vec3::new(6.0, 1.0, 1.0), Vec3::new(-0.3, 0.0, 1.0)),
                (Vec3::new(10.0, 3.5, 2.0), Vec3::new(-1.0, 0.0, -0.2)),
            ] {
                let framing = Framing::following(focus, heading.normalize());
                let projection = Projection::framed(
                    ViewKind::Perspective,
                    &Camera::default(),
                    &framing,
                    120,
                    40,
                    2.0,
                );
                let mut grid = Grid::new(120, 40);
                let far = surface(&mut grid, &ground, &projection, None);
                // The view draws the shapes whose boxes reach within its
                // far depth: all of each.
                let drawn: Vec<u32> = ground
                    .shape_hulls()
                    .filter(|(_, corners, _)| {
                        corners
                            .iter()
                            .any(|&c| (c - projection.origin).dot(projection.forward) <= far)
                    })
                    .map(|(i, _, _)| i)
                    .collect();
                let rastered = grid.clone();
                let mut in_parallel = grid.clone();
                perspective_solids(&mut grid, &ground, &projection, far, None);
                // Rows painted on two threads come out the same.
                perspective_solids(&mut in_parallel, &ground, &projection, far, Some(&pool));
                assert!(in_parallel == grid, "painted in parallel: another grid");
                for row in 0..40 {
                    for col in 0..120 {
                        let (x, y) = (col as f32 + 0.5, row as f32 + 0.5);
                        let raster = *rastered.get(col, row).unwrap();
                        let shown = *grid.get(col, row).unwrap();
                        let direction = projection.ray(x, y);
                        let along = direction.dot(projection.forward).max(1e-6);
                        let at_ground = raster.depth / along;
                        let hit = ground.raycast_over_ground(
                            projection.origin,
                            direction,
                            2.0 * far,
                            at_ground,
                            &drawn,
                        );
                        let place = format!("{}: cell ({col}, {row}) from {focus}", spec.name);
                        match hit {
                            Some(t)
                                if at_ground.is_finite()
                                    && (t - at_ground).abs() <= 1e-3 * t.max(1.0) =>
                            {
                                assert_eq!(shown, raster, "{place}: the ground");
                            }
                            Some(t) => {
                                let depth = t * along;
                                assert!(
                                    (shown.depth - depth).abs() <= 1e-4 * depth.max(1.0),
                                    "{place}: a shape at depth {depth}, shown {shown:?}"
                                );
                                cells_with_shapes += 1;
                            }
                            None if at_ground.is_finite() => {
                                assert_eq!(shown, Cell::EMPTY, "{place}: carved open")
                            }
                            None => assert_eq!(shown, raster, "{place}: nothing"),
                        }
                    }
                }
            }
        }
        // The views do show shapes (the check above is not vacuous).
        assert!(cells_with_shapes > 10_000, "{cells_with_shapes}");
    }

    /// The face a cast stops at: an added shape entered (its normal out of
    /// it), a carve left (its normal into the room), or neither (the ground).
    #[test]
    fn a_cast_stops_at_the_face_of_the_shape_it_enters_or_the_carve_it_leaves() {
        let spec = crate::config::load_terrain("overhang").expect("a shipped terrain");
        let field = Heightfield::generate(&spec);
        let ground = field.world();
        // Shape 0 is the block (x 5–11), shape 1 the room carved in it (x
        // 4.9–10, y 0–2.4).
        let shapes = [(0, false), (1, true)];
        // The floor is level at y = 0: where a ray meets it, as a view's
        // raster would have it.
        let faces = |origin: Vec3, direction: Vec3| {
            let floor = if direction.y < 0.0 {
                -origin.y / direction.y
            } else {
                f32::INFINITY
            };
            let t = ground
                .raycast_over_ground(origin, direction, 100.0, floor, &[0, 1])
                .expect("the cast meets the solid");
            let face = face_at(&ground, shapes.into_iter(), origin, direction, t);
            (t, face)
        };
        // From outside, toward the block's front face over the room's roof.
        let (t, face) = faces(Vec3::new(0.0, 2.7, 0.0), Vec3::X);
        assert!(
            (t - 5.0).abs() < 1e-4 && face == Some((0, false)),
            "{t} {face:?}"
        );
        let normal = ground.shape_normal(0, Vec3::new(5.0, 2.7, 0.0));
        assert!((normal + Vec3::X).length() < 1e-3, "{normal}");
        // From inside the room, toward its back wall: the carve's face,
        // whose own normal (out of the room) is turned into the room.
        let (t, face) = faces(Vec3::new(7.0, 1.0, 0.0), Vec3::X);
        assert!(
            (t - 3.0).abs() < 1e-4 && face == Some((1, true)),
            "{t} {face:?}"
        );
        let normal = -ground.shape_normal(1, Vec3::new(10.0, 1.0, 0.0));
        assert!((normal + Vec3::X).length() < 1e-3, "{normal}");
        // Down onto the open floor in front of the room: no shape's face.
        let down = Vec3::new(0.0, -1.0, 0.0);
        let (t, face) = faces(Vec3::new(2.0, 1.0, 0.0), down);
        assert!((t - 1.0).abs() < 1e-3 && face.is_none(), "{t} {face:?}");
    }

    /// Ground anywhere across the band (where a foot may stand) is drawn on
    /// the surface line or in the band, never in the fill below it; and
    /// with no band the view is the section through the focus.
    #[test]
    fn side_and_front_views_draw_no_ground_of_the_band_inside_the_fill() {
        let field = rough();
        let ground = field.world();
        let band = 0.9;
        for (kind, heading) in [
            (ViewKind::Side, Vec3::X),
            (ViewKind::Front, Vec3::new(0.6, 0.0, 0.8)),
        ] {
            let focus = Vec3::new(3.0, ground.height(3.0, -2.0), -2.0);
            let framing = Framing::following(focus, heading);
            let projection = Projection::framed(kind, &Camera::default(), &framing, 100, 40, 2.0);
            let mut grid = Grid::new(100, 40);
            draw_terrain(&mut grid, &ground, &projection, band, None);
            let mut checked = 0;
            for col in 0..100 {
                let centre = projection.unproject(col as f32 + 0.5, 0.0);
                for k in 0..=8 {
                    let along = band * (k as f32 / 4.0 - 1.0);
                    let p = centre + projection.forward * along;
                    let foot = Vec3::new(p.x, ground.height(p.x, p.z), p.z);
                    let (c, row, _) = projection.project(foot).unwrap();
                    let (c, row) = (c.floor() as usize, row.round() as usize);
                    if c != col || row >= 40 {
                        continue;
                    }
                    let ch = grid.get(col, row).unwrap().ch;
                    assert!(
                        !matches!(ch, ':' | '.'),
                        "{kind:?}: ground at {foot} drawn as fill at ({col}, {row}):\n{}",
                        grid.to_text()
                    );
                    checked += 1;
                }
            }
            assert!(checked > 500, "{kind:?}: {checked}");
            // The band shows: this ground is not level across it.
            assert!(grid.to_text().contains(','), "{}", grid.to_text());
        }
    }
}
